"""The lint registry keeps the promises of the rules' (HOUSE_STYLE.md, "One rule, one small
file"; DESIGN.md, "Living with the tool"): every lint module PH501-PH505 has its parts in order
and an --explain text whose example produces its own code and whose fix does not; every lint
code (PH506 included) has firing and clean fixtures under tests/ui/lints/; and no lint fires on
examples/ (the one finding there, the page's own kernel, carries an allow comment)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from paths import REPO
from phobos_tools.analyzer import ALL_LINTS, check_file, check_source
from phobos_tools.analyzer.diagnostics.codes import CODES, lint_codes
from phobos_tools.analyzer.diagnostics.explain import explain_text, parse_page
from phobos_tools.analyzer.lints.registry import all_lints

LINTS = all_lints()
FIXTURES = REPO / "tests" / "ui" / "lints"
ALLOWED_IMPORTS = ("facts", "diagnostics", "language", "lints.registry", "syntax")


def _id(m) -> str:
    return m.LINT.code


def test_the_lint_modules_are_PH501_to_PH505():
    assert [m.LINT.code for m in LINTS] == ["PH501", "PH502", "PH503", "PH504", "PH505"]
    assert list(lint_codes()) == ["PH501", "PH502", "PH503", "PH504", "PH505", "PH506"]


@pytest.mark.parametrize("m", LINTS, ids=_id)
def test_lint_module_has_its_parts_in_order(m):
    tree = ast.parse(Path(m.__file__).read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), "the module opens with its --explain text"
    order = [n.targets[0].id if isinstance(n, ast.Assign) else n.name for n in tree.body
             if (isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and n.targets[0].id == "LINT")
             or (isinstance(n, ast.FunctionDef) and n.name in ("query", "diagnose"))]
    assert order == ["LINT", "query", "diagnose"]
    query = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "query")
    assert query.end_lineno - query.lineno < 45, "past about 40 lines, a derived fact is missing"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level >= 2:
            assert (node.module or "").startswith(ALLOWED_IMPORTS), f"imports {node.module}"


@pytest.mark.parametrize("m", LINTS, ids=_id)
def test_lint_metadata_and_explain_text(m):
    lint = m.LINT
    stem = Path(m.__file__).stem
    assert stem == f"{lint.code.lower()}_{lint.name.replace('-', '_')}"
    assert CODES[lint.code][0] == lint.name and lint.severity == "warning"
    text = explain_text(lint.code)
    assert text.startswith(f"{lint.code} {lint.name}:") and len(text.splitlines()) >= 10
    headings = [s.heading.split(" (")[0] for s in parse_page(lint.code).sections]
    assert headings == ["What it flags", "Why it matters", "Example", "Fix"]


@pytest.mark.parametrize("code", list(lint_codes()), ids=str)
def test_every_lint_has_firing_and_clean_fixtures(code):
    folders = [p for p in FIXTURES.iterdir() if p.name.startswith(code + "_")]
    assert len(folders) == 1, f"tests/ui/lints/{code}_<name>/ holds the fixtures of {code}"
    folder = folders[0]
    assert folder.name == f"{code}_{CODES[code][0].replace('-', '_')}"
    fires = sorted(folder.glob("fires_*.ph"))
    clean = sorted(folder.glob("clean_*.ph"))
    assert len(fires) >= 2 and len(clean) >= 1, (fires, clean)
    for path in fires:
        assert any(d.code == code for d in check_file(path, lints=ALL_LINTS).diagnostics), f"{path.name} does not give {code}"
    for path in clean:
        assert not any(d.code == code for d in check_file(path, lints=ALL_LINTS).diagnostics), f"{path.name} gives {code}"


@pytest.mark.parametrize("path", sorted((REPO / "examples").glob("*.ph")), ids=lambda p: p.name)
def test_no_lint_fires_on_the_examples(path):
    lints = [f"{d.span.line}: {d.code} {d.message}" for d in check_file(path, lints=ALL_LINTS).diagnostics if d.code.startswith("PH5")]
    assert lints == []


def test_lints_never_change_whether_a_program_is_accepted():
    source = ("@launch(64)\nkernel k(A: tensor<f32>[64], O: tensor<f32>[1]) {\n  var unused = 1\n"
              "  O[0] += A[ctx.thread]\n}\n")
    result = check_source(source, "k.ph", lints=ALL_LINTS)
    assert result.ok and {d.code for d in result.diagnostics} == {"PH501", "PH504"}
    assert {d.severity for d in result.diagnostics} == {"warning"}
    assert check_source(source, "k.ph", lints=frozenset()).diagnostics == []
    only = check_source(source, "k.ph", lints=frozenset({"PH504"})).diagnostics
    assert [d.code for d in only] == ["PH504"]
