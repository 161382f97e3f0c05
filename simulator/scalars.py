"""Per-thread expressions: literals, names, `ctx`, arithmetic, conversions, scalar math, `where`,
point loads and stores, runs (`sum`, `elem`, `store`), and the dispatch of every call.

Values are computed in every thread of the batch, active or not, and masked where it matters:
loads of inactive threads read index 0 and their checks are skipped, stores and checks look only at
the active threads. A load or store's checks run before it takes effect: a point or run out of its
buffer (PH402), a point read of an element another thread of the CTA stored since the last
barrier (PH401), an integer division by zero (PH406). A compound assignment (`O[i] += v`) reads its
element, then stores it: the store's checks come first, so that threads updating one element in
one barrier phase are reported as the lost update they are (PH410, PH408), then its read's PH401.
"""

from __future__ import annotations

import numpy as np

from ..language.builtins import ATOMICS, MEMORY_ORDER, SCALAR_MATH, TILE_BUILTINS
from ..analyzer.syntax import ast as A
from ..analyzer.checked import source_of
from ..language.types import BOOL, SCALARS, Run, Scalar, Tile
from . import values as V
from .errors import fire, thread_list
from .memory import SPAN_UNKNOWN, TID_BITS, gather, same_value

_COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
            ">=": np.greater_equal}
_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and, "|": np.bitwise_or,
          "^": np.bitwise_xor}
_FLOAT_MATH = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "round": V.round_half_even}


def elem(t):
    return t.elem if isinstance(t, (Run, Tile)) else t


class ScalarEval:
    _div_taken = None          # inside a side of `where`: where that side is the one taken
    _tile_div_taken = None     # the same inside a tile `where`, per element of the tile

    # ---------------------------------------------------------------- dispatch
    def ev(self, e):
        return getattr(self, "ev_" + type(e).__name__)(e)

    def ev_IntLit(self, e):
        return V.literal(e.value, self.types.get(id(e), SCALARS["i32"]))

    ev_FloatLit = ev_IntLit

    def ev_BoolLit(self, e):
        return np.bool_(e.value)

    def ev_Name(self, e: A.Name):
        b = self.inst.resolution[id(e)]
        if b.kind == "const" or (b.kind == "function-dim" and b.const_value is not None):
            return V.literal(b.const_value, b.type)
        return self.env[b.uid]

    def ev_CtxPath(self, e: A.CtxPath):
        return self.ctx[e.path]

    def ev_Unary(self, e: A.Unary):
        v = self.ev(e.operand)
        out = elem(self.types[id(e)])
        if e.op == "!":
            return np.logical_not(v)
        ct = V.compute_type(out)
        v = V.cast(v, ct)
        with np.errstate(all="ignore"):
            r = np.negative(v) if e.op == "-" else np.invert(v)
        return V.cast(r, out)

    def ev_Binary(self, e: A.Binary):
        if e.op in ("&&", "||"):
            return self.short_circuit(e)
        a = self.ev(e.lhs)
        b = self.ev(e.rhs)
        return self.binop(e.op, a, b, elem(self.types[id(e.lhs)]), elem(self.types[id(e.rhs)]),
                          elem(self.types[id(e)]), e.span)

    def short_circuit(self, e: A.Binary):
        a = self.ev(e.lhs)
        undecided = self.mask & a if e.op == "&&" else self.mask & ~a
        if not undecided.any():
            return a
        saved = self.mask
        self.set_mask(undecided)
        try:
            b = self.ev(e.rhs)
        finally:
            self.set_mask(saved)
        return (a & b) if e.op == "&&" else (a | b)

    def binop(self, op, a, b, lt: Scalar, rt: Scalar, out: Scalar, span, align: bool = True):
        """``a op b`` in the type LANGUAGE §3 says, rounded to ``out``. With ``align``, a scalar
        meeting a run gets a trailing axis (tiles arrive lifted already)."""
        if align:
            a, b = _align(a, b)
        if op in ("<<", ">>"):
            a = V.cast(a, V.compute_type(lt))
            r = V.shift_left(a, b) if op == "<<" else V.shift_right(a, b)
            return V.cast(r, out)
        if op in ("==", "!=") and V.settle(lt) == BOOL and V.settle(rt) == BOOL:
            return _COMPARE[op](a, b)
        ct = V.compute_type(V.join(lt, rt))
        a = V.cast(a, ct)
        b = V.cast(b, ct)
        with np.errstate(all="ignore"):
            if op in _COMPARE:
                return _COMPARE[op](a, b)
            if op in ("/", "%") and ct.is_int:
                b = self._nonzero_divisor(b, span, op, tile=not align)
                r = V.trunc_div(a, b) if op == "/" else V.trunc_mod(a, b)
            elif op == "/":
                r = np.divide(a, b)
            else:
                r = _ARITH[op](a, b)
        return V.cast(r, out)

    def _nonzero_divisor(self, b, span, op, tile: bool = False):
        zero = b == 0
        if not np.any(zero):
            return b
        divisor_zero = zero
        if self._div_taken is not None and not tile:
            try:
                zero = zero & np.broadcast_to(_align(zero, self._div_taken)[1], np.shape(zero)) \
                    if np.ndim(zero) else zero & self._div_taken
            except ValueError:
                pass                      # shapes that do not line up: check every element
            if not np.any(zero):
                return np.where(divisor_zero, np.ones((), b.dtype), b)
        if self._tile_div_taken is not None and tile:
            try:
                zero = np.logical_and(*np.broadcast_arrays(zero, self._tile_div_taken))
            except ValueError:
                pass                      # shapes that do not line up: check every element
            if not np.any(zero):
                return np.where(divisor_zero, np.ones((), b.dtype), b)
        what = "division" if op == "/" else "remainder"
        cidx = getattr(self, "_tile_cidx", None)
        if tile and cidx is not None and np.ndim(zero) and zero.shape[0] == len(cidx):
            # a tile operation: one row per CTA of the batch (tiles.statement_value), not per thread
            hit = zero.reshape(len(cidx), -1).any(1)
            fire("PH406", f"integer {what} by zero in a tile operation of CTA "
                 f"{self.cta_label(int(cidx[np.flatnonzero(hit)[0]]))}", span, label="a divisor is 0 here")
        if np.ndim(zero) == 0 or zero.shape[0] != self.P:
            active_zero = np.broadcast_to(zero, (self.P,) + np.shape(zero)[1:]) if np.ndim(zero) else (
                self.mask if bool(zero) else np.zeros(self.P, bool))
        else:
            active_zero = zero
        hit = self.mask & (active_zero if active_zero.ndim == 1 else active_zero.any(axis=tuple(range(1, active_zero.ndim))))
        if hit.any():
            p = np.flatnonzero(hit)
            t, cta = self.thread_of(p[0])
            fire("PH406", f"integer {what} by zero in "
                 f"{thread_list(p % self.T)} of CTA {cta}", span, label="the divisor is 0 here")
        return np.where(divisor_zero, np.ones((), b.dtype), b)

    # ---------------------------------------------------------------- subscripts
    def ev_Index(self, e: A.Index):
        base_b = self.inst.resolution[id(e.base)]
        if isinstance(base_b.type, Run):                      # r[k]: one element of a run
            k = int(self.ev(e.subs[0].index))
            return self.env[base_b.uid][:, k]
        t = self.types[id(e)]
        if isinstance(t, Run):
            return self.run_load(e)
        if isinstance(t, Tile):
            return self.view_of(e)
        return self.point_load(e)

    def access(self, e: A.Index, run: bool):
        """Per-thread flat indices of a point (``(P,)``) or run (``(P, n)``) access, and the
        buffer; out-of-bounds accesses in active threads fire PH402."""
        region = self.region_of(e.base)
        buf = region.buf
        # each subscript once, in source order: (start, run length or None)
        values = []
        for axis, s in zip(region.visible_axes, e.subs):
            if isinstance(s, A.Point):
                values.append((V.cast(self.ev(s.index), SCALARS["i64"]), None))
            else:
                values.append(self._run_axis(s, region.lengths[axis]))
        subs = dict(zip(region.visible_axes, values))
        flat = np.int64(0)
        inb = np.bool_(True)
        run_n = None
        for axis, (off, n) in enumerate(zip(region.offsets, region.lengths)):
            ix = off[self.cta_of] if isinstance(off, np.ndarray) else np.int64(off)
            end = 1
            if n is not None:
                start, length = subs[axis]
                ix = ix + start
                if length is not None:
                    run_n = end = length
                # LANGUAGE §7: within the view too, not only within the buffer behind it
                inb = inb & (start >= 0) & (start + end <= n)
            inb = inb & (ix >= 0) & (ix + end <= buf.shape[axis])
            flat = flat + ix * buf.strides[axis]
        if buf.per_cta:
            flat = flat + self.cta_of * buf.cta_size
        flat = np.broadcast_to(flat, (self.P,))
        inb = np.broadcast_to(inb, (self.P,))
        bad = self.mask & ~inb
        if bad.any():
            self._out_of_bounds(e, buf, bad, values, region)
        if not inb.all():
            flat = np.where(inb, flat, 0)
        if run_n is not None:
            flat = flat[:, None] + np.arange(run_n, dtype=np.int64)
        return buf, flat

    def _run_axis(self, s, axis_length: int):
        if isinstance(s, A.SpanSub):
            start = self.ev(s.start)
            n = int(self.ev(s.length))
        else:
            start = self.ev(s.lo) if s.lo is not None else np.int64(0)
            n = int(np.max(self.ev(s.hi) - start)) if s.hi is not None else axis_length
        return V.cast(start, SCALARS["i64"]), n

    def _out_of_bounds(self, e, buf, bad, values, region=None):
        p = np.flatnonzero(bad)
        first = int(p[0])
        t, cta = self.thread_of(first)
        ctas = self.cta_of[p]
        same_cta = p[ctas == ctas[0]]
        shape = "[" + ", ".join(str(d) for d in buf.shape) + "]"
        if region is not None and isinstance(e.base, A.Name) and e.base.id != buf.name:
            view = [n for n in region.lengths if n is not None]
            if view != list(buf.shape):      # a view: its own shape is what the subscripts index
                shape = "[" + ", ".join(str(d) for d in view) + f"], a view of `{buf.name}`"
                buf_name = e.base.id
                fire("PH402", f"`{source_of(e)}` is out of bounds of `{buf_name}` (shape {shape}) in "
                     f"{thread_list(same_cta % self.T)} of CTA {cta}", e.span,
                     label=f"outside `{buf_name}`",
                     notes=[f"thread {t} of CTA {cta} accesses `{buf_name}[" + ", ".join(
                         f"{_at(v, first)}" if n is None else f"{_at(v, first)} :+ {n}" for v, n in values) + "]`"],
                     help="guard the access with a bounds check; only slices are masked (LANGUAGE §7)")
        shown = ", ".join(f"{_at(v, first)}" if n is None else f"{_at(v, first)} :+ {n}" for v, n in values)
        what = "run" if any(n is not None for _, n in values) else "point"
        fire("PH402", f"`{source_of(e)}` is out of bounds of `{buf.name}` (shape {shape}) in "
             f"{thread_list(same_cta % self.T)} of CTA {cta}",
             e.span, label=f"a {what} outside `{buf.name}`",
             notes=[f"thread {t} of CTA {cta} accesses `{buf.name}[{shown}]`"
                    + (" (subscripts relative to the view)" if any(
                        not (isinstance(o, int) and o == 0) for o in self.region_of(e.base).offsets) else "")],
             help="guard the access with a bounds check; only slices are masked (LANGUAGE §7)")

    def _check_point_race(self, e, buf, flat, readers):
        found = buf.racy_reads(flat, readers, self.T)
        if found is not None:
            self._racy_read(e, buf, flat, readers, found)

    def _other_access(self, stamp, here, at_node, verb: str, element: str):
        """Another thread's access for a race message: (its thread in the CTA or None, where it was
        ("at 5:7, in the previous iteration"), a chain step pointing at it, and when it was ("in the
        previous iteration", "in this statement" or ""))."""
        if stamp is None:
            return None, "", [], ""
        tid, site = self.thread_site(stamp)
        span, at, when = self.located(site, here)
        place = ", ".join(x for x in (at, when) if x)
        chain = []
        if span is not None and span != at_node.span:
            chain = [(span, f"thread {tid % self.T} {verb} {element} here" + (f", {when}" if when else ""))]
        return tid % self.T, place, chain, when

    def _one_of(self, other: int, thread, place: str) -> str:
        """" (at 5:7)" after "thread 3 ..." (``other``, a batch thread), or " (among them thread 3,
        at 5:7)" after "several threads ..." (``other`` negative)."""
        if thread is None:
            return ""
        if other >= 0:
            return f" ({place})" if place and thread == other % self.T else ""
        return f" (among them thread {thread}" + (f", {place})" if place else ")")

    def _racy_read(self, e, buf, flat, readers, found, here=None) -> None:
        """PH401: a point or run read of an element another thread of the CTA stored since the
        last barrier (``found``: what ``racy_reads`` returned)."""
        positions, writers = found
        pos = int(positions[0])
        reader = int(np.broadcast_to(readers, flat.shape).ravel()[pos])
        element = int(flat.ravel()[pos])
        w = int(writers[pos])
        t, cta = self.thread_of(reader)
        name = f"`{buf.name}{list(buf.coords(element))}`"
        thread, place, chain, _ = self._other_access(buf.where_written(element, reader, self.T), here, e,
                                                     "stores", name)
        who = f"thread {w % self.T}" if w >= 0 else "several threads"
        fire("PH401", f"thread {t} of CTA {cta} reads {name}, which {who} "
             f"of the CTA stored since the last barrier{self._one_of(w, thread, place)}", e.span,
             label="a point read racing a store", chain=chain,
             notes=["a thread that reads what another thread stored needs a `barrier()` between "
                    "(per-thread-values.md, \"A per-thread store and a CTA-wide read\"); the compiler "
                    "does not check this, the simulator does"],
             help="put a `barrier()` between the store and the read")

    def _check_cross_read(self, e, buf, flat, run: bool, site: int = -1) -> None:
        act = self.mask
        fa = flat[act]
        cid = self.cta_of[act]
        threads = self.pid[act] % self.T
        if run:
            cid, threads = cid[:, None], threads[:, None]
        found = buf.cross_read(fa, cid, site=site, threads=threads)
        if found is not None:
            self.cross_cta(e, buf, fa, cid, found, reads=True)

    def _recorded(self, buf) -> bool:
        """Are this buffer's accesses recorded (a site needed)?"""
        return buf.watch or (buf.cta_ids is not None and (buf.owner is not None or buf.xwatch))

    def point_load(self, e: A.Index):
        buf, flat = self.access(e, run=False)
        if buf.dirty:
            act = self.mask
            self._check_point_race(e, buf, flat[act], self.pid[act])
        site = self.site(e) if self._recorded(buf) else -1
        if buf.watch:
            act = self.mask
            buf.note_reads(flat[act], self.pid[act], self.T, site)
            self.marked.add(buf)
        if buf.cta_ids is not None and (buf.owner is not None or buf.xwatch):
            self._check_cross_read(e, buf, flat, False, site)
        return gather(buf, flat, True)

    def run_load(self, e: A.Index):
        buf, flat = self.access(e, run=True)
        if buf.dirty:
            act = self.mask
            self._check_point_race(e, buf, flat[act], self.pid[act][:, None])
        site = self.site(e) if self._recorded(buf) else -1
        if buf.watch:
            act = self.mask
            buf.note_reads(flat[act], self.pid[act][:, None], self.T, site)
            self.marked.add(buf)
        if buf.cta_ids is not None and (buf.owner is not None or buf.xwatch):
            self._check_cross_read(e, buf, flat, True, site)
        return gather(buf, flat, True)

    def point_store(self, s: A.Assign, target: A.Index, binop):
        buf, flat = self.access(target, run=False)
        value = self.ev(s.value)
        vt = elem(self.types[id(s.value)])
        site, racy = None, None
        if binop:
            # a compound assignment reads the element, then stores it (LANGUAGE §6): its read is
            # recorded like any point read, so that another thread doing the same in this barrier
            # phase (a lost update) is caught at the store, which is reported first (PH410, PH408);
            # a read racing an earlier store, when the store itself races nothing, is PH401
            act = self.mask
            site = self.site(target)
            if buf.dirty:
                racy = buf.racy_reads(flat[act], self.pid[act], self.T)
            if buf.watch:
                buf.note_reads(flat[act], self.pid[act], self.T, site)
                self.marked.add(buf)
            if buf.cta_ids is not None and (buf.owner is not None or buf.xwatch):
                self._check_cross_read(target, buf, flat, False, site)
            old = gather(buf, flat, True)
            value = self.binop(binop, old, value, buf.elem, vt, buf.elem, s.span)
        self.store_elements(buf, flat, V.cast(value, buf.elem), target, site, s if binop else None)
        if racy is not None:
            act = self.mask
            self._racy_read(target, buf, flat[act], self.pid[act], racy, site)

    def _store_site(self, flat, tids, i: int) -> tuple[int, int, str]:
        """Position ``i`` of a store's flattened elements: (element, thread in its CTA, CTA)."""
        t, cta = self.thread_of(int(np.broadcast_to(tids, np.shape(flat)).ravel()[i]))
        return int(np.ravel(flat)[i]), t, cta

    def _write_race(self, at, buf, flat, tids, values, racy, site) -> None:
        """PH408: two threads of a CTA stored different values in one element with no barrier
        between, so which value stays depends on the order the GPU runs them in."""
        i, other, here = racy
        element, t, cta = self._store_site(flat, tids, i)
        vals = np.broadcast_to(values, np.shape(flat)).ravel()
        mine = vals[i]
        at_elem = f"`{buf.name}{list(buf.coords(element))}`"
        chain = []
        if here:                      # both stores in this statement: name both values, no order
            theirs = vals[int(np.flatnonzero(np.broadcast_to(tids, np.shape(flat)).ravel() == other)[0])]
            (t1, v1), (t2, v2) = sorted([(t, mine), (other % self.T, theirs)], key=lambda tv: tv[0])
            what = (f"threads {t1} and {t2} of CTA {cta} store different values in {at_elem} in this statement "
                    f"({v1.item()!r} and {v2.item()!r})")
        else:
            who = f"thread {other % self.T}" if other >= 0 else "every thread" if other == -2 else "several threads"
            if other == -2:           # a uniform store: every thread made it, at one place
                span, place, when = self.located(int(buf.uni_at[element]), site)
                place = ", ".join(x for x in (place, when) if x)
                where = f" ({place})" if place else ""
                if span is not None and span != at.span:
                    chain = [(span, f"every thread stores {at_elem} here" + (f", {when}" if when else ""))]
            else:
                me = int(np.broadcast_to(tids, np.shape(flat)).ravel()[i])
                thread, place, chain, _ = self._other_access(buf.where_written(element, me, self.T), site, at,
                                                             "stores", at_elem)
                where = self._one_of(other, thread, place)
            what = (f"thread {t} of CTA {cta} stores {mine.item()!r} in {at_elem}, where {who} of the CTA stored "
                    f"another value since the last barrier{where}")
        fire("PH408", what, at.span,
             label="a store racing another thread's store", chain=chain,
             notes=["two threads storing different values in one element with no `barrier()` between leave "
                    "whichever the GPU writes last; the compiler does not check this (LANGUAGE §9.8), the "
                    "simulator does"],
             help="let one thread store the element (guard the store), give each thread its own element, or "
                  "combine the values first (`sum<over ctx.thread>(..)`, `max<over ctx.lane>(..)`)")

    def _read_then_written(self, at, buf, flat, tids, war, site, compound=None) -> None:
        """PH410: a thread stores a new value into an element another thread of its CTA read
        since the last barrier, which may have read either value. In a compound assignment whose
        read another thread's same assignment shares (a lost update), it says so."""
        i, reader, stamp = war
        element, t, cta = self._store_site(flat, tids, i)
        name = f"`{buf.name}{list(buf.coords(element))}`"
        thread, place, chain, when = self._other_access(stamp, site, at, "reads", name)
        who = f"thread {reader % self.T}" if reader >= 0 else "several threads"
        label = "a store racing another thread's read"
        notes = ["a thread that reads an element another thread then overwrites may see the old value or the "
                 "new one: nothing but a `barrier()` orders them; the compiler does not check this "
                 "(LANGUAGE §9.8), the simulator does"]
        help = ("put a `barrier()` between the reads and this store, or write the results elsewhere "
                "(another tile or tensor) and copy them back after a barrier")
        same_statement = stamp is not None and self.spans.get((stamp >> TID_BITS) & SPAN_UNKNOWN) == at.span
        if compound is not None and stamp is not None and (
                same_statement or buf.stored_by(element, (stamp & ((1 << TID_BITS) - 1)))):
            # the other thread read the element and stores it too: one of the two updates is lost
            op = compound.op
            notes = [f"`{op}` reads the element, then stores it (LANGUAGE §6), and nothing but a `barrier()` "
                     "orders one thread's read and store with another's: threads that read the element before "
                     "another stores it each store their own update over the others', and updates are lost"
                     + (" (64 threads adding 1 may add 1 in all)" if op == "+=" else "")
                     + "; the compiler does not check this (LANGUAGE §9.8), the simulator does"]
            if same_statement:
                label = f"a lost update: thread {thread} runs this `{op}` on {name} too" + (
                    f", {when}" if when and when != "in this statement" else "")
            else:
                label = f"a lost update: thread {thread} read and stored {name} too"
            help = ("let one thread update the element with the threads' values combined first (`sum<over "
                    "ctx.thread>(..)`, then `if ctx.thread == 0 { .. }`), give each thread an element of its own, "
                    "or put a `barrier()` between the updates")
        fire("PH410", f"thread {t} of CTA {cta} stores a new value in {name}, "
             f"which {who} of the CTA read since the last barrier{self._one_of(reader, thread, place)}", at.span,
             label=label, chain=chain, notes=notes, help=help)

    def store_elements(self, buf, flat, value, at, site=None, compound=None) -> None:
        """Per-thread stores of the active threads (``flat`` ``(P,)`` or ``(P, n)``), recording
        them for the race checks (at ``site``, made here when None; ``compound``: the compound
        assignment that makes them). A store every thread of a CTA makes to one element with one
        value (uniform in value, index and control, LANGUAGE §9.4) leaves nothing to race with."""
        value = np.broadcast_to(value, flat.shape)
        act = self.mask
        C, T = self.C, self.T
        if site is None:
            site = self.site(at)
        m2 = act.reshape(C, T)
        full = m2.all(1)
        record = act
        if full.any():
            f3 = flat.reshape(C, T, -1)
            v3 = value.reshape(C, T, -1)
            agree = same_value(v3, v3[:, :1])      # NaN is one value; -0.0 and 0.0 are two
            uniform = full & (f3 == f3[:, :1]).all(axis=(1, 2)) & agree.all(axis=(1, 2))
            if uniform.any():
                # nothing for a read to race with; an earlier per-thread store to the element is
                # still unordered with the other threads, so its record stays. A later per-thread
                # store of another value races with these (PH408), so they are noted.
                record = act & ~np.repeat(uniform, T)
                cs = np.flatnonzero(uniform)
                buf.mark_uniform(f3[cs, 0, :].ravel(), np.repeat(cs, f3.shape[2]), site)
                self.marked.add(buf)
        fa = flat[act]
        before = buf.flat[fa]
        f = fa.ravel()
        v = value[act].ravel()
        if self.watching and not np.array_equal(before.ravel(), v, equal_nan=v.dtype.kind == "f"):
            self.writes += 1                       # memory changed: progress, for a `while` loop's check
        buf.flat[f] = v
        if buf.rdirty:
            tid_a = self.pid[act]
            tid_a = tid_a[:, None] if flat.ndim == 2 else tid_a
            war = buf.racy_after_read(fa, tid_a, value[act], before, T)
            if war is not None:
                self._read_then_written(at, buf, fa, tid_a, war, site, compound)
        if record.any():
            tids = self.pid[record]
            tids = tids[:, None] if flat.ndim == 2 else tids
            fr, vr, br = flat[record], value[record], before[record[act]]
            racy = buf.racy_write(fr, tids, vr, br, T)
            if racy is not None:
                self._write_race(at, buf, fr, tids, vr, racy, site)
            buf.mark(fr, tids, T, vr, site)
            self.marked.add(buf)
        if buf.cta_ids is not None:
            cid = self.cta_of[act]
            threads = self.pid[act] % T
            if fa.ndim == 2:
                cid, threads = cid[:, None], threads[:, None]
            found = buf.cross_write(fa, cid, value[act], before, site, threads)
            if found is not None:
                self.cross_cta(at, buf, fa, cid, found, reads=False)

    # ---------------------------------------------------------------- calls
    def ev_Call(self, e: A.Call):
        f = e.func
        if id(e) in self.inst.calls:
            return self.call_function(e)
        if f in SCALARS:
            return V.cast(self.ev(e.args[0]), elem(self.types[id(e)]))
        if f in ("sum", "elem", "store"):
            return getattr(self, "run_" + f)(e)
        if f == "where":
            return self.where(e)
        if f == "barrier":
            return self.barrier(e)
        if f in ATOMICS or f in MEMORY_ORDER:
            return self.once_per_cta(e)
        if f in SCALAR_MATH:
            return self.math(e)
        if f in TILE_BUILTINS:
            raise AssertionError(f"tile built-in `{f}` outside a tile statement")
        raise AssertionError(f"no simulation for call `{f}`")

    def math(self, e: A.Call):
        f = e.func
        out = elem(self.types[id(e)])
        args = [self.ev(a) for a in e.args]
        ats = [elem(self.types[id(a)]) for a in e.args]
        with np.errstate(all="ignore"):
            if f in _FLOAT_MATH:
                x = V.cast(args[0], V.compute_type(out))
                return V.cast(_FLOAT_MATH[f](x), out)
            if f == "popcount":
                # the bits of the operand's own type (popcount(i8(-1)) is 8, as the lowering
                # counts), not of its promotion to i32 (docs/language-choices.md)
                return V.popcount(V.cast(args[0], V.settle(ats[0])))
            if f == "abs":
                return V.cast(np.abs(V.cast(args[0], V.compute_type(out))), out)
            a, b = _align(*args)
            ct = V.compute_type(V.join(ats[0], ats[1]))
            a, b = V.cast(a, ct), V.cast(b, ct)
            if f == "pow":
                r = np.power(a, b)
            elif f == "min":
                r = V.fmin(a, b)
            else:
                r = V.fmax(a, b)
        return V.cast(r, out)

    def where(self, e: A.Call):
        out = elem(self.types[id(e)])
        c = self.ev(e.args[0])
        # both sides are computed (the GPU selects), but a division by zero in the side a thread
        # does not take yields nothing it uses: only the taken side is checked (PH406)
        saved = self._div_taken
        try:
            self._div_taken = _and_taken(saved, c)
            a = self.ev(e.args[1])
            self._div_taken = _and_taken(saved, np.logical_not(c))
            b = self.ev(e.args[2])
        finally:
            self._div_taken = saved
        a, b = _align(V.cast(a, out), V.cast(b, out))
        c, a = _align(c, a)
        c, b = _align(c, b)
        return np.where(c, a, b)

    def run_sum(self, e: A.Call):
        out = self.types[id(e)]
        v = self.ev(e.args[0])
        return V.add_reduce(V.cast(v, out), -1, V.dtype_of(out))

    def run_elem(self, e: A.Call):
        return V.cast(self.ev(e.args[0]), self.types[id(e)].elem)

    def run_store(self, e: A.Call):
        dst, val = e.args
        buf, flat = self.access(dst, run=True)
        value = self.ev(val)
        value = V.cast(value, buf.elem)
        if value.ndim == 1:
            value = value[:, None]
        self.store_elements(buf, flat, value, dst)
        return None

    # ---------------------------------------------------------------- collectives and shuffles
    def ev_GenericCall(self, e: A.GenericCall):
        if e.mode == "over":
            return self.collective(e)
        return self.shuffle(e)


def _align(a, b):
    """A per-thread scalar ``(P,)`` meeting a run ``(P, n)`` gets the run's trailing axis."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 1 and nb == 2:
        return a[:, None], b
    if na == 2 and nb == 1:
        return a, b[:, None]
    return a, b


def _at(v, p):
    v = np.asarray(v)
    return v.item() if v.ndim == 0 else v[p].item()


def _and_taken(taken, c):
    """Where the side being evaluated is the one taken: ``c`` within what was taken already."""
    c = np.asarray(c, dtype=bool)
    return c if taken is None else np.logical_and(*_align(taken, c))
