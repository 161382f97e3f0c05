"""``phobos-check``: check Phobos source files and report their diagnostics.

A thin layer over ``phobos_tools.analyzer.check_file``: it parses the command line, collects the
files (a directory means every ``.ph`` file under it), renders each file's diagnostics as text or
one JSON document, and turns everything into the exit status of DESIGN.md: the worst over all
files of 0 (no errors), 1 (an error in a program), 2 (usage error: no path, a missing or
unreadable file, a bad option) and 3 (internal error, reported as diagnostic PH900). It never
prints a Python traceback.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130      # the shell's 128 + SIGINT
EXIT_BROKEN_PIPE = 141      # the shell's 128 + SIGPIPE

PROG = "phobos-check"
SOURCE_SUFFIX = ".ph"
_DEFINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S.*)", re.DOTALL)
_ARCH = re.compile(r"sm_[0-9]+")

# Options the per-thread analysis brings; they are reserved now so that scripts written against
# DESIGN.md get a clear message rather than "unrecognized argument".
_NOT_YET = ("why", "explain", "list_rules", "dump_cfg")


class UsageError(Exception):
    """A problem with the command line or a path: reported as `phobos-check: error: ...`, exit 2."""


@dataclass
class FileReport:
    """What the renderers need about one checked file."""

    path: str
    text: str | None
    diagnostics: list[Any] = field(default_factory=list)
    kinds: list[dict[str, Any]] = field(default_factory=list)


def main(argv: list[str] | None = None) -> int:
    # A short-lived process: the cyclic collector would only rescan the trees each check builds
    # (they hold no cycles worth collecting), which costs ~10% at 10k statements. Off for the run.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _main(sys.argv[1:] if argv is None else list(argv))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # a bug outside any one file's check: still no traceback
        _error(f"internal error: {_describe(exc)} (please report this)")
        return EXIT_INTERNAL
    finally:
        if gc_was_enabled:
            gc.enable()


def _main(argv: list[str]) -> int:
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        for option in _NOT_YET:
            if getattr(args, option) not in (None, False):
                flag = "--" + option.replace("_", "-")
                parser.error(f"{flag} is not available yet: it arrives with the per-thread analysis")
        if not args.paths:
            parser.error("no path given (a .ph file, or a directory to check every .ph file under it)")
        defines = _parse_defines(args.defines, parser)
        if args.arch is not None and not _ARCH.fullmatch(args.arch):
            parser.error(f"--arch: expected a target such as sm_90, got {args.arch!r}")
    except SystemExit as exc:  # argparse reports usage errors (and --help) by exiting
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE

    status = EXIT_OK
    paths: dict[Path, None] = {}  # ordered, without repeats (a file named and under a directory)
    for arg in args.paths:
        try:
            paths.update(dict.fromkeys(collect_sources(arg)))
        except UsageError as exc:
            _error(str(exc))
            status = EXIT_USAGE

    from .. import analyzer  # looked up per call, so tests can replace analyzer.check_file

    reports: list[FileReport] = []
    unreadable = 0
    printed = False  # whether a diagnostic has been written (blocks are separated by a blank line)
    for path in paths:
        try:
            report = _check_one(analyzer, path, defines)
        except OSError as exc:
            _error(f"cannot read {str(path)!r}: {exc.strerror or exc}")
            status = max(status, EXIT_USAGE)
            unreadable += 1
            continue
        status = max(status, _file_status(report))
        reports.append(report)
        if args.format == "text":
            printed = _print_text(report, after_other_blocks=printed) or printed

    if args.format == "json":
        from ..analyzer.diagnostics.json_format import render_json

        sys.stdout.write(render_json(reports, with_kinds=args.kinds) + "\n")
    elif reports:
        _print_summary(reports, unreadable)
    sys.stdout.flush()
    return status


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check Phobos kernels: syntax, names, types and shapes, and the per-thread rules.",
        epilog="Exit status: 0 no errors, 1 an error in a program, 2 usage error, 3 internal error.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="a .ph file, or a directory: every .ph file under it")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="output format (default: text)")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE",
                        help="bind a compile-time constant (repeatable)")
    parser.add_argument("--arch", metavar="TARGET", help="target for resource checks, e.g. sm_90")
    parser.add_argument("--kinds", action="store_true",
                        help="with --format json, list every binding's kind")
    parser.add_argument("--why", metavar="NAME", help="(not available yet)")
    parser.add_argument("--explain", metavar="CODE", help="(not available yet)")
    parser.add_argument("--list-rules", action="store_true", help="(not available yet)")
    parser.add_argument("--dump-cfg", metavar="DIR", help="(not available yet)")
    return parser


def _parse_defines(items: list[str], parser: argparse.ArgumentParser) -> dict[str, str]:
    defines: dict[str, str] = {}
    for item in items:
        match = _DEFINE.fullmatch(item)
        if match is None:
            parser.error(f"-D {item!r}: expected NAME=VALUE, with NAME an identifier and VALUE not empty")
        name, value = match.groups()
        if name in defines and defines[name] != value:
            parser.error(f"-D {name} given twice, as {defines[name]!r} and {value!r}")
        defines[name] = value
    return defines


def collect_sources(arg: str) -> list[Path]:
    """The files one PATH argument names: itself, or every `.ph` file under a directory, sorted."""
    path = Path(arg)
    try:
        exists, is_dir = path.exists(), path.is_dir()
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise UsageError(f"bad path {arg!r}: {exc}") from None
    if not exists:
        raise UsageError(f"no such file or directory: {arg!r}")
    if not is_dir:
        return [path]
    found: list[Path] = []
    unreadable: list[str] = []

    def walk_error(exc: OSError) -> None:
        unreadable.append(exc.filename or arg)

    for root, dirs, files in os.walk(path, onerror=walk_error):
        dirs.sort()
        found.extend(Path(root) / name for name in files if name.endswith(SOURCE_SUFFIX))
    if unreadable:
        raise UsageError(f"cannot read directory {unreadable[0]!r}")
    if not found:
        raise UsageError(f"no {SOURCE_SUFFIX} files under {arg!r}")
    return sorted(found)


def _check_one(analyzer: Any, path: Path, defines: dict[str, str]) -> FileReport:
    """Check one file. OSError propagates (a usage error); anything else becomes PH900."""
    display = str(path)
    try:
        result = analyzer.check_file(display, defines)
    except OSError:
        raise
    except Exception as exc:
        return FileReport(display, None, [_internal_error(exc)])
    return FileReport(
        display,
        getattr(result, "text", None),
        list(result.diagnostics),
        list(getattr(result, "kinds", None) or []),
    )


def _internal_error(exc: BaseException) -> Any:
    from ..analyzer.diagnostics import Diagnostic, Span

    notes = []
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        where = frames[-1]
        notes.append(f"raised in {where.name} ({Path(where.filename).name}:{where.lineno})")
    notes.append("this is a bug in phobos-tools, not in your program: please report it with this file")
    return Diagnostic(
        code="PH900",
        message=f"internal error: {_describe(exc)}",
        span=Span(1, 1, 1, 1),
        notes=notes,
    )


def _describe(exc: BaseException) -> str:
    """``Type: message``, or ``Type`` alone when the message is empty (or cannot be had)."""
    try:
        detail = str(exc)
    except Exception:
        detail = ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def _file_status(report: FileReport) -> int:
    status = EXIT_OK
    for diag in report.diagnostics:
        if diag.code == "PH900":
            status = max(status, EXIT_INTERNAL)
        elif diag.severity == "error":
            status = max(status, EXIT_PROGRAM_ERROR)
    return status


def _print_text(report: FileReport, after_other_blocks: bool) -> bool:
    """Write one file's diagnostics; True when there were any."""
    from ..analyzer.diagnostics.text import render_text

    blocks = [render_text(d, report.path, report.text) for d in sorted(report.diagnostics, key=_sort_key)]
    if not blocks:
        return False
    lead = "\n" if after_other_blocks else ""
    sys.stdout.write(lead + "\n\n".join(blocks) + "\n")
    return True


def _sort_key(diag: Any) -> tuple[int, int, str]:
    return (diag.span.line, diag.span.column, diag.code)


def _print_summary(reports: list[FileReport], unreadable: int) -> None:
    errors = warnings = files_with_errors = 0
    for report in reports:
        file_errors = sum(1 for d in report.diagnostics if d.severity == "error")
        errors += file_errors
        warnings += sum(1 for d in report.diagnostics if d.severity == "warning")
        files_with_errors += file_errors > 0
    checked = _count(len(reports), "file")
    if errors:
        line = f"{_count(errors, 'error')} in {_count(files_with_errors, 'file')} ({checked} checked)"
    else:
        line = f"{checked} checked, no errors"
    if warnings:
        line += f", {_count(warnings, 'warning')}"
    if unreadable:
        line += f"; {_count(unreadable, 'file')} could not be read"
    sys.stderr.write(f"{PROG}: {line}\n")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _error(message: str) -> None:
    sys.stderr.write(f"{PROG}: error: {message}\n")


def _silence_stdout() -> None:
    # The reader went away (`phobos-check ... | head`): point stdout at /dev/null so the
    # interpreter's final flush does not complain on stderr.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
