"""Positions between the checker and the editor.

The checker counts lines from 1 and columns in code points from 1 (a line ends at ``\\n`` only,
as its lexer counts them); LSP counts both from 0, and columns in UTF-16 code units unless the
client agreed to UTF-32 or UTF-8 at initialization. ``Lines`` converts one document's positions
both ways, clamping what lies past a line's end (a span may end just past the last line).
"""

from __future__ import annotations

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def _units(text: str, encoding: str) -> int:
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF16:
        return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)
    return len(text.encode("utf-8", "surrogatepass"))


class Lines:
    """One document's lines, for converting positions in ``encoding``."""

    def __init__(self, text: str, encoding: str = UTF16):
        self.lines = [line.removesuffix("\r") for line in text.split("\n")]
        self.encoding = encoding

    def line(self, n: int) -> str:
        """Line ``n`` (0-based), or "" past the end."""
        return self.lines[n] if 0 <= n < len(self.lines) else ""

    def to_client(self, line: int, column: int) -> tuple[int, int]:
        """A checker position (1-based line and code-point column) as an LSP (line, character)."""
        n = min(max(line, 1), len(self.lines)) - 1
        text = self.lines[n]
        column = min(max(column, 1), len(text) + 1)
        return n, _units(text[: column - 1], self.encoding)

    def from_client(self, line: int, character: int) -> tuple[int, int]:
        """An LSP position as a checker one (1-based line and code-point column)."""
        text = self.line(line)
        if self.encoding == UTF32 or text.isascii():
            return line + 1, min(max(character, 0), len(text)) + 1
        units = 0
        for i, c in enumerate(text):
            if units >= character:
                return line + 1, i + 1
            units += _units(c, self.encoding)
        return line + 1, len(text) + 1
