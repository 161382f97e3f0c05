"""What the three commands share: exit statuses, usage errors (one line, ``PROG: error: ...``),
``-D NAME=VALUE`` parsing, the literals of the language (a ``-D`` value, a scalar of ``phobos-run``),
and the guard that turns any escaping exception into an exit status and one line, never a
traceback unless ``PHOBOS_TRACEBACK=1`` asks for one (for a bug report)."""

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Callable

from ..language.literals import (I32_MAX, I32_MIN, LITERAL_FORMS, DefineError, define_value,  # noqa: F401
                                 float_fits, is_int_literal, parse_literal)

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1      # the program is rejected
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130      # the shell's 128 + SIGINT
EXIT_BROKEN_PIPE = 141      # the shell's 128 + SIGPIPE

_DEFINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S.*)", re.DOTALL)


class UsageError(Exception):
    """A bad command line or a missing file: exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are UsageError (so one handler prints them, in one line,
    pointing at --help) rather than argparse's usage block and SystemExit."""

    def error(self, message):
        raise UsageError(f"{message} (see {self.prog} --help)")


def add_define_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE",
                   help="bind a compile-time constant: an integer, a float or true/false (repeatable)")


def parse_defines(items: list[str]) -> dict[str, str]:
    """``-D NAME=VALUE`` options as a dict of the values as written (the analyzer reads them).
    Everything a ``-D`` can get wrong without looking at a file is a usage error here: the form,
    a name the language reserves, a value that is no literal or does not fit its constant's type
    (an integer is an ``i32`` constant, a float an ``f32`` one)."""
    defines: dict[str, str] = {}
    for item in items:
        match = _DEFINE.fullmatch(item)
        if match is None:
            raise UsageError(f"-D {item!r}: expected NAME=VALUE, with NAME an identifier and VALUE not empty")
        name, text = match.groups()
        try:
            define_value(name, text)
        except DefineError as e:
            raise UsageError(str(e)) from None
        if name in defines and defines[name] != text:
            raise UsageError(f"-D {name} given twice, as {defines[name]!r} and {text!r}")
        defines[name] = text
    return defines


def path_argument(text: str, what: str, wanted: str = "a .ph file") -> Path:
    """A path from the command line (``what`` names it: ``FILE``, ``-o``); an empty one is a
    usage error, where pathlib would quietly take it for the current directory."""
    if text == "":
        raise UsageError(f"{what}: the path is empty; give {wanted}")
    return Path(text)


OUTPUT_DIR = "a directory (. is the current one)"


def traceback_wanted() -> bool:
    """``PHOBOS_TRACEBACK=1`` (any value but empty or 0): internal errors add their traceback."""
    return os.environ.get("PHOBOS_TRACEBACK", "").strip() not in ("", "0")


def show_traceback(exc: BaseException) -> None:
    """After an internal error's one line, its traceback on stderr when PHOBOS_TRACEBACK asks."""
    if traceback_wanted():
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


def silence_stdout() -> None:
    """The reader went away (``... | head``): point stdout at /dev/null, so that the interpreter's
    final flush does not complain on stderr."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def guarded(prog: str, body: Callable[[list[str]], int], argv: list[str] | None) -> int:
    """Run ``body(argv)``: a UsageError prints ``PROG: error: ...`` (exit 2), Ctrl-C exits 130, a
    closed pipe on stdout 141 quietly, and any other exception is a bug, reported as such in one
    line (exit 3), followed by its traceback under PHOBOS_TRACEBACK=1."""
    try:
        return body(sys.argv[1:] if argv is None else list(argv))
    except UsageError as e:
        sys.stderr.write(f"{prog}: error: {e}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as e:  # noqa: BLE001 - never a traceback: a bug, reported as one
        sys.stderr.write(f"{prog}: internal error: {type(e).__name__}: {e} (please report this)\n")
        show_traceback(e)
        return EXIT_INTERNAL
