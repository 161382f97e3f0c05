"""No crash, anywhere (issue 8, the fast slice; `python benchmarks/fuzz.py` runs the long one).

Generated kernels (tests/support/phobos_gen.py: the grammar-wide generator, rules kept or broken on
purpose), damaged kernels (tokens dropped, duplicated, swapped; bytes flipped; truncation; NUL and
invalid UTF-8; huge literals; deep wrapping) and the extreme inputs go through check_source,
phobos-check in text, JSON and SARIF, phobos-build (to a temporary directory, ptxas included) and
the simulator (`unchecked`, so PH3xx-rejected kernels run too). Each must give a located error or a
result: exit 0, 1, 2 or 4, no traceback, no PH900/PH901, in bounded time (tests/support/fuzz_harness.py
states the oracles). tests/fuzz/test_malformed.py covers the front end on malformed text through
check_source and `phobos-check` (text); this file adds the other entry points and formats, and
damaged *generated* kernels.

Bugs found by fuzzing are pinned below: as regression tests once fixed, as strict xfails (and
set aside by name in the property tests, fuzz_harness.KNOWN_BUGS) while open.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import fuzz_harness as H
from phobos_gen import (BLOCK_SIZES, RandomChooser, extreme_inputs, generate, mutants_of, mutated_programs,
                        programs)
from paths import REPO
from phobos_tools.cli.build import main as build_main
from phobos_tools.cli.run import main as run_main

pytestmark = pytest.mark.fuzz

EXAMPLES = [p.read_bytes() for p in sorted((REPO / "examples").glob("*.ph"))]
FAST = settings(derandomize=True, database=None, deadline=None, max_examples=40,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
FORMATS = ("text", "json", "sarif")


def _explain(findings) -> str:
    return "\n\n".join(f"{f.short()}\n{f.detail[:1500]}\n--- source ---\n"
                       f"{f.source if isinstance(f.source, str) else (f.source or b'')[:3000]!r}"
                       for f in findings[:3])


def assert_clean(findings):
    bad = H.unexplained(findings)
    assert not bad, _explain(bad)


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with np.errstate(all="ignore"):
        yield


# ------------------------------------------------------------------ generated kernels


@FAST
@given(programs(race_free=False))
def test_generated_kernels_through_every_entry_point(tmp_path_factory, gk):
    tmp = tmp_path_factory.mktemp("gen")
    defines = {"BLK": str(gk.blocks[0])}
    fmt = FORMATS[len(gk.source) % 3]
    _, findings = H.no_crash(gk.source, tmp, fmt=fmt, defines=defines, rng=np.random.default_rng(0))
    assert_clean(findings)


@pytest.mark.parametrize("seed", range(12))
def test_seeded_kernels_through_every_entry_point(seed, tmp_path):
    """Full-size kernels (hypothesis starts small): each seed a different one, each format in turn."""
    gk = generate(random.Random(seed), race_free=False, violate=0.12, blocks=(BLOCK_SIZES[seed % 4],))
    defines = {"BLK": str(gk.blocks[0])}
    result, findings = H.no_crash(gk.source, tmp_path, fmt=FORMATS[seed % 3], defines=defines,
                                  rng=np.random.default_rng(seed))
    assert_clean(findings)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert all(d.code.startswith("PH3") for d in errors), [(d.code, d.message) for d in errors]


def test_the_generator_covers_the_grammar():
    """Across a few dozen seeds every construct the issue lists appears, and both sides of every
    per-thread rule are taken (the analysis accepts some kernels and rejects others with each code)."""
    text = ""
    codes = set()
    accepted = 0
    from phobos_tools.analyzer import check_source
    for seed in range(60):
        gk = generate(random.Random(seed), race_free=seed % 2 == 0)
        text += gk.source
        r = check_source(gk.source, "g.ph", {"BLK": str(gk.blocks[0])})
        errs = {d.code for d in r.diagnostics if d.severity == "error"}
        assert all(c.startswith("PH3") for c in errs), (seed, errs)
        codes |= errs
        accepted += not errs
    for construct in ("if ", "} else {", "} else if", "for ", "for<unroll", "while ", "while true", "break",
                      "continue", "return", "let ", "var ", "ctx.thread", "ctx.lane", "ctx.warp", "ctx.block.x",
                      "ctx.blocks.", "ctx.threads", "ctx.warps", "ctx.lanes", "C[", "A[", "s[0, ctx.thread] =",
                      "store(O[", "elem(", "sum(", "<over ctx.lane>", "<over ctx.thread>", "shfl<xor", "shfl<up",
                      "shfl<down", "shfl<idx", "u = A[", "O[cid :+ 1", "rowsum(", "rowmax(", "dot(", "dot_t(",
                      "transpose(", "tril(", "cumsum(", "barrier()", "sync2()", "atomic_add(", "atomic_max(",
                      "atomic_cas(", "load_acquire(", "store_release(", "clamp3(", "get(A", "lanesum(", "put(s",
                      "putg(O", "&&", "||", "where("):
        assert construct in text, construct
    assert {"PH301", "PH302", "PH303", "PH304", "PH305", "PH306"} <= codes, codes
    assert accepted >= 30


# ------------------------------------------------------------------ damaged kernels


@settings(FAST, max_examples=100)
@given(mutated_programs())
def test_mutated_kernels_through_check_and_build(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("mut")
    _, findings = H.no_crash(data, tmp, fmt=FORMATS[len(data) % 3], defines={"BLK": "64"},
                             simulate=True, rng=np.random.default_rng(1))
    assert_clean(findings)


def test_seeded_mutants_of_generated_kernels_and_examples(tmp_path):
    rng = random.Random(8)
    findings = []
    for i in range(150):
        ch = RandomChooser(random.Random(rng.getrandbits(64)))
        base = generate(random.Random(i), race_free=i % 2 == 0).source.encode() if i % 3 else ch.pick(EXAMPLES)
        data, _ = mutants_of(ch, base, EXAMPLES)
        result, f = H.check_api(data, {"BLK": "64"})
        findings += f
        findings += H.check_cli(H.write_input(tmp_path, data), FORMATS[i % 3], data, {"BLK": "64"})
        if i % 10 == 0:
            _, f = H.build_cli(H.write_input(tmp_path, data), tmp_path / f"o{i}", data, {"BLK": "64"})
            findings += f
    assert_clean(findings)


# ------------------------------------------------------------------ extreme inputs, the other entry points

EXTREMES = dict(extreme_inputs())
# cheap ones here (a second or less each); the long ones (4 MiB of statements, 500 kernels, a 5,000
# deep inline chain) run in benchmarks/fuzz.py
PICKED = ["deep-if-5000", "deep-for-5000", "deep-paren-5000", "deep-generic-5000", "deep-index-5000",
          "deep-run-sum-5000", "chain-plus-100000", "chain-compare-100000", "recursion", "4MiB-plus-1",
          "exactly-4MiB-comments", "literal-1M-digits", "float-1M-digits", "open-braces-100k",
          "nul-in-kernel", "bad-utf8-in-kernel"]


@pytest.mark.parametrize("name", PICKED)
def test_extreme_input_through_json_sarif_build_and_run(name, tmp_path):
    data = EXTREMES[name]
    path = H.write_input(tmp_path, data)
    findings = H.check_cli(path, "json", data) + H.check_cli(path, "sarif", data)
    status, f = H.build_cli(path, tmp_path / "out", data)
    findings += f
    assert_clean(findings)
    from phobos_tools.analyzer import check_source
    result = check_source(data)
    assert status == (0 if result.ok else 1)
    if result.ok:
        kinfo = result.semantics.kernels[0]
        status, f = H.run_cli(path, kinfo, kinfo.threads, (1,), tmp_path / "run", source=data)
        assert_clean(f)
        assert status in (0, 4)


def test_run_cli_on_generated_kernels(tmp_path):
    """phobos-run --sim (and --unchecked for rejected ones) on generated kernels: exit 0, 1 or 4."""
    from phobos_tools.analyzer import check_source
    findings = []
    for seed in range(6):
        gk = generate(random.Random(100 + seed), race_free=True)
        defines = {"BLK": str(gk.blocks[0])}
        r = check_source(gk.source, "g.ph", defines)
        path = H.write_input(tmp_path, gk.source, f"g{seed}.ph")
        status, f = H.run_cli(path, r.semantics.kernels[0], gk.blocks[0], (2,), tmp_path / f"o{seed}",
                              defines=defines, source=gk.source, unchecked=not r.ok)
        findings += f
        assert status in (0, 4)
    assert_clean(findings)


# ------------------------------------------------------------------ bugs found by fuzzing (regression tests)

MASKED_READ = """@launch(32)
kernel k(O: tensor<f32>[2, 32]) {
  O[0, ctx.thread] = 1.0
  var u: tile<f32>[4, 32] = O[0 :+ 4, 0 :+ 32]
}
"""


def test_masked_cta_read_after_per_thread_store_reports_PH303(tmp_path, capsys):
    """Found by the fuzzer (fixed in bcea99d): the race check of a masked CTA-wide read (rows 2..3
    lie outside O) indexed the race record off its end: IndexError, phobos-run exit 3."""
    path = H.write_input(tmp_path, MASKED_READ)
    status = run_main([str(path), "--sim", "--unchecked", "--grid", "1", "--arg", "O=zeros:f32:2x32",
                       "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 4 and "[PH303]" in err, (status, err)


UNUSED_ACQUIRE = """kernel k(F: tensor<i32>[8]) {
  let a = load_acquire(F[0])
}
"""


def test_unused_load_acquire_builds(tmp_path, capsys):
    """Found by the fuzzer: a `load_acquire` from a tensor the kernel never writes made LLVM's NVPTX
    instruction selection abort (SelectionDAG getOperand assertion): PH901, exit 3. Its result being
    unused did not matter: the parameter was `noalias` and LLVM inferred `readonly`, so NVPTX tried
    to turn the atomic load into a non-coherent one (ld.global.nc). Such a parameter now loses
    `noalias`, and the acquire load is still emitted."""
    path = H.write_input(tmp_path, UNUSED_ACQUIRE)
    status = build_main([str(path), "-o", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert status == 0, out + err
    ptx = (tmp_path / "out" / "k.ptx").read_text()
    assert "ld.acquire.gpu.global.b32" in ptx and "ld.global.nc" not in ptx, ptx


ACQUIRE_VARIANTS = {
    "used": ("kernel k(F: tensor<f32>[8], O: tensor<f32>[8]) {\n  let a = load_acquire(F[0])\n"
             "  O[0] = a + F[1]\n}\n", "b32", 1),
    "if": "kernel k(F: tensor<i32>[8], n: i32) {\n  if n > 2 {\n    let a = load_acquire(F[1])\n  }\n}\n",
    "for": ("kernel k(F: tensor<i32>[8]) {\n  for i in range(0, 4) {\n    let a = load_acquire(F[i])\n  }\n}\n",
            "b32", 4),
    "per-CTA address": "kernel k(F: tensor<i32>[8]) {\n  let a = load_acquire(F[ctx.block.x % 8])\n}\n",
    "i64": ("kernel k(F: tensor<i64>[8]) {\n  let a = load_acquire(F[0])\n}\n", "b64", 1),
    "f32": ("kernel k(F: tensor<f32>[8]) {\n  let a = load_acquire(F[0])\n}\n", "b32", 1),
    "bool": ("kernel k(F: tensor<bool>[8]) {\n  let a = load_acquire(F[0])\n}\n", "b8", 1),
    "store_release": ("kernel k(F: tensor<i32>[8], G: tensor<i32>[8]) {\n  let a = load_acquire(F[0])\n"
                      "  store_release(G[0], 1)\n}\n", "b32", 1),
    "inlined": ("fn peek(T: tensor<i32>[8]) {\n  let a = load_acquire(T[2])\n}\n\n"
                "kernel k(F: tensor<i32>[8]) {\n  peek(F)\n}\n", "b32", 1),
}


@pytest.mark.parametrize("name", sorted(ACQUIRE_VARIANTS))
def test_load_acquire_from_a_tensor_the_kernel_never_writes_builds(name):
    """The variants of the unused `load_acquire` above (a used result, under `if` and `for`, a
    per-CTA address, i64/f32/bool, beside a `store_release`, in an inlined function) build, ptxas
    included when it is on the PATH, and keep their acquire loads: none becomes ld.global.nc."""
    from phobos_tools.lowering.build import build_source
    v = ACQUIRE_VARIANTS[name]
    src, width, count = v if isinstance(v, tuple) else (v, "b32", 1)
    result = build_source(src, "k.ph")
    assert result.ok, [(d.code, d.message[-300:]) for d in result.diagnostics]
    ptx = result.kernels[0].ptx
    assert len(re.findall(rf"ld\.acquire\.gpu\.global\.{width}\b", ptx)) == count, ptx
    assert "ld.global.nc" not in ptx, ptx


UNCALLED_GENERIC = """fn total(t: tile<f32>[1, L]) -> f32 {
  let z = rowsum(t)
  return z[0, 0]
}

@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
"""


def test_uncalled_generic_tile_function_checks():
    """Found by the fuzzer: an uncalled function with a tile parameter of generic shape was refused
    (PH107 `rowsum` needs tiles of static shape, not [1, L]) although each call binds L to a
    constant (LANGUAGE §2: an uncalled function is only type-checked)."""
    from phobos_tools.analyzer import check_source
    called = UNCALLED_GENERIC.replace("O[0] = 1.0", "var s: tile<f32>[1, 32] = 1.0\n  O[0] = total(s)")
    assert check_source(called).ok
    result = check_source(UNCALLED_GENERIC)
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]


OVERFLOW = """@launch(32)
kernel k(A: tensor<f32>[32], O: tensor<f32>[32]) {
  var t: tile<f32>[8, 8] = 1e30
  t = dot(t, t)
  O[0 :+ 32] = A[0 :+ 32]
}
"""


def test_simulated_float_overflow_prints_no_numpy_warning(tmp_path):
    """Found by the fuzzer (fixed in bcea99d): numpy's RuntimeWarning (`overflow encountered in
    matmul`, naming the simulator's file and line) reached phobos-run's stderr."""
    import subprocess
    import sys
    path = H.write_input(tmp_path, OVERFLOW)
    done = subprocess.run([sys.executable, "-c", "import sys; from phobos_tools.cli.run import main; "
                                                 "sys.exit(main(sys.argv[1:]))", str(path), "--sim", "--grid", "1",
                           "--arg", "A=rand:f32:32", "--arg", "O=zeros:f32:32", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr, done.stderr


HUGE_UNROLL = """kernel k(A: tensor<i32>[K], C: tensor<i32>[N]) {
  var acc: i32 = 0
  for<unroll 4294967296> k in range(0, K, 4) {
    acc += A[k]
  }
  C[ctx.thread] = acc
}
"""


def test_an_unroll_factor_out_of_range_is_a_located_error():
    """Found by the fuzzer: `for<unroll N>` had a lower bound but no upper one; 2**32 reached LLVM,
    wrapped to 0 and aborted its LoopUnroll pass (PH901); 65536 took minutes to build."""
    from phobos_tools.analyzer import check_source
    result = check_source(HUGE_UNROLL)
    errors = [(d.code, d.span.line, d.message) for d in result.diagnostics if d.severity == "error"]
    assert errors == [("PH119", 3, "the unroll factor must be at most 256, not 4294967296")], errors
    assert check_source(HUGE_UNROLL.replace("4294967296", "256")).ok


def test_nested_unroll_factors_multiply_against_the_bound():
    from phobos_tools.analyzer import check_source
    nested = HUGE_UNROLL.replace("for<unroll 4294967296> k in range(0, K, 4) {",
                                 "for<unroll 8> j in range(0, 4) {\n  for<unroll 64> k in range(0, K, 4) {")
    nested = nested.replace("acc += A[k]\n  }", "acc += A[k]\n  }\n  }")
    result = check_source(nested)
    assert [(d.code, d.span.line) for d in result.diagnostics] == [("PH119", 4)], result.diagnostics
    assert "makes 512 copies of the body, more than 256" in result.diagnostics[0].message
    assert check_source(nested.replace("unroll 64", "unroll 32")).ok


INLINED_UNROLL = """fn part(A: tensor<i32>[K], base: i32) -> i32 {
  var s: i32 = 0
  for<unroll 256> k in range(0, 16) {
    s += A[base + k]
  }
  return s
}

kernel k(A: tensor<i32>[K], C: tensor<i32>[N]) {
  var acc: i32 = 0
  for<unroll 256> j in range(0, K, 16) {
    acc += part(A, j)
  }
  C[ctx.thread] = acc
}
"""


def test_unroll_factors_multiplied_through_an_inlined_function_are_bounded():
    from phobos_tools.analyzer import check_source
    result = check_source(INLINED_UNROLL, defines={"K": 4096, "N": 32})
    assert [(d.code, d.span.line) for d in result.diagnostics] == [("PH119", 3)], result.diagnostics
    assert result.diagnostics[0].notes == ["the loop at 11:14 unrolls 256 times"]


def test_the_lowering_default_unroll_gives_way_inside_a_fully_unrolled_loop():
    """A small loop without `<unroll n>` is unrolled a few times by default (emit.SMALL_LOOP_UNROLL);
    inside a loop already unrolled MAX_UNROLL times it is not, so copies stay within the bound."""
    from phobos_tools.lowering.build import build_source
    src = INLINED_UNROLL.replace("for<unroll 256> k", "for k")
    result = build_source(src, "k.ph", {"K": 4096, "N": 32}, resources=False)
    assert result.ok, [(d.code, d.message[-300:]) for d in result.diagnostics]
    counts = re.findall(r'!"llvm.loop.unroll.count", i32 (\d+)', result.kernels[0].llvm_ir)
    assert sorted(map(int, counts)) == [1, 256], counts
    alone = build_source(src.replace("for<unroll 256> j", "for j"), "k.ph", {"K": 4096, "N": 32}, resources=False)
    from phobos_tools.lowering.emit import SMALL_LOOP_UNROLL
    assert re.findall(r'!"llvm.loop.unroll.count", i32 (\d+)', alone.kernels[0].llvm_ir) == [str(SMALL_LOOP_UNROLL)]


RUN_LITERAL = """@launch(32)
kernel k(A: tensor<f32>[32]) {
  store(A[4 :+ 4], max(A[0 :+ 4], 0x%s))
}
""" % ("f" * 100)


def test_an_out_of_range_literal_in_a_run_context_is_PH104(tmp_path, capsys):
    """Found by the fuzzer: a literal beside a run escaped the range check (the scalar form was
    PH104), and a huge integer one then crashed the simulator (OverflowError, phobos-run exit 3)."""
    from phobos_tools.analyzer import check_source
    for src in (RUN_LITERAL, RUN_LITERAL.replace("max(A[0 :+ 4], 0x" + "f" * 100 + ")", "A[0 :+ 4] * 1e39")):
        result = check_source(src)
        assert [d.code for d in result.diagnostics] == ["PH104"], [(d.code, d.message) for d in result.diagnostics]
    path = H.write_input(tmp_path, RUN_LITERAL)
    status = run_main([str(path), "--sim", "--grid", "1", "--arg", "A=rand:f32:32", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 1 and "error[PH104]" in out + err and "Traceback" not in out + err, (status, out, err)
