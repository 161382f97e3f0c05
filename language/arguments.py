"""The one argument binder: the values a caller passes, matched to a kernel's parameters and
checked, for the simulator and the GPU runtime alike.

A kernel's parameters are described as the launch manifest describes them (DESIGN.md): a name,
an element or scalar type name, and for a tensor its dims (an int, or the name of a runtime
extent). ``bind`` takes the arguments positionally or by name and checks each one: a tensor is a
C-contiguous, writeable numpy array of the parameter's dtype (or, where the caller launches on
the GPU, a device array exposing ``__cuda_array_interface__``) whose shape matches the static
dims and gives every runtime extent one value that fits in i32; a scalar is a Python or numpy
number (a bool for a bool) that the parameter's type holds without change; no two tensors share
memory (LANGUAGE §9.5). It returns the values, in the parameters' types, and the extents.

Only numpy (and ml_dtypes for bf16) is needed: the GPU runtime imports this without the
analyzer.
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from .records import record
from . import dlpack
from .types import NUMPY_NAMES

I32_MAX = 2**31 - 1
INT_TYPES = ("i8", "u8", "i32", "i64")


class ArgumentError(ValueError):
    """Arguments that do not fit the kernel: a missing one, a wrong dtype, shape or extent."""


@record(frozen=True)
class Param:
    """One kernel parameter as the manifest lists it."""

    name: str
    dtype: str                          # element type of a tensor, or the scalar's type
    shape: tuple | None = None          # a tensor's dims (int or extent name); None for a scalar

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None

    def describe(self) -> str:
        if self.shape is None:
            return f"{'an' if self.dtype[0] in 'if' else 'a'} {self.dtype}"
        return f"a tensor<{self.dtype}>[{', '.join(str(d) for d in self.shape)}]"


def manifest_params(manifest: dict) -> list[Param]:
    return [Param(p["name"], p["dtype"], tuple(p["shape"]) if p["kind"] == "tensor" else None)
            for p in manifest["params"]]


@record(frozen=True)
class DeviceArray:
    """A device array argument, from its ``__cuda_array_interface__`` or its ``__dlpack__``."""

    array: object
    pointer: int
    nbytes: int
    readonly: bool = False          # the producer marked it read-only (CAI's flag, DLPack 1.0's)
    stream: int | None = None       # CAI: the stream the producer's pending work is on (1: legacy default)
    keep: object = None             # DLPack: the capsule, alive until the launch has used the pointer


@record
class Bound:
    """Arguments matched to a kernel's parameters."""

    values: dict = field(default_factory=dict)      # name -> numpy array, DeviceArray or numpy scalar
    extents: dict = field(default_factory=dict)     # runtime extent -> value, in the kernel's order
    where: dict = field(default_factory=dict)       # extent -> which argument's axis gave it


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype of a Phobos element type (``ml_dtypes.bfloat16`` for bf16)."""
    numpy = NUMPY_NAMES[name]
    if numpy == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(numpy)


def bind(entry: str, params: list[Param], extents: list[str], args: tuple, kwargs: dict, *,
         device_arrays: bool = False, error: type[Exception] = ArgumentError, stream: int | None = None) -> Bound:
    """Match ``args`` and ``kwargs`` to ``params`` and check every value (module docstring).
    ``device_arrays``: accept arrays on the GPU too; ``stream``: the handle of the CUDA stream the
    launch will use (None: the legacy default stream), which DLPack producers order their pending
    work before. Raises ``error`` naming the parameter."""
    if len(args) > len(params):
        raise error(f"`{entry}` takes {len(params)} arguments, not {len(args)}")
    values = dict(zip((p.name for p in params), args))
    names = {p.name for p in params}
    for key, v in kwargs.items():
        if key not in names:
            raise error(f"`{entry}` has no parameter `{key}` (its parameters: {', '.join(p.name for p in params)})")
        if key in values:
            raise error(f"`{key}` is given twice")
        values[key] = v
    missing = [p.name for p in params if p.name not in values]
    if missing:
        raise error(f"`{entry}` is missing argument{'s' if len(missing) > 1 else ''} "
                    f"{', '.join(f'`{m}`' for m in missing)}")
    bound = Bound()
    for p in params:
        v = values[p.name]
        if p.is_tensor:
            bound.values[p.name] = _tensor(p, v, bound, device_arrays, error, stream)
        else:
            bound.values[p.name] = scalar_value(p.name, p.dtype, v, error)
    _check_no_alias([(p.name, bound.values[p.name]) for p in params if p.is_tensor], error)
    ordered = {}
    for name in extents:
        if name not in bound.extents:
            raise error(f"extent `{name}` is given by no tensor")
        if bound.extents[name] > I32_MAX:
            raise error(f"extent `{name}` = {bound.extents[name]} (from {bound.where[name]}) does not fit in i32")
        ordered[name] = bound.extents[name]
    bound.extents = ordered
    return bound


def _tensor(p: Param, v, bound: Bound, device_arrays: bool, error, stream: int | None = None):
    want = numpy_dtype(p.dtype)
    cai = getattr(v, "__cuda_array_interface__", None)
    if cai is None and not isinstance(v, np.ndarray) and hasattr(v, "__dlpack__"):
        value, shape, dtype = _dlpack_tensor(p, v, want, device_arrays, error, stream)
        return _check_shape(p, shape, dtype, want, value, v, bound, error)
    # an array on the GPU (on the simulator, a numpy array that also exposes one is host memory)
    if cai is not None and (device_arrays or not isinstance(v, np.ndarray)):
        if not device_arrays:
            raise error(f"`{p.name}` is a device array ({_type_name(v)}): the simulator takes numpy arrays; "
                        "run on the GPU (device=\"gpu\") to pass device arrays")
        shape = tuple(int(x) for x in cai["shape"])
        typestr = cai["typestr"]
        dtype = want if p.dtype == "bf16" and typestr in ("<V2", "|V2", "<u2") else np.dtype(typestr)
        strides = cai.get("strides")
        data = cai["data"]
        pointer = int(data[0])
        if strides is not None and tuple(strides) != _c_strides(shape, dtype.itemsize):
            raise error(f"`{p.name}` is not C-contiguous (strides {tuple(strides)})")
        if pointer % 16:
            raise error(f"`{p.name}` is not 16-byte aligned (device address 0x{pointer:x})")
        producer = cai.get("stream") if int(cai.get("version", 0)) >= 3 else None
        if producer is not None and (isinstance(producer, bool) or not isinstance(producer, int) or producer == 0):
            raise error(f"`{p.name}`: its __cuda_array_interface__ names the stream {producer!r}, which is no "
                        "stream (an integer handle, 1 or 2 for the default streams; 0 is not allowed)")
        value = DeviceArray(v, pointer, int(np.prod(shape, dtype=np.int64)) * want.itemsize,
                            readonly=bool(len(data) > 1 and data[1]), stream=producer)
    elif isinstance(v, np.ndarray):
        shape, dtype, value = v.shape, v.dtype, v
    else:
        how = " or a device array (__cuda_array_interface__ or __dlpack__)" if device_arrays else ""
        raise error(f"`{p.name}` is {p.describe()}: pass a numpy array{how}, not {_type_name(v)}")
    return _check_shape(p, shape, dtype, want, value, v, bound, error)


def _dlpack_tensor(p: Param, v, want, device_arrays: bool, error, stream: int | None):
    """A DLPack producer's tensor as (DeviceArray, shape, dtype): on the GPU only."""
    try:
        device, _ = dlpack.device_of(v)
        if device not in dlpack.GPU_DEVICES:
            where = dlpack.DEVICE_NAMES.get(device, f"device type {device}")
            hint = (f"pass a numpy array (numpy.from_dlpack({p.name}))" if device in (dlpack.KDL_CPU, dlpack.KDL_CUDA_HOST)
                    else "pass a numpy array or a CUDA array")
            raise error(f"`{p.name}` is a DLPack array ({_type_name(v)}) in {where} memory, not on the GPU: {hint}")
        if not device_arrays:
            raise error(f"`{p.name}` is a device array ({_type_name(v)}): the simulator takes numpy arrays; "
                        "run on the GPU (device=\"gpu\") to pass device arrays")
        t = dlpack.export(v, 1 if stream is None else stream)
    except dlpack.DLPackError as e:
        raise error(f"`{p.name}` ({_type_name(v)}): {e}") from None
    if t.dtype == "bf2":
        dtype = numpy_dtype("bf16")
    else:
        dtype = np.dtype(t.dtype if t.dtype != "b1" else "?")
    if t.strides is not None:
        c = _c_strides(t.shape, 1)
        if any(n > 1 and s != w for n, s, w in zip(t.shape, t.strides, c)):
            raise error(f"`{p.name}` is not C-contiguous (strides {t.strides} in elements): pass a contiguous copy")
    if t.pointer % 16:
        raise error(f"`{p.name}` is not 16-byte aligned (device address 0x{t.pointer:x})")
    value = DeviceArray(v, t.pointer, int(np.prod(t.shape, dtype=np.int64)) * want.itemsize, readonly=t.readonly,
                        keep=t.capsule)
    return value, t.shape, dtype


def _check_shape(p: Param, shape, dtype, want, value, v, bound: Bound, error):
    if dtype != want:
        raise error(f"`{p.name}` is {p.describe()}, so its array must hold {want}, not {dtype}")
    if len(shape) != len(p.shape):
        raise error(f"`{p.name}` is {p.describe()} of rank {len(p.shape)}, but the array has shape {list(shape)}")
    if isinstance(value, np.ndarray):
        if not v.flags.c_contiguous:
            raise error(f"`{p.name}` is not C-contiguous: pass np.ascontiguousarray({p.name})")
        if not v.flags.writeable:
            raise error(f"`{p.name}` is read-only: the kernel may write it, so pass a writeable array")
    for axis, (d, n) in enumerate(zip(p.shape, shape)):
        if isinstance(d, int):
            if d != n:
                raise error(f"`{p.name}` is {p.describe()}: axis {axis} must have extent {d}, not {n}")
        elif d in bound.extents and bound.extents[d] != n:
            raise error(f"extent `{d}` is {bound.extents[d]} (from {bound.where[d]}) but {n} in "
                        f"`{p.name}` (axis {axis})")
        else:
            bound.extents[d] = int(n)
            bound.where.setdefault(d, f"`{p.name}` axis {axis}")
    return value


def _type_name(v) -> str:
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__.split('.')[0]}.{t.__name__}"


def _c_strides(shape, itemsize) -> tuple:
    out, acc = [], itemsize
    for d in reversed(shape):
        out.insert(0, acc)
        acc *= d
    return tuple(out)


def _check_no_alias(tensors: list, error) -> None:
    """Distinct tensor parameters do not alias (LANGUAGE §9.5; the GPU build marks them noalias):
    two arrays that share memory would give the simulator an answer the GPU need not give. The
    arrays are C-contiguous, so each is one byte range: in host memory or on the device."""
    spans = []
    for name, v in tensors:
        if isinstance(v, DeviceArray):
            if v.nbytes:
                spans.append((name, "device", v.pointer, v.pointer + v.nbytes))
        elif v.size:
            lo = v.__array_interface__["data"][0]
            spans.append((name, "host", lo, lo + v.nbytes))
    for i, (n1, space1, lo1, hi1) in enumerate(spans):
        for n2, space2, lo2, hi2 in spans[i + 1:]:
            if space1 == space2 and lo1 < hi2 and lo2 < hi1:
                raise error(f"`{n1}` and `{n2}` share memory: distinct tensor parameters must not alias "
                            f"(LANGUAGE §9.5); pass a copy of one of them")


def _ml_float(v) -> bool:
    """An ml_dtypes float scalar (``ml_dtypes.bfloat16(2.0)``): not an np.floating, but a number."""
    return isinstance(v, np.generic) and type(v).__module__.split(".")[0] == "ml_dtypes" \
        and "float" in np.dtype(type(v)).name


def scalar_value(name: str, dtype: str, v, error: type[Exception] = ArgumentError):
    """A scalar argument as a numpy value of ``dtype``; refuses what would change it: a bool
    takes only a bool, a number never a bool, an integer type never a fraction, and the value
    must fit the type (a float type takes any finite value its range holds, rounded)."""
    described = f"{'an' if dtype[0] in 'if' else 'a'} {dtype}"
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, np.ndarray) or hasattr(v, "__cuda_array_interface__"):
        raise error(f"`{name}` is {described}, not an array")
    if dtype == "bool":
        if not isinstance(v, (bool, np.bool_)):
            raise error(f"`{name}` is a bool, not {type(v).__name__} {v!r}")
        return np.bool_(v)
    if isinstance(v, (bool, np.bool_)) or not (isinstance(v, (int, float, np.integer, np.floating)) or _ml_float(v)):
        raise error(f"`{name}` is {described}, not {type(v).__name__} {v!r}")
    dt = numpy_dtype(dtype)
    if dtype in INT_TYPES:
        if isinstance(v, (float, np.floating)) or _ml_float(v):
            if not float(v).is_integer():
                raise error(f"`{name}` is {described}, not the fraction {v!r}")
            v = int(v)
        info = np.iinfo(dt)
        if not info.min <= int(v) <= info.max:
            raise error(f"`{name}` = {_shown_number(v)} does not fit in {dtype}")
        return dt.type(int(v))
    try:
        x = float(v)
    except OverflowError:               # an int beyond any double
        raise error(f"`{name}` = {_shown_number(v)} does not fit in {dtype}") from None
    with np.errstate(over="ignore"):
        out = np.asarray(x).astype(dt)[()]
    if np.isinf(float(out)) and not np.isinf(x):
        raise error(f"`{name}` = {_shown_number(v)} does not fit in {dtype}")
    return out


def _shown_number(v) -> str:
    """A scalar as an error message quotes it: a huge integer (which str() may refuse) shortened."""
    if _is_integer(v) and not -10**40 < int(v) < 10**40:
        v = int(v)
        return f"{'a negative' if v < 0 else 'an'} integer of {v.bit_length():,} bits"
    return str(v)


def _is_integer(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def normalize_grid(grid, limits: tuple = (I32_MAX, I32_MAX, I32_MAX),
                   beyond: str = "too large: a grid extent must fit in i32",
                   error: type[Exception] = ArgumentError) -> tuple[int, int, int]:
    """A grid of 1 to 3 positive integers, padded to 3; each at most its ``limits`` entry (else
    the error says the grid is ``beyond``)."""
    if _is_integer(grid):
        grid = (int(grid),)
    # integers only: a string is not read digit by digit, a float is not truncated
    if isinstance(grid, (str, bytes)) or not isinstance(grid, (tuple, list, np.ndarray)) \
            or not all(_is_integer(g) for g in grid):
        raise error(f"the grid is 1 to 3 positive integers, not {grid!r}")
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 1 for g in grid):
        raise error(f"the grid is 1 to 3 positive integers, not {grid}")
    grid = grid + (1,) * (3 - len(grid))
    if any(g > lim for g, lim in zip(grid, limits)):
        raise error(f"the grid {grid} is {beyond}")
    return grid


def broken_promises(aligned: dict[str, int], bound: Bound) -> list[tuple[str, int, int, str]]:
    """The ``@aligned(NAME = n)`` promises the arguments break: (name, n, value, where from)."""
    return [(name, n, bound.extents[name], bound.where.get(name, "the arguments"))
            for name, n in aligned.items() if name in bound.extents and bound.extents[name] % n]
