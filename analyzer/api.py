"""The public checking API: source in, diagnostics (and the checked program) out.

``check_source`` never raises for a bad program: every problem becomes a Diagnostic. An
unexpected exception is the caller's to turn into PH900 (the CLI does; see cli/check.py).
"""

from __future__ import annotations

import errno
import gc
import os
import stat
import sys
from contextlib import contextmanager
from dataclasses import field
from pathlib import Path

from ..language.records import record
from .diagnostics import Diagnostic, ERROR, Span
from .diagnostics.codes import is_lint, lint_codes
from .allow import apply_allows, parse_allows
from . import autotune
from .analysis import analyze_program, kinds_table
from .lints import run as run_lints
from .resources import check as check_resources
from .sema import analyze
from .syntax import parse

MAX_SOURCE_BYTES = 4 * 1024 * 1024
ALL_LINTS = frozenset(lint_codes())     # check_source(lints=ALL_LINTS): every lint, as phobos-check


@record
class CheckResult:
    path: str
    text: str | None                      # the decoded source, None when it could not be read
    diagnostics: list[Diagnostic] = field(default_factory=list)
    program: object | None = None         # the parsed AST (analyzer.syntax.ast.Program)
    semantics: object | None = None       # analyzer.semantics.ProgramInfo, when names/types checked
    analyses: list = field(default_factory=list)   # analyzer.analysis.KernelAnalysis per kernel
    kinds: list = field(default_factory=list)      # the JSON `kinds` rows (DESIGN.md)

    @property
    def analyzed(self) -> bool:
        """Did the per-thread analysis run (the front end found no error)?"""
        return self.semantics is not None and bool(self.analyses or not self.semantics.kernels)

    @property
    def ok(self) -> bool:
        return not any(d.severity == ERROR for d in self.diagnostics)


def check_source(data: bytes | str, path: str = "<input>", defines: dict[str, str] | None = None,
                 arch: str = "sm_90", lints=frozenset(), every_configuration: bool = True) -> CheckResult:
    """Check one source (bytes are decoded as UTF-8) for target ``arch`` (the resource checks,
    PH211/PH212). Never raises for a bad program; an unknown ``arch`` is a ValueError.

    ``lints``: the lint codes (PH5xx warnings) to report: none by default, ``ALL_LINTS`` for every
    one (phobos-check's default; its `select`/`ignore` and the configuration choose others).
    Allow comments (`// phobos-allow:`) silence warnings on their line; a malformed one is PH214
    (always), one that silences nothing PH506 (a lint).

    ``every_configuration``: check every `@autotune` configuration (phobos-check), else only the
    first values (the lowering and the simulator run one configuration, fixed by `-D`)."""
    lints = frozenset(lints or ())
    result = CheckResult(path, None)
    diags = result.diagnostics
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > MAX_SOURCE_BYTES:
        if isinstance(data, _Head):      # read_source stopped reading: say what it knows
            size = data.full_size
        how_big = f"{size:,} bytes" if size is not None else f"more than {MAX_SOURCE_BYTES:,} bytes"
        diags.append(Diagnostic("PH002", f"the file is {how_big}, over the 4 MiB limit ({MAX_SOURCE_BYTES:,})",
                                Span(1, 1, 1, 1), help="split the kernels into several files"))
        return result
    text = _decode(data, diags)
    if text is None:
        return result
    result.text = text
    with pause_gc():
        program = parse(text, diags)
        result.program = program
        if program is not None and not any(d.severity == ERROR for d in diags):
            _check_configurations(result, program, defines, arch, lints, every_configuration)
        allows = parse_allows(text, diags)
        kept = apply_allows(diags, allows, lints, lints_ran=result.semantics is not None and result.analyzed)
        diags[:] = [d for d in kept if not is_lint(d.code) or d.code in lints]
    diags.sort(key=Diagnostic.sort_key)
    return result


def _check_configurations(result: CheckResult, program, defines, arch: str, lints, every: bool) -> None:
    """The checks after parsing, once per `@autotune` configuration (analyzer/autotune.py); the
    result keeps the first configuration's semantics, analyses and kinds."""
    diags = result.diagnostics
    configs = autotune.configurations(program, defines, diags) if every else {}
    runs = max((len(c) for c in configs.values()), default=1)
    found = []
    for i in range(runs):
        chosen = {k: c[i] for k, c in configs.items() if i < len(c)}
        semantics, analyses, kinds, run_diags = _check_configuration(program, defines, arch, lints, chosen, [])
        if i == 0:
            result.semantics, result.analyses, result.kinds = semantics, analyses, kinds
        found.append(run_diags)
    diags.extend(found[0] if runs == 1 else autotune.merge(program, configs, found))


def _check_configuration(program, defines, arch: str, lints, chosen: dict, diags: list):
    """Names, types, the per-thread analysis, resources and lints for one configuration:
    (semantics, analyses, kinds, diagnostics), ``diags`` extended."""
    semantics, analyses, kinds = analyze(program, defines, diags, chosen), [], []
    if not any(d.severity == ERROR for d in diags):
        analyses = analyze_program(semantics, diags)
        # the shared-memory plan asks the analysis which collectives exchange data
        diags.extend(check_resources(semantics, arch, analyses))
        kinds = kinds_table(analyses)
        if lints:
            diags.extend(run_lints(semantics, [a.facts for a in analyses], lints))
    return semantics, analyses, kinds, diags


@contextmanager
def pause_gc():
    """Pause the cyclic garbage collector while building trees.

    Parsing allocates hundreds of thousands of long-lived objects (tokens, nodes, spans) and no
    cycles; every allocation burst triggers collections that rescan all of them, which made
    parsing grow faster than linearly (measured: 30k statements 1.36 s with collection, 0.69 s
    without). Reference counting still frees everything; collection resumes afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with recursion_room():
            yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def recursion_room():
    """Raise Python's recursion limit above what the passes over a tree need.

    The checker, the lowering and the simulator recurse along the tree, whose depth the parser
    bounds (MAX_NESTING levels, a few frames each)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


RECURSION_LIMIT = 20_000


def _decode(data: bytes | str, diags: list[Diagnostic]) -> str | None:
    if isinstance(data, str):
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        good = data[: e.start].decode("utf-8")
        line = good.count("\n") + 1
        col = len(good) - (good.rfind("\n") + 1) + 1
        diags.append(Diagnostic("PH001", f"the file is not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start}",
                                Span(line, col, line, col + 1), label="invalid byte here",
                                help="save the file as UTF-8"))
        return None
    if text.startswith("\ufeff"):
        text = text[1:]          # a UTF-8 byte order mark is not part of the program
    return text


def check_file(path: str | Path, defines: dict[str, str] | None = None, arch: str = "sm_90",
               lints=frozenset()) -> CheckResult:
    """Read (with ``read_source``) and check one file. OSError (missing, unreadable, not a
    file) propagates: that is a usage error."""
    return check_source(read_source(path), str(path), defines, arch, lints)


class _Head(bytes):
    """The first ``MAX_SOURCE_BYTES + 1`` bytes of a longer source, and its size if known."""

    full_size: int | None = None


def read_source(path: str | Path) -> bytes:
    """The bytes of a source file, for check_source (and phobos-build, phobos-run): never more
    than one byte past the 4 MiB limit, so a huge file or an endless stream is refused (PH002)
    without being read whole. A regular file or a pipe is read; a directory raises
    IsADirectoryError, anything else (a device such as /dev/zero, a socket) an OSError whose
    ``strerror`` says it is not a regular file; a missing or unreadable file its OSError."""
    name = os.fspath(path)
    mode = os.stat(name).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", name)
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        kind = ("a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
                else "a socket" if stat.S_ISSOCK(mode) else "not a file")
        raise OSError(errno.EINVAL, f"not a regular file ({kind})", name)
    with open(name, "rb") as f:
        data = f.read(MAX_SOURCE_BYTES + 1)
        if len(data) <= MAX_SOURCE_BYTES:
            return data
        head = _Head(data)
        head.full_size = os.fstat(f.fileno()).st_size if stat.S_ISREG(mode) else None
        return head
