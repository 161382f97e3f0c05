"""What the three commands share: exit statuses, usage errors (one line, ``PROG: error: ...``),
``-D NAME=VALUE`` parsing, the literals of the language (a ``-D`` value, a scalar of ``phobos-run``),
and the guard that turns any escaping exception into an exit status and one line, never a
traceback unless ``PHOBOS_TRACEBACK=1`` asks for one (for a bug report)."""

from __future__ import annotations

import argparse
import os
import re
import struct
import sys
import traceback
from pathlib import Path
from typing import Callable

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1      # the program is rejected
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130      # the shell's 128 + SIGINT
EXIT_BROKEN_PIPE = 141      # the shell's 128 + SIGPIPE

I32_MIN, I32_MAX = -2**31, 2**31 - 1

_DEFINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S.*)", re.DOTALL)
# LANGUAGE §1: decimal and 0x hex integers, floats `1.0`, `1e-3`, `2.5e4` (not `.5`, `1.`), true
# and false; a `-` before a literal folds into it. Nothing else (no `+`, `_`, `0o`, inf, nan).
_INT_LITERAL = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|[0-9]+)")
_FLOAT_LITERAL = re.compile(r"-?(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)")
_HUGE = 10**400             # stands for a decimal too long for int(): out of every type's range
LITERAL_FORMS = "an integer (128, -4, 0x40), a float (1.5, -2e-3) or true/false"


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


def parse_literal(text: str) -> int | float | bool | None:
    """``text`` as a literal of the language: an int, a float (inf when it overflows a double),
    a bool; None when it is none of them. Exactly the literal: no blanks around it."""
    if text in ("true", "false"):
        return text == "true"
    if _INT_LITERAL.fullmatch(text):
        negative = text.startswith("-")
        body = text[1:] if negative else text
        if body[:2] in ("0x", "0X"):
            value = int(body[2:], 16)
        else:
            value = int(body) if len(body) <= 4000 else _HUGE
        return -value if negative else value
    if _FLOAT_LITERAL.fullmatch(text):
        return float(text)
    return None


def is_int_literal(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def float_fits(value: float | int, type_name: str) -> bool:
    """Does ``value`` round to a finite number of the float type (f16, bf16, f32, f64)?"""
    try:
        x = float(value)
    except OverflowError:                  # an integer literal beyond any double
        return False
    if x != x or x in (float("inf"), float("-inf")):
        return False
    if type_name in ("f32", "f16"):
        try:
            struct.pack("<f" if type_name == "f32" else "<e", x)
        except OverflowError:
            return False
    if type_name == "bf16":
        return abs(x) < 3.3961775292304173e38     # what rounds to bf16's largest, not to inf
    return True


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
        _check_define(name, text)
        if name in defines and defines[name] != text:
            raise UsageError(f"-D {name} given twice, as {defines[name]!r} and {text!r}")
        defines[name] = text
    return defines


def _check_define(name: str, text: str) -> None:
    from ..analyzer.sema.model import RESERVED
    from ..language.types import TYPE_WORDS

    where = f"-D {name}={text}"
    if name in RESERVED:
        what = "a type name" if name in TYPE_WORDS else "the thread's context" if name == "ctx" else "a built-in"
        raise UsageError(f"{where}: `{name}` is reserved ({what}); bind another name")
    value = parse_literal(text)
    if value is None:
        raise UsageError(f"{where}: the value must be {LITERAL_FORMS}, as the language writes them")
    if is_int_literal(value) and not I32_MIN <= value <= I32_MAX:
        raise UsageError(f"{where}: {text} does not fit in i32 (an integer -D value is an i32 constant)")
    if isinstance(value, float) and not float_fits(value, "f32"):
        raise UsageError(f"{where}: {text} does not fit in f32 (a float -D value is an f32 constant)")


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
