"""``dot`` and ``dot_t`` on tensor cores (LANGUAGE §10: ``f16``/``bf16`` operands with ``f32``
accumulation, ``i8``/``u8`` with ``i32``), with warp-level ``mma.sync``:

| operands | target | instruction | A, B, C registers per thread |
|---|---|---|---|
| f16 x f16 | sm_80 and later | ``mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`` | 4, 2, 4 |
| bf16 x bf16 | sm_80 and later | ``mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`` | 4, 2, 4 |
| f16 x f16 | sm_75 | ``mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32`` | 2, 1, 4 |
| i8/u8 x i8/u8 | sm_80 and later | ``mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32`` (``.u8`` per operand) | 4, 2, 4 |
| ``qdot_t``/``qmma_t`` (i8) | sm_80 and later, M a multiple of 16 | the same, ``.s8.s8``, one per block of 32, from zero, scaled in f32 (``MmaQuantized``) | 4, 2, 4 |
| ``qdot_t``/``qmma_t`` (i8) | sm_75 and later, M a multiple of 8 | ``mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32``, two per block of 32 | 1, 1, 2 |

Anything else (``f32``, which stays ``f32``; ``bf16`` on sm_75; mixed element types; shapes that
are not multiples of the instruction's; a CTA that is not whole warps) keeps the FMA path of
tile_ops.py. ``qdot_t``/``qmma_t`` take the integer MMA by ``MmaQuantized`` (at the end of this
file), other shapes the dp4a path of tile_ops.py.

**Mapping.** The output ``[M, N]`` is cut into 16 x 8 instruction tiles; each warp owns a block of
``wm x wn`` of them (register blocking at the warp level: ``wm`` A fragments and ``wn`` B
fragments feed ``wm * wn`` instructions per step along K), blocks dealt to warps round-robin.
Lane ``l`` of a warp holds, of each instruction tile, the accumulators of rows ``l / 4`` and
``l / 4 + 8`` and columns ``2 (l % 4)`` and ``2 (l % 4) + 1`` (PTX ISA, "Matrix fragments for
mma.m16n8k16"); they stay in registers for the whole K loop and each is handed to the statement's
epilogue (tiles.py) with its coordinates.

**Operands** come from shared memory (tile_ops.shared_operand: ``a`` is ``[M, K]``, ``b`` is
``[K, N]``; ``dot_t``'s is copied in its own ``[N, K]`` layout, in the bytes of the transposed copy
the plan counts, and read through a transposed view). A 16-bit or 8-bit ``a`` whose rows start at
multiples of 16 bytes is read with ``ldmatrix.sync.aligned.m8n8.x4`` (x2 for m16n8k8); a ``b``
stored ``[N, K]`` with ``ldmatrix`` too (x4 for two instruction tiles, x2 for one), a 16-bit ``b``
stored ``[K, N]`` with ``ldmatrix ... .trans``; other operands element by element (``ld.shared``
and a pack into 32-bit registers). ``mma.sync`` is inline asm (pure and
``convergent``: LLVM may not move it into control flow that differs between lanes), ``ldmatrix``
the NVVM intrinsic (LLVM then knows it reads shared memory).
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir

from ..language.types import F32, I32, Scalar
from .ltypes import BYTES, FLOAT, I16, I32T, const
from .memory import Addressing, alignment

CONVERGENT = ("convergent",)


@dataclass(frozen=True)
class MmaShape:
    m: int
    n: int
    k: int
    a: str          # PTX type of A's elements: f16 bf16 s8 u8
    b: str
    acc: str        # f32 or s32

    @property
    def elem_bytes(self) -> int:
        return 1 if self.a in ("s8", "u8") else 2

    @property
    def a_regs(self) -> int:
        return self.m * self.k * self.elem_bytes // 4 // 32

    @property
    def b_regs(self) -> int:
        return self.k * self.n * self.elem_bytes // 4 // 32

    @property
    def per_reg(self) -> int:
        return 4 // self.elem_bytes

    @property
    def instruction(self) -> str:
        return f"mma.sync.aligned.m{self.m}n{self.n}k{self.k}.row.col.{self.acc}.{self.a}.{self.b}.{self.acc}"


_PTX = {"f16": "f16", "bf16": "bf16", "i8": "s8", "u8": "u8"}


def sm_number(arch: str) -> int:
    return int(arch.split("_")[1].rstrip("a"))


def tensor_core_shape(arch: str, a: Scalar, b: Scalar, comp: Scalar, m: int, n: int, depth: int,
                      threads: int) -> MmaShape | None:
    """The instruction a ``[m, depth] x [depth, n]`` product takes on ``arch``, or None (FMA)."""
    if threads % 32 or not isinstance(m, int) or not isinstance(n, int) or not isinstance(depth, int):
        return None
    sm = sm_number(arch)
    pa, pb = _PTX.get(a.name), _PTX.get(b.name)
    shape = None
    if pa in ("f16", "bf16") and pa == pb and comp == F32:
        if sm >= 80:
            shape = MmaShape(16, 8, 16, pa, pb, "f32")
        elif pa == "f16" and sm >= 75:
            shape = MmaShape(16, 8, 8, pa, pb, "f32")
    elif pa in ("s8", "u8") and pb in ("s8", "u8") and comp == I32 and sm >= 80:
        shape = MmaShape(16, 8, 32, pa, pb, "s32")
    if shape is None or m % shape.m or n % shape.n or depth % shape.k:
        return None
    return shape


QUANTIZED = MmaShape(16, 8, 32, "s8", "s8", "s32")
QUANTIZED_8 = MmaShape(8, 8, 16, "s8", "s8", "s32")


def quantized_shape(arch: str, m: int, n: int, depth: int, threads: int) -> MmaShape | None:
    """The instruction of a ``qdot_t``/``qmma_t`` with an ``[m, depth]`` and an ``[n, depth]``
    operand on ``arch``: m16n8k32 s8 on sm_80 and later (one instruction per block of 32);
    m8n8k16 s8 (two per block) on sm_75, and on later targets where ``m`` is a multiple of 8
    but not of 16 (``qmma_t``'s shapes); None (the dp4a path of tile_ops.py) for other shapes or
    a CTA that is not whole warps."""
    if threads % 32 or not all(isinstance(x, int) for x in (m, n, depth)) or depth % 32 or n % 8:
        return None
    sm = sm_number(arch)
    if sm >= 80 and m % 16 == 0:
        return QUANTIZED
    if sm >= 75 and m % 8 == 0:
        return QUANTIZED_8
    return None


def warp_blocking(tiles_m: int, tiles_n: int, warps: int, most: int | None = None) -> tuple[int, int]:
    """The ``wm x wn`` instruction tiles of one warp: as few rounds over the warps as possible,
    then as few accumulators as that allows, then as square (in elements) as possible; with
    ``most``, at most that many tiles."""
    best = None
    for wm in (1, 2, 4):
        for wn in (1, 2, 4, 8):
            if tiles_m % wm or tiles_n % wn or (most is not None and wm * wn > most):
                continue
            blocks = (tiles_m // wm) * (tiles_n // wn)
            rounds = -(-blocks // warps)
            key = (rounds, wm * wn, abs(16 * wm - 8 * wn), -wn)
            if best is None or key < best[0]:
                best = (key, wm, wn)
    return best[1], best[2]


def _c(v: int) -> ir.Constant:
    return ir.Constant(I32T, v)


def mma(ops, shape: MmaShape, a_regs: list, b_regs: list, c: list) -> list:
    """One ``mma.sync``: the accumulators after ``d = a b + c`` (four; two for m8n8)."""
    ct = FLOAT if shape.acc == "f32" else I32T
    cc = "f" if shape.acc == "f32" else "r"
    na, nb, nc = len(a_regs), len(b_regs), len(c)
    d = ",".join(f"${i}" for i in range(nc))
    av = ",".join(f"${nc + i}" for i in range(na))
    bv = ",".join(f"${nc + na + i}" for i in range(nb))
    cv = ",".join(f"${nc + na + nb + i}" for i in range(nc))
    text = f"{shape.instruction} {{{d}}}, {{{av}}}, {{{bv}}}, {{{cv}}};"
    constraints = ",".join([f"={cc}"] * nc + ["r"] * (na + nb) + [cc] * nc)
    fty = ir.FunctionType(ir.LiteralStructType([ct] * nc), [I32T] * (na + nb) + [ct] * nc)
    r = ops.b.call(ir.InlineAsm(fty, text, constraints), list(a_regs) + list(b_regs) + list(c), attrs=CONVERGENT)
    return [ops.b.extract_value(r, i) for i in range(nc)]


def ldmatrix(ops, ptr, count: int, trans: bool) -> list:
    """``ldmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16``: ``count`` registers."""
    name = f"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.b16"
    ret = ir.LiteralStructType([I32T] * count) if count > 1 else I32T
    r = ops.call(name, ret, [ptr], convergent=True)
    return [ops.b.extract_value(r, i) for i in range(count)] if count > 1 else [r]


def rows_aligned(ref, elem_bytes: int, along: int = 1) -> bool:
    """Does every row of the 2-D shared ``ref`` start at a multiple of 16 bytes, its columns
    contiguous (what ldmatrix needs of the rows it reads)? With ``along`` 0, the same of the
    columns (a transposed view: each column contiguous)."""
    col, row = (ref.axes[1], ref.axes[0]) if along == 1 else (ref.axes[0], ref.axes[1])
    if not (isinstance(col.stride.value, int) and col.stride.value == 1):
        return False
    if not isinstance(row.stride.value, int) or (row.stride.value * elem_bytes) % 16:
        return False
    _, tw = Addressing._twos(ref.offset)
    return alignment(elem_bytes, tw) >= 16


class Layout:
    """Which accumulators of an ``[m, n]`` product each thread holds: the warp blocks, the lane's
    group and place in it. Made where its values dominate every use (before a carried loop)."""

    def __init__(self, em, shape: MmaShape, m: int, n: int, most: int | None = None):
        b = em.b
        self.em, self.b, self.shape = em, b, shape
        tiles_m, tiles_n = m // shape.m, n // shape.n
        self.warps = em.threads // 32
        self.wm, self.wn = warp_blocking(tiles_m, tiles_n, self.warps, most)
        self.gn = tiles_n // self.wn
        self.blocks = (tiles_m // self.wm) * self.gn
        self.rounds = -(-self.blocks // self.warps)
        tid = em.fresh_thread()
        self.warp = b.lshr(tid, _c(5))
        self.lane = b.and_(tid, _c(31))
        self.g = b.lshr(self.lane, _c(2))        # the lane's group: its rows
        self.t = b.and_(self.lane, _c(3))        # its place in the group: its columns

    def origin(self, blk):
        """The first row and column of warp block ``blk``."""
        b, s = self.b, self.shape
        bm = b.udiv(blk, _c(self.gn))
        bn = b.urem(blk, _c(self.gn))
        return b.mul(bm, _c(self.wm * s.m)), b.mul(bn, _c(self.wn * s.n))

    def coords(self, row0, col0, i: int, j: int, c: int) -> list:
        """The coordinates of accumulator ``c`` of instruction tile (i, j) of the block at
        (row0, col0)."""
        b, s = self.b, self.shape
        r = b.add(b.add(row0, _c(i * s.m)), self.g)
        col = b.add(b.add(col0, _c(j * s.n)), b.mul(self.t, _c(2)))
        return [b.add(r, _c(8)) if c >= 2 else r, b.add(col, _c(1)) if c & 1 else col]

    def each_block(self, body) -> None:
        """``body(blk)`` for each of the warp's blocks, in a loop over the rounds (a product whose
        accumulators end with each block)."""
        b = self.b

        def one(blk):
            if self.blocks % self.warps:
                with b.if_then(b.icmp_unsigned("<", blk, _c(self.blocks))):      # the same in a whole warp
                    body(blk)
            else:
                body(blk)
        if self.rounds == 1:
            one(self.warp)
        else:
            self.em.counted_loop(0, self.rounds, lambda r: one(b.add(self.warp, b.mul(r, _c(self.warps)))))

    def each_round(self, body) -> None:
        """``body(r, blk)`` for each of the warp's blocks, rounds unrolled (a carried product
        keeps every round's accumulators)."""
        b = self.b
        for r in range(self.rounds):
            blk = b.add(self.warp, _c(r * self.warps)) if r else self.warp
            if (r + 1) * self.warps > self.blocks:
                with b.if_then(b.icmp_unsigned("<", blk, _c(self.blocks))):   # the same in a whole warp
                    body(r, blk)
            else:
                body(r, blk)


# A carried product keeps rounds x wm x wn x 4 accumulators per thread across its loop; beyond
# this many it takes the shared accumulator tile at every step instead.
MAX_CARRIED = 64


class Carried:
    """``acc += dot(a, b)`` with ``acc`` in registers across its ``for`` loop (the execution
    plan's carried accumulators, analyzer/facts/plan.py): ``enter`` before the loop reads each
    thread's elements of the tile ``target`` once, the statement in the loop adds into them
    (MmaDot with ``carried``), ``leave`` after the loop writes them back once."""

    def __init__(self, tl, target, shape: MmaShape, comp: Scalar, m: int, n: int):
        self.tl, self.target, self.shape, self.comp = tl, target, shape, comp
        self.layout = Layout(tl.em, shape, m, n)
        lay = self.layout
        ct = FLOAT if shape.acc == "f32" else I32T
        self.ct = ct
        self.accs = [[[[tl.em.alloca(ct, name=f"carry{r}_{i}_{j}_{c}") for c in range(4)] for j in range(lay.wn)]
                      for i in range(lay.wm)] for r in range(lay.rounds)]

    @staticmethod
    def fits(em, shape: MmaShape, m: int, n: int) -> bool:
        warps = em.threads // 32
        tiles = (m // shape.m) * (n // shape.n)
        wm, wn = warp_blocking(m // shape.m, n // shape.n, warps)
        rounds = -(-(tiles // (wm * wn)) // warps)
        return rounds * wm * wn * 4 <= MAX_CARRIED

    def _each(self, body) -> None:
        lay = self.layout

        def one(r, blk):
            row0, col0 = lay.origin(blk)
            for i in range(lay.wm):
                for j in range(lay.wn):
                    for c in range(4):
                        body(self.accs[r][i][j][c], lay.coords(row0, col0, i, j, c))
        lay.each_round(one)

    def enter(self) -> None:
        b = self.tl.b
        self._each(lambda slot, at: b.store(self.tl.load(self.target, at), slot))

    def leave(self) -> None:
        b = self.tl.b
        self._each(lambda slot, at: self.tl.store(self.target, at, b.load(slot, typ=self.ct)))


class MmaDot:
    """One ``dot``/``dot_t`` on tensor cores: ``a_ref`` [M, K] and ``b_ref`` [K, N] in shared
    memory, unmasked; ``emit(coords, Val)`` for every output element, or, with ``carried``, the
    products added into the carried accumulators (emitting nothing)."""

    def __init__(self, tl, a_ref, b_ref, shape: MmaShape, comp: Scalar, emit, carried: Carried | None = None):
        self.tl, self.em, self.b = tl, tl.em, tl.b
        self.a_ref, self.b_ref, self.shape, self.comp, self.emit = a_ref, b_ref, shape, comp, emit
        self.carried = carried
        es = shape.elem_bytes
        self.a_ldsm = rows_aligned(a_ref, es) and BYTES[a_ref.elem.name] == es
        self.b_ldsm = es == 2 and shape.k == 16 and rows_aligned(b_ref, es) and BYTES[b_ref.elem.name] == es
        # b stored [N, K] (dot_t's operand in its own layout): ldmatrix without .trans, any type
        self.b_kmajor = shape.b_regs == 2 and rows_aligned(b_ref, es, along=0) and BYTES[b_ref.elem.name] == es

    def _steps(self, row0, col0, accs, depth: int) -> None:
        """The products along K of the block at (row0, col0) added into ``accs[i][j][c]``."""
        em, b, s = self.em, self.b, self.shape
        lay = self.layout
        ct = FLOAT if s.acc == "f32" else I32T

        def step(kk):
            k0 = b.mul(kk, _c(s.k))
            fa = [self.a_fragment(b.add(row0, _c(i * s.m)), k0) for i in range(lay.wm)]
            fb = self.b_fragments(col0, k0, lay.wn)
            for i in range(lay.wm):
                for j in range(lay.wn):
                    cur = [b.load(accs[i][j][c], typ=ct) for c in range(4)]
                    out = mma(em.ops, s, fa[i], fb[j], cur)
                    for c in range(4):
                        b.store(out[c], accs[i][j][c])
        steps = depth // s.k
        em.counted_loop(0, steps, step, unroll=steps if steps <= 8 else 2)

    def lower(self) -> None:
        em, b, s = self.em, self.b, self.shape
        m, depth = self.a_ref.shape
        n = self.b_ref.shape[1]
        if self.carried is not None:
            lay = self.layout = self.carried.layout
            self.g, self.t, self.lane = lay.g, lay.t, lay.lane

            def carried_block(r, blk):
                row0, col0 = lay.origin(blk)
                self._steps(row0, col0, self.carried.accs[r], depth)
            lay.each_round(carried_block)
            return
        lay = self.layout = Layout(em, s, m, n)
        self.g, self.t, self.lane = lay.g, lay.t, lay.lane
        ct = FLOAT if s.acc == "f32" else I32T
        accs = [[[em.alloca(ct, name=f"mma{i}_{j}_{c}") for c in range(4)] for j in range(lay.wn)]
                for i in range(lay.wm)]

        def one_block(blk):
            row0, col0 = lay.origin(blk)
            for i in range(lay.wm):
                for j in range(lay.wn):
                    for c in range(4):
                        b.store(const(self.comp, 0), accs[i][j][c])
            self._steps(row0, col0, accs, depth)
            for i in range(lay.wm):
                for j in range(lay.wn):
                    for c in range(4):
                        self.emit(lay.coords(row0, col0, i, j, c),
                                  em.Val(b.load(accs[i][j][c], typ=ct), self.comp))

        lay.each_block(one_block)

    # ---------------------------------------------------------------- fragments
    def a_fragment(self, r0, k0) -> list:
        """The A registers of the instruction tile at rows r0.., columns k0.. (register j: row
        g + 8 (j & 1), columns (j >> 1) k/2 + t * per_reg ..)."""
        s, b = self.shape, self.b
        if self.a_ldsm:
            # lane l gives the address of row l % 16, at column (l / 16) * 16 bytes
            row = b.add(r0, b.and_(self.lane, _c(15)))
            col = b.add(k0, b.mul(b.lshr(self.lane, _c(4)), _c(16 // s.elem_bytes)))
            ptr, _ = self.tl.element_ptr(self.a_ref, [row, col])
            return ldmatrix(self.em.ops, ptr, s.a_regs, False)
        regs = []
        for j in range(s.a_regs):
            row = b.add(b.add(r0, self.g), _c(8 * (j & 1)))
            col = b.add(b.add(k0, _c((j >> 1) * (s.k // 2))), b.mul(self.t, _c(s.per_reg)))
            regs.append(self._pack(self.a_ref, [[row, b.add(col, _c(e))] for e in range(s.per_reg)]))
        return regs

    def b_fragments(self, col0, k0, wn: int) -> list:
        """The B registers of the warp's ``wn`` instruction tiles at columns col0.., rows k0..
        (register j: rows j k/2 + t * per_reg .., column g)."""
        s, b = self.shape, self.b
        if self.b_kmajor:
            out = []
            j = 0
            while j < wn:
                pair = 2 if wn - j >= 2 else 1
                # lane l gives column n (a row of the [N, K] copy) col0 + (l / 16) * 8 + l % 8, at
                # k0 + ((l / 8) & 1) * 16 bytes
                q = b.lshr(self.lane, _c(3))
                k = b.add(k0, b.mul(b.and_(q, _c(1)), _c(16 // s.elem_bytes)))
                col = b.add(b.add(col0, _c(j * s.n)), b.and_(self.lane, _c(7)))
                if pair == 2:
                    col = b.add(col, b.mul(b.lshr(q, _c(1)), _c(8)))
                ptr, _ = self.tl.element_ptr(self.b_ref, [k, col])
                regs = ldmatrix(self.em.ops, ptr, 2 * pair, False)
                out.extend(regs[p * 2:(p + 1) * 2] for p in range(pair))
                j += pair
            return out
        if self.b_ldsm:
            out = []
            j = 0
            while j < wn:
                pair = 2 if wn - j >= 2 else 1
                # lane l gives row k0 + ((l / 8) & 1) * 8 + l % 8 of column block (l / 16)
                q = b.lshr(self.lane, _c(3))
                row = b.add(b.add(k0, b.mul(b.and_(q, _c(1)), _c(8))), b.and_(self.lane, _c(7)))
                col = b.add(col0, _c(j * s.n))
                if pair == 2:
                    col = b.add(col, b.mul(b.lshr(q, _c(1)), _c(8)))
                ptr, _ = self.tl.element_ptr(self.b_ref, [row, col])
                regs = ldmatrix(self.em.ops, ptr, 2 * pair, True)
                out.extend(regs[p * 2:(p + 1) * 2] for p in range(pair))
                j += pair
            return out
        out = []
        for j in range(wn):
            col = b.add(b.add(col0, _c(j * s.n)), self.g)
            regs = []
            for r in range(s.b_regs):
                row = b.add(b.add(k0, _c(r * (s.k // 2))), b.mul(self.t, _c(s.per_reg)))
                regs.append(self._pack(self.b_ref, [[b.add(row, _c(e)), col] for e in range(s.per_reg)]))
            out.append(regs)
        return out

    def _pack(self, ref, coords: list) -> ir.Value:
        """The elements at ``coords`` packed into one 32-bit register, the first lowest."""
        b = self.b
        width = 32 // len(coords)
        word = None
        for e, at in enumerate(coords):
            v = self.tl.load(ref, at)
            bits = b.bitcast(v, I16) if width == 16 else v
            x = b.zext(bits, I32T)
            if e:
                x = b.shl(x, _c(width * e))
            word = x if word is None else b.or_(word, x)
        return word


# A warp's block of a quantized product: at most this many instruction tiles, and this many
# blocks of 32 unrolled, by the registers a thread may hold (more rounds instead). Measured with
# ptxas 13.0 on sm_90, operands read from global memory: 16 tiles took 242 registers on a
# 128 x 128 output; 8 tiles with 2 blocks unrolled take about 145 (no spill under 255), but
# spill at 512 threads (128 registers), where 4 tiles take 104 to 122; at 1024 threads (64
# registers) 4 tiles spill, 2 tiles with the loop over blocks not unrolled fit.
QUANTIZED_BUDGET = {255: (8, 2), 128: (4, 2), 64: (2, 1)}


def quantized_budget(threads: int) -> tuple[int, int]:
    """(tiles a warp owns at most, blocks of 32 unrolled) for a quantized product in a CTA of
    ``threads``, by the registers a thread may hold (65536 / threads, at most 255)."""
    regs = min(255, 65536 // threads)
    return QUANTIZED_BUDGET[max(r for r in QUANTIZED_BUDGET if r <= regs)]


class MmaQuantized:
    """``qdot_t``/``qmma_t`` on the integer MMA (LANGUAGE §10): the output ``[m, n]`` dealt to the
    warps as ``dot``'s is (``Layout``, at most ``quantized_budget`` 16 x 8 tiles a warp, or
    twice as many 8 x 8 ones); for each block ``bk`` of 32 along K one
    ``mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32`` per instruction tile from zero (``shape``
    ``QUANTIZED``; ``QUANTIZED_8``: two chained ``m8n8k16``) gives the block's exact i32 sums,
    which are scaled in f32 and added into f32 accumulators,
    ``acc += f32(sum) * (sa[i, bk] * sw[j, bk])``, blocks in order: what the dp4a path computes.

    **Operands.** ``ldsm`` holds, for ``"a"`` (``[M, K]``) and ``"w"`` (``[N, K]``), the
    shared i8 tile to read with ``ldmatrix`` (rows starting at multiples of 16 bytes; m16n8k32
    only), or None: ``words(which, row, k, apart)`` then gives ``which``'s bytes
    ``[row, k .. k + 3]`` and ``[row, k + apart .. k + apart + 3]`` as two i32, the first byte
    lowest, read where the operand is. With no ldmatrix operand the k order inside a block is
    free (an exact integer sum), so lane ``t`` of a group feeds the instructions bytes
    ``32 bk + 8 t ..`` of its rows of both operands (``apart`` 4: one 8-byte load where the
    operand allows it; m16n8k32's column ``16 h + 4 t + e``, or column ``4 t + e`` of the
    ``h``-th m8n8k16, is operand column ``32 bk + 8 t + 4 h + e``, for A and B alike); with
    one, both take the instruction's own order (``apart`` 16). ``scale(which, index, bk)`` is the
    f32 scale of row ``index`` of ``a`` or of ``w`` (column of the output) at block ``bk``."""

    def __init__(self, tl, shape: MmaShape, m: int, n: int, depth: int, words, scale, emit,
                 ldsm: dict | None = None):
        self.tl, self.em, self.b, self.shape = tl, tl.em, tl.b, shape
        self.m, self.n, self.depth = m, n, depth
        self.words, self.scale, self.emit = words, scale, emit
        self.ldsm = {k: v for k, v in (ldsm or {}).items() if v is not None} if shape is QUANTIZED else {}

    def _a_fragments(self, lay, r0, kk) -> list:
        """The A registers of the instruction tile at rows r0 .. (the whole-warp row ``r0``),
        block start ``kk``: one list per instruction of the block."""
        b = self.b
        if "a" in self.ldsm:
            # lane l gives the address of row l % 16, at column (l / 16) * 16
            row = b.add(r0, b.and_(lay.lane, _c(15)))
            col = b.add(kk, b.mul(b.lshr(lay.lane, _c(4)), _c(16)))
            ptr, _ = self.tl.element_ptr(self.ldsm["a"], [row, col])
            return [ldmatrix(self.em.ops, ptr, 4, False)]
        row = b.add(r0, lay.g)
        lo = self.words("a", row, self._k(lay, kk), self.apart)
        if self.shape is QUANTIZED_8:
            return [[lo[0]], [lo[1]]]
        hi = self.words("a", b.add(row, _c(8)), self._k(lay, kk), self.apart)
        return [[lo[0], hi[0], lo[1], hi[1]]]

    def _b_fragments(self, lay, c0, kk) -> list:
        """The B registers of each of the warp's ``wn`` instruction tiles from column c0: one
        list per instruction of the block."""
        b = self.b
        if "w" in self.ldsm:
            out = []
            j = 0
            while j < lay.wn:
                pair = 2 if lay.wn - j >= 2 else 1
                # lane l gives row (column of the output) c0 + 8 j + (l / 16) * 8 + l % 8 of w, at
                # column kk + ((l / 8) & 1) * 16
                q = b.lshr(lay.lane, _c(3))
                k = b.add(kk, b.mul(b.and_(q, _c(1)), _c(16)))
                row = b.add(b.add(c0, _c(j * QUANTIZED.n)), b.and_(lay.lane, _c(7)))
                if pair == 2:
                    row = b.add(row, b.mul(b.lshr(q, _c(1)), _c(8)))
                ptr, _ = self.tl.element_ptr(self.ldsm["w"], [row, k])
                regs = ldmatrix(self.em.ops, ptr, 2 * pair, False)
                out.extend([regs[p * 2:(p + 1) * 2]] for p in range(pair))
                j += pair
            return out
        out = []
        for j in range(lay.wn):
            w = self.words("w", b.add(b.add(c0, _c(j * self.shape.n)), lay.g), self._k(lay, kk), self.apart)
            out.append([[w[0]], [w[1]]] if self.shape is QUANTIZED_8 else [w])
        return out

    def _k(self, lay, kk):
        """The first column of the lane's bytes in the block starting at ``kk``."""
        return self.b.add(kk, self.b.mul(lay.t, _c(8 if self.apart == 4 else 4)))

    def lower(self) -> None:
        em, b, s = self.em, self.b, self.shape
        self.apart = 16 if self.ldsm else 4
        most, unroll = quantized_budget(em.threads)
        lay = Layout(em, s, self.m, self.n, most * (16 // s.m))
        nacc = s.m * s.n // 32
        accs = [[[em.alloca(FLOAT, name=f"qmma{i}_{j}_{c}") for c in range(nacc)] for j in range(lay.wn)]
                for i in range(lay.wm)]
        zero = [_c(0)] * nacc

        def one_block(blk):
            row0, col0 = lay.origin(blk)
            rows = [b.add(b.add(row0, _c(i * s.m)), lay.g) for i in range(lay.wm)]
            for i in range(lay.wm):
                for j in range(lay.wn):
                    for c in range(nacc):
                        b.store(ir.Constant(FLOAT, 0.0), accs[i][j][c])

            def step(bk):
                kk = b.mul(bk, _c(32))
                fa = [self._a_fragments(lay, b.add(row0, _c(i * s.m)), kk) for i in range(lay.wm)]
                fb = self._b_fragments(lay, col0, kk)
                sa = [[self.scale("a", b.add(rows[i], _c(8 * h)), bk) for h in range(s.m // 8)]
                      for i in range(lay.wm)]
                first = [b.add(b.add(col0, _c(j * s.n)), b.mul(lay.t, _c(2))) for j in range(lay.wn)]
                sw = [[self.scale("w", b.add(first[j], _c(e)), bk) for e in range(2)] for j in range(lay.wn)]
                for i in range(lay.wm):
                    for j in range(lay.wn):
                        d = zero
                        for x, y in zip(fa[i], fb[j]):          # one instruction, or two chained
                            d = mma(em.ops, s, x, y, d)
                        for c in range(nacc):
                            both = b.fmul(sa[i][c >> 1], sw[j][c & 1])
                            scaled = b.fmul(b.sitofp(d[c], FLOAT), both, flags=("contract",))
                            acc = b.load(accs[i][j][c], typ=FLOAT)
                            b.store(b.fadd(acc, scaled, flags=("contract",)), accs[i][j][c])
            steps = self.depth // 32
            em.counted_loop(0, steps, step, unroll=steps if steps <= unroll else unroll)
            for i in range(lay.wm):
                for j in range(lay.wn):
                    for c in range(nacc):
                        self.emit(lay.coords(row0, col0, i, j, c), em.Val(b.load(accs[i][j][c], typ=FLOAT), F32))

        lay.each_block(one_block)


__all__ = ["MmaShape", "MmaDot", "MmaQuantized", "quantized_shape", "quantized_budget", "Carried", "Layout",
           "tensor_core_shape", "warp_blocking", "mma", "ldmatrix", "rows_aligned"]
