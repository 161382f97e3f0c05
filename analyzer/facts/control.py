"""Control facts: CFG edges and back edges, control parents, the conditions and loop bounds
each control node branches on, and the early exits with what they raise (LANGUAGE §9.3)."""

from __future__ import annotations

from ..cfg import CALL, COND, KernelCFG
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
                facts.cond.append((site.id, facts.new_value(site.ast, site.id, site.inst)))
        elif site.kind == CALL and site.short_circuit:
            # a call on the right of `&&`/`||` runs only where the left operands let it: its
            # body runs under control as varying as they are (like an `if` on them)
            for g in site.short_circuit:
                facts.cond.append((site.id, facts.new_value(g, site.id, site.inst)))
    # A loop's condition runs again in each later iteration, only in the threads still looping:
    # it runs under its own kind, as the statements of the body do (per-thread-values.md,
    # "Control"; LANGUAGE §9.3).
    for loop in cfg.loops:
        facts.loop_again.append((loop.header, loop.last_cond))
    for node, targets in cfg.raises.items():
        how = type(cfg.sites[node].ast).__name__.lower()     # break, continue, return
        facts.raises.add(node, targets, how)
