"""A launch on the simulator: arguments checked against the kernel's parameters, runtime extents
taken from the arrays' shapes, `@aligned` promises checked, and the grid's CTAs run in batches.

Kernels without atomics, `load_acquire` or `store_release` cannot make one CTA wait for another,
so their CTAs run together, many per batch, as one long vector of threads. Kernels with them run
one CTA at a time in block order (x fastest, then y, then z): a CTA sees everything the CTAs
before it wrote, and a CTA that waits for a later one is reported as a deadlock (PH404) instead of
hanging, which is what the docs promise.
"""

from __future__ import annotations

from math import prod

import numpy as np

from ..analyzer.checked import recursion_room
from ..language.arguments import Bound, Param, bind, broken_promises, normalize_grid
from ..language.builtins import ATOMICS, MEMORY_ORDER
from ..language.ops import STORE
from ..language.types import Tensor, Tile, settle
from . import values as V
from .errors import ArgumentError, DynamicCheckFailed, fire
from .machine import Machine, Options, Spans, Work
from .memory import Buffer

MAX_BATCH_THREADS = 1 << 17            # threads simulated together (the lanes matvec at N=4096: all)
MAX_SIM_THREADS = 1 << 31              # threads in one launch (CTAs x threads per CTA): a grid the
                                       # simulator would take days over is refused, not started
MAX_GRID_CTAS = (1 << 31) - 1          # CTAs of a grid, simulated or not (the race records hold
                                       # grid indices as i32)
MAX_BATCH_TILE_BYTES = 256 << 20       # shared memory simulated together
MAX_BATCH_VALUE_ELEMENTS = 1 << 24     # elements of the largest tile value (a slice, a sweep's
                                       # result) of the CTAs simulated together


def params_of(kinfo) -> list[Param]:
    """The kernel's parameters as the manifest lists them (the binder's view)."""
    return [Param(b.name, settle(b.type.elem).name, tuple(b.type.shape)) if isinstance(b.type, Tensor)
            else Param(b.name, settle(b.type).name) for b in kinfo.params]


def bind_arguments(kinfo, args: tuple, kwargs: dict) -> Bound:
    """Match positional and named arguments to the parameters and check each one
    (language/arguments.py, as the GPU runtime does). Raises ArgumentError naming the parameter."""
    return bind(kinfo.kernel.name, params_of(kinfo), kinfo.extents, args, kwargs)


def written(inst) -> tuple[set, set]:
    """The buffers the kernel (its inlined functions included) writes: (by a scalar or run store,
    by any operation)."""
    per_thread, anyhow = set(), set()
    for i in inst.tree():
        for op in i.ops.values():
            if op.writes:
                anyhow.update(op.writes)
                if op.name == STORE:
                    per_thread.update(op.writes)
    return per_thread, anyhow


def uses_once_per_cta(inst) -> bool:
    """Does the kernel (or a function it calls) use an atomic, `load_acquire` or `store_release`?"""
    return any(op.name in ATOMICS or op.name in MEMORY_ORDER for i in inst.tree() for op in i.ops.values())


def _tile_bytes(inst) -> int:
    return sum(prod(b.type.shape) * V.dtype_of(b.type.elem).itemsize for i in inst.tree() for b in i.bindings
               if isinstance(b.type, Tile) and b.kind != "view" and b.type.static)


def largest_tile_value(inst) -> int:
    """The elements of the largest tile value of static shape the kernel (its inlined functions
    included) computes: a slice, a sweep's result, a tile binding."""
    largest = 0
    for i in inst.tree():
        for t in i.types.values():
            if isinstance(t, Tile) and t.static:
                largest = max(largest, prod(t.shape))
    return largest


def block_batches(grid, per_batch: int, first: int = 0, stop: int | None = None):
    """The CTAs' coordinates in block order (x fastest, then y, then z), ``per_batch`` at a time
    as ``(n, 3)`` arrays: made batch by batch, never listed whole (a grid may have 2**26 CTAs).
    ``first`` and ``stop``: only the CTAs of block-order index ``first`` to ``stop - 1``."""
    x, y, z = grid
    total = x * y * z if stop is None else stop
    for start in range(first, total, per_batch):
        index = np.arange(start, min(start + per_batch, total), dtype=np.int64)
        yield np.stack([index % x, index // x % y, index // (x * y)], axis=1)


def cta_range(grid, ctas) -> tuple[int, int]:
    """The CTAs to simulate, as block-order indices ``(first, stop)``: all of the grid for None,
    the first N for an integer N, ``A`` to ``B - 1`` for a pair ``(A, B)`` or ``range(A, B)``.
    An ArgumentError for anything else, or a range outside the grid or empty."""
    total = grid[0] * grid[1] * grid[2]
    if ctas is None:
        return 0, total

    def integer(v) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

    if integer(ctas):
        first, stop = 0, int(ctas)
        if stop < 1:
            raise ArgumentError(f"ctas: the number of CTAs to simulate is at least 1, not {stop}")
    elif isinstance(ctas, range) and ctas.step == 1:
        first, stop = ctas.start, ctas.stop
    elif isinstance(ctas, (tuple, list)) and len(ctas) == 2 and all(integer(v) for v in ctas):
        first, stop = int(ctas[0]), int(ctas[1])
    else:
        raise ArgumentError(f"ctas is a number of CTAs N (the first N) or a pair (A, B) (the CTAs A to B - 1 in "
                            f"block order), not {ctas!r}")
    if not 0 <= first < stop:
        raise ArgumentError(f"ctas: ({first}, {stop}) is no range of CTAs: it needs 0 <= A < B")
    if stop > total:
        raise ArgumentError(f"ctas: the grid {','.join(map(str, grid))} has {total:,} CTAs (0 to {total - 1:,} in "
                            f"block order), so it cannot simulate up to CTA {stop - 1:,}")
    return first, stop


def check_size(kinfo, grid, ctas: int | None = None) -> None:
    """Refuse a launch of more than MAX_SIM_THREADS threads (an ArgumentError); ``ctas``: the CTAs
    simulated, when not the whole grid."""
    total = grid[0] * grid[1] * grid[2]
    count = total if ctas is None else ctas
    threads = count * kinfo.threads
    if threads > MAX_SIM_THREADS:
        what = (f"the grid {','.join(map(str, grid))} is {count:,} CTAs" if ctas is None else
                f"{count:,} CTAs of the grid {','.join(map(str, grid))}")
        raise ArgumentError(f"{what} of {kinfo.threads} threads, {threads:,} threads in all; the simulator runs at "
                            f"most {MAX_SIM_THREADS:,} (2**31) threads in one launch"
                            + ("" if ctas is not None else " (simulate part of the grid: --ctas, the ctas= argument)"))
    if total > MAX_GRID_CTAS:
        raise ArgumentError(f"the grid {','.join(map(str, grid))} is {total:,} CTAs; the simulator numbers at most "
                            f"{MAX_GRID_CTAS:,} (2**31 - 1) CTAs in one launch, even when it simulates a part")


def check_aligned(kinfo, bound: Bound) -> None:
    """PH403, located at the promise, for each ``@aligned`` the arguments break."""
    spans = {arg.name: arg.span for attr in kinfo.kernel.attrs if attr.name == "aligned" for arg in attr.args}
    for name, n, value, where in broken_promises(kinfo.aligned, bound):
        fire("PH403", f"`@aligned({name} = {n})` is broken: {name} = {value} (from {where}) is not a multiple of {n}",
             spans[name], label="the promise this launch breaks",
             help=f"pad the tensors so that {name} is a multiple of {n}, or drop the promise")


def simulate(kinfo, bound: Bound, grid, options: Options | None = None, path: str = "<input>",
             text: str | None = None, ctas=None, progress=None) -> None:
    """Run ``kinfo`` (an analyzer.checked.CheckedKernel) on the bound arguments (arrays are
    updated in place). Raises DynamicCheckFailed. The kernel's execution plan says where the
    lowering puts barriers and which collectives exchange data (one over an operand the same in
    all it folds synchronizes nothing), and the simulator follows it.

    ``ctas`` (``cta_range``): simulate only those CTAs of the grid; the checks then see only what
    they do, and the arrays change only where they store. ``progress``: called as
    ``progress(done, total)`` with the CTAs simulated so far, after each batch."""
    options = options or Options()
    grid = normalize_grid(grid)
    first, stop = cta_range(grid, ctas)
    check_size(kinfo, grid, None if ctas is None else stop - first)
    # Floats overflow to inf and 0/0 gives NaN on the GPU without a word; so here (numpy would
    # otherwise print RuntimeWarnings naming the simulator's own lines). The machine recurses
    # along the tree, as the checker does.
    with np.errstate(all="ignore"), recursion_room():
        _simulate(kinfo, bound, grid, options, path, text, first, stop, progress)


def _simulate(kinfo, bound: Bound, grid, options: Options, path: str, text: str | None, first: int = 0,
              stop: int | None = None, progress=None) -> None:
    try:
        check_aligned(kinfo, bound)
        buffers = {p.name: Buffer(p.name, bound.values[p.name], p.type.elem, per_cta=False)
                   for p in kinfo.params if isinstance(p.type, Tensor)}
        per_thread, anyhow = written(kinfo.instance)
        for name in per_thread & buffers.keys():            # write after read: watch their reads
            buffers[name].watch = True
        for name in anyhow & buffers.keys():                # and between CTAs
            buffers[name].xwatch = True
        sequential = uses_once_per_cta(kinfo.instance)
        if sequential:
            per_batch = 1
        else:
            per_batch = max(1, MAX_BATCH_THREADS // kinfo.threads)
            tile_bytes = _tile_bytes(kinfo.instance)
            if tile_bytes:
                per_batch = max(1, min(per_batch, MAX_BATCH_TILE_BYTES // tile_bytes))
            largest = largest_tile_value(kinfo.instance)
            if largest:
                per_batch = max(1, min(per_batch, MAX_BATCH_VALUE_ELEMENTS // largest))
        scalars = {p.name: bound.values[p.name] for p in kinfo.params if not isinstance(p.type, Tensor)}
        spans = Spans()                 # the records between CTAs outlive a batch, and name places
        work = Work(options.max_steps)  # the work bound counts the steps of every batch
        done = 0
        total = (grid[0] * grid[1] * grid[2] if stop is None else stop) - first
        for ctas in block_batches(grid, per_batch, first, stop):
            m = Machine(kinfo, ctas, grid, buffers, scalars, bound.extents, options, spans, work)
            m.sequential = sequential
            if not sequential:          # CTAs that nothing orders: races between them are tracked
                ids = (ctas[:, 0] + grid[0] * (ctas[:, 1] + grid[1] * ctas[:, 2])).astype(np.int32)
                for buf in buffers.values():
                    buf.cta_ids = ids
            m.run()
            for buf in buffers.values():
                buf.clear(None, kinfo.threads)
            done += len(ctas)
            if progress is not None:
                progress(done, total)
    except DynamicCheckFailed as e:
        e.path, e.text = path, text
        raise
