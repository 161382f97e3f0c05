"""Operations that involve other threads (LANGUAGE §8, §10): shuffles, lane and CTA collectives,
and the once-per-CTA memory operations (atomics, ``load_acquire``, ``store_release``).

- A shuffle moves 32-bit pieces (64-bit values as two halves, narrower ones widened) with the
  mode's ``shfl.sync``; PTX reads only the low five bits of the lane operand, so a source lane
  outside ``0..31`` is caught by a range check and yields the thread's own value (§8).
- A lane collective is a butterfly of five ``shfl.sync.bfly`` steps (``any``/``all`` are one
  ``vote.sync``); over a value that is already the same in the whole warp (its kind is uniform or
  warp-uniform) it needs no shuffle at all.
- A CTA collective folds each warp by the butterfly, lane 0 of each warp writes its warp's value
  to shared memory, a barrier, every warp reads all the warps' values back (lane i reads warp
  i's) and folds them with a second butterfly, and a final barrier frees the buffer for the next
  collective. Over a uniform value it is that value (or, for ``sum``, that value times the
  thread count) with no barrier.
- A once-per-CTA operation is a barrier, the operation by thread 0 at device scope, and, when
  it has a result, a shared-memory slot and a second barrier that hand the result to every
  thread.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ..analyzer.checked import FOLD, FOLD_SLOTS, ONCE, ONCE_SLOTS
from ..language.types import BOOL, Scalar, settle
from . import intrinsics as K
from .ltypes import BYTES, DOUBLE, FLOAT, I1, I8, I16, I32T, I64, arith_type, convert, memory_ir, scalar_ir

BUTTERFLY = (16, 8, 4, 2, 1)


# ---------------------------------------------------------------- 32-bit pieces of a scalar
def to_pieces(b: ir.IRBuilder, v: ir.Value, t: Scalar) -> list[ir.Value]:
    name = settle(t).name
    if name in ("i64", "f64"):
        x = b.bitcast(v, I64) if name == "f64" else v
        return [b.trunc(x, I32T), b.trunc(b.lshr(x, ir.Constant(I64, 32)), I32T)]
    if name == "f32":
        return [b.bitcast(v, I32T)]
    if name in ("f16", "bf16"):
        return [b.zext(b.bitcast(v, I16), I32T)]
    if name == "bool":
        return [b.zext(v, I32T)]
    if name in ("i8", "u8"):
        return [b.zext(v, I32T)]
    return [v]


def from_pieces(b: ir.IRBuilder, pieces: list[ir.Value], t: Scalar) -> ir.Value:
    name = settle(t).name
    if name in ("i64", "f64"):
        x = b.or_(b.zext(pieces[0], I64), b.shl(b.zext(pieces[1], I64), ir.Constant(I64, 32)))
        return b.bitcast(x, DOUBLE) if name == "f64" else x
    p = pieces[0]
    if name == "f32":
        return b.bitcast(p, FLOAT)
    if name in ("f16", "bf16"):
        return b.bitcast(b.trunc(p, I16), scalar_ir(t))
    if name == "bool":
        return b.trunc(p, I1)
    if name in ("i8", "u8"):
        return b.trunc(p, I8)
    return p


def shuffle_raw(o: K.Ops, mode: str, v, t: Scalar, lane_operand):
    return from_pieces(o.b, [K.shuffle32(o, mode, p, lane_operand) for p in to_pieces(o.b, v, t)], t)


def shuffle(o: K.Ops, mode: str, v, t: Scalar, e, lane, e_same_in_warp: bool):
    """``shfl<mode e>(v)`` with §8's meaning for every ``e``: a source lane outside 0..31 gives
    the thread's own ``v``. For ``e`` in 0..31 PTX's own mode agrees with §8 once a range check
    replaces its 5-bit masking. A negative ``e`` makes ``up`` and ``down`` reach the other way,
    which an ``idx`` shuffle from the computed source lane handles. When ``e`` is the same in the
    whole warp the two cases are a warp-uniform branch (LLVM drops the dead one when ``e`` is a
    known constant); otherwise both shuffles run and a select picks."""
    b = o.b
    if mode in ("xor", "idx"):
        native = shuffle_raw(o, mode, v, t, e)
        return b.select(b.icmp_unsigned("<", e, ir.Constant(I32T, 32)), native, v)

    def forward():
        native = shuffle_raw(o, mode, v, t, e)
        return b.select(b.icmp_unsigned("<", e, ir.Constant(I32T, 32)), native, v)

    def backward():
        source = b.sub(lane, e) if mode == "up" else b.add(lane, e)
        general = shuffle_raw(o, "idx", v, t, source)
        return b.select(b.icmp_unsigned("<", source, ir.Constant(I32T, 32)), general, v)

    negative = b.icmp_signed("<", e, ir.Constant(I32T, 0))
    if not e_same_in_warp:
        return b.select(negative, backward(), forward())
    with b.if_else(negative) as (then, otherwise):
        with then:
            r_back = backward()
            back_bb = b.block
        with otherwise:
            r_fwd = forward()
            fwd_bb = b.block
    phi = b.phi(r_fwd.type)
    phi.add_incoming(r_back, back_bb)
    phi.add_incoming(r_fwd, fwd_bb)
    return phi


# ---------------------------------------------------------------- lane collectives
def _warp_fold(o: K.Ops, op: str, v, t: Scalar):
    """The fold over the 32 lanes, left in every lane (``t`` the type folded in)."""
    if op in ("any", "all"):
        return K.vote(o, op, v)
    for step in BUTTERFLY:
        other = shuffle_raw(o, "xor", v, t, ir.Constant(I32T, step))
        v = K.FOLD[op](o, v, other)
    return v


def _times(o: K.Ops, v, t: Scalar, n: int):
    if t.is_float:
        return o.b.fmul(v, ir.Constant(scalar_ir(t), float(n)))
    return o.b.mul(v, ir.Constant(scalar_ir(t), n))


def lane_collective(o: K.Ops, op: str, v, t: Scalar, result_t: Scalar, exchanges: bool):
    """``op<over ctx.lane>(v)``: ``t`` the operand's type, ``result_t`` the collective's."""
    comp = BOOL if op in ("any", "all") else arith_type(result_t)
    x = convert(o.b, v, t, comp)
    if not exchanges:                  # the same in every lane (the plan says): nothing to exchange
        r = _times(o, x, comp, 32) if op == "sum" else x
    else:
        r = _warp_fold(o, op, x, comp)
    return convert(o.b, r, comp, result_t)


# ---------------------------------------------------------------- CTA collectives
def _identity(op: str, t: Scalar) -> ir.Constant:
    ty = scalar_ir(t)
    if op == "sum":          # -0.0, not 0.0: x + -0.0 is x for every x, -0.0 included (IEEE 754)
        return ir.Constant(ty, -0.0 if t.is_float else 0)
    if op == "any":
        return ir.Constant(I1, 0)
    if op == "all":
        return ir.Constant(I1, 1)
    if t.is_float:
        # NaN, not -inf/inf: max and min give the other operand for one NaN, so NaN is neutral,
        # and a fold of nothing but NaNs stays NaN (docs/language-choices.md)
        return ir.Constant(ty, float("nan"))
    bits = BYTES[t.name] * 8
    return ir.Constant(ty, -(1 << (bits - 1)) if op == "max" else (1 << (bits - 1)) - 1)


def cta_collective(em, op: str, v, t: Scalar, result_t: Scalar, exchanges: bool):
    """``op<over ctx.thread>(v)``; ``em`` is the kernel emitter (builder, shared buffers)."""
    o = em.ops
    b = o.b
    comp = BOOL if op in ("any", "all") else arith_type(result_t)
    x = convert(b, v, t, comp)
    threads = em.threads
    if not exchanges:                  # uniform (the plan says): every thread holds the answer already
        r = _times(o, x, comp, threads) if op == "sum" else x
        return convert(b, r, comp, result_t)
    r = _warp_fold(o, op, x, comp)
    warps = threads // 32
    if warps > 1:
        slot_ty = memory_ir(comp)
        buf = em.smem.static_buffer(FOLD, "__phobos_fold", FOLD_SLOTS)          # one slot per warp
        lane = em.ctx(("lane",))
        warp = em.ctx(("warp",))
        is_lane0 = b.icmp_unsigned("==", lane, ir.Constant(I32T, 0))
        with b.if_then(is_lane0):
            slot = b.gep(buf, [warp], source_etype=slot_ty)
            b.store(_to_slot(b, r, comp), slot)
        K.barrier(o)
        has_warp = b.icmp_unsigned("<", lane, ir.Constant(I32T, warps))
        read_at = b.select(has_warp, lane, ir.Constant(I32T, 0))
        part = _from_slot(b, b.load(b.gep(buf, [read_at], source_etype=slot_ty), typ=slot_ty), comp)
        part = b.select(has_warp, part, _identity(op, comp))
        r = _warp_fold(o, op, part, comp)
        K.barrier(o)                   # the buffer is free for the next collective
    return convert(b, r, comp, result_t)


def _to_slot(b, v, t):
    return b.zext(v, I8) if t == BOOL else v


def _from_slot(b, v, t):
    return b.trunc(v, I1) if t == BOOL else v


# ---------------------------------------------------------------- once per CTA
def once_per_cta(em, perform, result_t: Scalar | None):
    """Barrier; ``perform()`` in thread 0 only; hand its result to every thread (§8)."""
    o = em.ops
    b = o.b
    K.barrier(o)
    tid = em.ctx(("thread",))
    is_first = b.icmp_unsigned("==", tid, ir.Constant(I32T, 0))
    if result_t is None:
        with b.if_then(is_first):
            perform()
        return None
    slot_ty = memory_ir(result_t)
    buf = em.smem.static_buffer(ONCE, "__phobos_once", ONCE_SLOTS)
    with b.if_then(is_first):
        r = perform()
        b.store(_to_slot(b, r, result_t), b.gep(buf, [ir.Constant(I32T, 0)], source_etype=slot_ty))
    K.barrier(o)
    return _from_slot(b, b.load(b.gep(buf, [ir.Constant(I32T, 0)], source_etype=slot_ty), typ=slot_ty), result_t)


__all__ = ["shuffle", "lane_collective", "cta_collective", "once_per_cta"]
