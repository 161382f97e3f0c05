"""The repository's `.pre-commit-hooks.yaml` works as another repository uses it: `pre-commit
try-repo` against a scratch git repository holding a bad and a good kernel fails on the bad one
only. The hook's repository is a snapshot of this checkout (tracked and untracked files, as git
would list them), committed in a scratch repository of its own, since try-repo reads a commit."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paths import REPO

BAD = "kernel k(A: tensor<f32>[64]) {\n  if ctx.lane == 0 {\n    barrier()\n  }\n}\n"
GOOD = "kernel k(A: tensor<f32>[64]) {\n  A[ctx.thread] = 1.0\n}\n"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd,
                   check=True, capture_output=True)


def _pre_commit() -> list[str] | None:
    exe = shutil.which("pre-commit") or (str(Path(sys.executable).parent / "pre-commit")
                                         if (Path(sys.executable).parent / "pre-commit").exists() else None)
    return [exe] if exe else None


def test_the_hook_file_names_phobos_check():
    text = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "- id: phobos-check" in text and "entry: phobos-check" in text and r"files: \.ph$" in text


@pytest.mark.slow
def test_pre_commit_try_repo_fails_on_the_bad_kernel_only(tmp_path):
    pre_commit = _pre_commit()
    if pre_commit is None or shutil.which("git") is None:
        pytest.skip("needs git and the pre-commit package (the `test` extra)")
    hook_repo = tmp_path / "hook"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = REPO / name
        if src.is_file():
            (hook_repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, hook_repo / name)
    _git(hook_repo, "init", "-q", ".")
    _git(hook_repo, "add", "-A")
    _git(hook_repo, "commit", "-qm", "snapshot")
    work = tmp_path / "work"
    work.mkdir()
    (work / "bad.ph").write_text(BAD)
    (work / "good.ph").write_text(GOOD)
    _git(work, "init", "-q", ".")
    _git(work, "add", "-A")
    run = subprocess.run(pre_commit + ["try-repo", str(hook_repo), "phobos-check", "--files", "good.ph", "bad.ph"],
                         cwd=work, capture_output=True, text=True, timeout=900)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "bad.ph:3:5: error[PH301]" in run.stdout
    assert "good.ph:" not in run.stdout
    only_good = subprocess.run(pre_commit + ["try-repo", str(hook_repo), "phobos-check", "--files", "good.ph"],
                               cwd=work, capture_output=True, text=True, timeout=900)
    assert only_good.returncode == 0, only_good.stdout + only_good.stderr
