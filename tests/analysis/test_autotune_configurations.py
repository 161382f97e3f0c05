"""Every `@autotune` configuration is checked (LANGUAGE §2): a diagnostic holding in some of them
names them; over 256 configurations is PH203; `phobos-build --autotune` builds each one."""

import json
import os
import subprocess
import sys

import pytest

from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.checked import check_source as check_one_configuration

# the second BM overflows shared memory: 2 tiles of 256 x 128 f32 = 256 KB > sm_90's 227 KB
TILED = """@autotune(BM in [64, 256], BN in [64, 128])
@launch(256)
kernel tiled(O: tensor<f32>[M, N]) {
  var a: tile<f32>[BM, BN] = 0.0
  var b: tile<f32>[BM, BN] = 1.0
  O[0 :+ BM, 0 :+ BN] = a + b
}
"""


def errors(result):
    return [d for d in result.diagnostics if d.severity == "error"]


def test_a_later_configuration_that_overflows_shared_memory_fails_without_d():
    [d] = errors(check_source(TILED, "t.ph"))
    assert d.code == "PH211" and "262,144 bytes" in d.message
    assert d.notes[-1] == ("this holds in 1 of the 4 `@autotune` configurations of `tiled`: `BM=256, BN=128`")


def test_d_fixes_a_name_and_leaves_the_others_open():
    assert errors(check_source(TILED, "t.ph", {"BM": "64"})) == []
    [d] = errors(check_source(TILED, "t.ph", {"BN": "128"}))
    assert d.notes[-1].endswith("1 of the 2 `@autotune` configurations of `tiled`: `BM=256`")


def test_a_diagnostic_in_every_configuration_appears_once_without_a_note():
    src = TILED.replace("  O[0 :+ BM", "  if ctx.thread == 0 { barrier() }\n  O[0 :+ BM")
    found = [d for d in check_source(src, "t.ph", {"BM": "64"}).diagnostics if d.code == "PH301"]
    assert len(found) == 1 and not any("@autotune" in n for n in found[0].notes)


def test_the_lowering_and_the_simulator_check_the_first_values_only():
    assert errors(check_source(TILED, "t.ph", every_configuration=False)) == []
    assert check_one_configuration(TILED, "t.ph").ok


def test_more_than_256_configurations_is_ph203():
    lists = ", ".join(f"X{i} in [1, 2, 3, 4]" for i in range(5))          # 4^5 = 1024
    src = f"@autotune({lists})\n@launch(32)\nkernel k(O: tensor<f32>[N]) {{\n  O[0] = 1.0\n}}\n"
    codes = [d.code for d in errors(check_source(src, "t.ph"))]
    assert codes == ["PH203"]
    [d] = errors(check_source(src, "t.ph"))
    assert "1024 configurations, more than 256" in d.message
    assert errors(check_source(src, "t.ph", {"X0": "1", "X1": "1"})) == []      # 64: fine


@pytest.mark.slow
def test_phobos_build_autotune_writes_one_build_per_configuration(tmp_path):
    src = tmp_path / "t.ph"
    src.write_text(TILED.replace("BM in [64, 256]", "BM in [32, 64]"))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "phobos_tools.cli.build", str(src), "--autotune", "-o", str(out),
                           "-D", "BN=64"], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PHOBOS_CACHE_DIR=str(tmp_path / "cache")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["tiled.BM=32.json", "tiled.BM=32.ptx",
                                                      "tiled.BM=64.json", "tiled.BM=64.ptx"]
    manifest = json.loads((out / "tiled.BM=64.json").read_text())
    assert manifest["defines"] == {"BN": 64, "BM": 64}
    assert ".visible .entry tiled" in (out / "tiled.BM=32.ptx").read_text()


@pytest.mark.slow
def test_phobos_build_autotune_refuses_a_configuration_that_does_not_check(tmp_path):
    src = tmp_path / "t.ph"
    src.write_text(TILED)
    done = subprocess.run([sys.executable, "-m", "phobos_tools.cli.build", str(src), "--autotune", "-o",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PHOBOS_CACHE_DIR=str(tmp_path / "cache")))
    assert done.returncode == 1
    assert "PH211" in done.stdout and "`BM=256, BN=128`" in done.stdout
    assert not (tmp_path / "out").exists()
