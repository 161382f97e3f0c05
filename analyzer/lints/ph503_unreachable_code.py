"""PH503 unreachable-code: statements after `return`, `break` or `continue` in the same block

What it flags: the statements that follow a `return`, `break` or `continue` in the block that
holds it: no thread ever runs them. One warning per run of such statements, at its first.

Why it matters: code that never runs is either dead (and misleads the reader into thinking that
it matters, a store or a `barrier()` included) or, more often, meant to run and placed after the
jump by mistake: a debugging `return` left in, a `continue` moved above the update it skips.

Example (a warning):

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      if A[ctx.thread] < 0.0 {
        return
        O[ctx.thread] = 0.0
      }
      O[ctx.thread] = A[ctx.thread]
    }

Fix: remove the statements, or move them before the jump, or put the jump under the condition
it was meant to have:

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      if A[ctx.thread] < 0.0 {
        O[ctx.thread] = 0.0
        return
      }
      O[ctx.thread] = A[ctx.thread]
    }
"""

from __future__ import annotations

from ..diagnostics.model import WARNING, Diagnostic, Label, Span
from ..facts.usage import bodies, unreachable_runs
from ..syntax import ast as A
from .registry import Lint

LINT = Lint("PH503", "unreachable-code", "statements after `return`, `break` or `continue` in the same block")

WORDS = {A.Return: "return", A.Break: "break", A.Continue: "continue"}


def query(subject):
    out, seen = [], set()
    for inst in bodies(subject.semantics):
        if id(inst.node) in seen:
            continue
        seen.add(id(inst.node))
        out.extend(unreachable_runs(inst.node.body))
    return out


def diagnose(match) -> Diagnostic:
    jump, first, last = match
    word = WORDS[type(jump)]
    js = jump.span
    return Diagnostic(LINT.code, "unreachable code", first.span.to(last.span) if last is not first else first.span,
                      severity=WARNING, label=f"never runs: the `{word}` before it always leaves",
                      chain=[Label(Span(js.line, js.column, js.line, js.column + len(word)),
                                   f"every thread that gets here leaves at this `{word}`")],
                      help=f"remove the unreachable statements, or move them before the `{word}`")
