"""PH303 read-after-per-thread-store: a CTA-wide read of a buffer that a per-thread store may
have written since the last `barrier()`.

Spec: per-thread-values.md, "What needs every thread": "A buffer (a tensor or a shared tile)
stored per thread, with a varying value, index or control, is read by no CTA-wide op until a
`barrier()`." Short form: "`op` reads `t` after a per-thread store to it with no `barrier()`
between". "The check follows loops: a store in one iteration and a tile read at the top of the
next also need a barrier between them."

What it flags: a feasible control-flow path from a per-thread store to buffer B (LANGUAGE §9.4:
value, index or control not uniform; warp-uniform counts) to a CTA-wide read of B (§9.5: a
copy's source, a sweep's operands, a tile built-in's operands, an atomic's element; through
views) that passes no `barrier()` statement, following loops through their back edges (§9.6).
Paths follow the order a statement runs in (§6): a barrier inside a call, on the right of
`&&`/`||` or in a `while` condition is on a path only where it runs. A path is dropped only
when z3 proves no execution takes it: a store only in the last iteration, a loop that runs at
most once, a barrier skipped only before anything was stored, a loop of barriers that provably
runs. What z3 cannot settle within its fixed limit, or once the kernel's z3 budget is spent,
stays, with a note saying which.

Why it matters: the CTA-wide read takes elements that other threads stored; without a barrier
those stores may not have landed, and the read sees stale data at random.

Example (rejected):

    @launch(256)
    kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
      var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
      t[0, ctx.lane] = 1.0
      O[0 :+ 1, 0 :+ 32] = t
    }

Fix: put `barrier()` between the store and the read (inside the loop when the read is in the
next iteration). A thread's own point and run accesses are not checked: a thread may read back
what it stored itself, and a point read of another thread's store is outside this rule.
The example, fixed:

    @launch(256)
    kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
      var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
      t[0, ctx.lane] = 1.0
      barrier()
      O[0 :+ 1, 0 :+ 32] = t
    }
"""

from __future__ import annotations

from ..diagnostics.model import Diagnostic, Label, SpecRef
from ..facts.explain import chain_notes, chain_labels, element_read, inlined_steps, parameter_of, written_name
from ..facts.feasible import BUDGET
from ..facts.schema import VARYING
from .registry import SPEC_PAGE, Rule

RULE = Rule("PH303", "read-after-per-thread-store", "error", "What needs every thread",
            "a per-thread store must be followed by `barrier()` before a CTA-wide read")


def query(facts):
    seen = set()
    out = []
    for store, op_id, buf, name, loop, undecided in facts.derived.unsynced:
        op = facts.ops[op_id]
        key = (op.node, buf)
        if key in seen:
            continue
        seen.add(key)
        out.append((facts, store, op, buf, name, loop, undecided))
    return out


def _why_per_thread(facts, store):
    """The most varying reason the store is per-thread (the first such): (derived key, what, kind)."""
    derived = facts.derived
    reasons = [(("v", v), "at an index that") for v in store.indices]
    if store.value is not None:
        reasons.append((("v", store.value), "a value that"))
    reasons.append((("o", store.op), "under control that"))
    best = max(reasons, key=lambda r: derived.of(r[0]))      # max keeps the first of equals
    return best[0], best[1], derived.of(best[0])


def diagnose(match) -> Diagnostic:
    facts, store, op, buf, name, loop, undecided = match
    key, what, kind = _why_per_thread(facts, store)
    labels, _ = chain_labels(facts, key)
    between = "lanes" if kind == VARYING else "warps"
    stored = buf.split("#", 1)[0]
    store_inst = facts.cfg.sites[store.node].inst
    labels += inlined_steps(store_inst, labels, "the store")
    written = written_name(store.target)
    as_written = f"`{written}` (that is `{stored}`)" if written and written != stored else f"`{stored}`"
    labels.append(Label(store.span, f"each thread stores to {as_written} here, {what} differs between {between}"))
    notes = chain_notes(facts, key)
    if name != stored:
        param = parameter_of(op.inst, name)
        sp = op.inst.call_span
        notes.append(f"`{name}` is parameter `{name}` of `{param}`, bound to `{stored}` by the call at "
                     f"{sp.line}:{sp.column}" if param else f"`{name}` is a view of `{stored}`")
    labels += inlined_steps(op.inst, labels)
    if loop is not None:
        sp = loop.ast.span
        word = 5 if loop.kind == "while" else 3          # `while` / `for`
        labels.append(Label(sp.__class__(sp.line, sp.column, sp.line, sp.column + word),
                            "and the read comes in a later iteration, through the loop's back edge"))
    if undecided == BUDGET:
        notes.append("z3's budget for this kernel ran out before it decided whether this path can be "
                     "taken, so it is kept (LANGUAGE §9.6; docs/limitations.md, \"z3\")")
    elif undecided:
        notes.append("z3 could not decide within its resource limit whether this path can be taken, "
                     "so it is kept (LANGUAGE §9.6)")
    element = element_read(op)
    return Diagnostic(RULE.code, f"`{op.name}` reads `{name}` after a per-thread store to it with no "
                      "`barrier()` between", op.span,
                      label=f"reads `{element}`, which other threads may have stored" if element else
                      f"reads all of `{name}`, including elements other threads stored",
                      chain=labels, notes=notes,
                      help="put `barrier()` after the store and before this read",
                      spec=SpecRef(SPEC_PAGE, RULE.section))

