"""The barrier rule's reachability queries: networkx against the hand-written walks of
analyzer/facts/paths.py, on the same graph (the CFG's ``networkx.DiGraph``).

paths.py walks adjacency lists made once from the graph; networkx's own answer to the same
question is ``nx.descendants`` on ``nx.restricted_view(graph, barriers, [])``. This prints, for a
generated clean kernel and for the shape that once grew as n^1.9 (a store, a barrier and a read
repeated in one loop), the CPU time of each way for the walk from every per-thread store, and that
both find the same nodes. It asserts nothing.

    python benchmarks/path_queries.py [--sizes 3000,30000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "support"))

import networkx as nx  # noqa: E402
from gen_kernels import kernel_source  # noqa: E402
from scaling_shapes import store_barrier_read_loop  # noqa: E402

from phobos_tools.analyzer import check_source  # noqa: E402
from phobos_tools.analyzer.facts.paths import Adjacency, Walks  # noqa: E402


def cpu(f):
    t0 = time.process_time()
    out = f()
    return out, time.process_time() - t0


def row(name: str, src: str) -> None:
    result = check_source(src)
    ka = result.analyses[0]
    facts = ka.facts
    cfg = ka.cfg
    barriers = set(facts.barriers)
    stores = sorted({st.node for st in facts.derived.per_thread_stores})

    def hand():
        walks = Walks(Adjacency(cfg, barriers))
        return [walks.forward([s]) for s in stores]

    def library():
        view = nx.restricted_view(cfg.graph, barriers, [])
        return [nx.descendants(view, s) for s in stores]

    mine, t_hand = cpu(hand)
    theirs, t_nx = cpu(library)
    # the walks count the start when a cycle leads back to it; descendants() never does
    same = all(a - {s} == b for a, b, s in zip(mine, theirs, stores))
    print(f"{name:<34} {len(cfg.sites):>8} {len(stores):>7} {t_hand:>9.3f} {t_nx:>9.3f} "
          f"{t_nx / t_hand if t_hand else float('inf'):>7.1f}x  {'same' if same else 'DIFFER'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="3000,30000")
    args = ap.parse_args()
    print(f"{'kernel':<34} {'nodes':>8} {'stores':>7} {'walks s':>9} {'nx s':>9} {'ratio':>8}")
    for n in (int(x) for x in args.sizes.split(",")):
        row(f"gen_kernels {n}", kernel_source(n))
        row(f"store, barrier, read loop {n}", store_barrier_read_loop(n))


if __name__ == "__main__":
    main()
