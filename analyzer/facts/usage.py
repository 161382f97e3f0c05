"""How a program's bindings are used, and which statements can never run: the facts of the lints
PH501 (unused-binding), PH502 (var-never-reassigned) and PH503 (unreachable-code).

They are read off the checked tree rather than the CFG, since they concern every body the
semantic pass checked: each kernel, each inlined call of a function and each function no kernel
calls (LANGUAGE §2: parsed and type-checked only). ``bodies(semantics)`` lists those instances;
``binding_usage(inst)`` says, for one of them, which bindings an expression reads and which are
assigned after their declaration; ``unreachable_runs(block)`` finds the statements that follow a
`return`, `break` or `continue` in the same block.

A read is any occurrence of a name in an expression, the base of a subscript included (`v[i] = x`
writes through the view `v`, so `v` is used); the name that a plain or compound assignment
assigns to (`x = e`, `x += e`) is not a read (DESIGN.md: a compound assignment alone is no use).
"""

from __future__ import annotations

from dataclasses import field

from ...language.records import record
from ..syntax import ast as A


@record
class Usage:
    read: set = field(default_factory=set)          # uids of bindings some expression reads
    assigned: set = field(default_factory=set)      # uids assigned by a statement after their declaration


def bodies(semantics) -> list:
    """Every instance the semantic pass checked, kernels' inlined calls and uncalled functions
    included (once each)."""
    out, seen = [], set()
    roots = [k.instance for k in semantics.kernels] + list(semantics.uncalled)
    for root in roots:
        for inst in root.tree():
            if id(inst) not in seen:
                seen.add(id(inst))
                out.append(inst)
    return out


def binding_usage(inst) -> Usage:
    """The usage of ``inst``'s bindings, found once per instance (PH501 and PH502 both ask; the
    instance is not changed after the semantic pass, and the lints only read the sets)."""
    memo = getattr(inst, "__dict__", None)
    if memo is None:                     # (a slotted instance: found each time)
        return _binding_usage(inst)
    got = memo.get("_binding_usage")
    if got is None:
        got = memo["_binding_usage"] = _binding_usage(inst)
    return got


def _binding_usage(inst) -> Usage:
    usage = Usage()
    resolution = inst.resolution

    def expr(e) -> None:
        stack = [e]
        while stack:
            x = stack.pop()
            if type(x) is A.Name:
                b = resolution.get(id(x))
                if b is not None:
                    usage.read.add(b.uid)
            stack.extend(A.children(x))

    def block(b: A.Block) -> None:
        for s in b.stmts:
            stmt(s)

    def stmt(s) -> None:
        t = type(s)
        if t is A.Let:
            expr(s.value)
        elif t is A.Var:
            if s.value is not None:
                expr(s.value)
        elif t is A.Assign:
            if type(s.target) is A.Name:
                b = resolution.get(id(s.target))
                if b is not None:
                    usage.assigned.add(b.uid)
            else:
                expr(s.target)
            expr(s.value)
        elif t is A.If:
            expr(s.cond)
            block(s.then)
            if s.orelse is not None:
                block(s.orelse) if type(s.orelse) is A.Block else stmt(s.orelse)
        elif t is A.For:
            for a in s.args:
                expr(a)
            if s.unroll is not None:
                expr(s.unroll)
            block(s.body)
        elif t is A.While:
            expr(s.cond)
            block(s.body)
        elif t is A.Return:
            if s.value is not None:
                expr(s.value)
        elif t is A.ExprStmt:
            expr(s.expr)

    block(inst.node.body)
    return usage


JUMPS = (A.Return, A.Break, A.Continue)


def unreachable_runs(body: A.Block) -> list:
    """(jump, first, last): in each block, the statements from ``first`` to ``last`` follow the
    `return`/`break`/`continue` ``jump`` and never run. One run per block, nested blocks included."""
    out = []
    stack = [body]
    while stack:
        b = stack.pop()
        for i, s in enumerate(b.stmts):
            stack.extend(_blocks_of(s))
            if isinstance(s, JUMPS):
                if i + 1 < len(b.stmts):       # (what follows is not looked into: it never runs)
                    out.append((s, b.stmts[i + 1], b.stmts[-1]))
                break
    out.sort(key=lambda r: (r[1].span.line, r[1].span.column))
    return out


def _blocks_of(s) -> list:
    t = type(s)
    if t is A.If:
        out = [s.then]
        if type(s.orelse) is A.Block:
            out.append(s.orelse)
        elif s.orelse is not None:
            out += _blocks_of(s.orelse)
        return out
    if t in (A.For, A.While):
        return [s.body]
    return []
