"""`phobos-check`'s reports of the per-thread analysis, on the real analyzer: SARIF, `--kinds` in
text and JSON, `--why`, `--explain`, `--list-rules` and `--dump-cfg`.

The SARIF checks are written by hand against the SARIF 2.1.0 schema's required properties and
value ranges (no network, no schema package): enough to catch a missing or misspelt key."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from paths import REPO, SPEC_KERNELS
from phobos_tools.analyzer.diagnostics.codes import CODES
from phobos_tools.analyzer.rules.registry import all_rules, explain_text
from phobos_tools.cli.check import main

MATVEC = str(REPO / "examples" / "lanes_matvec.ph")
BLOOM = str(REPO / "examples" / "bloom_query.ph")
LANE_BRANCH = str(SPEC_KERNELS / "rejected_tile_op_lane_branch.ph")
NO_BARRIER = str(SPEC_KERNELS / "rejected_store_then_read_no_barrier.ph")
NEXT_ITERATION = str(SPEC_KERNELS / "rejected_store_then_read_next_iteration.ph")
RULE_CODES = ["PH301", "PH302", "PH303", "PH304", "PH305", "PH306"]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


@pytest.fixture
def unclosed(tmp_path):
    path = tmp_path / "unclosed.ph"
    path.write_text("kernel k() {")
    return str(path)


# --- SARIF 2.1.0 -----------------------------------------------------------------------------

# The properties SARIF 2.1.0 defines on each object we write (a misspelt key would be silently
# ignored by readers, so it fails here), and those it requires.
SARIF_KEYS = {
    "log": ({"$schema", "version", "runs"}, {"version", "runs"}),
    "run": ({"tool", "results", "columnKind"}, {"tool"}),
    "driver": ({"name", "version", "semanticVersion", "informationUri", "rules"}, {"name"}),
    "descriptor": ({"id", "name", "shortDescription", "fullDescription", "help", "defaultConfiguration"}, {"id"}),
    "result": ({"ruleId", "ruleIndex", "level", "message", "locations", "relatedLocations", "properties"},
               {"message"}),
    "location": ({"id", "physicalLocation", "message"}, set()),
    "physical": ({"artifactLocation", "region"}, {"artifactLocation"}),
    "region": ({"startLine", "startColumn", "endLine", "endColumn"}, {"startLine"}),
}


def shape(kind: str, obj: dict) -> None:
    allowed, required = SARIF_KEYS[kind]
    assert isinstance(obj, dict), kind
    assert set(obj) <= allowed, f"{kind}: unexpected {set(obj) - allowed}"
    assert required <= set(obj), f"{kind}: missing {required - set(obj)}"


def check_sarif(doc: dict) -> dict:
    """Check the whole log's shape; return its one run."""
    shape("log", doc)
    assert doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert doc["version"] == "2.1.0"
    assert len(doc["runs"]) == 1
    run_ = doc["runs"][0]
    shape("run", run_)
    assert run_["columnKind"] == "unicodeCodePoints"
    driver = run_["tool"]["driver"]
    shape("driver", driver)
    assert driver["name"] == "phobos-check" and re.fullmatch(r"\d+\.\d+\.\d+.*", driver["version"])
    ids = []
    for rule in driver["rules"]:
        shape("descriptor", rule)
        assert re.fullmatch(r"PH\d{3}", rule["id"])
        for text_key in ("shortDescription", "fullDescription", "help"):
            if text_key in rule:
                assert isinstance(rule[text_key]["text"], str) and rule[text_key]["text"]
        assert rule["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
        ids.append(rule["id"])
    assert len(ids) == len(set(ids)), "a rule listed twice"
    for result in run_["results"]:
        shape("result", result)
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("none", "note", "warning", "error")
        assert isinstance(result["message"]["text"], str) and result["message"]["text"]
        for loc in result["locations"] + result.get("relatedLocations", []):
            shape("location", loc)
            shape("physical", loc["physicalLocation"])
            region = loc["physicalLocation"]["region"]
            shape("region", region)
            assert all(isinstance(v, int) and v >= 1 for v in region.values())
            assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
        for n, loc in enumerate(result.get("relatedLocations", []), start=1):
            assert loc["id"] == n and loc["message"]["text"].startswith(f"({n}) ")
    return run_


def test_sarif_log_of_rejected_kernels(capsys, unclosed):
    status, out, err = run(capsys, "--format", "sarif", NO_BARRIER, LANE_BRANCH, unclosed, MATVEC)
    assert status == 1 and err == ""
    run_ = check_sarif(json.loads(out))
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    # Every per-thread rule, with its --explain text as help; and the codes the results use.
    assert [r for r in rules if r.startswith("PH3")] == RULE_CODES
    assert rules["PH301"]["help"]["text"] == explain_text("PH301")
    assert rules["PH301"]["name"] == "cta-op-divergent-control"
    assert rules["PH005"]["name"] == CODES["PH005"][0]
    assert rules["PH005"]["shortDescription"]["text"] == CODES["PH005"][1]

    by_code = {r["ruleId"]: r for r in run_["results"]}
    assert set(by_code) == {"PH301", "PH303", "PH005"}
    ph301 = by_code["PH301"]
    where = ph301["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == LANE_BRANCH
    assert (where["region"]["startLine"], where["region"]["startColumn"]) == (10, 5)
    assert ph301["level"] == "error"
    assert ph301["message"]["text"] == "`elementwise sweep` runs once per CTA, so every thread must reach it"
    assert "`ctx.lane`" in ph301["relatedLocations"][0]["message"]["text"]

    ph303 = by_code["PH303"]
    assert ph303["locations"][0]["physicalLocation"]["region"]["startLine"] == 11
    chain = ph303["relatedLocations"]
    assert chain and chain[0]["physicalLocation"]["region"]["startLine"] == 10
    assert "stores to `t`" in chain[0]["message"]["text"]
    assert ph303["properties"]["spec"] == {"page": "per-thread-values.md", "section": "What needs every thread"}


def test_sarif_of_a_clean_file_has_an_empty_result_list(capsys):
    status, out, _ = run(capsys, "--format", "sarif", MATVEC)
    assert status == 0
    assert check_sarif(json.loads(out))["results"] == []


def test_sarif_uri_is_a_uri_reference(capsys, tmp_path):
    spaced = tmp_path / "a b%.ph"
    spaced.write_text(Path(LANE_BRANCH).read_text())
    _, out, _ = run(capsys, "--format", "sarif", str(spaced))
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("/a%20b%25.ph")


# --- --kinds ---------------------------------------------------------------------------------

def test_kinds_in_text_badges_each_binding_beside_its_line(capsys):
    status, out, _ = run(capsys, "--kinds", MATVEC)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == f"{MATVEC}: kinds of the let, var and loop bindings"
    source = Path(MATVEC).read_text().splitlines()
    assert len(lines) == 1 + len(source)
    rows = dict(re.fullmatch(r" *(\d+) \| ?(.*)", line).groups() for line in lines[1:])
    assert re.fullmatch(r"  let row = ctx\.block\.x \* ctx\.warps \+ ctx\.warp +// row: warp-uniform", rows["8"])
    assert rows["9"].endswith("// acc: varying")
    assert rows["16"].endswith("// total: warp-uniform")
    assert rows["12"].endswith("// at: varying")
    assert rows["10"] == "  if row < N {"                 # no binding: the line as it is
    assert rows["13"] == source[12]
    # The badges line up.
    assert len({rows[n].index("//") for n in ("8", "9", "11", "12", "16")}) == 1


def test_kinds_in_text_follow_the_diagnostics_and_say_when_there_are_none(capsys, unclosed):
    status, out, _ = run(capsys, "--kinds", unclosed, LANE_BRANCH)
    assert status == 1
    assert out.index("error[PH005]") < out.index(f"{unclosed}: kinds") < out.index("error[PH301]")
    assert "(none: the errors above stop the analysis" in out
    assert out.index("error[PH301]") < out.index(f"{LANE_BRANCH}: kinds")


def test_kinds_of_a_function_merge_its_call_sites_when_they_agree(capsys):
    _, out, _ = run(capsys, "--kinds", BLOOM)
    row = next(line for line in out.splitlines() if line.startswith(" 10 |"))
    assert row.endswith("// h: varying")


NESTED_CALLS = """\
fn inc(x: i32) -> i32 {
  let y = x + 1
  return y
}

fn twice(x: i32) -> i32 {
  return inc(x) + inc(2)
}

@launch(128)
kernel k(O: tensor<i32>[1, 128]) {
  let a = inc(ctx.lane)
  let b = twice(3)
  O[0, ctx.thread] = a + b
}
"""


def test_kinds_of_a_function_say_each_call_site_when_they_differ(capsys, tmp_path):
    (tmp_path / "calls.ph").write_text(NESTED_CALLS)
    status, out, _ = run(capsys, "--kinds", str(tmp_path / "calls.ph"))
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("  2 |"))
    assert row.endswith("// y: varying (inlined at 12:11), uniform (inlined at 13:11 > 7:10; inlined at 13:11 > 7:19)")


def test_why_inside_nested_calls_names_every_call(capsys, tmp_path):
    (tmp_path / "calls.ph").write_text(NESTED_CALLS)
    _, out, _ = run(capsys, "--why", "y", str(tmp_path / "calls.ph"))
    blocks = out.strip().split("\n\n")
    assert [b.splitlines()[0].rsplit(": ", 1)[1] for b in blocks] == [
        "`y` is varying", "`y` is uniform", "`y` is uniform"]
    assert ("(1) `ctx.lane` differs between lanes, so parameter `x` of `inc` does (inlined from 12:11)"
            in blocks[0])
    assert "= inlined: `inc` called at 12:11 in kernel `k`" in blocks[0]
    assert "= inlined: `inc` called at 7:10 in `twice`, called at 13:11 in kernel `k`" in blocks[1]


def test_kinds_in_json_keep_the_documented_keys_and_order(capsys):
    status, out, _ = run(capsys, "--format", "json", "--kinds", MATVEC)
    assert status == 0
    kinds = json.loads(out)["files"][0]["kinds"]
    assert all(list(k) == ["kernel", "name", "line", "column", "kind"] for k in kinds)
    assert [(k["name"], k["line"], k["column"], k["kind"]) for k in kinds] == [
        ("row", 8, 7, "warp-uniform"), ("acc", 9, 7, "varying"), ("k", 11, 9, "uniform"),
        ("at", 12, 11, "varying"), ("total", 16, 7, "warp-uniform")]
    assert {k["kernel"] for k in kinds} == {"lanes_matvec"}


# --- --why -----------------------------------------------------------------------------------

def test_why_row_walks_back_to_ctx_warp(capsys):
    status, out, _ = run(capsys, "--why", "row", MATVEC)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == f"{MATVEC}:8:7: note: `row` is warp-uniform"
    assert " 8 |   let row = ctx.block.x * ctx.warps + ctx.warp" in lines
    assert any("(1) `ctx.warp` differs between warps, so `row` does" in line for line in lines)
    assert any(line.endswith("|       ^^^ warp-uniform: the same value in every lane of a warp, but it may differ between warps") for line in lines)
    assert "= kernel: lanes_matvec" in out


def test_why_acc_numbers_the_chain_from_the_origin(capsys):
    _, out, _ = run(capsys, "--why", "acc", MATVEC)
    first, second = out.index("(1) `ctx.lane`"), out.index("(2) `at`")
    assert first < second


def test_why_a_uniform_binding_says_so_without_a_chain(capsys):
    status, out, _ = run(capsys, "--why", "k", MATVEC)
    assert status == 0
    assert out.startswith(f"{MATVEC}:11:9: note: `k` is uniform\n")
    assert "uniform: nothing that differs between threads flows into it" in out
    assert "(1)" not in out


def test_why_a_function_binding_once_per_call_site(capsys):
    _, out, _ = run(capsys, "--why", "h", BLOOM)
    blocks = out.strip().split("\n\n")
    assert len(blocks) == 2
    assert "= inlined: `mix32` called at 29:12 in kernel `bloom_query`" in blocks[0]
    assert "= inlined: `mix32` called at 30:12 in kernel `bloom_query`" in blocks[1]


def test_why_still_reports_the_errors_of_other_files(capsys, unclosed):
    status, out, _ = run(capsys, "--why", "row", unclosed, MATVEC)
    assert status == 1
    assert "error[PH005]" in out and "note: `row` is warp-uniform" in out


def test_why_a_name_nothing_binds_is_a_usage_error(capsys):
    status, out, err = run(capsys, "--why", "nothing_here", MATVEC)
    assert status == 2 and out == ""
    assert "phobos-check: error: --why: no binding named 'nothing_here'" in err


# --- --explain and --list-rules --------------------------------------------------------------

@pytest.mark.parametrize("code", RULE_CODES)
def test_explain_prints_the_rule_documentation(capsys, code):
    status, out, err = run(capsys, "--explain", code)
    assert status == 0 and err == ""
    assert out.startswith(code) and len(out.splitlines()) >= 10
    assert out == explain_text(code) + "\n"
    assert run(capsys, "--explain", code.lower())[1] == out


def test_explain_a_code_outside_the_rules_gives_its_name_and_meaning(capsys):
    status, out, _ = run(capsys, "--explain", "PH005")
    assert status == 0
    assert out.startswith(f"PH005 {CODES['PH005'][0]}: {CODES['PH005'][1]}\n")


@pytest.mark.parametrize("code", ["PH999", "PH307", "E0382", ""])
def test_explain_an_unknown_code_is_a_usage_error(capsys, code):
    status, out, err = run(capsys, "--explain", code)
    assert status == 2 and out == ""
    assert "phobos-check: error: --explain: unknown code" in err


def test_list_rules_is_a_table_of_the_six_rules(capsys):
    status, out, err = run(capsys, "--list-rules")
    assert status == 0 and err == ""
    rows = [line.split() for line in out.splitlines() if line.startswith("PH")]
    assert [row[0] for row in rows] == RULE_CODES
    for row, module in zip(rows, all_rules()):
        assert row[1] == module.RULE.name and row[2] == module.RULE.severity
        assert " ".join(row[3:]) == module.RULE.summary


# --- --dump-cfg ------------------------------------------------------------------------------

NODE = re.compile(r'  n(\d+) \[label="(?:[^"\\]|\\.)*"(?:, shape=\w+)?\];')
EDGE = re.compile(r'  n(\d+) -> n(\d+)(?: \[(?:style=dashed, label="back"|label="(?:true|false)")\])?;')


def parse_dot(text: str) -> tuple[set[str], list[tuple[str, str, bool]]]:
    """The node ids and edges of the DOT the CFG printer writes; fails on any other line."""
    lines = text.splitlines()
    assert lines[0].startswith("digraph ") and lines[0].endswith("{") and lines[-1] == "}"
    nodes, edges = set(), []
    for line in lines[1:-1]:
        if line.startswith("  node ["):
            continue
        if m := NODE.fullmatch(line):
            nodes.add(m[1])
        elif m := EDGE.fullmatch(line):
            edges.append((m[1], m[2], "back" in line))
        else:
            pytest.fail(f"not a DOT statement: {line!r}")
    assert all(a in nodes and b in nodes for a, b, _ in edges)
    return nodes, edges


def test_dump_cfg_writes_one_parseable_graph_per_kernel(capsys, tmp_path, unclosed):
    out_dir = tmp_path / "cfg" / "deeper"
    status, out, err = run(capsys, "--dump-cfg", str(out_dir), MATVEC, NO_BARRIER, unclosed)
    assert status == 1
    assert "error[PH303]" in out and "error[PH005]" in out     # diagnostics as usual
    written = sorted(p.name for p in out_dir.iterdir())
    assert written == ["lanes_matvec.lanes_matvec.dot", "rejected_store_then_read_no_barrier.k.dot"]
    assert f"phobos-check: wrote {out_dir / 'lanes_matvec.lanes_matvec.dot'}" in err
    assert f"phobos-check: no CFG for {unclosed}" in err
    nodes, edges = parse_dot((out_dir / "lanes_matvec.lanes_matvec.dot").read_text())
    assert edges and any(back for _, _, back in edges)       # the `for` loop's back edge
    _, straight = parse_dot((out_dir / "rejected_store_then_read_no_barrier.k.dot").read_text())
    assert straight and not any(back for _, _, back in straight)


def test_dump_cfg_is_the_networkx_graph_of_the_analysis(capsys, tmp_path):
    # DESIGN.md: the CFG is a networkx.DiGraph; what --dump-cfg writes is read off that graph
    from phobos_tools.analyzer import check_file
    run(capsys, "--dump-cfg", str(tmp_path), MATVEC)
    nodes, edges = parse_dot((tmp_path / "lanes_matvec.lanes_matvec.dot").read_text())
    graph = check_file(MATVEC).analyses[0].cfg.graph
    assert type(graph).__module__.startswith("networkx")
    assert {int(n) for n in nodes} == set(graph.nodes)
    assert {(int(a), int(b), back) for a, b, back in edges} == \
        {(a, b, "back" in d) for a, b, d in graph.edges(data=True)}


def test_without_networkx_a_kernel_with_a_loop_cannot_be_checked(tmp_path):
    # the analysis runs on the networkx graph, not beside it: with networkx made unimportable the
    # check of a kernel with a loop fails (an internal error, PH900, exit 3)
    code = ("import sys; sys.modules['networkx'] = None; from phobos_tools.cli.check import main; "
            f"sys.exit(main([{MATVEC!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr)
    assert "PH900" in proc.stdout and "networkx" in proc.stdout


def test_dump_cfg_keeps_both_graphs_of_two_files_with_one_stem(capsys, tmp_path):
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "k.ph").write_text(Path(NO_BARRIER).read_text())
    run(capsys, "--dump-cfg", str(tmp_path / "out"), str(tmp_path / "a"), str(tmp_path / "b"))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["k.k.2.dot", "k.k.dot"]


# --- the rest keeps working ------------------------------------------------------------------

def test_arch_and_defines_are_accepted_with_the_analysis(capsys):
    status, _, err = run(capsys, "--arch", "sm_90", "-D", "UNUSED=1", "--kinds", MATVEC)
    assert status in (0, 1) and "Traceback" not in err


def test_the_command_imports_nothing_heavy_for_a_small_file():
    code = ("import sys; from phobos_tools.cli.check import main; "
            f"status = main(['--format', 'sarif', {MATVEC!r}]); "
            "print('HEAVY', sorted(m for m in ('z3', 'llvmlite', 'numpy') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.rstrip().endswith("HEAVY []")
