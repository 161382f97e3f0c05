"""Relational facts of one kernel, emitted from its CFG and semantic records.

``extract(cfg)`` returns a ``Facts``: the base relations of schema.py, filled by one module per
family (dataflow, ctx, memory, operations, control). ``derive.solve(facts)`` computes the
derived relations (kinds, control kinds, per-thread stores, unsynchronized paths), each derived
fact with the fact that produced it.
"""

from __future__ import annotations

from ..cfg import KernelCFG
from . import control, ctx, dataflow, memory, operations
from .model import Facts, Op, RaiseFacts, Store, Value  # noqa: F401 (the records, for the rules and tests)


def extract(cfg: KernelCFG) -> Facts:
    facts = Facts(cfg)
    control.emit(cfg, facts)
    operations.emit(cfg, facts)
    memory.emit(cfg, facts)
    dataflow.emit(cfg, facts)     # after every value exists: it records what each one reads
    ctx.emit(cfg, facts)
    return facts
