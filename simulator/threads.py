"""What threads do together: the gates that the per-thread rules' dynamic counterparts sit in
(PH301 and PH306: a CTA-wide operation or CTA collective reached by only some threads of a CTA;
PH302: a CTA-wide operation's scalar operand that differs between its threads; PH304 and PH305: a
shuffle or lane collective reached by only some lanes of a warp), barriers, lane and CTA
collectives, the four shuffle modes, and the once-per-CTA operations (atomics, `load_acquire`,
`store_release`, LANGUAGE §8).

A barrier, and every CTA-wide operation (which the lowering ends with one, LANGUAGE §10), orders
the stores made before it: it clears the race records of its CTAs. A once-per-CTA operation
meets at a barrier first, runs once per CTA, and shares its result through a second barrier.
"""

from __future__ import annotations

import numpy as np

from ..analyzer.syntax import ast as A
from ..analyzer.checked import source_of
from ..language.types import Run, Tile
from . import values as V
from .errors import fire, thread_list
from .memory import owner_cta


def _elem(t):
    return t.elem if isinstance(t, (Run, Tile)) else t


class ThreadOps:
    # ---------------------------------------------------------------- gates
    def cta_gate(self, op, code: str = "PH301") -> np.ndarray:
        """The CTAs of the batch whose threads reach ``op``: all of each CTA's threads, or none."""
        m = self.mask.reshape(self.C, self.T)
        reached = m.any(1)
        partial = reached & ~m.all(1)
        if partial.any():
            c = int(np.flatnonzero(partial)[0])
            active = np.flatnonzero(m[c])
            idle = np.flatnonzero(~m[c])
            where = self.cta_label(c)
            if code == "PH306":
                msg = (f"`{op.name}` needs every thread of the CTA, but only {active.size} of the {self.T} "
                       f"threads of CTA {where} reach it")
            else:
                msg = (f"`{op.name}` runs once per CTA, so every thread must reach it, but only {active.size} "
                       f"of the {self.T} threads of CTA {where} reach it")
            fire(code, msg, op.span, label=f"reached by {thread_list(active)}",
                 notes=[f"not reached by {thread_list(idle)}"],
                 help="move the operation out of the branch, loop or early exit that only some threads take")
        return np.flatnonzero(reached)

    def warp_gate(self, op, code: str) -> None:
        """Every warp that reaches a lane-level operation reaches it with all 32 lanes."""
        m = self.mask.reshape(-1, 32)
        partial = m.any(1) & ~m.all(1)
        if not partial.any():
            return
        w = int(np.flatnonzero(partial)[0])
        per_cta = self.T // 32
        c, warp = divmod(w, per_cta)
        lanes = np.flatnonzero(m[w])
        fire(code, f"`{op.name}` needs every lane of the warp, but only {lanes.size} of the 32 lanes of "
             f"warp {warp} in CTA {self.cta_label(c)} reach it", op.span,
             label=f"reached by lanes {thread_list(lanes).split(' ', 1)[1]}",
             notes=[f"{int(partial.sum())} warp(s) of the batch arrive incomplete"],
             help="run the operation in every lane and choose afterwards with `where`")

    def cta_uniform(self, v, expr, op):
        """A CTA-wide operation's scalar operand: one value per CTA (a ``(C,)`` array, or the
        0-d value itself when it is the same in every thread of the batch). Fires PH302 when the
        active threads of a CTA disagree."""
        if np.ndim(v) == 0:
            return v
        C, T = self.C, self.T
        vm = v.reshape(C, T)
        m = self.mask.reshape(C, T)
        first = m.argmax(1)
        ref = vm[np.arange(C), first]
        diff = vm != ref[:, None]
        if vm.dtype.kind == "f":
            diff &= ~(np.isnan(vm) & np.isnan(ref)[:, None])
        diff &= m
        if diff.any():
            c = int(np.flatnonzero(diff.any(1))[0])
            t = int(np.flatnonzero(diff[c])[0])
            t0 = int(first[c])
            within_warps = (diff[c].reshape(-1, 32) & _warp_diff(vm[c], m[c])).any()
            between = "lanes" if within_warps else "warps"
            fire("PH302", f"`{op.name}` takes `{source_of(expr)}`, which differs between {between}: in CTA "
                 f"{self.cta_label(c)} thread {t0} has {vm[c, t0].item()} and thread {t} has {vm[c, t].item()}",
                 expr.span, label=f"differs between {between}, but `{op.name}` runs once for the whole CTA",
                 help=_uniform_operand_help(op.name))
        return ref

    def _reads_synced(self, lane: bool) -> None:
        """The active threads met at a shuffle or collective: their earlier per-thread reads are
        done before any of them stores after it (no write after read with them); a shuffle or a
        lane collective only orders its warp (``lane``)."""
        for buf in self.marked:
            if buf.rdirty:
                buf.reads_synced(self.mask, self.T, lane)

    def end_cta_op(self, cidx: np.ndarray) -> None:
        """The barrier that ends a CTA-wide operation (or a `barrier()`): stores before it are
        ordered with everything after it, in these CTAs."""
        if not self.marked:
            return
        whole = cidx.size == self.C
        for buf in list(self.marked):
            buf.clear(None if whole else cidx, self.T)
            if not buf.dirty and not buf.uni_dirty and not buf.rdirty:
                self.marked.discard(buf)

    # ---------------------------------------------------------------- operations
    def barrier(self, e):
        cidx = self.cta_gate(self.inst.ops[id(e)])
        self.end_cta_op(cidx)
        return None

    def collective(self, e):
        op = self.inst.ops[id(e)]
        lane = e.param.path == ("lane",)
        if lane:
            self.warp_gate(op, "PH305")
            group = 32
        else:
            self.cta_gate(op, "PH306")
            group = self.T
        out = self.types[id(e)]
        x = np.broadcast_to(V.cast(self.ev(e.args[0]), out), (self.P,)).reshape(-1, group)
        # the plan says which collectives exchange data (the lowering exchanges nothing over an
        # operand already the same in all it folds), and only those order reads
        if self.plan is None or self.plan.exchanges(e, self.inst):
            self._reads_synced(lane)
        f = e.func
        with np.errstate(all="ignore"):
            if f == "sum":
                r = V.add_reduce(x, 1, V.dtype_of(out))
            elif f == "any":
                r = x.any(1)
            elif f == "all":
                r = x.all(1)
            elif f == "max":
                r = np.fmax.reduce(x, axis=1) if x.dtype.kind == "f" else x.max(1)
            else:
                r = np.fmin.reduce(x, axis=1) if x.dtype.kind == "f" else x.min(1)
        # (a CTA collective orders no memory: LANGUAGE §9.6 counts only `barrier()`, and the
        # lowering emits none for a uniform operand or a one-warp CTA)
        return np.repeat(V.cast(r, out), group)

    def shuffle(self, e):
        op = self.inst.ops[id(e)]
        self.warp_gate(op, "PH304")
        out = self.types[id(e)]
        v = np.broadcast_to(V.cast(self.ev(e.args[0]), out), (self.P,))
        d = np.broadcast_to(np.asarray(self.ev(e.param)).astype(np.int64), (self.P,))
        self._reads_synced(True)
        lane = self.lane64
        src = {"xor": lambda: lane ^ d, "up": lambda: lane - d, "down": lambda: lane + d,
               "idx": lambda: d}[e.mode]()
        inside = (src >= 0) & (src < 32)
        source = self.pid - lane + np.where(inside, src, lane)
        return v[source]

    def once_per_cta(self, e):
        """An atomic, `load_acquire` or `store_release`: once per CTA, between two barriers."""
        op = self.inst.ops[id(e)]
        cidx = self.cta_gate(op)
        f = e.func
        target = e.args[0]
        region = self.region_of(target.base)
        buf = region.buf
        result_type = buf.elem
        if cidx.size == 0:
            return V.zero(result_type)
        index = [self.cta_uniform(self.ev(s.index), s.index, op) for s in target.subs]
        operands = [self.cta_uniform(V.cast(self.ev(a), buf.elem), a, op) for a in e.args[1:]]
        if f != "store_release" and buf.dirty and buf.writer is not None:
            self._racy_element_read(op, e, region, index, cidx, target)
        self.end_cta_op(cidx)
        results = np.zeros(self.C, dtype=buf.flat.dtype)
        for c in cidx:
            flat = self._element(region, index, int(c), target)
            old = buf.flat[flat].copy()
            args = [np.asarray(o)[c] if np.ndim(o) else o for o in operands]
            new = old
            with np.errstate(all="ignore"):
                if f == "atomic_add":
                    new = V.cast(np.add(V.cast(old, V.compute_type(buf.elem)), args[0]), buf.elem)
                elif f == "atomic_max":
                    new = np.maximum(old, args[0])
                elif f == "atomic_min":
                    new = np.minimum(old, args[0])
                elif f == "atomic_cas":
                    new = args[1] if old == args[0] else old
                elif f == "store_release":
                    new = args[0]
            if f != "load_acquire" and not np.array_equal(new, old):
                buf.flat[flat] = new
                self.writes += 1
            results[c] = old
            if f != "store_release":
                self.sync_ops += 1
                self.last_sync = (e.span, f"`{source_of(e)}` reads `{buf.name}{list(buf.coords(flat))}` = "
                                          f"{old.item()} in CTA {self.cta_label(int(c))}")
        self.end_cta_op(cidx)
        if f == "store_release":
            return None
        return results[self.cta_of] if self.C > 1 else results[0]

    def _racy_element_read(self, op, e, region, index, cidx, target) -> None:
        """LANGUAGE §9.5: an atomic or `load_acquire` reads its element CTA-wide, so a per-thread
        store to it since the last barrier (by a thread of the same CTA) is PH303, as statically."""
        buf = region.buf
        for c in cidx:
            flat = self._element(region, index, int(c), target)
            w = int(buf.writer[flat])
            if w == -1 or owner_cta(w, self.T) != c:
                continue
            who = f"thread {w % self.T}" if w >= 0 else "several threads"
            name = target.base.id if isinstance(target.base, A.Name) else buf.name
            self.unsynced_read(op, name, int(c), who, f"{buf.name}{list(buf.coords(flat))}")

    def _element(self, region, index, c: int, target) -> int:
        buf = region.buf
        vis = dict(zip(region.visible_axes, index))
        coords = []
        for axis, (off, n) in enumerate(zip(region.offsets, region.lengths)):
            ix = int(off[c]) if isinstance(off, np.ndarray) else int(off)
            if n is not None:
                i = vis[axis]
                ix += int(i[c]) if np.ndim(i) else int(i)
            coords.append(ix)
        if not all(0 <= ix < d for ix, d in zip(coords, buf.shape)):
            fire("PH402", f"`{source_of(target)}` is out of bounds of `{buf.name}` (shape {list(buf.shape)}) "
                 f"in CTA {self.cta_label(c)}: element {coords}", target.span,
                 label=f"an element outside `{buf.name}`", help="guard the operation with a uniform bounds check")
        flat = sum(ix * st for ix, st in zip(coords, buf.strides))
        if buf.per_cta:
            flat += c * buf.cta_size
        return flat


def _warp_diff(values, mask):
    """Per warp, lanes whose value differs from the warp's first active lane."""
    vw = values.reshape(-1, 32)
    mw = mask.reshape(-1, 32)
    first = mw.argmax(1)
    ref = vw[np.arange(vw.shape[0]), first]
    return (vw != ref[:, None]) & mw


def _uniform_operand_help(name: str) -> str:
    if name.startswith("atomic_") or name in ("load_acquire", "store_release"):
        return (f"`{name}` runs once per CTA, by one thread, not once per thread: give it an element and a "
                "value the whole CTA agrees on, combining the threads' values first with a CTA collective "
                "such as `sum<over ctx.thread>(..)`")
    return "make the operand the same in every thread, or use a point subscript (a per-thread load) instead of a slice"
