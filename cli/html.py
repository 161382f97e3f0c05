"""``phobos-check --format html``: one page for all checked files (analyzer/diagnostics/html.py
draws it). Each file's records are taken while its analysis is still held (before
``FileReport.release``); the page is written once every file is checked."""

from __future__ import annotations

from typing import Any

from ..analyzer.badges import statement_controls, value_kinds
from ..analyzer.diagnostics.html import PageFile, render_html
from .common import display_path


def page_file(report: Any) -> PageFile:
    """What the page shows of one checked file (a ``cli.check.FileReport``)."""
    values = []
    controls = []
    for analysis in report.analyses:
        values.extend(value_kinds(analysis))
        controls.extend(statement_controls(analysis))
    return PageFile(display_path(report.path), report.text, list(report.diagnostics), values, controls,
                    analysed=report.analysed, kernels=tuple(a.name for a in report.analyses))


def render_page(files: list[PageFile]) -> str:
    return render_html(files, "phobos-check")
