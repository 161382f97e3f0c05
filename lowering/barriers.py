"""Where LANGUAGE §10 puts a barrier *before* a tile operation: "before a CTA-wide write to a
buffer that has per-thread stores since the last barrier, so writes after reads and writes after
writes are ordered too". (The barrier *after* every CTA-wide operation needs no analysis.)

A forward may-analysis over the kernel's statements, functions inlined: the state is the set of
buffers with scalar or run stores, or scalar or run reads, since the last barrier any path may
have passed. A read adds its buffer since a warp that comes late may still be reading what a
tile operation of the warps ahead would overwrite. Every store adds its buffer, a store uniform
in value, index and control too: §9.4 lets a CTA-wide
*read* after it go without a barrier (each thread stored the value itself), but a CTA-wide
*write* may not, since a warp that reaches the uniform store late would overwrite what the tile
operation wrote into that element (`s[0, 0] = x` then `s += 1.0`). Anything
that executes ``bar.sync`` in every thread empties the set: ``barrier()``, every tile operation
(it ends with one), every once-per-CTA operation (it starts with one) and a CTA collective that
exchanges values through shared memory. Branches join by union; loops iterate to a fixpoint
(the set only grows); ``break``, ``continue`` and ``return`` carry their state to where they
jump. The result: the tile statements whose written buffer may have pending stores.
"""

from __future__ import annotations

from ..analyzer.builtins import ATOMICS, MEMORY_ORDER
from ..analyzer.facts.atoms import expr_kind
from ..analyzer.facts.schema import UNIFORM
from ..analyzer.ops import LOAD, RUN_LOAD, STORE, OpClass
from ..analyzer.sema_helpers import _sub_exprs
from ..analyzer.syntax import ast as A


def _join(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a | b


class _Loop:
    def __init__(self):
        self.breaks = None
        self.continues = None


class PendingStores:
    def __init__(self, kinfo, analysis):
        self.kinfo = kinfo
        self.analysis = analysis
        self.marked: set = set()
        self.in_tile_value = False
        self.loops: list[_Loop] = []
        self.returns: list = []

    def run(self) -> set:
        """{(id(instance), id(statement))} of the tile statements that need a barrier first."""
        self.block(self.kinfo.instance.node.body, self.kinfo.instance, frozenset())
        return self.marked

    # ---------------------------------------------------------------- statements
    def block(self, blk, inst, state):
        for s in blk.stmts:
            if state is None:
                return None
            state = self.stmt(s, inst, state)
        return state

    def stmt(self, s, inst, state):
        t = type(s)
        if t in (A.Let, A.Var, A.Assign):
            value = s.value
            op = inst.ops.get(id(s))
            if t is A.Assign and isinstance(s.target, A.Index):
                # the target's subscripts first, then the value: the order emit.py evaluates
                # them in (an atomic in the subscript runs its barriers before the value's reads)
                for sub in s.target.subs:
                    for x in _sub_exprs(sub):
                        state = self.expr(x, inst, state)
            if value is not None:
                # in a tile statement's value, the sweep itself and a built-in fused into it
                # (`acc += dot(a, b)`) run no barrier before the write: only what the statement
                # evaluates first (its scalars, calls, atomics) may clear the state
                saved, self.in_tile_value = self.in_tile_value, op is not None and op.cls is OpClass.CTA_WIDE
                try:
                    state = self.expr(value, inst, state)
                finally:
                    self.in_tile_value = saved
            if op is not None and op.cls is OpClass.CTA_WIDE:
                if state & set(op.writes):
                    self.marked.add((id(inst), id(s)))
                return frozenset()
            if op is not None and op.name == STORE:
                return state | set(op.writes)
            return state
        if t is A.ExprStmt:
            return self.expr(s.expr, inst, state)
        if t is A.If:
            state = self.expr(s.cond, inst, state)
            then = self.block(s.then, inst, state)
            if s.orelse is None:
                other = state
            elif isinstance(s.orelse, A.If):
                other = self.stmt(s.orelse, inst, state)
            else:
                other = self.block(s.orelse, inst, state)
            return _join(then, other)
        if t in (A.While, A.For):
            if t is A.For:
                for a in s.args:
                    state = self.expr(a, inst, state)
            head = state
            while True:
                loop = _Loop()
                self.loops.append(loop)
                entered = self.expr(s.cond, inst, head) if t is A.While else head
                out = self.block(s.body, inst, entered)
                self.loops.pop()
                new_head = _join(_join(state, out), loop.continues)
                if new_head == head:
                    break
                head = new_head
            exit_state = self.expr(s.cond, inst, head) if t is A.While else head
            return _join(exit_state, loop.breaks)
        if t is A.Break:
            self.loops[-1].breaks = _join(self.loops[-1].breaks, state)
            return None
        if t is A.Continue:
            self.loops[-1].continues = _join(self.loops[-1].continues, state)
            return None
        if t is A.Return:
            if s.value is not None:
                state = self.expr(s.value, inst, state)
            if self.returns:
                self.returns[-1] = _join(self.returns[-1], state)
            return None
        return state

    # ---------------------------------------------------------------- expressions
    def expr(self, e, inst, state):
        """The state after evaluating ``e``: inlined calls run their bodies; barriers inside
        operations clear it; ``store(..)`` adds its buffer."""
        if state is None:
            return None
        t = type(e)
        if t is A.Call:
            for a in e.args:
                state = self.expr(a, inst, state)
            callee = inst.calls.get(id(e))
            if callee is not None:
                return self._inline(callee, state)
            if e.func == "barrier" or e.func in ATOMICS or e.func in MEMORY_ORDER:
                return frozenset()
            op = inst.ops.get(id(e))
            if op is not None and op.cls is OpClass.CTA_WIDE and not self.in_tile_value:
                return frozenset()                                 # a tile built-in in a value
            if e.func == "store" and op is not None and op.name == STORE:
                return state | set(op.writes)
            return state
        if t is A.GenericCall:
            for a in e.args:
                state = self.expr(a, inst, state)
            if e.mode == "over" and e.param.path == ("thread",) and self._cta_collective_syncs(e, inst):
                return frozenset()
            return state
        if t is A.Binary:
            return self.expr(e.rhs, inst, self.expr(e.lhs, inst, state))
        if t is A.Unary:
            return self.expr(e.operand, inst, state)
        if t is A.Index:
            for sub in e.subs:
                for x in _sub_exprs(sub):
                    state = self.expr(x, inst, state)
            op = inst.ops.get(id(e))
            if op is not None and op.name in (LOAD, RUN_LOAD):
                # a point or run read: a later CTA-wide write of the buffer must wait until every
                # warp has made it (a write after a read, §10)
                return state | set(op.reads)
            return state
        return state

    def _inline(self, callee, state):
        self.returns.append(None)
        saved = self.loops
        self.loops = []
        out = self.block(callee.node.body, callee, state)
        self.loops = saved
        returned = self.returns.pop()
        return _join(out, returned) if _join(out, returned) is not None else frozenset()

    def _cta_collective_syncs(self, e, inst) -> bool:
        """collectives.cta_collective exchanges through shared memory (two barriers) unless the
        operand is uniform or the CTA is one warp."""
        return self.kinfo.threads > 32 and expr_kind(self.analysis, e.args[0], inst) != UNIFORM


def barrier_sites(kinfo, analysis) -> set:
    return PendingStores(kinfo, analysis).run()
