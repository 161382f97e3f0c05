"""``phobos-check``: check Phobos source files and report their diagnostics.

A thin layer over ``phobos_tools.analyzer.check_file``: it parses the command line, collects the
files (a directory means every ``.ph`` file under it), renders each file's diagnostics as text, or
as one JSON or SARIF document, and turns everything into the exit status of DESIGN.md: the worst
over all files of 0 (no errors), 1 (an error in a program), 2 (usage error: no path, a missing or
unreadable file, a bad option) and 3 (internal error, reported as diagnostic PH900). It never
prints a Python traceback, unless PHOBOS_TRACEBACK=1 asks for the one of an internal error.

Beside the diagnostics it reports what the per-thread analysis found: ``--kinds`` (every
binding's kind: the source annotated in text, a ``kinds`` list in JSON), ``--why NAME`` (the chain
behind one binding's kind, text only) and ``--dump-cfg DIR`` (one Graphviz file per kernel).
``--explain CODE`` and ``--list-rules`` print documentation and check nothing. The heavy
third-party modules load when first needed: networkx when a CFG is built, z3 when a path has to be
decided."""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import sys
import traceback
from dataclasses import field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..language.records import record
from .. import analyzer, package_version
from ..analyzer.analysis import release
from ..analyzer.cfg import to_dot
from ..analyzer.diagnostics import Diagnostic, Span
from ..analyzer.diagnostics.json_format import render_json
from ..analyzer.diagnostics.text import render_text
from ..analyzer.facts.schema import KIND_NAMES
from ..analyzer.rules.registry import all_rules, explain_text as rule_text
from ..analyzer.diagnostics.text import colorize
from ..analyzer.fixes import MAX_ROUNDS, apply_fixes
from ..language.targets import DEFAULT_TARGET, TARGETS
from .annotations import github_line, statistics
from .config import Configs, check_lint_codes, lints_enabled, merged_defines
from .conventions import STDIN, add_conventions, check_stdin_filename, color_wanted, read_stdin, stdin_name
from .common import (EXIT_INTERNAL, EXIT_OK, EXIT_PROGRAM_ERROR, EXIT_USAGE, OUTPUT_DIR, Parser, UsageError,
                     add_define_option, describe as _describe, display_path, guarded, parse_defines,
                     path_argument, show_traceback)

PROG = "phobos-check"
SOURCE_SUFFIX = ".ph"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

FORMATS = ("text", "json", "sarif", "html", "github")


@record
class FileReport:
    """What the renderers need about one checked file."""

    path: str
    text: str | None
    diagnostics: list[Any] = field(default_factory=list)
    kinds: list[dict[str, Any]] = field(default_factory=list)
    analyses: list[Any] = field(default_factory=list)   # analyzer.analysis.KernelAnalysis per kernel
    _analysed: bool | None = None       # set by release()
    fixed_source: str | None = None     # --fix on standard input: the fixed source, for stdout

    @property
    def analysed(self) -> bool:
        """Whether the per-thread analysis ran: it did when it produced kernels, or when nothing
        stopped it (no error at all: a file without kernels). Errors of the front end stop it."""
        if self._analysed is not None:
            return self._analysed
        return bool(self.analyses) or not any(d.severity == "error" for d in self.diagnostics)

    def release(self) -> None:
        """Drop the analyses (CFGs, facts, instances) once the file's own output is written: the
        summary and the JSON and SARIF documents need only the diagnostics, kinds and text."""
        self._analysed = self.analysed
        if self.analyses:
            release(self.analyses)
        self.analyses = []


@record
class Options:
    """The checking run the command line asks for (everything but the paths)."""

    format: str = "text"
    kinds: bool = False
    why: str | None = None
    dump_cfg: Path | None = None
    arch: str | None = None      # the target of the resource checks (analyzer/resources.py)
    defines: dict[str, str] = field(default_factory=dict)
    output: Path | None = None   # -o: where the one document (html, json, sarif) goes
    # living with the tool (DESIGN.md): configuration, lints, stdin, colour, fixes
    configs: Configs = field(default_factory=Configs)
    select: list[str] | None = None      # --select / --ignore (None: the configuration's)
    ignore: list[str] | None = None
    stdin_name: str = "<stdin>"
    color: bool = False
    statistics: bool = False
    exit_zero: bool = False
    fix: bool = False


class _Blocks:
    """Writes text blocks on stdout with one blank line between consecutive blocks."""

    def __init__(self) -> None:
        self.written = False

    def write(self, block: str) -> None:
        sys.stdout.write(("\n" if self.written else "") + block + "\n")
        self.written = True


def main(argv: list[str] | None = None) -> int:
    # A short-lived process: the cyclic collector would only rescan the trees each check builds
    # (they hold no cycles worth collecting), which costs ~10% at 10k statements. Off for the run.
    # The guard (cli/common.py) turns Ctrl-C, a closed pipe, an output that cannot be written,
    # running out of memory and a bug outside any one file's check into an exit status.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return guarded(PROG, _main, argv, internal="error: internal error")
    finally:
        if gc_was_enabled:
            gc.enable()


def _main(argv: list[str]) -> int:
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        informational = args.explain is not None or args.list_rules
        if informational:
            _check_informational_args(args, parser)
        else:
            options = _checking_options(args, parser)
    except UsageError as exc:  # the parser's errors and ours: one line
        _error(str(exc))
        return EXIT_USAGE
    except SystemExit as exc:  # --help prints and exits
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE

    if args.explain is not None:
        return _explain(args.explain)
    if args.list_rules:
        return _list_rules()
    return _check_paths(args.paths, options)


def _check_informational_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """--explain and --list-rules print documentation and check nothing."""
    flag = "--explain" if args.explain is not None else "--list-rules"
    if args.explain is not None and args.list_rules:
        parser.error("give --explain CODE or --list-rules, not both")
    if args.paths:
        parser.error(f"{flag} checks no file: drop the PATH arguments, or run them without {flag}")
    for option, name in (("why", "--why"), ("kinds", "--kinds"), ("dump_cfg", "--dump-cfg"), ("output", "-o")):
        if getattr(args, option) not in (None, False):
            parser.error(f"{flag} checks no file, so {name} has nothing to report on")


def _checking_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Options:
    if not args.paths:
        parser.error("no path given (a .ph file, or a directory to check every .ph file under it)")
    check_stdin_filename(args, args.paths)
    configs = Configs(args.config, args.isolated)
    first = stdin_name(args) if args.paths[0] == STDIN else args.paths[0]
    if os.path.isdir(first):
        first = os.path.join(first, "any" + SOURCE_SUFFIX)     # a directory's own configuration
    args.format = args.format or configs.for_file(first).format or "text"
    defines = parse_defines(args.defines)      # a bad -D is a UsageError of its own
    if args.arch is not None:
        if args.arch not in TARGETS:
            parser.error(f"--arch: unknown target {args.arch!r}; the targets are {', '.join(TARGETS)}")
    if args.why is not None:
        if args.format != "text":
            parser.error(f"--why prints text; it cannot be combined with --format {args.format}")
        if not _IDENTIFIER.fullmatch(args.why):
            parser.error(f"--why: expected the name of a binding, got {args.why!r}")
    if args.kinds and args.format == "sarif":
        parser.error("--kinds goes with --format text or json; SARIF has no place for kinds")
    dump_cfg = None
    if args.dump_cfg is not None:
        dump_cfg = path_argument(args.dump_cfg, "--dump-cfg", OUTPUT_DIR)
        try:
            dump_cfg.mkdir(parents=True, exist_ok=True)
        except (OSError, ValueError) as exc:
            raise UsageError(f"--dump-cfg: cannot create the directory {args.dump_cfg!r}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None
    output = None
    if args.output is not None:
        if args.format not in ("html", "json", "sarif"):
            parser.error("-o writes one document: it goes with --format html, json or sarif")
        output = path_argument(args.output, "-o", "a file to write")
    if args.statistics and args.format not in ("text", "github"):
        parser.error(f"--statistics prints text; it cannot be combined with --format {args.format}")
    if args.fix and args.paths.count(STDIN) and len(args.paths) > 1:
        parser.error("--fix on `-` prints the fixed source: give `-` alone")
    select, ignore = (None if not getattr(args, flag) else check_lint_codes(
        [c for item in getattr(args, flag) for c in item.split(",") if c.strip()],
        lambda what, f=flag: UsageError(f"--{f}: {what}")) for flag in ("select", "ignore"))
    return Options(args.format, args.kinds, args.why, dump_cfg, args.arch, defines, output=output,
                   configs=configs, select=select, ignore=ignore, stdin_name=stdin_name(args),
                   color=args.format == "text" and color_wanted(args.color), statistics=args.statistics,
                   exit_zero=args.exit_zero, fix=args.fix)


def _check_paths(path_args: list[str], options: Options) -> int:
    status = EXIT_OK
    paths: dict[Path, None] = {}  # ordered, without repeats (a file named and under a directory)
    for arg in path_args:
        try:
            paths.update(dict.fromkeys([Path(STDIN)] if arg == STDIN else collect_sources(arg)))
        except UsageError as exc:
            _error(str(exc))
            status = EXIT_USAGE


    reports: list[FileReport] = []
    unreadable = 0
    blocks = _Blocks()
    why_found = 0
    cfg_names: set[str] = set()   # files written by --dump-cfg in this run
    pages: list[Any] = []         # --format html: what the page shows of each file
    garbage = _Garbage()
    for path in paths:
        try:
            report = _check_configured(path, options)
        except OSError as exc:
            _error(f"cannot read {str(path)!r}: {exc.strerror or exc}")
            status = max(status, EXIT_USAGE)
            unreadable += 1
            continue
        status = max(status, _file_status(report))
        reports.append(report)
        if options.format == "github":
            for diag in sorted(report.diagnostics, key=_sort_key):
                sys.stdout.write(github_line(diag, display_path(report.path)) + "\n")
        if options.format == "text":
            _print_text(report, blocks, options.color)
            try:
                if options.kinds:
                    _print_kinds(report, blocks)
                if options.why is not None:
                    why_found += _print_why(report, options.why, blocks)
            except (OSError, MemoryError):   # the output failed, or memory ran out: the guard's
                raise
            except Exception as exc:  # a bug in reporting kinds: say so, keep the other files
                _error(f"internal error: cannot report the kinds of {report.path}: {_describe(exc)} "
                       "(please report this)")
                show_traceback(exc)
                status = max(status, EXIT_INTERNAL)
        if options.dump_cfg is not None:
            status = max(status, _dump_cfgs(report, options.dump_cfg, cfg_names))
        if options.format == "html":
            status = max(status, _page_of(report, pages))
        report.release()
        garbage.file_done(len(report.text or ""))

    if options.format == "json":
        status = max(status, _write_document(_portable_json(render_json(reports, with_kinds=options.kinds)) + "\n",
                                             options.output))
    elif options.format == "sarif":
        status = max(status, _write_document(_portable_json(_render_sarif(reports)) + "\n", options.output))
    elif options.format == "html":
        from .html import render_page        # (this and the other imports in functions: start-up)
        status = max(status, _write_document(render_page(pages), options.output))
    elif reports:
        why_missing = options.why is not None and not why_found
        if why_missing:       # a usage error: its message is the last word, with no summary
            _why_not_found(options.why, reports)
            status = max(status, EXIT_USAGE)
        if options.statistics:
            sys.stdout.write(("\n" if blocks.written else "") + statistics(reports))
        if not why_missing:
            _print_summary(reports, unreadable)
    sys.stdout.flush()
    if options.exit_zero and status == EXIT_PROGRAM_ERROR:
        status = EXIT_OK          # --exit-zero: errors in programs do not fail the run (2, 3 do)
    return status


def _page_of(report: FileReport, pages: list[Any]) -> int:
    """Add what the HTML page shows of one file (taken while its analysis is held); the exit
    status this contributes (3 when a bug stops it: the file then shows its diagnostics only)."""
    from .html import page_file
    try:
        pages.append(page_file(report))
        return EXIT_OK
    except MemoryError:
        raise
    except Exception as exc:
        _error(f"internal error: cannot show the kinds of {report.path}: {_describe(exc)} (please report this)")
        show_traceback(exc)
        report.analyses = []
        pages.append(page_file(report))
        return EXIT_INTERNAL


def _write_document(document: str, output: Path | None) -> int:
    """Write one document (html, json, sarif) to stdout, or to the file of ``-o``."""
    if output is None:
        sys.stdout.write(document)
        return EXIT_OK
    try:
        output.write_text(document, encoding="utf-8", errors="surrogateescape")
    except (OSError, ValueError) as exc:
        _error(f"-o: cannot write {str(output)!r}: {getattr(exc, 'strerror', None) or exc}")
        return EXIT_USAGE
    _say(f"wrote {display_path(str(output))}")
    return EXIT_OK


class _Garbage:
    """Collects the cycles that checked files leave behind, now and then.

    main() turns the cyclic collector off for the run. A released report (FileReport.release)
    leaves no cycles behind, so reference counting frees each file's trees; what may still be
    left in a cycle (the instances of a function no kernel calls, which the CLI never sees) is
    collected after every ``EVERY_BYTES`` of checked source. Before: a directory of 300 files of
    1,000 statements grew to 1.4 GB."""

    EVERY_BYTES = 1 << 20

    def __init__(self) -> None:
        self.pending = 0

    def file_done(self, size: int) -> None:
        self.pending += size
        if self.pending >= self.EVERY_BYTES:
            self.pending = 0
            gc.collect()


def _build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Check Phobos kernels: syntax, names, types and shapes, and the per-thread rules.",
        epilog="Exit status: 0 no errors, 1 an error in a program, 2 usage error, 3 internal error.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="a .ph file, or a directory: every .ph file under it")
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="output format (default: text, or the configuration's `format`); json, sarif and html "
                             "print one document for all files, github one annotation per diagnostic")
    add_define_option(parser)
    parser.add_argument("--arch", metavar="TARGET", help="target for resource checks, e.g. sm_90")
    parser.add_argument("--kinds", action="store_true",
                        help="every let/var/loop binding's kind: in text the source with the kinds "
                             "beside it, in JSON a `kinds` list per file")
    parser.add_argument("--why", metavar="NAME",
                        help="print the chain that gives each binding named NAME its kind (text only)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the document of --format html, json or sarif to FILE instead of stdout")
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a code and exit")
    parser.add_argument("--list-rules", action="store_true", help="list the per-thread rules and exit")
    parser.add_argument("--dump-cfg", metavar="DIR",
                        help="write each kernel's control-flow graph to DIR/<file stem>.<kernel>.dot")
    add_conventions(parser, PROG)
    lints = parser.add_argument_group("lints and fixes (docs/configuration.md)")
    lints.add_argument("--select", action="append", metavar="CODES",
                       help="report only these lints (comma-separated PH5xx codes; errors are always on)")
    lints.add_argument("--ignore", action="append", metavar="CODES",
                       help="do not report these lints (comma-separated PH5xx codes)")
    lints.add_argument("--statistics", action="store_true", help="after the diagnostics, print a count per code")
    lints.add_argument("--exit-zero", action="store_true",
                       help="exit 0 even when a program has errors (usage and internal errors keep 2 and 3)")
    lints.add_argument("--fix", action="store_true",
                       help="apply the certain fixes in place (on `-`: print the fixed source), check again "
                            "and report what remains")
    return parser


def collect_sources(arg: str) -> list[Path]:
    """The files one PATH argument names: itself, or every `.ph` file under a directory, sorted."""
    path = path_argument(arg, "PATH", "a .ph file or a directory")
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


def _check_configured(path: Path, options: Options) -> FileReport:
    """Check one file (``-``: standard input) with its configuration (cli/config.py: `arch`,
    `defines`, the lints chosen), fixing it first with ``--fix``. OSError propagates (a usage
    error); anything else becomes PH900."""
    from_stdin = str(path) == STDIN
    name = options.stdin_name if from_stdin else str(path)
    config = options.configs.for_file(name)
    defines = merged_defines(config, options.defines)
    arch = options.arch or config.arch
    lints = lints_enabled(config, options.select, options.ignore, name)
    fixed_source = None
    try:
        if from_stdin:
            result = analyzer.check_source(read_stdin(), name, defines, arch or DEFAULT_TARGET, lints)
        else:
            # the default target is check_file's own; --arch and the configuration pass another
            result = (analyzer.check_file(name, defines, arch, lints=lints) if arch
                      else analyzer.check_file(name, defines, lints=lints))
        arch = arch or DEFAULT_TARGET
        if options.fix:
            result, fixed_source, applied = _fix(result, name, defines, arch, lints)
            if applied and not from_stdin:
                Path(name).write_text(fixed_source, encoding="utf-8")
            if applied:
                _say(f"{name}: applied {applied} {'fix' if applied == 1 else 'fixes'}")
            if from_stdin:
                sys.stdout.write(fixed_source if fixed_source is not None else (result.text or ""))
                fixed_source = fixed_source if fixed_source is not None else (result.text or "")
            else:
                fixed_source = None
    except (OSError, MemoryError):
        raise
    except Exception as exc:
        show_traceback(exc)
        return FileReport(display_path(name), None, [_internal_error(exc)])
    report = FileReport(name, getattr(result, "text", None), list(result.diagnostics),
                        list(getattr(result, "kinds", None) or []), list(getattr(result, "analyses", None) or []))
    report.fixed_source = fixed_source
    return report


def _fix(result, name: str, defines, arch: str, lints):
    """Apply the fixes of ``result`` and check again, until none applies (at most MAX_ROUNDS
    times): (the last result, the fixed text or None, how many fixes were applied)."""
    applied = 0
    text = None
    for _ in range(MAX_ROUNDS):
        if result.text is None:
            break
        new_text, n = apply_fixes(result.text, result.diagnostics)
        if n == 0 or new_text == result.text:
            break
        applied += n
        text = new_text
        release(result.analyses)
        result = analyzer.check_source(new_text, name, defines, arch, lints)
    return result, text, applied


def _check_one(analyzer: Any, path: Path, defines: dict[str, str], options_arch: str | None = None) -> FileReport:
    """Check one file. OSError propagates (a usage error); anything else becomes PH900."""
    display = str(path)
    try:
        # the default target is check_file's own; --arch passes another
        result = (analyzer.check_file(display, defines, options_arch) if options_arch
                  else analyzer.check_file(display, defines))
    except (OSError, MemoryError):      # a usage error; out of memory, which the guard reports
        raise
    except Exception as exc:
        show_traceback(exc)
        return FileReport(display, None, [_internal_error(exc)])
    return FileReport(
        display,
        getattr(result, "text", None),
        list(result.diagnostics),
        list(getattr(result, "kinds", None) or []),
        list(getattr(result, "analyses", None) or []),
    )


def _internal_error(exc: BaseException) -> Any:

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


def _file_status(report: FileReport) -> int:
    status = EXIT_OK
    for diag in report.diagnostics:
        if diag.code == "PH900":
            status = max(status, EXIT_INTERNAL)
        elif diag.severity == "error":
            status = max(status, EXIT_PROGRAM_ERROR)
    return status


def _print_text(report: FileReport, blocks: _Blocks, color: bool = False) -> None:
    """Write one file's diagnostics, one block each (on stderr when stdout holds the source that
    `--fix` fixed on standard input)."""

    shown = display_path(report.path)
    for diag in sorted(report.diagnostics, key=_sort_key):
        text = render_text(diag, shown, report.text)
        if report.fixed_source is not None:
            sys.stderr.write(text + "\n\n")
        else:
            blocks.write(colorize(text, diag.severity) if color else text)


# --- what the analysis found: --kinds, --why, --dump-cfg --------------------------------------

def _binding_kinds(report: FileReport, name: str | None = None) -> list[Any]:
    """The file's bindings (those named ``name``, or all) as ``BindingKind`` records, in source
    order; chains only for ``--why`` (a name given), since they cost a walk each."""
    from ..analyzer.diagnostics.kinds_text import BindingKind

    records = []
    for analysis in report.analyses:
        for binding, instance in analysis.bindings:
            if name is not None and binding.name != name:
                continue
            chain = tuple(analysis.why(binding)) if name is not None else ()
            notes = tuple(analysis.why_notes(binding)) if name is not None else ()
            records.append(BindingKind(analysis.name, binding.name, binding.span,
                                       KIND_NAMES[analysis.kind_of(binding)], _inlined_calls(instance), chain,
                                       notes))
    records.sort(key=lambda r: (r.span.line, r.span.column, r.kernel,
                                tuple((s.line, s.column) for _, s in r.calls)))
    return records


# the language server (lsp/) builds its hovers and inlay hints from the same records
binding_kinds = _binding_kinds


def _inlined_calls(instance: Any) -> tuple:
    """(function, call span) for each call the instance was inlined through, kernel side first."""
    calls = []
    while instance is not None and getattr(instance, "parent", None) is not None:
        calls.append((instance.name, instance.call_span))
        instance = instance.parent
    return tuple(reversed(calls))


def _print_kinds(report: FileReport, blocks: _Blocks) -> None:

    from ..analyzer.diagnostics.kinds_text import render_kinds_listing
    records = _binding_kinds(report) if report.analysed else []
    blocks.write(render_kinds_listing(display_path(report.path), report.text, records, analysed=report.analysed))


def _print_why(report: FileReport, name: str, blocks: _Blocks) -> int:
    """Write the chain of every binding called ``name`` in the file; how many there were."""

    from ..analyzer.diagnostics.kinds_text import render_why
    records = _binding_kinds(report, name)
    for record in records:
        blocks.write(render_why(display_path(report.path), report.text, record))
    return len(records)


def _why_not_found(name: str, reports: list[FileReport]) -> None:
    unanalysed = sum(1 for r in reports if not r.analysed)
    message = (f"--why: no binding named {name!r} in the checked files (--why explains the kinds of "
               "let, var and loop bindings of scalars and runs; tiles, tensors and views have none)")
    if unanalysed:
        message += f"; {_count(unanalysed, 'file')} not analysed because of the errors above"
    _error(message)


def _dump_cfgs(report: FileReport, directory: Path, written: set[str]) -> int:
    """Write one DOT file per kernel of the file; the exit status this contributes."""
    if not report.analysed:
        _say(f"no CFG for {report.path}: its errors stop the analysis before the CFG is built")
        return EXIT_OK
    if not report.analyses:
        _say(f"no CFG for {report.path}: it has no kernel")
        return EXIT_OK

    status = EXIT_OK
    stem = Path(report.path).stem
    for analysis in report.analyses:
        name = _unused_name(f"{stem}.{analysis.name}", written)
        target = directory / name
        try:
            dot = to_dot(analysis.cfg)
        except MemoryError:
            raise
        except Exception as exc:  # a bug in the CFG printer: say so, keep the other kernels
            _error(f"internal error: cannot draw the CFG of kernel {analysis.name!r} in "
                   f"{report.path}: {_describe(exc)} (please report this)")
            show_traceback(exc)
            status = max(status, EXIT_INTERNAL)
            continue
        try:
            target.write_text(dot, encoding="utf-8")
        except OSError as exc:
            _error(f"cannot write {str(target)!r}: {exc.strerror or exc}")
            status = max(status, EXIT_USAGE)
            continue
        _say(f"wrote {target} (kernel {analysis.name} of {report.path})")
    return status


def _unused_name(base: str, written: set[str]) -> str:
    # Two files with one stem (a/k.ph, b/k.ph) and a kernel name in common would overwrite each
    # other's graph: the second gets a number (k.k.2.dot), and the message says which is which.
    name, n = f"{base}.dot", 1
    while name in written:
        n += 1
        name = f"{base}.{n}.dot"
    written.add(name)
    return name


def _render_sarif(reports: list[FileReport]) -> str:
    from ..analyzer.diagnostics.sarif import RuleInfo, render_sarif
    rules = [RuleInfo(m.RULE.code, m.RULE.name, m.RULE.severity, m.RULE.summary, rule_text(m.RULE.code) or "")
             for m in all_rules()]
    if not any(_not_utf8(r.path) for r in reports):
        return render_sarif(reports, rules, package_version())
    # A name that is not UTF-8 has no UTF-8 to percent-encode: each file goes to the renderer
    # under a stand-in name (in the files' order, which the renderer sorts by), and the URI of
    # its bytes (`k%FF.ph`) takes the stand-in's place in the document.
    ordered = sorted(reports, key=lambda r: str(r.path))
    stand_ins = {}
    renamed = []
    for n, report in enumerate(ordered):
        stand_in = f"phobos-stand-in-{n:09d}"
        stand_ins[stand_in] = _uri_of_bytes(os.fsencode(report.path))
        renamed.append(_Renamed(stand_in, report.diagnostics))
    document = render_sarif(renamed, rules, package_version())
    return re.sub(r'"uri": "(phobos-stand-in-[0-9]{9})"', lambda m: f'"uri": "{stand_ins[m.group(1)]}"', document)


@record
class _Renamed:
    path: str
    diagnostics: list


def _not_utf8(path: str) -> bool:
    return any(0xDC80 <= ord(c) <= 0xDCFF for c in path)


def _uri_of_bytes(name: bytes) -> str:
    """A relative (or absolute-path) URI reference for a file name given as bytes, as the SARIF
    renderer writes one for a name in UTF-8: separators become ``/``, the rest is
    percent-encoded."""
    return quote(name.replace(b"\\", b"/"), safe="/-._~!$&'()*+,;=@")


def _portable_json(document: str) -> str:
    """A JSON or SARIF document ready for stdout: a file name that is not UTF-8 keeps its
    undecodable bytes as the escapes ``\\udcNN`` (Python's surrogate escapes: ``json.loads``
    then ``os.fsencode`` give the name back), and where stdout cannot encode a character (an
    ASCII locale) it is written as a ``\\uNNNN`` escape, so the document stays valid JSON."""
    document = _LONE_SURROGATE.sub(_json_escape, document)
    try:
        document.encode(getattr(sys.stdout, "encoding", None) or "utf-8")
    except UnicodeEncodeError:
        document = _NON_ASCII.sub(_json_escape, document)
    except LookupError:
        pass
    return document


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_NON_ASCII = re.compile("[^\x00-\x7f]")


def _json_escape(m: re.Match) -> str:
    return json.dumps(m.group())[1:-1]


# --- documentation: --explain, --list-rules ---------------------------------------------------

def _explain(code: str) -> int:
    from ..analyzer.diagnostics.explain import explain_text
    text = explain_text(code)
    if text:
        sys.stdout.write(text + "\n")
        return EXIT_OK
    _error(f"--explain: unknown code {code!r} (codes look like PH301; phobos-check --list-rules "
           "lists the per-thread rules)")
    return EXIT_USAGE


def _list_rules() -> int:

    rows = [("code", "name", "severity", "summary")]
    rows += [(m.RULE.code, m.RULE.name, m.RULE.severity, m.RULE.summary) for m in all_rules()]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        sys.stdout.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[3] + "\n")
    return EXIT_OK


def _sort_key(diag: Any) -> tuple[int, int, str]:
    return (diag.span.line, diag.span.column, diag.code)


def _print_summary(reports: list[FileReport], unreadable: int) -> None:
    sys.stdout.flush()      # a reader that went away ends the run here (141), with no summary
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


def _say(message: str) -> None:
    sys.stderr.write(f"{PROG}: {message}\n")


if __name__ == "__main__":
    sys.exit(main())
