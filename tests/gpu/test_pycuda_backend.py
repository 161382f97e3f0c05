"""The runtime's pycuda backend against a stand-in that keeps pycuda's real API surface
(tests/gpu/fake_pycuda.py): the JIT options pycuda has, how it packs kernel arguments, its
context stack (which aborts the process at exit when a context is left on it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import fake_pycuda  # noqa: E402

from phobos_tools.lowering import runtime as rt  # noqa: E402

MATVEC = {"version": 1, "entry": "lanes_matvec", "target": "sm_90", "ptx_version": "8.6", "block": 128,
          "dynamic_shared_bytes": 0,
          "params": [{"name": "W", "kind": "tensor", "dtype": "f32", "shape": ["N", "K"]},
                     {"name": "x", "kind": "tensor", "dtype": "f32", "shape": [1, "K"]},
                     {"name": "y", "kind": "tensor", "dtype": "f32", "shape": [1, "N"]}],
          "extents": ["N", "K"], "aligned": {"K": 128}, "resources": None}


def ptx_for(entry):
    return f".version 8.6\n.target sm_90\n.address_size 64\n.visible .entry {entry}(\n)\n{{\nret;\n}}\n"


@pytest.fixture
def pycuda():
    fake = fake_pycuda.install()
    yield fake
    rt._release_pycuda_contexts()
    fake_pycuda.uninstall()


def test_lanes_matvec_runs_through_the_pycuda_backend(pycuda):
    rng = np.random.default_rng(0)
    W = rng.standard_normal((8, 256), dtype=np.float32)
    x = rng.standard_normal((1, 256), dtype=np.float32)
    y = np.full((1, 8), np.nan, np.float32)
    rt.Kernel(ptx_for("lanes_matvec"), MATVEC, backend="pycuda")(W, x, y, grid=(2,))
    np.testing.assert_allclose(y[0], W @ x[0], rtol=1e-5)
    entry, fmt, _packed, grid, block, shared = pycuda.launches[-1]
    ptr = np.dtype(np.uint64).char                        # 'L' on Linux: 8 bytes, as pycuda packs it
    assert (entry, fmt, grid, block, shared) == ("lanes_matvec", ptr * 3 + "ii", (2, 1, 1), (128, 1, 1), 0)


@pytest.mark.parametrize("dtype,value,bits", [("f16", 1.5, np.float16(1.5).view(np.uint16)),
                                              ("bf16", 1.5, 0x3FC0)])
def test_half_precision_scalars_pack_as_their_16_bits(pycuda, dtype, value, bits):
    # pycuda's struct packer has no 'e' (float16) and a bf16 scalar is not an np.number
    m = dict(MATVEC, entry="scale", params=[{"name": "X", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
                                            {"name": "s", "kind": "scalar", "dtype": dtype}], extents=["N"],
             aligned={})
    rt.Kernel(ptx_for("scale"), m, backend="pycuda")(np.zeros(4, np.float32), value, grid=1)
    _entry, fmt, packed, *_ = pycuda.launches[-1]
    assert fmt == np.dtype(np.uint64).char + "Hi" and int.from_bytes(packed[8:10], "little") == int(bits)


def test_bf16_and_bool_tensors_make_the_round_trip(pycuda):
    import ml_dtypes
    m = dict(MATVEC, entry="touch", params=[{"name": "A", "kind": "tensor", "dtype": "bf16", "shape": ["N"]},
                                            {"name": "B", "kind": "tensor", "dtype": "bool", "shape": ["N"]}],
             extents=["N"], aligned={})
    A = np.arange(4).astype(ml_dtypes.bfloat16)
    B = np.array([True, False, True, True])
    rt.Kernel(ptx_for("touch"), m, backend="pycuda")(A, B, grid=1)
    assert A.astype(np.float32).tolist() == [0, 1, 2, 3] and B.tolist() == [True, False, True, True]


def test_dynamic_shared_memory_beyond_48_kb_is_opted_in(pycuda):
    m = dict(MATVEC, dynamic_shared_bytes=100 * 1024)
    W, x, y = np.zeros((8, 256), np.float32), np.zeros((1, 256), np.float32), np.zeros((1, 8), np.float32)
    rt.Kernel(ptx_for("lanes_matvec"), m, backend="pycuda")(W, x, y, grid=2)
    assert pycuda.launches[-1][5] == 100 * 1024


def test_the_pushed_context_is_popped_before_pycuda_cleans_up():
    # pycuda aborts the interpreter at exit when a context it pushed is still current; the
    # correctness harness and every compute-sanitizer job would end with status 134
    code = ("import sys, numpy as np\n"
            f"sys.path.insert(0, {str(HERE)!r})\n"
            "import fake_pycuda; fake_pycuda.install(exit_check=True)\n"
            f"sys.path.insert(0, {str(HERE)!r})\n"
            "from run_gpu import load_runtime; rt = load_runtime()\n"
            f"m = {MATVEC!r}\n"
            f"k = rt.Kernel({ptx_for('lanes_matvec')!r}, m, backend='pycuda')\n"
            "y = np.zeros((1, 8), np.float32)\n"
            "k(np.ones((8, 128), np.float32), np.ones((1, 128), np.float32), y, grid=2)\n"
            "assert (y == 128).all(), y\n"
            "print('ran')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ran", (out.returncode, out.stderr[-2000:])


def test_a_read_only_array_is_refused_before_the_launch(pycuda):
    W, x, y = np.zeros((8, 256), np.float32), np.zeros((1, 256), np.float32), np.zeros((1, 8), np.float32)
    W.setflags(write=False)
    with pytest.raises(rt.LaunchError, match="`W` is read-only"):
        rt.Kernel(ptx_for("lanes_matvec"), MATVEC, backend="pycuda")(W, x, y, grid=2)
    assert not pycuda.launches


@pytest.fixture(scope="module")
def correctness_bundle(tmp_path_factory):
    from prepare import prepare
    out = tmp_path_factory.mktemp("gpu-bundle")
    prepare(out)
    return out


def test_every_example_packs_its_arguments_as_pycuda_takes_them(correctness_bundle, pycuda):
    # every real manifest (f16, bf16, bool, i8, u8 tensors; i32 and f32 scalars) through
    # pycuda's argument packing; the stand-in computes only the matvec and the row sums
    from run_gpu import run_bundle
    rows = run_bundle(correctness_bundle, "pycuda", fresh=True)
    assert len(rows) >= 25 and not [r for r in rows if r[3].startswith("ERROR")], rows
    ok = {r[0] for r in rows if r[3].startswith("ok")}
    assert {"lanes_matvec", "row_sums"} <= ok
    assert {e for e, *_ in pycuda.launches} == {r[0] for r in rows}


def test_every_example_runs_through_the_cupy_fallback_too(correctness_bundle):
    # the harness falls back to cupy when pycuda does not work on the GPU machine
    import fake_cupy
    fake_cupy.install()
    try:
        from run_gpu import run_bundle
        rows = run_bundle(correctness_bundle, "cupy", fresh=True)
    finally:
        fake_cupy.uninstall()
    assert len(rows) >= 25 and not [r for r in rows if r[3].startswith("ERROR")], rows
    assert {"lanes_matvec", "row_sums", "row_softmax"} <= {r[0] for r in rows if r[3].startswith("ok")}


def _stand_in_cuda_core(monkeypatch, bindings: bool = True):
    """A cuda.core that loads any PTX (its launches are not needed here), with cuda.bindings (the
    driver API its backend copies numpy arguments with) or without."""
    import types
    core = types.ModuleType("cuda.core")

    class Device:
        def set_current(self):
            pass

    class ObjectCode:
        @staticmethod
        def from_ptx(module):
            return types.SimpleNamespace(get_kernel=lambda entry: entry)
    core.Device, core.ObjectCode, core.LaunchConfig, core.launch = Device, ObjectCode, object, None
    cuda = types.ModuleType("cuda")
    cuda.core = core
    monkeypatch.setitem(sys.modules, "cuda", cuda)
    monkeypatch.setitem(sys.modules, "cuda.core", core)
    if bindings:
        cuda.bindings = types.ModuleType("cuda.bindings")
        cuda.bindings.driver = types.ModuleType("cuda.bindings.driver")
        monkeypatch.setitem(sys.modules, "cuda.bindings", cuda.bindings)
        monkeypatch.setitem(sys.modules, "cuda.bindings.driver", cuda.bindings.driver)
    else:
        monkeypatch.setitem(sys.modules, "cuda.bindings", None)
        monkeypatch.setitem(sys.modules, "cuda.bindings.driver", None)


def test_without_pycuda_cuda_core_comes_before_cupy(monkeypatch):
    # pycuda has no binary wheel: cuda.core (binary wheels, with cuda.bindings for the copies of
    # numpy arguments) is the first-class backend next to it, cupy the last resort (issue 22)
    import fake_cupy
    monkeypatch.delenv("PHOBOS_GPU_BACKEND", raising=False)
    monkeypatch.setitem(sys.modules, "pycuda", None)
    monkeypatch.setitem(sys.modules, "pycuda.driver", None)
    fake_cupy.install()
    try:
        _stand_in_cuda_core(monkeypatch)
        assert rt.Kernel(ptx_for("lanes_matvec"), MATVEC)._load_backend().name == "cuda.core"
        # a cuda.core without cuda.bindings cannot copy numpy arguments: cupy takes over
        _stand_in_cuda_core(monkeypatch, bindings=False)
        assert rt.Kernel(ptx_for("lanes_matvec"), MATVEC)._load_backend().name == "cupy"
    finally:
        fake_cupy.uninstall()


def test_a_backend_limit_is_a_skip_not_an_error(correctness_bundle, pycuda, monkeypatch):
    # the cuda.core backend cannot opt in past 48 KB of dynamic shared memory (block_transpose
    # needs 64 KB): that kernel is skipped with the reason, and the run still passes
    from run_gpu import run_bundle
    call = rt.Kernel.__call__

    def limited(self, *args, **kwargs):
        if self.dynamic_shared > 48 * 1024:
            raise rt.BackendLimit("the cuda.core backend cannot opt in to more than 48 KB of dynamic shared memory")
        return call(self, *args, **kwargs)
    monkeypatch.setattr(rt.Kernel, "__call__", limited)
    records: list = []
    rows = run_bundle(correctness_bundle, "pycuda", records=records)
    skipped = {r[0]: r[3] for r in rows if r[3].startswith("SKIPPED")}
    assert list(skipped) == ["block_transpose"] and "48 KB" in skipped["block_transpose"]
    assert next(r for r in records if r["kernel"] == "block_transpose")["status"] == "unsupported"
    assert not [r for r in rows if r[3].startswith("ERROR")]


def test_cupy_launches_are_queued_and_wait_only_to_copy_numpy_arguments_back():
    # issue 22: every launch used to end in deviceSynchronize, so kernels could not be queued
    import fake_cupy
    cp = fake_cupy.install()
    try:
        k = rt.Kernel(ptx_for("lanes_matvec"), MATVEC, backend="cupy")
        rng = np.random.default_rng(2)
        W = rng.standard_normal((8, 256), dtype=np.float32)
        x = rng.standard_normal((1, 256), dtype=np.float32)
        stream = cp.cuda.get_current_stream()
        before = stream.syncs
        y = cp.asarray(np.zeros((1, 8), np.float32))
        k(cp.asarray(W), cp.asarray(x), y, grid=(2,))            # device arrays: nothing waited for
        assert stream.syncs == before
        np.testing.assert_allclose(np.asarray(y)[0], W @ x[0], rtol=1e-5)
        y_host = np.zeros((1, 8), np.float32)
        k(W, x, y_host, grid=(2,))                                 # numpy: one wait, to copy back
        assert stream.syncs == before + 1
        np.testing.assert_allclose(y_host[0], W @ x[0], rtol=1e-5)
    finally:
        fake_cupy.uninstall()
