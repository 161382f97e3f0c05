"""Operation facts: every operation the semantic pass recorded (LANGUAGE §8 class and DESIGN.md
name), at the CFG node where it runs (cfg.py places each at its point of §6's evaluation
order), with its scalar operands; and the `barrier()` nodes."""

from __future__ import annotations

from ..cfg import STMT, KernelCFG
from ...language.ops import OpClass
from ..syntax import ast as A
from .model import Op


def emit(cfg: KernelCFG, facts) -> None:
    barriers = facts.barriers
    for site in cfg.sites:
        ops = site.inst.ops
        for e in site.plain:
            info = ops.get(id(e))
            if info is not None:
                _add(facts, site, info, e, False)
        if not site.ops:
            continue
        own = site.ast if site.kind == STMT else None      # the statement's own operation
        if own is not None and type(own) is A.ExprStmt:
            own = own.expr
        for e in site.ops:
            info = ops.get(id(e))
            if info is None:
                continue
            _add(facts, site, info, e, e is own)
            if info.name == "barrier()":
                barriers.append(site.id)


def _add(facts, site, info, ast, statement_level: bool) -> None:
    op_id = len(facts.ops)
    facts.ops.append(Op(op_id, site.id, info.cls, info.name, info.span, site.inst, ast, statement_level))
    for e in info.operands:
        facts.operand.append((op_id, facts.new_value(e, site.id, site.inst)))
    if info.cls is OpClass.CTA_WIDE:
        for buf in info.reads:
            facts.reads.append((op_id, buf, info.read_names.get(buf) or buf.split("#", 1)[0]))
