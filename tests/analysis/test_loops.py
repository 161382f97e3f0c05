"""Loops in the per-thread analysis: kinds carried around back edges (LANGUAGE §9.1), early exits
(§9.3), and the barrier rule along back edges with z3 dropping the infeasible paths (§9.6).

The kernels are UI fixtures (tests/ui/analysis/loops/), with their expectations in `//~` markers.
What stays here is generated from a table, checked under several `-D` bindings, or run on the
simulator too."""

from __future__ import annotations

import pytest

from analysis_expect import assert_marked

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


# ---------------------------------------------------------------- z3 and integer wrap-around

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

