"""AST -> control-flow graph at the grain of LANGUAGE §6: one ``networkx.DiGraph`` per kernel,
functions inlined.

Every operation whose place in a statement matters is a node of its own, in evaluation order
(§6): an inlined call (a CALL node, the callee's body, a RETURN_JOIN node), the left operand of
each `&&`/`||` wherever it stands (a COND node the right side runs under), a collective, a
shuffle, an atomic, an acquire load, a computed tile argument, and the statement itself (a STMT
node: its own operation, a store, an assignment, a tile statement's sweep). A `while` condition
is evaluated whole before every iteration, calls included; a `for` loop's bounds once, before
it (a FOR_INIT node), its test at the header (a COND node) and its step at a FOR_STEP node. The
per-thread work between two nodes (loads, runs) belongs to the node that follows it
(``Site.plain``).

The graph is the one source of truth: nodes are 0..n-1 (``KernelCFG.sites[n]`` says what node n
is), edges carry ``back`` (the loop id of a back edge) and ``taken`` (True/False on the two
edges out of a condition). The analysis reads the graph's adjacency (``graph.succ``,
``graph.pred``) and asks networkx for what suits it (dominators for the feasible-path
questions). Beside the graph the builder records the structure the rules need: loops with their
bounds and node ranges, each node's control parent (the condition, loop header or call it runs
under, LANGUAGE §9.3), the statements each early exit raises, and the syntactic conditions that
enclose each node (for the diagnostics' wording).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import field
from itertools import islice

from ..language.records import record
from ..language.builtins import ATOMICS, MEMORY_ORDER
from ..language.ops import OpClass
from .sema import Instance, KernelInfo
from .syntax import ast as A
from .syntax.printer import expr as show, stmt as show_stmt

ENTRY, EXIT, STMT, COND, OP, FOR_INIT, FOR_STEP, CALL, RETURN_JOIN = (
    "entry", "exit", "stmt", "cond", "op", "for_init", "for_step", "call", "return_join")

# the operations that run at their own node (LANGUAGE §6: "a barrier, a collective, an atomic or
# an inlined call inside an expression happens exactly at its place in this order")
_OWN_NODE = (OpClass.LANE_LEVEL, OpClass.LANE_COLLECTIVE, OpClass.CTA_COLLECTIVE)
ONCE_PER_CTA = frozenset(ATOMICS) | frozenset(MEMORY_ORDER)


@record(eq=False, slots=True)
class Site:
    id: int
    kind: str
    ast: object                  # the statement, condition, operation expression, For or Call
    inst: Instance
    parent: int | None           # control parent: a COND node or a CALL node
    ops: tuple = ()              # the expressions (or statement) whose operation runs at this node
    plain: tuple = ()            # per-thread operations evaluated just before it (loads, runs, slices)
    guards: tuple = ()           # enclosing conditions ((cond node, taken), ..), outermost first
    loops: tuple = ()            # enclosing loops, outermost first (Loop ids)
    whole_condition: object = None   # on the last node of an `if`/`while` condition: the condition
    loop_header_of: int | None = None

    @property
    def span(self):
        return getattr(self.ast, "span", None)


@record(eq=False)
class Loop:
    id: int
    kind: str                    # "for" or "while"
    ast: object
    inst: Instance
    header: int                  # for: the test `i < hi`; while: the first node of the condition
    init: int = -1               # for: the node that evaluates lo, hi and step, once, before the loop
    latches: list = field(default_factory=list)   # sources of back edges
    exit_nodes: list = field(default_factory=list)   # its `break`s
    parent: int | None = None    # enclosing Loop id
    block_depth: int = 0         # index of the loop body's frame in the builder's block stack
    last_cond: int = -1          # the condition node whose value decides the loop (for: the header)
    tops: tuple = ()             # the nodes of its condition directly under the control around it
    first: int = -1              # the loop's nodes are first .. end - 1 (the for init is before)
    end: int = -1


@record(eq=False)
class KernelCFG:
    kernel: KernelInfo
    sites: list[Site]
    loops: list[Loop]
    entry: int
    exit: int
    graph: object                # networkx.DiGraph
    # early exits: node id -> the nodes whose control it raises (LANGUAGE §9.3), a Targets
    raises: dict = field(default_factory=dict)
    call_nodes: dict[int, int] = field(default_factory=dict)   # id(Instance) of a call -> CALL node
    return_joins: dict[int, int] = field(default_factory=dict) # id(Instance) -> RETURN_JOIN node
    loop_of: dict = field(default_factory=dict)   # (id(For or While), id(Instance)) -> Loop id
    _while_conditions: frozenset | None = field(default=None, repr=False)

    @property
    def while_conditions(self) -> frozenset:
        """The condition nodes that decide a `while` loop (each loop's last), made once: the
        diagnostics ask per operation, and a scan of all loops each time was quadratic."""
        got = self._while_conditions
        if got is None:
            got = self._while_conditions = frozenset(l.last_cond for l in self.loops if l.kind == "while")
        return got

    def edges(self):
        """(a, b, attributes) for every edge of the graph, by source node. (Read through
        ``adjacency()``, which hands out the graph's own dicts: its edge view is several times
        slower, and once made holds the graph, a reference cycle that would keep every checked
        file's graph alive with the collector off.)"""
        for a, nbrs in self.graph.adjacency():
            for b, d in nbrs.items():
                yield a, b, d


class Builder:
    def __init__(self, kinfo: KernelInfo):
        self.kinfo = kinfo
        self.sites: list[Site] = []
        self.loops: list[Loop] = []
        self.raises: dict[int, list] = {}
        self.call_nodes: dict[int, int] = {}
        self.return_joins: dict[int, int] = {}
        self.loop_of: dict = {}
        self._edges: dict = {}                 # (a, b) -> attributes (made once; a back edge stays one)
        self._blocks: list[list] = []          # stack of [stmts, index, first node ids, parent, end]
        self._loop_stack: list[Loop] = []
        self._guards: list[tuple[int, bool]] = []
        self._guards_t: tuple | None = ()      # tuple(self._guards), None once it changed
        self._loop_ids: tuple = ()
        self._function_stack: list[dict] = []
        self._plain: list = []                 # per-thread operations waiting for their node
        self._sink: list | None = None         # inside a tile statement's value: its nested tile operations
        self._early: frozenset = frozenset()   # ... and those that run at their own place (evaluation.py)
        self._continue_edges: dict = {}

    # ---- graph primitives
    def node(self, kind, ast, inst, parent, preds=(), ops=()) -> int:
        nid = len(self.sites)
        guards = self._guards_t
        if guards is None:           # shared by the nodes under the same conditions
            guards = self._guards_t = tuple(self._guards)
        plain = ()
        if self._plain:
            plain = tuple(self._plain)
            self._plain.clear()
        # (a node's loops are its Site.loops, shared by all the nodes of a loop level; a set of
        # nodes per loop cost depth x nodes: 400 nested loops around 20,000 statements, 1.1 GB)
        self.sites.append(Site(nid, kind, ast, inst, parent, ops, plain, guards, self._loop_ids))
        if preds:
            self.connect(preds, nid)
        return nid

    def connect(self, preds, target: int, back: int | None = None) -> None:
        """Edges from ``preds`` ((node, taken) pairs: taken is True/False on an edge out of a
        condition, None otherwise) to ``target``; ``back`` marks a loop's back edge."""
        edges = self._edges
        for p, taken in preds:
            attrs = edges.get((p, target))
            if attrs is None:
                attrs = edges[(p, target)] = {} if taken is None else {"taken": taken}
            elif attrs.get("taken", taken) != taken:
                # both ways out of a condition lead here (`if c { }`): the one edge decides nothing
                del attrs["taken"]
            if back is not None:
                attrs["back"] = back

    def push_guard(self, guard) -> None:
        self._guards.append(guard)
        self._guards_t = None

    def pop_guard(self) -> None:
        self._guards.pop()
        self._guards_t = None

    def push_loop(self, loop: Loop) -> None:
        self._loop_stack.append(loop)
        self._loop_ids = self._loop_ids + (loop.id,)

    def pop_loop(self) -> None:
        self._loop_stack.pop()
        self._loop_ids = self._loop_ids[:-1]

    # ---- entry
    def build(self) -> KernelCFG:
        import networkx as nx

        k = self.kinfo
        inst = k.instance
        entry = self.node(ENTRY, k.kernel, inst, None)
        self._function_stack.append({"join": None, "blocks_base": 0, "loops_base": 0, "returns": []})
        preds = self.block(k.kernel.body.stmts, [(entry, None)], inst, None)
        exit_ = self.node(EXIT, k.kernel, inst, None, preds)
        frame = self._function_stack.pop()
        self.connect(frame["returns"], exit_)
        graph = _digraph(nx, len(self.sites), self._edges)
        return KernelCFG(k, self.sites, self.loops, entry, exit_, graph, self.raises, self.call_nodes,
                         self.return_joins, self.loop_of)

    # ---- blocks and statements
    def block(self, stmts, preds, inst, parent) -> list:
        # frame: [statements, index of the current one, per statement its first node id, the
        # control parent, the node id after the block's last] (what raising "the statements
        # after it" raises: their nodes directly under `parent`, see _resolve_after)
        starts: list = []
        frame = [stmts, 0, starts, parent, None]
        self._blocks.append(frame)
        sites = self.sites
        stmt = self.stmt
        for i, s in enumerate(stmts):
            frame[1] = i
            starts.append(len(sites))
            preds = stmt(s, preds, inst, parent)
        frame[4] = len(sites)
        self._blocks.pop()
        return preds

    def stmt(self, s, preds, inst, parent) -> list:
        t = type(s)
        if t is A.If:
            return self.if_stmt(s, preds, inst, parent)
        if t is A.While:
            return self.while_stmt(s, preds, inst, parent)
        if t is A.For:
            return self.for_stmt(s, preds, inst, parent)
        own = inst.ops.get(id(s))
        tile = own is not None and own.cls is OpClass.CTA_WIDE
        if tile:
            saved_sink, self._sink = self._sink, []
            saved_early, self._early = self._early, _early_ids(inst, getattr(s, "value", None))
        if t is A.Assign:
            # §6: the target's subscripts first, left to right, then the right side; a compound
            # assignment then reads the target and writes it (at the statement's node)
            target = s.target
            if type(target) is A.Index:
                for x in _subscript_exprs(target):
                    preds = self.expr(x, preds, inst, parent)
                self.plain_op(target, inst)
            preds = self.expr(s.value, preds, inst, parent)
            ops = (s,) if own is not None else ()
        elif t is A.ExprStmt:
            e = s.expr
            op = inst.ops.get(id(e))
            if op is not None and type(e) is A.Call and id(e) not in inst.calls:
                # the statement's own operation (barrier(), store(..), an atomic, store_release):
                # its arguments first, then the operation, at the statement's node
                for a in e.args:
                    preds = self.expr(a, preds, inst, parent)
                ops = (e,)
            else:
                preds = self.expr(e, preds, inst, parent)
                ops = ()
        elif t is A.Let or t is A.Var or t is A.Return:
            if s.value is not None:
                preds = self.expr(s.value, preds, inst, parent)
            ops = (s,) if own is not None else ()
        else:                                        # break, continue
            ops = (s,) if own is not None else ()
        if tile:
            ops = ops + tuple(self._sink)
            self._sink = saved_sink
            self._early = saved_early
        n = self.node(STMT, s, inst, parent, preds, ops)
        if t is A.Break:
            loop = self._loop_stack[-1]
            loop.exit_nodes.append(n)
            self.raises[n] = list(loop.tops)          # every statement of its loop, its condition too
            return []
        if t is A.Continue:
            loop = self._loop_stack[-1]
            self._continue_edges.setdefault(loop.id, []).append(n)
            self.raises[n] = self._after_in_body(loop_body=True)
            return []
        if t is A.Return:
            frame = self._function_stack[-1]
            frame["returns"].append((n, None))
            targets = self._after_in_body(loop_body=False)
            for l in self._loop_stack[frame["loops_base"]:]:
                targets += list(l.tops)
            self.raises[n] = targets
            return []
        return [(n, None)]

    def _after_in_body(self, loop_body: bool) -> list:
        """Marker for the statements after the current one, up to the end of the loop body
        (continue) or of the function/kernel body (return). Resolved to node ids once the
        enclosing blocks are built (see _resolve_after)."""
        frame = self._function_stack[-1]
        depth_limit = self._loop_stack[-1].block_depth if loop_body else frame["blocks_base"]
        return [("after", [(b, b[1]) for b in self._blocks[depth_limit:]])]

    def if_stmt(self, s: A.If, preds, inst, parent) -> list:
        last, true_exits, false_exits = self.condition(s.cond, preds, inst, parent)
        self.push_guard((last, True))
        then_exits = self.block(s.then.stmts, true_exits, inst, last)
        self.pop_guard()
        self.push_guard((last, False))
        if isinstance(s.orelse, A.If):       # `else if` runs under the first condition too
            else_exits = self.if_stmt(s.orelse, false_exits, inst, last)
        elif s.orelse is not None:
            else_exits = self.block(s.orelse.stmts, false_exits, inst, last)
        else:
            else_exits = false_exits
        self.pop_guard()
        return then_exits + else_exits

    def condition(self, cond, preds, inst, parent):
        """An `if`/`while` condition, split at its top-level `&&`/`||` into one COND node per
        operand. Returns (last node, true exits, false exits)."""
        last, t, f = self._condition_part(cond, preds, inst, parent)
        # the whole condition's value is what guards the branches: record it on the last node
        self.sites[last].whole_condition = cond
        return last, t, f

    def _condition_part(self, e, preds, inst, parent):
        """(last node, true exits, false exits) of one operand of a split condition. A method,
        not a recursive closure: a closure that calls itself is a reference cycle, which kept each
        check's whole CFG alive until the cyclic collector ran (off in phobos-check)."""
        if type(e) is A.Binary and (e.op == "&&" or e.op == "||"):
            last_l, t_l, f_l = self._condition_part(e.lhs, preds, inst, parent)
            and_ = e.op == "&&"
            self.push_guard((last_l, and_))
            last_r, t_r, f_r = self._condition_part(e.rhs, t_l if and_ else f_l, inst, last_l)
            self.pop_guard()
            return (last_r, t_r, f_l + f_r) if and_ else (last_r, t_l + t_r, f_r)
        preds = self.expr(e, preds, inst, parent)
        n = self.node(COND, e, inst, parent, preds)
        return n, [(n, True)], [(n, False)]

    def while_stmt(self, s: A.While, preds, inst, parent) -> list:
        loop = Loop(len(self.loops), "while", s, inst, -1)
        loop.parent = self._loop_stack[-1].id if self._loop_stack else None
        loop.block_depth = len(self._blocks)
        self.loops.append(loop)
        self.loop_of[(id(s), id(inst))] = loop.id
        self.push_loop(loop)
        first = loop.first = loop.header = len(self.sites)
        # the whole condition, calls and operations in it included, runs before every iteration:
        # its nodes are the loop's, and those directly under the control around the loop are
        # what an early exit or the condition's own kind raises (§9.3)
        last, t, f = self.condition(s.cond, preds, inst, parent)
        loop.last_cond = last
        loop.tops = tuple(n for n in range(first, len(self.sites)) if self.sites[n].parent == parent)
        self.sites[first].loop_header_of = loop.id
        self.push_guard((last, True))
        body_exits = self.block(s.body.stmts, t, inst, last)
        self.pop_guard()
        conts = [(c, None) for c in self._continue_edges.pop(loop.id, [])]
        self.connect(body_exits + conts, first, back=loop.id)
        loop.latches = [p for p, _ in body_exits + conts]
        loop.end = len(self.sites)
        self.pop_loop()
        return f + [(b, None) for b in loop.exit_nodes]

    def for_stmt(self, s: A.For, preds, inst, parent) -> list:
        # lo, hi and step are evaluated once, before the first iteration, under the control
        # around the loop (as the lowering and the simulator run them); the header only compares
        # the loop variable with the saved `hi`, and the latch only adds the saved `step`
        for bound in s.args:
            preds = self.expr(bound, preds, inst, parent)
        init = self.node(FOR_INIT, s, inst, parent, preds)
        loop = Loop(len(self.loops), "for", s, inst, -1, init=init)
        loop.parent = self._loop_stack[-1].id if self._loop_stack else None
        loop.block_depth = len(self._blocks)
        self.loops.append(loop)
        self.loop_of[(id(s), id(inst))] = loop.id
        self.push_loop(loop)
        header = self.node(COND, s, inst, parent, [(init, None)])
        self.sites[header].loop_header_of = loop.id
        loop.header = loop.last_cond = loop.first = header
        loop.tops = (header,)
        self.push_guard((header, True))
        body_exits = self.block(s.body.stmts, [(header, True)], inst, header)
        conts = [(c, None) for c in self._continue_edges.pop(loop.id, [])]
        step_node = self.node(FOR_STEP, s, inst, header, body_exits + conts)
        self.pop_guard()
        self.connect([(step_node, None)], header, back=loop.id)
        loop.latches = [step_node]
        loop.end = len(self.sites)
        self.pop_loop()
        return [(header, False)] + [(b, None) for b in loop.exit_nodes]

    # ---- expressions, in evaluation order (§6)
    def expr(self, e, preds, inst, parent) -> list:
        """The nodes of expression ``e``, in evaluation order; returns the new predecessors.
        Most expressions make no node at all (no call, no `&&`/`||`, no operation with a place
        of its own): one loop over the subtree finds that and files their per-thread work, and
        only the others are walked node by node (``walk``)."""
        if self._early:
            return self.walk(e, preds, inst, parent)
        ops = inst.ops
        calls = inst.calls
        sink = self._sink
        found = []
        stack = [e]
        pop = stack.pop
        push = stack.append
        while stack:
            x = pop()
            t = type(x)
            if t is A.Name or t is A.IntLit or t is A.FloatLit or t is A.CtxPath or t is A.BoolLit:
                continue
            if t is A.Binary:
                if x.op == "&&" or x.op == "||":
                    return self.walk(e, preds, inst, parent)
                push(x.rhs)
                push(x.lhs)
                continue
            op = ops.get(id(x))
            if op is not None:
                cls = op.cls
                if cls is OpClass.PER_THREAD or op.name == "slice":
                    if t is A.Call and id(x) in calls:
                        return self.walk(e, preds, inst, parent)
                    found.append(x)
                elif cls is OpClass.CTA_WIDE and sink is not None and getattr(x, "func", None) not in ONCE_PER_CTA:
                    found.append(x)
                else:
                    return self.walk(e, preds, inst, parent)
            if t is A.Unary:
                push(x.operand)
            elif t is A.Index:
                stack.extend(_subscript_exprs(x))
            elif t is A.Call or t is A.GenericCall:
                if t is A.GenericCall:
                    push(x.param)
                stack.extend(x.args)
            elif t is A.Member:
                push(x.value)
        for x in found:
            if sink is not None and ops[id(x)].cls is OpClass.CTA_WIDE and ops[id(x)].name != "slice":
                sink.append(x)
            else:
                self._plain.append(x)
        return preds

    def walk(self, e, preds, inst, parent) -> list:
        """``expr`` node by node, for an expression that makes nodes."""
        if self._early and id(e) in self._early:
            return self.early_operation(e, preds, inst, parent)
        t = type(e)
        if t is A.Binary:
            if e.op == "&&" or e.op == "||":
                # the right side runs only where the left side does not decide: a COND node on
                # the left side, the right side under it, both ways joining after
                preds = self.expr(e.lhs, preds, inst, parent)
                sc = self.node(COND, e.lhs, inst, parent, preds)
                go = e.op == "&&"
                self.push_guard((sc, go))
                right = self.expr(e.rhs, [(sc, go)], inst, sc)
                self.pop_guard()
                return right + [(sc, not go)]
            preds = self.expr(e.lhs, preds, inst, parent)
            return self.expr(e.rhs, preds, inst, parent)
        if t is A.Name or t is A.IntLit or t is A.FloatLit or t is A.BoolLit or t is A.CtxPath:
            return preds
        if t is A.Unary:
            return self.expr(e.operand, preds, inst, parent)
        if t is A.Index:
            # the indices before the access (§6)
            for x in _subscript_exprs(e):
                preds = self.expr(x, preds, inst, parent)
            self.plain_op(e, inst)
            return preds
        if t is A.Call:
            callee = inst.calls.get(id(e))
            if callee is not None:
                for a in e.args:
                    preds = self.argument(a, preds, inst, parent)
                return self.inline_call(e, callee, preds, inst, parent)
            for a in e.args:
                preds = self.expr(a, preds, inst, parent)
            return self.operation(e, preds, inst, parent)
        if t is A.GenericCall:
            for a in e.args:
                preds = self.expr(a, preds, inst, parent)
            preds = self.expr(e.param, preds, inst, parent)
            return self.operation(e, preds, inst, parent)
        if t is A.Member:
            return self.expr(e.value, preds, inst, parent)
        return preds

    def early_operation(self, e, preds, inst, parent) -> list:
        """A tile operation of a tile statement that runs at its own place, before an effect
        later in the statement (evaluation.py): a node of its own, with what it nests."""
        saved_sink, saved_early = self._sink, self._early
        self._sink, self._early = [], frozenset(x for x in saved_early if x != id(e))
        preds = self.expr(e, preds, inst, parent)
        ops = tuple(self._sink)
        self._sink, self._early = saved_sink, saved_early
        if not any(x is e for x in ops):
            ops = (e,) + ops
        return [(self.node(OP, e, inst, parent, preds, ops), None)]

    def argument(self, a, preds, inst, parent) -> list:
        """One argument of an inlined call. A computed tile (`f(t * 2.0)`, `f(rowsum(t))`) is
        swept into a tile of its own before the call: a CTA-wide operation at its place, with
        the tile operations nested in it."""
        op = inst.ops.get(id(a))
        if (op is None or op.cls is not OpClass.CTA_WIDE or op.name == "slice" or type(a) is A.Index
                or getattr(a, "func", None) in ONCE_PER_CTA):
            # an atomic, acquire load or release store yields a scalar and has its own node
            return self.expr(a, preds, inst, parent)
        saved_sink, self._sink = self._sink, []
        saved_early, self._early = self._early, _early_ids(inst, a)
        preds = self.expr(a, preds, inst, parent)
        ops = tuple(self._sink)
        self._sink, self._early = saved_sink, saved_early
        if not any(x is a for x in ops):
            ops = (a,) + ops
        return [(self.node(OP, a, inst, parent, preds, ops), None)]

    def operation(self, e, preds, inst, parent) -> list:
        """A built-in or generic call, its arguments evaluated: its own node when its place
        matters, else the node that follows it (per-thread work) or the tile statement it is
        part of."""
        op = inst.ops.get(id(e))
        if op is None:
            return preds
        cls = op.cls
        if cls in _OWN_NODE or (cls is OpClass.CTA_WIDE and getattr(e, "func", None) in ONCE_PER_CTA):
            return [(self.node(OP, e, inst, parent, preds, (e,)), None)]
        if cls is OpClass.CTA_WIDE and op.name != "slice":
            if self._sink is not None:
                self._sink.append(e)       # fused into the tile statement: it runs at its node
                return preds
            return [(self.node(OP, e, inst, parent, preds, (e,)), None)]
        self._plain.append(e)
        return preds

    def plain_op(self, e, inst) -> None:
        if id(e) in inst.ops:
            self._plain.append(e)

    # ---- inlined functions
    def inline_call(self, call, callee: Instance, preds, inst: Instance, parent) -> list:
        """The call's arguments are evaluated (by the caller); the body runs at the call's place."""
        cn = self.node(CALL, call, inst, parent, preds)
        self.call_nodes[id(callee)] = cn
        self._function_stack.append({"join": None, "blocks_base": len(self._blocks),
                                     "loops_base": len(self._loop_stack), "returns": []})
        saved_sink, self._sink = self._sink, None
        saved_early, self._early = self._early, frozenset()
        body_exits = self.block(callee.node.body.stmts, [(cn, None)], callee, cn)
        self._sink, self._early = saved_sink, saved_early
        frame = self._function_stack.pop()
        join = self.node(RETURN_JOIN, call, callee, cn, body_exits + frame["returns"])
        self.return_joins[id(callee)] = join
        return [(join, None)]


def _early_ids(inst, value) -> frozenset:
    early = inst.early.get(id(value)) if value is not None and inst.early else None
    return frozenset(id(n) for nodes in early.values() for n in nodes) if early else frozenset()


_subscript_exprs = A.subscript_exprs


def build_cfg(kinfo: KernelInfo) -> KernelCFG:
    b = Builder(kinfo)
    cfg = b.build()
    _resolve_after(cfg, b)
    return cfg


def _resolve_after(cfg: KernelCFG, b: Builder) -> None:
    """Turn the ("after", marks) placeholders of continue/return into node ids: for each
    enclosing block, the first node of every statement after the marked one (the nodes directly
    under the block's control parent). Each block's such nodes are listed once and every exit
    takes a suffix of that list, so n exits before n statements cost n, not n^2 (Targets)."""
    sites = cfg.sites
    tops: dict = {}          # id(block frame) -> its nodes directly under its parent, ascending
    for n, targets in cfg.raises.items():
        parts = []
        for t in targets:
            if isinstance(t, tuple) and t[0] == "after":
                for frame, index in t[1]:
                    _stmts, _i, starts, parent, end = frame
                    if index + 1 < len(starts):
                        top = tops.get(id(frame))
                        if top is None:
                            top = tops[id(frame)] = [m for m in range(starts[0], end) if sites[m].parent == parent]
                        first = bisect_left(top, starts[index + 1])
                        if first < len(top):
                            parts.append((top, first))
            else:
                parts.append(t)
        cfg.raises[n] = Targets(parts)


class Targets:
    """The nodes an early exit raises, in order: node ids and suffixes ``top[first:]`` of lists
    that several exits share. Iterate it; it is not copied into a list."""

    __slots__ = ("parts",)

    def __init__(self, parts: list):
        self.parts = parts

    def __iter__(self):
        for p in self.parts:
            if type(p) is int:
                yield p
            else:
                top, first = p
                yield from islice(top, first, None)

    def __len__(self) -> int:
        return sum(1 if type(p) is int else len(p[0]) - p[1] for p in self.parts)

    def __repr__(self) -> str:
        return f"Targets({list(self)})"


expr_children = A.children


def _digraph(nx, n: int, edges: dict):
    """The ``networkx.DiGraph`` of nodes 0..n-1 and ``edges`` ((a, b) -> attributes), with the
    adjacency dicts filled in directly, as networkx lays them out (``_node``, ``_succ`` = ``_adj``
    and ``_pred``, sharing one attribute dict per edge): ``add_edges_from`` checks and copies
    every edge and took a third of the CFG's time on 100,000 statements (0.35 of 1 s).
    tests/analysis/test_cfg_graph.py checks the result against the public construction."""
    succ = {i: {} for i in range(n)}
    pred = {i: {} for i in range(n)}
    for (a, b), d in edges.items():
        succ[a][b] = d
        pred[b][a] = d
    graph = nx.DiGraph()
    graph._node = {i: {} for i in range(n)}
    graph._adj = graph._succ = succ
    graph._pred = pred
    return graph


def to_dot(cfg: KernelCFG) -> str:
    """The CFG in Graphviz DOT, read off the graph: one box per node labelled with its line and
    source, a diamond per condition, back edges dashed, a condition's edges labelled."""
    def label(site: Site) -> str:
        a = site.ast
        if site.kind in (ENTRY, EXIT):
            return f"{site.kind} {cfg.kernel.kernel.name}"
        if site.kind == COND and isinstance(a, A.For):
            text = f"{a.var} < {show(a.args[1])}" if len(a.args) > 1 else a.var
        elif site.kind == FOR_INIT:
            text = f"{a.var} = {show(a.args[0])}" if a.args else a.var
        elif site.kind == FOR_STEP:
            text = f"{a.var} += {show(a.args[2]) if len(a.args) > 2 else '1'}"
        elif site.kind in (CALL, RETURN_JOIN):
            text = f"{'call' if site.kind == CALL else 'return from'} {a.func}"
        elif site.kind in (COND, OP):
            text = show(a)
        else:
            out: list[str] = []
            show_stmt(a, 0, out)
            text = out[0] if out else type(a).__name__
        line = site.span.line if site.span is not None else 0
        text = text.replace("\\", "\\\\").replace('"', '\\"')
        return f"{line}: {text}"

    g = cfg.graph
    lines = [f'digraph "{cfg.kernel.kernel.name}" {{', "  node [shape=box, fontname=monospace];"]
    for n in g.nodes:
        site = cfg.sites[n]
        shape = ', shape=diamond' if site.kind == COND else ', shape=ellipse' if site.kind == OP else ""
        lines.append(f'  n{n} [label="{label(site)}"{shape}];')
    for a, b, d in cfg.edges():
        attrs = []
        if "back" in d:
            attrs += ["style=dashed", 'label="back"']
        elif "taken" in d:
            attrs.append(f'label="{"true" if d["taken"] else "false"}"')
        lines.append(f"  n{a} -> n{b}{' [' + ', '.join(attrs) + ']' if attrs else ''};")
    lines.append("}")
    return "\n".join(lines) + "\n"
