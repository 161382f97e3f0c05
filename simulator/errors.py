"""What the simulator reports: a dynamic check that fired (a located Diagnostic naming the CTA and
the threads involved), a launch it refuses (bad arguments), and a program it cannot run.

The checks that are the run-time counterparts of the per-thread rules carry the rule's code
(PH301 to PH306), so a message found at run time points at the same `--explain` text as the static
error. The checks with no static rule have codes of their own, PH4xx, registered here.
"""

from __future__ import annotations

import numpy as np

from ..analyzer.checked import render_diagnostics
from ..analyzer.diagnostics.model import Diagnostic, Label, Span, SpecRef
from ..language.arguments import ArgumentError  # noqa: F401 (the simulator's, as the runtime's)


SIMULATOR_NOTE = "found at run time by the simulator (phobos-run --sim)"


class DynamicCheckFailed(Exception):
    """A dynamic check fired; ``diagnostic`` says where, in which CTA and which threads."""

    def __init__(self, diagnostic: Diagnostic, path: str = "<input>", text: str | None = None):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.path = path
        self.text = text

    @property
    def code(self) -> str:
        return self.diagnostic.code

    def render(self) -> str:
        return render_diagnostics([self.diagnostic], self.path, self.text)

    def __str__(self) -> str:
        d = self.diagnostic
        return f"{self.path}:{d.span.line}:{d.span.column}: error[{d.code}]: {d.message}"


class ProgramRejected(Exception):
    """The file does not check (or has errors `--unchecked` cannot get past)."""

    def __init__(self, message: str, diagnostics: list, path: str, text: str | None):
        super().__init__(message)
        self.diagnostics = diagnostics
        self.path = path
        self.text = text

    def render(self) -> str:
        return render_diagnostics(self.diagnostics, self.path, self.text)


def fire(code: str, message: str, span: Span, label: str | None = None, notes=(), help: str | None = None,
         chain=()) -> None:
    """Raise a dynamic check. The machine fills in the path and source as the error leaves it."""
    spec = None
    if code.startswith("PH3"):
        spec = SpecRef("per-thread-values.md", "What needs every thread" if code in ("PH301", "PH302", "PH303")
                       else "Lane-level operations")
    diag = Diagnostic(code, message, span, label=label, chain=[Label(s, t) for s, t in chain],
                      notes=[SIMULATOR_NOTE, *notes], help=help, spec=spec)
    raise DynamicCheckFailed(diag)


def cta_name(coords) -> str:
    return "(" + ", ".join(str(int(c)) for c in coords) + ")"


def thread_list(ids, limit: int = 8) -> str:
    """``threads 0, 32, 64 and 5 more`` or ``threads 0-31``: a short, exact description."""
    ids = [int(i) for i in np.asarray(ids).ravel()]
    if not ids:
        return "no thread"
    if len(ids) == 1:
        return f"thread {ids[0]}"
    if ids == list(range(ids[0], ids[0] + len(ids))):
        return f"threads {ids[0]}-{ids[-1]}"
    shown = ", ".join(str(i) for i in ids[:limit])
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"threads {shown}{more}"
