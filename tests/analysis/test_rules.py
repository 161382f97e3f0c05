"""LANGUAGE §9, item by item, and the rules PH301-PH306: for each item a kernel where it fires (or
gives the kind it states) and one where it does not. Those kernels are UI fixtures under
tests/ui/analysis/ (vars/ §9.1, kinds/ §9.2 §9.8 §9.9, control/ §9.3, stores/ §9.4, reads/ §9.5,
paths/ §9.6, operands/ §9.7, functions/, rules/ PH301-PH306), with their expectations in `//~`
markers. What stays here is generated from a table (one kernel per row) or asserts what no marker
states (the kinds table's columns)."""

from __future__ import annotations

import pytest

from analysis_expect import assert_marked, check, kinds, only

# ================================================================ §9.2 let, loop variables, collectives, functions

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
