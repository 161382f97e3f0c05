"""Operation facts: every operation the semantic pass recorded (LANGUAGE §8 class and DESIGN.md
name), placed at its CFG node, with its scalar operands and the short-circuit guards it runs
under; and the `barrier()` nodes."""

from __future__ import annotations

from ..cfg import CALL, STMT, KernelCFG, expr_children
from ..ops import OpClass
from ..syntax import ast as A
from . import Op

# Expressions without sub-expressions: the walk below only looks them up.
_LEAVES = frozenset((A.Name, A.IntLit, A.FloatLit, A.BoolLit, A.CtxPath))


def emit(cfg: KernelCFG, facts) -> None:
    barriers = facts.barriers
    for site in cfg.sites:
        ops = site.inst.ops
        if not ops:
            continue
        kind = site.kind
        if kind == STMT:
            info = ops.get(id(site.ast))
            if info is not None:
                _add(facts, site, info, site.ast, True, ())
                if info.name == "barrier()":
                    barriers.append(site.id)
        elif kind == CALL:
            # a call's arguments are evaluated at its node, before the inlined body; the
            # expression around the call (walked at its own node) does not walk them again
            for root in site.exprs:
                _walk(facts, site, root, site.short_circuit)
            continue
        for root in site.exprs:
            if type(root) in _LEAVES:
                info = ops.get(id(root))
                if info is not None:
                    _add(facts, site, info, root, False, ())
            else:
                _walk(facts, site, root)
    # expression statements: `barrier()` is recorded on the call expression
    seen = set(barriers)
    for site in cfg.sites:
        if site.kind == STMT and type(site.ast) is A.ExprStmt:
            info = site.inst.ops.get(id(site.ast.expr))
            if info is not None and info.name == "barrier()" and site.id not in seen:
                seen.add(site.id)
                barriers.append(site.id)


def _walk(facts, site, root, guards=()) -> None:
    """Record the operations inside one expression, with the guards of enclosing && / ||
    (``guards``: those around the expression itself, for a call's arguments)."""
    inst = site.inst
    ops = inst.ops
    stack = [(root, guards)]
    push = stack.append
    pop = stack.pop
    while stack:
        e, guards = pop()
        info = ops.get(id(e))
        t = type(e)
        if t in _LEAVES:
            if info is not None:
                _add(facts, site, info, e, False, guards)
            continue
        if info is not None and not isinstance(e, (A.Let, A.Var, A.Assign)):
            _add(facts, site, info, e, False, guards)
        # the children in expr_children's order (so the operations keep their numbering)
        if t is A.Binary:
            if e.op in ("&&", "||"):
                push((e.rhs, guards + (e.lhs,)))
                push((e.lhs, guards))
            else:
                push((e.lhs, guards))
                push((e.rhs, guards))
            continue
        if t is A.Index:
            push((e.base, guards))
            for sub in e.subs:
                ts = type(sub)
                if ts is A.Point:
                    push((sub.index, guards))
                elif ts is A.SpanSub:
                    push((sub.start, guards))
                    push((sub.length, guards))
                else:
                    if sub.lo is not None:
                        push((sub.lo, guards))
                    if sub.hi is not None:
                        push((sub.hi, guards))
            continue
        if isinstance(e, A.Call) and id(e) in inst.calls:
            continue        # its arguments belong to its CALL node (emit, above)
        for child in expr_children(e):
            push((child, guards))


def _add(facts, site, info, ast, statement_level: bool, guards) -> None:
    op_id = len(facts.ops)
    facts.ops.append(Op(op_id, site.id, info.cls, info.name, info.span, site.inst, ast, statement_level))
    for e in info.operands:
        facts.operand.append((op_id, facts.new_value(e, site.id, site.inst)))
    for g in guards:
        facts.guard.append((op_id, facts.new_value(g, site.id, site.inst)))
    if info.cls is OpClass.CTA_WIDE:
        for buf in info.reads:
            facts.reads.append((op_id, buf, info.read_names.get(buf) or buf.split("#", 1)[0]))
