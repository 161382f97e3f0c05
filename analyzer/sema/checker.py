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

from ..diagnostics.model import Diagnostic, Span
from .builtins import BuiltinCalls
from .context import Body, Context, Part, reserved_what
from .declarations import Declarations
from .expressions import Expressions
from .model import RESERVED, Binding, Instance, KernelInfo, ProgramInfo, Scope  # noqa: F401 (the API)
from .statements import Statements
from ..syntax import ast as A
from ...language.literals import DefineError, define_value
from ...language.types import BOOL, ERROR, F32, I32, ErrorType, Tensor, Tile




# ---------------------------------------------------------------- the checker


class Checker(Part):
    """The semantic pass over one program: the program-level checks here, the rest in its parts."""

    def __init__(self, program: A.Program, defines: dict[str, object], diagnostics: list[Diagnostic]):
        cx = Context(program, defines, diagnostics)
        super().__init__(cx)
        parts = {"decls": Declarations(cx), "stmts": Statements(cx), "exprs": Expressions(cx),
                 "calls": BuiltinCalls(cx)}
        self.parts = (self, *parts.values())
        for part in self.parts:
            for name, other in parts.items():
                setattr(part, name, other)

    def release(self) -> None:
        """Unwire the parts: they refer to one another, and phobos-check runs with the cyclic
        collector paused, so a cycle left behind would keep every checked tree alive."""
        for part in self.parts:
            for name in ("decls", "stmts", "exprs", "calls"):
                part.__dict__.pop(name, None)
        self.parts = ()
        self.cx.body = None
        self.cx.parts.clear()

    # ---- entry
    def run(self) -> ProgramInfo:
        cx = self.cx
        info = ProgramInfo()
        if not cx.program.items:
            cx.error("PH009", "the file holds no kernel and no function", Span(1, 1, 1, 1),
                     help="a Phobos file declares at least one `kernel` or `fn`")
            return info
        seen_items: dict[str, Span] = {}
        for item in cx.program.items:
            if item.name in RESERVED:
                word = self._item_word(item)
                cx.error("PH103", f"`{item.name}` is {reserved_what(item.name)} and cannot name a {word}",
                         item.name_span, label="reserved name",
                         help=f"choose another name, such as `{item.name}_{word}`")
            elif item.name in seen_items:
                cx.error("PH102", f"`{item.name}` is declared twice", item.name_span,
                         label="second declaration", notes=[f"first declared at {seen_items[item.name].line}:"
                                                            f"{seen_items[item.name].column}"])
                continue
            seen_items[item.name] = item.name_span
            if isinstance(item, A.Function):
                cx.functions[item.name] = item
        info.functions = dict(cx.functions)
        cx.bad_functions = {name for name, fn in cx.functions.items() if not self.signature_ok(fn)}
        for item in cx.program.items:
            if isinstance(item, A.Kernel):
                info.kernels.append(self.check_kernel(item))
        for name, fn in cx.functions.items():
            if name not in cx.called:
                cx.inlined = 0
                info.uncalled.append(self.decls.check_function_alone(fn))
        return info

    def signature_ok(self, fn: A.Function) -> bool:
        """Check a function's parameter and return types once (their dims left symbolic)."""
        with self.cx.entering(Body(Instance("function", fn.name, fn), Scope(function_boundary=True))) as body:
            for name, value in self.cx.defines.items():
                body.scope.names[name] = Binding(name, "const", I32, Span(1, 1, 1, 1), const_value=value)
            dims_env = {d.name: d.name for p in fn.params for d in p.type.dims if isinstance(d, A.DimName)}
            ok = True
            for p in fn.params:
                t = self.decls.type_expr(p.type, allow_tensor=True, allow_tile=True, where="parameter",
                                         dims_env=dims_env)
                ok = ok and not isinstance(t, ErrorType)
            if fn.ret is not None:
                ok = ok and not isinstance(self.decls.return_type(fn, dims_env), ErrorType)
        return ok

    @staticmethod
    def _item_word(item) -> str:
        return "kernel" if isinstance(item, A.Kernel) else "function"

    # ---- kernels
    def check_kernel(self, k: A.Kernel) -> KernelInfo:
        inst = Instance("kernel", k.name, k)
        kinfo = KernelInfo(k, inst)
        self.cx.inlined = 0
        self.cx.body = Body(inst, Scope(function_boundary=True))
        self.cx.autotune_values = self.cx.autotune.get(k.name, {})
        attrs = self.decls.attributes(k, kinfo)
        # compile-time constants: -D bindings, then this kernel's @autotune names
        for name, value in self.cx.defines.items():
            kinfo.constants[name] = value
        for name, (value, span) in attrs.autotune.items():
            if name not in self.cx.defines:
                kinfo.constants[name] = value
        for name, value in kinfo.constants.items():
            span = attrs.autotune[name][1] if name in attrs.autotune else Span(1, 1, 1, 1)
            t = ERROR if value is None else BOOL if isinstance(value, bool) else I32 if isinstance(value, int) else F32
            self.cx.new_binding(name, "const", t, span, const_value=value)
        self.params(k.params, kinfo, kernel=True)
        self.decls.launch_settings(attrs, kinfo)
        self.decls.check_aligned(attrs, kinfo)
        self.stmts.block_body(k.body.stmts)
        return kinfo

    def params(self, params, kinfo: KernelInfo | None, kernel: bool) -> list[Binding]:
        out = []
        for p in params:
            t = self.decls.type_expr(p.type, allow_tensor=True, allow_tile=not kernel, where="parameter")
            if isinstance(t, Tensor):
                for d, dexpr in zip(t.shape, p.type.dims):
                    if isinstance(d, str):
                        self.extent(d, dexpr.span, kinfo)
            b = self.cx.new_binding(p.name, "param", t, p.span, node=p,
                                 buffer=p.name if isinstance(t, (Tensor, Tile)) else None)
            out.append(b)
            if kinfo is not None:
                kinfo.params.append(b)
        return out

    def extent(self, name: str, span: Span, kinfo: KernelInfo | None) -> None:
        """A name in a tensor parameter's dims: a runtime extent (an i32 value), once."""
        existing = self.body.scope.names.get(name)
        if existing is not None:
            if existing.kind not in ("extent", "const"):
                self.cx.error("PH102", f"`{name}` is both a parameter and a tensor extent", span,
                           label="used as an extent here")
            return
        self.cx.new_binding(name, "extent", I32, span)
        if kinfo is not None:
            kinfo.extents.append(name)


def parse_defines(defines: dict | None, diagnostics: list[Diagnostic]) -> dict[str, object]:
    """The ``-D`` bindings' values (language/literals.define_value, as the command line reads
    them); each one the language does not allow is a PH206 diagnostic."""
    out: dict[str, object] = {}
    for name, text in (defines or {}).items():
        try:
            out[name] = define_value(name, text)
        except DefineError as e:
            diagnostics.append(Diagnostic("PH206", str(e), Span(1, 1, 1, 1)))
    return out


def analyze(program: A.Program, defines: dict[str, str] | None, diagnostics: list[Diagnostic],
            autotune: dict[str, dict[str, int]] | None = None) -> ProgramInfo:
    """``autotune``: the @autotune configuration to check, kernel -> {NAME: value} (by default
    each list's first value)."""
    values = parse_defines(defines, diagnostics)
    found: list[Diagnostic] = []
    checker = Checker(program, values, found)
    checker.cx.autotune = dict(autotune or {})
    try:
        info = checker.run()
    finally:
        checker.release()
    seen = set()
    for d in found:              # a function's signature is checked once per use: report once
        key = (d.code, d.span, d.message)
        if key not in seen:
            seen.add(key)
            diagnostics.append(d)
    return info
