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

from itertools import count

from .constants import parse_define
from .diagnostics.model import ERROR as SEV_ERROR, Diagnostic, Span
from .sema_builtins import BuiltinCallChecks
from .sema_declarations import DeclarationChecks
from .sema_expressions import ExpressionChecks
from .sema_model import RESERVED, Binding, Instance, KernelInfo, ProgramInfo, Scope  # noqa: F401 (the API)
from .sema_helpers import constant_text
from .sema_statements import StatementChecks
from .syntax import ast as A
from ..language.types import BOOL, ERROR, F32, I32, TYPE_WORDS, ErrorType, Tensor, Tile, Type




# ---------------------------------------------------------------- the checker


class Checker(DeclarationChecks, StatementChecks, ExpressionChecks, BuiltinCallChecks):
    """The semantic pass over one program; its parts are the mixins of the sema_* modules."""

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
        self.inlined = 0                    # calls inlined into the kernel (or function) being checked
        self.inst: Instance | None = None
        self.scope: Scope | None = None
        self.fn_ret: Type | None = None       # declared return type of the function being checked
        self.in_function = False
        self.unrolled: list[tuple[Span, int]] = []   # enclosing unrolled loops (factor span, factor), through calls too
        # checking an uncalled function: its dims are names bound only at a call, so whatever depends
        # on their values (static shapes, matching extents, run lengths) is left to the call
        self.generic = False

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
                word = self._item_word(item)
                self.error("PH103", f"`{item.name}` is {_reserved_what(item.name)} and cannot name a {word}",
                           item.name_span, label="reserved name",
                           help=f"choose another name, such as `{item.name}_{word}`")
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
                self.inlined = 0
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
            self.error("PH103", f"`{b.name}` is {_reserved_what(b.name)} and cannot be declared", b.span,
                       label="reserved name", help=f"choose another name than `{b.name}`")
        prev = self.scope.names.get(b.name)
        if prev is not None and prev.kind == "const":
            where = (f"bound on the command line with `-D {b.name}={constant_text(self.defines[b.name])}`"
                     if b.name in self.defines else
                     f"declared by `@autotune` at {prev.span.line}:{prev.span.column}")
            self.error("PH102", f"`{b.name}` is already a compile-time constant, {where}", b.span,
                       label="declared again here", help="use another name; a constant cannot be assigned")
        elif prev is not None:
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
        self.inlined = 0
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
            t = ERROR if value is None else BOOL if isinstance(value, bool) else I32 if isinstance(value, int) else F32
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


def _reserved_what(name: str) -> str:
    """What a reserved name already is, for PH103."""
    return ("a type name" if name in TYPE_WORDS else "reserved for the thread's context" if name == "ctx"
            else "a built-in")
