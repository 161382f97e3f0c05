"""Loops in the per-thread analysis: kinds carried around back edges (LANGUAGE §9.1), early exits
(§9.3), and the barrier rule along back edges with z3 dropping the infeasible paths (§9.6)."""

from __future__ import annotations

import pytest

from analysis_expect import assert_marked, check, kinds, only

# ================================================================ kinds around back edges

def test_var_assigned_lane_in_a_later_iteration_is_varying_before_it():
    # per-thread-values.md: "A var that starts uniform and is assigned ctx.lane in a later
    # iteration is varying everywhere."
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
          var x = 0
          for i in range(0, 4) {
            if x == 0 {
              barrier()                               //~ error PH301
            }
            O[0 :+ 1, x :+ 4] = A[0 :+ 1, 0 :+ 4]     //~ error PH302 "`slice` takes `x`, which differs between lanes"
            x = ctx.lane
          }
        }
    """)
    assert kinds(r)["x"] == "varying"
    d = only(r, "PH301")
    assert "`ctx.lane`" in d.chain[0].text and d.chain[0].span.line == 9


def test_var_assigned_uniform_values_in_a_loop_stays_uniform():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
          var x = 0
          for i in range(0, 4) {
            if x == 0 {
              barrier()
            }
            O[0 :+ 1, x :+ 4] = A[0 :+ 1, 0 :+ 4]
            x = x + i * ctx.block.x
          }
        }
    """)
    assert kinds(r) == {"x": "uniform", "i": "uniform"}


def test_kinds_carried_through_two_vars():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var a = 0
          var b = 0
          var c = 0
          for i in range(0, 4) {
            if a == 1 {
              barrier()          //~ error PH301
            }
            a = b
            b = ctx.lane
          }
          var p = 0
          var q = 0
          for j in range(0, 4) {
            p = q + 1
            q = ctx.warp
          }
          var u = 0
          var w = 0
          for m in range(0, 4) {
            u = w
            w = u + 1
          }
        }
    """)
    k = kinds(r)
    assert (k["a"], k["b"], k["c"]) == ("varying", "varying", "uniform")
    assert (k["p"], k["q"]) == ("warp-uniform", "warp-uniform")
    assert (k["u"], k["w"]) == ("uniform", "uniform")
    d = only(r, "PH301")
    # origin first: ctx.lane into b, b into a, a into the condition
    assert "`ctx.lane`" in d.chain[0].text and "`b`" in d.chain[0].text
    assert [l.span.line for l in d.chain] == [11, 10, 7]


def test_kinds_carried_through_a_while_loop():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var n = 0
          var s = 0
          while n < 4 {
            s = n
            n = n + ctx.lane
          }
        }
    """)
    assert kinds(r) == {"n": "varying", "s": "varying"}


# ================================================================ early exits in loops

def test_varying_break_after_a_barrier_in_the_same_loop_and_a_barrier_after_it():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          for i in range(0, 4) {
            barrier()              //~ error PH301 "`barrier()` runs once per CTA, so every thread must reach it"
            if ctx.lane == i {
              break
            }
          }
          barrier()
        }
    """)
    d = only(r, "PH301")
    assert "lanes still in the loop" in d.label
    assert "leave the loop" in d.chain[-1].text and d.chain[-1].span.line == 6
    assert "`break`" in d.help


def test_varying_break_in_a_while_loop_raises_its_condition():
    assert_marked("""
        @launch(256)
        kernel k(F: tensor<i32>[4]) {
          while load_acquire(F[0]) == 0 {      //~ error PH301 "`load_acquire` runs once per CTA"
            if ctx.lane == 0 {
              break
            }
          }
          let f = load_acquire(F[1])
        }
    """)


def test_uniform_while_polling_loop_is_fine():
    # grid_counter's pattern: poll with load_acquire under uniform control
    assert_marked("""
        @launch(256)
        kernel k(F: tensor<i32>[4], epoch: i32) {
          var seen = load_acquire(F[0])
          while seen != epoch {
            seen = load_acquire(F[0])
          }
          barrier()
        }
    """)


def test_return_in_a_loop():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          for i in range(0, 4) {
            barrier()              //~ error PH301 "`barrier()` runs once per CTA"
            if ctx.lane == 0 {
              return
            }
            barrier()              //~ error PH301
          }
          barrier()                //~ error PH301
        }
    """)
    assert all("lanes that have not returned" in d.label for d in r.diagnostics)
    assert all("return here" in d.chain[-1].text for d in r.diagnostics)


def test_uniform_return_in_a_loop_is_fine():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          for i in range(0, 4) {
            barrier()
            if ctx.block.x == i {
              return
            }
            barrier()
          }
          barrier()
        }
    """)


def test_continue_in_a_loop():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          for i in range(0, 4) {
            barrier()
            if ctx.lane == 0 {
              continue
            }
            barrier()              //~ error PH301 "`barrier()` runs once per CTA"
          }
          barrier()
          var n = 0
          while n < 4 {
            n += 1
            barrier()
            if ctx.warp == 1 {
              continue
            }
            let s = sum<over ctx.lane>(1)
            let t = sum<over ctx.thread>(1)   //~ error PH306
          }
        }
    """)


# ================================================================ the barrier rule along back edges

LOOP_KERNEL = """
    @launch(32)
    kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {{
      var t: tile<f32>[1, 32] = 0.0
{body}
    }}
"""


def loop_kernel(body: str) -> str:
    return LOOP_KERNEL.format(body=body)


def test_store_then_read_at_the_top_of_the_next_iteration_fires():
    r = assert_marked(loop_kernel("""
      for r in range(0, 4) {
        O[r :+ 1, 0 :+ 32] = t             //~ error PH303
        t[0, ctx.lane] = A[r, ctx.lane]
      }"""))
    d = only(r, "PH303")
    assert "through the loop's back edge" in d.chain[-1].text


def test_barrier_at_the_end_of_the_body_cuts_the_back_edge():
    assert_marked(loop_kernel("""
      for r in range(0, 4) {
        O[r :+ 1, 0 :+ 32] = t
        t[0, ctx.lane] = A[r, ctx.lane]
        barrier()
      }"""))


def test_barrier_at_the_top_of_the_body_does_not_cover_the_exit():
    assert_marked(loop_kernel("""
      for r in range(0, 4) {
        barrier()
        O[r :+ 1, 0 :+ 32] = t
        t[0, ctx.lane] = A[r, ctx.lane]
      }
      O[0 :+ 1, 0 :+ 32] = t               //~ error PH303"""))


def test_store_before_the_loop_and_read_inside_fires():
    assert_marked(loop_kernel("""
      t[0, ctx.lane] = 1.0
      for r in range(0, 4) {
        O[r :+ 1, 0 :+ 32] = t             //~ error PH303
        barrier()
      }"""))


@pytest.mark.parametrize("guard", ["r == 4 - 1", "r == 3", "r >= 3", "3 == r", "r + 1 == 4", "!(r < 3)"])
def test_store_only_in_the_last_iteration_is_dropped_by_z3(guard):
    assert_marked(loop_kernel(f"""
      for r in range(0, 4) {{
        O[r :+ 1, 0 :+ 32] = t
        if {guard} {{
          t[0, ctx.lane] = A[r, ctx.lane]
        }}
      }}"""))


def test_store_only_in_the_last_iteration_with_a_constant_bound():
    src = """
        @launch(32)
        @autotune(R in [4, 8])
        kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
          var t: tile<f32>[1, 32] = 0.0
          for r in range(0, R) {
            O[r :+ 1, 0 :+ 32] = t
            if r == R - 1 {
              t[0, ctx.lane] = A[r, ctx.lane]
            }
          }
        }
    """
    assert_marked(src)
    assert_marked(src, defines={"R": "8"})


def test_store_only_in_the_last_iteration_with_a_defined_or_runtime_extent():
    src = """
        @launch(32)
        kernel k(A: tensor<f32>[N, 32], O: tensor<f32>[N, 32]) {
          var t: tile<f32>[1, 32] = 0.0
          for r in range(0, N) {
            O[r :+ 1, 0 :+ 32] = t
            if r == N - 1 {
              t[0, ctx.lane] = A[r, ctx.lane]
            }
          }
        }
    """
    assert_marked(src)                       # N a runtime extent, the same in both iterations
    assert_marked(src, defines={"N": "6"})   # N bound at build time


def test_store_only_in_the_last_iteration_with_a_step():
    assert_marked("""
        @launch(32)
        kernel k(A: tensor<f32>[1, K], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = 0.0
          for c in range(0, K, 4) {
            O[0 :+ 1, 0 :+ 32] = t
            if c + 4 >= K {
              t[0, ctx.lane] = A[0, ctx.lane]
            }
          }
          barrier()
          for c in range(0, 8, 2) {
            O[0 :+ 1, 0 :+ 32] = t
            if c == 6 {
              t[0, ctx.lane] = A[0, ctx.lane]
            }
          }
          barrier()
          for c in range(0, 8, 2) {
            O[0 :+ 1, 0 :+ 32] = t      //~ error PH303
            if c == 4 {
              t[0, ctx.lane] = A[0, ctx.lane]
            }
          }
        }
    """)


def test_store_guard_through_a_let_in_the_loop():
    assert_marked(loop_kernel("""
      for r in range(0, 4) {
        let last = r == 3
        let next = r + 1
        O[r :+ 1, 0 :+ 32] = t
        if last && next == 4 {
          t[0, ctx.lane] = A[r, ctx.lane]
        }
      }"""))


def test_store_two_iterations_before_the_read_still_fires():
    r = assert_marked(loop_kernel("""
      for r in range(0, 4) {
        if r == 2 {
          O[r :+ 1, 0 :+ 32] = t           //~ error PH303
        }
        if r == 0 {
          t[0, ctx.lane] = A[r, ctx.lane]
        }
      }"""))
    assert "back edge" in only(r, "PH303").chain[-1].text


def test_read_only_before_the_store_iteration_is_dropped():
    # the read at r == 0 never comes after the store at r == 3
    assert_marked(loop_kernel("""
      for r in range(0, 4) {
        if r == 0 {
          O[r :+ 1, 0 :+ 32] = t
        }
        if r == 3 {
          t[0, ctx.lane] = A[r, ctx.lane]
        }
      }"""))


@pytest.mark.parametrize("store_guard,read_guard,fires", [
    ("r == 0", "r > 0", True),
    ("r == 3", "r > 0", False),
    ("r < 2", "r >= 2", True),
    ("r >= 2", "r < 2", False),
    ("r == ctx.lane", "true", True),     # a per-lane guard: z3 cannot rule it out
    ("r % 2 == 0", "r % 2 == 1", True),
    ("r == 1", "r == 1", False),         # the same iteration only: i < i' impossible
])
def test_z3_guards(store_guard, read_guard, fires):
    mark = "           //~ error PH303" if fires else ""
    assert_marked(loop_kernel(f"""
      for r in range(0, 4) {{
        if {read_guard} {{
          O[r :+ 1, 0 :+ 32] = t{mark}
        }}
        if {store_guard} {{
          t[0, ctx.lane] = A[r, ctx.lane]
        }}
      }}"""))


def test_store_and_read_in_exclusive_branches_meet_through_the_back_edge():
    assert_marked(loop_kernel("""
      for r in range(0, 4) {
        if r % 2 == 0 {
          t[0, ctx.lane] = A[r, ctx.lane]
        } else {
          O[r :+ 1, 0 :+ 32] = t           //~ error PH303
        }
      }"""))


def test_single_trip_loop_needs_no_barrier():
    assert_marked(loop_kernel("""
      for r in range(0, 1) {
        O[r :+ 1, 0 :+ 32] = t
        t[0, ctx.lane] = A[r, ctx.lane]
      }
      barrier()
      for r in range(5, 6) {
        O[r :+ 1, 0 :+ 32] = t
        t[0, ctx.lane] = A[r, ctx.lane]
      }
      barrier()
      for r in range(0, 4, 4) {
        O[r :+ 1, 0 :+ 32] = t
        t[0, ctx.lane] = A[r, ctx.lane]
      }
      barrier()
      let s = ctx.block.x
      for r in range(s, s + 1) {
        O[0 :+ 1, 0 :+ 32] = t
        t[0, ctx.lane] = A[0, ctx.lane]
      }"""))


def test_two_trip_loop_needs_a_barrier():
    assert_marked(loop_kernel("""
      for r in range(0, 2) {
        O[r :+ 1, 0 :+ 32] = t             //~ error PH303
        t[0, ctx.lane] = A[r, ctx.lane]
      }"""))


def test_while_loop_carries_the_path():
    r = assert_marked(loop_kernel("""
      var r = 0
      while r < 4 {
        O[r :+ 1, 0 :+ 32] = t             //~ error PH303
        t[0, ctx.lane] = A[r, ctx.lane]
        r += 1
      }"""))
    assert "back edge" in only(r, "PH303").chain[-1].text


def test_nested_loops_last_inner_iteration_still_reaches_the_next_outer_one():
    # dropped for the inner loop by z3, kept through the outer loop's back edge
    assert_marked(loop_kernel("""
      for o in range(0, 2) {
        for r in range(0, 4) {
          O[r :+ 1, 0 :+ 32] = t           //~ error PH303
          if r == 3 {
            t[0, ctx.lane] = A[r, ctx.lane]
          }
        }
      }"""))


def test_nested_loops_with_a_barrier_between_outer_iterations():
    assert_marked(loop_kernel("""
      for o in range(0, 2) {
        for r in range(0, 4) {
          O[r :+ 1, 0 :+ 32] = t
          if r == 3 {
            t[0, ctx.lane] = A[r, ctx.lane]
          }
        }
        barrier()
      }"""))


def test_nested_loops_store_in_the_last_outer_iteration():
    assert_marked(loop_kernel("""
      for o in range(0, 2) {
        for r in range(0, 4) {
          O[r :+ 1, 0 :+ 32] = t
        }
        if o == 1 {
          t[0, ctx.lane] = A[o, ctx.lane]
        }
      }"""))


def test_per_thread_store_in_a_loop_with_varying_bounds():
    # control varying (§9.3) makes the store per-thread (§9.4) even at a uniform index
    r = assert_marked(loop_kernel("""
      for r in range(0, ctx.lane) {
        t[0, 0] = 1.0
      }
      O[0 :+ 1, 0 :+ 32] = t               //~ error PH303"""))
    assert "under control that differs between lanes" in only(r, "PH303").chain[-1].text


def test_kinds_of_loop_bindings_are_listed():
    r = check(loop_kernel("""
      for r in range(0, 4) {
        let a = r * 2
        var b = 0
        b = a + ctx.warp
      }"""))
    assert kinds(r) == {"r": "uniform", "a": "uniform", "b": "warp-uniform"}


# ---------------------------------------------------------------- z3 and inlined functions

def test_guards_inside_an_inlined_function_use_its_loop_variable():
    # the unrolled equivalent: a `let` copy of the loop variable, checked by z3 correctly
    assert_marked("""
        @launch(32)
        kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
          var t: tile<f32>[1, 32] = 0.0
          for r in range(0, 4) {
            let i = r
            if i == 1 {
              O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
            }
            if i == 0 {
              t[0, ctx.lane] = A[0, ctx.lane]
            }
          }
        }
    """)


def test_guard_calling_a_function_is_not_dropped():
    assert_marked("""
        fn is_first(i: i32) -> bool {
          return i == 0
        }
        @launch(32)
        kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
          var t: tile<f32>[1, 32] = 0.0
          for r in range(0, 4) {
            if r == 1 {
              O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
            }
            if is_first(r) {
              t[0, ctx.lane] = A[0, ctx.lane]
            }
          }
        }
    """)


def test_guard_on_a_function_parameter_bound_to_the_loop_variable():
    assert_marked("""
        fn step(i: i32, t: tile<f32>[1, 32], A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
          if i == 1 {
            O[0 :+ 1, 0 :+ 32] = t            //~ error PH303
          }
          if i == 0 {
            t[0, ctx.lane] = A[0, ctx.lane]
          }
        }
        @launch(32)
        kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
          var t: tile<f32>[1, 32] = 0.0
          for r in range(0, 4) {
            step(r, t, A, O)
          }
        }
    """)


PHASE = """
    fn phase(t: tile<f32>[1, 32], A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
      for j in range(0, 2) {
        if j == 0 {
          O[0 :+ 1, 0 :+ 32] = t              //~ error PH303
        }
        if j == 1 {
          t[0, ctx.lane] = A[0, ctx.lane]
        }
      }
    }
    @launch(32)
    kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
      var t: tile<f32>[1, 32] = 0.0
      for r in range(0, 4) {
        phase(t, A, O)
      }
{after}
    }
"""


def test_inner_loop_of_an_inlined_function_carried_by_the_outer_loop():
    # the store at (r, j = 1) reaches the read at (r + 1, j = 0) through the kernel loop's back edge
    assert_marked(PHASE.replace("{after}", ""))


def test_a_later_call_of_the_same_function_does_not_hide_the_race():
    assert_marked(PHASE.replace("{after}", "      barrier()\n      phase(t, A, O)"))


def test_guards_are_read_with_i32_wraparound():
    # `i * 65536 * 65536` is 0 in i32 for every i, so the read runs in every iteration and meets
    # the store of the one before: the path stays (z3 on unbounded integers dropped it). The
    # simulator sees the race too.
    src = loop_kernel("""
      for i in range(0, 4) {
        if i * 65536 * 65536 == 0 {
          O[0 :+ 1, 0 :+ 32] = t             //~ error PH303
        }
        t[0, ctx.lane] = 1.0
      }""")
    assert_marked(src)
    from analysis_expect import source
    from phobos_tools.run import DynamicCheckFailed, loads
    import numpy as np
    with pytest.raises(DynamicCheckFailed) as err:
        loads(source(src), "k.ph", unchecked=True).kernel()(
            *[np.zeros(s, np.float32) for s in ((8, 32), (8, 32))], grid=(1,))
    assert err.value.code == "PH303"


def test_guards_on_values_that_cannot_overflow_are_still_decided():
    # a store in the last iteration of a loop to a runtime bound, and a guard on a parameter
    # that wraps only outside its type's range: both paths are still dropped
    assert_marked("""
        @launch(32)
        kernel k(O: tensor<f32>[8, 32], n: i32) {
          var t: tile<f32>[1, 32] = 0.0
          for r in range(0, n) {
            O[0 :+ 1, 0 :+ 32] = t
            if r == n - 1 {
              t[0, ctx.lane] = 2.0
            }
          }
          barrier()
          for r in range(0, 8) {
            O[0 :+ 1, 0 :+ 32] = t
            if r + n == n + 7 {
              t[0, ctx.lane] = 3.0
            }
          }
        }
    """)
