"""Helpers for the per-thread analysis tests (test_analysis_*.py): check a source, read its
kinds, and compare its diagnostics with inline `//~` markers (HOUSE_STYLE.md, "Tests that carry
their own expectations").

A marker `//~ error PH301 PH302 "substring"` on a line asserts exactly those codes (as a
multiset) among the error and warning diagnostics whose primary span starts on that line, and
that each quoted substring occurs in the message of one of them. A line without a marker must
produce no error and no warning.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter

from phobos_tools.analyzer.api import check_source
from phobos_tools.analyzer.diagnostics import ERROR, WARNING

KIND_RANK = {"uniform": 0, "warp-uniform": 1, "varying": 2}

_MARK = re.compile(r"//~\s*(.*)$")
_TOKEN = re.compile(r'"([^"]*)"|(\S+)')


def check(src: str, **kw):
    """Check a (possibly indented) source; a leading newline is dropped so line 1 is the first
    line of the kernel text."""
    text = textwrap.dedent(src)
    if text.startswith("\n"):
        text = text[1:]
    return check_source(text, **kw)


def source(src: str) -> str:
    text = textwrap.dedent(src)
    return text[1:] if text.startswith("\n") else text


def expectations(text: str) -> dict[int, tuple[Counter, list[str]]]:
    """line -> (codes expected there, substrings expected in their messages)."""
    out = {}
    for n, line in enumerate(text.splitlines(), start=1):
        m = _MARK.search(line)
        if not m:
            continue
        tokens = _TOKEN.findall(m.group(1))
        assert tokens and tokens[0][1] in ("error", "warning"), f"line {n}: bad marker {line!r}"
        codes, subs = Counter(), []
        for quoted, word in tokens[1:]:
            if word:
                assert re.fullmatch(r"PH\d{3}", word), f"line {n}: bad code {word!r}"
                codes[word] += 1
            else:
                subs.append(quoted)
        out[n] = (codes, subs)
    return out


def problems(result) -> dict[int, list]:
    """line -> the error and warning diagnostics whose primary span starts there."""
    out: dict[int, list] = {}
    for d in result.diagnostics:
        if d.severity in (ERROR, WARNING):
            out.setdefault(d.span.line, []).append(d)
    return out


def assert_marked(src: str, result=None, **kw):
    """Check ``src`` and compare its diagnostics with its `//~` markers; return the result."""
    text = source(src)
    if result is None:
        result = check_source(text, **kw)
    expected = expectations(text)
    actual = problems(result)
    report = [f"{d.span.line}:{d.span.column} {d.code} {d.message}" for ds in actual.values() for d in ds]
    for line in sorted(set(expected) | set(actual)):
        codes, subs = expected.get(line, (Counter(), []))
        got = actual.get(line, [])
        assert Counter(d.code for d in got) == codes, \
            f"line {line}: expected {sorted(codes.elements())}, got {report}"
        for s in subs:
            assert any(s in d.message for d in got), f"line {line}: no message contains {s!r}: {report}"
    return result


def codes_lines(result) -> set[tuple[str, int]]:
    return {(d.code, d.span.line) for d in result.diagnostics if d.severity in (ERROR, WARNING)}


def only(result, code: str):
    """The single diagnostic with ``code``."""
    ds = [d for d in result.diagnostics if d.code == code]
    assert len(ds) == 1, [(d.code, d.span, d.message) for d in result.diagnostics]
    return ds[0]


def kinds(result) -> dict[str, str]:
    """name -> kind, for kernels whose binding names are unique."""
    out = {}
    for row in result.kinds:
        assert row["name"] not in out, f"binding {row['name']} listed twice; use kind_rows"
        out[row["name"]] = row["kind"]
    return out


def kind_rows(result, name: str) -> list[str]:
    """The kinds of every row named ``name``, in the kinds table's order."""
    return [r["kind"] for r in result.kinds if r["name"] == name]


def front_end_clean(result) -> bool:
    """No diagnostics outside PH3xx (the analysis ran on a valid program)."""
    return bool(result.analyses) and not any(
        d.severity == ERROR and not d.code.startswith("PH3") for d in result.diagnostics)
