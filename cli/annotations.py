"""Two outputs of phobos-check beside the text, JSON, SARIF and HTML formats (DESIGN.md,
"Command-line conventions"): ``--format github``, one GitHub Actions workflow command per
diagnostic, which GitHub shows as an annotation on the pull request's diff; and
``--statistics``, a count per code."""

from __future__ import annotations

from collections import Counter

from ..analyzer.diagnostics.codes import CODES

GITHUB_LEVELS = {"error": "error", "warning": "warning", "note": "notice"}


def github_line(diag, path: str) -> str:
    """``::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=PHxxx::message``, escaped as
    the workflow commands want (``%``, CR and LF in the message; also ``:`` and ``,`` in the
    properties)."""
    s = diag.span
    level = GITHUB_LEVELS.get(diag.severity, "error")
    props = [("file", path), ("line", s.line), ("col", s.column), ("endLine", s.end_line),
             ("endColumn", s.end_column), ("title", diag.code)]
    text = diag.message + (f" ({diag.help})" if diag.help else "")
    return f"::{level} " + ",".join(f"{k}={_escape_property(str(v))}" for k, v in props) + "::" + _escape_data(text)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def statistics(reports) -> str:
    """One line per code reported over all files: the count, the code, its name; most frequent
    first (then by code). Empty when nothing was reported."""
    counts = Counter(d.code for r in reports for d in r.diagnostics)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    width = len(str(rows[0][1])) if rows else 1
    return "".join(f"{n:>{width}}  {code}  {CODES[code][0] if code in CODES else ''}".rstrip() + "\n"
                   for code, n in rows)
