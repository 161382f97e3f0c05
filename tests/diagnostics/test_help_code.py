"""Every help text that shows code must check (issue 20, point 6): the code a help shows in
backticks, where it is a whole expression or statement, is put in the kernel in place of what the
diagnostic points at (the span, the span up to the end of a call or subscript after it, that
stretch from an operand before it, or the whole statement) or as a statement of its own just before the diagnostic's statement or just after
a line one of its labels points at ("put `barrier()` after the store"), and one of these must check
without that diagnostic and with no new error. A `let` a help shows before its
other code (`let r = elem(..)`, then `r[2]`) is put before the statement when that later code is
tried, so a help may bind a name and then use it.

Not taken as code:
- a snippet that is no expression or statement alone (`..`, `0:4`, `} else {`): a fragment of a
  larger text;
- a lone name (`atomic_add`, `ctx.block`, `f32`) or a command-line option (`-D`): it names
  something (a type name's replacement is a fix, tests/diagnostics/test_fixes.py);
- a snippet written at the diagnostic's span itself (`barrier()` in "move `barrier()` out of the
  loop" where the span is that `barrier()`): it names the flagged operation, it replaces nothing.

Every fixture under tests/ui and tests/spec_conformance is checked (the slow tier: about 10 s);
the fast tier checks a few fixtures that hold each kind of help code.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from kernel_fixtures import checked, fixture_id, fixture_paths
from paths import REPO
from phobos_tools.analyzer import ALL_LINTS, check_source
from phobos_tools.analyzer.diagnostics.model import Edit
from phobos_tools.analyzer.fixes import apply_edits

UI = REPO / "tests" / "ui"
CONFORMANCE = REPO / "tests" / "spec_conformance"
# the fast tier: the fixtures of the messages a new user got wrong (issue 20, point 6), and one
# for each other help that shows code or names the flagged operation
FAST = [UI / "hints" / name for name in (
    "a_rust_range_says_to_write_range.ph", "a_space_before_a_generic_call_angle_is_explained.ph",
    "shfl_down_suggests_the_generic_shuffle.ph", "chained_subscripts_suggest_one_pair_of_brackets.ph",
    "an_atomic_at_a_varying_index_suggests_a_loop_over_the_elements.ph",
    "elem_with_an_index_says_how_to_read_one_element.ph",
)] + [UI / "syntax" / "a_float_suffix_is_removed_by_the_fix.ph",
      UI / "syntax" / "PH010_comparison_operators_cannot_be_chained.ph",
      UI / "sema" / "PH111_exactly_one_slice_axis.ph",
      UI / "analysis" / "operands" / "broadcast_scalars_and_atomic_operands.ph",
      UI / "analysis" / "control" / "return_in_a_kernel_raises_the_rest_and_enclosing_loops.ph",
      CONFORMANCE / "PH303_read_after_per_thread_store" / "fires_tensor_store_then_atomic_or_acquire.ph"]
ALL = fixture_paths(UI) + fixture_paths(CONFORMANCE)
_SYNTAX = {"PH003", "PH004", "PH005", "PH006", "PH007"}


def help_code(help_text: str | None, at: str = "") -> list[str]:
    """The backticked snippets of a help that parse alone as an expression or statement, less
    names, command-line options and those written in ``at`` (the source at the diagnostic's span)."""
    out = []
    for snippet in re.findall(r"`([^`]+)`", help_text or ""):
        if re.fullmatch(r"[A-Za-z_][\w.]*|--?[A-Za-z][\w-]*", snippet):
            continue                 # a name (`atomic_add`, `ctx.block`, `f32`) or an option (`-D`)
        if snippet in at:
            continue                 # the flagged operation itself (`move `barrier()` out of the loop`)
        probe = check_source(f"kernel probe_k() {{\n  {snippet}\n}}\n", "probe.ph").diagnostics
        if not any(d.code in _SYNTAX for d in probe):
            out.append(snippet)
    return out


def span_text(lines: list[str], span) -> str:
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1:span.end_column - 1]
    return "\n".join([lines[span.line - 1][span.column - 1:], *lines[span.line:span.end_line - 1],
                      lines[span.end_line - 1][:span.end_column - 1]])


def _errors(text: str, kw: dict, code: str) -> Counter:
    """The errors of ``text``, and the diagnostics of ``code`` (a lint's warning) by code and line."""
    return Counter((d.code, d.span.line) for d in check_source(text, "f.ph", lints=ALL_LINTS, **kw).diagnostics
                   if d.severity == "error" or d.code == code)


def _candidates(lines: list[str], span, snippet: str, labelled=()) -> list[Edit]:
    """Where a help's code may go: the span; the span to the end of each `)`, `]` or word after it
    on its line; the whole statement (from the line's first character to its end); a stretch of the
    line from the start of an operand before the span to one of those ends (`1 < 2 < 3` for a span
    on the second `<`); a statement of its own before the statement, or after each line in
    ``labelled`` (the labels' end lines)."""
    line = lines[span.line - 1]
    ends = [span.end_column] if span.end_line == span.line else []
    ends += [i + 2 for i in range(span.end_column - 1, len(line))
             if line[i] in ")]" or (line[i].isalnum() and (i + 1 == len(line) or not line[i + 1].isalnum()))]
    edits = [Edit(span.line, span.column, span.line, end, snippet) for end in dict.fromkeys(ends)]
    indent = len(line) - len(line.lstrip())
    edits.append(Edit(span.line, indent + 1, span.end_line, len(lines[span.end_line - 1]) + 1, snippet))
    edits.append(Edit(span.line, indent + 1, span.line, indent + 1, f"{snippet}\n{line[:indent]}"))
    starts = [i + 1 for i in range(span.column - 1) if not line[i].isspace() and (i == 0 or line[i - 1] in " (=[,")]
    edits += [Edit(span.line, start, span.line, end, snippet) for start in reversed(starts) for end in dict.fromkeys(ends)]
    for n in dict.fromkeys(labelled):
        at = lines[n - 1]
        edits.append(Edit(n, len(at) + 1, n, len(at) + 1, f"\n{at[:len(at) - len(at.lstrip())]}{snippet}"))
    return edits


def code_checks(text: str, diagnostic, snippet: str, before: tuple[str, ...] = (), kw: dict | None = None) -> bool:
    """Does ``snippet`` check somewhere the diagnostic points (``before``: statements put first)?
    Errors are compared by code and line, the lines after an inserted one counted as before it."""
    kw = kw or {}
    lines = text.split("\n")
    span = diagnostic.span
    indent = len(lines[span.line - 1]) - len(lines[span.line - 1].lstrip())
    prelude = Edit(span.line, indent + 1, span.line, indent + 1,
                   "".join(f"{s}\n{lines[span.line - 1][:indent]}" for s in before))
    base = _errors(text, kw, diagnostic.code)
    base[(diagnostic.code, span.line)] -= 1
    labelled = [l.span.end_line for l in getattr(diagnostic, "chain", None) or () if l.span is not None]
    for e in _candidates(lines, span, snippet, labelled):
        new = apply_edits(apply_edits(text, [e]), [prelude])
        added = new.count("\n") - text.count("\n")
        where = min(span.line, e.line + 1)      # errors from here on moved down by what was added
        after = Counter({(c, l - added if l >= where + added else l): n
                         for (c, l), n in _errors(new, kw, diagnostic.code).items()})
        if not after - base:
            return True
    return False


def shown_code(path: Path) -> list[tuple[object, str, tuple[str, ...]]]:
    """(diagnostic, snippet, the `let`s its help shows before it) for each help's code."""
    c = checked(path)
    lines = c.text.split("\n")
    out = []
    for d in c.result.diagnostics:
        if d.span is None or d.span.line < 1:
            continue
        lets: list[str] = []
        for s in help_code(d.help, span_text(lines, d.span)):
            out.append((d, s, tuple(lets)))
            if s.startswith("let "):
                lets.append(s)
    return out


def failing(path: Path) -> list:
    c = checked(path)
    kw = {"arch": c.expectations.arch} if c.expectations.arch else {}
    if c.expectations.defines:
        kw["defines"] = c.expectations.defines
    return [(d.code, d.span.line, s) for d, s, lets in shown_code(path)
            if not code_checks(c.text, d, s, lets, kw)]


@pytest.mark.parametrize("path", FAST, ids=lambda p: p.name)
def test_the_code_each_help_shows_checks(path: Path):
    assert shown_code(path) or "PH301" in path.read_text() or "PH303" in path.read_text(), \
        "the fixture's helps show no code"
    assert not failing(path)


@pytest.mark.slow
def test_the_code_each_help_shows_checks_in_every_fixture():
    bad = {fixture_id(p, REPO / "tests"): f for p in ALL if (f := failing(p))}
    assert not bad, bad


def test_the_extraction_takes_whole_code_only():
    assert help_code("write `range(0, N)`, not `..`") == ["range(0, N)"]
    assert help_code("write `0:4` or `} else {`") == []
    assert help_code("`atomic_add` runs once: give it `ctx.block`; use a `-D` constant") == []
    assert help_code("move `barrier()` out of the loop", at="barrier()") == []
    assert help_code("put `barrier()` before this read", at="A[0]") == ["barrier()"]
