"""The rule registry keeps its promises (HOUSE_STYLE.md, "One rule, one small file"): every rule
module has its parts in order, an --explain text of at least ten lines with the spec sentence it
enforces, a docstring example that produces its own code, only allowed imports, at least three
firing and three clean fixtures; and SPEC_MAP.md is current."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

from paths import REPO
from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.rules.registry import SPEC_PAGE, all_rules, explain_text

from spec_conformance import spec_map
from spec_conformance.fixtures import ROOT as FIXTURE_ROOT

# the normative page, beside the checkout (or in it); the checks that quote it skip, saying so, without it
PAGE = next((d / SPEC_PAGE for d in (REPO / "shared" / "spec", REPO.parent / "shared" / "spec")
             if (d / SPEC_PAGE).is_file()), None)
needs_page = pytest.mark.skipif(PAGE is None, reason=f"shared/spec/{SPEC_PAGE} not found beside the checkout")
RULES = all_rules()
CODES = [m.RULE.code for m in RULES]
SECTIONS = ("Spec:", "What it flags:", "Why it matters:", "Example (rejected):", "Fix:")

# A rule imports only the facts layer, the diagnostics model, the op-class enum (part of the facts
# vocabulary) and the registry (relative to analyzer/).
ALLOWED_IMPORTS = ("facts", "diagnostics", "language", "rules.registry")

# Known violations, recorded so that the test fails loudly ("XPASS(strict)") once they are fixed.
KNOWN_IMPORT_GAPS: dict[str, str] = {}


def _id(m) -> str:
    return m.RULE.code


def _source(m) -> str:
    return Path(m.__file__).read_text(encoding="utf-8")


def _page_text() -> str:
    return _normalize(PAGE.read_text(encoding="utf-8"))


def _normalize(text: str) -> str:
    text = text.replace("`", "").replace("|", " ").replace("\u2019", "'")
    return re.sub(r"\s+", " ", text).strip()


def test_there_are_six_rules():
    assert CODES == ["PH301", "PH302", "PH303", "PH304", "PH305", "PH306"]


def _parts_problems(source: str) -> list:
    """What is missing from a rule module's source: its docstring, then RULE, query, diagnose."""
    tree = ast.parse(source)
    problems = []
    if not ast.get_docstring(tree):
        problems.append("the module does not open with its docstring (the --explain text)")
    order = {}
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "RULE" for t in node.targets):
            order["RULE"] = i
        elif isinstance(node, ast.FunctionDef) and node.name in ("query", "diagnose"):
            order[node.name] = i
            if len(node.args.args) != 1:
                problems.append(f"`{node.name}` takes one argument")
            length = node.end_lineno - node.lineno + 1
            if node.name == "query" and length > 45:
                problems.append(f"query is {length} lines: past about 40, a derived fact is missing")
    if list(order) != ["RULE", "query", "diagnose"]:
        problems.append(f"the parts are RULE, query, diagnose in this order; found {list(order)}")
    return problems


def _explain_problems(text: str, code: str, name: str, section: str) -> list:
    """What is missing from an --explain text (the rule module's docstring)."""
    problems = []
    lines = text.splitlines()
    if len(lines) < 10:
        problems.append(f"--explain {code} is {len(lines)} lines; at least 10")
    if not lines or not lines[0].startswith(f"{code} {name}:"):
        problems.append("the first line is `CODE name: what it flags`")
    positions = []
    for heading in SECTIONS:
        at = [i for i, line in enumerate(lines) if line.startswith(heading)]
        if not at:
            problems.append(f"no `{heading}` paragraph")
        else:
            positions.append((at[0], heading))
    if [h for _, h in sorted(positions)] != [h for _, h in positions]:
        problems.append(f"the paragraphs come in the order {SECTIONS}")
    bounds = sorted(positions) + [(len(lines), None)]
    for (start, heading), (end, _) in zip(bounds, bounds[1:]):
        if len(" ".join(lines[start:end])[len(heading):].strip()) < 20:
            problems.append(f"the `{heading}` paragraph is empty")
    if "Spec:" in text:
        spec_par = text.split("Spec:", 1)[1].split("\n\n", 1)[0]
        if SPEC_PAGE not in spec_par or f'"{section}"' not in spec_par:
            problems.append(f'the Spec paragraph names {SPEC_PAGE} and the section "{section}"')
        quotes = re.findall(r'"([^"]{20,})"', spec_par.replace("\n", " "))
        if PAGE is not None and not any(_normalize(q) in _page_text() for q in quotes):
            problems.append(f"no quote in the Spec paragraph is a sentence of {SPEC_PAGE}")
    if "Example (rejected):" in text and "kernel" not in _example(text):
        problems.append("the example is an indented kernel after `Example (rejected):`")
    return problems


def _example(text: str) -> str:
    after = text.split("Example (rejected):", 1)[1]
    block = []
    for line in after.splitlines()[1:]:
        if line.strip() and not line.startswith("    "):
            break
        block.append(line)
    return textwrap.dedent("\n".join(block)).strip() + "\n"


@pytest.mark.parametrize("m", RULES, ids=_id)
def test_rule_module_has_its_parts_in_order(m):
    assert _parts_problems(_source(m)) == []
    assert callable(m.query) and callable(m.diagnose)


@needs_page
@pytest.mark.parametrize("m", RULES, ids=_id)
def test_rule_metadata(m):
    rule = m.RULE
    stem = Path(m.__file__).stem
    assert stem.startswith(rule.code.lower() + "_"), f"{stem} holds {rule.code}"
    assert stem[6:].replace("_", "-") == rule.name, f"module {stem} but rule name {rule.name}"
    assert rule.severity == "error"
    assert rule.section in PAGE.read_text(encoding="utf-8").splitlines(), \
        f"section {rule.section!r} is not a heading of {SPEC_PAGE}"
    assert rule.summary and "\n" not in rule.summary


@pytest.mark.parametrize("m", RULES, ids=_id)
def test_explain_text_has_every_part(m):
    text = explain_text(m.RULE.code)
    assert text is not None
    assert _explain_problems(text, m.RULE.code, m.RULE.name, m.RULE.section) == []


@pytest.mark.parametrize("m", RULES, ids=_id)
def test_docstring_example_produces_its_own_code(m):
    kernel = _example(explain_text(m.RULE.code))
    result = check_source(kernel, f"<{m.RULE.code} example>")
    codes = [d.code for d in result.diagnostics if d.severity == "error"]
    assert not [c for c in codes if not c.startswith("PH3")], f"the example is not valid Phobos: {result.diagnostics}"
    assert m.RULE.code in codes, f"the example gives {codes}, not {m.RULE.code}"
    assert set(codes) == {m.RULE.code}, f"the example should show its own code only, got {codes}"


@needs_page
def test_the_checks_catch_a_poor_rule_module():
    """The checks above, on a rule module that lacks its parts: each gap is named."""
    source = 'RULE = 1\n\ndef diagnose(match):\n    pass\n\ndef query(facts):\n    pass\n'
    assert any("no docstring" in p or "docstring" in p for p in _parts_problems(source))
    assert any("in this order" in p for p in _parts_problems(source))
    short = "PH399 fake-rule: a thing.\n\nSpec: elsewhere.\n\nFix: do something else entirely, please.\n"
    problems = _explain_problems(short, "PH399", "fake-rule", "Control")
    for text in ("at least 10", "`What it flags:`", "`Why it matters:`", "`Example (rejected):`",
                 "names per-thread-values.md", "no quote"):
        assert any(text in p for p in problems), (text, problems)
    shuffled = explain_text("PH301").replace("Fix:", "Fixes:").replace("What it flags:", "Fix: x\n\nWhat it flags:")
    assert any("order" in p for p in _explain_problems(shuffled, "PH301", "cta-op-divergent-control",
                                                       "What needs every thread"))


def _imports(m) -> list:
    """(module path relative to analyzer/, lineno) for every import of the rule module."""
    out = []
    for node in ast.walk(ast.parse(_source(m))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                out.append((node.module, node.lineno))
            elif node.level == 1:                       # analyzer.rules.X
                out.append((f"rules.{node.module}" if node.module else "rules", node.lineno))
            elif node.level == 2:                       # analyzer.X
                out.append((node.module or "", node.lineno))
            elif node.level == 3 and (node.module or "").startswith("language"):   # the language's tables
                out.append((node.module, node.lineno))
            else:
                out.append(("." * node.level + (node.module or ""), node.lineno))
    return out


def _bad_imports(m) -> list:
    bad = []
    for name, line in _imports(m):
        if name == "__future__":
            continue
        if not any(name == a or name.startswith(a + ".") for a in ALLOWED_IMPORTS):
            bad.append(f"line {line}: {name}")
    return bad


@pytest.mark.parametrize("m", [pytest.param(m, marks=pytest.mark.xfail(
    strict=True, reason=f"known gap: {KNOWN_IMPORT_GAPS[m.RULE.code]}")) if m.RULE.code in KNOWN_IMPORT_GAPS
    else m for m in RULES], ids=_id)
def test_rule_imports_only_facts_diagnostics_and_registry(m):
    bad = _bad_imports(m)
    assert not bad, f"{m.RULE.code} imports outside analyzer.facts, analyzer.diagnostics, the language's " \
                    f"tables and the registry: {bad}"


def test_import_check_catches_a_bad_import(tmp_path):
    """The import check itself: a rule importing another rule or lark is caught."""
    class Fake:
        __file__ = str(tmp_path / "ph399_fake.py")
    Path(Fake.__file__).write_text("from __future__ import annotations\nfrom .ph301_cta_op_divergent_control "
                                   "import query\nimport lark\nfrom ..facts.schema import UNIFORM\n")
    assert [b.split(": ")[1] for b in _bad_imports(Fake)] == ["rules.ph301_cta_op_divergent_control", "lark"]


@pytest.mark.parametrize("m", RULES, ids=_id)
def test_code_has_three_firing_and_three_clean_fixtures(m):
    folder = FIXTURE_ROOT / f"{m.RULE.code}_{Path(m.__file__).stem[6:]}"
    assert folder.is_dir(), f"no fixture folder {folder.name}"
    fires = sorted(folder.glob("fires_*.ph"))
    clean = sorted(folder.glob("clean_*.ph"))
    assert len(fires) >= 3, f"{m.RULE.code} has {len(fires)} firing fixtures"
    assert len(clean) >= 3, f"{m.RULE.code} has {len(clean)} clean fixtures"


def test_every_rule_folder_belongs_to_a_rule():
    folders = [p.name for p in FIXTURE_ROOT.iterdir() if p.is_dir() and re.match(r"PH\d{3}_", p.name)]
    expected = {f"{m.RULE.code}_{Path(m.__file__).stem[6:]}" for m in RULES}
    assert set(folders) == expected


def test_spec_map_is_current():
    current = spec_map.OUTPUT.read_text(encoding="utf-8") if spec_map.OUTPUT.exists() else ""
    assert current == spec_map.render(), "SPEC_MAP.md is stale: run `python tests/spec_conformance/spec_map.py`"


def test_spec_map_check_mode_detects_staleness(tmp_path, monkeypatch):
    monkeypatch.setattr(spec_map, "OUTPUT", tmp_path / "SPEC_MAP.md")
    assert spec_map.main(["--check"]) == 1
    assert spec_map.main([]) == 0
    assert spec_map.main(["--check"]) == 0
    (tmp_path / "SPEC_MAP.md").write_text(spec_map.render() + "edited\n", encoding="utf-8")
    assert spec_map.main(["--check"]) == 1


def test_spec_map_lists_every_rule_and_sentence():
    text = spec_map.render()
    for code in CODES:
        assert f"| {code} |" in text
    for s in spec_map.SENTENCES:
        assert f"| `{s.id}` |" in text
    assert any(s.status == spec_map.NOT_CHECKED and "does not check" in s.quote for s in spec_map.SENTENCES)
