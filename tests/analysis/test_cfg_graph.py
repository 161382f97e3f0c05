"""The CFG's networkx graph (analyzer/cfg.py builds its adjacency dicts directly, for speed): the
same graph as networkx's own construction, and usable by networkx's algorithms."""

from __future__ import annotations

import networkx as nx

from phobos_tools.analyzer import check_source

SRC = """
fn sync() -> bool {
  barrier()
  return true
}

@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64], n: i32) {
  var t: tile<f32>[1, 64] = 0.0
  var i = 0
  while i < n && sync() {
    t[0, ctx.thread] = A[ctx.thread]
    if i == 3 {
      break
    }
    i += 1
  }
  barrier()
  for j in range(0, 4) {
    if j == 2 {
      continue
    }
    O[ctx.thread] = t[0, ctx.thread] + f32(j)
  }
}
"""


def test_the_graph_equals_networkx_own_construction():
    result = check_source(SRC)
    assert result.ok, [d.message for d in result.diagnostics]
    cfg = result.analyses[0].cfg
    g = cfg.graph
    public = nx.DiGraph()
    public.add_nodes_from(range(len(cfg.sites)))
    public.add_edges_from(g.edges(data=True))
    assert nx.utils.graphs_equal(g, public)
    assert sorted(g.edges(data=True)) == sorted(public.edges(data=True))
    assert any(d.get("back") is not None for _a, _b, d in g.edges(data=True))
    assert any("taken" in d for _a, _b, d in g.edges(data=True))
    # one attribute dict per edge, seen from both ends, as networkx keeps it
    for a, b in g.edges():
        assert g.succ[a][b] is g.pred[b][a]


def test_networkx_algorithms_work_on_the_graph():
    cfg = check_source(SRC).analyses[0].cfg
    g = cfg.graph
    assert g.number_of_nodes() == len(cfg.sites)
    assert nx.descendants(g, cfg.entry) >= {cfg.exit}
    idom = nx.immediate_dominators(g, cfg.entry)
    assert set(idom) | {cfg.entry} == set(nx.descendants(g, cfg.entry)) | {cfg.entry}
    loops = [c for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert len(loops) == 2                  # the while loop and the for loop
    g2 = g.copy()
    g2.add_edge(cfg.exit, cfg.entry)         # the graph is an ordinary, mutable DiGraph
    assert g2.has_edge(cfg.exit, cfg.entry) and not g.has_edge(cfg.exit, cfg.entry)
