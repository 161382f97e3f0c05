"""The literals of the language (LANGUAGE §1) outside a source file: the value of a ``-D NAME=VALUE``
(the command line and ``check_source(defines=...)`` read it here, the same way) and a scalar
argument of ``phobos-run``.

A literal is exactly what §1 writes: decimal and ``0x`` hex integers, floats ``1.0``, ``1e-3``,
``2.5e4`` (not ``.5`` or ``1.``), ``true`` and ``false``; a ``-`` before a number folds into it.
Nothing else: no ``+``, ``_``, ``0o``, ``inf`` or ``nan``, no blanks around it.
"""

from __future__ import annotations

import re
import struct

from .builtins import BUILTINS
from .types import TYPE_WORDS

I32_MIN, I32_MAX = -2**31, 2**31 - 1
# names a program cannot declare, nor a -D bind: the built-ins, the type names and `ctx`
RESERVED = BUILTINS | TYPE_WORDS | {"ctx"}
# the keywords of LANGUAGE §1 (analyzer/syntax/tokens.py's KEYWORDS; a test keeps them equal):
# no program can declare one, and neither can a -D
KEYWORDS = frozenset({"kernel", "fn", "let", "var", "if", "else", "for", "in", "while", "break", "continue",
                      "return", "true", "false"})
LITERAL_FORMS = "an integer (128, -4, 0x40), a float (1.5, -2e-3) or true/false"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT_LITERAL = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|[0-9]+)")
_FLOAT_LITERAL = re.compile(r"-?(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)")
_HUGE = 10**400             # stands for a decimal too long for int(): out of every type's range


class DefineError(ValueError):
    """A ``-D`` binding the language does not allow; the message says why, naming it."""


def parse_literal(text: str) -> int | float | bool | None:
    """``text`` as a literal of the language: an int, a float (inf when it overflows a double),
    a bool; None when it is none of them."""
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


def reserved_what(name: str) -> str:
    """What a reserved name already is."""
    return ("a keyword" if name in KEYWORDS else "a type name" if name in TYPE_WORDS else
            "the thread's context" if name == "ctx" else "a built-in")


SHOWN_CHARACTERS = 40


def shown(text: str) -> str:
    """``text`` as a message quotes it: whole up to SHOWN_CHARACTERS, else its head and tail and
    its length (a 3,600-digit value makes one readable line, not two screens)."""
    if len(text) <= SHOWN_CHARACTERS:
        return text
    return f"{text[:24]}...{text[-8:]} ({len(text):,} characters)"


def _int_text(value: int) -> str:
    try:
        return str(value)
    except ValueError:              # more digits than Python converts: too large for any type
        return hex(value)


def define_value(name: str, value) -> int | float | bool:
    """The value of ``-D NAME=VALUE``: ``value`` is the text of a literal (or, from Python, an
    int, float or bool). An integer is an i32 constant and a float an f32 one, so each must fit;
    ``name`` must be an identifier the language does not reserve. Raises DefineError."""
    text = ("true" if value else "false") if isinstance(value, bool) else \
        _int_text(value) if is_int_literal(value) else str(value)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise DefineError(f"-D {shown(repr(name))}: a constant's name is an identifier (letters, digits, _)")
    where = f"-D {shown(name)}={shown(text)}"
    if name in RESERVED or name in KEYWORDS:
        raise DefineError(f"{where}: `{name}` is reserved ({reserved_what(name)}); bind another name")
    parsed = value if isinstance(value, bool) or is_int_literal(value) else parse_literal(text)
    if parsed is None:
        raise DefineError(f"{where}: the value must be {LITERAL_FORMS}, as the language writes them")
    if is_int_literal(parsed) and not I32_MIN <= parsed <= I32_MAX:
        raise DefineError(f"{where}: {text if len(text) <= SHOWN_CHARACTERS else 'the value'} does not fit in i32 (an integer -D value is an i32 constant)")
    if isinstance(parsed, float) and not float_fits(parsed, "f32"):
        raise DefineError(f"{where}: {text if len(text) <= SHOWN_CHARACTERS else 'the value'} does not fit in f32 (a float -D value is an f32 constant)")
    return parsed
