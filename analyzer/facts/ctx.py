"""Source facts: the values that hold a `ctx` field or a lane collective's result, with the
kind they start at (LANGUAGE §4: `ctx.thread` and `ctx.lane` varying, `ctx.warp` warp-uniform;
§8: a lane collective's result warp-uniform)."""

from __future__ import annotations

from ..cfg import KernelCFG


def emit(cfg: KernelCFG, facts) -> None:
    cached = facts._atoms
    for value in facts.values:
        v = value.id
        parts = cached.get(v)
        if parts is None:
            parts = facts.atoms_of(v)
        for kind, origin in parts[1]:
            facts.seed.append((v, kind, origin))
