"""Addresses, point accesses and runs (LANGUAGE §7) over global tensors and shared tiles.

A ``MemRef`` is what a tensor parameter, a tile or a ``let`` view lowers to: a base pointer, the
stride of each visible axis and an element offset, all in 64-bit arithmetic (§3: address
arithmetic is 64-bit), each term carrying a lower bound on its trailing zero bits (align.py) so
that a run's alignment can be proved. A run of ``n`` contiguous elements becomes the widest
vector loads and stores that alignment allows (``ld.global.v4.f32`` for four f32 at a multiple of
16 bytes), at most 16 bytes each; anything else becomes scalar accesses. Runs and points are not
masked: out of bounds they are undefined behaviour (§7).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import llvmlite.ir as ir

from ..language.types import Scalar
from .align import INFINITE, twos_of_int
from .ltypes import BYTES, GLOBAL, I8, I32T, I64, memory_ir

MAX_VECTOR_BYTES = 16
BASE_ALIGN = 16            # tensors (checked by the runtime) and tiles (declared so)


@dataclass
class Term:
    value: object          # an i64 ir.Value or a Python int
    twos: int
    narrow: object = None  # the same index as an i32 value (or int) when it is one: masks compare
                           # in 32 bits (one register, one setp) rather than 64


@dataclass
class Axis:
    stride: Term           # elements between neighbours along this axis
    extent: object         # an int or an extent name (for the views' shapes)


@dataclass
class MemRef:
    """Memory a name or a slice denotes. Besides the visible axes (stride and extent each) and
    the element offset, a MemRef remembers where it sits in the buffer it was cut from, for the
    masks of LANGUAGE §7: ``origin`` the first index on each axis of that buffer, ``base_extents``
    those axes' extents, ``axis_of`` the buffer axis behind each visible axis, and ``proven`` the
    buffer axes along which the bounds prover (bounds.py) showed the view in bounds (no mask)."""

    ptr: ir.Value
    elem: Scalar
    axes: list[Axis]
    offset: list[Term] = field(default_factory=list)
    space: int = 1
    buffer: object = None                                  # the allocation's identity
    origin: list = field(default_factory=list)             # Term per buffer axis
    base_extents: list = field(default_factory=list)       # int or extent name per buffer axis
    axis_of: list = field(default_factory=list)            # buffer axis per visible axis
    proven: list = field(default_factory=list)             # bool per buffer axis

    def __post_init__(self):
        if not self.origin and not self.offset:            # a whole buffer
            self.origin = [Term(0, INFINITE) for _ in self.axes]
            self.base_extents = [a.extent for a in self.axes]
            self.axis_of = list(range(len(self.axes)))
            self.proven = [True] * len(self.axes)
        if self.buffer is None:
            self.buffer = self.ptr

    @property
    def shape(self) -> list:
        return [a.extent for a in self.axes]

    def view(self, starts: list, keep: list[bool], extents: list, inside: list[bool] | None = None) -> "MemRef":
        """The view ``self[starts...]``: ``starts`` one Term per axis, ``keep`` False for an axis
        dropped by a point subscript, ``inside`` True where the subscript provably stays within
        this view's extent along that axis."""
        inside = inside if inside is not None else [False] * len(starts)
        offset = list(self.offset)
        origin = list(self.origin)
        proven = list(self.proven)
        axes, axis_of = [], []
        for a, (axis, start, kept, ext, ok) in enumerate(zip(self.axes, starts, keep, extents, inside)):
            offset.append(scale(start, axis.stride))
            b = self.axis_of[a]
            origin[b] = add_terms(origin[b], start)
            proven[b] = proven[b] and ok
            if kept:
                axes.append(Axis(axis.stride, ext))
                axis_of.append(b)
        return MemRef(self.ptr, self.elem, axes, offset, self.space, self.buffer, origin,
                      list(self.base_extents), axis_of, proven)

    @property
    def masked(self) -> bool:
        return not all(self.proven)


def add_terms(a: Term, b: Term) -> Term:
    if isinstance(a.value, int) and isinstance(b.value, int):
        v = a.value + b.value
        return Term(v, twos_of_int(v), v)
    if isinstance(a.value, int) and a.value == 0:
        return b
    if isinstance(b.value, int) and b.value == 0:
        return a
    narrow = None
    na = a.value if isinstance(a.value, int) else a.narrow
    nb = b.value if isinstance(b.value, int) else b.narrow
    if na is not None and nb is not None:
        narrow = ("add", na, nb)
    return Term(("add", a.value, b.value), min(a.twos, b.twos), narrow)


def scale(t: Term, stride: Term) -> Term:
    if isinstance(t.value, int) and isinstance(stride.value, int):
        v = t.value * stride.value
        return Term(v, twos_of_int(v))
    return Term(("mul", t.value, stride.value), min(INFINITE, t.twos + stride.twos))


class Addressing:
    """Materializes Terms as i64 IR and issues the loads and stores."""

    def __init__(self, builder: ir.IRBuilder):
        self.b = builder
        # the allocas of counted loops' 64-bit variables (emit.py ``_counted_for``): a global
        # point access indexed by one is addressed in bytes (``reads_counter``)
        self.counters: set[int] = set()

    def value(self, v) -> ir.Value:
        if isinstance(v, int):
            return ir.Constant(I64, v)
        if isinstance(v, tuple) and v[0] == "mul":
            x, y = v[1], v[2]
            if isinstance(y, int) and y == 1:
                return self.value(x)
            if isinstance(x, int) and x == 1:
                return self.value(y)
            return self.b.mul(self.value(x), self.value(y))
        if isinstance(v, tuple) and v[0] == "add":
            return self.b.add(self.value(v[1]), self.value(v[2]))
        return v

    def value32(self, v) -> ir.Value:
        """An i32 index from a Term's ``narrow``."""
        if isinstance(v, int):
            return ir.Constant(I32T, v)
        if isinstance(v, tuple) and v[0] == "add":
            return self.b.add(self.value32(v[1]), self.value32(v[2]))
        return v

    def offset(self, terms: list[Term]) -> tuple[ir.Value, int]:
        const = 0
        total = None
        tw = INFINITE
        for t in terms:
            tw = min(tw, t.twos)
            if isinstance(t.value, int):
                const += t.value
                continue
            v = self.value(t.value)
            total = v if total is None else self.b.add(total, v)
        if const or total is None:
            c = ir.Constant(I64, const)
            total = c if total is None else self.b.add(total, c)
        return total, tw

    def element_ptr(self, ref: MemRef, terms: list[Term], in_bytes: bool = False) -> tuple[ir.Value, int]:
        """The address of element ``ref.offset + terms`` and its provable alignment in bytes.
        ``in_bytes``: as ``ref.ptr`` plus the offset scaled to bytes (``shl nsw``, what ``gep
        inbounds`` implies), one GEP over i8 that LLVM keeps whole."""
        off, tw = self.offset(ref.offset + terms)
        es = BYTES[ref.elem.name]
        if in_bytes and es > 1 and not isinstance(off, ir.Constant):
            off = self.b.shl(off, ir.Constant(I64, es.bit_length() - 1), flags=("nsw",))
            return self.b.gep(ref.ptr, [off], inbounds=True, source_etype=I8), alignment(es, tw)
        ptr = self.b.gep(ref.ptr, [off], inbounds=True, source_etype=memory_ir(ref.elem))
        return ptr, alignment(es, tw)

    def reads_counter(self, ref: MemRef, terms: list[Term]) -> bool:
        """Is ``ref`` global memory and a term of its element offset a counted loop's 64-bit
        variable (``A[row, c]`` in ``for c in range(..)``)? Such an address is formed in bytes:
        with the element GEP, LLVM splits off a row pointer and loop strength reduction rebuilds
        the unrolled loop's start address from it in a shape where ptxas copies the strided
        pointer's low half at every iteration (one MOV more than nvcc in row_sums and
        row_softmax; benchmarks/sass_vs_nvcc.py). Other accesses keep the element GEP (with
        every access in bytes, tiled_gemm, linear_relu and row_scan came out larger)."""
        if ref.space != GLOBAL or not self.counters:
            return False
        todo = [t.value for t in ref.offset + terms]
        while todo:
            v = todo.pop()
            if isinstance(v, tuple):
                todo.extend(v[1:])
            elif isinstance(v, ir.LoadInstr) and id(v.operands[0]) in self.counters:
                return True
        return False

    # ---- points
    def load_ptr(self, ptr, align: int, elem: Scalar) -> ir.Value:
        return self._from_memory(self.b.load(ptr, align=align, typ=memory_ir(elem)), elem)

    def store_ptr(self, ptr, align: int, elem: Scalar, value: ir.Value) -> None:
        self.b.store(self._to_memory(value, elem), ptr, align=align)

    def load(self, ref: MemRef, terms: list[Term]) -> ir.Value:
        ptr, align = self.element_ptr(ref, terms, self.reads_counter(ref, terms))
        v = self.b.load(ptr, align=align, typ=memory_ir(ref.elem))
        return self._from_memory(v, ref.elem)

    def store(self, ref: MemRef, terms: list[Term], value: ir.Value) -> None:
        ptr, align = self.element_ptr(ref, terms, self.reads_counter(ref, terms))
        self.b.store(self._to_memory(value, ref.elem), ptr, align=align)

    # ---- runs
    def load_run(self, ref: MemRef, terms: list[Term], axis: int, n: int) -> ir.Value:
        """``n`` elements along ``axis`` from the element at ``terms``, as one ``<n x T>``."""
        es = BYTES[ref.elem.name]
        mty = memory_ir(ref.elem)
        parts = []
        for pos, k, align in self._chunks(ref, terms, axis, n, es):
            ptr = self._run_ptr(ref, terms, axis, pos)
            if k == 1:
                parts.append((pos, [self.b.load(ptr, align=align, typ=mty)]))
            else:
                vec = self.b.load(ptr, align=align, typ=ir.VectorType(mty, k))
                parts.append((pos, [self.b.extract_element(vec, ir.Constant(I32T, i)) for i in range(k)]))
        result = ir.Constant(ir.VectorType(mty, n), ir.Undefined)
        for pos, elems in parts:
            for i, e in enumerate(elems):
                result = self.b.insert_element(result, e, ir.Constant(I32T, pos + i))
        return self._from_memory(result, ref.elem)

    def store_run(self, ref: MemRef, terms: list[Term], axis: int, n: int, value: ir.Value) -> None:
        es = BYTES[ref.elem.name]
        mem = self._to_memory(value, ref.elem)
        for pos, k, align in self._chunks(ref, terms, axis, n, es):
            ptr = self._run_ptr(ref, terms, axis, pos)
            if k == 1:
                part = self.b.extract_element(mem, ir.Constant(I32T, pos))
            else:
                mask = ir.Constant(ir.VectorType(I32T, k), list(range(pos, pos + k)))
                part = self.b.shuffle_vector(mem, ir.Constant(mem.type, ir.Undefined), mask)
            self.b.store(part, ptr, align=align)

    def _run_ptr(self, ref, terms, axis, pos):
        extra = [scale(Term(pos, twos_of_int(pos)), ref.axes[axis].stride)] if pos else []
        ptr, _ = self.element_ptr(ref, terms + extra)
        return ptr

    def _chunks(self, ref, terms, axis, n, es):
        """(first element, elements, alignment) of each access: vectors only along a contiguous
        axis, each the widest power of two that the proven alignment, 16 bytes and the rest of
        the run allow."""
        stride = ref.axes[axis].stride.value
        _, tw = self._twos(ref.offset + terms)
        base_align = alignment(es, tw)
        out = []
        pos = 0
        while pos < n:
            here = min(base_align, _low_bit(pos * es)) if pos else base_align
            k = 1
            if stride == 1:
                while (k * 2) * es <= min(MAX_VECTOR_BYTES, here) and pos + k * 2 <= n:
                    k *= 2
            out.append((pos, k, here if stride == 1 else alignment(es, 0)))
            pos += k
        return out

    @staticmethod
    def _twos(terms):
        tw = INFINITE
        for t in terms:
            tw = min(tw, t.twos)
        return None, tw

    # ---- bools are bytes in memory
    def _from_memory(self, v, elem: Scalar):
        if elem.name != "bool":
            return v
        zero = ir.Constant(v.type, None) if not isinstance(v.type, ir.VectorType) else \
            ir.Constant(v.type, [ir.Constant(I8, 0)] * v.type.count)
        return self.b.icmp_unsigned("!=", v, zero)

    def _to_memory(self, v, elem: Scalar):
        if elem.name != "bool":
            return v
        ty = ir.VectorType(I8, v.type.count) if isinstance(v.type, ir.VectorType) else I8
        return self.b.zext(v, ty)


def alignment(elem_bytes: int, twos: int) -> int:
    """Bytes of alignment of an element offset with ``twos`` trailing zeros, from a 16-byte base."""
    return max(elem_bytes, min(BASE_ALIGN, elem_bytes << min(twos, 8)))


def _low_bit(x: int) -> int:
    return x & -x if x else 1 << 30


__all__ = ["MemRef", "Axis", "Term", "Addressing", "alignment"]
