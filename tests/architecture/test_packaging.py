"""What a wheel would hold: pyproject.toml lists the packages one by one (the repository root
installs as ``phobos_tools``), so a new folder that is left out works in a checkout and is missing
from an installed wheel. Every folder of the package with an ``__init__.py`` must be listed."""

from __future__ import annotations

import tomllib

from paths import REPO

SKIP = {"tests", "benchmarks", "docs", "examples", "editors", "build", "dist"}


def _package_folders() -> set[str]:
    found = {"phobos_tools"}
    for init in REPO.rglob("__init__.py"):
        rel = init.parent.relative_to(REPO)
        if not rel.parts or rel.parts[0] in SKIP or rel.parts[0].startswith(".") or "egg-info" in rel.parts[0]:
            continue
        found.add(".".join(("phobos_tools",) + rel.parts))
    return found


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    assert _package_folders() - listed == set()
    assert listed - _package_folders() == set()
