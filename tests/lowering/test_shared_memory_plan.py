"""The shared-memory plan (analyzer/smem.py): phobos-check's PH211 (analyzer/resources.py) and
phobos-build (lowering/shared.py) count the same bytes on every target. The build's figure is
read off what the lowering allocated (the module's shared arrays and its dynamic bytes), never
off the plan, and the checker's PH211 counts a plan it makes itself (analyzer/resources.py), not
the kernel's ``smem`` the build places."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

import ir_simt
from lowering_tools import EXAMPLES
from phobos_gen import generate
from phobos_tools.analyzer import checked, resources, smem
from phobos_tools.analyzer.checked import check_source
from phobos_tools.lowering import pipeline, shared
from phobos_tools.lowering.build import build_source
from phobos_tools.lowering.errors import LoweringError
from phobos_tools.lowering.pipeline import build_module
from phobos_tools.run import loads

_ELEM = {"i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4, "i64": 8, "double": 8}


def allocated(module) -> int:
    """The shared memory a built module takes: its static ``.shared`` arrays (each placed at a
    multiple of 16) and the dynamic bytes its launch passes."""
    total = module.phobos_dynamic_shared_bytes
    for g in module.globals.values():
        if getattr(g, "type", None) is not None and getattr(g.type, "addrspace", 0) == 3 and g.linkage == "internal":
            total += smem.round_up(g.value_type.count * _ELEM[str(g.value_type.element)])
    return total


def generated(n: int = 40, seed: int = 20260107) -> list:
    rng = random.Random(seed)
    return [(f"generated-{i}", generate(random.Random(rng.getrandbits(64)), race_free=True).source) for i in range(n)]


SOURCES = [(p.stem, p.read_text()) for p in EXAMPLES] + generated()


# the examples in the fast tier; the generated kernels (a few seconds in all) in the slow one
@pytest.mark.parametrize("name,src", [pytest.param(n, s, id=n, marks=[pytest.mark.slow] if n.startswith("generated-") else [])
                                      for n, s in SOURCES])
def test_the_checker_counts_what_the_build_allocates_on_every_target(name, src):
    checked = check_source(src, f"{name}.ph")
    if not checked.ok:
        assert name.startswith("generated"), checked.diagnostics        # every example is accepted
        return                                                         # (some generated ones are not)
    # the checker's figure, each kernel's plan made on the checker's own path (its kinds lazily)
    kernels = [(kinfo, kinfo.smem) for kinfo in checked.kernels]
    for arch, limits in resources.TARGETS.items():
        refused = {d.span for d in check_source(src, f"{name}.ph", arch=arch).diagnostics   # phobos-check --arch
                   if d.code == "PH211" and "a CTA may use" in d.message}
        for kinfo, plan in kernels:
            assert (kinfo.kernel.name_span in refused) == (plan.total > limits.shared_per_block)
            if plan.total > limits.shared_per_block:
                continue
            module = build_module(kinfo, arch, f"{name}.ph", line_info=False)
            assert allocated(module) == plan.total, (arch, kinfo.kernel.name)
            assert module.phobos_dynamic_shared_bytes == plan.dynamic_bytes


def test_the_examples_above_exercise_every_region():
    """The comparison above meets scratch temporaries and both collective buffers, not only
    named tiles."""
    plans = [k.smem for p in EXAMPLES for k in check_source(p.read_text(), p.name).kernels]
    assert any(p.scratch_peak for p in plans)
    assert any(smem.FOLD in p.static for p in plans) and any(smem.ONCE in p.static for p in plans)


# ---------------------------------------------------------------- the sm_75 dot kernel
DOT = """@launch(256)
kernel mm(A: tensor<f32>[M, 32], B: tensor<f32>[32, 128], C: tensor<f32>[M, 128]) {
  let r0 = ctx.block.x * 128
  var acc: tile<f32>[128, 128] = 0.0
  acc += dot(A[r0 :+ 128, 0 :+ 32], B[0 :+ 32, 0 :+ 128])
  C[r0 :+ 128, 0 :+ 128] = acc
}
"""


def test_the_dot_scratch_counts_on_sm_75():
    """`acc` alone is exactly sm_75's 64 KB; the dot's copies of its global operands push the
    kernel over it. The checker says so, listing every allocation largest first."""
    r = check_source(DOT, "mm.ph", arch="sm_75")
    [d] = [d for d in r.diagnostics if d.severity == "error"]
    assert d.code == "PH211"
    assert d.message == "`mm` needs 98,304 bytes of shared memory, over the 65,536 bytes a CTA may use on sm_75"
    assert [lab.text for lab in d.chain] == [
        "`acc`: f32[128, 128], 65,536 bytes",
        "scratch of `dot` at 5:10: copy of `A[..]` f32[128, 32], 16,384 bytes",
        "scratch of `dot` at 5:10: copy of `B[..]` f32[32, 128], 16,384 bytes"]
    assert [(lab.span.line, lab.span.column) for lab in d.chain] == [(4, 7), (5, 14), (5, 37)]
    assert check_source(DOT, "mm.ph", arch="sm_90").ok
    # phobos-build stops with the checker's own diagnostic, not one of its own
    b = build_source(DOT, "mm.ph", arch="sm_75", resources=False)
    assert [(x.code, x.message, x.chain) for x in b.diagnostics] == [(d.code, d.message, d.chain)]


def test_over_48_kb_the_build_takes_dynamic_shared_memory_as_planned():
    src = ("@launch(256)\nkernel big(A: tensor<f32>[M, 128], O: tensor<f32>[M, 128]) {\n"
           "  let r0 = ctx.block.x * 128\n  var t: tile<f32>[128, 128] = A[r0 :+ 128, 0 :+ 128]\n"
           "  t = t * 2.0 + transpose(t)\n  O[r0 :+ 128, 0 :+ 128] = t\n}\n")
    r = check_source(src, "big.ph")
    plan = r.kernels[0].smem
    assert plan.dynamic and plan.dynamic_bytes == plan.total == 2 * 128 * 128 * 4   # t and the value's temporary
    built = build_source(src, "big.ph", arch="sm_90", resources=False)
    assert built.ok, built.diagnostics
    assert built.kernels[0].manifest["dynamic_shared_bytes"] == plan.dynamic_bytes
    assert ".extern .shared .align 16 .b8 __phobos_dynamic_big[]" in built.kernels[0].ptx
    [d] = check_source(src, "big.ph", arch="sm_75").diagnostics
    assert d.code == "PH211" and [lab.text for lab in d.chain] == [
        "`t`: f32[128, 128], 65,536 bytes",
        "scratch of the statement at 5:7: its value f32[128, 128] (it reads the target at other elements), "
        "65,536 bytes"]


# ---------------------------------------------------------------- the plan's decisions
DECISIONS = """@launch(64)
kernel k(A: tensor<f32>[32, 32], B: tensor<f32>[32, 16], O: tensor<f32>[32, 16], X: tensor<f32>[64]) {
  var a: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
  var b: tile<f32>[32, 16] = B[0 :+ 32, 0 :+ 16]
  var acc: tile<f32>[32, 16] = 0.0
  for k0 in range(0, 32, 8) {
    acc += dot(a[:, k0 :+ 8], b[k0 :+ 8, :])
  }
  acc += dot(a[:, 0 :+ 16], b[16 :+ 16, :])
  acc = acc - rowmax(acc) + dot_t(a[0 :+ 32, 0 :+ 16], b[0 :+ 16, 0 :+ 16] * 2.0)
  b[0 :+ 16, :] = b[0 :+ 16, :] * 0.5
  b[16 :+ 16, :] = b[0 :+ 16, :] + 1.0
  let s = sum<over ctx.thread>(X[ctx.thread])
  O[0 :+ 32, 0 :+ 16] = acc + s
}
"""


@pytest.mark.slow
def test_the_plan_decides_copies_and_temporaries_from_the_source():
    r = check_source(DECISIONS, "k.ph")
    kinfo = r.kernels[0]
    plan = kinfo.smem
    scratch = [(a.span.line, a.what) for sp in plan.statements.values() for a in sp.scratch.values()]
    assert scratch == [
        # slices at a loop variable's offsets: copied (the plan proves no bounds; constant
        # offsets inside the tile, line 9, are read in place)
        (7, "scratch of `dot` at 7:12: copy of `a[..]` f32[32, 8]"),
        (7, "scratch of `dot` at 7:12: copy of `b[..]` f32[8, 16]"),
        # a producer read by the rest of the statement; dot_t's second operand, stored transposed
        (10, "scratch of `rowmax` at 10:15: its result f32[32, 1]"),
        (10, "scratch of `dot_t` at 10:29: transposed copy of `b[..] * 2.0` f32[16, 16]"),
        # another view of the target (line 11 reads the very elements it writes: no temporary)
        (12, "scratch of the statement at 12:20: its value f32[16, 16] (it reads the target at other elements)")]
    assert plan.scratch_peak == 1024 + 512
    assert set(plan.static) == {smem.FOLD}
    module = build_module(kinfo, "sm_90", "k.ph", line_info=False)
    assert allocated(module) == plan.total
    # and the kernel computes what the simulator does
    rng = np.random.default_rng(3)
    arrays = {"A": rng.standard_normal((32, 32)).astype(np.float32),
              "B": rng.standard_normal((32, 16)).astype(np.float32),
              "O": np.zeros((32, 16), np.float32), "X": rng.standard_normal(64).astype(np.float32)}
    sim = {k: v.copy() for k, v in arrays.items()}
    loads(DECISIONS, "k.ph").kernel()(**sim, grid=(1,))
    low = {k: v.copy() for k, v in arrays.items()}
    ir_simt.run(DECISIONS, low, (1,))
    np.testing.assert_allclose(low["O"], sim["O"], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("threads,operand,fold", [(64, "X[ctx.thread]", True), (64, "3.0", False),
                                                  (32, "X[ctx.thread]", False)])
def test_the_cta_fold_buffer_is_planned_where_the_collective_exchanges(threads, operand, fold):
    src = (f"@launch({threads})\nkernel k(X: tensor<f32>[64], C: tensor<i32>[1], O: tensor<f32>[1]) {{\n"
           f"  let s = sum<over ctx.thread>({operand})\n  let old = atomic_add(C[0], 1)\n"
           "  atomic_add(C[0], 1)\n  if ctx.thread == 0 {\n    O[0] = s + f32(old)\n  }\n}\n")
    r = check_source(src, "k.ph")
    assert r.ok, r.diagnostics
    plan = r.kernels[0].smem
    assert set(plan.static) == ({smem.FOLD, smem.ONCE} if fold else {smem.ONCE})
    module = build_module(r.kernels[0], "sm_90", "k.ph", line_info=False)
    assert allocated(module) == plan.total == plan.static_bytes


def test_the_lowering_stops_where_it_would_stray_from_the_plan(monkeypatch):
    """An internal error (PH901), never a kernel over the memory the checker allowed."""
    real = smem.plan_kernel

    def no_copies(kinfo, analysis):
        plan = real(kinfo, analysis)
        for sp in plan.statements.values():
            for key in [k for k in sp.scratch if k[0] == "copy"]:
                del sp.scratch[key]
        return plan
    monkeypatch.setattr(checked, "plan_kernel", no_copies)
    r = check_source(DOT, "mm.ph")
    with pytest.raises(LoweringError, match="in place"):
        build_module(r.kernels[0], "sm_90", "mm.ph", line_info=False)


def test_one_table_of_targets():
    assert pipeline.TARGETS == tuple(resources.TARGETS) == ("sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
                                                                  "sm_100", "sm_120")
    assert shared.TARGET_LIMIT == {a: t.shared_per_block for a, t in resources.TARGETS.items()}


@pytest.mark.slow
def test_the_plan_needs_neither_llvmlite_nor_numpy():
    code = ("import sys\nimport phobos_tools.analyzer.smem, phobos_tools.analyzer.resources\n"
            "from phobos_tools.analyzer import check_source\n"
            f"r = check_source({DECISIONS!r}, 'k.ph', arch='sm_75')\n"
            "from phobos_tools.analyzer.resources import plan\nplan(r.semantics.kernels[0], r.analyses[0]).total\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('llvmlite', 'numpy'))\n"
            "assert not bad, bad\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
