"""Source facts: the values that hold a `ctx` field or a lane collective's result, with the
kind they start at (LANGUAGE §4: `ctx.thread` and `ctx.lane` varying, `ctx.warp` warp-uniform;
§8: a lane collective's result warp-uniform)."""

from __future__ import annotations

from ..cfg import KernelCFG


def emit(cfg: KernelCFG, facts) -> None:
    for value in facts.values:
        _uses, seeds, _results = facts.atoms_of(value.id)
        for kind, origin in seeds:
            facts.seed.append((value.id, kind, origin))
