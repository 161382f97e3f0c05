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


def _reach(graph_succ, start_nodes, blocked, removed_back, loop_of_back) -> set:
    """Nodes reachable from ``start_nodes`` (which are not themselves entered), not entering
    ``blocked`` nodes and not taking back edges of the loops in ``removed_back``."""
    seen = set()
    work = deque()
    for s in start_nodes:
        for t, back_loop in graph_succ[s]:
            if back_loop is not None and back_loop in removed_back:
                continue
            if t not in seen and t not in blocked:
                seen.add(t)
                work.append(t)
    while work:
        n = work.popleft()
        for t, back_loop in graph_succ[n]:
            if back_loop is not None and back_loop in removed_back:
                continue
            if t not in seen and t not in blocked:
                seen.add(t)
                work.append(t)
    return seen


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
    out = []
    z3_checker = None
    for st in derived.per_thread_stores:
        readers = derived.cta_reads.get(st.buf)
        if not readers:
            continue
        s_loops = sites[st.node].loops                 # outermost first
        cache: dict = {}

        def reach_from_store(j):
            key = ("s", j)
            if key not in cache:
                cache[key] = _reach(succ, [st.node], blocked, set(s_loops[:j]), None)
            return cache[key]

        for op_id, name in readers:
            op = facts.ops[op_id]
            r = op.node
            r_loops = sites[r].loops
            j = 0
            while j < len(s_loops) and j < len(r_loops) and s_loops[j] == r_loops[j]:
                j += 1
            common = s_loops[:j]
            if r in reach_from_store(j) or (r == st.node and False):
                out.append((st, op_id, st.buf, name, None))
                continue
            # carried by a common loop, innermost first
            for m in range(j - 1, -1, -1):
                loop = loops[common[m]]
                removed = set(common[: m + 1])
                key = ("s", "m", m)
                if key not in cache:
                    cache[key] = _reach(succ, [st.node], blocked, removed, None)
                from_store = cache[key]
                if not any(l in from_store or l == st.node for l in loop.latches):
                    continue
                hkey = ("h", m)
                if hkey not in cache:
                    cache[hkey] = _reach(succ, [loop.header], blocked, removed, None) | {loop.header}
                if r not in cache[hkey]:
                    continue
                if loop.kind == "for":
                    if z3_checker is None:
                        from .loops import LoopChecker
                        z3_checker = LoopChecker(facts)
                    if z3_checker.infeasible(loop, st.node, r):
                        continue
                out.append((st, op_id, st.buf, name, loop))
                break
    return out
