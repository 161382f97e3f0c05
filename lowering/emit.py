"""One checked kernel -> one LLVM function (llvmlite.ir), the first stage of the lowering.

The walker follows the kernel's AST with the analyzer's records of each instance (the kernel
body, and each inlined function call): ``types`` gives every expression's type, ``resolution``
every name's binding, ``ops`` every operation's class, ``calls`` the callee instance of each call.
Scalars are LLVM values, runs LLVM vectors, ``var``s allocas (promoted to registers by the
optimizer), tensors and tiles ``MemRef``s (memory.py). Statements carry their source line as an
LLVM debug location, which becomes a ``.loc`` directive. Instructions come from the tables of
intrinsics.py; collectives and once-per-CTA operations from collectives.py.

Tile statements (copies, fills, sweeps and the tile built-ins) go to tiles.py and tile_ops.py,
tiles themselves to shared memory (shared.py). Anything this stage does not lower is found
before any IR is built and raised as ``Unsupported`` at its source span.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace

import llvmlite.ir as ir

from ..language.builtins import ATOMICS, MAX_UNROLL, SCALAR_MATH
from ..analyzer.checked import (WARP_UNIFORM, affine, ahead_key, argument_key, constant_of, result_key, second_key,
                                tile_key)
from ..language.ops import OpClass
from ..analyzer.syntax import ast as A
from ..language.types import (BOOL, F32, I32, I64 as T_I64, SCALARS, Run, Scalar, Tensor, Tile, arith_join,
                              promote_int, settle, an)
from . import collectives as C
from . import intrinsics as K
from .align import INFINITE, twos, twos_of_int
from .bounds import Bounds
from .errors import LoweringError, Unsupported
from .ltypes import (BYTES, GLOBAL, I1, I8, I32T, I64, SHARED, arith_type, const, convert, memory_ir, scalar_ir,
                     splat, value_ir, width)
from .memory import Addressing, Axis, MemRef, Term, scale
from .names import entry_symbol
from .shared import SharedMemory
from .tile_ops import carry, copy_operand, operand_layout, operand_tile
from .tiles import Sweep, TileLowering

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
SHIFTS = ("<<", ">>")
SMALL_LOOP_UNROLL = 16
RUN_LOOP_UNROLL = 8          # a small loop over runs of more than SHORT_RUN elements
SHORT_RUN = 4                # runs of at most this many elements (a 16-byte f32 vector) unroll 16 times
SMALL_LOOP_NODES = 40

# Operations this stage cannot lower yet, with what to say about them (LANGUAGE §8 allows a
# located "not supported yet" error for an operation the build cannot lower).
NOT_LOWERED: dict[str, str] = {}


@dataclass
class Val:
    v: ir.Value
    t: object          # Scalar or Run (settled)


def elem(t):
    return t.elem if isinstance(t, Run) else t


def shape_like(t, el: Scalar):
    return Run(el, t.n) if isinstance(t, Run) else el


def settled(t):
    if isinstance(t, Scalar):
        return settle(t)
    if isinstance(t, Run):
        return Run(settle(t.elem), t.n)
    return t


# ---------------------------------------------------------------- what this stage cannot lower
def unsupported_ops(kinfo) -> list[Unsupported]:
    """Every operation of NOT_LOWERED in the kernel and the functions it inlines, in source
    order."""
    found = []
    seen = set()
    for inst in kinfo.instance.tree():
        for op in inst.ops.values():
            if op.cls is OpClass.CTA_WIDE and op.name in NOT_LOWERED:
                key = (op.span, op.name)
                if key not in seen:
                    seen.add(key)
                    u = Unsupported(f"`{op.name}` is not supported by phobos-build yet", op.span,
                                    help=NOT_LOWERED[op.name])
                    u.what = op.name
                    found.append(u)
    found.sort(key=lambda u: (u.span.line, u.span.column))
    return found


# ---------------------------------------------------------------- constants and unrolling
def const_int_in(inst, e) -> int | None:
    """``e`` folded to an integer in the instance ``inst`` (its constants and a function's dims
    bound at the call), or None."""
    def const_value(n):
        b = inst.resolution.get(id(n))
        if b is not None and b.kind in ("const", "function-dim") and isinstance(b.const_value, int):
            return b.const_value
        return None
    f = affine(e, const_value, lambda node: None)
    return constant_of(f) if f is not None else None


def loop_unroll(inst, s: A.For, product: int = 1) -> int | None:
    """The unroll factor the lowering asks LLVM for on the loop ``s`` of ``inst`` (None: none),
    inside loops whose factors multiply to ``product``: the written ``<unroll n>``, else the
    default of a small loop. The checker bounds the written factors of nested loops, inlined
    calls included (MAX_UNROLL); the default factor of a small loop inside them gives way."""
    unroll = const_int_in(inst, s.unroll) if s.unroll is not None else default_unroll(inst, s)
    if unroll is not None:
        unroll = max(1, min(unroll, MAX_UNROLL // max(product, 1)))
    return unroll


def default_unroll(inst, s: A.For) -> int | None:
    """Unroll a small loop without ``<unroll n>`` SMALL_LOOP_UNROLL times, as nvcc does with
    such loops (LLVM leaves loops with a runtime trip count alone and ptxas unrolls them 4
    times; measured in benchmarks/sass_vs_nvcc.py). Small: no nested loop, call, collective
    or shuffle, and at most SMALL_LOOP_NODES nodes, a run of n elements counting n times (an
    unrolled loop over 16-byte runs holds too many registers: layernorm_rows went from 40 to
    112); a loop over runs longer than SHORT_RUN elements RUN_LOOP_UNROLL times (16 copies of
    layernorm_rows' runs of 8 took 82 registers against 51). Runs of up to 4 elements unroll 16
    times: lanes_matvec's took 45 registers against nvcc's 32 while its index was an i32 sum
    sign-extended in every copy, and take 31 with 64-bit indices (index64) and the remainder
    iterations first (pipeline.py)."""
    nodes = 0
    runs = 0
    stack = [s.body]
    while stack:
        n = stack.pop()
        t = inst.types.get(id(n))
        nodes += t.n if isinstance(t, Run) else 1
        runs = max(runs, t.n if isinstance(t, Run) else 0)
        if nodes > SMALL_LOOP_NODES or isinstance(n, (A.For, A.While, A.GenericCall)):
            return None
        if isinstance(n, A.Call) and (id(n) in inst.calls or inst.ops.get(id(n)) is not None and
                                      inst.ops[id(n)].cls is not OpClass.PER_THREAD):
            return None
        for name in getattr(type(n), "__slots__", ()):
            if name == "span" or name.endswith("_span"):
                continue
            v = getattr(n, name)
            for x in (v if isinstance(v, tuple) else (v,)):
                if hasattr(type(x), "__slots__") and hasattr(x, "span"):
                    stack.append(x)
    return RUN_LOOP_UNROLL if runs > SHORT_RUN else SMALL_LOOP_UNROLL


@dataclass
class Frame:
    inst: object
    exit: ir.Block
    result: object = None          # alloca of a function's result
    result_t: object = None
    result_tile: object = None     # the MemRef a function's tile result is returned in


class KernelEmitter:
    Val = Val

    def __init__(self, module: ir.Module, kinfo, debug, plan=None, arch: str = "sm_90"):
        """``kinfo``: the analyzer.checked.CheckedKernel to lower; ``arch`` the target (which tile
        products run on tensor cores: mma.py)."""
        self.module = module
        self.arch = arch
        self.kinfo = kinfo
        self.unroll_product = 1     # the unroll factors of the loops being emitted, multiplied
        self.threads = kinfo.threads
        self.debug = debug                 # DebugInfo or None
        self.slots: dict[int, tuple] = {}  # binding uid -> ("value", Val) | ("var", ptr, t) | ("mem", MemRef)
        self.twos_of: dict[int, int] = {}  # binding uid -> trailing zeros known of its value
        self.wide_of: dict[int, object] = {}  # loop variable uid -> its 64-bit counter (alloca)
        self.extent_values: dict[str, ir.Value] = {}
        self.frames: list[Frame] = []
        self.loops: list[tuple[ir.Block, ir.Block]] = []
        self.shared: dict[str, ir.GlobalVariable] = {}
        # every tile, scratch temporary and buffer where the kernel's shared-memory plan puts it
        self.smem = SharedMemory(module, kinfo.kernel.name,
                                 plan if plan is not None else kinfo.smem)
        # what the lowering and the simulator agree on: barriers before CTA-wide writes (§10),
        # the collectives that exchange data (analyzer/facts/plan.py)
        self.plan = kinfo.plan
        self.binding_by_uid: dict[int, object] = {}
        self.home_of: dict[int, object] = {}
        self._index_bindings(kinfo.instance)
        self.guard_bounds: dict = {}       # atom -> upper bound (affine) inside enclosing ifs
        self.bounds = Bounds(self)
        self.tiles = TileLowering(self)
        self.carried: dict = {}            # id(dot node) -> mma.Carried, inside the loop that carries it
        self.second_buffers: dict = {}     # tile binding uid -> its second buffer (double-buffered copies)
        self.operands_ahead: dict = {}     # id(operand) -> the buffer its loop copied it into ahead

    def _index_bindings(self, inst) -> None:
        for b in inst.bindings:
            self.binding_by_uid[b.uid] = b
            self.home_of[b.uid] = inst
        for callee in inst.calls.values():
            self._index_bindings(callee)

    # ================================================================ the function
    def lower(self) -> ir.Function:
        k = self.kinfo.kernel
        params = []
        for b in self.kinfo.params:
            params.append(ir.PointerType(addrspace=GLOBAL) if isinstance(b.type, Tensor) else _param_ir(b.type))
        params += [I32T] * len(self.kinfo.extents)
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), params), entry_symbol(k.name))
        fn.calling_convention = "ptx_kernel"
        fn.attributes.add("nounwind")
        self.fn = fn
        for arg, b in zip(fn.args, self.kinfo.params):
            if isinstance(b.type, Tensor):
                arg.add_attribute("noalias")     # distinct tensor parameters do not alias (§9.5)
                arg.attributes.align = 16        # checked by the runtime (§2)
        entry = fn.append_basic_block("entry")
        body = fn.append_basic_block("body")
        self.alloca_builder = ir.IRBuilder(entry)
        self.b = ir.IRBuilder(body)
        self.ops = K.Ops(self.b)
        self.addr = Addressing(self.b)
        if self.debug is not None:
            self.debug.attach(fn, k)
            self.b.debug_metadata = self.debug.location(k.span)
        self._bind_kernel_params(fn)
        exit_bb = fn.append_basic_block("exit")
        self.frames.append(Frame(self.kinfo.instance, exit_bb))
        self.block(k.body)
        self._close_into(exit_bb)
        self.b.position_at_end(exit_bb)
        self.b.ret_void()
        self.alloca_builder.branch(body)
        self.smem.finish()
        return fn

    def _bind_kernel_params(self, fn):
        inst = self.kinfo.instance
        args = list(fn.args)
        for arg, name in zip(args[len(self.kinfo.params):], self.kinfo.extents):
            arg.name = name
            self.extent_values[name] = arg
        for b in inst.bindings:
            if b.kind == "extent" and b.name in self.extent_values:
                self.slots[b.uid] = ("value", Val(self.extent_values[b.name], I32))
                self.twos_of[b.uid] = twos_of_int(self.kinfo.aligned[b.name]) if b.name in self.kinfo.aligned else 0
        for arg, b in zip(args, self.kinfo.params):
            arg.name = b.name
            if isinstance(b.type, Tensor):
                self.slots[b.uid] = ("mem", self._tensor_ref(arg, b.type))
            else:
                v = self.b.trunc(arg, I1) if b.type == BOOL else arg
                self.slots[b.uid] = ("value", Val(v, b.type))

    def _tensor_ref(self, ptr, t, space=GLOBAL) -> MemRef:
        """Row-major: the stride of axis a is the product of the extents after it."""
        axes = [Axis(self._product(t.shape[a + 1:]), d) for a, d in enumerate(t.shape)]
        return MemRef(ptr, settle(t.elem), axes, [], space)

    def _product(self, extents) -> Term:
        const = 1
        tw = 0
        value = None
        for d in extents:
            if isinstance(d, int):
                const *= d
                continue
            v, t = self._extent64(d)
            tw += t
            value = v if value is None else ("mul", value, v)
        tw += twos_of_int(const)
        if value is None:
            return Term(const, twos_of_int(const))
        if const != 1:
            value = ("mul", value, const)
        return Term(value, min(INFINITE, tw))

    def extent64(self, name: str) -> ir.Value:
        return self._extent64(name)[0]

    def _extent64(self, name: str):
        v = self.extent_values.get(name)
        if v is None:
            raise LoweringError(f"runtime extent `{name}` has no value")
        key = "__x64_" + name
        cached = self.extent_values.get(key)
        if cached is None:
            cached = self.alloca_builder.sext(v, I64)  # once, at the entry
            self.extent_values[key] = cached
        tw = twos_of_int(self.kinfo.aligned[name]) if name in self.kinfo.aligned else 0
        return cached, tw

    # ================================================================ helpers
    @property
    def inst(self):
        return self.frames[-1].inst

    def type_of(self, e):
        t = self.inst.types.get(id(e))
        if t is None:
            raise LoweringError(f"no type recorded for {type(e).__name__}", getattr(e, "span", None))
        return settled(t)

    def binding(self, name: A.Name):
        b = self.inst.resolution.get(id(name))
        if b is None:
            raise LoweringError(f"`{name.id}` has no binding", name.span)
        return b

    def const_int(self, e) -> int | None:
        return const_int_in(self.inst, e)

    def twos(self, e) -> int:
        return twos(e, self._name_twos, self._ctx_twos)

    def _name_twos(self, n: A.Name) -> int:
        b = self.inst.resolution.get(id(n))
        if b is None:
            return 0
        if b.kind == "const" and isinstance(b.const_value, int) and not isinstance(b.const_value, bool):
            return twos_of_int(b.const_value)
        if b.kind == "function-dim" and isinstance(b.const_value, int):
            return twos_of_int(b.const_value)
        return self.twos_of.get(b.uid, 0)

    def _ctx_twos(self, c: A.CtxPath) -> int:
        if c.path == ("threads",):
            return twos_of_int(self.threads)
        if c.path == ("warps",):
            return twos_of_int(self.threads // 32)
        if c.path == ("lanes",):
            return 5
        return 0

    def kind(self, e) -> int:
        return self.kinfo.kind_of(e, self.inst)

    def alloca(self, ty, name=""):
        return self.alloca_builder.alloca(ty, name=name)

    def shared_buffer(self, name: str, ty: ir.Type) -> ir.Value:
        g = self.shared.get(name)
        if g is None:
            g = ir.GlobalVariable(self.module, ty, f"{name}_{self.kinfo.kernel.name}", addrspace=SHARED)
            g.linkage = "internal"
            g.align = 16
            g.initializer = ir.Constant(ty, ir.Undefined)
            self.shared[name] = opaque(g)
        return self.shared[name]

    def ctx(self, path) -> ir.Value:
        return K.CTX[path](self.ops, self.threads)

    def fresh_thread(self) -> ir.Value:
        """%tid.x read anew (volatile ``mov``): the index arithmetic of each tile statement then
        starts from its own read, rather than from values LLVM would otherwise share with the
        statements before a loop and keep alive across it (ptxas spilled such values in
        linear_relu)."""
        return K.fresh_tid(self.ops)

    def _close_into(self, target: ir.Block) -> None:
        if not self.b.block.is_terminated:
            self.b.branch(target)

    def _dead_block(self) -> None:
        """Statements after a jump are unreachable; they go into a block with no predecessor."""
        self.b.position_at_end(self.fn.append_basic_block("after_jump"))

    def to(self, val: Val, t) -> Val:
        """Convert ``val`` to type ``t`` (a Scalar or a Run); a scalar broadcasts over a run."""
        t = settled(t)
        if isinstance(t, Run):
            if isinstance(val.t, Run):
                if val.t.n != t.n:
                    raise LoweringError(f"run of {val.t.n} used as run of {t.n}")
                return Val(convert(self.b, val.v, val.t.elem, t.elem), t)
            s = convert(self.b, val.v, val.t, t.elem)
            return Val(splat(self.b, s, t.n), t)
        if isinstance(val.t, Run):
            raise LoweringError(f"a run used where {an(t)} is needed")
        return Val(convert(self.b, val.v, val.t, t), t)

    def cond(self, e) -> ir.Value:
        v = self.expr(e)
        if v.t != BOOL:
            raise LoweringError("a condition that is not a bool", e.span)
        return v.v

    # ================================================================ statements
    def block(self, blk: A.Block) -> None:
        for s in blk.stmts:
            self.stmt(s)

    def stmt(self, s) -> None:
        if self.debug is not None:
            self.b.debug_metadata = self.debug.location(s.span)
        getattr(self, "stmt_" + type(s).__name__)(s)

    def stmt_Let(self, s: A.Let) -> None:
        b = self.inst.decls[id(s)]
        if b.kind == "view":
            self.slots[b.uid] = ("mem", self.memref(s.value))
            return
        if isinstance(b.type, Tile):                 # a materialized `let`: a new tile (§5)
            ref = self._tile(b, settled(b.type))
            self.slots[b.uid] = ("mem", ref)
            self.tiles.statement(s, ref, s.value, "=")
            return
        val = self.to(self.expr(s.value), b.type)
        self.slots[b.uid] = ("value", val)
        if isinstance(b.type, Scalar) and b.type.is_int:
            self.twos_of[b.uid] = self.twos(s.value)

    def stmt_Var(self, s: A.Var) -> None:
        b = self.inst.decls[id(s)]
        t = settled(b.type)
        if isinstance(t, Tile):
            ref = self._tile(b, t)
            self.slots[b.uid] = ("mem", ref)
            if s.value is not None:                  # filled by a CTA-wide copy or sweep (§5)
                self.tiles.statement(s, ref, s.value, "=")
            return
        ptr = self.alloca(value_ir(t), name=s.name)
        init = self.to(self.expr(s.value), t) if s.value is not None else Val(_zero(t), t)
        self.b.store(init.v, ptr)
        self.slots[b.uid] = ("var", ptr, t)

    def _tile(self, b, t: Tile) -> MemRef:
        return self.named_tile(f"{b.name}_{b.uid}", t, tile_key(self.inst, b))

    def named_tile(self, name: str, t: Tile, key) -> MemRef:
        """A static tile of its own in shared memory (a `var`, a call's tile argument or result),
        the one the shared-memory plan lists under ``key``."""
        count = 1
        for d in t.shape:
            count *= d
        a = self.smem.plan.named.get(key)
        row_stride = a.row_stride if a is not None else None     # a padded dot operand (analyzer/smem.py)
        if row_stride is not None:
            count = t.shape[0] * row_stride
        ptr = self.smem.named(key, name, settle(t.elem), count)
        return self.tile_ref(ptr, settle(t.elem), list(t.shape), row_stride)

    def tile_ref(self, ptr, elem, shape, row_stride: int | None = None) -> MemRef:
        """A row-major tile of ``shape`` at ``ptr`` in shared memory (a buffer of its own), its
        rows ``row_stride`` elements apart where given (2-D, padded)."""
        axes = []
        for a, d in enumerate(shape):
            stride = 1
            for x in shape[a + 1:]:
                stride *= x
            if row_stride is not None and a == 0:
                stride = row_stride
            axes.append(Axis(Term(stride, twos_of_int(stride)), d))
        return MemRef(ptr, elem, axes, [], SHARED, buffer=object())

    def stmt_Assign(self, s: A.Assign) -> None:
        target = s.target
        binop = s.op[:-1] if s.op != "=" else None
        if isinstance(target, A.Name):
            b = self.binding(target)
            slot = self.slots.get(b.uid)
            if slot is not None and slot[0] == "mem":            # a tile: a CTA-wide write
                self.tiles.statement(s, slot[1], s.value, s.op)
                return
            if slot is None or slot[0] != "var":
                raise LoweringError(f"assignment to `{b.name}`, which is not a var", s.span)
            _, ptr, t = slot
            value = self.expr(s.value)
            if binop:
                current = Val(self.b.load(ptr, typ=value_ir(t)), t)
                value = self.binary(binop, current, value)
            self.b.store(self.to(value, t).v, ptr)
            return
        if not isinstance(target, A.Index) or not isinstance(target.base, A.Name):
            raise LoweringError("assignment to something that is not a place", s.span)
        b = self.binding(target.base)
        slot = self.slots.get(b.uid)
        if isinstance(b.type, Run):                          # r[k] = e
            _, ptr, t = slot
            k = self.const_int(target.subs[0].index)
            if k is None:
                raise LoweringError("run element index is not constant", s.span)
            vec = self.b.load(ptr, typ=value_ir(t))
            value = self.expr(s.value)
            if binop:
                current = Val(self.b.extract_element(vec, ir.Constant(I32T, k)), t.elem)
                value = self.binary(binop, current, value)
            vec = self.b.insert_element(vec, self.to(value, t.elem).v, ir.Constant(I32T, k))
            self.b.store(vec, ptr)
            return
        if not target.is_point:                              # a slice: a CTA-wide write
            self.tiles.statement(s, self.memref(target), s.value, s.op)
            return
        ref = slot[1]
        terms = self.point_terms(ref, target.subs)
        value = self.expr(s.value)
        if binop:
            current = Val(self.addr.load(ref, terms), ref.elem)
            value = self.binary(binop, current, value)
        self.addr.store(ref, terms, self.to(value, ref.elem).v)

    def stmt_If(self, s: A.If) -> None:
        c = self.cond(s.cond)
        then_bb = self.fn.append_basic_block("then")
        merge_bb = self.fn.append_basic_block("endif")
        else_bb = self.fn.append_basic_block("else") if s.orelse is not None else merge_bb
        self.b.cbranch(c, then_bb, else_bb)
        self.b.position_at_end(then_bb)
        saved_guards = self.guard_bounds
        self.guard_bounds = {**saved_guards, **self.bounds.guard_facts(s.cond, self.inst)}
        self.block(s.then)
        self.guard_bounds = saved_guards
        self._close_into(merge_bb)
        if s.orelse is not None:
            self.b.position_at_end(else_bb)
            if isinstance(s.orelse, A.If):
                self.stmt(s.orelse)
            else:
                self.block(s.orelse)
            self._close_into(merge_bb)
        self.b.position_at_end(merge_bb)

    def stmt_While(self, s: A.While) -> None:
        head = self.fn.append_basic_block("while")
        body = self.fn.append_basic_block("while_body")
        done = self.fn.append_basic_block("while_end")
        self.b.branch(head)
        self.b.position_at_end(head)
        self.b.cbranch(self.cond(s.cond), body, done)
        self.b.position_at_end(body)
        self.loops.append((head, done))
        self.block(s.body)
        self.loops.pop()
        self._close_into(head)
        self.b.position_at_end(done)

    def stmt_For(self, s: A.For) -> None:
        b = self.inst.decls[id(s)]
        lt = settled(b.type)
        lo = self.to(self.expr(s.args[0]), lt).v
        hi = self.to(self.expr(s.args[1]), lt).v
        step = self.to(self.expr(s.args[2]), lt).v if len(s.args) == 3 else ir.Constant(scalar_ir(lt), 1)
        step_twos = self.twos(s.args[2]) if len(s.args) == 3 else 0
        self.twos_of[b.uid] = min(self.twos(s.args[0]), step_twos)
        ptr = self.alloca(scalar_ir(lt), name=s.var)
        self.slots[b.uid] = ("var", ptr, lt)
        unroll = loop_unroll(self.inst, s, self.unroll_product)
        stride = self.bounds.exact_const(s.args[2], self.inst) if len(s.args) == 3 else 1
        # a loop LLVM unrolls is counted (_counted_for); a larger one keeps its i32 variable (the
        # counter's two more registers: tiled_gemm's k0 loop went from 34 to 40)
        counted = lt == I32 and unroll is not None and stride is not None and 0 < stride < 2 ** 31
        if counted:
            count, wide = self._counted_for(b, lo, hi, stride)
        else:
            self.b.store(lo, ptr)
            self.wide_of.pop(b.uid, None)
        carried = self._carry_in(s)
        ahead = self._double_buffers(s)
        if ahead:
            parity = self._copy_first(s, b, lt, lo, hi, ahead)
        head = self.fn.append_basic_block("for")
        body = self.fn.append_basic_block("for_body")
        latch = self.fn.append_basic_block("for_next")
        done = self.fn.append_basic_block("for_end")
        self.b.branch(head)
        self.b.position_at_end(head)
        if counted:
            self.b.cbranch(self.b.icmp_unsigned("<", self.b.load(count[0], typ=I32T), count[1]), body, done)
            self.b.position_at_end(body)
            self.b.store(self.b.trunc(self.b.load(wide, typ=I64), I32T), ptr)
        else:
            i = self.b.load(ptr, typ=scalar_ir(lt))
            self.b.cbranch(self.b.icmp_signed("<", i, hi), body, done)
            self.b.position_at_end(body)
        saved_product = self.unroll_product
        self.unroll_product *= unroll or 1
        self.loops.append((latch, done))
        if ahead:
            self._copy_next(s, b, lt, step, hi, ahead, parity)
        else:
            self.block(s.body)
        self.loops.pop()
        self.unroll_product = saved_product
        self._close_into(latch)
        self.b.position_at_end(latch)
        if ahead:
            self.b.store(self.b.xor(self.b.load(parity, typ=I1), ir.Constant(I1, 1)), parity)
        if counted:
            j = self.b.load(count[0], typ=I32T)
            self.b.store(self.b.add(j, ir.Constant(I32T, 1), flags=("nuw",)), count[0])
            w = self.b.load(wide, typ=I64)
            self.b.store(self.b.add(w, ir.Constant(I64, stride), flags=("nsw",)), wide)
        else:
            i = self.b.load(ptr, typ=scalar_ir(lt))
            self.b.store(self.b.add(i, step, flags=("nsw",)), ptr)
        back = self.b.branch(head)
        back.set_metadata("llvm.loop", self._loop_md(unroll))
        self.b.position_at_end(done)
        if carried:
            for c in carried:                      # written back once, where it is next read
                c.leave()
                del self.carried[id(c.stmt.value)]
            K.barrier(self.ops)                    # the write-back is a CTA-wide write (§10)

    def _counted_for(self, b, lo, hi, stride: int):
        """An i32 loop ``range(lo, hi, stride)`` with a constant positive stride, run as
        ``ceil((hi - lo) / stride)`` iterations of an i32 counter from 0, its variable kept in 64
        bits. LANGUAGE §5: the variable takes lo, lo + stride, .. while below hi and never steps
        past the largest i32 (the simulator reports PH407 where it would), so the 64-bit value is
        always the i32 one and subscripts use it without a sign extension; the count from 0 is
        what LLVM's loop passes compare against, keeping the variable's own add out of the exit
        test (one strided pointer and a 32-bit counter, as nvcc does)."""
        lo64, hi64 = self.b.sext(lo, I64), self.b.sext(hi, I64)
        span = self.b.sub(hi64, lo64, flags=("nsw",))     # at most 2^32 - 1: exact in 64 bits
        n = self.b.udiv(self.b.add(span, ir.Constant(I64, stride - 1), flags=("nsw",)), ir.Constant(I64, stride))
        n = self.b.select(self.b.icmp_signed("<", lo64, hi64), self.b.trunc(n, I32T), ir.Constant(I32T, 0))
        j = self.alloca(I32T, name=b.name + ".n")
        self.b.store(ir.Constant(I32T, 0), j)
        wide = self.alloca(I64, name=b.name + ".64")
        self.b.store(lo64, wide)
        self.wide_of[b.uid] = wide
        self.addr.counters.add(id(wide))          # global subscripts by it: addressed in bytes
        return (j, n), wide

    # ---------------------------------------------------------------- double-buffered copies
    def _double_buffers(self, s: A.For) -> list:
        """The copies the shared-memory plan double buffers in this loop (analyzer/smem.py,
        facts/plan.py ``Ahead``), each a _Copy with its two buffers."""
        entries = self.smem.plan.double_buffered.get((id(self.inst), id(s)), ())
        out = []
        for e in entries:
            if e.product is None:                  # `t = T[..]`: the tile's own buffer and a second
                tb = self.binding(e.stmt.target)
                slot = self.slots.get(tb.uid)
                if slot is None or slot[0] != "mem":
                    raise LoweringError(f"the double-buffered tile `{tb.name}` has no buffer", e.stmt.span)
                second = self.second_buffers.get(tb.uid)
                if second is None:
                    second = self.second_buffers[tb.uid] = self.named_tile(
                        f"{tb.name}_{tb.uid}_second", settled(tb.type), second_key(tile_key(self.inst, tb)))
                    second.buffer = slot[1].buffer
                out.append(_Copy(e, slot[1], second, tile=tb))
                continue
            # `let v = T[..]` read by a product: the copy the product would make, in two buffers
            transposed, k_major = operand_layout(self, e.product, e.operand)
            t, padded = operand_tile(self, e.operand, transposed, k_major)
            key = ahead_key(self.inst, e.operand)
            name = f"{e.operand.id}_{e.product.func}_ahead"
            first = self.named_buffer(key, name, t, padded)
            second = self.named_buffer(second_key(key), name + "_second", t, padded)
            second.buffer = first.buffer
            out.append(_Copy(e, first, second, transposed=transposed, k_major=k_major))
        return out

    def named_buffer(self, key, name: str, t: Tile, padded: bool) -> MemRef:
        """The named allocation ``key`` of the shared-memory plan as a tile of ``t``'s shape, its
        rows padded as the plan says where ``padded`` (else contiguous, in the same bytes)."""
        elem = settle(t.elem)
        a = self.smem.plan.named.get(key)
        if a is None:
            raise LoweringError(f"the buffer `{name}` is not in the shared-memory plan")
        ptr = self.smem.named(key, name, elem, a.bytes // BYTES[elem.name])
        return self.tile_ref(ptr, elem, [int(d) for d in t.shape], a.row_stride if padded else None)

    @contextmanager
    def _loop_variable_at(self, b, lt, v, v64):
        """The loop variable ``b`` reads ``v`` (its 64-bit value ``v64`` for an i32 variable)
        while the copies of another iteration are emitted."""
        saved = self.slots[b.uid], self.wide_of.get(b.uid)
        ptr = self.alloca(scalar_ir(lt), name=b.name + ".ahead")
        self.b.store(v, ptr)
        self.slots[b.uid] = ("var", ptr, lt)
        if v64 is not None:
            wide = self.alloca(I64, name=b.name + ".ahead64")
            self.b.store(v64, wide)
            self.wide_of[b.uid] = wide
        else:
            self.wide_of.pop(b.uid, None)
        try:
            yield
        finally:
            self.slots[b.uid] = saved[0]
            if saved[1] is not None:
                self.wide_of[b.uid] = saved[1]
            else:
                self.wide_of.pop(b.uid, None)

    def _copy_first(self, s: A.For, b, lt, lo, hi, ahead: list):
        """Before the loop: the first iteration's copies into the first buffers, where the loop
        runs at all (one group of asynchronous copies either way), after a barrier where the plan
        puts one; returns the parity (i1: the second buffers are current) the latch flips."""
        if self.plan.barriers_for_copies_ahead(s, self.inst)[0]:
            K.barrier(self.ops)                    # the tiles' last readers (an enclosing loop's)
        with self.b.if_then(self.b.icmp_signed("<", lo, hi)):
            with self._loop_variable_at(b, lt, lo, self.b.sext(lo, I64) if lt == I32 else None):
                for c in ahead:
                    self._copy_ahead(c, c.first)
        if self.tiles.async_capable:
            K.cp_async_commit(self.ops)
        parity = self.alloca(I1, name=b.name + ".second")
        self.b.store(ir.Constant(I1, 0), parity)
        return parity

    def _copy_next(self, s: A.For, b, lt, step, hi, ahead: list, parity) -> None:
        """The body of a loop with double-buffered copies: [barrier,] the next iteration's copies
        into the buffers this one does not read (where there is a next iteration), the wait for
        this iteration's copies and one barrier, then the rest of the body reading the current
        buffers (facts/plan.py)."""
        bb = self.b
        second = bb.load(parity, typ=I1)
        if self.plan.barriers_for_copies_ahead(s, self.inst)[1]:
            K.barrier(self.ops)                    # the buffers written next were read last iteration
        v = bb.load(self.slots[b.uid][1], typ=scalar_ir(lt))
        v64 = bb.load(self.wide_of[b.uid], typ=I64) if b.uid in self.wide_of else \
            (bb.sext(v, I64) if lt == I32 else v)
        n64 = bb.add(v64, bb.sext(step, I64) if lt == I32 else step, flags=("nsw",))
        hi64 = bb.sext(hi, I64) if lt == I32 else hi
        with bb.if_then(bb.icmp_signed("<", n64, hi64)):
            nv = bb.trunc(n64, I32T) if lt == I32 else n64
            with self._loop_variable_at(b, lt, nv, n64 if lt == I32 else None):
                for c in ahead:
                    self._copy_ahead(c, _with_ptr(c.first, bb.select(second, c.first.ptr, c.second.ptr)))
        if self.tiles.async_capable:
            K.cp_async_commit(self.ops)
            K.cp_async_wait(self.ops, 1)           # all but the group just issued: this iteration's
        K.barrier(self.ops)                        # every thread's copies are in shared memory
        for c in ahead:
            current = _with_ptr(c.first, bb.select(second, c.second.ptr, c.first.ptr))
            if c.tile is not None:
                self.slots[c.tile.uid] = ("mem", current)
            else:
                self.operands_ahead[id(c.entry.operand)] = current
        moved = {id(c.entry.stmt) for c in ahead if c.tile is not None}
        for st in s.body.stmts:
            if id(st) not in moved:                # a view's `let` stays: it is only a view
                self.stmt(st)
        for c in ahead:
            if c.tile is not None:
                self.slots[c.tile.uid] = ("mem", c.first)
            else:
                del self.operands_ahead[id(c.entry.operand)]

    def _copy_ahead(self, c, target: MemRef) -> None:
        st = c.entry.stmt
        if self.debug is not None:
            self.b.debug_metadata = self.debug.location(st.span)
        if c.tile is not None:
            self.tiles.copy_ahead(st, target)
            return
        # the view at this iteration's value of the loop variable, copied as the product would
        node = c.entry.operand
        sw = Sweep(target, "=", node)
        sw.leaves[id(node)] = self.memref(st.value)
        with self.tiles.copying_ahead():
            copy_operand(self.tiles, sw, node, target, c.transposed, c.k_major)

    def _carry_in(self, s: A.For) -> list:
        """The accumulators the execution plan lets this loop carry in registers and that the
        lowering can (``acc += dot(..)`` on tensor cores: tile_ops.carry), read in before it."""
        out = []
        plan = self.plan
        for st in (plan.carried_accumulators(s, self.inst) if plan is not None else ()):
            slot = self.slots.get(self.binding(st.target).uid)
            if slot is None or slot[0] != "mem":
                continue
            c = carry(self.tiles, st, slot[1])
            if c is not None:
                c.stmt = st
                out.append(c)
        return out

    def _loop_md(self, unroll: int | None):
        m = self.module
        props = [m.add_metadata([ir.MetaDataString(m, "llvm.loop.mustprogress")])]
        if unroll is not None:
            props.append(m.add_metadata([ir.MetaDataString(m, "llvm.loop.unroll.count"),
                                         ir.Constant(I32T, unroll)]))
        node = m.add_metadata([ir.MetaDataString(m, f"phobos.loop.{len(m.metadata)}")] + props)
        node.operands = (node,) + tuple(props)       # a loop ID refers to itself (LangRef)
        return node

    def stmt_Break(self, s) -> None:
        self.b.branch(self.loops[-1][1])
        self._dead_block()

    def stmt_Continue(self, s) -> None:
        self.b.branch(self.loops[-1][0])
        self._dead_block()

    def stmt_Return(self, s: A.Return) -> None:
        frame = self.frames[-1]
        if s.value is not None and frame.result_tile is not None:
            # the whole CTA copies or sweeps the value into the call's result tile (the checker
            # has made sure every thread gets here)
            self.tiles.statement(s, frame.result_tile, s.value, "=")
        elif s.value is not None and frame.result is not None:
            self.b.store(self.to(self.expr(s.value), frame.result_t).v, frame.result)
        self.b.branch(frame.exit)
        self._dead_block()

    def stmt_ExprStmt(self, s: A.ExprStmt) -> None:
        e = s.expr
        if isinstance(e, A.Call) and e.func in ATOMICS and id(e) not in self.inst.calls:
            self.atomic(e, want_result=False)      # no result to hand out: no second barrier
            return
        self.expr(e)

    # ================================================================ expressions
    def expr(self, e) -> Val | None:
        return getattr(self, "e_" + type(e).__name__)(e)

    def e_IntLit(self, e) -> Val:
        t = self.type_of(e)
        return Val(const(t, e.value), t)

    def e_FloatLit(self, e) -> Val:
        t = self.type_of(e)
        return Val(const(t, e.value), t)

    def e_BoolLit(self, e) -> Val:
        return Val(ir.Constant(I1, int(e.value)), BOOL)

    def e_CtxPath(self, e: A.CtxPath) -> Val:
        return Val(self.ctx(e.path), I32)

    def e_Name(self, e: A.Name) -> Val:
        b = self.binding(e)
        if b.kind == "const" or (b.kind == "function-dim" and b.const_value is not None):
            t = settled(b.type)
            return Val(const(t, b.const_value), t)
        slot = self.slots.get(b.uid)
        if slot is None:
            raise LoweringError(f"`{b.name}` has no value here", e.span)
        if slot[0] == "value":
            return slot[1]
        if slot[0] == "var":
            _, ptr, t = slot
            return Val(self.b.load(ptr, typ=value_ir(t)), t)
        raise LoweringError(f"`{b.name}` is memory, not a value", e.span)

    def e_Unary(self, e: A.Unary) -> Val:
        x = self.expr(e.operand)
        rt = self.type_of(e)
        if e.op == "!":
            return Val(K.UNARY[("!", "bool")](self.ops, x.v), BOOL)
        comp = arith_type(elem(rt))
        xv = self.to(x, shape_like(rt, comp))
        family = "float" if comp.is_float else "int"
        r = K.UNARY[(e.op, family)](self.ops, xv.v)
        return self.to(Val(r, shape_like(rt, comp)), rt)

    def e_Binary(self, e: A.Binary) -> Val:
        if e.op in ("&&", "||"):
            return self.short_circuit(e)
        lhs = self.expr(e.lhs)
        rhs = self.expr(e.rhs)
        return self.binary(e.op, lhs, rhs, self.type_of(e))

    def short_circuit(self, e: A.Binary) -> Val:
        """``a && b`` and ``a || b``: ``b`` runs only when ``a`` does not decide (§6)."""
        left = self.cond(e.lhs)
        left_bb = self.b.block
        right_bb = self.fn.append_basic_block("rhs")
        merge_bb = self.fn.append_basic_block("sc_end")
        if e.op == "&&":
            self.b.cbranch(left, right_bb, merge_bb)
        else:
            self.b.cbranch(left, merge_bb, right_bb)
        self.b.position_at_end(right_bb)
        right = self.cond(e.rhs)
        right_end = self.b.block
        self.b.branch(merge_bb)
        self.b.position_at_end(merge_bb)
        phi = self.b.phi(I1)
        phi.add_incoming(ir.Constant(I1, 0 if e.op == "&&" else 1), left_bb)
        phi.add_incoming(right, right_end)
        return Val(phi, BOOL)

    def binary(self, op: str, lhs: Val, rhs: Val, result_t=None) -> Val:
        """``lhs op rhs`` with the typing of §3: operands join (i8/u8 promote to i32, f16/bf16
        compute in f32), scalars broadcast over runs."""
        n = lhs.t.n if isinstance(lhs.t, Run) else rhs.t.n if isinstance(rhs.t, Run) else None
        le, re_ = settle(elem(lhs.t)), settle(elem(rhs.t))
        if op in SHIFTS:
            join = promote_int(le)
        elif op in COMPARISONS and le == BOOL and re_ == BOOL:
            join = BOOL
        else:
            join = arith_join(le, re_)
            if join is None:
                raise LoweringError(f"`{op}` of {le} and {re_}")
            join = settle(join)
        comp = arith_type(join) if join != BOOL else BOOL
        shaped = (lambda t: Run(t, n)) if n else (lambda t: t)
        x = self.to(lhs, shaped(comp)).v
        if op in SHIFTS and re_.name == "i64" and comp.name != "i64":
            # an i64 count on a narrower value: clamp it (unsigned, so a negative count stays out
            # of range) before narrowing, or 2^32 + 1 would shift by 1 (the simulator: by 2^32 + 1)
            wide = self.to(rhs, re_).v                          # (shifts are scalar-only, §6)
            rhs = Val(self.ops.llvm("umin", [wide, ir.Constant(wide.type, width(comp))]), re_)
        y = self.to(rhs, shaped(comp)).v
        if op in COMPARISONS:
            return Val(K.compare(self.ops, op, x, y), shaped(BOOL))
        family = "float" if comp.is_float else "int"
        r = K.BINARY[(op, family)](self.ops, x, y)
        out = Val(r, shaped(comp))
        return self.to(out, shaped(join)) if join != comp else out

    # ---------------------------------------------------------------- subscripts
    def index_term(self, e) -> Term:
        v = self.expr(e)
        if v.t == I32:
            wide = self.index64(e)
            if wide is not None:
                return Term(wide, self.twos(e), v.v)
        narrow = convert(self.b, v.v, v.t, I32) if v.t.is_int and v.t.name != "i64" else None
        return Term(convert(self.b, v.v, v.t, T_I64), self.twos(e), narrow)

    def index64(self, e) -> ir.Value | None:
        """The i32 index ``e`` computed in 64 bits from its atoms, where the bounds analysis shows
        that its i32 value never wraps (bounds.wide_index), so that LLVM sees the address as an
        affine function of the loop variables (one strided pointer) rather than the sign
        extension of an i32 sum; None elsewhere (the caller sign-extends the i32 value)."""
        f = self.bounds.wide_index(e, self.inst)
        if f is None or set(f) == {None}:
            return None
        # (no nsw: a partial sum may leave the i32 range, and even i64's with huge coefficients
        # that cancel; the arithmetic is exact modulo 2^64 and the whole lies in the i32 range)
        out = None
        for k, c in sorted(((k, c) for k, c in f.items() if k is not None), key=repr):
            x = self._atom64(k)
            if x is None:
                return None
            if c != 1:
                x = self.b.mul(x, ir.Constant(I64, c))
            out = x if out is None else self.b.add(out, x)
        if f.get(None, 0):
            out = self.b.add(out, ir.Constant(I64, f[None]))
        return out

    def _atom64(self, key) -> ir.Value | None:
        """An atom of bounds.wide_index, its i32 value sign-extended (a loop variable: its 64-bit
        counter, the same value)."""
        if key[0] == "ctx":
            return self.b.sext(self.ctx(key[1]), I64)
        if key[0] == "x":
            return self.extent64(key[1])
        uid = key[1]
        if uid in self.wide_of:
            return self.b.load(self.wide_of[uid], typ=I64)
        slot = self.slots.get(uid)
        if slot is None:
            return None
        if slot[0] == "value" and slot[1].t == I32:
            return self.b.sext(slot[1].v, I64)
        if slot[0] == "var" and slot[2] == I32 and self.binding_by_uid[uid].kind == "loop":
            return self.b.sext(self.b.load(slot[1], typ=I32T), I64)
        return None

    def point_terms(self, ref: MemRef, subs) -> list[Term]:
        if len(subs) != len(ref.axes):
            raise LoweringError("subscript count differs from the memory's rank")
        return [scale(self.index_term(s.index), axis.stride) for s, axis in zip(subs, ref.axes)]

    def memref(self, e) -> MemRef:
        """The memory a tensor, tile or view expression names: a name, or a slice of one."""
        if isinstance(e, A.Name):
            slot = self.slots.get(self.binding(e).uid)
            if slot is None or slot[0] != "mem":
                raise LoweringError(f"`{e.id}` is not memory", e.span)
            return slot[1]
        if isinstance(e, A.Index) and isinstance(e.base, A.Name):
            base = self.memref(e.base)
            starts, keep, extents, inside = [], [], [], []
            for s, axis in zip(e.subs, base.axes):
                if isinstance(s, A.Point):
                    starts.append(self.index_term(s.index))
                    keep.append(False)
                    extents.append(1)
                    inside.append(self.bounds.inside(s.index, None, axis.extent, self.inst))
                elif isinstance(s, A.SpanSub):
                    n = self.const_int(s.length)
                    starts.append(self.index_term(s.start))
                    keep.append(True)
                    extents.append(n)
                    inside.append(self.bounds.inside(s.start, n, axis.extent, self.inst))
                elif s.lo is None and s.hi is None:          # `:` the whole axis
                    starts.append(Term(0, INFINITE))
                    keep.append(True)
                    extents.append(axis.extent)
                    inside.append(True)
                else:
                    n = self._range_length(s)
                    starts.append(self.index_term(s.lo) if s.lo is not None else Term(0, INFINITE))
                    keep.append(True)
                    extents.append(n)
                    inside.append(self.bounds.inside(s.lo, n, axis.extent, self.inst))
            return base.view(starts, keep, extents, inside)
        raise LoweringError(f"{type(e).__name__} does not name memory", getattr(e, "span", None))

    def _range_length(self, s) -> int:
        """The constant length of ``lo : hi`` (the analyzer checked that it folds)."""
        if s.lo is None:
            return self.const_int(s.hi)
        f_hi = self.bounds.form(s.hi, self.inst)
        f_lo = self.bounds.form(s.lo, self.inst)
        if f_hi is None or f_lo is None:
            raise LoweringError("the length of a range does not fold", s.span)
        diff = dict(f_hi)
        for k, v in f_lo.items():
            diff[k] = diff.get(k, 0) - v
        diff = {k: v for k, v in diff.items() if v != 0 or k is None}
        if set(diff) != {None}:
            raise LoweringError("the length of a range does not fold", s.span)
        return diff[None]

    # ---------------------------------------------------------------- loops the tile code uses
    def counted_loop(self, lo: int, hi: int, body, unroll: int | None = None) -> None:
        """``body(i)`` for i in lo .. hi - 1 (i32 constants), as one LLVM loop."""
        if hi - lo <= 0:
            return
        if hi - lo == 1:
            body(ir.Constant(I32T, lo))
            return
        ptr = self.alloca(I32T, name="i")
        self.b.store(ir.Constant(I32T, lo), ptr)
        head = self.fn.append_basic_block("tile_loop")
        done = self.fn.append_basic_block("tile_loop_end")
        self.b.branch(head)
        self.b.position_at_end(head)
        i = self.b.load(ptr, typ=I32T)
        body(i)
        nxt = self.b.add(i, ir.Constant(I32T, 1), flags=("nuw", "nsw"))
        self.b.store(nxt, ptr)
        back = self.b.cbranch(self.b.icmp_unsigned("<", nxt, ir.Constant(I32T, hi)), head, done)
        back.set_metadata("llvm.loop", self._loop_md(unroll))
        self.b.position_at_end(done)

    def strided_loop(self, start, end, step, body) -> None:
        """``body(i)`` for i = start, start + step, .. while i < end (i32 values, unsigned)."""
        ptr = self.alloca(I32T, name="e")
        self.b.store(start, ptr)
        head = self.fn.append_basic_block("sweep")
        body_bb = self.fn.append_basic_block("sweep_body")
        done = self.fn.append_basic_block("sweep_end")
        self.b.branch(head)
        self.b.position_at_end(head)
        i = self.b.load(ptr, typ=I32T)
        self.b.cbranch(self.b.icmp_unsigned("<", i, end), body_bb, done)
        self.b.position_at_end(body_bb)
        body(i)
        self.b.store(self.b.add(i, step), ptr)
        back = self.b.branch(head)
        back.set_metadata("llvm.loop", self._loop_md(None))
        self.b.position_at_end(done)

    def run_access(self, e: A.Index):
        """(MemRef, terms of the first element, run axis, n) of a run ``A[i, j :+ n]``."""
        ref = self.memref(e.base)
        terms = []
        axis = None
        for a, (s, ax) in enumerate(zip(e.subs, ref.axes)):
            if isinstance(s, A.Point):
                terms.append(scale(self.index_term(s.index), ax.stride))
                continue
            start = s.start if isinstance(s, A.SpanSub) else s.lo
            if start is not None:
                terms.append(scale(self.index_term(start), ax.stride))
            axis = a
        t = self.type_of(e)
        if axis is None or not isinstance(t, Run):
            raise LoweringError("a run access without a run axis", e.span)
        return ref, terms, axis, t.n

    def e_Index(self, e: A.Index) -> Val:
        b = self.binding(e.base)
        if isinstance(b.type, Run):                                   # r[k]
            k = self.const_int(e.subs[0].index)
            vec = self.e_Name(e.base)
            return Val(self.b.extract_element(vec.v, ir.Constant(I32T, k)), vec.t.elem)
        t = self.type_of(e)
        if isinstance(t, Run):                                        # a run load
            ref, terms, axis, n = self.run_access(e)
            return Val(self.addr.load_run(ref, terms, axis, n), Run(ref.elem, n))
        if isinstance(t, Tile):
            raise LoweringError("a slice used as a scalar value", e.span)
        ref = self.memref(e.base)
        return Val(self.addr.load(ref, self.point_terms(ref, e.subs)), ref.elem)

    # ---------------------------------------------------------------- calls
    def e_Call(self, e: A.Call) -> Val | None:
        f = e.func
        callee = self.inst.calls.get(id(e))
        if callee is not None:
            return self.inline(e, callee)
        if f in SCALARS:
            return self.to(self.expr(e.args[0]), self.type_of(e))
        handler = getattr(self, "call_" + f, None)
        if handler is not None:
            return handler(e)
        if f in SCALAR_MATH:
            return self.math(e)
        if f in ATOMICS:
            return self.atomic(e)
        raise Unsupported(f"`{f}` is not supported by phobos-build yet", e.span)

    def math(self, e: A.Call) -> Val:
        rt = self.type_of(e)
        f = e.func
        args = [self.expr(a) for a in e.args]
        if f == "popcount":
            a = args[0]
            el = settle(elem(a.t))
            wide = T_I64 if el.name == "i64" else I32
            # zero-extend narrow integers: popcount counts the bits of the value's own width
            src = Scalar("u8") if el.name in ("i8", "u8") else el
            a = self.to(Val(a.v, shape_like(a.t, src)), shape_like(a.t, wide))
            return self._map(K.MATH[f], [a], rt, wide)
        comp = arith_type(elem(rt))
        args = [self.to(a, shape_like(rt, comp)) for a in args]
        return self._map(K.MATH[f], args, rt, comp)

    def _map(self, emitter, args: list[Val], rt, comp) -> Val:
        """Apply a scalar emitter, elementwise over runs; convert to the result type."""
        if isinstance(rt, Run):
            results = []
            for i in range(rt.n):
                idx = ir.Constant(I32T, i)
                results.append(emitter(self.ops, *[self.b.extract_element(a.v, idx) for a in args]))
            out = ir.Constant(ir.VectorType(results[0].type, rt.n), ir.Undefined)
            for i, r in enumerate(results):
                out = self.b.insert_element(out, r, ir.Constant(I32T, i))
            return self.to(Val(out, Run(_scalar_of(results[0].type, comp), rt.n)), rt)
        r = emitter(self.ops, *[a.v for a in args])
        return self.to(Val(r, _scalar_of(r.type, comp)), rt)

    def call_where(self, e: A.Call) -> Val:
        rt = self.type_of(e)
        c = self.expr(e.args[0])
        a = self.to(self.expr(e.args[1]), rt)
        b = self.to(self.expr(e.args[2]), rt)
        cv = c.v
        if isinstance(rt, Run) and not isinstance(c.t, Run):
            cv = splat(self.b, cv, rt.n)
        return Val(self.b.select(cv, a.v, b.v), rt)

    def call_elem(self, e: A.Call) -> Val:
        return self.to(self.expr(e.args[0]), self.type_of(e))

    def call_sum(self, e: A.Call) -> Val:
        rt = self.type_of(e)
        arg = e.args[0]
        dp = self._dp4a(arg, rt)
        if dp is not None:
            return dp
        run = self.expr(arg)
        v = self.to(run, Run(rt, run.t.n)).v
        parts = [self.b.extract_element(v, ir.Constant(I32T, i)) for i in range(run.t.n)]
        while len(parts) > 1:                      # a pairwise tree (§10: order unspecified)
            nxt = [K.FOLD["sum"](self.ops, parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
            if len(parts) % 2:
                nxt.append(parts[-1])
            parts = nxt
        return Val(parts[0], rt)

    def _dp4a(self, arg, rt) -> Val | None:
        """``sum(a * b)`` or ``sum(a)`` over i8/u8 runs whose length is a multiple of 4: one
        dp4a per four bytes (§7)."""
        if rt != I32:
            return None
        if isinstance(arg, A.Binary) and arg.op == "*":
            lt, rt_ = self.type_of(arg.lhs), self.type_of(arg.rhs)
            if not (isinstance(lt, Run) and isinstance(rt_, Run)):
                return None
            if lt.elem.name not in ("i8", "u8") or rt_.elem.name not in ("i8", "u8") or lt.n % 4:
                return None
            a, b = self.expr(arg.lhs), self.expr(arg.rhs)
            signs = (lt.elem.name == "i8", rt_.elem.name == "i8")
        else:
            t = self.type_of(arg)
            if not (isinstance(t, Run) and t.elem.name in ("i8", "u8") and t.n % 4 == 0):
                return None
            a = self.expr(arg)
            b = Val(ir.Constant(ir.VectorType(I8, t.n), [1] * t.n), Run(Scalar("i8"), t.n))
            signs = (t.elem.name == "i8", True)
        acc = ir.Constant(I32T, 0)
        for g in range(a.t.n // 4):
            mask = ir.Constant(ir.VectorType(I32T, 4), list(range(4 * g, 4 * g + 4)))
            a4 = self.b.bitcast(self.b.shuffle_vector(a.v, ir.Constant(a.v.type, ir.Undefined), mask), I32T)
            b4 = self.b.bitcast(self.b.shuffle_vector(b.v, ir.Constant(b.v.type, ir.Undefined), mask), I32T)
            acc = K.dp4a(self.ops, a4, b4, acc, *signs)
        return Val(acc, I32)

    def call_store(self, e: A.Call) -> None:
        dst, value = e.args
        ref, terms, axis, n = self.run_access(dst)
        v = self.to(self.expr(value), Run(ref.elem, n))
        self.addr.store_run(ref, terms, axis, n, v.v)
        return None

    def call_barrier(self, e: A.Call) -> None:
        K.barrier(self.ops)
        return None

    def _element(self, target: A.Index):
        ref = self.memref(target.base)
        terms = self.point_terms(ref, target.subs)
        ptr, align = self.addr.element_ptr(ref, terms)
        return ref, ptr, align

    def atomic(self, e: A.Call, want_result: bool = True) -> Val | None:
        ref, ptr, _ = self._element(e.args[0])
        t = ref.elem
        values = [self.to(self.expr(a), t).v for a in e.args[1:]]
        emitter = K.ATOMIC[e.func]
        r = C.once_per_cta(self, lambda: emitter(self.ops, ptr, *values), t if want_result else None)
        return Val(r, t) if want_result else None

    def call_load_acquire(self, e: A.Call) -> Val:
        ref, ptr, align = self._element(e.args[0])
        t = ref.elem
        _coherent(ref.ptr)
        r = C.once_per_cta(self, lambda: K.load_acquire(self.ops, ptr, memory_ir(t), align), t)
        if t == BOOL:
            r = self.b.icmp_unsigned("!=", r, ir.Constant(I8, 0)) if r.type == I8 else r
        return Val(r, t)

    def call_store_release(self, e: A.Call) -> None:
        ref, ptr, align = self._element(e.args[0])
        t = ref.elem
        v = self.to(self.expr(e.args[1]), t).v
        if t == BOOL:
            v = self.b.zext(v, I8)
        C.once_per_cta(self, lambda: K.store_release(self.ops, v, ptr, align), None)
        return None

    # ---------------------------------------------------------------- generic calls
    def e_GenericCall(self, e: A.GenericCall) -> Val:
        rt = self.type_of(e)
        x = self.expr(e.args[0])
        if e.mode == "over":
            exchanges = self.plan.exchanges(e, self.inst)
            if e.param.path == ("lane",):
                return Val(C.lane_collective(self.ops, e.func, x.v, x.t, rt, exchanges), rt)
            return Val(C.cta_collective(self, e.func, x.v, x.t, rt, exchanges), rt)
        x = self.to(x, rt)
        lane_operand = self.to(self.expr(e.param), I32).v
        same_in_warp = self.kind(e.param) <= WARP_UNIFORM
        return Val(C.shuffle(self.ops, e.mode, x.v, rt, lane_operand, self.ctx(("lane",)), same_in_warp), rt)

    # ---------------------------------------------------------------- inlined functions
    def inline(self, call: A.Call, callee) -> Val | None:
        fn: A.Function = callee.node
        # arguments are evaluated in the caller
        bound = []
        for p, a in zip(fn.params, call.args):
            pb = callee.decls.get(id(p))
            if pb is None:
                raise LoweringError(f"parameter `{p.name}` of `{fn.name}` has no binding", call.span)
            if isinstance(pb.type, (Tensor, Tile)):
                if not isinstance(a, (A.Name, A.Index)):          # a computed tile: `f(t * 2.0)`
                    bound.append((pb, ("mem", self._argument_tile(fn, p, a)), None))
                    continue
                bound.append((pb, ("mem", self.memref(a)), None))
            else:
                bound.append((pb, ("value", self.to(self.expr(a), pb.type)), self.twos(a)))
        exit_bb = self.fn.append_basic_block(f"{fn.name}_end")
        frame = Frame(callee, exit_bb)
        ret_t = settled(callee.ret_type) if callee.ret_type is not None else None
        if isinstance(ret_t, (Scalar, Run)):
            frame.result = self.alloca(value_ir(ret_t), name=f"{fn.name}_result")
            frame.result_t = ret_t
        elif isinstance(ret_t, Tile):              # a tile of its own for this call (§2)
            frame.result_tile = self.named_tile(f"{fn.name}_result", ret_t, result_key(self.inst, call))
        for pb, slot, tw in bound:
            self.slots[pb.uid] = slot
            if tw is not None:
                self.twos_of[pb.uid] = tw
        self._bind_function_dims(callee, fn)
        saved_loops = self.loops
        self.loops = []
        self.frames.append(frame)
        saved_dbg = self.b.debug_metadata
        self.block(fn.body)
        self.frames.pop()
        self.loops = saved_loops
        self.b.debug_metadata = saved_dbg
        self._close_into(exit_bb)
        self.b.position_at_end(exit_bb)
        if frame.result is not None:
            return Val(self.b.load(frame.result, typ=value_ir(ret_t)), ret_t)
        return frame.result_tile

    def _argument_tile(self, fn: A.Function, p: A.Param, a) -> MemRef:
        """A computed tile argument, swept into a fresh tile of its own before the call (the
        checker records the sweep, a CTA-wide read of its tiles, at the argument)."""
        ref = self.named_tile(f"{fn.name}_{p.name}_arg", settled(self.inst.types[id(a)]), argument_key(self.inst, a))
        # the call may run again (in a loop): every thread is done with the tile's last value
        # (the body's point reads and stores of it) before it is overwritten
        K.barrier(self.ops)
        self.tiles.statement(a, ref, a, "=")
        return ref

    def _bind_function_dims(self, callee, fn: A.Function) -> None:
        """A function's dimension names take the extents of the arguments' shapes."""
        names: dict[str, object] = {}
        for p in fn.params:
            pb = callee.decls.get(id(p))
            if pb is None or not isinstance(pb.type, (Tensor, Tile)):
                continue
            for d, actual in zip(p.type.dims, pb.type.shape):
                if isinstance(d, A.DimName):
                    names.setdefault(d.name, actual)
        for b in callee.bindings:
            if b.kind != "function-dim" or b.const_value is not None:
                continue
            actual = names.get(b.name)
            if isinstance(actual, int):
                self.slots[b.uid] = ("value", Val(ir.Constant(I32T, actual), I32))
                self.twos_of[b.uid] = twos_of_int(actual)
            elif isinstance(actual, str) and actual in self.extent_values:
                self.slots[b.uid] = ("value", Val(self.extent_values[actual], I32))
                self.twos_of[b.uid] = twos_of_int(self.kinfo.aligned[actual]) if actual in self.kinfo.aligned else 0


def _coherent(ptr: ir.Value) -> None:
    """The tensor parameter behind ``ptr`` loses ``noalias``: ``load_acquire`` reads it, so it may
    change while the kernel runs (another CTA or agent writes it, §8). A ``noalias`` parameter the
    kernel never writes is one LLVM infers ``readonly``, and NVPTX reads such a parameter through the
    non-coherent cache (``ld.global.nc``): its data could be stale, and an atomic load from it
    aborts instruction selection (SelectionDAG getOperand assertion, PH901)."""
    while isinstance(ptr, (ir.GEPInstr, ir.CastInstr)):
        ptr = ptr.operands[0]
    if isinstance(ptr, ir.Argument):
        ptr.attributes.discard("noalias")


def _scalar_of(ty: ir.Type, fallback: Scalar) -> Scalar:
    s = str(ty)
    return {"float": F32, "double": SCALARS["f64"], "i32": I32, "i64": T_I64, "i1": BOOL,
            "half": SCALARS["f16"], "bfloat": SCALARS["bf16"]}.get(s, fallback)


def opaque(g: ir.GlobalVariable) -> ir.Value:
    """The global as an opaque ``ptr addrspace(N)`` (llvmlite types globals' pointers)."""
    return ir.FormattedConstant(ir.PointerType(addrspace=g.type.addrspace), g.get_reference())


def _param_ir(t):
    if t == BOOL:
        return I8
    return scalar_ir(settle(t))


def _zero(t):
    ty = value_ir(t)
    if isinstance(t, Run):
        el = settle(t.elem)
        return ir.Constant(ty, [const(el, 0)] * t.n)
    return const(t, 0)


def _with_ptr(ref: MemRef, ptr) -> MemRef:
    """``ref`` at another base pointer (one of a double-buffered tile's two buffers)."""
    return replace(ref, ptr=ptr)


@dataclass
class _Copy:
    """A copy its loop runs one iteration ahead (the plan's ``Ahead``) and its two buffers: into
    the ``var`` tile ``tile`` (its own buffer ``first``), or of a product's operand (``tile``
    None; the layout the product's copy has)."""
    entry: object
    first: MemRef
    second: MemRef
    tile: object = None
    transposed: bool = False
    k_major: bool = False
