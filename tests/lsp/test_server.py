"""phobos-lsp driven over stdio by a real LSP client (pytest-lsp): initialize, diagnostics with
their chains, hover, inlay hints, definition, symbols, changes that fix and break a kernel,
rapid changes, a 4 MiB document, shutdown. One server serves the module (starting one takes a
few seconds, hence `slow`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
import pytest_lsp
from hostile_shapes import shapes
from lsp_client import CONFIG, change_doc, diagnostics_of, initialize_params, open_doc
from lsprotocol import types as T
from paths import EXAMPLES
from pytest_lsp import LanguageClient

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

BROKEN = """\
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if ctx.lane == 0 {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t
}
"""
FIXED = BROKEN.replace("if ctx.lane == 0 {", "if ctx.block.x == 0 {")
MATVEC = (EXAMPLES / "lanes_matvec.ph").read_text()


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(initialize_params())
    lsp_client.init_result = result
    yield
    await lsp_client.shutdown_session()


def at(text: str, line: int, word: str, offset: int = 0) -> T.Position:
    """The position of ``word`` on 1-based ``line`` of ``text``."""
    return T.Position(line - 1, text.split("\n")[line - 1].index(word) + offset)


async def test_initialize_announces_what_the_server_does(client: LanguageClient):
    caps = client.init_result.capabilities
    assert client.init_result.server_info.name == "phobos-lsp"
    sync = caps.text_document_sync
    assert getattr(sync, "change", sync) == T.TextDocumentSyncKind.Full
    assert caps.hover_provider and caps.inlay_hint_provider and caps.definition_provider
    assert caps.document_symbol_provider and caps.code_action_provider
    legend = caps.semantic_tokens_provider.legend
    assert caps.semantic_tokens_provider.full and "varying" in legend.token_modifiers


async def test_a_divergent_barrier_comes_with_its_chain(client: LanguageClient):
    uri = "file:///virtual/broken.ph"
    open_doc(client, uri, BROKEN)
    diags = await diagnostics_of(client, uri, 1)
    assert [d.code for d in diags] == ["PH301"]
    d = diags[0]
    assert d.severity == T.DiagnosticSeverity.Error and d.source == "phobos"
    assert (d.range.start.line, d.range.start.character) == (4, 4)
    assert "runs once per CTA" in d.message and "help:" in d.message
    steps = [r.message for r in d.related_information]
    assert steps[0].startswith("(1) `ctx.lane` differs between lanes")
    first = d.related_information[0].location
    assert first.uri == uri and first.range.start.line == 3
    # the code's page: a file under docs/codes/ that exists
    page = Path(urlparse(d.code_description.href).path)
    assert page.name == "PH301.md" and page.is_file()


async def test_changes_that_fix_and_break_a_kernel(client: LanguageClient):
    uri = "file:///virtual/fix_break.ph"
    open_doc(client, uri, BROKEN)
    assert [d.code for d in await diagnostics_of(client, uri, 1)] == ["PH301"]
    change_doc(client, uri, FIXED, 2)
    assert await diagnostics_of(client, uri, 2) == []
    change_doc(client, uri, FIXED.replace("barrier()", "barrier("), 3)
    broken = await diagnostics_of(client, uri, 3)
    assert broken and all(d.code.startswith("PH0") for d in broken)      # a syntax error
    change_doc(client, uri, BROKEN, 4)
    assert [d.code for d in await diagnostics_of(client, uri, 4)] == ["PH301"]


async def test_hover_gives_the_kind_and_the_chain(client: LanguageClient):
    uri = "file:///virtual/matvec.ph"
    open_doc(client, uri, MATVEC)
    assert await diagnostics_of(client, uri, 1) == []
    hover = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), at(MATVEC, 9, "acc")))
    text = hover.contents.value
    assert "**varying**" in text and "1. `ctx.lane` differs between lanes, so `at` does" in text
    hover = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri),
                                                                 at(MATVEC, 12, "ctx.lane", 5)))
    assert "LANGUAGE §4" in hover.contents.value and "varying" in hover.contents.value
    hover = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), at(MATVEC, 16, "sum<")))
    assert "LANGUAGE §8" in hover.contents.value
    # a place with nothing to say: the blank before the closing brace
    assert await client.text_document_hover_async(
        T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(19, 0))) is None


async def test_inlay_hints_badge_every_binding(client: LanguageClient):
    uri = "file:///virtual/matvec_hints.ph"
    open_doc(client, uri, MATVEC)
    await diagnostics_of(client, uri, 1)
    hints = await client.text_document_inlay_hint_async(T.InlayHintParams(
        T.TextDocumentIdentifier(uri), T.Range(T.Position(0, 0), T.Position(30, 0))))
    got = {(h.position.line, h.position.character): h.label for h in hints}
    assert got == {(7, 9): ": warp-uniform", (8, 9): ": varying", (10, 9): ": uniform",
                   (11, 12): ": varying", (15, 11): ": warp-uniform"}


async def test_control_hint_before_a_barrier_under_varying_control(client: LanguageClient):
    uri = "file:///virtual/control_hints.ph"
    open_doc(client, uri, BROKEN)
    await diagnostics_of(client, uri, 1)
    hints = await client.text_document_inlay_hint_async(T.InlayHintParams(
        T.TextDocumentIdentifier(uri), T.Range(T.Position(0, 0), T.Position(10, 0))))
    assert [(h.position.line, h.position.character, h.label) for h in hints
            if h.kind == T.InlayHintKind.Parameter] == [(4, 4, "varying control:")]


async def test_definition_of_a_binding_and_of_a_function(client: LanguageClient):
    source = ("fn twice(x: f32) -> f32 {\n  return x * 2.0\n}\n\n@launch(32)\n"
              "kernel k(O: tensor<f32>[32]) {\n  let v = twice(1.0)\n  O[ctx.thread] = v\n}\n")
    uri = "file:///virtual/definition.ph"
    open_doc(client, uri, source)
    assert await diagnostics_of(client, uri, 1) == []
    doc = T.TextDocumentIdentifier(uri)
    found = await client.text_document_definition_async(T.DefinitionParams(doc, at(source, 8, "v")))
    assert (found.range.start.line, found.range.start.character, found.range.end.character) == (6, 6, 7)
    found = await client.text_document_definition_async(T.DefinitionParams(doc, at(source, 7, "twice", 2)))
    assert (found.range.start.line, found.range.start.character) == (0, 3)
    found = await client.text_document_definition_async(T.DefinitionParams(doc, at(source, 2, "x")))
    assert (found.range.start.line, found.range.start.character) == (0, 9)     # the parameter


async def test_semantic_tokens_carry_the_kinds(client: LanguageClient):
    uri = "file:///virtual/matvec_tokens.ph"
    open_doc(client, uri, MATVEC)
    await diagnostics_of(client, uri, 1)
    legend = client.init_result.capabilities.semantic_tokens_provider.legend
    tokens = await client.text_document_semantic_tokens_full_async(
        T.SemanticTokensParams(T.TextDocumentIdentifier(uri)))
    data, line, start, found = tokens.data, 0, 0, {}
    for i in range(0, len(data), 5):
        line += data[i]
        start = data[i + 1] if data[i] else start + data[i + 1]
        word = MATVEC.split("\n")[line][start:start + data[i + 2]]
        mods = {m for b, m in enumerate(legend.token_modifiers) if data[i + 4] >> b & 1}
        found.setdefault((line + 1, word), (legend.token_types[data[i + 3]], mods))
    assert found[(9, "acc")] == ("variable", {"declaration", "varying"})
    assert found[(8, "row")] == ("variable", {"declaration", "readonly", "warpUniform"})


async def test_document_symbols_list_kernels_and_functions(client: LanguageClient):
    source = ("fn twice(x: f32) -> f32 {\n  return x * 2.0\n}\n\n@launch(32)\n"
              "kernel k(O: tensor<f32>[32]) {\n  O[ctx.thread] = twice(1.0)\n}\n")
    uri = "file:///virtual/symbols.ph"
    open_doc(client, uri, source)
    await diagnostics_of(client, uri, 1)
    symbols = await client.text_document_document_symbol_async(T.DocumentSymbolParams(T.TextDocumentIdentifier(uri)))
    assert [(s.name, s.detail, [c.name for c in s.children]) for s in symbols] == [
        ("twice", "fn", ["x"]), ("k", "kernel", ["O"])]


async def test_rapid_changes_end_with_the_last_texts_diagnostics(client: LanguageClient):
    uri = "file:///virtual/rapid.ph"
    open_doc(client, uri, FIXED)
    await diagnostics_of(client, uri, 1)
    texts = [BROKEN if n % 2 else FIXED for n in range(2, 40)] + [BROKEN]
    for version, text in enumerate(texts, start=2):
        change_doc(client, uri, text, version)
    last = len(texts) + 1
    assert [d.code for d in await diagnostics_of(client, uri, last)] == ["PH301"]
    await asyncio.sleep(0.5)        # nothing stale arrives afterwards
    mine = [p for p in client.published if p.uri == uri]
    assert mine[-1].version == last
    assert all(p.version >= 1 for p in mine) and len(mine) < len(texts)   # debounced: not one per change


async def test_every_prefix_of_a_kernel_gets_an_answer(client: LanguageClient):
    uri = "file:///virtual/prefixes.ph"
    source = MATVEC
    open_doc(client, uri, "")
    await diagnostics_of(client, uri, 1)
    cuts = list(range(0, len(source), 7)) + [len(source)]
    for version, cut in enumerate(cuts, start=2):
        change_doc(client, uri, source[:cut], version)
        hover = client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(8, 7)))
        hints = client.text_document_inlay_hint_async(T.InlayHintParams(
            T.TextDocumentIdentifier(uri), T.Range(T.Position(0, 0), T.Position(30, 0))))
        await asyncio.gather(hover, hints)
    assert await diagnostics_of(client, uri, len(cuts) + 1) == []


async def test_a_document_of_4_mib_and_one_past_the_limit(client: LanguageClient):
    uri = "file:///virtual/huge.ph"
    filler = ("// " + "x" * 60 + "\n") * (4 * 1024 * 1024 // 64 - 16)
    open_doc(client, uri, filler + MATVEC)
    assert await diagnostics_of(client, uri, 1) == []
    change_doc(client, uri, filler * 2, 2)
    assert [d.code for d in await diagnostics_of(client, uri, 2)] == ["PH002"]


async def test_closing_clears_the_diagnostics(client: LanguageClient):
    uri = "file:///virtual/closed.ph"
    open_doc(client, uri, BROKEN)
    assert await diagnostics_of(client, uri, 1)
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri)))
    for _ in range(500):
        if not client.diagnostics.get(uri):
            break
        await asyncio.sleep(0.01)
    assert list(client.diagnostics[uri]) == []


UNUSED = "@launch(32)\nkernel k(O: tensor<f32>[32]) {\n  let unused = 1\n  O[ctx.thread] = 1.0\n}\n"


async def published_after(client: LanguageClient, uri: str, seen: int, timeout: float = 60.0) -> list:
    """The diagnostics of the first publication for ``uri`` after the first ``seen`` ones."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        mine = [p for p in client.published if p.uri == uri]
        if len(mine) > seen:
            return list(mine[seen].diagnostics)
        await asyncio.sleep(0.01)
    raise AssertionError(f"nothing published again for {uri} within {timeout} s")


async def test_a_configuration_change_rechecks_the_open_documents(client: LanguageClient, tmp_path):
    kernel = tmp_path / "k.ph"
    kernel.write_text(UNUSED)
    uri = kernel.as_uri()
    open_doc(client, uri, UNUSED)
    assert [d.code for d in await diagnostics_of(client, uri, 1)] == ["PH501"]

    def count() -> int:
        return len([p for p in client.published if p.uri == uri])

    # the workspace's configuration changed: the file above the document is read again
    (tmp_path / "pyproject.toml").write_text('[tool.phobos]\nignore = ["PH501"]\n')
    seen = count()
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(settings=None))
    assert await published_after(client, uri, seen) == []
    assert [p.version for p in client.published if p.uri == uri][-1] == 1     # the same text

    # a watched file changed: the lint is selected again
    (tmp_path / "pyproject.toml").write_text('[tool.phobos]\nselect = ["PH501"]\n')
    seen = count()
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
        [T.FileEvent((tmp_path / "pyproject.toml").as_uri(), T.FileChangeType.Changed)]))
    assert [d.code for d in await published_after(client, uri, seen)] == ["PH501"]

    # settings under `phobos` replace the initialization options: a define the kernel needs
    (tmp_path / "pyproject.toml").write_text("[tool.phobos]\n")
    change_doc(client, uri, UNUSED.replace("unused = 1", "unused = W"), 2)
    assert [d.code for d in await diagnostics_of(client, uri, 2)] == ["PH101"]     # W is unknown
    seen = count()
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"phobos": {"defines": {"W": 32}, "debounceMs": 20}}))
    assert [d.code for d in await published_after(client, uri, seen)] == ["PH501"]
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"phobos": {"debounceMs": 20}}))
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri)))


async def test_a_long_check_blocks_neither_other_documents_nor_hover(client: LanguageClient):
    # two kernels whose PH303 paths keep z3 busy for their whole budgets: seconds of checking
    # (copies of a plain kernel check in well under a second now)
    one = shapes.z3_function_copies(100)
    cut = one.index("@launch")
    big = one[:cut] + "".join(one[cut:].replace("kernel k(", f"kernel k{j}(", 1) for j in range(2))
    big_uri, small_uri = "file:///virtual/long.ph", "file:///virtual/quick.ph"
    open_doc(client, big_uri, big)
    await asyncio.sleep(0.05)                  # the long check is under way
    open_doc(client, small_uri, MATVEC)
    assert await diagnostics_of(client, small_uri, 1) == []
    hover = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(small_uri),
                                                                 at(MATVEC, 9, "acc")))
    assert "**varying**" in hover.contents.value
    assert not [p for p in client.published if p.uri == big_uri], "the long check was expected to be slower"
    assert {d.code for d in await diagnostics_of(client, big_uri, 1)} == {"PH303"}
