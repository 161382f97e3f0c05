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

The same forms decide where an ``i32`` subscript may be computed in 64 bits (``wide_index``):
where it is made of ring operations and integer bounds of its atoms (``span``) keep its value
inside the i32 range, so that no wrap-around (LANGUAGE §3) can tell the two apart.
"""

from __future__ import annotations

from ..analyzer.checked import affine, int_op
from ..analyzer.syntax import ast as A
from ..language.types import Scalar, settle

_CTX_RANGES = {("lane",): (0, 31)}
I32_MIN, I32_MAX = -2 ** 31, 2 ** 31 - 1


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

    # ---------------------------------------------------------------- indices in 64 bits
    def wide_index(self, e, inst):
        """The affine form of the ``i32`` expression ``e`` when its value can be computed in 64
        bits from its atoms: ``e`` is built of ``+``, ``-``, ``*``, literals, constants, ctx
        fields, extents, loop variables and ``let``s of those (so its i32 value is the form's
        value modulo 2^32, whatever wraps on the way), and the form's value provably lies in the
        i32 range, so that it is the i32 value itself (LANGUAGE §3: i32 arithmetic wraps; here
        nothing can). None otherwise. The atoms are ('ctx', path), ('x', extent) and ('b', uid)
        of an i32 loop variable or ``let``."""
        if not self._ring(e, inst, 0):
            return None
        f = self.form(e, inst)
        if f is None or any(abs(c) >= 2 ** 62 for c in f.values()):
            return None
        for k in f:
            if k is not None and k[0] == "b":
                b = self.em.binding_by_uid.get(k[1])
                if b is None or b.kind not in ("loop", "let") or _int_name(b.type) != "i32":
                    return None
        return f if self._exact_span(f, 0) is not None else None

    def _ring(self, e, inst, depth: int) -> bool:
        """Is ``e`` made of ring operations only (its i32 value is then its value modulo 2^32)?"""
        if depth > 8:
            return False
        if self.exact_const(e, inst, depth) is not None:
            return True
        if isinstance(e, (A.IntLit, A.CtxPath)):
            return True
        if isinstance(e, A.Unary):
            return e.op == "-" and self._ring(e.operand, inst, depth + 1)
        if isinstance(e, A.Binary):
            return e.op in ("+", "-", "*") and self._ring(e.lhs, inst, depth + 1) and self._ring(e.rhs, inst, depth + 1)
        if isinstance(e, A.Name):
            b = inst.resolution.get(id(e))
            if b is None:
                return False
            if b.kind in ("const", "function-dim"):
                v = b.const_value
                return isinstance(v, int) and not isinstance(v, bool) and I32_MIN <= v <= I32_MAX
            if b.kind == "let" and isinstance(b.node, A.Let):      # the forms expand it
                return self._ring(b.node.value, self.em.home_of.get(b.uid, inst), depth + 1)
            return True                            # an opaque atom
        return False

    def exact_const(self, e, inst, depth: int = 0) -> int | None:
        """The value of a constant integer expression whose every step stays in the i32 range
        (so that folding it exactly, as the affine forms do, gives the i32 value), or None."""
        if depth > 8:
            return None
        v = None
        if isinstance(e, A.IntLit):
            v = e.value
        elif isinstance(e, A.CtxPath):
            v = {("threads",): self.em.threads, ("warps",): self.em.threads // 32, ("lanes",): 32}.get(e.path)
        elif isinstance(e, A.Name):
            b = inst.resolution.get(id(e))
            if b is not None and b.kind in ("const", "function-dim"):
                v = b.const_value
        elif isinstance(e, A.Unary) and e.op == "-":
            x = self.exact_const(e.operand, inst, depth + 1)
            v = None if x is None else -x
        elif isinstance(e, A.Binary) and e.op in ("+", "-", "*", "/", "%", "<<", ">>"):
            x = self.exact_const(e.lhs, inst, depth + 1)
            y = self.exact_const(e.rhs, inst, depth + 1) if x is not None else None
            if y is not None:
                v = (x + y if e.op == "+" else x - y if e.op == "-" else x * y) if e.op in ("+", "-", "*") \
                    else _fold(e.op, x, y)
        if not isinstance(v, int) or isinstance(v, bool) or not I32_MIN <= v <= I32_MAX:
            return None
        return v

    def span(self, f, depth: int) -> tuple[int, int] | None:
        """Integer bounds of the affine form ``f`` over every run, each atom within its range
        (None: an atom that is not a 32-bit integer)."""
        lo = hi = f.get(None, 0)
        for k, c in f.items():
            if k is None:
                continue
            r = self.atom_span(k, depth)
            if r is None:
                return None
            a, z = r
            lo += c * (a if c > 0 else z)
            hi += c * (z if c > 0 else a)
        return lo, hi

    def atom_span(self, key, depth: int) -> tuple[int, int] | None:
        """Integer bounds of an atom's value (the whole i32 range when nothing narrows it; None
        for a value wider than 32 bits or not an integer).
        A form that bounds an atom is used only where it provably does not wrap itself: only
        then is the value it stands for the i32 value the program computes."""
        full = (I32_MIN, I32_MAX)
        if key[0] == "ctx":
            if key[1] == ("thread",):
                return 0, self.em.threads - 1
            if key[1] == ("warp",):
                return 0, self.em.threads // 32 - 1
            if key[1] in _CTX_RANGES:
                return _CTX_RANGES[key[1]]
            return 0, I32_MAX                      # block and grid indices
        if key[0] == "x":
            return 0, I32_MAX
        b = self.em.binding_by_uid.get(key[1])
        if b is None or _int_name(b.type) not in ("i32", "i8", "u8"):
            return None
        lo, hi = full
        if depth > 6:
            return full
        guard = self.em.guard_bounds.get(key)
        if guard is not None:                      # an enclosing `if key < bound`: i32 compare
            g = self._exact_span(guard, depth + 1)
            if g is not None:
                hi = g[1]
        inst = self.em.home_of.get(b.uid, self.em.inst)
        if b.kind == "loop" and isinstance(b.node, A.For):
            # LANGUAGE §5: lo <= v < hi (a variable that would step past the largest i32 is an
            # error), and v <= hi - step when hi - lo is a multiple of a constant step
            loop = b.node
            f_lo = self.form(loop.args[0], inst)
            f_hi = self.form(loop.args[1], inst)
            step = self.form(loop.args[2], inst) if len(loop.args) == 3 else {None: 1}
            ring = lambda e, f: f is not None and self._ring(e, inst, 0)    # noqa: E731
            s_lo = self._exact_span(f_lo, depth + 1) if ring(loop.args[0], f_lo) else None
            s_hi = self._exact_span(f_hi, depth + 1) if ring(loop.args[1], f_hi) else None
            if s_lo is not None:
                lo = max(lo, s_lo[0])
            top = s_hi[1] if s_hi is not None else I32_MAX
            s = step.get(None) if step is not None and len(step) == 1 and \
                (len(loop.args) < 3 or self._ring(loop.args[2], inst, 0)) else None
            if s is not None and s > 0 and s_lo is not None and s_hi is not None and \
                    self._multiple(_sub(f_hi, f_lo), s):
                hi = min(hi, top - s)
            else:
                hi = min(hi, top - 1)
        elif b.kind == "let" and isinstance(b.node, A.Let):
            f = self._expand(key, self.em.inst, 0)
            s = self._exact_span(f, depth + 1) if f is not None and self._ring(b.node.value, inst, 0) else None
            if s is not None:
                lo, hi = max(lo, s[0]), min(hi, s[1])
        return lo, hi

    def _exact_span(self, f, depth: int):
        """``span(f)`` when it fits in i32 (the form's value is then the i32 value), else None."""
        r = self.span(f, depth)
        return r if r is not None and I32_MIN <= r[0] and r[1] <= I32_MAX else None

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
            if b is None or hi is None or b.kind not in ("let", "loop") or not self._ring(rhs, inst, 0):
                continue                           # (a bound that wraps bounds nothing)
            out[("b", b.uid)] = _add_const(hi, -1) if op == "<" else hi
        return out


def _int_name(t) -> str | None:
    """The name of a scalar integer type (literal types settled), else None."""
    return settle(t).name if isinstance(t, Scalar) and settle(t).is_int else None


def _fold(op: str, x: int, y: int) -> int | None:
    """``x op y`` for ``/ % << >>`` as the i32 instructions compute it, for x and y in range."""
    try:
        return int_op(op, x, y)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None


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
