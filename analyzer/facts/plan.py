"""The execution plan of one kernel: what the lowering and the simulator must agree on, derived
once from the analysis (its CFG and kinds), so that neither decides it on its own.

- **Barriers before CTA-wide writes** (LANGUAGE §10: the lowering "puts one before a CTA-wide
  write to a buffer that has per-thread stores since the last barrier, so writes after reads and
  writes after writes are ordered too"). A forward may-analysis over the CFG's graph, in §6's
  evaluation order: the state is the set of buffers with per-thread stores, or per-thread reads,
  since the last node that runs `bar.sync` in every thread. A read counts because a warp that
  comes late may still be reading what the tile operation of the warps ahead overwrites; every
  store counts, a uniform one too (§9.4 lets a CTA-wide *read* after it go without a barrier, but
  a warp reaching the store late would overwrite what the CTA-wide *write* wrote). What empties
  the state: `barrier()`, every CTA-wide operation (it ends with one), the once-per-CTA
  operations (they start and end with one), and a CTA collective that exchanges values through
  shared memory. A tile operation fused into a statement's sweep runs no barrier before the
  write, so only what the statement evaluates at nodes of its own (calls, atomics, collectives)
  may empty it. Branches join by union; loops iterate to a fixpoint. The barrier goes right
  before the write, after everything the statement evaluates first.
- **Accumulators carried in registers**: a `for` loop whose body has, at its top level,
  `acc += dot(a, b)` (or `dot_t`) into a whole tile variable that nothing else in the loop reads
  or writes (not its operands, not another statement, no `return` in the loop), and that needs no
  barrier first, may keep `acc` in registers across the loop (the lowering does so where the
  product runs on tensor cores): each thread reads its elements of `acc` once before the loop,
  the statement adds into them, and writes them back once after the loop, followed by the
  barrier that ends a CTA-wide write. No barrier is needed before the read (the statement needs
  none, so no per-thread access to `acc` is pending when the loop starts) nor before the
  write-back (each thread writes the elements it alone read, and nothing in the loop touches
  `acc`); the statement keeps the barrier at its end (its operands are overwritten next step).
- **Copies that may be double buffered**: a `for` loop whose body starts with copies
  `t = T[..]` (each a whole `var` tile of a fixed shape, given a slice of a tensor parameter with
  offsets affine in values that cannot change during the loop) followed by other statements may
  run the copy of iteration i + 1 during iteration i, into a second buffer, while the rest of
  iteration i reads the first (asynchronously, with `cp.async`, where the target has it). So may
  a leading `let v = T[..]` (a view of the same kind) that the rest of the body uses once, as an
  operand of a `dot`/`dot_t` that is the whole value of a top-level statement: the copy that
  product makes of it (analyzer/smem.py) moves to the top of the previous iteration. No
  access can tell, when: nothing in the kernel writes a source, or reads it with an atomic or an
  acquire (the early read sees what the copy would have); nothing but the copies writes the tiles
  and nothing outside the loop but their declarations touches them (so which buffer holds the
  last iteration's copy never shows), and no view of one is made outside the loop; the body
  leaves early by no `break`, `continue` or `return`. The copies of one iteration start together
  at the top of the body, with a barrier first where any of their tiles has per-thread accesses
  pending there (the same forward analysis: the buffers they write were read in the previous
  iteration, as the single buffers were, and the barriers that separated one copy from the next
  are gone), and end together, with one barrier after each thread has waited for its own; the
  first copies, before the loop, get a barrier first where any tile has accesses pending when
  the loop starts (a loop inside another is entered again after its last iteration). Which of these loops get
  the second buffers is the shared-memory plan's decision (analyzer/smem.py: only while every
  target's limit still holds, so double buffering never turns a kernel into a PH211).
- **Collectives that exchange data**: a lane collective over a value not already the same in
  its warp, a CTA collective over a value not already uniform (LANGUAGE §10: otherwise the
  lowering folds nothing and emits no shuffle or barrier); a CTA collective that exchanges in a
  CTA of more than one warp meets at two barriers.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ...language.builtins import ATOMICS, MEMORY_ORDER
from ..cfg import OP
from ..smem import stable_form
from ..syntax import ast as A
from ...language.ops import LOAD, RUN_LOAD, STORE, OpClass
from ...language.types import Tensor, Tile
from .schema import UNIFORM, WARP_UNIFORM

_ONCE_PER_CTA = frozenset(ATOMICS) | frozenset(MEMORY_ORDER)


class Plan:
    """``barrier_before``: {(id(instance), id(statement or argument))} of the CTA-wide writes
    that need a barrier first; ``exchanging``: {(id(collective), id(instance))} of the
    collectives that exchange data; ``threads``: the CTA's size."""

    def __init__(self, barrier_before: set, exchanging: set, threads: int, carried: dict | None = None,
                 prefetchable: dict | None = None, ahead_barriers: dict | None = None):
        self.barrier_before = barrier_before
        self.exchanging = exchanging
        self.threads = threads
        self.carried = carried or {}
        self.prefetchable = prefetchable or {}
        self.ahead_barriers = ahead_barriers or {}

    def carried_accumulators(self, loop, inst) -> tuple:
        """The ``acc += dot(..)`` statements of this ``for`` loop whose accumulator may stay in
        registers across it (read once before the loop, written back once after it)."""
        return self.carried.get((id(inst), id(loop)), ())

    def barriers_for_copies_ahead(self, loop, inst) -> tuple[bool, bool]:
        """(a barrier before the copies made before the loop, one before those at the top of each
        iteration) for the loop's double-buffered copies into tiles."""
        return self.ahead_barriers.get((id(inst), id(loop)), (False, False))

    def needs_barrier_before(self, stmt, inst) -> bool:
        return (id(inst), id(stmt)) in self.barrier_before

    def exchanges(self, collective, inst) -> bool:
        """Does this collective exchange values between threads (shuffles, shared memory)?"""
        return (id(collective), id(inst)) in self.exchanging

    def meets_at_barriers(self, collective, inst) -> bool:
        """Does this CTA collective synchronize the CTA (shared memory between two barriers)?"""
        return self.threads > 32 and self.exchanges(collective, inst)


def make_plan(facts) -> Plan:
    derived = facts.derived
    exchanging = set()
    operand_of: dict = {}
    for op_id, v in facts.operand:
        operand_of.setdefault(op_id, v)
    for op in facts.ops:
        if op.cls is OpClass.LANE_COLLECTIVE or op.cls is OpClass.CTA_COLLECTIVE:
            v = operand_of.get(op.id)
            kind = derived.of(("v", v)) if v is not None else UNIFORM
            if kind > (WARP_UNIFORM if op.cls is OpClass.LANE_COLLECTIVE else UNIFORM):
                exchanging.add((id(op.ast), id(op.inst)))
    threads = facts.cfg.kernel.threads
    marked, pending = _barriers_before(facts, exchanging, threads)
    prefetchable = _prefetchable(facts)
    return Plan(marked, exchanging, threads, _carried(facts, marked), prefetchable,
                _ahead_barriers(facts, prefetchable, pending))


def _ahead_barriers(facts, prefetchable: dict, pending) -> dict:
    """{(id(instance), id(loop)): (before the first copies, at the loop's top)}: where a group of
    copies run ahead needs a barrier first. Grouped at the top of the body with no barrier
    between them, the copies need one where any of their tiles has per-thread accesses pending
    there (whichever copy the single-buffered program put its barrier before); the first copies,
    before the loop, where any is pending when the loop starts (a loop inside another one is
    entered again after its last iteration's reads)."""
    out = {}
    loops = {id(loop.ast): loop for loop in facts.cfg.loops}
    for (inst_id, loop_id), entries in prefetchable.items():
        loop = loops[loop_id]
        inst = loop.inst
        copies = [e for e in entries if e.tile is not None]
        if not copies:
            continue
        tiles = {e.tile for e in copies}
        first = pending((id(inst), id(copies[0].stmt)))
        out[(inst_id, loop_id)] = (bool(pending(loop.init) & tiles), bool(first & tiles))
    return out


def _inner(st) -> list:
    """The statement lists directly inside ``st`` (an `if`'s branches, a loop's body)."""
    if isinstance(st, A.If):
        orelse = st.orelse
        return [st.then.stmts] + ([] if orelse is None else [[orelse] if isinstance(orelse, A.If) else orelse.stmts])
    if isinstance(st, (A.For, A.While)):
        return [st.body.stmts]
    return []


def _carried(facts, marked: set) -> dict:
    """{(id(instance), id(for loop)): (statements,)} of the accumulators a loop may carry in
    registers (see the module's description)."""
    cfg = facts.cfg
    out: dict = {}
    for loop in cfg.loops:
        if loop.kind != "for" or not isinstance(loop.ast, A.For):
            continue
        inst = loop.inst
        found = []
        for st in loop.ast.body.stmts:
            if not (isinstance(st, A.Assign) and st.op == "+=" and isinstance(st.target, A.Name)
                    and isinstance(st.value, A.Call) and st.value.func in ("dot", "dot_t")
                    and id(st.value) not in inst.calls and (id(inst), id(st)) not in marked):
                continue
            info = inst.ops.get(id(st))
            if info is None or not info.writes:
                continue
            found.append((st, frozenset(info.writes)))
        if not found or _leaves(loop.ast.body.stmts, False):
            continue
        keep = []
        for st, bufs in found:
            clean = True
            for op in facts.ops:
                if not (loop.first <= op.node < loop.end) or op.ast is st:
                    continue
                info = op.inst.ops.get(id(op.ast))
                if info is not None and bufs & (set(info.reads) | set(info.writes)):
                    clean = False
                    break
            if clean:
                keep.append(st)
        if keep:
            out[(id(inst), id(loop.ast))] = tuple(keep)
    return out


@dataclass(frozen=True)
class Ahead:
    """A copy a loop may run one iteration ahead: ``stmt`` is ``t = T[..]`` (into the ``var``
    tile whose buffer is ``tile``), or ``let v = T[..]``, a view that the product ``product`` (the
    value of the top-level statement ``owner``) reads as its operand ``operand`` and copies into
    shared memory itself."""
    stmt: object
    tile: str | None = None
    product: object = None
    operand: object = None
    owner: object = None


def _prefetchable(facts) -> dict:
    """{(id(instance), id(for loop)): (Ahead,)} of the copies a loop may double buffer (see the
    module's description)."""
    out: dict = {}
    for loop in facts.cfg.loops:
        if loop.kind != "for" or not isinstance(loop.ast, A.For) or loop.inst.kind != "kernel":
            continue
        inst = loop.inst
        stmts = loop.ast.body.stmts
        lead = []                                   # (statement, tile buffer or None, source buffer)
        for st in stmts:
            c = _copy_from_global(inst, st) or _view_of_global(inst, st)
            if c is None:
                break
            lead.append((st,) + c)
        rest = stmts[len(lead):]
        tiles = [c[1] for c in lead if c[1] is not None]
        if not lead or not rest or len(set(tiles)) != len(tiles) or _leaves(stmts, True):
            continue
        entries = []
        for st, tile, _src in lead:
            if tile is not None:
                entries.append(Ahead(st, tile))
                continue
            use = _product_use(inst, inst.decls.get(id(st)), rest)
            if use is not None:
                entries.append(Ahead(st, None, *use))
        kept = {id(e.stmt) for e in entries}
        copies = [c for c in lead if id(c[0]) in kept]
        if entries and _prefetch_is_unseen(facts, loop, copies):
            out[(id(inst), id(loop.ast))] = tuple(entries)
    return out


def _from_global(inst, v):
    """The source buffer of ``v`` when it is a tensor parameter or a slice of one whose offsets
    are affine in values that stay put during a loop (constants, parameters, extents, ``let``s,
    loop variables, ``ctx``); else None."""
    base = v.base if isinstance(v, A.Index) and not v.is_point else v
    sb = inst.resolution.get(id(base)) if isinstance(base, A.Name) else None
    if sb is None or sb.kind != "param" or not isinstance(sb.type, Tensor):
        return None
    if isinstance(v, A.Index):
        for sub in v.subs:
            parts = [sub.index] if isinstance(sub, A.Point) else [sub.start, sub.length] \
                if isinstance(sub, A.SpanSub) else [sub.lo, sub.hi]
            if any(e is not None and stable_form(e, inst) is None for e in parts):
                return None
    return sb.buffer or sb.name


def _copy_from_global(inst, st):
    """(tile buffer, source buffer) of ``tile = T[..]``: a whole ``var`` tile of a fixed shape
    given a tensor or a slice of one (``_from_global``); else None."""
    if not (isinstance(st, A.Assign) and st.op == "=" and isinstance(st.target, A.Name)):
        return None
    tb = inst.resolution.get(id(st.target))
    if tb is None or tb.kind != "var" or not isinstance(tb.type, Tile) or \
            not all(isinstance(d, int) for d in tb.type.shape):
        return None
    src = _from_global(inst, st.value)
    return None if src is None else ((tb.buffer or tb.name), src)


def _view_of_global(inst, st):
    """(None, source buffer) of ``let v = T[..]``, a two-dimensional view of a fixed shape of a
    tensor (``_from_global``); else None."""
    if not isinstance(st, A.Let):
        return None
    b = inst.decls.get(id(st))
    if b is None or b.kind != "view" or not isinstance(b.type, Tile) or len(b.type.shape) != 2 or \
            not all(isinstance(d, int) for d in b.type.shape):
        return None
    src = _from_global(inst, st.value)
    return None if src is None else (None, src)


def _product_use(inst, b, stmts):
    """(product, operand, statement) where the view ``b`` is used once in ``stmts``, as an operand
    of a ``dot``/``dot_t`` that is the whole value of a top-level tile statement; else None."""
    if b is None:
        return None
    uses = [n for n in _names(stmts) if inst.resolution.get(id(n)) is b]
    if len(uses) != 1:
        return None
    for st in stmts:
        v = getattr(st, "value", None)
        if isinstance(st, A.Assign) and isinstance(v, A.Call) and v.func in ("dot", "dot_t") and \
                id(v) not in inst.calls and any(a is uses[0] for a in v.args[:2]):
            return v, uses[0], st
    return None


def _names(stmts):
    """Every name read or written in ``stmts`` (nested blocks included)."""
    work = []
    for st in stmts:
        t = type(st)
        if t is A.Let or t is A.Var or t is A.Return:
            work.append(st.value)
        elif t is A.Assign:
            work += [st.target, st.value]
        elif t is A.ExprStmt:
            work.append(st.expr)
        elif t is A.If or t is A.While:
            work.append(st.cond)
        elif t is A.For:
            work += list(st.args)
        for block in _inner(st):
            yield from _names(block)
    while work:
        e = work.pop()
        if e is None:
            continue
        if isinstance(e, A.Name):
            yield e
        work += A.children(e)


def _leaves(stmts, top: bool) -> bool:
    """Does a `return` (anywhere) or a `break`/`continue` of the loop itself (``top``: not inside
    a nested loop) leave the loop's body early?"""
    for st in stmts:
        if isinstance(st, A.Return) or (top and isinstance(st, (A.Break, A.Continue))):
            return True
        inner_top = top and isinstance(st, A.If)
        if any(_leaves(block, inner_top) for block in _inner(st)):
            return True
    return False


def _prefetch_is_unseen(facts, loop, copies) -> bool:
    """Could no access tell that the copy of the next iteration runs during this one, into a
    second buffer? The sources are never written, nor read by an atomic or an acquire (another
    agent could change them); the tiles are written by the copies alone and accessed nowhere
    outside the loop but their declarations, and no view of one is made outside the loop."""
    stmts = {id(c[0]) for c in copies}
    tiles = {c[1] for c in copies if c[1] is not None}
    sources = {c[2] for c in copies}
    for op in facts.ops:
        info = op.inst.ops.get(id(op.ast))
        if info is None:
            continue
        reads, writes = set(info.reads), set(info.writes)
        if writes & sources or (op.name in _ONCE_PER_CTA and reads & sources):
            return False
        if not (reads | writes) & tiles or id(op.ast) in stmts:
            continue
        if loop.first <= op.node < loop.end:
            if writes & tiles:
                return False
        elif not isinstance(op.ast, A.Var) or reads & tiles:
            return False                    # only a tile's declaration (a fill or a copy into it)
    inside = set()
    _lets(loop.ast.body.stmts, inside)
    for b in loop.inst.bindings:
        if b.kind == "view" and (b.buffer or b.name) in tiles and id(b.node) not in inside:
            return False
    return True


def _lets(stmts, out: set) -> None:
    for st in stmts:
        if isinstance(st, A.Let):
            out.add(id(st))
        for block in _inner(st):
            _lets(block, out)


def _barriers_before(facts, exchanging: set, threads: int) -> tuple:
    cfg = facts.cfg
    sites = cfg.sites
    n = len(sites)
    # per node: the buffers its per-thread work adds, whether it then empties the state, and
    # (the buffers its CTA-wide write writes, its statement)
    adds: list = [()] * n
    syncs = [False] * n
    writes: dict = {}
    by_node: dict = {}
    for op in facts.ops:
        by_node.setdefault(op.node, []).append(op)
    for node, ops in by_node.items():
        site = sites[node]
        inst_ops = site.inst.ops
        added = []
        for op in ops:
            info = inst_ops.get(id(op.ast))
            if info is None:
                continue
            if op.cls is OpClass.PER_THREAD:
                if op.name in (LOAD, RUN_LOAD):
                    added += info.reads
                elif op.name == STORE:
                    added += info.writes
            elif op.cls is OpClass.CTA_WIDE and op.name != "slice":
                # the node's own tile statement writes its target (a once-per-CTA operation
                # starts with a barrier of its own, a computed argument's tile is fresh)
                own = op.statement_level or (site.kind == OP and op.ast is site.ast)
                if own and info.writes and getattr(op.ast, "func", None) not in _ONCE_PER_CTA:
                    writes[node] = (tuple(info.writes), site.ast)
                syncs[node] = True
            elif op.cls is OpClass.CTA_COLLECTIVE and threads > 32 and (id(op.ast), id(op.inst)) in exchanging:
                syncs[node] = True
        adds[node] = tuple(added)
    succ = [[] for _ in range(n)]
    for a, b, _d in cfg.edges():
        succ[a].append(b)
    empty = frozenset()
    state_in: list = [None] * n
    state_in[cfg.entry] = empty
    work = [cfg.entry]
    marked = set()
    # a worklist in node order: the nodes are made in evaluation order, so most states settle in
    # one pass; a loop's header takes its back edge's state and goes round again while it grows
    queued = {cfg.entry}
    while work:
        node = heapq.heappop(work)
        queued.discard(node)
        state = state_in[node]
        if adds[node]:
            state = state | frozenset(adds[node])
        if syncs[node]:
            state = empty
        for m in succ[node]:
            old = state_in[m]
            new = state if old is None else old | state
            if old is None or new != old:
                state_in[m] = new
                if m not in queued:
                    queued.add(m)
                    heapq.heappush(work, m)
    node_of = {}
    for node, (bufs, stmt) in writes.items():
        node_of[(id(sites[node].inst), id(stmt))] = node
        state = state_in[node]
        if state is None:
            continue                      # unreachable
        if adds[node]:
            state = state | frozenset(adds[node])
        if any(b in state for b in bufs):
            marked.add((id(sites[node].inst), id(stmt)))

    def pending(at) -> frozenset:
        """The buffers with per-thread accesses pending at a node (its own included), or at a
        CTA-wide write given as (id(instance), id(statement))."""
        node = node_of.get(at) if isinstance(at, tuple) else at
        if node is None or node < 0 or state_in[node] is None:
            return empty
        return state_in[node] | frozenset(adds[node])
    return marked, pending


__all__ = ["Plan", "make_plan", "Ahead"]
