"""Every command bounded in time and memory (issue 18), measured on the shapes that used to run
for minutes or gigabytes: the inlining bound counted in statements (PH008, with the chain of
calls), the build's bound after unrolling (PH213), z3's budget per kernel (said in each
diagnostic it leaves undecided), path analysis on `while` loops, the simulator's clamped slices
and its work bound (PH405, `--max-steps` / `max_steps=`)."""

from __future__ import annotations

import numpy as np
import pytest

from hostile_shapes import run, shapes
from paths import EXAMPLES
from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.checked import check_source as checked_source
from phobos_tools.language.arguments import ArgumentError, bind
from phobos_tools.run import DynamicCheckFailed, loads
from phobos_tools.simulator import Options, simulate
from phobos_tools.simulator.launch import params_of
from phobos_tools.simulator.machine import DEFAULT_MAX_STEPS

pytestmark = pytest.mark.slow

NEST = """\
@launch(32)
kernel nest(O: tensor<f32>[32]) {
  var s = 0.0
  for i in range(0, 200000) {
    for j in range(0, 200000) {
      s += 1.0
    }
  }
  O[ctx.thread] = s
}
"""


def test_functions_that_double_14_times_are_ph008_quickly_with_the_chain(tmp_path):
    f = tmp_path / "doubling.ph"
    f.write_text(shapes.doubling_calls(7))           # 3 KB: 16,383 calls of 8 statements each
    ran = run("phobos-check", str(f), cpu_limit=60, mem_limit_mb=2048)
    assert ran.status == 1
    assert "error[PH008]: more than 20,000 statements inlined into kernel `k`" in ran.out
    assert "(`k` -> `g13` -> `g12` -> `g11` -> ... -> `g2` -> `g1` -> `g0`)" in ran.out
    assert ran.cpu < 10 and ran.peak_mb < 400, (ran.cpu, ran.peak_mb)


def test_the_inlining_bound_counts_statements_not_calls():
    body = "".join(f"  let v{i} = x * {i}\n" for i in range(200))
    fn = f"fn g(x: i32) -> i32 {{\n{body}  return v1\n}}\n"
    calls = "".join(f"  O[{i % 32}] = f32(g({i}))\n" for i in range(99))        # 99 x 202 < 20,000
    kernel = "@launch(32)\nkernel k(O: tensor<f32>[32]) {\n" + calls + "}\n"
    assert "PH008" not in [d.code for d in check_source(fn + kernel, "t.ph").diagnostics]
    more = kernel.replace("}\n", "  O[0] = f32(g(1))\n}\n")                        # 100 x 202 > 20,000
    [d] = [d for d in check_source(fn + more, "t.ph").diagnostics if d.code == "PH008"]
    assert "(`k` -> `g`)" in d.message and d.span.line == 305, d.message    # the 100th call


@pytest.mark.slow
def test_unroll_256_around_1000_statements_is_ph213_in_the_build(tmp_path):
    f = tmp_path / "unrolled.ph"
    f.write_text(shapes.unrolled_body(1000))
    ran = run("phobos-build", str(f), "-o", str(tmp_path), cpu_limit=60, mem_limit_mb=2048)
    assert ran.status == 1, ran.err
    assert "error[PH213]: kernel `k` is too large to build" in ran.out + ran.err
    assert "unrolled 256 times" in ran.out + ran.err
    assert ran.cpu < 15, ran.cpu


@pytest.mark.slow
def test_a_z3_heavy_file_finishes_within_its_budget_and_says_so(tmp_path):
    f = tmp_path / "pairs.ph"
    f.write_text(shapes.z3_loop_pairs(8))              # 1.3 KB: used to take 95 s
    ran = run("phobos-check", str(f), cpu_limit=60)
    assert ran.status == 1
    assert ran.out.count("error[PH303]") == 8
    assert ran.out.count("z3's budget for this kernel ran out before it decided whether this path can "
                         "be taken, so it is kept") == 8
    assert ran.cpu < 15, ran.cpu


def test_the_budget_is_per_kernel_so_one_kernel_does_not_change_another_s_verdict():
    hard = shapes.z3_many_kernels(1)
    clean = ("@launch(32)\nkernel easy(A: tensor<f32>[1, 32], n: i32) {\n"
             "  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]\n  t[0, ctx.lane] = 1.0\n"
             "  if n > 5 && n < 3 { A[0 :+ 1, 0 :+ 32] = t }\n}\n")
    alone = [d.code for d in check_source(clean, "t.ph").diagnostics]
    together = check_source(hard * 1 + clean, "t.ph").diagnostics
    assert alone == [] and [d.code for d in together if d.span.line > 6] == []


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["while_sequence", "while_nest"])
def test_path_analysis_of_100_kb_of_while_loops_is_bounded(tmp_path, shape):
    _n, src = shapes.grown(getattr(shapes, shape), 100)
    f = tmp_path / f"{shape}.ph"
    f.write_text(src)
    ran = run("phobos-check", str(f), cpu_limit=90, mem_limit_mb=2048)
    assert ran.status == 1, ran.err[-500:]
    assert ran.peak_mb < 500, ran.peak_mb             # was 2.5 GB, and 200 KB a MemoryError
    assert ran.cpu < 30, ran.cpu


# ---------------------------------------------------------------- the simulator

@pytest.mark.parametrize("copy", [
    "O[0 :+ 1, 0 :+ 2147483647] = A[0 :+ 1, 0 :+ 2147483647]",
    "O[0 :+ 1, 0 :+ 2147483647] = A[0 :+ 1, 0 :+ 2147483647] * 2.0 + exp(A[0 :+ 1, 0 :+ 2147483647])",
])
def test_a_slice_of_2_gi_elements_is_clamped_before_anything_is_allocated(tmp_path, copy):
    f = tmp_path / "k.ph"
    f.write_text(f"@launch(32)\nkernel k(A: tensor<f32>[1, N], O: tensor<f32>[1, N]) {{\n  {copy}\n}}\n")
    assert len(f.read_bytes()) <= 131 or "exp" in copy
    ran = run("phobos-run", "--sim", "--grid", "1", str(f), "--arg", "A=rand:f32:1x64", "--arg", "O=zeros:f32:1x64",
              "--out", str(tmp_path), mem_limit_mb=1024)
    assert ran.status == 0, ran.err
    # the slice asked for 8 GiB; the child runs under a 1 GiB address-space limit, and its peak
    # (300 to 340 MB: the interpreter, numpy and the checker) is a small part of that
    assert ran.peak_mb < 600, ran.peak_mb
    a, o = np.load(tmp_path / "A.npy"), np.load(tmp_path / "O.npy")
    want = a if "exp" not in copy else a * 2 + np.exp(a)
    assert np.allclose(o, want)


def test_nested_loops_of_200000_stop_at_the_work_bound_of_phobos_run(tmp_path):
    f = tmp_path / "nest.ph"
    f.write_text(NEST)
    ran = run("phobos-run", "--sim", "--grid", "1", str(f), "--arg", "O=zeros:f32:32", "--max-steps", "5000",
              "--out", str(tmp_path), cpu_limit=60)
    assert ran.status == 4, ran.err
    assert "error[PH405]: the launch has run 5,000 steps, the simulator's limit, and is still running this loop" \
        in ran.err
    assert "nest.ph:4:3:" in ran.err                     # the outermost loop
    assert not (tmp_path / "O.npy").exists()


@pytest.mark.parametrize("bad", ["0", "-5", "x", "²", "1e9", "9" * 30, ""])
def test_a_bad_max_steps_is_a_usage_error(tmp_path, bad):
    f = tmp_path / "nest.ph"
    f.write_text(NEST)
    ran = run("phobos-run", "--sim", "--grid", "1", str(f), "--arg", "O=zeros:f32:32", f"--max-steps={bad}",
              "--out", str(tmp_path))
    assert ran.status == 2 and ran.err.startswith("phobos-run: error: argument --max-steps"), ran.err


def test_max_steps_is_for_the_simulator_only(tmp_path):
    ran = run("phobos-run", "--gpu", "--grid", "1", str(EXAMPLES / "gelu.ph"), "--arg", "X=rand:f16:4x8",
              "--arg", "Y=zeros:f16:4x8", "--max-steps", "5", "--out", str(tmp_path))
    assert ran.status == 2 and "--max-steps bounds the simulator only" in ran.err


def test_max_steps_of_the_python_api():
    kernel = loads(NEST, "nest.ph").kernel()
    with pytest.raises(DynamicCheckFailed) as e:
        kernel(np.zeros(32, np.float32), grid=1, max_steps=3000)
    d = e.value.diagnostic
    assert d.code == "PH405" and "3,000 steps" in d.message and d.span.line == 4
    for bad in (0, -1, True, 2.5, "10"):
        with pytest.raises(ArgumentError, match="max_steps is a positive integer"):
            kernel(np.zeros(32, np.float32), grid=1, max_steps=bad)


def test_max_steps_of_the_simulator_api():
    checked = checked_source(NEST, "nest.ph")
    [kinfo] = checked.kernels
    out = np.zeros(32, np.float32)
    bound = bind("nest", params_of(kinfo), kinfo.extents, (out,), {})
    with pytest.raises(DynamicCheckFailed) as e:
        simulate(kinfo, bound, (1,), Options(max_steps=2000))
    assert e.value.code == "PH405" and "2,000 steps" in e.value.diagnostic.message


def test_the_default_work_bound_is_the_documented_one():
    assert DEFAULT_MAX_STEPS == Options().max_steps == 100_000_000
    for doc in ("cli.md", "simulator.md", "python-api.md"):
        assert "100,000,000" in (EXAMPLES.parent / "docs" / doc).read_text(), doc
