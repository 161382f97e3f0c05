"""What the three commands share about living in a shell (DESIGN.md, "Command-line conventions";
docs/configuration.md): `--version`; `-` as the path, reading standard input, named by
`--stdin-filename`; `--color auto|always|never` (auto: colour on a terminal, unless `NO_COLOR` is
set; `FORCE_COLOR` turns it on); `--config FILE` and `--isolated` (cli/config.py)."""

from __future__ import annotations

import argparse
import os
import sys

from .. import package_version
from ..analyzer.api import MAX_SOURCE_BYTES
from ..analyzer.diagnostics.text import colorize, render_text
from .common import UsageError

STDIN = "-"
STDIN_NAME = "<stdin>"
COLOR_CHOICES = ("auto", "always", "never")


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked for (package_version)."""

    def __init__(self, option_strings, dest, prog: str = "", **kw):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kw)
        self.prog = prog

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(f"{self.prog} (phobos-tools) {package_version()}\n")
        parser.exit()


def add_conventions(parser, prog: str) -> None:
    parser.add_argument("--version", action=_Version, prog=prog, help="print the version and exit")
    parser.add_argument("--stdin-filename", metavar="NAME",
                        help="with `-` as the path: the name the source read from standard input goes by "
                             "(in messages, for the configuration and per-file-ignores)")
    parser.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                        help="colour the text output: auto (default: on a terminal, unless NO_COLOR is set; "
                             "FORCE_COLOR forces it), always or never")
    parser.add_argument("--config", metavar="FILE",
                        help="read the configuration from FILE (a phobos.toml, or a pyproject.toml with "
                             "[tool.phobos]) instead of the nearest one")
    parser.add_argument("--isolated", action="store_true", help="read no configuration file")


def color_wanted(choice: str, stream=None) -> bool:
    """Whether to colour text written to ``stream`` (stdout by default)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def stdin_name(args) -> str:
    """The name standard input goes by: `--stdin-filename`, else `<stdin>`."""
    return args.stdin_filename or STDIN_NAME


def check_stdin_filename(args, paths: list[str]) -> None:
    if args.stdin_filename is not None:
        if args.stdin_filename == "":
            raise UsageError("--stdin-filename: the name is empty")
        if STDIN not in paths:
            raise UsageError("--stdin-filename names standard input: it goes with `-` as the path")


def read_stdin() -> bytes:
    """Standard input, at most one byte past the 4 MiB limit (the checker then refuses it, PH002)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise UsageError("standard input is closed")
    try:
        return stream.read(MAX_SOURCE_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot read standard input: {e.strerror or e}") from None


def read_named_source(args, file_arg: str, read_source) -> tuple[bytes, str]:
    """The bytes and the name of a command's FILE argument: standard input for `-` (named by
    `--stdin-filename`), else the file (``read_source``; its OSError propagates)."""
    check_stdin_filename(args, [file_arg])
    if file_arg == STDIN:
        return read_stdin(), stdin_name(args)
    return read_source(file_arg), file_arg


def render_colored(diagnostics, path: str, text: str | None, color: bool) -> str:
    """Diagnostics in the text format, blank-line separated, coloured when ``color``."""
    blocks = []
    for d in diagnostics:
        block = render_text(d, path, text)
        blocks.append(colorize(block, d.severity) if color else block)
    return "\n\n".join(blocks)
