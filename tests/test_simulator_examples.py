"""The simulator against numpy references: every kernel in examples/, at several shapes, ragged ones
included so that masked slices, guards and early exits are exercised. Each case builds inputs,
runs the kernel on the simulator and compares every output with a reference written from the
example's header comment (what the kernel computes), not from its code."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from phobos_tools.run import DynamicCheckFailed, load

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
BF16 = ml_dtypes.bfloat16
CASES: dict[str, list] = {}


def case(name, *shapes):
    def register(fn):
        CASES[name] = [(fn, s) for s in shapes]
        return fn
    return register


def kernel(name, **defines):
    return load(EXAMPLES / f"{name}.ph", defines=defines or None).kernel(name)


def cdiv(a, b):
    return -(-a // b)


def close(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- matrix-vector and reductions


@case("lanes_matvec", (8, 128), (37, 256), (130, 512))
def _lanes_matvec(rng, n, k):
    W = rng.standard_normal((n, k), dtype=np.float32)
    x = rng.standard_normal((1, k), dtype=np.float32)
    y = np.full((1, n), 7.0, np.float32)
    kernel("lanes_matvec")(W, x, y, grid=(cdiv(n, 4),))
    close(y[0], W @ x[0], rtol=1e-4, atol=1e-4)


def test_lanes_matvec_at_4096_by_1024_runs_its_ctas_as_one_vector(monkeypatch):
    """Issue 7's bar: CTAs of a kernel without atomics run together, so the spec's matvec at
    N = 4096, K = 1024 (1024 CTAs of 128 threads) is one batch of numpy vectors, not 1024 runs.
    Its time is a benchmark's figure (benchmarks/sim_vs_numba.py), not a unit test's."""
    from phobos_tools.run import loads
    from phobos_tools.simulator import launch
    made = []

    class Counting(launch.Machine):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self.C)
    monkeypatch.setattr(launch, "Machine", Counting)
    source = (EXAMPLES / "lanes_matvec.ph").read_text()
    rng = np.random.default_rng(0)
    W = rng.standard_normal((4096, 1024), dtype=np.float32)
    x = rng.standard_normal((1, 1024), dtype=np.float32)
    y = np.zeros((1, 4096), np.float32)
    loads(source, "lanes_matvec.ph").kernel()(W, x, y, grid=(1024,))
    close(y[0], W @ x[0], rtol=1e-5, atol=1e-4)
    assert made == [1024]


@case("lane_strided", (8, 100), (16, 33), (64, 300))
def _lane_strided(rng, n, k):
    W = rng.standard_normal((n, k), dtype=np.float32)
    A = rng.standard_normal((1, k), dtype=np.float32)
    y = np.zeros((1, n), np.float32)
    kernel("lane_strided")(W, A, y, grid=(n // 4,))      # N a multiple of 4: see the test below
    close(y[0], W @ A[0], rtol=1e-4, atol=1e-4)


def test_lane_strided_with_ragged_rows_reads_out_of_bounds():
    """LANGUAGE §11's lane_strided loads W[col, k] before checking col < N, so with N not a
    multiple of the warps per CTA the last warps read past W: undefined on a GPU, reported here."""
    rng = np.random.default_rng(1)
    W = rng.standard_normal((6, 40), dtype=np.float32)
    A = rng.standard_normal((1, 40), dtype=np.float32)
    y = np.zeros((1, 6), np.float32)
    with pytest.raises(DynamicCheckFailed) as err:
        kernel("lane_strided")(W, A, y, grid=(2,))
    assert err.value.code == "PH402"
    assert "`W[col, k]` is out of bounds of `W` (shape [6, 40])" in str(err.value)
    assert "CTA (1, 0, 0)" in str(err.value)


@case("row_sums", (8, 32), (13, 70), (100, 5))
def _row_sums(rng, m, n):
    A = rng.standard_normal((m, n), dtype=np.float32)
    out = np.zeros(m, np.float32)
    kernel("row_sums")(A, out, grid=(cdiv(m, 8),))
    close(out, A.sum(1), rtol=1e-4, atol=1e-4)


@case("row_softmax", (8, 32), (11, 77), (3, 300))
def _row_softmax(rng, m, n):
    X = rng.standard_normal((m, n), dtype=np.float32) * 3
    Y = np.zeros_like(X)
    kernel("row_softmax")(X, Y, grid=(cdiv(m, 8),))
    e = np.exp(X - X.max(1, keepdims=True))
    close(Y, e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-6)


@case("block_reduce", (1024,), (3000,), (5,))
def _block_reduce(rng, n):
    X = rng.standard_normal(n, dtype=np.float32)
    g = cdiv(n, 1024)
    partials = np.zeros(g, np.float64)
    kernel("block_reduce")(X, partials, grid=(g,))
    want = [X[b * 1024:(b + 1) * 1024].astype(np.float64).sum() for b in range(g)]
    close(partials, want, rtol=1e-12, atol=1e-9)


@case("quantize_rows", (3, 8), (5, 1028), (1, 2048))
def _quantize_rows(rng, m, n):
    X = rng.standard_normal((m, n), dtype=np.float32)
    X[0, :] = 0.0 if n == 8 else X[0, :]                 # an all-zero row: the 1e-12 floor
    Q = np.zeros((m, n), np.int8)
    scale = np.zeros(m, np.float32)
    kernel("quantize_rows")(X, Q, scale, grid=(m,))
    s = (np.maximum(np.abs(X).max(1), np.float32(1e-12)) / np.float32(127)).astype(np.float32)
    inv = (np.float32(1) / s).astype(np.float32)
    q = np.clip(np.rint(X * inv[:, None]), -127, 127).astype(np.int8)
    close(scale, s, rtol=1e-7, atol=0)
    assert np.abs(Q.astype(int) - q.astype(int)).max() <= 1


@case("layernorm_rows", (8, 256), (13, 512), (3, 768))
def _layernorm_rows(rng, m, n):
    X = (rng.standard_normal((m, n)) * 2 + 1).astype(BF16)
    gamma = rng.standard_normal(n).astype(BF16)
    beta = rng.standard_normal(n).astype(BF16)
    Y = np.zeros((m, n), BF16)
    kernel("layernorm_rows")(X, gamma, beta, Y, np.float32(1e-5), grid=(cdiv(m, 8),))
    x = X.astype(np.float32)
    mean = x.mean(1, keepdims=True)
    var = ((x - mean) ** 2).mean(1, keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * gamma.astype(np.float32) + beta.astype(np.float32)
    close(Y.astype(np.float32), want, rtol=2e-2, atol=2e-2)


@case("line_lengths", (8, 64), (10, 100), (3, 7))
def _line_lengths(rng, m, n):
    text = rng.integers(32, 127, (m, n), dtype=np.uint8)
    for r in range(m):
        if r % 3:
            text[r, rng.integers(0, n, 2)] = 0x0A
    lengths = np.full(m, -1, np.int32)
    kernel("line_lengths")(text, lengths, grid=(cdiv(m, 8),))
    want = [int(np.argmax(row == 0x0A)) if (row == 0x0A).any() else n for row in text]
    assert lengths.tolist() == want


# ---------------------------------------------------------------- elementwise with runs


@case("gelu", (4, 64), (7, 24), (1, 8))
def _gelu(rng, m, n):
    X = (rng.standard_normal((m, n)) * 3).astype(np.float16)
    Y = np.zeros_like(X)
    kernel("gelu")(X, Y, grid=(cdiv(m * n // 8, 256),))
    x = X.astype(np.float32)
    want = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    close(Y.astype(np.float32), want, rtol=2e-3, atol=2e-3)


@case("gamma_correct", (4, 64), (5, 48), (33, 16))
def _gamma_correct(rng, h, w):
    img = rng.integers(0, 256, (h, w), dtype=np.uint8)
    out = np.zeros_like(img)
    gamma = np.float32(2.2)
    kernel("gamma_correct")(img, out, gamma, grid=(cdiv(h * w // 16, 256),))
    level = np.power(img.astype(np.float32) / np.float32(255), np.float32(1) / gamma)
    want = np.minimum(np.rint(np.float32(255) * level), 255).astype(np.uint8)
    assert np.abs(out.astype(int) - want.astype(int)).max() <= 1


@case("rope", (4, 8, 16), (9, 6, 12), (300, 2, 5))
def _rope(rng, t, d, s):
    X = rng.standard_normal((t, d)).astype(np.float16)
    positions = rng.integers(0, s, t, dtype=np.int32)
    theta = 10000.0 ** (-np.arange(d // 2) * 2 / d)
    angles = np.arange(s)[:, None] * theta[None, :]
    cos_sin = np.zeros((s, d), np.float32)
    cos_sin[:, 0::2], cos_sin[:, 1::2] = np.cos(angles), np.sin(angles)
    Y = np.zeros_like(X)
    kernel("rope")(X, positions, cos_sin, Y, grid=(cdiv(t * d // 2, 256),))
    x = X.astype(np.float32)
    c, sn = cos_sin[positions, 0::2], cos_sin[positions, 1::2]
    want = np.empty_like(x)
    want[:, 0::2] = x[:, 0::2] * c - x[:, 1::2] * sn
    want[:, 1::2] = x[:, 0::2] * sn + x[:, 1::2] * c
    close(Y.astype(np.float32), want, rtol=2e-3, atol=2e-3)


@case("int8_dot", (3, 5, 16), (2, 130, 48), (4, 7, 64))
def _int8_dot(rng, m, n, k):
    A = rng.integers(-128, 128, (m, k), dtype=np.int8)
    Bt = rng.integers(-128, 128, (n, k), dtype=np.int8)
    C = np.zeros((m, n), np.int8)
    mult, shift = 3, 9
    kernel("int8_dot")(A, Bt, C, mult, shift, grid=(cdiv(n, 128), m))
    acc = A.astype(np.int64) @ Bt.astype(np.int64).T
    want = np.clip((acc * mult + (1 << (shift - 1))) >> shift, -128, 127)
    assert (C == want).all()


@case("hamming_distance", (3, 5, 2), (2, 200, 3), (1, 1, 1))
def _hamming(rng, m, n, w):
    A = rng.integers(-2**31, 2**31, (m, w), dtype=np.int64).astype(np.int32)
    B = rng.integers(-2**31, 2**31, (n, w), dtype=np.int64).astype(np.int32)
    D = np.full((m, n), -1, np.int32)
    kernel("hamming_distance")(A, B, D, grid=(cdiv(n, 128), m))
    x = (A[:, None, :] ^ B[None, :, :]).view(np.uint32)
    assert (D == np.bitwise_count(x).sum(-1)).all()


# ---------------------------------------------------------------- tiles


@case("tiled_gemm", (64, 64, 32), (70, 50, 45), (10, 130, 16))
def _tiled_gemm(rng, m, n, k):
    A = rng.standard_normal((m, k)).astype(np.float16)
    B = rng.standard_normal((k, n)).astype(np.float16)
    C = np.full((m, n), 9.0, np.float32)
    kernel("tiled_gemm")(A, B, C, grid=(cdiv(n, 64), cdiv(m, 64)))
    close(C, A.astype(np.float32) @ B.astype(np.float32), rtol=1e-4, atol=1e-4)


@case("linear_relu", (64, 64, 64), (70, 100, 128), (5, 3, 64))
def _linear_relu(rng, m, n, k):
    X = rng.standard_normal((m, k)).astype(BF16)
    W = rng.standard_normal((n, k)).astype(BF16)
    b = rng.standard_normal((1, n)).astype(np.float32)
    Y = np.zeros((m, n), BF16)
    kernel("linear_relu")(X, W, b, Y, grid=(cdiv(n, 64), cdiv(m, 64)))
    want = np.maximum(X.astype(np.float32) @ W.astype(np.float32).T + b, 0)
    close(Y.astype(np.float32), want, rtol=1e-2, atol=1e-2)


@case("attention_scores", (64,), (128,), (100,))
def _attention_scores(rng, r):
    Q = rng.standard_normal((r, 64)).astype(np.float16)
    Km = rng.standard_normal((r, 64)).astype(np.float16)
    P = np.zeros((r, 64), np.float16)
    scale = np.float32(0.125)
    kernel("attention_scores")(Q, Km, P, scale, grid=(cdiv(r, 64),))
    want = np.zeros((r, 64), np.float32)
    for r0 in range(0, r, 64):
        q, k = Q[r0:r0 + 64].astype(np.float32), Km[r0:r0 + 64].astype(np.float32)
        s = q @ k.T * scale
        s = np.where(np.tril(np.ones((len(q), len(k)))) > 0, s, -np.inf)
        e = np.exp(s - s.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        want[r0:r0 + 64, :p.shape[1]] = p
    close(P.astype(np.float32), want, rtol=2e-3, atol=2e-3)


@case("chunk_cumsum", (32, 64), (40, 100), (3, 5))
def _chunk_cumsum(rng, c, t):
    X = rng.standard_normal((c, t), dtype=np.float32)
    Y = np.zeros_like(X)
    kernel("chunk_cumsum")(X, Y, grid=(cdiv(c, 32),))
    close(Y, np.cumsum(X, axis=1), rtol=1e-4, atol=1e-4)


def test_chunk_cumsum_with_other_autotune_values():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((70, 90), dtype=np.float32)
    Y = np.zeros_like(X)
    kernel("chunk_cumsum", TT=32, CC=64)(X, Y, grid=(2,))
    close(Y, np.cumsum(X, axis=1), rtol=1e-4, atol=1e-4)


@case("embedding_gather", (5, 10, 16), (8, 3, 130), (1, 1, 1))
def _embedding_gather(rng, t, v, d):
    ids = rng.integers(0, v, t, dtype=np.int32)
    ids[0] = v + 2                                         # outside the table: a row of zeros
    if t > 1:
        ids[1] = -1
    Emb = rng.standard_normal((v, d)).astype(BF16)
    Out = np.full((t, d), 5, BF16)
    kernel("embedding_gather")(ids, Emb, Out, grid=(t,))
    want = np.where(((ids >= 0) & (ids < v))[:, None], Emb[np.clip(ids, 0, v - 1)].astype(np.float32), 0)
    assert (Out.astype(np.float32) == want).all()


# ---------------------------------------------------------------- barriers, shuffles, scans


@case("stage", ())
def _stage(rng):
    A = rng.standard_normal((1, 128), dtype=np.float32)
    O = np.zeros_like(A)
    kernel("stage")(A, O, grid=(1,))
    assert (O == A * 2).all()


@case("block_transpose", (100, 300), (256, 128), (5, 129))
def _block_transpose(rng, m, n):
    A = rng.standard_normal((m, n), dtype=np.float32)
    B = np.full((n, m), np.nan, np.float32)
    kernel("block_transpose")(A, B, grid=(cdiv(n, 128), cdiv(m, 128)))
    assert (B == A.T).all()


@case("barrier_store", ())
def _barrier_store(rng):
    A = rng.standard_normal((1, 32), dtype=np.float32)
    O = np.zeros_like(A)
    kernel("barrier_store")(A, O, grid=(1,))
    assert (O == 1).all()


@case("closed_branch", ())
def _closed_branch(rng):
    A = rng.standard_normal((1, 32), dtype=np.float32)
    O = np.zeros_like(A)
    kernel("closed_branch")(A, O, grid=(3,))
    assert (O == A * 2).all()


@case("warp_scan", (256,), (300,), (31,))
def _warp_scan(rng, n):
    X = rng.standard_normal(n, dtype=np.float32)
    Y = np.zeros_like(X)
    g = cdiv(n, 256)
    totals = np.zeros(g * 8, np.float32)
    kernel("warp_scan")(X, Y, totals, grid=(g,))
    padded = np.zeros(g * 256, np.float32)
    padded[:n] = X
    warps = padded.reshape(-1, 32)
    close(Y, np.cumsum(warps, axis=1).ravel()[:n], rtol=1e-5, atol=1e-5)
    close(totals, warps.sum(1), rtol=1e-5, atol=1e-5)


@case("row_scan", (2, 256), (3, 700), (1, 5))
def _row_scan(rng, m, n):
    X = rng.standard_normal((m, n), dtype=np.float32)
    Y = np.zeros_like(X)
    kernel("row_scan")(X, Y, grid=(m,))
    close(Y, np.cumsum(X, axis=1), rtol=1e-4, atol=1e-4)


@case("jacobi_poisson", (2, 40), (1, 3000))
def _jacobi_poisson(rng, b, iters):
    F = rng.standard_normal((b, 1024), dtype=np.float32)
    U = np.zeros_like(F)
    h2, tol = np.float32(1e-4), np.float32(1e-7)
    kernel("jacobi_poisson")(F, U, h2, tol, iters, grid=(b,))
    for s in range(b):
        u = np.zeros(1026, np.float32)
        for _ in range(iters):
            updated = np.float32(0.5) * (u[:-2] + u[2:] + h2 * F[s])
            change = np.abs(updated - u[1:-1])
            u[1:-1] = updated
            if (change <= tol).all():
                break
        close(U[s], u[1:-1], rtol=1e-6, atol=1e-9)


@case("csr_spmv", (10, 20), (37, 300), (1, 1))
def _csr_spmv(rng, m, n):
    counts = rng.integers(0, 70, m)
    row_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    nnz = max(int(row_ptr[-1]), 1)
    cols = rng.integers(0, n, nnz, dtype=np.int32)
    vals = rng.standard_normal(nnz, dtype=np.float32)
    x = rng.standard_normal(n, dtype=np.float32)
    y = np.full(m, 3.0, np.float32)
    kernel("csr_spmv")(row_ptr, cols, vals, x, y, grid=(cdiv(m, 4),))
    want = [float((vals[row_ptr[r]:row_ptr[r + 1]] * x[cols[row_ptr[r]:row_ptr[r + 1]]]).sum()) for r in range(m)]
    close(y, want, rtol=1e-4, atol=1e-4)


@case("bloom_query", (100, 4, 3), (300, 64, 7), (1, 1, 1))
def _bloom_query(rng, n, nw, hashes):
    keys = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    bits = rng.integers(-2**31, 2**31, nw, dtype=np.int64).astype(np.int32)
    hits = np.full(n, 9, np.uint8)
    kernel("bloom_query")(keys, bits, hits, hashes, grid=(cdiv(n, 256),))

    def mix32(x):
        h = x & 0xFFFFFFFF
        for _ in range(2):
            h ^= h >> 16
            h = (h * 0x45D9F3B) & 0xFFFFFFFF
        return h ^ (h >> 16)

    want = []
    for key in keys.tolist():
        h1 = mix32(key)
        h2 = mix32(h1 ^ 0x5BD1E995) | 1
        nbits = nw * 32
        present = all((int(bits[(h1 + k * h2) % nbits >> 5]) >> ((h1 + k * h2) % nbits & 31)) & 1
                      for k in range(hashes))
        want.append(int(present))
    assert hits.tolist() == want


# ---------------------------------------------------------------- atomics and acquire/release


@case("grid_counter", (256,), (1000,), (3000,))
def _grid_counter(rng, n):
    X = rng.standard_normal(n, dtype=np.float32)
    g = cdiv(n, 256)
    running = np.zeros(g, np.float32)
    ready = np.zeros(g, np.int32)
    ticket = np.zeros(1, np.int32)
    total = np.zeros(1, np.float32)
    k = kernel("grid_counter")
    for epoch in (1, 2):                                    # the counter resets itself
        k(X, running, ready, ticket, total, epoch, grid=(g,))
        chunks = np.array([X[b * 256:(b + 1) * 256].sum() for b in range(g)], np.float32)
        close(running, np.cumsum(chunks), rtol=1e-4, atol=1e-4)
        close(total, [chunks.sum()], rtol=1e-4, atol=1e-4)
        assert ticket[0] == 0 and (ready == epoch).all()


@case("persistent_row_totals", (5, 100, 3), (20, 1000, 2), (1, 1, 4))
def _persistent_row_totals(rng, m, n, g):
    X = rng.integers(-1000, 1000, (m, n), dtype=np.int32)
    totals = np.zeros(m, np.int32)
    next_row = np.zeros(1, np.int32)
    extremes = np.array([-2**31, 2**31 - 1], np.int32)
    kernel("persistent_row_totals")(X, totals, next_row, extremes, grid=(g,))
    assert (totals == X.sum(1)).all()
    assert extremes.tolist() == [X.sum(1).max(), X.sum(1).min()]
    assert next_row[0] == m + g                            # every CTA took one ticket past the end


# ---------------------------------------------------------------- the parametrization


def test_every_example_has_a_case():
    assert sorted(CASES) == sorted(p.stem for p in EXAMPLES.glob("*.ph"))


@pytest.mark.parametrize("fn,shape", [c for cs in CASES.values() for c in cs],
                         ids=[f"{name}-{'x'.join(map(str, s)) or 'fixed'}" for name, cs in CASES.items() for _, s in cs])
def test_example_matches_numpy(fn, shape):
    fn(np.random.default_rng(hash(shape) % 2**32), *shape)
