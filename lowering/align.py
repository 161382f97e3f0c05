"""Divisibility by powers of two, for proving the alignment of runs (LANGUAGE §7).

``twos(e)`` is a lower bound on the number of trailing zero bits of an integer expression's
value: 2**twos(e) divides it in every thread. A run ``A[i, j :+ n]`` starts at element
``i * stride + j``, so its byte address is a multiple of ``elem_bytes * 2**min(twos(i) +
twos(stride), twos(j))``; tensors are 16-byte aligned (LANGUAGE §2, checked by the runtime), so
that bound is the alignment the vector load or store may claim. Wrapping arithmetic keeps
trailing zeros, so the bounds hold for i32 and i64 alike.
"""

from __future__ import annotations

from ..analyzer.syntax import ast as A

INFINITE = 64          # the trailing zeros of 0


def twos_of_int(v: int) -> int:
    if v == 0:
        return INFINITE
    v = abs(int(v))
    return min(INFINITE, (v & -v).bit_length() - 1)


def twos(e, name_twos, ctx_twos) -> int:
    """``name_twos(Name) -> int`` knows bindings (constants, lets, loop variables, extents);
    ``ctx_twos(CtxPath) -> int`` the ctx fields (``ctx.threads`` is the @launch constant)."""
    t = type(e)
    if t is A.IntLit:
        return twos_of_int(e.value)
    if t is A.Name:
        return name_twos(e)
    if t is A.CtxPath:
        return ctx_twos(e)
    if t is A.Unary and e.op == "-":
        return twos(e.operand, name_twos, ctx_twos)
    if t is A.Call and e.func in ("i32", "i64") and len(e.args) == 1:
        inner = twos(e.args[0], name_twos, ctx_twos)
        return min(inner, 32) if e.func == "i32" else inner
    if t is A.Binary:
        op = e.op
        if op in ("+", "-"):
            return min(twos(e.lhs, name_twos, ctx_twos), twos(e.rhs, name_twos, ctx_twos))
        if op == "*":
            return min(INFINITE, twos(e.lhs, name_twos, ctx_twos) + twos(e.rhs, name_twos, ctx_twos))
        if op == "<<" and type(e.rhs) is A.IntLit:
            return min(INFINITE, twos(e.lhs, name_twos, ctx_twos) + e.rhs.value)
        if op == "&":
            # x & m keeps at least the zeros of either side
            return max(twos(e.lhs, name_twos, ctx_twos), twos(e.rhs, name_twos, ctx_twos))
        if op == "|":
            return min(twos(e.lhs, name_twos, ctx_twos), twos(e.rhs, name_twos, ctx_twos))
    return 0
