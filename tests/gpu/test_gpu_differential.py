"""tests/gpu/gpu_differential.py here: prepare stores kernels the simulator ran, with both input
sets and their results; run classifies each kernel as the fuzzer does (same, inexact, differs),
with the GPU's launch replaced by what a correct or a wrong GPU would leave."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gpu_differential as GD  # noqa: E402


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("gdiff")
    meta = GD.prepare(out, count=3, seed=5, budget_s=120, log=lambda *_: None)
    assert len(meta["cases"]) == 3
    return out


def test_prepare_keeps_ptx_manifest_inputs_and_the_simulators_outputs(bundle):
    meta = json.loads((bundle / "cases.json").read_text())
    for name, case in meta["cases"].items():
        d = bundle / name
        assert ".entry gen(" in gzip.decompress((d / "gen.ptx.gz").read_bytes()).decode()
        assert json.loads((d / "gen.json").read_text())["entry"] == "gen"
        data = np.load(d / "data.npz")
        for a in case["arrays"]:
            assert data[f"in_{a}"].shape == data[f"out_{a}"].shape == data[f"tin_{a}"].shape
        assert set(case["scalars"]) == set(case["params"]) - set(case["arrays"])


def _fake_gpu(monkeypatch, wrong_on: tuple):
    """A GPU that leaves the simulator's results, off by 1 in `C[0]` (integers compare exactly) on
    the input sets named."""
    def launch(rt, d, case, data, prefix, scalars, backend):
        got = {a: np.array(data[f"{prefix}out_{a}"]) for a in case["arrays"]}
        if prefix in wrong_on:
            got["C"][0] += 1
        return got
    monkeypatch.setattr(GD, "_launch", launch)
    monkeypatch.setattr(GD, "load_runtime", lambda: None)


@pytest.mark.parametrize("wrong_on, status, rc", [((), "same", 0), (("",), "inexact", 0), (("", "t"), "differs", 1)])
def test_run_tells_same_inexact_and_differs_apart(bundle, tmp_path, monkeypatch, wrong_on, status, rc):
    _fake_gpu(monkeypatch, wrong_on)
    out = tmp_path / "gpu_diff.json"
    assert GD.run(bundle, out, None, log=lambda *_: None) == rc
    report = json.loads(out.read_text())
    assert [c["status"] for c in report["cases"]] == [status] * 3
    assert report["counts"] == {status: 3}
