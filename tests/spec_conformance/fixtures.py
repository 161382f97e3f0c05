"""The conformance fixtures: where they are, and how one is judged. A fixture is read with the one
`//~` grammar of the suite (tests/support/markers.py) and checked by the fixture harness
(tests/support/kernel_fixtures.py), under the suite's stricter reading: only the per-thread codes
(PH3xx) may appear, and the kernel must reach the per-thread analysis."""

from __future__ import annotations

from pathlib import Path

import kernel_fixtures
from markers import compare, judge

ROOT = Path(__file__).resolve().parent


def fixture_paths() -> list[Path]:
    return kernel_fixtures.fixture_paths(ROOT)


def fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def check_text(text: str, path: str = "<fixture>"):
    """(Outcome, CheckResult) for a fixture's text."""
    from phobos_tools.analyzer import check_source

    result = check_source(text, path)
    return compare(text, result, per_thread_only=True), result


def verdict(path: Path, fresh: bool = True):
    """('pass' | 'xfail' | 'fail', detail) for one fixture file; ``fresh`` checks it again (a mutant
    of the analysis is in force) instead of reusing the suite's result."""
    return kernel_fixtures.verdict(path, per_thread_only=True, fresh=fresh)


__all__ = ["ROOT", "check_text", "fixture_id", "fixture_paths", "judge", "verdict"]
