"""Machine-applicable fixes (DESIGN.md, "Fixes"): applying every fix of a fixture gives a file
that checks without the diagnostic fixed and with no new error; the edits are exact text edits
(analyzer/fixes.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from paths import REPO
from phobos_tools.analyzer import ALL_LINTS, check_source
from phobos_tools.analyzer.diagnostics.model import Edit
from phobos_tools.analyzer.fixes import apply_edits, apply_fixes

LINT_FIXTURES = sorted((REPO / "tests" / "ui" / "lints").rglob("*.ph"))
ALL_FIXTURES = sorted((REPO / "tests" / "ui").rglob("*.ph")) + sorted((REPO / "tests" / "spec_conformance").rglob("*.ph"))


def _fixed_diagnostics_go_away(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    before = check_source(text, path.name, lints=ALL_LINTS)
    with_fixes = [d for d in before.diagnostics if d.fixes]
    if not with_fixes:
        return
    fixed, applied = apply_fixes(text, before.diagnostics)
    assert applied >= 1
    after = check_source(fixed, path.name, lints=ALL_LINTS)
    errors_before = sorted((d.code, d.message) for d in before.diagnostics if d.severity == "error")
    errors_after = sorted((d.code, d.message) for d in after.diagnostics if d.severity == "error")
    # the fixed errors go, the others stay (a fix adds no error)
    assert not Counter(errors_after) - Counter(errors_before), f"the fixes add errors:\n{fixed}"
    remaining = {(d.code, d.span.line) for d in after.diagnostics}
    for d in with_fixes:
        # a fix that waited (it overlapped another) goes on the next round of --fix
        if (d.code, d.span.line) in remaining:
            again, _ = apply_fixes(fixed, after.diagnostics)
            assert (d.code, d.span.line) not in {(x.code, x.span.line) for x in check_source(again, lints=ALL_LINTS).diagnostics}


@pytest.mark.parametrize("path", LINT_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fix_of_the_lint_fixtures_removes_its_diagnostic(path):
    _fixed_diagnostics_go_away(path)


@pytest.mark.slow
def test_every_fix_of_every_fixture_removes_its_diagnostic():
    for path in ALL_FIXTURES:
        _fixed_diagnostics_go_away(path)


def test_edits_replace_insert_and_delete_by_code_points():
    text = "let é = 1\nvar x = 2\n"
    assert apply_edits(text, [Edit(1, 5, 1, 5, "_")]) == "let _é = 1\nvar x = 2\n"
    assert apply_edits(text, [Edit(2, 1, 2, 4, "let")]) == "let é = 1\nlet x = 2\n"
    assert apply_edits(text, [Edit(1, 1, 2, 1, "")]) == "var x = 2\n"
    assert apply_edits(text, [Edit(9, 1, 9, 1, "end")]) == text + "end"


def test_the_fixes_of_the_issue():
    source = ("@launch(64)\nkernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {\n  var x = A[ctx.thread]\n"
              "  let y = 2\n  O[ctx.thread] = x   // phobos-allow: PH504\n}\n")
    result = check_source(source, "k.ph", lints=ALL_LINTS)
    fixes = {d.code: d.fixes[0].message for d in result.diagnostics if d.fixes}
    assert fixes == {"PH502": "declare `x` with `let`", "PH501": "rename `y` to `_y`",
                     "PH506": "remove the allow comment"}
    fixed, n = apply_fixes(source, result.diagnostics)
    assert n == 3
    assert fixed == ("@launch(64)\nkernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {\n  let x = A[ctx.thread]\n"
                     "  let _y = 2\n  O[ctx.thread] = x\n}\n")
    assert check_source(fixed, "k.ph", lints=ALL_LINTS).diagnostics == []


# the fixtures whose diagnostics carry the syntax and type fixes of issue 20, point 5 (fast: the
# slow test above applies the fixes of every fixture)
SYNTAX_FIX_FIXTURES = sorted(p for p in (REPO / "tests" / "ui").rglob("*.ph") if p.name.startswith((
    "PH006_", "PH007_", "a_rust_range_", "c_type_names_", "a_float_suffix_", "chained_subscripts_",
    "a_space_before_a_generic_")))


@pytest.mark.parametrize("path", SYNTAX_FIX_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_syntax_fix_of_the_fixtures_removes_its_diagnostic(path):
    text = path.read_text(encoding="utf-8")
    assert any(d.fixes for d in check_source(text, path.name).diagnostics), "the fixture has no fix to apply"
    _fixed_diagnostics_go_away(path)


KERNEL = "@launch(64)\nkernel k(O: tensor<f32>[64]) {\nBODY\n}\n"


@pytest.mark.parametrize("body, fixed", [
    # PH006: the `{` joins its header's line
    ("  for i in range(0, 4)\n  {\n    O[i] = 1.0\n  }", "  for i in range(0, 4) {\n    O[i] = 1.0\n  }"),
    ("  if ctx.thread < 4   \n\n  {\n    O[0] = 1.0\n  }", "  if ctx.thread < 4 {\n    O[0] = 1.0\n  }"),
    # PH007: `} else {` on one line
    ("  if ctx.thread < 4 {\n    O[ctx.thread] = 1.0\n  }\n  else {\n    O[ctx.thread] = 2.0\n  }",
     "  if ctx.thread < 4 {\n    O[ctx.thread] = 1.0\n  } else {\n    O[ctx.thread] = 2.0\n  }"),
    # C's type names and float suffix
    ("  let x: float = 1.0f\n  let n: int = 2\n  O[ctx.thread] = x * f32(n)",
     "  let x: f32 = 1.0\n  let n: i32 = 2\n  O[ctx.thread] = x * f32(n)"),
    # Rust's range, in a loop and in a subscript
    ("  var s = 0.0\n  for i in 0..4 {\n    s += 1.0\n  }\n  O[ctx.thread] = s",
     "  var s = 0.0\n  for i in range(0, 4) {\n    s += 1.0\n  }\n  O[ctx.thread] = s"),
    ("  O[ctx.thread] = sum(O[0..4])", "  O[ctx.thread] = sum(O[0:4])"),
    # a space before a generic call's `<`
    ("  O[ctx.thread] = sum <over ctx.lane>(1.0)", "  O[ctx.thread] = sum<over ctx.lane>(1.0)"),
])
def test_the_syntax_and_type_fixes_of_the_issue(body, fixed):
    source = KERNEL.replace("BODY", body)
    text = source
    for _ in range(3):           # as --fix does: a syntax error's fix first, then the types'
        before = check_source(text, "k.ph")
        if not before.diagnostics:
            break
        assert all(d.fixes for d in before.diagnostics), before.diagnostics
        text, applied = apply_fixes(text, before.diagnostics)
        assert applied == len(before.diagnostics)
    assert text == KERNEL.replace("BODY", fixed)
    assert check_source(text, "k.ph").diagnostics == []


@pytest.mark.parametrize("body", [
    "  for i in range(0, 4)   // four\n  {\n  }",        # a comment between: joining would swallow it
    "  let z: unsigned = 1",                             # `i64` or `i32`: the values decide
    "  let z = 10u",                                     # `10` is an i32, not an unsigned
])
def test_no_fix_where_it_is_not_certain(body):
    diagnostics = check_source(KERNEL.replace("BODY", body), "k.ph").diagnostics
    assert diagnostics and not any(d.fixes for d in diagnostics)


def test_chained_subscripts_are_fixed():
    source = "kernel k(X: tensor<f32>[64, 4], O: tensor<f32>[64]) {\n  O[ctx.thread] = X[ctx.thread][0]\n}\n"
    fixed, applied = apply_fixes(source, check_source(source).diagnostics)
    assert applied == 1 and "X[ctx.thread, 0]" in fixed
    assert check_source(fixed).diagnostics == []
