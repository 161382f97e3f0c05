"""What an expression's kind is made of: the scalar and run bindings it reads, the sources in it
(ctx fields, lane collectives) and the inlined calls whose results it uses.

The walk stops where LANGUAGE §8 and §9.2 fix the kind regardless of the operands: a lane
collective's result is warp-uniform, a CTA collective's, an atomic's and an acquire load's are
uniform; a call's result is its own fact (``call_result``). A load contributes its address
(§9.8): the walk goes into subscripts, never into the tensor or tile itself.
"""

from __future__ import annotations

from ...language.ops import OpClass
from ..syntax import ast as A
from ...language.types import Run, Scalar
from .schema import UNIFORM, VARYING, WARP_UNIFORM

CTX_KINDS = {("thread",): VARYING, ("lane",): VARYING, ("warp",): WARP_UNIFORM}
_NOTHING = ((), (), ())      # what a literal is made of (shared: callers only read the parts)
_LITERALS = frozenset((A.IntLit, A.FloatLit, A.BoolLit))
_UNIFORM_RESULTS = ("atomic_add", "atomic_max", "atomic_min", "atomic_cas", "load_acquire")


def atoms(expr, inst):
    """Return (bindings used, [(kind, origin expr)], [callee instances]) for ``expr``."""
    if type(expr) in _LITERALS:
        return _NOTHING
    uses = []
    seeds = []
    results = []
    stack = [expr]
    home = inst
    home_resolution = inst.resolution
    home_ops = inst.ops
    while stack:
        e = stack.pop()
        if type(e) is tuple:                 # (expr, instance): an address in another instance
            e, inst = e
            resolution = inst.resolution
            ops = inst.ops
        else:
            inst = home
            resolution = home_resolution
            ops = home_ops
        t = type(e)
        if t is A.Name:
            b = resolution.get(id(e))
            if b is not None and isinstance(b.type, (Scalar, Run)):
                uses.append(b)
        elif t is A.Binary:
            stack.append(e.rhs)
            stack.append(e.lhs)
        elif t in _LITERALS:
            continue
        elif t is A.CtxPath:
            k = CTX_KINDS.get(e.path, UNIFORM)
            if k:
                seeds.append((k, e))
        elif t is A.Index:
            base = e.base
            b = resolution.get(id(base)) if isinstance(base, A.Name) else None
            if b is not None and isinstance(b.type, Run):
                uses.append(b)
            elif b is not None:
                # a view's element lives at the view's offset plus the subscript (§9.8)
                behind = _slice_behind(b, inst)
                if behind is not None:
                    stack.append(behind)
            for s in e.subs:
                if isinstance(s, A.Point):
                    stack.append(s.index)
                elif isinstance(s, A.SpanSub):
                    stack.append(s.start)
                else:
                    if s.lo is not None:
                        stack.append(s.lo)
                    if s.hi is not None:
                        stack.append(s.hi)
        elif t is A.Unary:
            stack.append(e.operand)
        elif t is A.Call:
            callee = inst.calls.get(id(e))
            if callee is not None:
                results.append(callee)
            elif e.func not in _UNIFORM_RESULTS:
                stack.extend(reversed(e.args))
        elif t is A.GenericCall:
            op = ops.get(id(e))
            if op is None:
                continue
            if op.cls is OpClass.LANE_COLLECTIVE:
                seeds.append((WARP_UNIFORM, e))
            elif op.cls is OpClass.LANE_LEVEL:
                stack.append(e.args[0])
                stack.append(e.param)
    if not uses and not seeds and not results:
        return _NOTHING
    return uses, seeds, results


def _slice_behind(b, inst):
    """The slice a view binding stands for, as (expression, instance), or None."""
    if b.kind == "view" and isinstance(b.node, A.Let):
        return (b.node.value, inst)
    if b.kind == "param" and inst.kind == "function" and inst.call_node is not None \
            and isinstance(b.node, A.Param):
        params = inst.node.params
        for i, p in enumerate(params):
            if p is b.node and i < len(inst.call_node.args):
                return (inst.call_node.args[i], inst.parent)
    return None


def expr_kind(analysis, expr, inst) -> int:
    """The kind of ``expr`` evaluated in instance ``inst``: the join of what it is made of, read
    off the kernel's analysis (VARYING when there is none). The lowering uses it where a kind
    saves work, and the simulator to know which collectives the lowering made synchronizing."""
    if analysis is None:
        return VARYING
    derived = analysis.facts.derived
    uses, seeds, results = atoms(expr, inst)
    k = UNIFORM
    for b in uses:
        k = max(k, derived.of(("b", b.uid)))
    for kind, _origin in seeds:
        k = max(k, kind)
    for callee in results:
        k = max(k, derived.of(("r", id(callee))))
    return k
