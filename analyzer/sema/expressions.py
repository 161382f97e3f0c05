"""The semantic pass, part 3: names, expressions and subscripts (LANGUAGE §6, §7), collectives
and shuffles (§8)."""

from __future__ import annotations

import re

from ...language.builtins import (BUILTINS, COLLECTIVE_OPS)
from ..constants import affine, constant_of
from ...language.ops import CALL, LOAD, RUN_LOAD, RUN_STORE, OpClass, OpInfo
from .builtins import CALLS as _CALLS
from .helpers import CUDA_NAMES, ctx_field_help, cuda_hint, _describe, _shape, _with_elem, _broadcast, _sub_exprs, _sub_text, _did_you_mean, _did_you_mean_fn, _fixed
from .model import (CTX_PATHS, Binding)
from ..syntax import ast as A
from .context import Part
from ..syntax.printer import expr as source_of, subscript
from ..diagnostics.model import Edit, Fix
from ...language.types import (BOOL, ERROR, F32, FLOAT_LIT, I32, INT_LIT, SCALARS, TYPE_WORDS, ErrorType,
                    Run, Scalar, Tensor, Tile, Type, Void, arith_join, assignable, literal_fits, promote_int, settle, an)


class Expressions(Part):

    # ---- names
    def resolve(self, n: A.Name) -> Binding | None:
        b = self.body.scope.lookup(n.id)
        if b is None:
            if n.id == "ctx":
                self.cx.error("PH108", "`ctx` alone is not a value", n.span,
                           help="use a field: `ctx.thread`, `ctx.lane`, `ctx.block.x`, ...")
            elif n.id in self.cx.functions or n.id in BUILTINS:
                self.cx.error("PH101", f"`{n.id}` is a function: call it", n.span)
            else:
                hint = cuda_hint(n.id, CUDA_NAMES)
                if hint is None and self.cx.suggestions_left > 0:
                    self.cx.suggestions_left -= 1
                    hint = _did_you_mean(n.id, self.body.scope)
                self.cx.error("PH101", f"`{n.id}` is not declared", n.span, label="unknown name", help=hint)
            return None
        self.body.inst.resolution[id(n)] = b
        return b

    def const_int(self, e) -> int | None:
        f = affine(e, self.const_value, lambda node: None)
        return constant_of(f)

    def const_value(self, n: A.Name):
        b = self.body.scope.lookup(n.id)
        if b is None:
            return None
        if b.kind == "const":
            return b.const_value
        if b.kind == "function-dim" and isinstance(b.const_value, int):
            return b.const_value
        return None

    def atom_key(self, node):
        if isinstance(node, A.Name):
            b = self.body.scope.lookup(node.id)
            return None if b is None else ("b", b.uid)
        if isinstance(node, A.CtxPath):
            return ("ctx", node.path)
        return None

    # ---- expressions
    def expr(self, e, run_ctx: bool = False, store: bool = False) -> Type:
        method = getattr(self, "e_" + type(e).__name__)
        t = method(e, run_ctx) if not store else method(e, run_ctx, store=True)
        self.body.inst.types[id(e)] = t
        return t

    def settle_expr(self, e, t: Scalar) -> Scalar:
        """Give the weak (literal) parts of ``e`` their final type ``t`` and check literal ranges."""
        stack = [e]
        types = self.body.inst.types
        while stack:
            node = stack.pop()
            nt = types.get(id(node))
            if not (isinstance(nt, Scalar) and nt.is_weak):
                continue
            target = t if not (nt == FLOAT_LIT and t.is_int) else F32
            types[id(node)] = target
            if isinstance(node, (A.IntLit, A.FloatLit)):
                if not literal_fits(node.value, target):
                    shown = source_of(node) if len(node.text) <= 24 else node.text[:20] + "..."
                    self.cx.error("PH104", f"literal {shown} does not fit in {target}", node.span,
                               label="out of range", help=_literal_help(node, target))
            elif isinstance(node, A.Unary):
                stack.append(node.operand)
            elif isinstance(node, A.Binary):
                if node.op in ("<<", ">>"):
                    stack.append(node.lhs)
                    self._settle_shift_rhs(node.rhs)
                elif node.op not in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
                    stack.append(node.lhs)
                    stack.append(node.rhs)
            elif isinstance(node, A.Call):
                stack.extend(node.args)
        return t

    def _settle_shift_rhs(self, rhs) -> None:
        rt = self.body.inst.types.get(id(rhs))
        if isinstance(rt, Scalar) and rt.is_weak:
            self.settle_expr(rhs, I32)

    def e_IntLit(self, e: A.IntLit, run_ctx) -> Type:
        return INT_LIT

    def e_FloatLit(self, e: A.FloatLit, run_ctx) -> Type:
        return FLOAT_LIT

    def e_BoolLit(self, e, run_ctx) -> Type:
        return BOOL

    def e_Name(self, e: A.Name, run_ctx, store=False) -> Type:
        b = self.resolve(e)
        if b is None:
            return ERROR
        if run_ctx and isinstance(b.type, Tile):
            return b.type     # reported by the run built-in that sees it
        return b.type

    def e_CtxPath(self, e: A.CtxPath, run_ctx) -> Type:
        if e.path not in CTX_PATHS:
            if e.path in (("block",), ("blocks",)):
                self.cx.error("PH108", f"`{e.text}` alone is not a value", e.span,
                           help=f"use `{e.text}.x`, `{e.text}.y` or `{e.text}.z`")
            else:
                self.cx.error("PH108", f"`{e.text}` is not a `ctx` field", e.span, label="unknown field",
                           help=ctx_field_help(e.path))
            return ERROR
        return I32

    def e_Member(self, e: A.Member, run_ctx) -> Type:
        self.expr(e.value)
        if isinstance(e.value, A.Name) and self.body.scope.lookup(e.value.id) is None and e.value.id != "ctx":
            return ERROR                      # the unknown name is the error (`blockIdx.x`: PH101)
        b = self.body.scope.lookup(e.value.id) if isinstance(e.value, A.Name) else None
        help = None
        if b is not None and isinstance(b.type, (Tensor, Tile)):
            dims = ", ".join(f"`{d}`" for d in b.type.shape)
            help = (f"`{b.name}` is {an(b.type)}: its extents are the names and numbers of its type ({dims}), "
                    f"not fields" if e.attr in _EXTENT_FIELDS else None)
        self.cx.error("PH108", f"only `ctx` has fields; `.{e.attr}` cannot follow `{source_of(e.value)}`", e.span,
                   help=help)
        return ERROR

    def e_Unary(self, e: A.Unary, run_ctx) -> Type:
        t = self.expr(e.operand, run_ctx)
        if isinstance(t, ErrorType):
            return ERROR
        el = t.elem if isinstance(t, (Tile, Run)) else t
        if not isinstance(el, Scalar):
            self.cx.error("PH117", f"`{e.op}` cannot apply to {an(_describe(t))}", e.span)
            return ERROR
        if e.op == "-":
            if not el.is_numeric:
                self.cx.error("PH117", f"`-` needs a number, not {el}", e.operand.span)
                return ERROR
            if isinstance(t, Scalar):
                return promote_int(t)
            return _with_elem(t, promote_int(el))
        if not isinstance(t, Scalar):
            self.cx.error("PH117", f"`{e.op}` works on scalars only, not on {an(_describe(t))}", e.span)
            return ERROR
        if e.op == "!":
            if t != BOOL:
                self.cx.error("PH117", f"`!` needs a bool, not {t}", e.operand.span,
                           help="for integers, `~` is the bitwise complement")
                return ERROR
            return BOOL
        if not t.is_int:
            self.cx.error("PH117", f"`~` needs an integer, not {t}", e.operand.span)
            return ERROR
        return promote_int(t)

    def binop_type(self, op: str, lt: Type, rt: Type, node, what: str | None = None) -> Type:
        """The type of ``lhs op rhs`` (also used for compound assignment, and for the two values
        of `min`, `max`, `pow`, `tmax` and `where`, which ``what`` names in the messages)."""
        span = node.span
        name = what or f"`{op}`"
        if isinstance(lt, ErrorType) or isinstance(rt, ErrorType):
            return ERROR
        for t in (lt, rt):
            if isinstance(t, (Tensor, Void)):
                self.cx.error("PH117", f"{name} cannot apply to {an(_describe(t))}", span,
                           help="slice the tensor (`A[r :+ R, c :+ C]`) or read one element (`A[i, j]`)"
                           if isinstance(t, Tensor) else None)
                return ERROR
        le = lt.elem if isinstance(lt, (Tile, Run)) else lt
        re_ = rt.elem if isinstance(rt, (Tile, Run)) else rt
        scalar_only = op in ("&&", "||", "&", "|", "^", "<<", ">>")
        if scalar_only and not (isinstance(lt, Scalar) and isinstance(rt, Scalar)):
            self.cx.error("PH117", f"`{op}` works on scalars only", span,
                       help="use `where` for elementwise selection" if op in ("&&", "||") else None)
            return ERROR
        if op in ("&&", "||"):
            if lt != BOOL or rt != BOOL:
                bad = node.lhs if lt != BOOL else node.rhs
                self.cx.error("PH117", f"`{op}` needs bools, not {lt if lt != BOOL else rt}", bad.span,
                           help=f"compare it: `{source_of(bad)} != 0`")
                return ERROR
            return BOOL
        if op in ("&", "|", "^", "<<", ">>", "%"):
            if not (le.is_int and re_.is_int):
                self.cx.error("PH117", f"`{op}` needs integers, not {le} and {re_}", span)
                return ERROR
        if op in ("==", "!=") and le == BOOL and re_ == BOOL:
            joined = BOOL
        else:
            if not (le.is_numeric and re_.is_numeric):
                bad = le if not le.is_numeric else re_
                self.cx.error("PH117", f"{name} needs numbers, not {bad}", span)
                return ERROR
            if op in ("<<", ">>"):
                joined = promote_int(le) if not le.is_weak else le
            else:
                joined = arith_join(le, re_)
            if joined is None:
                self.cx.error("PH117", f"{name} cannot combine {le} and {re_}", span)
                return ERROR
        result_elem = BOOL if op in ("==", "!=", "<", "<=", ">", ">=") else joined
        # shapes: scalar with anything broadcasts; runs of equal length; tiles broadcast (NumPy)
        if isinstance(lt, Scalar) and isinstance(rt, Scalar):
            if joined is not None and not joined.is_weak and joined != BOOL:
                if isinstance(node, A.Binary):
                    types = self.body.inst.types
                    left = types.get(id(node.lhs))
                    if isinstance(left, Scalar) and left.is_weak:
                        self.settle_expr(node.lhs, joined)
                    right = types.get(id(node.rhs))
                    if isinstance(right, Scalar) and right.is_weak:
                        self.settle_expr(node.rhs, joined if op not in ("<<", ">>") else I32)
            elif result_elem == BOOL and joined is not None and joined.is_weak and isinstance(node, A.Binary):
                self.settle_expr(node.lhs, settle(joined))
                self.settle_expr(node.rhs, settle(joined))
            return result_elem
        if isinstance(lt, Run) or isinstance(rt, Run):
            if isinstance(lt, Tile) or isinstance(rt, Tile):
                self.cx.error("PH106", "a run and a tile cannot combine", span,
                           help="a run is one thread's few elements; a tile is the CTA's")
                return ERROR
            if isinstance(lt, Run) and isinstance(rt, Run) and lt.n != rt.n and \
                    not (self.body.generic and not _fixed(lt.n, rt.n)):
                self.cx.error("PH106", f"runs of different lengths ({lt.n} and {rt.n}) cannot combine", span)
                return ERROR
            n = lt.n if isinstance(lt, Run) else rt.n
            self._settle_broadcast_operands(node, settle(joined))
            return Run(settle(result_elem) if result_elem.is_weak else result_elem, n)
        # at least one tile
        lshape = lt.shape if isinstance(lt, Tile) else ()
        rshape = rt.shape if isinstance(rt, Tile) else ()
        shape = _broadcast(lshape, rshape, self.body.generic)
        if shape is None:
            self.cx.error("PH106", f"shapes {_shape(lshape)} and {_shape(rshape)} do not broadcast", span,
                       help="extents must match, or be 1 on one side")
            return ERROR
        self._settle_broadcast_operands(node, settle(joined))
        return Tile(settle(result_elem) if result_elem.is_weak else result_elem, shape)

    def _settle_broadcast_operands(self, node, elem: Scalar) -> None:
        """A literal (or literal expression) combined with a run or a tile takes its element type, and
        its range is checked against it (PH104), as it would be beside a scalar of that type."""
        if isinstance(node, A.Binary):
            operands = (node.lhs, node.rhs)
        elif isinstance(node, A.Call):
            operands = node.args[-2:]          # min/max/pow/tmax(a, b), where(c, a, b)
        elif isinstance(node, A.Assign):
            operands = (node.value,)           # t op= e
        else:
            return
        for x in operands:
            xt = self.body.inst.types.get(id(x))
            if isinstance(xt, Scalar) and xt.is_weak:
                self.settle_expr(x, elem)

    def e_Binary(self, e: A.Binary, run_ctx) -> Type:
        lt = self.expr(e.lhs, run_ctx)
        rt = self.expr(e.rhs, run_ctx)
        return self.binop_type(e.op, lt, rt, e)

    def _chained_subscripts(self, e: A.Index) -> bool:
        """`X[i][0]` (C's and NumPy's habit) of a tensor or tile whose rank the subscripts of both
        brackets make up: one error, suggesting `X[i, 0]`; False (nothing reported) otherwise."""
        chain: list[A.Index] = [e]
        while isinstance(chain[-1].base, A.Index):
            chain.append(chain[-1].base)
        name = chain[-1].base
        if not isinstance(name, A.Name):
            return False
        b = self.body.scope.lookup(name.id)
        bt = b.type if b is not None else None
        subs = [s for x in reversed(chain) for s in x.subs]
        if not isinstance(bt, (Tensor, Tile)) or len(subs) != len(bt.shape):
            return False
        self.resolve(name)
        for s in subs:
            self.subscript_exprs(s)
        meant = f"{name.id}[{', '.join(subscript(s) for s in subs)}]"
        self.cx.error("PH110", f"`{name.id}` takes its {len(subs)} subscripts in one pair of brackets", e.span,
                      label="one bracket per axis", help=f"write `{meant}`",
                      fixes=[Fix(f"write `{meant}`", (Edit(e.span.line, e.span.column, e.span.end_line,
                                                            e.span.end_column, meant),))])
        return True

    def e_Index(self, e: A.Index, run_ctx, store=False) -> Type:
        base = e.base
        if not isinstance(base, A.Name):
            if self._chained_subscripts(e):
                return ERROR
            if not isinstance(self.expr(base), ErrorType):      # (an error there is reported)
                self.cx.error("PH110", "only a named tensor, tile or run can be subscripted", e.span)
            return ERROR
        b = self.resolve(base)
        if b is None:
            for s in e.subs:
                self.subscript_exprs(s)
            return ERROR
        bt = b.type
        self.body.inst.types[id(base)] = bt
        if isinstance(bt, ErrorType):
            for s in e.subs:
                self.subscript_exprs(s)
            return ERROR
        if isinstance(bt, Run):
            return self.run_element(e, bt)
        if not isinstance(bt, (Tensor, Tile)):
            for s in e.subs:
                self.subscript_exprs(s)
            self.cx.error("PH110", f"`{b.name}` is {an(_describe(bt))} and cannot be subscripted", e.span)
            return ERROR
        if len(e.subs) != len(bt.shape):
            for s in e.subs:
                self.subscript_exprs(s)
            self.cx.error("PH110", f"`{b.name}` has rank {len(bt.shape)}, but {len(e.subs)} subscript"
                       f"{'s are' if len(e.subs) != 1 else ' is'} given", e.span,
                       help=f"write {len(bt.shape)} subscript{'s' if len(bt.shape) != 1 else ''}, one per axis")
            return ERROR
        buffer = b.buffer or b.name
        ok = True
        lengths: list = []
        operands = []
        for axis, s in enumerate(e.subs):
            ln = self.subscript(s, bt.shape[axis], b.name)
            if ln is ERROR:
                ok = False
            lengths.append(ln)
            operands.extend(x for x in _sub_exprs(s))
        if not ok:
            return ERROR
        slice_axes = [ln for ln in lengths if ln is not None]
        if not slice_axes:                                  # a point: a scalar load or store
            if not store:
                self.body.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, LOAD, e.span, operands=operands,
                                              reads=[buffer])
            return bt.elem
        if run_ctx:
            if len(slice_axes) != 1:
                self.cx.error("PH111", f"a run has exactly one slice axis, and this has {len(slice_axes)}", e.span,
                           help=f"make the other subscripts points, as in `{_one_slice_axis(e, lengths)}`")
                return ERROR
            n = slice_axes[0]
            if isinstance(n, str) and self.body.generic:
                pass                                        # a function's dim: checked at each call
            elif not isinstance(n, int) or not 2 <= n <= 16:
                self.cx.error("PH111", f"a run's length must be a constant from 2 to 16, not {n}", e.span,
                           label="run length", help="use a tile for longer spans")
                return ERROR
            self.body.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, RUN_STORE if store else RUN_LOAD, e.span,
                                          operands=operands, reads=[] if store else [buffer],
                                          writes=[buffer] if store else [])
            return Run(bt.elem, n)
        self.body.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "slice", e.span, operands=operands,
                                      reads=[] if store else [buffer], writes=[buffer] if store else [])
        return Tile(bt.elem, tuple(slice_axes), buffer)

    def run_element(self, e: A.Index, rt: Run) -> Type:
        if len(e.subs) != 1 or not isinstance(e.subs[0], A.Point):
            for s in e.subs:
                self.subscript_exprs(s)
            self.cx.error("PH110", "a run's element is read with one constant index: `r[k]`", e.span)
            return ERROR
        idx = e.subs[0].index
        self.expr(idx)
        k = self.const_int(idx)
        if k is None:
            self.cx.error("PH110", "a run's element index must be a compile-time constant", idx.span,
                       help="runs live in registers, so the element must be known when compiling")
            return ERROR
        if isinstance(rt.n, int) and not 0 <= k < rt.n:
            self.cx.error("PH110", f"index {k} is outside the run's {rt.n} elements", idx.span)
            return ERROR
        self.settle_expr(idx, I32)
        return rt.elem

    def subscript_exprs(self, s) -> None:
        for x in _sub_exprs(s):
            self.expr(x)

    def subscript(self, s, extent, name: str):
        """Type-check one subscript; returns None for a point, the axis length for a slice, or
        ERROR."""
        if isinstance(s, A.Point):
            return None if self.index_expr(s.index) else ERROR
        if isinstance(s, A.SpanSub):
            ok = self.index_expr(s.start) & self.index_expr(s.length)
            if not ok:
                return ERROR
            n = self.const_int(s.length)
            if n is None and self.body.generic and self._bound_at_call(s.length):
                return source_of(s.length)
            if n is None:
                self.cx.error("PH107", f"the span length `{source_of(s.length)}` is not a compile-time constant",
                           s.length.span, help="use a literal, an `@autotune` name or a `-D` constant")
                return ERROR
            if n <= 0:
                self.cx.error("PH110", f"a span's length must be positive, not {n}", s.length.span)
                return ERROR
            return n
        # Range
        if s.lo is not None and s.hi is None:
            self.index_expr(s.lo)
            self.cx.error("PH110", f"open ends are not allowed: `{source_of(s.lo)}:` needs an end", s.span,
                       help=f"write `{source_of(s.lo)} :+ n` or `{source_of(s.lo)} : e`")
            return ERROR
        if s.lo is None and s.hi is None:
            return extent
        ok = self.index_expr(s.hi) & (self.index_expr(s.lo) if s.lo is not None else True)
        if not ok:
            return ERROR
        if s.lo is None:
            n = self.const_int(s.hi)
        else:
            hi = affine(s.hi, self.const_value, self.atom_key)
            lo = affine(s.lo, self.const_value, self.atom_key)
            n = None
            if hi is not None and lo is not None:
                diff = dict(hi)
                for k, v in lo.items():
                    diff[k] = diff.get(k, 0) - v
                n = constant_of({k: v for k, v in diff.items() if v != 0 or k is None})
        if n is None and self.body.generic and all(self._bound_at_call(x) for x in (s.lo, s.hi) if x is not None):
            return _sub_text(s)
        if n is None:
            self.cx.error("PH107", f"the length of `{_sub_text(s)}` does not fold to a compile-time constant", s.span,
                       help="the end minus the start must be constant, e.g. `A[k : k + 32]`")
            return ERROR
        if n <= 0:
            self.cx.error("PH110", f"the range `{_sub_text(s)}` is empty or reversed (length {n})", s.span)
            return ERROR
        return n

    def _bound_at_call(self, e) -> bool:
        """Whether ``e`` is made only of literals, constants and an uncalled function's dims: a
        length that each call makes a constant."""
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, A.Name):
                b = self.body.scope.lookup(x.id)
                if b is None or b.kind not in ("function-dim", "const"):
                    return False
            elif isinstance(x, A.Binary):
                stack += (x.lhs, x.rhs)
            elif isinstance(x, A.Unary):
                stack.append(x.operand)
            elif not isinstance(x, A.IntLit):
                return False
        return True

    def index_expr(self, e) -> bool:
        t = self.expr(e)
        if isinstance(t, ErrorType):
            return False
        if not (isinstance(t, Scalar) and t.is_int):
            self.cx.error("PH105", f"an index must be an integer, not {_describe(t)}", e.span, label=_describe(t),
                       help=f"convert it: `i32({source_of(e)})`" if isinstance(t, Scalar) and t.is_float else None)
            return False
        if t.is_weak:
            self.settle_expr(e, I32)
        return True

    def e_GenericCall(self, e: A.GenericCall, run_ctx) -> Type:
        if e.mode == "over":
            return self.collective(e)
        return self.shuffle(e)

    def collective(self, e: A.GenericCall) -> Type:
        if e.func not in COLLECTIVE_OPS:
            for a in e.args:
                self.expr(a)
            self.cx.error("PH109", f"`{e.func}` is not a collective", e.head_span,
                       help=f"the collectives are {', '.join(f'`{o}<over ..>`' for o in COLLECTIVE_OPS)}")
            return ERROR
        over = e.param
        if not (isinstance(over, A.CtxPath) and over.path in (("lane",), ("thread",))):
            if not isinstance(over, A.CtxPath):
                self.expr(over)
            for a in e.args:
                self.expr(a)
            self.cx.error("PH109", f"a collective folds over `ctx.lane` or `ctx.thread`, not `{source_of(over)}`",
                       over.span)
            return ERROR
        self.body.inst.types[id(over)] = I32
        if len(e.args) != 1:
            for a in e.args:
                self.expr(a)
            self.cx.error("PH109", f"`{e.func}<over {over.text}>` takes one argument, not {len(e.args)}", e.span)
            return ERROR
        t = self.expr(e.args[0])
        if isinstance(t, ErrorType):
            return ERROR
        if not isinstance(t, Scalar):
            self.cx.error("PH109", f"a collective folds one scalar per thread, not {an(_describe(t))}", e.args[0].span,
                       help="fold the run first with `sum(..)`" if isinstance(t, Run) else
                       "use `rowsum`/`rowmax` on tiles" if isinstance(t, Tile) else None)
            return ERROR
        if e.func in ("any", "all"):
            if t != BOOL:
                self.cx.error("PH105", f"`{e.func}<over ..>` folds bools, not {t}", e.args[0].span)
                return ERROR
            result = BOOL
        else:
            if not t.is_numeric:
                self.cx.error("PH105", f"`{e.func}<over ..>` folds numbers, not {t}", e.args[0].span)
                return ERROR
            result = settle(promote_int(t))
            if t.is_weak:
                self.settle_expr(e.args[0], result)
        lane = over.path == ("lane",)
        self.body.inst.ops[id(e)] = OpInfo(OpClass.LANE_COLLECTIVE if lane else OpClass.CTA_COLLECTIVE,
                                      f"{e.func}<over {over.text}>", e.span, operands=[e.args[0]])
        return result

    def shuffle(self, e: A.GenericCall) -> Type:
        if e.func != "shfl":
            self.expr(e.param)
            for a in e.args:
                self.expr(a)
            self.cx.error("PH109", f"`{e.func}<{e.mode} ..>` is not a call: only `shfl` takes a lane mode", e.head_span)
            return ERROR
        pt = self.expr(e.param)
        args_t = [self.expr(a) for a in e.args]
        if len(e.args) != 1:
            self.cx.error("PH109", f"`shfl<{e.mode} ..>` takes one argument, not {len(e.args)}", e.span)
            return ERROR
        if isinstance(pt, ErrorType) or isinstance(args_t[0], ErrorType):
            return ERROR
        if not (isinstance(pt, Scalar) and assignable(pt, I32)):
            # LANGUAGE §8: "`E` is `i32`" (exactly, as everywhere: only literals adapt)
            self.cx.error("PH105", f"the lane operand of `shfl<{e.mode} ..>` is an i32, not {_describe(pt)}",
                       e.param.span, help=f"convert it: `i32({source_of(e.param)})`"
                       if isinstance(pt, Scalar) and pt.is_numeric else None)
            return ERROR
        self.settle_expr(e.param, I32)
        vt = args_t[0]
        if not isinstance(vt, Scalar):
            self.cx.error("PH109", f"`shfl` moves one scalar per lane, not {an(_describe(vt))}", e.args[0].span)
            return ERROR
        vt = settle(vt)
        self.settle_expr(e.args[0], vt)
        self.body.inst.ops[id(e)] = OpInfo(OpClass.LANE_LEVEL, f"shfl<{e.mode} ..>", e.span, operands=[e.param, e.args[0]])
        return vt

    def e_Call(self, e: A.Call, run_ctx) -> Type:
        f = e.func
        if f in self.cx.functions:
            t = self.decls.inline_call(e, self.cx.functions[f])
            self.body.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, CALL, e.span)
            return t
        handler = _CALLS.get(f)
        if f in SCALARS:
            return self.calls.conversion(e, run_ctx)
        if handler is None:
            for a in e.args:
                self.expr(a)
            if f == "range":
                self.cx.error("PH109", "`range` is only the iteration space of a `for` loop", e.func_span)
            elif f in TYPE_WORDS:
                self.cx.error("PH109", f"`{f}` is a type, not a function", e.func_span)
            else:
                self.cx.error("PH109", f"no function `{f}`", e.func_span, label="unknown function",
                           help=_shuffle_help(f, e.args) or _did_you_mean_fn(f, self.cx.functions))
            return ERROR
        return handler(self.calls, e, run_ctx)


_SHUFFLE_NAME = re.compile(r"(?:__)?shfl_(down|up|xor|idx)(?:_sync)?")


def _shuffle_help(f: str, args) -> str | None:
    """`shfl_down(v, 1)` (or CUDA's `__shfl_down_sync(mask, v, 1)`): the generic call it means."""
    m = _SHUFFLE_NAME.fullmatch(f)
    if m is None or len(args) not in (2, 3):
        return None
    v, d = args[-2], args[-1]
    return f"write `shfl<{m.group(1)} {source_of(d)}>({source_of(v)})`: the direction is the call's mode"


_EXTENT_FIELDS = ("shape", "size", "len", "length", "rows", "cols", "numel", "dim", "dims", "n", "extent")


def _literal_help(node, target: Scalar) -> str | None:
    """How to write an integer literal that does not fit `i32`: a 32-bit pattern (a hash
    constant such as `0x85ebca6b`) as the `i32` it wraps to, anything else in `i64`."""
    if not isinstance(node, A.IntLit) or target.name != "i32":
        return None
    v, text = node.value, source_of(node)
    if 2**31 <= v < 2**32:
        return (f"there is no unsigned 32-bit type: for this bit pattern write `{v - 2**32}` or "
                f"`i32(i64({text}))`, which wraps to it")
    if -2**63 <= v < 2**63:
        return f"compute in `i64`: `i64({text})`"
    return None


def _one_slice_axis(e: A.Index, lengths: list) -> str:
    """PH111's help: ``e`` with its last slice axis kept and each other one a point at its start."""
    keep = max(i for i, ln in enumerate(lengths) if ln is not None)
    subs = []
    for i, (s, ln) in enumerate(zip(e.subs, lengths)):
        if ln is None or i == keep:
            subs.append(subscript(s))
        else:
            start = s.start if isinstance(s, A.SpanSub) else s.lo
            subs.append(source_of(start) if start is not None else "0")
    return f"{source_of(e.base)}[{', '.join(subs)}]"
