"""Compile-time constants and affine folding (LANGUAGE §3, §7).

A tile dimension, a span length and a run length must be compile-time constants: literals,
``-D`` bindings and ``@autotune`` names, combined with integer arithmetic. The length of a range
``A[s : e]`` is ``e - s``, which folds whenever the two ends differ by a constant even when
neither is one (``A[k : k + 32]``), so expressions are folded to affine forms over opaque atoms.
"""

from __future__ import annotations

from .syntax import ast as A

# An affine form: atom -> coefficient, with the constant term under the key None.
Affine = dict


def affine(e, const_value, atom_key) -> Affine | None:
    """Fold ``e`` to an affine form, or None. ``const_value(name_node)`` gives a constant's
    value or None; ``atom_key(node)`` gives a hashable identity for an opaque atom or None."""
    if isinstance(e, A.IntLit):
        return {None: e.value}
    if isinstance(e, A.Name):
        v = const_value(e)
        if isinstance(v, bool):
            return None
        if isinstance(v, int):
            return {None: v}
        key = atom_key(e)
        return None if key is None else {key: 1}
    if isinstance(e, A.CtxPath):
        key = atom_key(e)
        return None if key is None else {key: 1}
    if isinstance(e, A.Unary) and e.op == "-":
        inner = affine(e.operand, const_value, atom_key)
        return None if inner is None else {k: -v for k, v in inner.items()}
    if isinstance(e, A.Binary) and e.op in ("+", "-", "*", "/", "%", "<<", ">>"):
        lhs = affine(e.lhs, const_value, atom_key)
        if lhs is None:
            return None
        rhs = affine(e.rhs, const_value, atom_key)
        if rhs is None:
            return None
        if e.op == "+":
            return _add(lhs, rhs, 1)
        if e.op == "-":
            return _add(lhs, rhs, -1)
        lc, rc = _constant(lhs), _constant(rhs)
        if e.op == "*":
            if lc is not None:
                return {k: v * lc for k, v in rhs.items() if v * lc != 0} or {None: 0}
            if rc is not None:
                return {k: v * rc for k, v in lhs.items() if v * rc != 0} or {None: 0}
            return None
        if lc is None or rc is None:
            return None
        try:
            return {None: int_op(e.op, lc, rc)}
        except (ZeroDivisionError, ValueError, OverflowError):
            return None
    return None


def _add(a: Affine, b: Affine, sign: int) -> Affine:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    out = {k: v for k, v in out.items() if v != 0 or k is None}
    out.setdefault(None, 0)
    return out


def _constant(f: Affine) -> int | None:
    if all(k is None for k in f):
        return f.get(None, 0)
    return None


def constant_of(f: Affine | None) -> int | None:
    return None if f is None else _constant(f)


def int_op(op: str, a: int, b: int) -> int:
    """``a op b`` on Python integers as Phobos computes it (no wrapping): `/` and `%` truncate
    toward zero (§6); a shift by a negative count, or left by more than 64, is a ValueError."""
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q        # truncates toward zero (§6)
    if op == "%":
        return a - b * int_op("/", a, b)
    if op == "<<":
        if b < 0 or b > 64:
            raise ValueError
        return a << b
    if op == ">>":
        if b < 0:
            raise ValueError
        return a >> b
    raise ValueError(op)
