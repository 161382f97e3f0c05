"""The GPU bench of issue 9 without a GPU: the bundle it prepares, its dry run, its arithmetic,
its real code path against a numpy stand-in for cupy, the RESULTS.md rows, and the device
script's dry run. The same run on a real GPU (a small one) only where cupy sees a device."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "benchmarks"))

import gpu_bench  # noqa: E402


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu-bundle")
    gpu_bench.prepare(out, wheels=None, static=False, log=lambda *_: None, diff_count=0)
    return out


def test_bundle_holds_the_examples_the_bench_kernels_and_the_variants(bundle):
    cases = json.loads((bundle / "cases.json").read_text())["cases"]
    meta = json.loads((bundle / "bench.json").read_text())
    assert len(cases) >= 15 and {"lanes_matvec", "row_sums", "row_softmax"} <= set(cases)
    assert set(meta["kernels"]) == set(gpu_bench.EXAMPLES) | set(gpu_bench.VARIANTS)
    assert len(gpu_bench.VARIANTS) >= 8
    for name, e in meta["kernels"].items():
        ptx = (bundle / e["dir"] / f"{name}.ptx").read_text()
        manifest = json.loads((bundle / e["dir"] / f"{name}.json").read_text())
        assert manifest["entry"] == e["entry"] and f".entry {e['entry']}(" in ptx
        assert manifest["block"] == e["block"]
    knobs = {k: {v["defines"].get(k) for v in meta["kernels"].values()} for k in ("RPW", "VEC", "UNROLL", "MINB")}
    assert all(len(vals - {None}) >= 2 for vals in knobs.values()), knobs     # each knob takes several values
    # rows per CTA: a warp per RPW rows, a CTA per row for matvec_cta
    assert meta["kernels"]["lanes_matvec"]["rows_per_cta"] == 4
    assert meta["kernels"]["warp_r2_v4_u2_m8"]["rows_per_cta"] == 8
    assert meta["kernels"]["cta_b512_u4_m2"]["rows_per_cta"] == 1 and meta["kernels"]["cta_b512_u4_m2"]["block"] == 512
    # the unroll factor is a name bound by -D: 8 x 2 loads of W stay in flight
    ptx = (bundle / "bench" / "warp_r1_v4_u8_m4.ptx").read_text()
    assert ".minnctapersm 4" in ptx and ptx.count("ld.global.nc.v4") >= 16


def test_the_byte_counts_and_the_rates():
    assert gpu_bench.min_bytes("matvec", (16384, 16384)) == 4 * (16384 * 16384 + 2 * 16384)
    assert gpu_bench.min_bytes("row_sums", (4, 10)) == 4 * (40 + 4)
    assert gpu_bench.min_bytes("row_softmax", (4, 10)) == 8 * 40
    assert gpu_bench.min_bytes("copy", (1, 1 << 28)) == 2 << 30
    # 1 GiB + 2 x 64 KiB in 0.25 ms: 4295.49 GB/s
    assert gpu_bench.gbps(gpu_bench.min_bytes("matvec", (16384, 16384)), 0.25) == pytest.approx(4295.49, abs=0.01)
    r = gpu_bench.rate_fields(4_000_000_000, 1.0, copy_gbps=5000.0, ref_ms=1.25)
    assert r["gbps"] == pytest.approx(4000.0) and r["pct_copy"] == pytest.approx(80.0)
    assert r["vs_cupy"] == pytest.approx(1.25)
    t = gpu_bench.summarize([3.0, 1.0, 2.0, 100.0, 2.5])
    assert t["ms"] == 2.5 and t["ms_min"] == 1.0 and t["reps"] == 5
    assert gpu_bench.max_rel_error(np.array([1.0, 2.0]), np.array([1.0, 4.0])) == pytest.approx(0.5)
    assert np.isnan(gpu_bench.max_rel_error(np.array([np.nan, 2.0]), np.array([1.0, 2.0])))
    assert gpu_bench.grid_for({"rows_per_cta": 4}, 4097) == (1025,)
    # sm_90 occupancy: 36 registers -> 12 CTAs of 4 warps; 79 registers -> one CTA of 16 warps
    assert gpu_bench.occupancy(36, 128) == 48 and gpu_bench.occupancy(79, 512) == 16
    assert gpu_bench.occupancy(20, 128) == 64


def test_dry_run(bundle, tmp_path):
    report = gpu_bench.run(bundle, tmp_path, dry_run=True, warmup=1, reps=50, seed=1)
    assert report["ok"] and (tmp_path / "bench.json").is_file() and (tmp_path / "bench.md").is_file()
    assert report["copy_gbps"] == pytest.approx(gpu_bench.FakeGpu.FAKE_COPY_GBPS)
    n_shapes = sum(len(v) for v in gpu_bench.SHAPES.values())
    n_kernels = len(gpu_bench.SHAPES["matvec"]) * (1 + len(gpu_bench.VARIANTS)) + 2 + 2
    assert report["launches_checked"] == n_kernels       # every full-size launch passed the runtime's checks
    ours = [r for r in report["results"] if r["kind"] in ("phobos", "variant")]
    assert len(ours) == n_kernels and len({(r["op"], tuple(r["shape"])) for r in ours}) == n_shapes
    for r in ours:    # made-up timings: ours at 80% of the copy rate, cupy at 90%
        assert r["gbps"] == pytest.approx(0.8 * gpu_bench.FakeGpu.FAKE_COPY_GBPS)
        assert r["pct_copy"] == pytest.approx(80.0) and r["vs_cupy"] == pytest.approx(0.8 / 0.9)
    sim = report["sim_check"]
    assert len(sim) == len(gpu_bench.EXAMPLES) + len(gpu_bench.VARIANTS) and all(s["ok"] for s in sim)
    with pytest.raises(SystemExit, match="dry run"):
        gpu_bench.main(["results-row", str(tmp_path / "bench.json"), "--results", str(tmp_path / "R.md")])


@pytest.fixture
def fake_cupy():
    import fake_cupy
    fake_cupy.install()
    yield fake_cupy
    fake_cupy.uninstall()


def test_the_real_code_path_on_a_numpy_stand_in_for_cupy(bundle, tmp_path, fake_cupy):
    report = gpu_bench.run(bundle, tmp_path, dry_run=False, warmup=1, reps=50, seed=7, quick=True)
    bad = [(r["impl"], r["shape"], r.get("error"), r.get("max_rel_error"))
           for r in report["results"] if not r.get("ok")]
    assert report["ok"], bad
    grids = {(e, g[0]) for e, g, _b in fake_cupy.launches}
    assert ("lanes_matvec", 16) in grids and ("matvec_warp", 8) in grids and ("matvec_cta", 64) in grids
    assert report["device"]["name"] == "Fake H200 (numpy)"
    # and its rows for RESULTS.md, twice: the earlier rows stay, the "no row yet" note goes
    results = tmp_path / "RESULTS.md"
    shutil.copyfile(REPO / "benchmarks" / "RESULTS.md", results)
    before = results.read_text().count("| cta_b256_u4_m4 |")
    report["quick"] = False                      # results-row refuses --quick runs
    (tmp_path / "bench.json").write_text(json.dumps(report))
    for _ in range(2):
        assert gpu_bench.main(["results-row", str(tmp_path / "bench.json"), "--results", str(results)]) == 0
    text = results.read_text()
    assert "_No row yet" not in text and "## Before the GPU" in text
    rows = [line for line in text.splitlines() if "| lanes_matvec | 64x4096 |" in line]
    assert len(rows) == 2
    runs = text.index("## Runs")
    assert runs < text.index(rows[0]) < text.index(gpu_bench.ROW_MARKER) < text.index("## Matvec variants")
    assert text.count("| cta_b256_u4_m4 |") - before == 2 * len(gpu_bench.QUICK_SHAPES["matvec"])


def test_run_gpu_poisons_outputs_and_checks_arguments_without_a_gpu(bundle):
    from run_gpu import poison, run_bundle
    a = np.zeros(4, np.float32)
    poison({"init": "zeros", "dtype": "f32"}, a)
    assert np.isnan(a).all()
    i = np.zeros(4, np.int32)
    poison({"init": "zeros", "dtype": "i32"}, i)
    assert (i != 0).all()
    kept = np.array([-5, 5], np.int32)
    poison({"init": "value:-5,5", "dtype": "i32"}, kept)      # an initial value the kernel reads: kept
    assert kept.tolist() == [-5, 5]
    rows = run_bundle(bundle, only={"lanes_matvec", "row_sums", "stage"}, fresh=True, dry_run=True)
    assert [r[0] for r in rows] == ["lanes_matvec", "row_sums", "stage"]
    assert all(r[3].startswith("dry run") for r in rows)


def test_device_script_dry_run(bundle, tmp_path):
    env = dict(os.environ, DRY_RUN="1", OUT=str(tmp_path / "out"), BUNDLE=str(bundle), PYTHON=sys.executable)
    p = subprocess.run(["bash", str(HERE / "device_run.sh")], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    out = tmp_path / "out"
    for name in ("log.txt", "env.txt", "correctness.json", "bench.json"):
        assert (out / name).is_file(), name
    assert len(list(out.iterdir())) <= 8                      # what the device tool brings back
    assert "| op | shape | impl |" in (out / "log.txt").read_text()     # bench.md's table, in the log
    assert "compute-sanitizer --tool racecheck" in p.stdout and "=== summary" in p.stdout
    assert json.loads((out / "correctness.json").read_text())["dry_run"] is True


def _cupy_device_reason() -> str | None:
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() == 0:
            return "no CUDA device"
    except ImportError:
        return "cupy is not installed"
    except Exception as e:  # noqa: BLE001 - no driver: the reason is the message
        return f"no usable GPU: {e}"
    return None


def test_bench_quick_on_the_gpu(bundle, tmp_path):
    reason = _cupy_device_reason()
    if reason is not None:
        pytest.skip(f"GPU run skipped: {reason}")
    report = gpu_bench.run(bundle, tmp_path, dry_run=False, warmup=2, reps=50, seed=None, quick=True)
    assert report["ok"], [r for r in report["results"] if not r.get("ok")]


FAKE_SANITIZER = """#!/bin/bash
# a stand-in for compute-sanitizer: clean, except a racecheck hazard on row_scan and
# "Device not supported" when FAKE_UNSUPPORTED is set
[ -n "${FAKE_UNSUPPORTED:-}" ] && { echo "========= Error: Device not supported"; exit 1; }
case "$*" in *racecheck*row_scan*) echo "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)"
                                   exit 9;; esac
case "$*" in *racecheck*) echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)";;
             *) echo "========= ERROR SUMMARY: 0 errors";; esac
"""


def test_sanitizer_driver_with_a_stand_in(bundle, tmp_path):
    tool = tmp_path / "bin" / "compute-sanitizer"
    tool.parent.mkdir()
    tool.write_text(FAKE_SANITIZER)
    tool.chmod(0o755)
    env = dict(os.environ, PATH=f"{tool.parent}{os.pathsep}{os.environ['PATH']}")
    cmd = [sys.executable, str(HERE / "sanitize.py"), str(bundle), "--only", "stage,row_scan,row_sums",
           "--json", str(tmp_path / "s.json")]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    report = json.loads((tmp_path / "s.json").read_text())
    assert p.returncode == 1, p.stdout                      # a hazard fails the step
    assert report["jobs"]["racecheck/row_scan"]["status"] == "hazard"
    assert [j["status"] for k, j in report["jobs"].items() if k != "racecheck/row_scan"] == ["clean"] * 5
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(env, FAKE_UNSUPPORTED="1"), timeout=60)
    assert p.returncode == 0 and "Device not supported" in json.loads((tmp_path / "s.json").read_text())["skipped"]


def test_a_bench_stopped_midway_leaves_what_it_measured(bundle, tmp_path, fake_cupy, monkeypatch):
    # the device script's step timeout stops the bench with SIGTERM: bench.json was written only
    # at the very end, so everything measured before was lost
    real_op = gpu_bench.Bench.op
    seen = []

    def op(self, name, shape):
        seen.append(name)
        if len(seen) == 2:
            raise KeyboardInterrupt        # stands in for the signal
        return real_op(self, name, shape)
    monkeypatch.setattr(gpu_bench.Bench, "op", op)
    with pytest.raises(KeyboardInterrupt):
        gpu_bench.run(bundle, tmp_path, dry_run=False, warmup=1, reps=50, seed=7, quick=True)
    report = json.loads((tmp_path / "bench.json").read_text())
    assert not report["complete"] and not report["ok"] and report["steps_done"] == 2
    assert {r["op"] for r in report["results"]} == {"copy", "matvec"} and report["copy_gbps"] > 0


def test_a_bench_that_cannot_start_still_writes_its_report(bundle, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)          # no cupy on the machine
    report = gpu_bench.run(bundle, tmp_path, dry_run=False, warmup=1, reps=50, seed=7)
    written = json.loads((tmp_path / "bench.json").read_text())
    assert not report["ok"] and written["errors"][0].startswith("setup: ModuleNotFoundError")
    assert "setup: ModuleNotFoundError" in (tmp_path / "bench.md").read_text()
    rows, variants = gpu_bench.results_rows(written)
    assert len(rows) == 1 and not variants                # the copy row says "-"


def test_a_run_gives_one_example_row_per_kernel_with_its_checks():
    report = {"date": "2026-11-29 23:50 UTC", "device": {"name": "NVIDIA H200"}}
    correctness = {"kernels": [{"kernel": "stage", "max_rel_error": 0.0, "tolerance": 0.0, "status": "ok"},
                               {"kernel": "gelu", "max_rel_error": 1.9e-4, "tolerance": 2e-3, "status": "ok"}]}
    sanitizer = {"jobs": {"racecheck/gelu": {"status": "clean"}, "synccheck/gelu": {"status": "hazards"}}}
    api = {"api": [{"kernel": "gelu", "status": "ok"}]}
    rows = gpu_bench.example_rows(report, correctness, sanitizer, api)
    assert rows == ["| 2026-11-29 23:50 | NVIDIA H200 | gelu | 1.9e-04 | 2e-03 | ok | clean | hazards | ok |",
                    "| 2026-11-29 23:50 | NVIDIA H200 | stage | 0.0e+00 | 0e+00 | ok | - | - | - |"]
    assert gpu_bench.example_rows(report, None, sanitizer, api) == []
