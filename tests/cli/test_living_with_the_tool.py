"""DESIGN.md, "Living with the tool", through the console scripts as a user runs them: --version,
`-` with --stdin-filename, --color with NO_COLOR/FORCE_COLOR, --format github, --statistics,
--exit-zero, --select/--ignore, --fix (in place and on `-`), allow comments, and the
configuration file (`[tool.phobos]` in pyproject.toml, phobos.toml, --config, --isolated,
per-file-ignores, bad keys), read by phobos-build and phobos-run too."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

pytestmark = pytest.mark.slow

LINTED = ("@launch(64)\nkernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {\n  var x = A[ctx.thread]\n"
          "  let y = 2\n  O[ctx.thread] = x\n}\n")
BAD = "kernel k(A: tensor<f32>[64]) {\n  if ctx.lane == 0 {\n    barrier()\n  }\n}\n"
CLEAN = "kernel k(A: tensor<f32>[64]) {\n  A[ctx.thread] = 1.0\n}\n"


def run(*argv, cwd=None, stdin: str | None = None, env: dict | None = None):
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env or {})
    return subprocess.run(list(argv), cwd=cwd, input=stdin, capture_output=True, text=True, env=environment,
                          timeout=120)


def codes(out: str) -> list[str]:
    return [d["code"] for f in json.loads(out)["files"] for d in f["diagnostics"]]


@pytest.mark.parametrize("prog", ["phobos-check", "phobos-build", "phobos-run"])
def test_version(prog):
    r = run(prog, "--version")
    assert r.returncode == 0 and r.stdout.startswith(f"{prog} (phobos-tools) ")


def test_stdin_with_a_name(tmp_path):
    r = run("phobos-check", "-", "--stdin-filename", "kernels/k.ph", stdin=LINTED, cwd=tmp_path)
    assert r.returncode == 0
    assert "kernels/k.ph:3:7: warning[PH502]" in r.stdout and "kernels/k.ph:4:7: warning[PH501]" in r.stdout
    assert run("phobos-check", "-", stdin=BAD, cwd=tmp_path).stdout.startswith("<stdin>:3:5: error[PH301]")
    usage = run("phobos-check", "k.ph", "--stdin-filename", "x.ph", cwd=tmp_path)
    assert usage.returncode == 2 and "--stdin-filename" in usage.stderr


def test_colour_follows_the_flag_and_the_environment(tmp_path):
    (tmp_path / "k.ph").write_text(BAD)
    assert "\x1b[" in run("phobos-check", "k.ph", "--color", "always", cwd=tmp_path).stdout
    assert "\x1b[" not in run("phobos-check", "k.ph", cwd=tmp_path).stdout           # not a terminal
    assert "\x1b[" in run("phobos-check", "k.ph", cwd=tmp_path, env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in run("phobos-check", "k.ph", cwd=tmp_path, env={"NO_COLOR": "1", "FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in run("phobos-check", "k.ph", "--color", "never", cwd=tmp_path, env={"FORCE_COLOR": "1"}).stdout
    # never in the machine formats
    assert "\x1b[" not in run("phobos-check", "k.ph", "--format", "json", "--color", "always", cwd=tmp_path).stdout
    coloured = run("phobos-check", "k.ph", "--color", "always", cwd=tmp_path).stdout
    import re
    assert re.sub("\x1b\\[[0-9;]*m", "", coloured) == run("phobos-check", "k.ph", cwd=tmp_path).stdout


def test_github_annotations(tmp_path):
    (tmp_path / "bad.ph").write_text(BAD)
    (tmp_path / "lint.ph").write_text(LINTED)
    r = run("phobos-check", "bad.ph", "lint.ph", "--format", "github", cwd=tmp_path)
    lines = r.stdout.splitlines()
    assert r.returncode == 1
    assert lines[0].startswith("::error file=bad.ph,line=3,col=5,endLine=3,endColumn=14,title=PH301::`barrier()`")
    assert any(l.startswith("::warning file=lint.ph,line=4,col=7,endLine=4,endColumn=8,title=PH501::") for l in lines)
    assert all(l.startswith("::") for l in lines)


def test_statistics_and_exit_zero(tmp_path):
    (tmp_path / "bad.ph").write_text(BAD)
    (tmp_path / "lint.ph").write_text(LINTED)
    r = run("phobos-check", ".", "--statistics", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.endswith("1  PH301  cta-op-divergent-control\n1  PH501  unused-binding\n"
                             "1  PH502  var-never-reassigned\n")
    assert run("phobos-check", ".", "--exit-zero", cwd=tmp_path).returncode == 0
    assert run("phobos-check", "missing.ph", "--exit-zero", cwd=tmp_path).returncode == 2


def test_select_and_ignore(tmp_path):
    (tmp_path / "k.ph").write_text(LINTED)
    assert codes(run("phobos-check", "k.ph", "--format", "json", "--select", "PH501", cwd=tmp_path).stdout) == ["PH501"]
    assert codes(run("phobos-check", "k.ph", "--format", "json", "--ignore", "PH501,PH502", cwd=tmp_path).stdout) == []
    r = run("phobos-check", "k.ph", "--ignore", "PH301", cwd=tmp_path)
    assert r.returncode == 2 and "PH301 is an error" in r.stderr
    r = run("phobos-check", "k.ph", "--select", "PH999", cwd=tmp_path)
    assert r.returncode == 2 and "not a diagnostic code" in r.stderr


def test_fix_in_place_and_on_stdin(tmp_path):
    k = tmp_path / "k.ph"
    k.write_text(LINTED)
    r = run("phobos-check", "k.ph", "--fix", cwd=tmp_path)
    assert r.returncode == 0 and "applied 2 fixes" in r.stderr and r.stdout == ""
    assert k.read_text() == LINTED.replace("var x", "let x").replace("let y", "let _y")
    r = run("phobos-check", "-", "--fix", stdin=LINTED, cwd=tmp_path)
    assert r.stdout == LINTED.replace("var x", "let x").replace("let y", "let _y")
    # what cannot be fixed is reported
    (tmp_path / "bad.ph").write_text(BAD)
    r = run("phobos-check", "bad.ph", "--fix", cwd=tmp_path)
    assert r.returncode == 1 and "error[PH301]" in r.stdout


def test_fixes_in_json_and_sarif(tmp_path):
    (tmp_path / "k.ph").write_text(LINTED)
    doc = json.loads(run("phobos-check", "k.ph", "--format", "json", cwd=tmp_path).stdout)
    diag = doc["files"][0]["diagnostics"][0]
    assert doc["version"] == 1 and list(diag)[-1] == "fixes"
    assert diag["fixes"] == [{"message": "declare `x` with `let`",
                              "edits": [{"line": 3, "column": 3, "end_line": 3, "end_column": 6, "text": "let"}]}]
    sarif = json.loads(run("phobos-check", "k.ph", "--format", "sarif", cwd=tmp_path).stdout)
    fix = sarif["runs"][0]["results"][0]["fixes"][0]
    assert fix["description"]["text"] == "declare `x` with `let`"
    assert fix["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == "let"


NEW_USER = ("@launch(64)\nkernel k(A: tensor<float>[64], O: tensor<f32>[64]) {\n  var s = 0.0\n"
            "  for i in 0..64\n  {\n    s += A[i] * 2.0f\n  }\n  O[ctx.thread] = s\n}\n")
NEW_USER_FIXED = ("@launch(64)\nkernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {\n  var s = 0.0\n"
                  "  for i in range(0, 64) {\n    s += A[i] * 2.0\n  }\n  O[ctx.thread] = s\n}\n")


def test_the_syntax_and_type_fixes_through_the_commands(tmp_path):
    """issue 20, point 5: `{` on the next line, `1.0f`, `0..N` and a C type name, fixed by --fix
    (in rounds: the type is checked once the syntax is right), and in JSON."""
    (tmp_path / "k.ph").write_text(NEW_USER)
    doc = json.loads(run("phobos-check", "k.ph", "--format", "json", cwd=tmp_path).stdout)
    fixes = {d["code"] + " " + d["message"]: d["fixes"] for d in doc["files"][0]["diagnostics"]}
    assert fixes["PH005 `0..64` is not a range"] == [
        {"message": "write `range(0, 64)`",
         "edits": [{"line": 4, "column": 12, "end_line": 4, "end_column": 17, "text": "range(0, 64)"}]}]
    assert fixes["PH006 put `{` on the line of the `for`"][0]["edits"] == [
        {"line": 4, "column": 17, "end_line": 5, "end_column": 3, "text": " "}]
    r = run("phobos-check", "k.ph", "--fix", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "k.ph").read_text() == NEW_USER_FIXED
    assert run("phobos-check", "-", "--fix", stdin=NEW_USER, cwd=tmp_path).stdout == NEW_USER_FIXED


def test_why_on_a_usage_error_prints_no_summary(tmp_path):
    (tmp_path / "k.ph").write_text(CLEAN)
    r = run("phobos-check", "k.ph", "--why", "nothing", cwd=tmp_path)
    assert r.returncode == 2
    assert "--why: no binding named 'nothing'" in r.stderr
    assert "file checked" not in r.stdout + r.stderr       # no "1 file checked, no errors" after it


def test_allow_comments(tmp_path):
    (tmp_path / "k.ph").write_text(LINTED.replace("let y = 2", "let y = 2   // phobos-allow: PH501 -- kept"))
    assert codes(run("phobos-check", "k.ph", "--format", "json", cwd=tmp_path).stdout) == ["PH502"]
    (tmp_path / "e.ph").write_text(CLEAN.replace("= 1.0", "= 1.0 // phobos-allow: PH301"))
    r = run("phobos-check", "e.ph", cwd=tmp_path)
    assert r.returncode == 1 and "error[PH214]: `PH301` is an error of the language and cannot be allowed" in r.stdout


def test_configuration_in_pyproject_and_phobos_toml(tmp_path):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.phobos]\nselect = ["PH501", "PH502"]\nignore = ["PH502"]\n'
        'per-file-ignores = {"tests/*.ph" = ["PH501"]}\nformat = "github"\n')
    (project / "src" / "k.ph").write_text(LINTED)
    (project / "tests" / "t.ph").write_text(LINTED)
    r = run("phobos-check", "src/k.ph", "tests/t.ph", cwd=project)
    assert r.stdout.splitlines() == [
        "::warning file=src/k.ph,line=4,col=7,endLine=4,endColumn=8,title=PH501::`y` is never read "
        "(use it, remove it, or name it `_y` to say it is unused on purpose)"]
    # flags win; --isolated reads nothing; stdin is matched by its name
    assert "PH502" in run("phobos-check", "src/k.ph", "--format", "text", "--ignore", "PH501", cwd=project).stdout
    assert "PH502" in run("phobos-check", "src/k.ph", "--isolated", cwd=project).stdout
    assert run("phobos-check", "-", "--stdin-filename", "tests/t.ph", stdin=LINTED, cwd=project).stdout == ""
    # phobos.toml wins in the same folder; a pyproject.toml without [tool.phobos] is passed over
    (project / "src" / "phobos.toml").write_text('ignore = ["PH501"]\n')
    (project / "src" / "pyproject.toml").write_text('[project]\nname = "y"\n')
    assert codes(run("phobos-check", "src/k.ph", "--format", "json", cwd=project).stdout) == ["PH502"]
    (project / "src" / "phobos.toml").unlink()
    assert run("phobos-check", "src/k.ph", cwd=project).stdout.startswith("::warning")
    # --config names one for every file
    (tmp_path / "strict.toml").write_text('select = ["PH502"]\n')
    assert codes(run("phobos-check", "src/k.ph", "--config", "../strict.toml", "--format", "json",
                     cwd=project).stdout) == ["PH502"]


@pytest.mark.parametrize("table, key", [
    ('arch = "sm_70"', "arch"), ('colour = "red"', "colour"), ('select = ["PH301"]', "select"),
    ('defines = { N = "four" }', "defines.N"), ('format = "xml"', "format"),
    ('per-file-ignores = { "a.ph" = ["PH1"] }', "per-file-ignores"),
])
@pytest.mark.parametrize("prog", ["phobos-check", "phobos-build"])
def test_a_bad_key_is_a_usage_error_naming_file_and_key(tmp_path, table, key, prog):
    (tmp_path / "phobos.toml").write_text(table + "\n")
    (tmp_path / "k.ph").write_text(CLEAN)
    r = run(prog, "k.ph", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"phobos.toml: {key}" in r.stderr, r.stderr


def test_build_and_run_read_arch_and_defines(tmp_path):
    (tmp_path / "phobos.toml").write_text('arch = "sm_80"\ndefines = { N = 64 }\n')
    (tmp_path / "k.ph").write_text("@launch(64)\nkernel k(A: tensor<f32>[N]) {\n  A[ctx.thread] = 1.0\n}\n")
    r = run("phobos-build", "k.ph", "-o", "out", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "out" / "k.json").read_text())
    assert manifest["target"] == "sm_80" and manifest["extents"] == []
    r = run("phobos-build", "k.ph", "-o", "out2", "--arch", "sm_90", "-D", "N=32", cwd=tmp_path)
    manifest = json.loads((tmp_path / "out2" / "k.json").read_text())
    assert manifest["target"] == "sm_90"
    r = run("phobos-run", "k.ph", "--sim", "--grid", "1", "--out", "o", cwd=tmp_path)
    assert r.returncode == 2 and "tensor<f32>[64]" in r.stderr          # N = 64 from the file
    r = run("phobos-run", "k.ph", "--sim", "--grid", "1", "--arg", "A=zeros:f32:64", "--out", "o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
