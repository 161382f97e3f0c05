"""The front-end diagnostic codes (PH001-PH206): every code has a test that pins its code, line,
column and the key part of its message. Most are UI fixtures, one kernel per file named after its
code (tests/ui/syntax/PH0xx_*.ph, tests/ui/sema/PH1xx_*.ph and PH2xx_*.ph), whose snapshot pins the
column and the whole rendering. The inputs a `.ph` file cannot carry stay here as cases: invalid
UTF-8, NUL bytes, a file over 4 MiB, an empty file, a source that ends inside a block, deep
nesting, and `-D` values. Also: the text rendering of one through the command line, and no input
here ever reaches PH900."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest

from markers import parse
from paths import UI
from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.diagnostics import CODES, ERROR, NOTE
from phobos_tools.cli.check import main


@dataclass(frozen=True)
class Case:
    code: str
    source: str | bytes
    line: int
    column: int
    message: str                 # a part of the message that must appear
    defines: dict | None = None
    only: bool = True            # the case's diagnostic is the only one
    help: str | None = None      # a part of the help that must appear
    severity: str = ERROR


# the front-end codes' UI fixtures, one per file: CODE_what_it_says.ph
FIXTURES = sorted((UI / "syntax").glob("PH*.ph")) + sorted((UI / "sema").glob("PH*.ph"))


def deep_ifs(n: int) -> str:
    return "kernel k() {\n" + "if true {\n" * n + "}\n" * n + "}\n"


def many_tensors(n: int) -> str:
    """A kernel with ``n`` tensor parameters: 8 bytes of parameter space each."""
    params = ", ".join(f"A{i}: tensor<f32>[4]" for i in range(n))
    return f"kernel k({params}) {{\n  A0[0] = 1.0\n}}\n"


# The primary case of the codes whose first test cannot be a fixture, in code order.
CASES = [
    Case("PH001", b"kernel k() {\n  let a = 1 // caf\xe9\n}\n", 2, 19, "not valid UTF-8: byte 0xe9 at offset 31",
         help="UTF-8"),
    Case("PH002", b"kernel k() {}\n" + b"/" * (4 * 1024 * 1024), 1, 1, "over the 4 MiB limit"),
    Case("PH008", deep_ifs(600), 501, 1, "nesting deeper than 1000 levels"),
    Case("PH009", b"", 1, 1, "no kernel and no function"),
    Case("PH206", "kernel k() {\n}\n", 1, 1, "-D X=abc: the value must be an integer (128, -4, 0x40), a float (1.5, -2e-3) or true/false",
         defines={"X": "abc"}),
    Case("PH215", many_tensors(4096), 1, 8, "take 32,768 bytes, over the 32,764 bytes of parameter space"),
]

# More inputs per code that cannot be fixtures: other forms of the same mistake.
MORE_CASES = [
    Case("PH001", b"\xff\xfe", 1, 1, "byte 0xff at offset 0"),
    Case("PH001", "kernel k() {\n\t\u00e9\n}\n".encode() + b"\xc3", 4, 1, "byte 0xc3 at offset 19"),
    Case("PH001", b"kernel k() {\n  let \xe9\xe9 = 1\n}\n", 2, 7, "byte 0xe9 at offset 19"),
    Case("PH003", "kernel k() {\n  let a = 1\x00\n}\n", 2, 12, "U+0000"),
    Case("PH005", "kernel k() {\n  let a = 1\n", 1, 12, "unclosed delimiter: `{` has no `}`"),
    Case("PH008", "kernel k() {\n  let a = " + "-(1 + " * 600 + "1" + ")" * 600 + "\n}\n", 2, 3001,
         "nesting deeper than 1000 levels"),
    Case("PH009", "// only a comment\n\n", 1, 1, "no kernel and no function"),
    Case("PH009", " \n\t\n;\n", 1, 1, "no kernel and no function"),
    Case("PH206", "kernel k() {\n}\n", 1, 1, "-D sum=1: `sum` is reserved (a built-in)", defines={"sum": "1"}),
]

# PH210-PH213 (what phobos-build cannot lower yet or build quickly; target resources) have their own tests in
# tests/lowering/ (test_lowering.py, test_resources.py)
FRONT_END_CODES = sorted(c for c in CODES if c[2] in "012" and c not in ("PH210", "PH211", "PH212", "PH213"))


def _case_id(case: Case) -> str:
    return case.code


def _check(case: Case):
    result = check_source(case.source, "k.ph", case.defines)
    assert all(d.code != "PH900" for d in result.diagnostics)
    found = [d for d in result.diagnostics if d.code == case.code]
    assert found, f"no {case.code}; got {[(d.code, d.span.line, d.span.column, d.message) for d in result.diagnostics]}"
    d = found[0]
    assert (d.span.line, d.span.column) == (case.line, case.column), d.message
    assert d.span.end_line >= d.span.line
    assert case.message in d.message
    assert d.severity == case.severity
    if case.help is not None:
        assert d.help is not None and case.help in d.help
    if case.only:
        assert [x.code for x in result.diagnostics] == [case.code], \
            [(x.code, x.span.line, x.span.column, x.message) for x in result.diagnostics]
    return result, d


def _fixture_code(path) -> str:
    return path.name.split("_", 1)[0]


def test_every_front_end_code_has_a_test():
    """A UI fixture named after the code that marks it, or a case here."""
    fixtures = {_fixture_code(p) for p in FIXTURES}
    for p in FIXTURES:
        code = _fixture_code(p)
        exp = parse(p.read_text(encoding="utf-8"))
        marked = {c for d in (exp.errors, exp.warnings, exp.notes) for cs in d.values() for c in cs}
        assert code in marked, f"{p.name} does not mark {code}"
    covered = fixtures | {c.code for c in CASES + MORE_CASES}
    assert sorted(covered & set(FRONT_END_CODES)) == FRONT_END_CODES, sorted(set(FRONT_END_CODES) - covered)
    assert [c.code for c in CASES] == sorted(c.code for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_code(case):
    result, d = _check(case)
    assert result.ok == (case.severity != ERROR)
    assert d.name == CODES[case.code][0]


@pytest.mark.parametrize("case", MORE_CASES, ids=_case_id)
def test_more_forms(case):
    _check(case)


def test_PH002_boundary():
    # PH002 is decided on the byte size, before decoding: just over is refused unread,
    # and a 4 MiB file of invalid bytes is a PH001, not a PH002.
    limit = 4 * 1024 * 1024
    over = check_source(b"\xff" * (limit + 1))
    assert [d.code for d in over.diagnostics] == ["PH002"] and over.text is None
    at = check_source(b"\xff" * limit)
    assert [d.code for d in at.diagnostics] == ["PH001"]
    # str input counts UTF-8 bytes: 2 MiB + 1 two-byte characters are over the limit
    assert [d.code for d in check_source("\u00e9" * (limit // 2 + 1)).diagnostics] == ["PH002"]


def test_PH204_is_a_note_and_the_kernel_is_accepted():
    result = check_source("@cluster(2)\n@launch(64)\nkernel k() {\n}\n")
    assert result.ok
    assert [(d.code, d.severity) for d in result.diagnostics] == [("PH204", NOTE)]
    assert result.semantics.kernels[0].threads == 64


def test_diagnostics_are_sorted_by_position():
    src = "@launch(100)\nkernel k() {\n  let a = b\n}\nkernel j() {\n  let c = d\n}\n"
    result = check_source(src)
    keys = [(d.span.line, d.span.column) for d in result.diagnostics]
    assert keys == sorted(keys) and len(keys) == 3


# ------------------------------------------------------------------ the text format, via the CLI


def test_text_rendering_through_the_cli(tmp_path):
    path = tmp_path / "chain.ph"
    path.write_text("kernel k() {\n  let a = 1 < 2 < 3\n}\n")
    proc = subprocess.run([sys.executable, "-m", "phobos_tools.cli.check", str(path)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"{path}:2:17: error[PH010]: comparison operators cannot be chained"
    assert lines[1] == " 2 |   let a = 1 < 2 < 3"
    assert lines[2] == "   |                 ^ a second comparison"
    assert lines[3] == "   = help: to test both, join two comparisons with `&&`: `1 < 2 && 2 < 3` (or parenthesize one side)"
    assert "1 error in 1 file" in proc.stderr


def test_text_rendering_of_a_wide_span(tmp_path, capsys):
    path = tmp_path / "wide.ph"
    path.write_text("kernel k(A: tensor<f32>[N, M]) {\n\tlet a = A[0]\n}\n")
    status = main([str(path)])
    out, err = capsys.readouterr()
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == f"{path}:2:10: error[PH110]: `A` has rank 2, but 1 subscript is given"
    assert lines[1] == " 2 | \tlet a = A[0]"
    # a tab counts as one column; the caret line copies it so the marks stay under `A[0]`
    assert lines[2].startswith("   | \t        ^^^^")
    assert "Traceback" not in out + err


def test_cli_exit_status_for_a_note_only_file(tmp_path, capsys):
    path = tmp_path / "note.ph"
    path.write_text("@cluster(2)\nkernel k() {\n}\n")
    assert main([str(path)]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[0] == f"{path}:1:1: note[PH204]: attribute `@cluster` is not used by phobos-tools and is ignored"


def test_cli_define_error(tmp_path, capsys):
    # a -D value that is no literal is a usage error of the command line, found before any file
    # is read; PH206 (the CASES above) is what check_source reports for it through the API
    path = tmp_path / "d.ph"
    path.write_text("kernel k() {\n}\n")
    assert main(["-D", "X=abc", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("phobos-check: error: -D X=abc: the value must be")


# ------------------------------------------------------------------ PH9xx


def test_no_input_reaches_PH900(tmp_path, capsys):
    """Every input of this file and every front-end fixture (their `-D` flags aside), through the
    command line: exit 0 or 1, never 3, never PH900."""
    paths = [str(p) for p in FIXTURES if not parse(p.read_text(encoding="utf-8")).defines]
    for i, case in enumerate(CASES + MORE_CASES):
        if case.defines:
            continue
        p = tmp_path / f"c{i:03d}_{case.code}.ph"
        p.write_bytes(case.source if isinstance(case.source, bytes) else case.source.encode())
        paths.append(str(p))
    status = main(paths)
    out, err = capsys.readouterr()
    assert status == 1
    assert "[PH900]" not in out and "internal error" not in out + err
    assert "Traceback" not in out + err


def test_an_internal_error_is_PH900_exit_3(tmp_path, capsys, monkeypatch):
    import phobos_tools.analyzer

    def boom(path, defines=None, lints=frozenset()):
        raise RuntimeError("boom")

    monkeypatch.setattr(phobos_tools.analyzer, "check_file", boom)
    path = tmp_path / "k.ph"
    path.write_text("kernel k() {\n}\n")
    assert main([str(path)]) == 3
    out, err = capsys.readouterr()
    assert f"{path}:1:1: error[PH900]: internal error: RuntimeError: boom" in out
    assert "Traceback" not in out + err


# An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so what
# depends on their values waits for a call; what is wrong for any binding is still reported. The
# single functions are UI fixtures (tests/ui/sema/functions/uncalled_*.ph); what needs two
# programs stays here. So do the functions that return, or may not, on every path
# (tests/ui/sema/functions/returns_*.ph, may_end_*.ph).


def test_a_generic_function_is_checked_again_at_each_call():
    fn = "fn f(A: tensor<f32>[N]) -> f32 {\n  return sum(A[0 :+ N])\n}\n"
    ok = fn + "@launch(32)\nkernel k(A: tensor<f32>[8], O: tensor<f32>[4]) {\n  O[0] = f(A[0 :+ 4])\n}\n"
    assert check_source(ok).ok
    bad = ok.replace("f(A[0 :+ 4])", "f(A[0 :+ 8])").replace("tensor<f32>[8]", "tensor<f32>[32]")
    bad = bad.replace("A[0 :+ 8]", "A[0 :+ 32]")
    result = check_source(bad)
    assert "PH111" in {d.code for d in result.diagnostics}, [(d.code, d.message) for d in result.diagnostics]


def test_a_tile_sized_by_a_function_dim_needs_a_static_extent_at_the_call():
    fn = "fn f(A: tensor<f32>[N]) -> f32 {\n  var t: tile<f32>[N] = A[0 :+ N]\n  return t[0]\n}\n"
    static = fn + "@launch(32)\nkernel k(A: tensor<f32>[8], O: tensor<f32>[1]) {\n  O[0] = f(A)\n}\n"
    assert check_source(static).ok
    runtime = static.replace("tensor<f32>[8]", "tensor<f32>[M]")
    assert [(d.code, d.span.line) for d in check_source(runtime).diagnostics] == [("PH107", 2), ("PH107", 2)]
