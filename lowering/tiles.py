"""Tile statements (LANGUAGE §5, §7, §8, §10): copies, fills and elementwise sweeps into tiles and
slices, with the tile built-ins inside them.

A tile statement ``target op= value`` is lowered as **one pass over the target** that evaluates
the whole expression tree element by element (the sweep is fused per statement): the CTA's
threads share the target's elements (thread ``t`` takes elements ``t, t + T, t + 2T, ..`` in
row-major order, so a warp touches consecutive addresses), and each evaluates the tree at its
element's coordinates: slices and tiles are loads (broadcast over axes of extent 1, masked where
the bounds prover could not show them in bounds: out-of-bounds reads give 0 and stores are
skipped), scalars are computed once before the pass (they are uniform, §9.7), ``transpose`` and
``tril`` only change or test the coordinates.

The built-ins whose elements depend on more than one input element (``dot``, ``dot_t``,
``rowsum``, ``rowmax``, ``cumsum``, ``qdot_t``, ``qmma_t``: the *producers* of tile_ops.py) choose
their own mapping of elements to threads. One of them, on the tree's elementwise spine and of
the target's shape, is **fused**: it hands each element it computes, in registers, to the rest of
the tree and the store (``acc += dot(a, b)`` reads ``acc`` and writes it back in the dot's own
epilogue). Any other producer is first **materialized** into a scratch tile (shared.py), with a
barrier, and read from there.

When the tree reads the target's buffer anywhere but at the element being written (a
``transpose`` of it, another slice of it, an operand of the fused producer), every thread could
read an element another thread already overwrote, so the value goes to a scratch tile first and
is then copied. Which producer is fused, which are materialized and whether the value needs the
temporary are the statement's shared-memory plan (analyzer/smem.py), which phobos-check counted;
this module carries the plan out. The statement's parts run in LANGUAGE §6's order: the
broadcast scalars and inlined calls in source order, and a tile operation that completes before
an effect later in the value (a call that stores or synchronizes, an atomic) is carried out into
scratch right before it (analyzer/evaluation.py), so that the fused pass reads nothing an effect
changed after §6 had read it. Every tile statement ends with a barrier, and has one right before
its target is written where the execution plan (analyzer/facts/plan.py) found per-thread
accesses pending (§10); the statements here place no others.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

import llvmlite.ir as ir

from ..language.builtins import TILE_MATH
from ..analyzer.checked import PRODUCERS, tile_children
from ..analyzer.syntax import ast as A
from ..language.types import BOOL, SCALARS, Scalar, Tile, arith_join, settle, an
from . import intrinsics as K
from .align import twos_of_int
from .errors import LoweringError, Unsupported
from .ltypes import BYTES, I32T, I64, SHARED, arith_type, const
from .memory import MemRef, Term, alignment as _align, scale
from .mma import rows_aligned as _rows_aligned, sm_number
from .tile_ops import PRODUCE

ELEMENTWISE_CALLS = ("where", "tmax", "tril", "transpose") + TILE_MATH
# Elements per thread handled per iteration of a sweep's loop: fully unrolled, LLVM hoists every
# element's address (64-bit for tensors) and mask out of any enclosing loop, and the registers
# they hold outnumber the work (measured on tiled_gemm: 127 registers against nvcc's 34). A sweep
# over shared memory only has no such addresses and unrolls further.
SWEEP_UNROLL = 4
SWEEP_UNROLL_SHARED = 8


@dataclass
class Sweep:
    """The evaluation context of one tile write."""

    target: MemRef
    op: str                                        # "=", "+=", ...
    root: object                                   # the value's AST node
    scalars: dict = field(default_factory=dict)    # id(node) -> Val, computed before the pass
    leaves: dict = field(default_factory=dict)     # id(node) -> MemRef of a slice or tile name
    subst: dict = field(default_factory=dict)      # id(node) -> MemRef of a materialized node
    fused: object = None                           # the fused producer's node
    produced: object = None                        # its value at the element being stored


class TileLowering:
    def __init__(self, em):
        self.em = em
        # cp.async (sm_80 and later) for the copies a loop double buffers (copy_ahead)
        self.async_capable = sm_number(em.arch) >= 80
        self.asynchronous = False

    @property
    def b(self) -> ir.IRBuilder:
        return self.em.b

    # ================================================================ statements
    def statement(self, s, target: MemRef, value, op: str) -> None:
        """A tile statement: [barrier,] the write, barrier (§10). Its shared-memory plan
        (analyzer/smem.py) says which producer the pass fuses, whether the value goes through a
        temporary, and which ``dot`` operands are copied; its scratch is placed by the plan."""
        em = self.em
        plan = em.smem.begin(em.inst, s)
        self.write(target, value, op, fused=plan.fused, alias=plan.alias,
                   barrier_first=em.plan.needs_barrier_before(s, em.inst))
        K.barrier(em.ops)
        em.smem.end()

    def copy_ahead(self, s, target: MemRef) -> None:
        """A double-buffered copy ``t = T[..]`` (emit.py, facts/plan.py) into ``target``, one of
        its two buffers, with no barrier: its whole 16-byte chunks asynchronously (``cp.async``)
        where the target has it, the rest (chunks cut by the tensor's edges, copies that cannot
        go in chunks) with ordinary stores. The loop waits for them and puts the barrier."""
        em = self.em
        em.smem.begin(em.inst, s)
        with self.copying_ahead():
            self.write(target, s.value, "=")
        em.smem.end()

    @contextmanager
    def copying_ahead(self):
        """The copies made meanwhile are a loop's copies made ahead: whole 16-byte chunks go with
        ``cp.async`` where the target has it."""
        self.asynchronous = self.async_capable
        try:
            yield
        finally:
            self.asynchronous = False

    def write(self, target: MemRef, value, op: str, ctx: Sweep | None = None, planned: bool = False,
              fused=None, alias: bool = False, barrier_first: bool = False) -> None:
        """``target op= value`` without the closing barrier, fusing the producer ``fused`` into
        the pass, and through a scratch temporary when ``alias``; with ``barrier_first`` (the
        execution plan's, analyzer/facts/plan.py) a barrier right before the target is written,
        after everything the statement evaluates first. A nested write shares the values ``ctx``
        prepared (and, when ``planned``, its materialized nodes)."""
        em = self.em
        vt = em.type_of(value)
        sw = Sweep(target, op, value)
        if ctx is not None:
            sw.scalars, sw.leaves, sw.subst = ctx.scalars, ctx.leaves, ctx.subst
        if isinstance(vt, Scalar):                 # a fill
            if id(value) not in sw.scalars:
                sw.scalars[id(value)] = em.expr(value)
            if barrier_first:
                K.barrier(em.ops)
            self.linear(target.shape, lambda c: self.store_out(sw, c),
                        SWEEP_UNROLL_SHARED if target.space == SHARED else SWEEP_UNROLL)
            return
        if not isinstance(vt, Tile):
            raise LoweringError(f"a tile statement with {an(vt)} value", getattr(value, "span", None))
        self.prepare(sw, value, em.inst.early.get(id(value)) if ctx is None else None)
        if barrier_first:
            # every thread's per-thread accesses so far (the statement's own included) are done
            # before any thread writes the target (§10)
            K.barrier(em.ops)
        sw.fused = fused
        if not planned:
            self.materialize_others(sw, value)
        if not planned and alias:
            shape = target.shape
            if not all(isinstance(d, int) for d in shape):
                raise Unsupported("a tile statement that reads its own target at other elements over a runtime "
                                  "extent is not supported by phobos-build", value.span)
            temp = self.scratch(Tile(settle(vt.elem), tuple(shape)), ("alias",))
            self.write(temp, value, "=", sw, planned=True, fused=fused)
            K.barrier(em.ops)
            sw2 = Sweep(target, op, value, sw.scalars, sw.leaves, {id(value): temp})
            self.linear(shape, lambda c: self.store_out(sw2, c))
            return
        if sw.fused is not None:
            PRODUCE[sw.fused.func](self, sw, sw.fused, lambda coords, v: self.store_out(sw, coords, v))
            return
        shared_only = all(r.space == SHARED for r in [target, *sw.leaves.values(), *sw.subst.values()])
        sweep = lambda: self.linear(target.shape, lambda c: self.store_out(sw, c),   # noqa: E731
                                    SWEEP_UNROLL_SHARED if shared_only else SWEEP_UNROLL)
        if not self.vector_copy(sw, value, sweep):
            sweep()

    # ================================================================ 16-byte copies
    def vector_copy(self, sw: Sweep, value, sweep) -> bool:
        """``tile = view`` of a 2-D global view into a shared tile of the same element type in
        16-byte pieces: each thread copies whole 16-byte chunks of a row (``ld.global.v4`` +
        ``st.shared.v4``) where the tile's rows and the view's rows and origin are 16-byte aligned.
        What the alignment of the view depends on at run time (its row stride, its origin) is
        tested once, uniformly, and the element sweep ``sweep`` runs where it fails. A chunk the
        bounds of §7 cut (its first or last element outside the tensor) is 16 bytes of zeros,
        then, where its first element is inside, its elements copied one by one, masked. False:
        not such a copy (the caller sweeps)."""
        src = sw.leaves.get(id(value))
        if sw.op != "=" or sw.subst or src is None or not isinstance(value, (A.Name, A.Index)):
            return False
        return self.copy_chunks(sw.target, src, sweep)

    def copy_chunks(self, target: MemRef, src: MemRef, sweep) -> bool:
        """``target = src`` in 16-byte chunks where vector_copy's conditions hold (True), else
        nothing (False)."""
        em, b = self.em, self.b
        shape = target.shape
        elem = target.elem
        if (target.space != SHARED or src.space == SHARED or src.elem != elem or elem.name == "bool"
                or len(shape) != 2 or not all(isinstance(d, int) for d in shape) or target.masked
                or len(src.axes) != 2 or list(src.shape) != list(shape)):
            return False
        es = BYTES[elem.name]
        vec = 16 // es
        if es > 16 or shape[1] % vec or not _rows_aligned(target, es):
            return False
        if not (isinstance(src.axes[1].stride.value, int) and src.axes[1].stride.value == 1):
            return False
        # what is not proven 16-byte aligned from the trailing zero bits is tested once: the row
        # stride and each term of the origin (each, not their sum: the column's origin itself
        # aligned puts every chunk wholly before 0, or from it, along the row)
        tests = []
        stride = src.axes[0].stride
        if _align(es, stride.twos) < 16:
            tests.append(em.addr.value(stride.value))
        for t in src.offset:
            if _align(es, t.twos) < 16:
                tests.append(em.addr.value(t.value))
        chunk = ir.VectorType(I32T, 4)

        def one(coords):
            r, q = coords
            c = b.mul(q, ir.Constant(I32T, vec))
            last = b.add(c, ir.Constant(I32T, vec - 1))
            m1, m2 = self.mask(src, [r, c]), self.mask(src, [r, last])
            ok = m1 if m2 is None else m2 if m1 is None else b.and_(m1, m2)

            def whole():
                sp, _ = self.element_ptr(src, [r, c])
                dp, _ = self.element_ptr(target, [r, c])
                if self.asynchronous:
                    K.cp_async_16(em.ops, dp, sp)
                else:
                    b.store(b.load(sp, align=16, typ=chunk), dp, align=16)
            if ok is None:
                whole()
                return
            with b.if_else(ok) as (then, otherwise):
                with then:
                    whole()
                with otherwise:                  # a chunk outside the tensor or across its edge
                    dp, _ = self.element_ptr(target, [r, c])
                    b.store(ir.Constant(chunk, None), dp, align=16)                # zeros in (§7)
                    with b.if_then(m1 if m1 is not None else ir.Constant(ir.IntType(1), 1)):
                        for i in range(vec):
                            at = [r, b.add(c, ir.Constant(I32T, i))]
                            self.store(target, at, self.load(src, at))

        def vectorized():
            self.linear([shape[0], shape[1] // vec], one)
        if not tests:
            vectorized()
            return True
        bits = None
        for v in tests:
            bits = v if bits is None else b.or_(bits, v)
        aligned = b.icmp_unsigned("==", b.and_(bits, ir.Constant(I64, vec - 1)), ir.Constant(I64, 0))
        with b.if_else(aligned) as (then, otherwise):    # uniform: the same in every thread
            with then:
                vectorized()
            with otherwise:
                sweep()
        return True

    # ================================================================ planning
    def prepare(self, sw: Sweep, node, early: dict | None = None) -> None:
        """Evaluate, in source order (§6), the scalars the tree broadcasts and the addresses of
        its slices (both uniform, §9.7), before any pass over elements; a tile operation that
        completes before an effect (``early``: analyzer/evaluation.py) is carried out into
        scratch right before the effect."""
        em = self.em
        if early:
            for n in early.get(id(node), ()):
                sw.subst[id(n)] = self.materialize(sw, n)
        t = em.type_of(node)
        if isinstance(t, Scalar):
            if id(node) not in sw.scalars:
                sw.scalars[id(node)] = em.expr(node)
            return
        if isinstance(node, (A.Name, A.Index)):
            if id(node) not in sw.leaves:
                sw.leaves[id(node)] = em.memref(node)
            return
        if isinstance(node, A.Binary):
            self.prepare(sw, node.lhs, early)
            self.prepare(sw, node.rhs, early)
        elif isinstance(node, A.Unary):
            self.prepare(sw, node.operand, early)
        elif isinstance(node, A.Call):
            if id(node) in em.inst.calls:
                # a function returning a tile: inlined here, before the pass over elements, its
                # result tile is then read like a tile variable
                if id(node) not in sw.leaves:
                    sw.leaves[id(node)] = em.inline(node, em.inst.calls[id(node)])
                return
            for a in node.args:
                self.prepare(sw, a, early)
        else:
            raise LoweringError(f"{type(node).__name__} in a tile expression", getattr(node, "span", None))

    def _is_producer(self, node) -> bool:
        return isinstance(node, A.Call) and node.func in PRODUCERS and id(node) not in self.em.inst.calls

    def materialize_others(self, sw: Sweep, node) -> None:
        """Every producer in the tree but the fused one (and not inside it) goes to scratch."""
        if not isinstance(node, (A.Binary, A.Unary, A.Call)) or id(node) in sw.scalars or id(node) in sw.leaves:
            return                  # (a function's tile result is a leaf: prepare inlined it)
        if node is sw.fused or id(node) in sw.subst:
            return
        if self._is_producer(node):
            sw.subst[id(node)] = self.materialize(sw, node)
            return
        for c in tile_children(node):
            self.materialize_others(sw, c)

    def materialize(self, sw: Sweep, node) -> MemRef:
        """``node`` into a scratch tile of its own shape, ending with a barrier (it is a CTA-wide
        operation of its own): a producer fused into that write, any other tile operation (one
        that runs before an effect) a pass of its own."""
        t = self.em.type_of(node)
        temp = self.scratch(t, ("value", id(node)))
        self.write(temp, node, "=", sw, fused=node if self._is_producer(node) else None)
        K.barrier(self.em.ops)
        return temp

    # ================================================================ scratch tiles
    def scratch(self, t: Tile, key, padded: bool = True) -> MemRef:
        """The current statement's scratch tile ``key`` (its plan's name for it), its rows padded
        where the plan pads them (a ``dot`` operand's copy), unless not ``padded`` (the same
        bytes, rows contiguous: ``dot_t``'s transposed copy on the FMA path)."""
        shape = [int(d) for d in t.shape]
        count = 1
        for d in shape:
            count *= d
        elem = settle(t.elem)
        a = self.em.smem.current.scratch.get(key)
        row_stride = a.row_stride if a is not None else None
        if row_stride is not None:
            count = a.bytes // BYTES[elem.name]          # the plan's bytes, padding included
        ptr = self.em.smem.scratch(key, elem, count)
        return self.em.tile_ref(ptr, elem, shape, row_stride if padded else None)

    # ================================================================ the pass over elements
    def linear(self, shape, body, unroll: int = SWEEP_UNROLL) -> None:
        """``body(coords)`` for every element of ``shape``, thread t taking t, t + T, ..."""
        em = self.em
        b = self.b
        threads = em.threads
        tid = em.fresh_thread()
        if all(isinstance(d, int) for d in shape):
            n = 1
            for d in shape:
                n *= d
            rounds = -(-n // threads)
            if rounds == 1:
                self._guarded_element(tid, n, threads, shape, body)
                return
            em.counted_loop(0, rounds, lambda k: self._guarded_element(
                b.add(tid, b.mul(k, ir.Constant(I32T, threads))), n, threads, shape, body),
                unroll=unroll if rounds > unroll else None)
            return
        n = ir.Constant(I32T, 1)
        for d in shape:
            n = b.mul(n, self.extent_i32(d))
        em.strided_loop(tid, n, ir.Constant(I32T, threads), lambda e: body(self.unravel(e, shape)))

    def _guarded_element(self, e, n: int, threads: int, shape, body) -> None:
        if n % threads:
            with self.b.if_then(self.b.icmp_unsigned("<", e, ir.Constant(I32T, n))):
                body(self.unravel(e, shape))
        else:
            body(self.unravel(e, shape))

    def unravel(self, e, shape) -> list:
        b = self.b
        coords = []
        rest = e
        for d in reversed(shape[1:]):
            dv = self.extent_i32(d)
            coords.append(b.urem(rest, dv))
            rest = b.udiv(rest, dv)
        coords.append(rest)
        return list(reversed(coords))

    def extent_i32(self, d) -> ir.Value:
        if isinstance(d, int):
            return ir.Constant(I32T, d)
        v = self.em.extent_values.get(d)
        if v is None:
            raise LoweringError(f"runtime extent `{d}` has no value")
        return v

    # ================================================================ one element
    def store_out(self, sw: Sweep, coords, produced=None) -> None:
        """Evaluate the tree at ``coords`` (with the fused producer's value) and store it."""
        em = self.em
        sw.produced = produced
        v = self.value_at(sw, sw.root, coords)
        target = sw.target
        if sw.op != "=":
            current = em.Val(self.load(target, coords), target.elem)
            v = em.binary(sw.op[:-1], current, v)
        self.store(target, coords, em.to(v, target.elem).v)

    def value_at(self, sw: Sweep, node, coords):
        """The value of the tile expression ``node`` at ``coords`` (the coordinates of the
        element being computed; broadcasting adapts them to ``node``'s shape)."""
        em = self.em
        scalar = sw.scalars.get(id(node))
        if scalar is not None:
            return scalar
        t = em.type_of(node)
        coords = _broadcast(coords, t.shape)
        if node is sw.fused:
            return sw.produced
        ref = sw.subst.get(id(node)) or sw.leaves.get(id(node))
        if ref is not None:
            return em.Val(self.load(ref, coords), ref.elem)
        kind = type(node).__name__ if not isinstance(node, A.Call) else (
            "convert" if node.func in SCALARS else node.func if node.func in ELEMENTWISE_CALLS else None)
        handler = ELEMENTWISE.get(kind)
        if handler is None:
            raise LoweringError(f"`{getattr(node, 'func', type(node).__name__)}` inside a tile expression was "
                                "neither fused nor materialized", node.span)
        return handler(self, sw, node, coords, t)

    # ================================================================ memory
    def element_ptr(self, ref: MemRef, coords):
        terms = []
        for c, axis in zip(coords, ref.axes):
            terms.append(scale(Term(self.b.zext(c, I64) if not isinstance(c, ir.Constant) else
                                    ir.Constant(I64, c.constant), _twos_const(c)), axis.stride))
        return self.em.addr.element_ptr(ref, terms)

    def mask(self, ref: MemRef, coords):
        """The i1 that says ``ref[coords]`` is inside its buffer, or None when proven."""
        if not ref.masked:
            return None
        b = self.b
        em = self.em
        along = {ref.axis_of[a]: c for a, c in enumerate(coords)}
        ok = None
        for axis, proven in enumerate(ref.proven):
            if proven:
                continue
            origin = ref.origin[axis]
            c = along.get(axis)
            ext = ref.base_extents[axis]
            narrow = origin.value if isinstance(origin.value, int) else origin.narrow
            if narrow is not None:                            # i32 index, i32 extent: setp.lt.u32
                idx = em.addr.value32(narrow)
                if c is not None:
                    idx = b.add(idx, c)
                bound = ir.Constant(I32T, ext) if isinstance(ext, int) else self.extent_i32(ext)
            else:                                             # an i64 index: setp.lt.u64
                idx = em.addr.value(origin.value)
                if c is not None:
                    idx = b.add(idx, b.zext(c, I64))
                bound = ir.Constant(I64, ext) if isinstance(ext, int) else em.extent64(ext)
            # unsigned: a negative index fails too (and an i32 index that wrapped past 2^31 is
            # out of bounds either way, extents being below 2^31)
            test = b.icmp_unsigned("<", idx, bound)
            ok = test if ok is None else b.and_(ok, test)
        return ok

    def load(self, ref: MemRef, coords) -> ir.Value:
        m = self.mask(ref, coords)
        em = self.em
        if m is None:
            ptr, align = self.element_ptr(ref, coords)
            return em.addr.load_ptr(ptr, align, ref.elem)
        b = self.b
        before = b.block
        then_bb = em.fn.append_basic_block("masked_load")
        done_bb = em.fn.append_basic_block("masked_load_end")
        b.cbranch(m, then_bb, done_bb)
        b.position_at_end(then_bb)
        ptr, align = self.element_ptr(ref, coords)
        v = em.addr.load_ptr(ptr, align, ref.elem)
        then_end = b.block
        b.branch(done_bb)
        b.position_at_end(done_bb)
        phi = b.phi(v.type)
        phi.add_incoming(v, then_end)
        phi.add_incoming(const(ref.elem, 0), before)
        return phi

    def store(self, ref: MemRef, coords, value) -> None:
        m = self.mask(ref, coords)
        if m is None:
            ptr, align = self.element_ptr(ref, coords)
            self.em.addr.store_ptr(ptr, align, ref.elem, value)
            return
        with self.b.if_then(m):
            ptr, align = self.element_ptr(ref, coords)
            self.em.addr.store_ptr(ptr, align, ref.elem, value)


# ---------------------------------------------------------------- the elementwise table
# Each entry evaluates one node at coordinates already adapted to its shape; operands are
# evaluated by value_at (tiles at the same coordinates, broadcast; scalars precomputed).

def _binary(tl: TileLowering, sw, node, coords, t):
    lhs = tl.value_at(sw, node.lhs, coords)
    rhs = tl.value_at(sw, node.rhs, coords)
    if node.op in ("&&", "||"):                               # on bool tiles: and.pred / or.pred
        f = tl.b.and_ if node.op == "&&" else tl.b.or_
        return tl.em.Val(f(lhs.v, rhs.v), BOOL)
    return tl.em.binary(node.op, lhs, rhs)                    # add.f32, setp.lt.f32, ...


def _unary(tl: TileLowering, sw, node, coords, t):
    x = tl.value_at(sw, node.operand, coords)
    em = tl.em
    if node.op == "!":
        return em.Val(K.UNARY[("!", "bool")](em.ops, x.v), BOOL)            # not.pred
    comp = arith_type(settle(x.t))
    xv = em.to(x, comp)
    r = K.UNARY[(node.op, "float" if comp.is_float else "int")](em.ops, xv.v)  # neg.f32 / neg.s32
    return em.Val(r, comp)


def _convert(tl: TileLowering, sw, node, coords, t):
    return tl.em.to(tl.value_at(sw, node.args[0], coords), SCALARS[node.func])   # cvt.*


def _math(tl: TileLowering, sw, node, coords, t):
    # exp -> ex2.approx.f32, log -> lg2.approx.f32, sqrt -> sqrt.approx.f32,
    # tanh -> tanh.approx.f32, round -> cvt.rni.f32.f32 (intrinsics.MATH)
    em = tl.em
    x = tl.value_at(sw, node.args[0], coords)
    comp = arith_type(settle(t.elem))
    r = K.MATH[node.func](em.ops, em.to(x, comp).v)
    return em.to(em.Val(r, comp), settle(t.elem))


def _where(tl: TileLowering, sw, node, coords, t):
    em = tl.em
    c = tl.value_at(sw, node.args[0], coords)
    el = settle(t.elem)
    a = em.to(tl.value_at(sw, node.args[1], coords), el)
    b = em.to(tl.value_at(sw, node.args[2], coords), el)
    return em.Val(tl.b.select(c.v, a.v, b.v), el)                          # selp.f32


def _tmax(tl: TileLowering, sw, node, coords, t):
    em = tl.em
    a = tl.value_at(sw, node.args[0], coords)
    b = tl.value_at(sw, node.args[1], coords)
    join = settle(arith_join(settle(a.t), settle(b.t)) or settle(t.elem))
    comp = arith_type(join)
    r = K.MATH["max"](em.ops, em.to(a, comp).v, em.to(b, comp).v)            # max.f32 / max.s32
    return em.to(em.Val(r, comp), settle(t.elem))


def _tril(tl: TileLowering, sw, node, coords, t):
    x = tl.value_at(sw, node.args[0], coords)
    i, j = coords
    keep = tl.b.icmp_unsigned("<=", j, i)                                   # setp.le.u32 + selp
    el = settle(x.t)
    return tl.em.Val(tl.b.select(keep, x.v, const(el, 0)), el)


def _transpose(tl: TileLowering, sw, node, coords, t):
    i, j = coords
    return tl.value_at(sw, node.args[0], [j, i])                            # no instruction


ELEMENTWISE = {
    "Binary": _binary, "Unary": _unary, "convert": _convert, "where": _where, "tmax": _tmax,
    "tril": _tril, "transpose": _transpose,
    **{f: _math for f in TILE_MATH},
}


# ---------------------------------------------------------------- helpers
def _broadcast(coords: list, shape) -> list:
    """NumPy broadcasting: trailing axes align; an axis of extent 1 reads index 0."""
    shape = list(shape)
    coords = list(coords)[len(coords) - len(shape):] if len(shape) <= len(coords) else coords
    if len(coords) != len(shape):
        raise LoweringError(f"coordinates of rank {len(coords)} for a tile of rank {len(shape)}")
    return [ir.Constant(I32T, 0) if d == 1 else c for c, d in zip(coords, shape)]


def _twos_const(c) -> int:
    if isinstance(c, ir.Constant):
        return twos_of_int(int(c.constant))
    return 0


__all__ = ["TileLowering", "PRODUCERS", "ELEMENTWISE"]
