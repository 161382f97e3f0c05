"""The lint registry: every module ``phXXX_*.py`` in this package is a lint (PH501-PH505),
discovered automatically, in the house style of the rules (analyzer/rules/registry.py): its
docstring is the ``phobos-check --explain CODE`` text, then ``LINT`` (a ``Lint``), a pure
``query(subject)`` yielding matches and ``diagnose(match)`` building the warning.

A lint's subject is the whole checked program (``Subject``): the semantic records of every body
(the usage lints read those) and each kernel's facts (the lints about threads read those)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import field
from functools import lru_cache
from pathlib import Path

from ...language.records import record


@record(frozen=True)
class Lint:
    code: str
    name: str
    summary: str          # one line, for --list-rules
    severity: str = "warning"


@record
class Subject:
    """What a lint queries: the program's semantic records and each kernel's facts."""

    semantics: object                               # sema.ProgramInfo
    facts: list = field(default_factory=list)       # facts.Facts per kernel


@lru_cache(maxsize=1)
def all_lints() -> tuple:
    """The lint modules, sorted by code."""
    mods = []
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name[:2] == "ph" and info.name[2:5].isdigit():
            mods.append(importlib.import_module(f"{__package__}.{info.name}"))
    return tuple(sorted(mods, key=lambda m: m.LINT.code))


def lint_for(code: str):
    for m in all_lints():
        if m.LINT.code == code.upper():
            return m
    return None


def explain_text(code: str) -> str | None:
    m = lint_for(code)
    if m is None:
        return None
    return inspect.cleandoc(m.__doc__ or "")
