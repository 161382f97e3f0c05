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


class _Reach:
    """Reachability from a node by at least one edge, not entering ``blocked`` nodes and not
    taking the back edges of the loops in ``removed``; a start node is in the result only when a
    cycle leads back to it. Only the ``interesting`` nodes reached are kept (the readers and the
    latches the callers ask about), as a bit mask.

    For each set of removed loops, every node's mask is computed once, by one depth-first walk
    over the strongly connected components (Tarjan's, iteratively) that later walks continue
    from: a node's mask is the union over its edges of the target and the target's mask. So n
    per-thread stores in a row, or n loops each with a store, cost one walk over the kernel, not
    one walk each to the next barrier (quadratic)."""

    def __init__(self, succ, blocked, interesting):
        self.succ = succ
        self.blocked = blocked
        self.nodes = sorted(interesting)   # bit i of a mask stands for nodes[i]
        self.bit = {n: 1 << i for i, n in enumerate(self.nodes)}
        self.masks: dict = {}          # removed loops -> {node: mask of the interesting nodes it reaches}
        self.steps = 0                 # nodes the walks entered, all walks together

    def __call__(self, start: int, removed: frozenset) -> "_Reached":
        masks = self.masks.get(removed)
        if masks is None:
            masks = self.masks[removed] = {}
        if start not in masks:
            self._walk(start, removed, masks)
        return _Reached(masks[start], self.bit, self.nodes)

    def _edges(self, n: int, removed: frozenset) -> list:
        blocked = self.blocked
        return [t for t, back_loop in self.succ[n]
                if (back_loop is None or back_loop not in removed) and t not in blocked]

    def _walk(self, root: int, removed: frozenset, masks: dict) -> None:
        bit = self.bit
        index = {root: 0}
        low = {root: 0}
        stack = [root]
        on_stack = {root}
        calls = [(root, iter(self._edges(root, removed)))]
        while calls:
            v, edges = calls[-1]
            for w in edges:
                if w in masks:
                    continue                 # done by an earlier walk
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    calls.append((w, iter(self._edges(w, removed))))
                    break
                if w in on_stack and index[w] < low[v]:
                    low[v] = index[w]
            else:
                calls.pop()
                if calls:
                    u = calls[-1][0]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == index[v]:       # v roots a component: all its successors are done
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    mask = 0
                    if len(component) > 1:   # on a cycle: each reaches all the others and itself
                        for w in component:
                            mask |= bit.get(w, 0)
                    members = set(component)
                    for w in component:
                        for t in self._edges(w, removed):
                            if t not in members:
                                mask |= bit.get(t, 0) | masks[t]
                            elif t == w:     # a self-loop
                                mask |= bit.get(t, 0)
                    for w in component:
                        masks[w] = mask
        self.steps += len(index)


class _Reached:
    """The interesting nodes one walk reached: ``node in reached``, and ``among(nodes)``."""

    __slots__ = ("mask", "bit", "nodes")

    def __init__(self, mask: int, bit: dict, nodes: list):
        self.mask = mask
        self.bit = bit
        self.nodes = nodes

    def __contains__(self, node) -> bool:
        return bool(self.mask & self.bit.get(node, 0))

    def among(self, wanted: dict) -> list:
        """The reached nodes that are keys of ``wanted``, going through the fewer of the two."""
        mask = self.mask
        if mask.bit_count() >= len(wanted):
            bit = self.bit
            return [n for n in wanted if mask & bit.get(n, 0)]
        out = []
        nodes = self.nodes
        bits = bin(mask)[:1:-1]            # bit i at index i
        i = bits.find("1")
        while i >= 0:
            n = nodes[i]
            if n in wanted:
                out.append(n)
            i = bits.find("1", i + 1)
        return out


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
    stores = [st for st in derived.per_thread_stores if readers_at.get(st.buf)]
    interesting = {n for buf in {st.buf for st in stores} for n in readers_at[buf]}
    for loop_id in {l for st in stores for l in sites[st.node].loops}:
        interesting.update(loops[loop_id].latches)
    reach = _Reach(succ, blocked, interesting)
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
            for n in reached.among(by_node):
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
