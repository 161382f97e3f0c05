"""PH502 var-never-reassigned: a scalar `var` assigned only by its initializer (could be `let`)

What it flags: a scalar `var` with an initializer that is read but never assigned again, by `=`
or by a compound assignment such as `+=`. A `var` that is not read either is PH501's; a tile
`var` is shared memory and stays a `var`.

Why it matters: `let` says that the value never changes, which a reader (and the `--why` chain
of a kind) can rely on: LANGUAGE §9.1 gives a `var` the join of every assignment's kind, a
`let` simply its initializer's. A `var` that is never reassigned hides that promise, and is
often the sign of an update that was meant to happen and does not.

Example (a warning):

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      var x = A[ctx.thread]
      O[ctx.thread] = x * 2.0
    }

Fix: write `let` (`--fix` does it), or assign the `var` where the update was meant to be:

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      let x = A[ctx.thread]
      O[ctx.thread] = x * 2.0
    }
"""

from __future__ import annotations

from ..diagnostics.model import WARNING, Diagnostic, Edit, Fix, Span
from ..facts.usage import binding_usage, bodies
from ..syntax import ast as A
from ...language.types import Scalar
from .registry import Lint

LINT = Lint("PH502", "var-never-reassigned", "a scalar `var` assigned only by its initializer (could be `let`)")


def query(subject):
    out = []
    for inst in bodies(subject.semantics):
        usage = binding_usage(inst)
        for b in inst.bindings:
            if b.kind == "var" and isinstance(b.type, Scalar) and isinstance(b.node, A.Var) \
                    and b.node.value is not None and b.uid in usage.read and b.uid not in usage.assigned:
                out.append(b)
    return out


def diagnose(b) -> Diagnostic:
    stmt = b.node
    name = stmt.name_span if stmt.name_span.line else b.span
    keyword = Span(stmt.span.line, stmt.span.column, stmt.span.line, stmt.span.column + 3)
    return Diagnostic(LINT.code, f"`{b.name}` is a `var` that is never assigned again",
                      Span(name.line, name.column, name.line, name.column + len(b.name)), severity=WARNING,
                      label="assigned only here, by its initializer",
                      help=f"declare it with `let {b.name} = ..`",
                      fixes=[Fix(f"declare `{b.name}` with `let`",
                                 (Edit(keyword.line, keyword.column, keyword.end_line, keyword.end_column, "let"),))])
