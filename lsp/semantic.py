"""Semantic tokens: what each word of a document is, for editors that color by meaning rather
than by a grammar alone, with the kind of each `let`, `var` and loop binding as a modifier
(``uniform``, ``warpUniform``, ``varying``: the badges of ``--kinds``, on the declaration and on
every use).

The words come from the tokenizer's own pattern (analyzer/syntax/tokens.py), so a word is
classified exactly where the checker reads one; the names that bind something are classified by
the checker's resolution of each use (``Where.resolved``). A binding whose kind differs between
call sites (in a function) gets no kind modifier: no one color would be right.
"""

from __future__ import annotations

from lsprotocol import types as T

from ..analyzer.syntax import ast as A
from ..analyzer.syntax.tokens import TOKEN_RE, GENERIC_MODES, KEYWORDS
from ..language.builtins import BUILTINS
from ..language.types import SCALARS
from .locate import _children

TOKEN_TYPES = ["keyword", "type", "function", "variable", "parameter", "property", "number", "comment",
               "decorator"]
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary", "uniform", "warpUniform", "varying"]
LEGEND = T.SemanticTokensLegend(TOKEN_TYPES, TOKEN_MODIFIERS)

_TYPE = {name: i for i, name in enumerate(TOKEN_TYPES)}
_MOD = {name: 1 << i for i, name in enumerate(TOKEN_MODIFIERS)}
_KIND_MOD = {"uniform": _MOD["uniform"], "warp-uniform": _MOD["warpUniform"], "varying": _MOD["varying"]}
_TYPE_WORDS = frozenset(SCALARS) | {"tensor", "tile"}
_NUMBERS = frozenset(("int", "hex", "float", "badnum"))
_BINDING_TYPE = {"let": "variable", "var": "variable", "loop": "variable", "param": "parameter",
                 "extent": "parameter", "const": "variable"}
_READONLY = frozenset(("let", "loop", "extent", "const"))


def words(text: str):
    """(line, column, length, pattern group, word) of every name, number and comment, and of the
    punctuation `@ . <`, 1-based in code points, in order."""
    line, line_start = 1, 0
    for m in TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind == "nl":
            line += 1
            line_start = m.end()
            continue
        if kind == "ws":
            continue
        start, end = m.span(kind)
        value = m.group(kind)
        if kind == "punct" and value not in ("@", ".", "<"):
            continue
        yield line, start - line_start + 1, end - start, kind, value


def _binding_classes(analysed) -> dict[tuple[int, int], tuple[str, int]]:
    """(line, column) of each name written in the program -> (token type, modifiers), for the
    names the checker resolved: declarations of bindings and parameters, uses, called functions."""
    where = analysed.where
    program = where.program
    out: dict[tuple[int, int], tuple[str, int]] = {}
    if program is None:
        return out
    kinds: dict[tuple[int, int, str], set[str]] = {}
    for r in analysed.records():
        kinds.setdefault((r.span.line, r.span.column, r.name), set()).add(r.kind)

    def kind_mod(binding) -> int:
        found = kinds.get((binding.span.line, binding.span.column, binding.name))
        return _KIND_MOD[next(iter(found))] if found and len(found) == 1 else 0

    def classify(binding) -> tuple[str, int]:
        mods = kind_mod(binding) | (_MOD["readonly"] if binding.kind in _READONLY else 0)
        return _BINDING_TYPE.get(binding.kind, "variable"), mods

    functions = {f.name for f in program.functions}
    for item in program.items:
        out[(item.name_span.line, item.name_span.column)] = ("function", _MOD["declaration"])
        stack = [item]
        while stack:
            node = stack.pop()
            if isinstance(node, A.Name):
                found = where.resolved(item, node)
                if found:
                    out[(node.span.line, node.span.column)] = classify(found[0][0])
            elif isinstance(node, (A.Let, A.Var, A.For, A.Param)):
                place = node.var_span if isinstance(node, A.For) else \
                    node.span if isinstance(node, A.Param) else node.name_span
                found = where.declared(item, node)
                if found:
                    kind, mods = classify(found[0][0])
                    out[(place.line, place.column)] = (kind, mods | _MOD["declaration"])
            elif isinstance(node, A.DimName):       # an extent, named in a tensor's type
                out[(node.span.line, node.span.column)] = ("parameter", _MOD["readonly"])
            elif isinstance(node, A.Call) and node.func in functions:
                out[(node.func_span.line, node.func_span.column)] = ("function", 0)
            stack.extend(_children(node))
    return out


def semantic_tokens(checked) -> T.SemanticTokens:
    """The document's semantic tokens, relative-encoded as LSP wants them."""
    analysed = checked.analysed
    text = analysed.checked.text or ""
    lines = checked.lines
    bound = _binding_classes(analysed)
    data: list[int] = []
    last_line = last_char = 0
    prev = prev2 = None            # the two words before (group, value)
    in_ctx = False                 # the last name was `ctx` or one of its fields
    for line, column, length, kind, value in words(text):
        token = None
        if kind == "comment":
            token = ("comment", 0)
        elif kind in _NUMBERS:
            token = ("number", 0)
        elif kind == "name":
            if in_ctx and prev == ("punct", "."):
                token = ("property", _MOD["readonly"] | _MOD["defaultLibrary"])
            else:
                token = _name_class(value, line, column, prev, prev2, bound)
                in_ctx = value == "ctx" and token is not None and token[0] == "variable"
        if kind != "name" and value != ".":
            in_ctx = False
        here = (kind, value)
        prev2, prev = prev, here
        if token is None:
            continue
        start_line, start = lines.to_client(line, column)
        _, end = lines.to_client(line, column + length)
        if end <= start:
            continue
        delta_line = start_line - last_line
        data += [delta_line, start - last_char if delta_line == 0 else start, end - start,
                 _TYPE[token[0]], token[1]]
        last_line, last_char = start_line, start
    return T.SemanticTokens(data=data)


def _name_class(value: str, line: int, column: int, prev, prev2, bound) -> tuple[str, int] | None:
    if prev == ("punct", "@"):
        return "decorator", 0
    if value in KEYWORDS:
        return "keyword", 0
    if value in GENERIC_MODES and prev == ("punct", "<") and prev2 is not None and prev2[1] in BUILTINS:
        return "keyword", 0
    found = bound.get((line, column))
    if found is not None:
        return found
    if value == "ctx":
        return "variable", _MOD["readonly"] | _MOD["defaultLibrary"]
    if value in _TYPE_WORDS:
        return "type", _MOD["defaultLibrary"]
    if value in BUILTINS:
        return "function", _MOD["defaultLibrary"]
    return None
