"""A stand-in for cupy, on numpy, for testing the GPU bench's own code without a GPU.

Only the part of cupy's API that ``benchmarks/gpu_bench.py`` and the runtime's cupy backend use.
Device arrays are numpy arrays that also expose ``__cuda_array_interface__`` and ``.data.ptr``;
"launching" a kernel computes what it should with numpy, chosen by the kernel's entry name (the
PTX is never run), so a wrong launch sequence, argument order or extent shows up as a wrong
result. Install with ``install()`` (puts ``cupy`` and ``cupy.cublas`` into sys.modules) and
remove with ``uninstall()``.
"""

from __future__ import annotations

import time
import types

import numpy as np

from fake_modules import swap_in, swap_out

_ARRAYS: dict[int, "DevArray"] = {}      # device pointer -> the array that owns it


class _Ptr:
    def __init__(self, ptr):
        self.ptr = ptr


class DevArray(np.ndarray):
    @property
    def data(self):                                     # cupy's MemoryPointer: .ptr
        return _Ptr(self.ctypes.data)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ctypes.data, False),
                "version": 3, "strides": None if self.flags.c_contiguous else self.strides}


def _dev(a) -> DevArray:
    d = np.ascontiguousarray(a).view(DevArray)
    _ARRAYS[d.ctypes.data] = d
    return d


# ---------------------------------------------------------------- kernels, by entry name
def _matvec(arrays, extents):
    W, x, y = arrays
    N, K = extents
    y.reshape(-1)[:N] = (W.reshape(N, K) @ x.reshape(-1)[:K]).astype(np.float32)


def _row_sums(arrays, extents):
    A, out = arrays
    M, N = extents
    out.reshape(-1)[:M] = A.reshape(M, N).sum(axis=1, dtype=np.float32)


def _row_softmax(arrays, extents):
    X, Y = arrays
    M, N = extents
    x = X.reshape(M, N)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    Y.reshape(M, N)[...] = e / e.sum(axis=1, keepdims=True)


KERNELS = {"lanes_matvec": (_matvec, 3), "matvec_warp": (_matvec, 3), "matvec_cta": (_matvec, 3),
           "row_sums": (_row_sums, 2), "row_softmax": (_row_softmax, 2)}
launches: list[tuple] = []               # (entry, grid, block) of every launch


class _Function:
    def __init__(self, entry):
        self.entry = entry

    def __call__(self, grid, block, args, shared_mem=0):
        for a in args:       # what cupy passes: numpy scalars of the types it knows (no bfloat16)
            if not isinstance(a, np.generic) or a.dtype.kind not in "biuf":
                raise TypeError(f"Unsupported type {type(a)}")
        if self.entry not in KERNELS:       # launched, not computed
            launches.append((self.entry, tuple(grid), tuple(block)))
            return
        fn, n_tensors = KERNELS[self.entry]
        ptrs = [int(a) for a in args[:n_tensors]]
        missing = [p for p in ptrs if p not in _ARRAYS]
        if missing:
            raise RuntimeError(f"fake cupy: {self.entry} got a pointer to no array (0x{missing[0]:x})")
        launches.append((self.entry, tuple(grid), tuple(block)))
        fn([_ARRAYS[p] for p in ptrs], [int(a) for a in args[n_tensors:]])


class RawModule:
    def __init__(self, path=None, code=None):
        with open(path) as f:
            self.ptx = f.read()

    def get_function(self, entry):
        if f".entry {entry}(" not in self.ptx:
            raise RuntimeError(f"fake cupy: no entry {entry} in the PTX")
        return _Function(entry)


# ---------------------------------------------------------------- the module
def _module():
    cp = types.ModuleType("cupy")
    cp.__version__ = "0.0-fake"
    cp.float32, cp.float64, cp.ndarray = np.float32, np.float64, DevArray
    cp.empty = lambda shape, dtype=np.float32: _dev(np.empty(shape, dtype))
    cp.asarray = lambda a: _dev(np.array(a))
    cp.asnumpy = lambda a: np.array(a)
    cp.isnan, cp.exp, cp.divide, cp.array_equal = np.isnan, np.exp, np.divide, np.array_equal

    def matmul(a, b, out=None):
        out[...] = np.matmul(a, b)
        return out
    cp.matmul = matmul
    cp.copyto = np.copyto
    cp.RawModule = RawModule

    class RandomState:
        def __init__(self, seed):
            self.rng = np.random.default_rng(seed)

        def standard_normal(self, shape, dtype=np.float64):
            return _dev(self.rng.standard_normal(shape).astype(dtype))
    cp.random = types.SimpleNamespace(RandomState=RandomState)

    class Pool:
        def free_all_blocks(self):
            pass
    cp.get_default_memory_pool = lambda: Pool()

    class Event:
        def record(self, stream=None):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

    class Device:
        id = 0

        def __init__(self, i=0):
            pass

        def synchronize(self):
            pass

    class Stream:
        """cupy's Stream: a context manager that makes it current; work here is done at once."""

        ptr = 0
        syncs = 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def synchronize(self):
            Stream.syncs += 1

    null = Stream()

    def memcpy_async(dst, src, n, kind, stream):
        _ARRAYS[dst].view(np.uint8).reshape(-1)[:n] = _ARRAYS[src].view(np.uint8).reshape(-1)[:n]

    runtime = types.SimpleNamespace(
        memcpyDeviceToDevice=3, memcpyAsync=memcpy_async, deviceSynchronize=lambda: None,
        driverGetVersion=lambda: 13000, runtimeGetVersion=lambda: 13000,
        deviceGetAttribute=lambda attr, dev: {36: 3_201_000, 37: 6144}[attr],
        getDeviceProperties=lambda dev: {"name": b"Fake H200 (numpy)", "multiProcessorCount": 132,
                                         "l2CacheSize": 60 << 20, "totalGlobalMem": 141 << 30, "major": 9,
                                         "minor": 0})
    cp.cuda = types.SimpleNamespace(Event=Event, Device=Device, runtime=runtime,
                                    get_elapsed_time=lambda s, e: (e.t - s.t) * 1e3,
                                    Stream=Stream, get_current_stream=lambda: null)
    cublas = types.ModuleType("cupy.cublas")

    def gemv(transa, alpha, a, x, beta, y):
        assert transa == "N" and a.ndim == 2 and x.ndim == y.ndim == 1
        # BLAS: with beta == 0, y is not read (so a poisoned y does not leak into the result)
        y[...] = alpha * (a @ x) + (beta * y if beta else 0)
    cublas.gemv = gemv
    cp.cublas = cublas
    return cp, cublas


_saved: dict = {}


def install():
    cp, cublas = _module()
    swap_in((("cupy", cp), ("cupy.cublas", cublas)), _saved)
    launches.clear()
    return cp


def uninstall():
    swap_out(_saved)
    _ARRAYS.clear()
