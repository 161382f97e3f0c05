"""Hypothesis strategies for valid Phobos kernels (type-correct; the per-thread rules may or
may not hold), shared by the oracle and property tests and by benchmarks/fuzz.py.

A generated kernel draws its statements from the whole per-thread surface: scalar `let`/`var`
fed by every `ctx` path, loads at uniform and varying addresses, nested `if`/`for`/`while`,
`break`/`continue`/`return` under conditions of each kind, per-thread stores to a shared tile,
barriers, tile copies and sweeps, lane and CTA collectives, shuffles, an atomic and an inlined
function.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

HEADER = """fn clamp3(x: i32) -> i32 {
  if x > 3 {
    return 3
  }
  return x
}

@launch(128)
kernel gen(A: tensor<f32>[M, N], O: tensor<f32>[M, N], C: tensor<i32>[M]) {
  var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  var v0 = 0
  var v1 = 0
  var v2 = 0
"""

SOURCES = ["ctx.thread", "ctx.lane", "ctx.warp", "ctx.block.x", "M", "7", "v0", "v1", "v2"]


@st.composite
def int_expr(draw, depth=0, lets=()):
    names = SOURCES + list(lets)
    choice = draw(st.integers(0, 9 if depth < 2 else 3))
    if choice <= 3:
        return draw(st.sampled_from(names))
    if choice == 4:
        return f"C[{draw(int_expr(depth + 1, lets))} % M]"
    if choice == 5:
        op = draw(st.sampled_from(["+", "-", "*", "&", "%"]))
        rhs = draw(st.sampled_from(["3", "5", "ctx.warps"])) if op == "%" else draw(int_expr(depth + 1, lets))
        return f"({draw(int_expr(depth + 1, lets))} {op} {rhs})"
    if choice == 6:
        return f"{draw(st.sampled_from(['sum', 'max', 'min']))}<over ctx.lane>({draw(int_expr(depth + 1, lets))})"
    if choice == 7:
        return f"sum<over ctx.thread>({draw(int_expr(depth + 1, lets))})"
    if choice == 8:
        return f"shfl<{draw(st.sampled_from(['xor 1', 'down 2', 'idx 0']))}>({draw(int_expr(depth + 1, lets))})"
    return f"clamp3({draw(int_expr(depth + 1, lets))})"


@st.composite
def cond_expr(draw, lets=()):
    lhs = draw(int_expr(1, lets))
    rhs = draw(int_expr(1, lets))
    op = draw(st.sampled_from(["<", "==", "!=", ">="]))
    c = f"{lhs} {op} {rhs}"
    if draw(st.booleans()) and draw(st.booleans()):
        c = f"{c} && {draw(int_expr(2, lets))} > 0"
    return c


class _Ctx:
    def __init__(self):
        self.n = 0

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"


@st.composite
def block(draw, ctx, depth, in_loop, lets, indent):
    out = []
    lets = list(lets)
    pad = "  " * indent
    for _ in range(draw(st.integers(1, 4 if depth < 2 else 2))):
        kind = draw(st.integers(0, 14 if depth < 3 else 8))
        if kind == 0:
            name = ctx.fresh("l")
            out.append(f"{pad}let {name} = {draw(int_expr(0, lets))}")
            lets.append(name)
        elif kind == 1:
            out.append(f"{pad}{draw(st.sampled_from(['v0', 'v1', 'v2']))} = {draw(int_expr(0, lets))}")
        elif kind == 2:
            out.append(f"{pad}v{draw(st.integers(0, 2))} += {draw(int_expr(1, lets))}")
        elif kind == 3:
            out.append(f"{pad}t[{draw(int_expr(1, lets))} % 4, {draw(int_expr(1, lets))} % 32] = "
                       f"f32({draw(int_expr(1, lets))})")
        elif kind == 4:
            out.append(f"{pad}barrier()")
        elif kind == 5:
            out.append(f"{pad}O[0 :+ 4, 0 :+ 32] = t")
        elif kind == 6:
            out.append(f"{pad}t = t * 0.5 + 1.0")
        elif kind == 7:
            out.append(f"{pad}atomic_add(C[0], 1)")
        elif kind == 8 and in_loop:
            word = draw(st.sampled_from(["break", "continue"]))
            out.append(f"{pad}if {draw(cond_expr(lets))} {{")
            out.append(f"{pad}  {word}")
            out.append(f"{pad}}}")
        elif kind == 9:
            out.append(f"{pad}if {draw(cond_expr(lets))} {{")
            out.append(f"{pad}  return")
            out.append(f"{pad}}}")
        elif kind in (10, 11):
            out.append(f"{pad}if {draw(cond_expr(lets))} {{")
            out += draw(block(ctx, depth + 1, in_loop, lets, indent + 1))
            if draw(st.booleans()):
                out.append(f"{pad}}} else {{")
                out += draw(block(ctx, depth + 1, in_loop, lets, indent + 1))
            out.append(f"{pad}}}")
        elif kind == 12:
            var = ctx.fresh("k")
            lo = draw(st.sampled_from(["0", "ctx.lane", "ctx.warp", "v0"]))
            hi = draw(st.sampled_from(["4", "M", "v1 + 2"]))
            out.append(f"{pad}for {var} in range({lo}, {hi}) {{")
            out += draw(block(ctx, depth + 1, True, lets + [var], indent + 1))
            out.append(f"{pad}}}")
        elif kind == 13:
            w = ctx.fresh("w")
            out.append(f"{pad}var {w} = 0")
            out.append(f"{pad}while {w} < {draw(st.sampled_from(['3', 'v2', 'ctx.lane']))} {{")
            out += draw(block(ctx, depth + 1, True, lets, indent + 1))
            out.append(f"{pad}  {w} += 1")
            out.append(f"{pad}}}")
        else:
            out.append(f"{pad}v{draw(st.integers(0, 2))} = clamp3({draw(int_expr(1, lets))})")
    return out


@st.composite
def kernels(draw):
    """Source text of one generated kernel (with an inlined helper function)."""
    ctx = _Ctx()
    body = draw(block(ctx, 0, False, [], 1))
    return HEADER + "\n".join(body) + "\n}\n"


# =====================================================================================================
# The grammar-wide generator (issue 8): valid kernels over the whole language, and a race-free,
# terminating variant for the soundness runs against the simulator.
#
# The generator is written against a small "chooser" (``int``, ``pick``, ``chance``) so that the
# same code serves hypothesis (``programs()``: a strategy that shrinks) and the long runs of
# benchmarks/fuzz.py (``generate(random.Random(seed))``: fast, reproducible from a seed).
#
# It tracks, for every value it writes, the kind the spec gives it (uniform < warp-uniform <
# varying), and the control kind of every statement (enclosing conditions and bounds, raised by
# early exits: each loop decides up front how varying its `break`/`continue`/`return`s may be,
# and a `return` raises the rest of the kernel). With that it mostly *obeys* the per-thread rules
# (CTA-wide operations under uniform control with uniform operands, lane-level operations under
# control the same across a warp), and with a small probability deliberately breaks one, so the
# analysis sees both sides of every rule.
#
# Race-free (``race_free=True``, LANGUAGE §9.8): threads store per thread only into their own
# elements (`s[0, ctx.thread]`, the view `sv`, `O[cid, 4 * ctx.thread + j]`, the run
# `O[cid, 4 * ctx.thread :+ 4]`, the helper `put(s, ctx.thread, v)`); they read per thread only
# their own elements, elements nothing stores per thread (`A`, `C`, `B`, `u`, `sq`: written only
# CTA-wide or by a store uniform in value, index and control), or a neighbour's element of `s`
# between two `barrier()`s. Every loop is bounded (for: at most a few iterations; while: a fresh
# counter raised at the top of the body). Indices are masked into bounds (extents R, N are powers
# of two, N >= 4 * BLK; O has one row per CTA, G = the number of CTAs), integer division is by an
# odd (so non-zero) divisor. Whatever the simulator reports on such a kernel other than what the
# analysis rejected is then a bug in one of the two (or in this generator, which the harness
# counts separately).
# =====================================================================================================

import random as _random
from dataclasses import dataclass as _dataclass
from dataclasses import field as _field

U, W, V = 0, 1, 2
KIND_NAMES = ("uniform", "warp-uniform", "varying")
BLOCK_SIZES = (32, 64, 128, 256)


class RandomChooser:
    """Choices from a ``random.Random`` (benchmarks/fuzz.py)."""

    def __init__(self, rng: _random.Random):
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p


class DrawChooser:
    """Choices through hypothesis' ``draw`` (shrinks toward the first option and toward `False`)."""

    def __init__(self, draw):
        self.draw = draw

    def int(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def pick(self, seq):
        return seq[self.draw(st.integers(0, len(seq) - 1))]

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 999)) >= 1000 - int(p * 1000)


GEN_FUNCTIONS = """\
fn clamp3(x: i32) -> i32 {
  if x > 3 {
    return 3
  }
  return x
}

fn mix(a: i32, b: i32) -> i32 {
  return (a * 31) ^ (b >> 2)
}

fn firstbit(x: i32) -> i32 {
  var i = 0
  while i < 8 {
    i += 1
    if (x >> i) & 1 != 0 {
      return i
    }
  }
  return 8
}

fn get(X: tensor<f32>[RR, QQ], i: i32, j: i32) -> f32 {
  return X[i & (RR - 1), j & (QQ - 1)]
}

fn lanesum(x: f32) -> f32 {
  return sum<over ctx.lane>(x)
}

fn ctamax(x: i32) -> i32 {
  return max<over ctx.thread>(x)
}

fn early(x: i32) -> i32 {
  if ctx.lane < 7 {
    return x
  }
  return sum<over ctx.lane>(x)
}

fn sync2() {
  barrier()
  barrier()
}

fn put(t: tile<f32>[1, L], i: i32, v: f32) {
  t[0, i] = v
}

fn rowtotal(t: tile<f32>[4, 32]) -> f32 {
  let z = rowsum(t)
  return z[0, 0]
}

// called in every kernel: an uncalled function with a generic tile shape is refused (PH107)
fn stotal(t: tile<f32>[1, L]) -> f32 {
  let z = rowsum(t)
  return z[0, 0]
}

fn putg(X: tensor<f32>[RR, QQ], i: i32, j: i32, v: f32) {
  X[i, j] = v
}
"""

GEN_PARAMS = ("A: tensor<f32>[R, N], C: tensor<i32>[N], B: tensor<i8>[N], O: tensor<f32>[G, N], "
              "F: tensor<i32>[8], k: i32, alpha: f32, flag: bool")

GEN_PROLOGUE = """\
  let cid = ctx.block.x + ctx.blocks.x * (ctx.block.y + ctx.blocks.y * ctx.block.z)
  var s: tile<f32>[1, BLK] = 0.0
  let sv = s[0 :+ 1, :]
  let ov = O[cid :+ 1, 0 :+ 4 * BLK]
  let st0 = stotal(s)
  var u: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  var sq: tile<f32>[8, 8] = 1.0
"""


@_dataclass
class GenVar:
    name: str
    ty: str            # i32 f32 bool run
    kind: int
    mutable: bool = False
    tainted: bool = False   # may be assigned values more varying than ``kind`` (a rule broken on purpose)
    loop: bool = False      # a `for` variable


@_dataclass
class _Loop:
    exit_kind: int     # how varying its break / continue / return (and so its whole body) may be


@_dataclass
class GenKernel:
    """One generated kernel: its source, the block sizes it declares and what the generator knows."""

    source: str
    blocks: tuple
    race_free: bool
    violations: int = 0            # rules the generator broke on purpose (0: it meant to be accepted)
    notes: list = _field(default_factory=list)


I32_UNIFORM = ["k", "N", "R", "cid", "ctx.block.x", "ctx.block.y", "ctx.block.z", "ctx.blocks.x",
               "ctx.blocks.y", "ctx.threads", "ctx.warps", "ctx.lanes"]
F32_LITERALS = ["0.5", "1.0", "2.0", "-3.25", "0.0", "1.0e-3", "2.5e4", "1e30", "-0.0", "3.0"]
I32_LITERALS = ["0", "1", "2", "3", "5", "7", "9", "31", "-1", "-7"]
I32_HUGE = ["2147483647", "-2147483648", "0x7fffffff", "0x10000", "-0x1F"]


# the names a kernel of KernelGen reads each buffer through (views included)
_NAMES_OF = {"u": ("u",), "sq": ("sq",), "s": ("s", "sv"), "O": ("O", "ov")}


class KernelGen:
    """Writes one kernel. ``race_free`` selects the soundness variant; ``violate`` is the chance
    of breaking a per-thread rule at each place where one could be broken."""

    def __init__(self, ch, race_free: bool = True, violate: float = 0.04, max_depth: int = 3,
                 max_block: int = 5, blocks: tuple | None = None):
        self.ch = ch
        self.race_free = race_free
        self.p_violate = violate
        self.max_depth = max_depth
        self.max_block = max_block
        self.blocks = blocks
        self.n = 0
        self.scopes: list[dict] = []
        self.loops: list[_Loop] = []
        self.floor = U             # raised by a `return`: the control of everything after it
        self.exact = True          # the control kinds above are exact (no control rule broken yet)
        self.dirty: set = set()    # buffers with per-thread stores since the last barrier (some path)
        self.taint = False         # the expression just written reads a tainted var
        self.no_taint = False      # write no tainted var (the operands of a uniform store)
        self.stored: set = set()   # buffers with per-thread stores anywhere so far
        self.ustored: set = set()  # buffers with uniform stores since the last barrier (some path)
        self.ustored_any: set = set()   # ... anywhere so far (for loops: the back edge)
        self.violations = 0
        self.lines: list[str] = []
        self.indent = 1

    # ------------------------------------------------------------------ helpers
    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def violating(self) -> bool:
        if self.p_violate and self.ch.chance(self.p_violate):
            self.violations += 1
            return True
        return False

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def bind(self, var: GenVar) -> None:
        self.scopes[-1][var.name] = var

    def visible(self, ty: str, maxk: int = V, mutable: bool = False) -> list[GenVar]:
        seen: dict[str, GenVar] = {}
        for scope in self.scopes:
            seen.update(scope)
        return [v for v in seen.values() if v.ty == ty and v.kind <= maxk and (v.mutable or not mutable)
                and not (v.tainted and self.no_taint)]

    def use(self, v: GenVar) -> GenVar:
        self.taint |= v.tainted
        return v

    def ctl_of(self, ctl: int) -> int:
        return max(ctl, self.floor)

    # ------------------------------------------------------------------ expressions
    def expr(self, ty: str, maxk: int, ctl: int, d: int = 2) -> tuple[str, int]:
        """An expression of type ``ty`` whose kind is at most ``maxk``, evaluated under ``ctl``."""
        return {"i32": self.i32, "f32": self.f32, "bool": self.boolean}[ty](maxk, ctl, d)

    def exactly(self, ty: str, kind: int, ctl: int) -> tuple[str, int]:
        """An expression of exactly this kind (a condition of each kind, a var's start)."""
        seed = {
            U: ["k", "cid", "ctx.block.x", "N", "R", "ctx.warps"],
            W: ["ctx.warp", "(ctx.warp + 1)", "(ctx.warp * 3)"],
            V: ["ctx.lane", "ctx.thread", "(ctx.thread & 5)", "C[ctx.thread & (N - 1)]"],
        }[kind]
        if kind == W and ctl <= W and self.ch.chance(0.3):
            x, _ = self.i32(V, ctl, 1)
            seed = [f"{self.ch.pick(['sum', 'max', 'min'])}<over ctx.lane>({x})"]
        if kind == U and ctl == U and self.ch.chance(0.2):
            x, _ = self.i32(V, ctl, 1)
            seed = [f"{self.ch.pick(['sum', 'max', 'min'])}<over ctx.thread>({x})"]
        a = self.ch.pick(seed)
        if ty == "i32":
            if self.ch.chance(0.5):
                b, _ = self.i32(kind, ctl, 1)
                return f"({a} {self.ch.pick(['+', '-', '^', '&'])} {b})", kind
            return a, kind
        if ty == "f32":
            b, _ = self.f32(kind, ctl, 1)
            return f"(f32({a}) * {b})", kind
        b, _ = self.i32(kind, ctl, 1)
        return f"({a} {self.ch.pick(['<', '<=', '==', '!=', '>', '>='])} {b})", kind

    def i32(self, maxk: int, ctl: int, d: int) -> tuple[str, int]:
        ch = self.ch
        if d <= 0 or ch.chance(0.35):
            return self.i32_leaf(maxk)
        r = ch.int(0, 17)
        if r <= 3:
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            return f"({a} {ch.pick(['+', '-', '*', '&', '|', '^'])} {b})", max(ka, kb)
        if r == 4:
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            op = ch.pick(["<<", ">>", "/", "%"])
            rhs = f"({b} & 7)" if op in ("<<", ">>") else f"({b} | 1)"
            return f"({a} {op} {rhs})", max(ka, kb)
        if r == 5:
            a, ka = self.i32(maxk, ctl, d - 1)
            f = ch.pick(["-", "~", "abs", "popcount", "clamp3", "firstbit"])
            return (f"({f}{a})" if f in ("-", "~") else f"{f}({a})"), ka
        if r == 6:
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            return f"{ch.pick(['min', 'max', 'mix'])}({a}, {b})", max(ka, kb)
        if r == 7:
            a, ka = self.i32(maxk, ctl, d - 1)
            return f"C[{a} & (N - 1)]", ka
        if r == 8:
            a, ka = self.f32(maxk, ctl, d - 1)
            return f"i32({a})", ka
        if r == 9:
            a, ka = self.i32(maxk, ctl, d - 1)
            conv = ch.pick(["i32(u8({}))", "i32(i8({}))", "i32(i64({}) * 3 >> 1)", "i32(f16({}))"])
            return conv.format(a), ka
        if r == 10:
            c, kc = self.boolean(maxk, ctl, d - 1)
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            return f"where({c}, {a}, {b})", max(ka, kb, kc)
        if r == 11 and maxk >= W and (ctl <= W or self.violating()):
            a, _ = self.i32(V, ctl, d - 1)
            return f"{ch.pick(['sum', 'max', 'min'])}<over ctx.lane>({a})", W
        if r == 12 and (ctl == U or self.violating()):
            a, _ = self.i32(V, ctl, d - 1)
            if ch.chance(0.2):
                return f"ctamax({a})", U
            return f"{ch.pick(['sum', 'max', 'min'])}<over ctx.thread>({a})", U
        if r == 13 and (ctl <= W or self.violating()):
            a, ka = self.i32(maxk, ctl, d - 1)
            mode = ch.pick(["xor", "up", "down", "idx"])
            e, ke = self.i32(maxk, ctl, 0) if ch.chance(0.3) else (ch.pick(["1", "2", "16", "31", "0"]), U)
            if not e.startswith("(") and not e.lstrip("-").isdigit():
                e = f"({e})"
            return f"shfl<{mode} {e}>({a})", max(ka, ke)
        if r == 14 and (ctl == U or self.violating()):
            i, _ = self.i32(U, ctl, 0)
            x, _ = self.i32(U, ctl, 0)
            f = ch.pick(["atomic_add", "atomic_max", "atomic_min", "atomic_cas", "load_acquire"])
            if f == "load_acquire":
                return f"load_acquire(F[{i} & 7])", U
            if f == "atomic_cas":
                y, _ = self.i32(U, ctl, 0)
                return f"atomic_cas(F[{i} & 7], {x}, {y})", U
            return f"{f}(F[{i} & 7], {x})", U
        if r == 15:
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            return f"sum(B[({a} & (N - 4)) :+ 4] * B[({b} & (N - 4)) :+ 4])", max(ka, kb)
        if r == 16 and maxk >= W and (ctl == V or ch.chance(0.2)) and self.violating():
            a, _ = self.i32(V, ctl, d - 1)
            return f"early({a})", V
        return self.i32_leaf(maxk)

    def i32_leaf(self, maxk: int) -> tuple[str, int]:
        ch = self.ch
        vars_ = self.visible("i32", maxk)
        r = ch.int(0, 9)
        if r <= 2 and vars_:
            v = self.use(ch.pick(vars_))
            return v.name, v.kind
        if r == 3:
            return ch.pick(I32_HUGE if ch.chance(0.1) else I32_LITERALS), U
        if r == 4 and maxk >= V:
            return ch.pick(["ctx.thread", "ctx.lane"]), V
        if r == 5 and maxk >= W:
            return "ctx.warp", W
        return ch.pick(I32_UNIFORM), U

    def f32(self, maxk: int, ctl: int, d: int) -> tuple[str, int]:
        ch = self.ch
        if d <= 0 or ch.chance(0.35):
            return self.f32_leaf(maxk)
        r = ch.int(0, 15)
        if r <= 2:
            a, ka = self.f32(maxk, ctl, d - 1)
            b, kb = self.f32(maxk, ctl, d - 1)
            return f"({a} {ch.pick(['+', '-', '*', '/'])} {b})", max(ka, kb)
        if r == 3:
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            return f"A[{a} & (R - 1), {b} & (N - 1)]", max(ka, kb)
        if r == 4:
            a, ka = self.i32(maxk, ctl, d - 1)
            return f"f32({a})", ka
        if r == 5:
            a, ka = self.f32(maxk, ctl, d - 1)
            f = ch.pick(["exp", "log", "sqrt", "tanh", "round", "abs"])
            return f"{f}({a})", ka
        if r == 6:
            a, ka = self.f32(maxk, ctl, d - 1)
            b, kb = self.f32(maxk, ctl, d - 1)
            f = ch.pick(["min({}, {})", "max({}, {})", "pow(abs({}), {})"])
            return f.format(a, b), max(ka, kb)
        if r == 7:
            a, ka = self.f32(maxk, ctl, d - 1)
            return ch.pick(["f32(f16({}))", "f32(bf16({}))", "f32(f64({}) * 0.5)"]).format(a), ka
        if r == 8:
            c, kc = self.boolean(maxk, ctl, d - 1)
            a, ka = self.f32(maxk, ctl, d - 1)
            b, kb = self.f32(maxk, ctl, d - 1)
            return f"where({c}, {a}, {b})", max(ka, kb, kc)
        if r == 9 and maxk >= W and (ctl <= W or self.violating()):
            a, _ = self.f32(V, ctl, d - 1)
            if ch.chance(0.25):
                return f"lanesum({a})", W
            return f"{ch.pick(['sum', 'max', 'min'])}<over ctx.lane>({a})", W
        if r == 10 and (ctl == U or self.violating()):
            a, _ = self.f32(V, ctl, d - 1)
            return f"{ch.pick(['sum', 'max', 'min'])}<over ctx.thread>({a})", U
        if r == 11 and (ctl <= W or self.violating()):
            a, ka = self.f32(maxk, ctl, d - 1)
            mode = ch.pick(["xor", "up", "down", "idx"])
            e, ke = self.i32(maxk, ctl, 0)
            if not e.lstrip("-").isdigit():
                e = f"({e})"
            return f"shfl<{mode} {e}>({a})", max(ka, ke)
        if r == 12:
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            x, kx = self.f32(maxk, ctl, 0)
            return f"sum(A[{a} & (R - 1), ({b} & (N - 4)) :+ 4] * {x})", max(ka, kb, kx)
        if r == 13:
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            return f"get(A, {a}, {b})", max(ka, kb)
        if r == 14:
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            t = ch.pick([("u", 3, 31), ("sq", 7, 7)])
            return f"{t[0]}[{a} & {t[1]}, {b} & {t[2]}]", max(ka, kb)
        if r == 15 and (ctl == U or self.violating()):
            return "rowtotal(u)", U
        return self.f32_leaf(maxk)

    def f32_leaf(self, maxk: int) -> tuple[str, int]:
        ch = self.ch
        vars_ = self.visible("f32", maxk)
        runs = self.visible("run", maxk)
        r = ch.int(0, 9)
        if r <= 2 and vars_:
            v = self.use(ch.pick(vars_))
            return v.name, v.kind
        if r == 3 and runs:
            v = self.use(ch.pick(runs))
            return f"{v.name}[{ch.int(0, 3)}]", v.kind
        if r == 4 and maxk >= V:
            return ch.pick(["s[0, ctx.thread]", "sv[0, ctx.thread]",
                            f"O[cid, ctx.thread * 4 + {ch.int(0, 3)}]"]), V
        if r == 5:
            return "alpha", U
        return ch.pick(F32_LITERALS), U

    def boolean(self, maxk: int, ctl: int, d: int) -> tuple[str, int]:
        ch = self.ch
        r = ch.int(0, 9)
        if d <= 0 or r <= 4:
            ty = ch.pick(["i32", "i32", "f32"])
            a, ka = self.expr(ty, maxk, ctl, max(d - 1, 0))
            b, kb = self.expr(ty, maxk, ctl, max(d - 1, 0))
            return f"({a} {ch.pick(['<', '<=', '==', '!=', '>', '>='])} {b})", max(ka, kb)
        if r == 5:
            vars_ = self.visible("bool", maxk)
            if vars_:
                v = self.use(ch.pick(vars_))
                return v.name, v.kind
            return ch.pick(["flag", "true", "false"]), U
        if r == 6:
            a, ka = self.boolean(maxk, ctl, d - 1)
            return f"(!{a})", ka
        if r == 7:
            a, ka = self.boolean(maxk, ctl, d - 1)
            # the right side runs only where the left side lets it (short-circuit)
            b, kb = self.boolean(maxk, max(ctl, ka), d - 1)
            return f"({a} {ch.pick(['&&', '||'])} {b})", max(ka, kb)
        if r == 8 and maxk >= W and (ctl <= W or self.violating()):
            a, _ = self.boolean(V, ctl, d - 1)
            return f"{ch.pick(['any', 'all'])}<over ctx.lane>({a})", W
        if r == 9 and (ctl == U or self.violating()):
            a, _ = self.boolean(V, ctl, d - 1)
            return f"{ch.pick(['any', 'all'])}<over ctx.thread>({a})", U
        return ch.pick(["flag", "true", "false"]), U

    def cond(self, ctl: int, kind: int | None = None) -> tuple[str, int]:
        """A condition of a chosen kind (uniform, warp-uniform or varying)."""
        self.taint = False
        c, k = self._cond(ctl, kind)
        if self.taint:
            self.exact = False      # the control below may be more varying than the generator thinks
        return c, k

    def _cond(self, ctl: int, kind: int | None) -> tuple[str, int]:
        ch = self.ch
        if kind is None:
            kind = ch.pick([U, U, W, V, V])
        loopvars = [v for v in self.visible("i32", kind) if v.loop]
        if loopvars and ch.chance(0.35):
            # a guard on the loop variable: what z3 reasons about on back-edge paths (LANGUAGE §9.6)
            v = self.use(ch.pick(loopvars))
            n = ch.int(0, 3)
            return ch.pick([f"{v.name} == {n}", f"{v.name} > {n}", f"{v.name} < {n}", f"({v.name} & 1) == 0",
                            f"{v.name} != {n}", f"{v.name} >= {n}"]), v.kind
        if ch.chance(0.3):
            return self.boolean(kind, ctl, 2)
        c, k = self.exactly("bool", kind, ctl)
        if ch.chance(0.25):
            # short-circuit: the second operand runs only where the first allows
            c2, k2 = self.boolean(kind, max(ctl, k), 1)
            c, k = f"{c} {ch.pick(['&&', '||'])} {c2}", max(k, k2)
        return c, k

    # ------------------------------------------------------------------ statements
    def block(self, ctl: int, depth: int) -> None:
        self.scopes.append({})
        n = self.ch.int(3, self.max_block + 4) if depth == 0 else self.ch.int(1, self.max_block if depth < 2 else 3)
        for _ in range(n):
            self.statement(ctl, depth)
        self.scopes.pop()

    def statement(self, ctl: int, depth: int) -> None:
        ch = self.ch
        c = self.ctl_of(ctl)
        nested = depth < self.max_depth
        if c == U and ch.chance(0.2):
            # uniform control is where the CTA-wide operations may run: more of them there
            return self.tile_op(c) if ch.chance(0.75) else self.atomic_stmt(c)
        r = ch.int(0, 27 if nested else 21)
        if r <= 2:
            self.let_or_var(c)
        elif r <= 4:
            self.assign(c)
        elif r == 5:
            self.thread_store(c)
        elif r == 6:
            self.uniform_store(c)
        elif r == 7:
            if c == U or self.violating():
                self.emit(ch.pick(["barrier()", "barrier()", "sync2()"]))
                if c == U:
                    self.dirty, self.ustored = set(), set()
        elif r <= 10:
            self.tile_op(c)
        elif r == 11:
            self.atomic_stmt(c)
        elif r == 12:
            self.neighbour_read(c)
        elif r == 13:
            self.run_stmt(c)
        elif r <= 15:
            self.early_exit(c)
        elif r == 16:
            self.compound(c)
        elif r <= 18:
            self.if_stmt(ctl, depth)
        elif r <= 21 and not nested:
            self.let_or_var(c)
        elif r <= 23:
            self.if_stmt(ctl, depth)
        elif r <= 25:
            self.for_stmt(ctl, depth)
        else:
            self.while_stmt(ctl, depth)

    def atomic_stmt(self, c: int) -> None:
        if c != U and not self.violating():
            return
        ch = self.ch
        i, _ = self.i32(U, c, 1)
        x, _ = self.i32(U, c, 1)
        f = ch.pick(["atomic_add", "atomic_max", "atomic_min", "atomic_cas", "store_release", "load_acquire"])
        if f == "load_acquire":
            name = self.fresh("xa")
            self.emit(f"let {name} = load_acquire(F[{i} & 7])")
            self.bind(GenVar(name, "i32", U))
            if self.race_free or ch.chance(0.5):
                # used at once (an unused acquire load crashes LLVM: tests/test_fuzz.py pins that bug)
                self.emit(f"store_release(F[{x} & 7], {name} + 1)")
        elif f == "atomic_cas":
            y, _ = self.i32(U, c, 1)
            self.emit(f"atomic_cas(F[{i} & 7], {x}, {y})")
        else:
            self.emit(f"{f}(F[{i} & 7], {x})")

    def let_or_var(self, c: int) -> None:
        ch = self.ch
        ty = ch.pick(["i32", "i32", "f32", "f32", "bool"])
        name = self.fresh({"i32": "xi", "f32": "xf", "bool": "xb"}[ty])
        if ch.chance(0.5):
            self.taint = False
            text, k = self.expr(ty, V, c, 2)
            typed = f": {ty}" if ch.chance(0.3) else ""
            self.emit(f"let {name}{typed} = {text}")
            self.bind(GenVar(name, ty, k, tainted=self.taint))
            return
        # a var: its kind for the whole kernel is chosen now (LANGUAGE §9.1) and every assignment
        # keeps to it, so the generator knows it
        kind = ch.int(c, V)
        self.taint = False
        text, _ = self.expr(ty, kind, c, 2)
        tainted = self.taint or (kind < V and ch.chance(self.p_violate * 2))
        self.emit(f"var {name}: {ty} = {text}" if ch.chance(0.5) else f"var {name} = {text}")
        self.bind(GenVar(name, ty, max(kind, c), mutable=True, tainted=tainted))

    def assign(self, c: int) -> None:
        ch = self.ch
        ty = ch.pick(["i32", "f32", "bool"])
        targets = [v for v in self.visible(ty, V, mutable=True) if v.kind >= c]
        if not targets:
            return self.let_or_var(c)
        v = ch.pick(targets)
        maxk = v.kind
        if (v.tainted or not self.race_free) and self.violating():
            maxk = V                # the var becomes more varying than declared: everywhere (§9.1)
        self.taint = False
        text, _ = self.expr(ty, maxk, c, 2)
        if self.taint and not v.tainted:
            return                  # a clean var never takes a tainted value
        if ty == "i32" and ch.chance(0.4):
            op = ch.pick(["+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>=", "/=", "%="])
            if op in ("<<=", ">>="):
                text = f"({text} & 7)"
            elif op in ("/=", "%="):
                text = f"({text} | 1)"
            self.emit(f"{v.name} {op} {text}")
        elif ty == "f32" and ch.chance(0.4):
            self.emit(f"{v.name} {ch.pick(['+=', '-=', '*=', '/='])} {text}")
        else:
            self.emit(f"{v.name} = {text}")

    def thread_store(self, c: int) -> None:
        """A per-thread store, to the thread's own element (race-free) or anywhere."""
        ch = self.ch
        val, _ = self.f32(V, c, 2)
        j = ch.int(0, 3)
        if self.race_free or ch.chance(0.5):
            forms = ["s[0, ctx.thread] = {v}", "sv[0, ctx.thread] = {v}", "put(s, ctx.thread, {v})",
                     f"O[cid, ctx.thread * 4 + {j}] = {{v}}", f"ov[0, ctx.thread * 4 + {j}] = {{v}}",
                     f"putg(O, cid, ctx.thread * 4 + {j}, {{v}})", "store(O[cid, ctx.thread * 4 :+ 4], {v})"]
            # a per-thread store after a uniform store to the same buffer, with no barrier between,
            # races with the uniform store of a warp that comes late (write after write): the
            # simulator runs lockstep and cannot see it, the lowered code can (differential phase)
            late = self.ustored | (self.ustored_any if self.loops else set())
            if late and self.race_free:
                if c == U and self.exact:
                    self.emit("barrier()")
                    self.dirty, self.ustored = set(), set()
                else:
                    forms = [f for f in forms if ("O" if f.startswith(("O", "store", "ov", "putg")) else "s")
                             not in late]
                    if not forms:
                        return
            form = ch.pick(forms)
            self.emit(form.format(v=val))
            self.stored_into("O" if form.startswith(("O", "store", "ov", "putg")) else "s")
            return
        a, _ = self.i32(V, c, 1)
        b, _ = self.i32(V, c, 1)
        buf, form = ch.pick([("s", f"s[0, {a} & (BLK - 1)] = {{v}}"), ("u", f"u[{a} & 3, {b} & 31] = {{v}}"),
                             ("sq", f"sq[{a} & 7, {b} & 7] = {{v}}"), ("O", f"O[{a} & (G - 1), {b} & (N - 1)] = {{v}}"),
                             ("O", f"store(O[cid, ({a} & (N - 4)) :+ 4], {{v}})"),
                             ("s", f"put(s, {a} & (BLK - 1), {{v}})"),
                             ("s", f"sv[0, {a} & (BLK - 1)] = {{v}}")])
        self.emit(form.format(v=val))
        self.stored_into(buf)

    def stored_into(self, buf: str) -> None:
        self.dirty.add(buf)
        self.stored.add(buf)

    def uniform_store(self, c: int) -> None:
        """A store uniform in value, index and control: every thread writes the same element with
        the same value, which is no per-thread store (LANGUAGE §9.4) and races with nothing."""
        if c != U or not self.exact:
            return self.thread_store(c)
        ch = self.ch
        self.no_taint = True
        a, _ = self.i32(U, c, 1)
        b, _ = self.i32(U, c, 1)
        val, _ = self.f32(U, c, 2)
        self.no_taint = False
        forms = [f"u[{a} & 3, {b} & 31] = {{v}}", f"sq[{a} & 7, {b} & 7] = {{v}}",
                 f"s[0, {a} & (BLK - 1)] = {{v}}", f"O[cid, {a} & (N - 1)] = {{v}}"]
        # not into a buffer the store's own index or value reads: a late thread would read the
        # element after a thread ahead had stored it, in the same barrier phase
        text = f"{a} {b} {val}"
        forms = [f for f in forms if not any(re.search(rf"\b{n}\b", text)
                                             for n in _NAMES_OF[f.split("[")[0]])] or forms[3:]
        form = ch.pick(forms)
        # a thread may have read the element per thread since the last barrier (`u`, `sq` at any
        # element, its own of `s`): a warp ahead must not overwrite it before every warp has read
        # (write after read, which the simulator does not report; the differential phase does)
        self.emit("barrier()")
        self.dirty, self.ustored = set(), set()
        self.emit(form.format(v=val))
        buf = form.split("[")[0]
        if self.loops and buf in self.stored:
            # a per-thread store earlier in the loop runs again in the next iteration, after this
            # store, which a warp coming late may still make: a barrier orders them
            self.emit("barrier()")
            self.dirty = set()
            return
        self.ustored.add(buf)
        self.ustored_any.add(buf)

    def neighbour_read(self, c: int) -> None:
        """Between two barriers, a thread may read what another thread stored before the first."""
        if c != U or not self.exact:
            return self.let_or_var(c)
        d, _ = self.i32(V, c, 1)
        name = self.fresh("n")
        self.emit("barrier()")
        self.dirty, self.ustored = set(), set()
        self.emit(f"let {name} = s[0, (ctx.thread + {d}) & (BLK - 1)]")
        # and one after: a later per-thread store to `s` would otherwise overwrite what another
        # thread read in the same barrier phase (a write after read, which tests/ir_simt.py
        # reports on the lowered module and a GPU may reorder)
        self.emit("barrier()")
        self.bind(GenVar(name, "f32", V))

    def offset(self, c: int) -> str:
        """A slice offset: uniform unless a rule is being broken."""
        k = U
        if self.p_violate and self.ch.chance(min(0.5, self.p_violate * 3)):
            self.violations += 1
            k = self.ch.pick([W, V])
        text, _ = self.i32(k, c, 1)
        if k == V and self.ch.chance(0.5):
            text = f"({text} + ctx.lane)"
        return text

    def tile_op(self, c: int) -> None:
        ch = self.ch
        if c != U and not self.violating():
            return self.thread_store(c)
        forms = [
            (("A",), lambda: f"u = A[{self.offset(c)} :+ 4, {self.offset(c)} :+ 32]"),
            # its own row of O only: the rows of other CTAs are written by them, in any order
            (("O",), lambda: f"u[{ch.int(0, 3)} :+ 1, :] = O[cid :+ 1, {self.offset(c)} :+ 32]"),
            (("s",), lambda: "O[cid :+ 1, 0 :+ BLK] = s"),
            (("u",), lambda: f"O[cid :+ 1, {self.offset(c)} :+ 32] = u[{ch.int(0, 3)} :+ 1, :]"),
            (("u",), lambda: f"u = u * {self.f32(U, c, 1)[0]} + 1.0"),
            (("u",), lambda: f"u = u + f32({self.offset(c)})"),
            (("u",), lambda: "u = exp(u - rowmax(u))"),
            (("u",), lambda: "u = u / (rowsum(u * u) + 1.0)"),
            (("u",), lambda: f"u = where(u > {self.f32(U, c, 1)[0]}, u, 0.0)"),
            (("s",), lambda: f"s = s * 0.5 + {self.f32(U, c, 1)[0]}"),
            (("s",), lambda: "s += 1.0"),
            (("sq",), lambda: "sq = dot(sq, transpose(sq)) * 0.125"),
            (("sq",), lambda: "sq = tril(sq) + cumsum(sq) * 0.01"),
            (("sq",), lambda: "sq = dot_t(sq, sq) * 0.125 - tmax(sq, 0.0)"),
            (("sq",), lambda: "sq = f32(f16(sq))"),
            (("u", "sq"), lambda: "sq = u[0 :+ 8, 0 :+ 8] + sq"),
            (("u", "s"), lambda: "u = u + s[0 :+ 1, 0 :+ 32]"),
            (("s",), lambda: "O[cid :+ 1, 0 :+ BLK] = sv"),
            (("O", "u"), lambda: f"O[cid :+ 1, {self.offset(c)} :+ 32] += u[{ch.int(0, 3)} :+ 1, :]"),
            (("O", "u"), lambda: "u = ov[0 :+ 1, 0 :+ 32] + u"),
            (("s",), lambda: self._bind_f32(f"stotal({ch.pick(['s', 'sv'])})")),
            (("u",), lambda: self._new_tile(c)),
        ]
        reads, form = ch.pick(forms)
        self.before_cta_read(c, reads)
        text = form()
        if text:
            self.emit(text)

    def before_cta_read(self, c: int, reads) -> None:
        """Obeying the barrier rule: a `barrier()` before a CTA-wide read of a buffer with
        per-thread stores since the last one (in a loop, since anywhere: the back edge)."""
        stale = set(reads) & (self.dirty | (self.stored if self.loops else set()))
        if stale and c == U and not self.violating():
            self.emit("barrier()")
            self.dirty, self.ustored = set(), set()

    def _bind_f32(self, text: str) -> str:
        name = self.fresh("xt")
        self.bind(GenVar(name, "f32", U))
        return f"let {name} = {text}"

    def _new_tile(self, c: int) -> str:
        ch = self.ch
        name = self.fresh("t")
        if ch.chance(0.5):
            self.emit(f"let {name} = rowsum(u * {self.f32(U, c, 1)[0]})")
            self.emit(f"u = u - {name}")
            return ""
        self.emit(f"var {name}: tile<f32>[4, 32] = A[{self.offset(c)} :+ 4, 0 :+ 32]")
        self.emit(f"u = {name} * 0.5 + u")
        return ""

    def run_stmt(self, c: int) -> None:
        ch = self.ch
        name = self.fresh("r")
        a, ka = self.i32(V, c, 1)
        b, kb = self.i32(V, c, 1)
        x, kx = self.f32(V, c, 0)
        mutable = ch.chance(0.5)
        self.emit(f"{'var' if mutable else 'let'} {name} = elem(A[{a} & (R - 1), ({b} & (N - 4)) :+ 4] * {x})")
        var = GenVar(name, "run", max(ka, kb, kx, c if mutable else U), mutable=mutable)
        self.bind(var)
        if mutable and ch.chance(0.5):
            y, _ = self.f32(var.kind, c, 1)
            self.emit(f"{name}[{ch.int(0, 3)}] = {y}")

    def compound(self, c: int) -> None:
        """A `let` of a collective or an atomic, so they appear as statements of their own."""
        ch = self.ch
        name = self.fresh("c")
        if ch.chance(0.5) and (c <= W or self.violating()):
            x, _ = self.f32(V, c, 1)
            self.emit(f"let {name} = {ch.pick(['sum', 'max', 'min'])}<over ctx.lane>({x})")
            self.bind(GenVar(name, "f32", W))
        elif c == U or self.violating():
            x, _ = self.i32(V, c, 1)
            self.emit(f"let {name} = {ch.pick(['sum', 'max', 'min'])}<over ctx.thread>({x})")
            self.bind(GenVar(name, "i32", U))

    def early_exit(self, c: int) -> None:
        ch = self.ch
        word = ch.pick(["break", "continue", "return"]) if self.loops else "return"
        if word == "return" and (self.loops and ch.chance(0.5)):
            word = "break"
        limit = min(l.exit_kind for l in self.loops) if word == "return" and self.loops else \
            (self.loops[-1].exit_kind if self.loops else V)
        if c > limit and not self.violating():
            return
        kind = ch.int(U, limit) if not self.violating() else V
        cond, k = self.cond(c, kind)
        raised = max(c, k)
        if self.loops and raised > (limit if word == "return" else self.loops[-1].exit_kind):
            self.exact = False
        self.emit(f"if {cond} {{")
        self.indent += 1
        self.emit(word)
        self.indent -= 1
        self.emit("}")
        if word == "return":
            self.floor = max(self.floor, raised)

    def if_stmt(self, ctl: int, depth: int) -> None:
        c = self.ctl_of(ctl)
        cond, k = self.cond(c)
        self.emit(f"if {cond} {{")
        self._body(max(ctl, k), depth)
        while self.ch.chance(0.3):
            if self.ch.chance(0.5):
                cond2, k2 = self.cond(max(c, k))
                self.emit(f"}} else if {cond2} {{")
                k = max(k, k2)
                self._body(max(ctl, k), depth)
            else:
                self.emit("} else {")
                self._body(max(ctl, k), depth)
                break
        self.emit("}")

    def _body(self, ctl: int, depth: int) -> None:
        self.indent += 1
        floor = self.floor
        dirty, ustored = set(self.dirty), set(self.ustored)
        self.block(ctl, depth + 1)
        self.dirty |= dirty         # a path around the branch (or past the loop) skips its barriers
        self.ustored |= ustored
        self.indent -= 1
        # a return inside a branch raises whatever follows, as the spec says
        self.floor = max(self.floor, floor)

    def for_stmt(self, ctl: int, depth: int) -> None:
        ch = self.ch
        c = self.ctl_of(ctl)
        kb = ch.pick([U, U, W, V])
        exit_kind = ch.int(max(c, kb), V) if ch.chance(0.5) else max(c, kb)
        var = self.fresh("j")
        c = max(c, exit_kind)
        self.taint = False
        if kb == U:
            lo, hi, step = ch.pick([("0", "4", None), ("0", "(k & 3) + 1", None), ("1", "N", "N / 2"),
                                    ("cid & 1", "3", "1"), ("0", f"({self.exactly('i32', U, c)[0]} & 3)", None)])
        elif kb == W:
            lo, hi, step = ch.pick([("ctx.warp", "4", None), ("0", "ctx.warp + 1", None),
                                    ("0", f"({self.exactly('i32', W, c)[0]} & 3)", None)])
        else:
            lo, hi, step = ch.pick([("ctx.lane", "40", "ctx.lanes"), ("0", "(ctx.lane & 3)", None),
                                    ("ctx.thread & 1", "3", "1"),
                                    ("0", f"({self.exactly('i32', V, c)[0]} & 3)", None)])
        if self.taint:
            self.exact = False
        unroll = f"<unroll {ch.pick([2, 4])}>" if ch.chance(0.15) else ""
        rng = f"range({lo}, {hi}, {step})" if step else f"range({lo}, {hi})"
        self.emit(f"for{unroll} {var} in {rng} {{")
        self.loops.append(_Loop(max(exit_kind, c, kb)))
        self.scopes.append({var: GenVar(var, "i32", kb, loop=True)})
        self._body(max(ctl, kb, exit_kind), depth)
        self.scopes.pop()
        self.loops.pop()
        self.emit("}")

    def while_stmt(self, ctl: int, depth: int) -> None:
        ch = self.ch
        c = self.ctl_of(ctl)
        kb = ch.pick([U, U, W, V])
        exit_kind = ch.int(max(c, kb), V) if ch.chance(0.5) else max(c, kb)
        kind = max(c, kb, exit_kind)
        w = self.fresh("w")
        self.taint = False
        bound, _ = self.exactly("i32", kb, kind)     # the condition runs under the raised control
        if self.taint:
            self.exact = False
        self.emit(f"var {w} = 0")
        if ch.chance(0.3):
            # while true with the counter's exit inside
            self.emit("while true {")
            self.indent += 1
            self.emit(f"{w} += 1")
            self.emit(f"if {w} > ({bound} & 3) {{")
            self.emit("  break")
            self.emit("}")
            self.indent -= 1
        else:
            self.emit(f"while {w} < ({bound} & 3) {{")
            self.indent += 1
            self.emit(f"{w} += 1")
            self.indent -= 1
        self.loops.append(_Loop(kind))
        self.scopes.append({w: GenVar(w, "i32", kind)})
        self._body(kind, depth)
        self.scopes.pop()
        self.loops.pop()
        self.emit("}")

    # ------------------------------------------------------------------ the kernel
    def kernel(self) -> GenKernel:
        ch = self.ch
        blocks = self.blocks or tuple(sorted({ch.pick(BLOCK_SIZES[:3]) for _ in range(3)}))
        self.scopes = [{
            "cid": GenVar("cid", "i32", U),
        }]
        body_start = len(self.lines)
        self.block(U, 0)
        body = self.lines[body_start:]
        src = (GEN_FUNCTIONS + "\n"
               + f"@autotune(BLK in [{', '.join(str(b) for b in blocks)}])\n@launch(BLK)\n"
               + f"kernel gen({GEN_PARAMS}) {{\n" + GEN_PROLOGUE + "\n".join(body) + "\n}\n")
        return GenKernel(src, blocks, self.race_free, self.violations)


def generate(rng: _random.Random, race_free: bool = True, **kw) -> GenKernel:
    """One kernel from a seeded ``random.Random`` (benchmarks/fuzz.py)."""
    return KernelGen(RandomChooser(rng), race_free=race_free, **kw).kernel()


@st.composite
def programs(draw, race_free: bool = True, **kw) -> GenKernel:
    """Strategy: one kernel of the grammar-wide generator (a ``GenKernel``)."""
    return KernelGen(DrawChooser(draw), race_free=race_free, **kw).kernel()


# =====================================================================================================
# Mutations (issue 8, 1b): damaged versions of valid kernels, and the extreme inputs.
# =====================================================================================================

import re as _re

_TOKEN = _re.compile(rb"[ \t]+|\r?\n|//[^\n]*|[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9A-Fa-f]+|[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
                     rb"|:\+|->|<<=|>>=|<<|>>|&&|\|\||[-+*/%&|^=!<>]=|.", _re.S)
VOCABULARY = [b"kernel", b"fn", b"let", b"var", b"if", b"else", b"for", b"in", b"while", b"break", b"continue",
              b"return", b"true", b"false", b"(", b")", b"[", b"]", b"{", b"}", b",", b":", b":+", b"->", b"@",
              b".", b";", b"+", b"-", b"*", b"/", b"%", b"<<", b">>", b"&&", b"||", b"!", b"~", b"==", b"<", b">",
              b"=", b"+=", b"\n", b"ctx", b"lane", b"thread", b"warp", b"block", b"range", b"sum<over", b"shfl<xor",
              b"tensor", b"tile", b"run", b"f32", b"i8", b"bool", b"0", b"1", b"-1", b"1.5", b"0x1F", b"1e-3",
              b"barrier", b"dot", b"where", b"elem", b"store", b"atomic_add", b"load_acquire", b"@launch",
              b"BLK", b"N", b"O", b"s", b"u"]
BAD_BYTES = [b"\x00", b"\x00\x00\x00", b"\xff", b"\xfe\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82",
             b"\xf4\x90\x80\x80", b"\x80", "\u2028".encode(), "\u00a0".encode(), "\u200b".encode(),
             "\U0001F600".encode(), "e\u0301".encode(), b"\r", b"\x1b[31m", b"\t", b"\x7f"]
HUGE_LITERALS = [b"9" * 100_000, b"0x" + b"f" * 10_000, b"1." + b"5" * 100_000, b"1e999999", b"1e-999999",
                 b"2147483648", b"-2147483649", b"9223372036854775808", b"0x100000000", b"3.5e38", b"1e39",
                 b"340282366920938463463374607431768211456.0", b"0.0000000000000000000000000000000000000000000001"]


def tokens(data: bytes) -> list[bytes]:
    return _TOKEN.findall(data)


def mutate(ch, data: bytes, pool: list[bytes] = ()) -> tuple[bytes, str]:
    """One random damage to ``data``; returns the damaged bytes and a short description."""
    op = ch.pick(["drop", "dup", "swap", "replace", "flip", "truncate", "insert_bad", "huge_literal",
                  "line_dup", "line_drop", "line_swap", "splice", "newlines", "wrap", "drop_many"])
    if op in ("drop", "dup", "swap", "replace", "huge_literal", "drop_many"):
        toks = tokens(data)
        if not toks:
            return data + b"}", "append"
        i = ch.int(0, len(toks) - 1)
        if op == "drop":
            del toks[i]
        elif op == "drop_many":
            j = min(len(toks), i + ch.int(2, 20))
            del toks[i:j]
        elif op == "dup":
            toks.insert(i, toks[i])
        elif op == "swap":
            j = ch.int(0, len(toks) - 1) if ch.chance(0.3) else min(len(toks) - 1, i + ch.int(1, 3))
            toks[i], toks[j] = toks[j], toks[i]
        elif op == "replace":
            toks[i] = ch.pick(VOCABULARY)
        else:
            nums = [k for k, t in enumerate(toks) if t[:1].isdigit()]
            toks[ch.pick(nums) if nums else i] = ch.pick(HUGE_LITERALS)
        return b"".join(toks), op
    if op == "flip":
        b = bytearray(data or b" ")
        for _ in range(ch.int(1, 4)):
            b[ch.int(0, len(b) - 1)] ^= 1 << ch.int(0, 7)
        return bytes(b), op
    if op == "truncate":
        return data[:ch.int(0, len(data))], op
    if op == "insert_bad":
        at = ch.int(0, len(data))
        return data[:at] + ch.pick(BAD_BYTES) + data[at:], op
    lines = data.split(b"\n")
    if op in ("line_dup", "line_drop", "line_swap"):
        i = ch.int(0, len(lines) - 1)
        if op == "line_dup":
            lines.insert(i, lines[i])
        elif op == "line_drop":
            del lines[i]
        else:
            j = ch.int(0, len(lines) - 1)
            lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines), op
    if op == "splice":
        other = ch.pick(list(pool)) if pool else data
        olines = other.split(b"\n")
        a = ch.int(0, len(olines) - 1)
        piece = olines[a:a + ch.int(1, 6)]
        at = ch.int(0, len(lines))
        return b"\n".join(lines[:at] + piece + lines[at:]), op
    if op == "newlines":
        return data.replace(b"\n", ch.pick([b"\r\n", b"\r", b" ", b"\n\n", b";"])), op
    # wrap a line in some levels of `if true {`, `for`, parentheses or unary minus
    i = ch.int(0, len(lines) - 1)
    depth = ch.int(10, 300)
    kind = ch.pick(["if", "while", "for", "paren", "block"])
    if kind == "paren":
        line = lines[i]
        eq = line.find(b"= ")
        if eq >= 0:
            lines[i] = line[:eq + 2] + b"(" * depth + line[eq + 2:] + b")" * depth
        return b"\n".join(lines), "wrap-paren"
    head = {"if": b"if true {", "while": b"while false {", "for": b"for q in range(0, 1) {", "block": b"if k > 0 {"}[kind]
    lines[i:i + 1] = [head] * depth + [lines[i]] + [b"}"] * depth
    return b"\n".join(lines), f"wrap-{kind}"


def mutants_of(ch, data: bytes, pool: list[bytes] = ()) -> tuple[bytes, str]:
    """One to three damages in a row."""
    what = []
    for _ in range(ch.int(1, 3)):
        data, op = mutate(ch, data, pool)
        what.append(op)
    return data, "+".join(what)


@st.composite
def mutated_programs(draw, race_free: bool = False):
    """Strategy: a generated kernel, damaged one to three times (bytes)."""
    ch = DrawChooser(draw)
    base = KernelGen(ch, race_free=race_free, max_depth=2, max_block=3).kernel().source.encode()
    return mutants_of(ch, base)[0]


def _in_kernel(body: str, params: str = "A: tensor<f32>[R, N], O: tensor<f32>[G, N], k: i32") -> str:
    return f"@launch(64)\nkernel x({params}) {{\n  var acc: f32 = 0.0\n{body}\n  O[0, ctx.thread] = acc\n}}\n"


def extreme_inputs(max_bytes: int = 4 * 1024 * 1024):
    """(name, bytes) of the extreme inputs of issue 8: 5,000-deep nesting of every kind, 100k-long
    operator chains, files at and over the size limit, NUL bytes, invalid UTF-8, huge literals,
    long inline chains and many kernels. Each is built inside an otherwise valid kernel."""
    n = 5000
    out = []
    nest = {
        "if": ("if k > 0 {\n", "}\n"), "while": ("while k > 100 {\n", "}\n"),
        "for": (None, "}\n"), "block-else": ("if k > 0 {\n} else {\n", "}\n"),
    }
    for kind, (open_, close) in nest.items():
        if kind == "for":
            body = "".join(f"for q{j} in range(0, 1) {{\n" for j in range(n)) + "acc += 1.0\n" + close * n
        else:
            body = open_ * n + "acc += 1.0\n" + close * n
        out.append((f"deep-{kind}-{n}", _in_kernel(body)))
    exprs = {
        "paren": "(" * n + "1.0" + ")" * n,
        "paren-sum": "(1.0 + " * n + "1.0" + ")" * n,
        "unary": "-" * n + "1.0",
        "not": "f32(" + "!" * n + "true)",
        "call": "abs(" * n + "1.0" + ")" * n,
        "conv": "f32(" * n + "1" + ")" * n,
        "generic": "sum<over ctx.lane>(" * n + "1.0" + ")" * n,
        "shuffle": "shfl<xor 1>(" * n + "1.0" + ")" * n,
        "index": "A[" * n + "0" + ", 0]" * n,
        "where": "where(true, " * n + "1.0" + ", 2.0)" * n,
        "run-sum": "sum(A[0, 0 :+ 4] * " * n + "1.0" + ")" * n,
    }
    for kind, e in exprs.items():
        out.append((f"deep-{kind}-{n}", _in_kernel(f"  acc += {e}")))
    out.append((f"else-if-chain-{n}", _in_kernel("  " + "if k == 1 { acc += 1.0 } else " * n + "{ acc -= 1.0 }")))
    m = 100_000
    chains = {"plus": "1.0 + " * m + "1.0", "times": "1.0 * " * m + "1.0", "and": "f32(" + "true && " * m + "true)",
              "or": "f32(" + "false || " * m + "true)", "bitand": "f32(" + "k & " * m + "k)",
              "shift": "f32(" + "k << " * m + "1)", "compare": "f32(" + "k < " * m + "k)",
              "minus": "1.0 - " * m + "1.0", "mixed": "f32(" + "k + 1 * k - k % 3 ^ " * (m // 4) + "k)"}
    for kind, e in chains.items():
        out.append((f"chain-{kind}-{m}", _in_kernel(f"  acc += {e}")))
    out.append(("statements-20k", _in_kernel("  acc += A[0, ctx.thread & (N - 1)] * 0.5\n" * 20_000)))
    out.append(("lets-20k", _in_kernel("".join(f"  let v{j} = {'k' if j == 0 else f'v{j - 1}'} + {j % 7}\n"
                                               for j in range(20_000)) + "  acc += f32(v19999)")))
    fns = "".join(f"fn f{j}(x: i32) -> i32 {{\n  return {'x' if j == 0 else f'f{j - 1}(x)'} + 1\n}}\n" for j in range(n))
    out.append((f"inline-chain-{n}", (fns + _in_kernel(f"  acc += f32(f{n - 1}(k))")).encode()))
    out.append(("recursion", "fn f(x: i32) -> i32 {\n  return g(x)\n}\nfn g(x: i32) -> i32 {\n  return f(x)\n}\n"
                + _in_kernel("  acc += f32(f(k))")))
    out.append(("kernels-500", "".join(_in_kernel("  acc += 1.0").replace("kernel x", f"kernel x{j}")
                                       for j in range(500))))
    head = _in_kernel("  acc += 1.0").encode()
    pad_line = b"// " + b"x" * 60 + b"\n"
    body = head + pad_line * ((max_bytes - len(head)) // len(pad_line))
    out.append(("exactly-4MiB-comments", body + b"/" * (max_bytes - len(body))))
    stmt = b"acc += 1.0\n"
    pre, post = _in_kernel("@@").encode().split(b"@@")
    count = (max_bytes - len(pre) - len(post)) // len(stmt)
    full = pre + stmt * count + post
    out.append(("exactly-4MiB-statements", full + b" " * (max_bytes - len(full))))
    out.append(("4MiB-plus-1", body + b"/" * (max_bytes - len(body)) + b"\n"))
    out.append(("8MiB", body * 2))
    out.append(("4MiB-NUL", b"\x00" * max_bytes))
    out.append(("4MiB-bad-utf8-at-end", body[:max_bytes - 1] + b"\xff"))
    out.append(("one-line-4MiB", b"//" + b"y" * (max_bytes - 2)))
    out.append(("literal-1M-digits", _in_kernel("  let big = " + "9" * 1_000_000 + "\n  acc += f32(big)").encode()))
    out.append(("float-1M-digits", _in_kernel("  acc += 1." + "3" * 1_000_000).encode()))
    out.append(("identifier-100k", _in_kernel("  let " + "a" * 100_000 + " = 1.0\n  acc += " + "a" * 100_000)))
    out.append(("open-braces-100k", b"kernel k() " + b"{" * 100_000))
    out.append(("close-braces-100k", b"kernel k() {" + b"}" * 100_000))
    out.append(("open-parens-100k", _in_kernel("  acc += " + "(" * 100_000)))
    out.append(("nul-in-kernel", _in_kernel("  acc += 1.0\x00\x00").encode()))
    out.append(("bad-utf8-in-kernel", _in_kernel("  acc += 1.0 // \xff").encode("latin-1")))
    # the ones that take many seconds last, so that a time budget cuts those
    heavy = ["statements-20k", "lets-20k", "inline-chain-5000", "kernels-500", "exactly-4MiB-statements"]
    out.sort(key=lambda item: heavy.index(item[0]) + 1 if item[0] in heavy else 0)
    return [(name, data if isinstance(data, bytes) else data.encode()) for name, data in out]
