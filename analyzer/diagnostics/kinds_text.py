"""The text reports about kinds: ``--kinds`` (the source with every binding's kind beside it, like
the badges of the spec's figure) and ``--why NAME`` (the chain that gives one binding its kind, in
the excerpt style of a diagnostic).

Both read plain data, ``BindingKind`` records, so this module knows nothing of the analysis; the
CLI builds the records from ``analyzer.analysis.KernelAnalysis``. A function's bindings come once
per call site (``calls`` says which); the listing merges them when they agree.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...language.records import record
from .model import Label, Span
from .text import printable, render_block, split_lines

# What each kind means, in the words of per-thread-values.md ("The three kinds").
KIND_MEANINGS = {
    "uniform": "nothing that differs between threads flows into it",
    "warp-uniform": "the same value in every lane of a warp, but it may differ between warps",
    "varying": "one value per lane, which may differ between the lanes of a warp",
}
ANNOTATION = "// "          # the badge looks like a Phobos line comment
ALIGN_CAP = 80               # badges line up at the widest annotated line, up to this column


@record(frozen=True)
class BindingKind:
    """One `let`, `var` or loop binding of a checked kernel, in one instance of its body."""

    kernel: str
    name: str
    span: Span                                  # the declared name
    kind: str                                   # "uniform", "warp-uniform" or "varying"
    calls: tuple[tuple[str, Span], ...] = ()    # inlined through: (function, call span), kernel side first
    chain: tuple[Label, ...] = ()               # why it has its kind, in causal order
    notes: tuple[str, ...] = ()                 # what the chain alone does not say (a reused var, ...)


def render_kinds_listing(path: str, source_text: str | None, bindings: Iterable[BindingKind],
                         analysed: bool = True) -> str:
    """The whole source under a header line, each line that declares bindings followed by their
    kinds as ``// name: kind``; without a trailing newline. ``analysed`` False: the file had errors
    that stop the analysis, so there are no kinds to show (said in one line, no source)."""
    header = f"{path}: kinds of the let, var and loop bindings"
    if not analysed or source_text is None:
        return f"{header}\n  (none: the errors above stop the analysis before kinds are inferred)"
    lines = list(split_lines(source_text))
    if lines and lines[-1] == "":
        lines.pop()                              # the newline that ends the file starts no line
    badges = _badges_by_line(bindings)
    width = len(str(max(len(lines), 1)))
    shown = [printable(text).rstrip() for text in lines]
    annotated = [len(shown[n - 1].expandtabs()) for n in badges if 1 <= n <= len(shown)]
    column = min(max(annotated, default=0), ALIGN_CAP) + 2
    out = [header]
    for n, text in enumerate(shown, start=1):
        row = f" {str(n).rjust(width)} | {text}"
        if n in badges:
            pad = max(column - len(text.expandtabs()), 2)
            row = f"{row}{' ' * pad}{ANNOTATION}{badges[n]}"
        out.append(row.rstrip())
    return "\n".join(out)


def _badges_by_line(bindings: Iterable[BindingKind]) -> dict[int, str]:
    # A binding inside a function appears once per call site: group the instances by the place
    # of the declaration, then say one kind when they agree and each call's kind when they do not.
    by_place: dict[tuple[int, int, str], list[BindingKind]] = {}
    for b in bindings:
        by_place.setdefault((b.span.line, b.span.column, b.name), []).append(b)
    by_line: dict[int, list[str]] = {}
    for (line, _column, name), instances in sorted(by_place.items()):
        kinds = {b.kind for b in instances}
        if len(kinds) == 1:
            badge = f"{name}: {instances[0].kind}"
        else:
            several_kernels = len({b.kernel for b in instances}) > 1
            places: dict[str, list[str]] = {}    # kind -> where, in call-site order
            for b in sorted(instances, key=_instance_order):
                places.setdefault(b.kind, []).append(_instance_place(b, several_kernels))
            badge = f"{name}: " + ", ".join(f"{kind} ({'; '.join(where)})" for kind, where in places.items())
        by_line.setdefault(line, []).append(badge)
    return {line: ", ".join(parts) for line, parts in by_line.items()}


def _instance_order(b: BindingKind) -> tuple:
    return (b.kernel, tuple((s.line, s.column) for _, s in b.calls))


def _instance_place(b: BindingKind, with_kernel: bool) -> str:
    where = " > ".join(f"{s.line}:{s.column}" for _, s in b.calls)
    place = f"inlined at {where}" if where else "in the kernel"
    return f"{b.kernel}, {place}" if with_kernel else place


def render_why(path: str, source_text: str | None, binding: BindingKind) -> str:
    """The chain behind one binding's kind as a note in the diagnostic style; no trailing newline.

    ``path:line:col: note: `row` is warp-uniform``, then the excerpt: ``-`` under each step of
    the chain, numbered from the origin, and ``^`` under the declared name, labelled with what
    the kind means; footer lines name the kernel and, inside a function, the call it was
    inlined from."""
    headline = f"{path}:{binding.span.line}:{binding.span.column}: note: `{binding.name}` is {binding.kind}"
    label = f"{binding.kind}: {KIND_MEANINGS.get(binding.kind, '')}".rstrip(": ")
    footer: list[tuple[str, str]] = [("kernel", binding.kernel)]
    if binding.calls:
        footer.append(("inlined", inlined_text(binding.calls, binding.kernel)))
    if binding.kind != "uniform" and not binding.chain:
        footer.append(("note", "the analysis recorded no steps for this kind (a gap in phobos-tools: please report it)"))
    footer.extend(("note", n) for n in binding.notes)
    return render_block(headline, binding.span, label, binding.chain, footer, source_text)


def inlined_text(calls, kernel: str) -> str:
    """The calls a function's value was inlined through, innermost first (as --why says it):
    "`g` called at 5:3 in `f`, called at 29:12 in kernel `k`". ``calls``: (name, call span),
    outermost first."""
    steps = []
    for depth in reversed(range(len(calls))):
        span = calls[depth][1]
        caller = f"`{calls[depth - 1][0]}`" if depth else f"kernel `{kernel}`"
        steps.append(f"called at {span.line}:{span.column} in {caller}")
    return f"`{calls[-1][0]}` " + ", ".join(steps)
