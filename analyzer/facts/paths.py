"""The barrier rule as a path property (LANGUAGE §9.6): from each per-thread store to buffer B,
the CTA-wide reads of B that a control-flow path reaches without passing a `barrier()`, and
whether such a path is feasible.

Reachability runs on the CFG (analyzer/cfg.py's graph) with the barrier nodes taken out. For a
store s and a read r, let L1 ⊃ .. ⊃ Lj be the loops around both. A *direct* path takes none of
their back edges (the same iteration of each); a path *carried* by Lm goes from s to Lm's latch,
through its back edge, and from Lm's header to r in a later iteration, taking no back edge of
L1..Lm otherwise. Each such path reachability finds is put to z3 (feasible.py), which may drop
it; the first that stays is reported, direct paths first, then the innermost loop's.

The work is linear in the graph for the common shapes: each store first walks forward once to
see whether it reaches any read not yet reported (a store followed by a barrier stops at once),
and a read is dropped from the store-by-store search as soon as one path to it is reported.
The walks are hand-written over adjacency lists made from the graph as they enter each node
(networkx's ``descendants`` on a restricted view is several times slower here:
benchmarks/path_queries.py).
"""

from __future__ import annotations

from .feasible import PathQuestions


class Adjacency:
    """The CFG's edges without the barrier nodes, as lists made from the graph the first time a
    walk enters a node (most walks stop at the first barrier, so most nodes never are):
    ``succ(n)`` and ``pred(n)`` give (node, loop id of a back edge or None)."""

    __slots__ = ("graph", "blocked", "_succ", "_pred")

    def __init__(self, cfg, blocked):
        self.graph = cfg.graph
        self.blocked = blocked
        self._succ: dict = {}
        self._pred: dict = {}

    def succ(self, n: int) -> list:
        got = self._succ.get(n)
        return got if got is not None else self._made(self._succ, self.graph.succ, n)

    def pred(self, n: int) -> list:
        got = self._pred.get(n)
        return got if got is not None else self._made(self._pred, self.graph.pred, n)

    def _made(self, cache: dict, view, n: int) -> list:
        blocked = self.blocked
        got = cache[n] = [] if n in blocked else [(m, d.get("back")) for m, d in view[n].items() if m not in blocked]
        return got


class Walks:
    """Walks over the adjacency, counting the nodes they enter (``steps``: the tests pin it)."""

    def __init__(self, adj: Adjacency):
        self.adj = adj
        self.steps = 0

    def forward(self, starts, removed=(), within: range | None = None) -> set:
        """The nodes reached from ``starts`` by at least one edge, not taking the back edges of
        the loops in ``removed`` (and staying in ``within`` when given)."""
        succ = self.adj.succ
        seen = set()
        stack = list(starts)
        while stack:
            n = stack.pop()
            for m, back in succ(n):
                if m in seen or (back is not None and back in removed):
                    continue
                if within is not None and m not in within:
                    continue
                seen.add(m)
                stack.append(m)
        self.steps += len(seen)
        return seen

    def backward(self, ends, removed, among: set) -> set:
        """The nodes of ``among`` from which one of ``ends`` is reached (``ends`` included)."""
        pred = self.adj.pred
        seen = set(ends)
        stack = list(ends)
        while stack:
            n = stack.pop()
            for m, back in pred(n):
                if m in seen or m not in among or (back is not None and back in removed):
                    continue
                seen.add(m)
                stack.append(m)
        self.steps += len(seen)
        return seen


def unsynced_paths(facts, derived) -> tuple[list, list]:
    """(unsynced, dropped): the reported paths, each (Store, read op id, buf, name used, carrying
    Loop or None, undecided); and the (Store, read op id) pairs whose every path z3 proved
    infeasible."""
    cfg = facts.cfg
    sites = cfg.sites
    readers_at: dict = {}
    for buf, readers in derived.cta_reads.items():
        by_node = readers_at.setdefault(buf, {})
        for op_id, name in readers:
            by_node.setdefault(facts.ops[op_id].node, []).append((op_id, name))
    by_buf: dict = {}
    for st in derived.per_thread_stores:
        if st.buf in readers_at:
            by_buf.setdefault(st.buf, []).append(st)
    out: list = []
    dropped: list = []
    derived.walks = None
    if not by_buf:
        return out, dropped
    walks = derived.walks = Walks(Adjacency(cfg, set(facts.barriers)))
    questions = None
    for buf, stores in by_buf.items():
        by_node = readers_at[buf]
        stores_at: dict = {}
        for st in stores:
            stores_at.setdefault(st.node, []).append(st)
        # one walk from all the buffer's stores: the reads some barrier-free path reaches
        reached = walks.forward(stores_at)
        candidates = sorted(n for n in by_node if n in reached)
        if not candidates:
            continue
        among = reached | set(stores_at)
        reach_of: dict = {}                    # (store node, removed loops) -> nodes it reaches
        headers: dict = {}                     # (loop id, cut) -> nodes its header reaches inside it
        to_latch: dict = {}                    # (store node, loop id, cut) -> nodes from it to the latches
        for r in candidates:
            to_r: dict = {}                    # (loop id, cut) -> nodes from the header to r
            sources = sorted(n for n in walks.backward([r], (), among) if n in stores_at and n != r)
            found = None
            for s in sources:
                def reach(removed: tuple, s=s) -> set:
                    got = reach_of.get((s, removed))
                    if got is None:
                        got = reach_of[(s, removed)] = walks.forward([s], frozenset(removed))
                    return got
                common = _common(sites[s].loops, sites[r].loops)
                for carrier, segments in _paths(walks, cfg, s, r, common, reach, headers, to_r, to_latch):
                    if questions is None:
                        questions = PathQuestions(facts)
                    feasible, undecided = questions.feasible(s, r, carrier, segments)
                    if feasible:
                        found = (stores_at[s][0], carrier, undecided)
                        break
                if found is not None:
                    break
                for st in stores_at[s]:
                    for op_id, _name in by_node[r]:
                        dropped.append((st, op_id))
            if found is not None:
                st, carrier, undecided = found
                for op_id, name in by_node[r]:
                    out.append((st, op_id, buf, name, carrier, undecided))
    derived.path_questions = questions.questions if questions is not None else 0
    return out, dropped


def _paths(walks: Walks, cfg, s: int, r: int, common: tuple, reach, headers: dict, to_r: dict, to_latch: dict):
    """The kinds of barrier-free path from ``s`` to ``r`` that reachability finds, in the order
    they are reported: (carrying Loop or None, segments), the segments a callable (feasible.py
    calls it only while the kernel's z3 budget lasts) that returns them, each (start, exits,
    nodes, removed loops). ``headers`` and ``to_r`` keep the walks that do not depend on ``s``
    (from a loop's header; from it to ``r``), made once rather than once per store, and
    ``to_latch`` those that do not depend on ``r`` (from ``s`` to a loop's latches)."""
    loops = cfg.loops
    removed = tuple(common)
    direct = reach(removed)
    if r in direct:
        def direct_segments():
            nodes = walks.backward([r], frozenset(removed), direct | {s})
            return [(s, [(r, None)], nodes, frozenset(removed))]
        yield None, direct_segments
    for m in range(len(common) - 1, -1, -1):
        loop = loops[common[m]]
        cut = frozenset(common[: m + 1])
        from_s = reach(tuple(common[: m + 1])) | {s}
        latches = [l for l in loop.latches if l in from_s]
        if not latches:
            continue
        key = (loop.id, cut)
        from_header = headers.get(key)
        if from_header is None:
            inside = range(loop.first, loop.end)
            from_header = headers[key] = walks.forward([loop.header], cut, inside) | {loop.header}
        if r not in from_header:
            continue
        def carried_segments(loop=loop, cut=cut, key=key, latches=latches, from_s=from_s, from_header=from_header):
            succ = cfg.graph.succ
            exits = [(l, succ[l][loop.header].get("taken")) for l in latches]
            nodes_a = to_latch.get((s, key))
            if nodes_a is None:
                nodes_a = to_latch[(s, key)] = walks.backward(latches, cut, from_s)
            nodes_b = to_r.get(key)
            if nodes_b is None:
                nodes_b = to_r[key] = walks.backward([r], cut, from_header)
            return [(s, exits, nodes_a, cut, range(loop.first, loop.end)), (loop.header, [(r, None)], nodes_b, cut)]
        yield loop, carried_segments


def _common(a: tuple, b: tuple) -> tuple:
    j = 0
    while j < len(a) and j < len(b) and a[j] == b[j]:
        j += 1
    return a[:j]
