"""The analysis follows the order in which a kernel really runs, as the lowering and the simulator
run it (found by an audit against per-thread-values.md):

- a `for` loop's bounds (`lo`, `hi`, `step`) are evaluated once, before the first iteration, under
  the control around the loop: an operation in them is not "inside" the loop;
- a call's arguments run before the inlined body of the call;
- a call on the right of `&&`/`||` runs only where the left side lets it, so what its body does
  runs under control as varying as that left side;
- a computed tile passed to a function (`f(t * 2.0)`) is a sweep, a CTA-wide read of its tiles.

Each kernel is checked statically (`//~` markers, tests/support/analysis_expect.py), and the simulator,
running it whether or not the checker accepts it, agrees: the kernels the checker rejects fail
its dynamic check with the same code, and the ones it accepts run cleanly.
"""

from __future__ import annotations

import numpy as np
import pytest

from analysis_expect import assert_marked, source
from phobos_tools.run import DynamicCheckFailed, loads


def simulate(src: str, *arrays, grid=(1,)):
    return loads(source(src), "k.ph", unchecked=True).kernel()(*arrays, grid=grid)


def dynamic_code(src: str, *arrays) -> str | None:
    try:
        simulate(src, *arrays)
    except DynamicCheckFailed as e:
        return e.code
    return None


i32 = lambda *shape: np.zeros(shape, np.int32)          # noqa: E731
f32 = lambda *shape: np.ones(shape, np.float32)         # noqa: E731


# ================================================================ for bounds run once, outside

BOUNDS_OUTSIDE = [
    ("CTA collective in hi, a varying break in the body", """
        @launch(128)
        kernel k(A: tensor<i32>[128], O: tensor<i32>[128]) {
          var s = 0
          for i in range(0, sum<over ctx.thread>(A[ctx.thread])) {
            if ctx.lane == i {
              break
            }
            s += 1
          }
          O[ctx.thread] = s
        }
    """, (i32(128), i32(128))),
    ("lane collective in hi, a varying lo", """
        @launch(64)
        kernel k(A: tensor<i32>[64], O: tensor<i32>[64]) {
          var s = 0
          for i in range(ctx.lane, max<over ctx.lane>(A[ctx.thread])) {
            s += i
          }
          O[ctx.thread] = s
        }
    """, (i32(64), i32(64))),
    ("lane collective in step, a varying lo", """
        @launch(64)
        kernel k(A: tensor<i32>[64], O: tensor<i32>[64]) {
          var s = 0
          for i in range(ctx.lane, 64, max<over ctx.lane>(A[ctx.thread]) + 1) {
            s += i
          }
          O[ctx.thread] = s
        }
    """, (i32(64), i32(64))),
    ("atomic in hi, a varying lo", """
        @launch(64)
        kernel k(C: tensor<i32>[1], O: tensor<i32>[64]) {
          var s = 0
          for i in range(ctx.lane, atomic_add(C[0], 0)) {
            s += 1
          }
          O[ctx.thread] = s
        }
    """, (i32(1), i32(64))),
]


@pytest.mark.parametrize("what,src,arrays", BOUNDS_OUTSIDE, ids=[c[0] for c in BOUNDS_OUTSIDE])
def test_an_operation_in_a_for_loops_bounds_runs_once_before_it(what, src, arrays):
    assert_marked(src)
    assert dynamic_code(src, *arrays) is None


def test_a_barrier_in_a_step_function_runs_once_and_cuts_nothing_inside_the_loop():
    src = """
        fn one() -> i32 {
          barrier()
          return 1
        }
        @launch(128)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[4, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          for i in range(0, 4, one()) {
            O[0 :+ 1, 0 :+ 32] = t //~ error PH303 "reads `t`"
            t[0, ctx.lane] = 1.0
          }
        }
    """
    assert_marked(src)
    assert dynamic_code(src, f32(1, 32), f32(4, 32)) == "PH303"


def test_a_loop_whose_trip_count_differs_still_constrains_its_body():
    assert_marked("""
        @launch(128)
        kernel k(A: tensor<i32>[128], O: tensor<i32>[128]) {
          var s = 0
          for i in range(0, max<over ctx.lane>(A[ctx.thread])) {
            barrier() //~ error PH301
          }
        }
    """)


# ================================================================ arguments before the body

def test_an_argument_runs_before_the_barrier_in_the_callee():
    src = """
        fn first(r: tile<f32>[1, 1]) -> f32 {
          barrier()
          return r[0, 0]
        }
        @launch(128)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[128]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          t[0, ctx.lane] = 2.0
          O[ctx.thread] = first(rowsum(t)) //~ error PH303 "`rowsum` reads `t`"
        }
    """
    assert_marked(src)
    assert dynamic_code(src, f32(1, 32), f32(128)) == "PH303"


def test_an_argument_runs_before_the_store_in_the_callee():
    src = """
        fn put(O: tensor<i32>[128], x: i32) {
          O[ctx.thread] = x
        }
        @launch(128)
        kernel k(O: tensor<i32>[128]) {
          put(O, atomic_add(O[0], 1))
        }
    """
    assert_marked(src)
    assert dynamic_code(src, i32(128)) is None


def test_a_computed_tile_argument_is_a_sweep_that_reads_its_tiles():
    src = """
        fn first(t: tile<f32>[1, 32]) -> f32 {
          return t[0, 0]
        }
        @launch(128)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[128]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          t[0, ctx.lane] = 2.0
          O[ctx.thread] = first(t * 2.0) //~ error PH303 "`elementwise sweep` reads `t`"
          barrier()
          O[ctx.thread] = first(t * 2.0)
        }
    """
    assert_marked(src)
    assert dynamic_code(src, f32(1, 32), f32(128)) == "PH303"


# ================================================================ calls under && and ||

SHORT_CIRCUIT = [
    ("barrier in a function on the right of &&", """
        fn sync_ok() -> bool {
          barrier() //~ error PH301
          return true
        }
        @launch(128)
        kernel k(O: tensor<i32>[128]) {
          let ok = ctx.lane == 0 && sync_ok()
          if ok {
            O[ctx.thread] = 1
          }
        }
    """, (i32(128),), "PH301"),
    ("barrier in a function on the right of ||, assigned to a var", """
        fn sync_ok() -> bool {
          barrier() //~ error PH301
          return true
        }
        @launch(128)
        kernel k(O: tensor<i32>[128]) {
          var ok = false
          ok = ctx.lane != 0 || sync_ok()
          if ok {
            O[ctx.thread] = 1
          }
        }
    """, (i32(128),), "PH301"),
    ("lane collective in a function on the right of &&", """
        fn any_big(x: i32) -> bool {
          return max<over ctx.lane>(x) > 3 //~ error PH305
        }
        @launch(64)
        kernel k(A: tensor<i32>[64], O: tensor<i32>[64]) {
          let ok = ctx.lane < 16 && any_big(A[ctx.thread])
          O[ctx.thread] = where(ok, 1, 0)
        }
    """, (i32(64), i32(64)), "PH305"),
    ("uniform left side: no error", """
        fn sync_ok() -> bool {
          barrier()
          return true
        }
        @launch(128)
        kernel k(N: tensor<i32>[1], O: tensor<i32>[128]) {
          let ok = N[0] > 0 && sync_ok()
          if ok {
            O[ctx.thread] = 1
          }
        }
    """, (i32(1), i32(128)), None),
]


@pytest.mark.parametrize("what,src,arrays,code", SHORT_CIRCUIT, ids=[c[0] for c in SHORT_CIRCUIT])
def test_a_call_on_the_right_of_a_short_circuit_runs_under_its_left_side(what, src, arrays, code):
    assert_marked(src)
    assert dynamic_code(src, *arrays) == code


# ================================================================ the messages name the real cause

def _only(src):
    from analysis_expect import check
    r = check(src)
    assert len(r.diagnostics) == 1, [(d.code, d.message) for d in r.diagnostics]
    return r.diagnostics[0]


def test_a_trip_count_that_differs_is_named_as_the_loops_not_a_branchs():
    d = _only("""
        @launch(128)
        kernel k(A: tensor<f32>[128], O: tensor<f32>[128]) {
          var s: f32 = 0.0
          for i in range(0, ctx.warp + 1) {
            s += sum<over ctx.thread>(A[ctx.thread])
          }
          O[ctx.thread] = s
        }
    """)
    assert d.code == "PH306"
    assert d.label == "reached only by the warps whose loop runs this iteration"
    assert d.help == "move the collective out of the loop, or make the loop's bounds uniform"


def test_an_early_return_before_a_barrier_gets_a_return_fix():
    d = _only("""
        @launch(128)
        kernel k(O: tensor<f32>[128]) {
          for o in range(0, 4) {
            if ctx.lane == 40 {
              return
            }
          }
          barrier()
        }
    """)
    assert d.label == "reached only by the lanes that have not returned"
    assert d.help.startswith("keep every thread running up to `barrier()`")


def test_a_call_on_the_right_of_and_names_the_left_side():
    d = _only("""
        fn sync_ok() -> bool {
          barrier()
          return true
        }
        @launch(128)
        kernel k(O: tensor<i32>[128]) {
          let ok = ctx.lane == 0 && sync_ok()
          O[ctx.thread] = where(ok, 1, 0)
        }
    """)
    assert d.label == "reached only by the lanes where the left side of `&&`/`||` lets it run"
    assert "differs between lanes, so what follows it in `&&`/`||` runs only where it allows" in \
        [c.text for c in d.chain][0]
    assert d.help == "call it before the `&&`/`||`, or make the left side uniform"


def test_a_store_inside_a_function_shows_its_call_and_the_names_at_both_ends():
    from analysis_expect import check
    r = check("""
        fn put(t: tile<f32>[1, 32]) {
          t[0, ctx.lane] = 1.0
        }
        fn show(t: tile<f32>[1, 32], O: tensor<f32>[1, 32]) {
          O[0 :+ 1, 0 :+ 32] = t
        }
        @launch(128)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          put(u)
          show(t, O)
          show(u, O)
        }
    """)
    (d,) = r.diagnostics
    assert (d.code, d.span.line) == ("PH303", 5)
    texts = [(c.span.line, c.text) for c in d.chain]
    assert texts == [
        (11, "inlined from 11:3: this call of `put` holds the store"),
        (2, "each thread stores to `t` (that is `u`) here, at an index that differs between lanes"),
        (13, "inlined from 13:3: this call of `show` holds the operation")]
    assert d.notes == ["`t` is parameter `t` of `show`, bound to `u` by the call at 13:3"]


def test_returning_a_tile_is_a_cta_wide_copy_into_the_calls_result():
    assert_marked("""
        fn twice(t: tile<f32>[1, 32]) -> tile<f32>[1, 32] {
          return t * 2.0 //~ error PH303 PH301
        }
        @launch(32)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          u[0, ctx.lane] = 1.0
          var v: tile<f32>[1, 32] = twice(u)
          barrier()
          var x: tile<f32>[1, 32] = twice(u)
          if ctx.lane == 0 {
            var w: tile<f32>[1, 32] = twice(v) //~ error PH301 "`tile copy`"
          }
          O[0, ctx.lane] = v[0, ctx.lane]
        }
    """)


MESSAGES = [
    # (kernel body under @launch(128) with A: tensor<f32>[128], O: tensor<f32>[128]; label; help)
    ("if ctx.thread < 64 {\n    O[ctx.thread] = 1.0\n  } else {\n    barrier()\n  }",
     "reached only by the lanes where the condition fails",
     "move `barrier()` out of the branch, or make the condition uniform"),
    ("if ctx.lane == 0 || any<over ctx.thread>(A[ctx.thread] > 1.0) {\n    O[ctx.thread] = 1.0\n  }",
     "reached only by the lanes where the left side of `&&`/`||` lets it run",
     "call it before the `&&`/`||`, or make the left side uniform"),
    ("var i = ctx.lane\n  while i < 40 {\n    barrier()\n    i += 32\n  }",
     "reached only by the lanes still looping",
     "move `barrier()` out of the loop, or make the loop's condition uniform"),
]


@pytest.mark.parametrize("body,label,help_", MESSAGES, ids=["else", "or-in-condition", "while"])
def test_the_label_and_help_follow_where_the_operation_sits(body, label, help_):
    d = _only("@launch(128)\nkernel k(A: tensor<f32>[128], O: tensor<f32>[128]) {\n  " + body + "\n}\n")
    assert (d.label, d.help) == (label, help_)


def test_ph303_names_an_atomics_element_and_the_most_varying_reason():
    from analysis_expect import check
    r = check("""
        @launch(128)
        kernel k(C: tensor<i32>[8], T: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
          C[ctx.thread % 8] = 1
          let a = atomic_add(C[0], 1)
          var u: tile<f32>[4, 32] = T[0 :+ 4, 0 :+ 32]
          u[ctx.warp, ctx.lane] = 2.0
          O[0 :+ 4, 0 :+ 32] = u
        }
    """)
    atomic, copy = r.diagnostics
    assert atomic.label == "reads `C[0]`, which other threads may have stored"
    assert copy.chain[0].text.endswith("at an index that differs between lanes")
