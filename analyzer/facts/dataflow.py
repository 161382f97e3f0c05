"""Data-flow facts: which bindings each value reads, what each `let`, `var`, loop variable and
function parameter is given, and what each inlined call returns (LANGUAGE §9.1, §9.2)."""

from __future__ import annotations

from ..cfg import CALL, FOR_INIT, STMT, KernelCFG
from ..syntax import ast as A
from ...language.types import Run, Scalar


def emit(cfg: KernelCFG, facts) -> None:
    for site in cfg.sites:
        inst = site.inst
        s = site.ast
        if site.kind == STMT:
            if isinstance(s, (A.Let, A.Var)) and s.value is not None:
                b = inst.decls.get(id(s))
                if b is not None and isinstance(b.type, (Scalar, Run)):
                    v = facts.new_value(s.value, site.id, inst)
                    (facts.let_init if isinstance(s, A.Let) else facts.var_assign).append((b, v, site.id))
            elif isinstance(s, A.Assign):
                _assign(facts, site, s)
            elif isinstance(s, A.Return) and inst.kind == "function":
                v = facts.new_value(s.value, site.id, inst) if s.value is not None else None
                if v is not None and not isinstance(inst.types.get(id(s.value)), (Scalar, Run)):
                    v = None
                facts.returns.append((inst, v, site.id))
        elif site.kind == FOR_INIT:
            b = inst.decls.get(id(s))
            if b is not None:
                for bound in s.args:
                    facts.loop_bound.append((b, facts.new_value(bound, site.id, inst)))
        elif site.kind == CALL:
            callee = inst.calls.get(id(s))
            if callee is not None:
                for p, arg in zip(callee.node.params, s.args):
                    b = callee.decls.get(id(p))
                    if b is not None and isinstance(b.type, Scalar):
                        facts.let_init.append((b, facts.new_value(arg, site.id, inst), site.id))
    # what every value reads
    cached = facts._atoms
    for value in facts.values:
        v = value.id
        parts = cached.get(v)
        if parts is None:
            parts = facts.atoms_of(v)
        uses, _seeds, results = parts
        for b in uses:
            facts.uses.append((v, b))
        for callee in results:
            facts.call_result.append((v, callee))


def _assign(facts, site, s: A.Assign) -> None:
    inst = site.inst
    target = s.target
    base = target.base if isinstance(target, A.Index) else target
    if not isinstance(base, A.Name):
        return
    b = inst.resolution.get(id(base))
    if b is None or not isinstance(b.type, (Scalar, Run)):
        return              # stores to tensors and tiles are memory facts
    facts.var_assign.append((b, facts.new_value(s.value, site.id, inst), site.id))
    if isinstance(target, A.Index):           # r[k] = e: the element index is a constant
        pass
