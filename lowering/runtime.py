"""Launch a built kernel from its PTX and manifest (DESIGN.md) on the GPU.

Light: this module imports only the standard library, numpy and the language's tables
(``phobos_tools.language``: the dtypes and the argument binder the simulator shares), plus, lazily,
the GPU backend, so it runs on a machine without the analyzer, llvmlite, lark, networkx or z3
(``lowering/__init__`` imports nothing). Backends, in order of preference: **pycuda**, then
cuda.core (binary wheels: cuda-core and cuda-bindings), then cupy (``PHOBOS_GPU_BACKEND`` forces
one; ``backend=`` may also be a backend object, as the tests' fakes are).

Arguments follow the manifest's parameters, positionally or by name: a tensor is a numpy array
(copied to the device and back after the launch) or any device array exposing
``__cuda_array_interface__`` or ``__dlpack__`` (torch, cupy, jax; bf16 included), used in place; a
scalar is a Python or numpy number. Launches are asynchronous on ``stream=`` (a backend's stream
object, one with ``__cuda_stream__``, or a raw handle; default: the backend's current stream): the
call returns once the launch is queued, and synchronizes only when numpy arrays are copied back.
A DLPack producer is asked for its tensor on that stream (it orders its pending work before it);
a ``__cuda_array_interface__`` that names its producer's stream makes the launch wait for that
stream. A read-only device array (CAI's flag, DLPack 1.0's) given to a parameter the kernel stores
into is refused (``writes=``: the parameters the kernel may store into, known to the Python API;
without it every read-only array is refused). Before
launching, every tensor is checked against the manifest (dtype, rank, static extents, one value
per runtime extent, C-contiguity, 16-byte alignment of device pointers; language/arguments.py)
and every ``@aligned`` promise is checked on the extents; what does not fit raises
``BadArguments``, both a LaunchError and an ArgumentError; the runtime extents are passed after the parameters as i32
(LANGUAGE §10). The block size is the manifest's; the caller gives the grid.

    kernel = Kernel.load("out", "lanes_matvec")
    kernel(W, x, y, grid=(N // 4,))
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..language.arguments import (ArgumentError, Bound, DeviceArray, bind, manifest_params, normalize_grid,
                                  numpy_dtype as _numpy_dtype)
from ..language.types import NUMPY_NAMES

MANIFEST_VERSION = 1
BACKENDS = ("pycuda", "cuda.core", "cupy")
GRID_LIMITS = (2**31 - 1, 65535, 65535)        # CUDA's largest grid, x, y, z


class LaunchError(Exception):
    """A launch the runtime refuses (bad arguments) or the driver failed (a clear message)."""


class BadArguments(LaunchError, ArgumentError):
    """Arguments that do not fit the kernel: a LaunchError, and the ArgumentError the simulator
    raises for the same arguments (language/arguments.py binds them for both)."""


class BackendLimit(LaunchError):
    """A launch the chosen backend cannot make, though another could (the cuda.core backend:
    numpy arguments, more than 48 KB of dynamic shared memory)."""


def numpy_dtype(name: str) -> np.dtype:
    """The host dtype of an element type named in a manifest (language/types.NUMPY_NAMES)."""
    if name not in NUMPY_NAMES:
        raise LaunchError(f"unknown dtype `{name}` in the manifest")
    return _numpy_dtype(name)


@dataclass
class Prepared:
    """Validated arguments: what each parameter is, and the extents' values."""

    tensors: list            # (param index, host numpy array or None, device pointer or None, nbytes)
    scalars: dict            # param index -> numpy scalar
    extents: dict            # name -> int, in manifest order
    order: list              # per parameter: ("tensor", i) or ("scalar", i)


def grid_of(grid) -> tuple[int, int, int]:
    """A launch grid checked against CUDA's limits (BadArguments)."""
    return normalize_grid(grid, GRID_LIMITS, "beyond CUDA's limits (x at most 2**31 - 1, y and z at most 65535)",
                          BadArguments)


def stream_handle(stream) -> int | None:
    """The CUDA handle (``CUstream``) of a stream object: pycuda's (``.handle``), cupy's (``.ptr``),
    one with the ``__cuda_stream__`` protocol (cuda.core, torch's ``.cuda_stream``), or an int;
    None for None. LaunchError for anything else."""
    if stream is None:
        return None
    if isinstance(stream, (int, np.integer)) and not isinstance(stream, bool):
        return int(stream)
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        v = proto() if callable(proto) else proto
        return int(v[1])
    for attr in ("handle", "ptr", "cuda_stream"):
        v = getattr(stream, attr, None)
        if v is not None and not isinstance(v, bool):
            try:
                return int(v)               # an int, or a handle object that converts (cuda.bindings' CUstream)
            except (TypeError, ValueError):
                pass
    raise LaunchError(f"stream= is a CUDA stream (pycuda, cupy or cuda.core, one with __cuda_stream__, or a "
                      f"handle), not {type(stream).__name__}")


class Kernel:
    def __init__(self, ptx: str, manifest: dict, backend=None, writes=None):
        if manifest.get("version") != MANIFEST_VERSION:
            raise LaunchError(f"manifest version {manifest.get('version')} is not {MANIFEST_VERSION}")
        self.ptx = ptx
        self.manifest = manifest
        self.entry = manifest["entry"]
        self.block = int(manifest["block"])
        self.params = manifest_params(manifest)
        for p in self.params:
            numpy_dtype(p.dtype)
        # tiles beyond 48 KB live in dynamic shared memory, sized at launch (shared.py)
        self.dynamic_shared = int(manifest.get("dynamic_shared_bytes") or 0)
        if backend is not None and not isinstance(backend, str):
            self._backend_name, self._backend = getattr(backend, "name", "custom"), backend
        else:
            self._backend_name = backend or os.environ.get("PHOBOS_GPU_BACKEND") or None
            self._backend = None
        # the tensor parameters the kernel may store into (None: not known, from a manifest alone)
        writes = writes if writes is not None else manifest.get("writes")
        self.writes = None if writes is None else frozenset(writes)

    @classmethod
    def load(cls, directory, entry: str, backend: str | None = None) -> "Kernel":
        d = Path(directory)
        return cls((d / f"{entry}.ptx").read_text(), json.loads((d / f"{entry}.json").read_text()), backend)

    # ---------------------------------------------------------------- validation (no GPU)
    def prepare(self, *args, **kwargs) -> Prepared:
        """Bind and check the arguments (language/arguments.py); BadArguments when they do not fit."""
        return self.prepared(bind(self.entry, self.params, self.manifest["extents"], args, kwargs,
                                  device_arrays=True, error=BadArguments))

    def prepared(self, bound: Bound) -> Prepared:
        """Arguments bound by language/arguments.py (device arrays allowed), laid out for the
        launch; BadArguments for an ``@aligned`` promise they break."""
        for name, n in self.manifest.get("aligned", {}).items():
            if name in bound.extents and bound.extents[name] % n:
                raise BadArguments(f"`@aligned({name} = {n})` is broken: {name} = {bound.extents[name]} "
                                   f"(from {bound.where[name]}) is not a multiple of {n}")
        tensors, scalars, order = [], {}, []
        for i, p in enumerate(self.params):
            v = bound.values[p.name]
            if not p.is_tensor:
                scalars[i] = np.uint8(v) if p.dtype == "bool" else v      # a bool parameter is a byte (.u8)
                order.append(("scalar", i))
            elif isinstance(v, DeviceArray):
                if v.readonly and (self.writes is None or p.name in self.writes):
                    why = ("the kernel stores into it" if self.writes is not None else
                           "the manifest does not say which tensors the kernel stores into (the Python API, "
                           "phobos_tools.run, knows; or give Kernel(..., writes=[...]))")
                    raise BadArguments(f"`{p.name}` is a read-only device array, but {why}: pass a writeable one")
                tensors.append((i, None, v.pointer, v.nbytes))
                order.append(("tensor", len(tensors) - 1))
            else:
                tensors.append((i, v, None, v.nbytes))
                order.append(("tensor", len(tensors) - 1))
        return Prepared(tensors, scalars, bound.extents, order)

# ---------------------------------------------------------------- launching
    def __call__(self, *args, grid, stream=None, **kwargs) -> None:
        grid = grid_of(grid)
        backend = self._load_backend()
        if stream is None:
            stream = backend.current_stream()
            try:
                handle = stream_handle(stream)
            except LaunchError:             # a backend's own stream object, whose handle it keeps
                handle = None
        else:
            handle = stream_handle(stream)  # LaunchError for what is no stream
        bound = bind(self.entry, self.params, self.manifest["extents"], args, kwargs, device_arrays=True,
                     error=BadArguments, stream=_dlpack_stream(handle))
        self.launch(self.prepared(bound), grid, stream, bound)

    def launch(self, prepared: Prepared, grid: tuple[int, int, int], stream=None, bound: Bound | None = None) -> None:
        """Launch with prepared arguments over a grid checked by ``grid_of``, on ``stream`` (None:
        the backend's current stream), after the streams the device arrays of ``bound`` name as
        their producers' (``__cuda_array_interface__``'s ``stream``)."""
        backend = self._load_backend()
        if stream is None:
            stream = backend.current_stream()
        try:
            producers = {v.stream for v in (bound.values.values() if bound is not None else ())
                         if isinstance(v, DeviceArray) and v.stream is not None}
            if producers:
                here = _dlpack_stream(stream_handle(stream))
                for producer in sorted(producers - {here}):
                    backend.wait_for(producer, stream)
            backend.launch(self, prepared, grid, stream)
        except LaunchError:
            raise
        except Exception as e:   # a driver error: say which kernel, with the driver's words
            raise LaunchError(f"launch of `{self.entry}` (grid {grid}, block {self.block}) failed "
                              f"on {backend.name}: {e}") from e

    def _load_backend(self):
        if self._backend is None:
            self._backend = _open_backend(self._backend_name, self.ptx, self.entry)
        return self._backend

    def backend(self):
        """The backend object, loaded on first use (LaunchError when none can load the kernel)."""
        return self._load_backend()


def _dlpack_stream(handle: int | None) -> int:
    """A stream handle as DLPack and CAI name it: the legacy default stream (handle 0) is 1."""
    return 1 if not handle else handle


class _Driver:
    """The few CUDA driver calls the backends share, through ctypes on libcuda (no Python package):
    making one stream wait for another's work so far."""

    _lib = None

    @classmethod
    def lib(cls):
        if cls._lib is None:
            import ctypes
            import ctypes.util
            name = ctypes.util.find_library("cuda") or "libcuda.so.1"
            cls._lib = ctypes.CDLL(name)
        return cls._lib

    @classmethod
    def wait_for(cls, producer: int, consumer: int) -> None:
        """Queue on ``consumer`` a wait for the work queued so far on ``producer`` (handles; 1 and
        2 are the legacy and per-thread default streams, as the driver reads them too)."""
        import ctypes
        lib = cls.lib()
        ev = ctypes.c_void_p()
        for call, args in (("cuEventCreate", (ctypes.byref(ev), 2)),            # CU_EVENT_DISABLE_TIMING
                           ("cuEventRecord", (ev, ctypes.c_void_p(producer))),
                           ("cuStreamWaitEvent", (ctypes.c_void_p(consumer), ev, 0)),
                           ("cuEventDestroy_v2", (ev,))):
            err = getattr(lib, call)(*args)
            if err:
                raise LaunchError(f"{call} failed with CUDA error {err} while ordering the launch after the stream "
                                  f"0x{producer:x} of an argument")


class _Backend:
    """What every backend offers besides ``launch``: its current stream, and waiting on another."""

    def current_stream(self):
        return None

    def wait_for(self, producer: int, stream) -> None:
        _Driver.wait_for(producer, stream_handle(stream) or 0)


def _params(kernel: Kernel, prepared: Prepared, pointers: list) -> list:
    """The launch parameters in order: parameters (device pointers as uint64, scalars as their
    numpy type), then every runtime extent as int32."""
    out = []
    for kind, i in prepared.order:
        out.append(np.uint64(pointers[i]) if kind == "tensor" else _as_param(prepared.scalars[i]))
    out.extend(np.int32(v) for v in prepared.extents.values())
    return out


def _as_param(v):
    """A 16-bit float goes as its bits (the parameter is .b16): pycuda's argument packer has no
    float16 ('e') and no backend knows ml_dtypes' bfloat16, which is not even an np.number."""
    if v.dtype.itemsize == 2 and v.dtype.kind not in "iu":
        return np.asarray(v).view(np.uint16)[()]
    return v


def _host_bytes(host):
    """A host array as flat bytes, sharing its memory (no buffer-format needed: bf16 has none)."""
    return host.reshape(-1).view(np.uint8)


# ---------------------------------------------------------------- backends
def _open_backend(name, ptx, entry):
    names = [name] if name else list(BACKENDS)
    errors = []
    for n in names:
        try:
            return {"pycuda": _PyCuda, "cuda.core": _CudaCore, "cupy": _CuPy}[n](ptx, entry)
        except KeyError:
            raise LaunchError(f"unknown GPU backend `{n}` (one of {', '.join(BACKENDS)})") from None
        except ImportError as e:
            errors.append(f"{n}: not installed ({e})")
        except Exception as e:   # noqa: BLE001 - no device, no driver: try the next backend
            errors.append(f"{n}: {type(e).__name__}: {e}")
    raise LaunchError("no GPU backend could load the kernel: " + "; ".join(errors))


_PUSHED: list = []      # pycuda contexts this module pushed, popped at exit


def _release_pycuda_contexts():
    while _PUSHED:
        ctx = _PUSHED.pop()
        try:
            ctx.pop()
        except Exception:  # noqa: BLE001 - at exit, a context already gone is no matter
            pass
    try:
        from pycuda.tools import clear_context_caches
        clear_context_caches()
    except Exception:  # noqa: BLE001 - pycuda.tools needs pytools; nothing to clear without it
        pass


class _PyCuda(_Backend):
    name = "pycuda"

    def __init__(self, ptx, entry):
        import pycuda.driver as cuda
        cuda.init()
        if cuda.Context.get_current() is None:
            # the device's primary context (shared with cupy and the runtime API), pushed once and
            # popped at exit: pycuda aborts the interpreter when a context it pushed is still on
            # its stack at module cleanup (what pycuda.autoprimaryctx does, without its import)
            ctx = cuda.Device(int(os.environ.get("PHOBOS_GPU_DEVICE", "0"))).retain_primary_context()
            ctx.push()
            _PUSHED.append(ctx)
            if len(_PUSHED) == 1:
                atexit.register(_release_pycuda_contexts)
        self.cuda = cuda
        # pycuda's jit_option has no GENERATE_LINE_INFO (wrap_cudadrv.cpp: MAX_REGISTERS ..
        # FALLBACK_STRATEGY); the driver reads the PTX up to its NUL
        self.module = cuda.module_from_buffer(ptx.encode() + b"\0")
        self.fn = self.module.get_function(entry)

    def launch(self, kernel, prepared, grid, stream):
        cuda = self.cuda
        pointers, copies = [], []
        for (_i, host, ptr, nbytes) in prepared.tensors:
            if host is None:
                pointers.append(ptr)
                continue
            buf = cuda.mem_alloc(max(nbytes, 1))
            if nbytes:
                cuda.memcpy_htod(buf, _host_bytes(host))
            copies.append((buf, host))
            pointers.append(int(buf))
        shared = kernel.dynamic_shared
        if shared > 48 * 1024 and getattr(self, "_opted_in", 0) < shared:   # opt in beyond 48 KB
            self.fn.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
            self._opted_in = shared
        self.fn(*_params(kernel, prepared, pointers), block=(kernel.block, 1, 1), grid=grid, stream=stream,
                shared=shared)
        if copies:
            (stream.synchronize() if stream is not None else cuda.Context.synchronize())
            for buf, host in copies:
                if host.size:
                    cuda.memcpy_dtoh(_host_bytes(host), buf)
                buf.free()


class _CuPy(_Backend):
    name = "cupy"

    def __init__(self, ptx, entry):
        import cupy
        self.cp = cupy
        # RawModule loads a PTX from a file, and memoizes the module by its path (per device,
        # reloading it from the path on another device): one file per distinct PTX, named by its
        # hash, kept until the process ends
        self.fn = cupy.RawModule(path=str(_ptx_file(ptx))).get_function(entry)

    def current_stream(self):
        return self.cp.cuda.get_current_stream()

    def launch(self, kernel, prepared, grid, stream):
        cp = self.cp
        stream = stream if stream is not None else cp.cuda.get_current_stream()
        with stream:                # the copies in, the launch and the copies back: all on `stream`
            pointers, copies = [], []
            for (_i, host, ptr, _n) in prepared.tensors:
                if host is None:
                    pointers.append(ptr)
                    continue
                dev = cp.asarray(host.view(np.uint8) if host.dtype.kind == "V" else host)
                copies.append((dev, host))
                pointers.append(dev.data.ptr)
            args = tuple(_params(kernel, prepared, pointers))
            shared = kernel.dynamic_shared
            if shared > 48 * 1024:
                self.fn.max_dynamic_shared_size_bytes = shared
            self.fn(grid, (kernel.block, 1, 1), args, shared_mem=shared)
            if copies:                  # only numpy arguments wait for the kernel
                stream.synchronize()
                for dev, host in copies:
                    host[...] = cp.asnumpy(dev).view(host.dtype).reshape(host.shape)


_PTX_DIR: list = []


def _ptx_file(ptx: str) -> Path:
    if not _PTX_DIR:
        import shutil
        import tempfile
        _PTX_DIR.append(Path(tempfile.mkdtemp(prefix="phobos-ptx-")))
        atexit.register(shutil.rmtree, _PTX_DIR[0], True)
    path = _PTX_DIR[0] / (hashlib.sha256(ptx.encode()).hexdigest()[:32] + ".ptx")
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_text(ptx)
        os.replace(tmp, path)
    return path


class _CudaCore(_Backend):
    """cuda.core (with cuda.bindings' driver API for the copies of numpy arguments)."""

    name = "cuda.core"

    def __init__(self, ptx, entry):
        try:                       # cuda.core >= 0.4 at the top level, before that in .experimental
            from cuda.core import Device, LaunchConfig, ObjectCode, launch
        except ImportError:
            from cuda.core.experimental import Device, LaunchConfig, ObjectCode, launch
        self.dev = Device()
        self.dev.set_current()
        # bytes: from_ptx reads a str as the path of a PTX file (CUDA_ERROR_FILE_NOT_FOUND on an H200)
        code = ObjectCode.from_ptx(ptx.encode()) if hasattr(ObjectCode, "from_ptx") else ObjectCode(ptx.encode(), "ptx")
        self.kernel = code.get_kernel(entry)
        self.LaunchConfig, self.launch_fn = LaunchConfig, launch
        from cuda.bindings import driver       # the copies of numpy arguments
        self.driver = driver
        # cuda.core 0.1 took launch(kernel, config, *args) with the stream in the config
        self._old_launch = "stream" in getattr(LaunchConfig, "__dataclass_fields__", {})

    def current_stream(self):
        return self.dev.default_stream

    def launch(self, kernel, prepared, grid, stream):
        import ctypes
        if kernel.dynamic_shared > 48 * 1024:
            raise BackendLimit("the cuda.core backend cannot opt in to more than 48 KB of dynamic shared memory; "
                              "use pycuda or cupy")
        stream = stream if stream is not None else self.dev.default_stream
        handle = (stream_handle(stream) or 0) if prepared_has_host(prepared) else 0
        pointers, copies = [], []
        for (_i, host, ptr, nbytes) in prepared.tensors:
            if host is None:
                pointers.append(ptr)
                continue
            dev = _checked(self.driver.cuMemAlloc(max(nbytes, 1)))
            copies.append((dev, host, nbytes))
            if nbytes:
                _checked(self.driver.cuMemcpyHtoDAsync(dev, host.ctypes.data, nbytes, handle))
            pointers.append(int(dev))
        args = [ctypes.c_uint64(int(p)) if isinstance(p, np.uint64) else p for p in _params(kernel, prepared, pointers)]
        if self._old_launch:
            config = self.LaunchConfig(grid=grid, block=(kernel.block, 1, 1), stream=stream,
                                       shmem_size=kernel.dynamic_shared)
            self.launch_fn(self.kernel, config, *args)
        else:
            config = self.LaunchConfig(grid=grid, block=(kernel.block, 1, 1), shmem_size=kernel.dynamic_shared)
            self.launch_fn(stream, config, self.kernel, *args)
        if copies:                          # only numpy arguments wait for the kernel
            for dev, host, nbytes in copies:
                if nbytes:
                    _checked(self.driver.cuMemcpyDtoHAsync(host.ctypes.data, dev, nbytes, handle))
            stream.sync()
            for dev, _host, _n in copies:
                _checked(self.driver.cuMemFree(dev))


def prepared_has_host(prepared: Prepared) -> bool:
    """Does a launch copy numpy arguments (which the call then waits for)?"""
    return any(host is not None for (_i, host, _p, _n) in prepared.tensors)


def _checked(result):
    """cuda.bindings' (error, value...) tuple: the value, or LaunchError naming the error."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err):
        raise LaunchError(f"CUDA driver error {err}")
    return rest[0] if len(rest) == 1 else (tuple(rest) or None)


__all__ = ["Kernel", "LaunchError", "BadArguments", "BackendLimit", "Prepared", "numpy_dtype", "grid_of", "BACKENDS",
           "stream_handle"]
