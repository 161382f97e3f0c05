"""`phobos-check`'s command line, file collection, output and exit statuses.

The analyzer is replaced by a stub here (``phobos_tools.analyzer.check_file``), so these tests
pin the CLI's own contract; tests/cli/test_check_real.py runs it on the real front end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import phobos_tools.analyzer
from phobos_tools.analyzer.diagnostics import Diagnostic, Span, WARNING
from phobos_tools.cli.check import main


@dataclass
class StubResult:
    path: str
    text: str | None
    diagnostics: list = field(default_factory=list)
    kinds: list = field(default_factory=list)


class StubAnalyzer:
    """Records each call; reports what ``diagnose(path, text)`` returns for the file."""

    def __init__(self, diagnose=lambda path, text: []):
        self.calls: list[tuple[str, dict]] = []
        self.diagnose = diagnose

    def __call__(self, path, defines=None, arch="sm_90", lints=frozenset()):
        self.calls.append((str(path), dict(defines or {})))
        self.arch = arch
        text = Path(path).read_text()  # OSError propagates, as from the real check_file
        return StubResult(str(path), text, self.diagnose(str(path), text))


@pytest.fixture
def stub(monkeypatch):
    analyzer = StubAnalyzer()
    monkeypatch.setattr(phobos_tools.analyzer, "check_file", analyzer)
    return analyzer


def syntax_error(path, text):
    return [Diagnostic("PH005", "expected `}`", Span(1, 13, 1, 13), label="here")] if "{" in text else []


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


# --- usage errors: exit 2, `phobos-check: error: ...` on stderr ----------------------------------

def test_no_path_is_a_usage_error(stub, capsys):
    status, out, err = run(capsys)
    assert status == 2 and out == ""
    assert "phobos-check: error: no path given" in err
    assert stub.calls == []


def test_missing_file_is_a_usage_error_naming_it(stub, capsys, tmp_path):
    missing = tmp_path / "nope.ph"
    status, out, err = run(capsys, str(missing))
    assert status == 2
    assert f"phobos-check: error: no such file or directory: '{missing}'" in err


def test_missing_file_does_not_stop_the_others(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("kernel k() {")
    status, out, err = run(capsys, str(tmp_path / "nope.ph"), str(tmp_path / "a.ph"))
    assert status == 2  # the worst of 2 (missing) and 1 (a syntax error)... is 2
    assert [Path(p).name for p, _ in stub.calls] == ["a.ph"]


def test_a_path_with_a_nul_byte_is_a_usage_error(stub, capsys):
    status, _, err = run(capsys, "a\x00b.ph")
    assert status == 2 and err.startswith("phobos-check: error: ")


def test_unreadable_file_is_a_usage_error(monkeypatch, capsys, tmp_path):
    def refuse(path, defines=None, lints=frozenset()):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(phobos_tools.analyzer, "check_file", refuse)
    (tmp_path / "a.ph").write_text("")
    status, out, err = run(capsys, str(tmp_path / "a.ph"))
    assert status == 2
    assert "phobos-check: error: cannot read" in err and "Permission denied" in err


@pytest.mark.parametrize("define", ["N", "N=", "=3", "1N=3", "N-1=3", "N= 3"])
def test_bad_define_is_a_usage_error(stub, capsys, tmp_path, define):
    (tmp_path / "a.ph").write_text("")
    status, out, err = run(capsys, "-D", define, str(tmp_path / "a.ph"))
    assert status == 2
    assert "phobos-check: error: -D" in err
    assert stub.calls == []


def test_a_define_given_twice_with_different_values_is_a_usage_error(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("")
    status, _, err = run(capsys, "-D", "N=1", "-DN=2", str(tmp_path / "a.ph"))
    assert status == 2 and "given twice" in err


def test_defines_reach_the_analyzer(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("")
    status, _, _ = run(capsys, "-D", "BLOCK=128", "-DK=-4", "-D", "BLOCK=128", str(tmp_path / "a.ph"))
    assert status == 0
    assert stub.calls == [(str(tmp_path / "a.ph"), {"BLOCK": "128", "K": "-4"})]


@pytest.mark.parametrize("flags, complaint", [
    (["--why", "x", "--format", "json"], "--why prints text"),
    (["--why", "x", "--format", "sarif"], "--why prints text"),
    (["--why", "not a name"], "--why: expected the name of a binding"),
    (["--kinds", "--format", "sarif"], "--kinds goes with --format text or json"),
    (["--explain", "PH301"], "--explain checks no file"),
    (["--list-rules"], "--list-rules checks no file"),
])
def test_options_of_the_analysis_refuse_what_they_cannot_do(stub, capsys, tmp_path, flags, complaint):
    (tmp_path / "a.ph").write_text("")
    status, out, err = run(capsys, *flags, str(tmp_path / "a.ph"))
    assert status == 2 and out == ""
    assert f"phobos-check: error: {complaint}" in err
    assert stub.calls == []


@pytest.mark.parametrize("flags", [["--explain", "PH301", "--list-rules"], ["--explain", "PH301", "--kinds"],
                                   ["--list-rules", "--why", "x"], ["--list-rules", "--dump-cfg", "out"]])
def test_documentation_options_take_no_checking_options(stub, capsys, flags):
    status, out, err = run(capsys, *flags)
    assert status == 2 and out == "" and "phobos-check: error: " in err


def test_dump_cfg_into_a_path_that_is_a_file_is_a_usage_error(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("")
    (tmp_path / "taken").write_text("")
    status, _, err = run(capsys, "--dump-cfg", str(tmp_path / "taken"), str(tmp_path / "a.ph"))
    assert status == 2 and "--dump-cfg: cannot create the directory" in err
    assert stub.calls == []


def test_why_a_name_no_file_binds_is_a_usage_error(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("")
    status, _, err = run(capsys, "--why", "row", str(tmp_path / "a.ph"))
    assert status == 2 and "--why: no binding named 'row'" in err


def test_unknown_option_and_format_are_usage_errors(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("")
    assert run(capsys, "--frobnicate", str(tmp_path / "a.ph"))[0] == 2
    assert run(capsys, "--format", "xml", str(tmp_path / "a.ph"))[0] == 2
    assert run(capsys, "--arch", "volta", str(tmp_path / "a.ph"))[0] == 2


def test_arch_is_accepted_and_passed_on(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("")
    assert run(capsys, "--arch", "sm_80", str(tmp_path / "a.ph"))[0] == 0
    assert stub.arch == "sm_80"


def test_help_exits_0(stub, capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "usage: phobos-check" in out


# --- collecting files ------------------------------------------------------------------------

def test_a_directory_means_every_ph_file_under_it_sorted(stub, capsys, tmp_path):
    for name in ["b.ph", "a.ph", "sub/c.ph", "sub/deeper/d.ph", "notes.txt", "a.ph.bak"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    status, _, err = run(capsys, str(tmp_path))
    assert status == 0
    assert [Path(p).relative_to(tmp_path).as_posix() for p, _ in stub.calls] == [
        "a.ph", "b.ph", "sub/c.ph", "sub/deeper/d.ph"]
    assert err == "phobos-check: 4 files checked, no errors\n"


def test_a_file_named_twice_is_checked_once(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("")
    run(capsys, str(tmp_path / "a.ph"), str(tmp_path))
    assert len(stub.calls) == 1


def test_a_directory_without_ph_files_is_a_usage_error(stub, capsys, tmp_path):
    (tmp_path / "readme.txt").write_text("")
    status, _, err = run(capsys, str(tmp_path))
    assert status == 2 and "no .ph files under" in err


def test_a_named_file_is_checked_whatever_its_suffix(stub, capsys, tmp_path):
    (tmp_path / "kernel.txt").write_text("")
    assert run(capsys, str(tmp_path / "kernel.txt"))[0] == 0
    assert len(stub.calls) == 1


# --- results, output and exit status ---------------------------------------------------------

def test_an_error_exits_1_with_text_blocks_and_a_summary(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(phobos_tools.analyzer, "check_file", StubAnalyzer(syntax_error))
    (tmp_path / "bad.ph").write_text("kernel k() {")
    (tmp_path / "worse.ph").write_text("kernel j() {")
    (tmp_path / "good.ph").write_text("")
    status, out, err = run(capsys, str(tmp_path))
    assert status == 1
    bad, worse = str(tmp_path / "bad.ph"), str(tmp_path / "worse.ph")
    assert out == (
        f"{bad}:1:13: error[PH005]: expected `}}`\n"
        " 1 | kernel k() {\n"
        "   |             ^ here\n"
        "\n"
        f"{worse}:1:13: error[PH005]: expected `}}`\n"
        " 1 | kernel j() {\n"
        "   |             ^ here\n")
    assert err == "phobos-check: 2 errors in 2 files (3 files checked)\n"


def test_warnings_alone_exit_0(monkeypatch, capsys, tmp_path):
    warn = StubAnalyzer(lambda p, t: [Diagnostic("PH204", "ignored", Span(1, 1, 1, 2), severity=WARNING)])
    monkeypatch.setattr(phobos_tools.analyzer, "check_file", warn)
    (tmp_path / "a.ph").write_text("@cluster(2)\n")
    status, out, err = run(capsys, str(tmp_path / "a.ph"))
    assert status == 0
    assert "warning[PH204]" in out
    assert err == "phobos-check: 1 file checked, no errors, 1 warning\n"


def test_diagnostics_within_a_file_are_ordered_by_line_then_column(monkeypatch, capsys, tmp_path):
    diags = [Diagnostic("PH101", "third", Span(2, 1, 2, 2)), Diagnostic("PH101", "second", Span(1, 5, 1, 6)),
             Diagnostic("PH101", "first", Span(1, 2, 1, 3))]
    monkeypatch.setattr(phobos_tools.analyzer, "check_file", StubAnalyzer(lambda p, t: diags))
    (tmp_path / "a.ph").write_text("abcdef\nghi\n")
    _, out, _ = run(capsys, str(tmp_path / "a.ph"))
    headlines = [line for line in out.splitlines() if "error[" in line]
    assert [h.rsplit(": ", 1)[1] for h in headlines] == ["first", "second", "third"]


def test_json_is_one_document_on_stdout(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(phobos_tools.analyzer, "check_file", StubAnalyzer(syntax_error))
    (tmp_path / "b.ph").write_text("kernel k() {")
    (tmp_path / "a.ph").write_text("")
    status, out, err = run(capsys, "--format", "json", str(tmp_path))
    assert status == 1 and err == ""
    doc = json.loads(out)
    assert doc["version"] == 1
    assert [Path(f["path"]).name for f in doc["files"]] == ["a.ph", "b.ph"]
    assert doc["files"][1]["diagnostics"][0]["code"] == "PH005"
    assert all("kinds" not in f for f in doc["files"])


def test_json_kinds_flag_adds_kinds(stub, capsys, tmp_path):
    (tmp_path / "a.ph").write_text("")
    _, out, _ = run(capsys, "--format", "json", "--kinds", str(tmp_path / "a.ph"))
    assert json.loads(out)["files"][0]["kinds"] == []


def test_an_exception_in_the_analyzer_is_ph900_and_exit_3(monkeypatch, capsys, tmp_path):
    def explode(path, defines=None, lints=frozenset()):
        raise RuntimeError("the parser fell over")

    monkeypatch.setattr(phobos_tools.analyzer, "check_file", explode)
    (tmp_path / "a.ph").write_text("kernel k() {}\n")
    (tmp_path / "b.ph").write_text("kernel k() {}\n")
    status, out, err = run(capsys, str(tmp_path / "a.ph"))
    assert status == 3
    assert f"{tmp_path / 'a.ph'}:1:1: error[PH900]: internal error: RuntimeError: the parser fell over" in out
    assert "please report it" in out

    status, out, _ = run(capsys, "--format", "json", str(tmp_path))
    assert status == 3
    assert [f["diagnostics"][0]["code"] for f in json.loads(out)["files"]] == ["PH900", "PH900"]


def test_ph900_outranks_a_usage_error(monkeypatch, capsys, tmp_path):
    def explode(path, defines=None, lints=frozenset()):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(phobos_tools.analyzer, "check_file", explode)
    (tmp_path / "a.ph").write_text("")
    assert run(capsys, str(tmp_path / "missing.ph"), str(tmp_path / "a.ph"))[0] == 3


def test_interrupt_exits_130_quietly(monkeypatch, capsys, tmp_path):
    def interrupted(path, defines=None, lints=frozenset()):
        raise KeyboardInterrupt

    monkeypatch.setattr(phobos_tools.analyzer, "check_file", interrupted)
    (tmp_path / "a.ph").write_text("")
    status, out, err = run(capsys, str(tmp_path / "a.ph"))
    assert (status, out, err) == (130, "", "")


# --- as a process ----------------------------------------------------------------------------

def test_module_entry_point_reports_a_missing_file(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "phobos_tools.cli.check", str(tmp_path / "x.ph")],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("phobos-check: error: no such file or directory")
    assert "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.slow
def test_a_closed_pipe_ends_quietly(tmp_path):
    # Many files' diagnostics into a reader that stops after a few bytes, like `| head -c 10`.
    script = (
        "import sys, phobos_tools.analyzer as a\n"
        "from phobos_tools.analyzer.diagnostics import Diagnostic, Span\n"
        "class R:\n"
        "    def __init__(self, p): self.path, self.text = p, 'x' * 80 + '\\n'\n"
        "    diagnostics = [Diagnostic('PH101', 'm' * 60, Span(1, 1, 1, 80))] * 5\n"
        "a.check_file = lambda p, d=None: R(p)\n"
        "from phobos_tools.cli.check import main\n"
        "sys.exit(main(sys.argv[1:]))\n")
    for n in range(3000):
        (tmp_path / f"{n}.ph").write_text("")
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 141
    assert err == ""
