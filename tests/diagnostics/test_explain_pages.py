"""Every diagnostic code has an `--explain` page whose example produces exactly that code and
whose fix, when the page shows one, does not.

The pages are analyzer/diagnostics/explain_pages/*.txt and, for PH301-PH306, the rule modules'
docstrings (analyzer/diagnostics/explain.py). An example runs the way its page says: checked
with `phobos-check` (with the options of its `Run:` line), built with `phobos-build`, or run on
the simulator with `phobos-run --sim`. The few codes whose input cannot be shown as a kernel
(invalid UTF-8, a file over 4 MiB, deep nesting, a huge kernel, a bad `-D` from the Python API)
have a page that describes the input in words; INPUTS below builds it. PH9xx are internal errors
with no example."""

from __future__ import annotations

import json
import re

import pytest

from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.diagnostics import codes_doc
from phobos_tools.analyzer.diagnostics.codes import CODES
from phobos_tools.analyzer.diagnostics.explain import explain_text, page_file_text, parse_page
from phobos_tools.cli.build import main as build_main
from phobos_tools.cli.check import main as check_main
from phobos_tools.cli.run import main as run_main
from phobos_tools.lowering.build import build_source

EXPLAINED = sorted(code for code in CODES if not code.startswith("PH9"))
_REPORTED = re.compile(r"(?:error|warning|note)\[(PH\d{3})\]")


def _kernel_after_comment(comment: str) -> str:
    return f"// {comment}\nkernel k(A: tensor<f32>[4]) {{\n  A[0] = 1.0\n}}\n"


def _nested_ifs(depth: int) -> str:
    body = "".join(f"if ctx.thread < {i} {{\n" for i in range(depth)) + "A[0] = 1.0\n" + "}\n" * depth
    return "kernel k(A: tensor<f32>[4]) {\n" + body + "}\n"


def _long_kernel(statements: int) -> str:
    return ("kernel k(A: tensor<f32>[256]) {\n  var x = A[ctx.thread]\n" + "  x = x * 1.5 + 0.5\n" * statements
            + "  A[ctx.thread] = x\n}\n")


def _many_tensors(n: int) -> str:
    params = ", ".join(f"A{i}: tensor<f32>[4]" for i in range(n))
    return f"kernel k({params}) {{\n  A0[0] = 1.0\n}}\n"


# The inputs the pages describe in words: code -> (example, fix or None), each a source (bytes or
# str) with the -D values it is checked with; "build" marks what only phobos-build reports.
INPUTS = {
    "PH001": ((_kernel_after_comment("café").encode("latin-1"), None),
              (_kernel_after_comment("café").encode("utf-8"), None)),
    "PH002": ((_kernel_after_comment("x") + ("/" * 79 + "\n") * (4 * 1024 * 1024 // 80 + 1), None), None),
    "PH008": ((_nested_ifs(600), None), (_nested_ifs(400), None)),
    "PH206": (("kernel k(A: tensor<f32>[N]) {\n  A[0] = 1.0\n}\n", {"N": "four"}),
              ("kernel k(A: tensor<f32>[N]) {\n  A[0] = 1.0\n}\n", {"N": "4"})),
    "PH213": ((_long_kernel(25_000), "build"), (_long_kernel(1_000), "build")),
    "PH215": ((_many_tensors(4096), None), (_many_tensors(4095), None)),
}


def _codes_of_check(source, defines=None) -> set[str]:
    return {d.code for d in check_source(source, "k.ph", defines).diagnostics}


def _codes_of_build(source) -> set[str]:
    return {d.code for d in build_source(source, "k.ph").diagnostics}


def _run_page_command(argv: list[str], source: str, tmp_path, capsys) -> tuple[int, set[str]]:
    """Run the page's command on ``source`` written to k.ph; its status and the codes it reports."""
    path = tmp_path / "k.ph"
    path.write_text(source, encoding="utf-8")
    args = [str(path) if a == "k.ph" else a for a in argv[1:]]
    capsys.readouterr()
    if argv[0] == "phobos-check":
        status = check_main(args + ["--format", "json"])
        out = capsys.readouterr().out
        codes = {d["code"] for f in json.loads(out)["files"] for d in f["diagnostics"]} if out.strip() else set()
        return status, codes
    if argv[0] == "phobos-build":
        status = build_main(args + ["-o", str(tmp_path / "build")])
    elif argv[0] == "phobos-run":
        status = run_main(args + ["--out", str(tmp_path / "out")])
    else:
        raise AssertionError(f"a page's Run: line names {argv[0]!r}")
    captured = capsys.readouterr()
    return status, set(_REPORTED.findall(captured.out + captured.err))


def _without_lints(codes: set[str]) -> set[str]:
    """The codes that count: lints (PH5xx, warnings) may accompany any example."""
    return {c for c in codes if not c.startswith("PH5")}


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_a_page(code):
    text = explain_text(code)
    name, meaning = CODES[code]
    if code.startswith("PH3") or (code.startswith("PH5") and code != "PH506"):   # a module's docstring
        assert text.startswith(f"{code} {name}:")
        return
    assert page_file_text(code) is not None, f"analyzer/diagnostics/explain_pages/{code}.txt is missing"
    assert text.startswith(f"{code} {name}: {meaning}\n\n")
    page = parse_page(code)
    headings = [s.heading.split(" (")[0] for s in page.sections]
    assert not page.intro, "the page opens with a heading (`What it flags:`)"
    wanted = ["What it flags", "Why it matters"] + ([] if code.startswith("PH9") else ["Example", "Fix"])
    assert [h for h in headings if h in wanted] == wanted, headings
    for s in page.sections:
        assert s.text or s.code, f"the `{s.heading}:` paragraph is empty"


# PH213's input is a kernel too large to build: seconds of LLVM, in the slow tier
@pytest.mark.parametrize("code", [pytest.param(c, marks=[pytest.mark.slow] if c == "PH213" else []) for c in EXPLAINED])
def test_the_example_produces_its_code_and_the_fix_does_not(code, tmp_path, capsys):
    page = parse_page(code)
    if code in INPUTS:
        assert page.example_kind == "input described" and page.example is None
        (example, how), fixed = INPUTS[code]
        codes = _codes_of_build if how == "build" else (lambda s: _codes_of_check(s, how))
        assert _without_lints(codes(example)) == {code}
        if fixed is not None:
            source, how = fixed
            codes = _codes_of_build if how == "build" else (lambda s: _codes_of_check(s, how))
            assert _without_lints(codes(source)) == set()
        return
    assert page.example, f"the page of {code} shows no example kernel"
    argv = page.run
    failing = {"phobos-check": 0 if CODES_SEVERITY.get(code) in ("note", "warning") else 1, "phobos-build": 1,
               "phobos-run": 4}[argv[0]]
    status, codes = _run_page_command(argv, page.example, tmp_path, capsys)
    # a lint's example produces its own code and no other (it is the lints' own page)
    counted = codes if code.startswith("PH5") else _without_lints(codes)
    assert counted == {code} and status == failing, (status, codes)
    if page.fix is not None:
        status, codes = _run_page_command(argv, page.fix, tmp_path, capsys)
        assert _without_lints(codes) == set() and status == 0, (status, codes)


# Codes reported as notes: their example exits 0.
CODES_SEVERITY = {"PH204": "note", **{c: "warning" for c in CODES if c.startswith("PH5")}}


def test_docs_codes_is_current(capsys):
    """docs/codes/ is generated from these pages (like SPEC_MAP.md, with a --check mode)."""
    status = codes_doc.main(["--check"])
    assert status == 0, capsys.readouterr().err


def test_explain_prints_a_page_for_every_code(capsys):
    for code in sorted(CODES):
        assert check_main(["--explain", code.lower()]) == 0
        assert capsys.readouterr().out == explain_text(code) + "\n"


def test_explain_of_an_unknown_code_is_a_usage_error(capsys):
    assert check_main(["--explain", "PH099"]) == 2
    assert "unknown code" in capsys.readouterr().err
