"""sanitize.py stopped by the device script's step timeout (SIGTERM from timeout(1)): the jobs it
started end with it (they run in sessions of their own, out of timeout's reach), no queued job
starts afterwards, and sanitizer.json holds what was done. A stand-in compute-sanitizer on PATH:
the probe is clean at once, every other job hangs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
import pytest

pytestmark = pytest.mark.gpu

HERE = Path(__file__).resolve().parent
MARK = "347.25"          # the stand-in's hanging jobs sleep this long: how they are found afterwards


def hanging(marker):
    out = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def test_a_stopped_sanitize_run_leaves_no_job_behind_and_keeps_its_report(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "compute-sanitizer"
    fake.write_text("#!/bin/sh\n"
                    "case \"$*\" in *\"--only stage\"*)\n"
                    "  echo '========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)'; exit 0;;\n"
                    "esac\n"
                    f"exec sleep {MARK}\n")
    fake.chmod(0o755)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "cases.json").write_text(json.dumps({"cases": {k: {} for k in ("stage", "a", "b", "c", "d", "e")}}))
    out = tmp_path / "sanitizer.json"
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    try:
        p = subprocess.run(["timeout", "-k", "5", "4", sys.executable, str(HERE / "sanitize.py"), str(bundle),
                            "--json", str(out), "--per-kernel-s", "100", "--budget-s", "100", "--jobs", "2"],
                           capture_output=True, text=True, env=env, timeout=60)
        time.sleep(0.5)
        left = hanging(MARK)
        assert p.returncode == 124, (p.returncode, p.stderr[-1500:])
        assert not left, "sanitizer jobs outlived the stopped script"
        report = json.loads(out.read_text())
        assert report["stopped"] and report["jobs"]["racecheck/stage"]["status"] == "clean"
    finally:
        for pid in hanging(MARK):       # only the stand-in's own sleeps, started by this test
            os.kill(pid, 9)
