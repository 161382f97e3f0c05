"""`phobos-check` as a process, on the real front end: bad input exits 1 with a located
diagnostic, the bundled examples exit 0, and nothing ever prints a traceback."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from paths import REPO

HEADLINE = re.compile(r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+): error\[(?P<code>PH\d{3})\]: .+$", re.M)


def phobos_check(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "phobos_tools.cli.check", *args],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "PH900" not in proc.stdout
    return proc


def codes(output: str) -> list[str]:
    return [m["code"] for m in HEADLINE.finditer(output)]


def test_unclosed_kernel_is_a_located_syntax_error(tmp_path):
    source = tmp_path / "k.ph"
    source.write_text("kernel k() {")
    proc = phobos_check(str(source))
    assert proc.returncode == 1
    found = list(HEADLINE.finditer(proc.stdout))
    assert found and found[0]["path"] == str(source)
    assert found[0]["code"].startswith("PH0")
    assert " 1 | kernel k() {" in proc.stdout  # the excerpt follows the first line
    assert "^" in proc.stdout


def test_unclosed_kernel_in_json(tmp_path):
    (tmp_path / "k.ph").write_text("kernel k() {")
    proc = phobos_check("--format", "json", str(tmp_path / "k.ph"))
    assert proc.returncode == 1
    diagnostics = json.loads(proc.stdout)["files"][0]["diagnostics"]
    assert diagnostics and diagnostics[0]["code"].startswith("PH0")
    assert diagnostics[0]["severity"] == "error"


def test_random_bytes_are_ph001(tmp_path):
    (tmp_path / "junk.ph").write_bytes(b"\xff\xfe\x00garbage")
    proc = phobos_check(str(tmp_path / "junk.ph"))
    assert proc.returncode == 1
    assert "PH001" in codes(proc.stdout)


def test_an_empty_file_is_an_error(tmp_path):
    (tmp_path / "empty.ph").write_bytes(b"")
    proc = phobos_check(str(tmp_path / "empty.ph"))
    assert proc.returncode == 1
    assert codes(proc.stdout)


def test_the_examples_check_clean():
    examples = REPO / "examples"
    if not any(examples.rglob("*.ph")):
        pytest.skip("examples/ holds no .ph file yet")
    proc = phobos_check(str(examples))
    assert proc.returncode == 0, proc.stdout
    assert "error[" not in proc.stdout
    assert proc.stderr.startswith("phobos-check: ") and "no errors" in proc.stderr
