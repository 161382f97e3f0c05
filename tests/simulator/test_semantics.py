"""The simulator's execution semantics on small kernels written for one rule each: integer
division and shifts, conversions, the four shuffle modes and their out-of-range rule,
short-circuit evaluation, early exits (break, continue, return) in kernels and functions, tile
functions and views, and running CTAs together versus one at a time."""

from __future__ import annotations

import numpy as np
import pytest

from phobos_tools.run import DynamicCheckFailed, loads
from phobos_tools.simulator.launch import uses_once_per_cta


def run(src, *args, grid=(1,), kernel=None, **kw):
    k = loads(src, "t.ph").kernel(kernel)
    k(*args, grid=grid, **kw)
    return k


INTS = """
@launch(64)
kernel ints(A: tensor<i32>[64], B: tensor<i32>[64], Q: tensor<i32>[64], R: tensor<i32>[64],
            S: tensor<i32>[64], F: tensor<f32>[64], I: tensor<i32>[64], N8: tensor<i8>[64],
            H: tensor<f16>[64]) {
  let i = ctx.thread
  let a = A[i]
  let b = B[i]
  if b != 0 {
    Q[i] = a / b
    R[i] = a % b
  }
  S[i] = (a << 3) ^ (a >> 2)
  I[i] = i32(F[i])
  N8[i] = i8(a)
  H[i] = f16(F[i])
}
"""


def test_integer_arithmetic_and_conversions():
    rng = np.random.default_rng(0)
    A = rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    A[:4] = [7, -7, 7, -7]
    B = rng.integers(-9, 10, 64).astype(np.int32)
    B[:4] = [2, 2, -2, -2]
    F = (rng.standard_normal(64) * 1e3).astype(np.float32)
    F[:6] = [np.nan, np.inf, -np.inf, 3e9, -3e9, -2.7]
    Q, R, S, I = (np.full(64, 123, np.int32) for _ in range(4))
    N8 = np.zeros(64, np.int8)
    H = np.zeros(64, np.float16)
    run(INTS, A, B, Q, R, S, F, I, N8, H)
    nz = B != 0
    a, b = A.astype(np.int64), B.astype(np.int64)
    q = np.where(nz, np.trunc(a / np.where(nz, b, 1)), 123).astype(np.int64)
    assert (Q == q).all()
    assert (R[nz] == (a - q * b)[nz]).all() and (R[~nz] == 123).all()
    assert Q[:4].tolist() == [3, -3, -3, 3] and R[:4].tolist() == [1, -1, 1, -1]
    assert (S == ((A << 3) ^ (A >> 2))).all()
    assert I[:6].tolist() == [0, 2**31 - 1, -2**31, 2**31 - 1, -2**31, -2]   # saturating, NaN -> 0
    assert (I[6:] == np.trunc(F[6:]).astype(np.int32)).all()
    assert (N8 == A.astype(np.int8)).all()
    assert (H[6:] == F[6:].astype(np.float16)).all()


SHUFFLES = """
@launch(64)
kernel shuffles(X: tensor<f32>[64], D: tensor<i32>[64], O: tensor<f32>[4, 64]) {
  let i = ctx.thread
  let v = X[i]
  let d = D[i]
  O[0, i] = shfl<xor d>(v)
  O[1, i] = shfl<up d>(v)
  O[2, i] = shfl<down d>(v)
  O[3, i] = shfl<idx d>(v)
}
"""


def test_the_four_shuffle_modes_and_out_of_range_lanes():
    rng = np.random.default_rng(1)
    X = rng.standard_normal(64, dtype=np.float32)
    D = rng.integers(-3, 40, 64).astype(np.int32)
    O = np.zeros((4, 64), np.float32)
    run(SHUFFLES, X, D, O)
    lane = np.arange(64) % 32
    base = np.arange(64) - lane
    for row, src in enumerate((lane ^ D, lane - D, lane + D, D)):
        inside = (src >= 0) & (src < 32)                  # outside 0..31: the thread's own value
        want = np.where(inside, X[base + np.where(inside, src, 0)], X)
        assert (O[row] == want).all(), row


EXITS = """
fn positive_sum(X: tensor<f32>[N], start: i32, n: i32) -> f32 {
  var acc: f32 = 0.0
  for j in range(start, start + n) {
    if j >= N {
      return acc
    }
    if X[j] < 0.0 {
      continue
    }
    acc += X[j]
  }
  return acc
}

@launch(32)
kernel exits(X: tensor<f32>[N], O: tensor<f32>[M], K: tensor<i32>[M]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i >= M {
    return
  }
  O[i] = positive_sum(X, i, 5)
  var k = 0
  while true {
    if k >= 4 || i + k < N && X[i + k] > 1.0 {
      break
    }
    k += 1
  }
  K[i] = k
}
"""


def test_early_exits_and_short_circuit():
    rng = np.random.default_rng(2)
    n, m = 40, 50                       # threads past N exercise the short-circuit guard
    X = (rng.standard_normal(n) * 2).astype(np.float32)
    O = np.zeros(m, np.float32)
    K = np.zeros(m, np.int32)
    run(EXITS, X, O, K, grid=(2,))
    for i in range(m):
        window = X[i:i + 5]
        assert O[i] == pytest.approx(float(window[window >= 0].sum()), rel=1e-6, abs=1e-6)
        k = 0
        while not (k >= 4 or (i + k < n and X[i + k] > 1.0)):
            k += 1
        assert K[i] == k, i


TILE_FN = """
fn scaled(t: tile<f32>[R, C], s: f32) -> tile<f32>[R, C] {
  return t * s
}

@launch(64)
kernel tiles(A: tensor<f32>[M, 16], O: tensor<f32>[M, 16], S: tensor<f32>[M]) {
  let r0 = ctx.block.x * 4
  let v = A[r0 :+ 4, 0 :+ 16]
  var t: tile<f32>[4, 16] = scaled(v, 3.0)
  t = t + transpose(transpose(v))
  O[r0 :+ 4, :16] = t
  let sums = rowsum(t)
  if ctx.thread < 4 && r0 + ctx.thread < M {
    S[r0 + ctx.thread] = sums[ctx.thread, 0]
  }
}
"""


def test_tile_functions_views_and_masked_edges():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((10, 16), dtype=np.float32)
    O = np.full((10, 16), -1, np.float32)
    S = np.zeros(10, np.float32)
    run(TILE_FN, A, O, S, grid=(3,))
    np.testing.assert_allclose(O, 4 * A, rtol=1e-6)
    np.testing.assert_allclose(S, (4 * A).sum(1), rtol=1e-5)


COUNTER = """
@launch(64)
kernel count(C: tensor<i32>[4], O: tensor<i32>[G]) {
  let t = atomic_add(C[0], 1)
  atomic_max(C[1], ctx.block.x)
  let old = atomic_cas(C[2], ctx.block.x, ctx.block.x + 1)
  if ctx.thread == 0 {
    O[ctx.block.y * ctx.blocks.x + ctx.block.x] = t * 100 + old
  }
}
"""


def test_atomics_run_once_per_cta_in_block_order():
    C = np.zeros(4, np.int32)
    O = np.zeros(6, np.int32)
    k = run(COUNTER, C, O, grid=(3, 2))
    assert uses_once_per_cta(k.info.instance)
    assert C.tolist() == [6, 2, 3, 0]           # cas chain: 0->1 (CTA 0), 1->2, 2->3 on row y=0
    # CTAs in block order: (0,0), (1,0), (2,0), (0,1), (1,1), (2,1); tickets 0..5
    assert O.tolist() == [0, 101, 202, 303, 403, 503]


def test_ctas_of_kernels_without_atomics_run_together_with_the_same_results():
    src = """
@launch(32)
kernel copy(A: tensor<f32>[N], B: tensor<f32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N {
    B[i] = A[i] + f32(ctx.block.x)
  }
}
"""
    k = loads(src).kernel()
    assert not uses_once_per_cta(k.info.instance)
    A = np.arange(100, dtype=np.float32)
    B = np.zeros_like(A)
    k(A, B, grid=4)
    assert (B == A + np.arange(100) // 32).all()


def test_uniform_store_by_every_thread_needs_no_barrier():
    src = """
@launch(64)
kernel k(O: tensor<f32>[1, 4]) {
  var t: tile<f32>[1, 4] = 0.0
  t[0, 1] = 5.0
  O[0 :+ 1, 0 :+ 4] = t
}
"""
    O = np.zeros((1, 4), np.float32)
    run(src, O)
    assert O.tolist() == [[0, 5, 0, 0]]


def test_a_thread_reads_back_its_own_store_without_a_barrier():
    src = """
@launch(64)
kernel k(O: tensor<f32>[64]) {
  var t: tile<f32>[1, 64] = 0.0
  t[0, ctx.thread] = f32(ctx.thread)
  O[ctx.thread] = t[0, ctx.thread] * 2.0
}
"""
    O = np.zeros(64, np.float32)
    run(src, O)
    assert (O == 2 * np.arange(64)).all()


def test_bool_and_u8_tensors():
    src = """
@launch(32)
kernel k(B: tensor<bool>[N], U: tensor<u8>[N], O: tensor<i32>[N]) {
  let i = ctx.thread
  if i < N {
    O[i] = where(B[i], i32(U[i]), -i32(U[i]))
  }
}
"""
    B = np.array([True, False, True], dtype=bool)
    U = np.array([200, 3, 255], dtype=np.uint8)
    O = np.zeros(3, np.int32)
    run(src, B, U, O)
    assert O.tolist() == [200, -3, 255]


def test_loop_limit_is_an_option():
    src = """
@launch(32)
kernel k(O: tensor<i32>[1]) {
  var n = 0
  while n >= 0 {
    n += 1
  }
  O[0] = n
}
"""
    with pytest.raises(DynamicCheckFailed) as err:
        run(src, np.zeros(1, np.int32), max_loop_iterations=50)
    assert err.value.code == "PH405" and "50 iterations" in str(err.value)


@pytest.mark.parametrize("call,message", [
    (lambda k, W, x, y: k(W.astype(np.float64), x, y, grid=1), "must hold float32, not float64"),
    (lambda k, W, x, y: k(W.T, x, y, grid=1), "not C-contiguous"),
    (lambda k, W, x, y: k(np.broadcast_to(W, W.shape), x, y, grid=1), "read-only"),
    (lambda k, W, x, y: k(W, x, y, y, grid=1), "takes 3 arguments, not 4"),
    (lambda k, W, x, y: k(W, x, y, W=W, grid=1), "`W` is given twice"),
    (lambda k, W, x, y: k(W, x, z=y, grid=1), "has no parameter `z`"),
    (lambda k, W, x, y: k(W, x, grid=1), "missing argument `y`"),
    (lambda k, W, x, y: k(W, x, [0.0] * 8, grid=1), "pass a numpy array, not list"),
    (lambda k, W, x, y: k(W, x, y, grid=(1, 0)), "the grid is 1 to 3 positive integers"),
    (lambda k, W, x, y: k(W, x, y, grid=1, device="tpu"), "device is one of sim, gpu"),
])
def test_argument_errors_name_the_parameter(call, message):
    from phobos_tools.run import ArgumentError, load
    k = load("examples/lanes_matvec.ph").kernel()
    W, x, y = np.zeros((8, 128), np.float32), np.zeros((1, 128), np.float32), np.zeros((1, 8), np.float32)
    with pytest.raises(ArgumentError, match=None) as err:
        call(k, W, x, y)
    assert message in str(err.value)


def test_scalar_arguments_are_checked_and_converted():
    src = """
@launch(32)
kernel k(O: tensor<f32>[1], a: i8, b: bool, c: f16) {
  if b {
    O[0] = f32(a) + f32(c)
  }
}
"""
    from phobos_tools.run import ArgumentError
    k = loads(src).kernel()
    O = np.zeros(1, np.float32)
    k(O, -3, True, 0.5, grid=1)
    assert O[0] == -2.5
    for bad, message in [((O, 300, True, 0.5), "`a` = 300 does not fit in i8"),
                         ((O, 1, 1, 0.5), "`b` is a bool, not int"),
                         ((O, 1.5, True, 0.5), "`a` is an i8, not the fraction 1.5"),
                         ((O, 1, True, 1e6), "`c` = 1000000.0 does not fit in f16")]:
        with pytest.raises(ArgumentError) as err:
            k(*bad, grid=1)
        assert message in str(err.value)


def test_a_literal_converted_on_its_own_takes_the_conversions_type_when_it_fits():
    # LANGUAGE §1: a literal takes the type its context needs; `i64(3000000000)` was refused
    # ("does not fit in i32") and `f64(0.1)` was the f32 nearest 0.1, widened
    src = """@launch(32)
kernel k(A: tensor<i64>[2], F: tensor<f64>[2], B: tensor<i8>[1], U: tensor<u8>[1], I: tensor<i32>[1]) {
  if ctx.thread == 0 {
    A[0] = i64(3000000000)
    A[1] = i64(-9223372036854775808)
    F[0] = f64(1e300)
    F[1] = f64(0.1)
    B[0] = i8(300)
    U[0] = u8(-1)
    I[0] = i32(2.5)
  }
}
"""
    a, f = np.zeros(2, np.int64), np.zeros(2, np.float64)
    b, u, i = np.zeros(1, np.int8), np.zeros(1, np.uint8), np.zeros(1, np.int32)
    run(src, a, f, b, u, i)
    assert a.tolist() == [3000000000, -2**63]
    assert f.tolist() == [1e300, 0.1]
    # a literal that does not fit the target keeps its own type and is converted: wraps, truncates
    assert (int(b[0]), int(u[0]), int(i[0])) == (44, 255, 2)


def test_where_selects_between_two_bools():
    src = """@launch(32)
kernel k(O: tensor<i32>[32], A: tensor<f32>[32]) {
  let p = A[ctx.thread] > 0.5
  let q = ctx.lane % 2 == 0
  O[ctx.thread] = where(where(p, q, !q), 1, 0)
}
"""
    a = np.random.default_rng(0).random(32).astype(np.float32)
    out = np.zeros(32, np.int32)
    run(src, out, a)
    q = np.arange(32) % 2 == 0
    assert out.tolist() == np.where(a > 0.5, q, ~q).astype(np.int32).tolist()


def test_a_let_of_a_scalar_into_a_declared_tile_is_a_filled_tile():
    """`let t: tile<f32>[4] = 1.5` broadcasts the scalar into a tile of its own (as `var` does);
    it once passed the checker and then stopped the simulator with a KeyError."""
    src = """@launch(32)
kernel k(A: tensor<f32>[32]) {
  let t: tile<f32>[4] = 1.5
  A[ctx.thread] = t[ctx.lane & 3] + f32(ctx.lane)
}
"""
    a = np.zeros(32, np.float32)
    loads(src, "k.ph").kernel()(a, grid=(1,))
    assert np.array_equal(a, 1.5 + np.arange(32, dtype=np.float32))
