"""The `phobos-lsp` process itself: its command line, and a clean exit after shutdown and exit
(the raw protocol, no client library)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SERVER = [sys.executable, "-m", "phobos_tools.lsp"]


def _frame(obj) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.slow
def test_the_server_exits_cleanly_after_shutdown_and_exit():
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": "file:///virtual/half.ph", "languageId": "phobos", "version": 1, "text": "kernel k(A: tens"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    done = subprocess.run(SERVER, input=b"".join(map(_frame, messages)), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert b'"id": 2' in done.stdout or b'"id":2' in done.stdout
    assert b"Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("args, status, out", [(["--version"], 0, "phobos-lsp "), (["--port", "1"], 2, "")])
def test_command_line(args, status, out):
    done = subprocess.run(SERVER + args, capture_output=True, text=True, timeout=120)
    assert done.returncode == status
    assert done.stdout.startswith(out)
    if status:
        assert "phobos-lsp: error:" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_server_asks_to_watch_the_configuration_files():
    capabilities = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": capabilities}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    done = subprocess.run(SERVER, input=b"".join(map(_frame, messages)), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    requests = [m for m in _messages(done.stdout) if m.get("method") == "client/registerCapability"]
    assert len(requests) == 1
    (registration,) = requests[0]["params"]["registrations"]
    assert registration["method"] == "workspace/didChangeWatchedFiles"
    assert [w["globPattern"] for w in registration["registerOptions"]["watchers"]] == [
        "**/phobos.toml", "**/pyproject.toml"]


def _messages(stream: bytes) -> list[dict]:
    """The JSON-RPC messages in what the server wrote."""
    out = []
    while stream:
        header, _, rest = stream.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        out.append(json.loads(rest[:length]))
        stream = rest[length:]
    return out
