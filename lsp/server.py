"""``phobos-lsp``: the language server, over stdio (pygls).

Each open document is checked off the event loop, in a thread of its own, so a slow check (z3
deciding paths within its budget) blocks neither the server's other requests nor the other
documents. Changes are debounced; every change starts a new generation of the document, and a
check publishes only if no change came while it ran: a stale result is dropped, never shown. At
most one check per document runs at a time (a stale one cannot be interrupted, so the next waits
for it rather than piling threads up). Requests that read the analysis (hover, inlay hints,
definition, code actions, semantic tokens) wait briefly for the current generation's check and
answer nothing rather than answer from text that has since changed.

Each document is checked as ``phobos-check`` checks the file: with the configuration file above
it (`[tool.phobos]`, cli/config.py), read again at every check. The client's
``initializationOptions`` add what flags would: ``arch`` (as ``--arch``), ``defines``
(``{"N": 128}``, as ``-D``), and ``debounceMs``. ``workspace/didChangeConfiguration`` re-checks
every open document (with the settings under its ``phobos`` key, when it carries some, in place
of the previous ones), and so does a change to a `pyproject.toml` or `phobos.toml` that the
client reports through ``workspace/didChangeWatchedFiles`` (the server asks to watch them where
the client can register watchers).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import traceback
from dataclasses import dataclass, field

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import package_version
from . import features, semantic
from ..analyzer.checked import recursion_room
from ..cli.common import UsageError, parse_defines
from ..cli.config import PHOBOS_TOML, PYPROJECT
from ..language.targets import TARGETS
from .features import Checked
from .text import UTF8, UTF16, UTF32

NAME = "phobos-lsp"
DEBOUNCE_S = 0.1
FRESH_WAIT_S = 3.0            # how long a request waits for the current text's check
THREAD_STACK_BYTES = 64 << 20   # the checker recurses along the tree, as deep as the parser allows

log = logging.getLogger(NAME)


@dataclass
class Settings:
    arch: str | None = None
    defines: dict[str, str] = field(default_factory=dict)
    debounce_s: float = DEBOUNCE_S


@dataclass
class Document:
    uri: str
    path: str
    generation: int = 0
    version: int | None = None
    running: asyncio.Future | None = None
    checked: Checked | None = None
    fresh: asyncio.Event = field(default_factory=asyncio.Event)   # set: `checked` is of this generation


def _in_thread(loop: asyncio.AbstractEventLoop, fn, *args) -> asyncio.Future:
    """Run ``fn(*args)`` in a daemon thread (so exiting never waits for a stale check)."""
    future = loop.create_future()

    def settle(ok: bool, value) -> None:
        if future.cancelled():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            value = fn(*args)
        except BaseException as exc:   # noqa: BLE001 - handed to the awaiting coroutine
            loop.call_soon_threadsafe(settle, False, exc)
        else:
            loop.call_soon_threadsafe(settle, True, value)

    threading.Thread(target=work, name="phobos-check", daemon=True).start()
    return future


class PhobosServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(NAME, package_version(), text_document_sync_kind=T.TextDocumentSyncKind.Full)
        self.documents: dict[str, Document] = {}
        self.settings = Settings()
        self.problems: set[str] = set()
        self._gc_holds = 0              # checks between their start and their publishing

    # ---- checking
    def _hold_gc(self) -> None:
        """Collect no garbage from a check's start until its diagnostics are out: the checker
        pauses the collector while it builds its trees, and the collection of all it built that
        would follow (milliseconds) then runs after publishing instead of before."""
        if self._gc_holds == 0:
            self._gc_was_enabled = gc.isenabled()
            gc.disable()
        self._gc_holds += 1

    def _release_gc(self) -> None:
        self._gc_holds -= 1
        if self._gc_holds == 0 and self._gc_was_enabled:
            gc.enable()

    @property
    def encoding(self) -> str:
        chosen = getattr(self.workspace, "position_encoding", None) if self._workspace_ready() else None
        return {T.PositionEncodingKind.Utf8: UTF8, T.PositionEncodingKind.Utf32: UTF32}.get(chosen, UTF16)

    def _workspace_ready(self) -> bool:
        try:
            self.workspace
        except Exception:   # noqa: BLE001 - before initialize
            return False
        return True

    def changed(self, uri: str, version: int | None, delay: float) -> None:
        doc = self.documents.get(uri)
        if doc is None:
            doc = self.documents[uri] = Document(uri, _path_of(uri))
        doc.generation += 1
        doc.version = version
        doc.fresh.clear()
        asyncio.ensure_future(self._check_later(doc, doc.generation, delay))

    async def _check_later(self, doc: Document, generation: int, delay: float) -> None:
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            while doc.running is not None and not doc.running.done():
                await asyncio.wait({doc.running})
            if doc.generation != generation or self.documents.get(doc.uri) is not doc:
                return                          # a later change has its own check coming
            self._hold_gc()
            try:
                await self._check_and_publish(doc, generation)
            finally:
                self._release_gc()
        except Exception:   # noqa: BLE001 - the server outlives any one check
            log.error("cannot check %s:\n%s", doc.uri, traceback.format_exc())

    async def _check_and_publish(self, doc: Document, generation: int) -> None:
        text = self.workspace.get_text_document(doc.uri).source
        loop = asyncio.get_running_loop()
        settings = self.settings
        doc.running = _in_thread(loop, features.check_text, text, doc.path, doc.uri, generation,
                                 settings.arch, settings.defines, self.encoding)
        checked = await doc.running
        if doc.generation != generation or self.documents.get(doc.uri) is not doc:
            return                          # changed while checking: never publish a stale result
        # the previous check is freed after publishing (a whole tree: about a millisecond)
        previous, doc.checked = doc.checked, checked
        doc.fresh.set()
        if checked.problem is not None and checked.problem not in self.problems:
            self.problems.add(checked.problem)        # said once, not at every keystroke
            self._warn(checked.problem)
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            doc.uri, [lsp for _, lsp in checked.published], doc.version))
        del previous

    def recheck_all(self) -> None:
        """Check every open document again (its text is unchanged, so its version too): the
        configuration it is checked with may have changed."""
        for uri, doc in list(self.documents.items()):
            self.changed(uri, doc.version, 0)

    def closed(self, uri: str) -> None:
        doc = self.documents.pop(uri, None)
        if doc is not None:
            doc.generation += 1
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, []))

    async def current(self, uri: str) -> Checked | None:
        """The check of the document's current text, waiting for it a little; None if it is not
        ready (the request then answers nothing rather than something stale)."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        if not doc.fresh.is_set():
            try:
                await asyncio.wait_for(doc.fresh.wait(), FRESH_WAIT_S)
            except asyncio.TimeoutError:
                return None
        checked = doc.checked
        return checked if checked is not None and checked.generation == doc.generation else None

    def reconfigure(self, settings) -> None:
        """``workspace/didChangeConfiguration``: the settings under ``phobos``, when the client
        sends some, replace the previous ones (as ``initializationOptions`` would give them);
        either way every open document is checked again, its configuration file read anew."""
        options = settings.get("phobos") if isinstance(settings, dict) else None
        if isinstance(options, dict):
            self.settings = Settings()
            self.configure(options)
        self.recheck_all()

    def configure(self, options) -> None:
        """Read ``initializationOptions``; a bad value is reported to the user and ignored."""
        if not isinstance(options, dict):
            return
        arch = options.get("arch")
        if arch is not None:
            if arch in TARGETS:
                self.settings.arch = arch
            else:
                self._warn(f"arch: unknown target {arch!r}; the targets are {', '.join(TARGETS)}")
        defines = options.get("defines")
        if isinstance(defines, dict):
            items = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in defines.items()]
            try:
                self.settings.defines = parse_defines(items)
            except UsageError as exc:
                self._warn(f"defines: {exc}")
        debounce = options.get("debounceMs")
        if isinstance(debounce, (int, float)) and 0 <= debounce <= 10_000:
            self.settings.debounce_s = debounce / 1000

    def _warn(self, message: str) -> None:
        self.window_show_message(T.ShowMessageParams(T.MessageType.Warning, f"{NAME}: {message}"))


def _path_of(uri: str) -> str:
    try:
        return to_fs_path(uri) or uri
    except Exception:   # noqa: BLE001 - an odd URI names the document as it is
        return uri


server = PhobosServer()


@server.feature(T.INITIALIZE)
def _initialize(ls: PhobosServer, params: T.InitializeParams) -> None:
    ls.configure(params.initialization_options)


CONFIG_FILES = (PHOBOS_TOML, PYPROJECT)


@server.feature(T.INITIALIZED)
async def _initialized(ls: PhobosServer, params: T.InitializedParams) -> None:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    watchers = [T.FileSystemWatcher(f"**/{name}") for name in CONFIG_FILES]
    try:
        await ls.client_register_capability_async(T.RegistrationParams([T.Registration(
            "phobos-config-files", T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            T.DidChangeWatchedFilesRegistrationOptions(watchers))]))
    except Exception:   # noqa: BLE001 - the client refused: configuration changes still come by didChangeConfiguration
        log.warning("the client did not register the watchers of %s:\n%s", " and ".join(CONFIG_FILES),
                    traceback.format_exc())


@server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
def _did_change_configuration(ls: PhobosServer, params: T.DidChangeConfigurationParams) -> None:
    ls.reconfigure(params.settings)


@server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def _did_change_watched_files(ls: PhobosServer, params: T.DidChangeWatchedFilesParams) -> None:
    names = {_path_of(change.uri).replace("\\", "/").rpartition("/")[2] for change in params.changes}
    if names & set(CONFIG_FILES):
        ls.recheck_all()


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def _did_open(ls: PhobosServer, params: T.DidOpenTextDocumentParams) -> None:
    ls.changed(params.text_document.uri, params.text_document.version, 0)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def _did_change(ls: PhobosServer, params: T.DidChangeTextDocumentParams) -> None:
    ls.changed(params.text_document.uri, params.text_document.version, ls.settings.debounce_s)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def _did_save(ls: PhobosServer, params: T.DidSaveTextDocumentParams) -> None:
    pass       # the text was checked as it changed


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def _did_close(ls: PhobosServer, params: T.DidCloseTextDocumentParams) -> None:
    ls.closed(params.text_document.uri)


def _guarded(handler):
    """A request handler that answers nothing, and logs, rather than fail on a bug."""
    async def run(ls: PhobosServer, params):
        try:
            return await handler(ls, params)
        except Exception:   # noqa: BLE001
            log.error("%s failed:\n%s", handler.__name__, traceback.format_exc())
            return None
    run.__name__ = handler.__name__
    return run


@server.feature(T.TEXT_DOCUMENT_HOVER)
@_guarded
async def _hover(ls: PhobosServer, params: T.HoverParams):
    checked = await ls.current(params.text_document.uri)
    return features.hover(checked, params.position) if checked is not None else None


@server.feature(T.TEXT_DOCUMENT_INLAY_HINT)
@_guarded
async def _inlay_hints(ls: PhobosServer, params: T.InlayHintParams):
    checked = await ls.current(params.text_document.uri)
    if checked is None:
        return None
    return features.inlay_hints(checked, params.range.start.line, params.range.end.line)


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
@_guarded
async def _definition(ls: PhobosServer, params: T.DefinitionParams):
    checked = await ls.current(params.text_document.uri)
    return features.definition(checked, params.text_document.uri, params.position) if checked is not None else None


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_guarded
async def _document_symbols(ls: PhobosServer, params: T.DocumentSymbolParams):
    checked = await ls.current(params.text_document.uri)
    return features.document_symbols(checked) if checked is not None else []


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
@_guarded
async def _code_action(ls: PhobosServer, params: T.CodeActionParams):
    checked = await ls.current(params.text_document.uri)
    return features.quick_fixes(checked, params.text_document.uri, params.range) if checked is not None else None


@server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, semantic.LEGEND)
@_guarded
async def _semantic_tokens(ls: PhobosServer, params: T.SemanticTokensParams):
    checked = await ls.current(params.text_document.uri)
    return semantic.semantic_tokens(checked) if checked is not None else None


def main(argv: list[str] | None = None) -> int:
    """Serve over stdio until the client says exit. ``--version`` prints the version."""
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["--version"], ["-V"]):
        print(f"{NAME} {package_version()}")
        return 0
    if argv not in ([], ["--stdio"]):
        sys.stderr.write(f"{NAME}: error: unexpected arguments {' '.join(argv)!r}; "
                         f"{NAME} talks LSP over stdin and stdout (options come from initializationOptions)\n")
        return 2
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format=f"{NAME}: %(levelname)s: %(message)s")
    threading.stack_size(THREAD_STACK_BYTES)
    gc.freeze()         # the imports' objects: out of every later collection's walk
    with recursion_room():
        server.start_io()
    return 0


if __name__ == "__main__":
    sys.exit(main())
