"""The kind of an expression node (LANGUAGE §9), read off the analysis of the kernel.

The analysis stores kinds per binding, per inlined call's result and per evaluated value; an
expression's kind is the join of what it is made of (``analyzer.facts.atoms``): the bindings it
reads, its sources (ctx fields, lane collectives) and its calls' results. The lowering uses it
where a kind saves work: a collective over a value that does not differ across the fold needs
no shuffles and no shared memory.
"""

from __future__ import annotations

UNIFORM, WARP_UNIFORM, VARYING = 0, 1, 2


def expr_kind(analysis, expr, inst) -> int:
    """The kind of ``expr`` evaluated in instance ``inst``; VARYING when there is no analysis."""
    if analysis is None:
        return VARYING
    from ..analyzer.facts.atoms import atoms

    derived = analysis.facts.derived
    uses, seeds, results = atoms(expr, inst)
    k = UNIFORM
    for b in uses:
        k = max(k, derived.of(("b", b.uid)))
    for kind, _origin in seeds:
        k = max(k, kind)
    for callee in results:
        k = max(k, derived.of(("r", id(callee))))
    return k
