"""The semantic pass, part 1: types written in the source, attributes (LANGUAGE §2) and
functions, checked and inlined at every call."""

from __future__ import annotations

from ..diagnostics.model import Edit, Fix

from ..diagnostics.model import NOTE, Span
from ...language.ops import OpClass, OpInfo
from .helpers import _always_returns, _broadcast_scalars, _describe, _is_plain_tile, _tile_reads, constant_text, plan_tile_value
from . import model as sema_model
from .context import Body, Part
from .model import (MAX_INLINE_DEPTH, RESERVED, Instance, KernelInfo, Scope)
from ..syntax import ast as A
from ..syntax.printer import expr as source_of

I32_MAX = (1 << 31) - 1
from ...language.types import (BOOL, C_TYPES, ERROR, F32, I32, SCALARS, VOID, ErrorType, Scalar, Tensor, Tile,
                    Type, assignable, an)


class Declarations(Part):

    # ---- types written in the source
    def type_expr(self, t: A.TypeExpr, allow_tensor: bool, allow_tile: bool, where: str,
                  dims_env: dict | None = None) -> Type:
        elem = SCALARS.get(t.elem)
        if t.kind == "scalar":
            if elem is not None:
                return elem
            if t.elem in ("tensor", "tile"):
                self.cx.error("PH118", f"`{t.elem}` needs an element type and a shape", t.span,
                           help=f"write `{t.elem}<f32>[R, C]`")
            elif t.elem == "run":
                self.cx.error("PH118", "run types are inferred and are never written", t.span)
            else:
                self.cx.error("PH118", f"unknown type `{t.elem}`", t.span, help=_type_help(t.elem),
                              fixes=_type_fix(t.elem, t.span))
            return ERROR
        if t.kind not in ("tensor", "tile"):
            self.cx.error("PH118", f"unknown type `{t.kind}<..>`", t.span,
                       help="shaped types are `tensor<T>[..]` and `tile<T>[..]`")
            return ERROR
        if elem is None:
            self.cx.error("PH118", f"unknown element type `{t.elem}`", t.elem_span, help=_type_help(t.elem),
                          fixes=_type_fix(t.elem, t.elem_span))
            return ERROR
        if not 1 <= len(t.dims) <= 2:
            self.cx.error("PH118", f"a {t.kind} has rank 1 or 2, not {len(t.dims)}", t.span)
            return ERROR
        if t.kind == "tensor" and not allow_tensor:
            self.cx.error("PH118", f"a tensor cannot be declared as a {where}", t.span,
                       help="tensors are kernel and function parameters only (global memory)")
            return ERROR
        if t.kind == "tile" and not allow_tile:
            self.cx.error("PH118", "a kernel cannot take a tile parameter", t.span,
                       help="pass a tensor and copy a slice of it into a tile")
            return ERROR
        shape = []
        for d in t.dims:
            shape.append(self.dim(d, t.kind, dims_env))
        if any(isinstance(d, ErrorType) for d in shape):
            return ERROR
        if t.kind == "tensor":
            return Tensor(elem, tuple(shape))
        return Tile(elem, tuple(shape))

    def dim(self, d, kind: str, dims_env: dict | None):
        if isinstance(d, A.DimInt):
            if d.value <= 0 or d.value > I32_MAX:
                self.cx.error("PH118", f"a dimension must be a positive i32, not {d.value}", d.span)
                return ERROR
            return d.value
        if dims_env is not None and d.name in dims_env:
            return dims_env[d.name]
        b = self.body.scope.lookup(d.name)
        if b is not None and b.kind == "const":
            v = b.const_value
            if v is None:            # a constant whose declaration is already reported
                return ERROR
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                self.cx.error("PH107", f"`{d.name}` = {constant_text(v)} is not a positive integer dimension",
                           d.span)
                return ERROR
            if v > I32_MAX:          # as for a literal dimension
                self.cx.error("PH118", f"a dimension must be a positive i32, not `{d.name}` = {v}", d.span)
                return ERROR
            return v
        if kind == "tile":
            if b is not None and b.kind == "function-dim":
                if isinstance(b.const_value, int):
                    return b.const_value        # bound at this call from a static extent
                if self.body.generic:
                    return d.name               # an uncalled function: known at each call only
            self.cx.error("PH107", f"tile dimension `{d.name}` is not a compile-time constant", d.span,
                       label="not a constant",
                       help="use a literal, an `@autotune` name, or bind it with `-D NAME=VALUE`")
            return ERROR
        return d.name

    # ---- attributes (§2)
    class _Attrs:
        def __init__(self):
            self.launch: A.Attribute | None = None
            self.aligned: list[A.Attribute] = []
            self.autotune: dict[str, tuple[object, Span]] = {}

    def attributes(self, k: A.Kernel, kinfo: KernelInfo):
        attrs = self._Attrs()
        seen: dict[str, A.Attribute] = {}
        for a in k.attrs:
            if a.name in seen and a.name in ("launch", "autotune"):
                self.cx.error("PH205", f"`@{a.name}` is given twice", a.span, label="second `@" + a.name + "`")
                continue
            seen[a.name] = a
            if a.name == "launch":
                attrs.launch = a
            elif a.name == "aligned":
                attrs.aligned.append(a)
            elif a.name == "autotune":
                self.autotune(a, attrs)
            else:
                import difflib
                close = difflib.get_close_matches(a.name, ("launch", "aligned", "autotune"), n=1)
                self.cx.error("PH204", f"attribute `@{a.name}` is not used by phobos-tools and is ignored",
                           a.span, severity=NOTE, help=f"did you mean `@{close[0]}`?" if close else None)
        return attrs

    def autotune(self, a: A.Attribute, attrs) -> None:
        if not a.args:
            self.cx.error("PH203", "`@autotune` needs at least one `NAME in [values]`", a.span)
        for arg in a.args:
            if arg.choices is None or arg.name is None:
                self.cx.error("PH203", "`@autotune` arguments have the form `NAME in [v1, v2, ..]`", arg.span)
                continue
            if arg.name in RESERVED:
                self.cx.error("PH103", f"`{arg.name}` is reserved and cannot be an `@autotune` name", arg.span)
                continue
            if arg.name in attrs.autotune:
                self.cx.error("PH203", f"`{arg.name}` is listed twice in `@autotune`", arg.span)
                continue
            big = next((c for c in arg.choices if not -I32_MAX - 1 <= c.value <= I32_MAX), None)
            if big is not None:     # the constant is an i32, as a -D integer is
                self.cx.error("PH203", f"`@autotune` value {big.value} of `{arg.name}` does not fit in i32",
                           big.span)
                attrs.autotune[arg.name] = (None, arg.span)     # declared, without a value
                continue
            if arg.name in self.cx.defines:
                value = self.cx.defines[arg.name]
            elif arg.name in self.cx.autotune_values:
                value = self.cx.autotune_values[arg.name]
            else:
                value = arg.choices[0].value
            attrs.autotune[arg.name] = (value, arg.span)

    def attr_int(self, v, code: str, what: str) -> int | None:
        """An attribute value that must be an integer: a literal or a constant name."""
        if isinstance(v, A.IntLit):
            return v.value
        if isinstance(v, A.Name):
            b = self.body.scope.lookup(v.id)
            if b is not None and b.kind == "const" and isinstance(b.const_value, int) \
                    and not isinstance(b.const_value, bool):
                return b.const_value
            if b is not None and b.kind == "const" and b.const_value is None:
                return None          # its declaration is already reported
            self.cx.error(code, f"{what} must be an integer or a compile-time constant, and `{v.id}` is not one",
                       v.span, help="bind it with `-D NAME=VALUE` or `@autotune`")
            return None
        self.cx.error(code, f"{what} must be an integer", v.span if v is not None else Span(1, 1, 1, 1))
        return None

    def launch_settings(self, attrs, kinfo: KernelInfo) -> None:
        a = attrs.launch
        if a is None:
            return
        args = a.args
        if not args or len(args) > 3 or any(x.name is not None or x.choices is not None for x in args):
            self.cx.error("PH201", "`@launch` takes `(threads[, minBlocks[, maxRegs]])`", a.span)
            return
        threads = self.attr_int(args[0].value, "PH201", "the thread count")
        if threads is not None:
            if threads <= 0 or threads % 32 or threads > 1024:
                self.cx.error("PH201", f"the thread count must be a multiple of 32 between 32 and 1024, not {threads}",
                           args[0].span, label="invalid thread count")
            else:
                kinfo.threads = threads
        if len(args) > 1:
            mb = self.attr_int(args[1].value, "PH201", "minBlocks")
            if mb is not None and mb < 1:
                self.cx.error("PH201", f"minBlocks must be at least 1, not {mb}", args[1].span)
            elif mb is not None:
                kinfo.min_blocks = mb
        if len(args) > 2:
            mr = self.attr_int(args[2].value, "PH201", "maxRegs")
            if mr is not None and not 16 <= mr <= 255:
                self.cx.error("PH201", f"maxRegs must be between 16 and 255, not {mr}", args[2].span)
            elif mr is not None:
                kinfo.max_regs = mr

    def check_aligned(self, attrs, kinfo: KernelInfo) -> None:
        for a in attrs.aligned:
            if not a.args:
                self.cx.error("PH202", "`@aligned` needs `EXTENT = n` arguments", a.span)
            for arg in a.args:
                if arg.name is None or arg.choices is not None:
                    self.cx.error("PH202", "`@aligned` arguments have the form `EXTENT = n`", arg.span)
                    continue
                n = self.attr_int(arg.value, "PH202", "the alignment")
                if n is None:
                    continue
                if n <= 0 or n > I32_MAX:
                    self.cx.error("PH202", f"the alignment must be a positive i32, not {n}", arg.value.span)
                    continue
                b = self.body.scope.names.get(arg.name)
                if b is None or b.kind not in ("extent", "const"):
                    self.cx.error("PH202", f"`{arg.name}` is not an extent of this kernel's tensors",
                               arg.span, help="`@aligned` promises something about a tensor dimension name")
                    continue
                if b.kind == "const" and isinstance(b.const_value, int) and b.const_value % n:
                    self.cx.error("PH202", f"`{arg.name}` = {b.const_value} is not a multiple of {n}", arg.span)
                    continue
                if arg.name in kinfo.aligned:
                    self.cx.error("PH205", f"`{arg.name}` is aligned twice", arg.span)
                    continue
                kinfo.aligned[arg.name] = n

    # ---- functions
    def check_function_alone(self, fn: A.Function) -> Instance:
        """An uncalled function: parsed and type-checked only, its dims left symbolic."""
        inst = Instance("function", fn.name, fn)
        body = Body(inst, Scope(function_boundary=True), in_function=True, generic=True)
        with self.cx.entering(body):
            self.bind_constants()
            dims_env: dict = {}
            for p in fn.params:
                for d in p.type.dims:
                    if isinstance(d, A.DimName) and d.name not in dims_env and body.scope.lookup(d.name) is None:
                        dims_env[d.name] = d.name
                        self.cx.new_binding(d.name, "function-dim", I32, d.span)
            self.function_params_alone(fn, dims_env)
            self.function_body(fn, inst, dims_env)
        return inst

    def bind_constants(self) -> None:
        """The -D constants, visible in every function body as in the kernel."""
        for name, value in self.cx.defines.items():
            t = BOOL if isinstance(value, bool) else I32 if isinstance(value, int) else F32
            self.cx.new_binding(name, "const", t, Span(1, 1, 1, 1), const_value=value)

    def function_body(self, fn: A.Function, inst: Instance, dims_env) -> None:
        """The return type and the body of ``fn``, its parameters bound."""
        self.body.fn_ret = self.return_type(fn, dims_env)
        inst.ret_type = self.body.fn_ret
        self.cx.call_stack.append(fn.name)
        self.stmts.block_body(fn.body.stmts)
        self.cx.call_stack.pop()
        self.check_returns(fn)

    def function_params_alone(self, fn, dims_env) -> None:
        for p in fn.params:
            t = self.type_expr(p.type, allow_tensor=True, allow_tile=True, where="parameter", dims_env=dims_env)
            if isinstance(t, Tile):
                t = Tile(t.elem, t.shape, p.name)
            self.cx.new_binding(p.name, "param", t, p.span, node=p,
                             buffer=p.name if isinstance(t, (Tensor, Tile)) else None)

    def return_type(self, fn: A.Function, dims_env) -> Type | None:
        if fn.ret is None:
            return None
        t = self.type_expr(fn.ret, allow_tensor=False, allow_tile=True, where="return type", dims_env=dims_env)
        if isinstance(t, Tensor):
            self.cx.error("PH118", "a function cannot return a tensor", fn.ret.span)
            return ERROR
        return t

    def check_returns(self, fn: A.Function) -> None:
        if fn.ret is not None and not _always_returns(fn.body):
            self.cx.error("PH114", f"`{fn.name}` may reach its end without returning a value",
                       Span(fn.body.span.end_line, max(1, fn.body.span.end_column - 1),
                            fn.body.span.end_line, fn.body.span.end_column),
                       label="the function can end here",
                       help=f"end every path with a `return` of {'type ' + fn.ret.elem if fn.ret.kind == 'scalar' else 'a tile'}")

    def inline_call(self, call: A.Call, fn: A.Function) -> Type:
        """Check ``fn``'s body for this call: parameters bound to the arguments, dims to their
        shapes. The result is the function's return type at this call."""
        if self.call_refused(call, fn):
            return ERROR
        if fn.name in self.cx.bad_functions or len(call.args) != len(fn.params):
            if fn.name not in self.cx.bad_functions:     # (a bad signature is already reported)
                self.cx.error("PH109", f"`{fn.name}` takes {len(fn.params)} argument"
                              f"{'s' if len(fn.params) != 1 else ''}, not {len(call.args)}", call.span)
            for a in call.args:
                self.exprs.expr(a)
            return ERROR
        self.cx.called.add(fn.name)
        arg_types = [self.exprs.expr(a) for a in call.args]
        dims_env = self.bind_dims(fn, call, arg_types)
        if dims_env is None:
            return ERROR
        self.computed_tile_arguments(fn, call)
        # the memory behind each tensor/tile argument, looked up in the caller's instance
        arg_buffers = [at.buffer if isinstance(at, Tile) and at.buffer else self._buffer_of(a)
                       for a, at in zip(call.args, arg_types)]
        caller = self.body
        inst = Instance("function", fn.name, fn, call_span=call.span, call_node=call, parent=caller.inst)
        caller.inst.calls[id(call)] = inst
        callee = Body(inst, Scope(function_boundary=True), in_function=True, generic=caller.generic)
        with self.cx.entering(callee):
            self.bind_constants()
            for name, v in dims_env.items():
                if callee.scope.names.get(name) is None:
                    self.cx.new_binding(name, "function-dim", I32, fn.span,
                                        const_value=v if isinstance(v, int) else None)
            self.bind_parameters(fn, arg_types, arg_buffers, dims_env)
            self.function_body(fn, inst, dims_env)
        ret = callee.fn_ret
        if ret is None:
            return VOID
        if isinstance(ret, Tile):
            return Tile(ret.elem, ret.shape)
        return ret

    def call_refused(self, call: A.Call, fn: A.Function) -> bool:
        """Report a call that cannot be inlined: recursion, nesting past MAX_INLINE_DEPTH, or more
        than MAX_INLINED_STATEMENTS statements inlined into one kernel (the call counts one, plus
        its function's statements; counted before the body is checked, so the work stops there)."""
        stack = self.cx.call_stack
        if fn.name in stack:
            self.cx.error("PH113", f"`{fn.name}` calls itself (through {' -> '.join(stack + [fn.name])})",
                          call.span, label="recursive call",
                          help="functions are inlined at every call, so they cannot recurse")
            return True
        if len(stack) >= MAX_INLINE_DEPTH:
            chain = stack + [fn.name]
            shown = chain if len(chain) <= 6 else chain[:3] + ["..."] + chain[-2:]
            self.cx.error("PH008", f"calls nested more than {MAX_INLINE_DEPTH} deep "
                          f"({' -> '.join(f'`{n}`' if n != '...' else n for n in shown)})", call.span,
                          label=f"call {len(chain)} levels deep",
                          help="functions are inlined at every call: call fewer functions from within functions")
            return True
        limit = sema_model.MAX_INLINED_STATEMENTS
        if self.cx.inlined > limit:
            return True                 # reported at the call that crossed the limit
        self.cx.inlined += 1 + self.statement_count(fn)
        if self.cx.inlined > limit:
            root = self.body.inst
            while root.parent is not None:
                root = root.parent
            chain = [root.name] + stack + [fn.name]
            shown = chain if len(chain) <= 8 else chain[:4] + ["..."] + chain[-3:]
            self.cx.error("PH008", f"more than {limit:,} statements inlined into {root.kind} `{root.name}`, "
                          f"this call included ({' -> '.join(f'`{n}`' if n != '...' else n for n in shown)})",
                          call.span, label=f"inlining this call of `{fn.name}` passes {limit:,} statements",
                          notes=["every call is inlined: it counts one statement plus each statement of its "
                                 "function's body, and the calls in that body count again at every copy"],
                          help="functions are inlined at every call, so a function that calls another twice "
                               "doubles the work per level: call fewer functions from within functions, or loop")
            return True
        return False

    def statement_count(self, fn: A.Function) -> int:
        """The statements of ``fn``'s body, nested ones included (its calls not followed)."""
        counts = self.cx.statement_counts
        got = counts.get(id(fn))
        if got is None:
            got = 0
            todo = list(fn.body.stmts)
            while todo:
                st = todo.pop()
                got += 1
                if isinstance(st, A.If):
                    todo.extend(st.then.stmts)
                    if isinstance(st.orelse, A.Block):
                        todo.extend(st.orelse.stmts)
                    elif st.orelse is not None:
                        todo.append(st.orelse)
                elif isinstance(st, (A.For, A.While)):
                    todo.extend(st.body.stmts)
            counts[id(fn)] = got
        return got

    def bind_dims(self, fn: A.Function, call: A.Call, arg_types) -> dict | None:
        """Match each argument to its parameter; the dims named in tensor and tile parameters take
        the arguments' extents. None when an argument does not fit (reported)."""
        dims_env: dict = {}
        ok = True
        for p, a, at in zip(fn.params, call.args, arg_types):
            if isinstance(at, ErrorType):
                ok = False
            elif p.type.kind == "scalar":
                ok = self.scalar_argument(fn, p, a, at) and ok
            else:
                ok = self.shaped_argument(fn, p, a, at, dims_env) and ok
        return dims_env if ok else None

    def scalar_argument(self, fn: A.Function, p, a, at: Type) -> bool:
        pt = SCALARS.get(p.type.elem)
        if pt is None:
            return False
        if not isinstance(at, Scalar):
            self.cx.error("PH109", f"parameter `{p.name}` of `{fn.name}` is {an(pt)}, not {an(_describe(at))}",
                          a.span, label=f"{an(_describe(at))}")
            return False
        if not assignable(at, pt):
            self.cx.error("PH105", f"parameter `{p.name}` of `{fn.name}` is {pt}, but the argument is {at}",
                          a.span, label=f"{at}", help=f"convert it: `{pt}({source_of(a)})`")
            return False
        self.exprs.settle_expr(a, pt)
        return True

    def shaped_argument(self, fn: A.Function, p, a, at: Type, dims_env: dict) -> bool:
        """A tensor or tile argument: its kind, element type and rank, and its shape binds the dims."""
        want_kind = p.type.kind
        problem = None
        if want_kind == "tensor" and not (isinstance(at, Tensor) or (isinstance(at, Tile) and at.buffer)):
            problem = ("PH109", f"parameter `{p.name}` of `{fn.name}` is a tensor, not {an(_describe(at))}")
        elif want_kind == "tile" and not isinstance(at, Tile):
            problem = ("PH109", f"parameter `{p.name}` of `{fn.name}` is a tile, not {an(_describe(at))}")
        elif p.type.elem != at.elem.name:
            problem = ("PH105", f"parameter `{p.name}` of `{fn.name}` holds {p.type.elem}, "
                                f"but the argument holds {at.elem}")
        elif len(p.type.dims) != len(at.shape):
            problem = ("PH106", f"parameter `{p.name}` of `{fn.name}` has rank {len(p.type.dims)}, "
                                f"the argument rank {len(at.shape)}")
        if problem is not None:
            self.cx.error(*problem, a.span)
            return False
        ok = True
        for d, actual in zip(p.type.dims, at.shape):
            if isinstance(d, A.DimInt):
                if d.value != actual:
                    self.cx.error("PH106", f"parameter `{p.name}` of `{fn.name}` wants extent {d.value}, "
                                  f"the argument has {actual}", a.span)
                    ok = False
            elif d.name in dims_env and dims_env[d.name] != actual:
                self.cx.error("PH106", f"`{d.name}` is bound to {dims_env[d.name]} by an earlier argument, "
                              f"but this one has {actual}", a.span)
                ok = False
            else:
                dims_env[d.name] = actual
        return ok

    def computed_tile_arguments(self, fn: A.Function, call: A.Call) -> None:
        """A computed tile argument (`f(t * 2.0)`) is a sweep into a fresh tile, run in the caller
        before the call: a CTA-wide read of every tile it reads (§9.5)."""
        inst = self.body.inst
        for p, a in zip(fn.params, call.args):
            if p.type.kind != "tile" or _is_plain_tile(a, inst):
                continue
            op = inst.ops.get(id(a))
            if op is not None and op.cls is not OpClass.CTA_WIDE:
                continue                         # a call returning a tile: its result is a tile of its own
            early = plan_tile_value(a, inst)
            names: dict = {}
            reads = _tile_reads(a, inst, names, early)
            operands = _broadcast_scalars(a, inst, early)
            if op is None:
                inst.ops[id(a)] = OpInfo(OpClass.CTA_WIDE, "elementwise sweep", a.span,
                                         operands=operands, reads=reads, writes=[], read_names=names)
            elif early:                          # a tile built-in: what its early parts read is theirs
                op.reads, op.operands, op.read_names = reads, operands, {**op.read_names, **names}

    def bind_parameters(self, fn: A.Function, arg_types, arg_buffers, dims_env: dict) -> None:
        """Declare the callee's parameters: a scalar by its type, a tensor or tile with the
        argument's shape and the memory behind it (a fresh buffer for a computed tile)."""
        for p, at, arg_buf in zip(fn.params, arg_types, arg_buffers):
            if p.type.kind == "scalar":
                self.cx.new_binding(p.name, "param", SCALARS[p.type.elem], p.span, node=p)
                continue
            shape = tuple(dims_env.get(d.name, d.name) if isinstance(d, A.DimName) else d.value
                          for d in p.type.dims)
            buf = arg_buf or f"{p.name}#{next(self.cx.uids)}"
            t = Tensor(at.elem, shape) if p.type.kind == "tensor" else Tile(at.elem, shape, buf)
            self.cx.new_binding(p.name, "param", t, p.span, node=p, buffer=buf)

    def _buffer_of(self, e) -> str | None:
        if isinstance(e, A.Name):
            b = self.body.inst.resolution.get(id(e))
            return b.buffer if b is not None else None
        if isinstance(e, A.Index):
            return self._buffer_of(e.base)
        return None


def _type_fix(name: str, span) -> list[Fix]:
    """The fix of a C or CUDA type name whose Phobos type is certain (`float` is `f32`; an unsigned
    type has none: `i64` or `i32` depends on the values)."""
    want = C_TYPES.get(name)
    if want is None or (want == "i64" and name not in ("long", "int64_t")) or span.line != span.end_line \
            or span.end_column - span.column != len(name):
        return []
    return [Fix(f"write `{want}`", (Edit(span.line, span.column, span.end_line, span.end_column, want),))]


def _type_help(name: str) -> str:
    """The help of an unknown type name: the Phobos type a C or CUDA name means, if any."""
    listed = f"the scalar types are {', '.join(SCALARS)}"
    if name not in C_TYPES:
        return listed
    want = C_TYPES[name]
    if want is None:
        return f"Phobos has no `{name}`; {listed}"
    if want == "i64":
        return ("Phobos has no unsigned type wider than `u8`: write `i64` for values past 2**31 - 1, or `i32` "
                "where only the bits matter")
    return f"write `{want}`: Phobos names a scalar type by its kind and width"
