"""The GEMM pipeline (issue 19, part 2): `acc += dot(a, b)` in a `for` loop keeps `acc` in
registers across the loop when the execution plan allows it (analyzer/facts/plan.py, carried
accumulators) and the product runs on tensor cores (lowering/mma.py `Carried`): read once before
the loop, written back once after it. Results through the SIMT interpreter against exact
references (with its race checks on shared memory), the plan's decisions, and the loop's PTX and
SASS without accumulator traffic."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from ir_simt import build, run
from lowering_tools import built_example, ptx_of, smallest_ptx_loop, smallest_sass_loop, sass_of


pytestmark = pytest.mark.slow

BF16 = np.dtype(ml_dtypes.bfloat16)
DT = {"f16": np.float16, "bf16": BF16, "i8": np.int8}
rng = np.random.default_rng(1919)


def gemm(m: int, n: int, k, bk: int, t: str = "f16", func: str = "dot", threads: int = 256,
         inside: str = "", init: str = "1.5") -> str:
    out = "i32" if t == "i8" else "f32"
    bshape = (f"[{k}, {n}]", f"[{bk}, {n}]", f"B[k0 :+ {bk}, 0 :+ {n}]") if func == "dot" else \
        (f"[{n}, {k}]", f"[{n}, {bk}]", f"B[0 :+ {n}, k0 :+ {bk}]")
    return (f"@launch({threads})\nkernel t(A: tensor<{t}>[{m}, {k}], B: tensor<{t}>{bshape[0]}, "
            f"O: tensor<{out}>[{m}, {n}]) {{\n"
            f"  var a: tile<{t}>[{m}, {bk}]\n  var b: tile<{t}>{bshape[1]}\n"
            f"  var c: tile<{out}>[{m}, {n}] = {init}\n"
            f"  for k0 in range(0, {k}, {bk}) {{\n"
            f"    a = A[0 :+ {m}, k0 :+ {bk}]\n    b = {bshape[2]}\n"
            f"    c += {func}(a, b)\n{inside}"
            f"  }}\n  O[0 :+ {m}, 0 :+ {n}] = c\n}}\n")


def _check(src: str, m, n, k, t, func, init: float):
    if t == "i8":
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        bm = rng.integers(-128, 128, (k, n) if func == "dot" else (n, k)).astype(np.int8)
        arrays = {"A": a, "B": bm, "O": np.zeros((m, n), np.int32)}
    else:
        a = rng.standard_normal((m, k)).astype(DT[t])
        bm = rng.standard_normal((k, n) if func == "dot" else (n, k)).astype(DT[t])
        arrays = {"A": a, "B": bm, "O": np.zeros((m, n), np.float32)}
    b2 = bm.astype(np.float64) if func == "dot" else bm.astype(np.float64).T
    want = a.astype(np.float64) @ b2 + init
    run(src, arrays, (1,))
    if t == "i8":
        assert np.array_equal(arrays["O"], want.astype(np.int64).astype(np.int32))
    else:
        assert np.abs(arrays["O"] - want).max() / np.abs(want).max() < 1e-5


def _carried(src: str) -> int:
    _module, kinfo = build(src, None, None, "sm_90")
    return sum(len(v) for v in kinfo.plan.carried.values())


@pytest.mark.slow
@pytest.mark.parametrize("m,n,k,bk,t,func,threads", [
    (32, 32, 96, 32, "f16", "dot", 256),      # one block per warp
    (64, 64, 64, 16, "bf16", "dot", 64),      # two warps, 16 instruction tiles each (64 accumulators)
    (48, 8, 64, 32, "f16", "dot", 64),        # three blocks over two warps: a guarded second round
    (32, 32, 128, 64, "i8", "dot_t", 128),    # integer MMA, dot_t's operand in its own layout
])
def test_carried_accumulator_matches_the_exact_product(m, n, k, bk, t, func, threads):
    init = "1" if t == "i8" else "1.5"
    src = gemm(m, n, k, bk, t, func, threads, init=init)
    assert _carried(src) == 1
    _check(src, m, n, k, t, func, float(init))


def test_an_accumulator_read_in_the_loop_is_not_carried_and_stays_exact():
    src = gemm(32, 32, 64, 32, inside="    O[0 :+ 32, 0 :+ 32] = c\n")
    assert _carried(src) == 0
    _check(src, 32, 32, 64, "f16", "dot", 1.5)


def test_the_examples_carry_their_accumulators():
    for stem in ("tiled_gemm", "linear_relu"):
        ex = built_example(stem)
        assert ex.ok
    src = gemm(64, 64, 128, 32)
    assert _carried(src) == 1


def test_ldmatrix_operand_tiles_are_padded_against_bank_conflicts():
    """analyzer/smem.py pads the rows of the 16-bit and 8-bit tiles a `dot` reads (in place or
    as its copies) by 16 bytes where they are an even number of 16-byte chunks: the 8 rows of
    one ldmatrix phase then start in 8 different 16-byte groups of the 32 banks."""
    from phobos_tools.analyzer.checked import check_source
    from lowering_tools import REPO
    seen = {}
    for stem in ("tiled_gemm", "linear_relu", "attention_scores"):
        r = check_source((REPO / "examples" / f"{stem}.ph").read_text(), f"{stem}.ph")
        for a in r.kernels[0].smem.allocations():
            seen[(stem, a.what.split(":")[0] if a.what.startswith("`") else a.what)] = a
    padded = {k: a for k, a in seen.items() if a.row_stride is not None}
    assert padded[("tiled_gemm", "`a_tile`")].row_stride == 40          # f16[64, 32]: 64-byte rows
    assert padded[("tiled_gemm", "`b_tile`")].row_stride == 72          # f16[32, 64]: 128-byte rows
    assert padded[("tiled_gemm", "`b_tile`")].bytes == 32 * 72 * 2
    assert ("tiled_gemm", "`acc`") not in padded                       # f32: the FMA path's, not ldmatrix's
    assert {k[0] for k in padded} == {"tiled_gemm", "linear_relu", "attention_scores"}
    for a in padded.values():
        es = 2
        groups = {(r * a.row_stride * es // 16) % 8 for r in range(8)}
        assert len(groups) == 8, a.label


def test_the_k_loop_has_no_accumulator_traffic_in_shared_memory():
    ptx = ptx_of(gemm(64, 64, "K", 32))          # a runtime K: the k0 loop stays a loop
    loop = smallest_ptx_loop(ptx, "mma.sync")
    assert sum("mma.sync" in x for x in loop) == 8
    # the operands are f16 (16-byte chunks, 16-bit elements where a chunk is cut or A's runtime
    # row stride is not a multiple of 8, ldmatrix); the f32 accumulator is the only 32-bit tile
    assert not [x for x in loop if re.match(r"ld\.shared\.", x)], loop
    assert not [x for x in loop if re.match(r"st\.shared\.((v2\.)?(b32|f32)|v4\.f32)", x)], loop
    # a's and b's chunks go straight to shared memory, one iteration ahead (test_double_buffering.py)
    chunks = [x for x in ptx.splitlines() if "st.shared.v4.b32" in x and "{0, 0, 0, 0}" not in x]
    assert not chunks and sum("cp.async.cg.shared.global" in x for x in ptx.splitlines()) == 4
    assert sum("bar.sync" in x for x in loop) == 2      # after the copies arrive, after the product


@pytest.mark.ptxas
@pytest.mark.parametrize("stem", ["tiled_gemm", "linear_relu"])
def test_sass_k_loop_reads_operands_only(stem):
    text, done = sass_of(built_example(stem, "sm_90").kernels[0].ptx)
    loop = smallest_sass_loop(text, r"HMMA")
    assert sum(1 for i in loop if re.match(r"HMMA\b", i)) >= 8
    assert not [i for i in loop if re.match(r"LDS(\.\d+)?\b", i) or re.match(r"STS\.64\b|STS\s", i)], loop
    # the operands' 16-byte chunks (tiled_gemm's copies into its tiles, linear_relu's views that
    # the product copies) go from global to shared memory with LDGSTS (cp.async), one iteration
    # ahead (test_double_buffering.py), none through registers
    assert not [i for i in loop if re.match(r"(@!?P\d+\s+)?STS\.128\b", i) and not i.endswith("RZ")], loop
    assert re.search(r"\bLDGSTS\.E\.BYPASS\.128\b", text)
    assert not re.search(r"\b(LDL|STL)\b", text) and done.resources["spills"] == 0
