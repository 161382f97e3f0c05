"""Control facts: CFG edges and back edges, control parents, the conditions and loop bounds
each control node branches on, and the early exits with what they raise (LANGUAGE §9.3)."""

from __future__ import annotations

from ..cfg import COND, KernelCFG
from ..syntax import ast as A


def emit(cfg: KernelCFG, facts) -> None:
    loop_of_header = {l.header: l.id for l in cfg.loops}
    edges = facts.edges
    for edge, back in cfg.edges():
        if back:
            a, b = edge
            facts.back_edges.append((a, b, loop_of_header.get(b)))
        else:
            edges.append(edge)
    for site in cfg.sites:
        if site.parent is not None:
            facts.parent[site.id] = site.parent
        if site.kind == COND:
            if isinstance(site.ast, A.For):
                for bound in site.ast.args:        # lo, hi, step: the loop's bounds
                    facts.cond.append((site.id, facts.new_value(bound, site.id, site.inst)))
            else:
                facts.cond.append((site.id, facts.new_value(site.ast, site.id, site.inst)))
    # A loop's condition runs again in each later iteration, only in the threads still looping:
    # it runs under its own kind, as the statements of the body do (per-thread-values.md,
    # "Control"; LANGUAGE §9.3).
    for loop in cfg.loops:
        facts.loop_again.append((loop.header, loop.last_cond))
    for node, targets in cfg.raises.items():
        how = type(cfg.sites[node].ast).__name__.lower()     # break, continue, return
        for t in targets:
            facts.raises.append((node, t, how))
