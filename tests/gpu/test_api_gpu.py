"""tests/gpu/api_gpu.py's plumbing here, without a GPU: each example's case is routed to the GPU
path (and says there is none), the simulator comes back afterwards for phobos-run --sim, and the
report is written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
import pytest

pytestmark = pytest.mark.gpu

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import api_gpu  # noqa: E402


def test_without_a_gpu_every_case_says_so_and_the_simulator_still_runs(tmp_path):
    out = tmp_path / "api.json"
    p = subprocess.run([sys.executable, str(HERE / "api_gpu.py"), "--json", str(out), "--only", "row_sums,stage"],
                       capture_output=True, text=True, timeout=300)
    report = json.loads(out.read_text())
    if any(r["status"] == "ok" for r in report["api"]):         # a machine with a GPU: nothing to see
        return
    assert [(r["kernel"], r["status"]) for r in report["api"]] == [("row_sums", "no-gpu"), ("stage", "no-gpu")]
    assert report["cli"]["sim_exit"] == 0 and report["cli"]["gpu_exit"] == 2, report["cli"]
    assert p.returncode == 1 and "Traceback" not in p.stderr


def test_the_relative_error_of_an_allclose_message_is_read():
    msg = "\nNot equal to tolerance rtol=1e-05, atol=1e-05\n\nMismatched elements: 3 / 100 (3%)\n" \
          "Max absolute difference among violations: 2.1e-05\nMax relative difference among violations: 4.5e-05\n"
    assert api_gpu._rel_error(msg) == 4.5e-05
    assert api_gpu._rel_error("arrays differ") is None
