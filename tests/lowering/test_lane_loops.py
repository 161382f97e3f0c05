"""Issue 19, lane loops: a small loop with a constant step runs as a counted loop whose variable is
kept in 64 bits, and an i32 subscript the bounds analysis shows cannot wrap is computed in 64
bits (lowering/bounds.py, wide_index). The lowered module runs through tests/support/ir_simt.py
against the exact result, on loops whose variable starts below 0, ends early, steps past the end
by a non-multiple, and subscripts that cannot be shown in range (sign-extended as before)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ir_simt import run
from lowering_tools import built_example

ROWS = """@launch(64)
kernel t(A: tensor<f32>[M, N], out: tensor<f32>[M]) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  if row < M {
    var acc: f32 = 0.0
    for c in range(ctx.lane - 40, N, ctx.lanes) {
      if c < 0 {
        continue
      }
      if c >= N - 3 {
        break
      }
      acc += A[row, c]
    }
    for j in range(3, N, 5) {
      acc += 2.0 * A[row, j]
    }
    let total = sum<over ctx.lane>(acc)
    if ctx.lane == 0 {
      out[row] = total
    }
  }
}
"""

MATVEC = """@launch(64)
@aligned(K = ALIGN)
kernel mv(W: tensor<f32>[N, K], x: tensor<f32>[1, K], y: tensor<f32>[1, N]) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  var acc: f32 = 0.0
  if row < N {
    for k in range(0, K, ctx.lanes * 4) {
      let at = k + ctx.lane * 4
      if at < K {
        acc += sum(W[row, at :+ 4] * x[0, at :+ 4])
      }
    }
  }
  let total = sum<over ctx.lane>(acc)
  if ctx.lane == 0 && row < N {
    y[0, row] = total
  }
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("m,n", [(3, 1), (5, 37), (4, 200)])
def test_counted_loops_match_the_exact_sums(m, n):
    rng = np.random.default_rng(m * 1000 + n)
    a = rng.standard_normal((m, n)).astype(np.float32)
    arrays = {"A": a, "out": np.zeros(m, np.float32)}
    run(ROWS, arrays, (-(-m // 2),))
    want = a[:, :max(n - 3, 0)].astype(np.float64).sum(1) + 64 * a[:, 3::5].astype(np.float64).sum(1)
    assert np.allclose(arrays["out"], want, rtol=1e-5, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("align,n,k", [(128, 5, 256), (4, 3, 132), (4, 2, 4)])
def test_wide_and_sign_extended_subscripts_match_the_product(align, n, k):
    rng = np.random.default_rng(n * 1000 + k)
    w = rng.standard_normal((n, k)).astype(np.float32)
    x = rng.standard_normal((1, k)).astype(np.float32)
    arrays = {"W": w, "x": x, "y": np.zeros((1, n), np.float32)}
    run(MATVEC.replace("ALIGN", str(align)), arrays, (-(-n // 2),))
    want = w.astype(np.float64) @ x[0].astype(np.float64)
    assert np.allclose(arrays["y"][0], want, rtol=1e-5, atol=1e-4)


def test_a_proven_subscript_is_64_bit_and_an_unproven_one_sign_extended():
    """In examples/lanes_matvec.ph (@aligned(K = 128)), `k + ctx.lane * 4` stays below K: it is
    computed in 64 bits, and only `row` (ctx.block.x has no bound) is an i32 sum sign-extended.
    Here, where `at` is bounded only by the guard `at < K`, its i32 value is sign-extended."""
    from phobos_tools.lowering.build import build_source

    def extended(ir_text):          # i32 sums (`%"v" = add i32 ..`) that are sign-extended
        sums = set(re.findall(r'(%"[.\w]+") = add i32 ', ir_text))
        return {v for v in re.findall(r'sext i32 (%"[.\w]+") to i64', ir_text) if v in sums}
    assert len(extended(built_example("lanes_matvec").kernels[0].llvm_ir)) == 1
    narrow = build_source(MATVEC.replace("ALIGN", "4"), "t.ph", resources=False).kernels[0].llvm_ir
    assert len(extended(narrow)) == 2


def test_a_global_subscript_by_a_counted_variable_is_one_byte_offset():
    """A global point access indexed by a counted loop's 64-bit variable is addressed as the
    tensor's pointer plus the element offset shifted to bytes (memory.py ``reads_counter``): one
    GEP over i8 that LLVM does not split into a row pointer and a column offset (with the split,
    ptxas copied row_sums' strided pointer at the head of its unrolled loop: one MOV more per
    iteration than nvcc). A subscript by no loop variable (``out[row]``) keeps its element GEP."""
    ir_text = built_example("row_sums").kernels[0].llvm_ir
    loads = re.findall(r'(%"[.\w]+") = shl nsw i64 %"[.\w]+", 2\b.*\n\s*%"[.\w]+" = getelementptr inbounds i8, '
                       r'ptr addrspace\(1\) %"A", i64 \1 ', ir_text)
    assert len(loads) == 1, ir_text
    assert re.search(r'getelementptr inbounds float, ptr addrspace\(1\) %"out"', ir_text)
