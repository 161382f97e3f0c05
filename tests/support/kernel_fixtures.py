"""The harness of the `.ph` fixtures, the UI fixtures (tests/ui/) and the conformance fixtures
(tests/spec_conformance/) alike: check a fixture file, compare it with its `//~` markers
(markers.py, the one grammar), and compare its rendered diagnostics with the snapshot beside it.

A snapshot, `NAME.txt` next to `NAME.ph`, holds exactly what `phobos-check NAME.ph` prints in its
text format (docs/output-formats.md): every diagnostic, notes included, in position order, one
block each, the file named by its base name. A fixture that prints nothing has no snapshot. A
missing, stale or extra snapshot fails; blessing (`pytest --bless`, or PHOBOS_BLESS=1 in the
environment) writes, rewrites or removes it instead, as rustc's UI tests do, and the change is
then reviewed in the diff like any other. Outside the lints' own fixtures, a snapshot leaves
out the lints that the markers do not count (markers.counted), as the comparison does.
"""

from __future__ import annotations

import difflib
import functools
import os
from dataclasses import dataclass
from pathlib import Path

from markers import Expectations, Outcome, compare, counted, judge, parse
from phobos_tools.analyzer import ALL_LINTS, check_source
from phobos_tools.analyzer.diagnostics.text import render_text

SNAPSHOT_SUFFIX = ".txt"
BLESS_ENV = "PHOBOS_BLESS"
HOW_TO_BLESS = f"`pytest --bless {{where}}` (or {BLESS_ENV}=1) writes it; review the diff before committing"


def fixture_paths(root: Path) -> list[Path]:
    return sorted(root.rglob("*.ph"))


def fixture_id(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


@dataclass(frozen=True)
class Checked:
    text: str
    expectations: Expectations
    result: object          # the CheckResult


def check_fixture(path: Path) -> Checked:
    """Check one fixture file as phobos-check would (its bytes, with its `//@` flags)."""
    data = path.read_bytes()
    text = data.decode("utf-8", "replace")
    exp = parse(text)
    kw = {"arch": exp.arch} if exp.arch else {}
    # every lint, as phobos-check reports them; the markers count them where DESIGN.md says
    result = check_source(data, path.name, exp.defines or None, lints=ALL_LINTS, **kw)
    return Checked(text, exp, result)


# the suite checks each fixture once however many tests read it (a mutant run calls check_fixture)
checked = functools.lru_cache(maxsize=None)(check_fixture)


def lint_fixture(path: Path) -> bool:
    """A lint's own fixture: under a folder named after a lint code (`PH501_unused_binding/`),
    where every line is checked for lints too (markers.counted)."""
    return any(part[:3] == "PH5" and part[3:5].isdigit() for part in path.parent.parts)


def outcome(path: Path, per_thread_only: bool = False, fresh: bool = False) -> Outcome:
    c = (check_fixture if fresh else checked)(path)
    return compare(c.text, c.result, c.expectations, per_thread_only=per_thread_only, lints=lint_fixture(path))


def verdict(path: Path, per_thread_only: bool = False, fresh: bool = False):
    """('pass' | 'xfail' | 'fail', detail) for one fixture file."""
    return judge(outcome(path, per_thread_only, fresh))


# ---------------------------------------------------------------- snapshots


def render(result, name: str, diagnostics: list | None = None) -> str:
    """What `phobos-check NAME` prints on stdout in the text format (cli/check.py: one block per
    diagnostic in (line, column, code) order, a blank line between blocks): of ``diagnostics``
    when given (the snapshot leaves out the lints the markers do not count, markers.counted)."""
    shown = result.diagnostics if diagnostics is None else diagnostics
    diags = sorted(shown, key=lambda d: (d.span.line, d.span.column, d.code))
    return "".join(("\n" if i else "") + render_text(d, name, result.text) + "\n" for i, d in enumerate(diags))


def snapshot_path(path: Path) -> Path:
    return path.with_suffix(SNAPSHOT_SUFFIX)


def bless_requested(option: bool = False) -> bool:
    return option or os.environ.get(BLESS_ENV, "") not in ("", "0")


def check_snapshot(path: Path, bless: bool, where: str = "tests/ui") -> str | None:
    """Compare the fixture's rendered diagnostics with its snapshot. Returns None when they agree
    (or after blessing), else the failure to report."""
    c = checked(path)
    rendered = render(c.result, path.name, counted(c.result, c.expectations, lint_fixture(path)))
    snap = snapshot_path(path)
    have = snap.read_text(encoding="utf-8") if snap.exists() else None
    if have == (rendered or None):
        return None
    if bless:
        if rendered:
            snap.write_text(rendered, encoding="utf-8")
        else:
            snap.unlink()
        return None
    hint = HOW_TO_BLESS.format(where=where)
    if have is None:
        return f"{path.name} prints diagnostics but has no snapshot {snap.name}: {hint}\n\n{rendered}"
    if not rendered:
        return f"{path.name} prints nothing, but {snap.name} exists: {hint} (blessing removes it)"
    diff = "".join(difflib.unified_diff(have.splitlines(True), rendered.splitlines(True),
                                        f"{snap.name} (snapshot)", f"{path.name} (phobos-check now)"))
    return f"{path.name}'s diagnostics differ from {snap.name}: {hint}\n\n{diff}"


def orphan_snapshots(root: Path) -> list[Path]:
    """Snapshots whose fixture is gone."""
    return sorted(p for p in root.rglob(f"*{SNAPSHOT_SUFFIX}") if not p.with_suffix(".ph").exists())
