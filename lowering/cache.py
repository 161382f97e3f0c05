"""A build cache for the Python API: ``load_kernel(path, kernel)`` compiles once per source,
kernel, ``-D`` values and target, and launches from the cached PTX and manifest afterwards.

The key hashes the source bytes, the kernel name, the sorted defines, the target, and the
lowering's own code and llvmlite's version (so a new compiler never reuses old PTX). Entries are
``DIR/KEY/KERNEL.ptx`` and ``KERNEL.json`` under ``PHOBOS_CACHE_DIR``, else
``$XDG_CACHE_HOME/phobos-tools``, else ``~/.cache/phobos-tools``; they are written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from ..analyzer.checked import read_source, render_diagnostics
from .build import DEFAULT_ARCH, build_source
from .runtime import Kernel


class BuildFailed(Exception):
    """The source was rejected or could not be lowered; the message holds the rendered
    diagnostics, ``diagnostics`` the errors themselves."""

    def __init__(self, message: str, diagnostics: list | None = None):
        super().__init__(message)
        self.diagnostics = diagnostics or []


def cache_dir() -> Path:
    explicit = os.environ.get("PHOBOS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "phobos-tools"


def fingerprint_files() -> list[tuple[str, Path]]:
    """(name, path) of every source file whose change must miss the cache."""
    root = Path(__file__).resolve().parent.parent
    files = sorted((root / "lowering").glob("*.py")) + sorted((root / "language").glob("*.py")) \
        + sorted((root / "analyzer").rglob("*.py")) \
        + sorted((root / "analyzer").rglob("*.lark"))
    return [(f.relative_to(root).as_posix(), f) for f in files]


@lru_cache(maxsize=1)
def _compiler_fingerprint() -> str:
    """The lowering's and the analyzer's sources (the analysis decides what the lowering emits:
    a collective over a uniform value needs no shuffle) and llvmlite's version."""
    h = hashlib.sha256()
    for name, f in fingerprint_files():
        h.update(name.encode())
        h.update(f.read_bytes())
    try:
        import llvmlite
        h.update(llvmlite.__version__.encode())
    except ImportError:
        pass
    return h.hexdigest()


def cache_key(source: bytes, kernel: str, defines: dict | None, arch: str) -> str:
    h = hashlib.sha256()
    for part in (source, kernel.encode(), json.dumps(sorted((str(k), str(v)) for k, v in (defines or {}).items())).encode(),
                 arch.encode(), _compiler_fingerprint().encode()):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:32]


def build_cached(path, kernel: str, defines: dict | None = None, arch: str = DEFAULT_ARCH) -> tuple[str, dict]:
    """(PTX, manifest) of ``kernel`` in the file ``path``, from the cache when it is there."""
    source = read_source(path)      # at most 4 MiB + 1 byte, as the checker reads it
    return build_cached_source(source, str(path), kernel, defines, arch)


def build_cached_source(source, path: str, kernel: str, defines: dict | None = None,
                        arch: str = DEFAULT_ARCH) -> tuple[str, dict]:
    """(PTX, manifest) of ``kernel`` in ``source`` (text or bytes; ``path`` names it), from the
    cache when it is there. Raises BuildFailed, with the diagnostics, when it does not build."""
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else bytes(source)
    entry = cache_dir() / cache_key(data, kernel, defines, arch)
    ptx_path, json_path = entry / f"{kernel}.ptx", entry / f"{kernel}.json"
    try:
        if ptx_path.is_file() and json_path.is_file():
            return ptx_path.read_text(), json.loads(json_path.read_text())
    except (OSError, ValueError):       # unreadable or damaged: build it again
        pass
    result = build_source(source, path, defines, arch, kernel)
    if not result.ok or not result.kernels:
        text = render_diagnostics(result.diagnostics, result.path, result.text)
        raise BuildFailed(f"cannot build `{kernel}` from {path}:\n{text}",
                          [d for d in result.diagnostics if d.severity == "error"])
    built = result.kernels[0]
    try:
        entry.mkdir(parents=True, exist_ok=True)
        _write_atomic(ptx_path, built.ptx)
        _write_atomic(json_path, json.dumps(built.manifest))
    except OSError:                     # a cache that cannot be written only costs the next build
        pass
    return built.ptx, built.manifest


def load_kernel(path, kernel: str, defines: dict | None = None, arch: str = DEFAULT_ARCH, backend: str | None = None):
    """A ``runtime.Kernel`` ready to launch, built (or taken from the cache) for ``arch``."""
    ptx, manifest = build_cached(path, kernel, defines, arch)
    return Kernel(ptx, manifest, backend)


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
