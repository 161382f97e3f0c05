"""Helpers for the tests that write a kernel inline in Python (tests/analysis/, and the tests whose
kernel feeds a simulator run too): check a source, read its kinds, and compare its diagnostics with
its `//~` markers, in the one grammar of the suite's fixtures (markers.py; HOUSE_STYLE.md, "Tests
that carry their own expectations"). A line without an `error` or `warning` marker must produce no
error and no warning. Kernels that only check a source against its markers are `.ph` fixtures
under tests/ui/ instead.
"""

from __future__ import annotations

import textwrap

from phobos_tools.analyzer.api import check_source
from phobos_tools.analyzer.diagnostics import ERROR, WARNING

from markers import compare

KIND_RANK = {"uniform": 0, "warp-uniform": 1, "varying": 2}


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


def assert_marked(src: str, result=None, **kw):
    """Check ``src`` and compare its diagnostics with its `//~` markers; return the result."""
    text = source(src)
    if result is None:
        result = check_source(text, **kw)
    outcome = compare(text, result)
    report = [f"{d.span.line}:{d.span.column} {d.code} {d.message}" for d in result.diagnostics]
    assert outcome.agrees and not outcome.gap_lines, f"{outcome.report()}\ndiagnostics: {report}"
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
