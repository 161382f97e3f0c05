"""AST -> control-flow graph: one ``networkx.DiGraph`` per kernel, functions inlined.

The builder keeps the edges in a dict (``KernelCFG.edge_back``) and the analysis reads them
there; ``KernelCFG.graph`` makes the ``networkx.DiGraph`` the first time it is asked for (by
``--dump-cfg``, say), since building one for every node cost more than the rest of the CFG.

Nodes are integers. Each carries a ``Site``: what the node is (entry, exit, a statement, a
condition, a loop's init/step, an inlined call, a function's return join), the AST behind it, the
``Instance`` (kernel body or inlined call) it belongs to, and its *control parent*: the condition,
loop header or call node it runs under (control kinds flow from the parent, LANGUAGE §9.3).

Edges follow execution: branches of ``if``, loop back edges (marked ``back=True``), ``break`` to
the loop's exit, ``continue`` to the next iteration, ``return`` to the kernel's exit or the
inlined function's return join, and short-circuit ``&&``/``||`` (a condition is split into one
node per operand). The builder also records the structure the analysis needs beside the graph:
loops with their bounds, the statements each early exit raises (§9.3), and each node's
enclosing conditions (the guards the z3 check translates).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from itertools import islice

from .semantics import Instance, KernelInfo
from .syntax import ast as A

ENTRY, EXIT, STMT, COND, FOR_INIT, FOR_STEP, CALL, RETURN_JOIN = (
    "entry", "exit", "stmt", "cond", "for_init", "for_step", "call", "return_join")


@dataclass(eq=False, slots=True)
class Site:
    id: int
    kind: str
    ast: object                  # the statement, the condition expression, or the For/Call node
    inst: Instance
    parent: int | None           # control parent: a COND, a loop header (COND) or a CALL node
    exprs: tuple = ()            # the expressions evaluated at this node
    guards: tuple = ()           # enclosing conditions: ((cond node id, taken: bool), ...), outermost first
    loops: tuple = ()            # enclosing loops, outermost first (Loop ids)
    whole_condition: object = None   # on the last node of a split condition: the whole condition
    loop_header_of: int | None = None
    short_circuit: tuple = ()    # on a CALL node: the left operands of the `&&`/`||` whose right
                                 # side holds the call (it runs only where they decide so)

    @property
    def span(self):
        return getattr(self.ast, "span", None)


@dataclass(eq=False)
class Loop:
    id: int
    kind: str                    # "for" or "while"
    ast: object
    inst: Instance
    header: int                  # the condition node (for: `i < hi`; while: the first condition node)
    init: int = -1               # for: the node that evaluates lo, hi and step, once, before the loop
    latches: list = field(default_factory=list)   # sources of back edges
    exit_nodes: list = field(default_factory=list)
    parent: int | None = None    # enclosing Loop id
    block_depth: int = 0         # index of the loop body's frame in the builder's block stack
    last_cond: int = -1          # the condition node whose value decides the loop (for: the header)


@dataclass(eq=False)
class KernelCFG:
    kernel: KernelInfo
    sites: list[Site]
    loops: list[Loop]
    entry: int
    exit: int
    # early exits: node id -> the nodes whose control it raises (LANGUAGE §9.3), a Targets
    raises: dict = field(default_factory=dict)
    call_nodes: dict[int, int] = field(default_factory=dict)   # id(Instance) of a call -> CALL node
    return_joins: dict[int, int] = field(default_factory=dict) # id(Instance) -> RETURN_JOIN node
    # every edge (a, b) -> whether it is a back edge, in the order the edges were first made
    edge_back: dict = field(default_factory=dict)
    _graph: object = field(default=None, repr=False)
    _while_conditions: frozenset | None = field(default=None, repr=False)

    @property
    def while_conditions(self) -> frozenset:
        """The condition nodes that decide a `while` loop (each loop's last), made once: the
        diagnostics ask per operation, and a scan of all loops each time was quadratic."""
        got = self._while_conditions
        if got is None:
            got = self._while_conditions = frozenset(l.last_cond for l in self.loops if l.kind == "while")
        return got

    def edges(self) -> list:
        """((a, b), back) for every edge, by source node, each source's edges in the order they
        were made (the order of ``graph.edges``)."""
        return sorted(self.edge_back.items(), key=_source)

    @property
    def graph(self):
        """The CFG as a ``networkx.DiGraph`` (nodes 0..n-1, back edges with ``back=True``),
        built on first use: the analysis itself walks ``edges()`` and never needs it."""
        if self._graph is None:
            import networkx as nx

            g = nx.DiGraph()
            g.add_nodes_from(range(len(self.sites)))
            for (a, b), back in self.edge_back.items():
                if back:
                    g.add_edge(a, b, back=True)
                else:
                    g.add_edge(a, b)
            self._graph = g
        return self._graph


class Builder:
    def __init__(self, kinfo: KernelInfo):
        self.kinfo = kinfo
        self.sites: list[Site] = []
        self.loops: list[Loop] = []
        self.raises: dict[int, list[int]] = {}
        self.call_nodes: dict[int, int] = {}
        self.return_joins: dict[int, int] = {}
        self._edge_back: dict = {}     # (a, b) -> back edge? (a back edge made again stays one)
        # per body: the statement lists being walked (for "the statements after it")
        self._blocks: list[list] = []          # stack of [stmt list, index of current stmt, first node ids]
        self._loop_stack: list[Loop] = []
        self._guards: list[tuple[int, bool]] = []
        self._guards_t: tuple | None = ()      # tuple(self._guards), None once it changed
        self._loop_ids: tuple = ()             # the ids of self._loop_stack
        self._function_stack: list[dict] = []  # per inlined function: {"join": id, "blocks_base": n, "loops_base": n}

    # ---- graph primitives
    def node(self, kind, ast, inst, parent, exprs=()) -> int:
        nid = len(self.sites)
        guards = self._guards_t
        if guards is None:           # shared by the nodes under the same conditions
            guards = self._guards_t = tuple(self._guards)
        # (a node's loops are its Site.loops, shared by all the nodes of a loop level; a set of
        # nodes per loop cost depth x nodes: 400 nested loops around 20,000 statements, 1.1 GB)
        self.sites.append(Site(nid, kind, ast, inst, parent, tuple(exprs), guards, self._loop_ids))
        return nid

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

    def connect(self, preds, target: int, back: bool = False) -> None:
        edge_back = self._edge_back
        if back:
            for p in preds:
                edge_back[(p, target)] = True
        else:
            for p in preds:
                edge_back.setdefault((p, target), False)

    # ---- entry
    def build(self) -> KernelCFG:
        k = self.kinfo
        inst = k.instance
        entry = self.node(ENTRY, k.kernel, inst, None)
        self._function_stack.append({"join": None, "blocks_base": 0, "loops_base": 0, "returns": []})
        preds = self.block(k.kernel.body.stmts, [entry], inst, None, new_block=True)
        exit_ = self.node(EXIT, k.kernel, inst, None)
        self.connect(preds, exit_)
        frame = self._function_stack.pop()
        self.connect(frame["returns"], exit_)
        return KernelCFG(k, self.sites, self.loops, entry, exit_, self.raises, self.call_nodes,
                         self.return_joins, self._edge_back)

    # ---- blocks and statements
    def block(self, stmts, preds, inst, parent, new_block=True) -> list[int]:
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

    def stmt(self, s, preds, inst, parent) -> list[int]:
        t = type(s)
        if t is A.Assign:          # the common case first
            exprs = (s.target, s.value)
        elif isinstance(s, A.If):
            return self.if_stmt(s, preds, inst, parent)
        elif isinstance(s, A.While):
            return self.while_stmt(s, preds, inst, parent)
        elif isinstance(s, A.For):
            return self.for_stmt(s, preds, inst, parent)
        else:
            exprs = _stmt_exprs(s)
        if inst.calls:
            preds = self.inline_calls(exprs, preds, inst, parent)
        n = self.node(STMT, s, inst, parent, exprs)
        edge_back = self._edge_back
        for p in preds:
            edge_back.setdefault((p, n), False)
        if t is A.Assign:
            return [n]
        if isinstance(s, A.Break):
            loop = self._loop_stack[-1]
            loop.exit_nodes.append(n)
            self.raises[n] = [loop.header]                     # every statement of its loop
            return []
        if isinstance(s, A.Continue):
            loop = self._loop_stack[-1]
            self._continue_edges.setdefault(loop.id, []).append(n)
            self.raises[n] = self._after_in_body(loop_body=True)
            return []
        if isinstance(s, A.Return):
            frame = self._function_stack[-1]
            frame["returns"].append(n)
            targets = self._after_in_body(loop_body=False)
            targets += [l.header for l in self._loop_stack[frame["loops_base"]:]]
            self.raises[n] = targets
            return []
        return [n]

    _continue_edges: dict

    def _after_in_body(self, loop_body: bool) -> list:
        """Marker for the statements after the current one, up to the end of the loop body
        (continue) or of the function/kernel body (return). Resolved to node ids once the
        enclosing blocks are built (see _resolve_after)."""
        frame = self._function_stack[-1]
        depth_limit = self._loop_stack[-1].block_depth if loop_body else frame["blocks_base"]
        marks = []
        for b in self._blocks[depth_limit:]:
            marks.append((b, b[1]))
        return [("after", marks)]

    def if_stmt(self, s: A.If, preds, inst, parent) -> list[int]:
        _, last, true_exits, false_exits = self.condition(s.cond, preds, inst, parent)
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
        """Split a condition at short-circuit operators into one node per operand.
        Returns (preds, last node, true exits, false exits)."""
        last, t, f = self._condition_part(cond, preds, inst, parent)
        # the whole condition's value is what guards the branches: record it on the last node
        self.sites[last].whole_condition = cond
        return preds, last, t, f

    def _condition_part(self, e, preds, inst, parent):
        """(last node, true exits, false exits) of one operand of a split condition. A method,
        not a recursive closure: a closure that calls itself is a reference cycle, which kept each
        check's whole CFG alive until the cyclic collector ran (off in phobos-check)."""
        if isinstance(e, A.Binary) and e.op in ("&&", "||"):
            last_l, t_l, f_l = self._condition_part(e.lhs, preds, inst, parent)
            if e.op == "&&":
                last_r, t_r, f_r = self._condition_part(e.rhs, t_l, inst, last_l)
                return last_r, t_r, f_l + f_r
            last_r, t_r, f_r = self._condition_part(e.rhs, f_l, inst, last_l)
            return last_r, t_l + t_r, f_r
        preds = self.inline_calls((e,), preds, inst, parent)
        n = self.node(COND, e, inst, parent, (e,))
        self.connect(preds, n)
        return n, [n], [n]

    def while_stmt(self, s: A.While, preds, inst, parent) -> list[int]:
        loop = Loop(len(self.loops), "while", s, inst, -1)
        loop.parent = self._loop_stack[-1].id if self._loop_stack else None
        loop.block_depth = len(self._blocks)
        self.loops.append(loop)
        self.push_loop(loop)
        first = len(self.sites)
        _, last, t, f = self.condition(s.cond, preds, inst, parent)
        loop.header = first
        loop.last_cond = last
        self.sites[first].loop_header_of = loop.id
        self.push_guard((last, True))
        body_exits = self.block(s.body.stmts, t, inst, last)
        self.pop_guard()
        self.connect(body_exits, first, back=True)
        conts = self._continue_edges.pop(loop.id, [])
        self.connect(conts, first, back=True)
        loop.latches = body_exits + conts
        self.pop_loop()
        return f + loop.exit_nodes

    def for_stmt(self, s: A.For, preds, inst, parent) -> list[int]:
        # lo, hi and step are evaluated once, before the first iteration, under the control
        # around the loop (as the lowering and the simulator run them); the header only compares
        # the loop variable with the saved `hi`, and the latch only adds the saved `step`
        bounds = tuple(s.args)
        preds = self.inline_calls(bounds, preds, inst, parent)
        init = self.node(FOR_INIT, s, inst, parent, bounds)
        self.connect(preds, init)
        loop = Loop(len(self.loops), "for", s, inst, -1, init=init)
        loop.parent = self._loop_stack[-1].id if self._loop_stack else None
        loop.block_depth = len(self._blocks)
        self.loops.append(loop)
        self.push_loop(loop)
        header = self.node(COND, s, inst, parent)
        self.sites[header].loop_header_of = loop.id
        loop.header = header
        loop.last_cond = header
        self.connect([init], header)
        self.push_guard((header, True))
        body_exits = self.block(s.body.stmts, [header], inst, header)
        conts = self._continue_edges.pop(loop.id, [])
        step_node = self.node(FOR_STEP, s, inst, header)
        self.connect(body_exits + conts, step_node)
        self.pop_guard()
        self.connect([step_node], header, back=True)
        loop.latches = [step_node]
        self.pop_loop()
        return [header] + loop.exit_nodes

    # ---- inlined functions
    def inline_calls(self, exprs, preds, inst: Instance, parent) -> list[int]:
        """Inline, in evaluation order, every user-function call in ``exprs``."""
        if not inst.calls:
            return preds
        for call, short_circuit in _calls_in(exprs, inst):
            callee = inst.calls[id(call)]
            cn = self.node(CALL, call, inst, parent, tuple(call.args))
            if short_circuit:
                self.sites[cn].short_circuit = short_circuit
            self.connect(preds, cn)
            self.call_nodes[id(callee)] = cn
            self._function_stack.append({"join": None, "blocks_base": len(self._blocks),
                                         "loops_base": len(self._loop_stack), "returns": []})
            saved_guards = self._guards
            self._guards = list(saved_guards)
            body_exits = self.block(callee.node.body.stmts, [cn], callee, cn)
            self._guards = saved_guards
            self._guards_t = None
            frame = self._function_stack.pop()
            join = self.node(RETURN_JOIN, call, callee, cn)
            self.return_joins[id(callee)] = join
            self.connect(body_exits + frame["returns"], join)
            preds = [join]
        return preds


def _calls_in(exprs, inst: Instance):
    """User-function calls in ``exprs``, innermost first, left to right (evaluation order), each
    with the left operands of the enclosing ``&&``/``||`` whose right side holds it."""
    out = []
    for e in exprs:
        stack = [(e, False, ())]
        while stack:
            node, done, guards = stack.pop()
            if done:
                if isinstance(node, A.Call) and id(node) in inst.calls:
                    out.append((node, guards))
                continue
            stack.append((node, True, guards))
            if isinstance(node, A.Binary) and node.op in ("&&", "||"):
                stack.append((node.rhs, False, guards + (node.lhs,)))
                stack.append((node.lhs, False, guards))
                continue
            for child in reversed(_expr_children(node)):
                stack.append((child, False, guards))
    return out


def _expr_children(e) -> list:
    if isinstance(e, A.Binary):
        return [e.lhs, e.rhs]
    if isinstance(e, A.Unary):
        return [e.operand]
    if isinstance(e, (A.Call, A.GenericCall)):
        extra = [e.param] if isinstance(e, A.GenericCall) else []
        return extra + list(e.args)
    if isinstance(e, A.Index):
        out = [e.base]
        for s in e.subs:
            if isinstance(s, A.Point):
                out.append(s.index)
            elif isinstance(s, A.SpanSub):
                out.extend((s.start, s.length))
            else:
                out.extend(x for x in (s.lo, s.hi) if x is not None)
        return out
    if isinstance(e, A.Member):
        return [e.value]
    return []


def _stmt_exprs(s) -> tuple:
    if isinstance(s, (A.Let,)):
        return (s.value,)
    if isinstance(s, A.Var):
        return (s.value,) if s.value is not None else ()
    if isinstance(s, A.Assign):
        return (s.target, s.value)
    if isinstance(s, A.ExprStmt):
        return (s.expr,)
    if isinstance(s, A.Return):
        return (s.value,) if s.value is not None else ()
    return ()


def _source(edge) -> int:
    return edge[0][0]


def build_cfg(kinfo: KernelInfo) -> KernelCFG:
    b = Builder(kinfo)
    b._continue_edges = {}
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


def expr_children(e) -> list:
    return _expr_children(e)


def to_dot(cfg: KernelCFG) -> str:
    """The CFG in Graphviz DOT: one box per node labelled with its line and source."""
    from .syntax.printer import expr as show, stmt as show_stmt

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
        elif site.kind == COND:
            text = show(a)
        else:
            out: list[str] = []
            show_stmt(a, 0, out)
            text = out[0] if out else type(a).__name__
        line = site.span.line if site.span is not None else 0
        text = text.replace("\\", "\\\\").replace('"', '\\"')
        return f"{line}: {text}"

    lines = [f'digraph "{cfg.kernel.kernel.name}" {{', "  node [shape=box, fontname=monospace];"]
    for site in cfg.sites:
        shape = ', shape=diamond' if site.kind == COND else ""
        lines.append(f'  n{site.id} [label="{label(site)}"{shape}];')
    for (a, b), back in cfg.edges():
        style = ' [style=dashed, label="back"]' if back else ""
        lines.append(f"  n{a} -> n{b}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"
