"""A launch on the simulator: arguments checked against the kernel's parameters, runtime extents
taken from the arrays' shapes, `@aligned` promises checked, and the grid's CTAs run in batches.

Kernels without atomics, `load_acquire` or `store_release` cannot make one CTA wait for another,
so their CTAs run together, many per batch, as one long vector of threads. Kernels with them run
one CTA at a time in block order (x fastest, then y, then z): a CTA sees everything the CTAs
before it wrote, and a CTA that waits for a later one is reported as a deadlock (PH404) instead of
hanging, which is what the docs promise.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np

from ..language.builtins import ATOMICS, MEMORY_ORDER
from ..language.ops import STORE
from ..language.types import Scalar, Tensor, Tile, an
from . import values as V
from .errors import ArgumentError, DynamicCheckFailed, fire
from .machine import Machine, Options, Spans
from .memory import Buffer

I32_MAX = 2**31 - 1
MAX_BATCH_THREADS = 1 << 17            # threads simulated together (the lanes matvec at N=4096: all)
MAX_SIM_THREADS = 1 << 31              # threads in one launch (CTAs x threads per CTA): a grid the
                                       # simulator would take days over is refused, not started
MAX_BATCH_TILE_BYTES = 256 << 20       # shared memory simulated together


@dataclass
class Bound:
    """Arguments matched to a kernel's parameters."""

    tensors: dict[str, np.ndarray]
    scalars: dict[str, object]
    extents: dict[str, int]
    where: dict[str, str]              # extent -> which argument's axis gave it


def bind_arguments(kinfo, args: tuple, kwargs: dict) -> Bound:
    """Match positional and named arguments to the parameters and check each one. Raises
    ArgumentError with a message that names the parameter."""
    params = kinfo.params
    name = kinfo.kernel.name
    if len(args) > len(params):
        raise ArgumentError(f"`{name}` takes {len(params)} arguments, not {len(args)}")
    values = dict(zip((p.name for p in params), args))
    for key, v in kwargs.items():
        if key not in {p.name for p in params}:
            raise ArgumentError(f"`{name}` has no parameter `{key}` (its parameters: "
                                f"{', '.join(p.name for p in params)})")
        if key in values:
            raise ArgumentError(f"`{key}` is given twice")
        values[key] = v
    missing = [p.name for p in params if p.name not in values]
    if missing:
        raise ArgumentError(f"`{name}` is missing argument{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(f'`{m}`' for m in missing)}")
    bound = Bound({}, {}, {}, {})
    for p in params:
        v = values[p.name]
        if isinstance(p.type, Tensor):
            bound.tensors[p.name] = _tensor(p, v, bound)
        else:
            bound.scalars[p.name] = scalar_argument(p.name, p.type, v)
    check_no_alias(bound.tensors)
    for ext in kinfo.extents:
        if ext not in bound.extents:
            raise ArgumentError(f"extent `{ext}` is given by no tensor")
        if bound.extents[ext] > I32_MAX:
            raise ArgumentError(f"extent `{ext}` = {bound.extents[ext]} (from {bound.where[ext]}) does not fit in i32")
    return bound


def _tensor(p, v, bound: Bound) -> np.ndarray:
    t: Tensor = p.type
    want = V.dtype_of(t.elem)
    if not isinstance(v, np.ndarray):
        kind = type(v).__name__ if type(v).__module__ == "builtins" else \
            f"{type(v).__module__.split('.')[0]}.{type(v).__name__}"
        if hasattr(v, "__cuda_array_interface__"):
            raise ArgumentError(f"`{p.name}` is a device array ({kind}): this API takes numpy arrays; launch "
                                "device arrays with phobos_tools.lowering.cache.load_kernel(path, kernel)")
        raise ArgumentError(f"`{p.name}` is {an(t)}: pass a numpy array, not {kind}")
    if v.dtype != want:
        raise ArgumentError(f"`{p.name}` is {an(t)}, so its array must hold {want}, not {v.dtype}")
    if v.ndim != len(t.shape):
        raise ArgumentError(f"`{p.name}` is {an(t)} of rank {len(t.shape)}, but the array has shape {list(v.shape)}")
    if not v.flags.c_contiguous:
        raise ArgumentError(f"`{p.name}` is not C-contiguous: pass np.ascontiguousarray({p.name})")
    if not v.flags.writeable:
        raise ArgumentError(f"`{p.name}` is read-only: the kernel may write it, so pass a writeable array")
    for axis, (d, n) in enumerate(zip(t.shape, v.shape)):
        if isinstance(d, int):
            if d != n:
                raise ArgumentError(f"`{p.name}` is {an(t)}: axis {axis} must have extent {d}, not {n}")
        elif d in bound.extents and bound.extents[d] != n:
            raise ArgumentError(f"extent `{d}` is {bound.extents[d]} (from {bound.where[d]}) but {n} in "
                                f"`{p.name}` (axis {axis})")
        else:
            bound.extents[d] = int(n)
            bound.where.setdefault(d, f"`{p.name}` axis {axis}")
    return v


def check_no_alias(tensors: dict) -> None:
    """Distinct tensor parameters do not alias (LANGUAGE §9.5; the GPU build marks them noalias):
    two arrays that share memory would give the simulator an answer the GPU need not give."""
    items = [(n, a) for n, a in tensors.items() if a.size]
    for i, (n1, a1) in enumerate(items):
        for n2, a2 in items[i + 1:]:
            if np.may_share_memory(a1, a2):      # exact for C-contiguous arrays (one byte range each)
                raise ArgumentError(f"`{n1}` and `{n2}` share memory: distinct tensor parameters must not alias "
                                    f"(LANGUAGE §9.5); pass a copy of one of them")


def _ml_float(v) -> bool:
    """An ml_dtypes float scalar (``ml_dtypes.bfloat16(2.0)``): not an np.floating, but a number."""
    return isinstance(v, np.generic) and type(v).__module__.split(".")[0] == "ml_dtypes" \
        and "float" in np.dtype(type(v)).name


def scalar_argument(name: str, t: Scalar, v):
    """A scalar parameter's value as its numpy type; refuses what would change it."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if t.name == "bool":
        if not isinstance(v, (bool, np.bool_)):
            raise ArgumentError(f"`{name}` is a bool, not {type(v).__name__} {v!r}")
        return np.bool_(v)
    if isinstance(v, (bool, np.bool_)) or not (isinstance(v, (int, float, np.integer, np.floating))
                                               or _ml_float(v)):
        raise ArgumentError(f"`{name}` is {an(t)}, not {type(v).__name__} {v!r}")
    if t.name in V.INT_BITS:
        if isinstance(v, (float, np.floating)) or _ml_float(v):
            if not float(v).is_integer():
                raise ArgumentError(f"`{name}` is {an(t)}, not the float {v!r}")
            v = int(v)
        info = np.iinfo(V.dtype_of(t))
        if not info.min <= int(v) <= info.max:
            raise ArgumentError(f"`{name}` = {v} does not fit in {t}")
        return V.literal(int(v), t)
    out = V.literal(float(v), t)
    if np.isinf(out) and not np.isinf(float(v)):
        raise ArgumentError(f"`{name}` = {v} does not fit in {t}")
    return out


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


def block_batches(grid, per_batch: int):
    """The CTAs' coordinates in block order (x fastest, then y, then z), ``per_batch`` at a time
    as ``(n, 3)`` arrays: made batch by batch, never listed whole (a grid may have 2**26 CTAs)."""
    x, y, z = grid
    total = x * y * z
    for start in range(0, total, per_batch):
        index = np.arange(start, min(start + per_batch, total), dtype=np.int64)
        yield np.stack([index % x, index // x % y, index // (x * y)], axis=1)


def check_size(kinfo, grid) -> None:
    """Refuse a launch of more than MAX_SIM_THREADS threads (an ArgumentError)."""
    ctas = grid[0] * grid[1] * grid[2]
    threads = ctas * kinfo.threads
    if threads > MAX_SIM_THREADS:
        raise ArgumentError(f"the grid {','.join(map(str, grid))} is {ctas:,} CTAs of {kinfo.threads} threads, "
                            f"{threads:,} threads in all; the simulator runs at most {MAX_SIM_THREADS:,} (2**31) "
                            "threads in one launch")


def _is_integer(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def normalize_grid(grid) -> tuple[int, int, int]:
    if _is_integer(grid):
        grid = (int(grid),)
    # integers only: a string is not read digit by digit, a float is not truncated
    if isinstance(grid, (str, bytes)) or not isinstance(grid, (tuple, list, np.ndarray)) \
            or not all(_is_integer(g) for g in grid):
        raise ArgumentError(f"the grid is 1 to 3 positive integers, not {grid!r}")
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 1 for g in grid):
        raise ArgumentError(f"the grid is 1 to 3 positive integers, not {grid}")
    if any(g > I32_MAX for g in grid):
        raise ArgumentError(f"a grid extent must fit in i32: {grid}")
    return grid + (1,) * (3 - len(grid))


def check_aligned(kinfo, extents: dict[str, int], where: dict[str, str]) -> None:
    for attr in kinfo.kernel.attrs:
        if attr.name != "aligned":
            continue
        for arg in attr.args:
            n = kinfo.aligned.get(arg.name)
            if n is None or arg.name not in extents:
                continue
            if extents[arg.name] % n:
                fire("PH403", f"`@aligned({arg.name} = {n})` is broken: {arg.name} = {extents[arg.name]} "
                     f"(from {where.get(arg.name, 'the arguments')}) is not a multiple of {n}",
                     arg.span, label="the promise this launch breaks",
                     help=f"pad the tensors so that {arg.name} is a multiple of {n}, or drop the promise")


def simulate(kinfo, bound: Bound, grid, options: Options | None = None, path: str = "<input>",
             text: str | None = None, analysis=None) -> None:
    """Run ``kinfo`` on the arguments (arrays are updated in place). Raises DynamicCheckFailed.
    ``analysis`` (the kernel's KernelAnalysis) gives the kinds the lowering goes by: a collective
    over an operand that is the same in all it folds synchronizes nothing there (without it, every
    collective counts as synchronizing)."""
    options = options or Options()
    grid = normalize_grid(grid)
    check_size(kinfo, grid)
    # Floats overflow to inf and 0/0 gives NaN on the GPU without a word; so here (numpy would
    # otherwise print RuntimeWarnings naming the simulator's own lines).
    with np.errstate(all="ignore"):
        _simulate(kinfo, bound, grid, options, path, text, analysis)


def _simulate(kinfo, bound: Bound, grid, options: Options, path: str, text: str | None, analysis) -> None:
    try:
        check_aligned(kinfo, bound.extents, bound.where)
        buffers = {name: Buffer(name, arr, _param_type(kinfo, name).elem, per_cta=False)
                   for name, arr in bound.tensors.items()}
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
        spans = Spans()                 # the records between CTAs outlive a batch, and name places
        for ctas in block_batches(grid, per_batch):
            m = Machine(kinfo, ctas, grid, buffers, bound.scalars, bound.extents, options, analysis, spans)
            m.sequential = sequential
            if not sequential:          # CTAs that nothing orders: races between them are tracked
                ids = (ctas[:, 0] + grid[0] * (ctas[:, 1] + grid[1] * ctas[:, 2])).astype(np.int32)
                for buf in buffers.values():
                    buf.cta_ids = ids
            m.run()
            for buf in buffers.values():
                buf.clear(None, kinfo.threads)
    except DynamicCheckFailed as e:
        e.path, e.text = path, text
        raise


def _param_type(kinfo, name):
    for p in kinfo.params:
        if p.name == name:
            return p.type
    raise KeyError(name)
