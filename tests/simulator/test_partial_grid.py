"""Part of a grid on the simulator (`phobos-run --ctas`, the `ctas=` argument), its progress bar
(on a terminal only, off with `--quiet`), and the loop-progress check now counting memory changes
only while a `while` loop runs (a tile store inside a `for` inside a `while` still counts)."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paths import EXAMPLES
from phobos_tools.run import ArgumentError, DynamicCheckFailed, load, loads
from phobos_tools.simulator.progress import Progress

pytestmark = pytest.mark.slow

GEMM = str(EXAMPLES / "tiled_gemm.ph")
TILES = ["-D", "BM=32", "-D", "BN=32", "-D", "BK=16"]
RUN = str(Path(sys.executable).with_name("phobos-run"))

# CTA b stores b into y[0]: CTAs that store different values there race (PH409)
RACE = """@launch(32)
kernel k(y: tensor<f32>[4]) {
  if ctx.thread == 0 {
    y[0] = f32(ctx.block.x)
  }
}
"""


def phobos_run(*argv, cwd, stderr=subprocess.PIPE, env=None):
    return subprocess.run([RUN, *map(str, argv)], cwd=cwd, stdout=subprocess.PIPE, stderr=stderr, text=True,
                          env={**os.environ, **(env or {})})


def gemm_args(n=64):
    return ["--arg", f"A=rand:f16:{n}x{n}", "--arg", f"B=rand:f16:{n}x{n}", "--arg", f"C=zeros:f32:{n}x{n}"]


def tile(M, c):
    """CTA ``c``'s 32 x 32 tile of a 64 x 64 matrix (grid 2,2, block order: x fastest)."""
    y, x = divmod(c, 2)
    return M[32 * y:32 * y + 32, 32 * x:32 * x + 32]


@pytest.mark.parametrize("ctas, simulated", [("1:3", [1, 2]), ("1", [0]), ("0:4", [0, 1, 2, 3])])
def test_ctas_simulates_part_of_the_grid_and_says_so(tmp_path, ctas, simulated):
    r = phobos_run(GEMM, "--sim", "--grid", "2,2", *TILES, *gemm_args(), "--ctas", ctas, "--out", tmp_path,
                   cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    n = len(simulated)
    assert f"({n} of 4, --ctas)" in r.stderr
    assert "the arrays hold their inputs wherever no simulated CTA stored" in r.stderr
    A, B, C = (np.load(tmp_path / f"{x}.npy") for x in "ABC")
    ref = A.astype(np.float32) @ B.astype(np.float32)
    for c in range(4):
        if c in simulated:
            np.testing.assert_allclose(tile(C, c), tile(ref, c), rtol=1e-5, atol=1e-4)
        else:
            assert not tile(C, c).any()          # never written: still the zeros it came in as


def test_without_ctas_the_message_claims_no_part(tmp_path):
    r = phobos_run(GEMM, "--sim", "--grid", "2,2", *TILES, *gemm_args(), "--out", tmp_path, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "--ctas" not in r.stderr and "4 CTAs of 256 threads" in r.stderr


def test_the_checks_see_only_the_simulated_ctas():
    k = loads(RACE).kernel()
    with pytest.raises(DynamicCheckFailed) as info:
        k(np.zeros(4, np.float32), grid=(2,))
    assert info.value.code == "PH409"
    y = np.zeros(4, np.float32)
    k(y, grid=(2,), ctas=(1, 2))                 # CTA 1 alone: no other CTA to race with
    assert y.tolist() == [1.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("ctas, message", [
    ("0", "--ctas 0 selects no CTA"),
    ("3:1", "--ctas 3:1 selects no CTA"),
    ("2:2", "--ctas 2:2 selects no CTA"),
    ("x", "--ctas takes N (the first N CTAs) or A:B (CTAs A to B-1), not 'x'"),
    ("1:2:3", "--ctas takes N"),
    ("3:9", "the grid 2,2,1 has 4 CTAs (0 to 3 in block order), so it cannot simulate up to CTA 8"),
    ("5", "cannot simulate up to CTA 4"),
])
def test_bad_ctas_are_usage_errors(tmp_path, ctas, message):
    r = phobos_run(GEMM, "--sim", "--grid", "2,2", *TILES, *gemm_args(), "--ctas", ctas, "--out", tmp_path,
                   cwd=tmp_path)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_ctas_is_for_the_simulator_only(tmp_path):
    r = phobos_run(GEMM, "--gpu", "--grid", "2,2", *TILES, *gemm_args(), "--ctas", "1", cwd=tmp_path)
    assert r.returncode == 2 and "--ctas simulates part of a grid: it is for the simulator only" in r.stderr


def test_the_python_api_takes_ctas():
    k = load(GEMM, defines={"BM": 32, "BN": 32, "BK": 16}).kernel()
    rng = np.random.default_rng(3)
    A, B = (rng.standard_normal((64, 64)).astype(np.float16) for _ in "AB")
    ref = A.astype(np.float32) @ B.astype(np.float32)
    for ctas, simulated in (((1, 3), [1, 2]), (range(3, 4), [3]), (2, [0, 1]), (np.int64(1), [0])):
        C = np.zeros((64, 64), np.float32)
        k(A, B, C, grid=(2, 2), ctas=ctas)
        for c in range(4):
            if c in simulated:
                np.testing.assert_allclose(tile(C, c), tile(ref, c), rtol=1e-5, atol=1e-4)
            else:
                assert not tile(C, c).any()
    C = np.zeros((64, 64), np.float32)
    for bad, message in ((0, "at least 1, not 0"), ((2, 1), "needs 0 <= A < B"), ((-1, 2), "needs 0 <= A < B"),
                         ((0, 5), "cannot simulate up to CTA 4"), ("1:2", "ctas is a number of CTAs N"),
                         (True, "ctas is a number of CTAs N"), (range(0, 4, 2), "ctas is a number of CTAs N")):
        with pytest.raises(ArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
            k(A, B, C, grid=(2, 2), ctas=bad)
    with pytest.raises(ArgumentError, match="for device=\"sim\" only"):
        k(A, B, C, grid=(2, 2), ctas=1, device="gpu")


def test_ctas_lets_a_few_ctas_of_a_grid_too_big_to_simulate_run():
    k = loads(RACE).kernel()
    y = np.zeros(4, np.float32)
    with pytest.raises(ArgumentError, match="simulate part of the grid"):
        k(y, grid=(2**27,))
    k(y, grid=(2**27,), ctas=(2**27 - 3, 2**27 - 2))
    assert y[0] == 2**27 - 3


# ---------------------------------------------------------------- the progress bar

def on_a_terminal(argv, cwd, env):
    """Run phobos-run with its stderr on a pseudo-terminal: (exit status, what it wrote there)."""
    main, sub = pty.openpty()
    p = subprocess.Popen([RUN, *map(str, argv)], cwd=cwd, stdout=subprocess.DEVNULL, stderr=sub,
                         env={**os.environ, **env})
    os.close(sub)
    out = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:                          # the other end closed (Linux reports EIO)
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    return p.wait(), out.decode()


def test_progress_bar_on_a_terminal(tmp_path):
    code, err = on_a_terminal([GEMM, "--sim", "--grid", "2,2", *TILES, *gemm_args(), "--out", tmp_path],
                              tmp_path, {"PHOBOS_PROGRESS_AFTER": "0"})
    assert code == 0, err
    assert "simulating `tiled_gemm` [" in err and "/4 CTAs" in err
    assert "4/4 CTAs" in err and ", done" in err
    # the bar is erased before the summary line
    bar_end = err.rindex("\r\x1b[K")
    assert err[bar_end:].startswith("\r\x1b[Kphobos-run: ran `tiled_gemm`")


def test_quiet_draws_no_bar(tmp_path):
    code, err = on_a_terminal([GEMM, "--sim", "--grid", "2,2", *TILES, *gemm_args(), "--out", tmp_path, "--quiet"],
                              tmp_path, {"PHOBOS_PROGRESS_AFTER": "0"})
    assert code == 0, err
    assert "CTAs," not in err and "\x1b[K" not in err and "phobos-run: ran `tiled_gemm`" in err


def test_no_bar_when_stderr_is_not_a_terminal(tmp_path):
    r = phobos_run(GEMM, "--sim", "--grid", "2,2", *TILES, *gemm_args(), "--out", tmp_path, cwd=tmp_path,
                   env={"PHOBOS_PROGRESS_AFTER": "0"})
    assert r.returncode == 0 and "\r" not in r.stderr and "CTAs," not in r.stderr


def test_progress_line_counts_ctas_and_estimates_the_rest(monkeypatch):
    monkeypatch.setenv("PHOBOS_PROGRESS_AFTER", "0")
    out = io.StringIO()
    bar = Progress(out, 4096, label="simulating `k`")
    try:
        start = bar.start
        assert bar.line(start + 3) == "simulating `k` [------------------------] 0/4,096 CTAs, 3 s, ETA unknown"
        bar.done = 1024
        assert bar.line(start + 30) == "simulating `k` [######------------------] 1,024/4,096 CTAs, 30 s, ETA 1 min 30 s"
        bar.update(4096)
        assert out.getvalue().endswith("4,096/4,096 CTAs, 0 s, done")
    finally:
        bar.close()
    assert out.getvalue().endswith("\r\x1b[K")


# ---------------------------------------------------------------- the loop-progress check

def test_a_tile_store_in_a_for_inside_a_while_is_progress():
    # the tile store, two loops down, is the only thing the `while` loop's iterations change
    src = """@launch(32)
kernel k(O: tensor<f32>[4]) {
  var t: tile<f32>[4] = 0.0
  while t[0] < 6.0 {
    for _i in range(0, 2) {
      t = t + 1.0
    }
  }
  O[0 :+ 4] = t
}
"""
    O = np.zeros(4, np.float32)
    loads(src).kernel()(O, grid=(1,))
    assert O.tolist() == [6.0] * 4


def test_a_while_whose_tile_store_changes_nothing_is_stuck():
    src = """@launch(32)
kernel k(A: tensor<i32>[1], O: tensor<f32>[4]) {
  var t: tile<f32>[4] = 1.0
  var n = 0
  while A[0] > n {
    for i in range(0, 2) {
      O[0 :+ 4] = t
    }
  }
}
"""
    with pytest.raises(DynamicCheckFailed) as info:
        loads(src).kernel()(np.ones(1, np.int32), np.zeros(4, np.float32), grid=(1,))
    assert info.value.code == "PH405" and "repeats with nothing changed" in str(info.value)
