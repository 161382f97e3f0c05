"""Names, types, shapes, attributes and operation classes: the semantic half of the front end.

Input: a parsed Program. Output: a ``ProgramInfo`` holding, per kernel, the launch settings and,
for the kernel body and for every inlined function call (an ``Instance`` each, since a function's
nodes mean different things at different call sites), the type of every expression, the binding
every name resolves to, the §8 operation record of every call, access and assignment, and the
bindings declared. Every violation of LANGUAGE §1-§8 becomes a PH1xx/PH2xx Diagnostic; an
expression with an error gets the ERROR type, which silences follow-on errors.

Recursion here follows the tree, whose depth the parser bounds (parser.MAX_NESTING).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

from .constants import affine, constant_of, parse_define
from .diagnostics.model import ERROR as SEV_ERROR, NOTE, Diagnostic, Span
from .ops import ASSIGN, CALL, LOAD, RUN_LOAD, RUN_STORE, STORE, OpClass, OpInfo
from .syntax import ast as A
from .syntax.printer import expr as source_of
from .types import (BOOL, ERROR, F32, F64, FLOAT_LIT, I32, INT_LIT, SCALARS, TYPE_WORDS, VOID,
                    ErrorType, Run, Scalar, Tensor, Tile, Type, arith_join, assignable, literal_fits,
                    promote_int, settle)

# ---------------------------------------------------------------- the built-in vocabulary (§8)

from .builtins import (ATOMICS, BUILTINS, COLLECTIVE_OPS, MEMORY_ORDER, RUN_BUILTINS, SCALAR_MATH,  # noqa: E402
                       SHUFFLE_MODES, TILE_BUILTINS, TILE_MATH)

RESERVED = BUILTINS | TYPE_WORDS | {"ctx"}

CTX_PATHS = {
    ("block", "x"), ("block", "y"), ("block", "z"),
    ("blocks", "x"), ("blocks", "y"), ("blocks", "z"),
    ("threads",), ("warps",), ("lanes",), ("thread",), ("warp",), ("lane",),
}

MAX_INLINE_DEPTH = 32
DEFAULT_THREADS = 256


# ---------------------------------------------------------------- results


@dataclass(eq=False)
class Binding:
    """A declared name. ``kind``: param, extent, const, let, var, loop, view, function-dim."""

    name: str
    kind: str
    type: Type
    span: Span
    node: object = None
    mutable: bool = False
    const_value: int | float | bool | None = None
    buffer: str | None = None       # tile/tensor/view: the memory behind it
    uid: int = 0

    @property
    def is_scalar_or_run(self) -> bool:
        return isinstance(self.type, (Scalar, Run))


@dataclass(eq=False)
class Instance:
    """One body checked in one context: a kernel, or one inlined call of a function."""

    kind: str                      # "kernel" or "function"
    name: str
    node: object                   # A.Kernel or A.Function
    call_span: Span | None = None  # where this instance was inlined from
    call_node: object = None       # the A.Call it was inlined for (its args are in `parent`)
    parent: "Instance | None" = None
    types: dict[int, Type] = field(default_factory=dict)
    resolution: dict[int, Binding] = field(default_factory=dict)
    ops: dict[int, OpInfo] = field(default_factory=dict)
    calls: dict[int, "Instance"] = field(default_factory=dict)
    bindings: list[Binding] = field(default_factory=list)
    decls: dict[int, Binding] = field(default_factory=dict)   # id(Let/Var/For/Param) -> Binding
    ret_type: Type | None = None


@dataclass(eq=False)
class KernelInfo:
    kernel: A.Kernel
    instance: Instance
    threads: int = DEFAULT_THREADS
    min_blocks: int | None = None
    max_regs: int | None = None
    aligned: dict[str, int] = field(default_factory=dict)
    constants: dict[str, object] = field(default_factory=dict)
    extents: list[str] = field(default_factory=list)   # runtime extents, first appearance order
    params: list[Binding] = field(default_factory=list)


@dataclass(eq=False)
class ProgramInfo:
    kernels: list[KernelInfo] = field(default_factory=list)
    functions: dict[str, A.Function] = field(default_factory=dict)
    uncalled: list[Instance] = field(default_factory=list)


# ---------------------------------------------------------------- scopes


class Scope:
    __slots__ = ("names", "parent", "loop", "function_boundary")

    def __init__(self, parent: "Scope | None" = None, loop: bool = False, function_boundary: bool = False):
        self.names: dict[str, Binding] = {}
        self.parent = parent
        self.loop = loop
        self.function_boundary = function_boundary

    def lookup(self, name: str) -> Binding | None:
        s = self
        while s is not None:
            b = s.names.get(name)
            if b is not None:
                return b
            s = s.parent
        return None

    def in_loop(self) -> bool:
        s = self
        while s is not None and not s.function_boundary:
            if s.loop:
                return True
            s = s.parent
        return False


def _fmt_list(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


# ---------------------------------------------------------------- the checker


class Checker:
    def __init__(self, program: A.Program, defines: dict[str, object], diagnostics: list[Diagnostic]):
        self.program = program
        self.defines = defines
        self.diags = diagnostics
        self.uids = count(1)
        self.functions: dict[str, A.Function] = {}
        self.called: set[str] = set()
        self.bad_functions: set[str] = set()
        self.suggestions_left = 50          # "did you mean" runs difflib: only for the first few
        self.call_stack: list[str] = []
        self.inst: Instance | None = None
        self.scope: Scope | None = None
        self.fn_ret: Type | None = None       # declared return type of the function being checked
        self.in_function = False

    # ---- reporting
    def error(self, code, message, span, label=None, help=None, notes=None, severity=SEV_ERROR):
        self.diags.append(Diagnostic(code, message, span, severity=severity, label=label,
                                     help=help, notes=list(notes or ())))

    # ---- entry
    def run(self) -> ProgramInfo:
        info = ProgramInfo()
        if not self.program.items:
            self.error("PH009", "the file holds no kernel and no function", Span(1, 1, 1, 1),
                       help="a Phobos file declares at least one `kernel` or `fn`")
            return info
        seen_items: dict[str, Span] = {}
        for item in self.program.items:
            if item.name in RESERVED:
                self.error("PH103", f"`{item.name}` is reserved and cannot name a {self._item_word(item)}",
                           item.name_span, label="reserved name")
            elif item.name in seen_items:
                self.error("PH102", f"`{item.name}` is declared twice", item.name_span,
                           label="second declaration", notes=[f"first declared at {seen_items[item.name].line}:"
                                                              f"{seen_items[item.name].column}"])
                continue
            seen_items[item.name] = item.name_span
            if isinstance(item, A.Function):
                self.functions[item.name] = item
        info.functions = dict(self.functions)
        self.bad_functions = {name for name, fn in self.functions.items() if not self.signature_ok(fn)}
        for item in self.program.items:
            if isinstance(item, A.Kernel):
                info.kernels.append(self.check_kernel(item))
        for name, fn in self.functions.items():
            if name not in self.called:
                inst = self.check_function_alone(fn)
                info.uncalled.append(inst)
        return info

    def signature_ok(self, fn: A.Function) -> bool:
        """Check a function's parameter and return types once (their dims left symbolic)."""
        saved = (self.inst, self.scope)
        self.inst = Instance("function", fn.name, fn)
        self.scope = Scope(function_boundary=True)
        for name, value in self.defines.items():
            self.scope.names[name] = Binding(name, "const", I32, Span(1, 1, 1, 1), const_value=value)
        dims_env = {d.name: d.name for p in fn.params for d in p.type.dims if isinstance(d, A.DimName)}
        ok = True
        for p in fn.params:
            t = self.type_expr(p.type, allow_tensor=True, allow_tile=True, where="parameter", dims_env=dims_env)
            ok = ok and not isinstance(t, ErrorType)
        if fn.ret is not None:
            ok = ok and not isinstance(self.return_type(fn, dims_env), ErrorType)
        self.inst, self.scope = saved
        return ok

    @staticmethod
    def _item_word(item) -> str:
        return "kernel" if isinstance(item, A.Kernel) else "function"

    def new_binding(self, name, kind, type_, span, node=None, mutable=False, const_value=None,
                    buffer=None, declare=True) -> Binding:
        b = Binding(name, kind, type_, span, node, mutable, const_value, buffer, next(self.uids))
        if declare:
            self.declare(b)
        return b

    def declare(self, b: Binding) -> None:
        if b.name in RESERVED:
            what = ("a type name" if b.name in TYPE_WORDS else "reserved for the thread's context"
                    if b.name == "ctx" else "a built-in")
            self.error("PH103", f"`{b.name}` is {what} and cannot be declared", b.span,
                       label="reserved name", help=f"choose another name than `{b.name}`")
        prev = self.scope.names.get(b.name)
        if prev is not None:
            self.error("PH102", f"`{b.name}` is already declared in this block", b.span,
                       label="declared again here",
                       notes=[f"first declared at {prev.span.line}:{prev.span.column}"],
                       help="use another name, or assign to the existing one")
        self.scope.names[b.name] = b
        self.inst.bindings.append(b)
        if b.node is not None:
            self.inst.decls[id(b.node)] = b

    # ---- kernels
    def check_kernel(self, k: A.Kernel) -> KernelInfo:
        inst = Instance("kernel", k.name, k)
        kinfo = KernelInfo(k, inst)
        self.inst = inst
        self.scope = Scope(function_boundary=True)
        self.fn_ret = None
        self.in_function = False
        attrs = self.attributes(k, kinfo)
        # compile-time constants: -D bindings, then this kernel's @autotune names
        for name, value in self.defines.items():
            kinfo.constants[name] = value
        for name, (value, span) in attrs.autotune.items():
            if name not in self.defines:
                kinfo.constants[name] = value
        for name, value in kinfo.constants.items():
            span = attrs.autotune[name][1] if name in attrs.autotune else Span(1, 1, 1, 1)
            t = BOOL if isinstance(value, bool) else I32 if isinstance(value, int) else F32
            self.new_binding(name, "const", t, span, const_value=value)
        self.params(k.params, kinfo, kernel=True)
        self.launch_settings(attrs, kinfo)
        self.check_aligned(attrs, kinfo)
        self.block_body(k.body.stmts)
        return kinfo

    def params(self, params, kinfo: KernelInfo | None, kernel: bool) -> list[Binding]:
        out = []
        for p in params:
            t = self.type_expr(p.type, allow_tensor=True, allow_tile=not kernel, where="parameter")
            if isinstance(t, Tensor):
                for d, dexpr in zip(t.shape, p.type.dims):
                    if isinstance(d, str):
                        self.extent(d, dexpr.span, kinfo)
            b = self.new_binding(p.name, "param", t, p.span, node=p,
                                 buffer=p.name if isinstance(t, (Tensor, Tile)) else None)
            out.append(b)
            if kinfo is not None:
                kinfo.params.append(b)
        return out

    def extent(self, name: str, span: Span, kinfo: KernelInfo | None) -> None:
        """A name in a tensor parameter's dims: a runtime extent (an i32 value), once."""
        existing = self.scope.names.get(name)
        if existing is not None:
            if existing.kind not in ("extent", "const"):
                self.error("PH102", f"`{name}` is both a parameter and a tensor extent", span,
                           label="used as an extent here")
            return
        self.new_binding(name, "extent", I32, span)
        if kinfo is not None:
            kinfo.extents.append(name)

    # ---- types written in the source
    def type_expr(self, t: A.TypeExpr, allow_tensor: bool, allow_tile: bool, where: str,
                  dims_env: dict | None = None) -> Type:
        elem = SCALARS.get(t.elem)
        if t.kind == "scalar":
            if elem is not None:
                return elem
            if t.elem in ("tensor", "tile"):
                self.error("PH118", f"`{t.elem}` needs an element type and a shape", t.span,
                           help=f"write `{t.elem}<f32>[R, C]`")
            elif t.elem == "run":
                self.error("PH118", "run types are inferred and are never written", t.span)
            else:
                self.error("PH118", f"unknown type `{t.elem}`", t.span,
                           help=f"the scalar types are {', '.join(SCALARS)}")
            return ERROR
        if t.kind not in ("tensor", "tile"):
            self.error("PH118", f"unknown type `{t.kind}<..>`", t.span,
                       help="shaped types are `tensor<T>[..]` and `tile<T>[..]`")
            return ERROR
        if elem is None:
            self.error("PH118", f"unknown element type `{t.elem}`", t.elem_span,
                       help=f"the scalar types are {', '.join(SCALARS)}")
            return ERROR
        if not 1 <= len(t.dims) <= 2:
            self.error("PH118", f"a {t.kind} has rank 1 or 2, not {len(t.dims)}", t.span)
            return ERROR
        if t.kind == "tensor" and not allow_tensor:
            self.error("PH118", f"a tensor cannot be declared as a {where}", t.span,
                       help="tensors are kernel and function parameters only (global memory)")
            return ERROR
        if t.kind == "tile" and not allow_tile:
            self.error("PH118", f"a kernel cannot take a tile parameter", t.span,
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
            if d.value <= 0 or d.value > (1 << 31) - 1:
                self.error("PH118", f"a dimension must be a positive i32, not {d.value}", d.span)
                return ERROR
            return d.value
        if dims_env is not None and d.name in dims_env:
            return dims_env[d.name]
        b = self.scope.lookup(d.name)
        if b is not None and b.kind == "const":
            if not isinstance(b.const_value, int) or isinstance(b.const_value, bool) or b.const_value <= 0:
                self.error("PH107", f"`{d.name}` = {b.const_value} is not a positive integer dimension",
                           d.span)
                return ERROR
            return b.const_value
        if kind == "tile":
            if b is not None and b.kind in ("function-dim",) and isinstance(b.const_value, int):
                return b.const_value
            self.error("PH107", f"tile dimension `{d.name}` is not a compile-time constant", d.span,
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
                self.error("PH205", f"`@{a.name}` is given twice", a.span, label="second `@" + a.name + "`")
                continue
            seen[a.name] = a
            if a.name == "launch":
                attrs.launch = a
            elif a.name == "aligned":
                attrs.aligned.append(a)
            elif a.name == "autotune":
                self.autotune(a, attrs)
            else:
                self.error("PH204", f"attribute `@{a.name}` is not used by phobos-tools and is ignored",
                           a.span, severity=NOTE)
        return attrs

    def autotune(self, a: A.Attribute, attrs) -> None:
        if not a.args:
            self.error("PH203", "`@autotune` needs at least one `NAME in [values]`", a.span)
        for arg in a.args:
            if arg.choices is None or arg.name is None:
                self.error("PH203", "`@autotune` arguments have the form `NAME in [v1, v2, ..]`", arg.span)
                continue
            if arg.name in RESERVED:
                self.error("PH103", f"`{arg.name}` is reserved and cannot be an `@autotune` name", arg.span)
                continue
            if arg.name in attrs.autotune:
                self.error("PH203", f"`{arg.name}` is listed twice in `@autotune`", arg.span)
                continue
            if arg.name in self.defines:
                value = self.defines[arg.name]
            else:
                value = arg.choices[0].value
            attrs.autotune[arg.name] = (value, arg.span)

    def attr_int(self, v, code: str, what: str) -> int | None:
        """An attribute value that must be an integer: a literal or a constant name."""
        if isinstance(v, A.IntLit):
            return v.value
        if isinstance(v, A.Name):
            b = self.scope.lookup(v.id)
            if b is not None and b.kind == "const" and isinstance(b.const_value, int) \
                    and not isinstance(b.const_value, bool):
                return b.const_value
            self.error(code, f"{what} must be an integer or a compile-time constant, and `{v.id}` is not one",
                       v.span, help="bind it with `-D NAME=VALUE` or `@autotune`")
            return None
        self.error(code, f"{what} must be an integer", v.span if v is not None else Span(1, 1, 1, 1))
        return None

    def launch_settings(self, attrs, kinfo: KernelInfo) -> None:
        a = attrs.launch
        if a is None:
            return
        args = a.args
        if not args or len(args) > 3 or any(x.name is not None or x.choices is not None for x in args):
            self.error("PH201", "`@launch` takes `(threads[, minBlocks[, maxRegs]])`", a.span)
            return
        threads = self.attr_int(args[0].value, "PH201", "the thread count")
        if threads is not None:
            if threads <= 0 or threads % 32 or threads > 1024:
                self.error("PH201", f"the thread count must be a multiple of 32 between 32 and 1024, not {threads}",
                           args[0].span, label="invalid thread count")
            else:
                kinfo.threads = threads
        if len(args) > 1:
            mb = self.attr_int(args[1].value, "PH201", "minBlocks")
            if mb is not None and mb < 1:
                self.error("PH201", f"minBlocks must be at least 1, not {mb}", args[1].span)
            elif mb is not None:
                kinfo.min_blocks = mb
        if len(args) > 2:
            mr = self.attr_int(args[2].value, "PH201", "maxRegs")
            if mr is not None and not 16 <= mr <= 255:
                self.error("PH201", f"maxRegs must be between 16 and 255, not {mr}", args[2].span)
            elif mr is not None:
                kinfo.max_regs = mr

    def check_aligned(self, attrs, kinfo: KernelInfo) -> None:
        for a in attrs.aligned:
            if not a.args:
                self.error("PH202", "`@aligned` needs `EXTENT = n` arguments", a.span)
            for arg in a.args:
                if arg.name is None or arg.choices is not None:
                    self.error("PH202", "`@aligned` arguments have the form `EXTENT = n`", arg.span)
                    continue
                n = self.attr_int(arg.value, "PH202", "the alignment")
                if n is None:
                    continue
                if n <= 0:
                    self.error("PH202", f"the alignment must be positive, not {n}", arg.value.span)
                    continue
                b = self.scope.names.get(arg.name)
                if b is None or b.kind not in ("extent", "const"):
                    self.error("PH202", f"`{arg.name}` is not an extent of this kernel's tensors",
                               arg.span, help="`@aligned` promises something about a tensor dimension name")
                    continue
                if b.kind == "const" and isinstance(b.const_value, int) and b.const_value % n:
                    self.error("PH202", f"`{arg.name}` = {b.const_value} is not a multiple of {n}", arg.span)
                    continue
                if arg.name in kinfo.aligned:
                    self.error("PH205", f"`{arg.name}` is aligned twice", arg.span)
                    continue
                kinfo.aligned[arg.name] = n

    # ---- functions
    def check_function_alone(self, fn: A.Function) -> Instance:
        """An uncalled function: parsed and type-checked only, its dims left symbolic."""
        saved = (self.inst, self.scope, self.fn_ret, self.in_function)
        inst = Instance("function", fn.name, fn)
        self.inst = inst
        self.scope = Scope(function_boundary=True)
        self.in_function = True
        for name, value in self.defines.items():
            t = BOOL if isinstance(value, bool) else I32 if isinstance(value, int) else F32
            self.new_binding(name, "const", t, Span(1, 1, 1, 1), const_value=value)
        dims_env: dict = {}
        for p in fn.params:
            for d in p.type.dims:
                if isinstance(d, A.DimName) and d.name not in dims_env and self.scope.lookup(d.name) is None:
                    dims_env[d.name] = d.name
                    self.new_binding(d.name, "function-dim", I32, d.span)
        self.function_params_alone(fn, dims_env)
        self.fn_ret = self.return_type(fn, dims_env)
        inst.ret_type = self.fn_ret
        self.call_stack.append(fn.name)
        self.block_body(fn.body.stmts)
        self.call_stack.pop()
        self.check_returns(fn)
        self.inst, self.scope, self.fn_ret, self.in_function = saved
        return inst

    def function_params_alone(self, fn, dims_env) -> None:
        for p in fn.params:
            t = self.type_expr(p.type, allow_tensor=True, allow_tile=True, where="parameter", dims_env=dims_env)
            if isinstance(t, Tile):
                t = Tile(t.elem, t.shape, p.name)
            self.new_binding(p.name, "param", t, p.span, node=p,
                             buffer=p.name if isinstance(t, (Tensor, Tile)) else None)

    def return_type(self, fn: A.Function, dims_env) -> Type | None:
        if fn.ret is None:
            return None
        t = self.type_expr(fn.ret, allow_tensor=False, allow_tile=True, where="return type", dims_env=dims_env)
        if isinstance(t, Tensor):
            self.error("PH118", "a function cannot return a tensor", fn.ret.span)
            return ERROR
        return t

    def check_returns(self, fn: A.Function) -> None:
        if fn.ret is not None and not _always_returns(fn.body):
            self.error("PH114", f"`{fn.name}` may reach its end without returning a value",
                       Span(fn.body.span.end_line, max(1, fn.body.span.end_column - 1),
                            fn.body.span.end_line, fn.body.span.end_column),
                       label="the function can end here",
                       help=f"end every path with `return` of a {fn.ret.elem if fn.ret.kind == 'scalar' else 'tile'}")

    def inline_call(self, call: A.Call, fn: A.Function) -> Type:
        """Check ``fn``'s body for this call: parameters bound to the arguments, dims to their
        shapes. The result is the function's return type at this call."""
        if fn.name in self.call_stack:
            self.error("PH113", f"`{fn.name}` calls itself (through {' -> '.join(self.call_stack + [fn.name])})",
                       call.span, label="recursive call",
                       help="functions are inlined at every call, so they cannot recurse")
            return ERROR
        if len(self.call_stack) >= MAX_INLINE_DEPTH:
            self.error("PH113", f"functions nested more than {MAX_INLINE_DEPTH} calls deep", call.span)
            return ERROR
        if fn.name in self.bad_functions:          # its signature is already reported
            for a in call.args:
                self.expr(a)
            return ERROR
        if len(call.args) != len(fn.params):
            self.error("PH109", f"`{fn.name}` takes {len(fn.params)} argument{'s' if len(fn.params) != 1 else ''}, "
                       f"not {len(call.args)}", call.span)
            for a in call.args:
                self.expr(a)
            return ERROR
        self.called.add(fn.name)
        arg_types = [self.expr(a) for a in call.args]
        # bind dims from the arguments' shapes
        dims_env: dict = {}
        ok = True
        for p, a, at in zip(fn.params, call.args, arg_types):
            if isinstance(at, ErrorType):
                ok = False
                continue
            if p.type.kind == "scalar":
                pt = SCALARS.get(p.type.elem)
                if pt is None:
                    ok = False
                    continue
                if not isinstance(at, Scalar):
                    self.error("PH109", f"parameter `{p.name}` of `{fn.name}` is a {pt}, not a {_describe(at)}",
                               a.span, label=f"a {_describe(at)}")
                    ok = False
                elif not assignable(at, pt):
                    self.error("PH105", f"parameter `{p.name}` of `{fn.name}` is {pt}, but the argument is {at}",
                               a.span, label=f"{at}", help=f"convert it: `{pt}({source_of(a)})`")
                    ok = False
                else:
                    self.settle_expr(a, pt)
                continue
            # tensor or tile parameter: the argument's shape binds the dims
            want_kind = p.type.kind
            if want_kind == "tensor" and not (isinstance(at, Tensor) or (isinstance(at, Tile) and at.buffer)):
                self.error("PH109", f"parameter `{p.name}` of `{fn.name}` is a tensor, not a {_describe(at)}",
                           a.span)
                ok = False
                continue
            if want_kind == "tile" and not isinstance(at, Tile):
                self.error("PH109", f"parameter `{p.name}` of `{fn.name}` is a tile, not a {_describe(at)}", a.span)
                ok = False
                continue
            if p.type.elem != at.elem.name:
                self.error("PH105", f"parameter `{p.name}` of `{fn.name}` holds {p.type.elem}, "
                           f"but the argument holds {at.elem}", a.span)
                ok = False
                continue
            if len(p.type.dims) != len(at.shape):
                self.error("PH106", f"parameter `{p.name}` of `{fn.name}` has rank {len(p.type.dims)}, "
                           f"the argument rank {len(at.shape)}", a.span)
                ok = False
                continue
            for d, actual in zip(p.type.dims, at.shape):
                if isinstance(d, A.DimInt):
                    if d.value != actual:
                        self.error("PH106", f"parameter `{p.name}` of `{fn.name}` wants extent {d.value}, "
                                   f"the argument has {actual}", a.span)
                        ok = False
                elif d.name in dims_env and dims_env[d.name] != actual:
                    self.error("PH106", f"`{d.name}` is bound to {dims_env[d.name]} by an earlier argument, "
                               f"but this one has {actual}", a.span)
                    ok = False
                else:
                    dims_env[d.name] = actual
        if not ok:
            return ERROR

        # the memory behind each tensor/tile argument, looked up in the caller's instance
        arg_buffers = [at.buffer if isinstance(at, Tile) and at.buffer else self._buffer_of(a)
                       for a, at in zip(call.args, arg_types)]
        saved = (self.inst, self.scope, self.fn_ret, self.in_function)
        inst = Instance("function", fn.name, fn, call_span=call.span, call_node=call, parent=self.inst)
        self.inst.calls[id(call)] = inst
        self.inst = inst
        self.scope = Scope(function_boundary=True)
        self.in_function = True
        for name, value in self.defines.items():
            t = BOOL if isinstance(value, bool) else I32 if isinstance(value, int) else F32
            self.new_binding(name, "const", t, Span(1, 1, 1, 1), const_value=value)
        for name, v in dims_env.items():
            if self.scope.names.get(name) is None:
                self.new_binding(name, "function-dim", I32, fn.span,
                                 const_value=v if isinstance(v, int) else None)
        for p, a, at, arg_buf in zip(fn.params, call.args, arg_types, arg_buffers):
            if p.type.kind == "scalar":
                t = SCALARS[p.type.elem]
                self.new_binding(p.name, "param", t, p.span, node=p)
            else:
                shape = tuple(dims_env.get(d.name, d.name) if isinstance(d, A.DimName) else d.value
                              for d in p.type.dims)
                buf = arg_buf or f"{p.name}#{next(self.uids)}"
                t = Tensor(at.elem, shape) if p.type.kind == "tensor" else Tile(at.elem, shape, buf)
                self.new_binding(p.name, "param", t, p.span, node=p, buffer=buf)
        self.fn_ret = self.return_type(fn, dims_env)
        inst.ret_type = self.fn_ret
        self.call_stack.append(fn.name)
        self.block_body(fn.body.stmts)
        self.call_stack.pop()
        self.check_returns(fn)
        ret = self.fn_ret
        self.inst, self.scope, self.fn_ret, self.in_function = saved
        if ret is None:
            return VOID
        if isinstance(ret, Tile):
            return Tile(ret.elem, ret.shape)
        return ret

    def _buffer_of(self, e) -> str | None:
        if isinstance(e, A.Name):
            b = self.inst.resolution.get(id(e))
            return b.buffer if b is not None else None
        if isinstance(e, A.Index):
            return self._buffer_of(e.base)
        return None

    # ---- statements
    def block_body(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def nested_block(self, block: A.Block, loop: bool = False) -> None:
        saved = self.scope
        self.scope = Scope(saved, loop=loop)
        self.block_body(block.stmts)
        self.scope = saved

    def stmt(self, s) -> None:
        method = getattr(self, "stmt_" + type(s).__name__)
        method(s)

    def stmt_Let(self, s: A.Let) -> None:
        declared = None
        if s.type is not None:
            declared = self.type_expr(s.type, allow_tensor=False, allow_tile=True, where="`let`")
        t = self.expr(s.value)
        kind = "let"
        buffer = None
        if isinstance(t, Tile):
            view = _is_view_source(s.value, self.inst)
            if view:
                kind = "view"
                buffer = t.buffer
                self.record_view(s, t)
            else:
                self.check_static_tile(t, s.value.span)
                buffer = f"{s.name}#{next(self.uids)}"
                self.tile_statement_op(s, s.value, "=", target_buffer=buffer)
            t = Tile(t.elem, t.shape, buffer)
        if declared is not None and not isinstance(declared, ErrorType) and not isinstance(t, ErrorType):
            t = self.coerce_decl(declared, t, s.value)
        elif isinstance(t, Scalar):
            t = self.settle_expr(s.value, settle(t))
        elif isinstance(t, Run):
            t = Run(settle(t.elem), t.n)
        if isinstance(t, (Scalar, Run)):
            self.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
        if isinstance(t, Tensor):
            self.error("PH118", "a `let` cannot hold a whole tensor", s.value.span,
                       help="slice it: `A[r :+ R, c :+ C]`")
            t = ERROR
        if isinstance(t, type(VOID)):
            self.error("PH105", f"`{source_of(s.value)}` gives no value", s.value.span)
            t = ERROR
        self.new_binding(s.name, kind, t, s.name_span, node=s, buffer=buffer)

    def stmt_Var(self, s: A.Var) -> None:
        declared = None
        if s.type is not None:
            declared = self.type_expr(s.type, allow_tensor=False, allow_tile=True, where="`var`")
        if s.value is None:
            t = declared if declared is not None else ERROR
            buffer = None
            if isinstance(t, Tile):
                buffer = f"{s.name}#{next(self.uids)}"
                t = Tile(t.elem, t.shape, buffer)
            self.new_binding(s.name, "var", t, s.name_span, node=s, mutable=True, buffer=buffer)
            return
        t = self.expr(s.value)
        buffer = None
        if declared is not None and not isinstance(declared, ErrorType) and not isinstance(t, ErrorType):
            t = self.coerce_decl(declared, t, s.value)
        if isinstance(t, Scalar):
            t = self.settle_expr(s.value, settle(t))
        elif isinstance(t, Run):
            t = Run(settle(t.elem), t.n)
        if isinstance(t, Tile):
            self.check_static_tile(t, s.value.span)
            buffer = f"{s.name}#{next(self.uids)}"
            t = Tile(t.elem, t.shape, buffer)
            self.tile_statement_op(s, s.value, "=", target_buffer=buffer)
        elif isinstance(t, (Scalar, Run)):
            self.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
        elif isinstance(t, Tensor):
            self.error("PH118", "a `var` cannot hold a whole tensor", s.value.span,
                       help="copy a slice of it into a tile: `var t = A[r :+ R, c :+ C]`")
            t = ERROR
        elif not isinstance(t, ErrorType):
            self.error("PH105", f"`{source_of(s.value)}` gives no value", s.value.span)
            t = ERROR
        self.new_binding(s.name, "var", t, s.name_span, node=s, mutable=True, buffer=buffer)

    def coerce_decl(self, declared: Type, t: Type, value) -> Type:
        """Check an initializer against a declared type; returns the binding's type."""
        if isinstance(declared, Scalar):
            if isinstance(t, Scalar):
                if assignable(t, declared):
                    self.settle_expr(value, declared)
                    return declared
                self.type_mismatch(declared, t, value)
                return declared
            self.error("PH105", f"expected a {declared} value, found a {_describe(t)}", value.span,
                       label=f"a {_describe(t)}")
            return declared
        if isinstance(declared, Tile):
            if isinstance(t, Scalar):          # a fill: the scalar broadcasts over the tile
                if not assignable(t, declared.elem):
                    self.type_mismatch(declared.elem, t, value)
                else:
                    self.settle_expr(value, declared.elem)
                return declared
            if isinstance(t, Tile):
                if t.elem != declared.elem and not assignable(t.elem, declared.elem):
                    self.error("PH105", f"a tile of {declared.elem} cannot be filled from a tile of {t.elem}",
                               value.span, help=f"convert it: `{declared.elem}({source_of(value)})`")
                elif not _broadcasts_to(t.shape, declared.shape):
                    self.error("PH106", f"shape {_shape(t.shape)} does not fit a tile of shape {_shape(declared.shape)}",
                               value.span, label=f"shape {_shape(t.shape)}")
                return declared
            self.error("PH105", f"expected a tile, found a {_describe(t)}", value.span)
            return declared
        return declared

    def type_mismatch(self, want: Scalar, got: Scalar, node) -> None:
        if got.is_weak and want.is_numeric and not assignable(got, want):
            self.error("PH105", f"a float literal cannot become {want}", node.span,
                       label="float literal", help=f"write an integer, or convert: `{want}({source_of(node)})`")
            return
        self.error("PH105", f"expected {want}, found {got}", node.span, label=f"this is {got}",
                   help=f"convert it: `{want}({source_of(node)})`" if want.is_numeric and got.is_numeric else None)

    def stmt_Assign(self, s: A.Assign) -> None:
        target = s.target
        op = s.op
        binop = op[:-1] if op != "=" else None
        if isinstance(target, A.Name):
            b = self.resolve(target)
            vt = self.expr(s.value)
            if b is None:
                return
            if not b.mutable:
                what = {"let": "a `let`", "view": "a `let` view", "param": "a parameter", "extent": "a tensor extent",
                        "const": "a constant", "loop": "a loop variable", "function-dim": "a dimension"}.get(b.kind, "it")
                help_ = ("declare it with `var` to assign to it" if b.kind == "let" else
                         "assign to a slice of it: `v[..] = ..`" if b.kind == "view" else None)
                self.error("PH115", f"cannot assign to `{b.name}`: it is {what}", target.span,
                           label="not assignable", help=help_)
                return
            tt = b.type
            self.inst.types[id(target)] = tt
            if isinstance(tt, ErrorType) or isinstance(vt, ErrorType):
                return
            if isinstance(tt, Tile):
                self.assign_tile(s, tt, vt, binop)
                return
            if isinstance(tt, Run):
                rt = self.binop_type(binop, tt, vt, s) if binop else vt
                if isinstance(rt, ErrorType):
                    return
                if not (isinstance(rt, Run) and rt.n == tt.n and assignable(rt.elem, tt.elem)) and \
                        not (isinstance(rt, Scalar) and assignable(rt, tt.elem)):
                    self.error("PH105", f"cannot assign a {_describe(rt)} to `{b.name}`, a {tt}", s.value.span)
                self.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
                return
            if isinstance(tt, Scalar):
                rt = self.binop_type(binop, tt, vt, s) if binop else vt
                if isinstance(rt, ErrorType):
                    return
                if not isinstance(rt, Scalar):
                    self.error("PH105", f"`{b.name}` is {tt}, but the value is a {_describe(rt)}", s.value.span)
                elif not assignable(rt, tt):
                    self.type_mismatch(tt, rt, s.value)
                else:
                    self.settle_expr(s.value, tt if not binop else settle(rt) if rt.is_weak else rt)
                self.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
                return
            self.error("PH115", f"cannot assign to `{b.name}`, a {_describe(tt)}", target.span,
                       help="assign to a slice or an element: `A[i, j] = ..`")
            return
        if isinstance(target, A.Index):
            self.assign_index(s, target, binop)
            return
        self.expr(s.value)
        self.error("PH115", "the left side of an assignment must be a name or a subscript", target.span,
                   label="not assignable")

    def assign_index(self, s: A.Assign, target: A.Index, binop: str | None) -> None:
        base = target.base
        if not isinstance(base, A.Name):
            self.expr(s.value)
            self.error("PH115", "only a named tensor, tile or run can be assigned through a subscript",
                       target.span)
            return
        b = self.resolve(base)
        if b is None:
            self.expr(s.value)
            return
        bt = b.type
        # r[k] = e on a run var
        if isinstance(bt, Run):
            vt = self.expr(s.value)
            if not b.mutable:
                self.error("PH115", f"cannot assign to an element of `{b.name}`: it is a `let`", target.span,
                           help="declare the run with `var`")
                return
            et = self.run_element(target, bt)
            if isinstance(et, ErrorType) or isinstance(vt, ErrorType):
                return
            rt = self.binop_type(binop, et, vt, s) if binop else vt
            if isinstance(rt, Scalar) and assignable(rt, bt.elem):
                self.settle_expr(s.value, bt.elem)
            elif not isinstance(rt, ErrorType):
                self.error("PH105", f"an element of `{b.name}` is {bt.elem}, not {_describe(rt)}", s.value.span)
            self.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, ASSIGN, s.span)
            return
        tt = self.expr(target, store=True)
        vt = self.expr(s.value)
        if isinstance(tt, ErrorType) or isinstance(vt, ErrorType):
            return
        if isinstance(tt, Scalar):                       # a point store (per thread)
            rt = self.binop_type(binop, tt, vt, s) if binop else vt
            if isinstance(rt, ErrorType):
                return
            if not isinstance(rt, Scalar):
                self.error("PH105", f"`{source_of(target)}` is one {tt} element, but the value is a {_describe(rt)}",
                           s.value.span,
                           help="store a run with `store(A[i, j :+ n], e)`" if isinstance(rt, Run) else None)
                return
            if not assignable(rt, tt):
                self.type_mismatch(tt, rt, s.value)
                return
            self.settle_expr(s.value, tt)
            self.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, STORE, s.span,
                                          operands=[x.index for x in target.subs] + [s.value],
                                          writes=[b.buffer or b.name])
            return
        if isinstance(tt, Tile):
            self.assign_tile(s, tt, vt, binop)
            return

    def assign_tile(self, s: A.Assign, tt: Tile, vt: Type, binop: str | None) -> None:
        """A CTA-wide write: a copy, a fill or a sweep into a tile or slice."""
        if binop:
            rt = self.binop_type(binop, tt, vt, s)
            if isinstance(rt, ErrorType):
                return
        else:
            rt = vt
        if isinstance(rt, Scalar):
            if not assignable(rt, tt.elem):
                self.type_mismatch(tt.elem, rt, s.value)
                return
            self.settle_expr(s.value, tt.elem)
        elif isinstance(rt, Tile):
            if rt.elem != tt.elem and not assignable(rt.elem, tt.elem):
                self.error("PH105", f"cannot store a tile of {rt.elem} into a tile of {tt.elem}", s.value.span,
                           help=f"convert it: `{tt.elem}({source_of(s.value)})`")
                return
            if not _broadcasts_to(rt.shape, tt.shape):
                self.error("PH106", f"shape {_shape(rt.shape)} does not fit the target's shape {_shape(tt.shape)}",
                           s.value.span, label=f"shape {_shape(rt.shape)}")
                return
            symbolic = not (tt.static and rt.static)
            if symbolic and not (self._is_tensor_slice(s.target) and self._is_tensor_slice(s.value) and not binop):
                self.error("PH107", "a slice over a runtime extent can only be copied from a tensor to a tensor",
                           s.span, help="give the span a constant length (`A[r :+ 32, :]` -> `A[r :+ 32, c :+ 64]`)")
                return
        else:
            self.error("PH105", f"a tile cannot be assigned a {_describe(rt)}", s.value.span)
            return
        self.tile_statement_op(s, s.value, s.op, target_buffer=tt.buffer, target=s.target)

    def _is_tensor_slice(self, e) -> bool:
        if isinstance(e, A.Index) and isinstance(e.base, A.Name) and not e.is_point:
            b = self.inst.resolution.get(id(e.base))
            return b is not None and isinstance(b.type, Tensor)
        return False

    def tile_statement_op(self, s, value, op: str, target_buffer: str | None, target=None) -> None:
        """Record the CTA-wide operation a tile-valued statement compiles to."""
        if op == "=" and _is_plain_tile(value, self.inst):
            name = "tile copy"
        elif op == "=" and isinstance(value, A.Call) and value.func in TILE_BUILTINS and value.func != "tmax":
            name = value.func
        else:
            name = "elementwise sweep"
        names: dict = {}
        reads = _tile_reads(value, self.inst, names)
        if op != "=" and target_buffer:
            reads.append(target_buffer)
            target_name = target.base if isinstance(target, A.Index) else target
            if isinstance(target_name, A.Name):
                names.setdefault(target_buffer, target_name.id)
        operands = _broadcast_scalars(value, self.inst)
        self.inst.ops[id(s)] = OpInfo(OpClass.CTA_WIDE, name, s.span, operands=operands, reads=reads,
                                      writes=[target_buffer] if target_buffer else [], read_names=names)

    def record_view(self, s: A.Let, t: Tile) -> None:
        self.inst.ops[id(s)] = OpInfo(OpClass.VIEW, "slice", s.span, reads=[])

    def check_static_tile(self, t: Tile, span: Span) -> None:
        if not t.static:
            self.error("PH107", f"a tile needs a static shape, and {_shape(t.shape)} is not", span,
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
        t = self.expr(cond)
        if isinstance(t, ErrorType):
            return
        if t != BOOL:
            self.error("PH105", f"the condition of {what} must be a bool, not {_describe(t)}", cond.span,
                       label=f"a {_describe(t)}",
                       help=f"compare it: `{source_of(cond)} != 0`" if isinstance(t, Scalar) and t.is_numeric else None)

    def stmt_For(self, s: A.For) -> None:
        if s.range_name != "range":
            self.error("PH119", f"a `for` loop runs over `range(lo, hi[, step])`, not `{s.range_name}`",
                       s.range_span, help="write `for i in range(lo, hi)`")
        if not 2 <= len(s.args) <= 3:
            self.error("PH119", f"`range` takes 2 or 3 arguments (lo, hi[, step]), not {len(s.args)}", s.range_span)
        bound_types = []
        for a in s.args:
            t = self.expr(a)
            if isinstance(t, ErrorType):
                bound_types.append(ERROR)
                continue
            if not (isinstance(t, Scalar) and t.is_int):
                self.error("PH105", f"loop bounds are integers, not {_describe(t)}", a.span, label=_describe(t))
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
                self.settle_expr(a, lt)
        if len(s.args) == 3:
            step = self.const_int(s.args[2])
            if step is not None and step <= 0:
                self.error("PH119", f"the step of a `for` loop must be positive, not {step}", s.args[2].span)
        if s.unroll is not None:
            if s.unroll_word != "unroll":
                self.error("PH119", f"expected `unroll`, found `{s.unroll_word}`", s.span)
            n = self.const_int(s.unroll)
            if n is None:
                self.error("PH107", "the unroll factor must be a compile-time constant", s.unroll.span)
            elif n < 1:
                self.error("PH119", f"the unroll factor must be at least 1, not {n}", s.unroll.span)
        saved = self.scope
        self.scope = Scope(saved, loop=True)
        self.new_binding(s.var, "loop", lt, s.var_span, node=s)
        self.nested_block(s.body, loop=False)
        self.scope = saved

    def stmt_Break(self, s: A.Break) -> None:
        self.jump(s, "break")

    def stmt_Continue(self, s: A.Continue) -> None:
        self.jump(s, "continue")

    def jump(self, s, word: str) -> None:
        if not self.scope.in_loop():
            if self.in_function:
                self.error("PH114", f"`{word}` outside a loop of this function", s.span,
                           label=f"no loop to {word}", help=f"`{word}` cannot leave a function")
            else:
                self.error("PH114", f"`{word}` outside a loop", s.span, label=f"no loop to {word}")
            return
        self.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, word, s.span)

    def stmt_Return(self, s: A.Return) -> None:
        self.inst.ops[id(s)] = OpInfo(OpClass.PER_THREAD, "return", s.span)
        if not self.in_function:
            if s.value is not None:
                self.expr(s.value)
                self.error("PH114", "a kernel returns no value", s.value.span, label="value not allowed",
                           help="write results to a tensor and `return` alone")
            return
        want = self.fn_ret
        if s.value is None:
            if want is not None and not isinstance(want, ErrorType):
                self.error("PH114", f"this function returns {_describe(want)}: `return` needs a value", s.span)
            return
        t = self.expr(s.value)
        if want is None:
            self.error("PH114", "this function declares no result: `return` takes no value", s.value.span,
                       help="add `-> T` to the function's header")
            return
        if isinstance(t, ErrorType) or isinstance(want, ErrorType):
            return
        if isinstance(want, Scalar):
            if isinstance(t, Scalar) and assignable(t, want):
                self.settle_expr(s.value, want)
            elif isinstance(t, Scalar):
                self.type_mismatch(want, t, s.value)
            else:
                self.error("PH105", f"the function returns {want}, not a {_describe(t)}", s.value.span)
        elif isinstance(want, Tile):
            if not isinstance(t, Tile):
                self.error("PH105", f"the function returns a {want}, not a {_describe(t)}", s.value.span)
            elif t.elem != want.elem or not _broadcasts_to(t.shape, want.shape) or t.shape != want.shape:
                self.error("PH106", f"the function returns {want}, not {t}", s.value.span)

    def stmt_ExprStmt(self, s: A.ExprStmt) -> None:
        e = s.expr
        if not isinstance(e, (A.Call, A.GenericCall)):
            self.expr(e)
            self.error("PH116", "this expression does nothing: only a call can stand as a statement", e.span,
                       label="value unused", help="assign it (`let x = ..`) or remove it")
            return
        self.expr(e)

    # ---- names
    def resolve(self, n: A.Name) -> Binding | None:
        b = self.scope.lookup(n.id)
        if b is None:
            if n.id == "ctx":
                self.error("PH108", "`ctx` alone is not a value", n.span,
                           help="use a field: `ctx.thread`, `ctx.lane`, `ctx.block.x`, ...")
            elif n.id in self.functions or n.id in BUILTINS:
                self.error("PH101", f"`{n.id}` is a function: call it", n.span)
            else:
                hint = None
                if self.suggestions_left > 0:
                    self.suggestions_left -= 1
                    hint = _did_you_mean(n.id, self.scope)
                self.error("PH101", f"`{n.id}` is not declared", n.span, label="unknown name", help=hint)
            return None
        self.inst.resolution[id(n)] = b
        return b

    def const_int(self, e) -> int | None:
        f = affine(e, self.const_value, lambda node: None)
        return constant_of(f)

    def const_value(self, n: A.Name):
        b = self.scope.lookup(n.id)
        if b is None:
            return None
        if b.kind == "const":
            return b.const_value
        if b.kind == "function-dim" and isinstance(b.const_value, int):
            return b.const_value
        return None

    def atom_key(self, node):
        if isinstance(node, A.Name):
            b = self.scope.lookup(node.id)
            return None if b is None else ("b", b.uid)
        if isinstance(node, A.CtxPath):
            return ("ctx", node.path)
        return None

    # ---- expressions
    def expr(self, e, run_ctx: bool = False, store: bool = False) -> Type:
        method = getattr(self, "e_" + type(e).__name__)
        t = method(e, run_ctx) if not store else method(e, run_ctx, store=True)
        self.inst.types[id(e)] = t
        return t

    def settle_expr(self, e, t: Scalar) -> Scalar:
        """Give the weak (literal) parts of ``e`` their final type ``t`` and check literal ranges."""
        stack = [e]
        types = self.inst.types
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
                    self.error("PH104", f"literal {shown} does not fit in {target}", node.span,
                               label="out of range")
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
        rt = self.inst.types.get(id(rhs))
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
                self.error("PH108", f"`{e.text}` alone is not a value", e.span,
                           help=f"use `{e.text}.x`, `{e.text}.y` or `{e.text}.z`")
            else:
                self.error("PH108", f"`{e.text}` is not a `ctx` field", e.span, label="unknown field",
                           help="the fields are block.x/y/z, blocks.x/y/z, threads, warps, lanes, thread, warp, lane")
            return ERROR
        return I32

    def e_Member(self, e: A.Member, run_ctx) -> Type:
        self.expr(e.value)
        self.error("PH108", f"only `ctx` has fields; `.{e.attr}` cannot follow `{source_of(e.value)}`", e.span)
        return ERROR

    def e_Unary(self, e: A.Unary, run_ctx) -> Type:
        t = self.expr(e.operand, run_ctx)
        if isinstance(t, ErrorType):
            return ERROR
        el = t.elem if isinstance(t, (Tile, Run)) else t
        if not isinstance(el, Scalar):
            self.error("PH117", f"`{e.op}` cannot apply to a {_describe(t)}", e.span)
            return ERROR
        if e.op == "-":
            if not el.is_numeric:
                self.error("PH117", f"`-` needs a number, not {el}", e.operand.span)
                return ERROR
            if isinstance(t, Scalar):
                return promote_int(t)
            return _with_elem(t, promote_int(el))
        if not isinstance(t, Scalar):
            self.error("PH117", f"`{e.op}` works on scalars only, not on a {_describe(t)}", e.span)
            return ERROR
        if e.op == "!":
            if t != BOOL:
                self.error("PH117", f"`!` needs a bool, not {t}", e.operand.span,
                           help="for integers, `~` is the bitwise complement")
                return ERROR
            return BOOL
        if not t.is_int:
            self.error("PH117", f"`~` needs an integer, not {t}", e.operand.span)
            return ERROR
        return promote_int(t)

    def binop_type(self, op: str, lt: Type, rt: Type, node) -> Type:
        """The type of ``lhs op rhs`` (also used for compound assignment)."""
        span = node.span
        if isinstance(lt, ErrorType) or isinstance(rt, ErrorType):
            return ERROR
        for t in (lt, rt):
            if isinstance(t, (Tensor,)) or t == VOID or isinstance(t, type(VOID)):
                self.error("PH117", f"`{op}` cannot apply to a {_describe(t)}", span,
                           help="slice the tensor (`A[r :+ R, c :+ C]`) or read one element (`A[i, j]`)"
                           if isinstance(t, Tensor) else None)
                return ERROR
        le = lt.elem if isinstance(lt, (Tile, Run)) else lt
        re_ = rt.elem if isinstance(rt, (Tile, Run)) else rt
        scalar_only = op in ("&&", "||", "&", "|", "^", "<<", ">>")
        if scalar_only and not (isinstance(lt, Scalar) and isinstance(rt, Scalar)):
            self.error("PH117", f"`{op}` works on scalars only", span,
                       help="use `where` for elementwise selection" if op in ("&&", "||") else None)
            return ERROR
        if op in ("&&", "||"):
            if lt != BOOL or rt != BOOL:
                bad = node.lhs if lt != BOOL else node.rhs
                self.error("PH117", f"`{op}` needs bools, not {lt if lt != BOOL else rt}", bad.span,
                           help=f"compare it: `{source_of(bad)} != 0`")
                return ERROR
            return BOOL
        if op in ("&", "|", "^", "<<", ">>", "%"):
            if not (le.is_int and re_.is_int):
                self.error("PH117", f"`{op}` needs integers, not {le} and {re_}", span)
                return ERROR
        if op in ("==", "!=") and le == BOOL and re_ == BOOL:
            joined = BOOL
        else:
            if not (le.is_numeric and re_.is_numeric):
                bad = le if not le.is_numeric else re_
                self.error("PH117", f"`{op}` needs numbers, not {bad}", span)
                return ERROR
            if op in ("<<", ">>"):
                joined = promote_int(le) if not le.is_weak else le
            else:
                joined = arith_join(le, re_)
            if joined is None:
                self.error("PH117", f"`{op}` cannot combine {le} and {re_}", span)
                return ERROR
        result_elem = BOOL if op in ("==", "!=", "<", "<=", ">", ">=") else joined
        # shapes: scalar with anything broadcasts; runs of equal length; tiles broadcast (NumPy)
        if isinstance(lt, Scalar) and isinstance(rt, Scalar):
            if joined is not None and not joined.is_weak and joined != BOOL:
                if isinstance(node, A.Binary):
                    if (self.inst.types.get(id(node.lhs)) or lt).is_weak if isinstance(self.inst.types.get(id(node.lhs)), Scalar) else False:
                        self.settle_expr(node.lhs, joined)
                    if isinstance(self.inst.types.get(id(node.rhs)), Scalar) and self.inst.types[id(node.rhs)].is_weak:
                        self.settle_expr(node.rhs, joined if op not in ("<<", ">>") else I32)
            elif result_elem == BOOL and joined is not None and joined.is_weak and isinstance(node, A.Binary):
                self.settle_expr(node.lhs, settle(joined))
                self.settle_expr(node.rhs, settle(joined))
            return result_elem
        if isinstance(lt, Run) or isinstance(rt, Run):
            if isinstance(lt, Tile) or isinstance(rt, Tile):
                self.error("PH106", "a run and a tile cannot combine", span,
                           help="a run is one thread's few elements; a tile is the CTA's")
                return ERROR
            if isinstance(lt, Run) and isinstance(rt, Run) and lt.n != rt.n:
                self.error("PH106", f"runs of different lengths ({lt.n} and {rt.n}) cannot combine", span)
                return ERROR
            n = lt.n if isinstance(lt, Run) else rt.n
            return Run(settle(result_elem) if result_elem.is_weak else result_elem, n)
        # at least one tile
        lshape = lt.shape if isinstance(lt, Tile) else ()
        rshape = rt.shape if isinstance(rt, Tile) else ()
        shape = _broadcast(lshape, rshape)
        if shape is None:
            self.error("PH106", f"shapes {_shape(lshape)} and {_shape(rshape)} do not broadcast", span,
                       help="extents must match, or be 1 on one side")
            return ERROR
        return Tile(settle(result_elem) if result_elem.is_weak else result_elem, shape)

    def e_Binary(self, e: A.Binary, run_ctx) -> Type:
        lt = self.expr(e.lhs, run_ctx)
        rt = self.expr(e.rhs, run_ctx)
        return self.binop_type(e.op, lt, rt, e)

    def e_Index(self, e: A.Index, run_ctx, store=False) -> Type:
        base = e.base
        if not isinstance(base, A.Name):
            self.expr(base)
            self.error("PH110", "only a named tensor, tile or run can be subscripted", e.span)
            return ERROR
        b = self.resolve(base)
        if b is None:
            for s in e.subs:
                self.subscript_exprs(s)
            return ERROR
        bt = b.type
        self.inst.types[id(base)] = bt
        if isinstance(bt, ErrorType):
            for s in e.subs:
                self.subscript_exprs(s)
            return ERROR
        if isinstance(bt, Run):
            return self.run_element(e, bt)
        if not isinstance(bt, (Tensor, Tile)):
            for s in e.subs:
                self.subscript_exprs(s)
            self.error("PH110", f"`{b.name}` is a {_describe(bt)} and cannot be subscripted", e.span)
            return ERROR
        if len(e.subs) != len(bt.shape):
            for s in e.subs:
                self.subscript_exprs(s)
            self.error("PH110", f"`{b.name}` has rank {len(bt.shape)}, but {len(e.subs)} subscript"
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
                self.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, LOAD, e.span, operands=operands,
                                              reads=[buffer])
            return bt.elem
        if run_ctx:
            if len(slice_axes) != 1:
                self.error("PH111", f"a run has exactly one slice axis, and this has {len(slice_axes)}", e.span,
                           help="make the other subscripts points: `A[i, j :+ 4]`")
                return ERROR
            n = slice_axes[0]
            if not isinstance(n, int) or not 2 <= n <= 16:
                self.error("PH111", f"a run's length must be a constant from 2 to 16, not {n}", e.span,
                           label="run length", help="use a tile for longer spans")
                return ERROR
            self.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, RUN_STORE if store else RUN_LOAD, e.span,
                                          operands=operands, reads=[] if store else [buffer],
                                          writes=[buffer] if store else [])
            return Run(bt.elem, n)
        self.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "slice", e.span, operands=operands,
                                      reads=[] if store else [buffer], writes=[buffer] if store else [])
        return Tile(bt.elem, tuple(slice_axes), buffer)

    def run_element(self, e: A.Index, rt: Run) -> Type:
        if len(e.subs) != 1 or not isinstance(e.subs[0], A.Point):
            for s in e.subs:
                self.subscript_exprs(s)
            self.error("PH110", "a run's element is read with one constant index: `r[k]`", e.span)
            return ERROR
        idx = e.subs[0].index
        self.expr(idx)
        k = self.const_int(idx)
        if k is None:
            self.error("PH110", "a run's element index must be a compile-time constant", idx.span,
                       help="runs live in registers, so the element must be known when compiling")
            return ERROR
        if not 0 <= k < rt.n:
            self.error("PH110", f"index {k} is outside the run's {rt.n} elements", idx.span)
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
            if n is None:
                self.error("PH107", f"the span length `{source_of(s.length)}` is not a compile-time constant",
                           s.length.span, help="use a literal, an `@autotune` name or a `-D` constant")
                return ERROR
            if n <= 0:
                self.error("PH110", f"a span's length must be positive, not {n}", s.length.span)
                return ERROR
            return n
        # Range
        if s.lo is not None and s.hi is None:
            self.index_expr(s.lo)
            self.error("PH110", f"open ends are not allowed: `{source_of(s.lo)}:` needs an end", s.span,
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
        if n is None:
            self.error("PH107", f"the length of `{_sub_text(s)}` does not fold to a compile-time constant", s.span,
                       help="the end minus the start must be constant, e.g. `A[k : k + 32]`")
            return ERROR
        if n <= 0:
            self.error("PH110", f"the range `{_sub_text(s)}` is empty or reversed (length {n})", s.span)
            return ERROR
        return n

    def index_expr(self, e) -> bool:
        t = self.expr(e)
        if isinstance(t, ErrorType):
            return False
        if not (isinstance(t, Scalar) and t.is_int):
            self.error("PH105", f"an index must be an integer, not {_describe(t)}", e.span, label=_describe(t),
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
            self.error("PH109", f"`{e.func}` is not a collective", e.head_span,
                       help=f"the collectives are {', '.join(f'`{o}<over ..>`' for o in COLLECTIVE_OPS)}")
            return ERROR
        over = e.param
        if not (isinstance(over, A.CtxPath) and over.path in (("lane",), ("thread",))):
            if not isinstance(over, A.CtxPath):
                self.expr(over)
            for a in e.args:
                self.expr(a)
            self.error("PH109", f"a collective folds over `ctx.lane` or `ctx.thread`, not `{source_of(over)}`",
                       over.span)
            return ERROR
        self.inst.types[id(over)] = I32
        if len(e.args) != 1:
            for a in e.args:
                self.expr(a)
            self.error("PH109", f"`{e.func}<over {over.text}>` takes one argument, not {len(e.args)}", e.span)
            return ERROR
        t = self.expr(e.args[0])
        if isinstance(t, ErrorType):
            return ERROR
        if not isinstance(t, Scalar):
            self.error("PH109", f"a collective folds one scalar per thread, not a {_describe(t)}", e.args[0].span,
                       help="fold the run first with `sum(..)`" if isinstance(t, Run) else
                       "use `rowsum`/`rowmax` on tiles" if isinstance(t, Tile) else None)
            return ERROR
        if e.func in ("any", "all"):
            if t != BOOL:
                self.error("PH105", f"`{e.func}<over ..>` folds bools, not {t}", e.args[0].span)
                return ERROR
            result = BOOL
        else:
            if not t.is_numeric:
                self.error("PH105", f"`{e.func}<over ..>` folds numbers, not {t}", e.args[0].span)
                return ERROR
            result = settle(promote_int(t))
            if t.is_weak:
                self.settle_expr(e.args[0], result)
        lane = over.path == ("lane",)
        self.inst.ops[id(e)] = OpInfo(OpClass.LANE_COLLECTIVE if lane else OpClass.CTA_COLLECTIVE,
                                      f"{e.func}<over {over.text}>", e.span, operands=[e.args[0]])
        return result

    def shuffle(self, e: A.GenericCall) -> Type:
        if e.func != "shfl":
            self.expr(e.param)
            for a in e.args:
                self.expr(a)
            self.error("PH109", f"`{e.func}<{e.mode} ..>` is not a call: only `shfl` takes a lane mode", e.head_span)
            return ERROR
        pt = self.expr(e.param)
        args_t = [self.expr(a) for a in e.args]
        if len(e.args) != 1:
            self.error("PH109", f"`shfl<{e.mode} ..>` takes one argument, not {len(e.args)}", e.span)
            return ERROR
        if isinstance(pt, ErrorType) or isinstance(args_t[0], ErrorType):
            return ERROR
        if not (isinstance(pt, Scalar) and pt.is_int):
            self.error("PH105", f"the lane operand of `shfl<{e.mode} ..>` is an i32, not {_describe(pt)}", e.param.span)
            return ERROR
        self.settle_expr(e.param, I32)
        vt = args_t[0]
        if not isinstance(vt, Scalar):
            self.error("PH109", f"`shfl` moves one scalar per lane, not a {_describe(vt)}", e.args[0].span)
            return ERROR
        vt = settle(vt)
        self.settle_expr(e.args[0], vt)
        self.inst.ops[id(e)] = OpInfo(OpClass.LANE_LEVEL, f"shfl<{e.mode} ..>", e.span, operands=[e.param, e.args[0]])
        return vt

    def e_Call(self, e: A.Call, run_ctx) -> Type:
        f = e.func
        if f in self.functions:
            t = self.inline_call(e, self.functions[f])
            self.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, CALL, e.span)
            return t
        handler = _CALLS.get(f)
        if f in SCALARS:
            return self.conversion(e, run_ctx)
        if handler is None:
            for a in e.args:
                self.expr(a)
            if f == "range":
                self.error("PH109", "`range` is only the iteration space of a `for` loop", e.func_span)
            elif f in TYPE_WORDS:
                self.error("PH109", f"`{f}` is a type, not a function", e.func_span)
            else:
                self.error("PH109", f"no function `{f}`", e.func_span, label="unknown function",
                           help=_did_you_mean_fn(f, self.functions))
            return ERROR
        return handler(self, e, run_ctx)

    def arity(self, e: A.Call, *counts: int) -> bool:
        if len(e.args) in counts:
            return True
        for a in e.args:
            self.expr(a)
        want = " or ".join(str(c) for c in counts)
        self.error("PH109", f"`{e.func}` takes {want} argument{'s' if counts != (1,) else ''}, not {len(e.args)}",
                   e.span)
        return False

    def conversion(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 1):
            return ERROR
        target = SCALARS[e.func]
        t = self.expr(e.args[0], run_ctx)
        if isinstance(t, ErrorType):
            return ERROR
        el = t.elem if isinstance(t, (Run, Tile)) else t
        if not isinstance(el, Scalar) or isinstance(t, Tensor):
            self.error("PH105", f"`{e.func}(..)` converts scalars, runs and tiles, not a {_describe(t)}", e.span)
            return ERROR
        if el.is_weak:
            self.settle_expr(e.args[0], settle(el))
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
        ts = [self.expr(a, run_ctx) for a in e.args]
        if any(isinstance(t, ErrorType) for t in ts):
            return ERROR
        if any(isinstance(t, Tile) for t in ts):
            if f not in TILE_MATH:
                hint = "use `tmax(a, b)` on tiles" if f == "max" else None
                self.error("PH109", f"`{f}` works on scalars and runs, not tiles", e.span, help=hint)
                return ERROR
            t = ts[0]
            if not t.elem.is_float:
                self.error("PH105", f"`{f}` needs floats, not a tile of {t.elem}", e.args[0].span)
                return ERROR
            self.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "elementwise sweep", e.span,
                                          reads=_tile_reads(e.args[0], self.inst))
            return t
        for t, a in zip(ts, e.args):
            if not isinstance(t, (Scalar, Run)):
                self.error("PH105", f"`{f}` works on numbers, not a {_describe(t)}", a.span)
                return ERROR
        if two:
            t = self.binop_type("+", ts[0], ts[1], e)
            if isinstance(t, ErrorType):
                return ERROR
        else:
            t = ts[0]
        el = t.elem if isinstance(t, Run) else t
        if f in ("exp", "log", "sqrt", "tanh", "round", "pow"):
            if el == INT_LIT:
                el = F32
            if not el.is_float:
                self.error("PH105", f"`{f}` needs a float, not {el}", e.span,
                           help=f"convert it: `{f}(f32(..))`")
                return ERROR
        elif f == "popcount":
            if not el.is_int:
                self.error("PH105", f"`popcount` needs an integer, not {el}", e.span)
                return ERROR
            el = I32
        else:  # abs, min, max
            if not el.is_numeric:
                self.error("PH105", f"`{f}` needs numbers, not {el}", e.span)
                return ERROR
            el = promote_int(el)
        if isinstance(t, Run):
            return Run(settle(el), t.n)
        if el.is_weak:
            return el
        for a in e.args:
            at = self.inst.types.get(id(a))
            if isinstance(at, Scalar) and at.is_weak:
                self.settle_expr(a, el if f != "popcount" else I32)
        return el

    def where(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 3):
            return ERROR
        ct, at, bt = (self.expr(a, run_ctx) for a in e.args)
        if any(isinstance(t, ErrorType) for t in (ct, at, bt)):
            return ERROR
        cel = ct.elem if isinstance(ct, (Run, Tile)) else ct
        if cel != BOOL:
            self.error("PH105", f"the condition of `where` must be bool, not {_describe(ct)}", e.args[0].span)
            return ERROR
        vt = self.binop_type("+", at, bt, e)
        if isinstance(vt, ErrorType):
            return ERROR
        if isinstance(ct, Tile) or isinstance(vt, Tile):
            if isinstance(ct, Run) or isinstance(vt, Run):
                self.error("PH106", "a run and a tile cannot combine", e.span)
                return ERROR
            shape = _broadcast(ct.shape if isinstance(ct, Tile) else (), vt.shape if isinstance(vt, Tile) else ())
            if shape is None:
                self.error("PH106", "the condition's and the values' shapes do not broadcast", e.span)
                return ERROR
            vt = Tile(settle(vt.elem if isinstance(vt, Tile) else vt), shape)
        elif isinstance(ct, Run) or isinstance(vt, Run):
            if isinstance(ct, Run) and isinstance(vt, Run) and ct.n != vt.n:
                self.error("PH106", f"runs of different lengths ({ct.n} and {vt.n}) cannot combine", e.span)
                return ERROR
            n = ct.n if isinstance(ct, Run) else vt.n
            vt = Run(settle(vt.elem if isinstance(vt, Run) else vt), n)
        if isinstance(vt, Tile):
            self.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "elementwise sweep", e.span,
                                          reads=_tile_reads(e, self.inst))
        elif isinstance(vt, Scalar) and not vt.is_weak:
            for a in e.args[1:]:
                self.settle_expr(a, vt)
        return vt

    def run_sum(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 1):
            return ERROR
        t = self.expr(e.args[0], run_ctx=True)
        if isinstance(t, ErrorType):
            return ERROR
        if isinstance(t, Scalar):
            self.error("PH112", f"`sum({source_of(e.args[0])})` of a scalar has nothing to add up", e.span,
                       help=f"did you mean `sum<over ctx.lane>({source_of(e.args[0])})`?")
            return ERROR
        if isinstance(t, Tile):
            self.error("PH112", "`sum` adds up a run, not a tile", e.span, help="use `rowsum`")
            return ERROR
        if not isinstance(t, Run):
            self.error("PH105", f"`sum` adds up a run, not a {_describe(t)}", e.span)
            return ERROR
        el = t.elem
        if el == BOOL:
            self.error("PH105", "`sum` cannot add up bools", e.span)
            return ERROR
        acc = I32 if el.name in ("i8", "u8") else F32 if el.name in ("f16", "bf16") else settle(el)
        self.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, "sum", e.span)
        return acc

    def run_elem(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 1):
            return ERROR
        t = self.expr(e.args[0], run_ctx=True)
        if isinstance(t, ErrorType):
            return ERROR
        if not isinstance(t, Run):
            self.error("PH111", f"`elem` takes a run (one thread's span, `A[i, j :+ n]`), not a {_describe(t)}",
                       e.args[0].span)
            return ERROR
        self.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, "elem", e.span)
        return Run(settle(t.elem), t.n)

    def run_store(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 2):
            return ERROR
        dst, val = e.args
        if not (isinstance(dst, A.Index) and isinstance(dst.base, A.Name) and not dst.is_point):
            self.expr(dst, run_ctx=True)
            self.expr(val, run_ctx=True)
            self.error("PH111", "the destination of `store` is a span of a tensor or tile: `A[i, j :+ n]`",
                       dst.span)
            return ERROR
        dt = self.expr(dst, run_ctx=True, store=True)
        vt = self.expr(val, run_ctx=True)
        if isinstance(dt, ErrorType) or isinstance(vt, ErrorType):
            return ERROR
        if not isinstance(dt, Run):
            self.error("PH111", "the destination of `store` must be a run", dst.span)
            return ERROR
        if isinstance(vt, Scalar):
            if not assignable(vt, dt.elem):
                self.type_mismatch(dt.elem, vt, val)
                return ERROR
            self.settle_expr(val, dt.elem)
        elif isinstance(vt, Run):
            if vt.n != dt.n:
                self.error("PH106", f"a run of {vt.n} cannot be stored into a span of {dt.n}", val.span)
                return ERROR
            if not assignable(vt.elem, dt.elem):
                self.error("PH105", f"a run of {vt.elem} cannot be stored into {dt.elem} elements", val.span,
                           help=f"convert it: `{dt.elem}({source_of(val)})`")
                return ERROR
        else:
            self.error("PH105", f"`store` writes a run or a scalar, not a {_describe(vt)}", val.span)
            return ERROR
        b = self.inst.resolution.get(id(dst.base))
        self.inst.ops[id(e)] = OpInfo(OpClass.PER_THREAD, STORE, e.span,
                                      operands=[x for s in dst.subs for x in _sub_exprs(s)] + [val],
                                      writes=[(b.buffer or b.name) if b else "?"])
        return VOID

    def barrier(self, e: A.Call, run_ctx) -> Type:
        if not self.arity(e, 0):
            return ERROR
        self.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "barrier()", e.span)
        return VOID

    def element_arg(self, e: A.Call) -> tuple[Type, str | None]:
        """The first argument of an atomic or acquire/release: one element of a tensor."""
        a = e.args[0]
        if not (isinstance(a, A.Index) and a.is_point and isinstance(a.base, A.Name)):
            self.expr(a)
            self.error("PH109", f"the first argument of `{e.func}` is one element of a tensor, like `A[i]`",
                       a.span)
            return ERROR, None
        t = self.expr(a, store=True)
        if isinstance(t, ErrorType):
            return ERROR, None
        b = self.inst.resolution.get(id(a.base))
        if b is None or not isinstance(b.type, Tensor):
            self.error("PH109", f"`{e.func}` works on global memory: `{source_of(a.base)}` is not a tensor", a.span)
            return ERROR, None
        return t, b.buffer or b.name

    def atomic(self, e: A.Call, run_ctx) -> Type:
        n = 3 if e.func == "atomic_cas" else 2
        if not self.arity(e, n):
            return ERROR
        et, buf = self.element_arg(e)
        vts = [self.expr(a) for a in e.args[1:]]
        if isinstance(et, ErrorType) or any(isinstance(t, ErrorType) for t in vts):
            return ERROR
        allowed = ("i32", "i64", "f32", "f64") if e.func == "atomic_add" else ("i32", "i64")
        if et.name not in allowed:
            self.error("PH105", f"`{e.func}` works on {_fmt_list(allowed)} elements, not {et}", e.args[0].span)
            return ERROR
        for v, a in zip(vts, e.args[1:]):
            if not isinstance(v, Scalar) or not assignable(v, et):
                if isinstance(v, Scalar):
                    self.type_mismatch(et, v, a)
                else:
                    self.error("PH105", f"`{e.func}` takes a scalar {et}, not a {_describe(v)}", a.span)
                return ERROR
            self.settle_expr(a, et)
        idx = [s.index for s in e.args[0].subs]
        self.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, e.func, e.span, operands=idx + list(e.args[1:]),
                                      reads=[buf], writes=[buf])
        return et

    def acquire_release(self, e: A.Call, run_ctx) -> Type:
        load = e.func == "load_acquire"
        if not self.arity(e, 1 if load else 2):
            return ERROR
        et, buf = self.element_arg(e)
        vt = self.expr(e.args[1]) if not load else None
        if isinstance(et, ErrorType) or isinstance(vt, ErrorType):
            return ERROR
        if not load:
            if not isinstance(vt, Scalar) or not assignable(vt, et):
                if isinstance(vt, Scalar):
                    self.type_mismatch(et, vt, e.args[1])
                else:
                    self.error("PH105", f"`store_release` stores a scalar {et}, not a {_describe(vt)}", e.args[1].span)
                return ERROR
            self.settle_expr(e.args[1], et)
        idx = [s.index for s in e.args[0].subs]
        self.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, e.func, e.span, operands=idx + list(e.args[1:]),
                                      reads=[buf] if load else [], writes=[] if load else [buf])
        return et if load else VOID

    def tile_builtin(self, e: A.Call, run_ctx) -> Type:
        f = e.func
        nargs = {"dot": 2, "dot_t": 2, "tmax": 2, "qdot_t": 4, "qmma_t": 4}.get(f, 1)
        if not self.arity(e, nargs):
            return ERROR
        ts = [self.expr(a) for a in e.args]
        if any(isinstance(t, ErrorType) for t in ts):
            return ERROR
        if f == "tmax":
            if not any(isinstance(t, Tile) for t in ts):
                self.error("PH109", "`tmax` takes tiles; for scalars use `max`", e.span)
                return ERROR
            result = self.binop_type("+", ts[0], ts[1], e)
            if isinstance(result, ErrorType):
                return ERROR
            self.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, "elementwise sweep", e.span,
                                          reads=_tile_reads(e, self.inst),
                                          operands=_broadcast_scalars(e, self.inst))
            return result
        for t, a in zip(ts, e.args):
            if not isinstance(t, Tile):
                self.error("PH109", f"`{f}` takes tiles, not a {_describe(t)}", a.span,
                           help="slice the tensor: `A[r :+ R, c :+ C]`" if isinstance(t, Tensor) else None)
                return ERROR
            if not t.static:
                self.error("PH107", f"`{f}` needs tiles of static shape, not {_shape(t.shape)}", a.span)
                return ERROR
            if len(t.shape) != 2:
                self.error("PH106", f"`{f}` takes rank-2 tiles, not rank {len(t.shape)}", a.span)
                return ERROR
        result = _tile_builtin_result(self, e, ts)
        if isinstance(result, ErrorType):
            return ERROR
        names: dict = {}
        self.inst.ops[id(e)] = OpInfo(OpClass.CTA_WIDE, f, e.span, reads=_tile_reads(e, self.inst, names),
                                      read_names=names)
        return result


def _tile_builtin_result(ch: Checker, e: A.Call, ts) -> Type:
    f = e.func
    a = ts[0]
    if f in ("rowsum", "rowmax"):
        if not a.elem.is_float:
            ch.error("PH105", f"`{f}` works on floats, not {a.elem}", e.args[0].span)
            return ERROR
        return Tile(a.elem, (a.shape[0], 1))
    if f in ("cumsum", "tril"):
        return Tile(a.elem, a.shape)
    if f == "transpose":
        return Tile(a.elem, (a.shape[1], a.shape[0]))
    if f in ("dot", "dot_t"):
        b = ts[1]
        if a.elem != b.elem:
            ch.error("PH105", f"`{f}` multiplies tiles of one type, not {a.elem} and {b.elem}", e.span)
            return ERROR
        if a.elem == BOOL:
            ch.error("PH105", f"`{f}` cannot multiply bools", e.span)
            return ERROR
        k_b = b.shape[0] if f == "dot" else b.shape[1]
        n = b.shape[1] if f == "dot" else b.shape[0]
        if a.shape[1] != k_b:
            want = "[K, N]" if f == "dot" else "[N, K]"
            ch.error("PH106", f"`{f}` of {_shape(a.shape)} and {_shape(b.shape)}: the inner extents "
                     f"{a.shape[1]} and {k_b} differ", e.span, help=f"`{f}(a, b)` takes a [M, K] and b {want}")
            return ERROR
        acc = {"i8": I32, "u8": I32, "f16": F32, "bf16": F32}.get(a.elem.name, a.elem)
        return Tile(acc, (a.shape[0], n))
    # qdot_t / qmma_t
    act, sa, w, sw = ts
    m, k = act.shape
    nn = w.shape[0]
    if act.elem.name != "i8" or w.elem.name != "i8":
        ch.error("PH105", f"`{f}` multiplies i8 tiles", e.span)
        return ERROR
    if sa.elem != F32 or sw.elem != F32:
        ch.error("PH105", f"`{f}` takes f32 scales", e.span)
        return ERROR
    if w.shape[1] != k or k % 32:
        ch.error("PH106", f"`{f}` needs a [M, K] and w [N, K] with K a multiple of 32", e.span)
        return ERROR
    want_sw = (nn, k // 32) if f == "qdot_t" else (k // 32, nn)
    if sa.shape != (m, k // 32) or sw.shape != want_sw:
        ch.error("PH106", f"`{f}` wants scales sa {_shape((m, k // 32))} and sw {_shape(want_sw)}", e.span)
        return ERROR
    if f == "qmma_t" and (m % 8 or nn % 8):
        ch.error("PH106", "`qmma_t` needs M and N multiples of 8", e.span)
        return ERROR
    return Tile(F32, (m, nn))


_CALLS = {}
for _n in SCALAR_MATH:
    _CALLS[_n] = Checker.math
for _n in TILE_BUILTINS:
    _CALLS[_n] = Checker.tile_builtin
for _n in ATOMICS:
    _CALLS[_n] = Checker.atomic
for _n in MEMORY_ORDER:
    _CALLS[_n] = Checker.acquire_release
_CALLS.update({"sum": Checker.run_sum, "elem": Checker.run_elem, "store": Checker.run_store,
               "barrier": Checker.barrier, "where": Checker.where})


# ---------------------------------------------------------------- helpers


def _describe(t: Type) -> str:
    if isinstance(t, Scalar):
        return f"scalar {settle(t)}" if t.is_weak else str(t)
    if isinstance(t, Run):
        return f"run ({t})"
    if isinstance(t, Tile):
        return f"tile ({t})"
    if isinstance(t, Tensor):
        return f"tensor ({t})"
    return str(t)


def _shape(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _with_elem(t, el):
    return Run(el, t.n) if isinstance(t, Run) else Tile(el, t.shape, None)


def _broadcast(a: tuple, b: tuple) -> tuple | None:
    """NumPy broadcasting of two shapes (trailing axes aligned; extent 1 stretches)."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(reversed(out))


def _broadcasts_to(src: tuple, dst: tuple) -> bool:
    return _broadcast(src, dst) == tuple(dst) and len(src) <= len(dst)


def _sub_exprs(s):
    if isinstance(s, A.Point):
        return [s.index]
    if isinstance(s, A.SpanSub):
        return [s.start, s.length]
    return [x for x in (s.lo, s.hi) if x is not None]


def _sub_text(s) -> str:
    from .syntax.printer import subscript
    return subscript(s)


def _is_view_source(value, inst: Instance) -> bool:
    """A `let` of a slice or of a tile's name is a view (LANGUAGE §5)."""
    if isinstance(value, A.Index):
        return not value.is_point
    if isinstance(value, A.Name):
        return isinstance(inst.types.get(id(value)), Tile)
    return False


def _is_plain_tile(value, inst: Instance) -> bool:
    """The value is a slice or a tile variable (a copy rather than a computation)."""
    if isinstance(value, A.Index) and not value.is_point:
        return True
    return isinstance(value, A.Name) and isinstance(inst.types.get(id(value)), Tile)


def _tile_reads(value, inst: Instance, names: dict | None = None) -> list[str]:
    """Buffers a tile-valued expression reads: its slices and tile/view names (LANGUAGE §9.5).
    A view reads the buffer it was sliced from; ``names`` receives buffer -> name as written."""
    reads: list[str] = []
    stack = [value]
    while stack:
        e = stack.pop()
        t = inst.types.get(id(e))
        if isinstance(e, A.Name):
            if isinstance(t, Tile):
                b = inst.resolution.get(id(e))
                buf = b.buffer if b is not None and b.buffer else e.id
                reads.append(buf)
                if names is not None:
                    names.setdefault(buf, e.id)
            continue
        if isinstance(e, A.Index):
            if not e.is_point and isinstance(t, Tile) and t.buffer:
                reads.append(t.buffer)
                if names is not None and isinstance(e.base, A.Name):
                    names.setdefault(t.buffer, e.base.id)
            continue
        if isinstance(e, A.Binary):
            stack.extend((e.rhs, e.lhs))
        elif isinstance(e, A.Unary):
            stack.append(e.operand)
        elif isinstance(e, A.Call):
            stack.extend(reversed(e.args))
    return list(dict.fromkeys(reads))


def _broadcast_scalars(value, inst: Instance) -> list:
    """Scalar operands a sweep broadcasts over its tiles (LANGUAGE §9.7)."""
    out = []
    stack = [value]
    while stack:
        e = stack.pop()
        t = inst.types.get(id(e))
        if isinstance(t, Scalar):
            if not isinstance(e, (A.IntLit, A.FloatLit, A.BoolLit)):
                out.append(e)
            continue
        if isinstance(e, A.Binary):
            stack.extend((e.rhs, e.lhs))
        elif isinstance(e, A.Unary):
            stack.append(e.operand)
        elif isinstance(e, A.Call) and e.func not in TILE_BUILTINS[:-1]:
            stack.extend(reversed(e.args))
    return out


def _always_returns(block: A.Block) -> bool:
    for s in reversed(block.stmts):
        if isinstance(s, A.Return):
            return True
        if isinstance(s, A.If):
            return _if_returns(s)
        return False
    return False


def _if_returns(s: A.If) -> bool:
    if s.orelse is None or not _always_returns(s.then):
        return False
    if isinstance(s.orelse, A.If):
        return _if_returns(s.orelse)
    return _always_returns(s.orelse)


def _did_you_mean(name: str, scope: Scope) -> str | None:
    import difflib
    names = set()
    s = scope
    while s is not None:
        names.update(s.names)
        s = s.parent
    close = difflib.get_close_matches(name, sorted(names), n=1)
    return f"did you mean `{close[0]}`?" if close else None


def _did_you_mean_fn(name: str, functions) -> str | None:
    import difflib
    close = difflib.get_close_matches(name, sorted(set(functions) | BUILTINS | set(SCALARS)), n=1)
    return f"did you mean `{close[0]}`?" if close else None


def parse_defines(defines: dict[str, str] | None, diagnostics: list[Diagnostic]) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, text in (defines or {}).items():
        v = parse_define(str(text))
        if v is None:
            diagnostics.append(Diagnostic("PH206", f"-D {name}={text}: the value must be an integer, a float, "
                                          "true or false", Span(1, 1, 1, 1)))
            continue
        if name in RESERVED:
            diagnostics.append(Diagnostic("PH206", f"-D {name}: `{name}` is reserved", Span(1, 1, 1, 1)))
            continue
        out[name] = v
    return out


def analyze(program: A.Program, defines: dict[str, str] | None, diagnostics: list[Diagnostic]) -> ProgramInfo:
    values = parse_defines(defines, diagnostics)
    found: list[Diagnostic] = []
    info = Checker(program, values, found).run()
    seen = set()
    for d in found:              # a function's signature is checked once per use: report once
        key = (d.code, d.span, d.message)
        if key not in seen:
            seen.add(key)
            diagnostics.append(d)
    return info
