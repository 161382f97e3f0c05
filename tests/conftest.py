"""The suite's tiers and the snapshot option.

Tiers: a plain `pytest` runs the fast tier only; the tests marked `slow`, `fuzz`, `ptxas` or `gpu`
(pyproject.toml registers them) are deselected unless `-m` chooses some other way, `--all` asks
for everything, or the command line names single tests (`path::test`). The terminal summary then
says how to run the rest. docs/testing.md, "Tiers", has the table.

Snapshots: `pytest --bless` (or PHOBOS_BLESS=1) rewrites the snapshot of every fixture run
instead of failing on it (tests/support/kernel_fixtures.py).
"""

from __future__ import annotations

import pytest

import kernel_fixtures

SLOW_TIERS = ("slow", "fuzz", "ptxas", "gpu")
FAST_TIER = " and ".join(f"not {m}" for m in SLOW_TIERS)


def pytest_addoption(parser):
    group = parser.getgroup("phobos-tools")
    group.addoption("--all", action="store_true", dest="phobos_all",
                    help=f"run every tier: also the tests marked {', '.join(SLOW_TIERS)} (a plain `pytest` "
                         "runs the fast tier only)")
    group.addoption("--bless", action="store_true", dest="phobos_bless",
                    help="write the fixtures' snapshots (NAME.txt beside NAME.ph) instead of failing "
                         f"on a difference (or set {kernel_fixtures.BLESS_ENV}=1)")


def pytest_configure(config):
    config._phobos_fast_tier = False
    if config.option.phobos_all or config.option.markexpr:
        return
    if any("::" in arg for arg in config.args):
        return          # single tests named on the command line run whatever their tier
    config.option.markexpr = FAST_TIER
    config._phobos_fast_tier = True


@pytest.fixture(scope="session")
def bless(pytestconfig) -> bool:
    """Whether snapshots are to be written instead of compared."""
    return kernel_fixtures.bless_requested(pytestconfig.option.phobos_bless)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not getattr(config, "_phobos_fast_tier", False):
        return
    deselected = len(terminalreporter.stats.get("deselected", []))
    terminalreporter.write_line(
        f"fast tier only: {deselected} tests marked {'/'.join(SLOW_TIERS)} deselected; "
        "`pytest --all` runs every tier (docs/testing.md, \"Tiers\")")
