"""Highlighting outside the server: the Pygments lexer (registered under `pygments.lexers`) and the
TextMate grammar of the VS Code extension (editors/vscode/), both checked against the language's
own word lists and the example kernels."""

from __future__ import annotations

import json
import re
from importlib.metadata import entry_points

import pytest
from paths import EXAMPLES, REPO
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Name

from phobos_tools.analyzer.syntax.tokens import KEYWORDS
from phobos_tools.language.builtins import BUILTINS
from phobos_tools.language.types import TYPE_WORDS
from phobos_tools.lsp.lexer import PhobosLexer

VSCODE = REPO / "editors" / "vscode"
GRAMMAR = VSCODE / "syntaxes" / "phobos.tmLanguage.json"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.ph"))


def test_the_lexer_is_registered_with_pygments():
    names = {ep.name: ep.value for ep in entry_points(group="pygments.lexers")}
    assert names.get("phobos") == "phobos_tools.lsp.lexer:PhobosLexer"
    assert isinstance(get_lexer_by_name("phobos"), PhobosLexer)
    # `.ph` is also Visual Prolog's: the text decides
    text = (EXAMPLES / "lanes_matvec.ph").read_text()
    assert isinstance(get_lexer_for_filename("k.ph", text), PhobosLexer)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_the_lexer_reads_every_example(path):
    text = path.read_text()
    tokens = list(PhobosLexer().get_tokens(text))
    assert "".join(value for _, value in tokens) == text if text.endswith("\n") else text + "\n"
    assert not [value for kind, value in tokens if kind in Error]
    kinds = {value: kind for kind, value in tokens}
    assert kinds.get("kernel") in Keyword
    assert any(kind in Comment for kind, _ in tokens) or "//" not in text


def test_the_lexer_classes():
    tokens = [(kind, value) for kind, value in PhobosLexer().get_tokens(
        "let v = sum<over ctx.lane>(x) // done\n") if value.strip()]
    assert tokens[:4] == [(Keyword.Declaration, "let"), (Name, "v"), (tokens[2][0], "="), (Name.Builtin, "sum")]
    assert (Name.Builtin.Pseudo, "ctx.lane") in tokens and (Keyword.Pseudo, "over") in tokens
    assert tokens[-1] == (Comment.Single, "// done")


def _matches(node) -> list[str]:
    """Every `match` regex of a TextMate grammar."""
    if isinstance(node, dict):
        return ([node["match"]] if "match" in node else []) + [m for v in node.values() for m in _matches(v)]
    if isinstance(node, list):
        return [m for v in node for m in _matches(v)]
    return []


def test_the_textmate_grammar_knows_the_languages_words():
    grammar = json.loads(GRAMMAR.read_text())
    assert grammar["scopeName"] == "source.phobos"
    words = set()
    for pattern in _matches(grammar):
        re.compile(pattern)          # the patterns keep to what Python's re and Oniguruma share
        words |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", pattern))
    missing = (set(KEYWORDS) | set(BUILTINS) | set(TYPE_WORDS)) - words
    assert missing == set()


def test_the_textmate_grammar_marks_the_examples():
    grammar = json.loads(GRAMMAR.read_text())
    keywords = [re.compile(p["match"]) for p in grammar["repository"]["keywords"]["patterns"]]
    comment = re.compile(grammar["repository"]["comment"]["match"], re.M)
    for path in EXAMPLE_FILES:
        text = path.read_text()
        assert any(k.search(text) for k in keywords), path.name
        assert comment.search(text), path.name


def test_the_vscode_manifest_points_at_its_files():
    manifest = json.loads((VSCODE / "package.json").read_text())
    [language] = manifest["contributes"]["languages"]
    assert language["id"] == "phobos" and language["extensions"] == [".ph"]
    assert (VSCODE / language["configuration"]).is_file()
    json.loads((VSCODE / language["configuration"]).read_text())
    [grammar] = manifest["contributes"]["grammars"]
    assert (VSCODE / grammar["path"]).resolve() == GRAMMAR.resolve()
    assert (VSCODE / manifest["main"]).is_file()


def test_the_vscode_manifest_declares_the_servers_kind_modifiers():
    # a theme rule such as "*.varying:phobos" names a modifier VS Code must know of
    from phobos_tools.lsp.semantic import TOKEN_MODIFIERS
    manifest = json.loads((VSCODE / "package.json").read_text())
    declared = {m["id"] for m in manifest["contributes"]["semanticTokenModifiers"]}
    assert declared == {"uniform", "warpUniform", "varying"} <= set(TOKEN_MODIFIERS)

