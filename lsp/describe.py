"""What the server says about a value: hovers (the kind in the page's words, and for a value
that is not uniform the chain that ``phobos-check --why`` prints) and inlay hints (the badges of
``phobos-check --kinds``, and the control of a CTA-wide operation that is not uniform).

The kinds and chains come from the checker: ``cli.check.binding_kinds`` builds the same records
that ``--kinds`` and ``--why`` print, ``CheckedKernel.kind_of`` gives an expression's kind, and the
analysis's ``divergent_ops`` the operations under control that is not uniform. This module only
words them, as markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analyzer.checked import CheckedProgram, source_of
from ..analyzer.diagnostics.kinds_text import KIND_MEANINGS, BindingKind
from ..analyzer.facts.schema import KIND_NAMES
from ..analyzer.syntax import ast as A
from ..cli.check import FileReport, binding_kinds
from ..language.builtins import ATOMICS, COLLECTIVE_OPS, MEMORY_ORDER, SCALAR_MATH, TILE_BUILTINS
from ..language.ops import OpClass
from ..language.types import Run, Scalar
from .locate import Where

SPEC_PAGE = "per-thread-values.md"

# LANGUAGE §4 in a line each: what the field holds, and so its kind.
CTX_FIELDS = {
    "block": "this CTA's index in the grid, the same for all its threads",
    "blocks": "the grid's extent, the same for every thread of the launch",
    "threads": "the number of threads per CTA (the `@launch` count), the same everywhere",
    "warps": "the number of warps per CTA, `ctx.threads / 32`, the same everywhere",
    "lanes": "the number of lanes per warp, 32",
    "thread": "this thread's index in the CTA, from 0 to `ctx.threads - 1`: one per thread",
    "warp": "this thread's warp, `ctx.thread / 32`: the same within a warp, different between warps",
    "lane": "this thread's lane, `ctx.thread % 32`: different in every lane of a warp",
}
CTX_KINDS = {"thread": "varying", "lane": "varying", "warp": "warp-uniform"}


def ctx_line(path: A.CtxPath) -> str:
    head = path.path[0] if path.path else ""
    what = CTX_FIELDS.get(head, "not a field of `ctx`")
    kind = CTX_KINDS.get(head, "uniform")
    return f"`{path.text}`: {what}; **{kind}** (LANGUAGE §4)"


def builtin_line(name: str, generic: bool = False) -> str | None:
    """One line on a built-in, after LANGUAGE §8's table of where each operation may run."""
    if generic and name == "shfl":
        return ("`shfl<mode E>(v)`: reads `v` from another lane of the warp; lane-level, so control "
                "must be the same across the warp (LANGUAGE §8)")
    if generic and name in COLLECTIVE_OPS:
        return (f"`{name}<over ctx.lane>` combines the lanes of a warp (a warp-uniform result, control the "
                f"same across the warp); `{name}<over ctx.thread>` combines the CTA (a uniform result, "
                "uniform control) (LANGUAGE §8)")
    if name == "barrier":
        return "`barrier()`: every thread of the CTA waits here; CTA-wide, so it needs uniform control (LANGUAGE §8)"
    if name in ATOMICS or name in MEMORY_ORDER:
        return (f"`{name}`: runs once per CTA at device scope; CTA-wide, so it needs uniform control and "
                "uniform operands, and its result is uniform (LANGUAGE §8)")
    if name in TILE_BUILTINS:
        return f"`{name}`: a tile built-in; CTA-wide, so it needs uniform control and uniform operands (LANGUAGE §8)"
    if name in SCALAR_MATH or name == "where":
        return (f"`{name}`: per-thread on scalars and runs (any control, the join of its operands' kinds); "
                "on tiles an elementwise sweep, CTA-wide (LANGUAGE §8)")
    if name in ("sum", "elem", "store"):
        return f"`{name}`: a run operation of one thread, per-thread (LANGUAGE §7, §8)"
    if name == "range":
        return "`range(start, end[, step])`: the values of a `for` loop; the variable joins the kinds of the three (LANGUAGE §5)"
    return None


def _chain_markdown(record: BindingKind) -> list[str]:
    out = [f"{n}. {step.text} (line {step.span.line})" for n, step in enumerate(record.chain, start=1)]
    out += [f"- note: {note}" for note in record.notes]
    return out


def _where(record: BindingKind, several_kernels: bool) -> str:
    where = " > ".join(f"{s.line}:{s.column}" for _, s in record.calls)
    place = f"inlined at {where}" if where else "in the kernel"
    return f"kernel `{record.kernel}`, {place}" if several_kernels else place


@dataclass
class Analysed:
    """One checked document, with what hovers and hints ask of it built once."""

    checked: CheckedProgram

    def __post_init__(self) -> None:
        self.where = Where(self.checked)
        result = self.checked.result
        self.report = FileReport(self.checked.path, self.checked.text, list(self.checked.diagnostics),
                                 list(result.kinds) if result is not None else [],
                                 [k.analysis for k in self.checked.kernels])
        self._records: list[BindingKind] | None = None

    def records(self) -> list[BindingKind]:
        """Every binding's kind record (no chains), as ``--kinds`` lists them."""
        if self._records is None:
            self._records = binding_kinds(self.report) if self.report.analyses else []
        return self._records

    def records_of(self, name: str, span) -> list[BindingKind]:
        """The records of one declared binding, with their chains, as ``--why`` prints them."""
        if not self.report.analyses:
            return []
        return [r for r in binding_kinds(self.report, name) if r.span == span]

    # ---- hover
    def binding_hover(self, binding, declared_here: bool) -> str:
        what = {"let": "let", "var": "var", "loop": "loop variable", "param": "parameter",
                "extent": "runtime extent", "const": "compile-time constant"}.get(binding.kind, binding.kind)
        head = f"**`{binding.name}`**: {what}, `{binding.type}`"
        records = self.records_of(binding.name, binding.span)
        if not records:
            if binding.kind in ("extent", "const") or (binding.kind == "param" and isinstance(binding.type, Scalar)
                                                          and declared_here):
                return head + " — **uniform**: " + KIND_MEANINGS["uniform"]
            return head
        return head + self._kinds_text(records)

    def _kinds_text(self, records: list[BindingKind]) -> str:
        kinds = {r.kind for r in records}
        several_kernels = len({r.kernel for r in records}) > 1
        lines: list[str] = []
        if len(kinds) == 1:
            kind = records[0].kind
            lines.append(f" — **{kind}**: {KIND_MEANINGS[kind]}")
            if kind != "uniform":
                lines += ["", f"Why ({SPEC_PAGE}):"] + _chain_markdown(records[0])
            return "\n".join(lines)
        lines.append(" — its kind differs between call sites:")
        for r in records:
            lines += ["", f"- {_where(r, several_kernels)}: **{r.kind}**"]
            if r.kind != "uniform":
                lines += ["  " + line for line in _chain_markdown(r)]
        return "\n".join(lines)

    def expression_hover(self, item, expr) -> str | None:
        """The kind of a scalar expression in each instance of its kernel or function, and where a
        non-uniform one gets its kind from: the binding (with its chain) or the `ctx` field."""
        kinds: list[tuple[str, object]] = []
        typ = None
        for inst in self.where.instances_of(item):
            t = inst.types.get(id(expr))
            if t is None:
                continue
            typ = t
            kernel = self.where.kernel_of.get(id(inst))
            if kernel is None or not isinstance(t, (Scalar, Run)):
                continue
            kinds.append((KIND_NAMES[kernel.kind_of(expr, inst)], inst))
        if typ is None:
            return None
        kinds.sort(key=lambda pair: tuple((s.line, s.column) for s in _call_spans(pair[1])))
        text = f"`{_short(expr)}`: `{typ}`"
        names = {k for k, _ in kinds}
        if len(names) == 1:
            kind, inst = kinds[0]
            text += f" — **{kind}**: {KIND_MEANINGS[kind]}"
            if kind != "uniform":
                text += "\n\n" + self._origin(expr, inst, kind)
        elif names:
            text += " — its kind differs between call sites: " + ", ".join(
                f"**{k}** ({_place(inst)})" for k, inst in kinds)
        return text

    def _origin(self, expr, inst, kind: str) -> str:
        """Follow the sub-expressions of the same kind down to a binding or a `ctx` field."""
        kernel = self.where.kernel_of[id(inst)]
        node = expr
        while True:
            if isinstance(node, A.CtxPath):
                return "From " + ctx_line(node)
            if isinstance(node, A.Name):
                b = inst.resolution.get(id(node))
                if b is not None:
                    records = [r for r in self.records_of(b.name, b.span)
                               if _same_instance(r, inst)] or self.records_of(b.name, b.span)
                    if records and records[0].chain:
                        return f"From `{b.name}`, {kind}:\n" + "\n".join(_chain_markdown(records[0]))
                    return f"From `{b.name}`, {kind}."
            nxt = None
            for child in A.children(node):
                t = inst.types.get(id(child))
                if isinstance(t, (Scalar, Run)) and KIND_NAMES[kernel.kind_of(child, inst)] == kind:
                    nxt = child
                    break
            if nxt is None:
                return f"From `{_short(node)}` ({SPEC_PAGE}, LANGUAGE §8 for the kind of each operation's result)."
            node = nxt

    # ---- inlay hints
    def kind_hints(self) -> list[tuple[tuple[int, int], str, str]]:
        """(position after the name, label, tooltip) for every binding, once per declaration:
        one kind, or each call site's when they differ."""
        by_place: dict[tuple, list[BindingKind]] = {}
        for r in self.records():
            by_place.setdefault((r.span.line, r.span.end_column, r.span.column, r.name), []).append(r)
        out = []
        for (line, end, _column, name), records in sorted(by_place.items()):
            kinds = {r.kind for r in records}
            if len(kinds) == 1:
                kind = records[0].kind
                out.append(((line, end), f": {kind}", f"`{name}` is {kind}: {KIND_MEANINGS[kind]}"))
                continue
            several = len({r.kernel for r in records}) > 1
            places: dict[str, list[str]] = {}
            for r in records:
                places.setdefault(r.kind, []).append(_where(r, several))
            label = ": " + ", ".join(f"{k} ({'; '.join(w)})" for k, w in places.items())
            out.append(((line, end), label, f"`{name}` differs by call site"))
        return out

    def control_hints(self) -> list[tuple[tuple[int, int], str, str]]:
        """The control kind before each CTA-wide operation (and CTA collective) whose control is
        not uniform: what PH301 and PH306 fire on, shown where the operation is written."""
        seen: dict[tuple[int, int], set[str]] = {}
        for kernel in self.checked.kernels:
            for op, kind in kernel.analysis.facts.derived.divergent_ops:
                if op.cls not in (OpClass.CTA_WIDE, OpClass.CTA_COLLECTIVE):
                    continue
                seen.setdefault((op.span.line, op.span.column), set()).add(KIND_NAMES[kind])
        out = []
        for place, kinds in sorted(seen.items()):
            words = " or ".join(sorted(kinds))
            out.append((place, f"{words} control:", f"this operation needs every thread of the CTA, but "
                        f"control here is {words} ({SPEC_PAGE}, \"What needs every thread\")"))
        return out


def _same_instance(record: BindingKind, inst) -> bool:
    return tuple(s for _, s in record.calls) == _call_spans(inst)


def _call_spans(inst) -> tuple:
    spans = []
    while inst is not None and inst.parent is not None:
        spans.append(inst.call_span)
        inst = inst.parent
    return tuple(reversed(spans))


def _place(inst) -> str:
    spans = _call_spans(inst)
    return "inlined at " + " > ".join(f"{s.line}:{s.column}" for s in spans) if spans else "in the kernel"


def _short(expr, limit: int = 60) -> str:
    text = _source(expr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _source(expr) -> str:
    try:
        return source_of(expr)
    except Exception:   # noqa: BLE001 - a node the printer does not know: say what it is
        return type(expr).__name__
