"""The text rendering of a diagnostic (DESIGN.md, "Text format"), in rustc's shape.

The first line is ``path:line:col: severity[CODE]: message``, the form editors and CI
annotators parse. An excerpt follows: each source line that carries the primary span or a chain
step, in line order, under a right-aligned line-number gutter; ``^`` marks the primary span
(followed by the diagnostic's label) and ``-`` each chain step (followed by ``(n) text``, numbered
in causal order). Footer lines give the spec section, the fix, notes and, for the per-thread rules,
where to read more. ``render_block`` draws the same shape for other reports (``--why``).

Rendering never raises on an odd span (zero width, past the end of a line or of the file, ending
before it starts, on a line that does not exist): such a span is drawn as well as it can be or
left out of the excerpt, and the first line still names its position.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ...language.records import record
from .model import Diagnostic, Label, Span

PRIMARY_MARK = "^"
CHAIN_MARK = "-"


@record(frozen=True)
class _Mark:
    line: int
    padding: str      # what goes between the gutter and the first marker
    width: int        # how many markers
    char: str
    label: str | None


def render_text(diag: Diagnostic, path: str, source_text: str | None) -> str:
    """One diagnostic as text, without a trailing newline."""
    span = diag.span
    footer: list[tuple[str, str]] = []
    if diag.spec is not None:
        footer.append(("spec", f'{diag.spec.page}, "{diag.spec.section}"'))
    if diag.help:
        footer.append(("help", diag.help))
    footer.extend(("note", note) for note in diag.notes)
    if diag.code.startswith("PH3"):
        footer.append(("see", f"phobos-check --explain {diag.code}"))
    headline = f"{path}:{span.line}:{span.column}: {diag.severity}[{diag.code}]: {diag.message}"
    return render_block(headline, span, diag.label, diag.chain, footer, source_text)


def render_block(headline: str, span: Span, label: str | None, chain: Sequence[Label],
                 footer: Sequence[tuple[str, str]], source_text: str | None) -> str:
    """A headline, the excerpt (``^`` under ``span`` with ``label``, ``-`` under each chain step,
    numbered from 1) and ``= key: text`` footer lines; without a trailing newline. The shape of
    every diagnostic, shared by other reports in the same style (``--why``)."""
    out = [headline]
    source_lines = split_lines(source_text) if source_text is not None else None
    excerpt, gutter_width = _excerpt(span, label, chain, source_lines) if source_lines is not None else ([], 1)
    out.extend(excerpt)
    # `=` sits in the column of the gutter's `|`, as in rustc.
    lead = " " * (gutter_width + 2) + "= "
    out.extend(f"{lead}{key}: {text}" for key, text in footer)
    return "\n".join(out)


@lru_cache(maxsize=8)
def split_lines(source_text: str) -> tuple[str, ...]:
    # Cached: a file with many diagnostics renders them all from one split (a str caches its
    # hash, so the lookup is cheap even for a 4 MiB source).
    # Lines end at "\n" only, as the lexer counts them; str.splitlines would also split at
    # "\f", "\v" and U+2028 and so disagree with the line numbers in the spans.
    return tuple(line.removesuffix("\r") for line in source_text.split("\n"))


def _excerpt(span: Span, label: str | None, chain: Sequence[Label],
             source_lines: list[str]) -> tuple[list[str], int]:
    """The excerpt lines and the gutter width (digits of the largest line number shown)."""
    marks: list[_Mark] = []
    for n, step in enumerate(chain, start=1):
        mark = _make_mark(step.span, CHAIN_MARK, f"({n}) {step.text}", source_lines)
        if mark is not None:
            marks.append(mark)
    primary = _make_mark(span, PRIMARY_MARK, label, source_lines)
    if primary is not None:
        marks.append(primary)
    if not marks:
        return [], 1

    shown = sorted({m.line for m in marks})
    width = len(str(shown[-1]))
    blank_gutter = " " * (width + 1) + " |"
    out: list[str] = []
    previous = None
    for line in shown:
        if previous is not None and line - previous == 2:
            out.append(_source_row(previous + 1, source_lines, width))
        elif previous is not None and line - previous > 2:
            out.append("...")
        out.append(_source_row(line, source_lines, width))
        # Marks on one line keep their order: chain steps in causal order, then the primary.
        for m in marks:
            if m.line == line:
                row = f"{blank_gutter} {m.padding}{m.char * m.width}"
                if m.label:
                    row += f" {m.label}"
                out.append(row)
        previous = line
    return out, width


def _source_row(line: int, source_lines: list[str], width: int) -> str:
    text = printable(source_lines[line - 1])
    return f" {str(line).rjust(width)} | {text}".rstrip()


def _make_mark(span: Span, char: str, label: str | None, source_lines: list[str]) -> _Mark | None:
    """Place one span on its first line; None when that line is not in the source."""
    try:
        line, column = int(span.line), int(span.column)
        end_line, end_column = int(span.end_line), int(span.end_column)
    except (TypeError, ValueError, AttributeError):
        return None
    if not 1 <= line <= len(source_lines):
        return None
    text = source_lines[line - 1]
    # 0-based code point offset; a span past the end of its line is drawn just after the end.
    start = min(max(column, 1) - 1, len(text))
    if end_line == line:
        width = end_column - 1 - start
    elif end_line > line:
        width = len(text) - start                    # a multi-line span: to the end of its first line
    else:
        width = 0
    # A zero-width span (end of file, a missing token) still gets one marker; none runs far
    # past the end of the line.
    width = max(1, min(width, len(text) - start))
    # Tabs count as one column, but the padding copies them so the markers stay under the
    # characters they mark in a terminal.
    padding = "".join("\t" if ch == "\t" else " " for ch in text[:start])
    return _Mark(line, padding, width, char, label)


def printable(text: str) -> str:
    # A control character in the source would act on the terminal; show a placeholder in its
    # place (one code point for one, so columns still line up).
    return "".join("\ufffd" if (ord(ch) < 32 and ch != "\t") or ord(ch) == 127 else ch for ch in text)


# --- colour (--color, NO_COLOR, FORCE_COLOR: cli/conventions.py decides; text only) ----------

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
SEVERITY_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}
_CHAIN_COLOR = "\x1b[1;34m"
_GUTTER_COLOR = "\x1b[1;34m"


def colorize(block: str, severity: str) -> str:
    """A rendered diagnostic with ANSI colours, as rustc draws them: the severity and code in
    the severity's colour and the message bold on the first line; the ``^`` marks and their label
    in the severity's colour, the ``-`` marks and theirs in blue; the gutter and the ``=`` keys
    blue. The text is otherwise unchanged (stripping the escapes gives it back)."""
    colour = SEVERITY_COLORS.get(severity, _BOLD)
    lines = block.split("\n")
    head = lines[0]
    tag = f" {severity}["
    at = head.find(tag)
    if at >= 0:
        end = head.find("]: ", at)
        if end >= 0:
            lines[0] = (f"{_BOLD}{head[:at + 1]}{_RESET}{colour}{head[at + 1:end + 1]}{_RESET}"
                        f"{_BOLD}{head[end + 1:]}{_RESET}")
    for i, line in enumerate(lines[1:], 1):
        bar = line.find(" | ")
        gutter = line[:bar + 3] if bar >= 0 else ""
        if bar >= 0 and not gutter[:bar].strip():       # a row of marks: the gutter is blank
            rest = line[bar + 3:]
            body = rest.lstrip(" \t")
            pad = rest[:len(rest) - len(body)]
            mark_colour = colour if body.startswith(PRIMARY_MARK) else _CHAIN_COLOR
            lines[i] = f"{_GUTTER_COLOR}{gutter}{_RESET}{pad}{mark_colour}{body}{_RESET}"
        elif bar >= 0 and gutter[:bar].strip().isdigit():  # a source row: colour its gutter only
            lines[i] = f"{_GUTTER_COLOR}{gutter}{_RESET}{line[bar + 3:]}"
        elif line.lstrip().startswith("= "):
            lead = line[:len(line) - len(line.lstrip())]
            key, sep, text = line.lstrip()[2:].partition(": ")
            lines[i] = f"{lead}{_GUTTER_COLOR}={_RESET} {_BOLD}{key}{sep}{_RESET}{text}" if sep else line
    return "\n".join(lines)
