"""phobos-build's command line (DESIGN.md): the files it writes, the manifest's exact shape, its
refusals and exit statuses, and no traceback ever."""

from __future__ import annotations

import json

import pytest

from lowering_tools import REPO

from paths import SPEC_KERNELS
from phobos_tools.cli.build import main

MATVEC = REPO / "examples" / "lanes_matvec.ph"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_writes_ptx_and_manifest(tmp_path, capsys):
    code, out, err = run(capsys, MATVEC, "-o", tmp_path)
    assert code == 0, out + err
    ptx = (tmp_path / "lanes_matvec.ptx").read_text()
    assert ".visible .entry lanes_matvec(" in ptx and ".target sm_90" in ptx
    text = (tmp_path / "lanes_matvec.json").read_text()
    m = json.loads(text)
    assert list(m) == ["version", "entry", "target", "ptx_version", "block", "dynamic_shared_bytes", "params",
                       "extents", "aligned", "resources"]
    expected = {"version": 1, "entry": "lanes_matvec", "target": "sm_90", "ptx_version": "8.6",
                "block": 128, "dynamic_shared_bytes": 0,
                "params": [{"name": "W", "kind": "tensor", "dtype": "f32", "shape": ["N", "K"]},
                           {"name": "x", "kind": "tensor", "dtype": "f32", "shape": [1, "K"]},
                           {"name": "y", "kind": "tensor", "dtype": "f32", "shape": [1, "N"]}],
                "extents": ["N", "K"], "aligned": {"K": 128}}
    assert {k: v for k, v in m.items() if k != "resources"} == expected
    assert m["resources"] is None or set(m["resources"]) == {"registers", "shared_bytes", "spills"}
    assert text.startswith('{"version": 1, "entry": "lanes_matvec", "target": "sm_90", "ptx_version": "8.6",\n')


def test_emit_llvm_and_arch(tmp_path, capsys):
    code, out, err = run(capsys, MATVEC, "-o", tmp_path, "--emit", "llvm", "--arch", "sm_80")
    assert code == 0, out + err
    ll = (tmp_path / "lanes_matvec.ll").read_text()
    assert 'target triple = "nvptx64-nvidia-cuda"' in ll and "ptx_kernel" in ll
    assert json.loads((tmp_path / "lanes_matvec.json").read_text())["target"] == "sm_80"


def test_defines_bind_extents(tmp_path, capsys):
    code, out, err = run(capsys, MATVEC, "-o", tmp_path, "-D", "K=256")
    assert code == 0, out + err
    m = json.loads((tmp_path / "lanes_matvec.json").read_text())
    assert m["params"][0]["shape"] == ["N", 256] and m["extents"] == ["N"]


def test_rejected_file_exits_1_with_its_diagnostics(tmp_path, capsys):
    bad = SPEC_KERNELS / "rejected_tile_op_lane_branch.ph"
    code, out, err = run(capsys, bad, "-o", tmp_path)
    assert code == 1 and "error[PH301]" in out
    assert not list(tmp_path.iterdir())


def test_an_operation_the_build_cannot_lower_is_a_located_error(tmp_path, capsys):
    src = tmp_path / "k.ph"
    src.write_text("@launch(32)\nkernel t(A: tensor<f32>[M, N]) {\n  A[1 :+ 1, :] = A[0 :+ 1, :]\n}\n")
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, src, "-o", out_dir)
    assert code == 1
    assert "k.ph:3:18: error[PH210]:" in out and "is not supported by phobos-build" in out
    assert not out_dir.exists() or not list(out_dir.iterdir())


def test_tile_example_builds_with_its_manifest(tmp_path, capsys):
    code, out, err = run(capsys, REPO / "examples" / "stage.ph", "-o", tmp_path)
    assert code == 0, out + err
    assert (tmp_path / "stage.ptx").is_file() and (tmp_path / "stage.json").is_file()


def test_kernel_selection(tmp_path, capsys):
    code, out, err = run(capsys, MATVEC, "-o", tmp_path, "-k", "lanes_matvec")
    assert code == 0
    code, out, err = run(capsys, MATVEC, "-o", tmp_path, "-k", "nope")
    assert code == 2 and "no kernel named `nope`" in err


@pytest.mark.parametrize("argv", [[], ["missing.ph"], [str(MATVEC), "--arch", "sm_70"], [str(MATVEC), "-D", "K"],
                                  [str(MATVEC), "--emit", "sass"]])
def test_usage_errors_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.startswith("phobos-build: error:")
    if "--arch" in argv or "--emit" in argv:        # a bad option value points to --help, as argparse's do
        assert err.rstrip().endswith("(see phobos-build --help)"), err


def test_internal_error_exits_3(tmp_path, capsys, monkeypatch):
    from phobos_tools.lowering import emit

    def broken(self, e):
        raise RuntimeError("boom")
    monkeypatch.setattr(emit.KernelEmitter, "e_CtxPath", broken)
    code, out, err = run(capsys, MATVEC, "-o", tmp_path)
    assert code == 3 and "error[PH901]" in out and "boom" in out
