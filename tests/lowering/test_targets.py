"""The targets of `--arch` (DESIGN.md, "phobos-build"): each one's PTX ISA and limits, ptxas
accepting every example for every target, and `--emit cubin` (through ptxas; a clear usage
error without it)."""

from __future__ import annotations

import json

import pytest

from lowering_tools import EXAMPLES, REPO, built_example, need_tool

from phobos_tools.cli.build import main as build_main
from phobos_tools.language.targets import TARGETS, ptx_isa
from phobos_tools.lowering.ptxas import assemble, find_ptxas

ROW_SUMS = REPO / "examples" / "row_sums.ph"


def test_the_targets_and_their_ptx_versions():
    assert list(TARGETS) == ["sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_120"]
    assert ptx_isa("sm_120") == "8.7"                     # sm_120 came with PTX ISA 8.7
    assert {ptx_isa(a) for a in TARGETS if a != "sm_120"} == {"8.6"}
    assert TARGETS["sm_100"].shared_per_block == TARGETS["sm_90"].shared_per_block == 232448
    assert TARGETS["sm_120"].shared_per_block == 101376 and TARGETS["sm_120"].threads_per_sm == 1536


@pytest.mark.parametrize("arch", ["sm_100", "sm_120"])
def test_new_targets_write_their_version_and_target(arch):
    k = built_example("tiled_gemm", arch).kernels[0]
    assert f".version {ptx_isa(arch)}\n" in k.ptx and f".target {arch}\n" in k.ptx
    assert k.manifest["target"] == arch and k.manifest["ptx_version"] == ptx_isa(arch)


def test_sm_120_refuses_what_only_fits_sm_90(capsys, tmp_path):
    # 128 KB of shared memory: within sm_90's and sm_100's 227 KB, over sm_120's 99 KB (PH211)
    src = tmp_path / "big.ph"
    src.write_text("@launch(256)\nkernel big(A: tensor<f32>[M, 128], O: tensor<f32>[M, 128]) {\n"
                   "  let r0 = ctx.block.x * 256\n  var t: tile<f32>[256, 128] = A[r0 :+ 256, 0 :+ 128]\n"
                   "  O[r0 :+ 256, 0 :+ 128] = t\n}\n")
    assert build_main([str(src), "-o", str(tmp_path / "a"), "--arch", "sm_100", "--emit", "llvm"]) == 0
    assert build_main([str(src), "-o", str(tmp_path / "b"), "--arch", "sm_120", "--emit", "llvm"]) == 1
    out, err = capsys.readouterr()
    assert "PH211" in out and "Traceback" not in out + err


@pytest.mark.ptxas
@pytest.mark.parametrize("arch", ["sm_75", "sm_86", "sm_89", "sm_100", "sm_120"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_ptxas_accepts_every_example_for_every_target(path, arch):
    """sm_80 and sm_90 are in test_ptxas.py."""
    ptxas = need_tool("ptxas")
    r = built_example(path.stem, arch)
    assert r.ok and r.kernels, [(d.code, d.message) for d in r.diagnostics]
    for k in r.kernels:
        done = assemble(k.ptx, arch, ptxas)
        assert done.ok, done.log
        assert done.resources["spills"] == 0, done.log


@pytest.mark.ptxas
@pytest.mark.parametrize("arch", ["sm_90", "sm_120"])
def test_emit_cubin_writes_ptxas_output(arch, tmp_path, capsys):
    need_tool("ptxas")
    code = build_main([str(ROW_SUMS), "-o", str(tmp_path), "--arch", arch, "--emit", "cubin"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    cubin = (tmp_path / "row_sums.cubin").read_bytes()
    assert cubin[:4] == b"\x7fELF"
    assert not (tmp_path / "row_sums.ptx").exists()
    m = json.loads((tmp_path / "row_sums.json").read_text())
    assert m["target"] == arch and m["resources"]["spills"] == 0


def test_emit_cubin_without_ptxas_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    if find_ptxas() is not None:
        pytest.skip("ptxas also comes from an installed NVIDIA wheel here")
    code = build_main([str(ROW_SUMS), "-o", str(tmp_path / "out"), "--emit", "cubin"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "--emit cubin" in err and "ptxas" in err and "Traceback" not in out + err
    assert not (tmp_path / "out").exists()
