"""Scalar values as numpy arrays: the dtype of every Phobos type, the conversions of LANGUAGE §3
and the arithmetic of §6, with the results the GPU gives rather than numpy's defaults.

A per-thread scalar is a numpy array with one entry per simulated thread, or a 0-d numpy value
when it is the same in every thread (a literal, a `ctx` count, a uniform loop bound). Arithmetic
is carried out in the type LANGUAGE §3 says (`f16`/`bf16` in `f32`, `i8`/`u8` promoted to `i32`)
and the result is rounded to the expression's type, so f32 stays f32 and integers wrap as two's
complement. Where C or numpy would be undefined or different from PTX (float-to-int conversion out
of range, shifts by the width or more, truncating division), the PTX result is spelled out here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..language.arguments import numpy_dtype
from ..language.types import BOOL, BYTES, F32, INT_RANGES, NUMPY_NAMES, Scalar, arith_join, promote_int, settle

class _Dtypes(Mapping):
    """Phobos scalar name -> numpy dtype, each made on first use: bf16's comes from ml_dtypes,
    whose import costs more than a small simulation, so a kernel without bf16 never pays it."""

    def __init__(self):
        self._made: dict[str, np.dtype] = {}

    def __getitem__(self, name: str) -> np.dtype:
        dt = self._made.get(name)
        if dt is None:
            if name not in NUMPY_NAMES:
                raise KeyError(name)
            dt = self._made[name] = numpy_dtype(name)
        return dt

    def __iter__(self):
        return iter(NUMPY_NAMES)

    def __len__(self) -> int:
        return len(NUMPY_NAMES)


NUMPY_DTYPES = _Dtypes()
INT_BITS = {name: 8 * BYTES[name] for name in INT_RANGES}
_UNSIGNED_VIEW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def dtype_of(t: Scalar) -> np.dtype:
    return NUMPY_DTYPES[settle(t).name]


def compute_type(t: Scalar) -> Scalar:
    """The type arithmetic on ``t`` is carried out in (LANGUAGE §3)."""
    t = settle(t)
    if t.name in ("f16", "bf16"):
        return F32
    return promote_int(t)


def join(a: Scalar, b: Scalar) -> Scalar:
    """The type two operands combine in, literals settled."""
    j = arith_join(a, b)
    if j is None:
        return settle(a)
    return settle(j)


def is_float(t: Scalar) -> bool:
    return settle(t).name in ("f16", "bf16", "f32", "f64")


def cast(x, t: Scalar):
    """Convert ``x`` to type ``t`` as `T(x)` does: float to float rounds to nearest even,
    integer to float converts, float to integer truncates toward zero (saturating, NaN to 0, as
    PTX's cvt.rzi does), integer to integer wraps, anything to bool compares with zero."""
    t = settle(t)
    want = NUMPY_DTYPES[t.name]
    x = np.asarray(x)
    if x.dtype == want:
        return x
    if t == BOOL:
        return x != 0
    if t.name in INT_BITS and _is_float_dtype(x.dtype):
        return _float_to_int(x, t)
    if _is_bf16(x.dtype) and want.kind == "f" and want.itemsize < 4:
        x = x.astype(np.float32)       # bf16 -> f16 goes through f32 (exact), then rounds once
    if t.name == "bf16" and x.dtype in (np.float64, np.int32, np.int64):
        return _to_bf16(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(want)          # a float too large for the narrower type becomes inf


def _to_bf16(x: np.ndarray) -> np.ndarray:
    """f64, i32 or i64 to bf16 rounded once to nearest even, as the GPU's cvt.rn.bf16.f64 (and
    LLVM's expansion of it before sm_90) does. ml_dtypes goes through f32, rounding twice: 1 + 2^-8
    + 2^-30 became 1.0, not 1 + 2^-7. Rounding to f32 *to odd* first keeps the single rounding
    (f32 has more than two bits beyond bf16's)."""
    with np.errstate(all="ignore"):
        if x.dtype == np.int64:
            d = x.astype(np.float64)                  # exact up to 2^53; beyond, round it to odd too
            big = np.abs(d) >= 2.0 ** 63
            back = np.where(big, 0, d).astype(np.int64)
            sticky = big | (back != x)
            d = np.where(sticky & ~big & (np.abs(back) > np.abs(x)), np.nextafter(d, 0.0), d)
            d = np.where(sticky & ~big, (d.view(np.int64) | 1).view(np.float64), d)
        else:
            d = x.astype(np.float64)
        f = d.astype(np.float32)
        away = np.abs(f.astype(np.float64)) > np.abs(d)
        f = np.where(away, np.nextafter(f, np.float32(0.0)), f).astype(np.float32)
        inexact = (f.astype(np.float64) != d) & np.isfinite(f)
        f = np.where(inexact, (f.view(np.int32) | 1).view(np.float32), f)
        return f.astype(NUMPY_DTYPES["bf16"])


def _is_float_dtype(dt: np.dtype) -> bool:
    return dt.kind == "f" or _is_bf16(dt)


def _is_bf16(dt: np.dtype) -> bool:
    """Is ``dt`` ml_dtypes' bfloat16 (asked without importing ml_dtypes)?"""
    return dt.kind == "V" and dt.name == "bfloat16"


def _float_to_int(x: np.ndarray, t: Scalar) -> np.ndarray:
    want = NUMPY_DTYPES[t.name]
    x = x.astype(np.float64) if x.dtype != np.float64 else x
    with np.errstate(invalid="ignore"):
        tr = np.trunc(x)
        info = np.iinfo(want)
        lo, hi = float(info.min), float(info.max) + 1.0       # hi is exact: a power of two
        inside = (tr >= lo) & (tr < hi)
        out = np.where(inside, tr, 0.0).astype(want)
        out = np.where(tr >= hi, info.max, out)
        out = np.where(tr < lo, info.min, out)
    return out.astype(want, copy=False)


def literal(value, t: Scalar):
    t = settle(t)
    if t == BOOL:
        return np.bool_(bool(value))
    with np.errstate(over="ignore"):
        return np.asarray(value).astype(NUMPY_DTYPES[t.name])[()]


def zero(t: Scalar):
    return literal(0, t)


# ---------------------------------------------------------------- arithmetic


def add_reduce(x, axis, dtype, keepdims: bool = False):
    """A sum along ``axis``. Floats start from -0.0, the identity of IEEE addition, so that
    values that are all -0.0 sum to -0.0 (numpy starts from 0.0), as the GPU's folds do."""
    x = np.asarray(x)
    if np.dtype(dtype or x.dtype).kind == "f":
        return np.sum(x, axis=axis, dtype=dtype, keepdims=keepdims, initial=-0.0)
    return np.sum(x, axis=axis, dtype=dtype, keepdims=keepdims)


def trunc_div(a, b):
    """Integer division truncating toward zero; ``b`` has no zeros (the caller checked)."""
    r = np.fmod(a, b)
    return (a - r) // b


def trunc_mod(a, b):
    """The remainder with the sign of the dividend (C's ``%``)."""
    return np.fmod(a, b)


def shift_left(a, b):
    bits = a.dtype.itemsize * 8
    b = np.asarray(b).astype(np.int64)
    inside = (b >= 0) & (b < bits)
    return np.where(inside, np.left_shift(a, np.where(inside, b, 0).astype(a.dtype)), np.zeros((), a.dtype))


def shift_right(a, b):
    """Arithmetic on signed types; a count of the width or more fills with the sign (PTX clamps)."""
    bits = a.dtype.itemsize * 8
    b = np.asarray(b).astype(np.int64)
    b = np.where((b < 0) | (b >= bits), bits - 1, b).astype(a.dtype)
    return np.right_shift(a, b)


def popcount(a):
    a = np.asarray(a)
    u = a.view(_UNSIGNED_VIEW[a.dtype.itemsize]) if a.ndim else np.asarray([a]).view(_UNSIGNED_VIEW[a.dtype.itemsize])[0]
    return np.bitwise_count(u).astype(np.int32)


def fmin(a, b):
    return np.fmin(a, b) if a.dtype.kind == "f" else np.minimum(a, b)


def fmax(a, b):
    return np.fmax(a, b) if a.dtype.kind == "f" else np.maximum(a, b)


def round_half_even(a):
    return np.rint(a)
