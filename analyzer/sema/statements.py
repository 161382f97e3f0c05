"""The semantic pass, part 2: statements (LANGUAGE §5), with the operation class of every
assignment (§8)."""

from __future__ import annotations

from math import prod

from ...language.builtins import MAX_UNROLL, TILE_BUILTINS
from ..diagnostics.model import Span
from ...language.ops import ASSIGN, STORE, OpClass, OpInfo
from .helpers import _describe, _shape, _broadcasts_to, _is_view_source, _is_plain_tile, _is_tile_call, _tile_reads, _broadcast_scalars, plan_tile_value
from .context import Part
from .model import Binding
from ..syntax import ast as A
from ..syntax.printer import expr as source_of
from ...language.types import (BOOL, ERROR, INT_LIT, VOID, ErrorType, Run, Scalar, Tensor, Tile, Type,
                    arith_join, assignable, promote_int, settle, an)


class Statements(Part):

    # ---- statements
    def block_body(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def nested_block(self, block: A.Block, loop: bool = False) -> None:
        with self.body.nested(loop=loop):
            self.block_body(block.stmts)

    def stmt(self, s) -> None:
        method = getattr(self, "stmt_" + type(s).__name__)
        method(s)

    def stmt_Let(self, s: A.Let) -> None:
        declared = None
        if s.type is not None:
            declared = self.decls.type_expr(s.type, allow_tensor=False, allow_tile=True, where="`let`")
        t = self.exprs.expr(s.value)
        kind = "let"
        buffer = None
        if isinstance(t, Tile):
            view = _is_view_source(s.value, self.body.inst)
            if view:
                kind = "view"
                buffer = t.buffer
                self.record_view(s, t)
            else:
                self.check_static_tile(t, s.value.span)
                buffer = f"{s.name}#{next(self.cx.uids)}"
                self.tile_statement_op(s, s.value, "=", target_buffer=buffer)
            t = Tile(t.elem, t.shape, buffer)
        if declared is not None and not isinstance(declared, ErrorType) and not isinstance(t, ErrorType):
            t = self.coerce_decl(declared, t, s.value)
            if isinstance(t, Tile) and buffer is None:
                # a scalar broadcast into a declared tile (`let t: tile<f32>[4] = 1.0`): a tile of
                # its own, filled CTA-wide, as `var` does
                self.check_static_tile(t, s.value.span)
                buffer = f"{s.name}#{next(self.cx.uids)}"
                t = Tile(t.elem, t.shape, buffer)
                self.tile_statement_op(s, s.value, "=", target_buffer=buffer)
        elif isinstance(t, Scalar):
            t = self.exprs.settle_expr(s.value, settle(t))
        elif isinstance(t, Run):
            t = Run(settle(t.elem), t.n)
        if isinstance(t, (Scalar, Run)):
            self.body.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
        if isinstance(t, Tensor):
            self.cx.error("PH118", "a `let` cannot hold a whole tensor", s.value.span,
                       help="slice it: `A[r :+ R, c :+ C]`")
            t = ERROR
        if isinstance(t, type(VOID)):
            self.cx.error("PH105", f"`{source_of(s.value)}` gives no value", s.value.span)
            t = ERROR
        if isinstance(declared, ErrorType):     # its type is reported: no errors that follow from it
            t = ERROR
        self.cx.new_binding(s.name, kind, t, s.name_span, node=s, buffer=buffer)

    def stmt_Var(self, s: A.Var) -> None:
        declared = None
        if s.type is not None:
            declared = self.decls.type_expr(s.type, allow_tensor=False, allow_tile=True, where="`var`")
        if s.value is None:
            t = declared if declared is not None else ERROR
            buffer = None
            if isinstance(t, Tile):
                buffer = f"{s.name}#{next(self.cx.uids)}"
                t = Tile(t.elem, t.shape, buffer)
            self.cx.new_binding(s.name, "var", t, s.name_span, node=s, mutable=True, buffer=buffer)
            return
        t = self.exprs.expr(s.value)
        buffer = None
        if declared is not None and not isinstance(declared, ErrorType) and not isinstance(t, ErrorType):
            t = self.coerce_decl(declared, t, s.value)
        if isinstance(t, Scalar):
            t = self.exprs.settle_expr(s.value, settle(t))
        elif isinstance(t, Run):
            t = Run(settle(t.elem), t.n)
        if isinstance(t, Tile):
            self.check_static_tile(t, s.value.span)
            buffer = f"{s.name}#{next(self.cx.uids)}"
            t = Tile(t.elem, t.shape, buffer)
            self.tile_statement_op(s, s.value, "=", target_buffer=buffer)
        elif isinstance(t, (Scalar, Run)):
            self.body.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
        elif isinstance(t, Tensor):
            self.cx.error("PH118", "a `var` cannot hold a whole tensor", s.value.span,
                       help="copy a slice of it into a tile: `var t = A[r :+ R, c :+ C]`")
            t = ERROR
        elif not isinstance(t, ErrorType):
            self.cx.error("PH105", f"`{source_of(s.value)}` gives no value", s.value.span)
            t = ERROR
        if isinstance(declared, ErrorType):     # its type is reported: no errors that follow from it
            t = ERROR
        self.cx.new_binding(s.name, "var", t, s.name_span, node=s, mutable=True, buffer=buffer)

    def coerce_decl(self, declared: Type, t: Type, value) -> Type:
        """Check an initializer against a declared type; returns the binding's type."""
        if isinstance(declared, Scalar):
            if isinstance(t, Scalar):
                if assignable(t, declared):
                    self.exprs.settle_expr(value, declared)
                    return declared
                self.type_mismatch(declared, t, value)
                return declared
            self.cx.error("PH105", f"expected {an(declared)} value, found {an(_describe(t))}", value.span,
                       label=f"{an(_describe(t))}")
            return declared
        if isinstance(declared, Tile):
            if isinstance(t, Scalar):          # a fill: the scalar broadcasts over the tile
                if not assignable(t, declared.elem):
                    self.type_mismatch(declared.elem, t, value)
                else:
                    self.exprs.settle_expr(value, declared.elem)
                return declared
            if isinstance(t, Tile):
                if t.elem != declared.elem and not assignable(t.elem, declared.elem):
                    self.cx.error("PH105", f"a tile of {declared.elem} cannot be filled from a tile of {t.elem}",
                               value.span, help=f"convert it: `{declared.elem}({source_of(value)})`")
                elif not _broadcasts_to(t.shape, declared.shape, self.body.generic):
                    self.cx.error("PH106", f"shape {_shape(t.shape)} does not fit a tile of shape {_shape(declared.shape)}",
                               value.span, label=f"shape {_shape(t.shape)}")
                return declared
            self.cx.error("PH105", f"expected a tile, found {an(_describe(t))}", value.span)
            return declared
        return declared

    def type_mismatch(self, want: Scalar, got: Scalar, node, var=None) -> None:
        if got.is_weak and want.is_numeric and not assignable(got, want):
            self.cx.error("PH105", f"a float literal cannot become {want}", node.span,
                       label="float literal", help=f"write an integer, or convert: `{want}({source_of(node)})`")
            return
        help_ = f"convert it: `{want}({source_of(node)})`" if want.is_numeric and got.is_numeric else None
        init = getattr(getattr(var, "node", None), "value", None)
        if isinstance(var, Binding) and isinstance(var.node, A.Var) and var.node.type is None \
                and isinstance(init, A.IntLit) and got.is_float and not want.is_float:
            # `var acc = 0` then `acc += x` with a float x: the literal made `acc` an integer
            help_ = (f"`{var.name}` is {want} because its initializer `{init.text}` is an integer literal; "
                     f"to keep {got} values in it, declare it `var {var.name}: {got} = {float(init.value)!r}`")
        self.cx.error("PH105", f"expected {want}, found {got}", node.span, label=f"this is {got}", help=help_)

    def stmt_Assign(self, s: A.Assign) -> None:
        target = s.target
        op = s.op
        binop = op[:-1] if op != "=" else None
        if isinstance(target, A.Name):
            b = self.exprs.resolve(target)
            vt = self.exprs.expr(s.value)
            if b is None:
                return
            if not b.mutable:
                what = {"let": "a `let`", "view": "a `let` view", "param": "a parameter", "extent": "a tensor extent",
                        "const": "a constant", "loop": "a loop variable", "function-dim": "a dimension"}.get(b.kind, "it")
                help_ = ("declare it with `var` to assign to it" if b.kind == "let" else
                         f"assign to a slice of it: `{b.name}[..] = ..`"
                         if b.kind == "view" or b.kind == "param" and isinstance(b.type, Tile) else None)
                self.cx.error("PH115", f"cannot assign to `{b.name}`: it is {what}", target.span,
                           label="not assignable", help=help_)
                return
            tt = b.type
            self.body.inst.types[id(target)] = tt
            if isinstance(tt, ErrorType) or isinstance(vt, ErrorType):
                return
            if isinstance(tt, Tile):
                self.assign_tile(s, tt, vt, binop)
                return
            if isinstance(tt, Run):
                rt = self.exprs.binop_type(binop, tt, vt, s) if binop else vt
                if isinstance(rt, ErrorType):
                    return
                if not (isinstance(rt, Run) and rt.n == tt.n and assignable(rt.elem, tt.elem)) and \
                        not (isinstance(rt, Scalar) and assignable(rt, tt.elem)):
                    self.cx.error("PH105", f"cannot assign {an(_describe(rt))} to `{b.name}`, {an(tt)}", s.value.span)
                self.body.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
                return
            if isinstance(tt, Scalar):
                rt = self.exprs.binop_type(binop, tt, vt, s) if binop else vt
                if isinstance(rt, ErrorType):
                    return
                if not isinstance(rt, Scalar):
                    self.cx.error("PH105", f"`{b.name}` is {tt}, but the value is {an(_describe(rt))}", s.value.span)
                elif not assignable(rt, tt):
                    self.type_mismatch(tt, rt, s.value, var=b)
                else:
                    self.exprs.settle_expr(s.value, tt if not binop else settle(rt) if rt.is_weak else rt)
                self.body.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
                return
            self.cx.error("PH115", f"cannot assign to `{b.name}`, {an(_describe(tt))}", target.span,
                       help="assign to a slice or an element: `A[i, j] = ..`")
            return
        if isinstance(target, A.Index):
            self.assign_index(s, target, binop)
            return
        self.exprs.expr(s.value)
        self.cx.error("PH115", "the left side of an assignment must be a name or a subscript", target.span,
                   label="not assignable")

    def assign_index(self, s: A.Assign, target: A.Index, binop: str | None) -> None:
        base = target.base
        if not isinstance(base, A.Name):
            self.exprs.expr(s.value)
            self.cx.error("PH115", "only a named tensor, tile or run can be assigned through a subscript",
                       target.span)
            return
        b = self.exprs.resolve(base)
        if b is None:
            self.exprs.expr(s.value)
            return
        bt = b.type
        # r[k] = e on a run var
        if isinstance(bt, Run):
            vt = self.exprs.expr(s.value)
            if not b.mutable:
                self.cx.error("PH115", f"cannot assign to an element of `{b.name}`: it is a `let`", target.span,
                           help="declare the run with `var`")
                return
            et = self.exprs.run_element(target, bt)
            if isinstance(et, ErrorType) or isinstance(vt, ErrorType):
                return
            rt = self.exprs.binop_type(binop, et, vt, s) if binop else vt
            if isinstance(rt, Scalar) and assignable(rt, bt.elem):
                self.exprs.settle_expr(s.value, bt.elem)
            elif not isinstance(rt, ErrorType):
                self.cx.error("PH105", f"an element of `{b.name}` is {bt.elem}, not {_describe(rt)}", s.value.span)
            self.body.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
            return
        tt = self.exprs.expr(target, store=True)
        vt = self.exprs.expr(s.value)
        if isinstance(tt, ErrorType) or isinstance(vt, ErrorType):
            return
        if isinstance(tt, Scalar):                       # a point store (per thread)
            rt = self.exprs.binop_type(binop, tt, vt, s) if binop else vt
            if isinstance(rt, ErrorType):
                return
            if not isinstance(rt, Scalar):
                self.cx.error("PH105", f"`{source_of(target)}` is one {tt} element, but the value is {an(_describe(rt))}",
                           s.value.span,
                           help="store a run with `store(A[i, j :+ n], e)`" if isinstance(rt, Run) else None)
                return
            if not assignable(rt, tt):
                self.type_mismatch(tt, rt, s.value)
                return
            self.exprs.settle_expr(s.value, tt)
            self.body.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, STORE, s.span,
                                          operands=[x.index for x in target.subs] + [s.value],
                                          writes=[b.buffer or b.name])
            return
        if isinstance(tt, Tile):
            self.assign_tile(s, tt, vt, binop)
            return

    def assign_tile(self, s: A.Assign, tt: Tile, vt: Type, binop: str | None) -> None:
        """A CTA-wide write: a copy, a fill or a sweep into a tile or slice."""
        if binop:
            rt = self.exprs.binop_type(binop, tt, vt, s)
            if isinstance(rt, ErrorType):
                return
        else:
            rt = vt
        if isinstance(rt, Scalar):
            if not assignable(rt, tt.elem):
                self.type_mismatch(tt.elem, rt, s.value)
                return
            self.exprs.settle_expr(s.value, tt.elem)
        elif isinstance(rt, Tile):
            if rt.elem != tt.elem and not assignable(rt.elem, tt.elem):
                self.cx.error("PH105", f"cannot store a tile of {rt.elem} into a tile of {tt.elem}", s.value.span,
                           help=f"convert it: `{tt.elem}({source_of(s.value)})`")
                return
            if not _broadcasts_to(rt.shape, tt.shape, self.body.generic):
                self.cx.error("PH106", f"shape {_shape(rt.shape)} does not fit the target's shape {_shape(tt.shape)}",
                           s.value.span, label=f"shape {_shape(rt.shape)}")
                return
            symbolic = not (tt.static and rt.static) and not self.body.generic
            if symbolic and not (self._is_tensor_slice(s.target) and self._is_tensor_slice(s.value) and not binop):
                self.cx.error("PH107", "a slice over a runtime extent can only be copied from a tensor to a tensor",
                           s.span, help="give the span a constant length (`A[r :+ 32, :]` -> `A[r :+ 32, c :+ 64]`)")
                return
        else:
            self.cx.error("PH105", f"a tile cannot be assigned {an(_describe(rt))}", s.value.span)
            return
        self.tile_statement_op(s, s.value, s.op, target_buffer=tt.buffer, target=s.target)

    def _is_tensor_slice(self, e) -> bool:
        if isinstance(e, A.Index) and isinstance(e.base, A.Name) and not e.is_point:
            b = self.body.inst.resolution.get(id(e.base))
            return b is not None and isinstance(b.type, Tensor)
        return False

    def tile_statement_op(self, s, value, op: str, target_buffer: str | None, target=None) -> None:
        """Record the CTA-wide operation a tile-valued statement compiles to."""
        if op == "=" and (_is_plain_tile(value, self.body.inst) or _is_tile_call(value, self.body.inst)):
            name = "tile copy"
        elif op == "=" and isinstance(value, A.Call) and value.func in TILE_BUILTINS and value.func != "tmax":
            name = value.func
        else:
            name = "elementwise sweep"
        names: dict = {}
        early = plan_tile_value(value, self.body.inst)
        reads = _tile_reads(value, self.body.inst, names, early)
        if op != "=" and target_buffer:
            reads.append(target_buffer)
            target_name = target.base if isinstance(target, A.Index) else target
            if isinstance(target_name, A.Name):
                names.setdefault(target_buffer, target_name.id)
        operands = _broadcast_scalars(value, self.body.inst, early)
        self.body.inst.ops[id(s)] = OpInfo(OpClass.CTA_WIDE, name, s.span, operands=operands, reads=reads,
                                      writes=[target_buffer] if target_buffer else [], read_names=names)

    def record_view(self, s: A.Let, t: Tile) -> None:
        self.body.inst.ops[id(s)] = OpInfo(OpClass.VIEW, "slice", s.span, reads=[])

    def check_static_tile(self, t: Tile, span: Span) -> None:
        if not t.static and not self.body.generic:
            self.cx.error("PH107", f"a tile needs a static shape, and {_shape(t.shape)} is not", span,
                       help="give every span a constant length")

    def stmt_If(self, s: A.If) -> None:
        self.condition(s.cond, "an `if`")
        self.nested_block(s.then)
        if isinstance(s.orelse, A.If):
            self.stmt_If(s.orelse)
        elif s.orelse is not None:
            self.nested_block(s.orelse)

    def stmt_While(self, s: A.While) -> None:
        self.condition(s.cond, "a `while`")
        self.nested_block(s.body, loop=True)

    def condition(self, cond, what: str) -> None:
        t = self.exprs.expr(cond)
        if isinstance(t, ErrorType):
            return
        if t != BOOL:
            self.cx.error("PH105", f"the condition of {what} must be a bool, not {_describe(t)}", cond.span,
                       label=f"{an(_describe(t))}",
                       help=f"compare it: `{source_of(cond)} != 0`" if isinstance(t, Scalar) and t.is_numeric else None)

    def stmt_For(self, s: A.For) -> None:
        if s.range_name != "range":
            self.cx.error("PH119", f"a `for` loop runs over `range(lo, hi[, step])`, not `{s.range_name}`",
                       s.range_span, help="write `for i in range(lo, hi)`")
        if not 2 <= len(s.args) <= 3:
            self.cx.error("PH119", f"`range` takes 2 or 3 arguments (lo, hi[, step]), not {len(s.args)}", s.range_span,
                       help=f"write `range(0, {source_of(s.args[0])})`: a range starts where its first argument "
                            "says" if len(s.args) == 1 else None)
        bound_types = []
        for a in s.args:
            t = self.exprs.expr(a)
            if isinstance(t, ErrorType):
                bound_types.append(ERROR)
                continue
            if not (isinstance(t, Scalar) and t.is_int):
                self.cx.error("PH105", f"loop bounds are integers, not {_describe(t)}", a.span, label=_describe(t))
                bound_types.append(ERROR)
                continue
            bound_types.append(t)
        lt: Type = INT_LIT
        for t in bound_types:
            if isinstance(t, ErrorType):
                lt = ERROR
                break
            lt = arith_join(lt, t)
        if isinstance(lt, Scalar):
            lt = settle(promote_int(lt))
            for a in s.args:
                self.exprs.settle_expr(a, lt)
        if len(s.args) == 3:
            step = self.exprs.const_int(s.args[2])
            if step is not None and step <= 0:
                self.cx.error("PH119", f"the step of a `for` loop must be positive, not {step}", s.args[2].span)
        unroll = 1
        if s.unroll is not None:
            if s.unroll_word != "unroll":
                self.cx.error("PH119", f"expected `unroll`, found `{s.unroll_word}`", s.span)
            n = self.exprs.const_int(s.unroll)
            if n is None:
                self.cx.error("PH107", "the unroll factor must be a compile-time constant", s.unroll.span)
            elif n < 1:
                self.cx.error("PH119", f"the unroll factor must be at least 1, not {n}", s.unroll.span)
            elif n * (outer := prod(f for _, f in self.cx.unrolled)) > MAX_UNROLL:
                if outer == 1:
                    msg = f"the unroll factor must be at most {MAX_UNROLL}, not {n}"
                else:
                    msg = (f"with the enclosing loops' unroll factors this makes {n * outer} "
                           f"copies of the body, more than {MAX_UNROLL}")
                self.cx.error("PH119", msg, s.unroll.span,
                           notes=[f"the loop at {sp.line}:{sp.column} unrolls {f} times" for sp, f in self.cx.unrolled],
                           help="each copy of the body is compiled on its own; past a few dozen copies "
                                "unrolling only makes the build slow and the kernel large")
            else:
                unroll = n
                self.exprs.expr(s.unroll)         # resolves its names, for the lowering to fold it again
        with self.body.nested(loop=True):
            if unroll > 1:
                self.cx.unrolled.append((s.unroll.span, unroll))
            self.cx.new_binding(s.var, "loop", lt, s.var_span, node=s)
            self.nested_block(s.body, loop=False)
            if unroll > 1:
                self.cx.unrolled.pop()

    def stmt_Break(self, s: A.Break) -> None:
        self.jump(s, "break")

    def stmt_Continue(self, s: A.Continue) -> None:
        self.jump(s, "continue")

    def jump(self, s, word: str) -> None:
        if not self.body.scope.in_loop():
            if self.body.in_function:
                self.cx.error("PH114", f"`{word}` outside a loop of this function", s.span,
                           label=f"no loop to {word}", help=f"`{word}` cannot leave a function")
            else:
                self.cx.error("PH114", f"`{word}` outside a loop", s.span, label=f"no loop to {word}")
            return
        self.body.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, word, s.span)

    def stmt_Return(self, s: A.Return) -> None:
        self.body.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, "return", s.span)
        if not self.body.in_function:
            if s.value is not None:
                self.exprs.expr(s.value)
                self.cx.error("PH114", "a kernel returns no value", s.value.span, label="value not allowed",
                           help="write results to a tensor and `return` alone")
            return
        want = self.body.fn_ret
        if s.value is None:
            if want is not None and not isinstance(want, ErrorType):
                self.cx.error("PH114", f"this function returns {_describe(want)}: `return` needs a value", s.span)
            return
        t = self.exprs.expr(s.value)
        if want is None:
            self.cx.error("PH114", "this function declares no result: `return` takes no value", s.value.span,
                       help="add `-> T` to the function's header")
            return
        if isinstance(t, ErrorType) or isinstance(want, ErrorType):
            return
        if isinstance(want, Scalar):
            if isinstance(t, Scalar) and assignable(t, want):
                self.exprs.settle_expr(s.value, want)
            elif isinstance(t, Scalar):
                self.type_mismatch(want, t, s.value)
            else:
                self.cx.error("PH105", f"the function returns {want}, not {an(_describe(t))}", s.value.span)
        elif isinstance(want, Tile):
            if not isinstance(t, Tile):
                self.cx.error("PH105", f"the function returns {an(want)}, not {an(_describe(t))}", s.value.span)
            elif t.elem != want.elem or not _broadcasts_to(t.shape, want.shape, self.body.generic) or \
                    t.shape != want.shape and not self.body.generic:
                self.cx.error("PH106", f"the function returns {want}, not {t}", s.value.span)
            else:
                # the value is copied (or swept) into the call's result tile by the whole CTA:
                # a CTA-wide operation, reading the tiles it names (§9.5)
                self.tile_statement_op(s, s.value, "=", target_buffer=None)

    def stmt_ExprStmt(self, s: A.ExprStmt) -> None:
        e = s.expr
        if not isinstance(e, (A.Call, A.GenericCall)):
            self.exprs.expr(e)
            self.cx.error("PH116", "this expression does nothing: only a call can stand as a statement", e.span,
                       label="value unused", help="assign it (`let x = ..`) or remove it")
            return
        self.body.inst.statement_calls.add(id(e))
        self.exprs.expr(e)

