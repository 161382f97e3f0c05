"""Phobos types as LLVM types, and the conversions between them (LANGUAGE §3).

A scalar is one LLVM value: ``bool`` i1 in registers (i8 in memory), ``i8``/``u8`` i8, ``i32``,
``i64``, ``f16`` half, ``bf16`` bfloat, ``f32`` float, ``f64`` double. A run ``run<T>[n]`` is an
LLVM vector ``<n x T>``. ``f16`` and ``bf16`` arithmetic happens in ``f32`` (``arith_type``).
"""

from __future__ import annotations

import llvmlite.ir as ir

from ..language.types import BYTES as TYPE_BYTES, F32, Run, Scalar, settle

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I16 = ir.IntType(16)
I32T = ir.IntType(32)
I64 = ir.IntType(64)
HALF = ir.HalfType()
FLOAT = ir.FloatType()
DOUBLE = ir.DoubleType()
VOID = ir.VoidType()
GLOBAL, SHARED = 1, 3


class _BFloat(ir.types._BaseFloatType):
    """llvmlite has no ``bfloat`` type; this prints as one."""

    null = "0.0"
    intrinsic_name = "bf16"

    def __str__(self):
        return "bfloat"

    def format_constant(self, value):
        import struct
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        # round the f32 bits to nearest even bf16
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return f"0xR{bits & 0xFFFF:04X}"


_BFloat._create_instance()
BFLOAT = _BFloat()

_SCALAR_IR = {"bool": I1, "i8": I8, "u8": I8, "i32": I32T, "i64": I64, "f16": HALF, "bf16": BFLOAT,
              "f32": FLOAT, "f64": DOUBLE, "int literal": I32T, "float literal": FLOAT}
_MEMORY_IR = dict(_SCALAR_IR, bool=I8)
BYTES = TYPE_BYTES


def scalar_ir(t: Scalar) -> ir.Type:
    return _SCALAR_IR[t.name]


def memory_ir(t: Scalar) -> ir.Type:
    """The type of one element in memory (a bool is a byte there)."""
    return _MEMORY_IR[t.name]


def value_ir(t) -> ir.Type:
    if isinstance(t, Run):
        return ir.VectorType(scalar_ir(t.elem), t.n)
    return scalar_ir(t)


def is_float(t: Scalar) -> bool:
    return t.is_float


def is_signed(t: Scalar) -> bool:
    return t.name != "u8" and t.name != "bool"


def arith_type(t: Scalar) -> Scalar:
    """The type arithmetic on ``t`` is carried out in: f16 and bf16 widen to f32 (§3)."""
    t = settle(t)
    return F32 if t.name in ("f16", "bf16") else t


def width(t: Scalar) -> int:
    return {"bool": 1, "i8": 8, "u8": 8, "i32": 32, "i64": 64}.get(t.name, 0)


def convert(b: ir.IRBuilder, v: ir.Value, src: Scalar, dst: Scalar) -> ir.Value:
    """Convert one scalar or a vector of them elementwise: float to float rounds to nearest
    even, integer to float converts, float to integer truncates toward zero (saturating, as
    PTX's cvt.rzi does, rather than LLVM's poison), integers sign- or zero-extend or truncate."""
    src, dst = settle(src), settle(dst)
    if src == dst:
        return v
    vec = isinstance(v.type, ir.VectorType)
    n = v.type.count if vec else None

    def ty(t):
        s = scalar_ir(t)
        return ir.VectorType(s, n) if vec else s

    if dst.name == "bool":
        if src.is_float:
            return b.fcmp_unordered("!=", v, ir.Constant(ty(src), 0.0))
        return b.icmp_unsigned("!=", v, ir.Constant(ty(src), 0))
    if src.name == "bool":
        if dst.is_float:
            return b.uitofp(v, ty(dst))
        return b.zext(v, ty(dst))
    if src.is_float and dst.is_float:
        sw, dw = _float_rank(src), _float_rank(dst)
        if src.name in ("f16", "bf16") and dst.name in ("f16", "bf16"):
            return b.fptrunc(b.fpext(v, ty(F32)), ty(dst))
        return b.fpext(v, ty(dst)) if dw > sw else b.fptrunc(v, ty(dst))
    if src.is_int and dst.is_float:
        return b.sitofp(v, ty(dst)) if is_signed(src) else b.uitofp(v, ty(dst))
    if src.is_float and dst.is_int:
        if src.name in ("f16", "bf16"):
            v = b.fpext(v, ty(F32))
            src = F32
        kind = "fptosi" if is_signed(dst) else "fptoui"
        fn = _sat_intrinsic(b, kind, ty(dst), v.type)
        return b.call(fn, [v])
    # integer to integer
    sw, dw = width(src), width(dst)
    if dw > sw:
        return b.sext(v, ty(dst)) if is_signed(src) else b.zext(v, ty(dst))
    if dw < sw:
        return b.trunc(v, ty(dst))
    return v     # i8 <-> u8: same bits


def _float_rank(t: Scalar) -> int:
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[t.name]


def _sat_intrinsic(b, kind, dst_ty, src_ty):
    m = b.module
    name = f"llvm.{kind}.sat.{_mangle(dst_ty)}.{_mangle(src_ty)}"
    fn = m.globals.get(name)
    if fn is None:
        fn = ir.Function(m, ir.FunctionType(dst_ty, [src_ty]), name)
    return fn


def _mangle(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_mangle(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}[str(t)]


mangle = _mangle


def const(t: Scalar, value) -> ir.Constant:
    t = settle(t)
    if t.is_float:
        return ir.Constant(scalar_ir(t), float(value))
    if t.name == "bool":
        return ir.Constant(I1, int(bool(value)))
    return ir.Constant(scalar_ir(t), int(value))


def splat(b: ir.IRBuilder, v: ir.Value, n: int) -> ir.Value:
    """A scalar broadcast over a vector of ``n``."""
    vt = ir.VectorType(v.type, n)
    if isinstance(v, ir.Constant):
        return ir.Constant(vt, [v] * n)
    first = b.insert_element(ir.Constant(vt, ir.Undefined), v, ir.Constant(I32T, 0))
    return b.shuffle_vector(first, ir.Constant(vt, ir.Undefined), ir.Constant(ir.VectorType(I32T, n), [0] * n))


__all__ = ["scalar_ir", "memory_ir", "value_ir", "convert", "const", "splat", "arith_type"]
