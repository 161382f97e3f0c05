"""The `phobos-check --explain CODE` pages: one per code of ``codes.CODES``.

A per-thread rule's page is its module's docstring (PH301-PH306, DESIGN.md: the rule's
docstring serves as `--explain`), and so is a lint's (PH501-PH505, analyzer/lints/). Every other code has a text file ``explain_pages/PHxxx.txt``
beside this module, shipped as package data. The page printed is the title line built from
``CODES`` (``PHxxx name: meaning``), a blank line, then the file.

A page file is plain text in paragraphs, each opening with a heading word and a colon:

- ``What it flags:`` and ``Why it matters:``, prose;
- ``Example (...):`` (``rejected``, ``a note``, ``refused by phobos-build``, ``stopped at run
  time``, ``input described``) followed by the example kernel indented by four spaces; an
  ``input described`` example says in words what input produces the code (invalid UTF-8, a file
  over 4 MiB), and tests/diagnostics/test_explain_pages.py builds that input;
- ``Run:`` the command that shows the code when it is not plain ``phobos-check k.ph``;
- ``Fix:`` prose, optionally followed by the fixed kernel, indented.

``parse_page`` reads that structure back, for the tests that run every example and fix and for
the generator of docs/codes/ (``codes_doc.py``)."""

from __future__ import annotations

import re
import shlex
from dataclasses import field
from importlib import resources

from ...language.records import record
from ..lints.registry import explain_text as lint_docstring
from ..rules.registry import explain_text as rule_docstring
from .codes import CODES

PAGES_FOLDER = "explain_pages"
_HEADING = re.compile(r"^(Spec|What it flags|Why it matters|Example \([^)]*\)|Run|Fix|Fixed):(?: |$)")


def page_file_text(code: str) -> str | None:
    """The text of ``explain_pages/CODE.txt``, or None when there is none."""
    page = resources.files(__package__).joinpath(PAGES_FOLDER, f"{code}.txt")
    return page.read_text(encoding="utf-8") if page.is_file() else None


def explain_text(code: str) -> str | None:
    """The `--explain` page of ``code`` (any case), or None for a code that does not exist."""
    code = code.strip().upper()
    if code not in CODES:
        return None
    if code.startswith("PH3"):
        text = rule_docstring(code)
        if text:
            return text
    if code.startswith("PH5"):
        text = lint_docstring(code)       # a lint module's docstring (analyzer/lints/)
        if text:
            return text
    name, meaning = CODES[code]
    title = f"{code} {name}: {meaning}"
    body = page_file_text(code)
    return title if body is None else f"{title}\n\n{body.strip()}"


@record
class Section:
    heading: str                 # "What it flags", "Example (rejected)", "Run", "Fix", ...
    parts: list[tuple[str, str]] = field(default_factory=list)
    """("text", a paragraph) and ("code", an indented block, dedented), in page order."""

    @property
    def text(self) -> str:
        return "\n\n".join(body for kind, body in self.parts if kind == "text")

    @property
    def code(self) -> list[str]:
        return [body for kind, body in self.parts if kind == "code"]


@record
class Page:
    code: str
    title: str                   # the first line: "PHxxx name: meaning"
    intro: str                   # prose between the title and the first heading ("" when none)
    sections: list[Section]

    def section(self, prefix: str) -> Section | None:
        return next((s for s in self.sections if s.heading.startswith(prefix)), None)

    @property
    def example(self) -> str | None:
        """The example kernel, or None when the page has none or only describes its input."""
        s = self.section("Example")
        return s.code[0] if s and s.code else None

    @property
    def example_kind(self) -> str | None:
        """What the example's heading says in parentheses: "rejected", "input described", ..."""
        s = self.section("Example")
        return s.heading[len("Example ("):-1] if s else None

    @property
    def fix(self) -> str | None:
        """The fixed kernel, when the page shows one."""
        s = self.section("Fix")
        return s.code[0] if s and s.code else None

    @property
    def run(self) -> list[str]:
        """The command that shows the example's code, with ``k.ph`` for the example's file."""
        s = self.section("Run")
        return shlex.split(s.text) if s else ["phobos-check", "k.ph"]


def parse_page(code: str, text: str | None = None) -> Page:
    """The structure of ``code``'s `--explain` page (``text`` when given, else the page)."""
    text = explain_text(code) if text is None else text
    if text is None:
        raise KeyError(code)
    lines = text.rstrip("\n").split("\n")
    intro: list[str] = []
    sections: list[Section] = []
    kind, chunk = None, []          # the part being read: "text" or "code", and its lines

    def close():
        nonlocal kind, chunk
        while chunk and not chunk[-1].strip():
            chunk.pop()
        if chunk:
            body = "\n".join(chunk) + ("\n" if kind == "code" else "")
            sections[-1].parts.append((kind, body))
        kind, chunk = None, []

    for line in lines[1:]:
        heading = _HEADING.match(line)
        if heading:
            if sections:
                close()
            sections.append(Section(heading.group(1)))
            rest = line[heading.end():].strip()
            kind, chunk = "text", [rest] if rest else []
        elif not sections:
            intro.append(line)
        elif line.startswith("    ") and kind != "text":
            if kind != "code":
                close()
            kind = "code"
            chunk.append(line[4:])
        elif not line.strip():
            if kind == "code":
                chunk.append("")
            else:
                close()
        else:
            if kind != "text":
                close()
            kind = "text"
            chunk.append(line)
    if sections:
        close()
    return Page(code, lines[0], "\n".join(intro).strip(), sections)
