"""16-byte global-to-shared copies (issue 19, part 3): `tile = view` of a 2-D global view into a
shared tile of the same element type copies whole 16-byte chunks (`ld.global.v4` +
`st.shared.v4`) where the tile's rows and the view's rows and origin are 16-byte aligned; what
only the run time knows (a runtime row stride, an origin) is tested once, uniformly, and the
element sweep runs where it fails; a chunk outside the tensor's bounds is copied element by
element, masked. Results through the SIMT interpreter (which checks every access's claimed
alignment) against exact products, and the PTX and SASS of the copies."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ir_simt import run
from lowering_tools import REPO, ptx_of, smallest_sass_loop, sass_of


GEMM = """@launch({threads})
kernel t(A: tensor<{t}>[M, K], B: tensor<{t}>[K, N], C: tensor<f32>[M, N]) {{
  let row0 = ctx.block.y * {bm}
  let col0 = ctx.block.x * {bn}
  var a: tile<{t}>[{bm}, {bk}]
  var b: tile<{t}>[{bk}, {bn}]
  var acc: tile<f32>[{bm}, {bn}] = 0.0
  for k0 in range(0, K, {bk}) {{
    a = A[row0 :+ {bm}, k0 :+ {bk}]
    b = B[k0 :+ {bk}, col0 :+ {bn}]
    acc += dot(a, b)
  }}
  C[row0 :+ {bm}, col0 :+ {bn}] = acc
}}
"""


def _src(t="f16", bm=32, bn=32, bk=32, threads=128):
    return GEMM.format(t=t, bm=bm, bn=bn, bk=bk, threads=threads)


@pytest.mark.slow
@pytest.mark.parametrize("m,n,k,t", [
    (40, 48, 40, "f16"),     # aligned rows, tiles past M, N and K: whole chunks outside, masked
    (32, 40, 37, "f16"),     # K = 37: A's rows are not 16-byte multiples, the element sweep
    (33, 36, 64, "f32"),     # f32 (4 per chunk), N = 36: B's rows 144 bytes, aligned
    (24, 30, 48, "f32"),     # N = 30: B's copy falls back, A's is vectorized
])
def test_vector_copies_match_the_exact_product(m, n, k, t):
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    dt = np.float16 if t == "f16" else np.float32
    a = rng.standard_normal((m, k)).astype(dt)
    bm_ = rng.standard_normal((k, n)).astype(dt)
    arrays = {"A": a, "B": bm_, "C": np.zeros((m, n), np.float32)}
    run(_src(t), arrays, (-(-n // 32), -(-m // 32)))
    want = a.astype(np.float64) @ bm_.astype(np.float64)
    assert np.abs(arrays["C"] - want).max() / np.abs(want).max() < 1e-5


def _single_buffered(src: str, a: str = "a", b: str = "b") -> str:
    """The kernel with its tiles read after the loop too: the copies keep one buffer and plain
    loads and stores (a double-buffered loop copies its chunks with cp.async,
    test_double_buffering.py)."""
    return src.replace("  C[row0", f"  acc += dot({a}, {b})\n  C[row0")


def test_operand_copies_are_16_byte_chunks():
    ptx = ptx_of(_single_buffered(_src()))
    stores = re.findall(r"st\.shared\.v4\.\w+", ptx)
    loads = re.findall(r"ld\.global(?:\.nc)?\.v4\.\w+", ptx)
    assert len(loads) == 2 and len(stores) >= 2, (stores, loads)        # one chunk of a and b each
    # a tile copied whole from constant extents needs no test and no fallback
    fixed = ptx_of(_single_buffered(_src()).replace("[M, K]", "[64, 64]").replace("[K, N]", "[64, 64]")
                   .replace("[M, N]", "[64, 64]").replace("range(0, K,", "range(0, 64,"))
    # (k0's loop of two steps unrolled: two chunks per step, the masked edge path stores 16 bytes
    # of zeros or elements too)
    assert len(re.findall(r"ld\.global(?:\.nc)?\.v4\.b32", fixed)) == 4
    assert not re.findall(r"st\.shared\.(b16|u16)", fixed)


@pytest.mark.ptxas
def test_sass_k_loop_copies_with_sts_128():
    src = _single_buffered((REPO / "examples" / "tiled_gemm.ph").read_text(), "a_tile", "b_tile")
    text, done = sass_of(ptx_of(src, defines={"BM": "64", "BN": "64", "BK": "32"}))
    loop = smallest_sass_loop(text, r"HMMA")
    # one chunk of a and b each (predicated; the 16 bytes of zeros outside the tensor are RZ)
    assert sum(1 for i in loop if re.match(r"(@!?P\d+\s+)?STS\.128\b", i) and not i.endswith("RZ")) == 2, loop
    assert sum(1 for i in loop if re.match(r"(@!?P\d+\s+)?LDG\.E\.128\b", i)) == 2, loop
    assert not re.search(r"\b(LDL|STL)\b", text) and done.resources["spills"] == 0
