"""Tile products on tensor cores (lowering/mma.py, LANGUAGE §10): which `dot`/`dot_t` take
`mma.sync` on which target, their results through the SIMT interpreter (which carries out
`mma.sync` and `ldmatrix` for a whole warp, tests/support/ir_simt.py) against exact references,
and the SASS of f16, bf16 and i8 products (HMMA, IMMA, no local memory); the same for `qdot_t`
and `qmma_t` on the integer MMA (m16n8k32 s8, one instruction per block of 32, scaled in f32)."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from ir_simt import run
from lowering_tools import REPO, built_example, count, ptx_of, sass_loops, sass_of

from phobos_tools.language.targets import TARGETS
from phobos_tools.language.types import F32, F16, I32, I8
from phobos_tools.lowering.mma import tensor_core_shape, warp_blocking
from phobos_tools.run import loads

pytestmark = pytest.mark.slow

BF16 = np.dtype(ml_dtypes.bfloat16)
rng = np.random.default_rng(19)
DT = {"f16": np.float16, "bf16": BF16, "i8": np.int8, "u8": np.uint8}


def kernel(m: int, n: int, k: int, ta: str, tb: str, func: str = "dot", threads: int = 128,
           epilogue: str = "") -> str:
    out = "i32" if ta in ("i8", "u8") else "f32"
    bshape = f"[{k}, {n}]" if func == "dot" else f"[{n}, {k}]"
    return (f"@launch({threads})\nkernel t(A: tensor<{ta}>[{m}, {k}], B: tensor<{tb}>{bshape}, "
            f"O: tensor<{out}>[{m}, {n}]) {{\n"
            f"  var a: tile<{ta}>[{m}, {k}] = A[0 :+ {m}, 0 :+ {k}]\n"
            f"  var b: tile<{tb}>{bshape} = B[0 :+ {bshape[1:-1].split(',')[0]}, 0 :+ {bshape[1:-1].split(',')[1].strip()}]\n"
            f"  var c: tile<{out}>[{m}, {n}] = {'1' if out == 'i32' else '1.0'}\n"
            f"  c += {func}(a, b){epilogue}\n"
            f"  O[0 :+ {m}, 0 :+ {n}] = c\n}}\n")


def operands(m, n, k, ta, tb, func):
    def make(shape, t):
        if t in ("i8", "u8"):
            lo, hi = (-128, 128) if t == "i8" else (0, 256)
            return rng.integers(lo, hi, shape).astype(DT[t])
        return rng.standard_normal(shape).astype(DT[t])
    a = make((m, k), ta)
    b = make((k, n) if func == "dot" else (n, k), tb)
    return a, b


def check(m, n, k, ta, tb, func="dot", threads=128, arch="sm_90", mma_expected=True):
    src = kernel(m, n, k, ta, tb, func, threads)
    ir = ptx_of(src, arch)
    assert ("mma.sync.aligned" in ir) == mma_expected, ir[:2000]
    a, b = operands(m, n, k, ta, tb, func)
    integer = ta in ("i8", "u8")
    o = np.zeros((m, n), np.int32 if integer else np.float32)
    arrays = {"A": a, "B": b, "O": o}
    run(src, arrays, (1,), arch=arch)
    bb = b if func == "dot" else b.T
    if integer:
        want = a.astype(np.int64) @ bb.astype(np.int64) + 1
        assert np.array_equal(arrays["O"], want)
    else:
        want = a.astype(np.float64) @ bb.astype(np.float64) + 1.0
        err = np.abs(arrays["O"] - want).max() / np.abs(want).max()
        assert err < 1e-6, err


def test_which_products_take_tensor_cores():
    assert tensor_core_shape("sm_90", F16, F16, F32, 64, 64, 32, 256).instruction == \
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    assert tensor_core_shape("sm_75", F16, F16, F32, 64, 64, 32, 256).k == 8
    assert tensor_core_shape("sm_90", I8, I8, I32, 32, 32, 64, 128).instruction == \
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
    assert tensor_core_shape("sm_90", F32, F32, F32, 64, 64, 32, 256) is None       # f32 stays f32 (§10)
    assert tensor_core_shape("sm_90", F16, F16, F32, 24, 64, 32, 256) is None       # M not a multiple of 16
    assert tensor_core_shape("sm_90", F16, F16, F32, 64, 64, 32, 48) is None        # not whole warps
    assert tensor_core_shape("sm_75", I8, I8, I32, 32, 32, 64, 128) is None
    wm, wn = warp_blocking(4, 8, 8)          # 32 instruction tiles, 8 warps: 4 each, in one round
    assert wm * wn == 4 and warp_blocking(1, 1, 8) == (1, 1) and warp_blocking(8, 8, 4) in ((2, 8), (4, 4))


@pytest.mark.parametrize("func", ["dot", "dot_t"])
@pytest.mark.parametrize("ta", ["f16", "bf16"])
def test_half_products_on_sm_80(ta, func):
    check(32, 32, 32, ta, ta, func, arch="sm_80")


@pytest.mark.parametrize("m,n,k,threads", [(16, 8, 16, 32), (48, 24, 16, 64), (128, 16, 16, 32)])
def test_f16_shapes_rounds_and_idle_warps(m, n, k, threads):
    # one instruction tile for one warp; blocks that do not fill the warps; several rounds
    check(m, n, k, "f16", "f16", "dot", threads)


def test_f16_on_sm_75_takes_m16n8k8_and_bf16_keeps_fma():
    check(16, 16, 16, "f16", "f16", "dot_t", threads=64, arch="sm_75")
    assert "m16n8k8" in ptx_of(kernel(32, 16, 16, "f16", "f16"), "sm_75")
    check(16, 8, 16, "bf16", "bf16", "dot", threads=64, arch="sm_75", mma_expected=False)


@pytest.mark.parametrize("ta,tb", [("i8", "i8"), ("u8", "u8")])
@pytest.mark.parametrize("func", ["dot", "dot_t"])
def test_integer_products_accumulate_exactly_in_i32(ta, tb, func):
    check(32, 16, 64, ta, tb, func)


def test_infinities_in_a_half_product_give_what_ieee_sums_give():
    """An infinite product and one of the other sign in one sum make NaN, an infinity alone stays
    (the interpreter summed with math.fsum, which raises on inf + -inf: found by the fuzzer)."""
    src = kernel(16, 8, 16, "f16", "f16")
    a, b = operands(16, 8, 16, "f16", "f16", "dot")
    b[:2] = np.abs(b[:2]) + np.float16(0.5)              # rows 0 and 1 of B positive
    a[0, 0] = np.inf                                     # row 0: +inf in every column
    a[1, 0], a[1, 1] = np.inf, -np.inf                   # row 1: inf - inf, NaN
    arrays = {"A": a, "B": b, "O": np.zeros((16, 8), np.float32)}
    run(src, arrays, (1,))
    o = arrays["O"]
    assert np.all(o[0] == np.inf) and np.all(np.isnan(o[1]))
    want = a[2:].astype(np.float64) @ b.astype(np.float64) + 1.0
    assert np.abs(o[2:] - want).max() / np.abs(want).max() < 1e-6


def test_f32_products_keep_fma():
    src = kernel(32, 32, 16, "f16", "f16").replace("tensor<f16>", "tensor<f32>").replace("tile<f16>", "tile<f32>")
    assert "mma.sync" not in ptx_of(src)


def test_unaligned_slices_are_read_element_by_element():
    # a slice at column 4 of a tile: rows no longer start at multiples of 16 bytes, no ldmatrix
    src = ("@launch(64)\nkernel t(A: tensor<f16>[32, 24], B: tensor<f16>[16, 16], O: tensor<f32>[32, 16]) {\n"
           "  var a: tile<f16>[32, 24] = A[0 :+ 32, 0 :+ 24]\n  var b: tile<f16>[16, 16] = B[0 :+ 16, 0 :+ 16]\n"
           "  O[0 :+ 32, 0 :+ 16] = dot(a[0 :+ 32, 4 :+ 16], b) * 2.0\n}\n")
    ptx = ptx_of(src)
    assert "mma.sync" in ptx and count(r"ldmatrix.*\.x4\.shared", ptx) == 0
    a = {"A": rng.standard_normal((32, 24)).astype(np.float16), "B": rng.standard_normal((16, 16)).astype(np.float16),
         "O": np.zeros((32, 16), np.float32)}
    run(src, a, (1,))
    want = 2.0 * a["A"].astype(np.float64)[:, 4:20] @ a["B"].astype(np.float64)
    assert np.abs(a["O"] - want).max() / np.abs(want).max() < 1e-6


def _sass_of(src: str, arch: str) -> tuple[str, dict]:
    text, done = sass_of(ptx_of(src, arch), arch)
    return text, done.resources


@pytest.mark.ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("ta", ["f16", "bf16"])
def test_sass_of_half_products_has_hmma_and_no_local_memory(ta, arch):
    text, res = _sass_of(kernel(64, 64, 32, ta, ta, "dot", 256), arch)
    assert count(r"\bHMMA\.16816\.F32", text) >= 8, text
    assert count(r"\bLDSM\b", text) >= 1, text
    assert count(r"\b(LDL|STL)\b", text) == 0 and res["spills"] == 0


@pytest.mark.ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_sass_of_i8_products_has_imma(arch):
    text, res = _sass_of(kernel(64, 64, 64, "i8", "i8", "dot_t", 256), arch)
    assert count(r"\bIMMA\b", text) >= 8, text
    assert count(r"\b(LDL|STL)\b", text) == 0 and res["spills"] == 0


@pytest.mark.ptxas
@pytest.mark.parametrize("stem", ["tiled_gemm", "linear_relu", "attention_scores"])
def test_tile_examples_run_on_tensor_cores(stem):
    text, done = sass_of(built_example(stem, "sm_90").kernels[0].ptx)
    assert len(re.findall(r"\bHMMA\b", text)) >= 8 and count(r"\b(LDL|STL)\b", text) == 0


# ---------------------------------------------------------------- f32: FMA, register blocked
F32_DOT = ("@launch({threads})\nkernel t(A: tensor<f32>[{m}, {k}], B: tensor<f32>[{k}, {n}], O: tensor<f32>[{m}, {n}]) {{\n"
           "  var a: tile<f32>[{m}, {k}] = A[0 :+ {m}, 0 :+ {k}]\n  var b: tile<f32>[{k}, {n}] = B[0 :+ {k}, 0 :+ {n}]\n"
           "  var c: tile<f32>[{m}, {n}] = 0.5\n  c += dot(a, b)\n  O[0 :+ {m}, 0 :+ {n}] = c\n}}\n")


def test_f32_product_reads_four_k_at_a_time_and_stays_exact():
    src = F32_DOT.format(threads=64, m=32, n=32, k=16)
    assert "mma.sync" not in ptx_of(src)
    assert count(r"ld\.shared\.v4\.(f32|b32)", ptx_of(src)) >= 2
    a = {"A": rng.standard_normal((32, 16)).astype(np.float32), "B": rng.standard_normal((16, 32)).astype(np.float32),
         "O": np.zeros((32, 32), np.float32)}
    run(src, a, (1,))
    want = a["A"].astype(np.float64) @ a["B"].astype(np.float64) + 0.5
    assert np.abs(a["O"] - want).max() / np.abs(want).max() < 1e-5


def _hot_loop(text: str, marker: str) -> list[str]:
    """The innermost loop of the SASS with the most ``marker`` instructions."""
    loops = sass_loops(text)
    inner = [body for lo, hi, body in loops
             if not any((o_lo, o_hi) != (lo, hi) and lo <= o_lo and o_hi <= hi for o_lo, o_hi, _ in loops)]
    return max(inner, key=lambda body: sum(1 for i in body if re.match(marker, i)), default=[])


@pytest.mark.ptxas
def test_sass_of_the_f32_gemm_has_six_ffma_per_shared_load():
    text, res = _sass_of(F32_DOT.format(threads=256, m=64, n=64, k=32), "sm_90")
    loop = _hot_loop(text, r"FFMA")
    ffma = sum(1 for i in loop if re.match(r"FFMA\b", i))
    lds = sum(1 for i in loop if re.match(r"LDS\b", i))
    assert ffma >= 64 and lds and ffma / lds >= 6, (ffma, lds)
    assert count(r"\b(LDL|STL)\b", text) == 0 and res["spills"] == 0


# ---------------------------------------------------------------- qdot_t, qmma_t: the integer MMA
M16N8K32 = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
M8N8K16 = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32"


def qkernel(m: int, n: int, k: int, func: str = "qdot_t", threads: int = 128, where: str = "view") -> str:
    """``O = func(a, sa, w, sw) * 0.5 + 1.0`` with ``a``, ``w`` read as views of global memory
    (``view``), as shared tiles (``tile``: ldmatrix), ``a`` a tile and ``w`` a view (``mixed``),
    both slices at column 8 of wider tiles (``slice``: rows 8-byte aligned, no ldmatrix), or as
    views at a row offset ``r`` that the bounds of §7 may cut (``masked``: rows past the tensor
    read 0)."""
    s = k // 32
    sws = f"[{s}, {n}]" if func == "qmma_t" else f"[{n}, {s}]"
    sw_view = f"SW[0 :+ {s}, 0 :+ {n}]" if func == "qmma_t" else f"SW[0 :+ {n}, 0 :+ {s}]"
    rows = "r" if where == "masked" else "0"
    head = (f"@launch({threads})\nkernel t(X: tensor<i8>[{m}, {k}], W: tensor<i8>[{n}, {k}], "
            f"SX: tensor<f32>[{m}, {s}], SW: tensor<f32>{sws}, O: tensor<f32>[{m}, {n}], r: i32) {{\n")
    if where in ("tile", "mixed"):
        body = (f"  var a: tile<i8>[{m}, {k}] = X[0 :+ {m}, 0 :+ {k}]\n" +
                (f"  var w: tile<i8>[{n}, {k}] = W[0 :+ {n}, 0 :+ {k}]\n" if where == "tile" else
                 f"  let w = W[0 :+ {n}, 0 :+ {k}]\n"))
    elif where == "slice":
        body = (f"  var aw: tile<i8>[{m}, {k + 8}] = 0\n  aw[0 :+ {m}, 8 :+ {k}] = X[0 :+ {m}, 0 :+ {k}]\n"
                f"  var ww: tile<i8>[{n}, {k + 8}] = 0\n  ww[0 :+ {n}, 8 :+ {k}] = W[0 :+ {n}, 0 :+ {k}]\n"
                f"  let a = aw[0 :+ {m}, 8 :+ {k}]\n  let w = ww[0 :+ {n}, 8 :+ {k}]\n")
    else:
        body = f"  let a = X[{rows} :+ {m}, 0 :+ {k}]\n  let w = W[{rows} :+ {n}, 0 :+ {k}]\n"
    return (head + body + f"  O[0 :+ {m}, 0 :+ {n}] = {func}(a, SX[0 :+ {m}, 0 :+ {s}], w, {sw_view}) * 0.5 + 1.0\n}}\n")


def qcheck(m, n, k, func="qdot_t", threads=128, arch="sm_90", where="view", r=0, instruction=M16N8K32):
    """The lowered kernel through ir_simt against the simulator and an exact reference."""
    src = qkernel(m, n, k, func, threads, where)
    ptx = ptx_of(src, arch)
    if instruction is None:
        assert "mma.sync" not in ptx and "dp4a" in ptx, ptx[:2000]
    else:
        assert instruction in ptx and "dp4a" not in ptx, ptx[:2000]
    s = k // 32
    x = rng.integers(-128, 128, (m, k)).astype(np.int8)
    w = rng.integers(-128, 128, (n, k)).astype(np.int8)
    sx = rng.standard_normal((m, s)).astype(np.float32)            # negative scales too
    swt = rng.standard_normal((n, s)).astype(np.float32)             # [N, K/32]
    arrays = {"X": x, "W": w, "SX": sx, "SW": np.ascontiguousarray(swt.T) if func == "qmma_t" else swt,
              "O": np.zeros((m, n), np.float32)}
    sim = {name: v.copy() for name, v in arrays.items()}
    run(src, arrays, (1,), arch=arch, scalars={"r": r})
    loads(src, "t.ph").kernel("t")(**sim, r=r, grid=(1,))          # the simulator (LANGUAGE §8)
    err = np.abs(arrays["O"] - sim["O"]).max() / np.abs(sim["O"]).max()
    assert err < 1e-6, err
    xa = np.zeros((m, k), np.int64)
    wa = np.zeros((n, k), np.int64)
    xa[:max(m - r, 0)] = x[r:]
    wa[:max(n - r, 0)] = w[r:]
    want = np.zeros((m, n))
    for blk in range(s):
        ks = slice(32 * blk, 32 * blk + 32)
        want += (xa[:, ks] @ wa[:, ks].T) * sx[:, blk:blk + 1].astype(np.float64) * swt[:, blk].astype(np.float64)
    want = want * 0.5 + 1.0
    err = np.abs(arrays["O"] - want).max() / np.abs(want).max()
    assert err < 1e-6, err


def test_which_quantized_products_take_the_integer_mma():
    from phobos_tools.lowering.mma import quantized_shape
    assert quantized_shape("sm_80", 16, 8, 32, 32).instruction == M16N8K32
    assert quantized_shape("sm_90", 64, 64, 256, 256).instruction == M16N8K32
    assert quantized_shape("sm_75", 16, 8, 32, 32).instruction == M8N8K16      # sm_75: two per block
    assert quantized_shape("sm_90", 8, 8, 32, 32).instruction == M8N8K16       # qmma_t's M of 8
    assert quantized_shape("sm_90", 16, 12, 32, 32) is None                   # N not a multiple of 8
    assert quantized_shape("sm_90", 12, 8, 32, 32) is None
    assert quantized_shape("sm_90", 16, 8, 32, 48) is None                    # not whole warps


@pytest.mark.parametrize("func", ["qdot_t", "qmma_t"])
@pytest.mark.parametrize("m,n,k,threads", [(16, 8, 32, 32), (32, 16, 64, 128), (48, 24, 96, 64), (64, 32, 160, 128)])
def test_quantized_products_on_the_integer_mma_match_the_reference(func, m, n, k, threads):
    # one instruction tile; idle warps; several rounds; five blocks of 32 (the k loop unrolled by 2)
    qcheck(m, n, k, func, threads)


@pytest.mark.parametrize("func", ["qdot_t", "qmma_t"])
@pytest.mark.parametrize("where,r", [("tile", 0), ("mixed", 0), ("slice", 0), ("masked", 0), ("masked", 5)])
def test_quantized_operands_from_tiles_slices_and_cut_views(where, r, func):
    qcheck(32, 16, 64, func, 64, where=where, r=r)
    ptx = ptx_of(qkernel(32, 16, 64, func, 64, where))
    assert count(r"ldmatrix\S*\.x4\.shared", ptx) == {"tile": 4, "mixed": 2}.get(where, 0), ptx


@pytest.mark.parametrize("func,m,n,threads", [("qmma_t", 64, 64, 512), ("qdot_t", 128, 64, 1024)])
def test_quantized_blocking_follows_the_register_budget(func, m, n, threads):
    # 128 and 64 registers a thread: 4 tiles a warp, two blocks of 32 at a time (three blocks:
    # the unrolled loop's remainder); 2 tiles, one block at a time
    from phobos_tools.lowering.mma import quantized_budget
    assert quantized_budget(128) == (8, 2) and quantized_budget(512) == (4, 2) and quantized_budget(1024) == (2, 1)
    qcheck(m, n, 96, func, threads)


@pytest.mark.ptxas
@pytest.mark.parametrize("threads", [384, 512, 768, 1024])
@pytest.mark.parametrize("where", ["view", "tile"])
def test_quantized_products_do_not_spill_in_large_ctas(threads, where):
    for func in ("qdot_t", "qmma_t"):
        text, res = _sass_of(qkernel(128, 128, 256, func, threads, where), "sm_90")
        assert count(r"\bIMMA\b", text) >= 2 and res["spills"] == 0 and count(r"\b(LDL|STL)\b", text) == 0, res


@pytest.mark.parametrize("arch", ["sm_80", "sm_120"])
def test_quantized_products_on_other_targets(arch):
    qcheck(32, 16, 64, "qdot_t", 64, arch=arch)


@pytest.mark.parametrize("where", ["view", "tile"])
@pytest.mark.parametrize("func,m,n,k,threads,arch", [
    ("qdot_t", 16, 8, 64, 64, "sm_75"), ("qmma_t", 48, 24, 96, 64, "sm_75"),   # sm_75: m8n8k16
    ("qmma_t", 8, 8, 64, 64, "sm_90"), ("qdot_t", 24, 16, 128, 128, "sm_80")])  # M a multiple of 8, not 16
def test_quantized_products_on_m8n8k16(func, m, n, k, threads, arch, where):
    qcheck(m, n, k, func, threads, arch=arch, where=where, instruction=M8N8K16)


def test_quantized_products_off_the_tiling_keep_dp4a():
    qcheck(12, 8, 64, "qdot_t", 64, instruction=None)                # M not a multiple of 8
    qcheck(16, 12, 64, "qdot_t", 64, arch="sm_75", instruction=None)  # N not a multiple of 8


@pytest.mark.ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("func", ["qdot_t", "qmma_t"])
def test_sass_of_quantized_products_has_imma(func, arch):
    text, res = _sass_of(qkernel(64, 64, 128, func, 128), arch)
    assert count(r"\bIMMA\.16832\.S8\.S8\b", text) >= 16, text
    assert count(r"\bIDP4A\b|\bIDP\.4A\b", text) == 0
    assert count(r"\b(LDL|STL)\b", text) == 0 and res["spills"] == 0


@pytest.mark.ptxas
@pytest.mark.parametrize("arch", sorted(TARGETS, key=lambda a: int(a[3:])))
def test_quantized_kernels_assemble_on_every_target(arch):
    # the conformance fixture (16 x 8 outputs, four warps: three idle) and a larger product: IMMA
    # everywhere, IMMA.8816 (m8n8k16) on sm_75
    fixture = (REPO / "tests" / "spec_conformance" / "PH301_cta_op_divergent_control" /
               "clean_quantized_intrinsics.ph").read_text()
    for src in (fixture, qkernel(64, 32, 128, "qmma_t", 128, "tile")):
        text, res = _sass_of(src, arch)
        assert count(r"\bIMMA\b", text) >= 4 and count(r"\bIDP\b", text) == 0, text
        if arch == "sm_75":
            assert count(r"\bIMMA\.8816\b", text) == count(r"\bIMMA\b", text), text
        assert count(r"\b(LDL|STL)\b", text) == 0 and res["spills"] == 0
