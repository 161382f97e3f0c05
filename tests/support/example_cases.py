"""The simulator's cases of every kernel in examples/: for each, a few shapes (ragged ones included,
so that masked slices, guards and early exits run), the inputs to build, the launch, and the
comparison of every output with the example's numpy reference.

The references are tests/gpu/cases.py's, the one reference per example that the GPU run uses
too (written from the example's header comment: what the kernel computes, not how). Each case
compares at the tolerance its simulator run allows and adds what a reference cannot say (the
counters a kernel leaves behind, an all-zero row).

Plain numpy and the package, no pytest: tests/simulator/test_examples.py parametrizes over
``CASES``, tests/fuzz/test_differential.py runs them through the lowered module too (it replaces
``kernel``), and tests/gpu/api_gpu.py runs them on a GPU.
"""

from __future__ import annotations

import sys

import ml_dtypes
import numpy as np

from paths import EXAMPLES, GPU
from phobos_tools.run import load

sys.path.insert(0, str(GPU))
from cases import reference  # noqa: E402  (tests/gpu/cases.py: numpy only)

BF16 = ml_dtypes.bfloat16
# example name -> [(case function, shape)]; a case function takes (rng, *shape)
CASES: dict[str, list] = {}


def case(name, *shapes):
    def register(fn):
        CASES[name] = [(fn, s) for s in shapes]
        return fn
    return register


def kernel(name, **defines):
    return load(EXAMPLES / f"{name}.ph", defines=defines or None).kernel(name)


def run(name, args: dict, grid, **defines) -> dict:
    """Run example ``name`` on ``args`` (by parameter name; arrays updated in place) and return
    them."""
    kernel(name, **defines)(**args, grid=grid)
    return args


def cdiv(a, b):
    return -(-a // b)


def close(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- matrix-vector and reductions


@case("lanes_matvec", (8, 128), (37, 256), (130, 512))
def _lanes_matvec(rng, n, k):
    a = run("lanes_matvec", {"W": rng.standard_normal((n, k), dtype=np.float32),
                             "x": rng.standard_normal((1, k), dtype=np.float32),
                             "y": np.full((1, n), 7.0, np.float32)}, grid=(cdiv(n, 4),))
    close(a["y"], reference("lanes_matvec", a)["y"], rtol=1e-4, atol=1e-4)


@case("lane_strided", (8, 100), (16, 33), (64, 300))
def _lane_strided(rng, n, k):
    # N a multiple of 4 (test_examples.py: a ragged N reads out of bounds)
    a = run("lane_strided", {"W": rng.standard_normal((n, k), dtype=np.float32),
                             "A": rng.standard_normal((1, k), dtype=np.float32),
                             "y": np.zeros((1, n), np.float32)}, grid=(n // 4,))
    close(a["y"], reference("lane_strided", a)["y"], rtol=1e-4, atol=1e-4)


@case("row_sums", (8, 32), (13, 70), (100, 5))
def _row_sums(rng, m, n):
    a = run("row_sums", {"A": rng.standard_normal((m, n), dtype=np.float32), "out": np.zeros(m, np.float32)},
            grid=(cdiv(m, 8),))
    close(a["out"], reference("row_sums", a)["out"], rtol=1e-4, atol=1e-4)


@case("row_softmax", (8, 32), (11, 77), (3, 300))
def _row_softmax(rng, m, n):
    X = rng.standard_normal((m, n), dtype=np.float32) * 3
    a = run("row_softmax", {"X": X, "Y": np.zeros_like(X)}, grid=(cdiv(m, 8),))
    close(a["Y"], reference("row_softmax", a)["Y"], rtol=1e-4, atol=1e-6)


@case("block_reduce", (1024,), (3000,), (5,))
def _block_reduce(rng, n):
    g = cdiv(n, 1024)
    a = run("block_reduce", {"X": rng.standard_normal(n, dtype=np.float32), "partials": np.zeros(g, np.float64)},
            grid=(g,))
    close(a["partials"], reference("block_reduce", a)["partials"], rtol=1e-12, atol=1e-9)


@case("quantize_rows", (3, 8), (5, 1028), (1, 2048))
def _quantize_rows(rng, m, n):
    X = rng.standard_normal((m, n), dtype=np.float32)
    X[0, :] = 0.0 if n == 8 else X[0, :]                 # an all-zero row: the 1e-12 floor
    a = run("quantize_rows", {"X": X, "Q": np.zeros((m, n), np.int8), "scale": np.zeros(m, np.float32)},
            grid=(m,))
    want = reference("quantize_rows", a)
    close(a["scale"], want["scale"], rtol=1e-7, atol=0)    # one f32 rounding of the exact quotient
    assert np.abs(a["Q"].astype(int) - want["Q"]).max() <= 1


@case("layernorm_rows", (8, 256), (13, 512), (3, 768))
def _layernorm_rows(rng, m, n):
    a = run("layernorm_rows", {"X": (rng.standard_normal((m, n)) * 2 + 1).astype(BF16),
                               "gamma": rng.standard_normal(n).astype(BF16),
                               "beta": rng.standard_normal(n).astype(BF16),
                               "Y": np.zeros((m, n), BF16), "eps": np.float32(1e-5)}, grid=(cdiv(m, 8),))
    close(a["Y"].astype(np.float32), reference("layernorm_rows", a)["Y"], rtol=2e-2, atol=2e-2)


@case("line_lengths", (8, 64), (10, 100), (3, 7))
def _line_lengths(rng, m, n):
    text = rng.integers(32, 127, (m, n), dtype=np.uint8)
    for r in range(m):
        if r % 3:
            text[r, rng.integers(0, n, 2)] = 0x0A
    a = run("line_lengths", {"text": text, "lengths": np.full(m, -1, np.int32)}, grid=(cdiv(m, 8),))
    assert a["lengths"].tolist() == reference("line_lengths", a)["lengths"].tolist()


# ---------------------------------------------------------------- elementwise with runs


@case("gelu", (4, 64), (7, 24), (1, 8))
def _gelu(rng, m, n):
    X = (rng.standard_normal((m, n)) * 3).astype(np.float16)
    a = run("gelu", {"X": X, "Y": np.zeros_like(X)}, grid=(cdiv(m * n // 8, 256),))
    close(a["Y"].astype(np.float32), reference("gelu", a)["Y"], rtol=2e-3, atol=2e-3)


@case("gamma_correct", (4, 64), (5, 48), (33, 16))
def _gamma_correct(rng, h, w):
    img = rng.integers(0, 256, (h, w), dtype=np.uint8)
    a = run("gamma_correct", {"img": img, "out": np.zeros_like(img), "gamma": np.float32(2.2)},
            grid=(cdiv(h * w // 16, 256),))
    assert np.abs(a["out"].astype(int) - reference("gamma_correct", a)["out"]).max() <= 1


@case("rope", (4, 8, 16), (9, 6, 12), (300, 2, 5))
def _rope(rng, t, d, s):
    X = rng.standard_normal((t, d)).astype(np.float16)
    theta = 10000.0 ** (-np.arange(d // 2) * 2 / d)
    angles = np.arange(s)[:, None] * theta[None, :]
    cos_sin = np.zeros((s, d), np.float32)
    cos_sin[:, 0::2], cos_sin[:, 1::2] = np.cos(angles), np.sin(angles)
    a = run("rope", {"X": X, "positions": rng.integers(0, s, t, dtype=np.int32), "cos_sin": cos_sin,
                     "Y": np.zeros_like(X)}, grid=(cdiv(t * d // 2, 256),))
    close(a["Y"].astype(np.float32), reference("rope", a)["Y"], rtol=2e-3, atol=2e-3)


@case("int8_dot", (3, 5, 16), (2, 130, 48), (4, 7, 64))
def _int8_dot(rng, m, n, k):
    a = run("int8_dot", {"A": rng.integers(-128, 128, (m, k), dtype=np.int8),
                         "Bt": rng.integers(-128, 128, (n, k), dtype=np.int8),
                         "C": np.zeros((m, n), np.int8), "mult": 3, "shift": 9}, grid=(cdiv(n, 128), m))
    assert (a["C"] == reference("int8_dot", a)["C"]).all()


@case("hamming_distance", (3, 5, 2), (2, 200, 3), (1, 1, 1))
def _hamming(rng, m, n, w):
    a = run("hamming_distance", {"A": rng.integers(-2**31, 2**31, (m, w), dtype=np.int64).astype(np.int32),
                                 "B": rng.integers(-2**31, 2**31, (n, w), dtype=np.int64).astype(np.int32),
                                 "D": np.full((m, n), -1, np.int32)}, grid=(cdiv(n, 128), m))
    assert (a["D"] == reference("hamming_distance", a)["D"]).all()


# ---------------------------------------------------------------- tiles


@case("tiled_gemm", (64, 64, 32), (70, 50, 45), (10, 130, 16))
def _tiled_gemm(rng, m, n, k):
    a = run("tiled_gemm", {"A": rng.standard_normal((m, k)).astype(np.float16),
                           "B": rng.standard_normal((k, n)).astype(np.float16),
                           "C": np.full((m, n), 9.0, np.float32)}, grid=(cdiv(n, 64), cdiv(m, 64)))
    close(a["C"], reference("tiled_gemm", a)["C"], rtol=1e-4, atol=1e-4)


@case("linear_relu", (64, 64, 64), (70, 100, 128), (5, 3, 64))
def _linear_relu(rng, m, n, k):
    a = run("linear_relu", {"X": rng.standard_normal((m, k)).astype(BF16),
                            "W": rng.standard_normal((n, k)).astype(BF16),
                            "b": rng.standard_normal((1, n)).astype(np.float32),
                            "Y": np.zeros((m, n), BF16)}, grid=(cdiv(n, 64), cdiv(m, 64)))
    close(a["Y"].astype(np.float32), reference("linear_relu", a)["Y"], rtol=1e-2, atol=1e-2)


@case("attention_scores", (64,), (128,), (100,))
def _attention_scores(rng, r):
    a = run("attention_scores", {"Q": rng.standard_normal((r, 64)).astype(np.float16),
                                 "Kmat": rng.standard_normal((r, 64)).astype(np.float16),
                                 "P": np.zeros((r, 64), np.float16), "scale": np.float32(0.125)},
            grid=(cdiv(r, 64),))
    close(a["P"].astype(np.float32), reference("attention_scores", a)["P"], rtol=2e-3, atol=2e-3)


@case("chunk_cumsum", (32, 64), (40, 100), (3, 5))
def _chunk_cumsum(rng, c, t):
    X = rng.standard_normal((c, t), dtype=np.float32)
    a = run("chunk_cumsum", {"X": X, "Y": np.zeros_like(X)}, grid=(cdiv(c, 32),))
    close(a["Y"], reference("chunk_cumsum", a)["Y"], rtol=1e-4, atol=1e-4)


@case("embedding_gather", (5, 10, 16), (8, 3, 130), (1, 1, 1))
def _embedding_gather(rng, t, v, d):
    ids = rng.integers(0, v, t, dtype=np.int32)
    ids[0] = v + 2                                         # outside the table: a row of zeros
    if t > 1:
        ids[1] = -1
    a = run("embedding_gather", {"ids": ids, "Emb": rng.standard_normal((v, d)).astype(BF16),
                                 "Out": np.full((t, d), 5, BF16)}, grid=(t,))
    assert (a["Out"].astype(np.float64) == reference("embedding_gather", a)["Out"]).all()


# ---------------------------------------------------------------- barriers, shuffles, scans


@case("stage", ())
def _stage(rng):
    A = rng.standard_normal((1, 128), dtype=np.float32)
    a = run("stage", {"A": A, "O": np.zeros_like(A)}, grid=(1,))
    assert (a["O"] == reference("stage", a)["O"]).all()


@case("block_transpose", (100, 300), (256, 128), (5, 129))
def _block_transpose(rng, m, n):
    a = run("block_transpose", {"A": rng.standard_normal((m, n), dtype=np.float32),
                                "B": np.full((n, m), np.nan, np.float32)}, grid=(cdiv(n, 128), cdiv(m, 128)))
    assert (a["B"] == reference("block_transpose", a)["B"]).all()


@case("barrier_store", ())
def _barrier_store(rng):
    A = rng.standard_normal((1, 32), dtype=np.float32)
    a = run("barrier_store", {"A": A, "O": np.zeros_like(A)}, grid=(1,))
    assert (a["O"] == reference("barrier_store", a)["O"]).all()


@case("closed_branch", ())
def _closed_branch(rng):
    A = rng.standard_normal((1, 32), dtype=np.float32)
    a = run("closed_branch", {"A": A, "O": np.zeros_like(A)}, grid=(3,))
    assert (a["O"] == reference("closed_branch", a)["O"]).all()


@case("warp_scan", (256,), (300,), (31,))
def _warp_scan(rng, n):
    X = rng.standard_normal(n, dtype=np.float32)
    g = cdiv(n, 256)
    a = run("warp_scan", {"X": X, "Y": np.zeros_like(X), "warp_totals": np.zeros(g * 8, np.float32)}, grid=(g,))
    want = reference("warp_scan", a)
    close(a["Y"], want["Y"], rtol=1e-5, atol=1e-5)
    close(a["warp_totals"], want["warp_totals"], rtol=1e-5, atol=1e-5)


@case("row_scan", (2, 256), (3, 700), (1, 5))
def _row_scan(rng, m, n):
    X = rng.standard_normal((m, n), dtype=np.float32)
    a = run("row_scan", {"X": X, "Y": np.zeros_like(X)}, grid=(m,))
    close(a["Y"], reference("row_scan", a)["Y"], rtol=1e-4, atol=1e-4)


@case("jacobi_poisson", (2, 40), (1, 3000))
def _jacobi_poisson(rng, b, iters):
    F = rng.standard_normal((b, 1024), dtype=np.float32)
    a = run("jacobi_poisson", {"F": F, "U": np.zeros_like(F), "h2": np.float32(1e-4), "tol": np.float32(1e-7),
                               "max_iters": iters}, grid=(b,))
    # the reference in the kernel's f32: where the iteration stops depends on every rounding
    close(a["U"], reference("jacobi_poisson", a, native=True)["U"], rtol=1e-6, atol=1e-9)


@case("csr_spmv", (10, 20), (37, 300), (1, 1))
def _csr_spmv(rng, m, n):
    counts = rng.integers(0, 70, m)
    row_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    nnz = max(int(row_ptr[-1]), 1)
    a = run("csr_spmv", {"row_ptr": row_ptr, "cols": rng.integers(0, n, nnz, dtype=np.int32),
                         "vals": rng.standard_normal(nnz, dtype=np.float32),
                         "x": rng.standard_normal(n, dtype=np.float32), "y": np.full(m, 3.0, np.float32)},
            grid=(cdiv(m, 4),))
    close(a["y"], reference("csr_spmv", a)["y"], rtol=1e-4, atol=1e-4)


@case("bloom_query", (100, 4, 3), (300, 64, 7), (1, 1, 1))
def _bloom_query(rng, n, nw, hashes):
    a = run("bloom_query", {"keys": rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32),
                            "bits": rng.integers(-2**31, 2**31, nw, dtype=np.int64).astype(np.int32),
                            "hits": np.full(n, 9, np.uint8), "num_hashes": hashes}, grid=(cdiv(n, 256),))
    assert a["hits"].tolist() == reference("bloom_query", a)["hits"].tolist()


# ---------------------------------------------------------------- atomics and acquire/release


@case("grid_counter", (256,), (1000,), (3000,))
def _grid_counter(rng, n):
    g = cdiv(n, 256)
    a = {"X": rng.standard_normal(n, dtype=np.float32), "running": np.zeros(g, np.float32),
         "ready": np.zeros(g, np.int32), "ticket": np.zeros(1, np.int32), "total": np.zeros(1, np.float32)}
    for epoch in (1, 2):                                    # the counter resets itself
        run("grid_counter", dict(a, epoch=epoch), grid=(g,))
        want = reference("grid_counter", a)
        close(a["running"], want["running"], rtol=1e-4, atol=1e-4)
        close(a["total"], want["total"], rtol=1e-4, atol=1e-4)
        assert a["ticket"][0] == 0 and (a["ready"] == epoch).all()


@case("persistent_row_totals", (5, 100, 3), (20, 1000, 2), (1, 1, 4))
def _persistent_row_totals(rng, m, n, g):
    a = run("persistent_row_totals", {"X": rng.integers(-1000, 1000, (m, n), dtype=np.int32),
                                      "totals": np.zeros(m, np.int32), "next_row": np.zeros(1, np.int32),
                                      "extremes": np.array([-2**31, 2**31 - 1], np.int32)}, grid=(g,))
    want = reference("persistent_row_totals", a)
    assert (a["totals"] == want["totals"]).all()
    assert a["extremes"].tolist() == want["extremes"].tolist()
    assert a["next_row"][0] == m + g                       # every CTA took one ticket past the end
