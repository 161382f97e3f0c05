"""PH306 thread-collective-divergent-cta: a CTA collective under control that is not uniform.

Spec: per-thread-values.md, "Lane-level operations": "`op<over ctx.thread>(x)` | Every thread of the CTA: uniform control | Uniform". Short form (ours): "`op<over ctx.thread>` needs every thread of the CTA, but control differs between threads".

What it flags: `sum`, `max`, `min`, `any` or `all` `<over ctx.thread>` whose control kind is warp-uniform or
varying (LANGUAGE §9.3).

Why it matters: the collective folds each warp with shuffles, then combines the warps through shared
memory between barriers. A warp or lane that never arrives leaves the others at the barrier
forever, or the fold is missing its values.

Example (rejected):

    @launch(256)
    kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 1]) {
      if ctx.warp == 0 {
        let s = sum<over ctx.thread>(A[0, ctx.thread])
        O[0, 0] = s
      }
    }

Fix: run the collective under uniform control (outside the branch), giving threads without a
value a neutral one, then use its result where needed.
The example, fixed:

    @launch(256)
    kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 1]) {
      let s = sum<over ctx.thread>(where(ctx.warp == 0, A[0, ctx.thread], 0.0))
      if ctx.thread == 0 {
        O[0, 0] = s
      }
    }
"""

from __future__ import annotations

from ..diagnostics.model import Diagnostic, SpecRef
from ..facts.explain import chain_notes, control_explanation, control_fix
from ...language.ops import OpClass
from .registry import SPEC_PAGE, Rule

RULE = Rule("PH306", "thread-collective-divergent-cta", "error", "Lane-level operations", "a CTA collective needs every thread of the CTA")


def query(facts):
    return [(facts, op, kind) for op, kind in facts.derived.divergent_ops
            if op.cls is OpClass.CTA_COLLECTIVE]


def diagnose(match) -> Diagnostic:
    facts, op, kind = match
    labels, label, last = control_explanation(facts, op, kind)
    notes = chain_notes(facts, ("o", op.id))
    head = op.name.split("<", 1)[0]
    return Diagnostic(RULE.code, f"`{head}<over ctx.thread>` needs every thread of the CTA, but control differs between threads", op.span,
                      label=label, chain=labels,
                      help=control_fix(facts, last, "the collective", "uniform", ", giving the other threads a neutral value"),
                      notes=notes, spec=SpecRef(SPEC_PAGE, RULE.section))
