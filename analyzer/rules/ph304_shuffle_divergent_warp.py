"""PH304 shuffle-divergent-warp: a shuffle under control that differs between the lanes of a warp.

Spec: per-thread-values.md, "Lane-level operations": "`shfl<..>(v)` | Every lane of the warp: control that is the same across a warp | As varying as its operands". Short form (ours): "`shfl<..>` needs every lane of the warp, but control differs between lanes".

What it flags: a `shfl<xor|up|down|idx E>(v)` whose control kind (LANGUAGE §9.3) is varying: it sits under a
condition or loop bounds that differ between lanes, or after a `break`, `continue` or `return`
that only some lanes of a warp took. Warp-uniform control is fine: whole warps take or skip it.

Why it matters: a shuffle exchanges registers among the 32 lanes of a warp in one step. A lane that
does not execute it supplies no value (the reader gets garbage) and, with the sync variants
the hardware uses, the warp may wait for it forever.

Example (rejected):

    @launch(128)
    kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
      var v = A[0, ctx.thread]
      if ctx.lane < 16 {
        v = shfl<xor 1>(v)
      }
      O[0, ctx.thread] = v
    }

Fix: run the shuffle where every lane of the warp runs (outside the branch) and select
the result afterwards with `where`, or make the condition the same across the warp.
The example, fixed:

    @launch(128)
    kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
      let v = A[0, ctx.thread]
      let w = shfl<xor 1>(v)
      O[0, ctx.thread] = where(ctx.lane < 16, w, v)
    }
"""

from __future__ import annotations

from ..diagnostics.model import Diagnostic, SpecRef
from ..facts.explain import chain_notes, control_explanation, control_fix
from ..facts.schema import VARYING
from ...language.ops import OpClass
from .registry import SPEC_PAGE, Rule

RULE = Rule("PH304", "shuffle-divergent-warp", "error", "Lane-level operations", "a shuffle needs every lane of the warp")


def query(facts):
    return [(facts, op, kind) for op, kind in facts.derived.divergent_ops
            if op.cls is OpClass.LANE_LEVEL and kind == VARYING]


def diagnose(match) -> Diagnostic:
    facts, op, kind = match
    labels, label, last = control_explanation(facts, op, kind)
    notes = chain_notes(facts, ("o", op.id), lane_level=True)
    return Diagnostic(RULE.code, f"`{op.name}` needs every lane of the warp, but control differs between lanes", op.span,
                      label=label, chain=labels,
                      help=control_fix(facts, last, "the shuffle", "warp-uniform", " and select its result with `where`"),
                      notes=notes, spec=SpecRef(SPEC_PAGE, RULE.section))
