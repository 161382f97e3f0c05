"""The GPU harness under pytest: prepare the bundle (always; it needs no GPU), then run it and
require every kernel within tolerance (only where a GPU and a backend are present)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

HERE = Path(__file__).resolve().parent


def _gpu_reason() -> str | None:
    try:
        import pycuda.driver as cuda
        cuda.init()
        if cuda.Device.count() == 0:
            return "no CUDA device"
    except ImportError:
        return "pycuda is not installed (pip install -e '.[gpu]')"
    except Exception as e:  # noqa: BLE001 - no driver: the reason is the message
        return f"no usable GPU: {e}"
    return None


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    sys.path.insert(0, str(HERE))
    from prepare import prepare
    out = tmp_path_factory.mktemp("gpu-bundle")
    prepare(out)
    return out


def test_prepare_writes_a_small_bundle(bundle):
    meta = json.loads((bundle / "cases.json").read_text())
    assert len(meta["cases"]) >= 15
    for name in meta["cases"]:
        assert (bundle / f"{name}.ptx").is_file() and (bundle / f"{name}.json").is_file()
    assert sum(f.stat().st_size for f in bundle.iterdir()) < 4 * 1024 * 1024


def test_references_run_on_generated_inputs():
    sys.path.insert(0, str(HERE))
    import numpy as np
    from cases import CASES, REFERENCES, generate
    for name, (args, _grid, outputs, _tol) in CASES.items():
        rng = np.random.default_rng(0)
        named = {spec["name"]: generate(spec, rng) for spec in args}
        ref = REFERENCES[name](named)
        for o in outputs:
            assert np.asarray(ref[o]).size == np.asarray(named[o]).size, (name, o)


def test_kernels_on_the_gpu(bundle):
    reason = _gpu_reason()
    if reason is not None:
        pytest.skip(f"GPU run skipped: {reason}")
    from run_gpu import print_table, run_bundle
    rows = run_bundle(bundle)
    print_table(rows)
    bad = [r for r in rows if not r[3].startswith("ok")]
    assert not bad, bad
