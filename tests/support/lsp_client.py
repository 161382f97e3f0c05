"""A pytest-lsp client for ``phobos-lsp`` that keeps every publishDiagnostics it receives (with
its version), and helpers to open, change and wait on documents."""

from __future__ import annotations

import asyncio
import sys

from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, default_converter, register_lsp_features

SERVER = [sys.executable, "-m", "phobos_tools.lsp"]
WAIT_S = 60.0


def _record(client: LanguageClient, params: T.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    client.published = []
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record})
    return client


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client)

# a function whose binding `y` is uniform at one call site and varying at the other: hover, inlay
# hints and semantic tokens show per call site what `--kinds` prints
PER_CALL_SITE = """\
fn scaled(x: i32) -> i32 {
  let y = x * 2
  return y
}

@launch(64)
kernel k(O: tensor<i32>[64]) {
  let a = scaled(ctx.block.x)
  let b = scaled(ctx.thread)
  O[ctx.thread] = a + b
}
"""


def initialize_params(options: dict | None = None) -> T.InitializeParams:
    return T.InitializeParams(
        capabilities=T.ClientCapabilities(
            text_document=T.TextDocumentClientCapabilities(
                hover=T.HoverClientCapabilities(content_format=[T.MarkupKind.Markdown]),
                publish_diagnostics=T.PublishDiagnosticsClientCapabilities(
                    related_information=True, code_description_support=True, version_support=True,
                    tag_support=T.ClientDiagnosticsTagOptions(value_set=[T.DiagnosticTag.Unnecessary])),
                inlay_hint=T.InlayHintClientCapabilities(),
                definition=T.DefinitionClientCapabilities(),
                document_symbol=T.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
                code_action=T.CodeActionClientCapabilities(
                    code_action_literal_support=T.ClientCodeActionLiteralOptions(
                        T.ClientCodeActionKindOptions([T.CodeActionKind.QuickFix]))),
            ),
        ),
        initialization_options={"debounceMs": 20, **(options or {})},
    )


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "phobos", version, text)))


def change_doc(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(version, uri), [T.TextDocumentContentChangeWholeDocument(text)]))


async def diagnostics_of(client: LanguageClient, uri: str, version: int, timeout: float = WAIT_S) -> list:
    """The diagnostics published for ``uri`` at ``version``, waiting for them."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        for params in client.published:
            if params.uri == uri and params.version == version:
                return list(params.diagnostics)
        await asyncio.sleep(0.01)
    raise AssertionError(f"no diagnostics for {uri} version {version} within {timeout} s; "
                         f"got versions {[p.version for p in client.published if p.uri == uri]}")
