"""The mutation check, fast: every deliberately broken variant of the analysis
(tests/spec_conformance/mutants.py) is caught by at least one conformance fixture, i.e. some
fixture's verdict changes. `python benchmarks/mutation_check.py` prints the full table (how many
fixtures and matrix rows catch each mutant)."""

from __future__ import annotations

import pytest

from spec_conformance.fixtures import fixture_id, fixture_paths
from spec_conformance.mutants import MUTANTS, baseline, catchers

pytestmark = pytest.mark.fuzz

PATHS = fixture_paths()


@pytest.fixture(scope="module")
def base():
    return baseline(PATHS)


def test_the_real_analyzer_passes_the_suite(base):
    failing = [fixture_id(p) for p, v in base.items() if v == "fail"]
    assert not failing, f"fixtures fail on the real analyzer: {failing}"


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_mutant_is_caught(mutant, base):
    assert catchers(mutant, PATHS, base, first_only=True), \
        f"no fixture catches the mutant `{mutant.name}` ({mutant.what}): add one"


def test_mutants_leave_nothing_behind(base):
    """Each patch is undone on exit: the verdicts afterwards are the baseline's."""
    for mutant in MUTANTS:
        with mutant.patch():
            pass
    assert baseline(PATHS) == base
