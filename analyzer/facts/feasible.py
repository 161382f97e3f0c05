"""z3 for the barrier rule's feasible paths (LANGUAGE §9.6).

A store-to-read path that avoids every barrier is dropped only when z3 proves that no execution
takes every branch decision along it. The paths are grouped by the iterations they run in: a
*direct* path (s to r within the same iteration of every loop around both) is one segment; a
path *carried* by a loop L (s to L's latch, its back edge, L's header to r, in a later
iteration) is two, the iterations between them left free. A segment is told to z3 as a flow:
one boolean per node and per edge of the barrier-free graph between its ends, some path of them
from start to end, and each edge it takes out of a condition implying that condition (or its
negation). The conditions that dominate the store in the whole graph (networkx's dominators:
the `if .. { continue }` before it) are told as facts. Without cycles this is exact; where a
segment may go round a loop, each decision in it gets an iteration of its own, which only keeps
more paths: a path is dropped only on `unsat` (sound).

Each decision is translated in its iteration: a loop around both ends runs the same iteration
at both (one symbol); a carried path's loop runs i at the store and i' > i at the read; a loop
the segment enters runs its first iteration (`lo`), unless the segment may go round it, when
every decision in it gets an iteration of its own. A loop variable lies in its bounds
(`lo <= i < hi`, on the `step` grid when the step is a constant; an iteration made for one
decision of a loop the segment goes round lies in the bounds only where the path takes that
decision), a loop the segment goes round but whose back edges the path does not take is left at
its first visit (`i = lo`: a loop whose bounds prove it runs cannot be left at once), a `let`
stands for its initializer, one value for every occurrence in the same iterations of the loops
around it (a load, a call's result or a `var` in it is one unknown there), a function's parameter
for its argument, `ctx.threads`/`warps`/`lanes` are the
launch's constants and `ctx.thread`/`warp`/`lane`/`block` symbols in their ranges, `-D` and
`@autotune` values constants, tensor extents and scalar parameters symbols in their type's
range (`@aligned(D = n)`: `D % n == 0`); anything else (a `var`, a load, a call's result, a
float) is a fresh symbol at each occurrence. Integer `+ - * / % << >>` wrap in their type's
width (two's complement, as the lowering computes them).

z3 runs under fixed resource limits, never a wall-clock timeout, so verdicts do not depend on
machine load: at most ``RLIMIT`` units per question, and a budget per kernel (``kernel_budget``:
per `@autotune` configuration too, since each configuration is checked on its own) that every
question of the kernel draws from. The budget counts z3's own resource units (each kernel asks in
a z3 context of its own, whose count is the kernel's alone) and a charge for the formulas built
(``DECISION_COST`` per branch decision translated, ``NODE_COST`` per node of a segment's flow),
so it bounds the Python work around z3 as well. "unknown" keeps the path, marked undecided
(``LIMIT``: the question's own limit; ``BUDGET``: the kernel's budget ran out, and every later
question of the kernel is undecided without being asked). Questions are deduplicated by their
formula, a question with nothing to decide is never asked, and the cheap question (the decisions
every path must take) goes before the full one. A Ctrl-C while z3 works is z3's "interrupted
from keyboard", raised here as KeyboardInterrupt (z3 catches the signal itself, so Python would
never see it).
"""

from __future__ import annotations

import signal
import threading

from ..cfg import COND
from ..constants import affine, constant_of
from ..syntax import ast as A
from ...language.types import BYTES, Scalar

RLIMIT = 2_000_000       # z3 resource units per question: fixed, so verdicts are reproducible
MAX_DEPTH = 24           # how deep `let` initializers and arguments are substituted

# The budget of one kernel, in z3's resource units (2 to 5 microseconds of CPU each on the 2-core
# development machine, counting the Python that builds the questions): BUDGET_BASE, plus BUDGET_PER_SIZE for each expression and declaration of the
# kernel's own body (its calls count as the call expressions, not as the functions' bodies, so
# that a function called from many places or many kernels does not multiply the work), at most
# BUDGET_MAX. A file's total is then at most in proportion to its size. BUDGET_MAX keeps a kernel of
# 100 KB (n stores and n reads in one loop, benchmarks/hostile.py) near 16 s of CPU in all: with
# 20 million it took over 90 s. docs/limitations.md.
BUDGET_BASE = 100_000
BUDGET_PER_SIZE = 1_000
BUDGET_MAX = 2_000_000
DECISION_COST = 200      # units charged per branch decision translated for a question
NODE_COST = 100          # units charged per node of a segment told to z3 as a flow

LIMIT = "limit"          # undecided: z3 reached the question's own limit (RLIMIT)
BUDGET = "budget"        # undecided: the kernel's budget was spent

I32_MAX = (1 << 31) - 1
_RANGES = {"i8": (-128, 127), "u8": (0, 255), "i32": (-I32_MAX - 1, I32_MAX), "i64": (-(1 << 63), (1 << 63) - 1),
           "bool": (0, 1)}
_COMPARE = ("==", "!=", "<", "<=", ">", ">=")


def new_context(z3):
    """A z3 Context built with Ctrl-C held back until it is whole: an interrupt inside its
    __init__ leaves an object whose __del__ fails (z3's own code), printed at exit as a
    traceback. The interrupt is delivered as soon as the mask is lifted."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        return z3.Context()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return z3.Context()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def stands_for(name: A.Name, inst):
    """What a scalar name stands for: a `let`'s initializer (in its instance), or an inlined
    function's parameter's argument (in the caller); (expression, instance), or None."""
    b = inst.resolution.get(id(name))
    if b is None:
        return None
    if b.kind == "let" and isinstance(b.node, A.Let) and isinstance(b.type, Scalar):
        return b.node.value, inst
    if b.kind == "param" and inst.kind == "function" and inst.call_node is not None \
            and isinstance(b.node, A.Param) and isinstance(b.type, Scalar):
        for k, p in enumerate(inst.node.params):
            if p is b.node and k < len(inst.call_node.args):
                return inst.call_node.args[k], inst.parent
    return None


def kernel_budget(kinfo) -> int:
    """The z3 budget of one checked kernel (see BUDGET_BASE): fixed by its own body's size."""
    inst = kinfo.instance
    size = len(inst.types) + len(inst.decls)
    return min(BUDGET_MAX, BUDGET_BASE + BUDGET_PER_SIZE * size)


def _type_range(t) -> tuple[int, int]:
    return _RANGES.get(t.name, _RANGES["i64"]) if isinstance(t, Scalar) else _RANGES["i64"]


class Frame:
    """The iterations one segment of a path runs in: ``fixed`` maps a loop id to the z3 term of
    its variable at every visit of the segment; ``cycling`` holds the loops the segment may go
    round (each decision in one of them gets a fresh iteration); any other loop the segment
    meets runs its first iteration."""

    __slots__ = ("fixed", "cycling", "memo", "tags")

    def __init__(self, fixed: dict, cycling: frozenset = frozenset(), tags: dict | None = None):
        self.fixed = fixed
        self.cycling = cycling
        self.memo: dict = {}
        # which iteration a fixed loop runs in, the same name in every frame of one question
        # ("c": the iteration both ends share, "s": the store's, "r": the read's): two visits of
        # a `let` in the same iterations of the loops around it see one value (LANGUAGE §9.6)
        self.tags = tags if tags is not None else {}


class PathQuestions:
    """The feasible-path questions of one kernel (its facts), with their answers, asked in a z3
    context of the kernel's own within the kernel's budget."""

    def __init__(self, facts, budget: int | None = None):
        self.facts = facts
        self.cfg = facts.cfg
        self.kinfo = facts.cfg.kernel
        self.budget = kernel_budget(self.kinfo) if budget is None else budget
        self._z3 = None
        self.ctx = None
        self._idom = None
        self._answers: dict = {}        # formula key -> (feasible, undecided)
        self._symbols: dict = {}        # key -> (z3 symbol, range constraint)
        self._segments: dict = {}       # (start, exits, removed) -> (forced decisions, cycling loops)
        self._sink_trees: dict = {}     # (exits, removed, within) -> SinkTree
        self._blocked_set = None        # the barrier nodes
        self._guards: dict = {}         # store node -> the decisions that dominate it
        self._let_tables: dict = {}     # id(instance) -> id(Let) -> the loops around it
        self._let_values: dict = {}
        self._decisions: dict = {}      # condition node -> (term or None, fresh symbols, ranges)
        self._loop_seen = False         # a translation read a loop's iteration (frame-dependent)
        self._range_log: list | None = None
        self.fresh = 0
        self.questions = 0              # solver checks made
        self.z3_units = 0               # z3's resource count in this kernel's context
        self.charged = 0                # units charged for building formulas
        self.exhausted = False          # the budget ran out: every later question is undecided

    @property
    def z3(self):
        if self._z3 is None:
            import z3
            self._z3 = z3
            self.ctx = new_context(z3)
        return self._z3

    @property
    def spent(self) -> int:
        return self.z3_units + self.charged

    def _charge(self, units: int) -> bool:
        """Charge ``units`` of formula building to the budget; False (and the budget spent)
        when they do not fit."""
        if self.exhausted or self.spent + units > self.budget:
            self.exhausted = True
            return False
        self.charged += units
        return True

    # ---------------------------------------------------------------- the question
    def feasible(self, store: int, read: int, carrier, segments) -> tuple[bool, object]:
        """May a barrier-free path from ``store`` to ``read`` be taken? ``carrier``: None for a
        direct path, else the Loop whose back edge it crosses; ``segments``: the path's segments
        in the graph without barriers, each (start, exits, nodes, removed back edges[, within:
        see _segment]), the exits (node, label of the edge it leaves by) (paths.py computes them),
        or a callable
        that returns them (not called once the budget is spent). Returns (feasible,
        undecided): undecided is False, LIMIT or BUDGET."""
        if self.exhausted:
            return True, BUDGET
        if callable(segments):
            segments = segments()
        z3 = self.z3
        sites = self.cfg.sites
        s_loops = sites[store].loops
        self._used = []                 # (loop, iteration symbol, inside the body?, frame)
        self._ranges = {}
        self.fresh = 0                  # fresh symbols are named per question: equal questions
        constraints = []                # make equal formulas, asked once
        self._let_values = {}           # (let, instance, iterations) -> its z3 symbol
        if carrier is None:
            common = _common(s_loops, sites[read].loops)
            tags_s = {l: "c" for l in common}
            tags_s.update({l: "s" for l in s_loops if l not in tags_s})
            fixed_s = {l: self._iteration(l, tag) for l, tag in tags_s.items()}
            sides = [fixed_s]
            tags = [tags_s]
        else:
            m = s_loops.index(carrier.id)
            outer = {l: "c" for l in s_loops[:m]}
            tags_s = dict(outer)
            tags_s[carrier.id] = "s"
            tags_s.update({l: "s" for l in s_loops[m + 1:]})
            tags_r = dict(outer)
            tags_r[carrier.id] = "r"
            fixed_s = {l: self._iteration(l, tag) for l, tag in tags_s.items()}
            fixed_r = {l: self._iteration(l, tag) for l, tag in tags_r.items()}
            i_s, i_r = fixed_s[carrier.id], fixed_r[carrier.id]
            sides = [fixed_s, fixed_r]
            tags = [tags_s, tags_r]
            if i_s is not None:
                constraints.append(i_s < i_r)
        for fixed in sides:
            frame = Frame(fixed)
            for l, t in fixed.items():
                if t is not None:
                    self._used.append((self.cfg.loops[l], t, True, frame))
        guard = self._guard(store)
        shapes = [self._segment(*seg) for seg in segments]
        if not self._charge(DECISION_COST * (len(guard) + sum(len(f) for f, _ in shapes))):
            return True, BUDGET
        # the store runs: the decisions that dominate it, in its own iterations (a loop before it
        # may have run any number of iterations, barriers or not)
        guard_frame = Frame(fixed_s, frozenset(l.id for l in self.cfg.loops if l.id not in fixed_s), tags_s)
        for d, taken in guard:
            c = self._decision(d, taken, guard_frame)
            if c is not None:
                constraints.append(c)
        frames = []
        for (_forced_here, cycling), fixed, tag in zip(shapes, sides, tags):
            frames.append(Frame({l: t for l, t in fixed.items() if l not in cycling}, cycling,
                                {l: g for l, g in tag.items() if l not in cycling}))
        # first the cheap question: the decisions every path of each segment must take (the
        # conditions on its end's dominator chain left with one way out): these follow from the
        # full question below, so their `unsat` drops the path already, and they repeat across
        # stores and reads (deduplicated)
        forced = list(constraints)
        for (forced_here, _cycling), frame in zip(shapes, frames):
            for d, taken in forced_here:
                c = self._decision(d, taken, frame)
                if c is not None:
                    forced.append(c)
        unsure = False
        if not all(z3.is_true(z3.simplify(c)) for c in forced):
            feasible, unsure = self._cached(forced)
            if not feasible:
                return False, False
            if unsure == BUDGET:
                return True, BUDGET
        # then the whole of it: some path through each segment, every branch it takes with its
        # condition (two ways round a barrier, each infeasible on its own)
        if not self._charge(NODE_COST * sum(len(seg[2]) for seg in segments)):
            return True, BUDGET
        flows = []
        for tag, ((start, exits, nodes, removed, *_whole), frame, fixed, tag_of) in enumerate(
                zip(segments, frames, sides, tags)):
            # the loops around the segment's start that it goes round: until the path takes one
            # of their back edges it is still in the start's iteration of each (phase 0)
            around = frozenset(l for l in frame.cycling if l in fixed
                               and self.cfg.loops[l].first <= start < self.cfg.loops[l].end)
            phase0 = None
            if around:
                phase0 = Frame({l: t for l, t in fixed.items() if l not in frame.cycling or l in around},
                               frame.cycling - around,
                               {l: g for l, g in tag_of.items() if l not in frame.cycling or l in around})
            flows += self._flow(tag, start, exits, nodes, removed, frame, phase0, around)
        if not flows:
            return True, unsure
        return self._cached(forced + flows)

    def _segment(self, start, exits, nodes, removed, within: range | None = None) -> tuple[list, frozenset]:
        """What a segment needs beyond its flow, made once per segment (a store's segment to a
        loop's latch repeats for every read after the loop's header): the decisions every path
        through it takes, and the loops it may go round. ``within`` (a range of nodes): ``nodes``
        are every node (barriers left out) that ``start`` reaches and that reaches the exits,
        without the back edges of ``removed``, and lie in it; then the decisions come from the
        exits' postdominator tree within it, made once for all the starts that share the exits
        (the stores before one loop's latches)."""
        key = (start, tuple(exits), removed)
        got = self._segments.get(key)
        if got is None:
            forced = None
            if within is not None and start not in self._blocked():
                forced = self._sink_tree(tuple(exits), removed, within).forced(start)
            if forced is None:
                forced = _forced(self.cfg, start, exits, nodes, removed)
            got = self._segments[key] = (forced, frozenset(_cycling_loops(self.cfg, nodes, removed)))
        return got

    def _blocked(self) -> set:
        if self._blocked_set is None:
            self._blocked_set = set(self.facts.barriers)
        return self._blocked_set

    def _sink_tree(self, exits: tuple, removed, within: range):
        key = (exits, removed, within)
        got = self._sink_trees.get(key)
        if got is None:
            got = self._sink_trees[key] = SinkTree(self.cfg, self._blocked(), exits, removed, within)
        return got

    def _cached(self, constraints) -> tuple[bool, object]:
        constraints = constraints + self._bounds() + list(self._ranges.values())
        # z3 shares equal terms while one of them lives: keeping each question's constraints
        # alive with its answer makes an equal question find the same ids
        key = tuple(sorted(c.get_id() for c in constraints))
        got = self._answers.get(key)
        if got is None:
            answer = self._ask(constraints)
            if answer[1] == BUDGET:
                return answer           # not kept: a question the budget cut was not answered
            got = self._answers[key] = (answer, constraints)
        return got[0]

    def _ask(self, constraints) -> tuple[bool, object]:
        z3 = self.z3
        left = self.budget - self.spent
        if self.exhausted or left <= 0:
            self.exhausted = True
            return True, BUDGET
        limit = min(RLIMIT, left)
        solver = z3.Solver(ctx=self.ctx)
        solver.set("rlimit", limit)
        solver.add(*constraints)
        self.questions += 1
        try:
            got = solver.check()
        except z3.Z3Exception:
            got = None
        stats = solver.statistics()
        if "rlimit count" in stats.keys():
            self.z3_units = max(self.z3_units, int(stats.get_key_value("rlimit count")))
        if got == z3.unsat:
            return False, False
        if got == z3.sat:
            return True, False
        if got is not None and solver.reason_unknown() == "interrupted from keyboard":
            # z3 catches SIGINT while it works and answers "unknown": the Ctrl-C was the user's
            raise KeyboardInterrupt
        if limit < RLIMIT or self.spent >= self.budget:
            self.exhausted = True
            return True, BUDGET
        return True, LIMIT

    # ---------------------------------------------------------------- decisions
    def _guard(self, node: int) -> list:
        """The branch decisions every path from the kernel's entry to ``node`` takes: an edge
        (d, x) such that x dominates ``node`` and d is x's only predecessor."""
        got = self._guards.get(node)
        if got is not None:
            return got
        if self._idom is None:
            import networkx as nx
            self._idom = nx.immediate_dominators(self.cfg.graph, self.cfg.entry)
        idom = self._idom
        pred = self.cfg.graph.pred
        out = []
        x = node
        entry = self.cfg.entry
        while x != entry and x in idom:
            d = idom[x]
            ins = pred[x]
            if len(ins) == 1 and d in ins:
                taken = ins[d].get("taken")
                if taken is not None and "back" not in ins[d]:
                    out.append((d, taken))
            if d == x:
                break
            x = d
        self._guards[node] = out
        return out

    def _flow(self, tag: int, start: int, exits, nodes, removed, frame: Frame, phase0: Frame | None = None,
              around: frozenset = frozenset()) -> list:
        """The segment as a formula: some path from ``start`` through ``nodes`` to one of the
        ``exits`` (a node and the label of the edge it leaves by), each edge the path takes
        implying its branch's condition. Exact where the segment has no cycle; around a loop the
        segment goes round it only keeps more paths (sound). Empty when no branch says
        anything. With ``around`` (loops around ``start`` that the segment goes round), the
        graph is taken twice: phase 0, from ``start`` until the path takes a back edge of one of
        them, runs in the start's own iterations (``phase0``); phase 1, after it, in ``frame``."""
        z3 = self.z3
        ctx = self.ctx
        succ = self.cfg.graph.succ
        # the edges and their branch conditions first: a segment whose branches decide nothing
        # (conditions of fresh symbols only, as a `while` over a `var`) needs no formula at all,
        # and making its z3 terms would cost more than every question asked about it
        edges = []                      # (from, to, label, the condition's node, its frame)
        backs: dict = {}                # (loop id, phase) -> the indices of its back edges in ``edges``
        decided = False
        if phase0 is None:
            key = lambda n, ph: n       # noqa: E731 (one phase: the nodes themselves)
            first_nodes = ()
        else:
            key = lambda n, ph: (n, ph)  # noqa: E731
            first_nodes = {start}
            stack = [start]
            while stack:
                n = stack.pop()
                for m, d in succ[n].items():
                    back = d.get("back")
                    if m in nodes and m not in first_nodes and back not in removed and back not in around:
                        first_nodes.add(m)
                        stack.append(m)
        for ph, among, fr in ((0, first_nodes, phase0), (1, nodes, frame)):
            for n in among:
                for m, d in succ[n].items():
                    back = d.get("back")
                    if m not in nodes or back in removed:
                        continue
                    to = 1 if ph == 1 or back in around else 0
                    if to == 0 and m not in first_nodes:
                        continue
                    if back is not None:
                        backs.setdefault((back, ph), []).append(len(edges))
                    edges.append((key(n, ph), key(m, to), d.get("taken"), n, fr))
            for e, taken in exits:
                if e in among:
                    edges.append((key(e, ph), "sink", taken, e, fr))
        start_key = key(start, 0 if phase0 is not None else 1)
        conditions = []
        first_exit: dict = {}           # edge index -> (loop id, phase, the exit's condition in the first iteration)
        sites = self.cfg.sites
        for k, (u_key, _v, taken, u, fr) in enumerate(edges):
            c = None
            if taken is not None:
                used = len(self._used)
                c = self._decision(u, taken, fr)
                if c is not None and z3.is_true(z3.simplify(c)):
                    c = None
                # the iterations made for this decision (a loop the segment goes round) lie in
                # their loop's bounds where the path takes this edge, not elsewhere: a loop the
                # path leaves at once has run no iteration at all
                bounds = []
                while len(self._used) > used:     # (their bounds may make iterations of their own)
                    made, self._used[used:] = self._used[used:], []
                    bounds += self._bounds_of(made)
                if c is not None and bounds:
                    c = z3.And(c, *bounds)
                # LANGUAGE §9.6: "a loop whose bounds prove it runs at least once cannot be left
                # before its first iteration". A loop the segment goes round is left by its test
                # in any iteration; but a path that takes none of its back edges (in this phase
                # of this segment, which starts outside it) leaves at its first visit, where
                # `i = lo`
                h = sites[u].loop_header_of
                if taken is False and h is not None and h in fr.cycling:
                    loop = self.cfg.loops[h]
                    if loop.kind == "for" and not (loop.first <= start < loop.end):
                        first = Frame(fr.fixed, fr.cycling - {h}, fr.tags)
                        f = self._decision(u, False, first)
                        if f is not None and not z3.is_true(z3.simplify(f)):
                            first_exit[k] = (h, 1 if isinstance(u_key, int) else u_key[1], f)
            conditions.append(c)
            decided = decided or c is not None or k in first_exit
        if not decided:
            return []
        ins: dict = {}
        outs: dict = {}
        implied = []
        ys: dict = {}

        def y(n):
            got = ys.get(n)
            if got is None:
                name = n if not isinstance(n, tuple) else f"{n[0]}p{n[1]}"
                got = ys[n] = z3.Bool(f"y{tag}_{name}", ctx)
            return got
        xs = []
        for (u, v, _taken, _n, _fr), c in zip(edges, conditions):
            nu = u if not isinstance(u, tuple) else f"{u[0]}p{u[1]}"
            nv = v if not isinstance(v, tuple) else f"{v[0]}p{v[1]}"
            x = z3.Bool(f"x{tag}_{nu}_{nv}", ctx)
            xs.append(x)
            outs.setdefault(u, []).append(x)
            ins.setdefault(v, []).append(x)
            implied.append(z3.Implies(x, z3.And(y(u), y(v))))
            if c is not None:
                implied.append(z3.Implies(x, c))
        for k, (h, ph, f) in first_exit.items():
            went_round = z3.Or(*[xs[j] for j in backs.get((h, ph), [])], ctx)
            implied.append(z3.Implies(z3.And(xs[k], z3.Not(went_round)), f))
        out = [y(start_key), y("sink")]
        all_keys = [key(n, 0) for n in first_nodes] + [key(n, 1) for n in nodes] if phase0 is not None \
            else list(nodes)
        for n in all_keys + ["sink"]:
            if n != start_key:
                out.append(z3.Implies(y(n), z3.Or(*ins.get(n, []), ctx)))
            if n != "sink":
                out.append(z3.Implies(y(n), z3.Or(*outs.get(n, []), ctx)))
        return out + implied

    def _decision(self, d: int, taken: bool, frame: Frame):
        """The z3 constraint of taking edge ``taken`` out of condition node ``d``, or None when
        nothing can be said (a condition of fresh symbols only)."""
        z3 = self.z3
        site = self.cfg.sites[d]
        if site.kind != COND:
            return None
        if isinstance(site.ast, A.For):
            loop = self.cfg.loops[site.loop_header_of]
            i = self._loop_var(loop, frame, in_body=taken)
            hi = self._bound(loop, 1, frame)
            if i is None or hi is None:
                return None
            c = i < hi
            return c if taken else z3.Not(c)
        b = self._condition(d, site, frame)
        if b is None:
            return None
        return b if taken else z3.Not(b)

    def _condition(self, d: int, site, frame: Frame):
        """The condition of node ``d`` in ``frame``, or None when it decides nothing (fresh
        symbols only). Translated once per node when it reads no loop iteration (then it is the
        same in every frame) and makes no fresh symbol (their names count within each question);
        kept with the ranges it recorded, which are recorded again at each use."""
        got = self._decisions.get(d)
        if got is not None:
            b, made, ranges = got
            self.fresh += made
            for key, value in ranges:
                self._range(key, value)
            return b
        fresh = self.fresh
        outer_log, self._range_log = self._range_log, []
        outer_seen, self._loop_seen = self._loop_seen, False
        try:
            b = self._bool(site.ast, site.inst, frame, 0)
            made = self.fresh - fresh
            if made and not _mentions_known(b, self.z3):
                b = None
            if not self._loop_seen and (b is None or not made):
                self._decisions[d] = (b, made, self._range_log)
        finally:
            if outer_log is not None:
                outer_log.extend(self._range_log)
            self._range_log = outer_log
            self._loop_seen = outer_seen or self._loop_seen
        return b

    def _range(self, key, value) -> None:
        """Record a range constraint of this question (and in the log of the condition being
        translated, if any)."""
        self._ranges[key] = value
        if self._range_log is not None:
            self._range_log.append((key, value))

    # ---------------------------------------------------------------- loops
    def _iteration(self, loop_id: int, tag: str):
        """The symbol of a `for` loop's variable in one iteration (None for a `while`)."""
        if self.cfg.loops[loop_id].kind != "for":
            return None
        return self.z3.Int(f"i{loop_id}_{tag}", self.ctx)

    def _loop_var(self, loop, frame: Frame, in_body: bool = True):
        """The loop's variable at a visit in ``frame``: its fixed iteration, a fresh one (a loop
        the segment goes round), or its first (`lo`)."""
        if loop.kind != "for":
            return None
        self._loop_seen = True
        if loop.id in frame.fixed:
            return frame.fixed[loop.id]
        if loop.id in frame.cycling:
            self.fresh += 1
            t = self.z3.Int(f"i{loop.id}_k{self.fresh}", self.ctx)
            self._used.append((loop, t, in_body, frame))
            return t
        return self._bound(loop, 0, frame)

    def _bound(self, loop, which: int, frame: Frame):
        """lo (0), hi (1) or step (2) of a `for` loop, as evaluated before it (in ``frame``)."""
        args = loop.ast.args
        if which >= len(args):
            return self.z3.IntVal(1, self.ctx) if which == 2 else None
        return self._term(args[which], loop.inst, frame, 0)

    def _bounds(self) -> list:
        """Every iteration symbol within its loop's bounds (as evaluated in the iterations of the
        loops around it) and on its step grid."""
        return self._bounds_of(self._used)

    def _bounds_of(self, used) -> list:
        out = []
        for loop, t, in_body, frame in used:
            lo = self._bound(loop, 0, frame)
            hi = self._bound(loop, 1, frame)
            if lo is not None:
                out.append(t >= lo)
                step = _constant(loop.ast.args[2], loop.inst) if len(loop.ast.args) > 2 else 1
                if not isinstance(step, int):
                    # a step the constant folder does not see through (`i64(1000000000)`, a `let`):
                    # its translation, when that is a number (`i = lo + n * step`)
                    got = self.z3.simplify(self._bound(loop, 2, frame))
                    step = got.as_long() if self.z3.is_int_value(got) else None
                if isinstance(step, int) and step > 1:
                    out.append((t - lo) % step == 0)
            if hi is not None and in_body:
                out.append(t < hi)
        return out

    # ---------------------------------------------------------------- expressions
    def _fresh_int(self):
        self.fresh += 1
        return self.z3.Int(f"opaque{self.fresh}", self.ctx)

    def _fresh_bool(self):
        self.fresh += 1
        return self.z3.Bool(f"opaqueb{self.fresh}", self.ctx)

    def _shared(self, key, lo: int, hi: int):
        """A symbol the same all along the path (a parameter, an extent, the thread's `ctx`),
        within [lo, hi]."""
        got = self._symbols.get(key)
        z3 = self.z3
        if got is None:
            t = z3.Int("_".join(str(k) for k in key), self.ctx)
            got = self._symbols[key] = (t, z3.And(t >= lo, t <= hi))
        self._range(key, got[1])
        return got[0]

    def _bool(self, e, inst, frame: Frame, depth: int):
        return self._memoized(self._bool_of, "b", e, inst, frame, depth)

    def _term(self, e, inst, frame: Frame, depth: int):
        return self._memoized(self._term_of, "t", e, inst, frame, depth)

    def _memoized(self, translate, what: str, e, inst, frame: Frame, depth: int):
        """``translate(e, ..)``, made once per frame (a `let` chain `a1 = a0 + a0; a2 = a1 + a1;
        ..` substitutes into a DAG, not a tree of 2^depth terms), unless it made a fresh symbol:
        then each occurrence keeps one of its own."""
        key = (what, id(e), id(inst), depth)
        got = frame.memo.get(key)
        if got is not None:
            # a translation that read the frame (a loop's iteration, a `let` shared in it) still
            # does when it comes from the memo: the condition holding it is not the same in every
            # frame, and _condition must not keep it for the next question
            if got[1]:
                self._loop_seen = True
            return got[0]
        fresh = self.fresh
        outer, self._loop_seen = self._loop_seen, False
        try:
            got = translate(e, inst, frame, depth)
        finally:
            seen = self._loop_seen
            self._loop_seen = outer or seen
        if self.fresh == fresh:
            frame.memo[key] = (got, seen)
        return got

    def _bool_of(self, e, inst, frame, depth):
        z3 = self.z3
        if depth > MAX_DEPTH:
            return self._fresh_bool()
        t = type(e)
        if t is A.BoolLit:
            return z3.BoolVal(e.value, self.ctx)
        if t is A.Unary and e.op == "!":
            return z3.Not(self._bool(e.operand, inst, frame, depth + 1))
        if t is A.Binary:
            if e.op == "&&":
                return z3.And(self._bool(e.lhs, inst, frame, depth + 1), self._bool(e.rhs, inst, frame, depth + 1))
            if e.op == "||":
                return z3.Or(self._bool(e.lhs, inst, frame, depth + 1), self._bool(e.rhs, inst, frame, depth + 1))
            if e.op in _COMPARE:
                lt, rt = inst.types.get(id(e.lhs)), inst.types.get(id(e.rhs))
                if isinstance(lt, Scalar) and isinstance(rt, Scalar):
                    if lt.is_int and rt.is_int:
                        a = self._term(e.lhs, inst, frame, depth + 1)
                        b = self._term(e.rhs, inst, frame, depth + 1)
                    elif lt.name == "bool" and rt.name == "bool" and e.op in ("==", "!="):
                        a = self._bool(e.lhs, inst, frame, depth + 1)
                        b = self._bool(e.rhs, inst, frame, depth + 1)
                    else:
                        return self._fresh_bool()
                    return {"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b,
                            "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[e.op]()
        if t is A.Name:
            sub = self._substitute(e, inst, frame, depth)
            if sub is not None:
                b = inst.resolution.get(id(e))
                if b is not None and b.kind == "let":
                    return self._let(b, inst, sub, frame, depth, self._bool)
                return self._bool(sub[0], sub[1], frame, depth + 1)
            b = inst.resolution.get(id(e))
            if b is not None and b.kind == "const" and isinstance(b.const_value, bool):
                return z3.BoolVal(b.const_value, self.ctx)
            if b is not None and b.kind == "param" and inst.kind == "kernel":
                return self._shared(("b", b.uid), 0, 1) == 1
        if t is A.Call and e.func == "where" and id(e) not in inst.calls and len(e.args) == 3:
            return z3.If(self._bool(e.args[0], inst, frame, depth + 1), self._bool(e.args[1], inst, frame, depth + 1),
                         self._bool(e.args[2], inst, frame, depth + 1))
        return self._fresh_bool()

    def _term_of(self, e, inst, frame, depth):
        z3 = self.z3
        if depth > MAX_DEPTH:
            return self._fresh_int()
        t = type(e)
        if t is A.IntLit:
            return z3.IntVal(e.value, self.ctx)
        if t is A.Name:
            b = inst.resolution.get(id(e))
            if b is None:
                return self._fresh_int()
            if b.kind in ("const", "function-dim") and isinstance(b.const_value, int) \
                    and not isinstance(b.const_value, bool):
                return z3.IntVal(b.const_value, self.ctx)
            if b.kind == "loop":
                loop_id = self.cfg.loop_of.get((id(b.node), id(inst)))
                if loop_id is None:
                    return self._fresh_int()
                v = self._loop_var(self.cfg.loops[loop_id], frame)
                return v if v is not None else self._fresh_int()
            sub = self._substitute(e, inst, frame, depth)
            if sub is not None:
                if b.kind == "let":
                    return self._let(b, inst, sub, frame, depth, self._term)
                return self._term(sub[0], sub[1], frame, depth + 1)
            if b.kind in ("extent", "function-dim"):        # fixed for the whole launch
                sym = self._shared(("x", b.name), 0, I32_MAX)
                n = self.kinfo.aligned.get(b.name)
                if n:
                    self._range(("aligned", b.name), sym % n == 0)
                return sym
            if b.kind == "param" and inst.kind == "kernel":
                return self._shared(("b", b.uid), *_type_range(b.type))
            return self._fresh_int()
        if t is A.CtxPath:
            return self._ctx(e.path)
        if t is A.Unary and e.op == "-":
            return self._wrap(-self._term(e.operand, inst, frame, depth + 1), e, inst)
        if t is A.Unary and e.op == "~":                  # two's complement: ~a = -a - 1
            return self._wrap(-self._term(e.operand, inst, frame, depth + 1) - 1, e, inst)
        if t is A.Binary and e.op in ("&", "|", "^"):
            return self._bitwise(e.op, self._term(e.lhs, inst, frame, depth + 1),
                                 self._term(e.rhs, inst, frame, depth + 1), e, inst)
        if t is A.Binary and e.op in ("+", "-", "*", "/", "%", "<<", ">>"):
            a = self._term(e.lhs, inst, frame, depth + 1)
            b = self._term(e.rhs, inst, frame, depth + 1)
            op = e.op
            if op in ("<<", ">>"):
                if not (z3.is_int_value(b) and 0 <= b.as_long() < 63):
                    return self._fresh_int()
                k = 1 << b.as_long()
                if op == "<<":
                    return self._wrap(a * k, e, inst)
                return z3.If(a >= 0, a / k, -((-a + k - 1) / k))        # arithmetic: floor
            if op == "+":
                return self._wrap(a + b, e, inst)
            if op == "-":
                return self._wrap(a - b, e, inst)
            if op == "*":
                return self._wrap(a * b, e, inst)
            if not (z3.is_int_value(b) and b.as_long() > 0):
                return self._fresh_int()
            q = z3.If(a >= 0, a / b, -((-a) / b))          # LANGUAGE §6: truncation toward zero
            return q if op == "/" else a - b * q
        if t is A.Call and id(e) not in inst.calls:
            f = e.func
            if f in ("i32", "i64", "i8", "u8") and len(e.args) == 1:
                at = inst.types.get(id(e.args[0]))
                if isinstance(at, Scalar) and at.is_int:
                    return self._wrap(self._term(e.args[0], inst, frame, depth + 1), e, inst)
            if f == "where" and len(e.args) == 3:
                return z3.If(self._bool(e.args[0], inst, frame, depth + 1), self._term(e.args[1], inst, frame, depth + 1),
                             self._term(e.args[2], inst, frame, depth + 1))
            rt = inst.types.get(id(e))
            if f in ("min", "max") and len(e.args) == 2 and isinstance(rt, Scalar) and rt.is_int:
                a = self._term(e.args[0], inst, frame, depth + 1)
                b = self._term(e.args[1], inst, frame, depth + 1)
                return z3.If(a <= b, a, b) if f == "min" else z3.If(a >= b, a, b)
        return self._fresh_int()

    def _ctx(self, path):
        z3 = self.z3
        threads = self.kinfo.threads
        if path == ("threads",):
            return z3.IntVal(threads, self.ctx)
        if path == ("warps",):
            return z3.IntVal(threads // 32, self.ctx)
        if path == ("lanes",):
            return z3.IntVal(32, self.ctx)
        thread = self._shared(("ctx", "thread"), 0, threads - 1)
        if path == ("thread",):
            return thread
        if path == ("warp",):
            return thread / 32
        if path == ("lane",):
            return thread % 32
        if path[0] == "blocks":
            return self._shared(("ctx", "blocks", path[1]), 1, I32_MAX)
        if path[0] == "block":
            b = self._shared(("ctx", "block", path[1]), 0, I32_MAX - 1)
            self._range(("ctx<", path[1]), b < self._shared(("ctx", "blocks", path[1]), 1, I32_MAX))
            return b
        return self._fresh_int()

    def _let(self, b, inst, sub, frame: Frame, depth: int, translate):
        """A `let`'s value: its initializer, translated once for every visit of the let in the
        same iterations of the loops around it (LANGUAGE §9.6: "`let` bindings as equalities"),
        so that a load, a call's result or a `var` read there is one unknown however often the
        name occurs. Where some loop around the let is one the frame goes round, each occurrence
        may be a visit of its own and gets a translation of its own."""
        key = self._let_key(b.node, inst, frame)
        if key is None:
            self._loop_seen = True              # shared or not depends on the frame: never cached
            return translate(sub[0], sub[1], frame, depth + 1)
        key = (translate == self._bool,) + key
        got = self._let_values.get(key)
        if got is not None:
            self._loop_seen = True          # a symbol of this question: never cached across questions
            return got
        fresh = self.fresh
        value = translate(sub[0], sub[1], frame, depth + 1)
        if self.fresh == fresh:
            return value                    # no unknown in it: equal at every occurrence already
        z3 = self.z3
        name = f"let{len(self._let_values)}"
        sym = z3.Bool(name, self.ctx) if translate == self._bool else z3.Int(name, self.ctx)
        self._let_values[key] = sym
        self._range(("let",) + key, sym == value)
        self._loop_seen = True
        return sym

    def _let_key(self, let_node, inst, frame: Frame):
        """The visit of a `let` that ``frame`` sees: (the let, its instance, the iteration of each
        loop around it), or None when a loop around it is one the frame goes round (or not
        known)."""
        loops = self._let_loops(let_node, inst)
        if loops is None:
            return None
        its = []
        for l in loops:
            if l in frame.cycling:
                return None
            tag = frame.tags.get(l)
            if tag is None:
                if l in frame.fixed:
                    return None
                tag = "first"                # a loop the segment enters: its first iteration
            its.append((l, tag))
        return (id(let_node), id(inst), tuple(its))

    def _let_loops(self, let_node, inst):
        """The loops around a `let` (outermost first): those around the call an instance was
        inlined for, then the instance's own around the statement; None when not found."""
        table = self._let_tables.get(id(inst))
        if table is None:
            table = self._let_tables[id(inst)] = {}
            if inst.kind == "kernel":
                outer = ()
            else:
                node = self.cfg.call_nodes.get(id(inst))
                outer = self.cfg.sites[node].loops if node is not None else None
            if outer is not None:
                loop_of = self.cfg.loop_of
                stack = [(inst.node.body.stmts, tuple(outer))]
                while stack:
                    stmts, around = stack.pop()
                    for st in stmts:
                        t = type(st)
                        if t is A.Let:
                            table[id(st)] = around
                        elif t is A.If:
                            stack.append((st.then.stmts, around))
                            if st.orelse is not None:
                                stack.append(((st.orelse,) if type(st.orelse) is A.If else st.orelse.stmts, around))
                        elif t is A.For or t is A.While:
                            l = loop_of.get((id(st), id(inst)))
                            if l is not None:
                                stack.append((st.body.stmts, around + (l,)))
        return table.get(id(let_node))

    def _substitute(self, name: A.Name, inst, frame, depth):
        """What a name stands for, when it is a `let` (its initializer) or an inlined function's
        parameter (its argument, in the caller): (expression, instance), or None."""
        if depth >= MAX_DEPTH:
            return None
        return stands_for(name, inst)

    @staticmethod
    def _int_type(e, inst) -> tuple[int, bool]:
        """(bits, signed) of ``e``'s integer type (i32 for a literal)."""
        t = inst.types.get(id(e))
        name = t.name if isinstance(t, Scalar) and t.name in BYTES and t.is_int else "i32"
        return 8 * BYTES[name], name != "u8"

    def _bitwise(self, op, a, b, e, inst):
        """``a op b`` for `&`, `|`, `^`, exact in the type's width: a mask of low bits is the
        (Euclidean) remainder, two constants are folded, anything else goes through bit-vectors
        of the type's width."""
        z3 = self.z3
        bits, signed = self._int_type(e, inst)
        if op == "&":
            for x, m in ((a, b), (b, a)):
                if z3.is_int_value(m) and 0 <= m.as_long() < (1 << (bits - 1)) and (m.as_long() + 1) & m.as_long() == 0:
                    return x % (m.as_long() + 1)
        if z3.is_int_value(a) and z3.is_int_value(b):
            x, y = a.as_long(), b.as_long()
            return self._wrap(z3.IntVal(x & y if op == "&" else x | y if op == "|" else x ^ y, self.ctx), e, inst)
        va, vb = z3.Int2BV(a, bits), z3.Int2BV(b, bits)
        v = va & vb if op == "&" else va | vb if op == "|" else va ^ vb
        return z3.BV2Int(v, is_signed=signed)

    def _wrap(self, x, e, inst):
        """``x`` wrapped into the range of ``e``'s integer type (two's complement)."""
        z3 = self.z3
        bits, signed = self._int_type(e, inst)
        full = 1 << bits
        lo = -(full >> 1) if signed else 0
        if z3.is_int_value(x):
            return z3.IntVal((x.as_long() - lo) % full + lo, self.ctx)
        return z3.If(z3.And(x >= lo, x < lo + full), x, (x - lo) % full + lo)


# ---------------------------------------------------------------- helpers
def _common(a: tuple, b: tuple) -> tuple:
    j = 0
    while j < len(a) and j < len(b) and a[j] == b[j]:
        j += 1
    return a[:j]


def _constant(e, inst):
    def const(n):
        b = inst.resolution.get(id(n))
        if b is not None and b.kind in ("const", "function-dim") and isinstance(b.const_value, int) \
                and not isinstance(b.const_value, bool):
            return b.const_value
        return None
    return constant_of(affine(e, const, lambda n: None))


def _mentions_known(b, z3) -> bool:
    """Does the term mention anything but fresh symbols (a shared symbol, a loop iteration, a
    constant comparison)? A condition over fresh symbols alone can go either way."""
    stack = [b]
    seen = set()
    while stack:
        x = stack.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            if not x.decl().name().startswith("opaque"):
                return True
            continue
        stack.extend(x.children())
    return False


def _cycling_loops(cfg, nodes, removed) -> set:
    """The loops whose back edge lies within ``nodes`` (a segment may go round them)."""
    out = set()
    succ = cfg.graph.succ
    for loop in cfg.loops:
        if loop.id in removed or loop.header not in nodes:
            continue
        for latch in loop.latches:
            if latch in nodes and loop.header in succ[latch]:
                out.add(loop.id)
                break
    return out


class SinkTree:
    """The postdominator tree of a virtual sink after ``exits`` in the graph without barriers
    and without the back edges of ``removed``, over the nodes in ``within`` (a loop's nodes)
    that reach an exit: what every path
    from a node to the sink passes, for ``_forced``'s answer at any start (made once, in time
    linear in those nodes, rather than one dominator tree per start)."""

    SINK = -1

    def __init__(self, cfg, blocked: set, exits: tuple, removed, within: range):
        self.cfg = cfg
        succ, pred = cfg.graph.succ, cfg.graph.pred
        sink = self.SINK
        exit_taken: dict = {}
        for e, taken in exits:
            if e not in blocked and e in within:
                exit_taken.setdefault(e, taken)
        # the nodes that reach an exit
        inside = set(exit_taken)
        stack = list(exit_taken)
        while stack:
            n = stack.pop()
            for m, d in pred[n].items():
                if m in inside or m in blocked or m not in within or d.get("back") in removed:
                    continue
                inside.add(m)
                stack.append(m)
        # each node's ways out within them, as (successor, label): the reverse graph's edges
        outs: dict = {}
        for n in inside:
            got = outs[n] = [(m, d.get("taken")) for m, d in succ[n].items()
                             if m in inside and d.get("back") not in removed]
            if n in exit_taken:
                got.append((sink, exit_taken[n]))
        self.outs = outs
        # postorder of the reverse graph from the sink (iterative DFS)
        rpred: dict = {sink: list(exit_taken)}
        order: list = []
        seen = {sink}
        stack = [(sink, iter(rpred[sink]))]
        while stack:
            n, it = stack[-1]
            for m in it:
                if m not in seen:
                    seen.add(m)
                    stack.append((m, iter([p for p, d in pred[m].items() if p in inside
                                            and d.get("back") not in removed])))
                    break
            else:
                stack.pop()
                order.append(n)
        index = {n: k for k, n in enumerate(order)}
        ipdom = {sink: sink}
        changed = True
        while changed:                        # Cooper, Harvey and Kennedy's iteration
            changed = False
            for n in reversed(order):
                if n == sink:
                    continue
                new = None
                for m, _taken in outs[n]:
                    if m not in ipdom:
                        continue
                    if new is None:
                        new = m
                        continue
                    a, b = m, new
                    while a != b:
                        while index[a] < index[b]:
                            a = ipdom[a]
                        while index[b] < index[a]:
                            b = ipdom[b]
                    new = a
                if new is not None and ipdom.get(n) != new:
                    ipdom[n] = new
                    changed = True
        self.ipdom = ipdom
        self.memo: dict = {}

    def forced(self, start: int) -> list | None:
        """``_forced(start, ..)``: the decisions on ``start``'s postdominator chain left with
        one way out, the one nearest the sink first."""
        ipdom, memo, sink = self.ipdom, self.memo, self.SINK
        if start not in ipdom:
            return None                 # not within: the caller asks _forced
        chain = []
        x = start
        while x != sink and x not in memo:
            chain.append(x)
            x = ipdom[x]
        got = memo.get(x, [])
        sites = self.cfg.sites
        for x in reversed(chain):
            outs = self.outs[x]
            if sites[x].kind == COND and len(outs) == 1 and outs[0][1] is not None:
                got = got + [(x, outs[0][1])]
            memo[x] = got
        return list(got)


def _forced(cfg, start: int, exits, nodes, removed) -> list:
    """The branch decisions every path from ``start`` to one of ``exits`` within ``nodes`` takes:
    on the dominator chain of a virtual sink after the exits, each condition left with one way
    out within the segment (any visit of it takes that way: the other leads nowhere near)."""
    import networkx as nx

    succ = cfg.graph.succ
    sites = cfg.sites
    h = nx.DiGraph()
    h.add_node(start)
    sink = -1
    for n in nodes:
        for m, d in succ[n].items():
            if m in nodes and d.get("back") not in removed:
                h.add_edge(n, m, taken=d.get("taken"))
    for e, taken in exits:
        if e in h:
            h.add_edge(e, sink, taken=taken)
    if sink not in h:
        return []
    idom = nx.immediate_dominators(h, start)
    if sink not in idom:
        return []
    out = []
    x = idom[sink]
    while True:
        if sites[x].kind == COND and len(h.succ[x]) == 1:
            (only,) = h.succ[x].values()
            if only.get("taken") is not None:
                out.append((x, only["taken"]))
        if x == start:
            break
        x = idom[x]
    return out
