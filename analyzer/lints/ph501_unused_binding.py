"""PH501 unused-binding: a `let`, `var`, loop variable or function parameter never read

What it flags: a binding that no expression reads: a `let` or `var` (a scalar, a run, a tile or
a view), a `for` loop's variable, or a function's parameter. Assigning to a `var` is not reading
it: `x += e` alone does not use `x`. Kernel parameters are the kernel's launch interface and
never fire, and a name that starts with `_` says that it is unused on purpose. A `var` that is
neither read nor reassigned is reported here only (not as PH502).

Why it matters: an unused binding is dead code at best; more often it is a typo (the value
meant for `acc` went to `acc2`) or a leftover of an edit, and a loaded or computed value that
nobody reads still costs loads and registers until the compiler removes it.

Example (a warning):

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      let scale = A[0]
      O[ctx.thread] = A[ctx.thread]
    }

Fix: use the binding, delete it, or name it `_scale` when it stays on purpose (`--fix` renames
a binding that is declared and never mentioned again):

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      let scale = A[0]
      O[ctx.thread] = A[ctx.thread] * scale
    }
"""

from __future__ import annotations

from ..diagnostics.model import WARNING, Diagnostic, Edit, Fix, Span
from ..facts.usage import binding_usage, bodies
from ..syntax import ast as A
from .registry import Lint

LINT = Lint("PH501", "unused-binding", "a `let`, `var`, loop variable or function parameter never read")


def query(subject):
    out = []
    for inst in bodies(subject.semantics):
        usage = binding_usage(inst)
        names = {b.name for b in inst.bindings}
        for b in inst.bindings:
            if b.name.startswith("_") or b.uid in usage.read:
                continue
            if b.kind in ("let", "var", "loop", "view") or (b.kind == "param" and inst.kind == "function"):
                out.append((b, inst.kind, f"_{b.name}" not in names and b.uid not in usage.assigned))
    return out


def diagnose(match) -> Diagnostic:
    b, where, renamable = match
    what = {"loop": "loop variable", "param": "parameter", "view": "view"}.get(b.kind, b.kind)
    start = _name_start(b)
    fixes = [Fix(f"rename `{b.name}` to `_{b.name}`",
                 (Edit(start.line, start.column, start.line, start.column, "_"),))] if renamable else []
    return Diagnostic(LINT.code, f"`{b.name}` is never read", start, severity=WARNING,
                      label=f"{what} declared here, read nowhere",
                      help=f"use it, remove it, or name it `_{b.name}` to say it is unused on purpose",
                      fixes=fixes)


def _name_start(b) -> Span:
    """The span of the binding's name, as written."""
    node = b.node
    span = getattr(node, "name_span", None) or getattr(node, "var_span", None)
    if isinstance(node, A.Param) or span is None or span.line == 0:
        span = b.span
    return Span(span.line, span.column, span.line, span.column + len(b.name))
