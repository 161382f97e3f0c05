"""Chains: the provenance of a derived kind, told as located steps in causal order.

A chain starts at the origin (a `ctx` field, a load at a varying address, a lane collective, a
`break`/`continue`/`return` under per-thread control) and steps forward, one label per reason,
to the immediate cause; a step through an inlined call says where it was inlined from. Rules use
``chain_labels`` for their chains and ``reach_label`` for the primary label of an operation.
"""

from __future__ import annotations

import re

from ...language.builtins import ATOMICS
from ..diagnostics.model import Label
from ..cfg import COND
from ..syntax import ast as A
from ..syntax.printer import expr as show
from .schema import UNIFORM, VARYING, differs

MAX_SHOWN = 40


def _text(e) -> str:
    t = show(e)
    return t if len(t) <= MAX_SHOWN else t[: MAX_SHOWN - 3] + "..."


def source_text(e) -> str:
    """An expression as it reads in the source (the printer's form), for messages."""
    return show(e)


def who(kind: int) -> str:
    return "lanes" if kind == VARYING else "warps"


def subject_of_origin(origin) -> str:
    if isinstance(origin, A.GenericCall):
        return f"`{origin.func}<over ctx.lane>(..)`, one value per warp,"
    return f"`{_text(origin)}`"


def chain_labels(facts, key) -> tuple[list[Label], tuple | None]:
    """Labels explaining why ``key`` (a derived-node key) has its kind, and the last reason."""
    writer = _ChainWriter(facts)
    derived = facts.derived
    for node_key, reason in derived.chain(key):
        if reason is None:
            continue
        kind = derived.of(node_key)
        if kind != UNIFORM:
            getattr(writer, "on_" + reason[0], _ChainWriter.on_other)(reason, kind)
    return writer.labels, writer.last_reason


class _ChainWriter:
    """The labels of one chain, a step at a time: ``on_<tag>`` for each tag of a reason
    (facts/derive.py records them). ``subject`` is what the next label speaks of."""

    def __init__(self, facts):
        self.values = facts.values
        self.sites = facts.cfg.sites
        self.labels: list[Label] = []
        self.subject: str | None = None
        self.last_reason: tuple | None = None

    def add(self, span, text: str) -> None:
        self.labels.append(Label(span, text))

    @staticmethod
    def on_other(reason, kind) -> None:
        """A step that says nothing of its own (its next step does)."""

    # where a kind starts: the next label's subject
    def on_seed(self, reason, kind) -> None:
        self.subject = subject_of_origin(reason[1])

    def on_use(self, reason, kind) -> None:
        self.subject = f"`{reason[1].name}`"

    def on_result(self, reason, kind) -> None:
        self.subject = f"the result of `{reason[1].name}`"

    # a binding takes the kind of its value
    def on_init(self, reason, kind) -> None:
        b, v = reason[1], reason[2]
        at = self.sites[self.values[v].node]
        d = differs(kind)
        if b.kind == "param" and at.kind == "call":
            sp = at.ast.span           # an argument: the function's parameter takes its kind
            text = (f"{self.subject} {d}, so parameter `{b.name}` of `{at.ast.func}` does "
                    f"(inlined from {sp.line}:{sp.column})")
        else:
            text = f"{self.subject} {d}, so `{b.name}` does"
        self.add(self.values[v].expr.span, text)
        self.subject = f"`{b.name}`"

    on_bound = on_init

    def on_assigned_under(self, reason, kind) -> None:
        b, node = reason[1], reason[2]
        self.add(self.sites[node].ast.span,
                 f"`{b.name}` is assigned here under control that {differs(kind)}, so `{b.name}` does")
        self.subject = f"`{b.name}`"

    def on_returned(self, reason, kind) -> None:
        callee, v = reason[1], reason[2]
        self.add(self.values[v].expr.span, f"{self.subject} {differs(kind)}, so the result of `{callee.name}` does")
        self.subject = f"the result of `{callee.name}`"

    def on_returned_under(self, reason, kind) -> None:
        callee, node = reason[1], reason[2]
        self.add(self.sites[node].ast.span,
                 f"`{callee.name}` returns here under control that {differs(kind)}, so its result does")
        self.subject = f"the result of `{callee.name}`"

    # control: conditions, the calls a body is inlined at, early exits, loops going on
    def on_cond(self, reason, kind) -> None:
        p, v = reason[1], reason[2]
        if _left_operand(self.sites[p]):
            # the left operand of `&&`/`||` in a condition: what follows it in the condition
            # runs only where it lets it (it is not inside the branch)
            self.on_guard(("guard", v), kind)
            return
        what = "the loop's bounds do" if isinstance(self.sites[p].ast, A.For) else "this condition does"
        self.add(self.values[v].expr.span, f"{self.subject} {differs(kind)}, so {what}")
        self.last_reason = reason

    def on_guard(self, reason, kind) -> None:
        v = reason[1]
        self.add(self.values[v].expr.span, f"{self.subject} {differs(kind)}, so what follows it in `&&`/`||` "
                                           "runs only where it allows")
        self.last_reason = reason

    def on_parent(self, reason, kind) -> None:
        psite = self.sites[reason[1]]
        if psite.kind == "call":
            sp = psite.ast.span
            self.add(sp, f"inlined from {sp.line}:{sp.column}: the body of "
                         f"`{psite.ast.func}` runs under the control of this call")

    def on_raise(self, reason, kind) -> None:
        node, how = reason[1], reason[2]
        some = f"some {who(kind)}"
        text = {"break": f"{some} leave the loop here, so the loop runs on without them",
                "continue": f"{some} skip the rest of the iteration here",
                "return": f"{some} return here, so what follows runs without them"}[how]
        self.add(self.sites[node].ast.span, text)
        self.last_reason = reason

    def on_loop_again(self, reason, kind) -> None:
        header, decider = reason[1], reason[2]
        whole = self.sites[decider].whole_condition
        self.add(getattr(whole, "span", None) or self.sites[header].ast.span,
                 f"so later iterations test the loop's condition only in the {who(kind)} still looping")
        self.last_reason = reason


def _is_ctx(e, field: str) -> bool:
    return isinstance(e, A.CtxPath) and e.path == (field,)


def _int(e) -> int | None:
    return e.value if isinstance(e, A.IntLit) else None


def _warp_form(e) -> str | None:
    """The `ctx.warp` spelling of a warp index or warp test written through `ctx.thread`
    (`ctx.thread / 32`, `ctx.thread >> 5`, `ctx.thread < 64`, ...), or None."""
    if not isinstance(e, A.Binary):
        return None
    lhs, rhs, op = e.lhs, e.rhs, e.op
    if op in (">", ">=", "<", "<=") and _is_ctx(rhs, "thread") and not _is_ctx(lhs, "thread"):
        lhs, rhs, op = rhs, lhs, {">": "<", ">=": "<=", "<": ">", "<=": ">="}[op]
    if not _is_ctx(lhs, "thread"):
        return None
    c = _int(rhs)
    if op == "/" and (_is_ctx(rhs, "lanes") or c == 32):
        return "ctx.warp"
    if op == "/" and c is not None and c > 0 and c % 32 == 0:
        return f"ctx.warp / {c // 32}"
    if op == ">>" and c == 5:
        return "ctx.warp"
    if op == ">>" and c is not None and 5 < c < 32:
        return f"ctx.warp >> {c - 5}"
    if c is None or c <= 0:
        return None
    if op in ("<", ">=") and c % 32 == 0:
        return "ctx.warp == 0" if (op, c) == ("<", 32) else f"ctx.warp {op} {c // 32}"
    if op in ("<=", ">") and (c + 1) % 32 == 0:
        return "ctx.warp == 0" if (op, c) == ("<=", 31) else f"ctx.warp {op} {(c + 1) // 32 - 1}"
    return None


def subexprs(e):
    """``e`` and every node below it (statements and expressions; not type annotations)."""
    stack = [e]
    while stack:
        e = stack.pop()
        yield e
        for name in getattr(e, "__dataclass_fields__", ()):
            v = getattr(e, name)
            if isinstance(v, tuple):
                stack.extend(x for x in v if hasattr(x, "__dataclass_fields__"))
            elif hasattr(v, "__dataclass_fields__") and not isinstance(v, (A.TypeExpr,)):
                stack.append(v)


def warp_index_note(facts, key) -> str | None:
    """A note for a chain that makes a value per warp out of `ctx.thread` (`ctx.thread / 32`,
    `ctx.thread < 32`): the rules judge it by `ctx.thread`, so it differs between lanes; the same
    value written with `ctx.warp` is warp-uniform."""
    values = facts.values
    for _node, reason in facts.derived.chain(key):
        if reason is None or reason[0] not in ("init", "bound", "cond", "guard"):
            continue
        v = reason[1] if reason[0] == "guard" else reason[2]
        expr = getattr(values[v], "expr", None) if isinstance(v, int) else None
        if expr is None:
            continue
        for sub in subexprs(expr):
            form = _warp_form(sub)
            if form is not None:
                return (f"`{_text(sub)}` is the same in every lane of a warp, but the rules judge an expression "
                        f"by its most varying operand, `ctx.thread`; write it as `{form}`, which is warp-uniform")
    return None


def var_reuse_note(facts, key) -> str | None:
    """A note for a chain through a `var` that is also assigned a less varying value elsewhere:
    a `var` has one kind for the whole kernel (LANGUAGE §9.1), which surprises code that reuses
    one `var` for a per-thread value and later for a uniform one."""
    derived = facts.derived
    sites = facts.cfg.sites
    for _node, reason in derived.chain(key):
        if reason is None or reason[0] not in ("init", "assigned_under"):
            continue
        b = reason[1]
        if b.kind != "var":
            continue
        kind = derived.of(("b", b.uid))
        here = reason[2] if reason[0] == "init" else None
        calmer = [(sites[node].ast.span, derived.of(("v", v))) for b2, v, node in facts.var_assign
                  if b2.uid == b.uid and v != here and v is not None and derived.of(("v", v)) < kind
                  and derived.of(("c", node)) < kind]
        if not calmer:
            return None
        sp, k = min(calmer)
        word = "uniform" if k == UNIFORM else "warp-uniform"
        return (f"`{b.name}` is a `var`, so it has one kind for the whole kernel, the most varying of all "
                f"its assignments (LANGUAGE §9.1): assigning it a {word} value at {sp.line}:{sp.column} "
                f"does not make it {word} there; give that value a `let` of its own")
    return None


def chain_notes(facts, key, lane_level: bool = False) -> list[str]:
    """The notes that go with the chain of ``key``: a reused `var`, and (for rules that need
    warp-uniform values, ``lane_level``) a warp index written through `ctx.thread`."""
    notes = [var_reuse_note(facts, key)]
    if lane_level:
        notes.append(warp_index_note(facts, key))
    return [n for n in notes if n]


def _loop_bounds(sites, last_reason) -> bool:
    """The control comes from a `for` loop's bounds (a trip count that differs)."""
    return last_reason is not None and last_reason[0] == "cond" and sites is not None \
        and isinstance(sites[last_reason[1]].ast, A.For)


def _left_operand(site) -> bool:
    """A condition node that is a left operand of `&&`/`||` (not the last of its condition)."""
    return site.kind == COND and site.whole_condition is None and not isinstance(site.ast, A.For)


def _while_condition(cfg, last_reason) -> bool:
    return last_reason is not None and last_reason[0] == "cond" and cfg is not None \
        and last_reason[1] in cfg.while_conditions


def reach_label(kind: int, last_reason, sites=None, taken: bool | None = None, cfg=None) -> str:
    """The primary label of an operation reached under non-uniform control (``taken`` False:
    in the `else` of the condition)."""
    w = who(kind)
    if _loop_bounds(sites, last_reason):
        return f"reached only by the {w} whose loop runs this iteration"
    if _while_condition(cfg, last_reason):
        return f"reached only by the {w} still looping"
    if last_reason is not None and last_reason[0] == "cond" and taken is False:
        return f"reached only by the {w} where the condition fails"
    if last_reason is None or last_reason[0] == "cond":
        return f"reached only by the {w} where the condition holds"
    if last_reason[0] == "loop_again":
        return f"reached only by the {w} still looping"
    if last_reason[0] == "raise":
        return {"break": f"reached only by the {w} still in the loop",
                "continue": f"reached only by the {w} that did not skip the rest of the iteration",
                "return": f"reached only by the {w} that have not returned"}[last_reason[2]]
    return f"reached only by the {w} where the left side of `&&`/`||` lets it run"


def inlined_steps(inst, labels: list[Label], what: str = "the operation") -> list[Label]:
    """For a diagnostic inside an inlined function: one step per call that brought it there,
    outermost first (DESIGN.md: "inlined from L:C"), unless the chain already shows the call."""
    shown = {label.span for label in labels}
    steps = []
    while inst is not None and inst.kind == "function" and inst.call_span is not None:
        sp = inst.call_span
        if sp not in shown:
            steps.append(Label(sp, f"inlined from {sp.line}:{sp.column}: this call of `{inst.name}` "
                                   f"holds {what}"))
        inst = inst.parent
    steps.reverse()
    return steps


def control_explanation(facts, op, kind: int) -> tuple[list[Label], str, tuple | None]:
    """Why ``op`` runs under control of ``kind``: its chain (with the calls it was inlined
    through), its primary label, and the last reason (a condition, an early exit, a guard)."""
    labels, last = chain_labels(facts, ("o", op.id))
    labels += inlined_steps(op.inst, labels)
    sites = facts.cfg.sites
    taken = dict(sites[op.node].guards).get(last[1]) if last is not None and last[0] == "cond" else None
    return labels, reach_label(kind, last, sites, taken, facts.cfg), last


def control_fix(facts, last_reason, what: str, same: str, in_branch: str = "") -> str:
    """The help of a rule about control: what to move out of where, by the reason the control
    differs. ``what`` names the operation, ``same`` the kind the control needs ("uniform",
    "warp-uniform"); ``in_branch`` is added to the plain branch case."""
    tag = last_reason[0] if last_reason is not None else "cond"
    if tag == "raise":
        how = last_reason[2]
        if how == "return":
            return (f"keep every thread running up to {what} (put the work after it under an `if` instead "
                    f"of returning early), or make the `return`'s condition {same}")
        return f"move the `{how}` out of per-thread control, or move {what} out of the loop"
    if _loop_bounds(facts.cfg.sites, last_reason):
        return f"move {what} out of the loop, or make the loop's bounds {same}"
    if _while_condition(facts.cfg, last_reason):
        return f"move {what} out of the loop, or make the loop's condition {same}"
    if tag == "loop_again":
        return f"move {what} out of the loop, or make the loop's bounds or condition {same}"
    if tag == "guard":
        return f"call it before the `&&`/`||`, or make the left side {same}"
    return f"move {what} out of the branch{in_branch}, or make the condition {same}"


def written_name(target) -> str | None:
    """The name a store writes through (`t` of `t[0, i] = ..`)."""
    while isinstance(target, A.Index):
        target = target.base
    return target.id if isinstance(target, A.Name) else None


def parameter_of(inst, name: str) -> str | None:
    """The function whose parameter ``name`` is, when ``inst`` is an inlined function's body."""
    if inst is not None and inst.kind == "function" and any(p.name == name for p in inst.node.params):
        return inst.name
    return None


def element_read(op) -> str | None:
    """The element an atomic or `load_acquire` reads (LANGUAGE §9.5), as written; None for
    operations that read whole tiles or slices."""
    e = op.ast
    if isinstance(e, A.ExprStmt):
        e = e.expr
    if isinstance(e, A.Call) and (e.func in ATOMICS or e.func == "load_acquire") and e.args:
        return _text(e.args[0])
    return None


ONCE_PER_CTA = set(ATOMICS) | {"load_acquire", "store_release"}


def _call_of(op):
    """The atomic, acquire or release call ``op`` stands for."""
    return next((e for e in subexprs(op.ast) if isinstance(e, A.Call) and e.func == op.name and e.args), None)


def _per_element_loop(op, call) -> str | None:
    """`atomic_add(H[b], v)` with a per-thread `b` written as a loop over `H`'s elements:
    `for e in range(0, N) { atomic_add(H[e], sum<over ctx.thread>(where(b == e, v, 0.0))) }`
    (a one-axis tensor and `atomic_add` only: the other atomics have no neutral value to give; and
    only for a call that stands as a statement: the loop has no value to give in its place)."""
    target = call.args[0]
    if id(call) not in op.inst.statement_calls:
        return None
    if op.name != "atomic_add" or len(call.args) != 2 or not isinstance(target, A.Index) \
            or not isinstance(target.base, A.Name) or len(target.subs) != 1 or not isinstance(target.subs[0], A.Point):
        return None
    tensor = op.inst.types.get(id(target.base))
    shape = getattr(tensor, "shape", None)
    if shape is None or len(shape) != 1:
        return None
    index, value = _text(target.subs[0].index), _text(call.args[1])
    words = set(re.findall(r"[A-Za-z_]\w*", index + " " + value + " " + target.base.id))
    e = next(n for n in ("e", "k", "elem", "elem_") if n not in words)
    zero = "0.0" if str(tensor.elem).startswith(("f", "bf")) else "0"
    return (f"for {e} in range(0, {shape[0]}) {{ {op.name}({target.base.id}[{e}], "
            f"sum<over ctx.thread>(where({index} == {e}, {value}, {zero}))) }}")


def index_varies(facts, op) -> bool:
    """Does a non-uniform operand of ``op`` lie in its first argument (the element's index)?"""
    call = _call_of(op)
    if call is None:
        return False
    where = call.args[0].span
    for op_id, w in facts.operand:
        if facts.ops[op_id] is op and facts.derived.of(("v", w)) != UNIFORM:
            span = facts.values[w].expr.span
            if (where.line, where.column) <= (span.line, span.column) and \
                    (span.end_line, span.end_column) <= (where.end_line, where.end_column) and span != where:
                return True
    return False


def _inside(inner, outer) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and \
        (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)


def once_per_cta_fix(op, expr, index_varies: bool = False) -> str:
    """Help for an atomic, acquire or release given per-thread operands: it is not a per-thread
    atomic (LANGUAGE §8, "Once-per-CTA operations"). ``index_varies``: the element's index
    differs between threads too (then only a loop over the elements helps)."""
    once = f"`{op.name}` runs once per CTA, by one thread, not once per thread"
    call = _call_of(op)
    if call is not None and (index_varies or _inside(expr.span, call.args[0].span)):
        loop = _per_element_loop(op, call)
        if loop is not None:
            return (f"{once}: total each element's share with a loop over the elements, whose index the "
                    f"whole CTA shares: `{loop}`")
    if call is None or _inside(expr.span, call.args[0].span):
        if op.name not in ATOMICS:
            return f"{once}: give it an element the whole CTA agrees on (`ctx.block`, parameters, constants)"
        return (f"{once}: give it an element the whole CTA agrees on; to count per-thread values "
                "(a histogram), total each element's share first in a loop over the elements "
                "(phobos-check --explain PH302 shows one)")
    if op.name in ("atomic_add", "atomic_max", "atomic_min"):
        fold = "sum" if op.name == "atomic_add" else op.name.removeprefix("atomic_")
        return (f"{once}: combine the threads' values first: "
                f"`{op.name}({_text(call.args[0])}, {fold}<over ctx.thread>({_text(expr)}))`")
    return (f"{once}: give it a value the whole CTA agrees on (`ctx.block`, parameters, constants, "
            "or a CTA collective `op<over ctx.thread>(..)`)")
