"""The state of the semantic pass, in one place.

The pass is split by what it checks (declarations.py, statements.py, expressions.py,
builtins.py); each part is an object holding the one ``Context`` and the other parts, and none
keeps state of its own. The context holds what lives for the whole program (the -D constants,
the functions, the diagnostics, the chain of calls being inlined) and the ``Body`` being checked:
the instance whose types and bindings are being recorded, the innermost scope, and the return
type of the function around it. Inlining a call, or checking a function on its own, checks
another body: ``Context.entering`` swaps the body in and back, so no part saves and restores
fields by hand.
"""

from __future__ import annotations

from contextlib import contextmanager
from itertools import count

from ...language.records import record
from ..diagnostics.model import ERROR as SEV_ERROR, Diagnostic, Span
from ..syntax import ast as A
from .helpers import constant_text
from .model import RESERVED, Binding, Instance, Scope
from ...language import literals
from ...language.types import Type


@record(eq=False)
class Body:
    """One kernel body, or one function body (inlined at a call, or checked on its own)."""

    inst: Instance
    scope: Scope
    fn_ret: Type | None = None       # the declared return type of the function being checked
    in_function: bool = False
    # checking an uncalled function: its dims are names bound only at a call, so whatever depends
    # on their values (static shapes, matching extents, run lengths) is left to the call
    generic: bool = False

    @contextmanager
    def nested(self, loop: bool = False):
        """A block's own scope, dropped when the block ends."""
        outer = self.scope
        self.scope = Scope(outer, loop=loop)
        try:
            yield self.scope
        finally:
            self.scope = outer


class Context:
    """What the parts of the semantic pass share: the program-wide state and the current body."""

    def __init__(self, program: A.Program, defines: dict[str, object], diagnostics: list[Diagnostic]):
        self.program = program
        self.defines = defines
        # the @autotune configuration being checked: kernel -> {NAME: value}; a name absent
        # takes its list's first value (LANGUAGE §2)
        self.autotune: dict[str, dict[str, int]] = {}
        self.autotune_values: dict[str, int] = {}     # the current kernel's
        self.diags = diagnostics
        self.uids = count(1)
        self.functions: dict[str, A.Function] = {}
        self.called: set[str] = set()
        self.bad_functions: set[str] = set()
        self.suggestions_left = 50          # "did you mean" runs difflib: only for the first few
        self.call_stack: list[str] = []
        self.inlined = 0                    # statements inlined into the kernel (or function) being checked
        self.statement_counts: dict[int, int] = {}   # id(function) -> statements in its body
        self.unrolled: list[tuple[Span, int]] = []   # enclosing unrolled loops (factor span, factor), through calls too
        self.parts: list[Part] = []        # each keeps the current body as ``part.body`` (read very often)
        self._body: Body | None = None

    @property
    def body(self) -> Body | None:
        return self._body

    @body.setter
    def body(self, body: Body | None) -> None:
        """Check ``body`` from now on: every part sees it as ``self.body``."""
        self._body = body
        for part in self.parts:
            part.body = body

    @contextmanager
    def entering(self, body: Body):
        """Check ``body`` (a function's, for a call or on its own), then return to the current one."""
        outer = self.body
        self.body = body
        try:
            yield body
        finally:
            self.body = outer

    def error(self, code, message, span, label=None, help=None, notes=None, severity=SEV_ERROR, fixes=None):
        self.diags.append(Diagnostic(code, message, span, severity=severity, label=label,
                                     help=help, notes=list(notes or ()), fixes=list(fixes or ())))

    def new_binding(self, name, kind, type_, span, node=None, mutable=False, const_value=None,
                    buffer=None, declare=True) -> Binding:
        b = Binding(name, kind, type_, span, node, mutable, const_value, buffer, next(self.uids))
        if declare:
            self.declare(b)
        return b

    def declare(self, b: Binding) -> None:
        body = self.body
        if b.name in RESERVED:
            self.error("PH103", f"`{b.name}` is {reserved_what(b.name)} and cannot be declared", b.span,
                       label="reserved name", help=f"choose another name than `{b.name}`")
        prev = body.scope.names.get(b.name)
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
        body.scope.names[b.name] = b
        body.inst.bindings.append(b)
        if b.node is not None:
            body.inst.decls[id(b.node)] = b


class Part:
    """One part of the semantic pass. ``cx`` is the shared context and ``body`` the body being
    checked (``cx.body``, kept here by the context as it changes); the other parts are reached
    by name (``self.exprs.expr(e)``), wired once by checker.Checker."""

    decls: "Part"
    stmts: "Part"
    exprs: "Part"
    calls: "Part"

    def __init__(self, cx: Context):
        self.cx = cx
        self.body: Body | None = cx.body
        cx.parts.append(self)


def reserved_what(name: str) -> str:
    """What a reserved name already is, for PH103."""
    return "reserved for the thread's context" if name == "ctx" else literals.reserved_what(name)
