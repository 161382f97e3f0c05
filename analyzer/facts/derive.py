"""Derived relations: kinds and control kinds by a least fixpoint, per-thread stores, CTA-wide
reads, and the unsynchronized paths between them.

The kind rules of LANGUAGE §9 are monotone constraints "x is at least as varying as y"; each fact
of facts/schema.py contributes edges y -> x:

    seed(v, K)            v >= K                    uses(v, b)          v >= b
    call_result(v, r)     v >= r                    let_init(b, v)      b >= v
    var_assign(b, v, n)   b >= v, b >= control(n)   loop_bound(b, v)    b >= v
    returns(r, v, n)      r >= v, r >= control(n)   parent(n, p)        control(n) >= inside(p)
    cond(p, v)            inside(p) >= v            control(p)          inside(p) >= control(p)
    raises(e, t)          control(t) >= control(e)  op at n, guard g    control(op) >= control(n), g
    loop_again(h, p)      control(h) >= inside(p)   (later iterations test the condition again)

The least solution is computed by a semi-naive worklist: only a node that just rose propagates,
and a node rises at most twice (uniform < warp-uniform < varying), so the work is linear in the
facts. Each rise records the edge that caused it (provenance), which the rules walk back to build
their chains.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from ..ops import OpClass
from .schema import UNIFORM


@dataclass(eq=False)
class Derived:
    kind: dict = field(default_factory=dict)         # node key -> kind (absent: uniform)
    prov: dict = field(default_factory=dict)         # node key -> (source key, reason)
    per_thread_stores: list = field(default_factory=list)   # Store facts that are per-thread
    cta_reads: dict = field(default_factory=dict)    # buf -> [(op id, name)]
    unsynced: list = field(default_factory=list)     # (Store, op id, buf, name, loop or None)
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
        while work:
            key = work.popleft()
            k = kind[key]
            for dst, reason in succ.get(key, ()):
                if k > kind.get(dst, UNIFORM):
                    kind[dst] = k
                    prov[dst] = (key, reason)
                    work.append(dst)
        return out


def kind_solver(facts) -> KindSolver:
    """The constraint edges of the module docstring, from the base facts."""
    s = KindSolver()
    e = s.edge
    for v, kind, origin in facts.seed:
        s.seed(("v", v), kind, ("seed", origin))
    for v, b in facts.uses:
        e(("b", b.uid), ("v", v), ("use", b))
    for v, callee in facts.call_result:
        e(("r", id(callee)), ("v", v), ("result", callee))
    for b, v, node in facts.let_init:
        e(("v", v), ("b", b.uid), ("init", b, v))
    for b, v, node in facts.var_assign:
        e(("v", v), ("b", b.uid), ("init", b, v))
        e(("c", node), ("b", b.uid), ("assigned_under", b, node))
    for b, v in facts.loop_bound:
        e(("v", v), ("b", b.uid), ("bound", b, v))
    for callee, v, node in facts.returns:
        if v is not None:
            e(("v", v), ("r", id(callee)), ("returned", callee, v))
        e(("c", node), ("r", id(callee)), ("returned_under", callee, node))
    for node, p in facts.parent.items():
        e(("in", p), ("c", node), ("parent", p))
    for p in set(facts.parent.values()):
        e(("c", p), ("in", p), ("inherit", p))
    for p, v in facts.cond:
        e(("v", v), ("in", p), ("cond", p, v))
    for node, t, how in facts.raises:
        e(("c", node), ("c", t), ("raise", node, how))
    for header, p in facts.loop_again:
        e(("in", p), ("c", header), ("loop_again", header, p))
    for op in facts.ops:
        e(("c", op.node), ("o", op.id), ("at", op.node))
    for op_id, v in facts.guard:
        e(("v", v), ("o", op_id), ("guard", v))
    return s


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
        from .paths import unsynced_paths
        out.unsynced = unsynced_paths(facts, out)
    return out
