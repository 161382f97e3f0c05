"""A build cache for the Python API: ``load_kernel(path, kernel)`` compiles once per source,
kernel, ``-D`` values and target, and launches from the cached PTX and manifest afterwards.

The key hashes the source bytes, the kernel name, the sorted defines, the target, and the
lowering's own code and llvmlite's version (so a new compiler never reuses old PTX). Entries are
``DIR/KEY/KERNEL.ptx`` and ``KERNEL.json`` under ``PHOBOS_CACHE_DIR``, else
``$XDG_CACHE_HOME/phobos-tools``, else ``~/.cache/phobos-tools``; they are written atomically.

Nothing found there is trusted: ``KERNEL.json`` records the entry's key (the source's hash, the
kernel, the defines, the target, the compiler's fingerprint), the PTX's SHA-256 and the manifest,
and an entry is used only when the record parses, matches the key asked for, its manifest has the
shape DESIGN.md gives (``manifest_problem``) and the PTX has the recorded hash. Anything else (a
damaged, truncated, foreign or tampered entry) is rebuilt, with a ``CacheWarning`` saying why.
The kernel's name is checked (an identifier) before any path is formed from it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path

from ..analyzer.checked import read_source, render_diagnostics
from ..language.types import SCALAR_NAMES
from .build import DEFAULT_ARCH, build_source
from .manifest import VERSION as MANIFEST_VERSION
from .names import entry_symbol, is_kernel_name
from .runtime import Kernel

RECORD_VERSION = 1
MAX_ENTRY_BYTES = 64 << 20          # a cached PTX or record larger than this is damaged, not read


class BuildFailed(Exception):
    """The source was rejected or could not be lowered; the message holds the rendered
    diagnostics, ``diagnostics`` the errors themselves."""

    def __init__(self, message: str, diagnostics: list | None = None):
        super().__init__(message)
        self.diagnostics = diagnostics or []


class KernelNameError(BuildFailed, ValueError):
    """The kernel's name is no identifier (``"/abs/evil"``, ``"../x"``): refused before the cache
    forms a path from it."""


class CacheWarning(UserWarning):
    """A cache entry was damaged or did not match its key, and was rebuilt."""


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
    cache when a valid entry is there. Raises BuildFailed, with the diagnostics, when it does not
    build, and KernelNameError (a BuildFailed and a ValueError) for a name that is no identifier."""
    if not is_kernel_name(kernel):
        raise KernelNameError(f"{kernel!r} is not a kernel name: a kernel is named by an identifier "
                              "(ASCII letters, digits and `_`, not starting with a digit)")
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else bytes(source)
    key = _key_fields(data, kernel, defines, arch)
    entry = cache_dir() / cache_key(data, kernel, defines, arch)
    ptx_path, json_path = entry / f"{kernel}.ptx", entry / f"{kernel}.json"
    found, problem = _read_entry(ptx_path, json_path, key)
    if found is not None:
        return found
    if problem is not None:
        warnings.warn(f"phobos-tools build cache: the entry {entry} is {problem}; rebuilding it",
                      CacheWarning, stacklevel=2)
    result = build_source(source, path, defines, arch, kernel)
    if not result.ok or not result.kernels:
        text = render_diagnostics(result.diagnostics, result.path, result.text)
        raise BuildFailed(f"cannot build `{kernel}` from {path}:\n{text}",
                          [d for d in result.diagnostics if d.severity == "error"])
    built = result.kernels[0]
    record = {"cache": RECORD_VERSION, "key": key, "ptx_sha256": _sha256(built.ptx.encode()),
              "manifest": built.manifest}
    try:
        entry.mkdir(parents=True, exist_ok=True)
        _write_atomic(ptx_path, built.ptx)
        _write_atomic(json_path, json.dumps(record))
    except OSError:                     # a cache that cannot be written only costs the next build
        pass
    return built.ptx, built.manifest


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _key_fields(data: bytes, kernel: str, defines: dict | None, arch: str) -> dict:
    """What an entry must have been built from, as its record stores it."""
    return {"source_sha256": _sha256(data), "kernel": kernel,
            "defines": sorted([str(k), str(v)] for k, v in (defines or {}).items()),
            "arch": arch, "compiler": _compiler_fingerprint()}


def _read_entry(ptx_path: Path, json_path: Path, key: dict) -> tuple[tuple[str, dict] | None, str | None]:
    """((PTX, manifest), None) from a valid entry; (None, None) when there is none; (None, why)
    when there is one that cannot be used."""
    try:
        if not json_path.exists() and not ptx_path.exists():
            return None, None
        for f in (json_path, ptx_path):
            if not f.is_file():
                return None, f"missing {f.name}"
            if f.stat().st_size > MAX_ENTRY_BYTES:
                return None, f"damaged ({f.name} is over {MAX_ENTRY_BYTES >> 20} MiB)"
        record = json.loads(json_path.read_bytes().decode("utf-8"))
        ptx_bytes = ptx_path.read_bytes()
    except (OSError, ValueError, RecursionError) as e:     # unreadable, not UTF-8, not JSON, nested
        return None, f"unreadable ({type(e).__name__})"
    if not isinstance(record, dict) or record.get("cache") != RECORD_VERSION:
        return None, "not a record of this version"
    if record.get("key") != key:
        return None, "for another source, kernel, -D value, target or compiler"
    if record.get("ptx_sha256") != _sha256(ptx_bytes):
        return None, f"damaged ({ptx_path.name} does not have the recorded hash)"
    manifest = record.get("manifest")
    problem = manifest_problem(manifest, key["kernel"], key["arch"])
    if problem is not None:
        return None, f"damaged (its manifest {problem})"
    try:
        ptx = ptx_bytes.decode("utf-8")
    except UnicodeDecodeError:
        return None, f"damaged ({ptx_path.name} is not UTF-8)"
    return (ptx, manifest), None


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _is_count(v, low: int = 0, high: int | None = None) -> bool:
    return type(v) is int and v >= low and (high is None or v <= high)


def manifest_problem(m, kernel: str, arch: str) -> str | None:
    """What is wrong with ``m`` as the manifest of ``kernel`` built for ``arch`` (DESIGN.md,
    "phobos-build"; docs/output-formats.md), or None when it has that shape: every key, each of
    its type and range, the entry and target of this build."""
    if not isinstance(m, dict):
        return "is not an object"
    want = {"version", "entry", "target", "ptx_version", "block", "dynamic_shared_bytes", "params", "extents",
            "aligned", "resources"}
    missing = want - m.keys()
    if missing:
        return f"lacks {', '.join(sorted(missing))}"
    extra = m.keys() - want - {"defines"}
    if extra:
        return f"has unknown keys {', '.join(sorted(map(str, extra)))}"
    if m["version"] != MANIFEST_VERSION or type(m["version"]) is not int:
        return f"has version {m['version']!r}, not {MANIFEST_VERSION}"
    if m["entry"] != entry_symbol(kernel):
        return f"names the entry {m['entry']!r}, not {entry_symbol(kernel)!r}"
    if m["target"] != arch:
        return f"is for target {m['target']!r}, not {arch!r}"
    if not isinstance(m["ptx_version"], str) or not re.fullmatch(r"[0-9]+\.[0-9]+", m["ptx_version"]):
        return "has no PTX version"
    if not _is_count(m["block"], 1, 1024) or not _is_count(m["dynamic_shared_bytes"]):
        return "has a bad block size or shared size"
    extents = m["extents"]
    if not isinstance(extents, list) or not all(isinstance(e, str) and _IDENT.match(e) for e in extents) \
            or len(set(extents)) != len(extents):
        return "has bad extents"
    params = m["params"]
    if not isinstance(params, list):
        return "has no parameter list"
    names = set()
    for p in params:
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not _IDENT.match(p["name"]) \
                or p["name"] in names or p.get("dtype") not in SCALAR_NAMES:
            return "has a bad parameter"
        names.add(p["name"])
        if p.get("kind") == "tensor":
            shape = p.get("shape")
            if set(p) != {"name", "kind", "dtype", "shape"} or not isinstance(shape, list) or not shape or \
                    not all(_is_count(d, 1) or (isinstance(d, str) and d in extents) for d in shape):
                return f"has a bad tensor parameter {p['name']!r}"
        elif p.get("kind") != "scalar" or set(p) != {"name", "kind", "dtype"}:
            return f"has a bad parameter {p['name']!r}"
    aligned = m["aligned"]
    if not isinstance(aligned, dict) or not all(k in extents and _is_count(v, 1) for k, v in aligned.items()):
        return "has bad alignment promises"
    res = m["resources"]
    if res is not None and not (isinstance(res, dict) and all(isinstance(k, str) and _is_count(v)
                                                              for k, v in res.items())):
        return "has bad resources"
    if "defines" in m and not (isinstance(m["defines"], dict) and all(isinstance(k, str) for k in m["defines"])):
        return "has bad defines"
    return None


def load_kernel(path, kernel: str, defines: dict | None = None, arch: str = DEFAULT_ARCH, backend: str | None = None):
    """A ``runtime.Kernel`` ready to launch, built (or taken from the cache) for ``arch``."""
    ptx, manifest = build_cached(path, kernel, defines, arch)
    return Kernel(ptx, manifest, backend)


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
