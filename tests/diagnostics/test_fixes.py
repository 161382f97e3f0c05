"""Machine-applicable fixes (DESIGN.md, "Fixes"): applying every fix of a fixture gives a file
that checks without the diagnostic fixed and with no new error; the edits are exact text edits
(analyzer/fixes.py)."""

from __future__ import annotations

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
    assert errors_after == errors_before or not errors_after, f"the fixes add errors:\n{fixed}"
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
