"""Soundness of the per-thread analysis against the simulator (issue 8, the fast slice).

For race-free, terminating generated kernels (tests/support/phobos_gen.py, ``race_free=True``: per-thread
stores and reads only of a thread's own elements, a neighbour's only right after a barrier; bounded
loops; indices masked into bounds) that phobos-check accepts, the simulator, on random inputs at
several grids and block sizes, must never fire its PH301-PH306 checks (the analysis promised they
hold), nor PH401 (the generator promised no racy point read, LANGUAGE §9.8), nor PH402/PH405/PH406
(the generator promised in-bounds, terminating, non-zero divisors). Each accepted program is also
built once (LLVM and ptxas). Kernels the analysis rejects run ``unchecked``; when the simulator sees
nothing wrong on them, that is the price of a static analysis: counted in benchmarks/fuzz.py, not
asserted here.

`python benchmarks/fuzz.py --phases soundness` runs the long version.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import fuzz_harness as H
from phobos_gen import generate, programs
from phobos_tools.analyzer import check_source

pytestmark = pytest.mark.fuzz

FAST = settings(derandomize=True, database=None, deadline=None, max_examples=40,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
GENERATOR_PROMISES = ("PH401", "PH402", "PH405", "PH406")


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with np.errstate(all="ignore"):
        yield


def _check(outcomes, findings):
    bad = H.unexplained(findings)
    assert not bad, "\n\n".join(f"{f.short()}\n{f.detail[:1500]}\n--- source ({f.defines}) ---\n{f.source}"
                                for f in bad[:2])
    for o in outcomes:
        for r in o.runs:
            assert r.code not in GENERATOR_PROMISES, f"block {o.block}, grid {r.grid}: {r.message}"


@FAST
@given(programs(race_free=True))
def test_accepted_race_free_kernels_pass_the_dynamic_checks(gk):
    outcomes, findings = H.soundness(gk, np.random.default_rng(len(gk.source)), build=False)
    _check(outcomes, findings)


def test_seeded_race_free_kernels_are_sound_built_and_simulated():
    """Full-size kernels from fixed seeds, every block size they declare, two grids each."""
    accepted = built = runs = 0
    for seed in range(25):
        gk = generate(random.Random(seed), race_free=True)
        outcomes, findings = H.soundness(gk, np.random.default_rng(seed))
        _check(outcomes, findings)
        accepted += sum(o.accepted for o in outcomes)
        built += sum(o.built == "ok" for o in outcomes)
        runs += sum(len(o.runs) for o in outcomes if o.accepted)
    assert accepted >= 20 and built >= 8 and runs >= 40, (accepted, built, runs)


def test_neighbour_reads_after_a_barrier_are_not_races():
    """§9.8: reading another thread's element right after a barrier is no race; the simulator agrees."""
    src = """@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  var s: tile<f32>[1, 64] = 0.0
  for j in range(0, 3) {
    s[0, ctx.thread] = A[ctx.thread] + f32(j)
    barrier()
    let n = s[0, (ctx.thread + 1) & 63]
    barrier()
    O[ctx.thread] = n
  }
}
"""
    from fuzz_harness import GRIDS
    from phobos_tools.run import loads
    k = loads(src).kernel()
    A = np.arange(64, dtype=np.float32)
    O = np.zeros(64, np.float32)
    k(A, O, grid=GRIDS[0])
    assert np.array_equal(O, np.roll(A, -1) + 2.0)


# ------------------------------------------------------------------ counterexamples found by fuzzing (fixed)

WHILE_CONDITION = {
    "PH306": "while w < ctx.lane + sum<over ctx.thread>(0) {",
    "PH305": "while w < ctx.lane + sum<over ctx.lane>(1) - 32 {",
    "PH304": "while w < ctx.lane + shfl<idx 0>(1) - 1 {",
    "PH301": "while w < (ctx.lane & 7) + atomic_add(F[0], 0) {",
}


def _while_kernel(cond: str) -> str:
    return f"""@launch(64)
kernel k(F: tensor<i32>[8], O: tensor<i32>[64]) {{
  var w = 0
  {cond}
    w += 1
  }}
  O[ctx.thread] = w
}}
"""


@pytest.mark.parametrize("code", sorted(WHILE_CONDITION))
def test_the_simulator_sees_the_while_condition_counterexample(code):
    """The dynamic side of the gap below: the op runs again only in the threads still in the loop."""
    from phobos_tools.run import DynamicCheckFailed, loads
    k = loads(_while_kernel(WHILE_CONDITION[code]), unchecked=True).kernel()
    with pytest.raises(DynamicCheckFailed) as e:
        k(np.zeros(8, np.int32), np.zeros(64, np.int32), grid=(1,))
    assert e.value.code == code


@pytest.mark.parametrize("code", sorted(WHILE_CONDITION))
def test_an_op_in_a_varying_while_condition_is_rejected(code):
    """Found by the fuzzer (fixed in 1afde3f; fixtures PH30x/fires_in_varying_while_condition.ph): the
    second and later tests of a while condition run only in the threads still in the loop."""
    result = check_source(_while_kernel(WHILE_CONDITION[code]))
    assert code in {d.code for d in result.diagnostics}, [(d.code, d.message) for d in result.diagnostics]


# ------------------------------------------------------------------ simulator bugs found by fuzzing (fixed)

NAN_STORE = """@launch(32)
kernel k(O: tensor<f32>[1, 32], x: f32) {
  var u: tile<f32>[1, 32] = 0.0
  u[0, 0] = sqrt(x)
  O[0 :+ 1, 0 :+ 32] = u
}
"""


def test_a_uniform_store_of_nan_is_not_a_per_thread_store():
    """Found by the fuzzer (fixed in bcea99d): a store uniform in value, index and control whose value
    is NaN counted as a per-thread store (values compared with ==, and NaN != NaN), so the CTA-wide
    read after it fired PH303 on a kernel the analysis rightly accepts (LANGUAGE §9.4)."""
    from phobos_tools.run import loads
    assert check_source(NAN_STORE).ok
    k = loads(NAN_STORE).kernel()
    O = np.zeros((1, 32), np.float32)
    k(O, -1.0, grid=(1,))                        # sqrt(-1) is NaN in every thread
    assert np.isnan(O[0, 0]) and not O[0, 1:].any()


def test_a_point_read_of_a_uniform_nan_store_is_no_race():
    """The same NaN store read back by point was reported as a racy point read (PH401)."""
    from phobos_tools.run import loads
    src = NAN_STORE.replace("O[0 :+ 1, 0 :+ 32] = u", "O[0, ctx.thread] = u[0, 0]")
    assert check_source(src).ok
    k = loads(src).kernel()
    O = np.zeros((1, 32), np.float32)
    k(O, -1.0, grid=(1,))
    assert np.isnan(O).all()


# ------------------------------------------------------------------ a tile operation before a call in a slice offset

@pytest.mark.parametrize("seed", [179, 481])
def test_a_tile_operation_before_a_barrier_call_in_a_slice_offset(seed):
    """The generator's `slice-call` shape (fixed in 9a914b9, fixture
    PH303/fires_operand_before_call_in_slice_subscript.ph, which the fuzzer did not write before):
    `rowsum(s[..]) + u[0 :+ 1, (synci(..) & 0) :+ 8]` runs `rowsum` before the call's barrier
    (LANGUAGE §6), so it reads the per-thread stores just made to `s` (PH303). On the code before
    the fix these two seeds were accepted and the simulator fired PH303 on them."""
    gk = generate(random.Random(seed), race_free=True)
    assert "slice-call" in gk.shapes
    assert "PH303" in {d.code for d in check_source(gk.source).diagnostics}
    outcomes, findings = H.soundness(gk, np.random.default_rng(seed), build=False)
    _check(outcomes, findings)
    assert any(r.code == "PH303" for o in outcomes for r in o.runs), [(r.code, r.message) for o in outcomes for r in o.runs]
