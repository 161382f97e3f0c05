"""Launch a built kernel from its PTX and manifest (DESIGN.md) on the GPU.

Self-contained: this module imports only the standard library and numpy (plus, lazily, the GPU
backend), so it runs on a machine without the analyzer, llvmlite, lark, networkx or z3, and it
can be loaded straight from its file. Backends, in order of preference: **pycuda**, then cupy,
then cuda.core (``PHOBOS_GPU_BACKEND`` forces one). cuda.core comes last because it takes device
arrays only: a machine with cupy and cuda-python but no pycuda still runs numpy arguments.

Arguments follow the manifest's parameters, positionally or by name: a tensor is a numpy array
(copied to the device and back after the launch) or any device array exposing
``__cuda_array_interface__`` (used in place); a scalar is a Python or numpy number. Before
launching, every tensor is checked against the manifest (dtype, rank, static extents, one value
per runtime extent, C-contiguity, 16-byte alignment of device pointers) and every ``@aligned``
promise is checked on the extents; the runtime extents are passed after the parameters as i32
(LANGUAGE §10). The block size is the manifest's; the caller gives the grid.

    kernel = Kernel.load("out", "lanes_matvec")
    kernel(W, x, y, grid=(N // 4,))
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

try:
    from ..language.types import NUMPY_NAMES
except ImportError:         # loaded as a file of its own (tests/gpu on the GPU machine): the table beside it
    def _language_types():
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "phobos_language_types", Path(__file__).resolve().parent.parent / "language" / "types.py")
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)   # (dataclasses look it up)
        spec.loader.exec_module(module)
        return module
    NUMPY_NAMES = _language_types().NUMPY_NAMES

MANIFEST_VERSION = 1
BACKENDS = ("pycuda", "cupy", "cuda.core")
_I32_MAX = 2**31 - 1


class LaunchError(Exception):
    """A launch the runtime refuses (bad arguments) or the driver failed (a clear message)."""


class BackendLimit(LaunchError):
    """A launch the chosen backend cannot make, though another could (the cuda.core backend:
    numpy arguments, more than 48 KB of dynamic shared memory)."""


def numpy_dtype(name: str) -> np.dtype:
    """The host dtype of an element type named in a manifest (language/types.NUMPY_NAMES)."""
    numpy = NUMPY_NAMES.get(name)
    if numpy is None:
        raise LaunchError(f"unknown dtype `{name}` in the manifest")
    if numpy == "bfloat16":
        try:
            import ml_dtypes
        except ImportError as e:  # pragma: no cover - ml_dtypes is a dependency
            raise LaunchError("bf16 tensors need the ml_dtypes package (ml_dtypes.bfloat16)") from e
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(numpy)


@dataclass
class Prepared:
    """Validated arguments: what each parameter is, and the extents' values."""

    tensors: list            # (param index, host numpy array or None, device pointer or None, nbytes)
    scalars: dict            # param index -> numpy scalar
    extents: dict            # name -> int, in manifest order
    order: list              # per parameter: ("tensor", i) or ("scalar", i)


class Kernel:
    def __init__(self, ptx: str, manifest: dict, backend: str | None = None):
        if manifest.get("version") != MANIFEST_VERSION:
            raise LaunchError(f"manifest version {manifest.get('version')} is not {MANIFEST_VERSION}")
        self.ptx = ptx
        self.manifest = manifest
        self.entry = manifest["entry"]
        self.block = int(manifest["block"])
        # tiles beyond 48 KB live in dynamic shared memory, sized at launch (shared.py)
        self.dynamic_shared = int(manifest.get("dynamic_shared_bytes") or 0)
        self._backend_name = backend or os.environ.get("PHOBOS_GPU_BACKEND") or None
        self._backend = None

    @classmethod
    def load(cls, directory, entry: str, backend: str | None = None) -> "Kernel":
        d = Path(directory)
        return cls((d / f"{entry}.ptx").read_text(), json.loads((d / f"{entry}.json").read_text()), backend)

    # ---------------------------------------------------------------- validation (no GPU)
    def prepare(self, *args, **kwargs) -> Prepared:
        params = self.manifest["params"]
        values = list(args)
        if len(values) > len(params):
            raise LaunchError(f"`{self.entry}` takes {len(params)} arguments, not {len(values)}")
        for p in params[len(values):]:
            if p["name"] not in kwargs:
                raise LaunchError(f"`{self.entry}`: missing argument `{p['name']}`")
            values.append(kwargs.pop(p["name"]))
        if kwargs:
            key = next(iter(kwargs))
            if any(p["name"] == key for p in params):
                raise LaunchError(f"`{key}` is given twice")
            raise LaunchError(f"`{self.entry}` has no parameter `{key}` (its parameters: "
                              f"{', '.join(p['name'] for p in params)})")
        extents: dict[str, int] = {}
        where: dict[str, str] = {}
        tensors, scalars, order = [], {}, []
        for i, (p, v) in enumerate(zip(params, values)):
            if p["kind"] == "scalar":
                scalars[i] = self._scalar(p, v)
                order.append(("scalar", i))
                continue
            tensors.append(self._tensor(i, p, v, extents, where))
            order.append(("tensor", len(tensors) - 1))
        for name in self.manifest["extents"]:
            if name not in extents:
                raise LaunchError(f"extent `{name}` is not given by any tensor")
            if not 0 <= extents[name] <= _I32_MAX:
                raise LaunchError(f"extent `{name}` = {extents[name]} does not fit in i32")
        for name, n in self.manifest.get("aligned", {}).items():
            if name in extents and extents[name] % n:
                raise LaunchError(f"`@aligned({name} = {n})` is broken: {name} = {extents[name]} "
                                  f"(from {where[name]}) is not a multiple of {n}")
        _check_no_alias(params, tensors, values)
        ordered = {name: extents[name] for name in self.manifest["extents"]}
        return Prepared(tensors, scalars, ordered, order)

    def _scalar(self, p, v):
        """The value as the parameter's numpy type; refuses what would change it (the simulator's
        rules: a bool takes only a bool, a number never a bool, an integer never a fraction)."""
        name, dtype = p["name"], p["dtype"]
        dt = numpy_dtype(dtype)
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v[()]
        if isinstance(v, np.ndarray) or hasattr(v, "__cuda_array_interface__"):
            raise LaunchError(f"`{name}` is a scalar {dtype}, not an array")
        if dtype == "bool":
            if not isinstance(v, (bool, np.bool_)):
                raise LaunchError(f"`{name}` is a bool, not {type(v).__name__} {v!r}")
            return np.uint8(bool(v))             # a bool parameter is a byte (.u8)
        ml_float = isinstance(v, np.generic) and type(v).__module__.split(".")[0] == "ml_dtypes" \
            and "float" in np.dtype(type(v)).name                # ml_dtypes.bfloat16(2.0): not an np.floating
        if isinstance(v, (bool, np.bool_)) or not (isinstance(v, (int, float, np.integer, np.floating)) or ml_float):
            raise LaunchError(f"`{name}` is a scalar {dtype}, not {type(v).__name__} {v!r}")
        if dt.kind in "iu":
            if isinstance(v, (float, np.floating)) or ml_float:
                if not float(v).is_integer():
                    raise LaunchError(f"`{name}` is a scalar {dtype}, not the fraction {v!r}")
                v = int(v)
            info = np.iinfo(dt)
            if not info.min <= int(v) <= info.max:
                raise LaunchError(f"`{name}` = {v} does not fit in {dtype}")
            return dt.type(int(v))
        with np.errstate(over="ignore"):
            out = np.array(float(v)).astype(dt)[()]
        if np.isinf(float(out)) and not np.isinf(float(v)):
            raise LaunchError(f"`{name}` = {v} does not fit in {dtype}")
        return out

    def _tensor(self, i, p, v, extents, where):
        name = p["name"]
        want = numpy_dtype(p["dtype"])
        cai = getattr(v, "__cuda_array_interface__", None)
        if cai is not None:
            shape = tuple(int(x) for x in cai["shape"])
            dtype = np.dtype(cai["typestr"]) if p["dtype"] != "bf16" else _bf16_of(cai, want)
            strides = cai.get("strides")
            ptr = int(cai["data"][0])
            if strides is not None and tuple(strides) != _c_strides(shape, dtype.itemsize):
                raise LaunchError(f"`{name}` is not C-contiguous (strides {tuple(strides)})")
            if ptr % 16:
                raise LaunchError(f"`{name}` is not 16-byte aligned (device address 0x{ptr:x})")
            host = None
        elif isinstance(v, np.ndarray):
            shape, dtype, ptr, host = v.shape, v.dtype, None, v
            if not v.flags.c_contiguous:
                raise LaunchError(f"`{name}` is not C-contiguous: pass np.ascontiguousarray({name})")
            if not v.flags.writeable:      # every tensor is copied back after the launch
                raise LaunchError(f"`{name}` is read-only: the kernel may write it, so pass a writeable array")
        else:
            raise LaunchError(f"`{name}` is a tensor: pass a numpy array or a device array "
                              f"(__cuda_array_interface__), not {type(v).__name__}")
        if dtype != want:
            raise LaunchError(f"`{name}` holds {p['dtype']} ({want}), not {dtype}")
        dims = p["shape"]
        if len(shape) != len(dims):
            raise LaunchError(f"`{name}` has rank {len(dims)} {_shape(dims)}, not {len(shape)} {list(shape)}")
        for axis, (d, actual) in enumerate(zip(dims, shape)):
            if isinstance(d, int):
                if d != actual:
                    raise LaunchError(f"`{name}` has extent {d} on axis {axis}, not {actual}")
            elif d in extents and extents[d] != actual:
                raise LaunchError(f"extent `{d}` is {extents[d]} (from {where[d]}) but {actual} in `{name}` "
                                  f"(axis {axis})")
            else:
                extents[d] = int(actual)
                where.setdefault(d, f"`{name}` axis {axis}")
        nbytes = int(np.prod(shape, dtype=np.int64)) * want.itemsize
        return (i, host, ptr, nbytes)

    # ---------------------------------------------------------------- launching
    def __call__(self, *args, grid, stream=None, **kwargs) -> None:
        grid = _grid(grid)
        prepared = self.prepare(*args, **kwargs)
        backend = self._load_backend()
        try:
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


def _check_no_alias(params, tensors, values) -> None:
    """Distinct tensor parameters do not alias (LANGUAGE §9.5): the PTX marks them noalias."""
    spans = []
    for (i, host, ptr, nbytes) in tensors:
        if not nbytes:
            continue
        if host is not None:
            lo = host.__array_interface__["data"][0]
            spans.append((params[i]["name"], "host", lo, lo + nbytes))
        else:
            spans.append((params[i]["name"], "device", ptr, ptr + nbytes))
    for a, (n1, where1, lo1, hi1) in enumerate(spans):
        for n2, where2, lo2, hi2 in spans[a + 1:]:
            if where1 == where2 and lo1 < hi2 and lo2 < hi1:
                raise LaunchError(f"`{n1}` and `{n2}` share memory: distinct tensor parameters must not alias "
                                  f"(LANGUAGE §9.5); pass a copy of one of them")


def _bf16_of(cai, want):
    # __cuda_array_interface__ has no bfloat16 typestr; '<V2' (or '<u2' with a descr) carries it
    ts = cai["typestr"]
    return want if ts in ("<V2", "|V2", "<u2") else np.dtype(ts)


def _c_strides(shape, itemsize):
    out, acc = [], itemsize
    for d in reversed(shape):
        out.insert(0, acc)
        acc *= d
    return tuple(out)


def _shape(dims):
    return "[" + ", ".join(str(d) for d in dims) + "]"


GRID_LIMITS = (2**31 - 1, 65535, 65535)        # CUDA's largest grid, x, y, z


def _is_integer(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _grid(grid):
    if _is_integer(grid):
        grid = (grid,)
    # integers only: a string is not read digit by digit, a float is not truncated
    if isinstance(grid, (str, bytes)) or not isinstance(grid, (tuple, list, np.ndarray)) \
            or not all(_is_integer(g) for g in grid):
        raise LaunchError(f"the grid is 1 to 3 positive extents, not {grid!r}")
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 1 for g in grid):
        raise LaunchError(f"the grid is 1 to 3 positive extents, not {grid}")
    grid = grid + (1,) * (3 - len(grid))
    if any(g > lim for g, lim in zip(grid, GRID_LIMITS)):
        raise LaunchError(f"the grid {grid} is beyond CUDA's limits (x at most 2**31 - 1, y and z at most 65535)")
    return grid


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


class _PyCuda:
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


class _CuPy:
    name = "cupy"

    def __init__(self, ptx, entry):
        import cupy
        self.cp = cupy
        # RawModule loads a PTX from a file, and memoizes the module by its path (per device,
        # reloading it from the path on another device): one file per distinct PTX, named by its
        # hash, kept until the process ends
        self.fn = cupy.RawModule(path=str(_ptx_file(ptx))).get_function(entry)

    def launch(self, kernel, prepared, grid, stream):
        cp = self.cp
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
        if stream is not None:
            with stream:
                self.fn(grid, (kernel.block, 1, 1), args, shared_mem=shared)
        else:
            self.fn(grid, (kernel.block, 1, 1), args, shared_mem=shared)
        cp.cuda.runtime.deviceSynchronize()
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


class _CudaCore:
    """cuda.core: device arrays only (numpy arguments need pycuda or cupy for the copies)."""

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
        # cuda.core 0.1 took launch(kernel, config, *args) with the stream in the config
        self._old_launch = "stream" in getattr(LaunchConfig, "__dataclass_fields__", {})

    def launch(self, kernel, prepared, grid, stream):
        import ctypes
        if any(host is not None for (_i, host, _p, _n) in prepared.tensors):
            raise BackendLimit("the cuda.core backend takes device arrays only; for numpy arguments install pycuda "
                              "or cupy, or pass cupy arrays")
        stream = stream or self.dev.create_stream()
        pointers = [ptr for (_i, _h, ptr, _n) in prepared.tensors]
        args = [ctypes.c_uint64(int(p)) if isinstance(p, np.uint64) else p for p in _params(kernel, prepared, pointers)]
        if kernel.dynamic_shared > 48 * 1024:
            raise BackendLimit("the cuda.core backend cannot opt in to more than 48 KB of dynamic shared memory; "
                              "use pycuda or cupy")
        if self._old_launch:
            config = self.LaunchConfig(grid=grid, block=(kernel.block, 1, 1), stream=stream,
                                       shmem_size=kernel.dynamic_shared)
            self.launch_fn(self.kernel, config, *args)
        else:
            config = self.LaunchConfig(grid=grid, block=(kernel.block, 1, 1), shmem_size=kernel.dynamic_shared)
            self.launch_fn(stream, config, self.kernel, *args)
        stream.sync()


__all__ = ["Kernel", "LaunchError", "BackendLimit", "Prepared", "numpy_dtype", "BACKENDS"]
