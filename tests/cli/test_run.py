"""`phobos-run` as DESIGN.md specifies it: the spec's lanes matvec against `W @ x`, every rejected
kernel of per-thread-values.md stopped by the dynamic check that matches its static error
(exit 4), argument validation (exit 2), a deadlock, `--gpu` without a GPU."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paths import REPO, SPEC_KERNELS, TESTS
from phobos_tools.cli.run import main

MATVEC = str(REPO / "examples" / "lanes_matvec.ph")
REJECTED = sorted(SPEC_KERNELS.glob("rejected_*.ph"))
MARK = re.compile(r"//~ error (PH\d{3})")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def matvec_args(n=64, k=256):
    return ["--arg", f"W=rand:f32:{n}x{k}", "--arg", f"x=rand:f32:1x{k}", "--arg", f"y=zeros:f32:1x{n}"]


def test_lanes_matvec_matches_w_at_x(tmp_path, capsys):
    rng = np.random.default_rng(5)
    W = rng.standard_normal((300, 1024), dtype=np.float32)
    x = rng.standard_normal((1, 1024), dtype=np.float32)
    np.save(tmp_path / "W_in.npy", W)
    np.save(tmp_path / "x_in.npy", x)
    out = tmp_path / "out"
    code, _, err = run(capsys, MATVEC, "--sim", "--grid", "75", "--arg", f"W={tmp_path / 'W_in.npy'}",
                       "--arg", f"x={tmp_path / 'x_in.npy'}", "--arg", "y=zeros:f32:1x300", "--out", out)
    assert code == 0, err
    assert "ran `lanes_matvec` on the simulator, grid (75): 75 CTAs of 128 threads" in err
    y = np.load(out / "y.npy")
    np.testing.assert_allclose(y[0], W @ x[0], rtol=1e-5, atol=1e-4)
    assert (np.load(out / "W.npy") == W).all()


def test_rand_specs_follow_the_seed_not_the_order(tmp_path, capsys):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    assert run(capsys, MATVEC, "--sim", "--grid", "16", *matvec_args(), "--out", a)[0] == 0
    reordered = matvec_args()[4:] + matvec_args()[:4]
    assert run(capsys, MATVEC, "--sim", "--grid", "16", *reordered, "--out", b)[0] == 0
    assert run(capsys, MATVEC, "--sim", "--grid", "16", *matvec_args(), "--seed", "1", "--out", c)[0] == 0
    assert (np.load(a / "W.npy") == np.load(b / "W.npy")).all()
    assert not (np.load(a / "W.npy") == np.load(c / "W.npy")).all()
    W, x, y = (np.load(a / f"{n}.npy") for n in "Wxy")
    np.testing.assert_allclose(y[0], W @ x[0], rtol=1e-5, atol=1e-5)


def _args_for(path: Path) -> list[str]:
    """zeros for every parameter: extents named in a type become 8."""
    from phobos_tools.run import load
    kernel = load(path, unchecked=True).kernel()
    args = []
    for p in kernel.info.params:
        dims = "x".join(str(d) if isinstance(d, int) else "8" for d in p.type.shape)
        args += ["--arg", f"{p.name}=rand:{p.type.elem}:{dims}"]
    return args


@pytest.mark.parametrize("path", REJECTED, ids=[p.stem for p in REJECTED])
def test_rejected_spec_kernel_stops_at_its_dynamic_check(path, tmp_path, capsys):
    text = path.read_text()
    [(line, code)] = [(i, m.group(1)) for i, ln in enumerate(text.splitlines(), 1) for m in MARK.finditer(ln)]
    checked, out, err = run(capsys, path, "--sim", "--grid", "1", *_args_for(path), "--out", tmp_path)
    assert checked == 1 and f"error[{code}]" in out                # rejected without --unchecked
    assert "--sim --unchecked runs it anyway" in err
    status, _, err = run(capsys, path, "--sim", "--unchecked", "--grid", "1", *_args_for(path), "--out", tmp_path)
    assert status == 4
    assert re.search(rf"{re.escape(str(path))}:{line}:\d+: error\[{code}\]: ", err), err
    assert "CTA (0, 0, 0)" in err and "found at run time by the simulator" in err
    assert not list(tmp_path.glob("*.npy"))                       # nothing written after a failure


def test_deadlock_exits_4(tmp_path, capsys):
    src = TESTS / "simulator" / "kernels" / "wait_next.ph"      # tests/simulator/test_checks.py's deadlock
    code, _, err = run(capsys, src, "--sim", "--grid", "3", "--arg", "flags=zeros:i32:3", "--out", tmp_path)
    assert code == 4 and "error[PH404]" in err and "waits for a CTA that runs after it" in err


MULTI = """@launch(32)
kernel a(X: tensor<f32>[N]) {
  X[ctx.thread] = 1.0
}

@launch(32)
kernel b(X: tensor<f32>[N], s: i32) {
  X[ctx.thread] = f32(s)
}
"""


@pytest.mark.parametrize("argv,message", [
    (["--sim", "--grid", "4"], "missing --arg for W (tensor<f32>[N, K]), x (tensor<f32>[1, K]), y"),
    (["--sim", "--grid", "4", *matvec_args(), "--arg", "z=1"], "has no parameter `z`"),
    (["--sim", "--grid", "4", *matvec_args(), "--arg", "W=zeros:f32:64x256"], "--arg W is given twice"),
    (["--sim", "--grid", "4", "--arg", "W=rand:f64:64x256", *matvec_args()[2:]], "needs dtype f32, not f64"),
    (["--sim", "--grid", "4", "--arg", "W=rand:f32:64", *matvec_args()[2:]], "rank 2, but 64 has rank 1"),
    (["--sim", "--grid", "4", "--arg", "W=rand:f32:64x128", *matvec_args()[2:]],
     "extent `K` is 128 (from `W` axis 1) but 256 in `x` (axis 1)"),
    (["--sim", "--grid", "4", "--arg", "W=rand:f32:64x256", "--arg", "x=rand:f32:2x256", "--arg",
      "y=zeros:f32:1x64"], "axis 0 must have extent 1, not 2"),
    (["--sim", "--grid", "4", "--arg", "W=cheese", *matvec_args()[2:]], "give a .npy path, rand:f32:D1xD2"),
    (["--sim", "--grid", "4", "--arg", "W=/nonexistent/w.npy", *matvec_args()[2:]], "cannot load /nonexistent/w.npy"),
    (["--sim", "--grid", "4", "--arg", "W=rand:f99:4x4", *matvec_args()[2:]], "unknown dtype `f99`"),
    (["--sim", "--grid", "0", *matvec_args()], "--grid extents are from 1 to 2147483647, not '0' (see phobos-run --help)"),
    (["--sim", "--grid", "4,x", *matvec_args()], "not '4,x' (see phobos-run --help)"),
    (["--sim", "--grid", "1,2,3,4", *matvec_args()], "--grid takes X[,Y[,Z]]"),
    (["--grid", "4", *matvec_args()], "one of the arguments --sim --gpu is required"),
    (["--sim", "--gpu", "--grid", "4", *matvec_args()], "not allowed with argument"),
    (["--gpu", "--unchecked", "--grid", "4", *matvec_args()], "simulator only"),
    (["--sim", "--grid", "4", "-k", "nope", *matvec_args()], "no kernel `nope`"),
    (["--sim", "--grid", "4", "-D", "=3", *matvec_args()], "expected NAME=VALUE"),
])
def test_argument_validation_is_a_usage_error(argv, message, tmp_path, capsys):
    code, _, err = run(capsys, MATVEC, *argv, "--out", tmp_path)
    assert code == 2
    assert err.startswith("phobos-run: error: ") and message in err, err


@pytest.mark.parametrize("args,message", [
    ([], "a.ph has 2 kernels (a, b): name one (`-k NAME`"),
    (["-k", "b", "--arg", "X=zeros:f32:8", "--arg", "s=1.5"], "`s` is an i32: give an integer literal such as 3 or -0x10, not '1.5'"),
    (["-k", "b", "--arg", "X=zeros:f32:8", "--arg", "s=99999999999"], "--arg s: 99999999999 does not fit in i32"),
    (["-k", "b", "--arg", "X=zeros:f32:8", "--arg", "s=zeros:i32:4"], "give an integer literal"),
    (["-k", "b", "--arg", "X=3", "--arg", "s=1"], "`X` is a tensor<f32>[N]: give a .npy path"),
])
def test_scalar_and_kernel_choice_errors(args, message, tmp_path, capsys):
    src = tmp_path / "a.ph"
    src.write_text(MULTI)
    code, _, err = run(capsys, src, "--sim", "--grid", "1", *args, "--out", tmp_path)
    assert code == 2 and message in err, err


def test_scalar_literals_and_a_chosen_kernel(tmp_path, capsys):
    src = tmp_path / "a.ph"
    src.write_text(MULTI)
    code, _, err = run(capsys, src, "-k", "b", "--sim", "--grid", "1", "--arg", "X=zeros:f32:40",
                       "--arg", "s=-0x10", "--out", tmp_path)
    assert code == 0, err
    X = np.load(tmp_path / "X.npy")
    assert (X[:32] == -16).all() and (X[32:] == 0).all()


def test_missing_file_and_rejected_program(tmp_path, capsys):
    code, _, err = run(capsys, tmp_path / "none.ph", "--sim", "--grid", "1")
    assert code == 2 and "cannot read" in err
    bad = tmp_path / "bad.ph"
    bad.write_text("kernel k( {\n")
    code, out, err = run(capsys, bad, "--sim", "--unchecked", "--grid", "1")
    assert code == 1 and "error[PH005]" in out and "nothing ran" in err   # --unchecked waives PH3xx only


def test_gpu_without_a_gpu_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(capsys, MATVEC, "--gpu", "--grid", "16", *matvec_args(), "--out", tmp_path)
    if code == 0:                                    # a machine with a GPU: the result is right
        W, x, y = (np.load(tmp_path / f"{n}.npy") for n in "Wxy")
        np.testing.assert_allclose(y[0], W @ x[0], rtol=1e-4, atol=1e-4)
    else:
        assert code == 2 and "no GPU available" in err, err


@pytest.mark.slow
def test_console_script_is_installed(tmp_path):
    exe = Path(sys.executable).with_name("phobos-run")
    done = subprocess.run([str(exe), MATVEC, "--sim", "--grid", "16", *matvec_args(), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "y.npy").exists()


def test_bf16_arrays_round_trip_through_npy(tmp_path, capsys):
    import ml_dtypes
    emb = (np.arange(12, dtype=np.float32).reshape(4, 3) / 4).astype(ml_dtypes.bfloat16)
    np.save(tmp_path / "emb.npy", emb)                      # numpy writes bfloat16 as 2-byte void
    ids = np.array([2, 0, 7], np.int32)
    np.save(tmp_path / "ids.npy", ids)
    code, _, err = run(capsys, REPO / "examples" / "embedding_gather.ph", "--sim", "--grid", "3",
                       "--arg", f"ids={tmp_path / 'ids.npy'}", "--arg", f"Emb={tmp_path / 'emb.npy'}",
                       "--arg", "Out=zeros:bf16:3x3", "--out", tmp_path / "out")
    assert code == 0, err
    out = np.load(tmp_path / "out" / "Out.npy").view(ml_dtypes.bfloat16).astype(np.float32)
    assert out.tolist() == [emb[2].astype(np.float32).tolist(), emb[0].astype(np.float32).tolist(), [0, 0, 0]]


@pytest.mark.slow
def test_benchmark_script_runs_with_or_without_numba():
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "sim_vs_numba.py"), "--sizes", "8x128"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "phobos sim (s)" in done.stdout and "8 x 128" in done.stdout


def test_npy_files_of_another_shape_or_order(tmp_path, capsys):
    # a scalar saved with np.save is shape [], not [1]; a Fortran-order array is taken in C order
    np.save(tmp_path / "s.npy", np.float32(3))
    code, _out, err = run(capsys, MATVEC, "--sim", "--grid", "2", "--arg", f"W={tmp_path / 's.npy'}",
                          "--arg", "x=rand:f32:1x256", "--arg", "y=zeros:f32:1x8", "--out", tmp_path)
    assert code == 2 and "the array has shape []" in err, err
    W = np.asfortranarray(np.random.default_rng(1).standard_normal((8, 256), dtype=np.float32))
    np.save(tmp_path / "WF.npy", W)
    code, _out, err = run(capsys, MATVEC, "--sim", "--grid", "2", "--arg", f"W={tmp_path / 'WF.npy'}",
                          "--arg", "x=rand:f32:1x256", "--arg", "y=zeros:f32:1x8", "--out", tmp_path / "o")
    assert code == 0, err
    x, y = np.load(tmp_path / "o" / "x.npy"), np.load(tmp_path / "o" / "y.npy")
    assert np.allclose(y[0], W @ x[0], rtol=1e-4, atol=1e-4)


def test_gpu_grid_beyond_cuda_limits_is_a_usage_error_before_any_gpu_is_needed(tmp_path, capsys):
    code, _out, err = run(capsys, MATVEC, "--gpu", "--grid", "1,70000", *matvec_args(8), "--out", tmp_path)
    assert code == 2 and "beyond CUDA's limits" in err, err
