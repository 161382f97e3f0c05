"""Memory facts: per-thread point and run stores with their indices and value, loads, `let`
views and the buffer behind them, and the buffers each CTA-wide operation reads (§9.5)."""

from __future__ import annotations

from ..cfg import KernelCFG
from .model import Store
from ...language.ops import LOAD, RUN_LOAD, STORE, OpClass
from ..syntax import ast as A
from ...language.types import Tile


def emit(cfg: KernelCFG, facts) -> None:
    per_thread = OpClass.PER_THREAD
    for op in facts.ops:
        # (an op's class and name are those of its record, looked up below)
        if op.cls is not per_thread or (op.name != STORE and op.name != LOAD and op.name != RUN_LOAD):
            continue
        site = cfg.sites[op.node]
        info = site.inst.ops.get(id(op.ast))
        if info is None:
            continue
        if op.cls is OpClass.PER_THREAD and info.name == STORE:
            values = [facts.new_value(e, op.node, site.inst) for e in info.operands]
            target = op.ast.target if isinstance(op.ast, A.Assign) else op.ast.args[0]
            facts.stores.append(_store(op, info, values, target))
        elif op.cls is OpClass.PER_THREAD and info.name in (LOAD, RUN_LOAD):
            facts.loads.append((op.node, info.reads[0] if info.reads else None,
                                [facts.new_value(e, op.node, site.inst) for e in info.operands]))
    seen = set()
    for inst_bindings in {id(s.inst): s.inst for s in cfg.sites}.values():
        for b in inst_bindings.bindings:
            if b.kind == "view" and isinstance(b.type, Tile) and b.uid not in seen:
                seen.add(b.uid)
                facts.views.append((b, b.buffer))


def _store(op, info, values, target):
    return Store(op.node, info.writes[0], values[:-1], values[-1] if values else None, op.id, op.span, target)
