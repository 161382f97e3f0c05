"""Errors of the lowering: an operation it cannot lower yet (a located user-facing error), and
an internal failure (a bug, reported as diagnostic PH901 with its message, never a traceback).
"""

from __future__ import annotations

# The code of "not supported yet" diagnostics. Registered in analyzer/diagnostics/codes.py by the
# owner of that file; until then the renderers that need the code's name fall back gracefully.
UNSUPPORTED_CODE = "PH210"
INTERNAL_CODE = "PH901"


class LoweringError(Exception):
    """An internal failure of the lowering (PH901): a broken invariant, an LLVM error."""

    def __init__(self, message: str, span=None):
        super().__init__(message)
        self.span = span


class Unsupported(Exception):
    """An operation the lowering does not support yet, with where it is (exit 1, not a bug)."""

    def __init__(self, message: str, span, help: str | None = None, code: str = UNSUPPORTED_CODE):
        super().__init__(message)
        self.span = span
        self.help = help
        self.code = code
