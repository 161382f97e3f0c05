"""Tile products on tensor cores (lowering/mma.py, LANGUAGE §10): which `dot`/`dot_t` take
`mma.sync` on which target, their results through the SIMT interpreter (which carries out
`mma.sync` and `ldmatrix` for a whole warp, tests/support/ir_simt.py) against exact references,
and the SASS of f16, bf16 and i8 products (HMMA, IMMA, no local memory)."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from ir_simt import run
from lowering_tools import built_example, count, need_tool, ptx_of

from phobos_tools.language.types import F32, F16, I32, I8
from phobos_tools.lowering.mma import tensor_core_shape, warp_blocking
from phobos_tools.lowering.ptxas import assemble, sass

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
    ptxas = need_tool("ptxas")
    need_tool("cuobjdump")
    need_tool("nvdisasm")
    done = assemble(ptx_of(src, arch), arch, ptxas, keep_cubin=True)
    assert done.ok, done.log
    return sass(done.cubin), done.resources


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
    ptxas = need_tool("ptxas")
    need_tool("cuobjdump")
    need_tool("nvdisasm")
    k = built_example(stem, "sm_90").kernels[0]
    done = assemble(k.ptx, "sm_90", ptxas, keep_cubin=True)
    text = sass(done.cubin)
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
    insns = [(int(m.group(1), 16), m.group(2).strip()) for m in
             map(re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;").search, text.splitlines()) if m]
    loops = []
    for a, i in insns:
        m = re.search(r"\bBRA\s+(?:`\()?(0x[0-9a-f]+)", i)
        if m and int(m.group(1), 16) < a:
            loops.append((int(m.group(1), 16), a))
    inner = [lp for lp in loops if not any(o != lp and lp[0] <= o[0] and o[1] <= lp[1] for o in loops)]
    bodies = [[i for a, i in insns if lo <= a <= hi] for lo, hi in inner]
    return max(bodies, key=lambda body: sum(1 for i in body if re.match(marker, i)), default=[])


@pytest.mark.ptxas
def test_sass_of_the_f32_gemm_has_six_ffma_per_shared_load():
    text, res = _sass_of(F32_DOT.format(threads=256, m=64, n=64, k=32), "sm_90")
    loop = _hot_loop(text, r"FFMA")
    ffma = sum(1 for i in loop if re.match(r"FFMA\b", i))
    lds = sum(1 for i in loop if re.match(r"LDS\b", i))
    assert ffma >= 64 and lds and ffma / lds >= 6, (ffma, lds)
    assert count(r"\b(LDL|STL)\b", text) == 0 and res["spills"] == 0
