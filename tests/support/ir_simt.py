"""A SIMT interpreter for the LLVM module phobos-build emits (stage 1, before optimization), so
the tests can run the lowering's output on numpy arrays without a GPU.

Every thread of a CTA is a Python generator walking the llvmlite IR; at ``bar.sync``, a shuffle
or a vote it yields, and the scheduler resumes it once its whole CTA (barrier) or warp (shuffle,
vote) has arrived. Memory: tensors are numpy arrays viewed as bytes, shared memory one byte array
per CTA (static globals and the dynamic array), ``alloca`` a per-thread cell. Floats round to
their type after every operation; the approximate instructions (ex2, lg2, sqrt, tanh) are exact
here. It checks what it can: an access outside its buffer is an error (a mask that should have
been there), and so is a barrier or shuffle that not every thread reaches.

This checks the lowering's logic (masks, thread mappings, barriers, fusion), not LLVM's NVPTX
code generation or ptxas; those are covered by ptxas itself and by tests/gpu on a GPU.
"""

from __future__ import annotations

import math
import re
import struct
import warnings

import llvmlite.ir as ir
import numpy as np

F32 = struct.Struct("<f")


class SimtError(AssertionError):
    pass


# ---------------------------------------------------------------- values
def _round(t, x):
    s = str(t)
    if s == "float":
        try:
            return F32.unpack(F32.pack(x))[0]
        except OverflowError:
            return math.copysign(math.inf, x)
    if s == "half":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(np.float16(x))
    if s == "bfloat":
        return _bf16(x)
    return float(x)


# (significant bits, exponent of the smallest normal, of the largest) of each float type
_FORMATS = {"bfloat": (8, -126, 127), "half": (11, -14, 15), "float": (24, -126, 127), "double": (53, -1022, 1023)}


def _rne(x, fmt: str) -> float:
    """``x`` (a Python float or int, exactly) rounded once to nearest even in ``fmt``: what
    cvt.rn does (double -> bf16 directly, not through f32, which would round twice)."""
    p, emin, emax = _FORMATS[fmt]
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x) or x == 0.0:
            return x
        _, e = math.frexp(x)                       # |x| in [2^(e-1), 2^e)
    else:
        if x == 0:
            return 0.0
        e = abs(x).bit_length()
    q = max(e - p, emin - p + 1)                   # the weight of the last kept bit
    if isinstance(x, float):
        r = round(math.ldexp(x, -q))               # exact scaling, round half to even
    else:
        a, rem = divmod(abs(x), 1 << q) if q > 0 else (abs(x) << -q, 0)
        half = (1 << q) >> 1 if q > 0 else 0
        if q > 0 and (rem > half or rem == half and a & 1):
            a += 1
        r = a if x > 0 else -a
    if int(abs(r)).bit_length() + q > emax + 1:    # |r| 2^q >= 2^(emax + 1): past the largest finite
        return math.copysign(math.inf, r)
    return math.copysign(math.ldexp(float(abs(r)), q), r if r != 0 else x)


def _bf16(x):
    return _rne(float(x), "bfloat")


def _size(t) -> int:
    if isinstance(t, ir.IntType):
        return max(1, t.width // 8)
    s = str(t)
    if s in ("half", "bfloat"):
        return 2
    if s == "float":
        return 4
    if s == "double":
        return 8
    if isinstance(t, (ir.VectorType, ir.ArrayType)):
        return t.count * _size(t.element)
    if isinstance(t, ir.PointerType):
        return 8
    raise SimtError(f"size of {t}")


def _signed(v, w):
    return v - (1 << w) if v >> (w - 1) & 1 else v


def _decode(t, data: bytes):
    if isinstance(t, ir.IntType):
        v = int.from_bytes(data, "little")
        return v & 1 if t.width == 1 else v
    s = str(t)
    if s == "float":
        return F32.unpack(data)[0]
    if s == "double":
        return struct.unpack("<d", data)[0]
    if s == "half":
        return float(np.frombuffer(data, np.float16)[0])
    if s == "bfloat":
        return F32.unpack(b"\0\0" + data)[0]
    if isinstance(t, ir.VectorType):
        n = _size(t.element)
        return tuple(_decode(t.element, data[i * n:(i + 1) * n]) for i in range(t.count))
    raise SimtError(f"load of {t}")


def _encode(t, v) -> bytes:
    if isinstance(t, ir.IntType):
        return (v & ((1 << max(8, t.width)) - 1)).to_bytes(_size(t), "little")
    s = str(t)
    if s == "float":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.float32(v).tobytes()
    if s == "double":
        return struct.pack("<d", v)
    if s == "half":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.float16(v).tobytes()
    if s == "bfloat":
        return F32.pack(_bf16(v))[2:]
    if isinstance(t, ir.VectorType):
        return b"".join(_encode(t.element, x) for x in v)
    raise SimtError(f"store of {t}")


def _to_bits(t, v) -> int:
    return int.from_bytes(_encode(t, v), "little")


def _from_bits(t, bits: int):
    return _decode(t, bits.to_bytes(_size(t), "little"))


# ---------------------------------------------------------------- memory
class Memory:
    """Byte buffers, with a race check: within one barrier phase of a CTA, a byte written by one
    thread and read or written by another is an error (LANGUAGE §10: without a barrier between
    them the order is undefined). One exception: a read, then a shuffle or vote of the reader's
    warp that the writer takes part in, then the write (a CTA collective of a one-warp CTA reads
    each lane's operand before its shuffles, and a store of the result follows them); the value
    read has gone into the shuffle, so the read is done. Atomics and acquire/release accesses are
    not checked."""

    def __init__(self):
        self.buffers: dict = {}
        self.phase = 0
        self.tid = -1
        self.writes: dict = {}     # (buffer, byte) -> (phase, tid)
        self.reads: dict = {}      # (buffer, byte) -> (phase, tid or -2, warp syncs, warp or -1)
        self.warp_syncs: dict = {}  # warp -> shuffles and votes it has made in this CTA
        self.contested: dict = {}   # (buffer, byte) -> {tid: the byte it wrote last}, this phase

    def add(self, key, data: bytearray):
        self.buffers[key] = data

    def check(self, ptr, n):
        key, off = ptr
        buf = self.buffers.get(key)
        if buf is None:
            raise SimtError(f"access through a pointer to nothing ({key})")
        if off < 0 or off + n > len(buf):
            raise SimtError(f"out-of-bounds access: {n} bytes at offset {off} of `{key}` ({len(buf)} bytes)")
        return buf, off

    def end_phase(self):
        """A barrier (or the end of the CTA): the bytes two threads wrote must hold what each of
        them wrote last."""
        for (key, b), last in self.contested.items():
            if len(set(last.values())) > 1:
                who = sorted(last)[:2]
                raise SimtError(f"race on `{key}` byte {b}: threads {who[0]} and {who[1]} write different values in "
                                f"the same barrier phase")
        self.contested = {}
        self.phase += 1

    def _race(self, key, off, n, writing: bool, buf=None, data=b""):
        phase, tid = self.phase, self.tid
        writes, reads = self.writes, self.reads
        for b in range(off, off + n):
            k = (key, b)
            w = writes.get(k)
            if writing and (w is not None and w[0] == phase and w[1] != tid or k in self.contested):
                # two threads write one byte in one phase: a race only if the values that each
                # thread leaves there last differ (end_phase decides); a per-thread store followed
                # by a store of one value by every thread ends the same whatever the order
                last = self.contested.setdefault(k, {})
                if w is not None and w[0] == phase:
                    for t in (w[1], *(w[2] if len(w) > 2 else ())):
                        last.setdefault(t, buf[b])      # the last writers' byte is the one there
                last[tid] = data[b - off]
            elif w is not None and w[0] == phase and w[1] != tid and not (len(w) > 2 and tid in w[2]):
                raise SimtError(f"race on `{key}` byte {b}: thread {tid} {'writes' if writing else 'reads'} what "
                                f"thread {w[1]} wrote in the same barrier phase")
            if writing:
                r = reads.get(k)
                if r is not None and r[0] == phase and r[1] != tid and not (
                        r[3] == tid // 32 and r[2] < self.warp_syncs.get(tid // 32, 0)):
                    raise SimtError(f"race on `{key}` byte {b}: thread {tid} overwrites what thread "
                                    f"{r[1] if r[1] >= 0 else 'another'} read in the same barrier phase")
                writes[k] = (phase, tid)
            else:
                r = reads.get(k)
                # (phase, the reader or -2 for several, the latest warp sync count among them,
                # their warp or -1 when they span several)
                sync = self.warp_syncs.get(tid // 32, 0)
                if r is None or r[0] != phase or r[1] == tid:
                    reads[k] = (phase, tid, sync, tid // 32)
                else:
                    reads[k] = (phase, -2, max(sync, r[2]), r[3] if r[3] == tid // 32 else -1)

    def load(self, t, ptr, raw: bool = False):
        n = _size(t)
        buf, off = self.check(ptr, n)
        if not raw:
            self._race(ptr[0], off, n, False)
        return _decode(t, bytes(buf[off:off + n]))

    def store(self, t, ptr, v, raw: bool = False):
        self.write_bytes(ptr, _encode(t, v), raw)

    def write_bytes(self, ptr, data: bytes, raw: bool = False):
        n = len(data)
        buf, off = self.check(ptr, n)
        if not raw:
            if buf[off:off + n] != data:
                self._race(ptr[0], off, n, True, buf, data)
            else:
                # rewriting the value already there races with nothing; when another thread wrote
                # it in this phase, this thread joins its writers (its own later reads see what it
                # wrote, whatever the order)
                for b in range(off, off + n):
                    k = (ptr[0], b)
                    w = self.writes.get(k)
                    if w is not None and w[0] == self.phase and w[1] != self.tid:
                        self.writes[k] = (w[0], w[1], (w[2] if len(w) > 2 else frozenset()) | {self.tid})
                    if k in self.contested:
                        self.contested[k][self.tid] = data[b - off]
        buf[off:off + n] = data


_GEP_CONST = re.compile(r"getelementptr inbounds \(i8, ptr addrspace\(\d+\) @\"?([^\",]+)\"?, i64 (-?\d+)\)")
_GLOBAL = re.compile(r"^@\"?([^\"]+)\"?$")


# ---------------------------------------------------------------- the interpreter
def _rounder(t):
    """A fast rounding function for floats of type ``t``."""
    s = str(t)
    if s == "float":
        def f32(x, pack=F32.pack, unpack=F32.unpack):
            try:
                return unpack(pack(x))[0]
            except OverflowError:
                return math.copysign(math.inf, x)
        return f32
    if s == "double":
        return float
    return lambda x: _round(t, x)


class _Nothing:
    vals: dict = {}


_NO_THREAD = _Nothing()


class Thread:
    def __init__(self, cta, tid):
        self.cta = cta
        self.tid = tid
        self.vals: dict = {}
        self.cells: dict = {}
        self.copies_open: list = []     # cp.async since the last commit: (destination, bytes)
        self.copy_groups: list = []     # committed groups not yet waited for, oldest first


class Kernel:
    def __init__(self, module: ir.Module, name: str):
        self.module = module
        self.fn = module.globals[name]

    def launch(self, args: list, grid, block: int, dynamic_shared: int = 0):
        """``args``: one per LLVM parameter: numpy arrays (written in place) for pointers, Python
        numbers for scalars (extents included)."""
        mem = Memory()
        params = {}
        for i, (a, p) in enumerate(zip(args, self.fn.args)):
            if isinstance(p.type, ir.PointerType):
                arr = np.ascontiguousarray(a)
                data = bytearray(arr.tobytes())
                key = f"param{i}:{p.name}"
                mem.add(key, data)
                params[id(p)] = (key, 0)
            elif isinstance(p.type, ir.IntType):
                params[id(p)] = int(a) & ((1 << p.type.width) - 1)
            else:
                params[id(p)] = _round(p.type, float(a))
        grid = tuple(grid) + (1,) * (3 - len(grid))
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    self._cta(mem, params, (x, y, z), grid, block, dynamic_shared)
        for i, (a, p) in enumerate(zip(args, self.fn.args)):
            if isinstance(p.type, ir.PointerType):
                data = mem.buffers[f"param{i}:{p.name}"]
                a[...] = np.frombuffer(bytes(data), dtype=a.dtype).reshape(a.shape)

    # ---------------------------------------------------------------- one CTA
    def _cta(self, mem, params, ctaid, grid, block, dynamic_shared):
        for g in self.module.globals.values():
            if isinstance(g, ir.GlobalVariable) and g.addrspace == 3:
                size = dynamic_shared if g.linkage == "external" else _size(g.value_type)
                fill = bytearray(b"\xa5" * size)            # uninitialized shared memory: noise
                mem.add(g.name, fill)
        mem.end_phase()
        mem.warp_syncs = {}
        cta = {"ctaid": ctaid, "nctaid": grid, "params": params, "mem": mem, "block": block}
        threads = [self._run(Thread(cta, t)) for t in range(block)]
        state = [None] * block               # what each thread waits on: None running, or request
        results = [None] * block
        done = [False] * block
        while not all(done):
            for t in range(block):
                if done[t] or state[t] is not None:
                    continue
                try:
                    mem.tid = t
                    state[t] = threads[t].send(results[t])
                    results[t] = None
                except StopIteration:
                    done[t] = True
            self._sync(state, results, done, block, mem)
        mem.end_phase()

    def _sync(self, state, results, done, block, mem):
        # warps: shuffles and votes resolve when every live lane of the warp waits on one
        progressed = False
        for w in range(0, block, 32):
            lanes = range(w, min(w + 32, block))
            waiting = [state[t] for t in lanes if not done[t]]
            if not waiting or any(s is None for s in waiting):
                continue
            kinds = {s[0] for s in waiting}
            if kinds == {"barrier"}:
                continue
            if len(kinds) != 1 or len(waiting) != 32:
                raise SimtError(f"warp {w // 32}: lanes disagree at a warp operation ({kinds}, "
                                f"{len(waiting)} lanes)")
            kind = waiting[0][0]
            if kind == "shfl":
                vals = {t - w: state[t][2] for t in lanes}
                for t in lanes:
                    _, mode, v, b, c = state[t]
                    lane = t - w
                    b &= 0xFFFFFFFF                       # PTX reads b as an unsigned word
                    if mode == "up":
                        src = lane - b
                        ok = src >= (c & 31)
                    else:
                        src = {"bfly": lane ^ b, "down": lane + b, "idx": b & 31}[mode]
                        ok = src <= (c & 31)
                    results[t] = vals[src] if ok and 0 <= src < 32 else v
                    state[t] = None
            elif kind == "vote":
                preds = [state[t][2] for t in lanes]
                r = any(preds) if waiting[0][1] == "any" else all(preds)
                for t in lanes:
                    results[t] = int(r)
                    state[t] = None
            elif kind in ("mma", "ldmatrix"):
                if len({state[t][1] for t in lanes}) != 1:
                    raise SimtError(f"warp {w // 32}: lanes disagree on the {kind} instruction")
                if kind == "mma":
                    outs = _mma_warp(state[w][1], [state[t][2] for t in lanes])
                else:
                    outs = _ldmatrix_warp(mem, state[w][1], [state[t][2] for t in lanes], w)
                for t in lanes:
                    results[t] = outs[t - w]
                    state[t] = None
            mem.warp_syncs[w // 32] = mem.warp_syncs.get(w // 32, 0) + 1
            progressed = True
        if progressed:
            return
        live = [t for t in range(block) if not done[t]]
        if live and all(state[t] is not None for t in live):
            if all(state[t][0] == "barrier" for t in live):
                if len(live) != block:
                    raise SimtError(f"bar.sync reached by {len(live)} of {block} threads")
                for t in live:
                    state[t] = None
                mem.end_phase()
                return
            raise SimtError(f"deadlock: {[state[t][0] for t in live][:8]}")

    # ---------------------------------------------------------------- one thread
    def _run(self, th: Thread):
        block = self.fn.blocks[0]
        prev = None
        vals = th.vals
        vals.update(th.cta["params"])
        plans = self._plans
        while True:
            plan = plans.get(id(block))
            if plan is None:
                plan = plans[id(block)] = [self._compile(ins) for ins in block.instructions]
            for kind, key, fn in plan:
                if kind == 0:
                    vals[key] = fn(vals, th)
                elif kind == 1:                                  # phi
                    vals[key] = fn[id(prev)](vals, th)
                elif kind == 2:                                  # conditional branch
                    c, t_bb, f_bb = fn
                    prev, block = block, t_bb if c(vals, th) else f_bb
                    break
                elif kind == 3:                                  # branch
                    prev, block = block, fn
                    break
                elif kind == 4:                                  # return
                    if th.copies_open or any(th.copy_groups):
                        raise SimtError(f"thread {th.tid} ends with cp.async copies never waited for")
                    return
                else:                                            # a call, which may wait
                    r = fn(vals, th)
                    if type(r) is tuple and r and r[0] == "yield":
                        r = yield r[1]
                    vals[key] = r
            else:
                raise SimtError(f"block {block.name} has no terminator")

    @property
    def _plans(self):
        if not hasattr(self, "_plan_cache"):
            self._plan_cache = {}
        return self._plan_cache

    def _getter(self, v):
        """A function (vals, th) -> the value of operand ``v``."""
        if isinstance(v, (ir.Constant, ir.FormattedConstant, ir.GlobalVariable)):
            c = self._v(_NO_THREAD, v)
            return lambda vals, th: c
        key = id(v)
        return lambda vals, th: vals[key]

    def _compile(self, ins):
        """(kind, key, fn) of one instruction (see _run); the hot operations get a closure of
        their own, everything else goes through _exec."""
        name = ins.opname
        key = id(ins)
        ops = ins.operands
        if name == "phi":
            return (1, key, {id(bb): self._getter(v) for v, bb in ins.incomings})
        if isinstance(ins, ir.instructions.ConditionalBranch):
            return (2, key, (self._getter(ops[0]), ops[1], ops[2]))
        if name == "br":
            return (3, key, ops[0])
        if name.startswith("ret"):
            return (4, key, None)
        if name == "call":
            return (5, key, lambda vals, th: self._call(th, ins))
        t = ins.type
        if name in _INT_BINARY and isinstance(t, ir.IntType):
            f, w = _INT_BINARY[name], t.width
            mask = (1 << w) - 1
            a, b = self._getter(ops[0]), self._getter(ops[1])
            return (0, key, lambda vals, th: f(a(vals, th), b(vals, th), w) & mask)
        if name in _FLOAT_BINARY and not isinstance(t, ir.VectorType):
            f, r = _FLOAT_BINARY[name], _rounder(t)
            a, b = self._getter(ops[0]), self._getter(ops[1])
            return (0, key, lambda vals, th: r(f(a(vals, th), b(vals, th))))
        if name == "icmp" and isinstance(ops[0].type, ir.IntType):
            w = ops[0].type.width
            signed = ins.op[0] == "s"
            cmp = _CMP[ins.op.lstrip("su") if ins.op not in ("eq", "ne") else ins.op]
            a, b = self._getter(ops[0]), self._getter(ops[1])
            if signed:
                return (0, key, lambda vals, th: int(cmp(_signed(a(vals, th), w), _signed(b(vals, th), w))))
            return (0, key, lambda vals, th: int(cmp(a(vals, th), b(vals, th))))
        if name == "select" and not isinstance(t, ir.VectorType):
            c, a, b = (self._getter(o) for o in ops)
            return (0, key, lambda vals, th: a(vals, th) if c(vals, th) else b(vals, th))
        if name == "getelementptr" and len(ops) == 2:
            p, i = self._getter(ops[0]), self._getter(ops[1])
            size, w = _size(ins.source_etype), ops[1].type.width

            def gep(vals, th):
                k, off = p(vals, th)
                return (k, off + _signed(i(vals, th), w) * size)
            return (0, key, gep)
        if name == "load" and not isinstance(ins, ir.instructions.LoadAtomicInstr):
            p = self._getter(ops[0])

            al = ins.align or 1

            def load(vals, th):
                ptr = p(vals, th)
                if ptr[0] == "alloca":
                    return th.cells.get(ptr, 0)
                if ptr[1] % al:
                    raise SimtError(f"a load claiming {al}-byte alignment at offset {ptr[1]}")
                return th.cta["mem"].load(t, ptr)
            return (0, key, load)
        if name == "store" and not isinstance(ins, ir.instructions.StoreAtomicInstr):
            v, p = self._getter(ops[0]), self._getter(ops[1])
            vt = ops[0].type

            al = ins.align or 1

            def store(vals, th):
                ptr = p(vals, th)
                if ptr[0] == "alloca":
                    th.cells[ptr] = v(vals, th)
                else:
                    if ptr[1] % al:
                        raise SimtError(f"a store claiming {al}-byte alignment at offset {ptr[1]}")
                    th.cta["mem"].store(vt, ptr, v(vals, th))
            return (0, key, store)
        if name in ("zext", "sext", "trunc") and isinstance(t, ir.IntType):
            cast, src = _CASTS[name], ops[0].type
            a = self._getter(ops[0])
            return (0, key, lambda vals, th: cast(a(vals, th), src, t))
        return (0, key, lambda vals, th: self._exec(th, ins, name))

    def _v(self, th, v):
        r = th.vals.get(id(v))
        if r is not None:
            return r
        if isinstance(v, ir.FormattedConstant):
            text = str(v.constant)
            m = _GEP_CONST.search(text)
            if m:
                return (m.group(1), int(m.group(2)))
            m = _GLOBAL.match(text.strip())
            if m:
                return (m.group(1), 0)
            raise SimtError(f"constant {text}")
        if isinstance(v, ir.Constant):
            return self._const(v)
        if isinstance(v, ir.GlobalVariable):
            return (v.name, 0)
        if isinstance(v, ir.Block):
            return v
        raise SimtError(f"no value for {v!r}")

    def _const(self, c: ir.Constant):
        t = c.type
        k = c.constant
        if k is ir.Undefined or k is None:
            if isinstance(t, ir.VectorType):
                return tuple(0 for _ in range(t.count))
            return 0.0 if not isinstance(t, ir.IntType) else 0
        if isinstance(t, ir.VectorType):
            return tuple(self._const(x) if isinstance(x, ir.Constant) else
                         (x if not isinstance(t.element, ir.IntType) else int(x) & ((1 << t.element.width) - 1))
                         for x in k)
        if isinstance(t, ir.IntType):
            return int(k) & ((1 << t.width) - 1)
        return _round(t, float(k))

    def _exec(self, th, ins, name):
        v = lambda x: self._v(th, x)               # noqa: E731
        ops = ins.operands
        t = ins.type
        mem = th.cta["mem"]
        if isinstance(t, ir.VectorType) and name in ("icmp", "fcmp") + tuple(_INT_BINARY) + tuple(_FLOAT_BINARY) \
                + ("fneg",):
            return self._vector(th, ins, name)
        if name in _INT_BINARY:
            w = t.width
            return _INT_BINARY[name](v(ops[0]), v(ops[1]), w) & ((1 << w) - 1)
        if name in _FLOAT_BINARY:
            return _round(t, _FLOAT_BINARY[name](v(ops[0]), v(ops[1])))
        if name == "fneg":
            return -v(ops[0])
        if name == "icmp":
            w = ops[0].type.width
            a, b = v(ops[0]), v(ops[1])
            if ins.op[0] == "s":
                a, b = _signed(a, w), _signed(b, w)
            return int(_CMP[ins.op.lstrip("su") if ins.op not in ("eq", "ne") else ins.op](a, b))
        if name == "fcmp":
            a, b = v(ops[0]), v(ops[1])
            unordered = math.isnan(a) or math.isnan(b)
            if unordered:
                return int(ins.op.startswith("u"))
            return int(_CMP[ins.op[1:]](a, b))
        if name == "select":
            c = v(ops[0])
            if isinstance(c, tuple):
                return tuple(x if k else y for k, x, y in zip(c, v(ops[1]), v(ops[2])))
            return v(ops[1]) if c else v(ops[2])
        if name in _CASTS:
            x = v(ops[0])
            src = ops[0].type
            if isinstance(t, ir.VectorType):
                return tuple(_CASTS[name](xi, src.element, t.element) for xi in x) if name != "bitcast" else \
                    _from_bits(t, _to_bits(src, x))
            return _CASTS[name](x, src, t)
        if name == "alloca":
            key = ("alloca", th.tid, id(ins))
            return key
        if name == "load":
            p = v(ops[0])
            if p[0] == "alloca":
                return th.cells.get(p, 0)
            return mem.load(t, p)
        if name == "store":
            val, p = v(ops[0]), v(ops[1])
            if p[0] == "alloca":
                th.cells[p] = val
            else:
                mem.store(ops[0].type, p, val)
            return None
        if name == "getelementptr":
            key, off = v(ops[0])
            et = ins.source_etype
            idx = ops[1:]
            if len(idx) != 1:
                raise SimtError("multi-index GEP")
            i = v(idx[0])
            w = idx[0].type.width
            return (key, off + _signed(i, w) * _size(et))
        if name == "extractelement":
            return v(ops[0])[v(ops[1])]
        if name == "insertelement":
            vec = list(v(ops[0]))
            vec[v(ops[2])] = v(ops[1])
            return tuple(vec)
        if name == "shufflevector":
            a, b = v(ops[0]), v(ops[1])
            both = tuple(a) + tuple(b)
            mask = ops[2]
            return tuple(both[int(m.constant)] if isinstance(m, ir.Constant) else both[int(m)] for m in mask.constant)
        if name == "fence":
            return None
        if name == "atomicrmw":
            p, x = v(ops[0]), v(ops[1])
            old = mem.load(ops[1].type, p, raw=True)
            w = getattr(ops[1].type, "width", None)
            op = ins.operation
            if op == "add":
                new = (old + x) & ((1 << w) - 1)
            elif op == "fadd":
                new = _round(ops[1].type, old + x)
            elif op in ("max", "min"):
                a, b = _signed(old, w), _signed(x, w)
                new = (max(a, b) if op == "max" else min(a, b)) & ((1 << w) - 1)
            else:
                raise SimtError(f"atomicrmw {op}")
            mem.store(ops[1].type, p, new, raw=True)
            return old
        if name == "cmpxchg":
            p, cmp, new = v(ops[0]), v(ops[1]), v(ops[2])
            old = mem.load(ops[1].type, p, raw=True)
            if old == cmp:
                mem.store(ops[1].type, p, new, raw=True)
            return (old, int(old == cmp))
        if name == "extractvalue":
            return v(ops[0])[ins.indices[0]]
        if name == "load atomic" or isinstance(ins, ir.instructions.LoadAtomicInstr):
            return mem.load(t, v(ops[0]), raw=True)
        if isinstance(ins, ir.instructions.StoreAtomicInstr):
            mem.store(ops[0].type, v(ops[1]), v(ops[0]), raw=True)
            return None
        raise SimtError(f"instruction {name}")

    def _vector(self, th, ins, name):
        """An elementwise operation on vectors, one lane at a time."""
        ops = ins.operands
        xs = [self._v(th, o) for o in ops]
        el_in = ops[0].type.element
        el_out = ins.type.element
        out = []
        for k in range(ins.type.count):
            a = xs[0][k]
            if name == "fneg":
                out.append(-a)
                continue
            b = xs[1][k]
            if name in _INT_BINARY:
                w = el_out.width
                out.append(_INT_BINARY[name](a, b, w) & ((1 << w) - 1))
            elif name in _FLOAT_BINARY:
                out.append(_round(el_out, _FLOAT_BINARY[name](a, b)))
            elif name == "icmp":
                w = el_in.width
                if ins.op[0] == "s":
                    a, b = _signed(a, w), _signed(b, w)
                out.append(int(_CMP[ins.op.lstrip("su") if ins.op not in ("eq", "ne") else ins.op](a, b)))
            else:
                if math.isnan(a) or math.isnan(b):
                    out.append(int(ins.op.startswith("u")))
                else:
                    out.append(int(_CMP[ins.op[1:]](a, b)))
        return tuple(out)

    def _call(self, th, ins):
        callee = ins.callee
        args = [self._v(th, a) for a in ins.args]
        if isinstance(callee, ir.InlineAsm):
            if callee.asm.startswith("mma.sync."):
                return ("yield", ("mma", callee.asm, tuple(args)))
            if "tanh.approx.f32" in callee.asm:
                return _round(ir.FloatType(), math.tanh(args[0]))
            if "%tid.x" in callee.asm:
                return th.tid
            raise SimtError(f"inline asm {callee.asm}")
        name = callee.name
        cta = th.cta
        if name.startswith("llvm.nvvm.read.ptx.sreg."):
            reg = name[len("llvm.nvvm.read.ptx.sreg."):]
            axis = "xyz".index(reg[-1])
            if reg.startswith("tid"):
                return th.tid if axis == 0 else 0
            if reg.startswith("ntid"):
                return cta["block"] if axis == 0 else 1
            if reg.startswith("ctaid"):
                return cta["ctaid"][axis]
            if reg.startswith("nctaid"):
                return cta["nctaid"][axis]
        if name.startswith("llvm.nvvm.cp.async."):
            return _cp_async(th, name, args)
        if name.startswith("llvm.nvvm.ldmatrix."):
            return ("yield", ("ldmatrix", name, args[0]))
        if name == "llvm.nvvm.barrier.cta.sync.aligned.all":
            return ("yield", ("barrier",))
        if name.startswith("llvm.nvvm.shfl.sync."):
            mode = name.split(".")[4]
            _mask, val, b, c = args
            return ("yield", ("shfl", mode, val, _signed(b, 32), c))
        if name.startswith("llvm.nvvm.vote."):
            return ("yield", ("vote", name.split(".")[3], args[1]))
        t = ins.type
        base = name.split(".")[1] if name.startswith("llvm.") else name
        if name == "llvm.nvvm.ex2.approx.f":
            x = args[0]
            if math.isnan(x):                   # ex2.approx of NaN is NaN (not inf: NaN < 1024 is false)
                return x
            return _round(t, 2.0 ** x) if x < 1024 else math.inf
        if name == "llvm.nvvm.lg2.approx.f":
            return _round(t, math.log2(args[0]) if args[0] > 0 else (-math.inf if args[0] == 0 else math.nan))
        if name == "llvm.nvvm.sqrt.approx.f":
            return _round(t, math.sqrt(args[0]) if args[0] >= 0 else math.nan)
        if name.startswith("llvm.nvvm.idp4a."):
            sa, sb = name.split(".")[3:5]
            a, b, c = args
            total = _signed(c, 32)
            for k in range(4):
                x = (a >> (8 * k)) & 0xFF
                y = (b >> (8 * k)) & 0xFF
                total += (_signed(x, 8) if sa == "s" else x) * (_signed(y, 8) if sb == "s" else y)
            return total & 0xFFFFFFFF
        scalar = _MATH.get(base)
        if scalar is not None:
            if isinstance(t, ir.VectorType):
                return tuple(scalar(t.element, *xs) for xs in zip(*args))
            return scalar(t, *args)
        if base in ("fptosi", "fptoui") and ".sat." in name:
            if isinstance(t, ir.VectorType):
                return tuple(_fp_to_int(x, t.element, base == "fptosi") for x in args[0])
            return _fp_to_int(args[0], t, base == "fptosi")
        raise SimtError(f"call of {name}")


# ---------------------------------------------------------------- asynchronous copies
def _cp_async(th, name: str, args: list):
    """cp.async as PTX defines it, per thread: a copy reads its source when issued and writes
    shared memory only when a cp.async.wait_group of the thread covers its group. It may land at
    any moment in between, so the race check counts it as a write of this thread both where it is
    issued and where it lands; a thread that ends with a copy still in flight is an error (its
    bytes may never land)."""
    mem = th.cta["mem"]
    if name == "llvm.nvvm.cp.async.cg.shared.global.16":
        dst, src = args
        buf, off = mem.check(src, 16)
        mem._race(src[0], off, 16, False)
        data = bytes(buf[off:off + 16])
        # the copy may land as soon as it is issued: no other thread may touch its bytes from here
        # (in this barrier phase) as well as where it is waited for
        dbuf, doff = mem.check(dst, 16)
        if dbuf[doff:doff + 16] != data:
            mem._race(dst[0], doff, 16, True, dbuf, data)
        th.copies_open.append((dst, data))
        return None
    if name == "llvm.nvvm.cp.async.commit.group":
        th.copy_groups.append(th.copies_open)
        th.copies_open = []
        return None
    if name == "llvm.nvvm.cp.async.wait.group":
        while len(th.copy_groups) > args[0]:
            for dst, data in th.copy_groups.pop(0):
                mem.write_bytes(dst, data)
        return None
    raise SimtError(f"call of {name}")


# ---------------------------------------------------------------- tensor-core instructions
_MMA = re.compile(r"mma\.sync\.aligned\.m(\d+)n(\d+)k(\d+)\.row\.col\.(\w+)\.(\w+)\.(\w+)\.(\w+)")
_I16 = ir.IntType(16)
_I32 = ir.IntType(32)


def _mma_element(ptx_type: str, bits: int):
    if ptx_type == "f16":
        return float(np.frombuffer(bits.to_bytes(2, "little"), np.float16)[0])
    if ptx_type == "bf16":
        return F32.unpack((bits << 16).to_bytes(4, "little"))[0]
    if ptx_type == "s8":
        return _signed(bits, 8)
    if ptx_type == "u8":
        return bits
    raise SimtError(f"mma element type {ptx_type}")


def _exact_sum(xs: list) -> float:
    """The exactly rounded sum (math.fsum), or what IEEE arithmetic gives where infinities or
    NaNs take part (fsum raises on inf + -inf): NaN for opposite infinities or a NaN, else the
    infinity."""
    if all(math.isfinite(x) for x in xs):
        return math.fsum(xs)
    infs = {x for x in xs if math.isinf(x)}
    if any(math.isnan(x) for x in xs) or len(infs) > 1:
        return math.nan
    return infs.pop()


def _mma_warp(asm: str, lane_args: list) -> list:
    """``mma.sync.aligned.mMnNkK.row.col`` for a whole warp (m16n8 and, for ``s8``/``u8``, m8n8):
    the fragments of every lane put back into A [M, K], B [K, N] and C [M, N] (PTX ISA, "Matrix
    fragments for mma.m16n8k16", "for mma.m8n8k16" and friends), D = A B + C exactly and rounded
    once to f32 (the hardware's order of the additions is its own: results compare with a
    tolerance), or wrapped to 32 bits for s32; each lane gets its elements of D (four; two for
    m8n8: row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1)."""
    found = _MMA.match(asm)
    if found is None:
        raise SimtError(f"inline asm {asm}")
    m, n, k = (int(x) for x in found.groups()[:3])
    dt, at, bt, ct = found.groups()[3:]
    if not ((m, n) == (16, 8) or ((m, n, k) == (8, 8, 16) and at in ("s8", "u8"))) or dt != ct:
        raise SimtError(f"mma shape {asm}")
    es = 1 if at in ("s8", "u8") else 2
    per = 4 // es
    na, nb, nc = m * k * es // 4 // 32, k * n * es // 4 // 32, m * n // 32
    A = [[None] * k for _ in range(m)]
    B = [[None] * n for _ in range(k)]
    C = [[None] * n for _ in range(m)]
    mask = (1 << (8 * es)) - 1
    for lane, args in enumerate(lane_args):
        if len(args) != na + nb + nc:
            raise SimtError(f"{asm}: {len(args)} operands")
        g, t = lane >> 2, lane & 3
        for j in range(na):
            row, col = g + 8 * (j & 1), (j >> 1) * (k // 2) + t * per
            for e in range(per):
                A[row][col + e] = _mma_element(at, (args[j] >> (8 * es * e)) & mask)
        for j in range(nb):
            row = j * (k // 2) + t * per
            for e in range(per):
                B[row + e][g] = _mma_element(bt, (args[na + j] >> (8 * es * e)) & mask)
        for c in range(nc):
            x = args[na + nb + c]
            C[g + 8 * (c >> 1)][2 * t + (c & 1)] = x if dt == "f32" else _signed(x, 32)
    out = []
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        regs = []
        for c in range(nc):
            i, j = g + 8 * (c >> 1), 2 * t + (c & 1)
            if dt == "f32":
                regs.append(_round(ir.FloatType(), _exact_sum([A[i][q] * B[q][j] for q in range(k)] + [C[i][j]])))
            else:
                regs.append((sum(A[i][q] * B[q][j] for q in range(k)) + C[i][j]) & 0xFFFFFFFF)
        out.append(tuple(regs))
    return out


def _ldmatrix_warp(mem, name: str, ptrs: list, w: int) -> list:
    """``ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16`` for a whole warp: lanes 8j .. 8j + 7
    give the row addresses of matrix j (16 bytes each, 16-byte aligned); without .trans lane l
    gets of matrix j the 32 bits at row l / 4, bytes 4 (l % 4) ..; with .trans the 16-bit
    elements at rows 2 (l % 4) and 2 (l % 4) + 1, column l / 4."""
    count = int(re.search(r"\.x(\d)", name).group(1))
    trans = ".trans" in name
    for j in range(8 * count):
        if ptrs[j][1] % 16:
            raise SimtError(f"ldmatrix: lane {j}'s row address is not 16-byte aligned")

    def read(t, owner, extra):
        mem.tid = w + owner
        key, off = ptrs[owner]
        return mem.load(t, (key, off + extra))
    out = []
    for lane in range(32):
        regs = []
        for j in range(count):
            if trans:
                lo = read(_I16, 8 * j + 2 * (lane % 4), 2 * (lane // 4))
                hi = read(_I16, 8 * j + 2 * (lane % 4) + 1, 2 * (lane // 4))
                regs.append(lo | hi << 16)
            else:
                regs.append(read(_I32, 8 * j + lane // 4, 4 * (lane % 4)))
        out.append(tuple(regs) if count > 1 else regs[0])
    return out


def _fp_to_int(x, t, signed):
    w = t.width
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
    if math.isnan(x):
        return 0
    return max(lo, min(hi, int(x) if not math.isinf(x) else (hi if x > 0 else lo))) & ((1 << w) - 1)


def _sdiv(a, b, w):
    a, b = _signed(a, w), _signed(b, w)
    if b == 0:
        raise SimtError("division by zero")
    if b == -1 and a == -(1 << (w - 1)):      # LLVM: immediate undefined behaviour, like / 0
        raise SimtError(f"sdiv/srem overflow: i{w} MIN by -1")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _srem(a, b, w):
    a, b = _signed(a, w), _signed(b, w)
    return a - b * _sdiv(a & ((1 << w) - 1), b & ((1 << w) - 1), w)


def _udiv(a, b, w):
    if b == 0:
        raise SimtError("division by zero")
    return a // b


def _urem(a, b, w):
    if b == 0:
        raise SimtError("division by zero")
    return a % b


_INT_BINARY = {
    "add": lambda a, b, w: a + b, "sub": lambda a, b, w: a - b, "mul": lambda a, b, w: a * b,
    "and": lambda a, b, w: a & b, "or": lambda a, b, w: a | b, "xor": lambda a, b, w: a ^ b,
    "shl": lambda a, b, w: a << b if b < w else 0, "lshr": lambda a, b, w: a >> b if b < w else 0,
    "ashr": lambda a, b, w: _signed(a, w) >> min(b, w - 1),
    "udiv": _udiv, "urem": _urem, "sdiv": _sdiv, "srem": _srem,
}


def _fdiv(a, b):
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


_FLOAT_BINARY = {"fadd": lambda a, b: a + b, "fsub": lambda a, b: a - b, "fmul": lambda a, b: a * b,
                 "fdiv": _fdiv}
_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
        "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}


def _int_to_float(n: int, t):
    """An integer converted with one rounding (cvt.rn.f32.s64 and friends; float(n) would round
    to double first)."""
    return _rne(n, str(t))


def _sitofp(x, s, t):
    return _int_to_float(_signed(x, s.width), t)


_CASTS = {
    "zext": lambda x, s, t: x,
    "sext": lambda x, s, t: _signed(x, s.width) & ((1 << t.width) - 1),
    "trunc": lambda x, s, t: x & ((1 << t.width) - 1) if t.width > 1 else x & 1,
    "fpext": lambda x, s, t: x,
    "fptrunc": lambda x, s, t: _round(t, x),
    "sitofp": _sitofp,
    "uitofp": lambda x, s, t: _int_to_float(x, t),
    "fptosi": lambda x, s, t: _fp_to_int(x, t, True),
    "fptoui": lambda x, s, t: _fp_to_int(x, t, False),
    "bitcast": lambda x, s, t: _from_bits(t, _to_bits(s, x)),
}


def _fmax(t, a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return max(a, b)


def _fmin(t, a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return min(a, b)


def _roundeven(t, x):
    if math.isinf(x) or math.isnan(x):
        return x
    return math.copysign(float(round(x)), x)    # -0.25 rounds to -0.0, as cvt.rni does (round() gives int 0)


def _floor(t, x):
    if math.isinf(x) or math.isnan(x):
        return x
    return math.copysign(float(math.floor(x)), x) if x == 0 else float(math.floor(x))   # floor(-0.0) is -0.0


_MATH = {
    "roundeven": _roundeven, "fabs": lambda t, x: abs(x),
    "floor": _floor, "minnum": _fmin, "maxnum": _fmax,
    "sqrt": lambda t, x: _round(t, math.sqrt(x)) if x >= 0 else math.nan,
    "abs": lambda t, x, _p: abs(_signed(x, t.width)) & ((1 << t.width) - 1),
    "smin": lambda t, a, b: min(_signed(a, t.width), _signed(b, t.width)) & ((1 << t.width) - 1),
    "smax": lambda t, a, b: max(_signed(a, t.width), _signed(b, t.width)) & ((1 << t.width) - 1),
    "umin": lambda t, a, b: min(a, b),
    "ctpop": lambda t, x: bin(x).count("1"),
}


# ---------------------------------------------------------------- from source to a run
def build(source: str, kernel: str | None = None, defines=None, arch: str = "sm_90"):
    """(llvmlite module, manifest-like info) of one kernel of ``source``."""
    from phobos_tools.analyzer.checked import check_source
    from phobos_tools.lowering.pipeline import build_module

    checked = check_source(source, "t.ph", defines, arch=arch)
    assert checked.ok, [(d.code, d.span.line, d.message) for d in checked.diagnostics]
    for kinfo in checked.kernels:
        if kernel is None or kinfo.name == kernel:
            module = build_module(kinfo, arch, "t.ph", line_info=False)
            return module, kinfo
    raise KeyError(kernel)


def run(source: str, arrays: dict, grid, kernel: str | None = None, defines=None, scalars=None,
        arch: str = "sm_90"):
    """Build ``source`` for ``arch`` and run it on ``arrays`` (numpy, by parameter name; modified
    in place), with runtime extents taken from the arrays' shapes as the runtime does."""
    module, kinfo = build(source, kernel, defines, arch)
    from phobos_tools.language.types import Tensor
    args = []
    extents = {}
    for b in kinfo.params:
        if isinstance(b.type, Tensor):
            a = arrays[b.name]
            for d, n in zip(b.type.shape, a.shape):
                if isinstance(d, str):
                    extents.setdefault(d, n)
            args.append(a)
        else:
            args.append((scalars or {})[b.name])
    args += [extents[x] for x in kinfo.extents]
    Kernel(module, kinfo.kernel.name).launch(args, grid, kinfo.threads, getattr(module, "phobos_dynamic_shared_bytes", 0))
    return arrays
