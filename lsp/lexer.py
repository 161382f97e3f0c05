"""A Pygments lexer for Phobos (``pygmentize -l phobos k.ph``; entry point ``pygments.lexers``).

The words come from the language's own tables (the tokenizer's keywords, the scalar types, the
built-ins of LANGUAGE §8), so the highlighting cannot drift from what the checker accepts. This is
the only module that imports Pygments, and it needs neither pygls nor the analysis.
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, Text, Whitespace

from ..analyzer.syntax.tokens import KEYWORDS
from ..language.builtins import BUILTINS
from ..language.types import TYPE_WORDS

_CONSTANTS = ("true", "false")
_DECLARATIONS = ("kernel", "fn", "let", "var")
_KERNEL = re.compile(r"^[ \t]*kernel[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\(", re.M)


class PhobosLexer(RegexLexer):
    name = "Phobos"
    aliases = ["phobos", "ph"]
    filenames = ["*.ph"]
    mimetypes = ["text/x-phobos"]

    def analyse_text(text):
        # `.ph` is also a Visual Prolog header: Pygments asks each lexer how sure it is
        score = 0.0
        if _KERNEL.search(text):
            score += 0.6
        if "ctx." in text:
            score += 0.3
        return score

    tokens = {
        "root": [
            (r"[ \t\r]+", Whitespace),
            (r"\n", Whitespace),
            (r"//[^\n]*", Comment.Single),
            (r"@[A-Za-z_][A-Za-z0-9_]*", Name.Decorator),
            (words(_CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(_DECLARATIONS, suffix=r"\b"), Keyword.Declaration),
            (words(sorted(set(KEYWORDS) - set(_CONSTANTS) - set(_DECLARATIONS)), suffix=r"\b"), Keyword),
            (words(sorted(TYPE_WORDS), suffix=r"\b"), Keyword.Type),
            (r"\bctx(\.[A-Za-z_][A-Za-z0-9_]*)*", Name.Builtin.Pseudo),
            (words(("over", "xor", "up", "down", "idx", "unroll", "range"), suffix=r"\b"), Keyword.Pseudo),
            (words(sorted(BUILTINS), suffix=r"\b"), Name.Builtin),
            (r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+", Number.Float),
            (r"0[xX][0-9a-fA-F]+", Number.Hex),
            (r"[0-9]+", Number.Integer),
            (r"[^\W\d]\w*", Name),
            (r":\+|->|<<=|>>=|<<|>>|&&|\|\||[-+*/%&|^]=|[=!<>]=|[-+*/%&|^!~<>=]", Operator),
            (r"[()\[\]{},:;.]", Punctuation),
            (r".", Text),
        ],
    }
