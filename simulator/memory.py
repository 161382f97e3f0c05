"""Memory: buffers (a tensor argument, or a shared tile with one copy per CTA), regions of them
(a slice, a view, a whole tensor), masked and bounds-checked indexing, and the per-element record
of per-thread stores since the last barrier that the race checks read.

A region is a buffer plus, for each of the buffer's axes, an offset and either a length (a slice
axis) or none (a point axis). Offsets of CTA-wide slices are one value per CTA (a ``(C,)`` array
or a plain int when every CTA agrees), so one region serves every CTA of a batch. Reading a region
CTA-wide masks what lies outside the buffer (reads 0, stores skipped, LANGUAGE §7); a point or run
access is checked instead, since it is undefined behaviour on the GPU.

Race records: ``writer[e]`` is -1 when element ``e`` has no per-thread store since the last
barrier of the CTA that stored it, the batch-wide thread index of the one thread that stored it,
or ``-(2 + c)`` when several threads of CTA ``c`` did. ``dirty`` lists the elements that may be
marked, so a barrier costs what was stored, not the buffer's size.

Beside each record a ``Seen`` keeps where the element was last accessed (the thread or CTA, the
source span, and when), so that a race names the other access: its thread, its line and column,
and whether it was in an earlier iteration of a loop (``Machine.site`` makes the stamps).
"""

from __future__ import annotations

from math import prod

import numpy as np

from ..language.types import Scalar
from .values import dtype_of


# A site is where and when an access happened: ``(clock << SPAN_BITS) | span index`` (Machine.site).
# ``Seen`` packs it with the thread that made the access: for the records of one CTA's threads
# ``(site << TID_BITS) | batch thread``, for the records between CTAs
# ``(grid CTA << CTA_SHIFT) | (span index << THREAD_BITS) | thread in the CTA`` (CTA_WIDE for a
# CTA-wide operation).
SPAN_BITS = 16
SPAN_UNKNOWN = (1 << SPAN_BITS) - 1
CLOCK_MASK = (1 << 30) - 1
TID_BITS = 17                          # batch thread indices: a batch has at most 2**17 threads
THREAD_BITS = 11                       # a thread's index in its CTA (at most 1024), or CTA_WIDE
CTA_WIDE = (1 << THREAD_BITS) - 1
CTA_SHIFT = SPAN_BITS + THREAD_BITS


def thread_stamps(site: int, tids) -> np.ndarray:
    """``Seen`` entries of per-thread accesses at ``site`` (-1: unknown) by the batch threads ``tids``."""
    return (np.int64(site if site >= 0 else SPAN_UNKNOWN) << TID_BITS) | np.asarray(tids, dtype=np.int64)


def cta_stamps(site: int, grid_ctas, threads) -> np.ndarray:
    """``Seen`` entries of accesses between CTAs: grid CTA, span of ``site``, thread in the CTA."""
    span = np.int64(site & SPAN_UNKNOWN if site >= 0 else SPAN_UNKNOWN)
    return (np.asarray(grid_ctas, dtype=np.int64) << CTA_SHIFT) | (span << THREAD_BITS) \
        | np.asarray(threads, dtype=np.int64)


class Seen:
    """Where the elements of a buffer were accessed: per element the latest access (``last``) and
    the latest by another accessor than that one (``prev``; a thread, or a CTA with ``key_shift``
    ``CTA_SHIFT``), packed as ``thread_stamps`` or ``cta_stamps`` make them; -1 for none. Only
    read when a race is found, to say where the other access was."""

    __slots__ = ("last", "prev", "shift", "mask")

    def __init__(self, size: int, key_shift: int = 0, key_bits: int = TID_BITS):
        self.last = np.full(size, -1, dtype=np.int64)
        self.prev = np.full(size, -1, dtype=np.int64)
        self.shift, self.mask = key_shift, (1 << key_bits) - 1

    def note(self, flat: np.ndarray, stamps: np.ndarray, keys: np.ndarray, fresh=None) -> None:
        """Accesses ``stamps[i]`` of ``flat[i]`` by ``keys[i]`` (flat, one-dimensional); ``fresh``:
        where a new record starts (what was seen there before belongs to an earlier barrier phase)."""
        if fresh is not None and fresh.any():
            f = flat[fresh]
            self.last[f] = -1
            self.prev[f] = -1
        old = self.last[flat]
        moved = (old != -1) & (((old >> self.shift) & self.mask) != keys)
        if moved.any():
            self.prev[flat[moved]] = old[moved]
        self.last[flat] = stamps
        won = self.last[flat]                    # several accessors of one element in one statement
        dup = ((won >> self.shift) & self.mask) != keys
        if dup.any():
            self.prev[flat[dup]] = stamps[dup]

    def other(self, e: int, me: int, same=None) -> int | None:
        """The latest access of element ``e`` by another accessor than ``me`` (a key) for which
        ``same(key)`` holds, or None."""
        for stamp in (int(self.last[e]), int(self.prev[e])):
            if stamp != -1:
                k = (stamp >> self.shift) & self.mask
                if k != me and (same is None or same(k)):
                    return stamp
        return None


class Buffer:
    __slots__ = ("name", "data", "flat", "per_cta", "shape", "strides", "elem", "writer", "dirty", "cta_size",
                 "same", "uni", "uni_dirty", "owner", "cta_ids", "reader", "rdirty", "watch",
                 "xwatch", "xreader", "rwarp", "rsync", "wseen", "rseen", "uni_at", "xwseen", "xrseen")

    def __init__(self, name: str, data: np.ndarray, elem: Scalar, per_cta: bool):
        self.name = name
        self.data = data
        self.flat = data.reshape(-1)
        self.per_cta = per_cta
        self.shape = tuple(int(d) for d in (data.shape[1:] if per_cta else data.shape))
        strides, acc = [], 1
        for d in reversed(self.shape):
            strides.insert(0, acc)
            acc *= d
        self.strides = tuple(strides)
        self.cta_size = prod(self.shape) if per_cta else 0
        self.elem = elem
        self.writer: np.ndarray | None = None
        self.dirty: list[np.ndarray] = []
        # element -> (value, {threads}) for an element several threads stored since the last
        # barrier, all with one value: a thread among them reading it back sees that value
        self.same: dict | None = None
        # element -> 1 + the batch CTA all of whose threads stored the element's value there (a
        # uniform store, LANGUAGE §9.4) since its last barrier; 0: none. Another value stored
        # there per thread races with the other threads' uniform stores.
        self.uni: np.ndarray | None = None
        self.uni_dirty: list[np.ndarray] = []
        # races between CTAs, for tensors of a launch whose CTAs nothing orders (no atomics,
        # acquire or release): ``cta_ids`` maps the batch's CTAs to their index in the grid (None:
        # not tracked); ``owner`` holds per element the CTA that stored it in this launch, -1 for
        # none, -2 for several that stored one value
        self.owner: np.ndarray | None = None
        self.cta_ids: np.ndarray | None = None
        # and per element the CTA that read it in this launch (-2: several), for the tensors the
        # kernel writes (``xwatch``): another CTA's store of a new value there races with the read
        self.xwatch = False
        self.xreader: np.ndarray | None = None
        # write after read: per element the thread that read it per thread since its CTA's last
        # barrier (-(2 + c): several threads of batch CTA c; -1: none), kept for buffers a
        # per-thread store may write (``watch``: every tile, the tensors the kernel stores into)
        self.reader: np.ndarray | None = None
        self.rdirty: list[np.ndarray] = []
        self.watch = per_cta
        # with ``reader``: the batch warp all the element's readers are in (-1: several warps),
        # and whether a shuffle or lane collective of that warp came after their reads (which
        # orders them before that warp's later stores, not before other warps')
        self.rwarp: np.ndarray | None = None
        self.rsync: np.ndarray | None = None
        # where: the per-thread stores and reads behind ``writer`` and ``reader``, the site of the
        # uniform store behind ``uni``, the accesses behind ``owner`` and ``xreader``
        self.wseen: Seen | None = None
        self.rseen: Seen | None = None
        self.uni_at: np.ndarray | None = None
        self.xwseen: Seen | None = None
        self.xrseen: Seen | None = None

    @classmethod
    def tile(cls, name: str, ctas: int, shape, elem: Scalar) -> "Buffer":
        return cls(name, np.zeros((ctas,) + tuple(shape), dtype=dtype_of(elem)), elem, per_cta=True)

    def region(self) -> "Region":
        return Region(self, [0] * len(self.shape), list(self.shape))

    def coords(self, flat: int) -> tuple[int, ...]:
        """The element's subscripts (within its CTA's copy, for a tile)."""
        if self.per_cta:
            flat %= max(self.cta_size, 1)
        return tuple(int(i) for i in np.unravel_index(int(flat), self.shape)) if self.shape else ()

    def cta_of_flat(self, flat: int) -> int | None:
        return int(flat) // self.cta_size if self.per_cta and self.cta_size else None

    # ---------------------------------------------------------------- race records
    def mark(self, flat: np.ndarray, tids, threads: int, values=None, site: int = -1) -> None:
        """Record per-thread stores: thread ``tids[i]`` stored element ``flat[i]`` (the value
        ``values[i]``, when given, so that one value stored by several threads is no race for
        the threads that stored it), at ``site`` (Machine.site)."""
        if flat.size == 0:
            return
        if self.writer is None:
            self.writer = np.full(self.flat.size, -1, dtype=np.int32)   # batch thread indices fit
            self.wseen = Seen(self.flat.size)
        tids = np.broadcast_to(tids, flat.shape).ravel()
        if values is not None:
            values = np.broadcast_to(values, flat.shape).ravel()
        flat = flat.ravel()
        old = self.writer[flat]
        if (old == tids).all():                 # each thread overwrites its own store: no change
            self.wseen.last[flat] = thread_stamps(site, tids)
            return
        cta = tids // threads
        several = -(2 + cta)
        # only threads of one CTA race here (races between CTAs are not tracked): a store by
        # another CTA's thread takes the record over
        ours = (old != -1) & (owner_cta(old, threads) == cta)
        self.wseen.note(flat, thread_stamps(site, tids), tids, ~ours)
        shared = ours & (old != tids)
        new = np.where(shared, several, tids)
        self.writer[flat] = new
        # two threads storing one element in the same statement: one entry won the assignment,
        # and reading it back shows the other which (when both are of one CTA)
        won = self.writer[flat]
        clash = (won != new) & (owner_cta(won, threads) == cta)
        if clash.any():
            self.writer[flat[clash]] = several[clash]
        if values is not None and (shared.any() or clash.any()):
            self._same_values(flat, tids, values, old, shared | clash, cta, threads)
        fresh = flat[old == -1]                 # the others are listed already (a loop's stores
        if fresh.size:                          # would grow the list without bound)
            self.dirty.append(fresh)

    def _same_values(self, flat, tids, values, old, several, cta, threads) -> None:
        """Keep, for each element now stored by several threads of one CTA, whether they all
        stored one value (and which threads did). Elements with a single writer need nothing."""
        same = self.same if self.same is not None else {}
        for e in np.unique(flat[several]):
            e = int(e)
            w = int(self.writer[e])
            at = (flat == e) & (cta == owner_cta(w, threads))    # the CTA sharing the record
            if w >= 0 or not at.any():                # one writer holds the record now
                same.pop(e, None)
                continue
            vals = values[at]
            v = vals[0]
            ok = bool(np.all(same_value(vals, v)))
            o = int(old[np.flatnonzero(at)[0]])
            writers = {int(t) for t in tids[at]}
            if o >= 0:                       # one other thread stored it before: with what, unknown
                ok = False
            elif o <= -2:                    # several before: they agreed on this value, or each
                prev = same.get(e)           # of them overwrites its own store now (racy_write)
                if prev is None:
                    ok = False
                elif bool(same_value(prev[0], v)):
                    writers |= prev[1]
                elif not prev[1] <= writers:
                    ok = False
            if ok:
                same[e] = (v, writers)
            else:
                same.pop(e, None)
        self.same = same or None

    def note_reads(self, flat: np.ndarray, tids, threads: int, site: int = -1) -> None:
        """Thread ``tids[i]`` read element ``flat[i]`` per thread, at ``site`` (Machine.site)."""
        if flat.size == 0:
            return
        if self.reader is None:
            self.reader = np.full(self.flat.size, -1, dtype=np.int32)
            self.rwarp = np.full(self.flat.size, -1, dtype=np.int32)
            self.rsync = np.zeros(self.flat.size, dtype=bool)
            self.rseen = Seen(self.flat.size)
        tids = np.broadcast_to(tids, flat.shape).ravel()
        flat = flat.ravel()
        old = self.reader[flat]
        if (old == -1).all():                   # the common case, fast: no records there yet
            self.reader[flat] = tids
            if (self.reader[flat] == tids).all():       # and no element read twice
                self.rwarp[flat] = tids // 32
                self.rsync[flat] = False
                self.rdirty.append(flat)
                self.rseen.last[flat] = thread_stamps(site, tids)
                self.rseen.prev[flat] = -1
                return
            self.reader[flat] = -1
        elif (old == tids).all():               # each thread reads again what it alone read
            self.rsync[flat] = False
            self.rseen.last[flat] = thread_stamps(site, tids)
            return
        cta = tids // threads
        # a record of this CTA (every record of a tile's element is its CTA's)
        ours = (lambda w: True) if self.per_cta else (lambda w: owner_cta(w, threads) == cta)
        mine = (old != -1) & ours(old)
        self.rseen.note(flat, thread_stamps(site, tids), tids, ~mine)
        several = mine & (old != tids)
        mark = np.where(several, -(2 + cta), tids)
        self.reader[flat] = mark
        won = self.reader[flat]                 # two threads reading one element in one statement
        clash = (won != -1) & (won != mark) & ours(won)
        if clash.any():
            self.reader[flat[clash]] = -(2 + cta[clash])
        warp = tids // 32
        neww = np.where(mine & (self.rwarp[flat] != warp), -1, warp)
        self.rwarp[flat] = neww
        got = self.rwarp[flat]                  # readers of two warps in one statement
        mixed = (got != neww) & ours(self.reader[flat])
        if mixed.any():
            self.rwarp[flat[mixed]] = -1
        self.rsync[flat] = False                # a read after the warp's last sync
        fresh = flat[old == -1]                 # the others are listed already
        if fresh.size:
            self.rdirty.append(fresh)

    def reads_synced(self, active: np.ndarray, threads: int, lane: bool = False) -> None:
        """A synchronizing operation (a shuffle or a collective) that the threads ``active``
        (a batch mask) reached together: their reads so far come before anything they do after it
        (the values went into it, or the warp waited there). A CTA collective (``lane`` false)
        drops the records of its CTAs; a shuffle or lane collective orders the reads only with
        later stores of the same warp, since the other warps do not wait for it."""
        if not self.rdirty:
            return
        idx = np.unique(np.concatenate(self.rdirty))
        r = self.reader[idx]
        if lane:
            w = self.rwarp[idx]
            warps = active.reshape(-1, 32).all(1)
            ok = (r != -1) & (w >= 0)
            ok[ok] = warps[w[ok]]
            self.rsync[idx[ok]] = True
            self.rdirty = [idx]
            return
        whole = active.reshape(-1, threads).all(1)
        single = r >= 0
        hit = np.zeros(idx.shape, bool)
        hit[single] = active[r[single]]
        hit[~single & (r != -1)] = whole[owner_cta(r[~single & (r != -1)], threads)]
        self.reader[idx[hit]] = -1
        rest = idx[(r != -1) & ~hit]
        self.rdirty = [rest] if rest.size else []

    def racy_after_read(self, flat: np.ndarray, tids, values, before, threads: int):
        """A per-thread store of a new value into an element another thread of its CTA read per
        thread since the last barrier (that thread may have read the old value or this one):
        (position, the reader or -(2 + c) for several, where another reader read: a ``Seen``
        stamp or None) of the first, or None."""
        if not self.rdirty:
            return None
        tids = np.broadcast_to(tids, flat.shape).ravel()
        values = np.broadcast_to(values, flat.shape).ravel()
        before = np.broadcast_to(before, flat.shape).ravel()
        flat = flat.ravel()
        r = self.reader[flat]
        racy = (r != -1) & (r != tids) & (owner_cta(r, threads) == tids // threads) & ~same_value(before, values)
        if racy.any():                          # a lane-level sync of the readers' warp orders them
            racy &= ~(self.rsync[flat] & (self.rwarp[flat] == tids // 32))
        if not racy.any():
            return None
        i = int(np.flatnonzero(racy)[0])
        return i, int(r[i]), self.where_read(int(flat[i]), int(tids[i]), threads)

    def where_read(self, e: int, tid: int, threads: int) -> int | None:
        """Where another thread of ``tid``'s CTA last read element ``e`` (a ``Seen`` stamp)."""
        if self.rseen is None:
            return None
        return self.rseen.other(e, tid, lambda k: k // threads == tid // threads)

    def stored_by(self, e: int, tid: int) -> bool:
        """Did batch thread ``tid`` store element ``e`` per thread since its CTA's last barrier (as
        far as the record and the last two stores seen there tell)?"""
        if self.writer is None or self.writer[e] == -1:
            return False
        w = int(self.writer[e])
        return w == tid or (w < -1 and any(int(x) != -1 and int(x) & ((1 << TID_BITS) - 1) == tid
                                           for x in (self.wseen.last[e], self.wseen.prev[e])))

    def where_written(self, e: int, tid: int, threads: int) -> int | None:
        """Where another thread of ``tid``'s CTA last stored element ``e`` (a ``Seen`` stamp)."""
        if self.wseen is None:
            return None
        return self.wseen.other(e, tid, lambda k: k // threads == tid // threads)

    def mark_uniform(self, flat: np.ndarray, ctas: np.ndarray, site: int = -1) -> None:
        """Record uniform stores: every thread of batch CTA ``ctas[i]`` stored one value into
        ``flat[i]``, at ``site``."""
        if flat.size == 0:
            return
        if self.uni is None:
            self.uni = np.zeros(self.flat.size, dtype=np.int32)
            self.uni_at = np.full(self.flat.size, -1, dtype=np.int64)
        fresh = flat[self.uni[flat] == 0]       # the others are listed already
        self.uni[flat] = ctas + 1
        self.uni_at[flat] = site
        if fresh.size:
            self.uni_dirty.append(fresh)

    def clear(self, ctas: np.ndarray | None, threads: int) -> None:
        """A barrier in the CTAs ``ctas`` (batch indices; None: all) orders their stores."""
        if self.rdirty:
            _, self.rdirty = _drop_records(self.reader, self.rdirty, ctas, threads)
        if self.uni_dirty:
            idx = np.concatenate(self.uni_dirty)
            if ctas is None:
                self.uni[idx] = 0
                self.uni_dirty = []
            else:
                hit = np.isin(self.uni[idx] - 1, ctas)
                self.uni[idx[hit]] = 0
                rest = idx[~hit & (self.uni[idx] != 0)]
                self.uni_dirty = [rest] if rest.size else []
        if not self.dirty:
            return
        cleared, self.dirty = _drop_records(self.writer, self.dirty, ctas, threads)
        if self.same is not None:
            if cleared is None:
                self.same = None
            else:
                for e in cleared:
                    self.same.pop(int(e), None)
                self.same = self.same or None

    def racy_write(self, flat: np.ndarray, tids: np.ndarray, values: np.ndarray, before: np.ndarray,
                   threads: int):
        """A store whose outcome depends on the order of two threads of one CTA: thread
        ``tids[i]`` stores ``values[i]`` into ``flat[i]`` (``before``: what the element held)
        while another thread of its CTA stored a different value there since the last barrier,
        in an earlier statement or in this one, or all of its CTA did (a uniform store). The
        earlier writers storing this same value here too order it (each one's own later store
        wins over its earlier one). Returns (position, the other thread, or -1 for several, -2 for
        every thread of the CTA, and whether the other store is in this statement) of the first
        such store, or None. Call it after the
        elements are written (a duplicate index keeps one thread's value) and before ``mark``."""
        tids = np.broadcast_to(tids, flat.shape).ravel()
        values = np.broadcast_to(values, flat.shape).ravel()
        before = np.broadcast_to(before, flat.shape).ravel()
        flat = flat.ravel()
        cta = tids // threads
        # in this statement: two threads wrote one element, and the winner's value is not ours
        clash = ~same_value(self.flat[flat], values)
        if self.writer is not None and self.dirty:
            old = self.writer[flat]
            earlier = (old != -1) & (old != tids) & (owner_cta(old, threads) == cta) & ~same_value(before, values)
        else:
            old, earlier = None, np.zeros(flat.shape, bool)
        if self.uni_dirty:
            # every thread of the CTA stored another value here: their stores may land after this
            uniform = (self.uni[flat] == cta + 1) & ~same_value(before, values)
            if uniform.any():
                return int(np.flatnonzero(uniform)[0]), -2, False
        for i in np.flatnonzero(clash | earlier)[:64]:
            e, c, v = flat[i], cta[i], values[i]
            here = (flat == e) & (cta == c)
            writers = set(tids[here & same_value(values, v)].tolist())
            if clash[i]:
                other = here & ~same_value(values, v)
                if other.any():
                    return int(i), int(tids[np.flatnonzero(other)[0]]), True
            if earlier[i]:
                w = int(old[i])
                prev = {w} if w >= 0 else (self.same or {}).get(int(e), (None, None))[1]
                if prev is None or not prev <= writers:
                    # the record's "several" (-(2 + c)) is not the -2 of a uniform store
                    return int(i), w if w >= 0 else -1, False
        return None

    def cross_write(self, flat: np.ndarray, cidx: np.ndarray, values: np.ndarray, before: np.ndarray,
                    site: int = -1, threads=CTA_WIDE):
        """Record stores of batch CTAs ``cidx`` (per position) into ``flat`` (already written;
        ``before``: what the elements held) and find one racing another CTA's store of the launch:
        another value, where another CTA stored before or in this same statement. ``site`` and
        ``threads`` (per position, each thread's index in its CTA, or CTA_WIDE) say where the
        stores are made. Returns (position, the other CTA's grid index or -2 for several, "read" or
        "stored", where the other CTA's access was: a ``cta_stamps`` entry or None) or None."""
        if self.cta_ids is None or flat.size == 0:
            return None
        shape = flat.shape
        ctas = np.broadcast_to(self.cta_ids[np.asarray(cidx)], shape).ravel()
        values = np.broadcast_to(values, shape).ravel()
        before = np.broadcast_to(before, shape).ravel()
        flat = flat.ravel()
        if self.xreader is not None:
            rd = self.xreader[flat]
            read = ((rd == -2) | ((rd >= 0) & (rd != ctas))) & ~same_value(before, values)
            if read.any():
                i = int(np.flatnonzero(read)[0])
                return i, int(rd[i]), "read", self._cross_seen(self.xrseen, int(flat[i]), int(ctas[i]))
        if self.owner is None:
            self.owner = np.full(self.flat.size, -1, dtype=np.int32)
            self.xwseen = Seen(self.flat.size, CTA_SHIFT, 31)
        own = self.owner[flat]
        other = (own != -1) & (own != ctas)
        racy = other & ~same_value(before, values)
        if racy.any():
            i = int(np.flatnonzero(racy)[0])
            return i, int(own[i]), "stored", self._cross_seen(self.xwseen, int(flat[i]), int(ctas[i]))
        self.owner[flat] = ctas
        won = self.owner[flat]
        dup = won != ctas                        # another CTA stored the element in this statement
        stamps = cta_stamps(site, ctas, np.broadcast_to(threads, shape).ravel())
        if dup.any():
            differs = dup & ~same_value(self.flat[flat], values)
            if differs.any():
                i = int(np.flatnonzero(differs)[0])
                j = np.flatnonzero((flat == flat[i]) & (ctas == won[i]))
                return i, int(won[i]), "stored", int(stamps[j[0]]) if j.size else None
            other |= dup
        if other.any():
            self.owner[flat[other]] = -2         # several CTAs, one value
        self.xwseen.note(flat, stamps, ctas)
        return None

    @staticmethod
    def _cross_seen(seen, e: int, cta: int):
        return None if seen is None else seen.other(e, cta)

    def cross_read(self, flat: np.ndarray, cidx: np.ndarray, inb=True, site: int = -1, threads=CTA_WIDE):
        """A read by batch CTAs ``cidx`` (per position) of ``flat``: noted for a later store by
        another CTA (``xwatch`` buffers), and checked against the stores of the launch: (position in
        ``flat``'s flattening, the grid index of a CTA that stored the element, "stored", where that
        CTA stored it: a ``cta_stamps`` entry or None) or None. Elements several CTAs stored with
        one value are not reported. ``site`` and ``threads`` as for ``cross_write``."""
        if self.cta_ids is None or flat.size == 0:
            return None
        ctas = np.broadcast_to(self.cta_ids[np.asarray(cidx)], flat.shape)
        found = None
        if self.owner is not None:
            own = self.owner[np.where(inb, flat, 0)] if inb is not True else self.owner[flat]
            racy = (own >= 0) & (own != ctas)
            if inb is not True:
                racy &= inb
            if racy.any():
                i = int(np.flatnonzero(racy)[0])
                e = int(np.ravel(flat)[i])
                found = i, int(own.ravel()[i]), "stored", self._cross_seen(self.xwseen, e, int(ctas.ravel()[i]))
        if self.xwatch and found is None:
            th = np.broadcast_to(threads, flat.shape)
            f, c, th = (flat, ctas, th) if inb is True else (flat[inb], ctas[inb], th[inb])
            f, c, th = f.ravel(), c.ravel(), th.ravel()
            if self.xreader is None:
                self.xreader = np.full(self.flat.size, -1, dtype=np.int32)
                self.xrseen = Seen(self.flat.size, CTA_SHIFT, 31)
            old = self.xreader[f]
            new = np.where((old == -1) | (old == c), c, -2).astype(np.int32)
            self.xreader[f] = new
            mixed = self.xreader[f] != new           # two CTAs read one element in one statement
            if mixed.any():
                self.xreader[f[mixed]] = -2
            self.xrseen.note(f, cta_stamps(site, c, th), c)
        return found

    def racy_reads(self, flat: np.ndarray, readers: np.ndarray, threads: int):
        """Positions where thread ``readers[i]`` reads ``flat[i]`` that another thread of its CTA
        stored since the last barrier: (positions, writers); None when there are none."""
        if not self.dirty:
            return None
        w = self.writer[flat]
        readers = np.broadcast_to(readers, flat.shape)
        racy = (w != -1) & (w != readers) & (owner_cta(w, threads) == readers // threads)
        if racy.any() and self.same is not None:
            # several threads stored one value: a thread among them reads that value back
            for i in np.flatnonzero(racy):
                g = self.same.get(int(flat.flat[i]))
                if g is not None and int(readers.flat[i]) in g[1]:
                    racy.flat[i] = False
        if not racy.any():
            return None
        return np.flatnonzero(racy), w.ravel()


class Region:
    """A slice or view: per buffer axis an offset (int or per-CTA array) and a length (None for a
    point axis)."""

    __slots__ = ("buf", "offsets", "lengths")

    def __init__(self, buf: Buffer, offsets: list, lengths: list):
        self.buf = buf
        self.offsets = offsets
        self.lengths = lengths

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(n for n in self.lengths if n is not None)

    @property
    def visible_axes(self) -> list[int]:
        return [a for a, n in enumerate(self.lengths) if n is not None]

    def sub(self, subs) -> "Region":
        """Subscript the region's visible axes: ``subs`` holds per axis (offset, length or None)."""
        offsets, lengths = list(self.offsets), list(self.lengths)
        for axis, (off, n) in zip(self.visible_axes, subs):
            offsets[axis] = _add(offsets[axis], off)
            lengths[axis] = n
        return Region(self.buf, offsets, lengths)

    def cta_index(self, cidx: np.ndarray):
        """Flat element indices and in-bounds flags, shaped ``(len(cidx), *shape)``, of this
        region in the CTAs ``cidx``.

        The flat index is a sum over the buffer's axes. The parts that are the same in every CTA
        (an axis's range, an offset every CTA shares) add up in a tile-sized array, the per-CTA
        offsets in a ``(len(cidx),)`` one, and the two meet in one addition at the full size
        (none when no offset differs between CTAs). The in-bounds flags are checked axis by axis
        on those small arrays and come out as a broadcast ``True`` when every element lands
        (``all_true`` sees that without a pass over it)."""
        buf = self.buf
        k = len(cidx)
        shape = self.shape
        rank = len(shape)
        full = (k,) + shape
        tile = np.zeros((1,) * (rank + 1), dtype=np.int64)     # the part every CTA shares
        per_cta = None                                         # the per-CTA part, (k,)
        outside = []                                           # per-axis flags where some are off
        pos = 0
        for axis, (off, n) in enumerate(zip(self.offsets, self.lengths)):
            size, stride = buf.shape[axis], buf.strides[axis]
            varies = isinstance(off, np.ndarray)
            o = off[cidx].astype(np.int64) if varies else int(off)
            if n is None:
                ok = (o >= 0) & (o < size)
                if varies:
                    per_cta = o * stride if per_cta is None else per_cta + o * stride
                    if not ok.all():
                        outside.append(ok.reshape((k,) + (1,) * rank))
                else:
                    tile = tile + o * stride
                    if not ok:
                        outside.append(np.zeros((1,) * (rank + 1), dtype=bool))
                continue
            at = (1,) * (pos + 1) + (n,) + (1,) * (rank - pos - 1)
            ar = np.arange(n, dtype=np.int64)
            if varies:
                per_cta = o * stride if per_cta is None else per_cta + o * stride
                ix = o[:, None] + ar[None, :]
                ok = (ix >= 0) & (ix < size)
                if not ok.all():
                    outside.append(ok.reshape((k,) + at[1:]))
                tile = tile + (ar * stride).reshape(at)
            else:
                ix = o + ar
                ok = (ix >= 0) & (ix < size)
                if not ok.all():
                    outside.append(ok.reshape(at))
                tile = tile + (ix * stride).reshape(at)
            pos += 1
        if buf.per_cta:
            c = cidx.astype(np.int64) * buf.cta_size
            per_cta = c if per_cta is None else per_cta + c
        if per_cta is None:
            flat = np.broadcast_to(tile, full)
        else:
            flat = tile + per_cta.reshape((k,) + (1,) * rank)
            flat.flags.writeable = False
        if not outside:
            return flat, np.broadcast_to(np.True_, full)
        inb = outside[0]
        for ok in outside[1:]:
            inb = inb & ok
        return flat, np.broadcast_to(inb, full)

    def read(self, cidx: np.ndarray) -> np.ndarray:
        v = self.fast_read(cidx)
        if v is not None:
            return v
        flat, inb = self.cta_index(cidx)
        return gather(self.buf, flat, inb)

    def _basic(self, cidx: np.ndarray):
        """The region as numpy's basic indexing sees it, when every element lands in the buffer
        in every CTA of ``cidx`` and at most one axis's offset differs between CTAs (never for a
        tile): (a view of the buffer with the shared offsets applied, and None, or (the position of
        the axis whose offset differs, its indices per CTA: ``(k, n)``, or ``(k,)`` for a
        point)). None otherwise: the flat indices of ``cta_index`` are needed."""
        buf = self.buf
        key, varying, kept = [], None, 0
        for axis, (off, n) in enumerate(zip(self.offsets, self.lengths)):
            size = buf.shape[axis]
            if isinstance(off, np.ndarray):
                if varying is not None or buf.per_cta or not len(cidx):
                    return None
                o = off[cidx].astype(np.int64)
                if int(o.min()) < 0 or int(o.max()) + (1 if n is None else n) > size:
                    return None
                varying = (kept, o if n is None else o[:, None] + np.arange(n, dtype=np.int64))
                key.append(slice(None))
                kept += 1
                continue
            o = int(off)
            if n is None:
                if not 0 <= o < size:
                    return None
                key.append(o)
            else:
                if o < 0 or o + n > size:
                    return None
                key.append(slice(o, o + n))
                kept += 1
        lead = (slice(None),) if buf.per_cta else ()
        return buf.data[lead + tuple(key) + (Ellipsis,)], varying

    def fast_read(self, cidx: np.ndarray):
        """``read`` without flat indices where ``_basic`` allows (a fresh array), else None."""
        plan = self._basic(cidx)
        if plan is None:
            return None
        v, varying = plan
        if self.buf.per_cta:
            return v.copy() if _every_cta(cidx, v.shape[0]) else v[cidx]
        if varying is None:
            return np.broadcast_to(v, (len(cidx),) + v.shape).copy()
        a, idx = varying
        return np.moveaxis(np.take(v, idx, axis=a), a, 0)

    def fast_write(self, cidx: np.ndarray, value: np.ndarray) -> bool:
        """``write`` without flat indices where ``_basic`` allows; False (nothing written) where
        it does not. Where several CTAs store one element, the last one's value stays, as in
        ``write``."""
        plan = self._basic(cidx)
        if plan is None:
            return False
        v, varying = plan
        value = np.broadcast_to(value, (len(cidx),) + self.shape)
        if self.buf.per_cta:
            if _every_cta(cidx, v.shape[0]):
                v[...] = value
            else:
                v[cidx] = value
        elif varying is None:
            v[...] = value[-1]
        else:
            a, idx = varying
            v[(slice(None),) * a + (idx,)] = np.moveaxis(value, 0, a)
        return True

    def write(self, cidx: np.ndarray, value: np.ndarray, index=None) -> None:
        """Store ``value`` in the CTAs ``cidx``; ``index``: this region's ``cta_index(cidx)``, when
        the caller has it already."""
        flat, inb = self.cta_index(cidx) if index is None else index
        value = np.broadcast_to(value, flat.shape)
        if all_true(inb):
            self.buf.flat[flat.ravel()] = value.ravel()
        else:
            self.buf.flat[flat[inb]] = value[inb]


def _add(a, b):
    """Offsets add up as plain ints while every CTA agrees, else as per-CTA arrays."""
    r = np.asarray(a, dtype=np.int64) + np.asarray(b, dtype=np.int64)
    return int(r) if r.ndim == 0 else r


def _every_cta(cidx: np.ndarray, ctas: int) -> bool:
    """Is ``cidx`` (increasing batch CTA indices, as ``cta_gate`` gives them) every CTA of a
    batch of ``ctas``?"""
    return len(cidx) == ctas and (ctas == 0 or int(cidx[-1]) - int(cidx[0]) == ctas - 1)


def all_true(flags: np.ndarray) -> bool:
    """Are all of ``flags`` true? A broadcast single flag (as ``cta_index`` gives when every
    element lands) is answered without a pass over it."""
    if flags.size and not any(flags.strides):
        return bool(flags.flat[0])
    return bool(flags.all())


def gather(buf: Buffer, flat: np.ndarray, inb) -> np.ndarray:
    """``buf`` at ``flat``, 0 where ``inb`` is false (those indices need not be valid)."""
    if buf.flat.size == 0:
        return np.zeros(np.shape(flat), dtype=buf.flat.dtype)
    if inb is True or (isinstance(inb, np.ndarray) and all_true(inb)):
        return buf.flat[flat]
    inb = np.broadcast_to(inb, np.shape(flat))
    v = buf.flat[np.where(inb, flat, 0)]
    return np.where(inb, v, np.zeros((), dtype=v.dtype))


def _drop_records(records: np.ndarray, listed: list, ctas, threads: int):
    """Clear the race records (a batch thread index, ``-(2 + c)`` for several threads of batch CTA
    ``c``, -1 for none) at the elements ``listed`` that belong to the CTAs ``ctas`` (None: all).
    Returns (the elements cleared, None for all; what stays listed)."""
    if ctas is None:
        for f in listed:
            records[f] = -1
        return None, []
    idx = np.unique(np.concatenate(listed))
    r = records[idx]
    hit = (r != -1) & np.isin(owner_cta(r, threads), ctas)
    records[idx[hit]] = -1
    rest = idx[(r != -1) & ~hit]
    return idx[hit], [rest] if rest.size else []


def owner_cta(w, threads: int):
    """The batch CTA a race record ``w`` belongs to (a thread index, or ``-(2 + c)`` for several
    threads of CTA ``c``); meaningless where ``w`` is -1 (no record)."""
    return np.where(w >= 0, w // threads, -w - 2) if np.ndim(w) else (w // threads if w >= 0 else -w - 2)


def same_value(a, b):
    """One value stored by several threads: equal, with NaN equal to NaN and ``-0.0`` not equal
    to ``0.0`` (which of the two stays is visible, in ``1 / x`` for one)."""
    a = np.asarray(a)
    if a.dtype.kind in "iub":
        return a == b                           # (bf16 arrays are of kind "V": floats below)
    return ((a == b) & (np.signbit(a) == np.signbit(b))) | ((a != a) & (b != b))
