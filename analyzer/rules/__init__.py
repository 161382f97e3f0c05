"""The per-thread rules, one module per code (PH301-PH306), discovered by registry.py.

``run(facts)`` applies every rule to one kernel's facts and returns the diagnostics."""

from __future__ import annotations

from .registry import all_rules


def run(facts) -> list:
    out = []
    for rule in all_rules():
        for match in rule.query(facts):
            out.append(rule.diagnose(match))
    return out
