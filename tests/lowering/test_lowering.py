"""The lowering (LANGUAGE §3-§10, lane level): what each construct becomes in PTX, the build
API's refusals (rejected files, what it cannot lower), and internal errors becoming PH901. Tiles:
tests/test_tiles*.py."""

from __future__ import annotations

import os

import pytest

from lowering_tools import EXAMPLES, body, built_example, count, ptx_of

from phobos_tools.lowering.build import build_source
from phobos_tools.lowering.errors import LoweringError
from phobos_tools.lowering.pipeline import PTX_ISA, run_forked


def k(body_text: str, params: str = "A: tensor<f32>[N], O: tensor<f32>[N]", attrs: str = "@launch(128)") -> str:
    return f"{attrs}\nkernel t({params}) {{\n{body_text}\n}}\n"


# ---------------------------------------------------------------- the examples
# every example through LLVM: about 8 s in all, so the slow tier (the ptxas tier builds them too)
@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_builds(path):
    r = built_example(path.stem)
    assert r.ok, [(d.code, d.span, d.message) for d in r.diagnostics]
    for kernel in r.kernels:
        assert f".version {PTX_ISA}" in kernel.ptx
        assert f".visible .entry {kernel.name}(" in kernel.ptx
        assert kernel.manifest["entry"] == kernel.name


def test_what_cannot_be_lowered_is_a_located_error():
    # a copy within one tensor over a runtime extent that reads other elements than it writes
    src = "@launch(32)\nkernel t(A: tensor<f32>[M, N]) {\n  A[1 :+ 1, :] = A[0 :+ 1, :]\n}\n"
    r = build_source(src, "t.ph", resources=False)
    assert not r.ok and not r.kernels
    [d] = r.diagnostics
    assert d.code == "PH210" and (d.span.line, d.span.column) == (3, 18)
    assert "is not supported by phobos-build" in d.message


def test_rejected_program_keeps_its_diagnostics_and_builds_nothing():
    src = k("  if ctx.lane == 0 {\n    barrier()\n  }")
    r = build_source(src, "t.ph", resources=False)
    assert not r.ok and not r.kernels
    assert [d.code for d in r.diagnostics] == ["PH301"]


# ---------------------------------------------------------------- ctx, arithmetic, math
def test_ctx_warp_is_tid_shifted_not_warpid():
    ptx = body(ptx_of(k("  O[ctx.block.x * ctx.warps + ctx.warp] = 1.0")))
    assert "%warpid" not in ptx
    assert count(r"shr\.u32\s+%r\d+, %r\d+, 5;", ptx) == 1


def test_scalar_math_uses_the_approximate_instructions():
    src = k("  let i = ctx.thread\n  let x = A[i]\n"
            "  O[i] = exp(x) + log(x) + tanh(x) + sqrt(x) + round(x) + pow(x, 2.5)")
    ptx = body(ptx_of(src))
    for insn in ("ex2.approx.f32", "lg2.approx.f32", "tanh.approx.f32", "sqrt.approx.f32", "cvt.rni.f32.f32"):
        assert insn in ptx, insn


def test_round_is_half_to_even_and_float_to_int_truncates():
    src = k("  let i = ctx.thread\n  B[i] = i32(A[i]) + i32(round(A[i]))",
            params="A: tensor<f32>[N], B: tensor<i32>[N]")
    r = build_source(src, "t.ph", resources=False)
    ir_text = r.kernels[0].llvm_ir
    assert "llvm.roundeven.f32" in ir_text and "llvm.fptosi.sat.i32.f32" in ir_text
    assert "cvt.rzi.s32.f32" in r.kernels[0].ptx


def test_f16_arithmetic_runs_in_f32():
    # built in f32 (§3); LLVM may narrow an operation back to f16 where that is exact (one
    # multiply or add), or fuse it (§10 allows contraction)
    src = k("  let i = ctx.thread\n  O[i] = A[i] * A[i] + A[i]", params="A: tensor<f16>[N], O: tensor<f16>[N]")
    r = build_source(src, "t.ph", resources=False)
    ir_text = r.kernels[0].llvm_ir
    assert "fpext half" in ir_text and "fmul contract float" in ir_text and "fptrunc float" in ir_text


def test_short_circuit_guards_the_right_side():
    # A[i] must not be loaded when i >= N: the load sits behind the branch on `i < N`
    src = k("  let i = ctx.thread\n  if i < N && A[i] > 0.0 {\n    O[i] = 1.0\n  }")
    r = build_source(src, "t.ph", resources=False)
    ir_text = r.kernels[0].llvm_ir
    assert "rhs:" in ir_text or '"rhs"' in ir_text or "rhs" in ir_text
    ptx = body(r.kernels[0].ptx)
    first_branch = ptx.index("bra")
    assert ptx.index("ld.global") > first_branch


# ---------------------------------------------------------------- memory and runs
def test_runs_under_aligned_become_vector_loads():
    ptx = body(built_example("lanes_matvec").kernels[0].ptx)
    assert count(r"ld\.global(\.nc)?\.v4\.(b32|f32)", ptx) >= 2
    assert count(r"ld\.global(\.nc)?\.(b32|f32)\s", ptx) == 0


def test_runs_without_proof_of_alignment_stay_scalar():
    src = k("  let at = ctx.thread * 3\n  O[ctx.thread] = sum(A[at :+ 4])")
    ptx = body(ptx_of(src))
    assert count(r"ld\.global(\.nc)?\.v\d", ptx) == 0
    assert count(r"ld\.global(\.nc)?\.(b32|f32)", ptx) == 4


def test_f16_run_of_8_is_one_16_byte_load_and_store():
    ptx = body(built_example("gelu").kernels[0].ptx)
    assert count(r"ld\.global(\.nc)?\.v4\.b32", ptx) == 1
    assert count(r"st\.global\.v4\.b32", ptx) == 1


def test_i8_run_sums_become_dp4a():
    ptx = body(built_example("int8_dot").kernels[0].ptx)
    assert count(r"dp4a\.s32\.s32", ptx) >= 1
    src = k("  let i = ctx.thread * 4\n  O[ctx.thread] = sum(A[i :+ 4] * B[i :+ 4])",
            params="A: tensor<u8>[N], B: tensor<i8>[N], O: tensor<i32>[N]")
    assert "dp4a.u32.s32" in ptx_of(src)


def test_shared_tile_point_accesses():
    src = k("  var t: tile<f32>[1, 128]\n  t[0, ctx.thread] = A[ctx.thread]\n  barrier()\n"
            "  O[ctx.thread] = t[0, (ctx.thread + 1) % 128]")
    ptx = body(ptx_of(src))
    assert "st.shared.b32" in ptx and "ld.shared.b32" in ptx and count(r"bar\.sync\s+0", ptx) == 1


def test_extents_follow_the_parameters():
    ptx = ptx_of(k("  O[ctx.thread] = A[ctx.thread] * s", params="A: tensor<f32>[N], O: tensor<f32>[M], s: f32"))
    params = [line.strip() for line in ptx.splitlines() if line.strip().startswith(".param")]
    assert [p.split()[1] for p in params] == [".u64", ".u64", ".f32", ".u32", ".u32"]


# ---------------------------------------------------------------- lane level
@pytest.mark.parametrize("mode,insn", [("xor", "bfly"), ("up", "up"), ("down", "down"), ("idx", "idx")])
def test_every_shuffle_mode(mode, insn):
    ptx = body(ptx_of(k(f"  O[ctx.thread] = shfl<{mode} 3>(A[ctx.thread])")))
    assert count(rf"shfl\.sync\.{insn}\.b32", ptx) == 1


def test_shuffle_idx_checks_its_range():
    # PTX masks the lane to 5 bits; §8 says a source lane outside 0..31 yields the own value
    ptx = body(ptx_of(k("  O[ctx.thread] = shfl<idx (ctx.lane + 1)>(A[ctx.thread])")))
    assert count(r"shfl\.sync\.idx\.b32", ptx) == 1
    assert count(r"setp\.", ptx) >= 1 and "selp" in ptx     # lane 31 reads lane 32: its own value


def test_64_bit_values_shuffle_as_two_halves():
    src = k("  O[ctx.thread] = shfl<xor 1>(A[ctx.thread])", params="A: tensor<f64>[N], O: tensor<f64>[N]")
    assert count(r"shfl\.sync\.bfly\.b32", body(ptx_of(src))) == 2


def test_lane_collective_is_a_butterfly():
    ptx = body(built_example("row_sums").kernels[0].ptx)
    assert count(r"shfl\.sync\.bfly\.b32", ptx) == 5


def test_lane_collective_of_a_warp_uniform_value_needs_no_shuffle():
    ptx = body(ptx_of(k("  O[ctx.thread] = f32(sum<over ctx.lane>(ctx.warp))")))
    assert "shfl" not in ptx


def test_any_over_lanes_is_a_vote():
    ptx = body(ptx_of(k("  if any<over ctx.lane>(A[ctx.thread] > 0.0) {\n    O[ctx.thread] = 1.0\n  }")))
    assert "vote.sync.any.pred" in ptx


def test_cta_collective_is_butterflies_and_one_shared_round_trip():
    ptx = body(built_example("block_reduce").kernels[0].ptx)
    assert count(r"shfl\.sync\.bfly\.b32", ptx) == 20     # f64: two halves, two butterflies
    assert count(r"bar\.sync\s+0", ptx) == 2
    assert "st.shared" in ptx and "ld.shared" in ptx


def test_cta_collective_of_a_uniform_value_needs_no_barrier():
    ptx = body(ptx_of(k("  O[ctx.thread] = max<over ctx.thread>(A[0])")))
    assert "bar.sync" not in ptx and "shfl" not in ptx


# ---------------------------------------------------------------- once per CTA (§8)
def test_atomics_run_once_per_cta_between_barriers():
    ptx = body(built_example("persistent_row_totals").kernels[0].ptx)
    assert count(r"atom\.global\.add", ptx) == 1
    assert count(r"atom\.global\.max\.s32", ptx) == 1 and count(r"atom\.global\.min\.s32", ptx) == 1
    assert count(r"fence\.acq_rel\.gpu", ptx) == 6            # each relaxed atom fenced on both sides
    i = ptx.index("atom.global.add")
    assert ptx.rfind("bar.sync", 0, i) != -1 and ptx.find("bar.sync", i) != -1
    assert count(r"setp\.(ne|eq)\.b?s?32\s+%p\d+, %r\d+, 0;", ptx) >= 1   # thread 0 only


def test_acquire_and_release():
    ptx = body(built_example("grid_counter").kernels[0].ptx)
    assert "ld.acquire.gpu.global" in ptx
    assert "st.release.gpu.global" in ptx
    assert "atom.acq_rel.gpu.global.cas.b32" in ptx


def test_unused_atomic_result_needs_no_broadcast():
    src = k("  atomic_add(C[0], 1)", params="C: tensor<i32>[1]")
    ptx = body(ptx_of(src))
    assert count(r"bar\.sync", ptx) == 1 and "st.shared" not in ptx


# ---------------------------------------------------------------- control, functions, lines
def test_unroll_asks_llvm_for_the_count():
    r = built_example("int8_dot")
    assert '!"llvm.loop.unroll.count", i32 4' in r.kernels[0].llvm_ir


def test_loops_break_continue_and_return():
    src = k("  var acc: f32 = 0.0\n  var j = 0\n  while true {\n    j += 1\n    if j > 10 {\n      break\n    }\n"
            "    if j % 2 == 0 {\n      continue\n    }\n    acc += A[j]\n  }\n"
            "  if ctx.thread >= N {\n    return\n  }\n  O[ctx.thread] = acc")
    assert "ret;" in ptx_of(src)


def test_inlined_function_with_early_return():
    src = ("fn clamp01(x: f32) -> f32 {\n  if x < 0.0 {\n    return 0.0\n  }\n  return min(x, 1.0)\n}\n"
           + k("  O[ctx.thread] = clamp01(A[ctx.thread])"))
    ptx = body(ptx_of(src))
    assert ".func" not in ptx and "call" not in ptx


def test_line_information():
    src = k("  let i = ctx.thread\n  O[i] = A[i] * 2.0")
    ptx = ptx_of(src)
    assert '.file\t1 "' in ptx or ".file 1" in ptx
    assert count(r"^\s*\.loc\s+1 4 ", ptx) >= 1        # `O[i] = ...` is line 4
    assert ".target sm_90\n" in ptx                     # no `debug`: ptxas optimizes as usual


def test_launch_bounds():
    ptx = ptx_of(k("  O[ctx.thread] = 1.0", attrs="@launch(256, 2, 128)"))
    assert ".maxntid 256" in ptx and ".minnctapersm 2" in ptx and ".maxnreg 128" in ptx


def test_scalars_of_every_type():
    params = ", ".join(f"{t}s: tensor<{t}>[N]" for t in ("b", "i8", "u8", "i32", "i64", "f16", "bf16", "f32", "f64")
                       ).replace("bs: tensor<b>", "bs: tensor<bool>")
    lines = ["  let i = ctx.thread"]
    for t in ("i8", "u8", "i32", "i64", "f16", "bf16", "f32", "f64"):
        lines.append(f"  {t}s[i] = {t}(f32({t}s[i]) * 2.0 + 1.0)")
    lines.append("  bss[i] = !bss[i] || (i32s[i] >> 3) > 2")
    src = k("\n".join(lines).replace("bss", "bs"), params=params)
    ptx = body(ptx_of(src))
    assert "cvt.f32.bf16" in ptx or "shl.b32" in ptx
    assert "ld.global.nc.s8" in ptx or "ld.global.nc.b8" in ptx or "ld.global.b8" in ptx


# ---------------------------------------------------------------- internal errors
def test_an_llvm_abort_becomes_a_lowering_error():
    if not hasattr(os, "fork"):
        pytest.skip("isolation needs fork")
    outcome, = run_forked([lambda: os.abort()])
    assert isinstance(outcome, LoweringError)
    assert "signal" in str(outcome)


def test_an_llvm_abort_in_one_kernel_of_many_is_that_kernels_ph901(monkeypatch):
    """Kernels go through LLVM's passes together, one forked child per CPU; when a child dies its
    kernels are redone one by one, so only the kernel that aborts is reported and the rest build."""
    if not hasattr(os, "fork"):
        pytest.skip("isolation needs fork")
    from phobos_tools.lowering import pipeline
    real = pipeline._codegen

    def aborting(v, arch, tm):
        if v.name == "k2":
            os.abort()
        return real(v, arch, tm)
    monkeypatch.setattr(pipeline, "_codegen", aborting)
    monkeypatch.delenv("PHOBOS_LOWERING_INPROCESS", raising=False)
    src = "".join(f"@launch(32)\nkernel k{i}(O: tensor<f32>[32]) {{\n  O[ctx.thread] = {i}.0\n}}\n\n"
                  for i in range(5))
    r = build_source(src, "t.ph", resources=False)
    assert [(d.code, d.span.line) for d in r.diagnostics] == [("PH901", 12)], r.diagnostics
    assert "killed by signal" in r.diagnostics[0].message and "`k2`" in r.diagnostics[0].message
    assert [k.name for k in r.kernels] == ["k0", "k1", "k3", "k4"]
    assert all(".entry " + k.name + "(" in k.ptx for k in r.kernels)


def test_a_failure_inside_the_lowering_is_ph901(monkeypatch):
    from phobos_tools.lowering import emit

    def broken(self, e):
        raise RuntimeError("boom")
    monkeypatch.setattr(emit.KernelEmitter, "e_CtxPath", broken)
    r = build_source(k("  O[ctx.thread] = 1.0"), "t.ph", resources=False)
    assert [d.code for d in r.diagnostics] == ["PH901"] and "boom" in r.diagnostics[0].message
    assert not r.kernels


def test_views_and_function_arguments_are_no_tile_operation():
    src = ("fn first(X: tensor<f32>[R, C]) -> f32 {\n  return X[0, 0]\n}\n"
           + k("  let v = A[ctx.block.x :+ 1, 0 :+ 8]\n  O[ctx.block.x, ctx.lane % 8] = v[0, ctx.lane % 8] + "
               "first(A[ctx.block.x :+ 2, 0 :+ 8])", params="A: tensor<f32>[N, M], O: tensor<f32>[N, M]"))
    ptx = body(ptx_of(src))
    assert count(r"ld\.global", ptx) == 2


def test_an_unroll_factor_named_by_a_constant_reaches_llvm():
    """`for<unroll U>` with U an @autotune or -D constant: the factor used to be dropped silently
    (the lowering could not resolve the name), so only literal factors unrolled."""
    import re
    from phobos_tools.lowering.build import build_source
    src = ("@autotune(U in [4, 2])\n@launch(32)\nkernel k(A: tensor<f32>[4096], O: tensor<f32>[32]) {\n"
           "  var s = 0.0\n  for<unroll U> i in range(0, 4096) {\n    s = s + A[i] * 2.0\n  }\n"
           "  for<unroll U * 2> i in range(0, 4096) {\n    s = s + A[i] * 3.0\n  }\n  O[ctx.thread] = s\n}\n")
    for defines, want in (({}, ["4", "8"]), ({"U": 8}, ["8", "16"])):
        result = build_source(src, "k.ph", defines, resources=False)
        assert result.ok, [(d.code, d.message) for d in result.diagnostics]
        assert re.findall(r'!"llvm.loop.unroll.count", i32 (\d+)', result.kernels[0].llvm_ir) == want


def test_a_kernel_past_the_size_limit_is_PH213_not_a_minutes_long_build(monkeypatch):
    """Found by the fuzzer: a 4 MiB file of statements took 34 s to build (LLVM's time grows
    faster than the kernel). Past MAX_KERNEL_SIZE the build stops with a located PH213."""
    import phobos_tools.lowering.build as B
    body = "  acc += A[0, ctx.thread] * 0.5\n" * 40
    src = ("fn twice(x: f32) -> f32 {\n  return x + x\n}\n\n@launch(32)\n"
           "kernel big(A: tensor<f32>[2, 32], O: tensor<f32>[32]) {\n  var acc: f32 = 0.0\n"
           + body + "  O[ctx.thread] = twice(acc)\n}\n\n@launch(32)\nkernel small(O: tensor<f32>[32]) {\n"
           "  O[ctx.thread] = 1.0\n}\n")
    result = B.build_source(src, "k.ph", resources=False)
    assert result.ok and [k.name for k in result.kernels] == ["big", "small"]
    size = B.kernel_size(result.check.kernels[0].instance)
    assert 40 * 7 < size < 40 * 7 + 40                     # ~7 per statement, the inlined call counted
    monkeypatch.setattr(B, "MAX_KERNEL_SIZE", size - 1)
    result = B.build_source(src, "k.ph", resources=False)
    assert [(d.code, d.span.line, d.span.column) for d in result.diagnostics] == [("PH213", 6, 8)]
    assert "kernel `big` is too large to build" in result.diagnostics[0].message
    assert [k.name for k in result.kernels] == ["small"]     # the other kernels still build
    monkeypatch.setattr(B, "MAX_KERNEL_SIZE", size)
    assert B.build_source(src, "k.ph", resources=False).ok


def test_small_loops_unroll_16_times_loops_over_long_runs_8():
    """Issue 19: nvcc unrolls small lane loops 16 times. A loop over runs of up to 4 elements does
    too, now that its subscripts keep one strided pointer each (with 64-bit indices and the
    remainder iterations first, 16 copies of lanes_matvec's body hold 31 registers; before, 45);
    one over longer runs stays at 8 (16 copies of layernorm_rows' runs of 8: 82 registers, 51)."""
    import re
    from phobos_tools.lowering.emit import RUN_LOOP_UNROLL, SHORT_RUN, SMALL_LOOP_UNROLL
    assert (SMALL_LOOP_UNROLL, RUN_LOOP_UNROLL, SHORT_RUN) == (16, 8, 4)
    for stem, want in (("row_sums", SMALL_LOOP_UNROLL), ("lanes_matvec", SMALL_LOOP_UNROLL)):
        ir_text = built_example(stem).kernels[0].llvm_ir
        assert re.findall(r'!"llvm.loop.unroll.count", i32 (\d+)', ir_text) == [str(want)], stem
    ir_text = built_example("layernorm_rows").kernels[0].llvm_ir
    assert str(RUN_LOOP_UNROLL) in re.findall(r'!"llvm.loop.unroll.count", i32 (\d+)', ir_text)
