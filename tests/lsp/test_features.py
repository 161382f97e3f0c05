"""The server's answers computed in process (lsp/features.py), without a client: positions in the
editor's units, the diagnostics' LSP form, code actions from fixes, hovers and hints where a
function's kinds differ by call site, and an answer (or nothing) at every prefix of a kernel."""

from __future__ import annotations

import pytest
from lsprotocol import types as T
from lsp_client import PER_CALL_SITE
from paths import EXAMPLES

from phobos_tools.analyzer.diagnostics.model import Diagnostic, Edit, Fix, Label, Span
from phobos_tools.lsp import features as F
from phobos_tools.lsp.convert import code_actions, lsp_diagnostic
from phobos_tools.lsp.semantic import semantic_tokens
from phobos_tools.lsp.text import UTF8, UTF16, UTF32, Lines

URI = "file:///virtual/k.ph"

def pos(text: str, line: int, word: str, offset: int = 0) -> T.Position:
    return T.Position(line - 1, text.split("\n")[line - 1].index(word) + offset)


@pytest.mark.parametrize("encoding, character", [(UTF16, 7), (UTF32, 6), (UTF8, 10)])
def test_columns_in_the_clients_units(encoding, character):
    lines = Lines("let s = 1\n// 😀é x\n", encoding)
    # column 7 (1-based code points) of line 2 is `x`, after an emoji and an accented letter
    assert lines.to_client(2, 7) == (1, character)
    assert lines.from_client(1, character) == (2, 7)
    assert lines.to_client(9, 99) == (2, 0)         # past the end: clamped to the last line


def test_a_diagnostic_keeps_code_chain_severity_and_tags():
    diag = Diagnostic("PH501", "`x` is never read", Span(2, 7, 2, 8), severity="warning", label="declared here",
                      chain=[Label(Span(1, 1, 1, 4), "first step")], help="remove it")
    lsp = lsp_diagnostic(diag, URI, Lines("abc\nlet   x = 1\n"))
    assert lsp.code == "PH501" and lsp.severity == T.DiagnosticSeverity.Warning
    assert lsp.tags == [T.DiagnosticTag.Unnecessary]
    assert lsp.message == "`x` is never read\nhelp: remove it"
    assert [r.message for r in lsp.related_information] == ["(1) first step", "declared here"]
    assert lsp.related_information[-1].location.range == lsp.range
    error = lsp_diagnostic(Diagnostic("PH301", "m", Span(1, 1, 1, 2)), URI, Lines("x"))
    assert error.tags is None and error.related_information is None
    assert error.code_description.href.endswith("/docs/codes/PH301.md")


def test_fixes_become_quick_fixes():
    fix = Fix("rename `x` to `_x`", (Edit(2, 7, 2, 8, "_x"),))
    diag = Diagnostic("PH501", "`x` is never read", Span(2, 7, 2, 8), severity="warning", fixes=[fix])
    lines = Lines("abc\nlet   x = 1\n")
    published = lsp_diagnostic(diag, URI, lines)
    [action] = code_actions(diag, published, URI, lines)
    assert action.title == "rename `x` to `_x`" and action.kind == T.CodeActionKind.QuickFix
    [edit] = action.edit.changes[URI]
    assert (edit.range.start.character, edit.range.end.character, edit.new_text) == (6, 7, "_x")
    assert code_actions(Diagnostic("PH301", "m", Span(1, 1, 1, 2)), published, URI, lines) == []


def test_kinds_by_call_site_in_hover_and_hints():
    checked = F.check_text(PER_CALL_SITE, "k.ph", URI)
    assert checked.published == []
    hover = F.hover(checked, pos(PER_CALL_SITE, 2, "y")).contents.value
    assert "differs between call sites" in hover
    assert "inlined at 8:11: **uniform**" in hover and "inlined at 9:11: **varying**" in hover
    labels = {(h.position.line, h.position.character): h.label for h in F.inlay_hints(checked)}
    assert labels[(1, 7)] == ": uniform (inlined at 8:11), varying (inlined at 9:11)"
    assert labels[(7, 7)] == ": uniform" and labels[(8, 7)] == ": varying"
    # a parameter's use: the expression's kind at each call site
    assert "**uniform** (inlined at 8:11), **varying** (inlined at 9:11)" in \
        F.hover(checked, pos(PER_CALL_SITE, 2, "x")).contents.value


def test_hover_on_an_expression_follows_it_to_its_origin():
    text = (EXAMPLES / "lanes_matvec.ph").read_text()
    checked = F.check_text(text, "k.ph", URI)
    hover = F.hover(checked, pos(text, 12, "*", 0)).contents.value     # `ctx.lane * 4`
    assert hover.startswith("`ctx.lane * 4`: `i32` — **varying**")
    assert "From `ctx.lane`" in hover and "LANGUAGE §4" in hover
    assert F.hover(checked, pos(text, 10, "row")).contents.value.startswith("**`row`**: let, `i32` — **warp-uniform**")


def test_definition_and_symbols_survive_a_type_error():
    text = PER_CALL_SITE.replace("O[ctx.thread] = a + b", "O[ctx.thread] = a + b + 1.5")
    checked = F.check_text(text, "k.ph", URI)
    assert any(d.severity == "error" for d, _ in checked.published)
    found = F.definition(checked, URI, pos(text, 10, "a + b"))
    assert (found.range.start.line, found.range.start.character) == (7, 6)
    assert [s.name for s in F.document_symbols(checked)] == ["scaled", "k"]


def _every_answer(text: str) -> None:
    checked = F.check_text(text, "k.ph", URI)
    F.inlay_hints(checked)
    F.document_symbols(checked)
    F.quick_fixes(checked, URI, T.Range(T.Position(0, 0), T.Position(999, 0)))
    semantic_tokens(checked)
    for n, line in enumerate(text.split("\n")):
        for character in range(0, len(line) + 1, 3):
            F.hover(checked, T.Position(n, character))
            F.definition(checked, URI, T.Position(n, character))


@pytest.mark.slow
@pytest.mark.parametrize("example", ["lanes_matvec.ph", "block_reduce.ph"])
def test_every_prefix_of_an_example_gets_an_answer(example):
    text = (EXAMPLES / example).read_text()
    for cut in range(len(text) + 1):
        _every_answer(text[:cut])


def test_a_few_half_typed_documents():
    for text in ("", "@", "kernel", "kernel k(", "kernel k(A: tensor<f32>[N]) {\n  let x = A[ctx.",
                 "fn f(x: i32) -> i32 {\n  return f(x)\n}\n", "\ufeff\x00\udc80", "kernel k() {" * 300):
        _every_answer(text)


UNUSED = "@launch(32)\nkernel k(O: tensor<f32>[32]) {\n  let unused = 1\n  O[ctx.thread] = 1.0\n}\n"


def test_the_configuration_above_the_document_applies(tmp_path):
    outside = F.check_text(UNUSED, str(tmp_path / "k.ph"), URI)
    assert [d.code for d, _ in outside.published] == ["PH501"] and outside.problem is None
    assert outside.published[0][1].tags == [T.DiagnosticTag.Unnecessary]
    (tmp_path / "pyproject.toml").write_text('[tool.phobos]\nignore = ["PH501"]\n')
    (tmp_path / "sub").mkdir()
    inside = F.check_text(UNUSED, str(tmp_path / "sub" / "k.ph"), URI)
    assert inside.published == [] and inside.problem is None
    (tmp_path / "pyproject.toml").write_text('[tool.phobos]\ncolour = "red"\n')
    bad = F.check_text(UNUSED, str(tmp_path / "sub" / "k.ph"), URI)
    assert "colour" in bad.problem and [d.code for d, _ in bad.published] == ["PH501"]
