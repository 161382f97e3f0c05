"""run_gpu.py on a stand-in for pycuda (tests/gpu/fake_pycuda.py, in a child process): the JSON
report is written after every kernel, and ``--isolate`` goes on in a fresh process after a kernel
that crashes the process, leaves the context unusable (a sticky illegal address), or stalls."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cases import CASES  # noqa: E402

MANIFESTS = {
    "lanes_matvec": {"block": 128, "params": [("W", ["N", "K"]), ("x", [1, "K"]), ("y", [1, "N"])],
                     "extents": ["N", "K"], "aligned": {"K": 128}},
    "stage": {"block": 128, "params": [("A", [1, 128]), ("O", [1, 128])], "extents": [], "aligned": {}},
    "row_sums": {"block": 256, "params": [("A", ["M", "N"]), ("out", ["M"])], "extents": ["M", "N"], "aligned": {}},
}


@pytest.fixture
def bundle(tmp_path):
    b = tmp_path / "bundle"
    b.mkdir()
    meta = {"arch": "sm_90", "cases": {}}
    for seed, (name, m) in enumerate(MANIFESTS.items()):
        manifest = {"version": 1, "entry": name, "target": "sm_90", "ptx_version": "8.6", "block": m["block"],
                    "dynamic_shared_bytes": 0, "extents": m["extents"], "aligned": m["aligned"], "resources": None,
                    "params": [{"name": n, "kind": "tensor", "dtype": "f32", "shape": s} for n, s in m["params"]]}
        (b / f"{name}.json").write_text(json.dumps(manifest))
        (b / f"{name}.ptx").write_text(f".version 8.6\n.target sm_90\n.visible .entry {name}(\n)\n{{\nret;\n}}\n")
        args, grid, outputs, tol = CASES[name]
        meta["cases"][name] = {"args": args, "grid": list(grid), "outputs": outputs, "tolerance": tol, "seed": seed}
    (b / "cases.json").write_text(json.dumps(meta))
    # a `pycuda` package that is the stand-in, for the child processes
    pkg = tmp_path / "site" / "pycuda"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("VERSION_TEXT = 'fake'\n")
    (pkg / "driver.py").write_text(f"import sys\nsys.path.insert(0, {str(HERE)!r})\nfrom fake_pycuda import *  # noqa\n"
                                   "from fake_pycuda import _STACK  # noqa\n")
    return b


def run(bundle, *flags, **env):
    e = dict(os.environ, PYTHONPATH=str(bundle.parent / "site"), **env)
    e.pop("PHOBOS_GPU_BACKEND", None)
    out = bundle.parent / "correctness.json"
    p = subprocess.run([sys.executable, str(HERE / "run_gpu.py"), str(bundle), "--backend", "pycuda", "--json",
                        str(out), *flags], capture_output=True, text=True, env=e, timeout=120)
    report = json.loads(out.read_text()) if out.exists() else None
    return p, report


def statuses(report):
    return {k["kernel"]: k["status"] for k in report["kernels"]}


def test_every_kernel_runs_on_the_stand_in(bundle):
    p, report = run(bundle)
    # stage is not computed by the stand-in: its poisoned output stays NaN, so it fails
    assert statuses(report) == {"lanes_matvec": "ok", "stage": "fail", "row_sums": "ok"}, p.stdout + p.stderr
    assert p.returncode == 1


def test_without_isolation_a_crash_loses_what_follows_but_not_what_went_before(bundle):
    p, report = run(bundle, FAKE_PYCUDA_CRASH="stage")
    assert p.returncode == 139
    assert statuses(report) == {"lanes_matvec": "ok"}          # written before the crash


@pytest.mark.parametrize("env,why", [({"FAKE_PYCUDA_CRASH": "stage"}, "ended with status 139"),
                                     ({"FAKE_PYCUDA_FAULT": "stage"}, "illegal memory access"),
                                     ({"FAKE_PYCUDA_HANG": "stage"}, "no result within 5 s")])
def test_isolation_costs_the_bad_kernel_only(bundle, env, why):
    # (5 s: enough for a child to start and run a kernel on a loaded machine)
    p, report = run(bundle, "--isolate", "--per-kernel-s", "5", **env)
    assert statuses(report) == {"lanes_matvec": "ok", "stage": "error", "row_sums": "ok"}, p.stdout + p.stderr
    bad = next(k for k in report["kernels"] if k["kernel"] == "stage")
    assert why in bad["error"]
    assert p.returncode == 1 and "Traceback" not in p.stderr


def test_a_sticky_fault_without_isolation_fails_every_kernel_after_it(bundle):
    p, report = run(bundle, FAKE_PYCUDA_FAULT="stage")
    assert statuses(report) == {"lanes_matvec": "ok", "stage": "error", "row_sums": "error"}


def test_stopping_the_supervisor_stops_its_child_and_keeps_the_report(bundle):
    # the device script's timeout(1) sends SIGTERM; the child runs in a session of its own, so it
    # must be ended by hand. The signal goes once the child has reported its first kernel (its
    # part file, in the temporary folder, named after the supervisor), however loaded the machine.
    e = dict(os.environ, PYTHONPATH=str(bundle.parent / "site"), FAKE_PYCUDA_HANG="stage")
    out = bundle.parent / "correctness.json"
    p = subprocess.Popen([sys.executable, str(HERE / "run_gpu.py"), str(bundle), "--backend", "pycuda",
                          "--json", str(out), "--isolate", "--per-kernel-s", "60"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=e)
    part = Path(tempfile.gettempdir()) / f"run_gpu.part{p.pid}.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and '"lanes_matvec"' not in (part.read_text() if part.exists() else ""):
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + signal.SIGTERM, (p.returncode, err)
    report = json.loads(out.read_text())
    assert report["stopped"] and statuses(report) == {"lanes_matvec": "ok"}
    left = subprocess.run(["pgrep", "-f", f"run_gpu.py {bundle}"], capture_output=True, text=True).stdout.split()
    assert not left
