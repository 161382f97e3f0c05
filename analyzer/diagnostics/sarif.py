"""The SARIF 2.1.0 rendering of a whole run (``--format sarif``): one log, one run, all files.

The driver lists every per-thread rule (PH3xx) with its ``--explain`` text as help, and a
descriptor for every other code the results use (name and meaning from ``codes.py``). Each
diagnostic becomes a result: its primary span is the location (the label as the location's
message), each chain step a related location numbered as in the text format, and the spec
section, help and notes go under ``properties``, the same fields the JSON carries. Lines and
columns are 1-based and count code points (``columnKind`` says so); ``endColumn`` is exclusive,
as in SARIF.

The rule registry lives above this package, so the caller passes the rules in (``RuleInfo``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote

from ...language.records import record
from .codes import CODES
from .model import Diagnostic, Span

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "phobos-check"
LEVELS = {"error": "error", "warning": "warning", "note": "note"}


@record(frozen=True)
class RuleInfo:
    """What SARIF says about one rule: from ``analyzer.rules.registry`` for the PH3xx rules."""

    code: str
    name: str
    severity: str
    summary: str
    help_text: str


def render_sarif(results: Iterable[Any], rules: Sequence[RuleInfo], tool_version: str) -> str:
    """``results``: objects with ``.path`` and ``.diagnostics``. One SARIF document."""
    files = sorted(results, key=lambda r: str(r.path))
    descriptors = [_rule_descriptor(rule) for rule in rules]
    index = {d["id"]: n for n, d in enumerate(descriptors)}
    sarif_results = []
    for result in files:
        uri = path_to_uri(str(result.path))
        for diag in sorted(result.diagnostics, key=Diagnostic.sort_key):
            if diag.code not in index:
                index[diag.code] = len(descriptors)
                descriptors.append(_code_descriptor(diag.code, diag.severity))
            sarif_results.append(_result(diag, uri, index[diag.code]))
    driver: dict[str, Any] = {
        "name": TOOL_NAME,
        "version": tool_version,
        "semanticVersion": tool_version,
        "rules": descriptors,
    }
    log = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": driver},
            "columnKind": "unicodeCodePoints",
            "results": sarif_results,
        }],
    }
    return json.dumps(log, ensure_ascii=False, indent=2)


def path_to_uri(path: str) -> str:
    """The path as given, as a relative (or absolute-path) URI reference: separators become
    ``/`` and characters URIs do not allow are percent-encoded (``a b.ph`` -> ``a%20b.ph``)."""
    return quote(path.replace("\\", "/"), safe="/-._~!$&'()*+,;=@")


def _rule_descriptor(rule: RuleInfo) -> dict[str, Any]:
    # The explain text opens with "PH301 cta-op-divergent-control: what it flags."; that line,
    # without the code and name, is the full description, and the whole text is the help (it is
    # written to read as Markdown too: backquoted code, indented examples).
    first_paragraph = rule.help_text.split("\n\n", 1)[0].replace("\n", " ").strip()
    first_paragraph = first_paragraph.removeprefix(f"{rule.code} {rule.name}:").strip()
    help_text = rule.help_text or rule.summary
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": first_paragraph or rule.summary},
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": LEVELS.get(rule.severity, "error")},
    }


def _code_descriptor(code: str, severity: str) -> dict[str, Any]:
    # A code outside the rule registry (syntax, names and types, internal): its permanent name
    # and meaning; its level is that of the first result that uses it.
    name, meaning = CODES.get(code, (None, None))
    descriptor: dict[str, Any] = {"id": code}
    if name is not None:
        descriptor["name"] = name
        descriptor["shortDescription"] = {"text": meaning}
    descriptor["defaultConfiguration"] = {"level": LEVELS.get(severity, "error")}
    return descriptor


def _result(diag: Diagnostic, uri: str, rule_index: int) -> dict[str, Any]:
    location: dict[str, Any] = {"physicalLocation": _physical(uri, diag.span)}
    if diag.label:
        location["message"] = {"text": diag.label}
    entry: dict[str, Any] = {
        "ruleId": diag.code,
        "ruleIndex": rule_index,
        "level": LEVELS.get(diag.severity, "error"),
        "message": {"text": diag.message},
        "locations": [location],
    }
    if diag.chain:
        entry["relatedLocations"] = [
            {"id": n, "physicalLocation": _physical(uri, step.span), "message": {"text": f"({n}) {step.text}"}}
            for n, step in enumerate(diag.chain, start=1)
        ]
    if getattr(diag, "fixes", None):
        # SARIF 2.1.0 §3.55: a fix is a description and the replacements in each artifact
        entry["fixes"] = [{
            "description": {"text": fix.message},
            "artifactChanges": [{
                "artifactLocation": {"uri": uri},
                "replacements": [{"deletedRegion": _region(Span(e.line, e.column, e.end_line, e.end_column)),
                                  "insertedContent": {"text": e.text}} for e in fix.edits]}]}
            for fix in diag.fixes]
    properties: dict[str, Any] = {}
    if diag.spec is not None and diag.code.startswith("PH3"):
        properties["spec"] = {"page": diag.spec.page, "section": diag.spec.section}
    if diag.help:
        properties["help"] = diag.help
    if diag.notes:
        properties["notes"] = list(diag.notes)
    if properties:
        entry["properties"] = properties
    return entry


def _physical(uri: str, span: Span) -> dict[str, Any]:
    return {"artifactLocation": {"uri": uri}, "region": _region(span)}


def _region(span: Span) -> dict[str, int]:
    # SARIF wants positive numbers and an end not before the start; an odd span (the text
    # renderer tolerates them too) is clamped rather than written invalid.
    line, column = max(int(span.line), 1), max(int(span.column), 1)
    end_line, end_column = max(int(span.end_line), line), max(int(span.end_column), 1)
    if end_line == line:
        end_column = max(end_column, column)
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
