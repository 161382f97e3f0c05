"""The tile built-ins whose elements depend on more than one input element (LANGUAGE §8), as a
table from built-in to emitter. Each emitter picks its own mapping of output elements to the
CTA's threads and hands every element it computes, in registers, to ``emit(coords, value)``: the
rest of the statement (tiles.py fuses the elementwise tree around it and stores the result).

| built-in | threads | PTX it becomes |
|---|---|---|
| ``dot``, ``dot_t`` on f16, bf16, i8, u8 | each warp a block of 16 x 8 instruction tiles (mma.py) | ``ldmatrix`` + ``mma.sync`` |
| other ``dot``, ``dot_t`` | each thread a ``tm x tn`` block of outputs (register blocking), rows and columns strided across threads so a warp's shared loads are broadcasts or consecutive | ``ld.shared`` + ``fma.rn.f32`` (``mad.lo.s32`` for integers) |
| the same on aligned f32 tiles | the same, with the block's columns contiguous | ``ld.shared.v4.f32`` (four k of A, four columns of B) + ``fma.rn.f32`` |
| ``rowsum``, ``rowmax`` | a segment of up to 32 lanes per row, lanes striding the row | ``add``/``max`` + ``shfl.sync.bfly`` |
| ``cumsum`` | a group of lanes per column, a segment of rows per lane | ``add``, ``shfl.sync.up`` |
| ``qdot_t``, ``qmma_t``, ``M``, ``N`` multiples of 8 | each warp a block of 16 x 8 (8 x 8) instruction tiles (mma.py ``MmaQuantized``), operands read where they are: ``ldmatrix`` from aligned shared tiles, else 8 bytes of a row per load | ``mma.sync`` m16n8k32 s8 (sm_80 and later, ``M`` a multiple of 16; one per block of 32) or m8n8k16 (two), ``cvt.rn.f32.s32`` + ``fma`` per block |
| other ``qdot_t``, ``qmma_t`` | a thread per output (the simple form) | ``dp4a`` per four bytes, ``fma`` per block of 32 |

Operands of ``dot`` and ``dot_t`` that are not plain shared tiles (views of global memory,
slices of tiles at offsets that are not constants, expressions) are first copied into scratch
tiles, as the statement's shared-memory plan says, and ``dot_t``'s second operand is copied
transposed, so the inner loop always reads ``A[i, k]`` and ``B[k, j]`` from shared
memory without masks or bank conflicts.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ..language.types import F32, I32, Scalar, Tile, settle
from . import collectives as C
from . import intrinsics as K
from ..analyzer.checked import statement_key
from ..analyzer.syntax import ast as A
from .errors import LoweringError
from .ltypes import I32T, I64, SHARED, arith_type, const, scalar_ir
from .memory import MemRef, Term, scale
from .mma import Carried, MmaDot, MmaQuantized, quantized_shape, rows_aligned, tensor_core_shape

MAX_BLOCK = 8          # at most 8 x 8 accumulators per thread
# The k loop of dot unrolls 4 times: fully unrolled (BK = 32) it held 127 registers on tiled_gemm;
# 4 steps per iteration keep 40 and issue fewer instructions per step than nvcc's (sass_vs_nvcc).
DOT_UNROLL = 4


def _next_pow2(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def shared_operand(tl, sw, node, transposed: bool = False, k_major: bool = False):
    """``node`` as a shared-memory MemRef without masks; (ref, True) when it was copied. A
    ``transposed`` copy with ``k_major`` keeps ``node``'s own layout in the same scratch bytes
    (``dot_t``'s second operand for mma.py, whose ldmatrix reads its rows along K) and is
    returned as a transposed view. The
    statement's shared-memory plan (analyzer/smem.py) says which operands are copied: those it
    cannot see from the AST to be a shared tile read in place (a scratch tile, a function's
    result tile, a tile or a slice of one at constant offsets inside it), even where the bounds
    prover could have shown a slice in bounds, so that the copies are the ones PH211 counted.
    An operand its loop copied one iteration ahead (emit.py, the plan's ``Ahead``) is read from
    the buffer that copy filled, already waited for and behind a barrier."""
    em = tl.em
    ahead = em.operands_ahead.get(id(node))
    if ahead is not None:
        return product_view(ahead, transposed, k_major), False
    tl.materialize_others(sw, node)
    if not em.smem.current.copies(node):
        ref = sw.subst.get(id(node)) or sw.leaves.get(id(node))
        if ref is None or ref.space != SHARED or ref.masked or transposed:
            raise LoweringError("the shared-memory plan reads a `dot` operand in place that is not an "
                                "unmasked shared tile", getattr(node, "span", None))
        return ref, False
    tile, padded = operand_tile(em, node, transposed, k_major)
    temp = tl.scratch(tile, ("copy", id(node)), padded=padded)
    copy_operand(tl, sw, node, temp, transposed, k_major)
    return product_view(temp, transposed, k_major), True


def operand_layout(em, product, operand) -> tuple[bool, bool]:
    """(transposed, k_major) of the copy ``product`` makes of ``operand`` (as ``dot`` asks
    shared_operand for it)."""
    transposed = product.func == "dot_t" and operand is product.args[1]
    return transposed, transposed and product_shape(em, product)[4] is not None


def product_shape(em, node) -> tuple:
    """(accumulator type, m, n, depth, the tensor-core instruction or None for FMA) of a ``dot``
    or ``dot_t``: [m, depth] x [depth, n]."""
    comp = _accumulator_type(em.type_of(node).elem)
    ta, tb = em.type_of(node.args[0]), em.type_of(node.args[1])
    m, depth = ta.shape
    n = tb.shape[0] if node.func == "dot_t" else tb.shape[1]
    return comp, m, n, depth, tensor_core_shape(em.arch, settle(ta.elem), settle(tb.elem), comp, m, n, depth,
                                                 em.threads)


def operand_tile(em, node, transposed: bool, k_major: bool) -> tuple[Tile, bool]:
    """The tile an operand's copy is stored as, and whether it takes the plan's row padding: its
    own layout (``dot_t``'s second operand on tensor cores too: read as a transposed view), or
    transposed, rows contiguous (``dot_t``'s second operand on the FMA path)."""
    t = em.type_of(node)
    el = settle(t.elem)
    if transposed and not k_major:
        return Tile(el, tuple(t.shape)[::-1]), False
    return Tile(el, tuple(t.shape)), True


def copy_operand(tl, sw, node, temp: MemRef, transposed: bool, k_major: bool) -> None:
    """Copy ``node`` (as ``sw`` evaluates it) into ``temp``, laid out as operand_tile says: in
    16-byte chunks where it is a view or tile read as it is (tiles.py ``copy_chunks``, with
    ``cp.async`` when the loop copies it ahead), element by element otherwise."""
    em = tl.em
    t = em.type_of(node)
    el = settle(t.elem)
    src = None
    if isinstance(node, (A.Name, A.Index)) and id(node) not in sw.subst:
        src = sw.leaves.get(id(node))
    if transposed and k_major:                  # the same bytes as the plan's transposed copy
        sweep = lambda: tl.linear(list(t.shape), lambda c: tl.store(temp, c, em.to(tl.value_at(sw, node, c), el).v))  # noqa: E731
        if src is None or not tl.copy_chunks(temp, src, sweep):      # 16-byte chunks (tiles.py)
            sweep()
        return
    shape = list(temp.shape)

    def copy(coords):
        at = coords[::-1] if transposed else coords
        tl.store(temp, coords, em.to(tl.value_at(sw, node, at), el).v)
    if transposed or src is None or not tl.copy_chunks(temp, src, lambda: tl.linear(shape, copy)):
        tl.linear(shape, copy)


def product_view(temp: MemRef, transposed: bool, k_major: bool) -> MemRef:
    """What the product reads of an operand's copy: ``dot_t``'s second operand on tensor cores,
    kept in its own [N, K] layout, as the [K, N] view it multiplies by."""
    if transposed and k_major:
        return MemRef(temp.ptr, temp.elem, [temp.axes[1], temp.axes[0]], [], SHARED, buffer=temp.buffer)
    return temp


def blocking(m: int, n: int, threads: int) -> tuple[int, int]:
    """The thread block ``tm x tn`` of a [m, n] product: as few rounds over the CTA as possible,
    then as few accumulators as that allows, then as square as possible."""
    best = None
    for tm in (1, 2, 4, 8):
        for tn in (1, 2, 4, 8):
            if m % tm or n % tn or tm * tn > MAX_BLOCK * MAX_BLOCK:
                continue
            blocks = (m // tm) * (n // tn)
            rounds = -(-blocks // threads)
            key = (rounds, tm * tn, abs(tm - tn), -tn)
            if best is None or key < best[0]:
                best = (key, tm, tn)
    return best[1], best[2]


def _accumulator_type(out_elem: Scalar) -> Scalar:
    return arith_type(settle(out_elem))


def _fma(em, acc, x, y, comp: Scalar):
    family = "float" if comp.is_float else "int"
    return K.BINARY[("+", family)](em.ops, acc, K.BINARY[("*", family)](em.ops, x, y))   # fma.rn.f32 / mad.lo.s32


def dot(tl, sw, node, emit) -> None:
    """``dot(a, b)``: [M, K] x [K, N]; ``dot_t(a, b)``: [M, K] x [N, K] (b read transposed)."""
    em = tl.em
    b = tl.b
    comp, m, n, depth, shape = product_shape(em, node)
    a_ref, copied_a = shared_operand(tl, sw, node.args[0])
    b_ref, copied_b = shared_operand(tl, sw, node.args[1], transposed=node.func == "dot_t",
                                     k_major=shape is not None)
    if copied_a or copied_b:
        K.barrier(em.ops)                       # the copies are read by other threads
    if shape is not None:                       # mma.sync (mma.py)
        MmaDot(tl, a_ref, b_ref, shape, comp, emit, em.carried.get(id(node))).lower()
        return
    tm, tn = blocking(m, n, em.threads)
    gm, gn = m // tm, n // tn
    blocks = gm * gn
    threads = em.threads
    accs = [[em.alloca(scalar_ir(comp), name=f"acc{r}_{c}") for c in range(tn)] for r in range(tm)]
    # f32: four steps along K at a time from 16-byte shared loads (ld.shared.v4.f32): a row of A
    # gives four k, a row of B four contiguous columns of the thread's block
    vec = (comp == F32 and a_ref.elem == F32 and b_ref.elem == F32 and depth % 4 == 0 and tn % 4 == 0
           and rows_aligned(a_ref, 4) and rows_aligned(b_ref, 4))

    def one_block(bi):
        bm = b.udiv(bi, ir.Constant(I32T, gn))
        bn = b.urem(bi, ir.Constant(I32T, gn))
        rows = [b.add(bm, ir.Constant(I32T, r * gm)) for r in range(tm)]
        if vec:                                  # the thread's columns contiguous: bn * tn ..
            first = b.mul(bn, ir.Constant(I32T, tn))
            cols = [b.add(first, ir.Constant(I32T, c)) for c in range(tn)]
        else:
            cols = [b.add(bn, ir.Constant(I32T, c * gn)) for c in range(tn)]
        for r in range(tm):
            for c in range(tn):
                b.store(const(comp, 0), accs[r][c])

        def step4(kk):
            k0 = b.mul(kk, ir.Constant(I32T, 4))
            av = [_run4(tl, a_ref, rows[r], 0, k0, 2) for r in range(tm)]
            for q in range(4):
                k = b.add(k0, ir.Constant(I32T, q))
                bv = [x for c in range(0, tn, 4) for x in _run4(tl, b_ref, k, 0, cols[c], 2)]
                for r in range(tm):
                    for c in range(tn):
                        acc = b.load(accs[r][c], typ=scalar_ir(comp))
                        b.store(_fma(em, acc, av[r][q], bv[c], comp), accs[r][c])

        def step(k):
            av = [em.to(em.Val(tl.load(a_ref, [rows[r], k]), a_ref.elem), comp).v for r in range(tm)]
            bv = [em.to(em.Val(tl.load(b_ref, [k, cols[c]]), b_ref.elem), comp).v for c in range(tn)]
            for r in range(tm):
                for c in range(tn):
                    acc = b.load(accs[r][c], typ=scalar_ir(comp))
                    b.store(_fma(em, acc, av[r], bv[c], comp), accs[r][c])
        if vec:
            em.counted_loop(0, depth // 4, step4, unroll=2)
        else:
            em.counted_loop(0, depth, step, unroll=DOT_UNROLL)
        for r in range(tm):
            for c in range(tn):
                emit([rows[r], cols[c]], em.Val(b.load(accs[r][c], typ=scalar_ir(comp)), comp))

    _rounds(tl, blocks, threads, one_block)


def carry(tl, stmt, target: MemRef) -> Carried | None:
    """The accumulator of ``stmt`` (``acc += dot(a, b)``, one the execution plan lets its loop
    carry) in registers, when the product runs on tensor cores into a tile of its own
    accumulator type and the registers it takes are few enough; its elements read in (call
    before the loop). None: the statement goes through the tile at every step."""
    em = tl.em
    node = stmt.value
    comp, m, n, depth, shape = product_shape(em, node)
    sp = em.smem.plan.statements.get(statement_key(em.inst, stmt))
    if (shape is None or target.elem != comp or target.masked or list(target.shape) != [m, n]
            or sp is None or sp.fused is not node or sp.alias or not Carried.fits(em, shape, m, n)):
        return None
    c = Carried(tl, target, shape, comp, m, n)
    c.enter()
    em.carried[id(node)] = c
    return c


def _run4(tl, ref, row, row_twos: int, col, col_twos: int) -> list:
    """``ref[row, col .. col + 3]`` as four values, from one 16-byte load where the alignment
    (the rows' and ``col``'s known trailing zero bits) allows it."""
    b = tl.b
    terms = [scale(Term(b.zext(row, I64), row_twos), ref.axes[0].stride),
             scale(Term(b.zext(col, I64), col_twos), ref.axes[1].stride)]
    v = tl.em.addr.load_run(ref, terms, 1, 4)
    return [b.extract_element(v, ir.Constant(I32T, i)) for i in range(4)]


def _rounds(tl, count: int, threads: int, body) -> None:
    """``body(i)`` for i = t, t + T, .. below ``count`` (thread t)."""
    em = tl.em
    b = tl.b
    tid = em.fresh_thread()
    rounds = -(-count // threads)

    def one(i):
        if count % threads:
            with b.if_then(b.icmp_unsigned("<", i, ir.Constant(I32T, count))):
                body(i)
        else:
            body(i)
    if rounds == 1:
        one(tid)
    else:
        em.counted_loop(0, rounds, lambda k: one(b.add(tid, b.mul(k, ir.Constant(I32T, threads)))))


def _identity(op: str, comp: Scalar):
    if op == "sum":          # -0.0 for floats: a row of -0.0 sums to -0.0, as the simulator's does
        return ir.Constant(scalar_ir(comp), -0.0) if comp.is_float else const(comp, 0)
    # rowmax: NaN is neutral for max (one NaN gives the other operand), so a row of NaNs stays
    # NaN, as the simulator and docs/language-choices.md say; -inf would turn it into -inf
    return ir.Constant(scalar_ir(comp), float("nan")) if comp.is_float else const(comp, -(1 << 31))


def row_reduce(tl, sw, node, emit) -> None:
    """``rowsum(t)`` / ``rowmax(t)``: [R, C] -> [R, 1]. Rows go to segments of S lanes (S the
    power of two covering C, at most 32), each lane folds every S-th element of its row, and
    log2(S) butterfly shuffles fold the segment; its first lane has the row's result."""
    em = tl.em
    b = tl.b
    operand = node.args[0]
    tl.materialize_others(sw, operand)
    t = em.type_of(operand)
    rows, cols = t.shape
    comp = arith_type(settle(t.elem))
    op = "sum" if node.func == "rowsum" else "max"
    seg = min(32, _next_pow2(cols))
    rows_per_warp = 32 // seg
    warps = em.threads // 32
    per_round = warps * rows_per_warp
    rounds = -(-rows // per_round)
    tid = em.fresh_thread()
    lane = b.and_(tid, ir.Constant(I32T, 31))
    warp = b.lshr(tid, ir.Constant(I32T, 5))
    seg_index = b.udiv(lane, ir.Constant(I32T, seg))
    seg_lane = b.urem(lane, ir.Constant(I32T, seg))
    partial = em.alloca(scalar_ir(comp), name="row_partial")
    steps = -(-cols // seg)

    def one_round(k):
        group = b.add(b.mul(k, ir.Constant(I32T, warps)), warp) if rounds > 1 else warp
        row = b.add(b.mul(group, ir.Constant(I32T, rows_per_warp)), seg_index)
        row_ok = b.icmp_unsigned("<", row, ir.Constant(I32T, rows)) if rows % per_round else None
        b.store(_identity(op, comp), partial)

        def step(q):
            col = b.add(seg_lane, b.mul(q, ir.Constant(I32T, seg)))
            ok = row_ok
            if cols % seg:
                col_ok = b.icmp_unsigned("<", col, ir.Constant(I32T, cols))
                ok = col_ok if ok is None else b.and_(ok, col_ok)

            def fold():
                v = em.to(tl.value_at(sw, operand, [row, col]), comp).v
                cur = b.load(partial, typ=scalar_ir(comp))
                b.store(K.FOLD[op](em.ops, cur, v), partial)      # add.f32 / max.f32
            if ok is None:
                fold()
            else:
                with b.if_then(ok):
                    fold()
        if steps == 1:
            step(ir.Constant(I32T, 0))
        else:
            em.counted_loop(0, steps, step)
        v = b.load(partial, typ=scalar_ir(comp))
        width = seg // 2
        while width >= 1:                                           # shfl.sync.bfly.b32
            other = C.shuffle_raw(em.ops, "xor", v, comp, ir.Constant(I32T, width))
            v = K.FOLD[op](em.ops, v, other)
            width //= 2
        first = b.icmp_unsigned("==", seg_lane, ir.Constant(I32T, 0))
        if row_ok is not None:
            first = b.and_(first, row_ok)
        with b.if_then(first):
            emit([row, ir.Constant(I32T, 0)], em.Val(v, comp))

    if rounds == 1:
        one_round(ir.Constant(I32T, 0))
    else:
        em.counted_loop(0, rounds, one_round)


def cumsum(tl, sw, node, emit) -> None:
    """``cumsum(t)``: each column's inclusive prefix sum down the rows. A column goes to a group of
    S lanes of one warp (S a power of two, as many as the threads allow, at most 32 and at most
    the rows), each lane a segment of L = ceil(R / S) consecutive rows: a lane sums its segment,
    an exclusive scan of the segment sums across the group by ``shfl.sync.up`` gives what comes
    before it, and the lane walks its segment again emitting the running sums."""
    em = tl.em
    b = tl.b
    operand = node.args[0]
    tl.materialize_others(sw, operand)
    t = em.type_of(operand)
    rows, cols = t.shape
    comp = arith_type(settle(t.elem))
    threads = em.threads
    group = 1
    while group * 2 <= min(32, rows) and cols * group * 2 <= threads:
        group *= 2
    seg_len = -(-rows // group)
    per_round = threads // group                    # columns per round
    rounds = -(-cols // per_round)
    tid = em.fresh_thread()
    member = b.urem(tid, ir.Constant(I32T, group))
    first_row = b.mul(member, ir.Constant(I32T, seg_len))
    running = em.alloca(scalar_ir(comp), name="running")

    def walk(j, col_ok, on_value):
        """on_value(row, value) for the rows of this lane's segment that exist."""
        def step(q):
            row = b.add(first_row, q)
            ok = col_ok
            if rows % group:
                row_ok = b.icmp_unsigned("<", row, ir.Constant(I32T, rows))
                ok = row_ok if ok is None else b.and_(ok, row_ok)

            def body():
                on_value(row, em.to(tl.value_at(sw, operand, [row, j]), comp).v)
            if ok is None:
                body()
            else:
                with b.if_then(ok):
                    body()
        em.counted_loop(0, seg_len, step)

    def add_to_running(row, v):
        b.store(K.FOLD["sum"](em.ops, b.load(running, typ=scalar_ir(comp)), v), running)   # add.f32

    def one_round(k):
        j = b.add(b.mul(k, ir.Constant(I32T, per_round)), b.udiv(tid, ir.Constant(I32T, group)))
        col_ok = b.icmp_unsigned("<", j, ir.Constant(I32T, cols)) if cols % per_round else None
        b.store(const(comp, 0), running)
        walk(j, col_ok, add_to_running)                                   # the segment's sum
        total = b.load(running, typ=scalar_ir(comp))
        scan = total
        width = 1
        while width < group:                        # inclusive scan across the group: shfl.sync.up
            other = C.shuffle_raw(em.ops, "up", scan, comp, ir.Constant(I32T, width))
            has = b.icmp_unsigned(">=", member, ir.Constant(I32T, width))
            scan = b.select(has, K.FOLD["sum"](em.ops, scan, other), scan)
            width *= 2
        # what comes before this lane's segment: the previous lane's inclusive scan (not scan -
        # total, which is NaN once a segment's sum is infinite, or overflows where the sums do)
        before = const(comp, 0)
        if group > 1:
            prev = C.shuffle_raw(em.ops, "up", scan, comp, ir.Constant(I32T, 1))
            before = b.select(b.icmp_unsigned(">=", member, ir.Constant(I32T, 1)), prev, before)
        b.store(before, running)

        def out(row, v):
            add_to_running(row, v)
            emit([row, j], em.Val(b.load(running, typ=scalar_ir(comp)), comp))
        walk(j, col_ok, out)

    if rounds == 1:
        one_round(ir.Constant(I32T, 0))
    else:
        em.counted_loop(0, rounds, one_round)


def quantized(tl, sw, node, emit) -> None:
    """``qdot_t(a, sa, w, sw)`` and ``qmma_t``: on the integer MMA where ``quantized_shape``
    allows (``_quantized_mma``: sm_75 and later, ``M`` and ``N`` multiples of 8); else a thread
    per output: for each block of 32 along K the i8 products are summed in i32 (dp4a on four
    bytes at a time), then scaled by the two blocks' f32 scales and accumulated in f32."""
    em = tl.em
    b = tl.b
    a, sa, w, sw_ = node.args
    for x in node.args:
        tl.materialize_others(sw, x)
    m, depth = em.type_of(a).shape
    n = em.type_of(w).shape[0]
    shape = quantized_shape(em.arch, m, n, depth, em.threads)
    if shape is not None:                                  # mma.sync m16n8k32 or m8n8k16
        _quantized_mma(tl, sw, node, emit, shape, m, n, depth)
        return
    blocks = depth // 32
    acc = em.alloca(scalar_ir(F32), name="qacc")
    isum = em.alloca(scalar_ir(I32), name="qsum")
    transposed_scales = node.func == "qmma_t"

    def output(coords):
        i, j = coords
        b.store(const(F32, 0), acc)

        def block(bk):
            base = b.mul(bk, ir.Constant(I32T, 32))
            b.store(ir.Constant(I32T, 0), isum)

            def quad(q):
                k0 = b.add(base, b.mul(q, ir.Constant(I32T, 4)))
                total = K.dp4a(em.ops, _byte_word(tl, sw, a, i, k0), _byte_word(tl, sw, w, j, k0),
                               b.load(isum, typ=I32T), True, True)              # dp4a.s32.s32
                b.store(total, isum)
            em.counted_loop(0, 8, quad)
            s_a = em.to(tl.value_at(sw, sa, [i, bk]), F32).v
            s_w = em.to(tl.value_at(sw, sw_, [bk, j] if transposed_scales else [j, bk]), F32).v
            scaled = b.fmul(b.sitofp(b.load(isum, typ=I32T), scalar_ir(F32)), b.fmul(s_a, s_w), flags=("contract",))
            b.store(b.fadd(b.load(acc, typ=scalar_ir(F32)), scaled, flags=("contract",)), acc)
        em.counted_loop(0, blocks, block)
        emit(coords, em.Val(b.load(acc, typ=scalar_ir(F32)), F32))

    tl.linear([m, n], output)


def _byte_word(tl, sw, operand, row, k0):
    """Four consecutive i8 of ``operand[row, k0 ..]`` packed into one i32 (little endian)."""
    b = tl.b
    word = ir.Constant(I32T, 0)
    for q in range(4):
        k = b.add(k0, ir.Constant(I32T, q))
        v = tl.value_at(sw, operand, [row, k])
        byte = b.zext(v.v, I32T)
        word = b.or_(word, b.shl(byte, ir.Constant(I32T, 8 * q)) if q else byte)
    return word


def _quantized_mma(tl, sw, node, emit, shape, m: int, n: int, depth: int) -> None:
    """``qdot_t``/``qmma_t`` on the integer MMA (mma.py ``MmaQuantized``). ``a`` and ``w`` are
    read where they are, with no shared memory of their own: an i8 shared tile whose rows start
    at multiples of 16 bytes with ``ldmatrix`` (m16n8k32); anything else (a view of global
    memory, an expression, an unaligned or masked slice) four or eight bytes of a row at a
    time, in one load where it is an unmasked i8 tile or view and its alignment allows
    (``ld.b32``, ``ld.v2.b32``), else byte by byte."""
    em = tl.em
    b = tl.b
    a, sa, w, sw_ = node.args
    operands = {"a": a, "w": w}

    def plain(operand):
        ref = sw.subst.get(id(operand)) or sw.leaves.get(id(operand))
        if ref is not None and not ref.masked and ref.elem.name == "i8" and len(ref.axes) == 2:
            return ref
        return None
    refs = {k: plain(v) for k, v in operands.items()}
    ldsm = {k: r for k, r in refs.items() if r is not None and r.space == SHARED and rows_aligned(r, 1)}

    def words(which, row, k, apart):
        operand, ref = operands[which], refs[which]
        if ref is not None:
            terms = [scale(Term(b.zext(row, I64), 0), ref.axes[0].stride),
                     scale(Term(b.zext(k, I64), 3 if apart == 4 else 2), ref.axes[1].stride)]
            if apart == 4:                          # eight consecutive bytes
                v = em.addr.load_run(ref, terms, 1, 8)
                pair = b.bitcast(v, ir.VectorType(I32T, 2))
                return [b.extract_element(pair, ir.Constant(I32T, e)) for e in range(2)]
            out = []
            for e in range(2):
                ke = b.add(k, ir.Constant(I32T, apart)) if e else k
                at = [terms[0], scale(Term(b.zext(ke, I64), 2), ref.axes[1].stride)]
                out.append(b.bitcast(em.addr.load_run(ref, at, 1, 4), I32T))
            return out
        return [_byte_word(tl, sw, operand, row, b.add(k, ir.Constant(I32T, apart * e))) for e in range(2)]

    def scale_of(which, index, bk):
        if which == "a":
            return em.to(tl.value_at(sw, sa, [index, bk]), F32).v
        at = [bk, index] if node.func == "qmma_t" else [index, bk]
        return em.to(tl.value_at(sw, sw_, at), F32).v

    MmaQuantized(tl, shape, m, n, depth, words, scale_of, emit, ldsm).lower()


PRODUCE = {
    "dot": dot,            # register-blocked fma over shared memory
    "dot_t": dot,          # the same, b copied transposed first
    "rowsum": row_reduce,  # add.f32 + shfl.sync.bfly
    "rowmax": row_reduce,  # max.f32 + shfl.sync.bfly
    "cumsum": cumsum,      # a running add.f32 down each column
    "qdot_t": quantized,   # mma.sync m16n8k32 s8 (or dp4a.s32.s32) + fma.rn.f32 per block of 32
    "qmma_t": quantized,
}
