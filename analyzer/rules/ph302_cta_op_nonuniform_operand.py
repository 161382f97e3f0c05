"""PH302 cta-op-nonuniform-operand: a CTA-wide operation given a scalar that is not uniform.

Spec: per-thread-values.md, "What needs every thread": "Their scalar operands are uniform,
including slice offsets: a slice at a per-thread offset is not a tile." Short form: "`op` takes
`x`, which differs between lanes" (LANGUAGE §9.7: "differs between warps" for a warp-uniform x).

What it flags: a warp-uniform or varying scalar among the operands of a CTA-wide operation
(LANGUAGE §9.7): a slice's offsets and ends, wherever the slice is written (a `let` view
included), a scalar an elementwise sweep broadcasts, an atomic's index and value, the element
`load_acquire` or `store_release` touches.

Why it matters: the operation runs once for the whole CTA, with one value of each operand. If
threads disagree on it, there is no single slice to copy or element to update, and whichever
thread's value wins, the others get something they did not ask for.

Example (rejected):

    @launch(256)
    kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
      var u = A[0, ctx.lane :+ 1]
      O[0 :+ 1, 0 :+ 1] = u
    }

Fix: build the operand from uniform values (`ctx.block`, parameters, constants, loads at
uniform addresses). A thread that wants its own element reads it with a point subscript,
`A[0, ctx.lane]`, a scalar load that runs anywhere. An atomic is not CUDA's per-thread atomic:
it runs once per CTA (LANGUAGE §8, "Once-per-CTA operations"), so combine the threads' values
with a CTA collective first, `atomic_add(S[0], sum<over ctx.thread>(v))`; a histogram totals
each bin's share the same way, `atomic_add(H[b], sum<over ctx.thread>(where(bin == b, 1, 0)))`
for each bin `b` in a loop.
The example, fixed:

    @launch(256)
    kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
      let u = A[0, ctx.lane]
      if ctx.warp == 0 {
        O[0, ctx.lane] = u
      }
    }
"""

from __future__ import annotations

from ..diagnostics.model import Diagnostic, SpecRef
from ..facts.explain import subexprs
from ..facts.explain import ONCE_PER_CTA, index_varies, chain_labels, chain_notes, inlined_steps, once_per_cta_fix, source_text as show
from ..facts.schema import UNIFORM, VARYING
from ...language.ops import OpClass
from .registry import SPEC_PAGE, Rule

RULE = Rule("PH302", "cta-op-nonuniform-operand", "error", "What needs every thread",
            "the scalar operands of a CTA-wide operation must be uniform")


def query(facts):
    derived = facts.derived
    ops = facts.ops
    seen = set()
    out = []
    for op_id, v in facts.operand:
        op = ops[op_id]
        if op.cls not in (OpClass.CTA_WIDE, OpClass.VIEW):
            continue
        kind = derived.of(("v", v))
        if kind == UNIFORM:
            continue
        expr = facts.values[v].expr
        # one diagnostic per operand: a scalar that a sweep nested in a tile built-in broadcasts
        # is an operand of both at the statement's node (named by the statement's operation)
        key = (op.node, expr.span)
        if key in seen:
            continue
        seen.add(key)
        out.append((facts, op, v, kind))
    return out


def diagnose(match) -> Diagnostic:
    facts, op, v, kind = match
    expr = facts.values[v].expr
    text = show(expr)
    between = "lanes" if kind == VARYING else "warps"
    labels, _ = chain_labels(facts, ("v", v))
    labels += inlined_steps(op.inst, labels)
    per_thread = any(w in text for w in ("ctx.thread", "ctx.lane", "ctx.warp"))
    fix = (once_per_cta_fix(op, expr, index_varies(facts, op)) if op.name in ONCE_PER_CTA else
           _slice_fix(op, expr) if op.name == "slice" else
           f"`{op.name}` runs once for the CTA: give it a value the whole CTA shares (`ctx.block`, "
           "parameters, constants), or combine the threads' values first with `op<over ctx.thread>(..)`"
           if per_thread else
           f"compute `{text}` from uniform values (`ctx.block`, parameters, constants)")
    return Diagnostic(RULE.code, f"`{op.name}` takes `{text}`, which differs between {between}", expr.span,
                      label=f"differs between {between}, but `{op.name}` runs once for the whole CTA",
                      chain=labels, notes=chain_notes(facts, ("v", v)), help=fix, spec=SpecRef(SPEC_PAGE, RULE.section))




def _slice_fix(op, expr) -> str:
    """Help for a slice at a per-thread offset. A point subscript is no drop-in code here (it is
    one element where the slice is a tile), so the help names the tensor and shows no code."""
    inside = [e for e in subexprs(op.ast) if hasattr(e, "subs") and _contains(e.span, expr.span)]
    name = f" of `{inside[-1].base.id}`" if inside and hasattr(inside[-1].base, "id") else ""
    return ("give the slice uniform offsets, or have each thread read or store only its own element"
            f"{name}, with a point subscript")


def _contains(outer, inner) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and \
        (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)
