"""The UI fixtures: every `.ph` file under tests/ui/ is a kernel that carries its expectations in
`//~` markers (tests/support/markers.py, the suite's one grammar) and whose diagnostics, as
`phobos-check` prints them in its text format, are pinned by the snapshot beside it (`NAME.txt`;
`pytest --bless` writes it). One test per fixture checks both.

Folders by what the fixtures pin: syntax/ (PH0xx), sema/ (names, types, shapes, attributes:
PH1xx, PH2xx), analysis/ (the per-thread analysis: kinds, control, the rules PH301-PH306, loops
and z3, functions, chains), hints/ (the notes and help for common mistakes), spec_kernels/ (the
kernels of per-thread-values.md, verbatim). tests/spec_conformance/ holds the conformance suite's
own fixtures, judged by the same harness.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kernel_fixtures as kf
from phobos_tools.analyzer.diagnostics import CODES

HERE = Path(__file__).resolve().parent
FIXTURES = kf.fixture_paths(HERE)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: kf.fixture_id(p, HERE))
def test_fixture(path, bless):
    """The markers hold (a known gap is an expected failure), and the snapshot matches."""
    status, detail = kf.verdict(path)
    snapshot = kf.check_snapshot(path, bless, where=f"tests/ui/{kf.fixture_id(path, HERE)}")
    if status == "fail":
        pytest.fail(f"{kf.fixture_id(path, HERE)}: {detail}", pytrace=False)
    if snapshot:
        pytest.fail(snapshot, pytrace=False)
    if status == "xfail":
        pytest.xfail(detail)


def test_every_fixture_is_valid_and_locates_what_it_reports():
    """No marker is malformed, no fixture reaches an internal error, and every diagnostic names a
    known code and a span that starts where it ends or before."""
    problems = []
    for path in FIXTURES:
        c = kf.checked(path)
        problems += [f"{path.name}: {p}" for p in c.expectations.problems]
        for d in c.result.diagnostics:
            if d.code.startswith("PH9") or d.code not in CODES or d.name != CODES[d.code][0]:
                problems.append(f"{path.name}: {d.code} {d.message}")
            if (d.span.end_line, d.span.end_column) < (d.span.line, d.span.column):
                problems.append(f"{path.name}: {d.code} ends before it starts: {tuple(d.span)}")
    assert not problems, problems


def test_no_snapshot_without_its_fixture(bless):
    orphans = kf.orphan_snapshots(HERE)
    if bless:
        for p in orphans:
            p.unlink()
        return
    assert not orphans, f"snapshots whose fixture is gone (`pytest --bless` removes them): {orphans}"
