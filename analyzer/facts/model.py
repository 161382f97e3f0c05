"""The records of the facts layer: the values, operations and stores the relations name, the
early-exit relation held in groups, and ``Facts``, one kernel's relations with the lookups the
derivation and the rules share (schema.py lists every relation and what it means)."""

from __future__ import annotations

from dataclasses import field

from ...language.records import record
from ..cfg import KernelCFG
from .atoms import atoms


@record(eq=False, slots=True)
class Value:
    """An expression whose kind matters, at the CFG node that evaluates it."""

    id: int
    expr: object
    node: int
    inst: object


@record(eq=False, slots=True)
class Op:
    id: int
    node: int
    cls: object          # ops.OpClass
    name: str
    span: object
    inst: object
    ast: object          # the statement or expression the operation is recorded on
    statement_level: bool


@record(eq=False, slots=True)
class Store:
    node: int
    buf: str
    indices: list        # value ids
    value: int | None    # value id
    op: int
    span: object
    target: object       # the Index node (or store(..)'s destination)


class RaiseFacts:
    """The relation raises(node, t, how), held as one group (node, targets, how) per early exit.
    Iterating it gives the (node, t, how) facts; the groups are not expanded, since n exits
    before n statements would make n^2 facts (the derivation makes an exit's edges only when
    its control rises)."""

    __slots__ = ("groups",)

    def __init__(self):
        self.groups: list = []

    def add(self, node: int, targets, how: str) -> None:
        self.groups.append((node, targets, how))

    def append(self, fact) -> None:
        node, t, how = fact
        self.groups.append((node, (t,), how))

    def __iter__(self):
        for node, targets, how in self.groups:
            for t in targets:
                yield node, t, how

    def __len__(self) -> int:
        return sum(len(targets) for _node, targets, _how in self.groups)

    def clear(self) -> None:
        self.groups.clear()


@record(eq=False)
class Facts:
    cfg: KernelCFG
    values: list[Value] = field(default_factory=list)
    uses: list = field(default_factory=list)            # (v, binding)
    let_init: list = field(default_factory=list)        # (binding, v, node)
    var_assign: list = field(default_factory=list)      # (binding, v, node)
    loop_bound: list = field(default_factory=list)      # (binding, v)
    call_result: list = field(default_factory=list)     # (v, callee instance)
    returns: list = field(default_factory=list)         # (callee instance, v | None, node)
    seed: list = field(default_factory=list)            # (v, kind, origin expr)
    stores: list[Store] = field(default_factory=list)
    loads: list = field(default_factory=list)           # (node, buf, [v])
    views: list = field(default_factory=list)           # (binding, buf)
    reads: list = field(default_factory=list)           # (op id, buf, name used)
    ops: list[Op] = field(default_factory=list)
    operand: list = field(default_factory=list)         # (op id, v)
    barriers: list = field(default_factory=list)        # node
    parent: dict = field(default_factory=dict)          # node -> control parent
    cond: list = field(default_factory=list)            # (p, v)
    raises: RaiseFacts = field(default_factory=lambda: RaiseFacts())   # (node, t, how)
    loop_again: list = field(default_factory=list)      # (loop header, deciding condition node)
    # lookups the extraction fills for the derivation and the rules
    value_of: dict = field(default_factory=dict)        # (node, id(expr)) -> v
    _atoms: dict = field(default_factory=dict)

    @property
    def edges(self) -> list:
        """(a, b) of every edge but the back edges, read off the graph when asked (the analysis
        walks the graph itself; the oracle and the tests read the relation)."""
        return [(a, b) for a, b, d in self.cfg.edges() if "back" not in d]

    @property
    def back_edges(self) -> list:
        """(a, b, loop id) of every back edge."""
        return [(a, b, d["back"]) for a, b, d in self.cfg.edges() if "back" in d]

    def atoms_of(self, v: int):
        """The (uses, seeds, results) of value v, computed once (facts/atoms.py)."""
        cached = self._atoms.get(v)
        if cached is None:
            value = self.values[v]
            cached = self._atoms[v] = atoms(value.expr, value.inst)
        return cached

    def new_value(self, expr, node: int, inst) -> int:
        key = (node, id(expr))
        v = self.value_of.get(key)
        if v is None:
            v = len(self.values)
            self.values.append(Value(v, expr, node, inst))
            self.value_of[key] = v
        return v
