"""The GPU runtime without a GPU: it imports without the analyzer or llvmlite, and it checks
arguments against the manifest (dtypes, ranks, extents, contiguity, alignment, @aligned
promises) before any launch; the build cache compiles once."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from lowering_tools import REPO

from phobos_tools.lowering.runtime import Kernel, LaunchError

MANIFEST = {"version": 1, "entry": "lanes_matvec", "target": "sm_90", "ptx_version": "8.6", "block": 128,
            "dynamic_shared_bytes": 0,
            "params": [{"name": "W", "kind": "tensor", "dtype": "f32", "shape": ["N", "K"]},
                       {"name": "x", "kind": "tensor", "dtype": "f32", "shape": [1, "K"]},
                       {"name": "y", "kind": "tensor", "dtype": "f32", "shape": [1, "N"]},
                       {"name": "s", "kind": "scalar", "dtype": "f32"}],
            "extents": ["N", "K"], "aligned": {"K": 128}, "resources": None}


def kernel():
    return Kernel("// no ptx needed to validate", MANIFEST)


def arrays(n=8, k=256):
    return np.zeros((n, k), np.float32), np.zeros((1, k), np.float32), np.zeros((1, n), np.float32)


def test_runtime_imports_without_the_analyzer_and_llvmlite():
    # a machine with numpy and the runtime only: the heavy modules cannot be imported at all
    code = ("import sys\n"
            "for m in ('llvmlite', 'lark', 'z3', 'networkx'):\n    sys.modules[m] = None\n"
            "from phobos_tools.lowering import runtime as rt\n"
            "loaded = sorted(m for m in sys.modules if m.startswith('phobos_tools.'))\n"
            "assert loaded == ['phobos_tools.language', 'phobos_tools.language.arguments', 'phobos_tools.language.dlpack',\n"
            "                  'phobos_tools.language.records', 'phobos_tools.language.types', 'phobos_tools.lowering',\n"
            "                  'phobos_tools.lowering.runtime'], loaded\n"
            "print(rt.Kernel.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "Kernel", out.stderr


def test_extents_come_from_the_shapes():
    p = kernel().prepare(*arrays(), 2.0)
    assert p.extents == {"N": 8, "K": 256}
    assert p.scalars[3] == np.float32(2.0) and p.scalars[3].dtype == np.float32


def test_keywords():
    W, x, y = arrays()
    assert kernel().prepare(W, x=x, y=y, s=1).extents == {"N": 8, "K": 256}


@pytest.mark.parametrize("change,message", [
    (lambda a: (a[0].astype(np.float64), a[1], a[2]), "must hold float32, not float64"),
    (lambda a: (a[0], a[1].reshape(-1), a[2]), "rank 2"),
    (lambda a: (a[0], np.zeros((2, 256), np.float32), a[2]), "axis 0 must have extent 1, not 2"),
    (lambda a: (a[0], np.zeros((1, 384), np.float32), a[2]), "extent `K` is 256"),
    (lambda a: (np.zeros((8, 100), np.float32), np.zeros((1, 100), np.float32), a[2]), "@aligned(K = 128)"),
    (lambda a: (np.asfortranarray(np.zeros((8, 256), np.float32)), a[1], a[2]), "not C-contiguous"),
    (lambda a: (a[0][:, ::2], a[1], a[2]), ""),
    (lambda a: ([[0.0]], a[1], a[2]), "numpy array"),
])
def test_bad_arguments_are_refused_before_launch(change, message):
    with pytest.raises(LaunchError) as e:
        kernel().prepare(*change(arrays()), 1.0)
    assert message in str(e.value)


def test_device_arrays_are_checked_for_alignment():
    class Dev:
        def __init__(self, shape, ptr, strides=None):
            self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (ptr, False),
                                             "strides": strides, "version": 3}
    W, x, y = Dev((8, 256), 0x10000), Dev((1, 256), 0x20000), Dev((1, 8), 0x30008)    # 8 KiB, 1 KiB, 32 B apart
    with pytest.raises(LaunchError, match="16-byte aligned"):
        kernel().prepare(W, x, y, 1.0)
    y = Dev((1, 8), 0x30010)
    assert kernel().prepare(W, x, y, 1.0).extents == {"N": 8, "K": 256}
    with pytest.raises(LaunchError, match="C-contiguous"):
        kernel().prepare(Dev((8, 256), 0x10000, strides=(4, 32)), x, y, 1.0)


def test_scalar_range_and_grid():
    m = dict(MANIFEST, params=MANIFEST["params"][:3] + [{"name": "s", "kind": "scalar", "dtype": "i8"}])
    with pytest.raises(LaunchError, match="does not fit in i8"):
        Kernel("", m).prepare(*arrays(), 300)
    with pytest.raises(LaunchError, match="grid"):
        kernel()(*arrays(), 1.0, grid=(0,))


def test_no_backend_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)
    monkeypatch.setitem(sys.modules, "pycuda.driver", None)
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setitem(sys.modules, "cuda", None)
    with pytest.raises(LaunchError, match="no GPU backend could load the kernel"):
        kernel()(*arrays(), 1.0, grid=(2,))


def test_build_cache_compiles_once(tmp_path, monkeypatch):
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    from phobos_tools.lowering import cache as build_mod
    from phobos_tools.lowering.cache import build_cached, load_kernel
    calls = []
    real = build_mod.build_source

    def counting(*a, **kw):
        calls.append(1)
        return real(*a, **kw)
    monkeypatch.setattr(build_mod, "build_source", counting)
    ptx, m = build_cached(REPO / "examples" / "lanes_matvec.ph", "lanes_matvec")
    ptx2, m2 = build_cached(REPO / "examples" / "lanes_matvec.ph", "lanes_matvec")
    assert ptx == ptx2 and m == m2 and len(calls) == 1
    build_cached(REPO / "examples" / "lanes_matvec.ph", "lanes_matvec", {"K": 256})
    assert len(calls) == 2
    k = load_kernel(REPO / "examples" / "lanes_matvec.ph", "lanes_matvec")
    assert k.block == 128 and json.loads(json.dumps(k.manifest)) == m


def test_the_build_cache_key_covers_the_analyzer_too():
    # the analysis decides what the lowering emits (no shuffle for a uniform collective), so a
    # change to the analyzer alone must miss the cache as a change to the lowering does
    from phobos_tools.lowering.cache import fingerprint_files
    names = {name for name, _ in fingerprint_files()}
    assert {"lowering/emit.py", "analyzer/sema/checker.py", "analyzer/facts/derive.py",
            "analyzer/syntax/phobos.lark"} <= names


def _with_scalar(dtype):
    return Kernel("", dict(MANIFEST, params=MANIFEST["params"][:3] + [{"name": "s", "kind": "scalar", "dtype": dtype}]))


@pytest.mark.parametrize("dtype,value,message", [
    ("i32", 3.7, "`s` is an i32, not the fraction 3.7"),     # was truncated to 3 without a word
    ("i32", True, "`s` is an i32, not bool"),
    ("f32", "1.0", "`s` is an f32, not str"),
    ("f32", 1e40, "`s` = 1e+40 does not fit in f32"),         # was inf without a word
    ("bool", 1, "`s` is a bool, not int"),                     # the simulator refuses it too
    ("i32", 2**31, "does not fit in i32"),
    ("f32", np.zeros(2), "not an array"),
])
def test_a_scalar_that_would_change_is_refused_as_the_simulator_refuses_it(dtype, value, message):
    with pytest.raises(LaunchError) as e:
        _with_scalar(dtype).prepare(*arrays(), value)
    assert message in str(e.value)


def test_scalars_that_fit_keep_their_value():
    assert _with_scalar("i32").prepare(*arrays(), 3.0).scalars[3] == np.int32(3)
    assert _with_scalar("i8").prepare(*arrays(), np.int64(-5)).scalars[3] == np.int8(-5)
    assert _with_scalar("bool").prepare(*arrays(), np.bool_(True)).scalars[3] == np.uint8(1)
    assert _with_scalar("f16").prepare(*arrays(), np.array(0.5)).scalars[3] == np.float16(0.5)


@pytest.mark.parametrize("grid", ["abc", (1, 70000), (2**31,), ()])
def test_a_grid_cuda_cannot_launch_is_refused_before_any_backend_loads(grid, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)
    with pytest.raises(LaunchError, match="grid"):
        kernel()(*arrays(), 1.0, grid=grid)


def test_a_cache_that_cannot_be_written_or_read_only_costs_a_build(tmp_path, monkeypatch):
    from phobos_tools.lowering.cache import CacheWarning, build_cached, cache_dir
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(blocker))          # mkdir under a file: OSError
    ptx, manifest = build_cached(REPO / "examples" / "row_sums.ph", "row_sums")
    assert ".entry row_sums(" in ptx and manifest["entry"] == "row_sums"
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    build_cached(REPO / "examples" / "row_sums.ph", "row_sums")
    for f in cache_dir().rglob("row_sums.json"):
        f.write_text("{damaged")
    with pytest.warns(CacheWarning, match="unreadable"):        # said, then rebuilt
        assert build_cached(REPO / "examples" / "row_sums.ph", "row_sums")[1]["entry"] == "row_sums"


def test_an_argument_given_twice_is_named_as_such():
    W, x, y = arrays()
    with pytest.raises(LaunchError, match="`W` is given twice"):          # was: "has no parameter `W`"
        kernel().prepare(W, x, y, 1.0, W=W)
    with pytest.raises(LaunchError, match=r"has no parameter `z` \(its parameters: W, x, y, s\)"):
        kernel().prepare(W, x, y, 1.0, z=1)


def test_the_cuda_core_backend_hands_over_the_ptx_text_and_launches_on_device_arrays(monkeypatch):
    # cuda.core's ObjectCode.from_ptx reads a str as the path of a PTX file: on the H200 every
    # kernel failed to load with CUDA_ERROR_FILE_NOT_FOUND until the PTX went as bytes
    import dataclasses
    import types
    seen = {}

    class ObjectCode:
        @staticmethod
        def from_ptx(module):
            if isinstance(module, str):
                raise FileNotFoundError(module[:20])
            seen["ptx"] = module
            return types.SimpleNamespace(get_kernel=lambda entry: f"kernel {entry}")

    @dataclasses.dataclass
    class LaunchConfig:
        grid: tuple = (1, 1, 1)
        block: tuple = (1, 1, 1)
        shmem_size: int = 0

    class Stream:
        def sync(self):
            seen["synced"] = True

    default = Stream()

    class Device:
        default_stream = default

        def set_current(self):
            pass

    def launch(stream, config, kernel, *args):
        seen["launch"] = (config, kernel, args)
        seen["stream"] = stream

    core = types.ModuleType("cuda.core")
    core.Device, core.LaunchConfig, core.ObjectCode, core.launch = Device, LaunchConfig, ObjectCode, launch
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = types.ModuleType("cuda.bindings.driver")
    cuda = types.ModuleType("cuda")
    cuda.core, cuda.bindings = core, bindings
    monkeypatch.setitem(sys.modules, "cuda", cuda)
    monkeypatch.setitem(sys.modules, "cuda.core", core)
    monkeypatch.setitem(sys.modules, "cuda.bindings", bindings)
    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", bindings.driver)

    class Dev:
        def __init__(self, ptr, shape):
            self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (ptr, False), "version": 3}

    k = Kernel(".visible .entry lanes_matvec()", MANIFEST, "cuda.core")
    k(Dev(0x10000, (8, 256)), Dev(0x20000, (1, 256)), Dev(0x30000, (1, 8)), 2.0, grid=(2,))
    # device arrays only: queued on the device's default stream, not waited for (issue 22)
    assert seen["ptx"] == b".visible .entry lanes_matvec()" and "synced" not in seen
    assert seen["stream"] is default
    config, kern, args = seen["launch"]
    assert kern == "kernel lanes_matvec" and config.grid == (2, 1, 1) and config.block == (128, 1, 1)
    assert [int(getattr(a, "value", a)) for a in args[:3]] == [0x10000, 0x20000, 0x30000]
    assert args[3] == np.float32(2.0) and [int(a) for a in args[4:]] == [8, 256]
