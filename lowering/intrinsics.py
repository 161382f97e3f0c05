"""Every operation of LANGUAGE §3-§10 that the lowering emits, as a table from operation to the
few lines of LLVM IR that implement it, each entry commented with the PTX it becomes on sm_90.

The emitters take an ``Ops`` (the IR builder plus lazily declared intrinsics) and LLVM values
already converted to the type the operation works in (``ltypes.arith_type``: f16 and bf16
arithmetic happens in f32). The walker (emit.py) decides types and control; this module decides
instructions. Where LLVM has no NVPTX lowering (``llvm.exp``, ``llvm.log``, ``llvm.pow`` stop with
"no libcall available", ``llvm.tanh`` aborts in instruction selection), the table uses the
approximate PTX instructions that LANGUAGE §10 names, through NVVM intrinsics or inline asm.
"""

from __future__ import annotations

import math

import llvmlite.ir as ir

from .ltypes import DOUBLE, FLOAT, I1, I32T, I64, mangle

CONTRACT = ("contract",)        # LANGUAGE §10: contraction into FMA is allowed
FULL_MASK = ir.Constant(I32T, 0xFFFFFFFF)
LOG2_E = 1.4426950408889634
LN_2 = 0.6931471805599453


class Ops:
    """The IR builder and the module's intrinsic declarations, declared on first use."""

    def __init__(self, builder: ir.IRBuilder):
        self.b = builder

    @property
    def module(self) -> ir.Module:
        return self.b.module

    def intrinsic(self, name: str, ret: ir.Type, args: list[ir.Type], convergent=False) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name)
            if convergent:
                fn.attributes.add("convergent")
        return fn

    def call(self, name: str, ret: ir.Type, args: list, convergent=False) -> ir.Value:
        fn = self.intrinsic(name, ret, [a.type for a in args], convergent)
        return self.b.call(fn, args)

    def llvm(self, base: str, args: list) -> ir.Value:
        """An overloaded llvm.* intrinsic on the type of its first argument."""
        t = args[0].type
        return self.call(f"llvm.{base}.{mangle(t)}", t, args)

    def asm(self, text: str, constraints: str, ret: ir.Type, args: list) -> ir.Value:
        fty = ir.FunctionType(ret, [a.type for a in args])
        return self.b.call(ir.InlineAsm(fty, text, constraints), args)


def _is_float(v: ir.Value) -> bool:
    t = v.type.element if isinstance(v.type, ir.VectorType) else v.type
    return isinstance(t, (ir.FloatType, ir.DoubleType)) or str(t) in ("half", "bfloat")


def _width(v: ir.Value) -> int:
    t = v.type.element if isinstance(v.type, ir.VectorType) else v.type
    return t.width


# ---------------------------------------------------------------- binary arithmetic (§3, §6)
# Keyed by (operator, "int" | "float"); integer `/` and `%` truncate toward zero, `>>` is
# arithmetic (every integer type that reaches arithmetic is signed: u8 promotes to i32).

def _shl(o: Ops, x, y):
    # PTX's shl gives 0 for a count >= the width; LLVM's is poison, so keep PTX's meaning.
    b = o.b
    w = ir.Constant(x.type, _width(x))
    return b.select(b.icmp_unsigned("<", y, w), b.shl(x, y), ir.Constant(x.type, 0))


def _ashr(o: Ops, x, y):
    # PTX's shr.s fills with the sign for a count >= the width; clamp so LLVM agrees.
    w1 = ir.Constant(x.type, _width(x) - 1)
    return o.b.ashr(x, o.llvm("umin", [y, w1]))


def _safe_divisor(o: Ops, y):
    """(divisor, y == -1): LLVM's sdiv and srem are undefined behaviour for a divisor of 0 and
    for MIN / -1, and LLVM exploits it (a `where(b != 0, a / b, c)` loses its select), so the
    divisor is made 1 in both cases. A division by 0 stays an error of the program (the simulator
    stops it, PH406) but no longer poisons the code around it, in the side of a `where` that a
    thread does not take included; MIN / -1 wraps to MIN and MIN % -1 is 0, as the simulator says."""
    b = o.b
    t = y.type
    if isinstance(t, ir.VectorType):
        zero, minus1, one = (ir.Constant(t, [ir.Constant(t.element, k)] * t.count) for k in (0, -1, 1))
    else:
        zero, minus1, one = (ir.Constant(t, k) for k in (0, -1, 1))
    is_m1 = b.icmp_signed("==", y, minus1)
    bad = b.or_(b.icmp_signed("==", y, zero), is_m1)
    return b.select(bad, one, y), is_m1


def _sdiv(o: Ops, x, y):
    d, is_m1 = _safe_divisor(o, y)
    return o.b.select(is_m1, o.b.neg(x), o.b.sdiv(x, d))


def _srem(o: Ops, x, y):
    d, _ = _safe_divisor(o, y)
    return o.b.srem(x, d)                                            # x % 1 == 0 == x % -1


BINARY = {
    ("+", "int"): lambda o, x, y: o.b.add(x, y),                     # add.s32 / add.s64
    ("+", "float"): lambda o, x, y: o.b.fadd(x, y, flags=CONTRACT),  # add.rn.f32 (fma.rn.f32 fused)
    ("-", "int"): lambda o, x, y: o.b.sub(x, y),                     # sub.s32
    ("-", "float"): lambda o, x, y: o.b.fsub(x, y, flags=CONTRACT),  # sub.rn.f32
    ("*", "int"): lambda o, x, y: o.b.mul(x, y),                     # mul.lo.s32
    ("*", "float"): lambda o, x, y: o.b.fmul(x, y, flags=CONTRACT),  # mul.rn.f32
    ("/", "int"): _sdiv,                                             # div.s32 (a divisor of 0 or -1 made 1)
    ("/", "float"): lambda o, x, y: o.b.fdiv(x, y),                  # div.rn.f32
    ("%", "int"): _srem,                                             # rem.s32 (likewise)
    ("&", "int"): lambda o, x, y: o.b.and_(x, y),                    # and.b32
    ("|", "int"): lambda o, x, y: o.b.or_(x, y),                     # or.b32
    ("^", "int"): lambda o, x, y: o.b.xor(x, y),                     # xor.b32
    ("<<", "int"): _shl,                                             # shl.b32
    (">>", "int"): _ashr,                                            # shr.s32
    # bool == bool and bool != bool reach COMPARE; && and || are control flow (emit.py)
}

# Comparisons: (signed integer predicate, float predicate). `!=` on floats is unordered, so a
# NaN differs from everything, itself included.
COMPARE = {
    "==": ("==", "=="),     # setp.eq.s32 / setp.eq.f32
    "!=": ("!=", "!="),     # setp.ne.s32 / setp.neu.f32
    "<": ("<", "<"),        # setp.lt.s32 / setp.lt.f32
    "<=": ("<=", "<="),     # setp.le.s32 / setp.le.f32
    ">": (">", ">"),        # setp.gt.s32 / setp.gt.f32
    ">=": (">=", ">="),     # setp.ge.s32 / setp.ge.f32
}


def compare(o: Ops, op: str, x, y):
    ipred, fpred = COMPARE[op]
    if _is_float(x):
        if op == "!=":
            return o.b.fcmp_unordered(fpred, x, y)
        return o.b.fcmp_ordered(fpred, x, y)
    if _width(x) == 1:
        return o.b.icmp_unsigned(ipred, x, y)          # bools: xor.pred / not.pred
    return o.b.icmp_signed(ipred, x, y)


UNARY = {
    ("-", "int"): lambda o, x: o.b.neg(x),                           # neg.s32
    ("-", "float"): lambda o, x: o.b.fneg(x),                        # neg.f32
    ("!", "bool"): lambda o, x: o.b.xor(x, ir.Constant(I1, 1)),      # not.pred
    ("~", "int"): lambda o, x: o.b.not_(x),                          # not.b32
}

# ---------------------------------------------------------------- scalar math (§8, §10)
# Arguments are f32 (f16/bf16 widened by the caller) or f64; integers for abs/min/max/popcount.
# exp, log, tanh and pow have no f64 instruction: they run in f32 and widen back (a documented
# limitation; sqrt has sqrt.rn.f64).


def _f32(o: Ops, x):
    return o.b.fptrunc(x, FLOAT) if x.type == DOUBLE else x


def _back(o: Ops, r, like):
    return o.b.fpext(r, DOUBLE) if like.type == DOUBLE else r


def _ex2(o: Ops, x):
    return o.call("llvm.nvvm.ex2.approx.f", FLOAT, [x])              # ex2.approx.f32


def _lg2(o: Ops, x):
    return o.call("llvm.nvvm.lg2.approx.f", FLOAT, [x])              # lg2.approx.f32


def _exp(o: Ops, x):
    y = _f32(o, x)
    r = _ex2(o, o.b.fmul(y, ir.Constant(FLOAT, LOG2_E)))             # mul.f32 + ex2.approx.f32
    return _back(o, r, x)


def _log(o: Ops, x):
    r = o.b.fmul(_lg2(o, _f32(o, x)), ir.Constant(FLOAT, LN_2))      # lg2.approx.f32 + mul.f32
    return _back(o, r, x)


def _sqrt(o: Ops, x):
    if x.type == DOUBLE:
        return o.llvm("sqrt", [x])                                   # sqrt.rn.f64
    return o.call("llvm.nvvm.sqrt.approx.f", FLOAT, [x])             # sqrt.approx.f32


def _tanh(o: Ops, x):
    r = o.asm("tanh.approx.f32 $0, $1;", "=f,f", FLOAT, [_f32(o, x)])  # tanh.approx.f32 (sm_75+)
    return _back(o, r, x)


def _pow(o: Ops, x, y):
    """ex2(y * lg2 |x|), with the cases where that is not C's (and numpy's, so the simulator's)
    pow spelled out: x^0 = 1 and 1^y = 1 (NaN included, where the product would be 0 * inf or
    NaN), (+-1)^+-inf = 1, a negative base (-0.0 included) gives the sign of an odd integer
    exponent, and a finite negative base with a non-integer exponent is NaN."""
    b = o.b
    xf, yf = _f32(o, x), _f32(o, y)
    c = lambda v: ir.Constant(FLOAT, v)                              # noqa: E731
    ax = o.llvm("fabs", [xf])
    r = _ex2(o, b.fmul(yf, _lg2(o, ax)))                             # lg2.approx + mul + ex2.approx
    half = b.fmul(yf, c(0.5))
    y_int = b.fcmp_ordered("==", o.llvm("floor", [yf]), yf)          # cvt.rmi.f32.f32 + setp
    y_odd = b.and_(y_int, b.fcmp_ordered("!=", o.llvm("floor", [half]), half))
    negative = b.icmp_signed("<", b.bitcast(xf, I32T), ir.Constant(I32T, 0))    # the sign bit
    r = b.select(b.and_(negative, y_odd), b.fneg(r), r)
    finite_negative = b.and_(b.fcmp_ordered("<", xf, c(0.0)), b.fcmp_ordered("!=", xf, c(-math.inf)))
    r = b.select(b.and_(finite_negative, b.not_(y_int)), c(math.nan), r)
    one = b.or_(b.or_(b.fcmp_ordered("==", yf, c(0.0)), b.fcmp_ordered("==", xf, c(1.0))),
                b.and_(b.fcmp_ordered("==", ax, c(1.0)), b.fcmp_ordered("==", o.llvm("fabs", [yf]), c(math.inf))))
    r = b.select(one, c(1.0), r)                                     # selp.f32
    return _back(o, r, x)


def _round(o: Ops, x):
    return o.llvm("roundeven", [x])                                  # cvt.rni.f32.f32 (half to even)


def _abs(o: Ops, x):
    if _is_float(x):
        return o.llvm("fabs", [x])                                   # abs.f32
    return o.llvm("abs", [x, ir.Constant(I1, 0)])                    # abs.s32


def _min(o: Ops, x, y):
    return o.llvm("minnum" if _is_float(x) else "smin", [x, y])      # min.f32 / min.s32


def _max(o: Ops, x, y):
    return o.llvm("maxnum" if _is_float(x) else "smax", [x, y])      # max.f32 / max.s32


def _popcount(o: Ops, x):
    r = o.llvm("ctpop", [x])                                         # popc.b32 / popc.b64
    return o.b.trunc(r, I32T) if x.type == I64 else r


MATH = {
    "exp": _exp, "log": _log, "sqrt": _sqrt, "tanh": _tanh, "pow": _pow, "round": _round,
    "abs": _abs, "min": _min, "max": _max, "popcount": _popcount,
}
MATH_IN_FLOAT = ("exp", "log", "sqrt", "tanh", "pow", "round")

# ---------------------------------------------------------------- ctx paths (§4)
# A CTA is one-dimensional, so the thread is tid.x; `ctx.warp` is tid.x >> 5 (not %warpid,
# which names the SM's warp slot and may change under preemption).


def _sreg(name):
    return lambda o, threads: o.call(f"llvm.nvvm.read.ptx.sreg.{name}", I32T, [])


def _lane(o: Ops, threads):
    return o.b.and_(_sreg("tid.x")(o, threads), ir.Constant(I32T, 31))     # and.b32 %r, %tid.x, 31


def _warp(o: Ops, threads):
    return o.b.lshr(_sreg("tid.x")(o, threads), ir.Constant(I32T, 5))      # shr.u32 %r, %tid.x, 5


def fresh_tid(o: Ops):
    fty = ir.FunctionType(I32T, [])
    return o.b.call(ir.InlineAsm(fty, "mov.u32 $0, %tid.x;", "=r", side_effect=True), [])   # mov.u32 %r, %tid.x


CTX = {
    ("thread",): _sreg("tid.x"),                                     # mov.u32 %r, %tid.x
    ("lane",): _lane,
    ("warp",): _warp,
    ("block", "x"): _sreg("ctaid.x"),                                # mov.u32 %r, %ctaid.x
    ("block", "y"): _sreg("ctaid.y"),                                # mov.u32 %r, %ctaid.y
    ("block", "z"): _sreg("ctaid.z"),                                # mov.u32 %r, %ctaid.z
    ("blocks", "x"): _sreg("nctaid.x"),                              # mov.u32 %r, %nctaid.x
    ("blocks", "y"): _sreg("nctaid.y"),                              # mov.u32 %r, %nctaid.y
    ("blocks", "z"): _sreg("nctaid.z"),                              # mov.u32 %r, %nctaid.z
    ("threads",): lambda o, threads: ir.Constant(I32T, threads),    # the @launch constant
    ("warps",): lambda o, threads: ir.Constant(I32T, threads // 32),
    ("lanes",): lambda o, threads: ir.Constant(I32T, 32),
}

# ---------------------------------------------------------------- shuffles (§8)
# mode -> (PTX mode, the c operand: the clamp for up is 0, for the others 31). PTX reads only
# the low 5 bits of the lane operand, so emit.py adds the range check of §8.
SHUFFLE = {
    "xor": ("bfly", 31),        # shfl.sync.bfly.b32 %r, %v, E, 31, -1
    "up": ("up", 0),            # shfl.sync.up.b32   %r, %v, E, 0, -1
    "down": ("down", 31),       # shfl.sync.down.b32 %r, %v, E, 31, -1
    "idx": ("idx", 31),         # shfl.sync.idx.b32  %r, %v, E, 31, -1
}


def shuffle32(o: Ops, mode: str, v32, lane_operand):
    """One 32-bit shuffle of the whole warp (the mask is full: §8 requires warp-uniform control
    and a CTA is whole warps)."""
    ptx_mode, clamp = SHUFFLE[mode]
    return o.call(f"llvm.nvvm.shfl.sync.{ptx_mode}.i32", I32T,
                  [FULL_MASK, v32, lane_operand, ir.Constant(I32T, clamp)], convergent=True)


# ---------------------------------------------------------------- folds of the collectives (§8)
FOLD = {
    "sum": lambda o, x, y: (o.b.fadd(x, y, flags=CONTRACT) if _is_float(x) else o.b.add(x, y)),  # add.f32 / add.s32
    "max": _max,                                                     # max.f32 / max.s32
    "min": _min,                                                     # min.f32 / min.s32
    "any": lambda o, x, y: o.b.or_(x, y),                           # or.pred
    "all": lambda o, x, y: o.b.and_(x, y),                          # and.pred
}

# any/all over the lanes of a warp are one vote rather than five shuffles.
VOTE = {
    "any": "llvm.nvvm.vote.any.sync",                               # vote.sync.any.pred
    "all": "llvm.nvvm.vote.all.sync",                               # vote.sync.all.pred
}


def vote(o: Ops, op: str, pred):
    return o.call(VOTE[op], I1, [FULL_MASK, pred], convergent=True)


def barrier(o: Ops):
    """bar.sync 0: every thread of the CTA meets here."""
    return o.call("llvm.nvvm.barrier.cta.sync.aligned.all", ir.VoidType(), [ir.Constant(I32T, 0)],
                  convergent=True)


def cp_async_16(o: Ops, dst, src):
    """cp.async.cg.shared.global [dst], [src], 16 (sm_80+): 16 bytes from global to shared memory
    without passing through registers; they are there once a cp.async.wait_group of this thread
    covers their group (and, for other threads, after a barrier that follows it)."""
    return o.call("llvm.nvvm.cp.async.cg.shared.global.16", ir.VoidType(), [dst, src])


def cp_async_commit(o: Ops):
    """cp.async.commit_group: the thread's copies issued since the last commit form one group."""
    return o.call("llvm.nvvm.cp.async.commit.group", ir.VoidType(), [])


def cp_async_wait(o: Ops, pending: int):
    """cp.async.wait_group n: wait until at most ``pending`` of the thread's groups are in flight."""
    return o.call("llvm.nvvm.cp.async.wait.group", ir.VoidType(), [ir.Constant(I32T, pending)])


# ---------------------------------------------------------------- once-per-CTA memory ops (§8)
# LLVM's NVPTX backend ignores the ordering and scope of atomicrmw (it emits a relaxed atom), so
# the acquire-release of §8 comes from fences around it; cmpxchg, load atomic and store atomic
# keep theirs.
DEVICE = 'syncscope("device")'


def _fence(o: Ops):
    o.b.fence("acq_rel", "device")                                   # fence.acq_rel.gpu


def _rmw(op_int, op_float=None):
    def emit(o: Ops, ptr, value):
        _fence(o)
        op = op_float if _is_float(value) and op_float else op_int
        r = o.b.atomic_rmw(op, ptr, value, f"{DEVICE} acq_rel")
        _fence(o)
        return r
    return emit


def _cas(o: Ops, ptr, expected, value):
    pair = o.b.cmpxchg(ptr, expected, value, f"{DEVICE} acq_rel", "monotonic")  # atom.acq_rel.gpu.global.cas.b32
    return o.b.extract_value(pair, 0)


ATOMIC = {
    "atomic_add": _rmw("add", "fadd"),     # atom.global.add.u32 / atom.global.add.f32, fenced
    "atomic_max": _rmw("max"),             # atom.global.max.s32, fenced
    "atomic_min": _rmw("min"),             # atom.global.min.s32, fenced
    "atomic_cas": _cas,                    # atom.acq_rel.gpu.global.cas.b32
}


def load_acquire(o: Ops, ptr, ty, align):
    return o.b.load_atomic(ptr, f"{DEVICE} acquire", align, typ=ty)  # ld.acquire.gpu.global.b32


def store_release(o: Ops, value, ptr, align):
    # IRBuilder.store_atomic assumes typed pointers (llvmlite 0.50), so insert the instruction
    st = ir.instructions.StoreAtomicInstr(o.b.block, value, ptr, f"{DEVICE} release", align)
    o.b._insert(st)                                                  # st.release.gpu.global.b32


# ---------------------------------------------------------------- dp4a (§7)
# sum(a * b) over i8/u8 runs, four bytes at a time: dp4a.{s32|u32}.{s32|u32} d, a, b, c.
def dp4a(o: Ops, a32, b32, acc, a_signed: bool, b_signed: bool):
    name = f"llvm.nvvm.idp4a.{'s' if a_signed else 'u'}.{'s' if b_signed else 'u'}"
    return o.call(name, I32T, [a32, b32, acc])


assert math.isclose(LOG2_E * LN_2, 1.0)
