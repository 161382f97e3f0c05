"""PH504 lost-update: a compound assignment to an element that two threads of a CTA can share

What it flags: a compound assignment (`+=`, `-=`, `*=`, ..) to one element of a tensor or a tile,
`O[0] += 1` included, that two distinct threads of a CTA can reach with the same index in one
barrier phase: the index is uniform or warp-uniform and the control lets two threads through, or
z3 finds two threads whose indices are equal and whose enclosing conditions both hold. An index
read from memory (a load, a call's result) does not fire, and neither does an update that only
one thread reaches (`if ctx.thread == 0 { O[0] += 1 }`).

Why it matters: `x[i] += v` is a load, an add and a store, not one indivisible step. Threads that
run it at once all load the same old value and each store their own sum, so only one update
survives: on a GPU anything from one to a whole warp's worth of updates is lost, differently
from run to run. LANGUAGE §8 has no per-thread atomics; its atomics run once per CTA.

Example (a warning):

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[1]) {
      O[0] += A[ctx.thread]
    }

Fix: combine the threads' values with a CTA collective and store once, or update the element
once per CTA with an atomic (`atomic_add(O[0], sum<over ctx.thread>(v))` across CTAs):

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[1]) {
      let total = sum<over ctx.thread>(A[ctx.thread])
      if ctx.thread == 0 {
        O[0] += total
      }
    }
"""

from __future__ import annotations

from ..diagnostics.model import WARNING, Diagnostic
from ..facts.schema import UNIFORM, VARYING, WARP_UNIFORM
from ..facts.sharing import ThreadPairs, exit_targets, raised_by_an_exit, reads_memory
from ..syntax import ast as A
from ..syntax.printer import expr as show
from ...language.types import Tensor, Tile
from .registry import Lint

LINT = Lint("PH504", "lost-update", "a compound assignment to an element that two threads of a CTA can share")


def query(subject):
    out = []
    for facts in subject.facts:
        pairs, exits, derived = ThreadPairs(facts), exit_targets(facts), facts.derived
        for store in facts.stores:
            op = facts.ops[store.op]
            stmt, inst = op.ast, op.inst
            if not (isinstance(stmt, A.Assign) and stmt.op != "=" and isinstance(stmt.target, A.Index)
                    and stmt.target.is_point):
                continue
            base = inst.resolution.get(id(stmt.target.base))
            indices = [facts.values[v].expr for v in store.indices]
            if base is None or not isinstance(base.type, (Tensor, Tile)) or any(map(reads_memory, indices)):
                continue
            kind = max((derived.of(("v", v)) for v in store.indices), default=UNIFORM)
            control = derived.of(("o", store.op))
            if kind == UNIFORM and control == UNIFORM:
                out.append((stmt, kind, None))
            elif control == UNIFORM or not raised_by_an_exit(facts, store.node, exits):
                if pairs.two_threads([(e, inst, e, inst) for e in indices], [store.node, store.node]):
                    out.append((stmt, kind, pairs.witness))
    return out


def diagnose(match) -> Diagnostic:
    stmt, kind, witness = match
    element = show(stmt.target)
    notes = []
    if witness is not None:
        notes.append(f"for instance threads {min(witness)} and {max(witness)} both update `{element}`")
    label = {UNIFORM: "every thread that runs this updates the same element",
             WARP_UNIFORM: "the threads of a warp update the same element",
             VARYING: "two threads can update the same element"}[kind]
    fix = ("combine the values first with `sum<over ctx.thread>(..)` and update the element from one "
           "thread, or use `atomic_add`" if stmt.op == "+=" else
           "combine the threads' values with a CTA collective first, and update the element from one thread")
    return Diagnostic(LINT.code, f"`{element} {stmt.op} ..` from several threads at once loses updates",
                      stmt.span, severity=WARNING, label=label, notes=notes,
                      help=fix)
