"""The text and JSON renderers against DESIGN.md's formats, on hand-built diagnostics."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from textwrap import dedent

from hypothesis import given, settings
from hypothesis import strategies as st

from phobos_tools.analyzer.diagnostics import Diagnostic, Label, Span, SpecRef, WARNING
from phobos_tools.analyzer.diagnostics.json_format import render_json
from phobos_tools.analyzer.diagnostics.text import render_text

# Lines 8 and 9 are the ones DESIGN.md's example shows; the rest only puts them there.
BARRIER_KERNEL = dedent("""\
    // a kernel whose barrier only lane 0 reaches
    @launch(128)
    kernel k(A: tensor<f32>[1, 128]) {
      let x = A[0, ctx.thread]
      var s: tile<f32>[1, 128] = A[0 :+ 1, 0 :+ 128]
      s = s * 2.0
      // line 7
      if ctx.lane == 0 {
        barrier()
      }
    }
    """)


def ph301() -> Diagnostic:
    return Diagnostic(
        code="PH301",
        message="`barrier()` runs once per CTA, so every thread must reach it",
        span=Span(9, 5, 9, 14),
        label="reached only by the lanes where the condition holds",
        chain=[Label(Span(8, 6, 8, 19), "`ctx.lane` differs between lanes, so this condition does")],
        help="move `barrier()` out of the branch, or make the condition uniform",
        spec=SpecRef("per-thread-values.md", "What needs every thread"),
    )


def test_design_example_renders_exactly():
    expected = dedent("""\
        k.ph:9:5: error[PH301]: `barrier()` runs once per CTA, so every thread must reach it
         8 |   if ctx.lane == 0 {
           |      ------------- (1) `ctx.lane` differs between lanes, so this condition does
         9 |     barrier()
           |     ^^^^^^^^^ reached only by the lanes where the condition holds
           = spec: per-thread-values.md, "What needs every thread"
           = help: move `barrier()` out of the branch, or make the condition uniform
           = see: phobos-check --explain PH301""")
    assert render_text(ph301(), "k.ph", BARRIER_KERNEL) == expected


def test_gutter_widens_with_the_largest_line_number():
    source = "\n".join(f"line {n}" for n in range(1, 12))
    diag = Diagnostic("PH105", "bad", Span(10, 1, 10, 5), chain=[Label(Span(9, 1, 9, 5), "first")])
    assert render_text(diag, "f.ph", source).splitlines()[1:] == [
        "  9 | line 9",
        "    | ---- (1) first",
        " 10 | line 10",
        "    | ^^^^",
    ]


def test_no_source_means_no_excerpt_and_see_only_for_per_thread_rules():
    diag = Diagnostic("PH105", "type mismatch", Span(3, 7, 3, 9), help="convert it", notes=["n1", "n2"])
    assert render_text(diag, "a.ph", None) == dedent("""\
        a.ph:3:7: error[PH105]: type mismatch
           = help: convert it
           = note: n1
           = note: n2""")


def test_severity_and_footer_order():
    diag = Diagnostic("PH302", "m", Span(1, 1, 1, 2), severity=WARNING, notes=["a note"], help="h",
                      spec=SpecRef("p.md", "S"))
    lines = render_text(diag, "a.ph", "x\n").splitlines()
    assert lines[0] == "a.ph:1:1: warning[PH302]: m"
    assert lines[-4:] == ['   = spec: p.md, "S"', "   = help: h", "   = note: a note",
                          "   = see: phobos-check --explain PH302"]


def test_chain_and_primary_on_one_line_keep_causal_order():
    source = "  barrier_if(ctx.lane)\n"
    diag = Diagnostic("PH302", "m", Span(1, 3, 1, 13), label="here",
                      chain=[Label(Span(1, 14, 1, 22), "varies")])
    assert render_text(diag, "a.ph", source).splitlines()[1:4] == [
        " 1 |   barrier_if(ctx.lane)",
        "   |              -------- (1) varies",
        "   |   ^^^^^^^^^^ here",
    ]


def test_one_skipped_line_is_shown_and_longer_gaps_are_elided():
    source = "\n".join(f"l{n}" for n in range(1, 10))
    close = Diagnostic("PH105", "m", Span(3, 1, 3, 3), chain=[Label(Span(1, 1, 1, 3), "a")])
    assert [line.split("|")[1].strip() for line in render_text(close, "f", source).splitlines()[1:]] == [
        "l1", "-- (1) a", "l2", "l3", "^^"]
    far = Diagnostic("PH105", "m", Span(8, 1, 8, 3), chain=[Label(Span(1, 1, 1, 3), "a")])
    assert "..." in render_text(far, "f", source).splitlines()


def test_multi_line_span_is_underlined_to_the_end_of_its_first_line():
    source = "let x = f(1,\n          2)\n"
    diag = Diagnostic("PH109", "m", Span(1, 9, 2, 13))
    assert render_text(diag, "f", source).splitlines()[1:] == [
        " 1 | let x = f(1,",
        "   |         ^^^^",
    ]


def test_zero_width_span_at_end_of_file_gets_one_caret():
    source = "kernel k() {\n"
    diag = Diagnostic("PH005", "expected `}`", Span(2, 1, 2, 1), label="the file ends here")
    assert render_text(diag, "f", source).splitlines()[1:] == [
        " 2 |",
        "   | ^ the file ends here",
    ]


def test_span_past_the_end_of_a_line_is_drawn_just_after_it():
    diag = Diagnostic("PH005", "m", Span(1, 40, 1, 10**9))
    assert render_text(diag, "f", "abc").splitlines()[1:] == [" 1 | abc", "   |    ^"]


def test_tabs_count_as_one_column_and_are_kept_in_the_padding():
    diag = Diagnostic("PH101", "m", Span(1, 3, 1, 4))
    assert render_text(diag, "f", "\t\tx = 1").splitlines()[1:] == [" 1 | \t\tx = 1", "   | \t\t^"]


def test_crlf_and_control_characters_do_not_reach_the_terminal():
    diag = Diagnostic("PH003", "m", Span(1, 2, 1, 3))
    lines = render_text(diag, "f", "a\x1bb\r\nc").splitlines()
    assert lines[1] == " 1 | a\ufffdb"
    assert "\x1b" not in "".join(lines) and "\r" not in "".join(lines)


def test_spans_outside_the_source_leave_the_excerpt_out():
    for span in (Span(0, 0, 0, 0), Span(99, 1, 99, 2), Span(-3, -3, -5, -9)):
        text = render_text(Diagnostic("PH005", "m", span), "f", "one line\n")
        assert text == f"f:{span.line}:{span.column}: error[PH005]: m"
    backwards = Diagnostic("PH005", "m", Span(1, 5, 1, 2))
    assert render_text(backwards, "f", "abcdefgh").splitlines()[2] == "   |     ^"


spans = st.builds(Span, *(st.integers(-3, 12) for _ in range(4)))


@settings(max_examples=300, deadline=None)
@given(source=st.one_of(st.none(), st.text(max_size=80)), primary=spans,
       chain=st.lists(st.tuples(spans, st.text(max_size=5)), max_size=3),
       label=st.one_of(st.none(), st.text(max_size=5)))
def test_render_text_never_raises(source, primary, chain, label):
    diag = Diagnostic("PH301", "m", primary, label=label, chain=[Label(s, t) for s, t in chain])
    first = render_text(diag, "f.ph", source).split("\n")[0]
    assert first == f"f.ph:{primary.line}:{primary.column}: error[PH301]: m"


# --- JSON -------------------------------------------------------------------------------------

@dataclass
class Result:
    path: str
    diagnostics: list
    kinds: list = field(default_factory=list)


def test_json_matches_the_design_example():
    kinds = [{"kind": "warp-uniform", "column": 7, "line": 4, "name": "row", "kernel": "lanes_matvec"}]
    doc = json.loads(render_json([Result("k.ph", [ph301()], kinds)], with_kinds=True))
    assert doc == {
        "version": 1,
        "files": [{
            "path": "k.ph",
            "diagnostics": [{
                "code": "PH301", "name": "cta-op-divergent-control", "severity": "error",
                "message": "`barrier()` runs once per CTA, so every thread must reach it",
                "line": 9, "column": 5, "end_line": 9, "end_column": 14,
                "label": "reached only by the lanes where the condition holds",
                "chain": [{"line": 8, "column": 6, "end_line": 8, "end_column": 19,
                           "text": "`ctx.lane` differs between lanes, so this condition does"}],
                "notes": [], "help": "move `barrier()` out of the branch, or make the condition uniform",
                "spec": {"page": "per-thread-values.md", "section": "What needs every thread"},
                "fixes": []}],
            "kinds": [{"kernel": "lanes_matvec", "name": "row", "line": 4, "column": 7,
                       "kind": "warp-uniform"}]}]}
    # Key order is part of the contract, and dict equality does not check it.
    assert list(doc) == ["version", "files"]
    assert list(doc["files"][0]) == ["path", "diagnostics", "kinds"]
    assert list(doc["files"][0]["diagnostics"][0]) == [
        "code", "name", "severity", "message", "line", "column", "end_line", "end_column",
        "label", "chain", "notes", "help", "spec", "fixes"]     # fixes last (DESIGN.md, "Fixes")
    assert list(doc["files"][0]["diagnostics"][0]["chain"][0]) == [
        "line", "column", "end_line", "end_column", "text"]
    assert list(doc["files"][0]["diagnostics"][0]["spec"]) == ["page", "section"]
    assert list(doc["files"][0]["kinds"][0]) == ["kernel", "name", "line", "column", "kind"]


def test_json_sorts_files_and_diagnostics_and_nulls_what_is_absent():
    late = Diagnostic("PH105", "late", Span(3, 1, 3, 2), spec=SpecRef("LANGUAGE.md", "3"))
    early = Diagnostic("PH101", "early", Span(1, 9, 1, 10))
    earliest = Diagnostic("PH101", "earliest", Span(1, 2, 1, 3))
    doc = json.loads(render_json([Result("b.ph", [late, early, earliest]), Result("a.ph", [])]))
    assert [f["path"] for f in doc["files"]] == ["a.ph", "b.ph"]
    diags = doc["files"][1]["diagnostics"]
    assert [d["message"] for d in diags] == ["earliest", "early", "late"]
    assert all(d["help"] is None and d["label"] is None for d in diags)
    assert diags[2]["spec"] is None  # spec is null outside PH3xx, whatever the diagnostic carries
    assert diags[0]["name"] == "undefined-name"
    assert "kinds" not in doc["files"][0]


def test_json_kinds_are_sorted_and_present_even_when_empty():
    kinds = [{"kernel": "k", "name": "b", "line": 5, "column": 3, "kind": "varying"},
             {"kernel": "k", "name": "a", "line": 2, "column": 9, "kind": "uniform"},
             {"kernel": "k", "name": "c", "line": 2, "column": 4, "kind": "uniform"}]
    doc = json.loads(render_json([Result("k.ph", [], kinds), Result("j.ph", [])], with_kinds=True))
    assert doc["files"][0]["kinds"] == []
    assert [k["name"] for k in doc["files"][1]["kinds"]] == ["c", "a", "b"]


def test_json_is_one_valid_document_and_keeps_unicode():
    diag = Diagnostic("PH003", "unexpected character `é`", Span(1, 1, 1, 2))
    text = render_json([Result("ü.ph", [diag])])
    assert json.loads(text)["files"][0]["diagnostics"][0]["message"] == "unexpected character `é`"
    assert "é" in text
