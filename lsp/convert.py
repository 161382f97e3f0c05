"""The checker's diagnostics and fixes as LSP data.

A diagnostic keeps its code (with ``codeDescription`` pointing at its page under docs/codes/, when
the checkout has one), its severity and its message; the notes and the help follow the message on
lines of their own. The chain becomes ``relatedInformation``, numbered from the origin as the
text format numbers it, and ends with the primary span's own label: an editor lists the steps in
causal order, each a link to its place. The lints that flag dead code (PH501 unused binding,
PH503 unreachable code) carry the ``Unnecessary`` tag, which editors draw faded.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as T

from ..analyzer.diagnostics.model import Diagnostic, Span
from .text import Lines

CODES_DIR = Path(__file__).resolve().parent.parent / "docs" / "codes"
UNNECESSARY = frozenset({"PH501", "PH503"})
SEVERITIES = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
              "note": T.DiagnosticSeverity.Information}
SOURCE = "phobos"

_code_pages: dict[str, str | None] = {}


def code_page(code: str) -> str | None:
    """The file URI of the code's page in docs/codes/, or None where the install has none."""
    if code not in _code_pages:
        page = CODES_DIR / f"{code}.md"
        _code_pages[code] = page.as_uri() if page.is_file() else None
    return _code_pages[code]


def lsp_range(lines: Lines, span: Span) -> T.Range:
    start = lines.to_client(span.line, span.column)
    end = lines.to_client(span.end_line, span.end_column)
    if end < start:
        end = start
    return T.Range(T.Position(*start), T.Position(*end))


def lsp_diagnostic(diag: Diagnostic, uri: str, lines: Lines) -> T.Diagnostic:
    where = lsp_range(lines, diag.span)
    message = diag.message
    extra = [f"note: {n}" for n in diag.notes]
    if diag.help:
        extra.append(f"help: {diag.help}")
    if extra:
        message += "\n" + "\n".join(extra)
    related = [T.DiagnosticRelatedInformation(T.Location(uri, lsp_range(lines, step.span)), f"({n}) {step.text}")
               for n, step in enumerate(diag.chain, start=1)]
    if related and diag.label:
        related.append(T.DiagnosticRelatedInformation(T.Location(uri, where), diag.label))
    page = code_page(diag.code)
    return T.Diagnostic(
        range=where,
        message=message,
        severity=SEVERITIES.get(diag.severity, T.DiagnosticSeverity.Error),
        code=diag.code,
        code_description=T.CodeDescription(href=page) if page else None,
        source=SOURCE,
        tags=[T.DiagnosticTag.Unnecessary] if diag.code in UNNECESSARY else None,
        related_information=related or None,
    )


def code_actions(diag: Diagnostic, published: T.Diagnostic, uri: str, lines: Lines) -> list[T.CodeAction]:
    """One quick fix per machine-applicable fix the diagnostic carries (none before the linter's
    ``fixes`` exist: ``getattr`` keeps this working either way)."""
    actions = []
    for fix in getattr(diag, "fixes", None) or []:
        edits = [T.TextEdit(lsp_range(lines, Span(e.line, e.column, e.end_line, e.end_column)), e.text)
                 for e in fix.edits]
        actions.append(T.CodeAction(title=fix.message, kind=T.CodeActionKind.QuickFix, diagnostics=[published],
                                    is_preferred=len(getattr(diag, "fixes", [])) == 1,
                                    edit=T.WorkspaceEdit(changes={uri: edits})))
    return actions
