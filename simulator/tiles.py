"""CTA-wide tile operations: slices and views, copies, elementwise sweeps and the tile built-ins
(LANGUAGE §7, §8), each run once per CTA for every CTA of the batch that reaches it.

A tile value is a numpy array with a leading axis over the CTAs that run the operation
(``cidx``), then the tile's own axes; a scalar a sweep broadcasts is one value per CTA, checked
to be the same in every thread (PH302). Reading a buffer CTA-wide first checks that no thread of
the CTA stored an element of what is read since the last barrier (PH303); every CTA-wide
operation then ends with the barrier the lowering gives it.
"""

from __future__ import annotations

import numpy as np

from ..analyzer.syntax import ast as A
from ..analyzer.checked import source_of
from ..language.types import Run, Scalar, Tile
from . import values as V
from .errors import fire
from .memory import Buffer, Region, all_true, gather, owner_cta

_TILE_MATH = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "round": V.round_half_even}
_POINTWISE = frozenset(V.NUMPY_DTYPES) | frozenset(_TILE_MATH) | {"tmax", "where"}

# A store of more elements than this per CTA (a slice running far past its tensor's end, as
# `A[0 :+ 2147483647]` may) computes only the part that lands inside its target, when its value
# is computed element by element (copies, sweeps, casts, `where`, `tmax`). Smaller stores are
# computed whole, so that every element they read is checked for races.
WINDOW_FROM = 1 << 20
# The most elements one tile value may have per CTA, after that clamping: past it (a `rowsum`
# of a slice of 2**31 elements) the simulator stops with PH405 instead of asking for gigabytes.
MAX_TILE_ELEMENTS = 1 << 24


def _elem(t):
    return t.elem if isinstance(t, (Run, Tile)) else t


def lift(x, rank: int):
    """Give a per-CTA value (``(k,)`` scalar or ``(k, ..)`` tile) ``rank`` tile axes, padding on the
    left as NumPy broadcasting does (the CTA axis stays first)."""
    x = np.asarray(x)
    if x.ndim == 0:
        return x
    have = x.ndim - 1
    if have >= rank:
        return x
    return x.reshape((x.shape[0],) + (1,) * (rank - have) + x.shape[1:])


class TileEval:
    cur_op = None
    watching = 0            # `while` loops running (machine.py): memory changes are counted
    _tile_cidx = None       # the CTAs of the tile statement being computed
    _window = None          # the cut of a huge store being computed (store_window)

    # ---------------------------------------------------------------- regions
    def view_of(self, e) -> Region:
        """A slice (or a tile's name) as a view: no copy; its offsets are checked uniform."""
        if isinstance(e, A.Name):
            return self.region_of(e)
        base = self.region_of(e.base)
        op = self.inst.ops.get(id(e)) or self.cur_op
        subs = []
        for axis, s in enumerate(e.subs):
            if isinstance(s, A.Point):
                subs.append((self._offset(s.index, op), None))
            elif isinstance(s, A.SpanSub):
                subs.append((self._offset(s.start, op), int(self.ev(s.length))))
            elif s.lo is None and s.hi is None:
                subs.append((0, base.shape[axis]))
            else:
                lo = self._offset(s.lo, op) if s.lo is not None else 0
                hi = self._offset(s.hi, op)
                n = np.asarray(hi - lo)
                if n.ndim:
                    reached = self.mask.reshape(self.C, self.T).any(1)
                    n = n[np.flatnonzero(reached)[0]] if reached.any() else n[0]
                subs.append((lo, int(n)))
        return base.sub(subs)

    def _offset(self, expr, op):
        v = self.cta_uniform(self.ev(expr), expr, op)
        return v if isinstance(v, np.ndarray) and v.ndim else int(v)

    def read_region(self, region: Region, cidx: np.ndarray, node, index=None) -> np.ndarray:
        """``region`` in the CTAs ``cidx``, read CTA-wide (PH303 and PH409 checked); ``index``: its
        ``cta_index(cidx)`` when the caller has it already."""
        self.tile_room(region.shape, node)
        buf = region.buf
        checked = buf.dirty or (buf.cta_ids is not None and (buf.owner is not None or buf.xwatch))
        if index is None and not checked:
            v = region.fast_read(cidx)           # nothing to check: no flat indices needed
            if v is not None:
                return v
        flat, inb = region.cta_index(cidx) if index is None else index
        if buf.dirty:
            w = buf.writer[np.where(inb, flat, 0)]     # masked elements (off the end) read nothing
            racy = (w != -1) & inb & (owner_cta(w, self.T) == cidx.reshape((-1,) + (1,) * (w.ndim - 1)))
            if racy.any():
                self._racy_tile_read(buf, node, flat, racy, w, cidx)
        if buf.cta_ids is not None and (buf.owner is not None or buf.xwatch):
            cid = cidx.reshape((-1,) + (1,) * (flat.ndim - 1))
            found = buf.cross_read(flat, cid, inb, site=self.site(self.cur_op if self.cur_op is not None else node))
            if found is not None:
                self.cross_cta(self.cur_op if self.cur_op is not None else node, buf, flat, cid, found, reads=True)
        return gather(buf, flat, inb)

    def _racy_tile_read(self, buf, node, flat, racy, w, cidx):
        pos = tuple(int(i[0]) for i in np.nonzero(racy))
        writer = int(w[pos])
        c = int(cidx[pos[0]])
        element = list(buf.coords(int(flat[pos])))
        who = f"thread {writer % self.T}" if writer >= 0 else "several threads"
        name = node.id if isinstance(node, A.Name) else source_of(node.base) if isinstance(node, A.Index) else buf.name
        self.unsynced_read(self.cur_op, name, c, who, f"{buf.name}{element}",
                           notes=[f"{int(racy.sum())} element(s) of what this operation reads were stored per "
                                  "thread in the CTA since its last barrier"])

    def unsynced_read(self, op, name: str, c: int, who: str, element: str, notes=()) -> None:
        """PH303 at run time: ``op`` reads ``name`` where ``who`` stored ``element`` per thread in
        CTA ``c`` since the last barrier."""
        fire("PH303", f"`{op.name}` reads `{name}` after a per-thread store to it with no `barrier()` between",
             op.span, label=f"in CTA {self.cta_label(c)}, {who} stored `{element}` since the last barrier",
             notes=list(notes), help="put a `barrier()` between the per-thread stores and this operation")

    def tile_room(self, shape, node) -> None:
        """PH405 for a tile value of more than MAX_TILE_ELEMENTS elements per CTA, before
        anything of that size is allocated."""
        n = 1
        for d in shape:
            n *= int(d)
        if n > MAX_TILE_ELEMENTS:
            op = self.cur_op if self.cur_op is not None else node
            what = f"`{op.name}`" if getattr(op, "name", None) else "this operation"
            fire("PH405", f"{what} works on a tile of {n:,} elements per CTA, more than the simulator's limit "
                 f"of {MAX_TILE_ELEMENTS:,}", node.span, label=f"a tile of shape {list(shape)}",
                 notes=["a slice running past its tensor's end is clamped to the tensor only where it is "
                        "copied or swept element by element into a slice"],
                 help="make the slice no longer than the data it covers")

    # ---------------------------------------------------------------- slices too large to hold
    def store_window(self, region: Region, value, cidx: np.ndarray):
        """For a store of more than WINDOW_FROM elements per CTA whose value is computed element
        by element: (the target region cut to the elements that land inside its buffer in some
        CTA of ``cidx``, the cut per visible axis as (start, length)); None otherwise."""
        shape = region.shape
        n = 1
        for d in shape:
            n *= int(d)
        if n <= WINDOW_FROM or not self._pointwise(value, shape):
            return None
        buf = region.buf
        lo_all, hi_all = [], []
        empty = False
        for axis, (off, length) in enumerate(zip(region.offsets, region.lengths)):
            o = np.asarray(off[cidx] if isinstance(off, np.ndarray) else off, dtype=np.int64)
            size = buf.shape[axis]
            if length is None:                          # a point axis: in range or nothing lands
                empty = empty or not bool(np.any((o >= 0) & (o < size)))
                continue
            lo = np.clip(-o, 0, length)
            hi = np.clip(size - o, 0, length)
            some = hi > lo
            if not np.any(some):
                empty = True
                lo_all.append(0)
                hi_all.append(0)
            else:
                lo_all.append(int(np.min(lo[some]) if lo.ndim else lo))
                hi_all.append(int(np.max(hi[some]) if hi.ndim else hi))
        if empty:
            cut = [(0, 0)] * len(shape)
        else:
            cut = [(lo, hi - lo) for lo, hi in zip(lo_all, hi_all)]
        if all(c == (0, d) for c, d in zip(cut, shape)):
            return None                                 # all of it lands: nothing to cut
        return region.sub(cut), (tuple(shape), cut)

    def _pointwise(self, e, shape) -> bool:
        """Is ``e`` computed element by element from tiles that line up with a target of
        ``shape`` (the same extent, or 1, on each axis aligned from the right)?"""
        t = self.types[id(e)]
        if isinstance(t, Scalar):
            return True
        if not isinstance(t, Tile) or _cut(t.shape, shape, [(0, d) for d in shape]) is None:
            return False
        if isinstance(e, (A.Name, A.Index)):
            return True
        if isinstance(e, A.Binary):
            return self._pointwise(e.lhs, shape) and self._pointwise(e.rhs, shape)
        if isinstance(e, A.Unary):
            return self._pointwise(e.operand, shape)
        if isinstance(e, A.Call):
            return id(e) not in self.inst.calls and e.func in _POINTWISE and \
                all(self._pointwise(a, shape) for a in e.args)
        return False

    def windowed(self, region: Region, t) -> Region:
        """A tile operand cut as the store being computed is (``self._window``)."""
        window = self._window
        if window is None:
            return region
        shape, cut = window
        sub = _cut(region.shape, shape, cut)
        return region if sub is None else region.sub(sub)

    # ---------------------------------------------------------------- statements
    def new_tile(self, s, b, value) -> Buffer:
        """`let`/`var` of a tile-valued expression: a fresh shared tile, filled CTA-wide."""
        op = self.inst.ops[id(s)]
        cidx = self.cta_gate(op)
        t = b.type
        self.tile_room(t.shape, s)
        buf = Buffer.tile(b.name, self.C, t.shape, t.elem)
        if cidx.size:
            prev, self.cur_op = self.cur_op, op
            try:
                result = self.tile_result(value, cidx, t)
                self.planned_barrier(s, cidx)
                buf.data[cidx] = result
            finally:
                self.cur_op = prev
        self.end_cta_op(cidx)
        return buf

    def tile_assign(self, s: A.Assign, region: Region | None, binop, cidx=None) -> None:
        op = self.inst.ops[id(s)]
        if cidx is None:
            cidx = self.cta_gate(op)
        if cidx.size == 0:
            return
        prev, self.cur_op = self.cur_op, op
        try:
            if region is None:
                region = self.view_of(s.target)
            window = None
            cut = self.store_window(region, s.value, cidx)
            if cut is not None:                 # a huge store: compute only what lands
                region, window = cut
            self.tile_room(region.shape, s)
            buf = region.buf
            rank = len(region.shape)
            value = self.statement_value(s.value, cidx, window)
            cross = region.buf.cta_ids is not None
            # the flat indices, once for the read, the checks and the store, where a check needs them
            index = region.cta_index(cidx) if cross or self.watching else None
            if binop:
                current = self.read_region(region, cidx, s.target, index)
                value = self.binop(binop, lift(current, rank), lift(value, rank), buf.elem,
                                   _elem(self.types[id(s.value)]), buf.elem, s.span, align=False)
            value = np.broadcast_to(lift(V.cast(value, buf.elem), rank), (cidx.size,) + region.shape)
            self.planned_barrier(s, cidx)
            before = gather(region.buf, *index) if index is not None else None
            # memory changed: progress, for the check of a `while` loop that runs (the only
            # loops that can repeat with nothing changed)
            if self.watching and _changes(before, index[1], value):
                self.writes += 1
            if not region.fast_write(cidx, value):
                region.write(cidx, value, index)
            if cross:
                flat, inb = index
                cid = np.broadcast_to(cidx.reshape((-1,) + (1,) * (flat.ndim - 1)), flat.shape)
                found = region.buf.cross_write(flat[inb], cid[inb], value[inb], before[inb], site=self.site(op))
                if found is not None:
                    self.cross_cta(op, region.buf, flat[inb], cid[inb], found, reads=False)
        finally:
            self.cur_op = prev
        self.end_cta_op(cidx)

    def planned_barrier(self, s, cidx) -> None:
        """The barrier the lowering puts right before this CTA-wide write (the plan's, LANGUAGE
        §10): per-thread accesses before it are ordered with the write."""
        if self.plan is not None and self.plan.needs_barrier_before(s, self.inst):
            self.end_cta_op(cidx)

    def tile_result(self, e, cidx: np.ndarray, t: Tile) -> np.ndarray:
        v = lift(V.cast(self.statement_value(e, cidx), t.elem), len(t.shape))
        return np.broadcast_to(v, (cidx.size,) + tuple(t.shape))

    def statement_value(self, e, cidx: np.ndarray, window=None):
        """The value of a tile statement's expression, in LANGUAGE §6's order: its scalars, calls
        and tile operations each at its place, after its operands; a tile or a slice is read by
        the operation that takes it (so `u + f(u)` adds what `f` left in `u`, while
        `rowsum(u) + f(u)` sums `u` before `f` runs: analyzer/evaluation.py). ``window``: the
        cut of a huge store (``store_window``), applied to every tile operand."""
        saved, saved_window = self._tile_cidx, self._window
        self._tile_cidx, self._window = cidx, window
        try:
            return self.operand(self.tv(e, cidx), cidx)
        finally:
            self._tile_cidx, self._window = saved, saved_window

    def operand(self, v, cidx: np.ndarray):
        """A value an operation takes: a tile or slice (a ``Leaf``) is read now."""
        if type(v) is Leaf:
            return self.read_region(v.region, cidx, v.node)
        return v

    # ---------------------------------------------------------------- expressions
    def tv(self, e, cidx: np.ndarray):
        """A tile-valued expression (or a scalar a sweep broadcasts) in the CTAs ``cidx``: an
        array, or a ``Leaf`` for a tile or a slice, which its taker reads."""
        t = self.types[id(e)]
        if isinstance(t, Scalar):
            v = self.cta_uniform(self.ev(e), e, self.cur_op)
            return v[cidx] if np.ndim(v) else v
        if isinstance(e, A.Name):
            return Leaf(self.windowed(self.region_of(e), t), e)
        if isinstance(e, A.Index):
            return Leaf(self.windowed(self.view_of(e), t), e)
        if isinstance(e, A.Binary):
            rank = len(t.shape)
            a, b = self.tv(e.lhs, cidx), self.tv(e.rhs, cidx)
            a, b = lift(self.operand(a, cidx), rank), lift(self.operand(b, cidx), rank)
            return self.binop(e.op, a, b, _elem(self.types[id(e.lhs)]), _elem(self.types[id(e.rhs)]),
                              t.elem, e.span, align=False)
        if isinstance(e, A.Unary):
            v = V.cast(self.operand(self.tv(e.operand, cidx), cidx), V.compute_type(t.elem))
            return V.cast(np.negative(v), t.elem)
        if isinstance(e, A.Call):
            return self.tile_call(e, t, cidx)
        raise AssertionError(f"no tile evaluation for {type(e).__name__}")

    def tile_call(self, e: A.Call, t: Tile, cidx):
        f = e.func
        if id(e) in self.inst.calls:
            return self.call_function(e)[cidx]
        rank = len(t.shape)
        take = self.operand
        if f in V.NUMPY_DTYPES:
            return V.cast(take(self.tv(e.args[0], cidx), cidx), t.elem)
        if f in _TILE_MATH:
            x = V.cast(take(self.tv(e.args[0], cidx), cidx), V.compute_type(t.elem))
            with np.errstate(all="ignore"):
                return V.cast(_TILE_MATH[f](x), t.elem)
        if f == "tmax":
            a, b = [self.tv(x, cidx) for x in e.args]
            a, b = lift(take(a, cidx), rank), lift(take(b, cidx), rank)
            ct = V.compute_type(t.elem)
            return V.cast(V.fmax(V.cast(a, ct), V.cast(b, ct)), t.elem)
        if f == "where":
            # as for scalars: a division by zero only counts in the elements of the side taken
            c = lift(take(self.tv(e.args[0], cidx), cidx), rank)
            saved = self._tile_div_taken
            try:
                self._tile_div_taken = _taken_within(saved, np.asarray(c, dtype=bool))
                a = self.tv(e.args[1], cidx)
                self._tile_div_taken = _taken_within(saved, ~np.asarray(c, dtype=bool))
                b = self.tv(e.args[2], cidx)
            finally:
                self._tile_div_taken = saved
            a, b = lift(take(a, cidx), rank), lift(take(b, cidx), rank)
            return np.where(c, V.cast(a, t.elem), V.cast(b, t.elem))
        prev, self.cur_op = self.cur_op, self.inst.ops.get(id(e)) or self.cur_op
        try:
            args = [self.tv(x, cidx) for x in e.args]
            args = [take(a, cidx) for a in args]
        finally:
            self.cur_op = prev
        return V.cast(BUILTINS[f](t, *args), t.elem)


def _changes(before: np.ndarray, inb: np.ndarray, value: np.ndarray) -> bool:
    """Does storing ``value`` where ``inb`` holds change ``before``?"""
    if not all_true(inb):
        before = np.where(inb, before, value)
    return not np.array_equal(before, value, equal_nan=value.dtype.kind == "f")


def _cut(have, shape, cut):
    """The cut (start, length per axis) of a target of ``shape``, for an operand of shape
    ``have`` that broadcasts to it (axes aligned from the right; an axis of 1 is not cut); None
    when the shapes do not line up that way."""
    have = tuple(int(d) if isinstance(d, (int, np.integer)) else d for d in have)
    if len(have) > len(shape):
        return None
    out = []
    for d, want, c in zip(have, shape[len(shape) - len(have):], cut[len(shape) - len(have):]):
        if d == want:
            out.append(c)
        elif d == 1:
            out.append((0, 1))
        else:
            return None
    return out


class Leaf:
    """A tile or a slice as an operand: read by the operation that takes it (LANGUAGE §6)."""

    __slots__ = ("region", "node")

    def __init__(self, region: Region, node):
        self.region = region
        self.node = node


def _taken_within(taken, c):
    if taken is None:
        return c
    try:
        return np.logical_and(taken, c)
    except ValueError:
        return c


# ---------------------------------------------------------------- the tile built-ins (§8)
# Each takes the result type and the operands, CTA axis first.


def _acc(t: Tile):
    return V.dtype_of(V.compute_type(t.elem))


def _dot(t, a, b):
    acc = _acc(t)
    return np.matmul(a.astype(acc), b.astype(acc))


def _dot_t(t, a, b):
    acc = _acc(t)
    return np.matmul(a.astype(acc), np.swapaxes(b, -1, -2).astype(acc))


def _rowsum(t, a):
    return V.add_reduce(a.astype(_acc(t)), -1, None, keepdims=True)


def _rowmax(t, a):
    return np.fmax.reduce(a.astype(_acc(t)), axis=-1, keepdims=True)


def _cumsum(t, a):
    return np.cumsum(a.astype(_acc(t)), axis=-2)


def _tril(t, a):
    return np.tril(a)


def _transpose(t, a):
    return np.swapaxes(a, -1, -2)


def _q8(t, a, sa, w, sw):
    k, m, kk = a.shape
    n = w.shape[1]
    blocks = kk // 32
    ab = a.astype(np.int32).reshape(k, m, blocks, 32)
    wb = w.astype(np.int32).reshape(k, n, blocks, 32)
    partial = np.einsum("kmbq,knbq->kmnb", ab, wb).astype(np.float32)
    return np.einsum("kmnb,kmb,knb->kmn", partial, sa.astype(np.float32), sw.astype(np.float32))


def _qdot_t(t, a, sa, w, sw):
    return _q8(t, a, sa, w, sw)


def _qmma_t(t, a, sa, w, sw):
    return _q8(t, a, sa, w, np.swapaxes(sw, -1, -2))


BUILTINS = {"dot": _dot, "dot_t": _dot_t, "rowsum": _rowsum, "rowmax": _rowmax, "cumsum": _cumsum,
            "tril": _tril, "transpose": _transpose, "qdot_t": _qdot_t, "qmma_t": _qmma_t}
