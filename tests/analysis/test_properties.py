"""Properties of the per-thread analysis on generated kernels (tests/support/phobos_gen.py):

- monotonicity: adding an assignment of `ctx.lane` to a var never lowers any binding's kind
  (LANGUAGE §9.1, §9.9: every kind is a join), and, since every rule fires on "not uniform",
  never removes a verdict;
- order independence: the kinds and the verdicts do not depend on the order in which the facts
  were emitted (the least fixpoint is unique; paths and z3 do not care about order).

Hypothesis runs derandomized, at most 100 examples each, so the suite stays fast and repeatable.
"""

from __future__ import annotations

import dataclasses
import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from paths import SPEC_KERNELS
from phobos_tools.analyzer.api import check_source
from phobos_tools.analyzer.facts import Facts
from phobos_tools.analyzer.facts.derive import solve
from phobos_tools.analyzer.rules import run as run_rules

from analysis_expect import KIND_RANK, codes_lines, front_end_clean
from phobos_gen import HEADER, kernels
import pytest

pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=100, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])

BODY_START = HEADER.count("\n")        # lines 1..BODY_START are the header; the body follows


def _insertion_points(src: str) -> list[int]:
    """0-based indices of body lines that begin a statement: inserting a statement before one
    of them, at its indentation, keeps the program valid."""
    lines = src.splitlines()
    out = []
    for i in range(BODY_START, len(lines)):
        s = lines[i].strip()
        if s and not s.startswith("}"):
            out.append(i)
    return out


@SETTINGS
@given(kernels(), st.data())
def test_assigning_ctx_lane_never_lowers_a_kind(src, data):
    before = check_source(src)
    assume(front_end_clean(before))
    points = _insertion_points(src)
    assume(points)
    at = data.draw(st.sampled_from(points), label="insert before line index")
    var = data.draw(st.sampled_from(["v0", "v1", "v2"]), label="var")
    lines = src.splitlines()
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    new_src = "\n".join(lines[:at] + [f"{indent}{var} = ctx.lane"] + lines[at:]) + "\n"
    after = check_source(new_src)
    assert front_end_clean(after), [(d.code, d.message) for d in after.diagnostics]
    # the inserted line shifts every row after it by one; the rows keep their order
    assert [r["name"] for r in after.kinds] == [r["name"] for r in before.kinds]
    for old, new in zip(before.kinds, after.kinds):
        assert KIND_RANK[new["kind"]] >= KIND_RANK[old["kind"]], (old, new, new_src)
    assert KIND_RANK[next(r["kind"] for r in after.kinds if r["name"] == var)] == 2
    # every rule fires on "not uniform", so no verdict goes away
    inserted_line = at + 1
    shifted = {(c, l + 1 if l >= inserted_line else l) for c, l in codes_lines(before)}
    assert shifted <= codes_lines(after), new_src


def _shuffled(facts: Facts, rng: random.Random) -> None:
    """Shuffle every emitted relation in place (values and ops are indexed by id: kept)."""
    for f in dataclasses.fields(Facts):
        if f.name in ("values", "ops", "cfg", "value_of", "_atoms", "derived"):
            continue
        value = getattr(facts, f.name, None)
        if isinstance(value, list):
            rng.shuffle(value)
        elif isinstance(value, dict):
            items = list(value.items())
            rng.shuffle(items)
            setattr(facts, f.name, dict(items))


def _verdicts(diags) -> set:
    return {(d.code, tuple(d.span)) for d in diags}


@SETTINGS
@given(kernels(), st.integers(0, 2**32 - 1))
def test_verdicts_do_not_depend_on_the_order_of_facts(src, seed):
    result = check_source(src)
    assume(front_end_clean(result))
    rng = random.Random(seed)
    for ka in result.analyses:
        facts = ka.facts
        base_kinds = dict(facts.derived.kind)
        base_stores = {id(s) for s in facts.derived.per_thread_stores}
        base = _verdicts(run_rules(facts))
        for _ in range(2):
            _shuffled(facts, rng)
            facts.derived = solve(facts)
            assert {k: v for k, v in facts.derived.kind.items() if v} == \
                {k: v for k, v in base_kinds.items() if v}
            assert {id(s) for s in facts.derived.per_thread_stores} == base_stores
            assert _verdicts(run_rules(facts)) == base
    # and the verdicts of the whole check are exactly those of the rules on the facts
    per_thread = {(d.code, tuple(d.span)) for d in result.diagnostics if d.code.startswith("PH30")}
    recomputed = set()
    for ka in result.analyses:
        recomputed |= _verdicts(run_rules(ka.facts))
    assert recomputed == per_thread


FIXED = sorted(SPEC_KERNELS.glob("*.ph"))

LOOPY = """
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  for o in range(0, 2) {
    for r in range(0, 4) {
      O[r :+ 1, 0 :+ 32] = t
      if r == 3 {
        t[0, ctx.lane] = A[r, ctx.lane]
      }
    }
  }
  barrier()
  for r in range(0, 4) {
    if r > 0 {
      O[r :+ 1, 0 :+ 32] = t
    }
    if r == 0 {
      t[0, ctx.lane] = A[r, ctx.lane]
    }
    if ctx.lane == r {
      break
    }
    barrier()
  }
  var n = 0
  while n < 4 {
    O[0 :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = 1.0
    n += 1
  }
}
"""


def test_order_independence_on_fixed_kernels_with_back_edge_paths():
    sources = [p.read_text() for p in FIXED] + [LOOPY]
    saw_back_edge = False
    for src in sources:
        result = check_source(src)
        assert front_end_clean(result)
        for ka in result.analyses:
            facts = ka.facts
            saw_back_edge |= any(u[4] is not None for u in facts.derived.unsynced)
            base = _verdicts(run_rules(facts))
            base_kinds = {k: v for k, v in facts.derived.kind.items() if v}
            for seed in range(5):
                _shuffled(facts, random.Random(seed))
                facts.derived = solve(facts)
                assert {k: v for k, v in facts.derived.kind.items() if v} == base_kinds
                assert _verdicts(run_rules(facts)) == base, src
    assert saw_back_edge
