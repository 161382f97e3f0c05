"""The semantic pass, part 4: calls of built-ins (LANGUAGE §7 runs, §8): conversions, scalar
math, where, sum/elem/store, barrier, atomics, acquire/release and the tile built-ins. ``CALLS``
maps each built-in name to the method that types it."""

from __future__ import annotations

from ...language.builtins import (ATOMICS, MEMORY_ORDER, SCALAR_MATH, TILE_BUILTINS, TILE_MATH)
from ...language.ops import STORE, OpClass, OpInfo
from .helpers import _describe, _shape, _broadcast, _sub_exprs, _tile_reads, _broadcast_scalars, _fmt_list, _fixed
from ..syntax import ast as A
from .context import Part
from ..syntax.printer import expr as source_of
from ...language.types import (BOOL, ERROR, F32, I32, INT_LIT, SCALARS, VOID, ErrorType, Run, Scalar,
                    Tensor, Tile, Type, assignable, literal_fits, promote_int, settle, an)


class BuiltinCalls(Part):

    def arity(self, e: A.Call, *counts: int) -> bool:
        if len(e.args) in counts:
            return True
        for a in e.args:
            self.exprs.expr(a)
        want = " or ".join(str(c) for c in counts)
        self.cx.error("PH109", f"`{e.func}` takes {want} argument{'s' if counts != (1,) else ''}, not {len(e.args)}",
                   e.span)
        return False

    def conversion(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 1):
            return ERROR
        target = SCALARS[e.func]
        t = self.exprs.expr(e.args[0], run_ctx)
        if isinstance(t, ErrorType):
            return ERROR
        el = t.elem if isinstance(t, (Run, Tile)) else t
        if not isinstance(el, Scalar) or isinstance(t, Tensor):
            self.cx.error("PH105", f"`{e.func}(..)` converts scalars, runs and tiles, not {an(_describe(t))}", e.span)
            return ERROR
        if el.is_weak:
            a = e.args[0]
            # a literal converted on its own takes the conversion's type when it fits there
            # (LANGUAGE §1: "the type its context needs"), so `i64(3000000000)` and `f64(1e300)`
            # are what they say; otherwise it takes its default type and is then converted
            fits = isinstance(a, (A.IntLit, A.FloatLit)) and assignable(el, target) \
                and literal_fits(a.value, target)
            self.exprs.settle_expr(a, target if fits else settle(el))
        if isinstance(t, Scalar):
            return target
        if isinstance(t, Tile):
            return Tile(target, t.shape)
        return Run(target, t.n)

    def math(self, e: A.Call, run_ctx) -> Type:
        f = e.func
        two = f in ("min", "max", "pow")
        if not self.arity(e, 2 if two else 1):
            return ERROR
        ts = [self.exprs.expr(a, run_ctx) for a in e.args]
        if any(isinstance(t, ErrorType) for t in ts):
            return ERROR
        if any(isinstance(t, Tile) for t in ts):
            if f not in TILE_MATH:
                hint = "use `tmax(a, b)` on tiles" if f == "max" else None
                self.cx.error("PH109", f"`{f}` works on scalars and runs, not tiles", e.span, help=hint)
                return ERROR
            t = ts[0]
            if not t.elem.is_float:
                self.cx.error("PH105", f"`{f}` needs floats, not a tile of {t.elem}", e.args[0].span)
                return ERROR
            self.body.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "elementwise sweep", e.span,
                                          reads=_tile_reads(e.args[0], self.body.inst),
                                          operands=_broadcast_scalars(e.args[0], self.body.inst))
            return t
        for t, a in zip(ts, e.args):
            if not isinstance(t, (Scalar, Run)):
                self.cx.error("PH105", f"`{f}` works on numbers, not {an(_describe(t))}", a.span)
                return ERROR
        if two:
            t = self.exprs.binop_type("+", ts[0], ts[1], e, what=f"`{f}`")
            if isinstance(t, ErrorType):
                return ERROR
        else:
            t = ts[0]
        el = t.elem if isinstance(t, Run) else t
        if f in ("exp", "log", "sqrt", "tanh", "round", "pow"):
            if el == INT_LIT:
                el = F32
            if not el.is_float:
                self.cx.error("PH105", f"`{f}` needs a float, not {el}", e.span,
                           help=f"convert it: `{f}(f32(..))`")
                return ERROR
        elif f == "popcount":
            if not el.is_int:
                self.cx.error("PH105", f"`popcount` needs an integer, not {el}", e.span)
                return ERROR
            el = I32
        else:  # abs, min, max
            if not el.is_numeric:
                self.cx.error("PH105", f"`{f}` needs numbers, not {el}", e.span)
                return ERROR
            el = promote_int(el)
        if isinstance(t, Run):
            return Run(settle(el), t.n)
        if el.is_weak:
            return el
        for a in e.args:
            at = self.body.inst.types.get(id(a))
            if isinstance(at, Scalar) and at.is_weak:
                self.exprs.settle_expr(a, el if f != "popcount" else I32)
        return el

    def where(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 3):
            return ERROR
        ct, at, bt = (self.exprs.expr(a, run_ctx) for a in e.args)
        if any(isinstance(t, ErrorType) for t in (ct, at, bt)):
            return ERROR
        cel = ct.elem if isinstance(ct, (Run, Tile)) else ct
        if cel != BOOL:
            self.cx.error("PH105", f"the condition of `where` must be bool, not {_describe(ct)}", e.args[0].span)
            return ERROR
        # two numbers join as arithmetic does; two bools select a bool (LANGUAGE §6: "selects")
        ael, bel = ((t.elem if isinstance(t, (Run, Tile)) else t) for t in (at, bt))
        if (ael == BOOL) != (bel == BOOL) and isinstance(ael, Scalar) and isinstance(bel, Scalar):
            self.cx.error("PH105", f"`where` selects between two numbers or two bools, not {ael} and {bel}",
                       e.span)
            return ERROR
        vt = self.exprs.binop_type("==" if ael == BOOL else "+", at, bt, e, what="`where`")
        if isinstance(vt, ErrorType):
            return ERROR
        if isinstance(ct, Tile) or isinstance(vt, Tile):
            if isinstance(ct, Run) or isinstance(vt, Run):
                self.cx.error("PH106", "a run and a tile cannot combine", e.span)
                return ERROR
            shape = _broadcast(ct.shape if isinstance(ct, Tile) else (), vt.shape if isinstance(vt, Tile) else (),
                               self.body.generic)
            if shape is None:
                self.cx.error("PH106", "the condition's and the values' shapes do not broadcast", e.span)
                return ERROR
            vt = Tile(settle(vt.elem if isinstance(vt, Tile) else vt), shape)
        elif isinstance(ct, Run) or isinstance(vt, Run):
            if isinstance(ct, Run) and isinstance(vt, Run) and ct.n != vt.n and \
                    not (self.body.generic and not _fixed(ct.n, vt.n)):
                self.cx.error("PH106", f"runs of different lengths ({ct.n} and {vt.n}) cannot combine", e.span)
                return ERROR
            n = ct.n if isinstance(ct, Run) else vt.n
            vt = Run(settle(vt.elem if isinstance(vt, Run) else vt), n)
        if isinstance(vt, Tile):
            self.body.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "elementwise sweep", e.span,
                                          reads=_tile_reads(e, self.body.inst), operands=_broadcast_scalars(e, self.body.inst))
        elif isinstance(vt, Scalar) and not vt.is_weak:
            for a in e.args[1:]:
                self.exprs.settle_expr(a, vt)
        return vt

    def run_sum(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 1):
            return ERROR
        t = self.exprs.expr(e.args[0], run_ctx=True)
        if isinstance(t, ErrorType):
            return ERROR
        if isinstance(t, Scalar):
            self.cx.error("PH112", f"`sum({source_of(e.args[0])})` of a scalar has nothing to add up", e.span,
                       help=f"did you mean `sum<over ctx.lane>({source_of(e.args[0])})`?")
            return ERROR
        if isinstance(t, Tile):
            self.cx.error("PH112", "`sum` adds up a run, not a tile", e.span,
                       help=self._slice_let_help(e.args[0]) or "use `rowsum`")
            return ERROR
        if not isinstance(t, Run):
            self.cx.error("PH105", f"`sum` adds up a run, not {an(_describe(t))}", e.span)
            return ERROR
        el = t.elem
        if el == BOOL:
            self.cx.error("PH105", "`sum` cannot add up bools", e.span)
            return ERROR
        acc = I32 if el.name in ("i8", "u8") else F32 if el.name in ("f16", "bf16") else settle(el)
        self.body.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, "sum", e.span)
        return acc

    def run_elem(self, e: A.Call, run_ctx) -> Type:
        if len(e.args) == 2:                    # `elem(r, k)`: one element was meant
            for a in e.args:
                self.exprs.expr(a, run_ctx=True)
            self.cx.error("PH109", "`elem` takes 1 argument, not 2", e.span,
                       help=f"`elem(..)` is the whole run: hold it, `let r = elem({source_of(e.args[0])})`, and "
                            f"read one element as `r[{source_of(e.args[1])}]` (its index a constant)")
            return ERROR
        if not self.arity(e, 1):
            return ERROR
        t = self.exprs.expr(e.args[0], run_ctx=True)
        if isinstance(t, ErrorType):
            return ERROR
        if not isinstance(t, Run):
            self.cx.error("PH111", f"`elem` takes a run (one thread's span, `A[i, j :+ n]`), not {an(_describe(t))}",
                       e.args[0].span, help=self._slice_let_help(e.args[0]))
            return ERROR
        self.body.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, "elem", e.span)
        return Run(settle(t.elem), t.n)

    def run_store(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 2):
            return ERROR
        dst, val = e.args
        if not (isinstance(dst, A.Index) and isinstance(dst.base, A.Name) and not dst.is_point):
            self.exprs.expr(dst, run_ctx=True)
            self.exprs.expr(val, run_ctx=True)
            self.cx.error("PH111", "the destination of `store` is a span of a tensor or tile: `A[i, j :+ n]`",
                       dst.span)
            return ERROR
        dt = self.exprs.expr(dst, run_ctx=True, store=True)
        vt = self.exprs.expr(val, run_ctx=True)
        if isinstance(dt, ErrorType) or isinstance(vt, ErrorType):
            return ERROR
        if not isinstance(dt, Run):
            self.cx.error("PH111", "the destination of `store` must be a run", dst.span)
            return ERROR
        if isinstance(vt, Scalar):
            if not assignable(vt, dt.elem):
                self.stmts.type_mismatch(dt.elem, vt, val)
                return ERROR
            self.exprs.settle_expr(val, dt.elem)
        elif isinstance(vt, Run):
            if vt.n != dt.n and not (self.body.generic and not _fixed(vt.n, dt.n)):
                self.cx.error("PH106", f"a run of {vt.n} cannot be stored into a span of {dt.n}", val.span)
                return ERROR
            if not assignable(vt.elem, dt.elem):
                self.cx.error("PH105", f"a run of {vt.elem} cannot be stored into {dt.elem} elements", val.span,
                           help=f"convert it: `{dt.elem}({source_of(val)})`")
                return ERROR
        else:
            self.cx.error("PH105", f"`store` writes a run or a scalar, not {an(_describe(vt))}", val.span,
                       help=self._slice_let_help(val) if isinstance(vt, Tile) else None)
            return ERROR
        b = self.body.inst.resolution.get(id(dst.base))
        self.body.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, STORE, e.span,
                                      operands=[x for s in dst.subs for x in _sub_exprs(s)] + [val],
                                      writes=[(b.buffer or b.name) if b else "?"])
        return VOID

    def _slice_let_help(self, expr) -> str | None:
        """Where a run was expected but a tile came, because a `let` holds a slice (a tile outside
        a run context, LANGUAGE §7): how to hold one thread's run instead."""
        stack = [expr]
        while stack:
            n = stack.pop()
            if isinstance(n, A.Name):
                b = self.body.inst.resolution.get(id(n))
                value = getattr(b.node, "value", None) if b is not None and b.kind == "view" else None
                shape = b.type.shape if value is not None and isinstance(b.type, Tile) else ()
                if isinstance(value, A.Index) and len(shape) == 1 and isinstance(shape[0], int) \
                        and 2 <= shape[0] <= 16:                # what a run can be (LANGUAGE §7)
                    return (f"`{b.name}` holds a slice, and outside `sum(..)`, `elem(..)` and `store(..)` a slice is "
                            f"a tile; for one thread's run write `let {b.name} = elem({source_of(value)})`")
            stack.extend(A.children(n))
        return None

    def barrier(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 0):
            return ERROR
        self.body.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "barrier()", e.span)
        return VOID

    def element_arg(self, e: A.Call) -> tuple[Type, str | None]:
        """The first argument of an atomic or acquire/release: one element of a tensor."""
        a = e.args[0]
        if not (isinstance(a, A.Index) and a.is_point and isinstance(a.base, A.Name)):
            self.exprs.expr(a)
            self.cx.error("PH109", f"the first argument of `{e.func}` is one element of a tensor, like `A[i]`",
                       a.span)
            return ERROR, None
        t = self.exprs.expr(a, store=True)
        if isinstance(t, ErrorType):
            return ERROR, None
        b = self.body.inst.resolution.get(id(a.base))
        if b is None or not isinstance(b.type, Tensor):
            tile = b is not None and isinstance(b.type, Tile)
            self.cx.error("PH109", f"`{e.func}` works on global memory: `{source_of(a.base)}` is not a tensor", a.span,
                       help="an atomic runs once per CTA, for a value several CTAs share; a tile belongs to one CTA, "
                            "so update it with plain stores (one thread per element, or combine first with "
                            "`sum<over ctx.thread>(..)`) and a `barrier()` before it is read" if tile else None)
            return ERROR, None
        return t, b.buffer or b.name

    def atomic(self, e: A.Call, run_ctx) -> Type:
        n = 3 if e.func == "atomic_cas" else 2
        if not self.arity(e, n):
            return ERROR
        et, buf = self.element_arg(e)
        vts = [self.exprs.expr(a) for a in e.args[1:]]
        if isinstance(et, ErrorType) or any(isinstance(t, ErrorType) for t in vts):
            return ERROR
        allowed = ("i32", "i64", "f32", "f64") if e.func == "atomic_add" else ("i32", "i64")
        if et.name not in allowed:
            self.cx.error("PH105", f"`{e.func}` works on {_fmt_list(allowed)} elements, not {et}", e.args[0].span)
            return ERROR
        for v, a in zip(vts, e.args[1:]):
            if not isinstance(v, Scalar) or not assignable(v, et):
                if isinstance(v, Scalar):
                    self.stmts.type_mismatch(et, v, a)
                else:
                    self.cx.error("PH105", f"`{e.func}` takes a scalar {et}, not {an(_describe(v))}", a.span)
                return ERROR
            self.exprs.settle_expr(a, et)
        idx = [s.index for s in e.args[0].subs]
        self.body.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, e.func, e.span, operands=idx + list(e.args[1:]),
                                      reads=[buf], writes=[buf])
        return et

    def acquire_release(self, e: A.Call, run_ctx) -> Type:
        load = e.func == "load_acquire"
        if not self.arity(e, 1 if load else 2):
            return ERROR
        et, buf = self.element_arg(e)
        vt = self.exprs.expr(e.args[1]) if not load else None
        if isinstance(et, ErrorType) or isinstance(vt, ErrorType):
            return ERROR
        if not load:
            if not isinstance(vt, Scalar) or not assignable(vt, et):
                if isinstance(vt, Scalar):
                    self.stmts.type_mismatch(et, vt, e.args[1])
                else:
                    self.cx.error("PH105", f"`store_release` stores a scalar {et}, not {an(_describe(vt))}",
                               e.args[1].span)
                return ERROR
            self.exprs.settle_expr(e.args[1], et)
        idx = [s.index for s in e.args[0].subs]
        self.body.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, e.func, e.span, operands=idx + list(e.args[1:]),
                                      reads=[buf] if load else [], writes=[] if load else [buf])
        return et if load else VOID

    def tile_builtin(self, e: A.Call, run_ctx) -> Type:
        f = e.func
        nargs = {"dot": 2, "dot_t": 2, "tmax": 2, "qdot_t": 4, "qmma_t": 4}.get(f, 1)
        if not self.arity(e, nargs):
            return ERROR
        ts = [self.exprs.expr(a) for a in e.args]
        if any(isinstance(t, ErrorType) for t in ts):
            return ERROR
        if f == "tmax":
            if not any(isinstance(t, Tile) for t in ts):
                self.cx.error("PH109", "`tmax` takes tiles; for scalars use `max`", e.span)
                return ERROR
            result = self.exprs.binop_type("+", ts[0], ts[1], e, what="`tmax`")
            if isinstance(result, ErrorType):
                return ERROR
            self.body.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "elementwise sweep", e.span,
                                          reads=_tile_reads(e, self.body.inst),
                                          operands=_broadcast_scalars(e, self.body.inst))
            return result
        for t, a in zip(ts, e.args):
            if not isinstance(t, Tile):
                self.cx.error("PH109", f"`{f}` takes tiles, not {an(_describe(t))}", a.span,
                           help="slice the tensor: `A[r :+ R, c :+ C]`" if isinstance(t, Tensor) else None)
                return ERROR
            if not t.static and not self.body.generic:
                self.cx.error("PH107", f"`{f}` needs tiles of static shape, not {_shape(t.shape)}", a.span)
                return ERROR
            if len(t.shape) != 2:
                self.cx.error("PH106", f"`{f}` takes rank-2 tiles, not rank {len(t.shape)}", a.span)
                return ERROR
        result = _tile_builtin_result(self, e, ts)
        if isinstance(result, ErrorType):
            return ERROR
        names: dict = {}
        self.body.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, f, e.span, reads=_tile_reads(e, self.body.inst, names),
                                      operands=_broadcast_scalars(e, self.body.inst), read_names=names)
        if f in _PRODUCTS:
            self.body.inst.products[id(e)] = e
        return result


# the tile products the shared-memory plan pads operands for (smem.dot_operands)
_PRODUCTS = frozenset(("dot", "dot_t", "qdot_t", "qmma_t"))


def _tile_builtin_result(ch: "BuiltinCalls", e: A.Call, ts) -> Type:
    f = e.func
    a = ts[0]
    if f in ("rowsum", "rowmax"):
        if not a.elem.is_float:
            ch.cx.error("PH105", f"`{f}` works on floats, not {a.elem}", e.args[0].span)
            return ERROR
        return Tile(a.elem, (a.shape[0], 1))
    if f in ("cumsum", "tril"):
        return Tile(a.elem, a.shape)
    if f == "transpose":
        return Tile(a.elem, (a.shape[1], a.shape[0]))
    if f in ("dot", "dot_t"):
        b = ts[1]
        if a.elem != b.elem:
            ch.cx.error("PH105", f"`{f}` multiplies tiles of one type, not {a.elem} and {b.elem}", e.span)
            return ERROR
        if a.elem == BOOL:
            ch.cx.error("PH105", f"`{f}` cannot multiply bools", e.span)
            return ERROR
        k_b = b.shape[0] if f == "dot" else b.shape[1]
        n = b.shape[1] if f == "dot" else b.shape[0]
        if a.shape[1] != k_b and not (ch.body.generic and not _fixed(a.shape[1], k_b)):
            want = "[K, N]" if f == "dot" else "[N, K]"
            ch.cx.error("PH106", f"`{f}` of {_shape(a.shape)} and {_shape(b.shape)}: the inner extents "
                     f"{a.shape[1]} and {k_b} differ", e.span, help=f"`{f}(a, b)` takes a [M, K] and b {want}")
            return ERROR
        acc = {"i8": I32, "u8": I32, "f16": F32, "bf16": F32}.get(a.elem.name, a.elem)
        return Tile(acc, (a.shape[0], n))
    # qdot_t / qmma_t
    act, sa, w, sw = ts
    m, k = act.shape
    nn = w.shape[0]
    if act.elem.name != "i8" or w.elem.name != "i8":
        ch.cx.error("PH105", f"`{f}` multiplies i8 tiles", e.span)
        return ERROR
    if sa.elem != F32 or sw.elem != F32:
        ch.cx.error("PH105", f"`{f}` takes f32 scales", e.span)
        return ERROR
    if ch.body.generic and not _fixed(k, nn, m, w.shape[1], *sa.shape, *sw.shape):
        return Tile(F32, (m, nn))
    if w.shape[1] != k or k % 32:
        ch.cx.error("PH106", f"`{f}` needs a [M, K] and w [N, K] with K a multiple of 32", e.span)
        return ERROR
    want_sw = (nn, k // 32) if f == "qdot_t" else (k // 32, nn)
    if sa.shape != (m, k // 32) or sw.shape != want_sw:
        ch.cx.error("PH106", f"`{f}` wants scales sa {_shape((m, k // 32))} and sw {_shape(want_sw)}", e.span)
        return ERROR
    if f == "qmma_t" and (m % 8 or nn % 8):
        ch.cx.error("PH106", "`qmma_t` needs M and N multiples of 8", e.span)
        return ERROR
    return Tile(F32, (m, nn))


CALLS = {}
for _n in SCALAR_MATH:
    CALLS[_n] = BuiltinCalls.math
for _n in TILE_BUILTINS:
    CALLS[_n] = BuiltinCalls.tile_builtin
for _n in ATOMICS:
    CALLS[_n] = BuiltinCalls.atomic
for _n in MEMORY_ORDER:
    CALLS[_n] = BuiltinCalls.acquire_release
CALLS.update({"sum": BuiltinCalls.run_sum, "elem": BuiltinCalls.run_elem, "store": BuiltinCalls.run_store,
               "barrier": BuiltinCalls.barrier, "where": BuiltinCalls.where})
