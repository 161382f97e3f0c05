"""Semantic tokens computed in process (lsp/semantic.py): what each word is, with the kind of
each binding as a modifier on its declaration and its uses, none where the kind differs between
call sites, and lengths in the editor's units."""

from __future__ import annotations

from lsp_client import PER_CALL_SITE
from paths import EXAMPLES

from phobos_tools.lsp import features as F
from phobos_tools.lsp.semantic import TOKEN_MODIFIERS, TOKEN_TYPES, semantic_tokens
from phobos_tools.lsp.text import UTF8, UTF16

URI = "file:///virtual/k.ph"
MATVEC = (EXAMPLES / "lanes_matvec.ph").read_text()


def decoded(text: str, encoding: str = UTF16) -> list[tuple[int, int, int, str, set[str]]]:
    """(0-based line, start, length, type, modifiers) of every token, absolute."""
    data = semantic_tokens(F.check_text(text, "k.ph", URI, encoding=encoding)).data
    assert len(data) % 5 == 0
    out, line, start = [], 0, 0
    for i in range(0, len(data), 5):
        d_line, d_start, length, kind, mods = data[i:i + 5]
        line += d_line
        start = d_start if d_line else start + d_start
        out.append((line, start, length, TOKEN_TYPES[kind],
                    {m for b, m in enumerate(TOKEN_MODIFIERS) if mods >> b & 1}))
    return out


def word_tokens(text: str, encoding: str = UTF16) -> dict[tuple[int, str], tuple[str, set[str]]]:
    """(1-based line, word) -> (type, modifiers), for the first occurrence on each line."""
    lines = text.split("\n")
    out = {}
    for line, start, length, kind, mods in decoded(text, encoding):
        out.setdefault((line + 1, lines[line][start:start + length]), (kind, mods))
    return out


def test_words_and_the_kinds_of_bindings():
    got = word_tokens(MATVEC)
    assert got[(1, "// Matrix-vector product y = W x with one warp per row of W. Each lane walks the row in runs of")] \
        == ("comment", set())
    assert got[(5, "launch")] == ("decorator", set())
    assert got[(5, "128")] == ("number", set())
    assert got[(7, "kernel")] == ("keyword", set())
    assert got[(7, "lanes_matvec")] == ("function", {"declaration"})
    assert got[(7, "W")] == ("parameter", {"declaration"})
    assert got[(7, "tensor")] == ("type", {"defaultLibrary"})
    assert got[(7, "N")] == ("parameter", {"readonly"})                  # an extent
    assert got[(8, "row")] == ("variable", {"declaration", "readonly", "warpUniform"})
    assert got[(8, "ctx")] == ("variable", {"readonly", "defaultLibrary"})
    assert got[(8, "block")] == ("property", {"readonly", "defaultLibrary"})
    assert got[(8, "x")] == ("property", {"readonly", "defaultLibrary"})    # ctx.block.x
    assert got[(9, "acc")] == ("variable", {"declaration", "varying"})
    assert got[(10, "row")] == ("variable", {"readonly", "warpUniform"})    # a use
    assert got[(11, "k")] == ("variable", {"declaration", "readonly", "uniform"})
    assert got[(11, "range")] == ("function", {"defaultLibrary"})
    assert got[(12, "at")] == ("variable", {"declaration", "readonly", "varying"})
    assert got[(13, "acc")] == ("variable", {"varying"})
    assert got[(13, "x")] == ("parameter", set())                          # the tensor, not ctx's x
    assert got[(16, "sum")] == ("function", {"defaultLibrary"})
    assert got[(16, "over")] == ("keyword", set())


def test_a_kind_that_differs_by_call_site_gets_no_kind_modifier():
    got = word_tokens(PER_CALL_SITE)
    assert got[(1, "scaled")] == ("function", {"declaration"})
    assert got[(2, "y")] == ("variable", {"declaration", "readonly"})
    assert got[(2, "x")] == ("parameter", set())
    assert got[(8, "a")] == ("variable", {"declaration", "readonly", "uniform"})
    assert got[(8, "scaled")] == ("function", set())
    assert got[(9, "b")] == ("variable", {"declaration", "readonly", "varying"})
    assert got[(10, "a")] == ("variable", {"readonly", "uniform"})


def test_lengths_and_starts_are_in_the_editors_units():
    text = "// 😀 é\n@launch(32)\nkernel k(O: tensor<f32>[32]) {\n  O[ctx.thread] = 1.0\n}\n"
    assert decoded(text, UTF16)[0] == (0, 0, 7, "comment", set())       # 😀 is two UTF-16 units
    assert decoded(text, UTF8)[0] == (0, 0, 10, "comment", set())       # and four bytes, é two
    # a word after a character outside the BMP (an error, but the word is still colored)
    assert decoded("😀 kernel", UTF16)[0] == (0, 3, 6, "keyword", set())
    assert decoded("😀 kernel", UTF8)[0] == (0, 5, 6, "keyword", set())


def test_a_document_with_errors_still_gets_its_words():
    text = "kernel k(A: tensor<f32>[N]) {\n  let x = A[ctx."
    kinds = [(line, kind) for line, _, _, kind, _ in decoded(text)]
    assert (0, "keyword") in kinds and (1, "keyword") in kinds and (1, "variable") in kinds
    assert decoded("") == []
