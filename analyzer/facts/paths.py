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
    """Nodes reachable from ``start_nodes`` by at least one edge, not entering ``blocked`` nodes
    and not taking back edges of the loops in ``removed_back``. A start node is in the result only
    when a cycle leads back to it."""
    seen: set = set()
    work = deque(start_nodes)
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
    readers_at: dict = {}
    for buf, readers in derived.cta_reads.items():
        by_node = readers_at.setdefault(buf, {})
        for op_id, name in readers:
            by_node.setdefault(facts.ops[op_id].node, []).append((op_id, name))
    out = []
    z3_checker = None
    for st in derived.per_thread_stores:
        by_node = readers_at.get(st.buf)
        if not by_node:
            continue
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
            reached = _reach(succ, [st.node], blocked, set(s_loops[:j]), None)
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
            removed = set(s_loops[: m + 1])
            from_store = _reach(succ, [st.node], blocked, removed, None)
            if not any(l in from_store or l == st.node for l in loop.latches):
                continue
            from_header = _reach(succ, [loop.header], blocked, removed, None) | {loop.header}
            for n, rs in candidates:
                if n not in from_header:
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
