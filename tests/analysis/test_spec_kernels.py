"""The kernels of per-thread-values.md (and LANGUAGE §11) through the per-thread analysis: the
verdict, code, line and message the page states, the kinds it states, the fixture kernels of
tests/ui/spec_kernels against their `//~` markers, DESIGN.md's example diagnostic to the letter, and
the shape of chains (origin first, causal order)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paths import REPO, SPEC_KERNELS as SPEC_KERNEL_DIR
from phobos_tools.analyzer.api import check_source
from phobos_tools.analyzer.diagnostics.json_format import diagnostic_to_json
from phobos_tools.analyzer.diagnostics.text import render_text

from analysis_expect import assert_marked, check, kinds, only
from markers import parse

SPEC_KERNELS = sorted(SPEC_KERNEL_DIR.glob("*.ph"))


def _spec_dir() -> Path | None:
    for cand in (REPO / "shared" / "spec", REPO.parent / "shared" / "spec"):
        if (cand / "per-thread-values.md").is_file():
            return cand
    return None


SPEC = _spec_dir()
needs_spec = pytest.mark.skipif(SPEC is None, reason="shared/spec (per-thread-values.md) not found beside the checkout")


def _page_kernels() -> list[str]:
    """Every complete kernel printed on the page: from a line starting with `@launch` to the
    next line that is exactly `}`."""
    if SPEC is None:
        return []
    lines = (SPEC / "per-thread-values.md").read_text().splitlines()
    out, cur = [], None
    for line in lines:
        if cur is None and line.startswith("@launch"):
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line == "}":
                out.append("\n".join(cur) + "\n")
                cur = None
    return out


def _language_kernel(name: str) -> str:
    """A kernel from a fenced block of LANGUAGE.md (§11), by its name."""
    blocks, cur = [], None
    for line in (SPEC / "LANGUAGE.md").read_text().splitlines():
        if line.startswith("```"):
            if cur is None:
                cur = []
            else:
                blocks.append(cur)
                cur = None
        elif cur is not None:
            cur.append(line)
    for lines in blocks:
        for i, line in enumerate(lines):
            if line.startswith(f"kernel {name}("):
                start = i
                while start > 0 and lines[start - 1].startswith("@"):
                    start -= 1
                end = lines.index("}", i)
                return "\n".join(lines[start:end + 1]) + "\n"
    raise AssertionError(f"kernel {name} not in LANGUAGE.md")


PAGE = _page_kernels()

MSG_301 = "`elementwise sweep` runs once per CTA, so every thread must reach it"
MSG_302 = "`slice` takes `ctx.lane`, which differs between lanes"
MSG_303 = "`tile copy` reads `t` after a per-thread store to it with no `barrier()` between"


def _errors(result):
    return [(d.code, d.span.line, d.message) for d in result.diagnostics if d.severity == "error"]


# ---------------------------------------------------------------- the page, as printed

@needs_spec
def test_the_page_prints_six_kernels_in_order():
    assert len(PAGE) == 6
    assert "kernel lanes_matvec(" in PAGE[0]
    assert "if ctx.lane == 0 {\n    t = t * 2.0" in PAGE[1]
    assert "if ctx.lane == 3 {" in PAGE[2]
    assert "A[0, ctx.lane :+ 1]" in PAGE[3]
    assert "t[0, ctx.lane] = 1.0" in PAGE[4] and "barrier()" not in PAGE[4]
    assert "t[0, ctx.lane] = 1.0\n  barrier()" in PAGE[5]


@needs_spec
def test_page_lanes_matvec_is_accepted_with_the_stated_kinds():
    r = check_source(PAGE[0])
    assert _errors(r) == []
    k = kinds(r)
    assert k["row"] == "warp-uniform"
    assert k["acc"] == "varying"
    assert k["at"] == "varying"
    assert k["total"] == "warp-uniform"
    # DESIGN.md's JSON example row for this kernel, exactly
    row = next(x for x in r.kinds if x["name"] == "row")
    assert row == {"kernel": "lanes_matvec", "name": "row", "line": 4, "column": 7, "kind": "warp-uniform"}


@needs_spec
def test_page_tile_op_under_per_thread_control_is_rejected_with_ph301():
    r = check_source(PAGE[1])
    assert _errors(r) == [("PH301", 5, MSG_301)]
    d = only(r, "PH301")
    # "The compiler's message goes on to name what made the control ... differ"
    assert "`ctx.lane`" in d.chain[0].text and d.chain[0].span.line == 4


@needs_spec
def test_page_tile_op_under_warp_uniform_control_is_rejected_too():
    # "The same holds for warp-uniform control: if ctx.warp == 0 { t = t * 2.0 } is rejected"
    src = PAGE[1].replace("if ctx.lane == 0 {", "if ctx.warp == 0 {")
    assert src != PAGE[1]
    r = check_source(src)
    assert _errors(r) == [("PH301", 5, MSG_301)]
    d = only(r, "PH301")
    assert "`ctx.warp`" in d.chain[0].text and "differs between warps" in d.chain[0].text


@needs_spec
def test_page_closed_branch_is_accepted():
    r = check_source(PAGE[2])
    assert _errors(r) == []


@needs_spec
def test_page_slice_at_per_thread_offset_is_rejected_with_ph302():
    r = check_source(PAGE[3])
    assert _errors(r) == [("PH302", 3, MSG_302)]
    d = only(r, "PH302")
    line = PAGE[3].splitlines()[2]
    assert line[d.span.column - 1:d.span.end_column - 1] == "ctx.lane"


@needs_spec
def test_page_point_subscript_instead_of_slice_runs_anywhere():
    # "A thread that wants its own element reads it with a point subscript, A[0, ctx.lane],
    # which is a scalar load and runs anywhere."
    src = PAGE[3].replace("var u = A[0, ctx.lane :+ 1]\n  O[0 :+ 1, 0 :+ 1] = u",
                          "let u = A[0, ctx.lane]\n  O[0, ctx.lane] = u")
    assert src != PAGE[3]
    r = check_source(src)
    assert _errors(r) == []
    assert kinds(r)["u"] == "varying"


@needs_spec
def test_page_store_then_read_without_barrier_is_rejected_with_ph303():
    r = check_source(PAGE[4])
    assert _errors(r) == [("PH303", 5, MSG_303)]
    d = only(r, "PH303")
    assert any(step.span.line == 4 and "`t`" in step.text for step in d.chain)


@needs_spec
def test_page_store_then_barrier_then_read_is_accepted():
    r = check_source(PAGE[5])
    assert _errors(r) == []


@needs_spec
@pytest.mark.parametrize("index", range(6))
def test_every_page_kernel_has_a_verbatim_fixture(index):
    """tests/ui/spec_kernels holds each page kernel, copied verbatim apart from the header comment
    and the `//~` markers (tests/ui/spec_kernels/README.md)."""
    def body(text):
        lines = [re.sub(r"\s*//~.*$", "", l).rstrip() for l in text.splitlines()]
        return [l for l in lines if not l.startswith("//")]
    page = body(PAGE[index])
    assert any(body(p.read_text()) == page for p in SPEC_KERNELS), PAGE[index]


# ---------------------------------------------------------------- LANGUAGE §11

@needs_spec
def test_language_lane_strided_kernel_kinds():
    # the page: `col` warp-uniform, `acc` varying, `k` varying, `total` "warp-uniform again"
    r = check_source(_language_kernel("lane_strided"))
    assert _errors(r) == []
    assert kinds(r) == {"col": "warp-uniform", "acc": "varying", "k": "varying", "total": "warp-uniform"}


@needs_spec
def test_language_row_sums_kernel_kinds():
    # "a warp-uniform row, a varying partial sum, a warp-uniform total"
    r = check_source(_language_kernel("row_sums"))
    assert _errors(r) == []
    k = kinds(r)
    assert (k["row"], k["acc"], k["total"]) == ("warp-uniform", "varying", "warp-uniform")
    assert k["c"] == "varying"


@needs_spec
def test_language_stage_kernel_is_accepted():
    r = check_source(_language_kernel("stage"))
    assert _errors(r) == []


# ---------------------------------------------------------------- the fixtures

def test_fixture_lane_strided_kinds():
    r = check_source((SPEC_KERNEL_DIR / "accepted_lane_strided.ph").read_text())
    assert kinds(r) == {"col": "warp-uniform", "acc": "varying", "k": "varying", "total": "warp-uniform"}
    rows = {x["name"]: (x["line"], x["column"]) for x in r.kinds}
    assert rows == {"col": (6, 7), "acc": (7, 7), "k": (8, 7), "total": (11, 7)}


@pytest.mark.parametrize("path", SPEC_KERNELS, ids=lambda p: p.name)
def test_spec_kernel_fixture_is_named_after_its_verdict(path):
    """An `accepted_*` kernel marks no error and a `rejected_*` one at least one; the markers
    themselves and the snapshot are checked with every UI fixture (tests/ui/test_ui.py)."""
    marks = parse(path.read_text()).errors
    if path.name.startswith("accepted_"):
        assert not marks
    else:
        assert path.name.startswith("rejected_") and marks
    assert check_source(path.read_text(), str(path)).analyses, "the fixture did not reach the analysis"


def test_marker_runner_catches_a_missing_and_an_extra_error():
    """The runner itself: a wrong marker must fail."""
    bad_missing = """
        @launch(256)
        kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          t[0, ctx.lane] = 1.0
          O[0 :+ 1, 0 :+ 32] = t
        }
    """
    with pytest.raises(AssertionError):
        assert_marked(bad_missing)
    bad_extra = bad_missing.replace("1.0\n", "1.0  //~ error PH303\n", 1)
    with pytest.raises(AssertionError):
        assert_marked(bad_extra)
    bad_text = bad_missing.replace("= t\n", '= t  //~ error PH303 "no such words"\n')
    with pytest.raises(AssertionError):
        assert_marked(bad_text)
    good = bad_missing.replace("= t\n", '= t  //~ error PH303 "reads `t`"\n')
    assert_marked(good)


# ---------------------------------------------------------------- DESIGN.md's example

DESIGN_EXAMPLE = """// DESIGN.md's text example: the branch on ctx.lane at line 8, the barrier at line 9.
//
//
//
//
@launch(256)
kernel k(A: tensor<f32>[1, 32]) {
  if ctx.lane == 0 {
    barrier()
  }
}
"""

DESIGN_TEXT = """k.ph:9:5: error[PH301]: `barrier()` runs once per CTA, so every thread must reach it
 8 |   if ctx.lane == 0 {
   |      ------------- (1) `ctx.lane` differs between lanes, so this condition does
 9 |     barrier()
   |     ^^^^^^^^^ reached only by the lanes where the condition holds
   = spec: per-thread-values.md, "What needs every thread"
   = help: move `barrier()` out of the branch, or make the condition uniform
   = see: phobos-check --explain PH301"""


def test_design_example_diagnostic_exactly():
    r = check_source(DESIGN_EXAMPLE, "k.ph")
    d = only(r, "PH301")
    assert len(r.diagnostics) == 1
    assert d.message == "`barrier()` runs once per CTA, so every thread must reach it"
    assert tuple(d.span) == (9, 5, 9, 14)
    assert d.label == "reached only by the lanes where the condition holds"
    assert [(l.text, tuple(l.span)) for l in d.chain] == [
        ("`ctx.lane` differs between lanes, so this condition does", (8, 6, 8, 19))]
    assert d.help == "move `barrier()` out of the branch, or make the condition uniform"
    assert (d.spec.page, d.spec.section) == ("per-thread-values.md", "What needs every thread")
    assert d.notes == []


def test_design_example_renders_as_design_shows():
    r = check_source(DESIGN_EXAMPLE, "k.ph")
    assert render_text(r.diagnostics[0], "k.ph", DESIGN_EXAMPLE).rstrip("\n") == DESIGN_TEXT


def test_design_example_json_entry():
    r = check_source(DESIGN_EXAMPLE, "k.ph")
    entry = diagnostic_to_json(r.diagnostics[0])
    expected = json.loads("""
    {"code": "PH301", "name": "cta-op-divergent-control", "severity": "error",
     "message": "`barrier()` runs once per CTA, so every thread must reach it",
     "line": 9, "column": 5, "end_line": 9, "end_column": 14,
     "label": "reached only by the lanes where the condition holds",
     "chain": [{"line": 8, "column": 6, "end_line": 8, "end_column": 19,
                "text": "`ctx.lane` differs between lanes, so this condition does"}],
     "notes": [], "help": "move `barrier()` out of the branch, or make the condition uniform",
     "spec": {"page": "per-thread-values.md", "section": "What needs every thread"},
     "fixes": []}""")
    assert entry == expected
    assert list(entry) == list(expected)


# ---------------------------------------------------------------- chains

def test_kinds_table_is_sorted_and_lists_only_scalars_and_runs():
    r = check("""
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
          var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
          let v = A[0 :+ 1, 0 :+ 32]
          let x = t[0, ctx.lane]
          let r = elem(A[0, 0 :+ 4])
          var n = 0
          for i in range(0, 4) {
            n += i
          }
        }
    """)
    assert [(x["name"], x["kind"]) for x in r.kinds] == [
        ("x", "varying"), ("r", "uniform"), ("n", "uniform"), ("i", "uniform")]
    assert [(x["line"], x["column"]) for x in r.kinds] == sorted((x["line"], x["column"]) for x in r.kinds)
    assert all(x["kernel"] == "k" for x in r.kinds)
