"""Tiles (LANGUAGE §5, §7, §8, §10): the lowering of copies, fills, sweeps and the tile built-ins,
run on numpy arrays by the SIMT interpreter of tests/support/ir_simt.py (the module phobos-build emits,
before optimization, every thread of the CTA, with race and bounds checks), against float64
references. What the PTX itself looks like (masks, barriers, shared memory) is checked here
too; tests/gpu runs the same examples on a GPU."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from ir_simt import SimtError, build, run
from lowering_tools import REPO, ptx_of

from paths import GPU
from phobos_tools.lowering.build import build_source

pytestmark = pytest.mark.slow

sys.path.insert(0, str(GPU))
from cases import REFERENCES  # noqa: E402

import ml_dtypes  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)

rng = np.random.default_rng(7)


def example(name: str) -> str:
    return (REPO / "examples" / f"{name}.ph").read_text()


def close(got, want, tol):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64).reshape(got.shape)
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-30)
    err = float(np.abs(got - want).max(initial=0.0)) / scale
    assert err <= tol, f"max relative error {err:.3e} > {tol:.1e}"


def f64(arrays: dict) -> dict:
    return {k: (v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype.kind in "fV" or
                isinstance(v, np.ndarray) and v.dtype == BF16 else v) for k, v in arrays.items()}


# ---------------------------------------------------------------- the tile examples, small
def test_stage_barrier_store_closed_branch():
    for name in ("stage", "barrier_store", "closed_branch"):
        n = 128 if name == "stage" else 32
        a = {"A": rng.standard_normal((1, n)).astype(np.float32), "O": np.zeros((1, n), np.float32)}
        ref = REFERENCES[name](f64(a))
        run(example(name), a, (1,))
        close(a["O"], ref["O"], 0.0)


def test_embedding_gather_masks_rows_outside_the_table():
    a = {"ids": np.array([3, -1, 7, 10, 0, 2**31 - 1], np.int32), "Emb": rng.standard_normal((10, 37)).astype(BF16),
         "Out": np.full((6, 37), 5.0, BF16)}
    ref = REFERENCES["embedding_gather"](f64(a))
    run(example("embedding_gather"), a, (6,))
    close(a["Out"], ref["Out"], 0.0)


def test_jacobi_poisson():
    a = {"F": rng.standard_normal((2, 1024)).astype(np.float32), "U": np.zeros((2, 1024), np.float32)}
    scalars = {"h2": 0.01, "tol": 0.0, "max_iters": 3}
    ref = REFERENCES["jacobi_poisson"]({**f64(a), **scalars})
    run(example("jacobi_poisson"), a, (2,), scalars=scalars)
    close(a["U"], ref["U"], 1e-6)


def test_row_scan_cumsum_of_warp_totals():
    a = {"X": rng.standard_normal((2, 600)).astype(np.float32), "Y": np.zeros((2, 600), np.float32)}
    ref = REFERENCES["row_scan"](f64(a))
    run(example("row_scan"), a, (2,))
    close(a["Y"], ref["Y"], 1e-5)


def test_chunk_cumsum_transposes_and_carries():
    a = {"X": rng.standard_normal((40, 100)).astype(np.float32), "Y": np.zeros((40, 100), np.float32)}
    ref = REFERENCES["chunk_cumsum"](f64(a))
    run(example("chunk_cumsum"), a, (2,))
    close(a["Y"], ref["Y"], 1e-5)


def test_tiled_gemm_masked_edges():
    a = {"A": rng.standard_normal((40, 50)).astype(np.float16), "B": rng.standard_normal((50, 36)).astype(np.float16),
         "C": np.zeros((40, 36), np.float32)}
    ref = REFERENCES["tiled_gemm"](f64(a))
    run(example("tiled_gemm"), a, (2, 2), defines={"BM": 32, "BN": 32, "BK": 16})
    close(a["C"], ref["C"], 1e-6)


def test_linear_relu_dot_t_bias_and_tmax():
    a = {"X": rng.standard_normal((40, 64)).astype(BF16), "W": rng.standard_normal((32, 64)).astype(BF16),
         "b": rng.standard_normal((1, 32)).astype(np.float32), "Y": np.zeros((40, 32), BF16)}
    ref = REFERENCES["linear_relu"](f64(a))
    run(example("linear_relu"), a, (1, 2), defines={"BM": 32, "BN": 32, "BK": 32})
    close(a["Y"], ref["Y"], 1e-2)


def test_attention_scores_softmax_of_dot_t():
    a = {"Q": rng.standard_normal((64, 64)).astype(np.float16), "Kmat": rng.standard_normal((64, 64)).astype(np.float16),
         "P": np.zeros((64, 64), np.float16)}
    ref = REFERENCES["attention_scores"]({**f64(a), "scale": 0.125})
    run(example("attention_scores"), a, (1,), scalars={"scale": 0.125})
    close(a["P"], ref["P"], 2e-3)


# ---------------------------------------------------------------- constructs
def k(body: str, params: str, launch: int = 128) -> str:
    return f"@launch({launch})\nkernel t({params}) {{\n{body}\n}}\n"


def test_masked_copies_read_zero_and_skip_stores_at_every_edge():
    src = k("  let r0 = ctx.block.y * 4 - 2\n  let c0 = ctx.block.x * 8 - 3\n"
            "  var t: tile<f32>[4, 8] = A[r0 :+ 4, c0 :+ 8]\n  t = t + 1.0\n  O[r0 :+ 4, c0 :+ 8] = t",
            "A: tensor<f32>[M, N], O: tensor<f32>[M, N]", 64)
    a = {"A": rng.standard_normal((7, 13)).astype(np.float32), "O": np.full((7, 13), -9.0, np.float32)}
    want = a["A"] + 1.0
    run(src, a, (3, 3))
    close(a["O"], want, 1e-7)


def test_masked_read_gives_zero():
    src = k("  var t: tile<f32>[4, 4] = A[2 :+ 4, 0 :+ 4]\n  O[0 :+ 4, 0 :+ 4] = t",
            "A: tensor<f32>[M, 4], O: tensor<f32>[4, 4]", 32)
    a = {"A": np.arange(12, dtype=np.float32).reshape(3, 4) + 1, "O": np.full((4, 4), -1.0, np.float32)}
    run(src, a, (1,))
    want = np.zeros((4, 4))
    want[0] = a["A"][2]
    close(a["O"], want, 0.0)


def test_broadcasting_rows_columns_and_rank_one():
    src = k("  var t: tile<f32>[8, 16] = A[0 :+ 8, 0 :+ 16]\n"
            "  t = t * A[0 :+ 8, 16 :+ 1] + A[8 :+ 1, 0 :+ 16] - A[9, 0 :+ 16]\n  O[0 :+ 8, 0 :+ 16] = t",
            "A: tensor<f32>[10, 17], O: tensor<f32>[8, 16]")
    a = {"A": rng.standard_normal((10, 17)).astype(np.float32), "O": np.zeros((8, 16), np.float32)}
    A = a["A"].astype(np.float64)
    want = A[:8, :16] * A[:8, 16:17] + A[8:9, :16] - A[9, :16]
    run(src, a, (1,))
    close(a["O"], want, 1e-6)


def test_compound_assignment_on_a_masked_slice():
    src = k("  var t: tile<f32>[4, 4] = 2.0\n  O[ctx.block.x * 4 :+ 4, 0 :+ 4] += t\n"
            "  O[ctx.block.x * 4 :+ 4, 0 :+ 4] *= t", "O: tensor<f32>[M, 4]", 32)
    a = {"O": rng.standard_normal((6, 4)).astype(np.float32)}
    want = (a["O"].astype(np.float64) + 2.0) * 2.0
    run(src, a, (2,))
    close(a["O"], want, 1e-6)


def test_let_view_and_materialized_let():
    src = k("  var t: tile<f32>[4, 8] = A[0 :+ 4, 0 :+ 8]\n  let v = t[1 :+ 2, 2 :+ 4]\n"
            "  let m = v * 3.0\n  t = 0.0\n  O[0 :+ 2, 0 :+ 4] = m + v", "A: tensor<f32>[4, 8], O: tensor<f32>[2, 4]")
    a = {"A": rng.standard_normal((4, 8)).astype(np.float32), "O": np.zeros((2, 4), np.float32)}
    want = a["A"].astype(np.float64)[1:3, 2:6] * 3.0          # v reads t after t = 0.0
    run(src, a, (1,))
    close(a["O"], want, 1e-6)


def test_reading_the_target_elsewhere_goes_through_scratch():
    src = k("  var c: tile<f32>[16, 16] = A[0 :+ 16, 0 :+ 16]\n  c = transpose(c) + c\n"
            "  c = c[0 :+ 1, :] * 2.0\n  O[0 :+ 16, 0 :+ 16] = c", "A: tensor<f32>[16, 16], O: tensor<f32>[16, 16]")
    a = {"A": rng.standard_normal((16, 16)).astype(np.float32), "O": np.zeros((16, 16), np.float32)}
    A = a["A"].astype(np.float64)
    c = A.T + A
    run(src, a, (1,))
    close(a["O"], np.repeat(c[0:1] * 2.0, 16, axis=0), 1e-6)


@pytest.mark.parametrize("shape", [(5, 20), (3, 100), (40, 7), (64, 64)])
def test_rowsum_rowmax_cumsum_tril(shape):
    r, c = shape
    src = k(f"  var t: tile<f32>[{r}, {c}] = A[0 :+ {r}, 0 :+ {c}]\n"
            f"  O[0 :+ {r}, 0 :+ {c}] = (t - rowmax(t)) * rowsum(t) + cumsum(t) + tril(t)",
            f"A: tensor<f32>[{r}, {c}], O: tensor<f32>[{r}, {c}]", 256)
    a = {"A": rng.standard_normal(shape).astype(np.float32), "O": np.zeros(shape, np.float32)}
    A = a["A"].astype(np.float64)
    want = (A - A.max(1, keepdims=True)) * A.sum(1, keepdims=True) + np.cumsum(A, 0) + np.tril(A)
    run(src, a, (1,))
    close(a["O"], want, 1e-5)


@pytest.mark.parametrize("fill", ["huge", "minus_inf"])
def test_cumsum_with_infinities_is_what_the_running_sum_gives(fill):
    """Found by the fuzzer (seed 16553701237367577090): each lane's segment started from `scan -
    total`, NaN once a segment's sum is infinite (3e38 + 3e38 overflows; a -inf below). The rows
    before an infinity keep their finite sums, the rows from it on are the infinity, as the
    simulator's running sum gives (these values add exactly in any order)."""
    src = k("  var sq: tile<f32>[8, 8] = S[0 :+ 8, 0 :+ 8]\n  sq = cumsum(sq)\n  O[0 :+ 8, 0 :+ 8] = sq",
            "S: tensor<f32>[8, 8], O: tensor<f32>[8, 8]", 32)
    if fill == "huge":
        s = np.full((8, 8), 3.0e38, np.float32)
    else:
        s = np.arange(64, dtype=np.float32).reshape(8, 8)
        s[5, 1] = -np.inf
    a = {"S": s, "O": np.zeros((8, 8), np.float32)}
    run(src, a, (1,))
    with np.errstate(over="ignore"):
        want = np.cumsum(s, axis=0, dtype=np.float32)
    assert np.array_equal(a["O"], want)


@pytest.mark.parametrize("m,n,kk,threads", [(16, 16, 16, 256), (24, 40, 8, 128), (8, 8, 32, 64), (64, 32, 4, 32)])
def test_dot_and_dot_t(m, n, kk, threads):
    src = k(f"  let a = A[0 :+ {m}, 0 :+ {kk}]\n  var b: tile<f32>[{kk}, {n}] = B[0 :+ {kk}, 0 :+ {n}]\n"
            f"  var bt: tile<f32>[{n}, {kk}] = transpose(b)\n"
            f"  O[0 :+ {m}, 0 :+ {n}] = dot(a, b) + 2.0 * dot_t(a, bt)",
            f"A: tensor<f32>[{m}, {kk}], B: tensor<f32>[{kk}, {n}], O: tensor<f32>[{m}, {n}]", threads)
    a = {"A": rng.standard_normal((m, kk)).astype(np.float32), "B": rng.standard_normal((kk, n)).astype(np.float32),
         "O": np.zeros((m, n), np.float32)}
    run(src, a, (1,))
    close(a["O"], 3.0 * a["A"].astype(np.float64) @ a["B"].astype(np.float64), 1e-5)


def test_int8_dot_accumulates_in_i32():
    src = k("  var c: tile<i32>[8, 8] = dot(A[0 :+ 8, 0 :+ 64], B[0 :+ 64, 0 :+ 8])\n  O[0 :+ 8, 0 :+ 8] = c",
            "A: tensor<i8>[8, 64], B: tensor<i8>[64, 8], O: tensor<i32>[8, 8]")
    a = {"A": rng.integers(-128, 128, (8, 64)).astype(np.int8), "B": rng.integers(-128, 128, (64, 8)).astype(np.int8),
         "O": np.zeros((8, 8), np.int32)}
    run(src, a, (1,))
    assert np.array_equal(a["O"], a["A"].astype(np.int64) @ a["B"].astype(np.int64))


def test_every_cta_op_fixture_and_the_quantized_intrinsics():
    base = REPO / "tests" / "spec_conformance" / "PH301_cta_op_divergent_control"
    a = {"A": (rng.random((64, 64)) * 0.1 + 0.05).astype(np.float32), "O": np.zeros((64, 64), np.float32),
         "C": np.zeros(16, np.int32)}
    a["C"][4] = 9
    run((base / "clean_every_cta_op_at_top_level.ph").read_text(), a, (1,), scalars={"n": 3})
    A = a["A"].astype(np.float64)
    x, y = A[0:16, 0:16], A[16:32, 0:16]
    c = np.tril(np.cumsum(x @ y + x @ y.T, 0)).T
    c = np.exp(c) + np.log(x) + np.sqrt(y) + np.tanh(c) + np.round(x)
    close(a["O"][:16, :16], np.where(c > x, c, x) * 3, 1e-5)
    close(a["O"][16:32, 0:1], np.maximum(x.sum(1, keepdims=True), y.max(1, keepdims=True)), 1e-6)
    assert list(a["C"][:6]) == [1, 3, 0, 0, 9, 9]

    q = {"X": rng.integers(-128, 128, (16, 64)).astype(np.int8), "W": rng.integers(-128, 128, (8, 64)).astype(np.int8),
         "SX": rng.random((16, 2)).astype(np.float32), "SW": rng.random((8, 2)).astype(np.float32),
         "SWT": rng.random((2, 8)).astype(np.float32), "O": np.zeros((16, 8), np.float32)}
    run((base / "clean_quantized_intrinsics.ph").read_text(), q, (1,))

    def qdot(sw):
        out = np.zeros((16, 8))
        for blk in range(2):
            ks = slice(32 * blk, 32 * blk + 32)
            out += (q["X"][:, ks].astype(np.int64) @ q["W"][:, ks].astype(np.int64).T) * q["SX"][:, blk:blk + 1] * sw[:, blk]
        return out
    close(q["O"], qdot(q["SW"]) + qdot(q["SWT"].T), 1e-6)


# ---------------------------------------------------------------- the checks of the interpreter
def test_the_interpreter_catches_a_missing_barrier(monkeypatch):
    from phobos_tools.lowering import intrinsics
    monkeypatch.setattr(intrinsics, "barrier", lambda o: None)
    a = {"X": rng.standard_normal((1, 300)).astype(np.float32), "Y": np.zeros((1, 300), np.float32)}
    with pytest.raises(SimtError, match="race"):
        run(example("row_scan"), a, (1,))


# ---------------------------------------------------------------- masks (§7)
def ir_of(src: str, defines=None) -> str:
    r = build_source(src, "t.ph", defines, resources=False)
    assert r.ok, [(d.code, d.message) for d in r.diagnostics]
    return r.kernels[0].llvm_ir


def test_mask_is_dropped_where_loop_bounds_and_aligned_prove_the_slice_in_bounds():
    body = ("  var t: tile<f32>[1, 32] = 0.0\n  for k0 in range(0, K, 32) {\n"
            "    t += A[0 :+ 1, k0 :+ 32]\n  }\n  O[0 :+ 1, 0 :+ 32] = t")
    params = "A: tensor<f32>[1, K], O: tensor<f32>[1, 32]"
    assert "masked_load" not in ir_of("@aligned(K = 32)\n" + k(body, params))
    assert "masked_load" in ir_of(k(body, params))                 # K need not be a multiple of 32
    assert "masked_load" in ir_of("@aligned(K = 16)\n" + k(body, params))


def test_mask_is_dropped_for_static_shapes_and_guarded_offsets():
    assert "masked_load" not in ir_of(k("  O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 32 :+ 32]",
                                        "A: tensor<f32>[1, 64], O: tensor<f32>[1, 32]"))
    guarded = k("  let r = ctx.block.x\n  if r < M {\n    O[r :+ 1, 0 :+ 32] = A[r :+ 1, 0 :+ 32]\n  }",
                "A: tensor<f32>[M, 32], O: tensor<f32>[M, 32]")
    assert "masked_load" not in ir_of(guarded)
    assert "masked_load" in ir_of(guarded.replace("if r < M", "if r < M + 1"))


# ---------------------------------------------------------------- barriers (§10)
def barriers(ir_text: str) -> int:
    return ir_text.count("@\"llvm.nvvm.barrier.cta.sync.aligned.all\"(i32 0)")


def test_one_barrier_after_each_tile_operation_and_none_else():
    # fill, user barrier, copy out: three
    assert barriers(ir_of(example("stage"))) == 3
    # a CTA-wide write after a per-thread store to the same tile gets one before it too
    src = k("  var t: tile<f32>[1, 32] = 0.0\n  t[0, ctx.lane] = 1.0\n  t = A[0 :+ 1, 0 :+ 32]\n  barrier()\n"
            "  O[0 :+ 1, 0 :+ 32] = t", "A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]", 32)
    assert barriers(ir_of(src)) == 1 + (1 + 1) + 1 + 1
    # ... but not when the store went to another buffer, or a barrier came between
    other = src.replace("t[0, ctx.lane] = 1.0", "O[0, ctx.lane] = 1.0")
    assert barriers(ir_of(other)) == 1 + 1 + 1 + 1
    synced = src.replace("t[0, ctx.lane] = 1.0", "t[0, ctx.lane] = 1.0\n  barrier()")
    assert barriers(ir_of(synced)) == 1 + 1 + 1 + 1 + 1


def test_pending_stores_follow_loops_and_branches():
    src = k("  var t: tile<f32>[1, 32] = 0.0\n  for i in range(0, n) {\n    t = A[0 :+ 1, 0 :+ 32]\n"
            "    if n > 3 {\n      t[0, ctx.lane] = 2.0\n    }\n  }\n  barrier()\n  O[0 :+ 1, 0 :+ 32] = t",
            "A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32", 32)
    # the copy into t meets the store of the previous iteration through the back edge
    assert barriers(ir_of(src)) == 1 + (1 + 1) + 1 + 1
    a = {"A": rng.standard_normal((1, 32)).astype(np.float32), "O": np.zeros((1, 32), np.float32)}
    run(src, a, (1,), scalars={"n": 4})
    close(a["O"], np.full((1, 32), 2.0), 0.0)


# ---------------------------------------------------------------- shared memory (§10)
def test_static_shared_memory_up_to_48_kb_dynamic_beyond():
    small = k("  var t: tile<f32>[64, 64] = A[0 :+ 64, 0 :+ 64]\n  O[0 :+ 64, 0 :+ 64] = t * 2.0",
              "A: tensor<f32>[M, 64], O: tensor<f32>[M, 64]", 256)
    r = build_source(small, "t.ph", resources=False)
    assert r.kernels[0].manifest["dynamic_shared_bytes"] == 0
    assert ".shared .align 16 .b8 t_" in r.kernels[0].ptx
    big = small.replace("64, 64]", "128, 128]").replace(":+ 64", ":+ 128").replace("[M, 64]", "[M, 128]")
    r = build_source(big, "t.ph", resources=False)
    m = r.kernels[0].manifest
    assert m["dynamic_shared_bytes"] == 128 * 128 * 4
    assert ".extern .shared .align 16 .b8 __phobos_dynamic_t[]" in r.kernels[0].ptx
    a = {"A": rng.standard_normal((128, 128)).astype(np.float32), "O": np.zeros((128, 128), np.float32)}
    run(big, a, (1,))
    close(a["O"], 2.0 * a["A"], 0.0)


def test_scratch_tiles_of_different_statements_share_bytes():
    src = k("  var t: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]\n  t = t - rowmax(t)\n  t = t / rowsum(t)\n"
            "  t = transpose(t) + t\n  O[0 :+ 32, 0 :+ 32] = t", "A: tensor<f32>[32, 32], O: tensor<f32>[32, 32]", 256)
    ptx = ptx_of(src)
    # t (4096 bytes) and one scratch region as large as the largest statement needs (transpose: 4096)
    assert ".b8 __phobos_scratch_t[4096]" in ptx


def test_shared_memory_over_the_target_limit_is_a_located_error():
    src = k("  var t: tile<f32>[128, 160] = 0.0\n  O[0 :+ 128, 0 :+ 160] = t", "O: tensor<f32>[128, 160]", 256)
    r = build_source(src, "t.ph", arch="sm_75", resources=False)
    assert not r.ok and [d.code for d in r.diagnostics] == ["PH211"]
    assert build_source(src, "t.ph", arch="sm_90", resources=False).ok


def test_interpreter_builds_the_same_module_the_compiler_does():
    module, kinfo = build(example("tiled_gemm"))
    assert kinfo.kernel.name in module.globals


def test_a_computed_tile_argument_is_swept_into_a_tile_of_its_own():
    # `first(t * 2.0 + f32(i))` in a loop: the fresh tile is rewritten each iteration, after a
    # barrier, while the callee reads it per thread; `exp(t)` to a function that copies it out
    src = """fn first(t: tile<f32>[2, 32]) -> f32 {
  return t[1, ctx.lane]
}
fn copy_out(t: tile<f32>[2, 32], O: tensor<f32>[2, 32]) {
  O[0 :+ 2, 0 :+ 32] = t
}
@launch(64)
kernel k(A: tensor<f32>[2, 32], O: tensor<f32>[64], P: tensor<f32>[2, 32]) {
  var t: tile<f32>[2, 32] = A[0 :+ 2, 0 :+ 32]
  var acc: f32 = 0.0
  for i in range(0, 3) {
    acc += first(t * 2.0 + f32(i))
  }
  O[ctx.thread] = acc
  copy_out(exp(t), P)
}
"""
    A = rng.standard_normal((2, 32)).astype(np.float32)
    a = {"A": A, "O": np.zeros(64, np.float32), "P": np.zeros((2, 32), np.float32)}
    run(src, a, (2,))
    close(a["O"], sum(A[1, np.arange(64) % 32].astype(np.float64) * 2 + i for i in range(3)), 1e-6)
    close(a["P"], np.exp(A.astype(np.float64)), 1e-6)
    ptx = ptx_of(src)
    assert ptx.count(".shared") >= 3          # t and the two argument tiles


TILE_RESULTS = """fn twice(t: tile<f32>[R, C]) -> tile<f32>[R, C] {
  return t * 2.0
}
fn rowsums(t: tile<f32>[R, C], scale: f32) -> tile<f32>[R, 1] {
  if scale > 100.0 {
    return rowsum(t)
  }
  return rowsum(t) * scale
}
fn first_big(A: tensor<f32>[N, C], limit: f32) -> tile<f32>[1, C] {
  for r in range(0, N) {
    if A[r, 0] > limit {
      return A[r :+ 1, 0 :+ C]
    }
  }
  return A[0 :+ 1, 0 :+ C] * 0.0
}
@launch(64)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32], S: tensor<f32>[4, 1], F: tensor<f32>[1, 32], s: f32) {
  var u: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  var v: tile<f32>[4, 32] = twice(u) + twice(twice(u))
  for i in range(0, 2) {
    v = twice(v) - v
  }
  O[0 :+ 4, 0 :+ 32] = v
  S[0 :+ 4, 0 :+ 1] = rowsums(twice(u), s)
  let w = first_big(A, s)
  F[0 :+ 1, 0 :+ 32] = w + 1.0
}
"""


@pytest.mark.parametrize("s", [0.5, 3.0, 200.0])
def test_functions_return_tiles_in_a_tile_of_their_own(s):
    # each call's result is a shared tile the `return` fills CTA-wide; nested calls, a call in a
    # loop reassigning its own argument, returns under uniform branches and inside a loop
    A = rng.random((4, 32)).astype(np.float32)
    a = {"A": A, "O": np.zeros((4, 32), np.float32), "S": np.zeros((4, 1), np.float32),
         "F": np.zeros((1, 32), np.float32)}
    run(TILE_RESULTS, a, (2,), scalars={"s": s})
    a64 = A.astype(np.float64)
    close(a["O"], 6 * a64, 1e-6)
    close(a["S"], (2 * a64).sum(1, keepdims=True) * (s if s <= 100 else 1), 1e-6)
    rows = [r for r in range(4) if A[r, 0] > s]
    close(a["F"][0], (a64[rows[0]] if rows else 0 * a64[0]) + 1, 1e-6)
    # the simulator agrees
    from phobos_tools.run import loads
    b = {k: (v.copy() if k == "A" else np.zeros_like(v)) for k, v in a.items()}
    loads(TILE_RESULTS, "k.ph").kernel()(b["A"], b["O"], b["S"], b["F"], s, grid=(2,))
    for k in ("O", "S", "F"):
        close(b[k], a[k], 1e-6)


ORDER = {
    # a function called in a tile statement runs before the statement reads its tiles, in the
    # lowering (which inlines it while preparing the statement) and in the simulator alike
    "tile parameter": """fn f(t: tile<f32>[R, C]) -> tile<f32>[R, C] {
  t[0 :+ R, 0 :+ C] = 5.0
  return t
}
@launch(32)
kernel k(X: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var u: tile<f32>[1, 32] = X[0 :+ 1, 0 :+ 32]
  O[0 :+ 1, 0 :+ 32] = u + f(u)
}
""",
    "tensor, scalar result": """fn f(X: tensor<f32>[R, C]) -> f32 {
  X[0 :+ R, 0 :+ C] = 5.0
  return 5.0
}
@launch(32)
kernel k(X: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  O[0 :+ 1, 0 :+ 32] = X[0 :+ 1, 0 :+ 32] + f(X)
}
""",
    "where": """fn f(t: tile<f32>[R, C]) -> tile<f32>[R, C] {
  t[0 :+ R, 0 :+ C] = 5.0
  return t * 1.0
}
@launch(32)
kernel k(X: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var u: tile<f32>[1, 32] = X[0 :+ 1, 0 :+ 32]
  O[0 :+ 1, 0 :+ 32] = where(u > 3.0, u, f(u))
}
""",
}


@pytest.mark.parametrize("name", ORDER)
def test_calls_in_a_tile_statement_run_before_its_tiles_are_read(name):
    from phobos_tools.run import loads
    src = ORDER[name]
    X = (rng.random((1, 32)) * 6).astype(np.float32)
    a = {"X": X.copy(), "O": np.zeros((1, 32), np.float32)}
    run(src, a, (1,))
    close(a["O"], np.full((1, 32), 10.0) if name != "where" else np.full((1, 32), 5.0), 0.0)
    b = [X.copy(), np.zeros((1, 32), np.float32)]
    loads(src, "k.ph").kernel()(*b, grid=(1,))
    close(b[1], a["O"], 0.0)
