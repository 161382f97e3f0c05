"""Shapes that made phobos-check's work grow faster than the kernel, pinned by counts (walk steps,
z3 queries, translated terms), never by time: each test fails if the old growth comes back.
benchmarks/check_scaling.py times the same shapes (tests/support/scaling_shapes.py)."""

from __future__ import annotations

from unittest import mock

from analysis_expect import check
from scaling_shapes import (deep_body, early_returns, let_doubling, loop_stores_and_reads, store_barrier_read_loop,
                            stores_in_loops, stores_then_barrier, varying_returns, varying_whiles)

from phobos_tools.analyzer import analysis
from phobos_tools.analyzer.facts import derive, feasible, paths


def _recording(cls):
    """A subclass of ``cls`` that keeps its instances in ``.made``."""
    made = []

    class Recording(cls):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)
    Recording.made = made
    return Recording


def _walk_steps(r) -> int:
    walks = r.analyses[0].facts.derived.walks
    return walks.steps if walks is not None else 0


def test_stores_before_one_barrier_are_walked_once_in_all():
    # each store's walk went on through the stores after it to the barrier: n^2 / 2 steps; one
    # walk from all of a buffer's stores together takes n
    n = 400
    r = check(stores_then_barrier(n))
    assert r.ok
    assert _walk_steps(r) <= 3 * n, _walk_steps(r)


def test_stores_in_loops_one_after_another_walk_the_kernel_once():
    # each store's walk went on through every later loop to the barrier: n^2 / 2 steps
    n = 300
    r = check(stores_in_loops(n))
    assert r.ok
    assert _walk_steps(r) <= 10 * n, _walk_steps(r)


def test_a_store_a_barrier_and_a_read_repeated_in_a_loop_walk_linearly():
    # issue 16: the candidate readers of every (store, loop) pair were listed before the latch
    # test, n^1.9 in time (30,000 statements: 44 s)
    n = 2000
    r = check(store_barrier_read_loop(n))
    assert r.ok
    assert _walk_steps(r) <= 4 * n, _walk_steps(r)


def test_z3_asks_each_distinct_pair_of_conditions_once():
    # the stores' guards differ (i >= 10 + j), the reads' take 5 values (i < 10 - j % 5): questions
    # are deduplicated by their formula
    n = 6
    with mock.patch.object(paths, "PathQuestions", _recording(feasible.PathQuestions)) as rec:
        assert check(loop_stores_and_reads(n)).ok
    (questions,) = rec.made
    assert questions.questions == n * 5, questions.questions


def test_stores_and_reads_under_the_same_conditions_ask_z3_once():
    body = "".join(f"      t[0, ctx.lane + {j}] = 1.0\n" for j in range(20))
    reads = "".join(f"      O[{j} :+ 1, 0 :+ 32] = t\n" for j in range(20))
    with mock.patch.object(paths, "PathQuestions", _recording(feasible.PathQuestions)) as rec:
        r = check("@launch(256)\nkernel k(A: tensor<f32>[1, 32], O: tensor<f32>[20, 32]) {\n"
                  "  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]\n  for i in range(0, 100) {\n"
                  f"    if i < 10 {{\n{reads}    }}\n    if i >= 10 {{\n{body}    }}\n  }}\n}}\n")
    assert r.ok
    (questions,) = rec.made
    assert questions.questions == 1               # not 20 x 20


def test_two_reads_of_one_buffer_at_one_node_ask_z3_once():
    with mock.patch.object(paths, "PathQuestions", _recording(feasible.PathQuestions)) as rec:
        r = check("""
            @launch(256)
            kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
              var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
              for i in range(0, 100) {
                if i < 10 {
                  O[0 :+ 1, 0 :+ 32] = t + t
                }
                if i >= 10 {
                  t[0, ctx.lane] = 1.0
                }
              }
            }
        """)
    assert r.ok
    (questions,) = rec.made
    assert questions.questions == 1


def test_a_doubling_let_chain_is_translated_as_a_dag():
    # a{j} = a{j-1} + a{j-1}: the guard's translation once took 2^n steps (n = 12: 16,384 calls, 0.4 s);
    # the memo makes it a few per let and copy. (Past z3.MAX_DEPTH the leaves are fresh symbols,
    # one per occurrence, which the memo must not share: that growth stops at the depth bound.)
    n = 12
    with mock.patch.object(feasible.PathQuestions, "_term_of", autospec=True,
                           side_effect=feasible.PathQuestions._term_of) as term:
        r = check(let_doubling(n))
    assert term.call_count <= 8 * n, term.call_count
    assert r.ok


def test_early_exits_share_the_statements_after_them():
    # n returns in a row each raise the rest of the kernel: one shared list, a suffix each, not
    # n lists of up to 2n nodes
    n = 300
    r = check(early_returns(n))
    assert r.ok
    cfg = r.analyses[0].cfg
    lists = {id(p[0]) for t in cfg.raises.values() for p in t.parts if type(p) is not int}
    assert len(cfg.raises) == n and len(lists) == 1
    assert sum(len(t.parts) for t in cfg.raises.values()) == n


def test_varying_returns_in_a_row_make_linearly_many_edges():
    n = 300
    made = []
    real = derive._Edges.__call__

    def counting(self, key, k):
        out = real(self, key, k)
        made.append(len(out))
        return out
    with mock.patch.object(derive._Edges, "__call__", counting):
        r = check(varying_returns(n))
    assert [d.code for d in r.diagnostics] == ["PH301"] * (n + 1)
    assert sum(made) <= 40 * n, sum(made)          # it was about n^2 (n = 300: 138,747)


def test_diagnostics_in_many_while_loops_do_not_each_scan_the_loops():
    class CountingList(list):
        iterations = 0

        def __iter__(self):
            CountingList.iterations += 1
            return super().__iter__()
    real = analysis.build_cfg

    def build_cfg(kinfo):
        cfg = real(kinfo)
        cfg.loops = CountingList(cfg.loops)
        return cfg
    n = 200
    with mock.patch.object(analysis, "build_cfg", build_cfg):
        r = check(varying_whiles(n))
    assert [d.code for d in r.diagnostics] == ["PH301"] * n
    assert CountingList.iterations <= 10, CountingList.iterations     # it was 2 per diagnostic


def test_names_under_deep_nesting_are_looked_up_once_per_level():
    from phobos_tools.analyzer.sema import model as sema_model

    class CountingDict(dict):
        gets = 0

        def get(self, *a):
            CountingDict.gets += 1
            return super().get(*a)
    real_init = sema_model.Scope.__init__

    def init(self, *a, **kw):
        real_init(self, *a, **kw)
        self.names = CountingDict()
    n, depth = 1000, 200
    with mock.patch.object(sema_model.Scope, "__init__", init):
        assert check(deep_body(n, depth)).ok
    assert CountingDict.gets <= 10 * (n + depth), CountingDict.gets     # it was n x 2 depth


def test_loops_do_not_each_hold_the_nodes_inside_them():
    import tracemalloc

    from phobos_tools.analyzer.cfg import build_cfg
    r = check(deep_body(2000, 100))
    kinfo = r.semantics.kernels[0]
    tracemalloc.start()
    try:
        cfg = build_cfg(kinfo)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(cfg.sites) > 2000
    # a set per loop of its nodes was 100 x 2,000 entries (several MB more); the graph itself, a
    # networkx DiGraph, takes about 1 KB per node with the sites
    assert peak < 1500 * len(cfg.sites), peak


def test_a_released_check_leaves_no_reference_cycles():
    # phobos-check runs with the cyclic collector off; a cycle per check (a recursive closure in
    # the CFG builder, the instance tree's parent links) kept every checked file's trees alive:
    # 300 files of 1,000 statements grew to 1.4 GB
    import gc

    from phobos_tools.analyzer.analysis import release
    src = """
        fn twice(x: i32) -> i32 {
          return inc(x) + inc(x)
        }
        fn inc(x: i32) -> i32 {
          return x + 1
        }
        @launch(256)
        kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
          if ctx.lane < 8 && twice(ctx.lane) > 2 {
            O[0, twice(ctx.lane)] = A[0, ctx.lane]
          }
        }
    """
    check(src)                       # imports and caches outside the count
    gc.collect()
    gc.disable()
    try:
        r = check(src)
        assert r.ok and r.analyses
        release(r.analyses)
        del r
        assert gc.collect() == 0
    finally:
        gc.enable()


def _doubling(levels: int) -> str:
    """Functions that each call the one below twice: 2**levels - 1 inlined calls."""
    fns = ["fn g0(x: f32) -> f32 {\n  return x + 1.0\n}\n"]
    for i in range(1, levels):
        fns.append(f"fn g{i}(x: f32) -> f32 {{\n  return g{i - 1}(x) + g{i - 1}(x * 0.5)\n}}\n")
    return "".join(fns) + f"@launch(32)\nkernel k(O: tensor<f32>[32]) {{\n  O[ctx.lane] = g{levels - 1}(1.0)\n}}\n"


def test_inlined_calls_are_capped_per_kernel(monkeypatch):
    # inlining at every call made 17 doubling levels cost 8 s and 1 GB, 20 levels a minute and 8 GB:
    # past MAX_INLINED_STATEMENTS (each call counts one plus its function's statements) the checker
    # stops inlining with one PH008 (no kernel that big could be built: PH213 caps a build at
    # 100,000 expressions)
    from phobos_tools.analyzer import check_source
    from phobos_tools.analyzer.sema import model as sema_model
    from phobos_tools.analyzer.sema.model import Instance
    monkeypatch.setattr(sema_model, "MAX_INLINED_STATEMENTS", 200)
    assert [d.code for d in check_source(_doubling(6), "t.ph").diagnostics] == []     # 63 calls, 126 statements
    made = _recording(Instance)
    with mock.patch("phobos_tools.analyzer.sema.declarations.Instance", made):
        diags = check_source(_doubling(12), "t.ph").diagnostics                          # 4,095 calls
    assert [d.code for d in diags] == ["PH008"]
    assert "more than 200 statements inlined into kernel `k`" in diags[0].message
    assert len(made.made) <= 101                  # the inlining stopped at the cap (2 statements a call)

