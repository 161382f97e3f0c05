"""The Phobos tokenizer: one compiled regular expression, Go's newline rule, generic-call heads.

lark's own lexer is slow in Python, so this module turns source text into tokens that lark's
LALR tables consume directly. Each token's ``start_pos`` is its index in the token list
(the parser's error recovery uses it); ``line``/``column`` are 1-based code points.

Statement ends (LANGUAGE §1): a newline ends a statement when the line's last token is an
identifier, a literal, ``)``, ``]``, ``}``, ``break``, ``continue`` or ``return``, except inside
``(..)`` and ``[..]``. The lexer inserts an implicit ``SEMI`` there. A newline that would end a
statement right before ``{`` or ``else`` is the error the spec names ("put `{` on the line of the
condition"; "`else` must follow `}` on the same line"); the lexer reports it and joins the lines
so that parsing goes on.
"""

from __future__ import annotations

import re

from ...language.builtins import BUILTINS
from ..diagnostics.model import Diagnostic, Edit, Fix, Span

KEYWORDS = {
    "kernel": "KERNEL", "fn": "FN", "let": "LET", "var": "VAR", "if": "IF", "else": "ELSE",
    "for": "FOR", "in": "IN", "while": "WHILE", "break": "BREAK", "continue": "CONTINUE",
    "return": "RETURN", "true": "TRUE", "false": "FALSE",
}

# Only a built-in name opens a generic call (`sum<over ...`, `shfl<xor ...`, LANGUAGE §1); the
# semantic pass says which built-ins accept one. `i<idx` with a variable `i` stays a comparison.
GENERIC_MODES = ("over", "xor", "up", "down", "idx")

PUNCT = {
    "(": "LPAR", ")": "RPAR", "[": "LSQB", "]": "RSQB", "{": "LBRACE", "}": "RBRACE",
    ",": "COMMA", ":+": "SPANOP", ":": "COLON", "->": "ARROW", "@": "AT", ".": "DOT", ";": "SEMI",
    "+": "PLUS", "-": "MINUS", "*": "STAR", "/": "SLASH", "%": "PERCENT", "<<": "SHL", ">>": "SHR",
    "&&": "ANDAND", "||": "OROR", "&": "AMP", "^": "CARET", "|": "PIPE", "!": "BANG", "~": "TILDE",
    "==": "EQEQ", "!=": "NE", "<=": "LE", ">=": "GE", "<": "LT", ">": "GT", "=": "ASSIGN",
    "+=": "AUGOP", "-=": "AUGOP", "*=": "AUGOP", "/=": "AUGOP", "%=": "AUGOP", "&=": "AUGOP",
    "|=": "AUGOP", "^=": "AUGOP", "<<=": "AUGOP", ">>=": "AUGOP",
}

# Every terminal the grammar declares (kept in sync with phobos.lark's %declare).
TERMINALS = sorted(set(KEYWORDS.values()) | set(PUNCT.values()) | {"NAME", "INT", "FLOAT", "GENERIC"})

_punct_alts = "|".join(re.escape(p) for p in sorted(PUNCT, key=len, reverse=True))
# A match is a token with the blanks before it (one loop turn per token, not two); blanks that
# no token follows (before a bad character, at the end) match alone as `ws`. The blanks are
# taken possessively, so a bad character after a long run costs no backtracking. Names come
# first: they are most of the tokens, and no other pattern starts with a letter or `_`.
TOKEN_RE = re.compile(
    r"[ \t\r]*+(?:"
    r"(?P<name>[^\W\d]\w*+)"
    r"|(?P<nl>\n)"
    r"|(?P<comment>//[^\n]*)"
    r"|(?P<float>[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)"
    r"|(?P<dotdot>\.\.)"
    r"|(?P<badnum>[0-9]+\.(?![0-9.])|\.[0-9]+|0[xX](?![0-9a-fA-F]))"
    r"|(?P<hex>0[xX][0-9a-fA-F]+)"
    r"|(?P<int>[0-9]+)"
    rf"|(?P<punct>{_punct_alts})"
    r")|(?P<ws>[ \t\r]+)"
)
# After the name of a built-in (not preceded by an ASCII letter, digit or `_`), the rest of a
# generic call's head: `<` and the mode, with blanks before the `<` (reported) or after it. The
# tokens the main pattern finds inside it are skipped.
_GENERIC_REST_RE = re.compile(r"([ \t]*)<[ \t]*(?:over|xor|up|down|idx)(?![A-Za-z0-9_])")
_GENERIC_HEAD_NAMES = frozenset(BUILTINS)
_WORD_BYTES = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

# Tokens after which a newline ends a statement (LANGUAGE §1).
_ENDS_STATEMENT = {"NAME", "INT", "FLOAT", "TRUE", "FALSE", "RPAR", "RSQB", "RBRACE", "BREAK",
                   "CONTINUE", "RETURN"}
_HEADS = {"IF": "the condition", "WHILE": "the condition", "FOR": "the `for`",
          "KERNEL": "the kernel's header", "FN": "the function's header", "ELSE": "the `else`"}

# Literals longer than this are out of range for every type; we never convert them (Python
# refuses int() of more than 4300 digits, and the value could never be used anyway).
MAX_LITERAL_DIGITS = 40
HUGE = 1 << 200


class Tok:
    """A token. Lighter than lark's ``Token`` (a str subclass), which matters at 100k tokens;
    our LALR driver (parser.py) needs only ``type``."""

    __slots__ = ("type", "value", "index", "line", "column", "end_column")

    def __init__(self, type, value, index, line, column, end_column):
        self.type = type
        self.value = value
        self.index = index
        self.line = line
        self.column = column
        self.end_column = end_column

    @property
    def end_line(self) -> int:
        return self.line

    @property
    def span(self) -> Span:
        return Span(self.line, self.column, self.line, self.end_column)

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r}, {self.line}:{self.column})"


class LexStats:
    """What the tokenizer saw that bounds the tree's depth (see parser._check_depth)."""

    __slots__ = ("max_brace_depth", "max_statement_tokens", "else_count")

    def __init__(self):
        self.max_brace_depth = 0
        self.max_statement_tokens = 0
        self.else_count = 0          # an `else if` chain nests without nesting braces


def tokenize(text: str, errors: list[Diagnostic], stats: LexStats | None = None) -> list[Tok]:
    """Tokenize ``text``; lexical problems are appended to ``errors`` and the bad text skipped."""
    tokens: list[Tok] = []
    append = tokens.append
    line = 1
    line_start = 0
    brackets: list[str] = []        # the open ( [ { in order
    pending_nl: tuple[int, int] | None = None   # (line, col) of a newline that may end a statement
    head_kind = None                # first token kind of the current statement (for messages)
    last_type = None
    statement_start = 0
    max_stmt = 0
    max_braces = 0
    expected_pos = 0
    keywords = KEYWORDS
    punct = PUNCT
    reported: set[str] = set()      # non-ASCII names already reported
    ends_statement = _ENDS_STATEMENT
    brackets_kinds = _BRACKET_KINDS
    statement_starts = _STATEMENT_STARTS
    heads = _HEADS
    generic_heads = _GENERIC_HEAD_NAMES
    word_bytes = _WORD_BYTES
    literal_kinds = _LITERAL_KINDS
    ranges = False                  # a `..` was seen
    last_end = 0                    # the offset where the last token ends
    skip_to = 0                     # the end of a generic call's head: matches inside it are part of it
    new_tok = Tok

    resume = 0                      # where the pattern reads on from
    while resume is not None:
        start_at, resume = resume, None
        for m in TOKEN_RE.finditer(text, start_at):
            pos, end = m.span()
            if skip_to:
                if end <= skip_to:
                    continue
                if pos < skip_to:    # a word runs on past the mode (`sum<overé`): read on after the head
                    resume, skip_to = skip_to, 0
                    break
                skip_to = 0
            kind = m.lastgroup
            if kind == "name":
                value = m.group(kind)
                if not value.isascii() and not value[0].isalpha():
                    # `²`, `½`: word characters but no letter, so part of a run of bad characters
                    if pos == expected_pos:
                        expected_pos = end - len(value)
                    continue
                if pos != expected_pos:
                    _bad_characters(text, expected_pos, pos, line, line_start, errors)
                expected_pos = end
                start = end - len(value)
                tkind = keywords.get(value, "NAME")
                if value in generic_heads and (start == 0 or text[start - 1] not in word_bytes):
                    rest = _GENERIC_REST_RE.match(text, end)
                    if rest is not None:     # `sum<over`: one GENERIC token
                        end = expected_pos = skip_to = rest.end()
                        tkind = "GENERIC"
                        if rest.group(1):    # `sum <over`: reported, then parsed as the generic call it means
                            value = _spaced_generic(text, start, line, start - line_start + 1,
                                                    end - line_start + 1, errors)
                        else:
                            value = text[start:end]
                elif not value.isascii():
                    _non_ascii_name(value, start - line_start + 1, line, errors, reported)
            else:
                if pos != expected_pos:
                    _bad_characters(text, expected_pos, pos, line, line_start, errors)
                expected_pos = end
                if kind == "punct":
                    value = m.group(kind)
                    tkind = punct[value]
                elif kind == "nl":
                    if (last_type in ends_statement and pending_nl is None
                            and (not brackets or brackets[-1] == "{")):
                        pending_nl = (line, end - line_start)
                    line += 1
                    line_start = end
                    continue
                elif kind == "ws" or kind == "comment":
                    continue
                else:
                    value = m.group(kind)
                    tkind = literal_kinds.get(kind)
                    if tkind is None:
                        if kind == "dotdot":  # `0..N`: rewritten to `range(0, N)` below, once its operands are read
                            tkind = "DOTDOT"
                            ranges = True
                        else:  # badnum: reported, then parsed as the number it was meant to be
                            tkind, value = _bad_number(value, line, end - len(value) - line_start + 1,
                                                       end - line_start + 1, errors)
                start = end - len(value) if kind != "badnum" else m.start(kind)
            col = start - line_start + 1
            end_col = end - line_start + 1

            if pending_nl is not None:
                if tkind == "LBRACE" or tkind == "ELSE":
                    _end_statement(tokens, pending_nl, tkind, line, col, end_col, head_kind, errors,
                                   text[last_end:start])
                else:                  # the newline ends the statement (as _end_statement would)
                    append(new_tok("SEMI", "", len(tokens), pending_nl[0], pending_nl[1], pending_nl[1]))
                    last_type = "SEMI"
                pending_nl = None
            if tkind in brackets_kinds:
                if tkind == "LPAR" or tkind == "LSQB" or tkind == "LBRACE":
                    brackets.append(value)
                    if tkind == "LBRACE" and len(brackets) > max_braces:
                        max_braces = len(brackets)
                else:
                    _close(tokens, brackets, tkind, value, last_type, errors)
            n = len(tokens)
            if last_type in statement_starts:
                head_kind = tkind
                if n - statement_start > max_stmt:
                    max_stmt = n - statement_start
                statement_start = n
            elif tkind in heads:
                head_kind = tkind
            append(new_tok(tkind, value, n, line, col, end_col))
            last_type = tkind
            last_end = end

    if expected_pos != len(text):
        _bad_characters(text, expected_pos, len(text), line, line_start, errors)
    if pending_nl is not None or last_type in ends_statement:
        # The file's end ends a statement too.
        ln, cl = pending_nl if pending_nl is not None else (line, len(text) - line_start + 1)
        append(Tok("SEMI", "", len(tokens), ln, cl, cl))
    if ranges:
        tokens = _rewrite_ranges(tokens, text, errors)
    if stats is not None:
        stats.max_brace_depth = max_braces
        stats.max_statement_tokens = max(max_stmt, len(tokens) - statement_start)
        stats.else_count = sum(1 for t in tokens if t.type == "ELSE")
    return tokens


def _close(tokens: list, brackets: list, tkind: str, value: str, last_type, errors) -> None:
    """A closing bracket: pop to its opener (if it was opened), and report a comma before it."""
    opener = _OPENER[tkind]
    if opener in brackets:
        while brackets and brackets.pop() != opener:
            pass
    if last_type == "COMMA" and tkind != "RBRACE":
        # LANGUAGE §2's lists (`param { "," param }`, arguments, attribute lists) end without a
        # comma: report it and parse on as if it were not there
        comma = tokens.pop()
        errors.append(Diagnostic("PH005", f"a trailing comma before `{value}`",
                                 Span(comma.line, comma.column, comma.line, comma.end_column),
                                 label="nothing follows this comma", help="remove the `,`"))


_OPENER = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
_BRACKET_KINDS = frozenset(("LPAR", "LSQB", "LBRACE", "RPAR", "RSQB", "RBRACE"))
# after these (or at the start) a token begins a statement
_STATEMENT_STARTS = frozenset((None, "SEMI", "LBRACE", "RBRACE"))
# token kinds of the literal patterns (badnum is absent: it is reported)
_LITERAL_KINDS = {"int": "INT", "hex": "INT", "float": "FLOAT"}


def _bad_characters(text, start, stop, line, line_start, errors):
    """Report a run of characters that no token pattern matched, once, at its first character.
    (A run never spans lines: whitespace and newlines always match.)"""
    ch = text[start]
    col = start - line_start + 1
    shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
    errors.append(Diagnostic("PH003", f"unexpected character {shown}", Span(line, col, line, col + 1),
                             label="no token starts with this character", help=_CHARACTER_HELP.get(ch)))


def _non_ascii_name(value: str, col: int, line: int, errors, reported: set) -> None:
    """A name with letters outside ASCII (`α`, `größe`): reported once per name, then kept as a
    name, so that its declaration and uses add no errors of their own."""
    if value in reported:
        return
    reported.add(value)
    bad = next(i for i, ch in enumerate(value) if not ch.isascii())
    errors.append(Diagnostic("PH003", f"`{value}` is not a name: names are ASCII letters, digits and `_`",
                             Span(line, col + bad, line, col + bad + 1), label="not an ASCII letter",
                             help="spell it with ASCII letters (`alpha` for `α`)"))


# what a character that no token starts with usually meant (C, CUDA and Python habits)
_CHARACTER_HELP = {
    "?": "Phobos has no `c ? a : b`: write `where(c, a, b)`",
    "#": "comments start with `//`; there is no preprocessor (bind constants with `-D NAME=value`)",
    "'": "there are no character or string literals",
    '"': "there are no character or string literals",
    "$": "names are letters, digits and `_`",
    "\\": "a line ends a statement unless it is inside `(` `)` or `[` `]`: no `\\` is needed",
}


def _bad_number(value, line, col, end_col, errors) -> tuple[str, str]:
    """Report a malformed number (PH004); the token kind and value it is parsed on as."""
    if value.startswith("."):
        hint = f"write `0{value}`"
    elif value[-1] == ".":
        hint = f"write `{value}0`"
    else:
        hint = "a hex literal needs digits after `0x`"
    errors.append(Diagnostic("PH004", f"`{value}` is not a number", Span(line, col, line, end_col),
                             label="malformed number", help=hint))
    if value[:2] in ("0x", "0X"):
        return "INT", "0"
    return "FLOAT", ("0" + value if value.startswith(".") else value + "0")


def _spaced_generic(text: str, start: int, line: int, col: int, end_col: int, errors) -> str:
    """`sum <over ctx.lane>(v)`: a space between a built-in's name and the `<` of its generic
    call (LANGUAGE §1 allows none). Reported with the call as it should be written (where it ends
    on its line) and a fix; the GENERIC token's value it is parsed on as."""
    value = text[start:start + end_col - col]
    head, _, mode = value.partition("<")
    head = head.rstrip()
    joined = f"{head}<{mode.strip()}"
    line_end = text.find("\n", start)
    rest = text[start + len(value): len(text) if line_end < 0 else line_end]
    call = _call_text(rest)
    shown = f"{joined}{call}" if call is not None else joined
    gap = len(value.partition("<")[0]) - len(head)
    errors.append(Diagnostic("PH005", f"a generic call has no space between `{head}` and `<`",
                             Span(line, col, line, end_col), label="a space before `<`",
                             help=f"write `{shown}`",
                             fixes=[Fix("remove the space before `<`",
                                        (Edit(line, col + len(head), line, col + len(head) + gap, ""),))]))
    return joined


def _call_text(rest: str) -> str | None:
    """The rest of a generic call after its mode (` ctx.lane>(v)`), up to its closing `)`."""
    close = rest.find(">")
    if close < 0 or not rest[close + 1:].startswith("("):
        return None
    depth = 0
    for i in range(close + 1, len(rest)):
        depth += {"(": 1, ")": -1}.get(rest[i], 0)
        if depth == 0:
            return " " + rest[:i + 1].strip()
    return None


_RANGE_LEFT_STOPS = frozenset(("IN", "SEMI", "LBRACE", "RBRACE", "LPAR", "LSQB", "COMMA", "ASSIGN", "AUGOP", "COLON"))
_RANGE_RIGHT_STOPS = frozenset(("SEMI", "LBRACE", "RBRACE", "COMMA", "RPAR", "RSQB", "DOTDOT"))


def _rewrite_ranges(tokens: list[Tok], text: str, errors) -> list[Tok]:
    """`a..b` (Rust's and Kotlin's range): reported with `range(a, b)` (a fix where the range is
    on one line), then parsed on as `range(a, b)` (as `a:b` inside a subscript)."""
    lines = text.split("\n")
    out: list[Tok] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type != "DOTDOT":
            out.append(t)
            i += 1
            continue
        lo = _operand_start(out)
        hi = _operand_end(tokens, i + 1)
        left, right = out[lo:], tokens[i + 1:hi]
        in_subscript = lo > 0 and out[lo - 1].type == "LSQB" or _inside_subscript(out, lo)
        if not left or not right:
            errors.append(Diagnostic("PH005", "Phobos has no `..`", t.span, label="not an operator",
                                     help="a range is written `range(start, stop)`"))
            i += 1
            continue
        first, last = left[0], right[-1]
        one_line = first.line == last.line
        a = lines[first.line - 1][first.column - 1:t.column - 1].strip() if first.line == t.line else None
        b = lines[last.line - 1][t.end_column - 1:last.end_column - 1].strip() if last.line == t.line else None
        if in_subscript:
            written, meant = f"{a}..{b}", f"{a}:{b}"
            message = f"`{written}` is not a slice"
        else:
            written, meant = f"{a}..{b}", f"range({a}, {b})"
            message = f"`{written}` is not a range"
        known = one_line and a is not None and b is not None
        errors.append(Diagnostic(
            "PH005", message if known else "`..` is not a range", Span(first.line, first.column, last.line, last.end_column),
            label="Phobos has no `..` operator",
            help=f"write `{meant}`" if known else ("write `start:stop`" if in_subscript else "write `range(start, stop)`"),
            fixes=[Fix(f"write `{meant}`", (Edit(first.line, first.column, last.line, last.end_column, meant),))] if known else []))
        if in_subscript:
            out.append(Tok("COLON", ":", 0, t.line, t.column, t.end_column))
        else:
            out[lo:lo] = [Tok("NAME", "range", 0, first.line, first.column, first.column),
                          Tok("LPAR", "(", 0, first.line, first.column, first.column)]
            out.append(Tok("COMMA", ",", 0, t.line, t.column, t.end_column))
            out += right
            out.append(Tok("RPAR", ")", 0, last.line, last.end_column, last.end_column))
            i = hi
            continue
        i += 1
    for n, t in enumerate(out):
        t.index = n
    return out


def _operand_start(out: list[Tok]) -> int:
    """Where the left operand of a `..` starts in ``out`` (the tokens before it)."""
    depth = 0
    k = len(out)
    while k > 0:
        t = out[k - 1]
        if t.type in ("RPAR", "RSQB"):
            depth += 1
        elif t.type in ("LPAR", "LSQB"):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and t.type in _RANGE_LEFT_STOPS:
            break
        k -= 1
    return k


def _operand_end(tokens: list[Tok], j: int) -> int:
    """Where the right operand of a `..` that ends before ``j`` ends (exclusive)."""
    depth = 0
    while j < len(tokens):
        t = tokens[j]
        if t.type in ("LPAR", "LSQB"):
            depth += 1
        elif t.type in ("RPAR", "RSQB") and depth > 0:
            depth -= 1
        elif depth == 0 and t.type in _RANGE_RIGHT_STOPS:
            break
        j += 1
    return j


def _inside_subscript(out: list[Tok], lo: int) -> bool:
    return lo > 0 and out[lo - 1].type in ("LSQB", "COMMA") and _open_bracket(out, lo) == "LSQB"


def _open_bracket(out: list[Tok], lo: int) -> str | None:
    depth = 0
    for k in range(lo - 1, -1, -1):
        t = out[k].type
        if t in ("RPAR", "RSQB"):
            depth += 1
        elif t in ("LPAR", "LSQB"):
            if depth == 0:
                return t
            depth -= 1
        elif t in ("LBRACE", "RBRACE", "SEMI"):
            return None
    return None


def _end_statement(tokens, pending_nl, tkind, line, col, end_col, head_kind, errors, gap: str = "x") -> bool:
    """A newline ended the previous line; seeing the next token, decide what it means.
    Returns True when an implicit SEMI was inserted. ``gap``: the text between the previous
    token and this one; when it is blank (no comment), the fix joins the two lines."""
    fixes = []
    if tokens and not gap.strip():
        last = tokens[-1]
        fixes = [Fix(f"join the lines: move `{'{' if tkind == 'LBRACE' else 'else'}` up",
                     (Edit(last.line, last.end_column, line, col, " "),))]
    if tkind == "LBRACE":
        where = _HEADS.get(head_kind, "the statement it opens")
        errors.append(Diagnostic("PH006", f"put `{{` on the line of {where}",
                                 Span(line, col, line, end_col),
                                 label="a newline before `{` ends the statement above",
                                 help="move the `{` up to the end of the previous line", fixes=fixes))
        return False
    if tkind == "ELSE":
        errors.append(Diagnostic("PH007", "`else` must follow `}` on the same line",
                                 Span(line, col, line, end_col),
                                 label="a newline after `}` ends the `if` statement",
                                 help="write `} else {` on one line", fixes=fixes))
        return False
    ln, cl = pending_nl
    tokens.append(Tok("SEMI", "", len(tokens), ln, cl, cl))
    return True


def int_value(text: str) -> int:
    """The value of an integer literal's text (``HUGE`` when absurdly long)."""
    is_hex = text[:2] in ("0x", "0X")
    digits = text[2:] if is_hex else text
    if len(digits.lstrip("0")) > MAX_LITERAL_DIGITS:
        return HUGE
    return int(digits, 16) if is_hex else int(digits)


def generic_parts(value: str) -> tuple[str, str]:
    """Split a GENERIC token's text ``sum<over`` into ("sum", "over")."""
    name, _, mode = value.partition("<")
    return name, mode.strip()
