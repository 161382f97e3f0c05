"""The Phobos abstract syntax tree: frozen dataclasses, each carrying its source span.

``record`` makes them as ``@dataclass(frozen=True, slots=True)`` would, at a fraction of the
start-up cost.

Spans are excluded from equality, so two trees compare equal when they say the same thing,
wherever it was written (the printer's round-trip test relies on this). Nodes are hashable by
identity of content; analyses that need per-node tables key them by ``id(node)``.
"""

from __future__ import annotations

from dataclasses import field
from typing import Union

from ...language.records import record
from ..diagnostics.model import Span

NOSPAN = Span(0, 0, 0, 0)


def _span():
    return field(default=NOSPAN, compare=False, repr=False)


# ---------------------------------------------------------------- types


@record(frozen=True, slots=True)
class DimName:
    name: str
    span: Span = _span()


@record(frozen=True, slots=True)
class DimInt:
    value: int
    span: Span = _span()


Dim = Union[DimName, DimInt]


@record(frozen=True, slots=True)
class TypeExpr:
    """A written type: ``kind`` is "scalar", "tensor" or "tile"; ``elem`` the scalar name."""

    kind: str
    elem: str
    dims: tuple[Dim, ...] = ()
    span: Span = _span()
    elem_span: Span = _span()


# ---------------------------------------------------------------- expressions


@record(frozen=True, slots=True)
class IntLit:
    value: int
    text: str          # as written (hex kept), without a folded minus
    span: Span = _span()


@record(frozen=True, slots=True)
class FloatLit:
    value: float
    text: str
    span: Span = _span()


@record(frozen=True, slots=True)
class BoolLit:
    value: bool
    span: Span = _span()


@record(frozen=True, slots=True)
class Name:
    id: str
    span: Span = _span()


@record(frozen=True, slots=True)
class CtxPath:
    """``ctx.a.b``: ``path`` holds the fields after ``ctx`` (validated by semantics)."""

    path: tuple[str, ...]
    span: Span = _span()

    @property
    def text(self) -> str:
        return ".".join(("ctx",) + self.path)


@record(frozen=True, slots=True)
class Member:
    """``e.name`` where ``e`` is not ``ctx``: always an error, kept for a located message."""

    value: "Expr"
    attr: str
    span: Span = _span()


@record(frozen=True, slots=True)
class Unary:
    op: str            # "-", "!", "~"
    operand: "Expr"
    span: Span = _span()


@record(frozen=True, slots=True)
class Binary:
    op: str
    lhs: "Expr"
    rhs: "Expr"
    span: Span = _span()


@record(frozen=True, slots=True)
class Call:
    func: str
    args: tuple["Expr", ...]
    span: Span = _span()
    func_span: Span = _span()


@record(frozen=True, slots=True)
class GenericCall:
    """``op<over ctx.lane>(x)`` (mode "over", ``param`` a CtxPath) or ``shfl<xor E>(v)``."""

    func: str
    mode: str
    param: "Expr"
    args: tuple["Expr", ...]
    span: Span = _span()
    head_span: Span = _span()


@record(frozen=True, slots=True)
class Point:
    index: "Expr"
    span: Span = _span()


@record(frozen=True, slots=True)
class Range:
    """``lo : hi``; ``lo`` None for ``:hi``, both None for ``:``."""

    lo: "Expr | None"
    hi: "Expr | None"
    span: Span = _span()


@record(frozen=True, slots=True)
class SpanSub:
    """``start :+ length``."""

    start: "Expr"
    length: "Expr"
    span: Span = _span()


Subscript = Union[Point, Range, SpanSub]


@record(frozen=True, slots=True)
class Index:
    base: "Expr"
    subs: tuple[Subscript, ...]
    span: Span = _span()

    @property
    def is_point(self) -> bool:
        return all(isinstance(s, Point) for s in self.subs)


Expr = Union[IntLit, FloatLit, BoolLit, Name, CtxPath, Member, Unary, Binary, Call, GenericCall, Index]

# ---------------------------------------------------------------- statements


@record(frozen=True, slots=True)
class Block:
    stmts: tuple["Stmt", ...]
    span: Span = _span()


@record(frozen=True, slots=True)
class Let:
    name: str
    type: TypeExpr | None
    value: Expr
    span: Span = _span()
    name_span: Span = _span()


@record(frozen=True, slots=True)
class Var:
    name: str
    type: TypeExpr | None
    value: Expr | None
    span: Span = _span()
    name_span: Span = _span()


@record(frozen=True, slots=True)
class Assign:
    target: Expr       # Name or Index (validated by semantics)
    op: str            # "=", "+=", ...
    value: Expr
    span: Span = _span()


@record(frozen=True, slots=True)
class If:
    cond: Expr
    then: Block
    orelse: "Block | If | None"
    span: Span = _span()


@record(frozen=True, slots=True)
class For:
    var: str
    range_name: str    # "range" when written correctly; kept to report anything else
    args: tuple[Expr, ...]
    body: Block
    unroll: Expr | None = None
    span: Span = _span()
    var_span: Span = _span()
    range_span: Span = _span()
    unroll_word: str = "unroll"


@record(frozen=True, slots=True)
class While:
    cond: Expr
    body: Block
    span: Span = _span()


@record(frozen=True, slots=True)
class Break:
    span: Span = _span()


@record(frozen=True, slots=True)
class Continue:
    span: Span = _span()


@record(frozen=True, slots=True)
class Return:
    value: Expr | None
    span: Span = _span()


@record(frozen=True, slots=True)
class ExprStmt:
    expr: Expr
    span: Span = _span()


Stmt = Union[Let, Var, Assign, If, For, While, Break, Continue, Return, ExprStmt]

# ---------------------------------------------------------------- top level


@record(frozen=True, slots=True)
class AttrArg:
    """One attribute argument: ``name in [..]`` (choices), ``name = value``, or a bare value."""

    name: str | None
    value: "IntLit | FloatLit | BoolLit | Name | None"
    choices: tuple[IntLit, ...] | None = None
    span: Span = _span()


@record(frozen=True, slots=True)
class Attribute:
    name: str
    args: tuple[AttrArg, ...]
    span: Span = _span()
    has_parens: bool = False


@record(frozen=True, slots=True)
class Param:
    name: str
    type: TypeExpr
    span: Span = _span()


@record(frozen=True, slots=True)
class Kernel:
    attrs: tuple[Attribute, ...]
    name: str
    params: tuple[Param, ...]
    body: Block
    span: Span = _span()
    name_span: Span = _span()


@record(frozen=True, slots=True)
class Function:
    name: str
    params: tuple[Param, ...]
    ret: TypeExpr | None
    body: Block
    span: Span = _span()
    name_span: Span = _span()


@record(frozen=True, slots=True)
class Program:
    items: tuple["Kernel | Function", ...]
    span: Span = _span()

    @property
    def kernels(self) -> list[Kernel]:
        return [i for i in self.items if isinstance(i, Kernel)]

    @property
    def functions(self) -> list[Function]:
        return [i for i in self.items if isinstance(i, Function)]


# ---------------------------------------------------------------- walking expressions
def sub_exprs(s) -> list:
    """The expressions of one subscript: a point's index, a span's start and length, a
    range's bounds (those written)."""
    ts = type(s)
    if ts is Point:
        return [s.index]
    if ts is SpanSub:
        return [s.start, s.length]
    return [x for x in (s.lo, s.hi) if x is not None]


def subscript_exprs(e: Index) -> list:
    """The expressions of an index's subscripts, left to right."""
    out = []
    for s in e.subs:
        ts = type(s)
        if ts is Point:
            out.append(s.index)
        elif ts is SpanSub:
            out.append(s.start)
            out.append(s.length)
        else:
            if s.lo is not None:
                out.append(s.lo)
            if s.hi is not None:
                out.append(s.hi)
    return out


def children(e) -> list:
    """The sub-expressions of expression ``e``, in LANGUAGE §6's evaluation order (a generic
    call's argument before its lane or mode operand, an index's base before its subscripts)."""
    t = type(e)
    if t is Binary:
        return [e.lhs, e.rhs]
    if t is Unary:
        return [e.operand]
    if t is Call:
        return list(e.args)
    if t is GenericCall:
        return list(e.args) + [e.param]
    if t is Index:
        return [e.base] + subscript_exprs(e)
    if t is Member:
        return [e.value]
    return []
