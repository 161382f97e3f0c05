"""The lints PH501-PH505, one module per code, discovered by registry.py (PH506, the unused allow
comment, belongs to analyzer/allow.py).

``run(semantics, facts, enabled)`` applies the enabled lints to a checked program and returns
their warnings, each once: a function's binding or statement is reported once however many
call sites inline it."""

from __future__ import annotations

from .registry import Subject, all_lints


def run(semantics, facts: list, enabled=None) -> list:
    subject = Subject(semantics, list(facts))
    out, seen = [], set()
    for lint in all_lints():
        if enabled is not None and lint.LINT.code not in enabled:
            continue
        for match in lint.query(subject):
            d = lint.diagnose(match)
            key = (d.code, d.span, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
    return out
