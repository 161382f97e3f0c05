"""What the three commands share: exit statuses, usage errors (one line, ``PROG: error: ...``),
``-D NAME=VALUE`` parsing, the literals of the language (a ``-D`` value, a scalar of ``phobos-run``),
and the guard that turns any escaping exception into an exit status and one line, never a
traceback unless ``PHOBOS_TRACEBACK=1`` asks for one (for a bug report)."""

from __future__ import annotations

import argparse
import codecs
import gc
import io
import os
import re
import signal
import sys
import threading
import traceback
from pathlib import Path
from typing import Callable

from . import exit_interrupted
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


def describe(exc: BaseException) -> str:
    """``Type: message``, or ``Type`` alone when the message is empty (or cannot be had)."""
    try:
        detail = str(exc)
    except Exception:  # noqa: BLE001 - a message that cannot be formatted is left out
        detail = ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


# --- names that are not UTF-8, and streams that cannot take every character -----------------

def _escape(err: UnicodeError):
    """Codec error handler ``phobos-escape``: a byte of a file name that is not UTF-8 (Python's
    surrogate escape, U+DC80..U+DCFF) becomes ``\\xNN``, any other character the stream cannot
    encode a ``\\uNNNN`` or ``\\UNNNNNNNN`` escape."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for ch in err.object[err.start:err.end]:
        o = ord(ch)
        out.append(f"\\x{o - 0xDC00:02x}" if 0xDC80 <= o <= 0xDCFF else
                   f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}")
    return "".join(out), err.end


codecs.register_error("phobos-escape", _escape)


def display_path(path) -> str:
    """A path as the commands print it: a name that is not valid UTF-8 (which Python decodes
    with surrogate escapes) shows each of its undecodable bytes as ``\\xNN``, so that it prints
    on any output; every other name is unchanged."""
    text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    return text.encode("utf-8", "phobos-escape").decode("utf-8")


def encodable(text: str, encoding: str | None) -> str:
    """``text`` with what ``encoding`` cannot hold escaped (``phobos-escape``)."""
    encoding = encoding or "utf-8"
    return text.encode(encoding, "phobos-escape").decode(encoding)


# --- standard output and error ---------------------------------------------------------------

class OutputError(Exception):
    """Standard output cannot be written (full, closed, another I/O error; a reader that went
    away is BrokenPipeError instead): one line and exit 2."""


class _GuardedOutput:
    """``sys.stdout`` while a command runs: text a stream cannot encode is escaped rather than
    fatal, an unbuffered stream (PYTHONUNBUFFERED) is written in full or not at all (its raw
    write may take only part of the text, which would lose the rest without an error), and an
    I/O error other than a closed pipe becomes OutputError. ``stream`` None: stdout was closed
    when the command started."""

    def __init__(self, stream):
        self._stream = stream
        buffer = getattr(stream, "buffer", None)
        self._raw = buffer if isinstance(buffer, io.RawIOBase) else None

    def write(self, text: str) -> int:
        stream = self._stream
        if stream is None:
            raise OutputError("standard output is closed")
        try:
            if self._raw is not None:
                self._write_raw(text)
            else:
                try:
                    stream.write(text)
                except UnicodeEncodeError:
                    stream.write(encodable(text, getattr(stream, "encoding", None)))
        except (BrokenPipeError, OutputError):
            raise
        except OSError as e:
            raise OutputError(e.strerror or str(e)) from None
        return len(text)

    def _write_raw(self, text: str) -> None:
        stream = self._stream
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            data = text.encode(encoding, getattr(stream, "errors", None) or "strict")
        except UnicodeEncodeError:
            data = text.encode(encoding, "phobos-escape")
        stream.flush()
        view = memoryview(data)
        while view:
            n = self._raw.write(view)
            view = view[n or 0:]

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e.strerror or str(e)) from None

    def __getattr__(self, name):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


class _QuietErrors:
    """``sys.stderr`` while a command runs: messages are its only channel besides the exit
    status, so a stderr that is closed, full or gone loses them without changing that status."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is not None:
            try:
                self._stream.write(text)
            except (OSError, ValueError):
                pass
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                pass

    def __getattr__(self, name):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def _hold_standard_descriptors() -> None:
    """A descriptor 0, 1 or 2 closed when the command started (``>&-``) gets /dev/null, so that
    no file the command opens later, nor a child such as ptxas, takes its place. Python has
    already set the matching ``sys`` stream to None, and stays so."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                pass


def silence_stdout() -> None:
    """The reader went away (``... | head``) or the output failed: point stdout at /dev/null, so
    that the interpreter's final flush of what is still buffered does not complain on stderr."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


# --- Ctrl-C ----------------------------------------------------------------------------------

def _interrupts_raise():
    """Make Ctrl-C raise KeyboardInterrupt while the command's body runs (so that its cleanups
    run and ``guarded`` turns it into 130); return the handler to put back, or None when SIGINT is
    someone else's (ignored, or a handler of a program that imports the commands)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    if previous not in (signal.default_int_handler, exit_interrupted):
        return None
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return previous


def _interrupts_exit() -> None:
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, exit_interrupted)
    # an object half built when the interrupt came (a z3 Context or Solver whose __init__ was cut
    # short) fails in its __del__ when it is collected; Python would print that as "Exception
    # ignored ... Traceback" on the way out. The command is ending with 130: say nothing more.
    sys.unraisablehook = _ignore_unraisable


def _ignore_unraisable(unraisable) -> None:
    pass


# --- the guard -------------------------------------------------------------------------------

MEMORY_RESERVE = 1 << 20        # freed when memory runs out, for the one line that says so


def guarded(prog: str, body: Callable[[list[str]], int], argv: list[str] | None,
            internal: str = "internal error") -> int:
    """Run ``body(argv)`` and turn what escapes it into an exit status and at most one line on
    stderr, never a traceback (unless PHOBOS_TRACEBACK asks, for a bug):

    - UsageError: ``PROG: error: ...``, 2; an output that cannot be written (full, closed):
      ``PROG: error: cannot write the output: ...``, 2;
    - a reader of stdout that went away (``| head``): 141, silently, whatever the buffering;
    - Ctrl-C: 130 (a second Ctrl-C while winding down ends the process with 130 at once);
    - MemoryError: ``PROG: error[PH900]: out of memory``, 3, written without allocating;
    - any other exception is a bug: ``PROG: <internal>: Type: message (please report this)``, 3.

    Standard output is flushed before the status is returned, so that its errors are caught
    here and not by the interpreter's exit.

    ``argv`` None means a command (its script reads ``sys.argv``), whose process ends when this
    returns: what was built until then lives until the exit, so it is moved out of the cyclic
    collector's reach (``gc.freeze``), at the start (the imports' objects, which every collection
    during the run would walk again) and at the end (the interpreter's last full collection would
    walk everything, tens of milliseconds at start-up scale; issue 22)."""
    command = argv is None
    if command:
        gc.freeze()
    argv = sys.argv[1:] if argv is None else list(argv)
    out_of_memory = f"{prog}: error[PH900]: out of memory (an internal error: phobos-tools ran out of " \
                    "memory; more memory, or a smaller input, may help)\n".encode()
    reserve = bytearray(MEMORY_RESERVE)
    _hold_standard_descriptors()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _GuardedOutput(stdout), _QuietErrors(stderr)
    previous = _interrupts_raise()
    try:
        try:
            status = body(argv)
            sys.stdout.flush()
            return status
        except UsageError as e:
            sys.stderr.write(f"{prog}: error: {e}\n")
            return EXIT_USAGE
        except OutputError as e:
            silence_stdout()
            sys.stderr.write(f"{prog}: error: cannot write the output: {e}\n")
            return EXIT_USAGE
        except KeyboardInterrupt:
            _interrupts_exit()
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            silence_stdout()
            return EXIT_BROKEN_PIPE
        except MemoryError:
            del reserve
            try:
                os.write(2, out_of_memory)
            except OSError:
                pass
            return EXIT_INTERNAL
        except Exception as e:  # noqa: BLE001 - never a traceback: a bug, reported as one
            sys.stderr.write(f"{prog}: {internal}: {describe(e)} (please report this)\n")
            show_traceback(e)
            return EXIT_INTERNAL
    except KeyboardInterrupt:          # a Ctrl-C in one of the handlers above
        _interrupts_exit()
        return EXIT_INTERRUPTED
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        if previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, previous)
        if command:
            gc.freeze()
