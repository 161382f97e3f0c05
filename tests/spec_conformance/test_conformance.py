"""The conformance suite (issue 4): every fixture of tests/spec_conformance/ checked against its
inline markers, and a generated matrix of value sources x control structures x operations whose
expected verdicts are written out by hand below, from per-thread-values.md and LANGUAGE §8-§9.

Fixture syntax and the known-gap convention: tests/support/markers.py (the suite's one grammar). A fixture with a
`//~ gap` marker is an expected failure while the analyzer is wrong in exactly the recorded way,
and fails ("GAP FIXED") once the analyzer gives the right answer.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

import kernel_fixtures
from markers import parse
from spec_conformance import spec_map
from spec_conformance.fixtures import ROOT, check_text, fixture_id, fixture_paths, judge

FIXTURES = fixture_paths()


# ------------------------------------------------------------------ the fixtures


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_fixture(path):
    status, detail = kernel_fixtures.verdict(path, per_thread_only=True)
    if status == "xfail":
        pytest.xfail(detail)
    if status == "fail":
        pytest.fail(f"{fixture_id(path)}: {detail}", pytrace=False)


@pytest.mark.parametrize("path", [p for p in FIXTURES if p.name.startswith("fires_")], ids=fixture_id)
def test_fixture_snapshot(path, bless):
    """What phobos-check prints for a fires_ fixture is pinned by the snapshot beside it
    (tests/support/kernel_fixtures.py; `pytest --bless` writes it)."""
    failure = kernel_fixtures.check_snapshot(path, bless, where=f"tests/spec_conformance/{fixture_id(path)}")
    if failure:
        pytest.fail(failure, pytrace=False)


def test_no_snapshot_without_its_fixture(bless):
    orphans = kernel_fixtures.orphan_snapshots(ROOT)
    clean = [p for p in ROOT.rglob("clean_*" + kernel_fixtures.SNAPSHOT_SUFFIX)]
    if bless:
        for p in orphans:
            p.unlink()
        orphans = []
    assert not orphans, f"snapshots whose fixture is gone (`pytest --bless` removes them): {orphans}"
    assert not clean, f"clean_ fixtures have no snapshot: {clean}"


def test_there_are_enough_fixtures():
    assert len(FIXTURES) >= 150, f"only {len(FIXTURES)} fixtures (the issue asks for at least 150)"


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_fixture_shape(path):
    """Named fires_/clean_ after their behaviour; opens with a comment quoting the spec; pins known
    spec sentences; a fires_ file marks at least one error, a clean_ file none."""
    text = path.read_text(encoding="utf-8")
    exp = parse(text)
    assert not exp.problems, exp.problems
    assert path.name.startswith(("fires_", "clean_")), "fixture names start with fires_ or clean_"
    assert text.startswith("//"), "a fixture opens with a comment citing the spec sentence it pins"
    assert exp.pins, "a fixture names the spec sentences it pins in a `// pins:` line"
    unknown = [p for p in exp.pins if p not in spec_map.SENTENCE_IDS]
    assert not unknown, f"unknown sentence ids {unknown} (spec_map.py lists them)"
    wanted = sum(exp.errors.values(), Counter())
    if path.name.startswith("fires_"):
        assert wanted, "a fires_ fixture marks at least one expected error"
    else:
        assert not wanted, "a clean_ fixture marks no error (use a gap marker for a false positive)"


def test_every_spec_sentence_has_a_fixture():
    pinned = {p for path in FIXTURES for p in parse(path.read_text(encoding="utf-8")).pins}
    missing = [s.id for s in spec_map.SENTENCES if s.status != "not checked" and s.id not in pinned]
    assert not missing, f"spec sentences no fixture pins: {missing}"


# LANGUAGE §8's CTA-wide and lane-level operations by the name DESIGN.md gives them in messages.
SECTION_8_OPS = (
    "tile copy", "slice", "elementwise sweep", "barrier()", "dot", "dot_t", "rowsum", "rowmax", "cumsum",
    "tril", "transpose", "atomic_add", "atomic_max", "atomic_min", "atomic_cas", "load_acquire",
    "store_release", "qdot_t", "qmma_t", "shfl<xor ..>", "shfl<up ..>", "shfl<down ..>", "shfl<idx ..>",
) + tuple(f"{op}<over ctx.{over}>" for over in ("lane", "thread") for op in ("sum", "max", "min", "any", "all"))
# the elementwise tile functions of §8, by the text of the call
SWEEP_FUNCTIONS = ("exp(", "log(", "sqrt(", "tanh(", "round(", "tmax(", "where(", "f16(")


def _op_names(result) -> set:
    return {op.name for ka in result.analyses for op in ka.facts.ops}


def test_every_section_8_operation_is_rejected_and_accepted_somewhere():
    """Each operation is named by a marked error (rejected somewhere) and used by a clean fixture."""
    rejected, accepted, sweep_rejected = set(), set(), set()
    for path in FIXTURES:
        c = kernel_fixtures.checked(path)
        text, result, exp = c.text, c.result, c.expectations
        if path.name.startswith("clean_"):
            accepted |= _op_names(result)
        for d in result.diagnostics:
            m = re.match(r"`([^`]+)`", d.message)
            if m and d.span.line in exp.errors:
                rejected.add(m.group(1))
        lines = text.splitlines()
        for line in exp.errors:
            sweep_rejected |= {f for f in SWEEP_FUNCTIONS if f in lines[line - 1]}
    assert not [op for op in SECTION_8_OPS if op not in rejected], \
        f"no fixture shows these operations rejected: {[op for op in SECTION_8_OPS if op not in rejected]}"
    assert not [op for op in SECTION_8_OPS if op not in accepted], \
        f"no clean fixture uses: {[op for op in SECTION_8_OPS if op not in accepted]}"
    assert set(SWEEP_FUNCTIONS) <= sweep_rejected, \
        f"elementwise tile functions never rejected: {set(SWEEP_FUNCTIONS) - sweep_rejected}"


# ------------------------------------------------------------------ the runner itself

_LANE_SWEEP = """@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {{
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  let x = ctx.lane{x}
  if ctx.lane == 0 {{
    t = t * 2.0{sweep}
  }}
  O[0 :+ 1, 0 :+ 32] = t
}}
"""


def _judge(x="", sweep=""):
    return judge(check_text(_LANE_SWEEP.format(x=x, sweep=sweep))[0])


@pytest.mark.parametrize("x, sweep, status, says", [
    ("", "  //~ error PH301", "pass", ""),
    ("  //~ kind x varying", "  //~ error PH301 \"every thread must reach it\"", "pass", ""),
    ("", "", "fail", "unexpected PH301"),                                  # an unmarked line must be clean
    ("  //~ error PH302", "  //~ error PH301", "fail", "expected PH302"),  # a marked error must appear
    ("", "  //~ error PH301 PH301", "fail", "expected PH301"),             # counts matter
    ("", "  //~ error PH301 \"between warps\"", "fail", "lacks"),        # the message text is checked
    ("  //~ kind x uniform", "  //~ error PH301", "fail", "`x` is varying"),
    ("  //~ kind y uniform", "  //~ error PH301", "fail", "no scalar binding `y`"),
    ("  //~ eror PH301", "  //~ error PH301", "fail", "bad marker"),
    (" + true", "  //~ error PH301", "fail", "only per-thread codes"),    # a type error: the fixture is wrong
    ("", "  //~ gap clean PH301 \"r\"", "xfail", "known gap"),           # recorded false positive
    ("  //~ gap kind x uniform \"r\"", "  //~ error PH301", "xfail", "known gap"),
    ("", "  //~ gap error PH301 \"r\"", "fail", "GAP FIXED"),            # the analyzer is right now
    ("  //~ gap error PH302 \"r\"", "", "fail", "unexpected PH301"),     # a gap hides nothing else
])
def test_runner_verdicts(x, sweep, status, says):
    got, detail = _judge(x, sweep)
    assert got == status, detail
    assert says in detail


# ------------------------------------------------------------------ the matrix
#
# Value sources x control structures x operations needing each level. `s` holds the source (its
# kind is checked too); the control structure makes the operation's control depend on `s`, or, in
# the `operand` row, `s` is the operation's scalar operand. The expected codes are written out by
# hand from the spec, not computed:
#   - kinds (per-thread-values.md, "The three kinds"; LANGUAGE §4, §8, §9.2): ctx.thread, ctx.lane
#     and a load at a varying address are varying; ctx.warp and a lane collective's result
#     warp-uniform; ctx.block, a parameter, a load at a uniform address, a CTA collective's and an
#     atomic's result uniform.
#   - control ("Control"; LANGUAGE §9.3): an if/else/while condition, for bounds, a nesting, a
#     break (the statements before it included), a continue or a return under `s` put the operation
#     under the kind of `s`; so does an inlined function branching on its parameter. After a closed
#     branch, or after a call whose function returned early, control is uniform again.
#   - needs ("What needs every thread", "Lane-level operations"; LANGUAGE §8): a CTA-wide operation
#     (barrier) and a CTA collective need uniform control (PH301, PH306); a shuffle and a lane
#     collective control the same across a warp (PH304, PH305); a per-thread store anything. A
#     CTA-wide operation's scalar operand must be uniform (PH302); shuffles, collectives and point
#     stores take any operand.

SOURCES = {
    "thread": "ctx.thread",
    "lane": "ctx.lane",
    "warp": "ctx.warp",
    "block": "ctx.block.x",
    "param": "n",
    "load_uniform": "C[3]",
    "load_varying": "C[ctx.thread]",
    "lane_collective": "max<over ctx.lane>(C[ctx.thread])",
    "cta_collective": "max<over ctx.thread>(C[ctx.thread])",
    "atomic": "atomic_add(D[0], 1)",
}

OPS = {                  # the operation of each column, on the f32 var `v` and the kernel's tensors
    "cta": "barrier()",
    "shuffle": "v = shfl<xor 1>(v)",
    "lane_coll": "v = sum<over ctx.lane>(v)",
    "cta_coll": "v = sum<over ctx.thread>(v)",
    "thread": "O[0, ctx.thread] = v",
}
OPERAND_OPS = {          # the `operand` row: `s` is the operation's scalar operand
    "cta": "O[0 :+ 1, s % 256 :+ 1] = A[0 :+ 1, 0 :+ 1]",
    "shuffle": "v = shfl<idx s % 32>(v)",
    "lane_coll": "v = sum<over ctx.lane>(v + f32(s))",
    "cta_coll": "v = sum<over ctx.thread>(v * f32(s))",
    "thread": "O[0, s % 256] = v",
}

# Each control structure: (function declared before the kernel, kernel statements); `@OP` marks the
# operation's line.
CONTROLS = {
    "if": ("", "if s == 0 {\n  @OP\n}"),
    "else": ("", "if s == 0 {\n  v = v + 1.0\n} else {\n  @OP\n}"),
    "while": ("", "var w = 0\nwhile w < s {\n  @OP\n  w += 1\n}"),
    "for_hi": ("", "for i in range(0, s) {\n  @OP\n}"),
    "for_lo": ("", "for i in range(s, 8) {\n  @OP\n}"),
    "nested": ("", "if n > 0 {\n  for i in range(0, 2) {\n    if s == i {\n      @OP\n    }\n  }\n}"),
    "closed": ("", "if s == 0 {\n  v = v + 1.0\n}\n@OP"),
    "break": ("", "for i in range(0, 4) {\n  @OP\n  if s == i {\n    break\n  }\n}"),
    "continue": ("", "for i in range(0, 4) {\n  if s == i {\n    continue\n  }\n  @OP\n}"),
    "return": ("", "if s == 0 {\n  return\n}\n@OP"),
    "function": ("fn g(x: i32, v0: f32, O: tensor<f32>[R, C], A: tensor<f32>[R, C]) -> f32 {\n"
                 "  var v = v0\n  if x == 0 {\n    @OP\n  }\n  return v\n}\n",
                 "v = g(s, v, O, A)"),
    "after_fn_return": ("fn g(x: i32, v0: f32) -> f32 {\n  if x == 0 {\n    return 0.0\n  }\n  return v0\n}\n",
                        "v = g(s, v)\n@OP"),
    "operand": ("", "@OP"),
}

COLUMNS = ("cta", "shuffle", "lane_coll", "cta_coll", "thread")

# source          control          kind of s     cta      shuffle  lane_coll cta_coll thread
MATRIX = """
thread          if               varying       PH301    PH304    PH305    PH306    -
thread          else             varying       PH301    PH304    PH305    PH306    -
thread          while            varying       PH301    PH304    PH305    PH306    -
thread          for_hi           varying       PH301    PH304    PH305    PH306    -
thread          for_lo           varying       PH301    PH304    PH305    PH306    -
thread          nested           varying       PH301    PH304    PH305    PH306    -
thread          closed           varying       -        -        -        -        -
thread          break            varying       PH301    PH304    PH305    PH306    -
thread          continue         varying       PH301    PH304    PH305    PH306    -
thread          return           varying       PH301    PH304    PH305    PH306    -
thread          function         varying       PH301    PH304    PH305    PH306    -
thread          after_fn_return  varying       -        -        -        -        -
thread          operand          varying       PH302    -        -        -        -

lane            if               varying       PH301    PH304    PH305    PH306    -
lane            else             varying       PH301    PH304    PH305    PH306    -
lane            while            varying       PH301    PH304    PH305    PH306    -
lane            for_hi           varying       PH301    PH304    PH305    PH306    -
lane            for_lo           varying       PH301    PH304    PH305    PH306    -
lane            nested           varying       PH301    PH304    PH305    PH306    -
lane            closed           varying       -        -        -        -        -
lane            break            varying       PH301    PH304    PH305    PH306    -
lane            continue         varying       PH301    PH304    PH305    PH306    -
lane            return           varying       PH301    PH304    PH305    PH306    -
lane            function         varying       PH301    PH304    PH305    PH306    -
lane            after_fn_return  varying       -        -        -        -        -
lane            operand          varying       PH302    -        -        -        -

warp            if               warp-uniform  PH301    -        -        PH306    -
warp            else             warp-uniform  PH301    -        -        PH306    -
warp            while            warp-uniform  PH301    -        -        PH306    -
warp            for_hi           warp-uniform  PH301    -        -        PH306    -
warp            for_lo           warp-uniform  PH301    -        -        PH306    -
warp            nested           warp-uniform  PH301    -        -        PH306    -
warp            closed           warp-uniform  -        -        -        -        -
warp            break            warp-uniform  PH301    -        -        PH306    -
warp            continue         warp-uniform  PH301    -        -        PH306    -
warp            return           warp-uniform  PH301    -        -        PH306    -
warp            function         warp-uniform  PH301    -        -        PH306    -
warp            after_fn_return  warp-uniform  -        -        -        -        -
warp            operand          warp-uniform  PH302    -        -        -        -

block           if               uniform       -        -        -        -        -
block           else             uniform       -        -        -        -        -
block           while            uniform       -        -        -        -        -
block           for_hi           uniform       -        -        -        -        -
block           for_lo           uniform       -        -        -        -        -
block           nested           uniform       -        -        -        -        -
block           closed           uniform       -        -        -        -        -
block           break            uniform       -        -        -        -        -
block           continue         uniform       -        -        -        -        -
block           return           uniform       -        -        -        -        -
block           function         uniform       -        -        -        -        -
block           after_fn_return  uniform       -        -        -        -        -
block           operand          uniform       -        -        -        -        -

param           if               uniform       -        -        -        -        -
param           else             uniform       -        -        -        -        -
param           while            uniform       -        -        -        -        -
param           for_hi           uniform       -        -        -        -        -
param           for_lo           uniform       -        -        -        -        -
param           nested           uniform       -        -        -        -        -
param           closed           uniform       -        -        -        -        -
param           break            uniform       -        -        -        -        -
param           continue         uniform       -        -        -        -        -
param           return           uniform       -        -        -        -        -
param           function         uniform       -        -        -        -        -
param           after_fn_return  uniform       -        -        -        -        -
param           operand          uniform       -        -        -        -        -

load_uniform    if               uniform       -        -        -        -        -
load_uniform    else             uniform       -        -        -        -        -
load_uniform    while            uniform       -        -        -        -        -
load_uniform    for_hi           uniform       -        -        -        -        -
load_uniform    for_lo           uniform       -        -        -        -        -
load_uniform    nested           uniform       -        -        -        -        -
load_uniform    closed           uniform       -        -        -        -        -
load_uniform    break            uniform       -        -        -        -        -
load_uniform    continue         uniform       -        -        -        -        -
load_uniform    return           uniform       -        -        -        -        -
load_uniform    function         uniform       -        -        -        -        -
load_uniform    after_fn_return  uniform       -        -        -        -        -
load_uniform    operand          uniform       -        -        -        -        -

load_varying    if               varying       PH301    PH304    PH305    PH306    -
load_varying    else             varying       PH301    PH304    PH305    PH306    -
load_varying    while            varying       PH301    PH304    PH305    PH306    -
load_varying    for_hi           varying       PH301    PH304    PH305    PH306    -
load_varying    for_lo           varying       PH301    PH304    PH305    PH306    -
load_varying    nested           varying       PH301    PH304    PH305    PH306    -
load_varying    closed           varying       -        -        -        -        -
load_varying    break            varying       PH301    PH304    PH305    PH306    -
load_varying    continue         varying       PH301    PH304    PH305    PH306    -
load_varying    return           varying       PH301    PH304    PH305    PH306    -
load_varying    function         varying       PH301    PH304    PH305    PH306    -
load_varying    after_fn_return  varying       -        -        -        -        -
load_varying    operand          varying       PH302    -        -        -        -

lane_collective if               warp-uniform  PH301    -        -        PH306    -
lane_collective else             warp-uniform  PH301    -        -        PH306    -
lane_collective while            warp-uniform  PH301    -        -        PH306    -
lane_collective for_hi           warp-uniform  PH301    -        -        PH306    -
lane_collective for_lo           warp-uniform  PH301    -        -        PH306    -
lane_collective nested           warp-uniform  PH301    -        -        PH306    -
lane_collective closed           warp-uniform  -        -        -        -        -
lane_collective break            warp-uniform  PH301    -        -        PH306    -
lane_collective continue         warp-uniform  PH301    -        -        PH306    -
lane_collective return           warp-uniform  PH301    -        -        PH306    -
lane_collective function         warp-uniform  PH301    -        -        PH306    -
lane_collective after_fn_return  warp-uniform  -        -        -        -        -
lane_collective operand          warp-uniform  PH302    -        -        -        -

cta_collective  if               uniform       -        -        -        -        -
cta_collective  else             uniform       -        -        -        -        -
cta_collective  while            uniform       -        -        -        -        -
cta_collective  for_hi           uniform       -        -        -        -        -
cta_collective  for_lo           uniform       -        -        -        -        -
cta_collective  nested           uniform       -        -        -        -        -
cta_collective  closed           uniform       -        -        -        -        -
cta_collective  break            uniform       -        -        -        -        -
cta_collective  continue         uniform       -        -        -        -        -
cta_collective  return           uniform       -        -        -        -        -
cta_collective  function         uniform       -        -        -        -        -
cta_collective  after_fn_return  uniform       -        -        -        -        -
cta_collective  operand          uniform       -        -        -        -        -

atomic          if               uniform       -        -        -        -        -
atomic          else             uniform       -        -        -        -        -
atomic          while            uniform       -        -        -        -        -
atomic          for_hi           uniform       -        -        -        -        -
atomic          for_lo           uniform       -        -        -        -        -
atomic          nested           uniform       -        -        -        -        -
atomic          closed           uniform       -        -        -        -        -
atomic          break            uniform       -        -        -        -        -
atomic          continue         uniform       -        -        -        -        -
atomic          return           uniform       -        -        -        -        -
atomic          function         uniform       -        -        -        -        -
atomic          after_fn_return  uniform       -        -        -        -        -
atomic          operand          uniform       -        -        -        -        -
"""


def _rows():
    rows = []
    for line in MATRIX.strip().splitlines():
        if not line.strip():
            continue
        source, control, kind, *cells = line.split()
        assert source in SOURCES and control in CONTROLS and len(cells) == len(COLUMNS), line
        for column, code in zip(COLUMNS, cells):
            rows.append((source, control, kind, column, None if code == "-" else code))
    return rows


MATRIX_ROWS = _rows()


def matrix_kernel(row) -> str:
    source, control, kind, column, code = row
    fn, body = CONTROLS[control]
    op = (OPERAND_OPS if control == "operand" else OPS)[column]
    if code:
        op += f"    //~ error {code}"
    fn = fn.replace("@OP", op)
    body = "\n".join("  " + line for line in body.replace("@OP", op).splitlines())
    return (f"{fn}\n@launch(256)\n"
            "kernel k(A: tensor<f32>[1, 256], C: tensor<i32>[256], D: tensor<i32>[8], O: tensor<f32>[1, 256], "
            "n: i32) {\n"
            f"  let s = {SOURCES[source]}    //~ kind s {kind}\n"
            "  var v = A[0, ctx.thread]\n"
            f"{body}\n"
            "  O[0, ctx.thread] = v\n"
            "}\n")


def matrix_problems(row) -> list:
    """What the analyzer gets wrong on one matrix row (empty when it agrees)."""
    text = matrix_kernel(row)
    outcome, _ = check_text(text, "<matrix>")
    return outcome.wrong + [f"line {l}: {m}" for l, m in outcome.mismatches]


def test_matrix_is_complete():
    seen = {(r[0], r[1]) for r in MATRIX_ROWS}
    assert seen == {(s, c) for s in SOURCES for c in CONTROLS}
    assert len(MATRIX_ROWS) == len(SOURCES) * len(CONTROLS) * len(COLUMNS)


@pytest.mark.parametrize("row", MATRIX_ROWS, ids=lambda r: f"{r[0]}-{r[1]}-{r[3]}")
def test_matrix(row):
    problems = matrix_problems(row)
    assert not problems, "\n".join(problems) + "\n" + matrix_kernel(row)


# ------------------------------------------------------------------ what the messages say

ORIGINS = ("ctx.thread", "ctx.lane", "ctx.warp", "<over ctx.lane>", "`break`", "`continue`", "`return`")


def test_messages_name_the_operation_and_the_origin():
    """per-thread-values.md, "What needs every thread": "The compiler's message goes on to name what
    made the control or the operand differ, and names op by the operation it compiled the statement
    to." Every PH3xx diagnostic names a DESIGN.md operation; for PH301/PH302/PH304-PH306 its chain (or,
    for an operand that is itself the origin, the message) names where the difference comes from, and
    a PH303 chain points at the per-thread store."""
    problems = []
    for path in FIXTURES:
        result = kernel_fixtures.checked(path).result
        for d in result.diagnostics:
            if not d.code.startswith("PH3"):
                continue
            where = f"{fixture_id(path)}:{d.span.line} {d.code}"
            op = re.match(r"`([^`]+)`", d.message)
            if not op or op.group(1) not in SECTION_8_OPS:
                problems.append(f"{where}: message names no operation of DESIGN.md: {d.message}")
            said = " ".join([d.message] + [label.text for label in d.chain])
            if d.code != "PH303" and not any(o in said for o in ORIGINS):
                problems.append(f"{where}: neither message nor chain names the origin: {said}")
            if d.code == "PH303" and not any("stores to" in label.text for label in d.chain):
                problems.append(f"{where}: the chain does not show the per-thread store")
            if d.spec is None or d.spec.page != "per-thread-values.md":
                problems.append(f"{where}: no spec reference")
    assert not problems, "\n".join(problems)
