"""Operation classes of LANGUAGE §8, recorded by the semantic pass for every call, access and
assignment; the per-thread analysis (analyzer/facts) reads them.

``name`` is the operation's name as DESIGN.md lists it for messages (`tile copy`, `slice`,
`elementwise sweep`, `dot`, `barrier()`, `sum<over ctx.thread>`, `shfl<xor ..>`, ...).
"""

from __future__ import annotations

from dataclasses import field
from enum import Enum

from .records import record


class OpClass(Enum):
    PER_THREAD = "per-thread"            # runs anywhere, any operands
    LANE_LEVEL = "lane-level"            # shuffles: control the same across a warp
    LANE_COLLECTIVE = "lane collective"  # op<over ctx.lane>: control the same across a warp
    CTA_COLLECTIVE = "CTA collective"    # op<over ctx.thread>: uniform control
    CTA_WIDE = "CTA-wide"                # tile ops, barrier, atomics, acquire/release, quantized
    VIEW = "view"                        # a `let` view of a slice: no operation, but its offsets
                                         # must be uniform (LANGUAGE §9.7)


@record
class OpInfo:
    cls: OpClass
    name: str
    span: object                   # where the operation is written (a diagnostics Span)
    # Scalar operands the rules constrain (slice offsets and ends, broadcast scalars, atomic
    # index and value, shuffle lane, ...): the expression nodes themselves.
    operands: list = field(default_factory=list)
    reads: list[str] = field(default_factory=list)    # buffers (tensor or tile names) read
    writes: list[str] = field(default_factory=list)   # buffers written
    read_names: dict = field(default_factory=dict)     # buffer -> the name the source reads it by


# Per-thread operation names used in the records (not shown in PH3xx messages).
LOAD = "load"
STORE = "store"
RUN_LOAD = "run load"
RUN_STORE = "run store"
ASSIGN = "assign"
CALL = "call"
