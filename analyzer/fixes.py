"""Applying the machine-applicable fixes diagnostics carry (``Diagnostic.fixes``, a list of
``Fix(message, edits)``; docs/configuration.md, "Fixes"): what `phobos-check --fix` and the
language server's code actions do. Pure text in, text out.

Each diagnostic's first fix is taken whole or not at all: a fix whose edits overlap an edit
already taken waits for the next round (``--fix`` checks the result again and repeats, so
nothing is lost). Lines and columns are those of spans: 1-based, code points, the end
exclusive; a position past the end of a line or of the text is clamped to it.
"""

from __future__ import annotations

from .diagnostics.model import Edit

MAX_ROUNDS = 10        # --fix: check and fix again at most this often


def offset_of(lines: list[str], line: int, column: int) -> int:
    """The offset in the text (``lines`` split at "\\n", each without it) of a 1-based position."""
    if line < 1:
        return 0
    if line > len(lines):
        return sum(len(l) + 1 for l in lines) - 1
    start = sum(len(l) + 1 for l in lines[:line - 1])
    return start + min(max(column, 1) - 1, len(lines[line - 1]))


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` (which must not overlap) applied."""
    lines = text.split("\n")
    spans = sorted(((offset_of(lines, e.line, e.column), offset_of(lines, e.end_line, e.end_column), e.text)
                    for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[max(start, end):]
    return text


def apply_fixes(text: str, diagnostics) -> tuple[str, int]:
    """``text`` with the first fix of each diagnostic that has one applied, where it overlaps no
    other fix taken; and how many fixes were applied."""
    lines = text.split("\n")
    taken: list[tuple[int, int]] = []
    edits: list[Edit] = []
    applied = 0
    for d in sorted(diagnostics, key=lambda d: (d.span.line, d.span.column, d.code)):
        if not getattr(d, "fixes", None):
            continue
        fix = d.fixes[0]
        ranges = [(offset_of(lines, e.line, e.column), offset_of(lines, e.end_line, e.end_column)) for e in fix.edits]
        if any(_overlap(r, t) for r in ranges for t in taken):
            continue
        taken += ranges
        edits += fix.edits
        applied += 1
    return (apply_edits(text, edits) if edits else text), applied


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    # two insertions at one place overlap too (their order would be arbitrary)
    return a[0] < b[1] and b[0] < a[1] or a[0] == b[0]
