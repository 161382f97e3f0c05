"""PH505 racy-plain-load: a scalar load of an element another thread may have stored since the last barrier

What it flags: a point load `t[i, j]` (or the read of a compound assignment) of a tile or tensor
element that another thread of the CTA may have stored since the last `barrier()`: a
control-flow path runs from a per-thread store to the same buffer to the load without passing a
`barrier()` (round a loop's back edge too), and z3 finds two distinct threads, one storing and
one loading, whose addresses name the same element, which the loading thread does not store
itself by that store. A thread reading back its own element does not fire, a compound
assignment's read included; an address that z3 cannot state exactly (it
reads a `var`, a load, a call) does not fire either. When the loaded value decides whether a
CTA-wide operation runs (a `barrier()` under `if` on it), the warning says so.

Why it matters: without a barrier between them, the load may see the other thread's store or
the value before it: the program's result depends on timing. LANGUAGE §9.8 notes that the kinds
assume race-free programs and that the spec leaves this race to run time: the simulator stops
it (PH401), a GPU does not. When the value then decides a `barrier()`, threads that saw
different values disagree on reaching it, and on a GPU the CTA hangs.

Example (a warning):

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      var t: tile<f32>[64] = 0.0
      t[ctx.thread] = A[ctx.thread]
      O[ctx.thread] = t[(ctx.thread + 1) % 64]
    }

Fix: put `barrier()` between the store and the load:

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      var t: tile<f32>[64] = 0.0
      t[ctx.thread] = A[ctx.thread]
      barrier()
      O[ctx.thread] = t[(ctx.thread + 1) % 64]
    }
"""

from __future__ import annotations

from ..diagnostics.model import WARNING, Diagnostic, Label
from ..facts.sharing import BarrierFreeReach, ThreadPairs, feeds_cta_control, reads_memory
from ..syntax import ast as A
from ..syntax.printer import expr as show
from ...language.ops import LOAD, OpClass
from .registry import Lint

LINT = Lint("PH505", "racy-plain-load", "a scalar load of an element another thread may have stored since the last barrier")


def query(subject):
    out = []
    for facts in subject.facts:
        per_thread = {id(s) for s in facts.derived.per_thread_stores}
        stores = [s for s in facts.stores if id(s) in per_thread]
        if not stores:
            continue
        pairs, reach = ThreadPairs(facts), BarrierFreeReach(facts)
        for node, element, inst, buf, own in _reads(facts):
            for store in stores:
                if store.buf != buf or store is own:
                    continue
                reached = reach.of(store.node)
                if reached is None or node not in reached:
                    continue
                store_inst = facts.ops[store.op].inst
                index_s = [facts.values[v].expr for v in store.indices]
                if len(index_s) != len(element.subs) or any(map(reads_memory, index_s)):
                    continue
                terms = [(a, store_inst, s.index, inst) for a, s in zip(index_s, element.subs)]
                # ... and the loading thread did not store that element itself, by this store
                if pairs.two_threads(terms, [store.node, node], unlike=terms):
                    out.append((facts, element, inst, store, pairs.witness))
                    break
    return out


def _reads(facts):
    """(node, the element read, its instance, buffer, the store of the same statement or None) for
    each point load and each compound assignment's read of an element."""
    for op in facts.ops:
        if op.cls is not OpClass.PER_THREAD:
            continue
        info = op.inst.ops.get(id(op.ast))
        if op.name == LOAD and isinstance(op.ast, A.Index) and op.ast.is_point and info and info.reads:
            yield op.node, op.ast, op.inst, info.reads[0], None
    for store in facts.stores:
        stmt = facts.ops[store.op].ast
        if isinstance(stmt, A.Assign) and stmt.op != "=" and isinstance(stmt.target, A.Index) and stmt.target.is_point:
            yield store.node, stmt.target, facts.ops[store.op].inst, store.buf, store


def diagnose(match) -> Diagnostic:
    facts, element, inst, store, witness = match
    read = show(element)
    stored = show(store.target)
    notes = []
    if witness is not None:
        notes.append(f"for instance thread {witness[0]} stores the element that thread {witness[1]} loads")
    for op in feeds_cta_control(facts, element, inst)[:1]:
        notes.append(f"the loaded value decides whether `{op.name}` at {op.span.line}:{op.span.column} runs: "
                     "threads that read different values disagree on it, and on a GPU the CTA may hang "
                     "(the spec leaves this to run time, LANGUAGE §9.8)")
    return Diagnostic(LINT.code, f"`{read}` may read an element another thread stored, with no `barrier()` between",
                      element.span, severity=WARNING, label="loads an element another thread may have stored",
                      chain=[Label(store.span, f"another thread stores `{stored}` here")],
                      notes=notes, help="put `barrier()` between the store and this load")
