"""The rule registry: every module ``phXXX_*.py`` in this package is a rule, discovered
automatically (no hand-kept list). A rule module holds, in order: its docstring (the
``phobos-check --explain CODE`` text), ``RULE`` (a ``Rule``), ``query(facts)`` yielding matches,
and ``diagnose(match)`` building a Diagnostic."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import lru_cache
from pathlib import Path

from ...language.records import record

SPEC_PAGE = "per-thread-values.md"


@record(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    section: str          # the spec section of per-thread-values.md the rule enforces
    summary: str          # one line, for --list-rules


@lru_cache(maxsize=1)
def all_rules() -> tuple:
    """The rule modules, sorted by code."""
    mods = []
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name[:2] == "ph" and info.name[2:5].isdigit():
            mods.append(importlib.import_module(f"{__package__}.{info.name}"))
    return tuple(sorted(mods, key=lambda m: m.RULE.code))


def rule_for(code: str):
    for m in all_rules():
        if m.RULE.code == code.upper():
            return m
    return None


def explain_text(code: str) -> str | None:
    m = rule_for(code)
    if m is None:
        return None
    return inspect.cleandoc(m.__doc__ or "")
