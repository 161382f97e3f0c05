"""benchmarks/gemm.py without a GPU: every kernel it times builds (and, with ptxas, runs on tensor
cores where its types allow), and the dry run checks every full-size launch against its manifest
with the runtime's own argument checks."""

from __future__ import annotations

import json
import sys

import pytest

from lowering_tools import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import gemm  # noqa: E402


def test_flops_and_grids():
    assert gemm.flops("gemm_f16", 4096, 4096, 4096) == 2 * 4096 ** 3
    assert gemm.grid("gemm_f16", 4096, 8192) == (8192 // 64, 4096 // 64)
    assert gemm.grid("attention_scores", 64 * 10, 64) == (10,)
    assert gemm.tflops("gemm_f16", 1000, 1000, 1000, 1.0) == pytest.approx(2.0)


@pytest.mark.slow
def test_prepare_and_dry_run(tmp_path):
    meta = gemm.prepare(tmp_path / "bundle", log=lambda *_: None)
    assert set(meta["kernels"]) == set(gemm.KERNELS)
    for name in gemm.KERNELS:
        assert (tmp_path / "bundle" / f"{name}.ptx").exists()
        facts = meta["kernels"][name]["sass"]
        if facts is not None:                      # ptxas and cuobjdump were here
            assert facts["local"] == 0 and facts["spills"] == 0
            dtype = gemm.KERNELS[name][3]
            assert (facts["hmma"] > 0) == (dtype in ("f16", "bf16")) and (facts["imma"] > 0) == (dtype == "i8")
    report = gemm.run(tmp_path / "bundle", tmp_path / "out", dry_run=True, reps=20, warmup=0, quick=False,
                      log=lambda *_: None)
    assert len(report["rows"]) == len(gemm.CASES)
    saved = json.loads((tmp_path / "out" / "gemm.json").read_text())
    assert saved["dry_run"] and "| gemm_f16 | 4096 x 4096 x 4096 |" in (tmp_path / "out" / "gemm.md").read_text()
