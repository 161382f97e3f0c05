"""The `@autotune` configurations a check covers (LANGUAGE §2, DESIGN.md).

`-D NAME=v` fixes a name; every configuration of the product of the remaining lists is checked,
at most ``MAX_CONFIGURATIONS`` per kernel (else PH203, and only the first is checked). A
diagnostic that holds in some configurations of its kernel but not all carries a note naming
them; one that holds in all appears once, as it would without `@autotune`.
"""

from __future__ import annotations

from itertools import product

from .diagnostics import Diagnostic, Span
from .syntax import ast as A

MAX_CONFIGURATIONS = 256
I32 = (-(2**31), 2**31 - 1)


def choices(kernel: A.Kernel, defines) -> list[tuple[str, tuple[int, ...]]]:
    """The kernel's `@autotune` names that `-D` leaves open, each with its values, in the order
    written (the first `@autotune` only; what sema reports as invalid is left out)."""
    attr = next((a for a in kernel.attrs if a.name == "autotune"), None)
    if attr is None:
        return []
    out, seen = [], set()
    for arg in attr.args:
        if arg.name is None or arg.choices is None or arg.name in seen:
            continue
        seen.add(arg.name)
        values = tuple(c.value for c in arg.choices)
        if arg.name in (defines or {}) or not values or not all(I32[0] <= v <= I32[1] for v in values):
            continue
        out.append((arg.name, values))
    return out


def configurations(program: A.Program, defines, diagnostics: list[Diagnostic]) -> dict[str, list[dict]]:
    """kernel name -> its configurations ({NAME: value}, the first one each list's first values),
    for the kernels with more than one. Over the limit: PH203, and that kernel checks one."""
    out = {}
    for k in program.kernels:
        names = choices(k, defines)
        count = 1
        for _, values in names:
            count *= len(values)
        if count <= 1:
            continue
        if count > MAX_CONFIGURATIONS:
            attr = next(a for a in k.attrs if a.name == "autotune")
            diagnostics.append(Diagnostic(
                "PH203", f"`@autotune` of `{k.name}` has {count} configurations, more than {MAX_CONFIGURATIONS}",
                attr.span, label=f"{count} configurations",
                help="shorten the lists, or fix some names with `-D NAME=VALUE`"))
            continue
        out[k.name] = [dict(zip([n for n, _ in names], combo)) for combo in product(*(v for _, v in names))]
    return out


def label(config: dict) -> str:
    return ", ".join(f"{n}={v}" for n, v in config.items())


def merge(program: A.Program, configs: dict[str, list[dict]], runs: list[list[Diagnostic]]) -> list[Diagnostic]:
    """One list from the diagnostics of each run (run ``i`` checked configuration ``i`` of each
    kernel that has one, the first of the others): each diagnostic once, with a note naming the
    configurations it holds in when that is not all of its kernel's."""
    held: dict[tuple, tuple[Diagnostic, set[int]]] = {}
    for i, found in enumerate(runs):
        for d in found:
            key = (d.code, d.span, d.message, d.severity, d.label)
            if key not in held:
                held[key] = (d, set())
            held[key][1].add(i)
    out = []
    for d, where in held.values():
        kernel = _kernel_at(program, d.span)
        own = configs.get(kernel) if kernel is not None else None
        if own is not None:
            where = {i for i in where if i < len(own)}
            if len(where) < len(own):
                named = "; ".join(f"`{label(own[i])}`" for i in sorted(where))
                d.notes = list(d.notes) + [
                    f"this holds in {len(where)} of the {len(own)} `@autotune` configurations of "
                    f"`{kernel}`: {named}"]
        elif len(where) < len(runs):        # outside the tuned kernels: name whole runs
            named = "; ".join(_run_label(configs, i) for i in sorted(where))
            d.notes = list(d.notes) + [f"this holds in the `@autotune` configurations {named}"]
        out.append(d)
    return out


def _run_label(configs: dict[str, list[dict]], i: int) -> str:
    return ", ".join(f"`{k}`: `{label(c[i])}`" for k, c in configs.items() if i < len(c))


def _kernel_at(program: A.Program, span: Span) -> str | None:
    for k in program.kernels:
        s = k.span
        if (s.line, s.column) <= (span.line, span.column) <= (s.end_line, s.end_column):
            return k.name
    return None
