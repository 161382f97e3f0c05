"""The SIMT-with-masks interpreter: one batch of CTAs, every thread of them a lane of numpy vectors,
run statement by statement under an active mask (LANGUAGE §10).

``if`` splits the mask and joins it again; a loop runs while any active thread's condition holds;
``break``, ``continue`` and ``return`` take threads out of the mask until their loop, their loop's
next iteration or their function ends; ``&&``/``||`` evaluate their right side only in the threads
the left side leaves undecided. Functions are inlined at their calls: each call runs its own
checked instance of the body. This module holds the state and the statements; the expressions
live in ``scalars.py`` (per-thread values and runs), ``tiles.py`` (CTA-wide tile operations) and
``threads.py`` (barriers, collectives, shuffles, atomics: what threads do together).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right

import numpy as np

from ..language.records import record
from ..language.ops import OpClass
from ..analyzer.syntax import ast as A
from ..language.types import Run, Scalar, Tensor, Tile
from .errors import cta_name, fire, thread_list
from .memory import CLOCK_MASK, CTA_SHIFT, CTA_WIDE, SPAN_BITS, SPAN_UNKNOWN, THREAD_BITS, TID_BITS, Buffer, Region
from .scalars import ScalarEval
from .threads import ThreadOps
from .tiles import TileEval
from .values import cast, dtype_of

DEFAULT_MAX_LOOP_ITERATIONS = 250_000
# The work bound of one launch, in steps: a step is one statement, or one iteration of a loop,
# run for one CTA (a statement the simulator runs for a batch of CTAs together counts once per
# CTA of the batch). A 4096 x 4096 x 4096 run of examples/tiled_gemm.ph takes 16.9 million steps
# with its smallest tiles (BM = BN = 32, BK = 16: 16,384 CTAs of 8 + 4 * 256 steps) and 2.1
# million with its largest; the default leaves it a factor of 5.9. A step costs about 30 us
# when the CTAs run one at a time, so nested loops of 200,000 iterations each stop within the
# hour instead of running for days.
DEFAULT_MAX_STEPS = 100_000_000


@record
class Options:
    max_loop_iterations: int = DEFAULT_MAX_LOOP_ITERATIONS
    max_steps: int = DEFAULT_MAX_STEPS


class Work:
    """The steps a launch has run so far (shared by its batches) against its bound."""

    __slots__ = ("steps", "limit")

    def __init__(self, limit: int = DEFAULT_MAX_STEPS):
        self.steps = 0
        self.limit = limit


class Frame:
    """A kernel body or one inlined function call: who has returned, the value returned, loops."""

    __slots__ = ("returned", "ret", "loops", "ret_type")

    def __init__(self, threads: int, ret_type=None, ctas: int = 0):
        self.returned = np.zeros(threads, dtype=bool)
        self.loops: list[np.ndarray] = []          # per enclosing loop: threads that `continue`d
        self.ret_type = ret_type
        if isinstance(ret_type, Scalar):
            self.ret = np.zeros(threads, dtype=dtype_of(ret_type))
        elif isinstance(ret_type, Tile):
            self.ret = np.zeros((ctas,) + tuple(ret_type.shape), dtype=dtype_of(ret_type.elem))
        else:
            self.ret = None


class Spans:
    """The source spans of the accesses a launch records, numbered for ``Machine.site``: shared by
    the batches of a launch, since the records between CTAs outlive a batch."""

    __slots__ = ("spans", "index")

    def __init__(self):
        self.spans: list = []
        self.index: dict = {}

    def number(self, span) -> int:
        n = self.index.get(span)
        if n is None:
            n = len(self.spans)
            if n >= SPAN_UNKNOWN:
                return SPAN_UNKNOWN
            self.index[span] = n
            self.spans.append(span)
        return n

    def get(self, n: int):
        return self.spans[n] if 0 <= n < len(self.spans) else None


class Machine(ScalarEval, TileEval, ThreadOps):
    def __init__(self, kinfo, ctas: list[tuple[int, int, int]], grid: tuple[int, int, int],
                 tensors: dict[str, Buffer], scalars: dict, extents: dict[str, int], options: Options,
                 spans: Spans | None = None, work: Work | None = None):
        self.kinfo = kinfo                         # the analyzer.checked.CheckedKernel being run
        # what the lowering and the simulator agree on (analyzer/facts/plan.py): barriers before
        # CTA-wide writes, the collectives that exchange data
        self.plan = kinfo.plan
        self.T = T = kinfo.threads
        self.C = C = len(ctas)
        self.P = P = C * T
        self.grid = grid
        self.options = options
        self.cta_coords = np.array(ctas, dtype=np.int64).reshape(C, 3)
        pid = np.arange(P, dtype=np.int64)
        self.pid = pid
        self.cta_of = pid // T
        thread = (pid % T).astype(np.int32)
        self.lane64 = (pid % 32)
        self.ctx = {
            ("thread",): thread, ("lane",): (thread % 32).astype(np.int32),
            ("warp",): (thread // 32).astype(np.int32),
            ("threads",): np.int32(T), ("warps",): np.int32(T // 32), ("lanes",): np.int32(32),
        }
        for axis, name in enumerate("xyz"):
            coord = self.cta_coords[:, axis].astype(np.int32)
            self.ctx[("block", name)] = coord[0] if C == 1 else np.repeat(coord, T)
            self.ctx[("blocks", name)] = np.int32(grid[axis])
        self.tensors = tensors
        self.scalar_args = scalars
        self.extents = extents
        self.env: dict[int, object] = {}
        self.var_uids: set[int] = set()
        self.marked: set[Buffer] = set()           # buffers with per-thread stores since a barrier
        self.writes = 0                            # memory changes, for the loop-progress check
        self.sync_ops = 0                          # atomics and acquire loads executed
        self.last_sync = None                      # (span, text) of the latest acquire or atomic
        self.sequential = False                    # CTAs one at a time (set by the launch)
        # where and when accesses happen, for the race messages (``site``): a clock that ticks at
        # every recorded access and every loop iteration, the clock when each iteration of the
        # loops running now began, and the clock when the statement running now began
        self.spans = spans if spans is not None else Spans()
        self.work = work if work is not None else Work(options.max_steps)
        self.clock = 0
        self.loop_marks: list[tuple[object, array]] = []
        self.stmt_clock = 0
        self.inst = kinfo.instance
        self.types = self.inst.types
        self.frames = [Frame(P)]
        self.set_mask(np.ones(P, dtype=bool))

    # ---------------------------------------------------------------- state
    def set_mask(self, m: np.ndarray) -> None:
        self.mask = m
        self.any = bool(m.any())
        self.all = self.any and bool(m.all())

    def cta_label(self, c: int) -> str:
        return cta_name(self.cta_coords[c])

    def grid_cta_name(self, index: int) -> str:
        gx, gy, _ = self.grid
        return cta_name((index % gx, (index // gx) % gy, index // (gx * gy)))

    def cross_cta(self, node, buf, flat, cidx, found, reads: bool) -> None:
        """PH409: a CTA reads, or stores another value into, an element another CTA of the launch
        stored (``found``: (position in ``flat``, the other CTA's grid index or -2, "read" or
        "stored", where the other CTA's access was or None))."""
        i, other, how, stamp = found
        element = int(np.ravel(flat)[i])
        c = int(np.broadcast_to(cidx, np.shape(flat)).ravel()[i])
        chain, where = [], ""
        if stamp is not None:
            # name the CTA the record saw (one among several), its thread and the access's place
            other = stamp >> CTA_SHIFT
            thread = stamp & CTA_WIDE
            span = self.spans.get((stamp >> THREAD_BITS) & SPAN_UNKNOWN)
            by = "by a CTA-wide operation" if thread == CTA_WIDE else f"by its thread {thread}"
            at = f", at {span.line}:{span.column}" if span is not None else ""
            where = f" ({by}{at})"
            if span is not None and span != node.span:
                chain = [(span, f"CTA {self.grid_cta_name(other)} {'reads' if how == 'read' else 'stores'} "
                                f"`{buf.name}{list(buf.coords(element))}` here")]
        them = "several other CTAs" if other == -2 else f"CTA {self.grid_cta_name(other)}"
        at = f"`{buf.name}{list(buf.coords(element))}`"
        what = (f"reads {at}, which {them} stored" if reads else
                f"stores a new value in {at}, which {them} read" if how == "read" else
                f"stores into {at} a value other than the one {them} stored")
        fire("PH409", f"CTA {self.cta_label(c)} {what} in this launch{where}", node.span,
             label="a read racing another CTA's store" if reads else
             "a store racing another CTA's read" if how == "read" else "a store racing another CTA's store",
             chain=chain,
             notes=["the CTAs of a launch run in no fixed order, and nothing orders one CTA's memory "
                    "accesses with another's but atomics, `store_release` and `load_acquire` (LANGUAGE §8)"],
             help="give each CTA elements of its own, or hand the values over in a second launch "
                  "(or with `store_release` and `load_acquire`)")

    # ---------------------------------------------------------------- where accesses happen
    def site(self, node) -> int:
        """A stamp for an access about to be recorded: when (the clock, ticked) and where
        (``node``'s span). The race messages turn it back into a line, a column and an iteration."""
        self.clock += 1
        return ((self.clock & CLOCK_MASK) << SPAN_BITS) | self.spans.number(node.span)

    def thread_site(self, stamp: int) -> tuple[int, int]:
        """(batch thread, site) of a per-thread ``Seen`` stamp."""
        return stamp & ((1 << TID_BITS) - 1), stamp >> TID_BITS

    def located(self, site: int, here: int | None = None):
        """Where an access at ``site`` happened, as (its span or None, "at 5:7", and "in this
        statement", "in the previous iteration" or "" relative to what runs now; ``here``: the
        site of the access being checked)."""
        span = self.spans.get(site & SPAN_UNKNOWN)
        at = f"at {span.line}:{span.column}" if span is not None else ""
        clock = site >> SPAN_BITS
        loops = self.loop_marks
        for depth, (loop, marks) in enumerate(loops):
            if not marks or clock < marks[0]:
                break                      # before this loop began: not in one of its iterations
            back = len(marks) - bisect_right(marks, clock)
            if back > 0:
                when = "in the previous iteration" if back == 1 else \
                    f"in a previous iteration ({back} iterations back)"
                if depth < len(loops) - 1:
                    when += f" of the loop at line {loop.span.line}"
                return span, at, when
        if site == here or clock > (self.stmt_clock & CLOCK_MASK):
            return span, at, "in this statement"
        return span, at, ""

    def thread_of(self, p: int) -> tuple[int, str]:
        """(thread index in its CTA, the CTA's name) of batch thread ``p``."""
        return int(p) % self.T, self.cta_label(int(p) // self.T)

    def run(self) -> None:
        inst = self.inst
        for b in self.kinfo.params:
            if isinstance(b.type, Tensor):
                self.env[b.uid] = self.tensors[b.name].region()
            else:
                self.env[b.uid] = self.scalar_args[b.name]
        for b in inst.bindings:
            if b.kind == "extent":
                self.env[b.uid] = np.int32(self.extents[b.name])
        self.exec_block(self.kinfo.kernel.body.stmts)

    def merge(self, new, old, is_run: bool = False):
        """``new`` in the active threads, ``old`` elsewhere."""
        if self.all or old is None:
            return new
        m = self.mask[:, None] if is_run else self.mask
        return np.where(m, new, old)

    # ---------------------------------------------------------------- statements
    def exec_block(self, stmts) -> None:
        outer = self.stmt_clock
        work = self.work
        for s in stmts:
            if not self.any:
                break
            work.steps += self.C
            if work.steps > work.limit:
                self._too_much_work(s)
            self.stmt_clock = self.clock
            getattr(self, "exec_" + type(s).__name__)(s)
        self.stmt_clock = outer

    def exec_Let(self, s: A.Let) -> None:
        b = self.inst.decls[id(s)]
        t = b.type
        if isinstance(t, Tile):
            if b.kind == "view":
                self.env[b.uid] = self.view_of(s.value)
            else:
                self.env[b.uid] = self.new_tile(s, b, s.value)
            return
        self.env[b.uid] = self.typed(self.ev(s.value), t)

    def exec_Var(self, s: A.Var) -> None:
        b = self.inst.decls[id(s)]
        t = b.type
        if isinstance(t, Tile):
            if s.value is None:
                self.tile_room(t.shape, s)
                self.env[b.uid] = Buffer.tile(b.name, self.C, t.shape, t.elem)
            else:
                self.env[b.uid] = self.new_tile(s, b, s.value)
            return
        self.var_uids.add(b.uid)
        if s.value is None:
            shape = (self.P, t.n) if isinstance(t, Run) else (self.P,)
            self.env[b.uid] = np.zeros(shape, dtype=dtype_of(t.elem if isinstance(t, Run) else t))
            return
        self.env[b.uid] = self.typed(self.ev(s.value), t)

    def typed(self, v, t):
        """A scalar or run value converted to the binding's type ``t``."""
        if isinstance(t, Run):
            v = cast(v, t.elem)
            if v.ndim < 2:
                v = np.broadcast_to(v.reshape(v.shape + (1,)) if v.ndim == 1 else v, (self.P, t.n))
            return v
        return cast(v, t)

    def exec_Assign(self, s: A.Assign) -> None:
        target = s.target
        binop = s.op[:-1] if s.op != "=" else None
        if isinstance(target, A.Name):
            b = self.inst.resolution[id(target)]
            t = b.type
            if isinstance(t, Tile):
                self.tile_assign(s, self.region_of(target), binop)
                return
            value = self.ev(s.value)
            if binop:
                value = self.binop(binop, self.env[b.uid], value, _elem(t), _elem(self.types[id(s.value)]),
                                   _elem(t), s.span)
            self.env[b.uid] = self.merge(self.typed(value, t), self.env.get(b.uid), isinstance(t, Run))
            return
        # target is an Index: a run element, a point store, or a slice
        base_b = self.inst.resolution[id(target.base)]
        if isinstance(base_b.type, Run):
            k = int(self.ev(target.subs[0].index))
            value = self.ev(s.value)
            old = self.env[base_b.uid]
            if binop:
                value = self.binop(binop, old[:, k], value, base_b.type.elem, _elem(self.types[id(s.value)]),
                                   base_b.type.elem, s.span)
            new = np.array(old, copy=True)
            col = cast(value, base_b.type.elem)
            new[:, k] = np.where(self.mask, col, old[:, k]) if not self.all else col
            self.env[base_b.uid] = new
            return
        tt = self.types.get(id(target))
        if isinstance(tt, Tile):
            op = self.inst.ops[id(s)]
            cidx = self.cta_gate(op)
            self.tile_assign(s, None, binop, cidx=cidx)
            return
        self.point_store(s, target, binop)

    def exec_If(self, s: A.If) -> None:
        c = self.ev(s.cond)
        saved = self.mask
        then_m = saved & c
        else_m = saved & ~c
        after_then = then_m
        if then_m.any():
            self.set_mask(then_m)
            self.exec_block(s.then.stmts)
            after_then = self.mask
        after_else = else_m
        if s.orelse is not None and else_m.any():
            self.set_mask(else_m)
            if isinstance(s.orelse, A.If):
                self.exec_If(s.orelse)
            else:
                self.exec_block(s.orelse.stmts)
            after_else = self.mask
        self.set_mask(after_then | after_else)

    def exec_While(self, s: A.While) -> None:
        self.loop(s, s.body, cond=s.cond)

    def exec_For(self, s: A.For) -> None:
        b = self.inst.decls[id(s)]
        t = b.type
        bounds = [cast(self.ev(a), t) for a in s.args]
        lo, hi = bounds[0], bounds[1]
        step = bounds[2] if len(bounds) == 3 else cast(1, t)
        if len(bounds) == 3:
            # LANGUAGE §5: the step must be positive (a constant one is checked statically)
            bad = self.mask & np.broadcast_to((np.asarray(step) <= 0) & (np.asarray(lo) < np.asarray(hi)), self.mask.shape)
            if bad.any():
                p = np.flatnonzero(bad)
                _, cta = self.thread_of(p[0])
                v = np.asarray(step)
                v = v.flat[p[0]] if v.ndim else v
                fire("PH405", f"the step of this `for` loop is {v} in {thread_list(p % self.T)} of CTA {cta}, "
                     "but it must be positive: the loop would not end", s.args[2].span,
                     label="a step that is not positive", help="make the step positive (LANGUAGE §5)")
        self.loop(s, s.body, var=(b, lo, hi, step))

    def loop(self, s, body: A.Block, cond=None, var=None) -> None:
        frame = self.frames[-1]
        saved = self.mask
        active = saved
        frame.loops.append(np.zeros(self.P, dtype=bool))
        limit = self.options.max_loop_iterations
        marks = array("q")                          # the clock when each iteration began
        self.loop_marks.append((s, marks))
        work = self.work
        if var is None:                             # a `while` loop may repeat with nothing changed:
            self.watching += 1                      # count memory changes while it runs
        try:
            self._iterate(s, body, frame, active, limit, cond, var, marks, work)
        finally:
            if var is None:
                self.watching -= 1
        frame.loops.pop()
        self.loop_marks.pop()
        self.set_mask(saved & ~frame.returned)

    def _iterate(self, s, body, frame, active, limit, cond, var, marks, work) -> None:
        i = var[1] if var else None
        iterations = 0
        while True:
            work.steps += self.C
            if work.steps > work.limit:
                self._too_much_work(s)
            self.clock += 1
            marks.append(self.clock & CLOCK_MASK)
            synced = self.sync_ops                  # acquires and atomics so far, the condition's too
            if var is not None:
                b, _lo, hi, step = var
                active = active & (i < hi)
                self.env[b.uid] = i
            else:
                self.set_mask(active)
                active = active & self.ev(cond)
            if not active.any():
                break
            self.set_mask(active)
            before = self._progress_state() if var is None else None
            self.exec_block(body.stmts)
            active = self.mask | frame.loops[-1]
            frame.loops[-1] = np.zeros(self.P, dtype=bool)
            iterations += 1
            waited = self.sync_ops > synced         # this iteration polled with acquire or atomic
            if var is not None:
                i = self._next_loop_value(s, b, i, step, active)
            elif self._no_progress(before, active):
                self._stuck(s, "repeats with nothing changed, so it never ends", waited, active)
            if iterations >= limit:
                self._stuck(s, f"has run {iterations:,} iterations, the simulator's limit", waited, active)

    def _next_loop_value(self, s, b, i, step, active):
        """``i + step``, after checking that no thread still in the loop steps past the largest
        value of the loop variable's type: LANGUAGE §5's loop would stop there, but on a GPU the
        variable wraps around (the lowering's add is undefined on overflow) and the loop runs on."""
        dt = dtype_of(b.type)
        top = int(np.iinfo(dt).max)
        # i + step > top, without overflowing: i > top - step (a step below 1 never climbs)
        limit = np.subtract(dt.type(top), np.maximum(np.asarray(step, dtype=dt), dt.type(0)))
        over = active & (np.asarray(i) > limit)
        if over.any():
            p = np.flatnonzero(over)
            t, cta = self.thread_of(p[0])
            fire("PH407", f"the loop variable `{b.name}` steps past {top:,}, the largest {b.type}, in "
                 f"{thread_list(p % self.T)} of CTA {cta}", s.span,
                 label=f"`{b.name}` + step overflows {b.type} here",
                 help=f"bound the loop so that its last value plus the step fits in {b.type}, or give it "
                      "i64 bounds")
        return cast(i + step, b.type)

    def _progress_state(self):
        return (self.mask, self.writes, {u: self.env.get(u) for u in self.var_uids})

    def _no_progress(self, before, active) -> bool:
        """True when an iteration left everything as it found it: the same threads active, no
        memory changed, every `var` unchanged. Nothing outside the batch runs meanwhile, so the
        next iteration would do exactly the same, forever."""
        mask, writes, values = before
        if writes != self.writes or not np.array_equal(mask, active):
            return False
        for uid, v in values.items():
            now = self.env.get(uid)
            if now is v:
                continue
            if v is None or now is None or not np.array_equal(now, v, equal_nan=_is_float(v)):
                return False
        return True

    def _stuck(self, s, what: str, waited: bool, active: np.ndarray) -> None:
        word = "`while`" if isinstance(s, A.While) else "`for`"
        ctas = sorted({int(c) for c in self.cta_of[active]}) or [0]
        where = self.cta_label(ctas[0])
        x, y, z = (int(v) for v in self.cta_coords[ctas[0]])
        gx, gy, gz = self.grid
        later = x + gx * (y + gy * z) < gx * gy * gz - 1       # a CTA runs after this one
        if waited and self.last_sync is not None and self.sequential and later:
            span, text = self.last_sync
            fire("PH404", f"CTA {where} waits for a CTA that runs after it: this {word} loop {what}",
                 s.span, label="the waiting loop",
                 chain=[(span, text)],
                 notes=["the simulator runs CTAs one after another in block order, so a CTA never sees "
                        "what a later CTA writes; on a GPU this kernel may hang as well"],
                 help="make each CTA wait only on CTAs before it in block order, or take a ticket with "
                      "`atomic_add` and wait on the CTA with the previous ticket")
        fire("PH405", f"this {word} loop {what}", s.span, label=f"in CTA {where}",
             notes=[f"still looping in CTA {where}: "
                    f"{thread_list(np.flatnonzero(active.reshape(self.C, self.T)[ctas[0]]))}"],
             help="check the loop's condition; the `max_loop_iterations` argument of a kernel call raises the limit")

    def _too_much_work(self, s) -> None:
        """PH405: the launch passed its work bound (``Options.max_steps``). Located at the
        outermost loop running, where the work piles up, else at the statement."""
        where = self.loop_marks[0][0] if self.loop_marks else s
        active = self.mask.reshape(self.C, self.T).any(1)
        ctas = np.flatnonzero(active)
        cta = self.cta_label(int(ctas[0])) if ctas.size else self.cta_label(0)
        more = f" and {ctas.size - 1} other CTA{'s' if ctas.size > 2 else ''} of its batch" if ctas.size > 1 else ""
        what = "this loop" if self.loop_marks else "this statement"
        fire("PH405", f"the launch has run {self.work.limit:,} steps, the simulator's limit, and is still "
             f"running {what}", where.span, label=f"running in CTA {cta}{more}",
             notes=["a step is one statement, or one iteration of a loop, run for one CTA"],
             help="phobos-run --max-steps N (the `max_steps` argument of a kernel call) raises the limit; "
                  "or run a smaller problem")

    def exec_Break(self, s) -> None:
        self.set_mask(np.zeros(self.P, dtype=bool))

    def exec_Continue(self, s) -> None:
        frame = self.frames[-1]
        frame.loops[-1] = frame.loops[-1] | self.mask
        self.set_mask(np.zeros(self.P, dtype=bool))

    def exec_Return(self, s: A.Return) -> None:
        frame = self.frames[-1]
        if s.value is not None:
            if isinstance(frame.ret_type, Tile):
                # the CTA-wide copy or sweep into the call's result: every thread of the CTA must
                # get here (PH301), and its reads are checked as this operation's
                op = self.inst.ops[id(s)]
                cidx = self.cta_gate(op)
                if cidx.size:
                    prev, self.cur_op = self.cur_op, op
                    try:
                        frame.ret[cidx] = self.tile_result(s.value, cidx, frame.ret_type)
                    finally:
                        self.cur_op = prev
                self.end_cta_op(cidx)
            else:
                frame.ret = self.merge(cast(self.ev(s.value), frame.ret_type), frame.ret)
        frame.returned = frame.returned | self.mask
        self.set_mask(np.zeros(self.P, dtype=bool))

    def exec_ExprStmt(self, s: A.ExprStmt) -> None:
        self.ev(s.expr)

    # ---------------------------------------------------------------- functions
    def call_function(self, e: A.Call):
        callee = self.inst.calls[id(e)]
        fn = callee.node
        bound = []
        dims: dict[str, int] = {}
        for p, a in zip(fn.params, e.args):
            b = callee.decls[id(p)]
            if p.type.kind == "scalar":
                bound.append((b, cast(self.ev(a), b.type)))
                continue
            region = self.region_arg(a)
            for d, n in zip(p.type.dims, region.shape):
                if isinstance(d, A.DimName):
                    dims[d.name] = n
            bound.append((b, region))
        for b in callee.bindings:
            if b.kind == "function-dim" and b.name in dims:
                self.env[b.uid] = np.int32(dims[b.name])
        for b, v in bound:
            self.env[b.uid] = v
        caller, saved = self.inst, self.mask
        if isinstance(callee.ret_type, Tile):
            self.tile_room(callee.ret_type.shape, e)
        frame = Frame(self.P, callee.ret_type, self.C)
        self.frames.append(frame)
        self.inst, self.types = callee, callee.types
        try:
            self.exec_block(fn.body.stmts)
        finally:
            self.frames.pop()
            self.inst, self.types = caller, caller.types
        self.set_mask(saved)
        return frame.ret

    def region_arg(self, a) -> Region:
        """A tensor or tile argument of a function: the memory itself (a view), or, for a computed
        tile, a fresh tile holding it."""
        if isinstance(a, A.Name):
            return self.region_of(a)
        if isinstance(a, A.Index) and not a.is_point:
            return self.view_of(a)
        t = self.types[id(a)]
        op = self.inst.ops.get(id(a)) or _NamedOp("tile argument", a.span)
        cidx = self.cta_gate(op)
        self.tile_room(t.shape, a)
        buf = Buffer.tile("argument", self.C, t.shape, t.elem)
        if cidx.size:
            prev, self.cur_op = self.cur_op, op
            try:
                buf.data[cidx] = self.tile_result(a, cidx, t)
            finally:
                self.cur_op = prev
        return buf.region()

    # ---------------------------------------------------------------- names and memory
    def region_of(self, name: A.Name) -> Region:
        v = self.env[self.inst.resolution[id(name)].uid]
        return v.region() if isinstance(v, Buffer) else v


class _NamedOp:
    """An operation record for a place the analyzer did not record one (never in checked code)."""

    def __init__(self, name, span):
        self.name, self.span, self.cls, self.operands = name, span, OpClass.CTA_WIDE, []


def _elem(t):
    return t.elem if isinstance(t, (Run, Tile)) else t


def _is_float(v) -> bool:
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"
