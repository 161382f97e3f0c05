"""PH305 lane-collective-divergent-warp: a lane collective under control that differs between the lanes of a warp.

Spec: per-thread-values.md, "Lane-level operations": "`op<over ctx.lane>(x)` | Every lane of the warp | Over the whole warp, warp-uniform", and "A lane collective may therefore sit inside `if col < N { .. }` when col is warp-uniform, but not inside `if ctx.lane < 16 { .. }`." Short form (ours): "`op<over ctx.lane>` needs every lane of the warp, but control differs between lanes".

What it flags: `sum`, `max`, `min`, `any` or `all` `<over ctx.lane>` whose control kind is varying.

Why it matters: the collective folds one value from each of the 32 lanes with shuffles; lanes that are
not there contribute nothing, so the result is wrong for everyone, or the warp hangs.

Example (rejected):

    @launch(128)
    kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 4]) {
      var s: f32 = 0.0
      if ctx.lane < 16 {
        s = sum<over ctx.lane>(A[0, ctx.thread])
      }
      O[0, ctx.warp] = s
    }

Fix: compute each lane's contribution under the branch (0 for lanes that have none), then run
the collective outside it: `let s = sum<over ctx.lane>(where(ctx.lane < 16, x, 0.0))`.
The example, fixed:

    @launch(128)
    kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 4]) {
      let s = sum<over ctx.lane>(where(ctx.lane < 16, A[0, ctx.thread], 0.0))
      if ctx.lane == 0 {
        O[0, ctx.warp] = s
      }
    }
"""

from __future__ import annotations

from ..diagnostics.model import Diagnostic, SpecRef
from ..facts.explain import chain_notes, control_explanation, control_fix
from ..facts.schema import VARYING
from ...language.ops import OpClass
from .registry import SPEC_PAGE, Rule

RULE = Rule("PH305", "lane-collective-divergent-warp", "error", "Lane-level operations", "a lane collective needs every lane of the warp")


def query(facts):
    return [(facts, op, kind) for op, kind in facts.derived.divergent_ops
            if op.cls is OpClass.LANE_COLLECTIVE and kind == VARYING]


def diagnose(match) -> Diagnostic:
    facts, op, kind = match
    labels, label, last = control_explanation(facts, op, kind)
    notes = chain_notes(facts, ("o", op.id), lane_level=True)
    head = op.name.split("<", 1)[0]
    return Diagnostic(RULE.code, f"`{head}<over ctx.lane>` needs every lane of the warp, but control differs between lanes", op.span,
                      label=label, chain=labels,
                      help=control_fix(facts, last, "the collective", "warp-uniform", ", giving lanes without a value a neutral one (0 for sum)"),
                      notes=notes, spec=SpecRef(SPEC_PAGE, RULE.section))
