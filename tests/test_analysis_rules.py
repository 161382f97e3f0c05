"""LANGUAGE §9, item by item, and the rules PH301-PH306: for each item a kernel where it fires
(or gives the kind it states) and one where it does not. Kernels carry their expectations as
`//~ error CODE ["substring"]` markers; unmarked lines must be clean (tests/analysis_expect.py).
"""

from __future__ import annotations

import pytest

from analysis_expect import assert_marked, check, kind_rows, kinds, only

# ================================================================ §9.1 a var has one kind

def test_9_1_var_is_the_join_over_its_assignments():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var lane_later = 0
          lane_later = ctx.lane
          var warp_later = ctx.block.x
          warp_later = ctx.warp + 1
          var only_uniform = 0
          only_uniform = ctx.block.x * 2
          var init_varying = ctx.lane
          init_varying = 0
          var both = ctx.warp
          both = ctx.thread
        }
    """)
    assert kinds(r) == {"lane_later": "varying", "warp_later": "warp-uniform", "only_uniform": "uniform",
                        "init_varying": "varying", "both": "varying"}


def test_9_1_var_includes_the_control_of_each_assignment():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var w = 0
          if ctx.warp == 0 {
            w = 1
          }
          var l = 0
          if ctx.lane == 3 {
            l = 1
          }
          var u = 0
          if ctx.block.x == 3 {
            u = 1
          }
          var m = 0
          for i in range(0, ctx.warp) {
            m = 1
          }
          if ctx.lane == 0 {
            var decl = 1
          }
        }
    """)
    k = kinds(r)
    assert (k["w"], k["l"], k["u"], k["m"]) == ("warp-uniform", "varying", "uniform", "warp-uniform")
    # the initializer is an assignment too, run under varying control here
    assert k["decl"] == "varying"


def test_9_1_varying_everywhere_before_the_assignment_too():
    # x is used as a slice offset before the assignment that makes it varying
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
          var x = 0
          var t: tile<f32>[1, 32] = A[0 :+ 1, x :+ 32]     //~ error PH302 "`slice` takes `x`, which differs between lanes"
          O[0 :+ 1, 0 :+ 32] = t
          x = ctx.lane
        }
    """)
    d = only(r, "PH302")
    assert d.chain[0].span.line == 6 and "`ctx.lane`" in d.chain[0].text


def test_9_1_varying_everywhere_before_the_assignment_in_control():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var x = 0
          if x == 0 {
            barrier()       //~ error PH301
          }
          x = ctx.lane
        }
    """)


def test_9_1_uniform_var_stays_uniform():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
          var x = 0
          var t: tile<f32>[1, 32] = A[0 :+ 1, x :+ 32]
          O[0 :+ 1, 0 :+ 32] = t
          x = ctx.block.x + 1
          if x == 0 {
            barrier()
          }
        }
    """)
    assert kinds(r)["x"] == "uniform"


def test_9_1_a_run_var_is_the_join_of_its_element_assignments():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var r = elem(A[0, 0 :+ 4])
          r[1] = f32(ctx.warp)
          var q = elem(A[0, 0 :+ 4])
          q[1] = 2.0
        }
    """)
    assert kinds(r) == {"r": "warp-uniform", "q": "uniform"}


def test_9_1_shadowing_var_is_a_separate_binding():
    r = check("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var s = 0
          if ctx.lane == 0 {
            var s = 5
          }
        }
    """)
    assert kind_rows(r, "s") == ["uniform", "varying"]


# ================================================================ §9.2 let, loop variables, collectives, functions

def test_9_2_let_has_the_kind_of_its_initializer_not_its_control():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          let a = ctx.block.x * ctx.warps + ctx.warp
          let b = a * 32 + ctx.lane
          let c = ctx.blocks.x + ctx.threads + ctx.lanes
          if ctx.lane == 0 {
            let d = c + 1
          }
        }
    """)
    assert kinds(r) == {"a": "warp-uniform", "b": "varying", "c": "uniform", "d": "uniform"}


@pytest.mark.parametrize("bounds,kind", [
    ("0, 8", "uniform"),
    ("ctx.lane, 8", "varying"),
    ("0, ctx.warp", "warp-uniform"),
    ("0, 8, ctx.warp + 1", "warp-uniform"),
    ("0, 64, ctx.lane + 1", "varying"),
    ("ctx.warp, 8, ctx.lanes", "warp-uniform"),
])
def test_9_2_loop_variable_is_the_join_of_lo_hi_step(bounds, kind):
    r = check(f"""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {{
          for i in range({bounds}) {{
            let j = i
          }}
        }}
    """)
    assert kinds(r) == {"i": kind, "j": kind}


def test_9_2_loop_variable_ignores_the_control_around_the_loop():
    r = check("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          if ctx.lane == 0 {
            for i in range(0, 4) {
              let j = i
            }
          }
        }
    """)
    assert kinds(r) == {"i": "uniform", "j": "uniform"}


def test_9_2_collective_results_whatever_the_operand():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 256]) {
          let l1 = sum<over ctx.lane>(ctx.lane)
          let l2 = max<over ctx.lane>(ctx.block.x)
          let l3 = any<over ctx.lane>(ctx.thread == 0)
          let c1 = sum<over ctx.thread>(ctx.lane)
          let c2 = min<over ctx.thread>(A[0, ctx.thread])
          let c3 = all<over ctx.thread>(ctx.warp == 1)
        }
    """)
    assert kinds(r) == {"l1": "warp-uniform", "l2": "warp-uniform", "l3": "warp-uniform",
                        "c1": "uniform", "c2": "uniform", "c3": "uniform"}


def test_9_2_shuffle_result_is_the_join_of_value_and_lane():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 256]) {
          let a = shfl<idx 3>(ctx.block.x)
          let b = shfl<idx ctx.warp>(ctx.block.x)
          let c = shfl<xor 1>(ctx.warp)
          let d = shfl<down 1>(ctx.lane)
          let e = shfl<idx ctx.lane>(1)
        }
    """)
    assert kinds(r) == {"a": "uniform", "b": "warp-uniform", "c": "warp-uniform", "d": "varying", "e": "varying"}


def test_9_2_atomic_and_acquire_results_are_uniform():
    r = assert_marked("""
        @launch(256)
        kernel k(C: tensor<i32>[4], F: tensor<i32>[4]) {
          let a = atomic_add(C[0], 1)
          let f = load_acquire(F[1])
        }
    """)
    assert kinds(r) == {"a": "uniform", "f": "uniform"}


def test_9_2_function_result_joins_value_kinds_over_returns():
    r = assert_marked("""
        fn inc(a: i32) -> i32 {
          let b = a + 1
          return b
        }
        fn plus_lane(a: i32) -> i32 {
          return a + ctx.lane
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          let u = inc(ctx.block.x)
          let w = inc(ctx.warp)
          let v = plus_lane(1)
        }
    """)
    k = {x["name"]: x["kind"] for x in r.kinds if x["name"] in "uwv"}
    assert k == {"u": "uniform", "w": "warp-uniform", "v": "varying"}


def test_9_2_function_result_includes_the_control_at_each_return():
    # no returned value is varying, but the first return runs under varying control, and the
    # second after it (raised, §9.3)
    r = assert_marked("""
        fn pick(a: i32) -> i32 {
          if ctx.lane == 0 {
            return 1
          }
          return a
        }
        fn pick_w(a: i32) -> i32 {
          if ctx.warp == 0 {
            return 1
          }
          return a
        }
        fn same(a: i32) -> i32 {
          if ctx.block.x == 0 {
            return 1
          }
          return a
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          let p = pick(ctx.block.x)
          let q = pick_w(ctx.block.x)
          let s = same(ctx.block.x)
        }
    """)
    assert kinds(r) == {"p": "varying", "q": "warp-uniform", "s": "uniform"}


def test_9_2_function_called_under_varying_control_returns_varying():
    r = assert_marked("""
        fn one() -> i32 {
          var y = 0
          y = 1
          return y
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          let a = one()
          if ctx.lane == 0 {
            let z = one()
          }
        }
    """)
    assert sorted(kind_rows(r, "y")) == ["uniform", "varying"]
    assert {x["name"]: x["kind"] for x in r.kinds if x["name"] != "y"} == {"a": "uniform", "z": "varying"}


def test_9_2_function_bindings_are_listed_per_call_site():
    r = check("""
        fn inc(a: i32) -> i32 {
          let b = a + 1
          return b
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          let u = inc(ctx.block.x)
          let w = inc(ctx.warp)
          let v = inc(ctx.lane)
        }
    """)
    rows = [x for x in r.kinds if x["name"] == "b"]
    assert len(rows) == 3
    assert all((x["line"], x["column"], x["kernel"]) == (2, 7, "k") for x in rows)
    assert sorted(x["kind"] for x in rows) == ["uniform", "varying", "warp-uniform"]


def test_9_2_varying_function_result_makes_the_caller_binding_varying():
    r = assert_marked("""
        fn lane_plus(a: i32) -> i32 {
          return a + ctx.lane
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
          var x = 0
          x = lane_plus(2)
          let y = x * 2
          O[0 :+ 1, y :+ 4] = A[0 :+ 1, 0 :+ 4]     //~ error PH302 "`slice` takes `y`"
        }
    """)
    k = kinds(r)
    assert (k["x"], k["y"]) == ("varying", "varying")
    d = only(r, "PH302")
    assert "`ctx.lane`" in d.chain[0].text


# ================================================================ §9.3 control

def test_9_3_control_is_the_join_of_enclosing_conditions():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], F: tensor<i32>[4]) {
          if ctx.block.x == 0 {
            barrier()
            if ctx.warp == 1 {
              barrier()                    //~ error PH301 "`barrier()` runs once per CTA"
              if ctx.block.y == 0 {
                barrier()                  //~ error PH301
              }
            }
            barrier()
          }
          if ctx.lane == 0 {
          } else if ctx.block.x == 0 {
            barrier()                      //~ error PH301
          } else {
            barrier()                      //~ error PH301
          }
          var n = 0
          while n < ctx.lane {
            barrier()                      //~ error PH301
            n += 1
          }
          for i in range(0, ctx.warp) {
            barrier()                      //~ error PH301
          }
          barrier()
        }
    """)


def test_9_3_warp_uniform_control_label_says_warps():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          if ctx.warp == 0 {
            barrier()                      //~ error PH301
          }
        }
    """)
    assert only(r, "PH301").label == "reached only by the warps where the condition holds"


def test_9_3_short_circuit_guards_an_operation():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], F: tensor<i32>[4]) {
          let q = ctx.lane == 0 && load_acquire(F[0]) == 1     //~ error PH301 "`load_acquire` runs once per CTA"
          let u = ctx.block.x == 0 && load_acquire(F[0]) == 1
          let w = ctx.warp == 0 || load_acquire(F[0]) == 1     //~ error PH301
          if ctx.block.x == 0 || ctx.lane == 0 {
            barrier()                                          //~ error PH301
          }
          if ctx.lane == 0 || ctx.block.x == 0 {
            barrier()                                          //~ error PH301
          }
        }
    """)
    labels = sorted(d.label for d in r.diagnostics)
    assert "reached only by the lanes where the left side of `&&`/`||` lets it run" in labels
    assert "reached only by the warps where the left side of `&&`/`||` lets it run" in labels


def test_9_3_break_raises_its_whole_loop_and_the_condition_not_after():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], F: tensor<i32>[4]) {
          var c = 0
          for i in range(0, 4) {
            barrier()                  //~ error PH301 "`barrier()` runs once per CTA"
            c = c + 1
            if ctx.lane == 0 {
              break
            }
            barrier()                  //~ error PH301
          }
          barrier()
          var d = 0
          d = 1
          while load_acquire(F[0]) == 0 {      //~ error PH301 "`load_acquire` runs once per CTA"
            if ctx.lane == 0 {
              break
            }
          }
          barrier()
        }
    """)
    k = kinds(r)
    # c is assigned before the break, in a loop some lanes leave: varying (§9.1 with §9.3)
    assert (k["c"], k["d"], k["i"]) == ("varying", "uniform", "uniform")


def test_9_3_uniform_break_raises_nothing():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var c = 0
          for i in range(0, 4) {
            barrier()
            c = c + 1
            if ctx.block.x == i {
              break
            }
            barrier()
          }
        }
    """)
    assert kinds(r)["c"] == "uniform"


def test_9_3_warp_uniform_break_allows_lane_collectives_not_barriers():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 256]) {
          for i in range(0, 4) {
            let s = sum<over ctx.lane>(A[0, ctx.thread])
            barrier()                  //~ error PH301
            if ctx.warp == i {
              break
            }
          }
        }
    """)


def test_9_3_break_raises_only_its_own_loop():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          for o in range(0, 2) {
            barrier()
            for i in range(0, 4) {
              barrier()                //~ error PH301
              if ctx.lane == 0 {
                break
              }
            }
            barrier()
          }
        }
    """)


def test_9_3_continue_raises_the_rest_of_the_body_only():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var before = 0
          var after = 0
          for i in range(0, 4) {
            barrier()
            before = 1
            if ctx.block.x == 0 {
              if ctx.lane == 0 {
                continue
              }
              barrier()                //~ error PH301 "`barrier()` runs once per CTA"
            }
            barrier()                  //~ error PH301
            after = 1
          }
          barrier()
        }
    """)
    k = kinds(r)
    assert (k["before"], k["after"]) == ("uniform", "varying")
    assert all("lanes that did not skip the rest of the iteration" in d.label
               for d in r.diagnostics)


def test_9_3_uniform_break_after_a_varying_continue_is_varying():
    # the break runs under the control the continue raised, so it raises the whole loop
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          for i in range(0, 4) {
            barrier()                  //~ error PH301
            if ctx.lane == 0 {
              continue
            }
            if i == 2 {
              break
            }
          }
          barrier()
        }
    """)


def test_9_3_return_in_a_kernel_raises_the_rest_and_enclosing_loops():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          barrier()
          for o in range(0, 2) {
            barrier()                  //~ error PH301 "`barrier()` runs once per CTA"
            for i in range(0, 2) {
              barrier()                //~ error PH301
              if ctx.lane == 0 {
                return
              }
            }
          }
          barrier()                    //~ error PH301
        }
    """)


def test_9_3_return_does_not_raise_the_other_branch():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          if ctx.block.x == 0 {
            if ctx.lane == 0 {
              return
            }
            barrier()                  //~ error PH301
          } else {
            barrier()
          }
          barrier()                    //~ error PH301
        }
    """)


def test_9_3_warp_uniform_return_then_collectives():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 256]) {
          if ctx.warp == 0 {
            return
          }
          let s = sum<over ctx.lane>(1.0)
          let t = sum<over ctx.thread>(1.0)     //~ error PH306
        }
    """)
    assert "warps that have not returned" in only(r, "PH306").label


def test_9_3_return_in_a_function_raises_the_rest_of_that_function_only():
    r = assert_marked("""
        fn early(a: i32) {
          if ctx.lane == a {
            return
          }
          barrier()                    //~ error PH301 "`barrier()` runs once per CTA"
        }
        fn loops() -> i32 {
          for i in range(0, 4) {
            barrier()                  //~ error PH301
            if ctx.lane == i {
              return i
            }
          }
          barrier()                    //~ error PH301
          return 7
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          for i in range(0, 4) {
            barrier()
            early(i)
            barrier()
          }
          let q = loops()
          barrier()
        }
    """)
    assert kind_rows(r, "q") == ["varying"]


# ================================================================ §9.4 per-thread stores

STORE_KERNEL = """
    @launch(256)
    kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {{
      var t: tile<f32>[8, 32] = A[0 :+ 8, 0 :+ 32]
      {store}
      O[0 :+ 8, 0 :+ 32] = t{mark}
    }}
"""


@pytest.mark.parametrize("store,fires,why", [
    ("t[0, ctx.lane] = 1.0", True, "at an index that differs between lanes"),
    ("t[ctx.warp, 0] = 1.0", True, "at an index that differs between warps"),
    ("t[0, 0] = f32(ctx.warp)", True, "a value that differs between warps"),
    ("t[0, 0] = A[0, ctx.lane]", True, "a value that differs between lanes"),
    ("if ctx.warp == 0 {\n        t[0, 0] = 1.0\n      }", True, "under control that differs between warps"),
    ("if ctx.lane == 0 {\n        t[0, 0] = 1.0\n      }", True, "under control that differs between lanes"),
    ("store(t[0, ctx.lane % 8 * 4 :+ 4], 1.0)", True, "at an index that differs between lanes"),
    ("store(t[0, 0 :+ 4], f32(ctx.warp))", True, "a value that differs between warps"),
    # uniform in all three: the same element and value in every thread, no barrier needed
    ("t[0, 0] = 1.0", False, None),
    ("t[1, ctx.block.x % 32] = A[0, 0]", False, None),
    ("store(t[0, 0 :+ 4], 2.0)", False, None),
    ("if ctx.block.x == 0 {\n        t[0, 0] = 1.0\n      }", False, None),
    ("for i in range(0, 4) {\n        t[0, i] = 1.0\n      }", False, None),
])
def test_9_4_per_thread_store_means_not_uniform(store, fires, why):
    src = STORE_KERNEL.format(store=store, mark="   //~ error PH303" if fires else "")
    r = assert_marked(src)
    if fires:
        d = only(r, "PH303")
        assert why in d.chain[-1].text
        assert d.message == "`tile copy` reads `t` after a per-thread store to it with no `barrier()` between"


def test_9_4_store_after_a_varying_break_is_per_thread():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
          var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
          for i in range(0, 4) {
            if ctx.lane == 0 {
              break
            }
            t[0, 0] = 1.0
          }
          O[0 :+ 4, 0 :+ 32] = t        //~ error PH303
        }
    """)
    assert "under control that differs between lanes" in only(r, "PH303").chain[-1].text


def test_9_4_store_to_a_tensor_parameter_is_a_store_to_a_buffer():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], P: tensor<f32>[1, 32]) {
          O[0, ctx.lane] = 2.0
          P[0 :+ 1, 0 :+ 32] = O[0 :+ 1, 0 :+ 32]     //~ error PH303 "`tile copy` reads `O`"
          barrier()
          O[0, 0] = 1.0
          P[0 :+ 1, 0 :+ 32] = O[0 :+ 1, 0 :+ 32]
        }
    """)


# ================================================================ §9.5 what CTA-wide operations read

def test_9_5_reads_copy_sweep_builtins_compound_target():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[32, 32], O: tensor<f32>[32, 32]) {
          var t: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
          var u: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
          t[0, ctx.lane] = 1.0
          O[0 :+ 32, 0 :+ 32] = t          //~ error PH303 "`tile copy` reads `t`"
          barrier()
          t[0, ctx.lane] = 1.0
          u = t * 2.0                      //~ error PH303 "`elementwise sweep` reads `t`"
          barrier()
          t[0, ctx.lane] = 1.0
          u = where(u > 0.0, u, t)         //~ error PH303 "`elementwise sweep` reads `t`"
          barrier()
          t[0, ctx.lane] = 1.0
          t += u                           //~ error PH303 "`elementwise sweep` reads `t`"
          barrier()
          O[0, ctx.lane] = 2.0
          O[0 :+ 32, 0 :+ 32] += u         //~ error PH303 "`elementwise sweep` reads `O`"
          barrier()
          u[0, ctx.lane] = 1.0
          let d = dot(t, u)                //~ error PH303 "`dot` reads `u`"
          barrier()
          t[ctx.lane, 0] = 1.0
          let s = rowsum(t)                //~ error PH303 "`rowsum` reads `t`"
          barrier()
          t[ctx.lane, 0] = 1.0
          let m = rowmax(t)                //~ error PH303 "`rowmax` reads `t`"
          barrier()
          t[ctx.lane, 0] = 1.0
          let c = cumsum(t)                //~ error PH303 "`cumsum` reads `t`"
          barrier()
          t[ctx.lane, 0] = 1.0
          let tr = transpose(t)            //~ error PH303 "`transpose` reads `t`"
          barrier()
          t[ctx.lane, 0] = 1.0
          let lo = tril(t)                 //~ error PH303 "`tril` reads `t`"
          barrier()
          t[ctx.lane, 0] = 1.0
          let e = exp(t)                   //~ error PH303 "reads `t`"
        }
    """)


def test_9_5_reads_slices_and_views_as_operands():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[32, 32], O: tensor<f32>[32, 32]) {
          var t: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
          var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          let v = t[1 :+ 1, 0 :+ 32]
          A[0, ctx.lane] = 1.0
          u = A[0 :+ 1, 0 :+ 32] * 2.0                //~ error PH303 "`elementwise sweep` reads `A`"
          barrier()
          t[1, ctx.lane] = 1.0
          u = v * 2.0                                 //~ error PH303 "`elementwise sweep` reads `v`"
          barrier()
          A[0, ctx.lane] = 1.0
          let s = rowsum(A[0 :+ 8, 0 :+ 32])          //~ error PH303 "`rowsum` reads `A`"
          barrier()
          t[1, ctx.lane] = 1.0
          let tt = transpose(v[0 :+ 1, 0 :+ 32])      //~ error PH303 "`transpose` reads `v`"
        }
    """)
    assert sum(1 for d in r.diagnostics if d.notes == ["`v` is a view of `t`"]) == 2


def test_9_5_atomic_and_load_acquire_read_their_element():
    assert_marked("""
        @launch(256)
        kernel k(C: tensor<i32>[32], F: tensor<i32>[32]) {
          C[ctx.lane] = 1
          let a = atomic_add(C[0], 1)                //~ error PH303 "`atomic_add` reads `C`"
          barrier()
          C[ctx.lane] = 1
          let m = atomic_max(C[0], 1)                //~ error PH303 "`atomic_max` reads `C`"
          barrier()
          C[ctx.lane] = 1
          let c = atomic_cas(C[0], 1, 2)             //~ error PH303 "`atomic_cas` reads `C`"
          barrier()
          F[ctx.lane] = 1
          let f = load_acquire(F[0])                 //~ error PH303 "`load_acquire` reads `F`"
        }
    """)


def test_9_5_non_reads_release_barrier_collectives_views_point_loads():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], F: tensor<i32>[32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          F[ctx.lane] = 1
          store_release(F[0], 1)
          t[0, ctx.lane] = 1.0
          let s = sum<over ctx.thread>(t[0, ctx.thread % 32])
          let l = sum<over ctx.lane>(t[0, ctx.lane])
          let v = t[0 :+ 1, 0 :+ 16]
          let x = t[0, 3]
          let r = sum(t[0, 0 :+ 4])
          let e = elem(t[0, 4 :+ 4])
          O[0, ctx.lane] = t[0, ctx.lane]
          barrier()
        }
    """)


def test_9_5_distinct_tensor_parameters_do_not_alias():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], B: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          A[0, ctx.lane] = 1.0
          O[0 :+ 1, 0 :+ 32] = B[0 :+ 1, 0 :+ 32]
          var t: tile<f32>[1, 32] = 0.0
          var u: tile<f32>[1, 32] = 0.0
          t[0, ctx.lane] = 1.0
          u = u * 2.0
          O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]      //~ error PH303 "reads `A`"
        }
    """)


# ---------------------------------------------------------------- views

def test_9_5_view_reads_the_buffer_behind_it():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
          var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
          let v = t[0 :+ 1, 0 :+ 32]
          t[1, ctx.lane] = 1.0
          O[0 :+ 1, 0 :+ 32] = v           //~ error PH303 "`tile copy` reads `v`"
          barrier()
          let w = v[0 :+ 1, 0 :+ 16]
          t[0, ctx.lane] = 2.0
          O[0 :+ 1, 0 :+ 16] = w           //~ error PH303 "reads `w`"
          barrier()
          let g = A[1 :+ 1, 0 :+ 32]
          A[0, ctx.lane] = 3.0
          O[0 :+ 1, 0 :+ 32] = g           //~ error PH303 "reads `g`"
        }
    """)
    notes = sorted(n for d in r.diagnostics for n in d.notes)
    assert notes == ["`g` is a view of `A`", "`v` is a view of `t`", "`w` is a view of `t`"]


def test_9_5_store_through_a_view_stores_the_buffer():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
          var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
          let v = t[2 :+ 1, 0 :+ 32]
          v[0, ctx.lane] = 1.0
          O[0 :+ 4, 0 :+ 32] = t           //~ error PH303 "`tile copy` reads `t`"
        }
    """)


def test_9_5_view_with_barrier_is_fine():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
          var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
          let v = t[0 :+ 1, 0 :+ 32]
          v[0, ctx.lane] = 1.0
          barrier()
          O[0 :+ 1, 0 :+ 32] = v
        }
    """)


def test_9_5_let_view_under_varying_control_is_no_operation():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
          if ctx.lane == 0 {
            let v = A[0 :+ 1, 0 :+ 32]
            let x = v[0, 1]
          }
        }
    """)


def test_9_5_functions_store_and_read_the_callers_buffers():
    r = assert_marked("""
        fn put(x: tile<f32>[1, 32]) {
          x[0, ctx.lane] = 1.0
        }
        fn copy_out(S: tensor<f32>[1, 32], D: tensor<f32>[1, 32]) {
          D[0 :+ 1, 0 :+ 32] = S[0 :+ 1, 0 :+ 32]     //~ error PH303 "reads `S`"
        }
        @launch(256)
        kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
          var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
          put(t[1 :+ 1, 0 :+ 32])
          O[0 :+ 4, 0 :+ 32] = t                       //~ error PH303 "reads `t`"
          barrier()
          A[0, ctx.lane] = 1.0
          copy_out(A[0 :+ 1, 0 :+ 32], O[1 :+ 1, 0 :+ 32])
        }
    """)
    assert any("`S` is parameter `S` of `copy_out`, bound to `A` by the call at 14:3" in n
               for d in r.diagnostics for n in d.notes)


# ================================================================ §9.6 the barrier rule is a path property

def test_9_6_store_after_the_read_has_no_path():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          O[0 :+ 1, 0 :+ 32] = t
          t[0, ctx.lane] = 1.0
        }
    """)


def test_9_6_store_and_read_in_exclusive_branches_have_no_path():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          if ctx.block.x == 0 {
            t[0, ctx.lane] = 1.0
          } else {
            O[0 :+ 1, 0 :+ 32] = t
          }
        }
    """)


def test_9_6_a_barrier_on_one_branch_does_not_cut_the_other_path():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          t[0, ctx.lane] = 1.0
          if ctx.block.x == 0 {
            barrier()
          }
          O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
        }
    """)


def test_9_6_barriers_on_both_branches_cut_every_path():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          t[0, ctx.lane] = 1.0
          if ctx.block.x == 0 {
            barrier()
          } else {
            barrier()
          }
          O[0 :+ 1, 0 :+ 32] = t
        }
    """)


def test_9_6_only_a_barrier_statement_cuts_not_a_tile_operation():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          t[0, ctx.lane] = 1.0
          u = u * 2.0
          let s = sum<over ctx.thread>(1.0)
          O[0 :+ 1, 0 :+ 32] = u
          O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
        }
    """)


def test_9_6_a_barrier_inside_an_inlined_function_cuts():
    assert_marked("""
        fn sync() {
          barrier()
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          t[0, ctx.lane] = 1.0
          sync()
          O[0 :+ 1, 0 :+ 32] = t
        }
    """)


# ================================================================ §9.7 scalar operands of CTA-wide operations

def test_9_7_slice_offsets_checked_at_an_unused_let_view():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          let v = A[0, ctx.lane :+ 4]      //~ error PH302 "`slice` takes `ctx.lane`, which differs between lanes"
          let w = A[0, ctx.warp :+ 4]      //~ error PH302 "`slice` takes `ctx.warp`, which differs between warps"
          let u = A[0, ctx.block.x :+ 4]
        }
    """)


def test_9_7_slice_offsets_and_ends_in_copies_and_sweeps():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[32, 64], O: tensor<f32>[32, 64]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          O[0 :+ 1, ctx.lane :+ 1] = t[0 :+ 1, 0 :+ 1]      //~ error PH302 "`slice` takes `ctx.lane`"
          t = A[ctx.warp :+ 1, 0 :+ 32] * 2.0               //~ error PH302 "which differs between warps"
          let e = A[0, ctx.lane : ctx.lane + 4]             //~ error PH302 PH302
        }
    """)
    texts = sorted(d.message for d in r.diagnostics if d.span.line == 6)
    assert texts == ["`slice` takes `ctx.lane + 4`, which differs between lanes",
                     "`slice` takes `ctx.lane`, which differs between lanes"]


def test_9_7_broadcast_scalars_and_atomic_operands():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], C: tensor<i32>[32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          t = t * f32(ctx.lane)                 //~ error PH302 "`elementwise sweep` takes `f32(ctx.lane)`, which differs between lanes"
          t = where(ctx.warp == 0, t, t * 2.0)  //~ error PH302 "`elementwise sweep` takes `ctx.warp == 0`, which differs between warps"
          t = t * f32(ctx.block.x)
          let a = atomic_add(C[ctx.lane], 1)    //~ error PH302 "`atomic_add` takes `ctx.lane`, which differs between lanes"
          let b = atomic_add(C[0], ctx.warp)    //~ error PH302 "`atomic_add` takes `ctx.warp`, which differs between warps"
          let c = atomic_add(C[ctx.block.x], 1)
        }
    """)


def test_9_7_ph301_and_ph302_on_one_line():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          if ctx.lane == 0 {
            O[0 :+ 1, ctx.lane :+ 1] = A[0 :+ 1, 0 :+ 1]    //~ error PH301 PH302
          }
        }
    """)


def test_9_7_slice_offset_in_a_function_from_a_varying_argument():
    r = assert_marked("""
        fn view_at(S: tensor<f32>[1, 64], a: i32) {
          let v = S[0 :+ 1, a :+ 4]        //~ error PH302 "`slice` takes `a`, which differs between lanes"
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          view_at(A, ctx.block.x)
          view_at(A, ctx.lane)
        }
    """)
    d = only(r, "PH302")
    assert d.chain[0].span.line == 7 and "`ctx.lane`" in d.chain[0].text


# ================================================================ §9.8 a scalar read has the kind of its address

def test_9_8_scalar_reads_take_the_kind_of_their_address():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
          var t: tile<f32>[8, 32] = A[0 :+ 8, 0 :+ 32]
          t[0, ctx.lane] = 1.0
          barrier()
          let x0 = t[0, 0]
          let x1 = t[0, ctx.lane]
          let x2 = A[ctx.warp, 0]
          let v = t[0 :+ 1, 0 :+ 32]
          let x3 = v[0, 1]
          let x4 = v[0, ctx.lane]
          let x5 = A[0, i32(x0)]
          let x6 = A[0, i32(x1)]
          let r0 = elem(A[0, 0 :+ 4])
          let r1 = elem(A[ctx.warp, 0 :+ 4])
          let s1 = sum(A[0, ctx.lane % 8 * 4 :+ 4])
          var t2: tile<f32>[1, 32] = A[0 :+ 1, i32(x0) :+ 32]
        }
    """)
    assert kinds(r) == {"x0": "uniform", "x1": "varying", "x2": "warp-uniform", "x3": "uniform",
                        "x4": "varying", "x5": "uniform", "x6": "varying", "r0": "uniform",
                        "r1": "warp-uniform", "s1": "varying"}


def test_9_8_read_through_a_view_at_a_per_thread_offset_has_that_kind():
    r = assert_marked("""
        fn first(S: tensor<f32>[1, 4]) -> f32 {
          return S[0, 0]
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          let v = A[0 :+ 1, ctx.lane :+ 4]         //~ error PH302
          let x = v[0, 0]
          let y = first(A[0 :+ 1, ctx.warp :+ 4])  //~ error PH302
        }
    """)
    # x reads A[0, ctx.lane]: its address differs between lanes; y reads A[0, 4 * warp..]
    assert kinds(r) == {"x": "varying", "y": "warp-uniform"}


# ================================================================ §9.9 ordering and joins

@pytest.mark.parametrize("expr,kind", [
    ("1 + 2", "uniform"),
    ("ctx.block.x * ctx.warps + ctx.blocks.y", "uniform"),
    ("ctx.warp", "warp-uniform"),
    ("ctx.block.x * ctx.warps + ctx.warp", "warp-uniform"),
    ("ctx.warp * 32 + ctx.lane", "varying"),
    ("ctx.thread", "varying"),
    ("ctx.lane / 32", "varying"),
    ("where(ctx.warp == 0, 1, ctx.block.x)", "warp-uniform"),
    ("max(ctx.warp, ctx.lane)", "varying"),
    ("i32(A[0, ctx.warp])", "warp-uniform"),
])
def test_9_9_an_expression_is_as_varying_as_its_most_varying_operand(expr, kind):
    r = check(f"""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {{
          let x = {expr}
        }}
    """)
    assert kinds(r) == {"x": kind}


def test_9_9_var_join_takes_the_more_varying_side_in_any_order():
    r = check("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          var a = ctx.lane
          a = ctx.warp
          var b = ctx.warp
          b = ctx.lane
          var c = 0
          c = ctx.warp
          c = 1
          var d = 0
          if ctx.warp == 0 {
            d = ctx.block.x
          }
        }
    """)
    assert kinds(r) == {"a": "varying", "b": "varying", "c": "warp-uniform", "d": "warp-uniform"}


# ================================================================ functions

def test_function_op_under_divergent_caller_has_an_inlined_from_step():
    r = assert_marked("""
        fn sync() {
          barrier()                    //~ error PH301 PH301
        }
        fn twice() {
          sync()
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          sync()
          if ctx.lane == 0 {
            sync()
          }
          if ctx.warp == 0 {
            twice()
          }
        }
    """)
    ds = [d for d in r.diagnostics if d.code == "PH301"]
    # one diagnostic per inlined copy under divergent control: the two call sites in branches
    assert len(ds) == 2
    for d in ds:
        assert "`ctx.lane`" in d.chain[0].text or "`ctx.warp`" in d.chain[0].text
        assert any("inlined from" in l.text for l in d.chain)
    steps = [l.text for d in ds for l in d.chain if "inlined from" in l.text]
    assert any(s.startswith("inlined from 11:5") for s in steps)


@pytest.mark.parametrize("src", [
    """
    fn early(a: i32) {
      if ctx.lane == a {
        return
      }
      barrier()                        //~ error PH301
    }
    @launch(256)
    kernel k(A: tensor<f32>[1, 64]) {
      early(3)
    }
    """,
    """
    fn copy_out(S: tensor<f32>[1, 32], D: tensor<f32>[1, 32]) {
      D[0 :+ 1, 0 :+ 32] = S[0 :+ 1, 0 :+ 32]     //~ error PH303
    }
    @launch(256)
    kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
      A[0, ctx.lane] = 1.0
      copy_out(A[0 :+ 1, 0 :+ 32], O[0 :+ 1, 0 :+ 32])
    }
    """,
], ids=["ph301-return", "ph303-read"])
def test_error_inside_an_inlined_function_has_an_inlined_from_step(src):
    r = assert_marked(src)
    d = [d for d in r.diagnostics if d.code.startswith("PH30")][0]
    call = {"early": "9:3", "copy_out": "7:3"}["early" if "early(3)" in src else "copy_out"]
    assert any(f"inlined from {call}" in l.text for l in d.chain), \
        [l.text for l in d.chain]


def test_operand_error_inside_an_inlined_function_names_the_call():
    r = assert_marked("""
        fn view_at(S: tensor<f32>[1, 64], a: i32) {
          let v = S[0 :+ 1, a :+ 4]        //~ error PH302
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          view_at(A, ctx.lane)
        }
    """)
    d = only(r, "PH302")
    assert any("inlined from 6:3" in l.text for l in d.chain), [l.text for l in d.chain]


# ================================================================ PH304 / PH305 / PH306

def test_ph304_shuffle_needs_warp_uniform_control():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
          var v = A[0, ctx.thread]
          if ctx.lane < 16 {
            v = shfl<xor 1>(v)         //~ error PH304 "`shfl<xor ..>` needs every lane of the warp, but control differs between lanes"
          }
          if ctx.warp == 0 {
            v = shfl<down 1>(v)
          }
          for i in range(0, ctx.lane) {
            v = shfl<up 1>(v)          //~ error PH304 "`shfl<up ..>`"
          }
          v = shfl<idx ctx.lane>(v)
          O[0, ctx.thread] = v
        }
    """)
    d = [d for d in r.diagnostics if d.span.line == 5][0]
    assert d.chain[0].text == "`ctx.lane` differs between lanes, so this condition does"
    assert d.spec.section == "Lane-level operations"


def test_ph305_lane_collective_needs_warp_uniform_control():
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
          var s: f32 = 0.0
          if ctx.lane < 16 {
            s = sum<over ctx.lane>(A[0, ctx.thread])   //~ error PH305 "`sum<over ctx.lane>` needs every lane of the warp"
          }
          if ctx.warp == 0 {
            s = max<over ctx.lane>(A[0, ctx.thread])
          }
          let col = ctx.block.x * ctx.warps + ctx.warp
          if col < 7 {
            s = min<over ctx.lane>(A[0, ctx.thread])
          }
          for i in range(0, 4) {
            if ctx.lane == i {
              break
            }
            let b = any<over ctx.lane>(true)          //~ error PH305 "`any<over ctx.lane>`"
          }
          O[0, ctx.thread] = s
        }
    """)


def test_ph306_cta_collective_needs_uniform_control():
    r = assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 1]) {
          let a = sum<over ctx.thread>(A[0, ctx.thread])
          if ctx.block.x == 0 {
            let b = max<over ctx.thread>(A[0, ctx.thread])
          }
          if ctx.warp == 0 {
            let c = sum<over ctx.thread>(A[0, ctx.thread])  //~ error PH306 "`sum<over ctx.thread>` needs every thread of the CTA, but control differs between threads"
          }
          if ctx.lane == 0 {
            let d = all<over ctx.thread>(true)              //~ error PH306 "`all<over ctx.thread>`"
          }
        }
    """)
    labels = sorted(d.label for d in r.diagnostics)
    assert labels == ["reached only by the lanes where the condition holds",
                      "reached only by the warps where the condition holds"]


def test_atomics_and_release_under_divergent_control_ph301():
    assert_marked("""
        @launch(256)
        kernel k(C: tensor<i32>[4], F: tensor<i32>[4]) {
          if ctx.warp == 0 {
            let a = atomic_add(C[0], 1)       //~ error PH301 "`atomic_add` runs once per CTA"
            store_release(F[0], 1)            //~ error PH301 "`store_release` runs once per CTA"
          }
          if ctx.block.x == 0 {
            let b = atomic_min(C[1], 1)
            store_release(F[1], 1)
          }
        }
    """)


def test_per_thread_operations_run_under_any_control():
    # per-thread-values.md, "What runs anywhere": scalar loads, arithmetic, scalar stores, if,
    # for, while; LANGUAGE §8 adds runs (sum, elem, store)
    assert_marked("""
        @launch(256)
        kernel k(A: tensor<f32>[8, 64], O: tensor<f32>[8, 64]) {
          var t: tile<f32>[8, 64] = A[0 :+ 8, 0 :+ 64]
          barrier()
          if ctx.lane == 0 {
            let x = A[ctx.warp, ctx.lane] * 2.0
            O[ctx.warp, ctx.lane] = x
            store(O[0, ctx.lane % 16 * 4 :+ 4], x)
            let s = sum(A[0, ctx.lane % 16 * 4 :+ 4])
            let e = elem(t[ctx.warp, 0 :+ 4])
            let y = t[0, ctx.lane]
            for i in range(0, ctx.lane) {
              var n = i
              while n > 0 {
                n -= 1
              }
            }
          }
        }
    """)


def test_ph301_names_the_operation_the_statement_compiles_to():
    assert_marked("""
        @launch(128)
        kernel k(A: tensor<i8>[8, 64], W: tensor<i8>[8, 64], SA: tensor<f32>[8, 2], SW: tensor<f32>[8, 2],
                 O: tensor<f32>[8, 8], B: tensor<f32>[8, 8]) {
          var a: tile<i8>[8, 64] = A[0 :+ 8, 0 :+ 64]
          var w: tile<i8>[8, 64] = W[0 :+ 8, 0 :+ 64]
          var sa: tile<f32>[8, 2] = SA[0 :+ 8, 0 :+ 2]
          var sw: tile<f32>[8, 2] = SW[0 :+ 8, 0 :+ 2]
          if ctx.lane == 0 {
            let q = qdot_t(a, sa, w, sw)                 //~ error PH301 "`qdot_t` runs once per CTA"
            var b: tile<f32>[8, 8] = B[0 :+ 8, 0 :+ 8]   //~ error PH301 "`tile copy` runs once per CTA"
            let m = sa * 2.0                             //~ error PH301 "`elementwise sweep` runs once per CTA"
            let d = dot_t(sa, sw)                        //~ error PH301 "`dot_t` runs once per CTA"
            let x = tmax(sa, sw)                         //~ error PH301 "`elementwise sweep` runs once per CTA"
            let r = rowsum(sa)                           //~ error PH301 "`rowsum` runs once per CTA"
          }
          sw[ctx.lane % 8, 0] = 1.0
          let q2 = qdot_t(a, sa, w, sw)                  //~ error PH303 "`qdot_t` reads `sw`"
        }
    """)


def test_function_body_in_a_loop_with_a_varying_break():
    r = assert_marked("""
        fn sync() {
          barrier()                    //~ error PH301 PH301
        }
        fn count() -> i32 {
          var n = 0
          n = 1
          return n
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          for i in range(0, 4) {
            sync()
            let c = count()
            if ctx.lane == 0 {
              break
            }
          }
          sync()
          if ctx.warp == 0 {
            return
          }
          sync()
        }
    """)
    assert {x["name"]: x["kind"] for x in r.kinds} == {"n": "varying", "i": "uniform", "c": "varying"}
    chains = sorted([l.text for l in d.chain] for d in r.diagnostics)
    assert any("leave the loop" in t for t in chains[0] + chains[1])
    assert any("warps return here" in t for t in chains[0] + chains[1])
    assert all(any(t.startswith("inlined from ") for t in c) for c in chains)


def test_nested_function_bindings_are_listed_per_call_path():
    r = check("""
        fn inner(a: i32) {
          let b = a
        }
        fn outer(a: i32) {
          inner(a)
          inner(ctx.lane)
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64]) {
          outer(ctx.block.x)
          for i in range(0, 4) {
            outer(ctx.warp)
          }
        }
    """)
    assert sorted(kind_rows(r, "b")) == ["uniform", "varying", "varying", "warp-uniform"]
