"""The types of LANGUAGE §3 and their rules: promotion, literal adaptation, ranges.

Scalar types are interned ``Scalar`` values. Two extra *weak* scalar types, ``INT_LIT`` and
``FLOAT_LIT``, are the types of literals (and of expressions built only from literals) before
context settles them (§1: "an integer literal takes the integer or float type its context
needs"). ``ERROR`` absorbs everything so one mistake gives one diagnostic.
"""

from __future__ import annotations

import math
import re
from dataclasses import field
from typing import Union

from .records import record

SCALAR_NAMES = ("bool", "i8", "u8", "i32", "i64", "f16", "bf16", "f32", "f64")
INT_NAMES = ("i8", "u8", "i32", "i64")
FLOAT_NAMES = ("f16", "bf16", "f32", "f64")
TYPE_WORDS = set(SCALAR_NAMES) | {"tensor", "tile", "run"}

INT_RANGES = {"i8": (-(1 << 7), (1 << 7) - 1), "u8": (0, 255),
              "i32": (-(1 << 31), (1 << 31) - 1), "i64": (-(1 << 63), (1 << 63) - 1)}
FLOAT_MAX = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38,
             "f64": 1.7976931348623157e308}
# The one table of what each scalar type is in memory: its bytes (a bool is a byte), and the
# numpy dtype that holds it on the host (`bfloat16` is ml_dtypes'; LANGUAGE §3). The shared-memory
# plan, the lowering, the simulator, the GPU runtime and phobos-run read it.
BYTES = {"bool": 1, "i8": 1, "u8": 1, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}
NUMPY_NAMES = {"bool": "bool", "i8": "int8", "u8": "uint8", "i32": "int32", "i64": "int64", "f16": "float16",
               "bf16": "bfloat16", "f32": "float32", "f64": "float64"}
_WIDTH = {name: 8 * n for name, n in BYTES.items() if name != "bool"}     # bits


@record(frozen=True, slots=True)
class Scalar:
    name: str
    # What the name says, computed once: the semantic pass asks these of every operand.
    is_int: bool = field(init=False, repr=False, compare=False)
    is_float: bool = field(init=False, repr=False, compare=False)
    is_numeric: bool = field(init=False, repr=False, compare=False)
    is_weak: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        name = self.name
        is_int = name in INT_NAMES or name == "int literal"
        is_float = name in FLOAT_NAMES or name == "float literal"
        object.__setattr__(self, "is_int", is_int)
        object.__setattr__(self, "is_float", is_float)
        object.__setattr__(self, "is_numeric", is_int or is_float)
        object.__setattr__(self, "is_weak", name in ("int literal", "float literal"))

    def __eq__(self, other):       # the generated one, minus its tuples (hash stays generated)
        if other.__class__ is Scalar:
            return self.name == other.name
        return NotImplemented

    def __str__(self) -> str:
        return self.name


@record(frozen=True, slots=True)
class Run:
    elem: Scalar
    n: int

    def __str__(self) -> str:
        return f"run<{self.elem}>[{self.n}]"


Extent = Union[int, str]   # a static extent, or the name of a runtime one


@record(frozen=True, slots=True)
class Tile:
    """A tile-valued expression: a tile variable, a slice (a view of a tensor or tile), or the
    result of a sweep or tile built-in. ``buffer`` names the memory behind a view, else None."""

    elem: Scalar
    shape: tuple[Extent, ...]
    buffer: str | None = None

    @property
    def static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    def __str__(self) -> str:
        return f"tile<{self.elem}>[{', '.join(str(d) for d in self.shape)}]"


@record(frozen=True, slots=True)
class Tensor:
    elem: Scalar
    shape: tuple[Extent, ...]

    def __str__(self) -> str:
        return f"tensor<{self.elem}>[{', '.join(str(d) for d in self.shape)}]"


@record(frozen=True, slots=True)
class Void:
    def __str__(self) -> str:
        return "nothing"


@record(frozen=True, slots=True)
class ErrorType:
    def __str__(self) -> str:
        return "<error>"


Type = Union[Scalar, Run, Tile, Tensor, Void, ErrorType]

SCALARS = {n: Scalar(n) for n in SCALAR_NAMES}
BOOL, I8, U8, I32, I64 = (SCALARS[n] for n in ("bool", "i8", "u8", "i32", "i64"))
F16, BF16, F32, F64 = (SCALARS[n] for n in ("f16", "bf16", "f32", "f64"))
INT_LIT = Scalar("int literal")
FLOAT_LIT = Scalar("float literal")
VOID = Void()
ERROR = ErrorType()


def elem_of(t: Type) -> Scalar | None:
    if isinstance(t, Scalar):
        return t
    if isinstance(t, (Run, Tile, Tensor)):
        return t.elem
    return None


def promote_int(t: Scalar) -> Scalar:
    """i8 and u8 operands promote to i32 (§3)."""
    return I32 if t.name in ("i8", "u8") else t


def arith_join(a: Scalar, b: Scalar) -> Scalar | None:
    """The type of ``a op b`` for arithmetic (§3, C-like); None when the two cannot combine."""
    if not (a.is_numeric and b.is_numeric):
        return None
    if a.is_weak and b.is_weak:
        return FLOAT_LIT if FLOAT_LIT in (a, b) else INT_LIT
    if a.is_weak or b.is_weak:
        weak, strong = (a, b) if a.is_weak else (b, a)
        strong = promote_int(strong)
        if weak == FLOAT_LIT and strong.is_int:
            return F32
        return strong
    a, b = promote_int(a), promote_int(b)
    if a.is_int and b.is_int:
        return a if _WIDTH[a.name] >= _WIDTH[b.name] else b
    if a.is_float and b.is_float:
        if {a.name, b.name} == {"f16", "bf16"}:
            return F32
        return a if _WIDTH[a.name] >= _WIDTH[b.name] else b
    return a if a.is_float else b


def settle(t: Scalar) -> Scalar:
    """A weak literal type with nothing else to go by: i32 or f32 (§1)."""
    if t == INT_LIT:
        return I32
    if t == FLOAT_LIT:
        return F32
    return t


def assignable(value: Scalar, target: Scalar) -> bool:
    """May a value of type ``value`` initialize or be assigned to ``target``? (§3: the exact
    type, except that literals adapt)."""
    if value == target:
        return True
    if value == INT_LIT:
        return target.is_numeric
    if value == FLOAT_LIT:
        return target.is_float
    return False


def literal_fits(value: int | float, target: Scalar) -> bool:
    if target.name in INT_RANGES:
        if isinstance(value, float):
            return False
        lo, hi = INT_RANGES[target.name]
        return lo <= value <= hi
    if target.name in FLOAT_MAX:
        try:
            v = float(value)
        except OverflowError:
            return False
        return math.isfinite(v) and abs(v) <= FLOAT_MAX[target.name]
    return False


def parse_scalar(name: str) -> Scalar | None:
    return SCALARS.get(name)


# The C and CUDA type names a newcomer writes first, and the Phobos type each one means (None:
# there is none; "i64" for unsigned types wider than u8, which Phobos does not have)
C_TYPES = {"float": "f32", "double": "f64", "half": "f16", "__half": "f16", "bfloat16": "bf16",
            "__nv_bfloat16": "bf16", "int": "i32", "int32_t": "i32", "long": "i64", "int64_t": "i64",
            "char": "i8", "int8_t": "i8", "uint8_t": "u8", "uchar": "u8", "byte": "u8",
            "f8": None, "i16": None, "u16": None, "f128": None, "int16_t": None, "short": None,
            "u32": "i64", "u64": "i64", "uint": "i64", "unsigned": "i64", "uint32_t": "i64",
            "uint64_t": "i64", "size_t": "i64"}


def an(thing) -> str:
    """``thing`` (a type or its description) with its indefinite article: "an i32", "an f16",
    "a u8", "a bf16", "a tile (..)"."""
    text = str(thing)
    return f"{'an' if re.match(r'[if][0-9]|[aeio]', text) else 'a'} {text}"
