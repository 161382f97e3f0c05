"""The order of operations inside a tile statement (LANGUAGE §6), decided once for the checker's
CFG, the shared-memory plan, the lowering and the simulator.

§6: "a binary operator evaluates its left operand completely (every call and operation in it)
before its right"; "a call, built-in or generic call evaluates its arguments left to right, then
itself". In a tile statement every tile operation (an elementwise operator on tiles, a tile
built-in, a conversion or tile math) therefore runs at its place, after its operands; a slice or
a tile's name is read by the operation that takes it. The lowering fuses a statement's tile
operations into one pass over its target, which reads every tile after everything the statement
evaluates first; that is the same thing exactly when nothing in between touches memory or other
threads. So a tile operation that completes before such an *effect* (a call whose body stores,
synchronizes or runs an operation with other threads; an atomic, an acquire load, a collective or
a shuffle in a broadcast scalar) is carried out at its place, into a scratch tile of its own:
``early_operations`` lists them, per effect, for the whole value.
"""

from __future__ import annotations

from ..language.ops import STORE, OpClass
from .syntax import ast as A
from ..language.types import Tile


def has_effect(e, inst) -> bool:
    """Does evaluating ``e`` (in ``inst``) do more than per-thread work without stores: store,
    synchronize, or run an operation with other threads (inlined calls looked into)?"""
    stack = [(e, inst)]
    while stack:
        x, where = stack.pop()
        t = type(x)
        if t is A.Name or t is A.IntLit or t is A.FloatLit or t is A.BoolLit or t is A.CtxPath:
            continue
        op = where.ops.get(id(x))
        if op is not None and (op.cls is not OpClass.PER_THREAD or op.name == STORE):
            if op.cls is not OpClass.CTA_WIDE or op.name != "slice":
                return True
        callee = where.calls.get(id(x)) if t is A.Call else None
        if callee is not None and _body_has_effect(callee):
            return True
        stack.extend((c, where) for c in _children(x))
    return False


def _body_has_effect(callee) -> bool:
    for inst in callee.tree():
        for op in inst.ops.values():
            if op.cls is OpClass.PER_THREAD and op.name != STORE:
                continue
            if op.cls is OpClass.VIEW:
                continue
            return True
    return False


def early_operations(value, inst) -> dict:
    """{id(effect node): [tile operations carried out just before it]} for a tile statement's
    value: at each effect (a scalar subtree with an effect, or an inlined call returning a tile),
    the tile operations that completed before it and are not yet part of a larger one that did.
    Empty for nearly every statement (no effect after a tile operation)."""
    out: dict = {}
    pending: list = []                 # completed tile operations since the last effect, maximal
    stack = [(value, False)]
    while stack:
        node, done = stack.pop()
        t = inst.types.get(id(node))
        if done:
            # the node completed: its children's completed operations are now inside it
            kids = _children(node)
            pending[:] = [p for p in pending if not any(p is k for k in kids)]
            if _is_tile_operation(node, inst):
                pending.append(node)
            continue
        if not isinstance(t, Tile):
            if has_effect(node, inst) and pending:
                out[id(node)] = list(pending)
                pending.clear()
            continue
        if type(node) is A.Call and id(node) in inst.calls:
            # a function returning a tile: its body runs here, after its arguments
            if has_effect(node, inst) and pending:
                out[id(node)] = list(pending)
                pending.clear()
            continue
        if type(node) is A.Index:
            # a slice: read by the operation that takes it, but its subscripts run here, before
            # the access (§6: `rowsum(t) + A[f() :+ 32, ..]` runs `rowsum(t)` before `f`)
            if pending and has_effect(node, inst):
                out[id(node)] = list(pending)
                pending.clear()
            continue
        if type(node) is A.Name:
            continue                   # a tile: read by the operation that takes it
        stack.append((node, True))
        for k in reversed(_children(node)):
            stack.append((k, False))
    return out


def _is_tile_operation(node, inst) -> bool:
    if type(node) is A.Name or type(node) is A.Index:
        return False
    if type(node) is A.Call and id(node) in inst.calls:
        return False
    return isinstance(inst.types.get(id(node)), Tile)


_children = A.children
