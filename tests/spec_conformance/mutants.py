"""Deliberately broken variants of the per-thread analysis, for the mutation check
(benchmarks/mutation_check.py prints the table; tests/fuzz/test_mutation.py asserts each is caught).

Each mutant is a context manager that monkeypatches the analyzer in-process and undoes it on exit.
A mutant is *caught* by a fixture when the fixture's verdict under the mutant differs from its
verdict under the real analyzer (a passing fixture fails, or a known gap is "fixed"). The patches
go through module attributes the analysis looks up at call time, so nothing is cached across.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable
from unittest import mock


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    patch: Callable          # () -> context manager


def _rule_removed(code: str):
    @contextmanager
    def patch():
        from phobos_tools.analyzer import rules
        from phobos_tools.analyzer.rules import registry
        kept = tuple(m for m in registry.all_rules() if m.RULE.code != code)
        with mock.patch.object(rules, "all_rules", lambda: kept):      # what rules.run reads
            yield
    return patch


@contextmanager
def _warp_uniform_is_uniform():
    """Every warp-uniform source (ctx.warp, a lane collective's result) seeds nothing, so the lattice
    collapses to uniform < varying."""
    from phobos_tools.analyzer.facts import derive
    from phobos_tools.analyzer.facts.schema import WARP_UNIFORM
    real = derive.KindSolver.seed

    def seed(self, key, kind, reason):
        if kind != WARP_UNIFORM:
            real(self, key, kind, reason)
    with mock.patch.object(derive.KindSolver, "seed", seed):
        yield


def _after_control_emit(edit):
    """Run facts/control.py's emit, then ``edit(facts)``."""
    @contextmanager
    def patch():
        from phobos_tools.analyzer.facts import control
        real = control.emit

        def emit(cfg, facts):
            real(cfg, facts)
            edit(facts)
        with mock.patch.object(control, "emit", emit):
            yield
    return patch


@contextmanager
def _back_edges_ignored():
    """The barrier paths stop at a loop's back edge: no back-edge facts, and none of the paths that
    paths.py carries through a loop (it walks latch -> header from the loop structure)."""
    from phobos_tools.analyzer.facts import control, derive, paths
    real_emit, real_paths = control.emit, paths.unsynced_paths

    def emit(cfg, facts):
        real_emit(cfg, facts)
        facts.back_edges.clear()

    def unsynced(facts, derived):
        out, dropped = real_paths(facts, derived)
        return [p for p in out if p[4] is None], dropped
    with mock.patch.object(control, "emit", emit), mock.patch.object(derive, "unsynced_paths", unsynced):
        yield


def _drop_early_exits(facts):
    facts.raises.clear()


def _drop_conditions(facts):
    facts.cond.clear()


@contextmanager
def _z3_drops_every_path():
    from phobos_tools.analyzer.facts import feasible
    with mock.patch.object(feasible.PathQuestions, "feasible", lambda self, s, r, carrier, segments: (False, False)):
        yield


def _after_dataflow_emit(edit):
    @contextmanager
    def patch():
        from phobos_tools.analyzer.facts import dataflow
        real = dataflow.emit

        def emit(cfg, facts):
            real(cfg, facts)
            edit(facts)
        with mock.patch.object(dataflow, "emit", emit):
            yield
    return patch


def _var_kind_from_first_assignment(facts):
    """Flow-sensitive in the crudest way: a var takes the kind of its first assignment (its
    initializer, when it has one) only; later assignments are ignored."""
    seen = set()
    kept = []
    for b, v, node in facts.var_assign:
        if b.uid not in seen:
            seen.add(b.uid)
            kept.append((b, v, node))
    facts.var_assign[:] = kept


def _drop_loop_bounds(facts):
    facts.loop_bound.clear()


def _drop_call_results(facts):
    facts.call_result.clear()


def _short_circuit_guards_ignored(facts):
    """The left side of `&&`/`||` no longer decides where the right side runs: its condition node
    branches on nothing (an `if`/`while` condition's last operand, and loop bounds, still do)."""
    from phobos_tools.analyzer.cfg import COND
    from phobos_tools.analyzer.syntax import ast as A
    sites = facts.cfg.sites

    def left_operand(p):
        site = sites[p]
        return site.kind == COND and site.whole_condition is None and not isinstance(site.ast, A.For)
    facts.cond[:] = [(p, v) for p, v in facts.cond if not left_operand(p)]


@contextmanager
def _barriers_ignored():
    """barrier() no longer cuts a path."""
    from phobos_tools.analyzer.facts import operations
    real = operations.emit

    def emit(cfg, facts):
        real(cfg, facts)
        facts.barriers.clear()
    with mock.patch.object(operations, "emit", emit):
        yield


@contextmanager
def _store_control_ignored():
    """A store is per-thread only by its value or index (§9.4's "or control" forgotten)."""
    from phobos_tools.analyzer.facts import derive
    real = derive.solve

    def solve(facts):
        out = real(facts)
        of = out.of
        kept = [st for st in out.per_thread_stores
                if any(of(("v", v)) for v in st.indices) or (st.value is not None and of(("v", st.value)))]
        if len(kept) != len(out.per_thread_stores):
            out.per_thread_stores = kept
            out.unsynced, out.dropped = [], []
            if kept:
                from phobos_tools.analyzer.facts.paths import unsynced_paths
                out.unsynced, out.dropped = unsynced_paths(facts, out)
        return out
    from phobos_tools.analyzer import analysis
    with mock.patch.object(analysis, "solve", solve):
        yield


@contextmanager
def _lane_ops_need_uniform_control():
    """Shuffles and lane collectives rejected under warp-uniform control too (too strict)."""
    from phobos_tools.analyzer.facts.schema import WARP_UNIFORM
    from phobos_tools.analyzer.rules import ph304_shuffle_divergent_warp as r304
    from phobos_tools.analyzer.rules import ph305_lane_collective_divergent_warp as r305
    # the rules test `kind == VARYING`; with VARYING read as "at least warp-uniform" they fire on
    # warp-uniform control and miss varying control
    with mock.patch.object(r304, "VARYING", WARP_UNIFORM), mock.patch.object(r305, "VARYING", WARP_UNIFORM):
        yield


MUTANTS = [
    Mutant("no-PH301", "rule PH301 removed", _rule_removed("PH301")),
    Mutant("no-PH302", "rule PH302 removed", _rule_removed("PH302")),
    Mutant("no-PH303", "rule PH303 removed", _rule_removed("PH303")),
    Mutant("no-PH304", "rule PH304 removed", _rule_removed("PH304")),
    Mutant("no-PH305", "rule PH305 removed", _rule_removed("PH305")),
    Mutant("no-PH306", "rule PH306 removed", _rule_removed("PH306")),
    Mutant("warp-uniform-is-uniform", "warp-uniform sources treated as uniform", _warp_uniform_is_uniform),
    Mutant("no-back-edges", "loop back edges ignored by the barrier paths", _back_edges_ignored),
    Mutant("no-early-exits", "break/continue/return raise nothing", _after_control_emit(_drop_early_exits)),
    Mutant("z3-drops-all", "z3 drops every barrier-free path", _z3_drops_every_path),
    Mutant("var-flow-sensitive", "a var's kind from its first assignment only",
           _after_dataflow_emit(_var_kind_from_first_assignment)),
    Mutant("no-conditions", "if/while conditions and for bounds give no control kind",
           _after_control_emit(_drop_conditions)),
    Mutant("no-loop-bounds", "a loop variable ignores its bounds", _after_dataflow_emit(_drop_loop_bounds)),
    Mutant("no-call-results", "a function's result is always uniform", _after_dataflow_emit(_drop_call_results)),
    Mutant("no-guards", "&& / || guards ignored", _after_control_emit(_short_circuit_guards_ignored)),
    Mutant("no-barriers", "barrier() does not cut paths", _barriers_ignored),
    Mutant("store-control-ignored", "a store under per-thread control is not per-thread", _store_control_ignored),
    Mutant("lane-ops-off-by-one", "PH304/PH305 compare against warp-uniform instead of varying",
           _lane_ops_need_uniform_control),
]


def baseline(paths) -> dict:
    """The real analyzer's verdict for each fixture."""
    from .fixtures import verdict
    return {p: verdict(p)[0] for p in paths}


def catchers(mutant: Mutant, paths, base: dict, first_only: bool = False) -> list:
    """The fixtures whose verdict changes under ``mutant`` (stopping at the first when asked)."""
    from .fixtures import verdict
    out = []
    with mutant.patch():
        for p in paths:
            if verdict(p)[0] != base[p]:
                out.append(p)
                if first_only:
                    break
    return out
