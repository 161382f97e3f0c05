"""The lowering against the simulator (tests/support/fuzz_harness.py, ``differential``): the same kernel,
the same inputs, run by the CPU simulator and by tests/support/ir_simt.py on the LLVM module phobos-build
emits, every output compared (integers bit for bit, floats within what LANGUAGE §10 lets the
lowering approximate; the harness says why). A fixed-seed slice of the generated race-free
kernels, then the numeric edge cases one by one, each a disagreement the differential testing
found (or a place where the two must keep agreeing), and the interpreter's own checks.

``python benchmarks/fuzz.py --phases differential`` is the long run.
"""

from __future__ import annotations

import random
import warnings

import ml_dtypes
import numpy as np
import pytest

import fuzz_harness as H
import ir_simt
from ir_simt import SimtError
from phobos_gen import generate
from phobos_tools.run import loads

pytestmark = pytest.mark.fuzz

BF16 = np.dtype(ml_dtypes.bfloat16)


def both(src: str, arrays: dict, grid=(1,), scalars=None):
    """(simulator's arrays, lowered module's arrays) after one launch each on copies of ``arrays``."""
    sim = {k: v.copy() for k, v in arrays.items()}
    loads(src, "t.ph").kernel()(**sim, **(scalars or {}), grid=grid)
    low = {k: v.copy() for k, v in arrays.items()}
    ir_simt.run(src, low, grid, scalars=scalars)
    return sim, low


def agree(sim: dict, low: dict, exact: bool = True):
    bad = H.compare_outputs(sim, low, exact=exact)
    assert not bad, bad


def k1(body: str, params: str, threads: int = 32) -> str:
    return f"@launch({threads})\nkernel k({params}) {{\n{body}\n}}\n"


# ---------------------------------------------------------------- the fuzz slice
def test_generated_race_free_kernels_agree_with_the_simulator():
    """A fixed-seed slice of the phase `differential`: accepted race-free kernels, simulator
    against the lowered module, two grids each."""
    warnings.simplefilter("ignore")
    rng = random.Random(20261129)
    counts = {"same": 0, "inexact": 0, "skipped": 0}
    findings = []
    with np.errstate(all="ignore"):
        for _ in range(60):
            gk = generate(random.Random(rng.getrandbits(64)), race_free=True)
            runs, f = H.differential(gk, np.random.default_rng(rng.getrandbits(32)))
            findings += f
            for r in runs:
                counts[r.status] = counts.get(r.status, 0) + 1
    assert not findings, [x.short() for x in findings[:3]]
    assert counts["same"] >= 60, counts          # most kernels are accepted, built and compared


def test_the_copy_ahead_shape_is_double_buffered_where_nothing_can_tell():
    """The generator's `copy-ahead` shape (docs/lowering.md, "Double-buffered copies"): loops
    whose body starts with copies of tensor slices into `var` tiles. Every accepted kernel of its
    plain variant gets the second buffers, no kernel of a variant the plan must refuse (a tile read
    after the loop or written in it, a view made before it, an early exit, a written source, a
    statement before the copies) does; two double-buffered ones then run the same in the simulator
    and in the lowered module (cp.async on sm_90)."""
    warnings.simplefilter("ignore")
    from phobos_tools.analyzer.checked import check_source
    variants, double, compared = {}, [], 0
    for seed in range(200):
        gk = generate(random.Random(seed), race_free=True)
        if "copy-ahead" not in gk.shapes:
            continue
        variant = next(s for s in gk.shapes if s.startswith("copy-ahead-"))[len("copy-ahead-"):]
        result = check_source(gk.source, "g.ph", {"BLK": str(gk.blocks[0])})
        if not result.ok:
            assert gk.violations, (seed, [d.code for d in result.diagnostics])    # a rule broken on purpose
            continue
        buffered = bool(result.kernels[0].smem.double_buffered)
        variants.setdefault(variant, []).append(buffered)
        assert buffered == (variant == "ok"), (seed, variant, gk.source[gk.source.rfind("let o"):])
        if buffered and len(double) < 2:
            double.append(gk)
    assert len(variants.get("ok", ())) >= 10 and len(variants) >= 5, variants
    for n, gk in enumerate(double):
        with np.errstate(all="ignore"):
            runs, findings = H.differential(gk, np.random.default_rng(n))
        assert not findings, [x.short() for x in findings]
        compared += sum(r.status in ("same", "inexact") for r in runs)
    assert compared >= 2


def test_a_difference_is_a_finding(monkeypatch):
    """The oracle sees a wrong lowering: integer `+` lowered as `-`."""
    from phobos_tools.lowering import intrinsics
    monkeypatch.setitem(intrinsics.BINARY, ("+", "int"), lambda o, x, y: o.b.sub(x, y))
    src = k1("  if ctx.thread < N {\n    O[ctx.thread] = X[ctx.thread] + 3\n  }",
             "X: tensor<i32>[N], O: tensor<i32>[N]")
    sim, low = both(src, {"X": np.arange(32, dtype=np.int32), "O": np.zeros(32, np.int32)})
    assert H.compare_outputs(sim, low) and "`O`" in H.compare_outputs(sim, low)[0]


def test_the_tolerance_covers_the_approximations_and_nothing_more():
    a = {"O": np.array([1.0, 100.0], np.float32)}
    assert not H.compare_outputs(a, {"O": np.array([1.0 + 1e-5, 100.0], np.float32)})
    assert H.compare_outputs(a, {"O": np.array([1.0 + 1e-5, 100.0], np.float32)}, exact=True)
    assert H.compare_outputs(a, {"O": np.array([1.01, 100.0], np.float32)})
    assert not H.compare_outputs({"O": np.array([np.nan, -0.0])}, {"O": np.array([np.nan, 0.0])}, exact=True)
    assert H.compare_outputs({"C": np.array([7], np.int32)}, {"C": np.array([8], np.int32)})


# ---------------------------------------------------------------- integer division (§6)
DIV = k1("  let t = ctx.thread\n  if t < N {\n    let a = X[t]\n    let b = Y[t]\n"
         "    O[0, t] = where(b != 0, a / b, 7)\n    O[1, t] = where(b != 0, a % b, 7)\n  }",
         "X: tensor<i32>[N], Y: tensor<i32>[N], O: tensor<i32>[2, N]")


def test_division_in_the_side_of_a_where_not_taken_is_harmless():
    # LLVM's sdiv by 0 is undefined behaviour: before the fix O3 removed the `where` and stored
    # X / 0 (garbage) where the simulator stores 7
    X = np.array([-7, 7, -7, 7, 5, -5, 0, 3], np.int32)
    Y = np.array([2, -2, -2, 2, 0, 0, 0, 0], np.int32)
    sim, low = both(DIV, {"X": X, "Y": Y, "O": np.zeros((2, 8), np.int32)})
    agree(sim, low)
    assert sim["O"].tolist() == [[-3, -3, 3, 3, 7, 7, 7, 7], [-1, 1, -1, 1, 7, 7, 7, 7]]


def test_min_int_divided_by_minus_one_wraps():
    # LLVM: sdiv i32 MIN, -1 is undefined behaviour; the simulator wraps (MIN) and the remainder is 0
    X = np.array([-2**31, -2**31, -2**31 + 1, 2**31 - 1], np.int32)
    Y = np.array([-1, 1, -1, -1], np.int32)
    sim, low = both(DIV, {"X": X, "Y": Y, "O": np.zeros((2, 4), np.int32)})
    agree(sim, low)
    assert sim["O"].tolist() == [[-2**31, -2**31, 2**31 - 1, -2**31 + 1], [0, 0, 0, 0]]
    src64 = k1("  if ctx.thread < N {\n    O[ctx.thread] = X[ctx.thread] / Y[ctx.thread]\n"
               "    R[ctx.thread] = X[ctx.thread] % Y[ctx.thread]\n  }",
               "X: tensor<i64>[N], Y: tensor<i64>[N], O: tensor<i64>[N], R: tensor<i64>[N]")
    a = {"X": np.array([-2**63, -9, 9], np.int64), "Y": np.array([-1, 4, -4], np.int64),
         "O": np.zeros(3, np.int64), "R": np.zeros(3, np.int64)}
    sim, low = both(src64, a)
    agree(sim, low)
    assert sim["O"].tolist() == [-2**63, -2, -2] and sim["R"].tolist() == [0, -1, 1]


def test_the_interpreter_reports_llvm_division_overflow():
    with pytest.raises(SimtError, match="overflow"):
        ir_simt._sdiv(2**31, 2**32 - 1, 32)
    with pytest.raises(SimtError, match="division by zero"):
        ir_simt._INT_BINARY["udiv"](1, 0, 32)


# ---------------------------------------------------------------- shifts, wrap, conversions
def test_integer_edges_agree():
    src = k1("  let t = ctx.thread\n  if t < N {\n    let a = X[t]\n    let b = Y[t]\n"
             "    O[0, t] = a << b\n    O[1, t] = a >> b\n    O[2, t] = i32(i64(a) << b)\n    O[3, t] = abs(a)\n"
             "    O[4, t] = -a\n    O[5, t] = popcount(a)\n    O[6, t] = a * 65537 + 2147483647\n"
             "    O[7, t] = i32(i8(a)) + i32(u8(a))\n    O[8, t] = i32(i64(a) * 4294967296 >> 33)\n"
             "    O[9, t] = ~a ^ (a | b) & -2147483648\n  }",
             "X: tensor<i32>[N], Y: tensor<i32>[N], O: tensor<i32>[10, N]")
    X = np.array([-7, 7, -2**31, 2**31 - 1, 1, -1, 123, 255, -129, 3, 0, 77], np.int32)
    Y = np.array([0, 31, 32, 33, -1, 64, 2**31 - 1, -2**31, 1, 30, 5, 16], np.int32)
    sim, low = both(src, {"X": X, "Y": Y, "O": np.zeros((10, len(X)), np.int32)})
    agree(sim, low)
    # shifts by the width or more, or by a negative count: 0 for <<, the sign for >> (docs/language-choices.md)
    assert sim["O"][0].tolist()[2:6] == [0, 0, 0, 0] and sim["O"][1].tolist()[4:6] == [0, -1]


def test_float_to_int_saturates_and_nan_is_zero():
    src = k1("  let t = ctx.thread\n  if t < N {\n    let x = X[t]\n    O[0, t] = i32(x)\n    O[1, t] = i32(i8(x))\n"
             "    O[2, t] = i32(u8(x))\n    O[3, t] = i32(i64(x) >> 32)\n    O[4, t] = i32(f16(x))\n"
             "    O[5, t] = i32(bf16(x))\n  }", "X: tensor<f32>[N], O: tensor<i32>[6, N]")
    X = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2147483520.0, -2.7, 2.7, 255.9, 256.0, -128.9, -129.0,
                  1e20, -1e20, 65504.0, 70000.0, -0.0, 0.5], np.float32)
    sim, low = both(src, {"X": X, "O": np.zeros((6, len(X)), np.int32)})
    agree(sim, low)
    assert sim["O"][0].tolist()[:5] == [0, 2**31 - 1, -2**31, 2**31 - 1, -2**31]


def test_float_conversions_and_rounding_agree():
    src = k1("  let t = ctx.thread\n  if t < N {\n    let x = X[t]\n    let i = I[t]\n"
             "    O[0, t] = f32(f16(x))\n    O[1, t] = f32(bf16(x))\n    O[2, t] = f32(i)\n"
             "    O[3, t] = f32(f16(f64(x) * 1.0000001))\n    O[4, t] = f32(bf16(f64(x) * 1.0000001))\n"
             "    O[5, t] = f32(f16(bf16(x)))\n    O[6, t] = f32(bf16(f16(x)))\n    O[7, t] = round(x)\n"
             "    O[8, t] = f32(f64(i) * 0.1)\n  }",
             "X: tensor<f32>[N], I: tensor<i32>[N], O: tensor<f32>[9, N]")
    r = np.random.default_rng(3)
    X = np.concatenate([np.array([0.5, 1.5, 2.5, -2.5, 65519.0, 65520.0, 1e-8, -0.0, np.inf, np.nan,
                                  1.00390625, 1.01171875, 3.3895314e38, 2**24 + 1.0], np.float32),
                        r.standard_normal(18).astype(np.float32) * 100])
    I = np.concatenate([np.array([2**24 + 1, 2**31 - 1, -2**31, 16777217, -16777219], np.int32),
                        r.integers(-2**31, 2**31 - 1, 27).astype(np.int32)])
    sim, low = both(src, {"X": X, "I": I, "O": np.zeros((9, 32), np.float32)})
    agree(sim, low)


def test_comparisons_min_max_and_where_with_nan_and_signed_zero():
    src = k1("  let t = ctx.thread\n  let a = X[t]\n  let b = Y[t]\n"
             "  O[0, t] = min(a, b)\n  O[1, t] = max(a, b)\n  O[2, t] = where(a < b, 1.0, 0.0)\n"
             "  O[3, t] = where(a != b, 1.0, 0.0)\n  O[4, t] = where(a == b, 1.0, 0.0)\n"
             "  O[5, t] = where(a >= b, a, b)\n  O[6, t] = max<over ctx.lane>(a)\n"
             "  O[7, t] = min<over ctx.lane>(b)",
             "X: tensor<f32>[32], Y: tensor<f32>[32], O: tensor<f32>[8, 32]")
    vals = [np.nan, 1.0, -1.0, 0.0, np.inf, -np.inf]
    X = np.array([a for a in vals for _ in vals][:32], np.float32)
    Y = np.array([b for _ in vals for b in vals][:32], np.float32)
    sim, low = both(src, {"X": X, "Y": Y, "O": np.zeros((8, 32), np.float32)})
    agree(sim, low)


def test_folds_of_nothing_but_nan_stay_nan():
    # rowmax and the CTA max/min started from -inf/inf in the lowering, so a row or a CTA of
    # NaNs gave -inf where the simulator says NaN (one NaN gives the other operand, two give
    # NaN: docs/language-choices.md); found by the differential phase (seed 31)
    src = k1("  var t: tile<f32>[4, 40] = X[0 :+ 4, 0 :+ 40]\n  let m = rowmax(t)\n"
             "  O[0 :+ 4, 0 :+ 1] = m\n  let v = X[ctx.thread / 40, ctx.thread % 40]\n"
             "  let a = max<over ctx.thread>(v)\n  let b = min<over ctx.thread>(v)\n"
             "  O[ctx.thread % 4, 1] = a\n  O[ctx.thread % 4, 2] = b",
             "X: tensor<f32>[4, 40], O: tensor<f32>[4, 3]", threads=96)
    X = np.full((4, 40), np.nan, np.float32)
    X[1, 7] = -3.0                        # one number among NaNs wins
    X[2, :] = -np.inf
    for rows in (X, np.full((4, 40), np.nan, np.float32)):
        sim, low = both(src, {"X": rows.copy(), "O": np.zeros((4, 3), np.float32)})
        agree(sim, low)
    assert np.isnan(low["O"]).all() and np.isnan(sim["O"]).all()


def test_pow_follows_c_at_its_special_cases():
    # pow = ex2(y * lg2 x) gave NaN for 0^0, 1^NaN, (-2)^3, inf^0 where the simulator (numpy, C)
    # gives 1, 1, -8, 1; now the lowering spells those cases out
    src = k1("  if ctx.thread < N {\n    O[ctx.thread] = pow(X[ctx.thread], Y[ctx.thread])\n  }",
             "X: tensor<f32>[N], Y: tensor<f32>[N], O: tensor<f32>[N]")
    vals = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, -3.0, np.inf, -np.inf, np.nan, 2.5, -2.5]
    pairs = [(a, b) for a in vals for b in vals]
    for lo in range(0, len(pairs), 32):
        X = np.array([p[0] for p in pairs[lo:lo + 32]], np.float32)
        Y = np.array([p[1] for p in pairs[lo:lo + 32]], np.float32)
        sim, low = both(src, {"X": X, "Y": Y, "O": np.zeros(len(X), np.float32)})
        agree(sim, low, exact=False)
        with np.errstate(all="ignore"):
            want = np.power(X.astype(np.float64), Y.astype(np.float64))
        got = low["O"].astype(np.float64)
        assert np.all((np.isnan(got) & np.isnan(want)) | np.isclose(got, want, rtol=1e-5)), (X, Y, got)
        assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))


def test_exp_log_sqrt_tanh_at_nan_and_infinities():
    # ex2.approx of NaN is NaN: the interpreter said inf (NaN < 1024 is false)
    src = k1("  if ctx.thread < N {\n    let x = X[ctx.thread]\n    O[0, ctx.thread] = exp(x)\n"
             "    O[1, ctx.thread] = log(x)\n    O[2, ctx.thread] = sqrt(x)\n    O[3, ctx.thread] = tanh(x)\n  }",
             "X: tensor<f32>[N], O: tensor<f32>[4, N]")
    X = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, 1.0, 88.0, 89.0, -104.0, 1e-30, 20.0], np.float32)
    sim, low = both(src, {"X": X, "O": np.zeros((4, len(X)), np.float32)})
    agree(sim, low, exact=False)


def test_integer_literals_at_the_edges():
    src = k1("  if ctx.thread == 0 {\n    O[0] = -2147483648\n    O[1] = 2147483647\n    O[2] = 0x7fffffff\n"
             "    O[3] = -0x80000000\n    O[4] = -2147483648 / -1\n    O[5] = 2147483647 + 1\n"
             "    W[0] = i64(3000000000)\n    W[1] = i64(-2147483648) * 4294967296\n    W[2] = i64(i8(300))\n  }",
             "O: tensor<i32>[6], W: tensor<i64>[3]")
    sim, low = both(src, {"O": np.zeros(6, np.int32), "W": np.zeros(3, np.int64)})
    agree(sim, low)
    assert sim["O"].tolist() == [-2**31, 2**31 - 1, 2**31 - 1, -2**31, -2**31, -2**31]
    assert sim["W"].tolist() == [3000000000, -2**63, 44]


# ---------------------------------------------------------------- barriers found by the differential
def test_a_uniform_store_then_a_tile_write_of_its_buffer_gets_a_barrier():
    # without it, a warp that reaches the uniform store late overwrites what the sweep wrote
    src = k1("  var s: tile<f32>[1, 64] = 0.0\n  s[0, 0] = A[0, 0]\n  s += 1.0\n  O[0 :+ 1, 0 :+ 64] = s",
             "A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]", 64)
    a = {"A": np.full((1, 64), 5.0, np.float32), "O": np.zeros((1, 64), np.float32)}
    sim, low = both(src, a)
    agree(sim, low)
    assert low["O"][0, 0] == 6.0


def test_a_point_read_then_a_tile_write_of_its_buffer_gets_a_barrier():
    # a warp still reading `u` while the warps ahead overwrite it (a write after a read, §10);
    # the sweep's own elementwise op did not count as clearing nothing
    src = k1("  var u: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]\n  var x = u[ctx.lane & 3, ctx.warp]\n"
             "  u = where(u > 0.5, u, 0.0)\n  O[0, ctx.thread] = x\n  O[1 :+ 4, 0 :+ 32] = u",
             "A: tensor<f32>[4, 32], O: tensor<f32>[5, 64]", 64)
    a = {"A": np.random.default_rng(1).random((4, 32)).astype(np.float32), "O": np.zeros((5, 64), np.float32)}
    sim, low = both(src, a)
    agree(sim, low)


def test_a_broadcast_scalar_read_from_the_target_is_read_before_the_writes():
    # `u[0, 1]` is evaluated by every thread before the pass (docs/language-choices.md); a thread of a late
    # warp read the element after a thread of an earlier warp had overwritten it
    src = k1("  var u: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]\n  u = where(u > u[0, 1], u, 0.0)\n"
             "  u = u * u[3, 31] + u[0, 0]\n  O[0 :+ 4, 0 :+ 32] = u",
             "A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]", 64)
    a = {"A": np.random.default_rng(2).random((4, 32)).astype(np.float32), "O": np.zeros((4, 32), np.float32)}
    sim, low = both(src, a)
    agree(sim, low)


def test_a_read_after_an_atomic_in_the_store_subscript_still_gets_its_barrier():
    # `s[atomic_cas(..)] = sq[3, 5]` evaluates the subscript (and the atomic's barriers) before
    # the value, as emit.py does; the barrier pass took the value first, so the atomic seemed to
    # order the read of `sq` and the sweep into `sq` raced with it (differential fuzz, seed 14)
    src = k1("  var s: tile<f32>[1, 128] = 0.0\n  var sq: tile<f32>[8, 8] = 1.0\n"
             "  s[0, atomic_cas(F[0], 0, 1) & 127] = sq[3, 5]\n  sq = A[0 :+ 8, 0 :+ 8] + sq\n"
             "  O[0 :+ 1, 0 :+ 128] = s\n  O[1 :+ 8, 0 :+ 8] = sq",
             "A: tensor<f32>[8, 8], F: tensor<i32>[8], O: tensor<f32>[9, 128]", 128)
    a = {"A": np.full((8, 8), 2.0, np.float32), "F": np.zeros(8, np.int32), "O": np.zeros((9, 128), np.float32)}
    sim, low = both(src, a)
    agree(sim, low)
    assert low["O"][0, 0] == 1.0 and low["O"][1, 0] == 3.0


# ---------------------------------------------------------------- the interpreter's race check
RACES = "A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]"


def test_the_interpreter_still_reports_a_write_after_write_of_different_values():
    src = k1("  var s: tile<f32>[1, 64] = 0.0\n  s[0, ctx.thread & 1] = f32(ctx.thread)\n  barrier()\n"
             "  O[0 :+ 1, 0 :+ 64] = s", RACES, 64)
    with pytest.raises(SimtError, match="race"):
        ir_simt.run(src, {"A": np.zeros((1, 64), np.float32), "O": np.zeros((1, 64), np.float32)}, (1,))


def test_the_interpreter_accepts_a_per_thread_store_then_a_uniform_one():
    # every thread leaves the uniform value last, whatever the order
    # (reading s[0, 3] before the barrier would race: thread 3's first store may land last; the
    # simulator reports that, PH401)
    src = k1("  var s: tile<f32>[1, 64] = 0.0\n  s[0, ctx.thread] = 1.0 + f32(ctx.thread)\n  s[0, 3] = 2.0\n"
             "  barrier()\n  O[0 :+ 1, 0 :+ 64] = s * 3.0", RACES, 64)
    a = {"A": np.zeros((1, 64), np.float32), "O": np.zeros((1, 64), np.float32)}
    sim, low = both(src, a)
    agree(sim, low)


def test_the_interpreter_orders_a_read_before_a_shuffle_of_its_warp():
    # a CTA collective of a one-warp CTA: each lane reads, the shuffles fold, one value is stored
    src = k1("  var s: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]\n"
             "  s[0, 5] = sum<over ctx.thread>(s[0, ctx.lane])\n  barrier()\n  O[0 :+ 1, 0 :+ 32] = s",
             "A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]", 32)
    a = {"A": np.arange(32, dtype=np.float32).reshape(1, 32), "O": np.zeros((1, 32), np.float32)}
    sim, low = both(src, a)
    agree(sim, low)
    assert low["O"][0, 5] == float(sum(range(32)))


def test_conversions_to_bf16_and_from_i64_round_once():
    # LANGUAGE §3: float to float rounds to nearest even, once. cvt.rn.bf16.f64 does; ml_dtypes (the
    # simulator) and the interpreter went through f32 and rounded twice: 1 + 2^-8 + 2^-30 became
    # 1.0 instead of 1 + 2^-7. i64 -> f32 in the interpreter went through f64 the same way.
    src = k1("  let t = ctx.thread\n  if t < N {\n    O[0, t] = f32(bf16(X[t]))\n    O[1, t] = f32(bf16(I[t]))\n"
             "    O[2, t] = f32(L[t])\n    O[3, t] = f32(bf16(L[t]))\n    O[4, t] = f32(f16(X[t]))\n  }",
             "X: tensor<f64>[N], I: tensor<i32>[N], L: tensor<i64>[N], O: tensor<f32>[5, N]")
    X = np.array([1 + 2**-8 + 2**-30, -(1 + 2**-8 + 2**-40), 1 + 2**-8, 3.3e38, 3.4e38, 1e-40, 2.0**-133 * 1.5,
                  1 + 2**-11 + 2**-40, np.nan], np.float64)
    I = np.array([16843009, -16843009, 2**31 - 1, -2**31, 33685505, 257, 0, 7, 1], np.int32)
    L = np.array([2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**63 - 1, -2**63, 2**60 + 2**52 + 1, 2**53 + 1,
                  0, -5, 2**24 + 1], np.int64)
    sim, low = both(src, {"X": X, "I": I, "L": L, "O": np.zeros((5, len(X)), np.float32)})
    agree(sim, low)
    o = sim["O"].astype(np.float64)
    assert o[0, :3].tolist() == [1 + 2**-7, -(1 + 2**-7), 1.0] and np.isinf(o[0, 4])
    assert o[1, :2].tolist() == [16908288.0, -16908288.0]           # 16843009 = 2^24 + 2^16 + 2^8 + 1
    assert o[2, 0] == 2.0**60 + 2.0**37 and o[3, 4] == 2.0**60 * (1 + 2**-7)
    assert o[4, 7] == 1 + 2**-10                                     # f64 -> f16 once: above the tie


def test_a_shift_by_an_i64_count_and_popcount_of_a_byte():
    # `a << c` with an i32 `a` and an i64 `c`: the lowering narrowed c first (2^32 + 1 shifted by 1)
    # where the simulator shifts by the whole count (0); popcount(i8(-1)) was 32 in the simulator
    # (the i32 promotion) and 8 in the lowering (the byte's own bits, docs/language-choices.md)
    src = k1("  let t = ctx.thread\n  if t < N {\n    let a = X[t]\n    let c = L[t]\n    let b = B[t]\n"
             "    O[0, t] = a << c\n    O[1, t] = a >> c\n    O[2, t] = popcount(b)\n    O[3, t] = popcount(U[t])\n"
             "    O[4, t] = popcount(c)\n    O[5, t] = i32(c << a)\n    O[6, t] = i32(c >> a)\n  }",
             "X: tensor<i32>[N], L: tensor<i64>[N], B: tensor<i8>[N], U: tensor<u8>[N], O: tensor<i32>[7, N]")
    X = np.array([1, -1, 5, -2**31, 31, 32, 33, -1, 63, 64, 0, 7], np.int32)
    L = np.array([2**32 + 1, 2**32 + 1, -1, 2**63 - 1, -2**63, 31, 32, 63, 64, 2**33, 5, -7], np.int64)
    B = np.array([-1, -128, 127, 0, 1, -2, 3, 5, 8, 16, 32, 64], np.int8)
    U = B.view(np.uint8).copy()
    sim, low = both(src, {"X": X, "L": L, "B": B, "U": U, "O": np.zeros((7, 12), np.int32)})
    agree(sim, low)
    assert sim["O"][0, :2].tolist() == [0, 0] and sim["O"][1, :2].tolist() == [0, -1]
    assert sim["O"][2].tolist() == sim["O"][3].tolist() == [8, 1, 7, 0, 1, 7, 2, 2, 1, 1, 1, 1]


TILE_DIV = k1("  var i: tile<i32>[4, 32] = I[0 :+ 4, 0 :+ 32]\n  var j: tile<i32>[4, 32] = J[0 :+ 4, 0 :+ 32]\n"
              "  P[0 :+ 4, 0 :+ 32] = where(j != 0, i / j, 7)\n  P[4 :+ 4, 0 :+ 32] = where(j == 0, 9, i % j)",
              "I: tensor<i32>[4, 32], J: tensor<i32>[4, 32], P: tensor<i32>[8, 32]", 64)


def test_a_tile_where_divides_only_where_it_is_taken():
    # the simulator checked every element of a tile division for 0 (PH406), the side of the
    # `where` not taken included, unlike a scalar `where` (docs/simulator.md, PH406)
    r = np.random.default_rng(4)
    a = {"I": r.integers(-2**31, 2**31 - 1, (4, 32)).astype(np.int32), "J": r.integers(-3, 4, (4, 32)).astype(np.int32),
         "P": np.zeros((8, 32), np.int32)}
    a["I"].flat[:4] = -2**31
    a["J"].flat[:4] = [-1, 0, 1, -1]
    sim, low = both(TILE_DIV, a)
    agree(sim, low)
    assert (sim["P"][:4][a["J"] == 0] == 7).all() and sim["P"][0, 0] == -2**31


def test_a_tile_division_by_zero_where_it_is_taken_is_still_reported():
    from phobos_tools.run import DynamicCheckFailed
    a = {"I": np.ones((4, 32), np.int32), "J": np.ones((4, 32), np.int32), "P": np.zeros((8, 32), np.int32)}
    a["J"][2, 3] = 0
    src = TILE_DIV.replace("where(j != 0, i / j, 7)", "where(j != 5, i / j, 7)")
    with pytest.raises(DynamicCheckFailed, match="PH406"):
        loads(src, "t.ph").kernel()(**a, grid=(1,))


def test_sums_of_negative_zeros_are_negative_zero_everywhere():
    # IEEE: values that are all -0.0 sum to -0.0. numpy's sum starts from +0.0, and the lowering
    # started the CTA collective's and rowsum's folds from +0.0, so 1 / sum gave +inf there and
    # -inf in the lane collective and the run sum (found by the differential fuzz, seed 14)
    src = """@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[1, 8]) {
  var t: tile<f32>[2, 32] = -0.0
  let a = sum<over ctx.lane>(A[ctx.thread])
  let b = sum<over ctx.thread>(A[ctx.thread])
  let c = sum(A[0 :+ 4])
  let r = rowsum(t)
  if ctx.thread == 0 {
    O[0, 0] = 1.0 / a
    O[0, 1] = 1.0 / b
    O[0, 2] = 1.0 / c
    O[0, 3] = 1.0 / r[0, 0]
  }
}
"""
    sim, low = both(src, {"A": np.full(64, -0.0, np.float32), "O": np.zeros((1, 8), np.float32)})
    assert list(sim["O"][0, :4]) == [-np.inf] * 4
    assert list(low["O"][0, :4]) == [-np.inf] * 4
    # and a +0.0 among them makes the sum +0.0 in both
    A = np.full(64, -0.0, np.float32)
    A[::4] = 0.0
    sim, low = both(src.replace("var t: tile<f32>[2, 32] = -0.0", "var t: tile<f32>[2, 32] = 0.0"),
                    {"A": A, "O": np.zeros((1, 8), np.float32)})
    assert list(sim["O"][0, :4]) == [np.inf] * 4 and list(low["O"][0, :4]) == [np.inf] * 4


def test_round_keeps_the_sign_of_a_zero_result():
    # round(-0.25) is -0.0 (cvt.rni.f32.f32, numpy): 1 / round(x) is -inf. The interpreter rounded
    # through Python's int and lost the sign (found by the differential fuzz, seed 71)
    src = k1("  let t = ctx.thread\n  if t < N {\n    O[0, t] = 1.0 / round(X[t])\n  }",
             "X: tensor<f32>[N], O: tensor<f32>[1, N]")
    X = np.array([-0.25, -0.5, -0.0, 0.25, 0.5, -0.4999, -1.5, 2.5], np.float32)
    sim, low = both(src, {"X": X, "O": np.zeros((1, 8), np.float32)})
    want = [-np.inf, -np.inf, -np.inf, np.inf, np.inf, -np.inf, -0.5, 0.5]
    assert list(sim["O"][0]) == want and list(low["O"][0]) == want


# ---------------------------------------------------------------- every example
# the lowered module of these runs for more than 2 s on the interpreter (big tiles, many threads)
SLOW_EXAMPLES = ("attention_scores", "block_transpose", "jacobi_poisson", "linear_relu", "tiled_gemm")


def _example_cases():
    import example_cases as E
    return [pytest.param(name, fn, shape, id=name, marks=[pytest.mark.slow] if name in SLOW_EXAMPLES else [])
            for name, entries in sorted(E.CASES.items()) for fn, shape in entries[:1]]


@pytest.mark.parametrize("name,case,shape", _example_cases())
def test_every_example_runs_the_same_in_the_simulator_and_the_lowered_module(name, case, shape, monkeypatch):
    """Each example at its smallest case of tests/support/example_cases.py: every launch the case
    makes runs on the simulator and on the lowered module (tests/support/ir_simt.py) with the same
    inputs, and every array agrees within LANGUAGE §10's tolerances (the case then checks the
    simulator's result against its numpy reference, as it always does)."""
    import example_cases as E

    real_kernel = E.kernel
    launches = []

    def both(kname, **defines):
        sim = real_kernel(kname, **defines)
        source = (E.EXAMPLES / f"{kname}.ph").read_text()

        def launch(*args, grid, **kwargs):
            named = dict(zip(sim.params, args), **kwargs)
            arrays = {k: v for k, v in named.items() if isinstance(v, np.ndarray)}
            scalars = {k: v for k, v in named.items() if not isinstance(v, np.ndarray)}
            lowered = {k: v.copy() for k, v in arrays.items()}
            ir_simt.run(source, lowered, tuple(grid), kernel=kname, defines=defines or None, scalars=scalars)
            sim(*args, grid=grid, **kwargs)
            launches.append(H.compare_outputs(arrays, lowered))
        return launch
    monkeypatch.setattr(E, "kernel", both)
    warnings.simplefilter("ignore")
    with np.errstate(all="ignore"):
        case(np.random.default_rng(1), *shape)
    assert launches and not any(launches), launches
