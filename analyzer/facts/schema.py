"""The relations of the per-thread analysis: every fact the extraction emits and every fact the
derivation computes, with its columns, its meaning and the module that produces it.

Identifiers: ``node`` is a CFG node (an int, analyzer/cfg.py); ``v`` a value (an expression whose
kind matters, an int); ``b`` a binding (its ``uid``); ``r`` an inlined call's result (the callee
Instance's id); ``op`` an operation record (an int); ``buf`` a buffer name (a tensor parameter,
or a tile's unique name; views name the buffer behind them). Kinds are 0 uniform, 1 warp-uniform,
2 varying (LANGUAGE §9.9).
"""

from __future__ import annotations

from ...language.records import record


@record(frozen=True)
class Relation:
    name: str
    columns: tuple[str, ...]
    meaning: str
    module: str


RELATIONS = [
    # --- data flow (facts/dataflow.py)
    Relation("value", ("v", "node", "expr"), "expression v is evaluated at CFG node `node`", "facts/dataflow.py"),
    Relation("uses", ("v", "b"), "value v reads scalar or run binding b", "facts/dataflow.py"),
    Relation("let_init", ("b", "v", "node"), "`let` (or a function's scalar parameter) b takes the kind of v",
             "facts/dataflow.py"),
    Relation("var_assign", ("b", "v", "node"), "`var` b is assigned v at node (its initializer included)",
             "facts/dataflow.py"),
    Relation("loop_bound", ("b", "v"), "loop variable b has the kind of its bound v (lo, hi or step)",
             "facts/dataflow.py"),
    Relation("call_result", ("v", "r"), "value v reads the result of inlined call r", "facts/dataflow.py"),
    Relation("returns", ("r", "v", "node"), "inlined call r returns v at node", "facts/dataflow.py"),
    # --- sources (facts/ctx.py)
    Relation("seed", ("v", "kind", "origin"),
             "value v holds a source of that kind: a ctx field, a lane collective's result", "facts/ctx.py"),
    # --- memory (facts/memory.py)
    Relation("store", ("node", "buf", "v*"), "a per-thread point or run store to buf at node, its indices and value",
             "facts/memory.py"),
    Relation("load", ("node", "buf", "v*"), "a point or run load from buf at node, with its indices",
             "facts/memory.py"),
    Relation("view", ("b", "buf"), "`let` view b is a slice of buf", "facts/memory.py"),
    Relation("reads", ("op", "buf", "name"), "CTA-wide operation op reads buf (LANGUAGE §9.5) through `name`",
             "facts/memory.py"),
    # --- operations (facts/operations.py)
    Relation("op", ("op", "node", "class", "name"), "an operation of LANGUAGE §8 and its DESIGN.md name",
             "facts/operations.py"),
    Relation("operand", ("op", "v"), "a scalar operand of op (slice offsets and ends, broadcast scalars, "
             "atomic index and value, shuffle lane)", "facts/operations.py"),
    Relation("barrier", ("node",), "node is a `barrier()` statement", "facts/operations.py"),
    # --- control (facts/control.py)
    Relation("edge", ("node", "node"), "control may pass from the first node to the second", "facts/control.py"),
    Relation("back_edge", ("node", "node", "loop"), "a loop's back edge", "facts/control.py"),
    Relation("parent", ("node", "p"), "node runs under control node p (a condition, loop header or call)",
             "facts/control.py"),
    Relation("cond", ("p", "v"), "control node p branches on v (an if/while condition's operand, the left side "
             "of an && or || whose right side runs under p, or a for loop's bound)",
             "facts/control.py"),
    Relation("loop_again", ("header", "p"), "a loop's condition (from its header) runs again under the "
             "control inside p, the node whose value decides the loop", "facts/control.py"),
    Relation("raises", ("node", "t", "how"), "an early exit at node (break/continue/return) raises t's control "
             "(LANGUAGE §9.3)", "facts/control.py"),
    # --- derived (facts/derive.py)
    Relation("kind", ("x", "kind"), "least fixpoint: the kind of each value, binding and call result", "facts/derive.py"),
    Relation("control", ("node|op", "kind"), "least fixpoint: the control kind of each node and operation",
             "facts/derive.py"),
    Relation("per_thread_store", ("node", "buf"), "a store whose value, an index or control is not uniform "
             "(LANGUAGE §9.4)", "facts/derive.py"),
    Relation("unsynced", ("store", "op", "buf", "via_loop"), "a path from a per-thread store to a CTA-wide read "
             "of buf avoiding every barrier (LANGUAGE §9.6); via_loop names the back edge's loop, or None",
             "facts/derive.py"),
]

UNIFORM, WARP_UNIFORM, VARYING = 0, 1, 2
KIND_NAMES = ("uniform", "warp-uniform", "varying")


def differs(kind: int, unit: str = "lanes") -> str:
    """`differs between lanes` (varying) or `differs between warps` (warp-uniform), §9.7."""
    return "differs between lanes" if kind == VARYING and unit == "lanes" else \
        "differs between threads" if kind == VARYING else "differs between warps"
