"""Control facts, read off the CFG's graph: its edges and back edges, control parents, the
conditions and loop bounds each control node branches on, what a loop's condition runs under in
later iterations, and the early exits with what they raise (LANGUAGE §9.3)."""

from __future__ import annotations

from ..cfg import COND, KernelCFG
from ..syntax import ast as A


def emit(cfg: KernelCFG, facts) -> None:
    # (the edge and back-edge relations are read off the graph when asked: Facts.edges)
    loops = cfg.loops
    for site in cfg.sites:
        if site.parent is not None:
            facts.parent[site.id] = site.parent
        if site.kind == COND:
            if isinstance(site.ast, A.For):
                # lo, hi, step: the loop's bounds, the values its init node computed
                init = loops[site.loop_header_of].init
                for bound in site.ast.args:
                    facts.cond.append((site.id, facts.new_value(bound, init, site.inst)))
            else:
                # an `if`/`while` condition's operand, or the left side of an `&&`/`||` whose
                # right side runs under it
                facts.cond.append((site.id, facts.new_value(site.ast, site.id, site.inst)))
    # A loop's condition runs again in each later iteration, only in the threads still looping:
    # the whole of it (calls and operations in it included) runs under the control inside the
    # node that decides the loop, as the body does (per-thread-values.md, "Control"; §9.3).
    for loop in loops:
        for top in loop.tops:
            facts.loop_again.append((top, loop.last_cond))
    for node, targets in cfg.raises.items():
        how = type(cfg.sites[node].ast).__name__.lower()     # break, continue, return
        facts.raises.add(node, targets, how)
