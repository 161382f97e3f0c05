"""The shared-memory plan of a kernel (LANGUAGE §10): every byte of shared memory the build will
allocate, computed from the checked program alone, so that ``phobos-check --arch`` (PH211,
resources.py) and ``phobos-build`` (lowering/shared.py, which places each allocation where the
plan says and fails with PH901 if it ever takes anything else) count the same bytes. Three
regions: **named** tiles live for the whole kernel (each ``var`` tile and materialized ``let``,
the tile a computed tile argument is swept into, the tile a function's tile result is returned
in); **scratch** holds the temporaries of one tile statement (a producer that is not fused into
the statement's pass, a ``dot`` operand copied into shared memory, the value of a statement that
reads its own target at other elements) and is as large as the largest statement needs, every
statement reusing it from offset 0; **static** buffers serve the collectives (the CTA fold, when
a CTA collective exchanges data; the once-per-CTA result slot). Up to 48 KB in all every tile is
static shared memory; beyond, the named and scratch regions become one dynamic array of
``dynamic_bytes``. The decisions that size scratch (which producer is fused, whether a value
needs a temporary, whether a ``dot`` operand is copied) are made here, from the AST and the
types, and the lowering (lowering/tiles.py, tile_ops.py) takes them from the plan. Pure Python:
no llvmlite, no numpy.

**Padded rows.** A tile of 1- or 2-byte elements that ``dot``/``dot_t`` reads from shared memory
(a ``var`` tile or materialized ``let`` read in place as an operand, or a ``dot`` operand's
scratch copy), two-dimensional, whose rows are an even number of 16-byte chunks, gets 16 bytes
more per row (``row_stride``, in elements): the eight rows one ``ldmatrix`` phase reads (16
bytes each) then fall in eight different 16-byte bank groups, with no bank conflict (unpadded,
rows 128 bytes apart share their banks). The padding is counted here, so PH211 sees it.

**Second buffers.** Where the execution plan (facts/plan.py) lets a ``for`` loop run the copies
at its top one iteration ahead, each copied tile gets a second named allocation of its size and
padding ("second buffer of `a`"), the lowering alternating between the two; the copy a product
makes of a view at the loop's top leaves the product's scratch for two named allocations of its
size and padding (the copy made ahead, and its second buffer); loops are taken in
order while the whole plan stays within the smallest per-CTA limit of all targets (and, under
``minBlocks``, the smallest per-SM one), so that the second buffers never cause a PH211.
"""

from __future__ import annotations

from dataclasses import field

from ..language.records import record
from ..language.builtins import ATOMICS, TILE_MATH
from .constants import affine, constant_of
from ..language.ops import OpClass
from ..language.targets import STATIC_SHARED_LIMIT, TARGETS
from .syntax import ast as A
from ..language.types import BYTES, SCALARS, Tensor, Tile, settle

STATIC_LIMIT = STATIC_SHARED_LIMIT  # static shared memory of one CTA; beyond it, dynamic
ALIGN = 16                         # every allocation starts at a multiple of 16 bytes
NAMED, SCRATCH, STATIC = "named", "scratch", "static"
PRODUCERS = ("dot", "dot_t", "rowsum", "rowmax", "cumsum", "qdot_t", "qmma_t")
# Calls whose operands stay on the statement's elementwise spine (one element in, one out).
_ELEMENTWISE = ("where", "tmax") + TILE_MATH
ELEM_BYTES = BYTES
FOLD = ("fold",)                   # keys of the collectives' static buffers
ONCE = ("once",)
FOLD_SLOTS = 32                    # i64 slots: one per warp (collectives.cta_collective)
ONCE_SLOTS = 1                     # one i64 slot (collectives.once_per_cta)
_WITH_RESULT = ATOMICS + ("load_acquire",)   # once-per-CTA operations that hand out a result


def padded_row(elem, shape) -> int | None:
    """The row stride (elements) of a ``dot`` operand tile of this type padded against ldmatrix
    bank conflicts, or None (not padded: see the module's description)."""
    es = ELEM_BYTES[settle(elem).name]
    if es > 2 or len(shape) != 2 or not all(isinstance(d, int) for d in shape):
        return None
    row = shape[1] * es
    if row % 32:
        return None
    return shape[1] + 16 // es


def round_up(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def tile_bytes(elem, shape, row_stride: int | None = None) -> int:
    """Bytes of a static tile, rounded up to 16 as the lowering places it (rows ``row_stride``
    elements apart, when padded)."""
    n = ELEM_BYTES[settle(elem).name]
    if row_stride is not None:
        return round_up(n * shape[0] * row_stride)
    for d in shape:
        n *= d
    return round_up(n)


# ---------------------------------------------------------------- keys the lowering asks by
def tile_key(inst, binding) -> tuple:
    return ("tile", id(inst), binding.uid)


def argument_key(inst, arg) -> tuple:
    return ("arg", id(inst), id(arg))


def result_key(inst, call) -> tuple:
    return ("result", id(inst), id(call))


def statement_key(inst, stmt) -> tuple:
    return (id(inst), id(stmt))


def ahead_key(inst, operand) -> tuple:
    """The buffer a product's operand is copied into one iteration ahead (``Ahead``)."""
    return ("ahead", id(inst), id(operand))


def second_key(key: tuple) -> tuple:
    """The second buffer of a double-buffered tile (its ``tile_key``)."""
    return ("second",) + key


# ---------------------------------------------------------------- the plan
@record(frozen=True)
class Allocation:
    key: tuple
    what: str              # the label without the size: "`t`: f32[128, 128]"
    span: object
    bytes: int
    region: str            # NAMED, SCRATCH or STATIC
    offset: int            # from the start of its region (scratch: of its statement's share)
    row_stride: int | None = None   # elements between rows, when padded (``padded_row``)

    @property
    def label(self) -> str:
        return f"{self.what}, {self.bytes:,} bytes"


@record
class StatementPlan:
    """One tile statement: what its pass fuses, whether its value goes through a temporary, and
    its scratch allocations (all alive together, at offsets from the scratch region's start)."""
    fused: object = None                          # the producer fused into the pass (an AST node)
    alias: bool = False                           # the value is computed into scratch first
    scratch: dict = field(default_factory=dict)   # key -> Allocation
    bytes: int = 0

    def copies(self, operand) -> bool:
        """Is this ``dot``/``dot_t`` operand copied into scratch (rather than read in place)?"""
        return ("copy", id(operand)) in self.scratch


@record
class SharedPlan:
    kernel: str
    named: dict = field(default_factory=dict)        # key -> Allocation, in the order of the walk
    statements: dict = field(default_factory=dict)   # statement_key -> StatementPlan
    static: dict = field(default_factory=dict)       # FOLD / ONCE -> Allocation
    named_bytes: int = 0
    scratch_peak: int = 0
    peak: StatementPlan | None = None                # the statement that needs scratch_peak
    # (id(instance), id(for loop)) -> the copies it double buffers: each tile's second buffer is
    # the named allocation ``second_key(tile_key)`` (see the module's description)
    double_buffered: dict = field(default_factory=dict)

    @property
    def static_bytes(self) -> int:
        return sum(a.bytes for a in self.static.values())

    @property
    def total(self) -> int:
        return self.named_bytes + self.scratch_peak + self.static_bytes

    @property
    def dynamic(self) -> bool:
        return self.total > STATIC_LIMIT

    @property
    def dynamic_bytes(self) -> int:
        """What the launch passes (the manifest's ``dynamic_shared_bytes``): the tiles, when the
        kernel is over 48 KB; the collectives' buffers stay static."""
        return self.named_bytes + self.scratch_peak if self.dynamic else 0

    def allocations(self) -> list[Allocation]:
        """Every allocation: named, then each statement's scratch, then static."""
        out = list(self.named.values())
        for sp in self.statements.values():
            out.extend(sp.scratch.values())
        return out + list(self.static.values())

    def at_peak(self) -> list[Allocation]:
        """What is allocated at once when scratch is fullest, largest first (these add up to
        ``total``): the diagnostic's labels."""
        live = list(self.named.values()) + (list(self.peak.scratch.values()) if self.peak else [])
        return sorted(live + list(self.static.values()), key=lambda a: -a.bytes)


def plan_kernel(kinfo, analysis) -> SharedPlan:
    """The plan of one kernel (a sema KernelInfo). ``analysis`` (its KernelAnalysis) says which
    CTA collectives exchange data, as it tells the lowering, and where the operations with a
    result are."""
    p = _Planner(kinfo, analysis)
    p.body(kinfo.instance)
    p.buffers(kinfo)
    p.second_buffers(kinfo)
    return p.plan


def _read_in_place(call) -> list:
    """The operands of a tile product that the lowering may read in place (dot_operands)."""
    a = call.args
    if call.func == "dot":
        return a[:2]
    if call.func == "dot_t":
        return a[:1]
    return [a[0], a[2]] if len(a) == 4 else []            # qdot_t / qmma_t: the i8 operands


class _Planner:
    def __init__(self, kinfo, analysis):
        self.analysis = analysis
        self.warps = kinfo.threads // 32
        self.plan = SharedPlan(kinfo.kernel.name)
        self._operands: dict = {}

    # ------------------------------------------------------------ allocations
    def named(self, key, name: str, span, t: Tile, pad: bool = False) -> None:
        stride = padded_row(t.elem, t.shape) if pad else None
        n = tile_bytes(t.elem, t.shape, stride)
        padded = f" (rows padded to {stride})" if stride is not None else ""
        self.plan.named[key] = Allocation(key, f"{name}: {_shape(t.elem, t.shape)}{padded}", span, n, NAMED,
                                          self.plan.named_bytes, stride)
        self.plan.named_bytes += n

    def second_buffers(self, kinfo) -> None:
        """The loops whose leading copies the execution plan lets run one iteration ahead: each
        copied tile gets a second buffer (its size and padding); each copy a product makes of a
        view leaves the product's scratch for two named buffers of its size and padding. Loop by
        loop in the plan's order, while the total stays within every target's limit per CTA (and,
        with ``minBlocks``, per SM): double buffering never makes a kernel over any target's
        limit."""
        most_cta = min(t.shared_per_block for t in TARGETS.values())
        most_sm = min(t.shared_per_sm for t in TARGETS.values())
        blocks = kinfo.min_blocks or 1
        inst = kinfo.instance                      # the plan double buffers the kernel's own loops
        for (inst_id, loop_id), entries in self.analysis.plan.prefetchable.items():
            if inst_id != id(inst):
                continue
            extra: list = []                       # (key, label, span, bytes, row stride)
            drop: dict = {}                        # statement key -> the scratch keys it gives up
            kept = []
            for e in entries:
                if e.product is None:
                    b = inst.resolution.get(id(e.stmt.target))
                    key = second_key(tile_key(inst, b))
                    if key not in self.plan.named and all(key != x[0] for x in extra):
                        a = self.plan.named[tile_key(inst, b)]
                        extra.append((key, f"second buffer of {a.what}", a.span, a.bytes, a.row_stride))
                    kept.append(e)
                    continue
                sk = statement_key(inst, e.owner)
                sp = self.plan.statements.get(sk)
                ck = ("copy", id(e.operand))
                if sp is None or sp.fused is not e.product or ck not in sp.scratch:
                    continue
                a = sp.scratch[ck]
                transposed = e.product.func == "dot_t" and e.operand is e.product.args[1]
                how, text, _stored, _stride = _operand_copy(inst.types[id(e.operand)], transposed)
                what = (f"{how} of `{e.operand.id}` for `{e.product.func}` at {_at(e.product.span)}, made one "
                        f"iteration ahead: {text}")
                key = ahead_key(inst, e.operand)
                extra += [(key, what, a.span, a.bytes, a.row_stride),
                          (second_key(key), f"second buffer of the {what}", a.span, a.bytes, a.row_stride)]
                drop.setdefault(sk, set()).add(ck)
                kept.append(e)
            if not kept:
                continue
            peak, at = self._scratch_without(drop)
            total = self.plan.named_bytes + sum(x[3] for x in extra) + peak + self.plan.static_bytes
            if total > most_cta or (kinfo.min_blocks and blocks * total > most_sm):
                continue
            for key, what, span, n, stride in extra:
                self.plan.named[key] = Allocation(key, what, span, n, NAMED, self.plan.named_bytes, stride)
                self.plan.named_bytes += n
            for sk, keys in drop.items():
                sp = self.plan.statements[sk]
                left = [a for k, a in sp.scratch.items() if k not in keys]
                sp.scratch, sp.bytes = {}, 0
                for a in left:
                    sp.scratch[a.key] = Allocation(a.key, a.what, a.span, a.bytes, SCRATCH, sp.bytes, a.row_stride)
                    sp.bytes += a.bytes
            self.plan.scratch_peak, self.plan.peak = peak, at
            self.plan.double_buffered[(inst_id, loop_id)] = tuple(kept)

    def _scratch_without(self, drop: dict):
        """The scratch peak (and the statement at it) once the statements in ``drop`` give up
        those scratch allocations."""
        peak, at = 0, None
        for sk, sp in self.plan.statements.items():
            gone = drop.get(sk, ())
            n = sp.bytes - sum(a.bytes for k, a in sp.scratch.items() if k in gone)
            if n > peak:
                peak, at = n, sp
        return peak, at

    def dot_operands(self, inst) -> set:
        """The uids of the ``var``/``let`` tiles that a tile product of ``inst`` reads in place
        with ``ldmatrix`` (by name): both operands of ``dot``, the first of ``dot_t`` (its second
        is always copied), the two i8 operands of ``qdot_t``/``qmma_t``. The semantic pass lists
        the products of each body (``Instance.products``)."""
        got = self._operands.get(id(inst))
        if got is None:
            got = self._operands[id(inst)] = set()
            for n in inst.products.values():
                for arg in _read_in_place(n):
                    b = inst.resolution.get(id(arg)) if isinstance(arg, A.Name) else None
                    if b is not None and b.kind in ("var", "let"):
                        got.add(b.uid)
        return got

    def scratch(self, sp: StatementPlan, key, what: str, span, elem, shape, row_stride: int | None = None) -> None:
        """``what`` names the tile, its type included."""
        n = tile_bytes(elem, shape, row_stride)
        sp.scratch[key] = Allocation(key, what, span, n, SCRATCH, sp.bytes, row_stride)
        sp.bytes += n
        if sp.bytes > self.plan.scratch_peak:
            self.plan.scratch_peak = sp.bytes
            self.plan.peak = sp

    def static(self, key, what: str, span, slots: int) -> None:
        """A collective's buffer of ``slots`` i64, an array of its own (so at a multiple of 16)."""
        if key not in self.plan.static:
            self.plan.static[key] = Allocation(key, what, span, round_up(8 * slots), STATIC, self.plan.static_bytes)

    # ------------------------------------------------------------ statements
    def body(self, inst) -> None:
        """An instance's tile statements, then each call inlined into it (its argument and result
        tiles, its body). Only statements are walked: the calls are the instance's own list, and
        the collectives' buffers come from the analysis's operations (``buffers``)."""
        self.block(inst, inst.node.body)
        for callee in inst.calls.values():
            if callee.call_node is not None:
                self.call(inst, callee.call_node, callee)

    def block(self, inst, blk) -> None:
        for s in blk.stmts:
            self.stmt(inst, s)

    def stmt(self, inst, s) -> None:
        t = type(s)
        if t is A.Assign:
            tt = inst.types.get(id(s.target))
            if isinstance(tt, Tile):                 # a CTA-wide write into a tile or slice
                self.statement(inst, s, s.value, tt.shape, s.target)
        elif t is A.Let or t is A.Var:
            b = inst.decls.get(id(s))
            if b is not None and isinstance(b.type, Tile) and (t is A.Var or b.kind == "let"):
                # a `var` tile or a materialized `let` (§5)
                self.named(tile_key(inst, b), f"`{b.name}`", b.span, b.type, b.uid in self.dot_operands(inst))
                if s.value is not None:
                    self.statement(inst, s, s.value, b.type.shape)
        elif t is A.If:
            self.block(inst, s.then)
            if isinstance(s.orelse, A.If):
                self.stmt(inst, s.orelse)
            elif s.orelse is not None:
                self.block(inst, s.orelse)
        elif t is A.For or t is A.While:
            self.block(inst, s.body)
        elif t is A.Return:
            if s.value is not None and inst.kind == "function" and isinstance(inst.ret_type, Tile):
                self.statement(inst, s, s.value, inst.ret_type.shape)      # into the result tile

    def buffers(self, kinfo) -> None:
        """The collectives' static buffers: the CTA fold, where a CTA collective exchanges data in
        a CTA of more than one warp; the once-per-CTA slot, where an atomic or acquire load hands
        its result to every thread (an atomic standing as a statement has none to hand)."""
        for op in self.analysis.facts.ops:
            if op.cls is OpClass.CTA_COLLECTIVE:
                if self.warps > 1 and self.exchanges(op.ast, op.inst):
                    self.static(FOLD, "CTA collective buffer", op.span, FOLD_SLOTS)
            elif op.name in _WITH_RESULT and not op.statement_level:
                self.static(ONCE, "once-per-CTA result slot", op.span, ONCE_SLOTS)

    def exchanges(self, e, inst) -> bool:
        """Does this collective exchange data between threads? What the lowering asks: the
        analysis's execution plan (facts/plan.py)."""
        return self.analysis.plan.exchanges(e, inst)

    def call(self, inst, call, callee) -> None:
        """An inlined call, as the lowering does it: a computed tile argument is swept into a tile
        of its own, the result comes in a tile of its own, then the body."""
        fn = callee.node
        for p, a in zip(fn.params, call.args):
            pb = callee.decls.get(id(p))
            if pb is not None and isinstance(pb.type, (Tensor, Tile)) and not isinstance(a, (A.Name, A.Index)):
                t = inst.types[id(a)]
                self.named(argument_key(inst, a), f"`{p.name}` of `{fn.name}`", a.span, t)
                self.statement(inst, a, a, t.shape)
        if isinstance(callee.ret_type, Tile):
            self.named(result_key(inst, call), f"the result of `{fn.name}`", call.span, callee.ret_type)
        self.body(callee)

    # ------------------------------------------------------------ one tile statement
    def statement(self, inst, s, value, shape, target=None) -> None:
        """``target op= value`` (``target`` None for a fresh tile, which the value cannot read):
        the producers materialized before the pass, the temporary of a value that reads the
        target elsewhere, then the fused producer's own operands (lowering/tiles.py ``write``)."""
        sp = StatementPlan()
        self.plan.statements[statement_key(inst, s)] = sp
        if not isinstance(inst.types.get(id(value)), Tile):
            return                                          # a fill
        # the tile operations that run at their own place, before an effect later in the value
        # (analyzer/evaluation.py), each into a scratch tile of its own, first
        materialized: set = set()
        for nodes in (inst.early.get(id(value)) or {}).values():
            for node in nodes:
                self.early(sp, inst, node, materialized)
        sp.fused = self.fusable(inst, value, shape, materialized)
        self.materialize_others(sp, inst, value, sp.fused, materialized)
        if target is not None and self.aliases(inst, value, target, shape, materialized):
            sp.alias = True
            if all(isinstance(d, int) for d in shape):     # else the lowering refuses it (PH210)
                el = settle(inst.types[id(value)].elem)
                self.scratch(sp, ("alias",), f"scratch of the statement at {_at(value.span)}: its value "
                             f"{_shape(el, shape)} (it reads the target at other elements)", value.span, el, shape)
        if sp.fused is not None:
            self.produce(sp, inst, sp.fused)

    def early(self, sp, inst, node, materialized: set) -> None:
        """A tile operation carried out at its place (lowering/tiles.py ``materialize``): its
        value in scratch; a producer fused into that write, any other the producers inside it
        materialized (those of earlier effects already are)."""
        t = inst.types[id(node)]
        what = f"`{node.func}`" if isinstance(node, A.Call) else "an elementwise sweep"
        self.scratch(sp, ("value", id(node)), f"scratch of {what} at {_at(node.span)}: its result "
                     f"{_shape(t.elem, t.shape)} (it runs before a call later in the statement)",
                     node.span, t.elem, t.shape)
        if _is_producer(inst, node):
            self.produce(sp, inst, node, materialized)
        else:
            for c in tile_children(node):
                self.materialize_others(sp, inst, c, None, materialized)
        materialized.add(id(node))

    def fusable(self, inst, node, shape, materialized=frozenset()):
        """The producer on the tree's elementwise spine whose shape is the target's: it hands its
        elements to the pass in registers."""
        t = inst.types.get(id(node))
        if not isinstance(t, Tile) or id(node) in materialized:
            return None
        if _is_producer(inst, node):
            return node if list(t.shape) == list(shape) else None
        if isinstance(node, (A.Binary, A.Unary)) or (isinstance(node, A.Call) and _keeps_spine(node.func)):
            for c in tile_children(node):
                found = self.fusable(inst, c, shape, materialized)
                if found is not None:
                    return found
        return None

    def materialize_others(self, sp, inst, node, fused, record: set) -> None:
        """Every producer in the tree but ``fused`` (and none inside a producer: its own
        operands are its business) gets a scratch tile of its shape."""
        if not isinstance(node, (A.Binary, A.Unary, A.Call)) or not isinstance(inst.types.get(id(node)), Tile):
            return
        if (isinstance(node, A.Call) and id(node) in inst.calls) or node is fused or id(node) in record:
            return
        if _is_producer(inst, node):
            record.add(id(node))
            t = inst.types[id(node)]
            self.scratch(sp, ("value", id(node)), f"scratch of `{node.func}` at {_at(node.span)}: its result "
                         f"{_shape(t.elem, t.shape)}", node.span, t.elem, t.shape)
            self.produce(sp, inst, node, record)
            return
        for c in tile_children(node):
            self.materialize_others(sp, inst, c, fused, record)

    def produce(self, sp, inst, node, done=frozenset()) -> None:
        """What a producer takes for its operands (lowering/tile_ops.py); ``done``: the ids of
        what is in scratch already."""
        if node.func in ("dot", "dot_t"):
            self.operand(sp, inst, node, node.args[0], False, done)
            self.operand(sp, inst, node, node.args[1], node.func == "dot_t", done)
            return
        for a in node.args:
            self.materialize_others(sp, inst, a, None, set(done))

    def operand(self, sp, inst, producer, node, transposed: bool, done=frozenset()) -> None:
        """A ``dot`` operand is read from shared memory without masks: in place when it is a
        producer's scratch tile, a function's result tile or ``plain_shared``; else (and always
        for ``dot_t``'s second operand, which is stored transposed) copied into scratch."""
        self.materialize_others(sp, inst, node, None, set(done))
        in_scratch = _is_producer(inst, node) or id(node) in done
        if not transposed and (in_scratch or (isinstance(node, A.Call) and id(node) in inst.calls)
                               or plain_shared(inst, node)):
            return
        t = inst.types[id(node)]
        how, text, stored, stride = _operand_copy(t, transposed)
        self.scratch(sp, ("copy", id(node)), f"scratch of `{producer.func}` at {_at(producer.span)}: {how} of "
                     f"`{_brief(node)}` {text}", node.span, t.elem, stored, stride)

    def aliases(self, inst, value, target, shape, materialized: set) -> bool:
        """Does the value read the target's buffer other than at the element being written: in
        another view of it, off the elementwise path (a ``transpose``, a broadcast), or inside a
        producer? Then every thread could read an element another one already overwrote."""
        buffer = _buffer(inst, target)
        if buffer is None:
            return False
        here = None

        def walk(n, plain: bool, inside: bool) -> bool:
            nonlocal here
            if not isinstance(inst.types.get(id(n)), Tile) or id(n) in materialized:
                return False
            if isinstance(n, A.Call) and id(n) in inst.calls:
                return False                       # a function's tile result: a tile of its own
            if isinstance(n, (A.Name, A.Index)):
                if _buffer(inst, n) != buffer:
                    return False
                if inside or not plain:
                    return True
                if isinstance(n, A.Name) and isinstance(target, A.Name) and \
                        inst.resolution.get(id(n)) is inst.resolution.get(id(target)):
                    return False                   # the very memory being written, element for element
                if here is None:
                    here = _view(inst, target) or ()
                return not here or _view(inst, n) != here
            keeps = isinstance(n, (A.Binary, A.Unary)) or (isinstance(n, A.Call) and (
                _keeps_spine(n.func) or n.func == "tril"))
            inside = inside or _is_producer(inst, n)
            for c in tile_children(n):
                ct = inst.types.get(id(c))
                same = isinstance(ct, Tile) and list(ct.shape) == list(shape)
                if walk(c, plain and keeps and same, inside):
                    return True
            return False
        return walk(value, True, False)


def _operand_copy(t: Tile, transposed: bool) -> tuple:
    """(what it is, its type as labels show it, the shape it is stored in, its padded row stride
    or None) of the copy a product makes of an operand of type ``t``. The copy's rows are what
    ldmatrix reads: K for the first operand, N for the second (``dot_t``'s, transposed, is stored
    in its own [N, K] layout on tensor cores: K), padded the same way."""
    own = tuple(t.shape)
    shape = own[::-1] if transposed else own
    stride = padded_row(t.elem, own)
    padded = "" if stride is None else (f" (stored {_shape(t.elem, own)}, rows padded to {stride})"
                                        if transposed else f" (rows padded to {stride})")
    return ("transposed copy" if transposed else "copy"), f"{_shape(t.elem, shape)}{padded}", own, stride


# ---------------------------------------------------------------- where memory is
def plain_shared(inst, node, depth: int = 0) -> bool:
    """Is ``node`` a tile in shared memory that needs no mask: a tile, or a view or slice of one
    whose offsets are compile-time constants inside it? (Decided here from the AST; the lowering
    then copies what this says to copy even where its bounds prover could have done without.)"""
    if depth > 64:
        return False
    if isinstance(node, A.Name):
        b = inst.resolution.get(id(node))
        if b is None or not isinstance(b.type, Tile):
            return False                           # a tensor: global memory
        behind = _behind(b, inst)
        if behind is not None:
            return behind[0] is None or plain_shared(behind[1], behind[0], depth + 1)
        return b.kind in ("var", "let")
    if isinstance(node, A.Index) and not node.is_point and isinstance(node.base, A.Name):
        bt = inst.types.get(id(node.base))
        if not isinstance(bt, Tile) or not plain_shared(inst, node.base, depth + 1):
            return False
        for s, extent in zip(node.subs, bt.shape):
            start, n = _start_length(s, inst, extent)
            if start is None or n is None or not (isinstance(extent, int) and 0 <= start and start + n <= extent):
                return False
        return True
    return False


def _behind(b, inst):
    """What a view or a function's tile parameter stands for: (node, instance), or (None, None)
    for a parameter given a computed tile (swept into a tile of its own); None otherwise."""
    if b.kind == "view" and isinstance(b.node, A.Let):
        return b.node.value, inst
    if b.kind == "param" and inst.kind == "function" and inst.call_node is not None and isinstance(b.node, A.Param):
        for p, a in zip(inst.node.params, inst.call_node.args):
            if p is b.node:
                return (a, inst.parent) if isinstance(a, (A.Name, A.Index)) else (None, None)
    return None


def _start_length(s, inst, extent):
    """(start, length) of a subscript on an axis of ``extent``, each None when not a constant."""
    if isinstance(s, A.Point):
        return _const(s.index, inst), 1
    if isinstance(s, A.SpanSub):
        return _const(s.start, inst), _const(s.length, inst)
    lo = 0 if s.lo is None else _const(s.lo, inst)
    hi = extent if s.hi is None else _const(s.hi, inst)
    return lo, (hi - lo if isinstance(hi, int) and lo is not None else None)


def _const(e, inst):
    def const_value(n):
        b = inst.resolution.get(id(n))
        if b is not None and b.kind in ("const", "function-dim") and isinstance(b.const_value, int):
            return b.const_value
        return None
    return constant_of(affine(e, const_value, lambda node: None))


def _buffer(inst, node):
    """The analyzer's name of the memory behind a tile or tensor expression (semantics gives
    every tile, tensor and computed argument one; views and parameters share their source's)."""
    t = inst.types.get(id(node))
    if isinstance(t, Tile) and t.buffer:
        return t.buffer
    base = node.base if isinstance(node, A.Index) else node
    b = inst.resolution.get(id(base)) if isinstance(base, A.Name) else None
    return (b.buffer or b.name) if b is not None else None


def _view(inst, node, depth: int = 0):
    """Where ``node`` sits in its buffer: (origin per buffer axis as affine forms, buffer axis
    per visible axis, shape); None when an offset is not an affine form of values that cannot
    change during a statement. Equal for two expressions that name the same elements."""
    if depth > 64:
        return None
    if isinstance(node, A.Name):
        b = inst.resolution.get(id(node))
        if b is None or not isinstance(b.type, (Tile, Tensor)):
            return None
        behind = _behind(b, inst)
        if behind is not None and behind[0] is not None:
            return _view(behind[1], behind[0], depth + 1)
        rank = len(b.type.shape)
        return (((( None, 0),),) * rank, tuple(range(rank)), tuple(b.type.shape))
    if isinstance(node, A.Index) and not node.is_point:
        base = _view(inst, node.base, depth + 1)
        t = inst.types.get(id(node))
        if base is None or not isinstance(t, Tile):
            return None
        origin = [dict(o) for o in base[0]]
        axes = []
        for s, axis in zip(node.subs, base[1]):
            start = s.index if isinstance(s, A.Point) else s.start if isinstance(s, A.SpanSub) else s.lo
            if start is not None:
                f = stable_form(start, inst)
                if f is None:
                    return None
                for k, v in f.items():
                    origin[axis][k] = origin[axis].get(k, 0) + v
            if not isinstance(s, A.Point):
                axes.append(axis)
        return (tuple(tuple(sorted(((k, v) for k, v in o.items() if v or k is None), key=repr)) for o in origin),
                tuple(axes), tuple(t.shape))
    return None


_STABLE = ("let", "param", "extent", "loop", "function-dim", "const")


def stable_form(e, inst):
    """``e`` as an affine form over values that do not change while one statement runs (no
    `var`: a statement's scalars could call a function, though none can write the caller's), or
    None. (A loop reads it too: these values do not change during a loop either.)"""
    def const_value(n):
        b = inst.resolution.get(id(n))
        if b is not None and b.kind in ("const", "function-dim") and isinstance(b.const_value, int):
            return b.const_value
        return None

    def atom_key(n):
        if isinstance(n, A.CtxPath):
            return ("ctx", n.path)
        b = inst.resolution.get(id(n))
        return ("b", b.uid) if b is not None and b.kind in _STABLE else None
    return affine(e, const_value, atom_key)


# ---------------------------------------------------------------- helpers
def _is_producer(inst, node) -> bool:
    return isinstance(node, A.Call) and node.func in PRODUCERS and id(node) not in inst.calls


def _keeps_spine(func: str) -> bool:
    return func in SCALARS or func in _ELEMENTWISE


def tile_children(node) -> list:
    """The operands of a node of a tile expression (a slice is a leaf; its subscripts are
    scalars the statement evaluates first): the lowering walks tile trees with it too."""
    if isinstance(node, A.Binary):
        return [node.lhs, node.rhs]
    if isinstance(node, A.Unary):
        return [node.operand]
    if isinstance(node, A.Call):
        return list(node.args)
    return []


def _shape(elem, shape) -> str:
    return f"{settle(elem)}[{', '.join(str(d) for d in shape)}]"


def _at(span) -> str:
    return f"{span.line}:{span.column}"


def _brief(e, room: int = 40) -> str:
    """A short rendering of an operand for a label: `a`, `A[..]`, `a * 2.0`."""
    if isinstance(e, A.Name):
        s = e.id
    elif isinstance(e, A.Index):
        s = f"{_brief(e.base)}[..]"
    elif isinstance(e, A.Call):
        s = f"{e.func}(..)"
    elif isinstance(e, A.Binary):
        s = f"{_brief(e.lhs)} {e.op} {_brief(e.rhs)}"
    elif isinstance(e, A.Unary):
        s = f"{e.op}{_brief(e.operand)}"
    elif isinstance(e, (A.IntLit, A.FloatLit)):
        s = e.text
    elif isinstance(e, A.CtxPath):
        s = "ctx." + ".".join(e.path)
    else:
        s = ".."
    return s if len(s) <= room else s[:room - 3] + "..."


__all__ = ["plan_kernel", "SharedPlan", "StatementPlan", "Allocation", "tile_bytes", "round_up", "tile_key",
           "argument_key", "result_key", "statement_key", "second_key", "ahead_key", "STATIC_LIMIT", "ALIGN", "PRODUCERS", "ELEM_BYTES", "padded_row",
           "FOLD", "ONCE", "FOLD_SLOTS", "ONCE_SLOTS", "plain_shared", "stable_form"]
