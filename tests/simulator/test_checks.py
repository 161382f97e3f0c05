"""The simulator's dynamic checks, one kernel per check: each fires with its code, at the right
file:line:col, naming the CTA and the threads involved; and the near misses that must not fire
(whole warps skipping a collective, a barrier between a store and a read, a CTA waiting for one
that ran before it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from phobos_tools.run import DynamicCheckFailed, loads


def fails(src, *args, grid=(1,), unchecked=True, **kw) -> DynamicCheckFailed:
    k = loads(src, "k.ph", unchecked=unchecked).kernel()
    with pytest.raises(DynamicCheckFailed) as err:
        k(*args, grid=grid, **kw)
    return err.value


def at(err: DynamicCheckFailed) -> tuple[int, int]:
    return err.diagnostic.span.line, err.diagnostic.span.column


def f32(*shape):
    return np.zeros(shape, np.float32)


def test_ph304_shuffle_with_part_of_a_warp():
    src = """@launch(64)
kernel k(X: tensor<f32>[64], O: tensor<f32>[64]) {
  let v = X[ctx.thread]
  if ctx.lane < 16 {
    O[ctx.thread] = shfl<down 1>(v)
  }
}
"""
    e = fails(src, f32(64), f32(64))
    assert e.code == "PH304" and at(e) == (5, 21)
    assert "only 16 of the 32 lanes of warp 0 in CTA (0, 0, 0)" in str(e)
    assert "reached by lanes 0-15" in e.render()


def test_whole_warps_may_skip_a_lane_collective():
    src = """@launch(128)
kernel k(X: tensor<f32>[128], O: tensor<f32>[4]) {
  if ctx.warp != 2 {
    let s = sum<over ctx.lane>(X[ctx.thread])
    if ctx.lane == 0 {
      O[ctx.warp] = s
    }
  }
}
"""
    X = np.arange(128, dtype=np.float32)
    O = f32(4)
    loads(src).kernel()(X, O, grid=1)
    assert O.tolist() == [X[w * 32:(w + 1) * 32].sum() if w != 2 else 0 for w in range(4)]


def test_ph306_cta_collective_with_part_of_the_cta():
    src = """@launch(128)
kernel k(X: tensor<f32>[128], O: tensor<f32>[1]) {
  if ctx.warp == 0 {
    let s = sum<over ctx.thread>(X[ctx.thread])
    O[0] = s
  }
}
"""
    e = fails(src, f32(128), f32(1), grid=(2,))
    assert e.code == "PH306" and at(e) == (4, 13)
    assert "only 32 of the 128 threads of CTA (0, 0, 0)" in str(e)


def test_ph301_barrier_after_some_threads_returned():
    src = """@launch(64)
kernel k(O: tensor<f32>[64]) {
  if ctx.thread >= 40 {
    return
  }
  barrier()
  O[ctx.thread] = 1.0
}
"""
    e = fails(src, f32(64))
    assert e.code == "PH301" and at(e) == (6, 3)
    assert "`barrier()` runs once per CTA" in str(e) and "only 40 of the 64 threads" in str(e)
    assert "not reached by threads 40-63" in e.render()


def test_ph302_broadcast_scalar_that_differs_between_warps():
    src = """@launch(64)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t = t * f32(ctx.warp)
  O[0 :+ 1, 0 :+ 32] = t
}
"""
    e = fails(src, f32(1, 32), f32(1, 32), grid=(3,))
    assert e.code == "PH302" and at(e) == (4, 11)
    assert "`elementwise sweep` takes `f32(ctx.warp)`, which differs between warps" in str(e)
    assert "thread 0 has 0.0 and thread 32 has 1.0" in str(e)


def test_ph302_atomic_operand():
    src = """@launch(64)
kernel k(C: tensor<i32>[1]) {
  atomic_add(C[0], ctx.lane)
}
"""
    e = fails(src, np.zeros(1, np.int32))
    assert e.code == "PH302" and at(e) == (3, 20)
    assert "`atomic_add` takes `ctx.lane`, which differs between lanes" in str(e)
    # an atomic is not CUDA's per-thread atomic: the help says so, not "use a point subscript"
    assert "runs once per CTA, by one thread" in e.diagnostic.help and "slice" not in e.diagnostic.help


def test_ph401_point_read_of_another_threads_store():
    src = """@launch(64)
kernel k(O: tensor<f32>[64]) {
  var t: tile<f32>[1, 64] = 0.0
  t[0, ctx.thread] = f32(ctx.thread)
  O[ctx.thread] = t[0, (ctx.thread + 1) % 64]
}
"""
    k = loads(src, "k.ph").kernel()                    # phobos-check accepts it: the page says the
    assert not k.program.waived                        # compiler does not check this race
    e = fails(src, f32(64), unchecked=False)
    assert e.code == "PH401" and at(e) == (5, 19)
    assert "thread 0 of CTA (0, 0, 0) reads `t[0, 1]`, which thread 1 of the CTA stored" in str(e)


def test_a_barrier_orders_the_store_and_the_point_read():
    src = """@launch(64)
kernel k(O: tensor<f32>[64]) {
  var t: tile<f32>[1, 64] = 0.0
  t[0, ctx.thread] = f32(ctx.thread)
  barrier()
  O[ctx.thread] = t[0, (ctx.thread + 1) % 64]
}
"""
    O = f32(64)
    loads(src).kernel()(O, grid=(2,))
    assert (O == (np.arange(64) + 1) % 64).all()


def test_ph401_on_a_tensor_in_one_of_many_ctas():
    src = """@launch(32)
kernel k(Y: tensor<f32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if ctx.block.x == 2 && ctx.thread == 7 {
    Y[i] = 1.0
  }
  if ctx.thread == 9 {
    Y[i] = Y[i - 2]
  }
}
"""
    e = fails(src, f32(128), grid=(4,), unchecked=False)
    assert e.code == "PH401" and at(e) == (8, 12)
    assert "thread 9 of CTA (2, 0, 0) reads `Y[71]`, which thread 7 of the CTA stored" in str(e)


def test_ph402_point_store_and_run_load_out_of_bounds():
    store = """@launch(64)
kernel k(O: tensor<f32>[64]) {
  O[ctx.thread + 1] = 1.0
}
"""
    e = fails(store, f32(64), unchecked=False)
    assert e.code == "PH402" and at(e) == (3, 3)
    assert "`O[ctx.thread + 1]` is out of bounds of `O` (shape [64]) in thread 63 of CTA (0, 0, 0)" in str(e)
    run = """@launch(32)
kernel k(A: tensor<f32>[2, N], O: tensor<f32>[32]) {
  O[ctx.thread] = sum(A[1, ctx.thread * 4 :+ 4])
}
"""
    e = fails(run, f32(2, 100), f32(32), unchecked=False)
    assert e.code == "PH402" and at(e) == (3, 23)
    assert "threads 25-31 of CTA (0, 0, 0)" in str(e)
    assert "thread 25 of CTA (0, 0, 0) accesses `A[1, 100 :+ 4]`" in e.render()


def test_slices_off_the_end_are_masked_not_reported():
    src = """@launch(32)
kernel k(A: tensor<f32>[N], O: tensor<f32>[N]) {
  O[0 :+ 64] = A[0 :+ 64] * 2.0
}
"""
    A = np.arange(40, dtype=np.float32)
    O = f32(40)
    loads(src).kernel()(A, O, grid=1)
    assert (O == 2 * A).all()


def test_ph403_broken_aligned_promise():
    src = """@launch(32)
@aligned(K = 8)
kernel k(A: tensor<f32>[K]) {
  A[ctx.thread] = 0.0
}
"""
    e = fails(src, f32(36), unchecked=False)
    assert e.code == "PH403" and at(e) == (2, 10)
    assert "`@aligned(K = 8)` is broken: K = 36 (from `A` axis 0) is not a multiple of 8" in str(e)


# CTA b waits on CTA b + 1: a deadlock when CTAs run in block order (shared with tests/cli/test_run.py)
DEADLOCK = (Path(__file__).resolve().parent / "kernels" / "wait_next.ph").read_text()


def test_ph404_deadlock_on_a_later_cta_is_reported_not_hung():
    e = fails(DEADLOCK, np.zeros(4, np.int32), grid=(4,), unchecked=False)
    assert e.code == "PH404" and at(e) == (8, 5)
    assert "CTA (0, 0, 0) waits for a CTA that runs after it" in str(e)
    assert "`load_acquire(flags[b + 1])` reads `flags[1]` = 0 in CTA (0, 0, 0)" in e.render()


def test_waiting_on_an_earlier_cta_works():
    src = DEADLOCK.replace("b + 1 < ctx.blocks.x", "b > 0").replace("flags[b + 1]", "flags[b - 1]")
    flags = np.zeros(4, np.int32)
    loads(src).kernel()(flags, grid=(4,))
    assert flags.tolist() == [1, 1, 1, 1]


def test_ph405_a_loop_that_makes_no_progress():
    src = """@launch(32)
kernel k(A: tensor<i32>[1], O: tensor<i32>[32]) {
  var n = 0
  while A[0] > n {
    O[ctx.thread] = n
  }
}
"""
    e = fails(src, np.ones(1, np.int32), np.zeros(32, np.int32), unchecked=False)
    assert e.code == "PH405" and at(e) == (4, 3)
    assert "repeats with nothing changed" in str(e)


def test_ph406_integer_division_by_zero():
    src = """@launch(32)
kernel k(O: tensor<i32>[32]) {
  O[ctx.thread] = 100 / (ctx.thread - 3)
}
"""
    e = fails(src, np.zeros(32, np.int32), unchecked=False)
    assert e.code == "PH406" and at(e) == (3, 19)
    assert "integer division by zero in thread 3 of CTA (0, 0, 0)" in str(e)


def test_ph404_when_the_wait_is_in_the_loop_condition():
    src = """@launch(32)
kernel k(F: tensor<i32>[2]) {
  if ctx.block.x == 0 {
    while load_acquire(F[1]) == 0 {
      barrier()
    }
  } else {
    store_release(F[1], 1)
  }
}
"""
    e = fails(src, np.zeros(2, np.int32), grid=(2,), unchecked=False)
    assert e.code == "PH404" and at(e) == (4, 5)
    flags = np.zeros(2, np.int32)
    flags[1] = 1                                        # already raised: no wait at all
    loads(src).kernel()(flags, grid=(2,))


def test_ph407_a_loop_variable_that_steps_past_its_type():
    # LANGUAGE §5's loop stops at 2147483645 + 5; on a GPU the i32 wraps and the loop runs on
    src = """@launch(32)
kernel k(O: tensor<i32>[32]) {
  var n = 0
  for i in range(2147483640, 2147483647, STEP) {
    n += 1
  }
  O[ctx.thread] = n
}
"""
    e = fails(src.replace("STEP", "5"), np.zeros(32, np.int32), unchecked=False)
    assert e.code == "PH407" and at(e) == (4, 3)
    assert "steps past 2,147,483,647, the largest i32, in threads 0-31" in str(e)
    # the last value plus the step still fits: the loop ends normally
    out = np.zeros(32, np.int32)
    loads(src.replace("STEP", "7"), "k.ph").kernel()(out, grid=(1,))
    assert (out == 1).all()


# ---------------------------------------------------------------- found by an audit of the checks

def _fires(src, *args, grid=(1,)):
    return fails(src, *args, grid=grid)


def test_integer_tile_division_by_zero_in_a_batch_of_ctas_is_ph406():
    src = """@launch(32)
kernel k(A: tensor<i32>[1, 32], O: tensor<i32>[1, 32]) {
  var t: tile<i32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  O[0 :+ 1, 0 :+ 32] = t / (t + ctx.block.x - 1)
}
"""
    e = _fires(src, np.zeros((1, 32), np.int32), np.zeros((1, 32), np.int32), grid=(3,))
    assert e.code == "PH406" and "in a tile operation of CTA (1, 0, 0)" in str(e)


TILE_RETURN = """fn f(t: tile<f32>[1, 32]) -> tile<f32>[1, 32] {
  BODY
}
@launch(32)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  f(t)
  O[0 :+ 1, 0 :+ 32] = f(t)
}
"""


@pytest.mark.parametrize("body,code,where", [
    ("if ctx.lane == 0 {\n    return t * 2.0\n  }\n  return t", "PH301", (3, 5)),
    ("t[0, ctx.lane] = 1.0\n  return t", "PH303", (3, 3)),
    ("return t * f32(ctx.lane)", "PH302", (2, 14)),
])
def test_a_tile_return_is_checked_as_the_cta_wide_operation_it_is(body, code, where):
    e = _fires(TILE_RETURN.replace("BODY", body), f32(1, 32), f32(1, 32))
    assert e.code == code and at(e) == where


def test_a_cta_collective_is_not_a_barrier():
    # LANGUAGE §9.6 counts only `barrier()`; the lowering emits none for a uniform operand
    src = """@launch(64)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var t: tile<f32>[1, 64] = A[0 :+ 1, 0 :+ 64]
  t[0, ctx.thread] = 2.0
  let n = sum<over ctx.thread>(1.0)
  O[0, ctx.thread] = t[0, 63 - ctx.thread] * n
}
"""
    e = _fires(src, f32(1, 64), f32(1, 64))
    assert e.code == "PH401" and at(e) == (6, 22)


def test_a_same_value_store_by_every_thread_keeps_an_earlier_per_thread_record():
    src = """@launch(64)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var t: tile<f32>[1, 64] = A[0 :+ 1, 0 :+ 64]
  if ctx.thread == 5 {
    t[0, 5] = 3.0
  }
  t[0, 5] = 7.0
  O[0 :+ 1, 0 :+ 1] = t[0 :+ 1, 5 :+ 1]
}
"""
    e = _fires(src, f32(1, 64), f32(1, 64))
    assert e.code == "PH303" and at(e) == (8, 3)


@pytest.mark.parametrize("read", ["atomic_add(A[0, 5], 1)", "load_acquire(A[0, 5])"])
def test_an_atomic_or_acquire_reads_its_element_cta_wide(read):
    src = f"""@launch(64)
kernel k(A: tensor<i32>[1, 64], O: tensor<i32>[1, 4]) {{
  A[0, ctx.thread] = ctx.thread
  O[0, 0] = {read}
}}
"""
    e = _fires(src, np.zeros((1, 64), np.int32), np.zeros((1, 4), np.int32))
    assert e.code == "PH303" and "thread 5 stored `A[0, 5]`" in e.render()


def test_a_point_outside_a_view_is_out_of_bounds_even_inside_its_tensor():
    src = """@launch(32)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[1, 32]) {
  let v = A[1 :+ 1, 0 :+ 8]
  O[0, ctx.lane] = v[0, ctx.lane]
}
"""
    e = _fires(src, f32(4, 32), f32(1, 32))
    assert e.code == "PH402" and "out of bounds of `v` (shape [1, 8], a view of `A`) in threads 8-31" in str(e)


def test_a_for_step_that_is_not_positive_at_run_time_is_ph405():
    src = """@launch(32)
kernel k(O: tensor<i32>[1, 32], s: i32) {
  var c = 0
  for i in range(0, 10, s) {
    c += 1
  }
  O[0, ctx.lane] = c
}
"""
    e = _fires(src, np.zeros((1, 32), np.int32), -1000000000)
    assert e.code == "PH405" and at(e) == (4, 25) and "step of this `for` loop is -1000000000" in str(e)


def test_the_last_cta_waiting_on_itself_is_a_runaway_loop_not_a_deadlock():
    src = """@launch(32)
kernel k(F: tensor<i32>[1, 4]) {
  while load_acquire(F[0, 0]) == 0 {
  }
}
"""
    assert _fires(src, np.zeros((1, 4), np.int32)).code == "PH405"
    assert _fires(src, np.zeros((1, 4), np.int32), grid=(2,)).code == "PH404"


def test_one_value_stored_by_several_threads_reads_back_cleanly_to_them_only():
    # a warp's lanes all store the warp's total to one element and read it back: each sees that
    # value; a thread of another warp reading it races, and so does a read of an element the
    # lanes stored with different values
    src = """@launch(64)
kernel k(A: tensor<f32>[1, 64], y: tensor<f32>[1, 2], O: tensor<f32>[1, 64]) {
  let total = sum<over ctx.lane>(A[0, ctx.thread])
  y[0, ctx.warp] = VALUE
  O[0, ctx.thread] = y[0, WHICH]
}
"""
    a = np.random.default_rng(3).random((1, 64)).astype(np.float32)
    y, out = f32(1, 2), f32(1, 64)
    loads(src.replace("VALUE", "total").replace("WHICH", "ctx.warp"), "k.ph").kernel()(a, y, out, grid=(1,))
    assert np.allclose(out[0], np.repeat([a[0, :32].sum(), a[0, 32:].sum()], 32), rtol=1e-5)
    e = fails(src.replace("VALUE", "total").replace("WHICH", "1 - ctx.warp"), a, y, out)
    assert e.code == "PH401" and "reads `y[0, 1]`, which several threads" in str(e)
    # different values: the stores themselves race (PH408), before anything reads them
    e = fails(src.replace("VALUE", "A[0, ctx.thread]").replace("WHICH", "ctx.warp"), a, y, out)
    assert e.code == "PH408" and at(e) == (4, 3)


def test_zero_and_negative_zero_are_two_values_to_a_race_check():
    # -0.0 == 0.0, but which one stays shows (1 / x is +inf or -inf): two warps storing them in
    # one element race, in one CTA (PH408) and between CTAs (PH409); NaN stored by all is one value
    src = """@launch(64)
kernel k(y: tensor<f32>[1], O: tensor<f32>[64]) {
  y[0] = VALUE
  O[ctx.thread] = f32(ctx.thread)
}
"""
    signed = "where(ctx.warp == 0, -0.0, 0.0)"
    e = fails(src.replace("VALUE", signed), f32(1), f32(64))
    assert e.code == "PH408" and at(e) == (3, 3) and "store different values in `y[0]` in this statement (-0.0 and 0.0)" in str(e), str(e)
    e = fails(src.replace("VALUE", "where(ctx.block.x == 0, -0.0, 0.0)"), f32(1), f32(64), grid=(2,))
    assert e.code == "PH409" and at(e) == (3, 3), str(e)
    y = f32(1)
    loads(src.replace("VALUE", "-0.0"), "k.ph").kernel()(y, f32(64), grid=(2,))
    assert np.signbit(y[0])
    loads(src.replace("VALUE", "0.0 / 0.0"), "k.ph").kernel()(y, f32(64), grid=(2,))
    assert np.isnan(y[0])


def test_stores_by_two_ctas_to_one_element_race_between_the_ctas():
    # PH409: nothing orders the CTAs of a launch, so two of them storing different values in one
    # element (or one reading what the other stored) race; one value stored by all is no race
    src = """@launch(64)
kernel k(O: tensor<f32>[1, 32], P: tensor<f32>[2, 64]) {
  O[0, ctx.lane] = f32(VALUE)
  P[ctx.block.x, ctx.thread] = O[0, ctx.lane]
}
"""
    o, p = f32(1, 32), f32(2, 64)
    loads(src.replace("VALUE", "7"), "k.ph").kernel()(o, p, grid=(2,))
    e = fails(src.replace("VALUE", "ctx.block.x"), o, p, grid=(2,))
    assert e.code == "PH409" and at(e) == (3, 3)
    assert "CTA (0, 0, 0) stores into `O[0, 0]` a value other than the one CTA (1, 0, 0) stored" in str(e)
    # the two warps of a CTA store different values in one element: that store races (PH408)
    assert fails(src.replace("VALUE", "ctx.warp"), o, p, grid=(2,)).code == "PH408"


def test_a_cta_reading_what_another_cta_stored_races():
    src = """@launch(32)
kernel k(O: tensor<f32>[64], P: tensor<f32>[64]) {
  O[ctx.block.x * 32 + ctx.lane] = f32(ctx.block.x)
  P[ctx.block.x * 32 + ctx.lane] = O[(1 - ctx.block.x) * 32 + ctx.lane]
}
"""
    e = fails(src, f32(64), f32(64), grid=(2,))
    assert e.code == "PH409" and at(e) == (4, 36) and "reads `O[32]`, which CTA (1, 0, 0) stored" in str(e)
    assert e.diagnostic.label == "a read racing another CTA's store"     # the message's words: a read
    # each CTA reading back its own elements is fine, and so is a second launch reading them all
    k = loads(src.replace("(1 - ctx.block.x) * 32", "ctx.block.x * 32"), "k.ph").kernel()
    o, p = f32(64), f32(64)
    k(o, p, grid=(2,))
    assert list(p[::32]) == [0.0, 1.0]


@pytest.mark.parametrize("copy", ["O[0 :+ 1, 0 :+ 32] = A[ctx.block.x :+ 1, 0 :+ 32]",
                                  "var t: tile<f32>[1, 32] = A[ctx.block.x :+ 1, 0 :+ 32]\n"
                                  "  O[0 :+ 1, 0 :+ 32] = t"])
def test_tile_copies_of_two_ctas_into_one_row_race(copy):
    src = f"@launch(32)\nkernel k(A: tensor<f32>[2, 32], O: tensor<f32>[1, 32]) {{\n  {copy}\n}}\n"
    a = np.arange(64, dtype=np.float32).reshape(2, 32)
    e = fails(src, a, f32(1, 32), grid=(2,))
    assert e.code == "PH409"
    loads(src, "k.ph").kernel()(a, f32(1, 32), grid=(1,))        # one CTA: nothing to race with


def test_ctas_that_order_themselves_with_atomics_are_not_checked_against_each_other():
    # kernels with atomics, acquire or release run one CTA at a time and may hand data over
    src = """@launch(32)
kernel k(O: tensor<f32>[32], F: tensor<i32>[1]) {
  let turn = atomic_add(F[0], 1)
  O[ctx.lane] = O[ctx.lane] + f32(turn)
}
"""
    o = f32(32)
    loads(src, "k.ph").kernel()(o, np.zeros(1, np.int32), grid=(3,))
    assert list(o[:2]) == [3.0, 3.0]


def test_a_division_by_zero_in_the_side_of_where_not_taken_is_no_error():
    # `where(d != 0, 100 / d, 0)`: the GPU computes both sides and selects; the quotient of the
    # threads with d == 0 is never used. The taken side is still checked, and so are runs.
    src = """@launch(32)
kernel k(D: tensor<i32>[32], O: tensor<i32>[32]) {
  let d = D[ctx.thread]
  O[ctx.thread] = where(COND, 100 / d, 0)
}
"""
    d = np.array([0, 1, 2, 0] * 8, np.int32)
    out = np.zeros(32, np.int32)
    loads(src.replace("COND", "d != 0"), "k.ph").kernel()(d, out, grid=(1,))
    assert out[:4].tolist() == [0, 100, 50, 0]
    e = fails(src.replace("COND", "d == 0"), d, out)
    assert e.code == "PH406" and at(e) == (4, 33)


WRITE_RACE = """@launch(64)
kernel k(X: tensor<f32>[1, 64], Y: tensor<f32>[1, 32]) {
  var s: tile<f32>[1, 32] = 0.0
  BODY
  barrier()
  Y[0 :+ 1, 0 :+ 32] = s
}
"""


@pytest.mark.parametrize("body, where, said", [
    # two threads, one statement: both values, no order between them
    ("s[0, ctx.thread / 2] = X[0, ctx.thread]", (4, 3),
     "threads 0 and 1 of CTA (0, 0, 0) store different values in `s[0, 0]` in this statement (0.0 and 1.0)"),
    ("if ctx.thread == 0 { s[0, 0] = 1.0 }\n  if ctx.thread == 1 { s[0, 0] = 2.0 }", (5, 24),
     "thread 1 of CTA (0, 0, 0) stores 2.0 in `s[0, 0]`, where thread 0 of the CTA stored another value since "
     "the last barrier"),
    ("store(s[0, (ctx.thread % 8) * 4 :+ 4], X[0, ctx.thread])", (4, 9),   # runs that overlap
     "threads 0 and 8 of CTA (0, 0, 0) store different values in `s[0, 0]` in this statement (0.0 and 8.0)"),
    ("if ctx.lane == 0 { s[0, 0] = f32(ctx.warp) }", (4, 22),             # one lane of each warp
     "threads 0 and 32 of CTA (0, 0, 0) store different values in `s[0, 0]` in this statement (0.0 and 1.0)"),
])
def test_ph408_two_threads_store_different_values_in_one_element(body, where, said):
    e = fails(WRITE_RACE.replace("BODY", body), f32(1, 64) + np.arange(64, dtype=np.float32), f32(1, 32))
    assert e.code == "PH408" and at(e) == where, str(e)
    assert said in str(e), str(e)


@pytest.mark.parametrize("body", [
    "s[0, ctx.thread / 2] = X[0, ctx.thread / 2]",                          # one value per element
    "if ctx.thread == 0 { s[0, 0] = 1.0 }\n  barrier()\n  if ctx.thread == 1 { s[0, 0] = 2.0 }",
    # thread 0 stores 1 then 2, thread 1 stores 2: whatever the order, 2 stays
    "if ctx.thread == 0 { s[0, 0] = 1.0 }\n  if ctx.thread < 2 { s[0, 0] = 2.0 }",
    # every thread then stores one value (LANGUAGE §9.4): it overwrites thread 0's in every order
    "if ctx.thread == 0 { s[0, 0] = 1.0 }\n  s[0, 0] = 3.0",
    "s[0, ctx.lane] = X[0, ctx.lane]",                                      # the warps agree
])
def test_no_ph408_when_the_outcome_does_not_depend_on_the_order(body):
    x = f32(1, 64) + np.arange(64, dtype=np.float32)
    y = f32(1, 32)
    loads(WRITE_RACE.replace("BODY", body), "k.ph", unchecked=True).kernel()(x, y, grid=(2,))


@pytest.mark.parametrize("body, where", [
    # every thread stores 0, then thread 0 stores 5: a late warp's 0 may land after the 5
    ("s[0, 0] = 0.0\n  if ctx.thread == 0 { s[0, 0] = 5.0 }", (5, 24)),
    ("s[0, 0] = 0.0\n  if ctx.thread == 0 { s[0, 0] = 0.0 }\n  if ctx.thread == 0 { s[0, 0] = 5.0 }", (6, 24)),
])
def test_ph408_a_per_thread_store_after_a_uniform_store_of_another_value(body, where):
    e = fails(WRITE_RACE.replace("BODY", body), f32(1, 64), f32(1, 32))
    assert e.code == "PH408" and at(e) == where and "every thread of the CTA" in str(e), str(e)


@pytest.mark.parametrize("body", [
    "s[0, 0] = 0.0\n  barrier()\n  if ctx.thread == 0 { s[0, 0] = 5.0 }",   # the barrier orders them
    "s[0, 0] = 0.0\n  if ctx.thread == 0 { s[0, 0] = 0.0 }",               # the same value
    "s[0, 0] = 0.0\n  s[0, 0] = 2.0",                                      # two uniform stores
    "s[0, 0] = 0.0\n  if ctx.thread == 0 { s[0, 1] = 5.0 }",               # another element
])
def test_no_ph408_after_a_uniform_store_that_nothing_contradicts(body):
    loads(WRITE_RACE.replace("BODY", body), "k.ph", unchecked=True).kernel()(f32(1, 64), f32(1, 32), grid=(3,))


STENCIL = """@launch(64)
kernel k(X: tensor<f32>[66], Y: tensor<f32>[64]) {
  var s: tile<f32>[1, 66] = X[None :+ 1, 0 :+ 66]
  let v = (s[0, ctx.thread] + s[0, ctx.thread + 1] + s[0, ctx.thread + 2]) / 3.0
  SYNC
  s[0, ctx.thread + 1] = v
  barrier()
  Y[ctx.thread] = s[0, ctx.thread + 1]
}
""".replace("X[None :+ 1, 0 :+ 66]", "0.0\n  s[0, ctx.thread + 1] = X[ctx.thread + 1]\n  barrier()")


def test_ph410_an_in_place_update_over_neighbours_without_a_barrier():
    # a late thread may read its neighbour's element after the neighbour overwrote it
    x = np.random.default_rng(5).random(66).astype(np.float32)
    e = fails(STENCIL.replace("SYNC", ""), x, f32(64))
    assert e.code == "PH410" and at(e) == (8, 3), str(e)
    assert "stores a new value in `s[0, 1]`, which several threads of the CTA read since the last barrier" in str(e)
    y = f32(64)
    loads(STENCIL.replace("SYNC", "barrier()"), "k.ph").kernel()(x, y, grid=(1,))
    s = np.concatenate([[0.0], x[1:65], [0.0]])
    assert np.allclose(y, (s[:-2] + s[1:-1] + s[2:]) / 3, rtol=1e-6)


@pytest.mark.parametrize("body, code", [
    ("O[ctx.thread] = O[ctx.thread + 1]", "PH410"),       # a shift in place, in global memory
    ("O[ctx.thread] = O[ctx.thread] * 2.0", None),         # each thread its own element
    ("O[ctx.thread + 1] = O[ctx.thread + 1] + 0.0 * O[ctx.thread]", None),   # the same value stored
])
def test_write_after_read_in_a_tensor(body, code):
    src = f"@launch(64)\nkernel k(O: tensor<f32>[65]) {{\n  {body}\n}}\n"
    o = np.arange(65, dtype=np.float32)
    if code is None:
        loads(src, "k.ph").kernel()(o, grid=(1,))
    else:
        assert fails(src, o).code == code


def test_a_cta_storing_into_what_another_cta_read_races():
    # PH409, write after read between CTAs: CTA 1 may run after CTA 0's store and read it
    src = """@launch(32)
kernel k(O: tensor<f32>[64], P: tensor<f32>[64]) {
  P[ctx.block.x * 32 + ctx.lane] = O[(1 - ctx.block.x) * 32 + ctx.lane]
  O[ctx.block.x * 32 + ctx.lane] = VALUE
}
"""
    e = fails(src.replace("VALUE", "f32(ctx.block.x) + 5.0"), f32(64), f32(64), grid=(2,))
    assert e.code == "PH409" and at(e) == (4, 3)
    assert "CTA (0, 0, 0) stores a new value in `O[0]`, which CTA (1, 0, 0) read in this launch" in str(e)
    # storing back what was there changes nothing another CTA could see
    loads(src.replace("VALUE", "O[ctx.block.x * 32 + ctx.lane]"), "k.ph").kernel()(f32(64), f32(64), grid=(2,))


def test_a_tile_read_of_rows_another_cta_then_overwrites_races():
    src = """@launch(32)
kernel k(O: tensor<f32>[2, 32], P: tensor<f32>[2, 32]) {
  P[ctx.block.x :+ 1, 0 :+ 32] = O[1 - ctx.block.x :+ 1, 0 :+ 32]
  O[ctx.block.x :+ 1, 0 :+ 32] = P[ctx.block.x :+ 1, 0 :+ 32] + 1.0
}
"""
    e = fails(src, f32(2, 32), f32(2, 32), grid=(2,))
    assert e.code == "PH409" and "which CTA (1, 0, 0) read" in str(e)


def test_race_records_of_a_loop_without_barriers_stay_the_size_of_the_buffer():
    # a loop storing and reading the same elements, with no barrier, lists each element once:
    # the lists the barrier clears do not grow with the iterations (memory and time)
    from phobos_tools.language.types import SCALARS
    from phobos_tools.simulator.memory import Buffer

    buf = Buffer("O", np.zeros(256, np.float32), SCALARS["f32"], per_cta=False)
    flat, tids = np.arange(256), np.arange(256)
    for _ in range(50):
        buf.mark(flat, tids, 256, np.ones(256, np.float32))
        buf.note_reads(flat, tids, 256)
        buf.mark_uniform(flat[:1], np.zeros(1, np.int64))
    assert sum(f.size for f in buf.dirty) == 256
    assert sum(f.size for f in buf.rdirty) == 256
    assert sum(f.size for f in buf.uni_dirty) == 1
    buf.clear(None, 256)
    assert not buf.dirty and not buf.rdirty and not buf.uni_dirty
    assert (buf.writer == -1).all() and (buf.reader == -1).all() and (buf.uni == 0).all()


WARP_SYNC = """@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  var s: tile<f32>[1, 64] = 0.0
  s[0, ctx.thread] = A[ctx.thread]
  barrier()
  let v = s[0, READ]
  let w = SYNC
  s[0, ctx.thread] = w
  barrier()
  O[ctx.thread] = s[0, ctx.thread]
}
"""


@pytest.mark.parametrize("read, sync, code", [
    # a shuffle or lane collective waits for the lanes of its warp only: another warp may store
    # over the element before this warp reads it (PH410)
    ("(ctx.thread + 32) % 64", "shfl<xor 1>(v)", "PH410"),
    ("(ctx.thread + 32) % 64", "v + 0.0 * sum<over ctx.lane>(v)", "PH410"),
    # within the warp it orders the reads before the partner's store
    ("ctx.thread ^ 1", "shfl<xor 1>(v)", None),
    ("ctx.thread / 2 * 2", "v + 0.0 * max<over ctx.lane>(v)", None),
    ("ctx.warp * 32", "shfl<idx 3>(v)", None),
    # a CTA collective exchanges through shared memory with barriers: every warp waits
    ("(ctx.thread + 32) % 64", "v + 0.0 * sum<over ctx.thread>(v)", None),
    ("(ctx.thread + 32) % 64", "v", "PH410"),
    # over an operand already the same in all it folds the lowering exchanges nothing (no
    # shuffle, no barrier), so such a collective orders no reads; a shuffle always exchanges
    ("(ctx.thread + 32) % 64", "v + 0.0 * sum<over ctx.thread>(2.0)", "PH410"),
    ("(ctx.thread + 32) % 64", "v + 0.0 * sum<over ctx.thread>(f32(ctx.warp))", None),
    ("ctx.thread ^ 1", "v + 0.0 * max<over ctx.lane>(f32(ctx.warp))", "PH410"),
    ("ctx.thread ^ 1", "v + 0.0 * max<over ctx.lane>(f32(ctx.lane))", None),
    ("ctx.thread ^ 1", "v + 0.0 * shfl<xor 1>(2.0)", None),
])
def test_a_lane_level_operation_orders_reads_only_within_its_warp(read, sync, code):
    src = WARP_SYNC.replace("READ", read).replace("SYNC", sync)
    a = np.random.default_rng(1).random(64).astype(np.float32)
    if code is None:
        loads(src, "k.ph", unchecked=True).kernel()(a, f32(64), grid=(2,))
    else:
        e = fails(src, a, f32(64), grid=(2,))
        assert e.code == code and at(e) == (8, 3), str(e)
