"""What the three commands share: exit statuses, usage errors, ``-D NAME=VALUE`` parsing and the
guard that turns any escaping exception into an exit status and one line, never a traceback."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Callable

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1      # the program is rejected
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130      # the shell's 128 + SIGINT

_DEFINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S.*)", re.DOTALL)


class UsageError(Exception):
    """A bad command line or a missing file: exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are UsageError (so one handler prints them) not SystemExit."""

    def error(self, message):
        raise UsageError(message)


def add_define_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE",
                   help="bind a compile-time constant (repeatable)")


def parse_defines(items: list[str]) -> dict[str, str]:
    """``-D NAME=VALUE`` options as a dict; the values stay text (the analyzer reads them)."""
    defines: dict[str, str] = {}
    for item in items:
        match = _DEFINE.fullmatch(item)
        if match is None:
            raise UsageError(f"-D {item!r}: expected NAME=VALUE, with NAME an identifier and VALUE not empty")
        name, value = match.groups()
        if name in defines and defines[name] != value:
            raise UsageError(f"-D {name} given twice, as {defines[name]!r} and {value!r}")
        defines[name] = value
    return defines


def guarded(prog: str, body: Callable[[list[str]], int], argv: list[str] | None) -> int:
    """Run ``body(argv)``: a UsageError prints ``PROG: error: ...`` (exit 2), Ctrl-C exits 130, and
    any other exception is a bug, reported as such in one line (exit 3)."""
    try:
        return body(sys.argv[1:] if argv is None else list(argv))
    except UsageError as e:
        sys.stderr.write(f"{prog}: error: {e}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as e:  # noqa: BLE001 - never a traceback: a bug, reported as one
        sys.stderr.write(f"{prog}: internal error: {type(e).__name__}: {e} (please report this)\n")
        return EXIT_INTERNAL
