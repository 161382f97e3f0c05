"""What sits at a place in a checked document: the syntax nodes around a position, the bindings
and instances the semantic pass recorded for them, and the outline of kernels and functions.

Everything is read off the checker's results (the AST with its spans, each instance's
``resolution`` and ``decls``); the walk is iterative, since a tree may nest as deep as the parser
allows.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..analyzer.checked import CheckedKernel, CheckedProgram
from ..analyzer.diagnostics.model import Span
from ..analyzer.syntax import ast as A

EXPRESSIONS = (A.IntLit, A.FloatLit, A.BoolLit, A.Name, A.CtxPath, A.Member, A.Unary, A.Binary,
               A.Call, A.GenericCall, A.Index)


def contains(span: Span, line: int, column: int, end_inclusive: bool = False) -> bool:
    if span.line == 0:                  # NOSPAN: a node the parser made up
        return False
    if (line, column) < (span.line, span.column):
        return False
    end = (span.end_line, span.end_column)
    return (line, column) <= end if end_inclusive else (line, column) < end


def _children(node) -> list:
    out = []
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, tuple):
            out.extend(v for v in value if hasattr(v, "span"))
        elif hasattr(value, "span") and not isinstance(value, Span):
            out.append(value)
    return out


def node_path(program: A.Program | None, line: int, column: int) -> list:
    """The nodes whose spans hold the position, outermost (a kernel or function) first. A cursor
    just after a word counts as on it when nothing starts there."""
    if program is None:
        return []
    for inclusive in (False, True):
        path: list = []
        level = list(program.items)
        while level:
            inside = [n for n in level if contains(n.span, line, column, inclusive)]
            if not inside:
                break
            node = inside[-1]
            path.append(node)
            level = _children(node)
        if path:
            return path
    return []


@dataclass
class Where:
    """The instances of one checked program, indexed for lookups by syntax node."""

    checked: CheckedProgram

    def __post_init__(self) -> None:
        self.instances: dict[int, list] = {}       # id(A.Kernel or A.Function) -> [Instance]
        self.kernel_of: dict[int, CheckedKernel] = {}   # id(Instance) -> its analysed kernel
        semantics = self.checked.result.semantics if self.checked.result is not None else None
        roots = []
        if semantics is not None:
            roots = [k.instance for k in semantics.kernels] + list(semantics.uncalled)
        for root in roots:
            for inst in root.tree():
                self.instances.setdefault(id(inst.node), []).append(inst)
        for kernel in self.checked.kernels:
            for inst in kernel.instance.tree():
                self.kernel_of[id(inst)] = kernel

    @property
    def program(self) -> A.Program | None:
        return self.checked.result.program if self.checked.result is not None else None

    def instances_of(self, item) -> list:
        return self.instances.get(id(item), [])

    def declared(self, item, decl) -> list:
        """(Binding, Instance) of a `let`, `var`, `for` or parameter node, in each instance."""
        out = []
        for inst in self.instances_of(item):
            b = inst.decls.get(id(decl))
            if b is not None:
                out.append((b, inst))
        return out

    def resolved(self, item, name: A.Name) -> list:
        """(Binding, Instance) a name use resolves to, in each instance of its item."""
        out = []
        for inst in self.instances_of(item):
            b = inst.resolution.get(id(name))
            if b is not None:
                out.append((b, inst))
        return out

    def functions(self) -> dict[str, A.Function]:
        program = self.program
        return {f.name: f for f in program.functions} if program is not None else {}


def declaration_at(path: list, line: int, column: int):
    """The `let`, `var`, `for` or parameter whose declared name is at the position, or None."""
    for node in reversed(path):
        if isinstance(node, (A.Let, A.Var)) and contains(node.name_span, line, column, True):
            return node
        if isinstance(node, A.For) and contains(node.var_span, line, column, True):
            return node
        if isinstance(node, A.Param):
            return node
    return None


def innermost_expression(path: list):
    for node in reversed(path):
        if isinstance(node, EXPRESSIONS):
            return node
    return None


def called_name_at(path: list, line: int, column: int):
    """A call whose callee's name is at the position (a built-in or a function), or None."""
    for node in reversed(path):
        if isinstance(node, A.Call) and contains(node.func_span, line, column, True):
            return node
        if isinstance(node, A.GenericCall) and contains(node.head_span, line, column, True):
            return node
    return None


def name_span_of(decl) -> Span:
    if isinstance(decl, (A.Let, A.Var, A.Kernel, A.Function)):
        return decl.name_span
    if isinstance(decl, A.For):
        return decl.var_span
    return decl.span
