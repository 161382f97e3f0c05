"""The diagnostic model: a diagnostic is data (code, spans, chain, notes, help, spec).

Only the renderers (``text``, ``json_format``) turn it into characters. Lines and columns are
1-based and count Unicode code points; ``end_column`` is exclusive.
"""

from __future__ import annotations

from dataclasses import field
from typing import NamedTuple

from ...language.records import record
from .codes import code_name

ERROR = "error"
WARNING = "warning"
NOTE = "note"


class Span(NamedTuple):
    """A source range. A named tuple rather than a dataclass: the parser makes one per token and
    node, and tuples are several times cheaper to build."""

    line: int
    column: int
    end_line: int
    end_column: int

    def to(self, other: "Span") -> "Span":
        """The span from the start of ``self`` to the end of ``other``."""
        return Span(self.line, self.column, other.end_line, other.end_column)

    def __repr__(self) -> str:
        return f"{self.line}:{self.column}-{self.end_line}:{self.end_column}"


@record(frozen=True, slots=True)
class Label:
    """A located step of explanation (one entry of a diagnostic's chain)."""

    span: Span
    text: str


@record(frozen=True, slots=True)
class SpecRef:
    page: str
    section: str


@record(frozen=True, slots=True)
class Edit:
    """Replace the text from (line, column) to (end_line, end_column), exclusive, with ``text``
    (an insertion when the two ends meet). Lines and columns as in spans: 1-based code points."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@record(frozen=True, slots=True)
class Fix:
    """A machine-applicable fix: edits that are certain to be what the diagnostic asks for, applied
    together (``phobos-check --fix``, JSON and SARIF ``fixes``, the language server's code
    actions). ``message`` says what it does, in the imperative."""

    message: str
    edits: tuple[Edit, ...] = ()


@record
class Diagnostic:
    code: str
    message: str
    span: Span
    severity: str = ERROR
    label: str | None = None
    chain: list[Label] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    help: str | None = None
    spec: SpecRef | None = None
    fixes: list[Fix] = field(default_factory=list)   # machine-applicable edits (docs/configuration.md)

    @property
    def name(self) -> str:
        return code_name(self.code)

    def sort_key(self) -> tuple[int, int, str]:
        return (self.span.line, self.span.column, self.code)
