"""What the HTML view shows of one kernel's analysis (``phobos-check --format html``): every value
whose kind the analysis knows, and the control kind of every statement, each with the chain that
gives it its kind, as the plain records the renderer reads (analyzer/diagnostics/html.py).

The values are the ones the spec's figure badges: the `let`, `var` and loop bindings (their
chain is the one ``--why`` prints), the conditions and loop bounds the control depends on, the
scalar operands of the operations that need uniform ones (CTA-wide operations, collectives,
shuffles, views) and the sources of collectives and shuffles. A value's kind is the checker's
(``CheckedKernel.kind_of``); its chain is that of the part of it that makes it so varying (a
binding, a `ctx` field, a call's result), followed by one step at the value itself. Inside a
function every call site gives its own records (``calls`` says which).
"""

from __future__ import annotations

from .analysis import KernelAnalysis
from .cfg import ENTRY, EXIT, FOR_STEP, RETURN_JOIN
from .checked import CheckedKernel
from .diagnostics.html import StatementControl, ValueKind
from .diagnostics.model import Label
from .facts.atoms import atoms
from .facts.explain import chain_labels, source_text, subject_of_origin
from .facts.schema import KIND_NAMES, UNIFORM, differs
from .syntax import ast as A
from ..language.ops import OpClass

# the operations whose scalar operands must be uniform (or warp-uniform): their operands get badges
_CONSTRAINED = (OpClass.CTA_WIDE, OpClass.CTA_COLLECTIVE, OpClass.LANE_COLLECTIVE, OpClass.LANE_LEVEL,
                OpClass.VIEW)
_WITH_SOURCE = (OpClass.CTA_COLLECTIVE, OpClass.LANE_COLLECTIVE, OpClass.LANE_LEVEL)
_NO_STATEMENT = (ENTRY, EXIT, FOR_STEP, RETURN_JOIN)
MAX_NAME = 40
_LITERALS = (A.IntLit, A.FloatLit, A.BoolLit)


def value_kinds(analysis: KernelAnalysis) -> list[ValueKind]:
    """Every badged value of one kernel, in every instance of its body, in source order."""
    kernel = CheckedKernel(analysis.cfg.kernel, analysis)
    facts = analysis.facts
    out: list[ValueKind] = []
    for b, inst in analysis.bindings:
        out.append(ValueKind(b.span, KIND_NAMES[analysis.kind_of(b)], "binding", b.name, analysis.name,
                             inlined_calls(inst), tuple(analysis.why(b)), tuple(analysis.why_notes(b))))
    seen: set[tuple] = set()

    def add(expr, inst, role: str, what: str) -> None:
        span = getattr(expr, "span", None)
        if span is None or (span, id(inst)) in seen or type(expr) in _LITERALS:
            return                       # a value with two roles gets one badge; a literal none
        seen.add((span, id(inst)))
        kind = kernel.kind_of(expr, inst)
        chain = _chain(analysis, expr, inst, kind, what) if kind != UNIFORM else ()
        out.append(ValueKind(span, KIND_NAMES[kind], role, _name(expr), analysis.name, inlined_calls(inst), chain))

    sites = facts.cfg.sites
    values = facts.values
    for p, v in facts.cond:
        value = values[v]
        if isinstance(sites[p].ast, A.For):
            add(value.expr, value.inst, "loop bound", "the loop's bounds")
        else:
            add(value.expr, value.inst, "condition", "this condition")
    for op_id, v in facts.operand:
        op = facts.ops[op_id]
        if op.cls in _CONSTRAINED:
            value = values[v]
            add(value.expr, value.inst, f"operand of {op.name}", f"this operand of `{op.name}`")
    for op in facts.ops:
        if op.cls in _WITH_SOURCE and isinstance(op.ast, A.GenericCall) and op.ast.args:
            role = "shuffle source" if op.cls is OpClass.LANE_LEVEL else "collective source"
            add(op.ast.args[0], op.inst, role, f"the value `{op.ast.func}` takes")
    out.sort(key=lambda r: (r.span.line, r.span.column, r.role, r.kernel, tuple((s.line, s.column) for _, s in r.calls)))
    return out


def statement_controls(analysis: KernelAnalysis) -> list[StatementControl]:
    """The control kind of each statement (the first node on its line, in each instance), with
    the chain of a control that is not uniform."""
    facts = analysis.facts
    derived = facts.derived
    first: dict[tuple[int, int], object] = {}
    for site in facts.cfg.sites:
        if site.kind in _NO_STATEMENT:
            continue
        span = site.span
        if span is None:
            continue
        key = (span.line, id(site.inst))
        old = first.get(key)
        if old is None or (span.column, site.id) < (old.span.column, old.id):
            first[key] = site
    out = []
    for (line, _inst), site in first.items():
        kind = derived.of(("c", site.id))
        chain = tuple(chain_labels(facts, ("c", site.id))[0]) if kind != UNIFORM else ()
        out.append(StatementControl(line, KIND_NAMES[kind], analysis.name, inlined_calls(site.inst), chain))
    out.sort(key=lambda c: (c.line, c.kernel, tuple((s.line, s.column) for _, s in c.calls)))
    return out


def inlined_calls(inst) -> tuple:
    """(function, call span) for each call the instance was inlined through, kernel side first."""
    calls = []
    while inst is not None and getattr(inst, "parent", None) is not None:
        calls.append((inst.name, inst.call_span))
        inst = inst.parent
    return tuple(reversed(calls))


def _chain(analysis: KernelAnalysis, expr, inst, kind: int, what: str) -> tuple[Label, ...]:
    """Why ``expr`` has ``kind``: the chain of the first part of it that is that varying (a
    source in the value itself first, so the chain is the shortest), then the step that ends at
    the value."""
    facts = analysis.facts
    derived = facts.derived
    uses, seeds, results = atoms(expr, inst)
    steps: list[Label] = []
    subject = None
    for k, origin in seeds:
        if k == kind:
            subject = subject_of_origin(origin)
            break
    if subject is None:
        for b in uses:
            if derived.of(("b", b.uid)) == kind:
                steps = list(chain_labels(facts, ("b", b.uid))[0])
                subject = f"`{b.name}`"
                break
    if subject is None:
        for callee in results:
            if derived.of(("r", id(callee))) == kind:
                steps = list(chain_labels(facts, ("r", id(callee)))[0])
                subject = f"the result of `{callee.name}`"
                break
    if subject is None:
        return tuple(steps)
    steps.append(Label(expr.span, f"{subject} {differs(kind)}, so {what} does"))
    return tuple(steps)


def _name(expr) -> str:
    text = source_text(expr)
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 3] + "..."
