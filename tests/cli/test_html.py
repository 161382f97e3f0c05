"""`phobos-check --format html` (issue 23): the page's structure, read back with html.parser.

Every binding of every example carries the badge of the kind `--kinds` reports, every diagnostic
of the conformance fixtures appears under its line with its chain, the page fetches nothing,
escapes every source text, and `-o` writes it where it is told. The stepper itself runs in a real
browser in test_html_browser.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import defaultdict

import pytest

from html_dom import by_id, chain_of, parse_page
from paths import CONFORMANCE, EXAMPLES
from phobos_tools.cli.check import main


def _check(args: list[str], cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "phobos_tools.cli.check", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


def _page(tmp_path, args: list[str]) -> tuple[int, str]:
    out = tmp_path / "page.html"
    status = main([*args, "--format", "html", "-o", str(out)])
    return status, out.read_text(encoding="ascii")


def _badges(root, role: str | None = None) -> list:
    return [b for b in root.find_all("a", "badge") if role is None or b.attrs["data-role"] == role]


def _position(element) -> tuple[str, int, int]:
    path, line, column = element.attrs["data-pos"].rsplit(":", 2)
    return path, int(line), int(column)


def test_the_done_when_page_of_lanes_matvec(tmp_path, capsys):
    status, page = _page(tmp_path, [str(EXAMPLES / "lanes_matvec.ph")])
    assert status == 0
    assert "wrote" in capsys.readouterr().err
    root = parse_page(page)
    ids = by_id(root)
    kinds = {b.attrs["data-name"]: b.attrs["data-kind"] for b in _badges(root, "binding")}
    assert kinds == {"row": "warp-uniform", "acc": "varying", "k": "uniform", "at": "varying",
                     "total": "warp-uniform"}
    acc = next(b for b in _badges(root, "binding") if b.attrs["data-name"] == "acc")
    assert acc.text() == "varying"
    chain = chain_of(root, acc, ids)
    assert [span for span, _ in chain] == ["12:16:12:32", "13:14:13:50"]
    assert "`ctx.lane` differs between lanes, so `at` does" in chain[0][1]
    assert "`at` differs between lanes, so `acc` does" in chain[1][1]
    # the badge sits right after the name it is about, and the address of the page selects it
    assert acc.attrs["id"] == acc.attrs["data-pos"] and acc.attrs["href"] == "#" + acc.attrs["data-pos"]
    assert acc.parent.children[acc.parent.children.index(acc) - 1].text() == "acc"
    # conditions and the operand of the lane collective have badges too; the gutter the control
    conditions = {b.attrs["data-name"]: b.attrs["data-kind"] for b in _badges(root, "condition")}
    assert conditions == {"row < N": "warp-uniform", "ctx.lane == 0": "varying"}
    assert [b.attrs["data-kind"] for b in root.find_all("a", "badge")
            if b.attrs["data-role"].startswith("operand of sum<over ctx.lane>")] == ["varying"]
    gutter = {int(c.attrs["data-line"]): c.attrs["data-kind"] for c in root.find_all("a", "ctl")}
    assert gutter[8] == "uniform" and gutter[12] == "warp-uniform" and gutter[18] == "varying"
    assert [s for s, _ in chain_of(root, next(c for c in root.find_all("a", "ctl") if c.attrs["data-line"] == "18"),
                                   ids)] == ["17:6:17:19"]


def test_a_legend_tells_each_kind_in_words(tmp_path):
    _status, page = _page(tmp_path, [str(EXAMPLES / "lanes_matvec.ph")])
    legend = parse_page(page).find_all("section", "legend")[0]
    text = legend.text()
    for kind in ("uniform", "warp-uniform", "varying"):
        assert kind in [b.text() for b in legend.find_all("span", "badge")]
        assert f"{kind} control" in text
    assert "differs between the lanes of a warp" in text or "one value per lane" in text


def test_the_page_fetches_nothing_and_prints(tmp_path):
    _status, page = _page(tmp_path, [str(EXAMPLES / "lanes_matvec.ph")])
    root = parse_page(page)
    assert not root.find_all("link") and not root.find_all("img") and not root.find_all("iframe")
    assert all("src" not in e.attrs for e in root.iter())
    assert not re.search(r"https?:|url\(|@import|fetch\(|XMLHttpRequest", page)
    assert all(not e.attrs.get("href", "#").strip() or e.attrs.get("href", "#").startswith("#")
               for e in root.find_all("a"))
    assert len(root.find_all("style")) == 1 and len(root.find_all("script")) == 1
    assert "@media print" in page
    assert page.isascii()


def test_without_the_script_every_chain_is_in_the_page(tmp_path):
    # Nothing but the stepper is hidden, and every badge, gutter mark and diagnostic that names a
    # chain finds it among the visible lists.
    fixture = CONFORMANCE / "PH301_cta_op_divergent_control" / "fires_barrier_under_lane_branch.ph"
    status, page = _page(tmp_path, [str(fixture)])
    assert status == 1
    root = parse_page(page)
    ids = by_id(root)
    hidden = [e for e in root.iter() if "hidden" in e.attrs or "display:none" in e.attrs.get("style", "")]
    assert [e.attrs.get("id") for e in hidden] == ["stepper"]
    named = [e for e in root.iter() if e.attrs.get("data-why")]
    assert named and all(e.attrs["data-why"] in ids and ids[e.attrs["data-why"]].tag == "ol" for e in named)
    diag = root.find_all("div", "diag")[0]
    assert chain_of(root, diag, ids) and "reached only by" in diag.text()


def _examples_json() -> dict:
    out = _check([str(EXAMPLES), "--format", "json", "--kinds"])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.slow
def test_every_binding_of_every_example_has_the_badge_of_its_kind(tmp_path):
    document = _examples_json()
    page = tmp_path / "examples.html"
    out = _check([str(EXAMPLES), "--format", "html", "-o", str(page)])
    assert out.returncode == 0, out.stderr
    root = parse_page(page.read_text(encoding="ascii"))
    badges = defaultdict(set)
    for b in _badges(root, "binding"):
        path, line, column = _position(b)
        badges[(path, line, column, b.attrs["data-name"])].add(b.attrs["data-kind"])
    expected = defaultdict(set)
    for f in document["files"]:
        for row in f["kinds"]:
            expected[(f["path"], row["line"], row["column"], row["name"])].add(row["kind"])
    assert len(expected) > 100
    assert dict(badges) == dict(expected)


@pytest.mark.slow
def test_every_diagnostic_of_the_conformance_fixtures_is_under_its_line_with_its_chain(tmp_path):
    out = _check([str(CONFORMANCE), "--format", "json"])
    assert out.returncode == 1, out.stderr
    document = json.loads(out.stdout)
    page = tmp_path / "conformance.html"
    out = _check([str(CONFORMANCE), "--format", "html", "-o", str(page)])
    assert out.returncode == 1, out.stderr
    root = parse_page(page.read_text(encoding="ascii"))
    ids = by_id(root)
    shown = defaultdict(list)
    for d in root.find_all("div", "diag"):
        path, line, column, code = d.attrs["data-pos"].rsplit(":", 3)
        row = d.ancestor("div", "source")
        # under its own line: the source line just before it in the page (or a diagnostic of that line)
        if row is not None:
            siblings = [c for c in row.children if not isinstance(c, str)]
            before = siblings[:siblings.index(d)]
            last_line = next(e for e in reversed(before) if "line" in e.classes)
            assert last_line.attrs["data-line"] == line
        footer = {p.find_all("span", "key")[0].text().rstrip(":"): p.text().split(": ", 1)[1]
                  for p in d.find_all("p", "foot")}
        label = d.find_all("p", "label")
        shown[(path, int(line), int(column), code)].append((
            d.find_all("span", "msg")[0].text(),
            label[0].text().removeprefix("^ ") if label else None,
            [(span, text.split(" ", 1)[1]) for span, text in chain_of(root, d, ids)],
            footer.get("help"), footer.get("spec")))
    expected = defaultdict(list)
    for f in document["files"]:
        for d in f["diagnostics"]:
            chain = [(f"{s['line']}:{s['column']}:{s['end_line']}:{s['end_column']}", s["text"]) for s in d["chain"]]
            spec = f'{d["spec"]["page"]}, "{d["spec"]["section"]}"' if d["spec"] else None
            expected[(f["path"], d["line"], d["column"], d["code"])].append(
                (d["message"], d["label"], chain, d["help"], spec))
    assert sum(len(v) for v in expected.values()) > 150
    assert sum(1 for v in expected.values() for d in v if d[2]) > 100      # most have a chain
    assert {k: sorted(v, key=repr) for k, v in shown.items()} == {k: sorted(v, key=repr) for k, v in expected.items()}


FUNCTION_TWICE = """\
fn pick(x: i32) -> i32 {
  let y = x * 2
  return y
}

@launch(64)
kernel k(O: tensor<i32>[64]) {
  let a = pick(ctx.thread)
  let b = pick(ctx.warp)
  O[ctx.thread] = a + b
}
"""


def test_a_function_shows_its_values_per_call_site_where_they_differ(tmp_path):
    src = tmp_path / "twice.ph"
    src.write_text(FUNCTION_TWICE)
    status, page = _page(tmp_path, [str(src)])
    assert status == 0
    root = parse_page(page)
    ys = [b for b in _badges(root, "binding") if b.attrs["data-name"] == "y"]
    assert sorted((b.attrs["data-kind"], b.text()) for b in ys) == [
        ("varying", "varying (call at 8:11)"), ("warp-uniform", "warp-uniform (call at 9:11)")]
    # one id for the position: the address selects the first
    assert [b.attrs.get("id") for b in ys].count(f"{src}:2:7") == 1
    gutter = [c for c in root.find_all("a", "ctl") if c.attrs["data-line"] == "2"]
    assert gutter and gutter[0].attrs["data-kinds"] == "uniform"


HOSTILE = """\
// </script><script>alert(1)</script> <b>bold</b> & "quotes" 'single' -->
@launch(32)
kernel k(O: tensor<f32>[32]) {
  let v = ctx.lane  // <b>not bold</b> </style> ]]> <!--
  O[ctx.thread] = 1.0  /* </div> */
}
"""


def test_every_source_text_and_file_name_is_escaped(tmp_path):
    name = os.fsdecode(b"k\xff<b>.ph")
    src = tmp_path / name
    src.write_text(HOSTILE)
    out = tmp_path / "page.html"
    status = main([str(src), "--format", "html", "-o", str(out)])
    page = out.read_text(encoding="ascii")
    root = parse_page(page)
    assert not root.find_all("b") and len(root.find_all("script")) == 1 and len(root.find_all("style")) == 1
    code = "".join(c.text() for c in root.find_all("code", "src"))
    assert "</script><script>alert(1)</script> <b>bold</b>" in code and "// <b>not bold</b> </style>" in code
    assert "k\\xff<b>.ph" in root.find_all("h2", "path")[0].text()
    assert all("\ufffd" not in e.text() for e in root.find_all("h2"))
    assert status in (0, 1)


def test_html_goes_to_stdout_without_o():
    out = _check([str(EXAMPLES / "lanes_matvec.ph"), "--format", "html"])
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("<!DOCTYPE html>") and out.stdout.rstrip().endswith("</html>")
    assert out.stderr == ""


def test_a_file_that_does_not_check_has_its_diagnostics_and_no_badges(tmp_path):
    src = tmp_path / "bad.ph"
    src.write_text("@launch(32)\nkernel k(O: tensor<f32>[32]) {\n  let v = nope\n}\n")
    status, page = _page(tmp_path, [str(src)])
    assert status == 1
    root = parse_page(page)
    assert not _badges(root)
    assert "Not analysed" in root.text()
    diag = root.find_all("div", "diag")[0]
    assert diag.attrs["data-pos"].endswith(":3:11:" + diag.attrs["data-code"])


@pytest.mark.parametrize("args, message", [
    (["--format", "text", "-o", "x.html"], "-o writes one document"),
    (["--format", "html", "-o", ""], "-o: the path is empty"),
    (["--format", "html", "-o", "no/such/dir/k.html"], "-o: cannot write"),
    (["--format", "html", "--why", "acc"], "--why prints text"),
])
def test_bad_uses_of_o_and_html_are_usage_errors(tmp_path, args, message):
    out = _check([str(EXAMPLES / "lanes_matvec.ph"), *args], cwd=tmp_path)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1


def test_o_writes_json_and_sarif_too(tmp_path):
    for fmt in ("json", "sarif"):
        target = tmp_path / f"k.{fmt}"
        assert main([str(EXAMPLES / "lanes_matvec.ph"), "--format", fmt, "-o", str(target)]) == 0
        assert json.loads(target.read_text())
