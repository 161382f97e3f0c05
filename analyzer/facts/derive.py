"""Derived relations: kinds and control kinds by a least fixpoint, per-thread stores, CTA-wide
reads, and the unsynchronized paths between them.

The kind rules of LANGUAGE §9 are monotone constraints "x is at least as varying as y"; each fact
of facts/schema.py contributes edges y -> x:

    seed(v, K)            v >= K                    uses(v, b)          v >= b
    call_result(v, r)     v >= r                    let_init(b, v)      b >= v
    var_assign(b, v, n)   b >= v, b >= control(n)   loop_bound(b, v)    b >= v
    returns(r, v, n)      r >= v, r >= control(n)   parent(n, p)        control(n) >= inside(p)
    cond(p, v)            inside(p) >= v            control(p)          inside(p) >= control(p)
    raises(e, t)          control(t) >= control(e)  op at n             control(op) >= control(n)
    loop_again(h, p)      control(h) >= inside(p)   (later iterations test the condition again)

The least solution is computed by a semi-naive worklist: only a node that just rose propagates,
and a node rises at most twice (uniform < warp-uniform < varying), so the work is linear in the
facts. Each rise records the edge that caused it (provenance), which the rules walk back to build
their chains.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import field
from itertools import islice

from ...language.records import record
from ...language.ops import OpClass
from .schema import UNIFORM
from .paths import unsynced_paths


@record(eq=False)
class Derived:
    kind: dict = field(default_factory=dict)         # node key -> kind (absent: uniform)
    prov: dict = field(default_factory=dict)         # node key -> (source key, reason)
    per_thread_stores: list = field(default_factory=list)   # Store facts that are per-thread
    cta_reads: dict = field(default_factory=dict)    # buf -> [(op id, name)]
    unsynced: list = field(default_factory=list)     # (Store, op id, buf, name, loop or None, undecided)
    dropped: list = field(default_factory=list)      # (Store, op id): every path z3 proved infeasible
    path_questions: int = 0                          # z3 questions asked for them
    walks: object = None                             # paths.Walks of the barrier rule (its step count)
    divergent_ops: list = field(default_factory=list)  # (Op, control kind) for control not uniform

    def of(self, key) -> int:
        return self.kind.get(key, UNIFORM)

    def chain(self, key) -> list:
        """The provenance path ending at ``key``: [(key, reason), ...] from the origin on."""
        out = []
        seen = set()
        while key in self.prov and key not in seen:
            seen.add(key)
            src, reason = self.prov[key]
            out.append((key, reason))
            key = src
        out.append((key, None))
        out.reverse()
        return out


class KindSolver:
    def __init__(self):
        self.succ = defaultdict(list)
        self.seeds: list = []
        self.lazy = None        # (key, kind) -> [(dst, reason)]: edges made only for the keys that rise

    def edge(self, src, dst, reason) -> None:
        self.succ[src].append((dst, reason))

    def seed(self, key, kind: int, reason) -> None:
        self.seeds.append((key, kind, reason))

    def solve(self, out: Derived) -> Derived:
        kind = out.kind
        prov = out.prov
        work = deque()
        for key, k, reason in self.seeds:
            if k > kind.get(key, UNIFORM):
                kind[key] = k
                prov[key] = (("origin", reason[1]), reason)
                work.append(key)
        succ = self.succ
        lazy = self.lazy
        while work:
            key = work.popleft()
            k = kind[key]
            edges = succ.get(key, ())
            if lazy is not None:
                edges = [*edges, *lazy(key, k)] if edges else lazy(key, k)
            for dst, reason in edges:
                if k > kind.get(dst, UNIFORM):
                    kind[dst] = k
                    prov[dst] = (key, reason)
                    work.append(dst)
        return out


def kind_solver(facts) -> KindSolver:
    """The constraint edges of the module docstring, from the base facts. They are not built
    up front: only a node that rises above uniform propagates, and in most kernels few do, so
    the facts are indexed by source node and each risen node's edges are made from the index,
    in the order of the table above (facts in their order within each row)."""
    s = KindSolver()
    for v, kind, origin in facts.seed:
        s.seed(("v", v), kind, ("seed", origin))
    s.lazy = _Edges(facts)
    return s


def _put(index: dict, key, item) -> None:
    """Add ``item`` under ``key``: the item itself while it is alone, a list once there are several."""
    old = index.get(key, _ABSENT)
    if old is _ABSENT:
        index[key] = item
    elif type(old) is list:
        old.append(item)
    else:
        index[key] = [old, item]


def _items(index: dict, key) -> list:
    got = index.get(key, _ABSENT)
    if got is _ABSENT:
        return ()
    return got if type(got) is list else (got,)


_ABSENT = object()


class _Edges:
    """The facts indexed by the node their constraint edges leave from (one dict per kind of
    source node and relation); calling it with a node key and its new kind makes that node's
    edges, which the solver follows at once.

    An early exit raises the rest of its block: a suffix of a list of nodes that the block's
    other exits share (cfg.Targets). Once one exit's edges have raised a suffix to a kind, a
    later exit risen to that kind or less would raise nothing there, so its edges into that suffix
    are not made: n varying exits in a row cost n, not n^2 edges, with the same kinds and the same
    provenance."""

    def __init__(self, facts):
        put = _put
        self.uses = uses = {}                  # b.uid -> (v, b)
        for fact in facts.uses:
            put(uses, fact[1].uid, fact)
        self.call_result = call_result = {}    # id(callee) -> (v, callee)
        for fact in facts.call_result:
            put(call_result, id(fact[1]), fact)
        self.let_init = let_init = {}          # v -> (b, v, node)
        for fact in facts.let_init:
            put(let_init, fact[1], fact)
        self.var_assign_v = var_v = {}         # v -> (b, v, node)
        self.var_assign_c = var_c = {}         # node -> (b, v, node)
        for fact in facts.var_assign:
            _b, v, node = fact
            old = var_v.get(v, _ABSENT)        # (_put, inlined: one fact per statement)
            if old is _ABSENT:
                var_v[v] = fact
            else:
                put(var_v, v, fact)
            old = var_c.get(node, _ABSENT)
            if old is _ABSENT:
                var_c[node] = fact
            else:
                put(var_c, node, fact)
        self.loop_bound = loop_bound = {}      # v -> (b, v)
        for fact in facts.loop_bound:
            put(loop_bound, fact[1], fact)
        self.returns_v = returns_v = {}        # v -> (callee, v, node)
        self.returns_c = returns_c = {}        # node -> (callee, v, node)
        for fact in facts.returns:
            if fact[1] is not None:
                put(returns_v, fact[1], fact)
            put(returns_c, fact[2], fact)
        self.parent = parent = {}              # p -> node
        for node, p in facts.parent.items():
            put(parent, p, node)
        self.parents = set(facts.parent.values())
        self.cond = cond = {}                  # v -> (p, v)
        for fact in facts.cond:
            put(cond, fact[1], fact)
        self.raises = raises = {}              # node -> (targets, how): made when it rises
        for node, targets, how in facts.raises.groups:
            put(raises, node, (targets, how))
        self.loop_again = loop_again = {}      # p -> (header, p)
        for fact in facts.loop_again:
            put(loop_again, fact[1], fact)
        self.ops = ops = {}                    # node -> op
        for op in facts.ops:
            old = ops.get(op.node, _ABSENT)
            if old is _ABSENT:
                ops[op.node] = op
            else:
                put(ops, op.node, op)
        self.raised: dict = {}                 # id(shared list) -> {kind: first index raised to it}

    def _not_yet_raised(self, targets, k):
        """The targets an exit rising to kind ``k`` may still raise, in order (see the class)."""
        parts = getattr(targets, "parts", None)
        if parts is None:
            yield from targets
            return
        raised = self.raised
        for p in parts:
            if type(p) is int:
                yield p
                continue
            top, first = p
            done = raised.setdefault(id(top), {})
            if any(kind >= k and f <= first for kind, f in done.items()):
                continue
            if first < done.get(k, len(top)):
                done[k] = first
            yield from islice(top, first, None)

    def __call__(self, key, k) -> list:
        tag, x = key
        out = []
        add = out.append
        if tag == "v":
            for b, v, _node in _items(self.let_init, x):
                add((("b", b.uid), ("init", b, v)))
            for b, v, _node in _items(self.var_assign_v, x):
                add((("b", b.uid), ("init", b, v)))
            for b, v in _items(self.loop_bound, x):
                add((("b", b.uid), ("bound", b, v)))
            for callee, v, _node in _items(self.returns_v, x):
                add((("r", id(callee)), ("returned", callee, v)))
            for p, v in _items(self.cond, x):
                add((("in", p), ("cond", p, v)))
        elif tag == "c":
            for b, _v, node in _items(self.var_assign_c, x):
                add((("b", b.uid), ("assigned_under", b, node)))
            for callee, _v, node in _items(self.returns_c, x):
                add((("r", id(callee)), ("returned_under", callee, node)))
            if x in self.parents:
                add((("in", x), ("inherit", x)))
            for targets, how in _items(self.raises, x):
                reason = ("raise", x, how)
                for t in self._not_yet_raised(targets, k):
                    add((("c", t), reason))
            for op in _items(self.ops, x):
                add((("o", op.id), ("at", op.node)))
        elif tag == "b":
            for v, b in _items(self.uses, x):
                add((("v", v), ("use", b)))
        elif tag == "r":
            for v, callee in _items(self.call_result, x):
                add((("v", v), ("result", callee)))
        elif tag == "in":
            for node in _items(self.parent, x):
                add((("c", node), ("parent", x)))
            for header, p in _items(self.loop_again, x):
                add((("c", header), ("loop_again", header, p)))
        return out


def solve(facts) -> Derived:
    out = Derived()
    kind_solver(facts).solve(out)
    of = out.of
    # operations under control that is not uniform (what PH301 and PH304-PH306 constrain)
    for op in facts.ops:
        k = of(("o", op.id))
        if k != UNIFORM:
            out.divergent_ops.append((op, k))
    # per-thread stores (§9.4): value, an index or control not uniform
    for st in facts.stores:
        if of(("c", st.node)) or of(("o", st.op)) or any(of(("v", v)) for v in st.indices) \
                or (st.value is not None and of(("v", st.value))):
            out.per_thread_stores.append(st)
    # CTA-wide reads (§9.5), per buffer (views already name the buffer behind them)
    op_by_id = facts.ops
    for op_id, buf, name in facts.reads:
        op = op_by_id[op_id]
        if op.cls is OpClass.CTA_WIDE and op.name != "slice":
            out.cta_reads.setdefault(buf, []).append((op_id, name))
    if out.per_thread_stores:
        out.unsynced, out.dropped = unsynced_paths(facts, out)
    return out
