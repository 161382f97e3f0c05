"""When a slice provably stays inside the memory it is cut from, so its mask can go (LANGUAGE §7:
"The lowering drops a mask only where it can prove the slice in bounds (loop bounds, guards, and
`@aligned`, which rules out a span that straddles the end)").

A subscript ``s :+ n`` on an axis of extent ``E`` is in bounds when ``0 <= s`` and ``s + n <= E``.
Both are decided on affine forms (analyzer/constants.py) whose atoms are bindings: ``let``s are
replaced by their initializers, constants and the ctx fields with a fixed value by numbers. Each
remaining atom has an interval: a loop variable ``v`` of ``range(lo, hi, step)`` lies in
``[lo, hi - 1]``, and in ``[lo, hi - step]`` when ``hi - lo`` is a multiple of ``step`` (which
``@aligned`` shows for an extent); ``ctx.thread``, ``ctx.lane``, ``ctx.warp`` lie in their ranges,
block indices and extents are at least 0. An enclosing ``if x < E`` (or ``x <= E - c``) bounds
``x`` inside its branch. Interval ends are affine forms themselves, so ``k0 <= K - BK`` proves
``k0 + BK <= K`` with ``K`` a runtime extent. Anything else keeps its mask.
"""

from __future__ import annotations

from ..analyzer.checked import affine
from ..analyzer.syntax import ast as A

_CTX_RANGES = {("lane",): (0, 31)}


class Bounds:
    def __init__(self, em):
        self.em = em            # the kernel emitter: instance, kinfo, guard stack

    # ---------------------------------------------------------------- forms
    def form(self, e, inst, depth: int = 0):
        """``e`` as an affine form over atoms: ('b', uid) bindings, ('ctx', path) fields, and
        ('x', name) kernel extents."""
        em = self.em

        def const_value(n):
            b = inst.resolution.get(id(n))
            if b is not None and b.kind in ("const", "function-dim") and isinstance(b.const_value, int) \
                    and not isinstance(b.const_value, bool):
                return b.const_value
            return None

        def atom_key(node):
            if isinstance(node, A.CtxPath):
                return ("ctx", node.path)
            b = inst.resolution.get(id(node))
            if b is None:
                return None
            if b.kind == "extent":
                return ("x", b.name)
            return ("b", b.uid)

        f = affine(e, const_value, atom_key)
        if f is None:
            return None
        out = {None: f.get(None, 0)}
        for k, c in f.items():
            if k is None:
                continue
            sub = None if k in self.em.guard_bounds else self._expand(k, inst, depth)
            if sub is None:
                out[k] = out.get(k, 0) + c
                continue
            for k2, c2 in sub.items():
                out[k2] = out.get(k2, 0) + c * c2
        threads = em.threads
        fixed = {("ctx", ("threads",)): threads, ("ctx", ("warps",)): threads // 32, ("ctx", ("lanes",)): 32}
        for k in list(out):
            if k in fixed:
                out[None] += out.pop(k) * fixed[k]
        return {k: v for k, v in out.items() if v != 0 or k is None}

    def _expand(self, key, inst, depth):
        """A `let` of an integer: its initializer's form (it never changes)."""
        if key[0] != "b" or depth > 8:
            return None
        b = self.em.binding_by_uid.get(key[1])
        if b is None or b.kind != "let" or not isinstance(b.node, A.Let):
            return None
        home = self.em.home_of.get(b.uid, inst)
        return self.form(b.node.value, home, depth + 1)

    # ---------------------------------------------------------------- intervals
    def interval(self, key):
        """(low, high) of an atom as affine forms, either None when unknown."""
        zero = {None: 0}
        if key[0] == "ctx":
            path = key[1]
            if path == ("thread",):
                return zero, {None: self.em.threads - 1}
            if path == ("warp",):
                return zero, {None: self.em.threads // 32 - 1}
            if path in _CTX_RANGES:
                lo, hi = _CTX_RANGES[path]
                return {None: lo}, {None: hi}
            return zero, None                      # block and grid indices
        if key[0] == "x":
            return zero, None
        b = self.em.binding_by_uid.get(key[1])
        high = self.em.guard_bounds.get(key)
        if b is not None and b.kind == "loop" and isinstance(b.node, A.For):
            inst = self.em.home_of.get(b.uid, self.em.inst)
            loop = b.node
            lo = self.form(loop.args[0], inst)
            hi = self.form(loop.args[1], inst)
            step = self.form(loop.args[2], inst) if len(loop.args) == 3 else {None: 1}
            top = None
            if hi is not None:
                s = step.get(None) if step is not None and len(step) == 1 else None
                if s is not None and s > 0 and lo is not None and self._multiple(_sub(hi, lo), s):
                    top = _add_const(hi, -s)
                else:
                    top = _add_const(hi, -1)
            return lo, high if high is not None else top
        if b is not None and b.kind == "let":
            f = self._expand(key, self.em.inst, 0)
            if f is not None:
                lo = self.bound(f, upper=False)
                return lo, high if high is not None else self.bound(f, upper=True)
        return None, high

    def _multiple(self, f, s: int) -> bool:
        """Is the affine form ``f`` a multiple of ``s`` in every run (extents by @aligned)?"""
        for k, c in f.items():
            if k is None:
                if c % s:
                    return False
                continue
            if c % s == 0:
                continue
            if k[0] == "x":
                a = self.em.kinfo.aligned.get(k[1])
                if a is not None and (c * a) % s == 0:
                    continue
            return False
        return True

    def bound(self, f, upper: bool):
        """An affine bound of ``f`` (upper or lower) with every non-extent atom replaced by its
        interval end; None when some atom has no such end."""
        out = {None: f.get(None, 0)}
        for k, c in f.items():
            if k is None:
                continue
            if k[0] == "x" and upper:              # keep extents symbolic in upper bounds
                out[k] = out.get(k, 0) + c
                continue
            lo, hi = self.interval(k)
            end = hi if (c > 0) == upper else lo
            if end is None:
                return None
            for k2, c2 in end.items():
                out[k2] = out.get(k2, 0) + c * c2
        return {k: v for k, v in out.items() if v != 0 or k is None}

    # ---------------------------------------------------------------- the question
    def inside(self, start, length: int | None, extent, inst) -> bool:
        """Does ``start :+ length`` (a point when ``length`` is None) stay within ``[0, extent)``?
        ``start`` is an AST expression (None means 0); ``extent`` an int or an extent name."""
        n = 1 if length is None else length
        f = {None: 0} if start is None else self.form(start, inst)
        if f is None:
            return False
        low = self.bound(f, upper=False)
        if low is None or len(low) != 1 or low[None] < 0:
            return False
        high = self.bound(f, upper=True)
        if high is None:
            return False
        end = _add_const(high, n)                  # one past the last index touched
        if isinstance(extent, int):
            return len(end) == 1 and end[None] <= extent
        if isinstance(extent, str):
            diff = dict(end)
            diff[("x", extent)] = diff.get(("x", extent), 0) - 1
            diff = {k: v for k, v in diff.items() if v != 0 or k is None}
            return len(diff) == 1 and diff[None] <= 0
        return False

    # ---------------------------------------------------------------- guards
    def guard_facts(self, cond, inst) -> dict:
        """Upper bounds an `if` condition gives inside its then-branch: ``x < E``, ``x <= E``,
        ``E > x`` and their conjunctions with ``&&``."""
        out = {}
        stack = [cond]
        while stack:
            c = stack.pop()
            if isinstance(c, A.Binary) and c.op == "&&":
                stack.extend((c.lhs, c.rhs))
                continue
            if not isinstance(c, A.Binary) or c.op not in ("<", "<=", ">", ">="):
                continue
            lhs, rhs, op = c.lhs, c.rhs, c.op
            if op in (">", ">="):
                lhs, rhs, op = rhs, lhs, "<" if op == ">" else "<="
            if not isinstance(lhs, A.Name):
                continue
            b = inst.resolution.get(id(lhs))
            hi = self.form(rhs, inst)
            if b is None or hi is None or b.kind not in ("let", "loop"):
                continue
            out[("b", b.uid)] = _add_const(hi, -1) if op == "<" else hi
        return out


def _sub(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) - v
    out.setdefault(None, 0)
    return {k: v for k, v in out.items() if v != 0 or k is None}


def _add_const(f: dict, c: int) -> dict:
    out = dict(f)
    out[None] = out.get(None, 0) + c
    return out
