"""PH301 cta-op-divergent-control: a CTA-wide operation under control that is not uniform.

Spec: per-thread-values.md, "What needs every thread": "They run only under uniform control:
every thread must reach them." Short form: "`op` runs once per CTA, so every thread must reach
it".

What it flags: a tile operation (a copy, an elementwise sweep, a tile built-in such as `dot` or
`rowsum`), `barrier()`, an atomic, `load_acquire`, `store_release` or a quantized intrinsic whose
control kind (LANGUAGE §9.3) is warp-uniform or varying: it sits under an `if`/`while` condition
or `for` bounds that differ between threads, or after a `break`, `continue` or `return` that
only some threads took.

Why it matters: these operations run once per CTA and every thread takes part, meeting the
others at the barriers the operation needs. A thread that never arrives leaves the rest waiting
forever (the GPU hangs) or the operation computes with part of the CTA missing.

Example (rejected):

    @launch(256)
    kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
      var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
      if ctx.lane == 0 {
        t = t * 2.0
      }
      O[0 :+ 1, 0 :+ 32] = t
    }

Fix: move the operation out of the branch (a per-thread branch that has closed is no problem),
or make the condition uniform, built from `ctx.block`, parameters and loads at uniform addresses.
The example, fixed:

    @launch(256)
    kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
      var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
      var x = 0
      if ctx.lane == 0 {
        x = 1
      }
      t = t * 2.0
      O[0 :+ 1, 0 :+ 32] = t
    }
"""

from __future__ import annotations

from ..diagnostics.model import Diagnostic, SpecRef
from ..facts.explain import chain_notes, control_explanation, control_fix
from ...language.ops import OpClass
from .registry import SPEC_PAGE, Rule

RULE = Rule("PH301", "cta-op-divergent-control", "error", "What needs every thread",
            "a CTA-wide operation must run under uniform control")


def query(facts):
    """One match per CFG node holding a CTA-wide operation under non-uniform control: the
    statement's own operation when it has one, else the first one in the expression."""
    chosen: dict = {}
    for op, kind in facts.derived.divergent_ops:
        if op.cls is not OpClass.CTA_WIDE or op.name == "slice":
            continue
        best = chosen.get(op.node)
        if best is None or (op.statement_level and not best[0].statement_level):
            chosen[op.node] = (op, kind)
    return [(facts, op, kind) for op, kind in chosen.values()]


def diagnose(match) -> Diagnostic:
    facts, op, kind = match
    labels, label, last = control_explanation(facts, op, kind)
    notes = chain_notes(facts, ("o", op.id))
    fix = control_fix(facts, last, f"`{op.name}`", "uniform")
    return Diagnostic(RULE.code, f"`{op.name}` runs once per CTA, so every thread must reach it", op.span,
                      label=label, chain=labels, help=fix,
                      notes=notes, spec=SpecRef(SPEC_PAGE, RULE.section))
