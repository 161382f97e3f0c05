"""SPEC_MAP.md: every normative sentence of per-thread-values.md, and every decision of LANGUAGE §8's
table and §9, mapped to the rule or inference that implements it, the module, the fixtures that pin
it and a status. Generated from the data below, the rule registry and the fixtures' `// pins:` lines.

    python tests/spec_conformance/spec_map.py           # rewrite SPEC_MAP.md
    python tests/spec_conformance/spec_map.py --check   # exit 1 when SPEC_MAP.md is stale

The sentences are data (``SENTENCES``): one entry per sentence that states a rule or an example's
verdict, quoted short, with the section it is cited by. A fixture names the ids it pins; a row's
fixtures are exactly the fixtures naming its id. Statuses:

- ``enforced``: a rule (PH301-PH306) reports its violation;
- ``inference``: the kind or control inference the rules build on (no code of its own; visible
  through the rules and `phobos-check --kinds`);
- ``not checked``: deliberately outside the analyzer, with the reason.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OUTPUT = REPO / "SPEC_MAP.md"

ENFORCED, INFERENCE, NOT_CHECKED = "enforced", "inference", "not checked"
PAGE, LANG = "per-thread-values.md", "LANGUAGE.md"


@dataclass(frozen=True)
class Sentence:
    id: str
    doc: str            # PAGE or LANG
    section: str        # the page's heading, or "§9.3"
    quote: str          # short
    maps_to: str        # "PH301" ... (codes separated by spaces) or the name of an inference
    modules: tuple      # "path[:symbol]" under the repository root
    status: str
    reason: str = ""    # for NOT_CHECKED


def S(id, doc, section, quote, maps_to, modules, status, reason=""):
    return Sentence(id, doc, section, quote, maps_to, tuple(modules.split()), status, reason)


KINDS_SOLVER = "analyzer/facts/derive.py:kind_solver"
SOURCES = "analyzer/facts/atoms.py:CTX_KINDS analyzer/facts/ctx.py:emit"
CONTROL = "analyzer/facts/control.py:emit analyzer/cfg.py:raises " + KINDS_SOLVER
PATHS = "analyzer/facts/paths.py:unsynced_paths analyzer/facts/derive.py:per_thread_stores"
Z3 = "analyzer/facts/feasible.py:PathQuestions"
CFG = "analyzer/cfg.py:Builder"

SENTENCES = [
    # ---- per-thread-values.md, opening and figure
    S("intro.sources", PAGE, "Uniform, warp-uniform and varying",
      "Every value in a Phobos kernel is the same in every thread of the CTA until ctx.thread, ctx.warp or "
      "ctx.lane flows into it.", "kind sources", SOURCES, INFERENCE),
    S("intro.inferred", PAGE, "Uniform, warp-uniform and varying",
      "The compiler infers, for each value, how far it may differ between threads. There is no annotation "
      "to write.", "kind inference", KINDS_SOLVER + " analyzer/analysis.py:kinds_table", INFERENCE),
    S("intro.figure", PAGE, "Uniform, warp-uniform and varying",
      "The lanes matvec kernel (the figure) is valid; row warp-uniform, acc varying, total warp-uniform.",
      "PH305", KINDS_SOLVER, ENFORCED),
    # ---- The three kinds
    S("kinds.uniform", PAGE, "The three kinds",
      "uniform: the same value in every thread of the CTA; literals, kernel parameters, ctx.block, the ctx "
      "counts, loads at uniform addresses.", "kind sources", SOURCES, INFERENCE),
    S("kinds.warp-uniform", PAGE, "The three kinds",
      "warp-uniform: the same value in every lane of a warp; ctx.warp.", "kind sources", SOURCES, INFERENCE),
    S("kinds.varying", PAGE, "The three kinds",
      "varying: a value per lane; ctx.thread, ctx.lane, a load at a varying address.", "kind sources",
      SOURCES + " analyzer/facts/atoms.py:atoms", INFERENCE),
    S("kinds.order", PAGE, "The three kinds",
      "The kinds are ordered: uniform, then warp-uniform, then varying. The inference always takes the more "
      "varying side.", "kind lattice", "analyzer/facts/schema.py:KIND_NAMES analyzer/facts/derive.py:KindSolver",
      INFERENCE),
    S("kinds.expression", PAGE, "The three kinds",
      "An expression is as varying as its most varying operand. ctx.block.x * ctx.warps + ctx.warp is "
      "warp-uniform; col * K + ctx.lane is varying.", "expression kinds",
      "analyzer/facts/atoms.py:atoms analyzer/facts/dataflow.py:emit " + KINDS_SOLVER, INFERENCE),
    S("kinds.var", PAGE, "The three kinds",
      "A var is as varying as anything assigned to it, and as the conditions it was assigned under, through "
      "every iteration of a loop.", "var kinds", "analyzer/facts/dataflow.py:var_assign " + KINDS_SOLVER,
      INFERENCE),
    S("kinds.var-later-iteration", PAGE, "The three kinds",
      "A var that starts uniform and is assigned ctx.lane in a later iteration is varying everywhere.",
      "var kinds", "analyzer/facts/dataflow.py:var_assign " + KINDS_SOLVER, INFERENCE),
    S("kinds.loop-variable", PAGE, "The three kinds",
      "A loop variable is as varying as the loop's bounds. for k in range(ctx.lane, K, ctx.lanes) makes k "
      "varying.", "loop variable kinds", "analyzer/facts/dataflow.py:loop_bound " + KINDS_SOLVER, INFERENCE),
    S("kinds.scalar-var-registers", PAGE, "The three kinds",
      "A scalar var lives in each thread's registers either way, so var acc: f32 = 0.0 summed over a "
      "lane-strided loop is one partial sum per thread.", "var kinds",
      "analyzer/facts/dataflow.py:var_assign " + KINDS_SOLVER, INFERENCE),
    S("kinds.example", PAGE, "The three kinds",
      "The fragment: col warp-uniform; acc varying; k varying; W[col, k] a load at a varying address; "
      "total warp-uniform again.", "kind inference", KINDS_SOLVER, INFERENCE),
    S("kinds.collective-lowers", PAGE, "The three kinds",
      "A collective lowers the kind again: a fold over the whole warp leaves every lane with the same "
      "result.", "collective result kinds", "analyzer/facts/atoms.py:atoms", INFERENCE),
    # ---- Control
    S("control.enclosing", PAGE, "Control",
      "The control a statement runs under is as varying as the if and while conditions and the for bounds "
      "around it.", "control kind", CONTROL, INFERENCE),
    S("control.examples", PAGE, "Control",
      "Inside if ctx.lane == 0 { .. } the control is varying; inside if col < N { .. } with a warp-uniform "
      "col it is warp-uniform.", "control kind", CONTROL, INFERENCE),
    S("control.early-exit", PAGE, "Control",
      "A break, continue or return under varying control makes the rest of its loop or kernel varying too.",
      "early exits", CONTROL, INFERENCE),
    # ---- What runs anywhere
    S("anywhere.ops", PAGE, "What runs anywhere",
      "Scalar loads, scalar arithmetic, scalar stores to tensors and vars, and if, for and while run in each "
      "thread on its own. They are allowed under any control.", "operation classes",
      "language/ops.py:PER_THREAD", ENFORCED),
    S("anywhere.lane-level", PAGE, "What runs anywhere",
      "A thread can branch on its own lane, loop to its own bound and store its own result.",
      "operation classes", "language/ops.py:PER_THREAD", ENFORCED),
    # ---- What needs every thread
    S("everyone.ops", PAGE, "What needs every thread",
      "A tile operation (a copy, an elementwise sweep, a reduction, a dot), barrier(), an atomic, "
      "load_acquire and store_release, and the quantized intrinsics run once per CTA.",
      "operation classes", "language/ops.py:CTA_WIDE analyzer/facts/operations.py:emit", ENFORCED),
    S("everyone.rule-control", PAGE, "What needs every thread",
      "They run only under uniform control: every thread must reach them.", "PH301", "", ENFORCED),
    S("everyone.rule-operands", PAGE, "What needs every thread",
      "Their scalar operands are uniform, including slice offsets: a slice at a per-thread offset is not a "
      "tile.", "PH302", "", ENFORCED),
    S("everyone.rule-barrier", PAGE, "What needs every thread",
      "A buffer stored per thread, with a varying value, index or control, is read by no CTA-wide op until a "
      "barrier().", "PH303", PATHS, ENFORCED),
    S("everyone.messages", PAGE, "What needs every thread",
      "The compiler's message goes on to name what made the control or the operand differ, and names op by "
      "the operation it compiled the statement to.", "PH301 PH302 PH303",
      "analyzer/facts/explain.py:chain_labels", ENFORCED),
    S("ex.lane-branch", PAGE, "A tile operation under per-thread control",
      "Only lane 0 of each warp would reach this sweep: rejected, the operation runs once per CTA.",
      "PH301", "", ENFORCED),
    S("ex.warp-branch", PAGE, "A tile operation under per-thread control",
      "The same holds for warp-uniform control: if ctx.warp == 0 { t = t * 2.0 } is rejected as well.",
      "PH301", "", ENFORCED),
    S("ex.closed-branch", PAGE, "A tile operation under per-thread control",
      "A per-thread branch that has closed is no problem. The control after it is uniform again.",
      "control kind", CONTROL, INFERENCE),
    S("ex.slice-offset", PAGE, "A slice at a per-thread offset",
      "A slice is a tile, owned by the CTA, so its offsets must be the same in every thread.", "PH302", "",
      ENFORCED),
    S("ex.point-subscript", PAGE, "A slice at a per-thread offset",
      "A thread that wants its own element reads it with a point subscript, A[0, ctx.lane], which is a "
      "scalar load and runs anywhere.", "operation classes", "language/ops.py:LOAD", ENFORCED),
    S("ex.own-elements", PAGE, "A per-thread store and a CTA-wide read",
      "Each thread may store its own elements into a shared tile.", "operation classes",
      "language/ops.py:STORE", ENFORCED),
    S("ex.no-barrier", PAGE, "A per-thread store and a CTA-wide read",
      "The store to O, a CTA-wide read of t, comes after a per-thread store to t with no barrier() between: "
      "rejected.", "PH303", PATHS, ENFORCED),
    S("ex.with-barrier", PAGE, "A per-thread store and a CTA-wide read",
      "With the barrier the kernel compiles.", "PH303", PATHS, ENFORCED),
    S("ex.loops", PAGE, "A per-thread store and a CTA-wide read",
      "The check follows loops: a store in one iteration and a tile read at the top of the next also need a "
      "barrier between them.", "PH303", PATHS + " " + Z3, ENFORCED),
    S("ex.own-accesses", PAGE, "A per-thread store and a CTA-wide read",
      "A thread's own point and run accesses (t[i, j], elem, sum, store) are not checked.",
      "PH303", "analyzer/facts/memory.py:emit", ENFORCED),
    S("ex.read-back-own", PAGE, "A per-thread store and a CTA-wide read",
      "A thread reading back what it stored itself needs no barrier.", "PH303",
      "analyzer/facts/memory.py:emit", ENFORCED),
    S("ex.other-thread-unchecked", PAGE, "A per-thread store and a CTA-wide read",
      "A thread reading what another thread stored needs one all the same, and the compiler does not check "
      "it.", "(none)", "simulator/", NOT_CHECKED,
      "the page says so: a point or run read's indices alone cannot tell whose store it meets; the CPU "
      "simulator catches the race at run time (LANGUAGE §9.8)"),
    # ---- Lane-level operations
    S("lane.shuffle", PAGE, "Lane-level operations",
      "shfl<..>(v) needs every lane of the warp: control that is the same across a warp.", "PH304", "",
      ENFORCED),
    S("lane.shuffle-result", PAGE, "Lane-level operations",
      "shfl<..>(v): result as varying as its operands.", "shuffle result kinds",
      "analyzer/facts/atoms.py:atoms", INFERENCE),
    S("lane.lane-collective", PAGE, "Lane-level operations",
      "op<over ctx.lane>(x) needs every lane of the warp.", "PH305", "", ENFORCED),
    S("lane.lane-collective-result", PAGE, "Lane-level operations",
      "op<over ctx.lane>(x): over the whole warp, warp-uniform.", "collective result kinds",
      "analyzer/facts/atoms.py:atoms", INFERENCE),
    S("lane.cta-collective", PAGE, "Lane-level operations",
      "op<over ctx.thread>(x) needs every thread of the CTA: uniform control.", "PH306", "", ENFORCED),
    S("lane.cta-collective-result", PAGE, "Lane-level operations",
      "op<over ctx.thread>(x): uniform.", "collective result kinds", "analyzer/facts/atoms.py:atoms",
      INFERENCE),
    S("lane.example", PAGE, "Lane-level operations",
      "A lane collective may sit inside if col < N { .. } when col is warp-uniform, but not inside "
      "if ctx.lane < 16 { .. }.", "PH305", "", ENFORCED),
    # ---- LANGUAGE §6: evaluation order
    S("L6.order", LANG, "§6", "A statement runs its parts in one fixed order, which the checker's CFG, the "
      "simulator and the lowering all follow: a barrier, a collective, an atomic or an inlined call inside an "
      "expression happens exactly at its place in this order.", "evaluation order",
      CFG + " analyzer/facts/plan.py:make_plan", INFERENCE),
    S("L6.assign", LANG, "§6", "An assignment to an element or slice evaluates the target's subscripts first, "
      "left to right, then the right side; a compound assignment then reads the target, then writes it.",
      "evaluation order", CFG, INFERENCE),
    S("L6.binary", LANG, "§6", "A binary operator evaluates its left operand completely before its right; && "
      "and || evaluate the right side only when the left does not decide, wherever they stand (a condition, "
      "a let, an argument, under !).", "evaluation order", CFG, INFERENCE),
    S("L6.call", LANG, "§6", "A call, built-in or generic call evaluates its arguments left to right, then "
      "itself (an inlined function's body runs there); a subscript evaluates its indices before the access.",
      "evaluation order", CFG, INFERENCE),
    S("L6.where", LANG, "§6", "where(c, a, b) evaluates c, a and b, in that order, and selects: it does not "
      "branch.", "evaluation order", CFG, INFERENCE),
    S("L6.loops", LANG, "§6", "A for loop evaluates its bounds once, before the first iteration; a while loop "
      "evaluates its whole condition before every iteration, calls included.", "evaluation order", CFG,
      INFERENCE),
    # ---- LANGUAGE §8: the class table
    S("L8.per-thread", LANG, "§8",
      "per-thread operations (scalar arithmetic, math, loads, stores, runs, if/for/while, exits): any "
      "control, any operands, result the join of the operands' kinds.", "operation classes",
      "language/ops.py:PER_THREAD analyzer/facts/atoms.py:atoms", ENFORCED),
    S("L8.lane-level", LANG, "§8",
      "shfl<xor|up|down|idx E>(v): control the same across a warp; any operands; result the join of v and E.",
      "PH304", "language/ops.py:LANE_LEVEL", ENFORCED),
    S("L8.lane-collective", LANG, "§8",
      "op<over ctx.lane>(x), op in sum max min any all: control the same across a warp; warp-uniform.",
      "PH305", "language/ops.py:LANE_COLLECTIVE", ENFORCED),
    S("L8.cta-collective", LANG, "§8",
      "op<over ctx.thread>(x): uniform control; uniform result.", "PH306", "language/ops.py:CTA_COLLECTIVE",
      ENFORCED),
    S("L8.cta-wide", LANG, "§8",
      "CTA-wide: tile copies, sweeps (exp log sqrt tanh round tmax, where, conversions), tile built-ins, "
      "barrier(), atomics, load_acquire, store_release, qdot_t, qmma_t: uniform control, uniform operands.",
      "PH301 PH302", "language/ops.py:CTA_WIDE", ENFORCED),
    S("L8.atomic-result", LANG, "§8",
      "An atomic's or acquire load's result is uniform.", "operation result kinds",
      "analyzer/facts/atoms.py:_UNIFORM_RESULTS", INFERENCE),
    # ---- LANGUAGE §9
    S("L9.1", LANG, "§9.1",
      "A var has one kind for the whole kernel: the join over every assignment (initializer included) of "
      "the value's kind and the assignment's control kind; varying everywhere, before the assignment too.",
      "var kinds", "analyzer/facts/dataflow.py:var_assign " + KINDS_SOLVER, INFERENCE),
    S("L9.2a", LANG, "§9.2", "A let has the kind of its initializer (a function's scalar parameter, of its "
      "argument).", "let kinds", "analyzer/facts/dataflow.py:let_init " + KINDS_SOLVER, INFERENCE),
    S("L9.2b", LANG, "§9.2", "A loop variable has the join of its bounds' kinds (lo, hi, step).",
      "loop variable kinds", "analyzer/facts/dataflow.py:loop_bound " + KINDS_SOLVER, INFERENCE),
    S("L9.2c", LANG, "§9.2", "A lane collective's result is warp-uniform and a CTA collective's uniform, "
      "whatever their operand.", "collective result kinds", "analyzer/facts/atoms.py:atoms", INFERENCE),
    S("L9.2d", LANG, "§9.2", "A function's result is the join over its returns of the value's kind and the "
      "control kind at the return.", "function result kinds",
      "analyzer/facts/dataflow.py:returns " + KINDS_SOLVER, INFERENCE),
    S("L9.3", LANG, "§9.3", "Control kind of a statement: the join of the kinds of every enclosing if/while "
      "condition and for bounds, raised by early exits.", "control kind", CONTROL, INFERENCE),
    S("L9.3a", LANG, "§9.3", "A break under K raises every statement of its loop, those before it and the "
      "loop's condition included (a while condition, calls and operations in it included; a for loop's bounds "
      "run once, before the loop, and are not raised); after the loop, control is as before the loop.",
      "early exits", CONTROL, INFERENCE),
    S("L9.3b", LANG, "§9.3", "A continue under K raises the statements after it in the same iteration, to the "
      "end of the body.", "early exits", CONTROL, INFERENCE),
    S("L9.3c", LANG, "§9.3", "A return under K in a kernel raises the rest of the kernel and every statement "
      "of each enclosing loop, its while condition included.", "early exits", CONTROL, INFERENCE),
    S("L9.3d", LANG, "§9.3", "A return in a function raises the rest of that function and of the loops "
      "inside it.", "early exits", CONTROL, INFERENCE),
    S("L9.3e", LANG, "§9.3", "An operation on the right of && or || runs under the join of its statement's "
      "control and the kind of the left side.", "short-circuit control", CFG + " " + CONTROL,
      INFERENCE),
    S("L9.4", LANG, "§9.4", "Per-thread store: value, any index, or control not uniform (warp-uniform "
      "counts); a store uniform in all three needs no barrier.", "PH303", PATHS, ENFORCED),
    S("L9.5", LANG, "§9.5", "CTA-wide reads: a copy's source, a sweep's operands (a compound target too), "
      "tile built-ins' operands, an atomic's or load_acquire's element; store_release, barrier(), CTA "
      "collectives and let views read nothing; a view reads its buffer; distinct tensors do not alias.",
      "PH303", "analyzer/facts/operations.py:_add analyzer/facts/derive.py:cta_reads", ENFORCED),
    S("L9.6a", LANG, "§9.6", "The barrier rule is a path property: broken when a feasible control-flow path "
      "runs from a per-thread store to B to a CTA-wide read of B without passing a barrier() statement, "
      "following loops through their back edges; only barrier() cuts a path (not the barriers inside tile "
      "operations).", "PH303", PATHS, ENFORCED),
    S("L9.6-grain", LANG, "§9.6", "Paths are taken at the grain of §6's evaluation order: a barrier inside an "
      "inlined call, on the right of &&, or in a while condition is on the path only where it runs.", "PH303",
      CFG + " " + PATHS, ENFORCED),
    S("L9.6b", LANG, "§9.6", "A path is dropped only when z3 proves it infeasible: that no execution takes "
      "every branch decision along it.", "PH303", Z3 + " " + PATHS, ENFORCED),
    S("L9.6-loops", LANG, "§9.6", "z3 is told each loop's variable and bounds (lo <= i < hi, i = lo + n * step) "
      "for every iteration the path visits, with iterations ordered (i < i' across a back edge); a loop whose "
      "bounds prove it runs at least once cannot be left before its first iteration.", "PH303",
      Z3 + " analyzer/facts/feasible.py:_bounds", ENFORCED),
    S("L9.6-conditions", LANG, "§9.6", "z3 is told the condition of every branch the path takes, or its "
      "negation: if/while conditions, the left sides of &&/||, loop tests, and the conditions of the break, "
      "continue and return the path goes past or through.", "PH303",
      "analyzer/facts/feasible.py:_forced analyzer/facts/feasible.py:_flow analyzer/facts/feasible.py:_guard", ENFORCED),
    S("L9.6-constants", LANG, "§9.6", "z3 is told the constants (literals, -D and @autotune values, ctx.threads, "
      "ctx.warps, ctx.lanes), the ranges of ctx.block and ctx.thread with ctx.warp and ctx.lane derived from it, "
      "let bindings as equalities and @aligned(D = n) as D % n == 0; anything else is a fresh unknown at each "
      "occurrence; integer arithmetic is exact in the type's width (wrapping).", "PH303",
      "analyzer/facts/feasible.py:_term_of analyzer/facts/feasible.py:_ctx analyzer/facts/feasible.py:_wrap",
      ENFORCED),
    S("L9.6-examples", LANG, "§9.6", "Accepted: a store only in the last iteration; a loop that runs at most "
      "once; a barrier skipped only in the first iteration, before anything was stored; for i in range(0, 2) "
      "{ barrier() } between the store and the read.", "PH303", Z3, ENFORCED),
    S("L9.6c", LANG, "§9.6", "z3 runs under a fixed rlimit, not a wall-clock timeout; undecided means the "
      "path stays, and the diagnostic says so in a note.", "PH303", "analyzer/facts/feasible.py:RLIMIT", ENFORCED),
    S("L9.7a", LANG, "§9.7", "Scalar operands of a CTA-wide operation include slice offsets and ends, a "
      "scalar a sweep broadcasts, an atomic's index and value.", "PH302", "analyzer/facts/operations.py:operand",
      ENFORCED),
    S("L9.7b", LANG, "§9.7", "A slice's offsets are checked where the slice is written, a let view included, "
      "whether or not it is used.", "PH302", "language/ops.py:VIEW", ENFORCED),
    S("L9.7c", LANG, "§9.7", "For a warp-uniform operand the message says \"differs between warps\".",
      "PH302", "", ENFORCED),
    S("L9.8", LANG, "§9.8", "Kinds belong to scalars and runs; a scalar read out of a tile or tensor has the "
      "kind of its address (sound only for race-free programs, which the analyzer does not check).",
      "load kinds", "analyzer/facts/atoms.py:atoms", INFERENCE),
    S("L9.9", LANG, "§9.9", "Kinds are ordered uniform < warp-uniform < varying and every join takes the "
      "more varying side.", "kind lattice", "analyzer/facts/schema.py:UNIFORM analyzer/facts/derive.py:KindSolver",
      INFERENCE),
]

SENTENCE_IDS = {s.id for s in SENTENCES}
assert len(SENTENCE_IDS) == len(SENTENCES), "duplicate sentence ids"


# ---------------------------------------------------------------- building the map


class SpecMapError(Exception):
    """The data above no longer matches the code (a module or symbol moved, a rule disappeared)."""


def _rules():
    """code -> (rule module, its path relative to the repository)."""
    from phobos_tools.analyzer.rules.registry import all_rules
    out = {}
    for m in all_rules():
        out[m.RULE.code] = (m, f"analyzer/rules/{m.__name__.rsplit('.', 1)[1]}.py")
    return out


def _pins() -> dict:
    from markers import parse
    from spec_conformance.fixtures import fixture_paths
    out: dict = {}
    for p in fixture_paths():
        for pin in parse(p.read_text(encoding="utf-8")).pins:
            out.setdefault(pin, []).append(p)
    return out


def _module_cell(s: Sentence, rules) -> str:
    mods = []
    for code in s.maps_to.split():
        if code in rules:
            mods.append(f"[`{rules[code][1]}`]({rules[code][1]})")
    for m in s.modules:
        path, _, symbol = m.partition(":")
        text = f"`{path}`" + (f" (`{symbol}`)" if symbol else "")
        mods.append(f"[{text}]({path})")
    return "<br>".join(mods)


def _check_modules(problems: list) -> None:
    for s in SENTENCES:
        for m in s.modules:
            path, _, symbol = m.partition(":")
            f = REPO / path
            if not f.exists():
                problems.append(f"{s.id}: {path} does not exist")
            elif symbol and f.is_file() and symbol not in f.read_text(encoding="utf-8"):
                problems.append(f"{s.id}: `{symbol}` is not in {path}")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    rules = _rules()
    pins = _pins()
    problems: list = []
    _check_modules(problems)
    for s in SENTENCES:
        for code in s.maps_to.split():
            if code.startswith("PH") and code not in rules:
                problems.append(f"{s.id}: no rule module for {code}")
    if problems:
        raise SpecMapError("; ".join(problems))
    from spec_conformance.fixtures import ROOT
    lines = [
        "# SPEC_MAP: from the spec to the rules and the kernels that prove them",
        "",
        "<!-- Generated by `python tests/spec_conformance/spec_map.py` from its sentence list, the rule registry",
        "and the fixtures' `// pins:` lines. Do not edit; `--check` (run by tests/diagnostics/test_registry.py) fails when",
        "this file is stale. -->",
        "",
        "Every sentence of `per-thread-values.md` that states a rule or an example's verdict, and every",
        "decision of `LANGUAGE.md` §8 (the class table) and §9, with the rule or inference that implements",
        "it, the module, the fixtures under `tests/spec_conformance/` that pin it, and a status:",
        "**enforced** (a rule reports it; `phobos-check --explain CODE` prints the rule's text),",
        "**inference** (the kind or control inference the rules build on, shown by `phobos-check --kinds`",
        "and `--why NAME`), or **not checked** by design, with the reason.",
        "",
        "## Rules",
        "",
        "| code | name | spec section | module | fixtures (fires / clean) | summary |",
        "|---|---|---|---|---|---|",
    ]
    for code, (m, path) in sorted(rules.items()):
        folder = ROOT / f"{code}_{path.rsplit('/', 1)[1][6:-3]}"
        fires = len(list(folder.glob("fires_*.ph"))) if folder.is_dir() else 0
        clean = len(list(folder.glob("clean_*.ph"))) if folder.is_dir() else 0
        rel = folder.relative_to(REPO).as_posix()
        lines.append(f"| {code} | `{m.RULE.name}` | \"{m.RULE.section}\" | [`{path}`]({path}) | "
                     f"[{fires} / {clean}]({rel}/) | {_cell(m.RULE.summary)} |")
    counts = {st: sum(1 for s in SENTENCES if s.status == st) for st in (ENFORCED, INFERENCE, NOT_CHECKED)}
    for doc, title in ((PAGE, "per-thread-values.md"), (LANG, "LANGUAGE.md §8 and §9 (this project's reading)")):
        lines += ["", f"## {title}", "",
                  "| id | section | sentence | maps to | module | fixtures | status |",
                  "|---|---|---|---|---|---|---|"]
        for s in SENTENCES:
            if s.doc != doc:
                continue
            maps = " ".join(f"{c} `{rules[c][0].RULE.name}`" if c in rules else c for c in s.maps_to.split()) \
                if s.maps_to.split()[0] in rules else s.maps_to
            fixtures = ", ".join(f"[{p.parent.name}/{p.stem}]({p.relative_to(REPO).as_posix()})"
                                 for p in pins.get(s.id, []))
            status = f"not checked by design: {s.reason}" if s.status == NOT_CHECKED else s.status
            section = f"\"{s.section}\"" if doc == PAGE else s.section
            lines.append(f"| `{s.id}` | {section} | {_cell(s.quote)} | {_cell(maps)} | {_module_cell(s, rules)} | "
                         f"{fixtures or '-'} | {status} |")
    lines += ["", f"{len(SENTENCES)} rows: {counts[ENFORCED]} enforced, {counts[INFERENCE]} inference, "
              f"{counts[NOT_CHECKED]} not checked by design.", ""]
    lines += _gaps()
    return "\n".join(lines)


def _gaps() -> list:
    """The known gaps recorded in the fixtures (`//~ gap ...`): where the analyzer disagrees with the
    spec today. Each fixture states the right answer and fails loudly once the analyzer gives it."""
    from markers import parse
    from spec_conformance.fixtures import fixture_paths
    rows = []
    for p in fixture_paths():
        for line, what, subject, detail, reason in parse(p.read_text(encoding="utf-8")).gaps:
            want = {"error": f"{subject} expected, not reported", "clean": f"{subject} reported, not expected",
                    "kind": f"`{subject}` should be {detail}"}[what]
            rows.append(f"| [{p.parent.name}/{p.name}:{line}]({p.relative_to(REPO).as_posix()}#L{line}) | "
                        f"{want} | {_cell(reason)} |")
    if not rows:
        return ["## Known gaps", "", "None: the analyzer agrees with every fixture.", ""]
    return ["## Known gaps", "",
            "Fixtures whose `//~ gap` marker records where the analyzer disagrees with the spec today (an",
            "expected failure that turns into a loud one once fixed).", "",
            "| fixture | spec wants | reason |", "|---|---|---|"] + rows + [""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Generate SPEC_MAP.md (or check that it is current).")
    ap.add_argument("--check", action="store_true", help="exit 1 when SPEC_MAP.md differs from what would be generated")
    args = ap.parse_args(argv)
    try:
        text = render()
    except SpecMapError as e:
        print(f"spec_map.py: the sentence list is out of date: {e}", file=sys.stderr)
        return 2
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print("SPEC_MAP.md is stale: run `python tests/spec_conformance/spec_map.py`", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.name}: {len(SENTENCES)} rows")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))              # tests/, for `spec_conformance.fixtures`
    sys.path.insert(0, str(HERE.parent / "support"))  # tests/support/, for `markers`
    sys.exit(main())
