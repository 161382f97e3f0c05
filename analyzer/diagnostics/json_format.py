"""The JSON rendering of a whole run (DESIGN.md, "JSON", version 1): one document for all files.

Keys come in the order DESIGN.md shows; files are sorted by path, diagnostics and kinds by line,
then column. ``spec`` is null outside the per-thread rules (PH3xx), ``help`` and ``label`` are
null when absent, ``fixes`` (the last key) an empty list when there is none, ``kinds`` appears
only when asked for.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .codes import CODES
from .model import Diagnostic, Span

JSON_VERSION = 1
_KIND_KEYS = ("kernel", "name", "line", "column", "kind")


def render_json(results: Iterable[Any], with_kinds: bool = False) -> str:
    """``results``: objects with ``.path`` and ``.diagnostics`` (and ``.kinds``, a list of dicts,
    read only when ``with_kinds``)."""
    files = []
    for result in sorted(results, key=lambda r: str(r.path)):
        entry: dict[str, Any] = {
            "path": str(result.path),
            "diagnostics": [diagnostic_to_json(d) for d in sorted(result.diagnostics, key=Diagnostic.sort_key)],
        }
        if with_kinds:
            kinds = getattr(result, "kinds", None) or []
            entry["kinds"] = [_kind_to_json(k) for k in sorted(kinds, key=_kind_sort_key)]
        files.append(entry)
    return json.dumps({"version": JSON_VERSION, "files": files}, ensure_ascii=False, indent=2)


def diagnostic_to_json(diag: Diagnostic) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "code": diag.code,
        "name": CODES[diag.code][0] if diag.code in CODES else None,
        "severity": diag.severity,
        "message": diag.message,
    }
    entry.update(_span_to_json(diag.span))
    entry["label"] = diag.label
    entry["chain"] = [{**_span_to_json(step.span), "text": step.text} for step in diag.chain]
    entry["notes"] = list(diag.notes)
    entry["help"] = diag.help or None
    per_thread_rule = diag.code.startswith("PH3")
    entry["spec"] = (
        {"page": diag.spec.page, "section": diag.spec.section}
        if per_thread_rule and diag.spec is not None
        else None
    )
    entry["fixes"] = [fix_to_json(f) for f in getattr(diag, "fixes", None) or ()]
    return entry


def fix_to_json(fix) -> dict[str, Any]:
    """A machine-applicable fix: its message and edits (the last key of a diagnostic; JSON stays
    version 1, since a reader of the earlier keys is not affected)."""
    return {"message": fix.message,
            "edits": [{"line": e.line, "column": e.column, "end_line": e.end_line, "end_column": e.end_column,
                       "text": e.text} for e in fix.edits]}


def _span_to_json(span: Span) -> dict[str, int]:
    return {"line": span.line, "column": span.column, "end_line": span.end_line, "end_column": span.end_column}


def _kind_to_json(kind: Mapping[str, Any]) -> dict[str, Any]:
    # The documented keys first, in their documented order; anything else after them.
    entry = {key: kind.get(key) for key in _KIND_KEYS}
    entry.update((key, value) for key, value in kind.items() if key not in entry)
    return entry


def _kind_sort_key(kind: Mapping[str, Any]) -> tuple[int, int, str, str]:
    # A function's bindings appear once per call site, so line and column can tie: the calling
    # kernel and the name then keep the order stable.
    return (kind.get("line") or 0, kind.get("column") or 0, str(kind.get("kernel", "")), str(kind.get("name", "")))
