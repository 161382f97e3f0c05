"""Allow comments: `// phobos-allow: PH501, PH502 -- reason` silences warnings (DESIGN.md, "Living
with the tool", Suppression).

At the end of a line, an allow applies to the warnings whose main span starts on that line;
alone on its line, to the next line. Only warnings can be allowed: an allow that names an error
of the language, a note, an unknown code or no code at all is itself an error (PH214). An allow
that silences nothing is warning PH506 (unused-allow), unless the lint it names is turned off
(``enabled`` does not hold it), since then there is nothing it could silence. Phobos has no
string literals, so every `//` starts a comment.
"""

from __future__ import annotations

import re
from dataclasses import field

from ..language.records import record
from .diagnostics.codes import CODES, is_lint
from .diagnostics.model import ERROR, NOTE, WARNING, Diagnostic, Edit, Fix, Span

_ALLOW = re.compile(r"//\s*phobos-allow\s*:")
_CODE = re.compile(r"PH\d{3}")
NOTE_CODES = frozenset({"PH204"})
EXAMPLE = "// phobos-allow: PH501 -- reason"


@record
class Allow:
    line: int                    # where the comment is
    target: int                  # the line whose warnings it silences
    codes: list                  # [(code, Span of the code in the comment)]
    comment: Span                # the whole comment
    alone: bool                  # the comment is alone on its line
    code_end: int                # the column just after the code before the comment
    used: set = field(default_factory=set)


def parse_allows(text: str, diagnostics: list) -> list[Allow]:
    """The allow comments of ``text``; the malformed ones become PH214 errors in ``diagnostics``."""
    allows = []
    for lineno, line in enumerate(text.splitlines(), 1):
        start = line.find("//")
        if start < 0:
            continue
        m = _ALLOW.match(line, start)
        if m is None:
            continue
        rest_at = m.end()
        rest = line[rest_at:]
        cut = len(rest)
        for stop in (" --", "\t--", "//"):
            at = rest.find(stop)
            if at >= 0:
                cut = min(cut, at)
        if rest.startswith("--"):
            cut = 0
        alone = not line[:start].strip()
        comment = Span(lineno, start + 1, lineno, len(line.rstrip()) + 1)
        codes = []
        bad = False
        offset = 0
        for part in rest[:cut].split(","):
            word = part.strip()
            column = rest_at + offset + (len(part) - len(part.lstrip())) + 1
            offset += len(part) + 1
            problem = _problem(word)
            if problem is not None:
                span = Span(lineno, column, lineno, column + len(word)) if word else comment
                diagnostics.append(Diagnostic("PH214", problem, span, label="in this allow comment",
                                              help=f"allow warnings (PH5xx) only, e.g. `{EXAMPLE}`"))
                bad = True
                continue
            codes.append((word, Span(lineno, column, lineno, column + len(word))))
        if codes and not bad:
            code_end = len(line[:start].rstrip()) + 1
            allows.append(Allow(lineno, lineno + 1 if alone else lineno, codes, comment, alone, code_end))
    return allows


def _problem(word: str) -> str | None:
    if not word:
        return "this `phobos-allow:` comment names no code"
    if not _CODE.fullmatch(word):
        return f"`{word}` is not a diagnostic code (codes look like PH501)"
    if word not in CODES:
        return f"`{word}` is not a code phobos-check reports"
    if is_lint(word):
        return None
    if word in NOTE_CODES:
        return f"`{word}` is a note, and only warnings can be allowed"
    return f"`{word}` is an error of the language and cannot be allowed"


def apply_allows(diagnostics: list, allows: list[Allow], enabled, lints_ran: bool) -> list:
    """``diagnostics`` without the warnings the allows silence, plus PH506 for each allowed code
    that silenced nothing (when the lints ran and that code is enabled)."""
    by_line: dict = {}
    for a in allows:
        by_line.setdefault(a.target, []).append(a)
    kept = []
    for d in diagnostics:
        if d.severity == WARNING:
            silenced = False
            for a in by_line.get(d.span.line, ()):
                if any(code == d.code for code, _ in a.codes):
                    a.used.add(d.code)
                    silenced = True
            if silenced:
                continue
        kept.append(d)
    if not lints_ran or (enabled is not None and "PH506" not in enabled):
        return kept
    for a in allows:
        for code, span in a.codes:
            if code in a.used or (enabled is not None and code not in enabled):
                continue
            where = "the next line" if a.alone else "this line"
            fixes = [Fix("remove the allow comment", (_removal(a),))] if len(a.codes) == 1 else []
            kept.append(Diagnostic("PH506", f"`{code}` is allowed here but nothing on {where} reports it", span,
                                   severity=WARNING, label="silences nothing",
                                   help="remove the code from the allow comment", fixes=fixes))
    return kept


def _removal(a: Allow) -> Edit:
    c = a.comment
    if a.alone:      # the whole line, its line break included
        return Edit(c.line, 1, c.line + 1, 1, "")
    return Edit(c.line, a.code_end, c.line, c.end_column, "")


__all__ = ["Allow", "parse_allows", "apply_allows", "ERROR", "NOTE"]
