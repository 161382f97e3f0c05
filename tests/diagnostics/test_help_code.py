"""Every help text that shows code must check (issue 20, point 6): the code a help shows in
backticks, where it is a whole expression or statement, is put in the kernel in place of what the
diagnostic points at (the span, the span up to the end of a call or subscript after it, or the
whole statement), and one of these must check without that diagnostic and with no new error.
A help's code that is no expression or statement alone (`..`, `0:4`, `} else {`) is a fragment
of a larger text, and a lone name (`atomic_add`, `ctx.block`, `f32`) names something: neither is
taken (a type name's replacement is a fix, tests/diagnostics/test_fixes.py).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from paths import REPO
from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.diagnostics.model import Edit
from phobos_tools.analyzer.fixes import apply_edits

UI = REPO / "tests" / "ui"
# the fixtures of the messages a new user got wrong (issue 20, point 6)
FIXTURES = [UI / "hints" / name for name in (
    "a_rust_range_says_to_write_range.ph", "a_space_before_a_generic_call_angle_is_explained.ph",
    "shfl_down_suggests_the_generic_shuffle.ph", "chained_subscripts_suggest_one_pair_of_brackets.ph",
    "an_atomic_at_a_varying_index_suggests_a_loop_over_the_elements.ph",
)] + [UI / "syntax" / "a_float_suffix_is_removed_by_the_fix.ph",
      UI / "analysis" / "operands" / "broadcast_scalars_and_atomic_operands.ph"]
_SYNTAX = {"PH003", "PH004", "PH005", "PH006", "PH007"}


def help_code(help_text: str | None) -> list[str]:
    """The backticked snippets of a help that parse alone as an expression or statement."""
    out = []
    for snippet in re.findall(r"`([^`]+)`", help_text or ""):
        if re.fullmatch(r"[A-Za-z_][\w.]*", snippet):
            continue                 # a name (`atomic_add`, `ctx.block`, `f32`) names, shows no code
        probe = check_source(f"kernel probe_k() {{\n  {snippet}\n}}\n", "probe.ph").diagnostics
        if not any(d.code in _SYNTAX for d in probe):
            out.append(snippet)
    return out


def _errors(text: str) -> Counter:
    return Counter((d.code, d.span.line) for d in check_source(text, "f.ph").diagnostics if d.severity == "error")


def _candidates(lines: list[str], span) -> list[Edit]:
    """Where a help's code may go: the span; the span to the end of each `)`, `]` or word after it
    on its line; the whole statement (from the line's first character to its end)."""
    line = lines[span.line - 1]
    ends = [span.end_column] if span.end_line == span.line else []
    ends += [i + 2 for i in range(span.end_column - 1, len(line))
             if line[i] in ")]" or (line[i].isalnum() and (i + 1 == len(line) or not line[i + 1].isalnum()))]
    edits = [Edit(span.line, span.column, span.line, end, "") for end in dict.fromkeys(ends)]
    indent = len(line) - len(line.lstrip())
    edits.append(Edit(span.line, indent + 1, span.end_line, len(lines[span.end_line - 1]) + 1, ""))
    return edits


def code_checks(text: str, diagnostic, snippet: str) -> bool:
    before = _errors(text)
    before[(diagnostic.code, diagnostic.span.line)] -= 1
    lines = text.split("\n")
    for e in _candidates(lines, diagnostic.span):
        after = _errors(apply_edits(text, [Edit(e.line, e.column, e.end_line, e.end_column, snippet)]))
        if not after - before:
            return True
    return False


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_the_code_each_help_shows_checks(path: Path):
    text = path.read_text(encoding="utf-8")
    shown = [(d, s) for d in check_source(text, path.name).diagnostics for s in help_code(d.help)]
    assert shown, "the fixture's helps show no code"
    failing = [(d.code, d.span.line, s) for d, s in shown if not code_checks(text, d, s)]
    assert not failing, failing


def test_the_extraction_takes_whole_code_only():
    assert help_code("write `range(0, N)`, not `..`") == ["range(0, N)"]
    assert help_code("write `0:4` or `} else {`") == []
    assert help_code("`atomic_add` runs once: give it `ctx.block`") == []
