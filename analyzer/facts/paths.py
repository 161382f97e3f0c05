"""The barrier rule as a path property (LANGUAGE §9.6): from each per-thread store to buffer B,
the CTA-wide reads of B reachable along control-flow edges without passing a `barrier()`.

For a store s and a read r, let L1 ⊃ .. ⊃ Lj be the loops that contain both. A path that
crosses none of their back edges is a violation in the same iteration. A path carried by Lm
(s -> Lm's latch, back edge, Lm's header -> r, no barrier, the outer common loops' back edges
not taken) is dropped only when z3 proves that no iterations i < i' of Lm have the store's guard
true at i and the read's guard true at i' (facts/loops.py); otherwise it stays, reported as
going "through the loop's back edge".
"""

from __future__ import annotations

from collections import deque


class _Reach:
    """Reachability from a node by at least one edge, not entering ``blocked`` nodes and not
    taking the back edges of the loops in ``removed``; a start node is in the result only when a
    cycle leads back to it. Only the ``interesting`` nodes reached are kept (the readers and the
    latches, all the callers ask about), once per (start, removed loops).

    A walk that meets a node whose result is already known takes that result and does not walk
    on from it: everything reachable from there is reachable from the start. Walking the stores
    from the last one back, n per-thread stores before one barrier cost n short walks instead of
    n walks to the barrier each (quadratic)."""

    def __init__(self, succ, blocked, interesting):
        self.succ = succ
        self.blocked = blocked
        self.interesting = interesting
        self.known: dict = {}          # (start, removed loops) -> the interesting nodes reached
        self.walks = 0                 # walks made (each (start, removed) at most once)
        self.steps = 0                 # nodes the walks went on from, all walks together

    def __call__(self, start: int, removed: frozenset) -> frozenset:
        key = (start, removed)
        got = self.known.get(key)
        if got is not None:
            return got
        self.walks += 1
        succ, blocked, interesting, known = self.succ, self.blocked, self.interesting, self.known
        found: set = set()
        seen: set = set()
        work = deque((start,))
        steps = 0
        while work:
            n = work.popleft()
            steps += 1
            for t, back_loop in succ[n]:
                if back_loop is not None and back_loop in removed:
                    continue
                if t in seen or t in blocked:
                    continue
                seen.add(t)
                if t in interesting:
                    found.add(t)
                sub = known.get((t, removed))
                if sub is not None:
                    found |= sub
                else:
                    work.append(t)
        self.steps += steps
        got = known[key] = frozenset(found)
        return got


def unsynced_paths(facts, derived) -> list:
    cfg = facts.cfg
    sites = cfg.sites
    succ = [[] for _ in sites]
    for a, b in facts.edges:
        succ[a].append((b, None))
    for a, b, loop in facts.back_edges:
        succ[a].append((b, loop))
    blocked = set(facts.barriers)
    loops = cfg.loops
    readers_at: dict = {}
    for buf, readers in derived.cta_reads.items():
        by_node = readers_at.setdefault(buf, {})
        for op_id, name in readers:
            by_node.setdefault(facts.ops[op_id].node, []).append((op_id, name))
    interesting = {n for by_node in readers_at.values() for n in by_node}
    for loop in loops:
        interesting.update(loop.latches)
    reach = _Reach(succ, blocked, interesting)
    stores = [st for st in derived.per_thread_stores if readers_at.get(st.buf)]
    # the walks of the direct paths, from the last store back (see _Reach)
    for node, s_loops in sorted({(st.node, sites[st.node].loops) for st in stores}, reverse=True):
        for j in range(len(s_loops) + 1):
            reach(node, frozenset(s_loops[:j]))
    out = []
    z3_checker = None
    for st in stores:
        by_node = readers_at[st.buf]
        s_loops = sites[st.node].loops                 # outermost first
        k = len(s_loops)

        def common_depth(r: int) -> int:
            r_loops = sites[r].loops
            j = 0
            while j < k and j < len(r_loops) and s_loops[j] == r_loops[j]:
                j += 1
            return j

        reported = set()
        # direct paths: for readers sharing j loops with the store, the back edges of those j
        # loops are not taken (the same iteration of each)
        for j in range(k + 1):
            reached = reach(st.node, frozenset(s_loops[:j]))
            for n in reached if len(reached) < len(by_node) else [n for n in by_node if n in reached]:
                for op_id, name in by_node.get(n, ()):
                    if op_id not in reported and common_depth(n) == j:
                        reported.add(op_id)
                        out.append((st, op_id, st.buf, name, None))
        # paths carried by a common loop's back edge, innermost loop first
        for m in range(k - 1, -1, -1):
            loop = loops[s_loops[m]]
            candidates = [(n, rs) for n, rs in by_node.items()
                          if loop.id in sites[n].loops and any(op_id not in reported for op_id, _ in rs)]
            if not candidates:
                continue
            removed = frozenset(s_loops[: m + 1])
            from_store = reach(st.node, removed)
            if not any(l in from_store or l == st.node for l in loop.latches):
                continue
            from_header = reach(loop.header, removed)
            for n, rs in candidates:
                if n not in from_header and n != loop.header:
                    continue
                for op_id, name in rs:
                    if op_id in reported:
                        continue
                    if loop.kind == "for":
                        if z3_checker is None:
                            from .loops import LoopChecker
                            z3_checker = LoopChecker(facts)
                        if z3_checker.infeasible(loop, st.node, n):
                            continue
                    reported.add(op_id)
                    out.append((st, op_id, st.buf, name, loop))
    return out
