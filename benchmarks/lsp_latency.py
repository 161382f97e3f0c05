"""How long phobos-lsp takes to re-check a kernel after a change, against the check itself.

A generated kernel of about 300 lines (benchmarks/gen_kernels.py: no error, no path for z3 to
decide) is opened in a real `phobos-lsp` process over stdio, with no debounce. Each round sends a
whole-document change (a number in a comment differs, so the text is new) and times until the
server publishes that version's diagnostics: parse, check, convert, JSON both ways. The baseline
is the CLI's in-process check of the same text (`analyzer.check_source`, what `phobos-check`
calls per file), timed in this process. Both are medians, of wall time; CPU time is reported
beside them (this process's for the check; the server's, read from /proc, as a mean per change,
since the kernel counts it in ticks of 10 ms).

    python benchmarks/lsp_latency.py [--lines 300] [--rounds 40]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_kernels import kernel_source  # noqa: E402

from phobos_tools.analyzer import check_source  # noqa: E402


def kernel_of_lines(lines: int) -> str:
    """A generated kernel with about ``lines`` lines."""
    statements = lines
    while kernel_source(statements).count("\n") > lines:
        statements -= 5
    return kernel_source(statements)


class Server:
    """A phobos-lsp process and a reader of its messages."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "phobos_tools.lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                header = out.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(out.read(length)))

    def send(self, obj: dict) -> None:
        body = json.dumps(obj).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def wait(self, match, timeout: float = 120.0) -> dict:
        end = time.monotonic() + timeout
        while True:
            msg = self.messages.get(timeout=max(end - time.monotonic(), 0.001))
            if match(msg):
                return msg

    def cpu_seconds(self) -> float | None:
        """User and system CPU time the server has used so far (None where /proc is absent)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        self.send({"jsonrpc": "2.0", "id": 99, "method": "shutdown"})
        self.wait(lambda m: m.get("id") == 99)
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.proc.wait(timeout=30)


def published(uri: str, version: int):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                      and m["params"].get("version") == version)


def measure(lines: int, rounds: int) -> dict:
    text = kernel_of_lines(lines)
    variants = [f"// edit {n}\n{text}" for n in range(rounds + 1)]

    server = Server()
    uri = "file:///bench/k.ph"
    server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": None, "capabilities": {}, "initializationOptions": {"debounceMs": 0}}})
    server.wait(lambda m: m.get("id") == 1)
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "phobos", "version": 0, "text": variants[0]}}})
    first = server.wait(published(uri, 0))
    assert not [d for d in first["params"]["diagnostics"] if d["severity"] == 1], first   # no error (lints may warn)
    check_source(variants[0], "k.ph")              # warm: imports, grammar tables

    # paired rounds (the check here, then the server's), so that both see the same machine load
    cli, cli_cpu, lsp = [], [], []
    server_cpu_start = server.cpu_seconds()
    for version, v in enumerate(variants[1:], start=1):
        start, start_cpu = time.perf_counter(), time.process_time()
        check_source(v, "k.ph")
        cli.append(time.perf_counter() - start)
        cli_cpu.append(time.process_time() - start_cpu)
        start = time.perf_counter()
        server.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": v}]}})
        server.wait(published(uri, version))
        lsp.append(time.perf_counter() - start)
    server_cpu_end = server.cpu_seconds()
    server.close()
    server_cpu = None if server_cpu_start is None else (server_cpu_end - server_cpu_start) / rounds * 1000
    return {"lines": text.count("\n") + 1, "rounds": rounds, "check_ms": statistics.median(cli) * 1000,
            "check_cpu_ms": statistics.median(cli_cpu) * 1000, "lsp_ms": statistics.median(lsp) * 1000,
            "lsp_cpu_ms": server_cpu, "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    r = measure(args.lines, args.rounds)
    print(f"kernel: {r['lines']} lines, {r['rounds']} changes")
    print(f"in-process check (median): {r['check_ms']:.1f} ms (CPU {r['check_cpu_ms']:.1f} ms)")
    server_cpu = "" if r["lsp_cpu_ms"] is None else f" (server CPU per change, mean: {r['lsp_cpu_ms']:.1f} ms)"
    print(f"phobos-lsp change -> diagnostics (median): {r['lsp_ms']:.1f} ms{server_cpu}")
    print(f"ratio: {r['lsp_ms'] / r['check_ms']:.2f}")
    if r["load"] is not None:
        print(f"load average (1 min) at the end: {r['load']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
