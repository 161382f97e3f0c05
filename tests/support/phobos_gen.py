"""Hypothesis strategies for valid Phobos kernels (type-correct; the per-thread rules may or
may not hold), shared by the oracle and property tests and by benchmarks/fuzz.py.

A generated kernel draws its statements from the whole per-thread surface: scalar `let`/`var`
fed by every `ctx` path, loads at uniform and varying addresses, nested `if`/`for`/`while`,
`break`/`continue`/`return` under conditions of each kind, per-thread stores to a shared tile,
barriers, tile copies and sweeps, lane and CTA collectives, shuffles, an atomic and an inlined
function. (``kernels()`` is the small early strategy; ``KernelGen`` below is the grammar-wide one,
with the targeted shapes.)
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
# Beside the grammar-wide statements it writes targeted shapes (``KernelGen.SHAPES``, recorded in
# ``GenKernel.shapes``), with the same tracking: calls of functions (HELPERS: their operations,
# and which arguments raise the control inside them or flow into the result) in `while`
# conditions, which run before every iteration under the control that the loop's `break`s and
# `return`s raise (§9.3), with early exits of every kind in the body; `&&`/`||` with a barrier,
# a collective or a shuffle (or a function holding one) on the right, in a `let`, an assignment,
# a compound assignment, an argument, a `where` condition, a subscript, under `!`, in a store
# (the right side runs under the left side's kind too, and only where the left side does not
# decide, so a barrier there cuts a store-to-read path only after `true &&` and the like, §9.6);
# tile built-ins over nested sweeps with broadcast scalars (uniform, or warp-uniform/varying as a
# PH302 broken on purpose); early exits in inner loops with a CTA-wide operation in the outer
# loop after them, and functions with loops and early `return`s called in a loop; and guards on
# uniform loop variables around per-thread stores into `s` and CTA-wide reads of it, placed so
# that a barrier is provably not needed (§9.6's examples) or, on purpose, needed and missing; and a
# tile operation left of a slice whose offset calls a function with a barrier, a CTA collective, an
# atomic or a per-thread store (§6: the left operand's reads come before the call's barrier); and,
# at the end of a kernel, a loop whose body starts with copies of tensor slices into `var` tiles,
# which the lowering double buffers, or a variant that must keep one buffer (`copy-ahead`).
#
# Race-free (``race_free=True``, LANGUAGE §9.8): threads store per thread only into their own
# elements (`s[0, ctx.thread]`, the view `sv`, `O[cid, 4 * ctx.thread + j]`, the run
# `O[cid, 4 * ctx.thread :+ 4]`, the helper `put(s, ctx.thread, v)`); they read per thread only
# their own elements, elements nothing stores per thread (`A`, `C`, `B`, `u`, `sq`: written only
# CTA-wide or by a store uniform in value, index and control), or a neighbour's element of `s`
# between two `barrier()`s. Every loop is bounded (for: at most a few iterations; while: a fresh
# counter raised at the top of the body, that the condition, a call's included, compares with a
# bound of at most 3; the loops inside the functions have constant bounds). Indices are masked into bounds (extents R, N are powers
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

// `while` conditions: a counter `i` against a bound `n` (so every loop ends), with the operations
// each rule is about inside (LANGUAGE §6: the whole condition runs before every iteration)
fn more(i: i32, n: i32) -> bool {
  return i < n
}

fn more_sync(i: i32, n: i32) -> bool {
  barrier()
  return i < n
}

fn more_lanes(i: i32, n: i32) -> bool {
  return i < max<over ctx.lane>(n)
}

fn more_cta(i: i32, n: i32) -> bool {
  return min<over ctx.thread>(i) < n
}

fn more_atomic(X: tensor<i32>[QQ], i: i32, n: i32) -> bool {
  let a = atomic_add(X[QQ - 1], 1)
  return i + (a & 0) < n
}

fn more_early(i: i32, n: i32) -> bool {
  if i >= n {
    return false
  }
  return any<over ctx.lane>(i < n)
}

fn more_bar(i: i32, n: i32) -> bool {
  if i >= n {
    return false
  }
  barrier()
  return true
}

fn more_shfl(i: i32, n: i32) -> bool {
  return i < n && shfl<xor 1>(i) < n
}

// the right sides of `&&` and `||` (LANGUAGE §9.3: they run under the left side's kind too)
fn synced(x: i32) -> bool {
  barrier()
  return x > 0
}

fn lanes_any(x: i32) -> bool {
  return any<over ctx.lane>(x > 0)
}

fn cta_all(x: i32) -> bool {
  return all<over ctx.thread>(x >= 0)
}

fn nbr_pos(x: i32) -> bool {
  return shfl<down 1>(x) > 0
}

fn pick(c: bool, a: i32, b: i32) -> i32 {
  if c {
    return a
  }
  return b
}

// a uniform value from a call with an effect, for a slice's offset after a tile operation in the
// same statement (LANGUAGE §6: the left operand runs completely before the right one's subscripts)
fn synci(x: i32) -> i32 {
  barrier()
  return x
}

fn bumpi(X: tensor<i32>[QQ], x: i32) -> i32 {
  let a = atomic_add(X[QQ - 1], 1)
  return x + (a & 0)
}

fn seti(X: tensor<f32>[RR, QQ], i: i32, j: i32, v: f32) -> i32 {
  X[i, j] = v
  return 0
}

// loops with early exits inside inlined functions
fn scan(X: tensor<i32>[QQ], n: i32) -> i32 {
  for i in range(0, 4) {
    for j in range(0, 4) {
      if X[(i * 4 + j) & (QQ - 1)] > n {
        return i * 4 + j
      }
    }
  }
  return -1
}

fn firstw(n: i32) -> i32 {
  for i in range(0, 4) {
    if i == n {
      return i
    }
  }
  return max<over ctx.lane>(n)
}

fn cutoff(n: i32) -> i32 {
  var acc = 0
  for i in range(0, 4) {
    if i > n {
      break
    }
    acc += i
  }
  return sum<over ctx.thread>(acc)
}

fn stepsync(n: i32) -> i32 {
  var acc = 0
  for i in range(0, 3) {
    if i >= n {
      return acc
    }
    barrier()
    acc += i
  }
  return acc
}

fn skipsum(n: i32) -> i32 {
  var acc = 0
  var i = 0
  while i < 4 {
    i += 1
    if i == n {
      continue
    }
    acc += i
  }
  return sum<over ctx.lane>(acc)
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
    lo: str = ""            # a `for` variable's bounds, when they are plain enough to repeat in a guard
    hi: str = ""


@_dataclass
class _Loop:
    exit_kind: int     # how varying its break / continue / return (and so its whole body) may be
    sync_head: bool = False   # a `barrier()` runs before every entry into the body (a `while` condition)


@_dataclass(frozen=True)
class _Helper:
    """A function of GEN_FUNCTIONS as the kind tracking sees it (LANGUAGE §9.2, §9.3)."""

    name: str
    params: tuple      # i32 bool f32, or a tensor argument passed by name ("F", "C")
    ret: str
    need: int          # the most varying control its operations allow (V: it has none)
    raise_by: tuple    # the parameters whose kinds raise the control inside (early exits on them)
    result_by: tuple   # the parameters whose kinds flow into the result
    base: int = 0      # the result's kind at least (a lane collective's: warp-uniform)
    sync: bool = False  # it runs `barrier()` whenever it returns true (a `while` condition's head)


HELPERS = {h.name: h for h in (
    _Helper("more", ("i32", "i32"), "bool", 2, (), (0, 1)),
    _Helper("more_sync", ("i32", "i32"), "bool", 0, (), (0, 1), sync=True),
    _Helper("more_lanes", ("i32", "i32"), "bool", 1, (), (0,), 1),
    _Helper("more_cta", ("i32", "i32"), "bool", 0, (), (1,)),
    _Helper("more_atomic", ("F", "i32", "i32"), "bool", 0, (), (1, 2)),
    _Helper("more_early", ("i32", "i32"), "bool", 1, (0, 1), (0, 1), 1),
    _Helper("more_bar", ("i32", "i32"), "bool", 0, (0, 1), (0, 1), sync=True),
    _Helper("more_shfl", ("i32", "i32"), "bool", 1, (0, 1), (0, 1)),
    _Helper("synced", ("i32",), "bool", 0, (), (0,), sync=True),
    _Helper("lanes_any", ("i32",), "bool", 1, (), (), 1),
    _Helper("cta_all", ("i32",), "bool", 0, (), ()),
    _Helper("nbr_pos", ("i32",), "bool", 1, (), (0,)),
    _Helper("pick", ("bool", "i32", "i32"), "i32", 2, (0,), (0, 1, 2)),
    _Helper("scan", ("C", "i32"), "i32", 2, (1,), (1,)),
    _Helper("firstw", ("i32",), "i32", 1, (0,), (0,), 1),
    _Helper("cutoff", ("i32",), "i32", 0, (), ()),
    _Helper("stepsync", ("i32",), "i32", 0, (0,), (0,)),
    _Helper("skipsum", ("i32",), "i32", 1, (), (), 1),
)}
WHILE_HELPERS = ("more", "more_sync", "more_lanes", "more_cta", "more_atomic", "more_early", "more_bar",
                 "more_shfl")
SIDE_HELPERS = ("synced", "lanes_any", "cta_all", "nbr_pos", "more_sync", "more_early", "more_shfl")
I32_HELPERS = ("pick", "scan", "firstw", "cutoff", "stepsync", "skipsum")
# where a `&&` / `||` may stand (the shape `short_circuit` puts one in each)
SC_POSITIONS = ("let", "assign", "argument", "where", "subscript", "not", "compound", "store", "if", "while")


@_dataclass
class GenKernel:
    """One generated kernel: its source, the block sizes it declares and what the generator knows."""

    source: str
    blocks: tuple
    race_free: bool
    violations: int = 0            # rules the generator broke on purpose (0: it meant to be accepted)
    notes: list = _field(default_factory=list)
    shapes: tuple = ()             # the targeted shapes it contains (KernelGen.SHAPES), for the fuzz table


I32_UNIFORM = ["k", "N", "R", "cid", "ctx.block.x", "ctx.block.y", "ctx.block.z", "ctx.blocks.x",
               "ctx.blocks.y", "ctx.threads", "ctx.warps", "ctx.lanes"]
F32_LITERALS = ["0.5", "1.0", "2.0", "-3.25", "0.0", "1.0e-3", "2.5e4", "1e30", "-0.0", "3.0"]
I32_LITERALS = ["0", "1", "2", "3", "5", "7", "9", "31", "-1", "-7"]
I32_HUGE = ["2147483647", "-2147483648", "0x7fffffff", "0x10000", "-0x1F"]


# the names a kernel of KernelGen reads each buffer through (views included)
_NAMES_OF = {"u": ("u",), "sq": ("sq",), "s": ("s", "sv"), "O": ("O", "ov")}


def _plain(text: str) -> str:
    """``text``, parenthesized, when it may be written again in a guard with the same value (no
    call, load, collective or shuffle: nothing that runs an operation); else ""."""
    if _re_plain.fullmatch(text) and not _re_call.search(text) and \
            set(_re_name.findall(text)) <= _PLAIN_NAMES:
        return text if _re_atom.fullmatch(text) else f"({text})"
    return ""


_re_plain = re.compile(r"[A-Za-z0-9_ .+\-*&()]+")
_re_call = re.compile(r"\w\s*\(")
_re_atom = re.compile(r"[A-Za-z0-9_.]+")
_re_name = re.compile(r"[A-Za-z_]\w*")
# parameters, lets and `ctx` fields: the same value wherever they are written (no generated var)
_PLAIN_NAMES = {"k", "N", "R", "cid", "BLK", "ctx", "block", "blocks", "x", "y", "z", "threads", "warps", "lanes",
                "warp", "lane", "thread"}


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
        self.shapes: list[str] = []    # the targeted shapes written (SHAPES), in order
        self.extra_params: list[str] = []   # parameters beyond GEN_PARAMS (the tensors of `copy-ahead`)

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

    def back_edges(self) -> bool:
        """Whether a path may come back here along a loop's back edge without passing a
        `barrier()`: inside a loop, unless the innermost one runs a barrier at its head."""
        return bool(self.loops) and not self.loops[-1].sync_head

    def shape(self, name: str) -> None:
        self.shapes.append(name)

    def call(self, name: str, maxk: int, ctl: int, d: int = 1, args: dict | None = None) -> tuple[str, int] | None:
        """A call of the helper ``name`` (HELPERS) whose result is at most ``maxk`` varying, run
        under ``ctl``; None where its operations cannot run there (unless a rule is broken on
        purpose). ``args`` fixes some arguments: {index: (text, kind)}."""
        h = HELPERS[name]
        if h.base > maxk:
            return None
        texts, kinds = [], []
        for i, p in enumerate(h.params):
            if args and i in args:
                t, k = args[i]
            elif p in ("F", "C"):
                t, k = p, U
            else:
                lim = V
                if i in h.result_by:
                    lim = min(lim, maxk)
                if i in h.raise_by:
                    lim = min(lim, max(h.need, U))
                t, k = self.expr(p, lim, ctl, max(d - 1, 0))
            texts.append(t)
            kinds.append(k)
        inner = max([ctl] + [kinds[i] for i in h.raise_by])
        if inner > h.need and not self.violating():
            return None
        kind = max([h.base] + [kinds[i] for i in h.result_by])
        return f"{name}({', '.join(texts)})", kind

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
        r = ch.int(0, 20)
        if r == 17:
            # an inlined function: loops and early exits inside, collectives and barriers after them
            got = self.call(ch.pick(I32_HELPERS), maxk, ctl, d)
            if got:
                return got
        if r == 18:
            # a condition as a number: `&&` / `||` inside an arithmetic operand
            c, kc = self.boolean(maxk, ctl, d - 1)
            return f"i32({c})", kc
        if r == 19:
            c, kc = self.boolean(maxk, ctl, d - 1)
            a, ka = self.i32(maxk, ctl, d - 1)
            b, kb = self.i32(maxk, ctl, d - 1)
            return f"pick({c}, {a}, {b})", max(kc, ka, kb)
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
        r = ch.int(0, 11)
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
        if r == 10:
            got = self.call(ch.pick(SIDE_HELPERS), maxk, ctl, d)
            if got:
                return got
        if r == 11:
            return self.short_circuit(maxk, ctl, d)
        return ch.pick(["flag", "true", "false"]), U

    def short_circuit(self, maxk: int, ctl: int, d: int = 1, left: tuple | None = None) -> tuple[str, int]:
        """`L && R` or `L || R` whose right side calls a function with a barrier, a collective or a
        shuffle, or is a collective or a shuffle itself: it runs under the join of ``ctl`` and the
        kind of ``L`` (LANGUAGE §9.3), and only where ``L`` does not decide (§6)."""
        ch = self.ch
        a, ka = left or self.boolean(maxk, ctl, max(d - 1, 0))
        inner = max(ctl, ka)
        r = ch.int(0, 4)
        got = None
        if r <= 2:
            got = self.call(ch.pick(SIDE_HELPERS), maxk, inner, d)
        elif r == 3 and maxk >= W and (inner <= W or self.violating()):
            x, _ = self.i32(V, inner, max(d - 1, 0))
            got = f"{ch.pick(['any', 'all'])}<over ctx.lane>({x} > 0)", W
        elif r == 4 and (inner <= W or self.violating()):
            x, kx = self.i32(maxk, inner, max(d - 1, 0))
            got = f"shfl<{ch.pick(['xor 1', 'down 1', 'up 2', 'idx 0'])}>({x}) != 0", kx
        b, kb = got or self.boolean(maxk, inner, max(d - 1, 0))
        return f"({a} {ch.pick(['&&', '||'])} {b})", max(ka, kb)

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
            forms = [f"{v.name} == {n}", f"{v.name} > {n}", f"{v.name} < {n}", f"({v.name} & 1) == 0",
                     f"{v.name} != {n}", f"{v.name} >= {n}", f"{v.name} % 2 == {n & 1}"]
            if v.hi:
                forms += [f"{v.name} == {v.hi} - 1", f"{v.name} < {v.hi} - 1", f"{v.name} >= {v.hi} - {n}"]
            if v.lo:
                forms += [f"{v.name} > {v.lo}", f"{v.name} == {v.lo}", f"{v.name} <= {v.lo} + {n}"]
            return ch.pick(forms), v.kind
        if ch.chance(0.3):
            return self.boolean(kind, ctl, 2)
        c, k = self.exactly("bool", kind, ctl)
        if ch.chance(0.25):
            # short-circuit: the second operand runs only where the first allows
            if ch.chance(0.5):
                c, k = self.short_circuit(kind, ctl, 1, left=(c, k))
            else:
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
        if ch.chance(0.14) and self.targeted(ctl, depth):
            return
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
                # used at once (an unused acquire load crashes LLVM: tests/fuzz/test_fuzz.py pins that bug)
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

    def thread_store(self, c: int, val: str | None = None, j=None) -> None:
        """A per-thread store, to the thread's own element (race-free) or anywhere; ``val`` and
        ``j`` (the element of its four in `O`, any expression with a value in 0..3) may be given."""
        ch = self.ch
        if val is None:
            val, _ = self.f32(V, c, 2)
        if j is None:
            j = ch.int(0, 3)
        if self.race_free or ch.chance(0.5):
            forms = ["s[0, ctx.thread] = {v}", "sv[0, ctx.thread] = {v}", "put(s, ctx.thread, {v})",
                     f"O[cid, ctx.thread * 4 + {j}] = {{v}}", f"ov[0, ctx.thread * 4 + {j}] = {{v}}",
                     f"putg(O, cid, ctx.thread * 4 + {j}, {{v}})", "store(O[cid, ctx.thread * 4 :+ 4], {v})"]
            if isinstance(j, str):
                forms = [f for f in forms if j in f]        # the given element expression is written
            # a per-thread store after a uniform store to the same buffer, with no barrier between,
            # races with the uniform store of a warp that comes late (write after write): the
            # simulator runs lockstep and cannot see it, the lowered code can (differential phase)
            late = self.ustored | (self.ustored_any if self.back_edges() else set())
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
        if self.back_edges() and buf in self.stored:
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
        # thread read in the same barrier phase (a write after read, which tests/support/ir_simt.py
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
        if c == U and ch.chance(0.15):
            return self.builtin_stmt(c)
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
        stale = set(reads) & (self.dirty | (self.stored if self.back_edges() else set()))
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
        self.scopes.append({var: GenVar(var, "i32", kb, loop=True, lo=_plain(lo), hi=_plain(hi))})
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

    # ------------------------------------------------------------------ targeted shapes
    # Each writes one construct where the analysis has had gaps (LANGUAGE §6's evaluation order,
    # §9.3's early exits, §9.6's feasible paths, §9.7's broadcast scalars), keeping the kind and
    # control tracking exact, and records its name in ``self.shapes``.

    SHAPES = ("while-call", "short-circuit", "sc-barrier", "builtin", "nested-exit", "inlined-exit",
              "loop-guard", "slice-call", "copy-ahead")

    def targeted(self, ctl: int, depth: int) -> bool:
        ch = self.ch
        c = self.ctl_of(ctl)
        nested = depth < self.max_depth
        r = ch.int(0, 11)
        if r <= 1 and nested:
            self.while_call_stmt(ctl, depth)
        elif r <= 3:
            self.short_circuit_stmt(c)
        elif r == 4 and c == U:
            self.builtin_stmt(c)
        elif r == 5 and nested:
            self.nested_exit_stmt(ctl, depth)
        elif r == 6 and nested:
            self.inlined_exit_stmt(ctl, depth)
        elif r <= 9 and c == U and self.exact and nested:
            self.guard_loop_stmt(c)
        elif r == 10 and c == U and self.exact:
            self.sc_barrier_stmt(c)
        elif r == 11 and c == U and self.exact:
            self.slice_call_stmt(c)
        else:
            return False
        return True

    def while_call_stmt(self, ctl: int, depth: int) -> None:
        """`while more_*(w, n) { w += 1 .. }`: a call in the condition, run before every iteration
        under the loop's control raised by every `break` and `return` in its body (§9.3)."""
        ch = self.ch
        self.shape("while-call")
        c = self.ctl_of(ctl)
        kb = ch.pick([U, U, U, W, V])
        exit_kind = ch.int(max(c, kb), V) if ch.chance(0.4) else max(c, kb)
        kind = max(c, kb, exit_kind)
        if self.p_violate and ch.chance(self.p_violate * 2):
            name = ch.pick(WHILE_HELPERS)
            if HELPERS[name].need < kind:
                self.violations += 1
        else:
            name = ch.pick([h for h in WHILE_HELPERS if HELPERS[h].need >= kind])
        h = HELPERS[name]
        w = self.fresh("w")
        # the body runs under the condition's kind too (a lane collective's result is warp-uniform),
        # and so, raised by the body's exits, does every later test of the condition: all of it
        # is written for that control
        body = max(kind, h.base)
        self.taint = False
        bound, _ = self.exactly("i32", kb, body)
        n = f"({bound} & 3)"
        call = f"{name}({'F, ' if h.params[0] == 'F' else ''}{w}, {n})"
        form = ch.int(0, 4)
        if form <= 1:
            cond = call
        elif form == 2:
            x, _ = self.boolean(body, body, 1)
            cond = f"{call} && {x}"
        elif form == 3:
            x, _ = self.boolean(kind, body, 1)
            cond = f"{x} && {call}"
        else:
            # the call runs only where `x` is false; the loop still ends on the counter
            x, _ = self.boolean(kind, body, 1)
            cond = f"({x} || {call}) && {w} < {n}"
        if self.taint:
            self.exact = False
        # every entry into the body passed the barrier of `more_sync` / `more_bar` (it returned true)
        head = (h.sync and form <= 3 and kind == U and self.exact
                and (name == "more_sync" and form <= 2 or ch.chance(0.3)))
        self.emit(f"var {w} = 0")
        self.emit(f"while {cond} {{")
        self.indent += 1
        self.emit(f"{w} += 1")
        self.loops.append(_Loop(body, sync_head=head))
        self.scopes.append({w: GenVar(w, "i32", body)})
        floor = self.floor
        dirty, ustored = set(self.dirty), set(self.ustored)
        if head:
            self.dirty, self.ustored = set(), set()
        if ch.chance(0.5):
            self.early_exit(body)
        self.block(body, depth + 1)
        if ch.chance(0.6):
            self.early_exit(body)
        self.dirty |= dirty
        self.ustored |= ustored
        self.floor = max(self.floor, floor)
        self.scopes.pop()
        self.loops.pop()
        self.indent -= 1
        self.emit("}")

    def short_circuit_stmt(self, c: int) -> None:
        """`&&` / `||` with an operation on the right, in one of the positions of SC_POSITIONS."""
        ch = self.ch
        pos = ch.pick(SC_POSITIONS[:-2])
        self.shape(f"sc-{pos}")
        self.taint = False
        if pos in ("assign", "compound"):
            ty = ch.pick(["i32", "i32", "f32", "bool"]) if pos == "assign" else ch.pick(["i32", "f32"])
            targets = [v for v in self.visible(ty, V, mutable=True) if v.kind >= c and not v.tainted]
            if not targets:
                return self.let_or_var(c)
            v = ch.pick(targets)
            sc, _ = self.short_circuit(v.kind, c, 2)
            if ty == "bool":
                text = sc
            elif ty == "i32":
                a, _ = self.i32(v.kind, c, 1)
                text = ch.pick([f"pick({sc}, {a}, {v.name})", f"i32({sc})", f"where({sc}, {a}, 1)"])
            else:
                a, _ = self.f32(v.kind, c, 1)
                text = ch.pick([f"where({sc}, {a}, 0.5)", f"f32(i32({sc}))"])
            if self.taint:
                return
            op = "=" if pos == "assign" else ch.pick(["+=", "-=", "*="] + (["^=", "|="] if ty == "i32" else []))
            self.emit(f"{v.name} {op} {text}")
            return
        if pos == "store":
            sc, _ = self.short_circuit(V, c, 2)
            if ch.chance(0.5):
                return self.thread_store(c, j=f"pick({sc}, {ch.int(0, 1)}, {ch.int(2, 3)})")
            a, _ = self.f32(V, c, 1)
            return self.thread_store(c, val=f"where({sc}, {a}, -1.0)")
        sc, k = self.short_circuit(V, c, 2)
        name = self.fresh({"let": "xb", "not": "xb", "argument": "xi", "where": "xf", "subscript": "xf"}[pos])
        if pos == "let":
            ty, text = "bool", sc
        elif pos == "not":
            ty, text = "bool", f"!{sc}"
        elif pos == "argument":
            a, ka = self.i32(V, c, 1)
            k = max(k, ka)
            ty, text = "i32", ch.pick([f"clamp3(pick({sc}, {a}, 5))", f"mix(i32({sc}), {a})",
                                       f"firstbit(i32({sc}) + {a})"])
        elif pos == "where":
            a, ka = self.f32(V, c, 1)
            k = max(k, ka)
            ty, text = "f32", f"where({sc}, {a}, alpha)"
        else:
            a, ka = self.i32(V, c, 1)
            b, kb = self.i32(V, c, 1)
            k = max(k, ka, kb)
            ty, text = "f32", ch.pick([f"A[where({sc}, {a}, {b}) & (R - 1), {b} & (N - 1)]",
                                       f"u[where({sc}, 1, 2), {a} & 31]", f"f32(C[where({sc}, {a}, {b}) & (N - 1)])",
                                       f"sq[pick({sc}, 3, {b} & 7), 0]"])
        self.emit(f"let {name} = {text}")
        self.bind(GenVar(name, ty, k, tainted=self.taint))

    def sc_barrier_stmt(self, c: int) -> None:
        """A per-thread store, a `barrier()` on the right of a uniform `&&` / `||`, a CTA-wide read:
        the barrier cuts the path only where it runs (§9.6), so the read is safe only when the
        left side never decides (`true &&`, `ctx.lanes == 32 &&`, `false ||`)."""
        ch = self.ch
        self.shape("sc-barrier")
        if "s" not in self.dirty:
            self.thread_store(c, val=self.f32(V, c, 1)[0] if ch.chance(0.5) else None)
            if "s" not in self.dirty:
                return
        op = ch.pick(["&&", "||"])
        always = ch.chance(0.5)
        if always:
            left = ch.pick(["true", "ctx.lanes == 32", "ctx.threads >= 32"] if op == "&&" else
                           ["false", "ctx.lanes != 32", "ctx.warps < 0"])
        else:
            self.violations += 1     # the read needs a barrier that may not run
            left = ch.pick(["flag", "k > 0", "(k & 1) == 0", "cid == 0", "alpha < 0.0"])
        x, _ = self.i32(U, c, 1)
        sc = f"{left} {op} {ch.pick([f'synced({x})', f'synced({x})', f'more_sync({x}, 2)'])}"
        form = ch.int(0, 2)
        if form == 0:
            name = self.fresh("xb")
            self.emit(f"let {name} = {sc}")
            self.bind(GenVar(name, "bool", U))
        elif form == 1:
            self.emit(f"if {sc} {{")
            self.emit(f"  let {self.fresh('xi')} = 1")
            self.emit("}")
        else:
            name = self.fresh("xi")
            self.emit(f"let {name} = pick({sc}, 1, 2)")
            self.bind(GenVar(name, "i32", U))
        if always:
            self.dirty, self.ustored = set(), set()
        forms = ["O[cid :+ 1, 0 :+ BLK] = s", "O[cid :+ 1, 0 :+ BLK] = sv", "s = s * 0.5 + 1.0"]
        if "u" not in self.dirty | (self.stored if self.back_edges() else set()):
            forms.append("u = u + s[0 :+ 1, 0 :+ 32]")
        self.emit(ch.pick(forms))

    def slice_call_stmt(self, c: int) -> None:
        """A tile operation (a built-in or an elementwise sweep) left of a slice whose offset calls
        a function with an effect that returns a uniform value: a barrier (`synci`, `synced`,
        `stepsync`, which may run none), a CTA collective, an atomic, a per-thread store (`seti`).
        The left operand runs completely before the right one's subscripts, and those before its
        access (LANGUAGE §6): the call's barrier orders the right slice's read after the stores
        before the statement, never the left operand's reads, which (often, on purpose) read a
        buffer with per-thread stores that only that barrier would have ordered (PH303)."""
        ch = self.ch
        self.shape("slice-call")
        x, _ = self.i32(U, c, 1)
        call, sync = ch.pick([(f"synci({x})", True), (f"synci({x})", True), (f"i32(synced({x}))", True),
                              (f"stepsync({x})", False), (f"cutoff({x})", False),
                              (f"ctamax({x})", False), (f"bumpi(F, {x})", False), ("seti", False)])
        late = self.ustored | (self.ustored_any if self.back_edges() else set())
        if call == "seti":
            if "O" in late and self.race_free:
                call = f"synci({x})"
                sync = True
            else:
                v, _ = self.f32(V, c, 1)
                call = f"seti(O, cid, ctx.thread * 4 + {ch.int(0, 3)}, {v})"
        store = call.startswith("seti")
        off = f"({call} & 3)"
        # (left reads, right reads, target, text)
        forms = [
            (("u",), "A", "u", lambda: f"u = rowsum(u * {self.bscalar(c)}) + A[{off} :+ 4, 0 :+ 32]"),
            (("u",), "A", "u", lambda: f"u = rowmax(u) - A[{off} :+ 4, 32 :+ 32]"),
            (("u",), "A", "u", lambda: f"u = u * {self.bscalar(c)} + A[{off} :+ 4, 0 :+ 32]"),
            (("sq",), "A", "sq", lambda: f"sq = transpose(sq * {self.bscalar(c)}) + A[{off} :+ 8, 0 :+ 8]"),
            (("sq",), "A", "sq", lambda: f"sq = dot(sq, sq) * 0.125 + A[{off} :+ 8, 8 :+ 8]"),
            (("s",), "A", "s", lambda: f"s = s * 0.5 + A[{off} :+ 1, 0 :+ BLK]"),
            (("s",), "A", "u", lambda: f"u = rowsum(s[0 :+ 1, 0 :+ 32]) + A[{off} :+ 4, 0 :+ 32]"),
            (("s",), "A", "sq", lambda: f"sq[0 :+ 1, 0 :+ 8] = rowmax(sv[0 :+ 1, 0 :+ 8]) + A[{off} :+ 1, 0 :+ 8]"),
            (("u",), "s", "u", lambda: f"u = rowsum(u) + s[0 :+ 1, (({call}) & 0) :+ 32]"),
            (("s",), "u", "sq", lambda: f"sq[0 :+ 1, :] = rowsum(s[0 :+ 1, 0 :+ 8]) + u[0 :+ 1, (({call}) & 0) :+ 8]"),
            (("u",), "A", "O", lambda: f"O[cid :+ 1, 0 :+ 4] = transpose(rowsum(u)) + A[{off} :+ 1, 0 :+ 4]"),
            (("s",), "A", "O", lambda: f"O[cid :+ 1, 0 :+ BLK] = s + A[{off} :+ 1, 0 :+ BLK]"),
        ]
        if store:
            forms = [f for f in forms if f[2] != "O"]
        if sync and ch.chance(0.5):
            forms = [f for f in forms if f[0] == ("s",)]     # the left operand reads `s`, often just stored
        left, right, target, form = ch.pick(forms)
        if left == ("s",) and "s" not in self.dirty and not (late & {"s"}) and ch.chance(0.6):
            v, _ = self.f32(V, c, 1)
            self.emit(ch.pick(["s[0, ctx.thread] = {v}", "sv[0, ctx.thread] = {v}",
                               "put(s, ctx.thread, {v})"]).format(v=v))
            self.stored_into("s")
        back = self.stored if self.back_edges() else set()
        stale_left = set(left) & (self.dirty | back)
        stale_right = {right} & (self.dirty | back) if not sync else set()
        if sync and not stale_right and set(left) & self.dirty and ch.chance(0.4):
            self.violations += 1     # the call's barrier runs after the left operand's read
        elif stale_left or stale_right:
            self.before_cta_read(c, left + (right,))
        self.emit(form())
        if sync:
            self.dirty, self.ustored = set(), set()
        if store:
            self.stored_into("O")

    def bscalar(self, c: int) -> str:
        """The scalar a tile sweep broadcasts: uniform, or (a rule broken on purpose, PH302)
        warp-uniform or varying."""
        ch = self.ch
        if self.p_violate and ch.chance(min(0.5, self.p_violate * 3)):
            self.violations += 1
            return self.exactly("f32", ch.pick([W, V]), c)[0]
        if ch.chance(0.5):
            return ch.pick(["0.5", "2.0", "-3.25", "alpha", "f32(k)", "f32(cid)", "1.0e-3"])
        return self.f32(U, c, 1)[0]

    def builtin_stmt(self, c: int) -> None:
        """A tile built-in over a nested sweep with a broadcast scalar, the result kept in a tile
        and (often) copied into this CTA's row of `O`, which the runs compare."""
        ch = self.ch
        self.shape("builtin")
        x = lambda: self.bscalar(c)  # noqa: E731
        off = ch.pick(["0", "32", "64", "(k & 63)", "BLK"])
        forms = [
            (("u",), "u", lambda: f"u = u - rowsum(u * {x()})"),
            (("u",), "u", lambda: f"u = u + rowmax(u + {x()})"),
            (("sq",), "sq", lambda: f"sq = dot(sq * {x()}, sq) * 0.125"),
            (("u", "sq"), "u", lambda: f"u[0 :+ 4, 0 :+ 8] = dot(u[0 :+ 4, 0 :+ 8] * {x()}, sq)"),
            (("sq",), "sq", lambda: f"sq = cumsum(where(sq > {x()}, sq, 0.0))"),
            (("u",), "u", lambda: f"u = tmax(u, {x()})"),
            (("sq",), "sq", lambda: f"sq = transpose(sq * {x()})"),
            (("u",), "sq", lambda: f"sq[0 :+ 8, 0 :+ 4] = transpose(u[0 :+ 4, 0 :+ 8] * {x()})"),
            (("u",), "O", lambda: f"O[cid :+ 1, {off} :+ 4] = transpose(rowsum(u * {x()}))"),
            (("u",), "u", lambda: f"u = u - rowmax(tmax(u, {x()}) * {x()})"),
            (("sq",), "sq", lambda: f"sq = dot_t(sq + {x()}, transpose(sq * {x()})) * 0.125"),
            (("sq",), "sq", lambda: f"sq = tril(cumsum(sq * {x()})) - tmax(sq, {x()})"),
            (("u",), "u", lambda: self._rowsum_let(x)),
        ]
        reads, target, form = ch.pick(forms)
        self.before_cta_read(c, reads)
        self.emit(form())
        if target != "O" and ch.chance(0.7):
            row = ch.int(0, 3)
            self.emit(f"O[cid :+ 1, {off} :+ 32] = u[{row} :+ 1, :]" if target == "u" else
                      f"O[cid :+ 1, {off} :+ 8] = sq[{row} :+ 1, :]")

    def _rowsum_let(self, x) -> str:
        name = self.fresh("t")
        self.emit(f"let {name} = rowsum(u * {x()})")
        return f"u = u / (tmax({name}, {x()}) + 1.0)"

    def cta_op(self, c: int) -> None:
        """One CTA-wide operation (or a CTA collective) as a statement."""
        r = self.ch.int(0, 5)
        if r <= 1:
            self.tile_op(c)
        elif r == 2:
            if c == U or self.violating():
                self.emit("barrier()")
                if c == U:
                    self.dirty, self.ustored = set(), set()
        elif r == 3:
            self.atomic_stmt(c)
        elif r == 4 and c == U:
            self.builtin_stmt(c)
        else:
            self.compound(c)

    def _uniform_bounds(self) -> tuple[str, str]:
        ch = self.ch
        return ch.pick([("0", "4"), ("0", "(k & 3) + 1"), ("1", "3"), ("(cid & 1)", "(cid & 1) + 2"), ("0", "2")])

    def nested_exit_stmt(self, ctl: int, depth: int) -> None:
        """An early exit inside an inner loop, a CTA-wide operation in the outer loop after it: a
        `break` or `continue` of any kind raises only the inner loop; a `return` raises the outer
        loop too (and the rest of the kernel), so there it must be uniform (§9.3)."""
        ch = self.ch
        self.shape("nested-exit")
        c = self.ctl_of(ctl)
        word = ch.pick(["break", "continue", "return"])
        k = ch.pick([U, W, V])
        broken = False
        if word == "return":
            if k > U:
                broken = c == U and self.violating()
                if not broken:
                    k = U
            # a return raises the loops around too: no more than they allow, unless on purpose
            if max(c, k) > min([l.exit_kind for l in self.loops] + [V]):
                if broken or self.violating():
                    self.exact = False      # statements of the loops around ran raised
                else:
                    word, k = "break", ch.pick([U, W, V])
        c1 = max(c, k) if word == "return" else c
        lo1, hi1 = self._uniform_bounds()
        j1, j2 = self.fresh("j"), self.fresh("j")
        self.emit(f"for {j1} in range({lo1}, {hi1}) {{")
        self.indent += 1
        self.loops.append(_Loop(c1))
        self.scopes.append({j1: GenVar(j1, "i32", U, loop=True, lo=_plain(lo1), hi=_plain(hi1))})
        floor = self.floor
        dirty, ustored = set(self.dirty), set(self.ustored)
        if ch.chance(0.5):
            self.statement(c1, self.max_depth)
        kb2 = ch.pick([U, U, W, V]) if word != "return" else U    # a return raises with the bounds too
        lo2, hi2 = ch.pick({U: [("0", "3"), (j1, "4"), ("0", f"{j1} + 1")],
                            W: [("0", "(ctx.warp & 3)"), ("ctx.warp & 1", "3")],
                            V: [("0", "(ctx.lane & 3)"), ("ctx.thread & 1", "3"), (j1, "(ctx.lane & 3) + 1")]}[kb2])
        c2 = max(c1, kb2, k)
        self.emit(f"for {j2} in range({lo2}, {hi2}) {{")
        self.indent += 1
        self.loops.append(_Loop(c2))
        self.scopes.append({j2: GenVar(j2, "i32", kb2, loop=True, lo=_plain(lo2), hi=_plain(hi2))})
        if ch.chance(0.6):
            self.statement(c2, self.max_depth)
        cond, kc = self.cond(c2, k)
        self.emit(f"if {cond} {{")
        self.emit(f"  {word}")
        self.emit("}")
        if ch.chance(0.6):
            self.statement(c2, self.max_depth)
        self.scopes.pop()
        self.loops.pop()
        self.indent -= 1
        self.emit("}")
        # after the inner loop: the outer loop's control again (raised only by a return)
        if broken:
            # the return raised the outer loop: a CTA-wide op here is the rule broken on purpose
            self.emit(ch.pick(["barrier()", "u = u * 0.5 + 1.0", f"let {self.fresh('c')} = sum<over ctx.thread>(1)"]))
        else:
            self.cta_op(c1)
        self.dirty |= dirty
        self.ustored |= ustored
        self.scopes.pop()
        self.loops.pop()
        self.indent -= 1
        self.emit("}")
        if word == "return":
            self.floor = max(self.floor, floor, max(c2, kc))
        else:
            self.floor = max(self.floor, floor)

    def inlined_exit_stmt(self, ctl: int, depth: int) -> None:
        """A function with loops and early exits called in a loop, a CTA-wide operation after the
        call: the function's exits raise only the function (§9.3)."""
        ch = self.ch
        self.shape("inlined-exit")
        c = self.ctl_of(ctl)
        j = self.fresh("j")
        lo, hi = self._uniform_bounds()
        self.emit(f"for {j} in range({lo}, {hi}) {{")
        self.indent += 1
        self.loops.append(_Loop(c))
        self.scopes.append({j: GenVar(j, "i32", U, loop=True, lo=_plain(lo), hi=_plain(hi))})
        dirty, ustored = set(self.dirty), set(self.ustored)
        floor = self.floor
        name = ch.pick(I32_HELPERS[1:])
        ka = ch.pick([U, W, V])
        arg = ch.pick({U: [j, f"{j} + k", "cid & 3"], W: [f"ctx.warp + {j}", "ctx.warp & 3"],
                       V: [f"ctx.lane - {j}", "ctx.thread & 3", f"C[(ctx.thread + {j}) & (N - 1)]"]}[ka])
        got = self.call(name, V, c, args={len(HELPERS[name].params) - 1: (arg, ka)})
        if got is None:
            got = self.call("scan", V, c, args={1: (arg, ka)})
        text, kind = got
        x = self.fresh("xi")
        self.emit(f"let {x} = {text}")
        self.bind(GenVar(x, "i32", kind))
        if ch.chance(0.5):
            self.thread_store(c, val=f"f32({x})")
        self.cta_op(c)
        self.dirty |= dirty
        self.ustored |= ustored
        self.floor = max(self.floor, floor)
        self.scopes.pop()
        self.loops.pop()
        self.indent -= 1
        self.emit("}")

    def guard_loop_stmt(self, c: int) -> None:
        """Guards on a uniform loop variable around per-thread stores into `s` and CTA-wide reads of
        it, placed so that a barrier is needed, or provably not (§9.6's examples: a store only in
        the last iteration, a loop that runs at most once, a barrier skipped only in the first
        iteration, `for q in range(0, 2) { barrier() }` between). The variants that need one they
        lack are rules broken on purpose: the simulator's PH303 fires where they run twice."""
        ch = self.ch
        self.shape("loop-guard")
        bad = self.p_violate and ch.chance(min(0.5, self.p_violate * 4))
        if bad:
            self.violations += 1
        # nothing stored per thread, or uniformly, into `s` may reach the first read (in a loop,
        # the shape's own stores come around through the back edge)
        if self.back_edges() or {"s", "u"} & self.dirty or "s" in self.ustored:
            self.emit("barrier()")
            self.dirty, self.ustored = set(), set()
        i = self.fresh("g")            # (not "i": `i8` is a type name)
        lo = ch.pick(["0", "0", "1", "k", "cid", "(k & 1)"])
        n = ch.int(1, 4)
        hi = ch.pick([f"{lo} + {n}", str(n) if lo == "0" else f"{lo} + 2", "(k & 3) + 1" if lo == "0" else f"{lo} + 3"])
        if ch.chance(0.3):
            h = self.fresh("h")
            self.emit(f"let {h} = {hi}")
            hi = h
        else:
            hi = f"({hi})" if not hi.isdigit() else hi
        last = str(int(hi) - 1) if hi.isdigit() else f"{hi} - 1"
        if ch.chance(0.3):
            lname = self.fresh("last")
            self.emit(f"let {lname} = {last}")
            last = lname
        x = ch.pick(["0.5", "alpha", "f32(k)", "2.0"])
        reads_u = ch.chance(0.2)

        def R():
            return ch.pick(["O[cid :+ 1, 0 :+ BLK] = s", "O[cid :+ 1, 0 :+ BLK] = sv", f"s = s * 0.5 + {x}",
                            f"let {self.fresh('xt')} = stotal(s)"]) if not reads_u else "u = u + s[0 :+ 1, 0 :+ 32]"

        def S(ctl):
            v, _ = self.f32(V, ctl, 1)
            return ch.pick(["s[0, ctx.thread] = {v}", "sv[0, ctx.thread] = {v}", "put(s, ctx.thread, {v})"]).format(v=v)

        t = ch.pick("ABCDEFG")
        self.shape(f"loop-guard-{t}{'-bad' if bad else ''}")
        step = ""
        body: list[str] = []
        if t == "A":        # the store only in the last iteration
            lim = (str(int(hi) - 2) if hi.isdigit() else f"{hi} - 2") if bad else last
            g = ch.int(0, 3)
            body.append(R())
            if g == 0:
                body += [f"if {i} {'>=' if bad else '=='} {lim} {{", "  " + S(U), "}"]
            elif g == 1:
                body += [f"if {i} < {lim} {{", "  continue", "}", S(U)]
            elif g == 2:
                body += [f"if {i} >= {lim} {{", "  " + S(U), "}"]
            else:
                body += [f"if {i} != {lim} {{", "  continue", "}", S(U)] if not bad else \
                    [f"if {i} < {lim} {{", "  continue", "}", S(U)]
        elif t == "B":      # the loop runs at most once
            g = ch.int(0, 3)
            if g == 0:
                hi = f"{lo} + {2 if bad else 1}"
                body += [R(), S(U)]
            elif g == 1:
                body += [R(), S(U), f"if {i} >= {lo} {{" if not bad else f"if {i} > {lo} {{", "  break", "}"]
            elif g == 2:
                body += [f"if {i} > {lo} {{" if not bad else f"if {i} > {lo} + 1 {{", "  break", "}", R(), S(U)]
            else:
                body += [R(), S(U)] + (["break"] if not bad else [f"if {i} == {last} {{", "  break", "}"])
        elif t == "C":      # a barrier skipped only in the first iteration, before anything was stored
            if ch.chance(0.3):
                step = ", 2"
                g = f"{i} >= {lo} + 2" if not bad else f"{i} > {lo} + 2"
            else:
                g = ch.pick([f"{i} > {lo}", f"{i} != {lo}", f"{i} >= {lo} + 1"]) if not bad else f"{i} > {lo} + 1"
            body += [f"if {g} {{", "  barrier()", "}", R(), S(U)]
        elif t == "D":      # a loop of barriers that runs at least once between the store and the read
            q = self.fresh("q")
            rng = ch.pick(["0, 2", "1, 3", f"{lo}, {lo} + 1", "0, (k & 1) + 1", "k, k + 2"]) if not bad else \
                ch.pick(["0, k & 1", "1, (k & 1) + 1", "(cid & 1), 1", "k, 2"])
            body += [S(U), f"for {q} in range({rng}) {{", "  barrier()", "}", R()]
        elif t == "E":      # parity: barriers and reads in even iterations, stores in odd ones
            even = ch.pick([f"{i} % 2 == 0", f"{i} % 2 == 0", f"({i} & 1) == 0"])
            odd = ch.pick([f"{i} % 2 != 0", f"{i} % 2 == 1", f"({i} & 1) == 1"])
            body += [f"if {odd if bad else even} {{", "  barrier()", "}", f"if {even} {{", "  " + R(), "}",
                     f"if {odd} {{", "  " + S(U), "}"]
        elif t == "F":      # a `break` on the last iteration
            g = ch.int(0, 2)
            if bad:
                body += [R(), f"if {i} == {last} {{", "  break", "}", S(U)]
            elif g == 0:
                body += [R(), S(U), f"if {i} == {last} {{", "  break", "}", "barrier()"]
            elif g == 1:
                body += [R(), f"if {i} == {last} {{", "  " + S(U), "  break", "}"]
            else:
                body += [R(), f"if {i} >= {lo} + 1 {{", "  " + S(U), "  break", "}"]
        else:               # stores in the first iteration only, skipping the barrier with `continue`
            g = ch.pick([f"{i} < {lo} + 1", f"{i} == {lo}", f"{i} <= {lo}"]) if not bad else f"{i} < {lo} + 2"
            body += [f"if {g} {{", "  " + S(U), "  continue", "}"] + ([] if bad else ["barrier()"]) + [R()]
        self.emit(f"for {i} in range({lo}, {hi}{step}) {{")
        self.indent += 1
        for line in body:
            self.emit(line)
        self.indent -= 1
        self.emit("}")
        self.stored_into("s")

    # `copy-ahead`: loops whose body starts with copies of tensor slices into `var` tiles, which
    # the execution plan lets run one iteration ahead into a second buffer (docs/lowering.md,
    # "Double-buffered copies"), and variants it must keep single buffered. Written once, at the
    # end of a kernel's body (``kernel``): every draw it makes comes after the rest of the kernel,
    # so the kernels of the other shapes stay what their seeds made them.
    COPY_AHEAD_CHANCE = 0.35
    # element type -> (tensor, rank, declaration of an extra parameter, its row and column extents)
    COPY_SOURCES = {
        "f32": [("A", 2, "", "R", "N")],
        "f16": [("H", 2, "H: tensor<f16>[R, Q]", "R", "Q")],
        "i32": [("D", 2, "D: tensor<i32>[Q, N]", "Q", "N"), ("C", 1, "", "", "N")],
        "i8": [("B", 1, "", "", "N")],
    }
    # the variants the plan must keep single buffered (a kernel holds one at most; else "ok")
    COPY_REFUSED = ("after", "write", "exit", "source", "view", "late")

    def copy_ahead_stmt(self, c: int) -> None:
        """``for j in range(..) { t1 = T[..]; [t2 = T'[..];] <statements reading t1, t2> }``: copies
        of whole `var` tiles from slices of tensor parameters (f32 `A`, f16 `H`, i32 `D` and `C`, i8
        `B`) at offsets affine in the loop variable, lets, extents and `ctx`, the loop's bounds
        constant or runtime (extents, a let), with a step or none, sometimes inside another loop;
        slices that run past a tensor's end (masked, LANGUAGE §7) or start at an offset that is not
        16-byte aligned; then tile statements into another tile or this CTA's row of `O`,
        per-thread reads of the tiles into per-thread stores, `rowsum` and `dot`. Accepted (double
        buffered where the shared memory allows), or one variant the plan refuses: a copied tile
        read after the loop (`after`), written again in it (`write`), a `break`, `continue` or
        `return` in the body (`exit`), a source written in the kernel (`source`: this CTA's row of
        `O`), a view of a tile made before the loop (`view`), a statement before the copies
        (`late`)."""
        ch = self.ch
        self.shape("copy-ahead")
        variant = ch.pick(self.COPY_REFUSED) if ch.chance(0.4) else "ok"
        self.shape(f"copy-ahead-{variant}")
        # the statements here read `O` CTA-wide only as the source of `source` (after the stores
        # before them: a barrier first); `u` only where nothing stored into it per thread since
        # the last barrier. Other pending stores stay pending: the lowering puts the barriers the
        # copies and the writes into `O` need, double buffered or not.
        if variant == "source" and "O" in self.dirty | self.ustored:
            self.emit("barrier()")
            self.dirty, self.ustored = set(), set()
        reads_u = "u" not in self.dirty
        j, o = self.fresh("j"), self.fresh("o")
        wrap = ch.chance(0.2)
        q = self.fresh("q") if wrap else ""

        # the copied tiles: [name, elem, rows (0: rank 1), cols, tensor, rank, extra parameter,
        # row extent, column extent]
        elem = ch.pick(["f32", "f32", "f16", "i32", "i8"])
        src, rank, decl, rx, cx = ch.pick(self.COPY_SOURCES[elem])
        if variant == "source":
            elem, src, rank, decl, rx, cx = "f32", "O", 2, "", "G", "N"
        w1 = ch.pick([4, 8, 8, 16, 16, 32, 32, 12] if elem != "f16" else [8, 16, 16, 32, 32, 12])
        rows = 1 if src == "O" else (ch.pick([1, 2, 4, 4, 8, 16]) if rank == 2 else 0)
        t1 = (self.fresh("p"), elem, rows, w1, src, rank, decl, rx, cx)
        tiles = [t1]
        dot = False
        if ch.chance(0.45):
            if elem in ("f32", "f16") and rank == 2 and src != "O" and ch.chance(0.5):
                dot = True                  # t1 [rows, w1] times t2 [w1, w2], from the same tensor
                tiles.append((self.fresh("p"), elem, w1, ch.pick([8, 16, 32]), src, rank, decl, rx, cx))
            else:
                e2 = ch.pick(["f32", "f16", "i32", "i8"])
                s2, r2, d2, rx2, cx2 = ch.pick(self.COPY_SOURCES[e2])
                tiles.append((self.fresh("p"), e2, ch.pick([1, 2, 4, 8]) if r2 == 2 else 0,
                              ch.pick([8, 16, 32]), s2, r2, d2, rx2, cx2))
        for t in tiles:
            if t[6] and t[6] not in self.extra_params:
                self.extra_params.append(t[6])

        # the loop: (lo, hi, step, the column offset of a W-wide slice at iteration j), over the
        # first tile's column extent X (at most 8 iterations, 16 over Q = 64 with 4-wide slices)
        x = "Q" if cx == "Q" else "N"
        forms = [
            ("0", "4", "", lambda W: f"{j} * {W}"),
            ("0", str(3 * w1), str(w1), lambda W: j),
            (f"{x} - {2 * w1}", f"{x} + {w1}", str(w1), lambda W: j),          # the last slice past the end
            ("1", "7", "2", lambda W: f"{j} * {W} - {W}"),
            (o, f"{o} + 3", "", lambda W: f"{j} * {W} + {o}"),                  # unaligned unless o is 0
            ("0", "R / 2", "", lambda W: f"{j} * {W}"),
            ("cid", "cid + 2", "", lambda W: f"({j} - cid) * {W}"),
            ("0", "G", "", lambda W: f"{j} * {W}"),
            ("0", "N", "N / 4", lambda W: j) if x == "N" else ("0", "Q", str(w1), lambda W: j),
        ]
        lo, hi, step, colf = ch.pick(forms)
        shift = ch.pick(["", "", "", " + 4", " - 8", f" + {w1 // 2}"] + ([f" + {q} * {w1}"] * 2 if wrap else []))

        def ty(t):
            return f"tile<{t[1]}>[{t[2]}, {t[3]}]" if t[5] == 2 else f"tile<{t[1]}>[{t[3]}]"

        def slice_of(t):
            col = f"{colf(t[3])}{shift}" if t is t1 or ch.chance(0.6) else \
                f"{colf(t1[3])}{ch.pick(['', ' + 8', ' - 4'])}"
            if t[5] == 1:
                return f"{t[4]}[{col} :+ {t[3]}]"
            if t[4] == "O":
                row = "cid"
            elif dot and t is not t1:
                row = ch.pick(["0", o, col])
            elif not step and ch.chance(0.2):
                row = f"{j} - {lo}"
            else:
                row = ch.pick(["0", "0", "1", "cid", "cid - 1", o, f"{t[7]} - 2", f"{o} + {t[2]}"])
            return f"{t[4]}[{row} :+ {t[2]}, {col} :+ {t[3]}]"

        def f32_of(t, text):
            return text if t[1] == "f32" else f"f32({text})"

        def point(t):
            # (the loop variable may be negative: `& 15` keeps the index in the tile)
            i = f"ctx.lane % {t[3]}" if ch.chance(0.5) else f"(ctx.thread + ({j} & 15)) % {t[3]}"
            return f"{t[0]}[{i}]" if t[5] == 1 else f"{t[0]}[ctx.thread % {t[2]}, {i}]"

        def scale():
            return ch.pick(["2.0", "0.5", "alpha", f"f32({j})", "-1.0"])

        self.emit(f"let {o} = k & 3")
        for t in tiles:
            init = ""
            if variant == "after" or ch.chance(0.2):
                init = " = " + ("0" if t[1] in ("i32", "i8") else ch.pick(["0.0", "1.5"]))
            self.emit(f"var {t[0]}: {ty(t)}{init}")
        acc = self.fresh("acc")
        a_shape = (t1[2], t1[3]) if t1[5] == 2 else (t1[3],)
        self.emit(f"var {acc}: tile<f32>[{', '.join(map(str, a_shape))}] = {ch.pick(['0.0', '1.0', 'alpha'])}")
        accd = ""
        if dot:
            accd = self.fresh("acc")
            self.emit(f"var {accd}: tile<f32>[{t1[2]}, {tiles[1][3]}] = 0.0")
        view = ""
        if variant == "view":
            view = self.fresh("tv")
            self.emit(f"let {view} = {t1[0]}[0 :+ 1, :]" if t1[5] == 2 else f"let {view} = {t1[0]}[0 :+ 4]")
        dirty, ustored = set(self.dirty), set(self.ustored)
        floor = self.floor
        if wrap:
            self.emit(f"for {q} in range(0, 2) {{")
            self.indent += 1
            self.loops.append(_Loop(c))
            self.scopes.append({q: GenVar(q, "i32", U, loop=True, lo="0", hi="2")})
        self.emit(f"for {j} in range({lo}, {hi}, {step}) {{" if step else f"for {j} in range({lo}, {hi}) {{")
        self.indent += 1
        self.loops.append(_Loop(c))
        self.scopes.append({j: GenVar(j, "i32", U, loop=True)})
        if variant == "late":
            self.emit(f"{acc} = {acc} * 0.5")
        for t in tiles:
            self.emit(f"{t[0]} = {slice_of(t)}")

        # the statements after the copies (each a closure: they run in the order they are placed)
        same = [t for t in tiles if t[2:4] == t1[2:4] and t[5] == t1[5]]
        body = []
        for _ in range(ch.int(1, 3)):
            t = ch.pick(tiles)
            r = ch.int(0, 6)
            if r <= 1 and t in same:
                body.append(lambda t=t: self.emit(f"{acc} += {f32_of(t, t[0])} * {scale()}"))
            elif r == 2 and len(same) > 1:
                a, b = f32_of(t1, t1[0]), f32_of(same[1], same[1][0])
                body.append(lambda a=a, b=b: self.emit(f"{acc} = {acc} * 0.5 + where({a} > {b}, {a}, {b})"))
            elif r == 3:
                def out(t=t):
                    col = f"{colf(t[3])}{ch.pick(['', ' + 32', ' + BLK'])}"
                    if t[5] == 1:
                        self.emit(f"O[cid, {col} :+ {t[3]}] = {f32_of(t, t[0])} + {scale()}")
                    else:
                        row = f"{t[0]}[{ch.int(0, t[2] - 1)} :+ 1, :]"
                        self.emit(f"O[cid :+ 1, {col} :+ {t[3]}] = {f32_of(t, row)} * {scale()}")
                body.append(out)
            elif r == 4:
                def per_thread(t=t):
                    name = self.fresh("xf")
                    self.emit(f"let {name} = {f32_of(t, point(t))}")
                    self.bind(GenVar(name, "f32", V))
                    self.thread_store(c, val=f"{name} * {scale()}" if ch.chance(0.5) else name)
                body.append(per_thread)
            elif r == 5 and t[5] == 2 and t[1] in ("f32", "f16"):
                body.append(lambda t=t: self.emit(
                    f"O[cid :+ 1, {ch.pick(['0', 'N - 8', colf(8)])} :+ {t[2]}] = "
                    f"transpose(rowsum({f32_of(t, t[0])}))"))
            elif r == 6 and t1[1] == "f32" and t1[2:4] == (4, 32) and reads_u:
                body.append(lambda: self.emit(f"u = u * 0.5 + {t1[0]}"))
            else:
                body.append(lambda: self.emit(f"{acc} += {f32_of(t1, t1[0])}"))
        if dot:
            body.insert(ch.int(0, len(body)), lambda: self.emit(f"{accd} += dot({t1[0]}, {tiles[1][0]})"))
        if view:
            body.append(lambda: self.emit(f"{acc}[0 :+ 1, :] += {f32_of(t1, view)}" if t1[5] == 2 else
                                          f"{acc}[0 :+ 4] += {f32_of(t1, view)}"))
        if variant == "write":
            again = f"{t1[0]} * 0.5 + 1.0" if t1[1] in ("f32", "f16") else f"{t1[1]}({t1[0]} * 2)"
            body.insert(ch.int(1, len(body)), lambda: self.emit(f"{t1[0]} = {again}"))
        if variant == "exit":
            word = ch.pick(["break", "continue", "return"])
            cond = ch.pick([f"{j} > {lo}", f"{j} == {lo}", "k > 7", "flag"])

            def leave():
                self.emit(f"if {cond} {{")
                self.emit(f"  {word}")
                self.emit("}")
            body.insert(ch.int(0, len(body)), leave)
        if variant == "source" and ch.chance(0.5):
            body.append(lambda: self.emit(f"O[cid :+ 1, {colf(w1)} :+ {w1}] = {t1[0]} * 0.5 + 1.0"))
        for b in body:
            b()
        if variant == "source" and "O" in self.dirty | self.stored:
            # the next iteration's copy reads `O` CTA-wide after this one's per-thread stores to it
            self.emit("barrier()")
            self.dirty, self.ustored = set(), set()
        self.scopes.pop()
        self.loops.pop()
        self.indent -= 1
        self.emit("}")
        if wrap:
            self.scopes.pop()
            self.loops.pop()
            self.indent -= 1
            self.emit("}")
        self.dirty |= dirty
        self.ustored |= ustored
        self.floor = max(self.floor, floor)
        # the results into this CTA's row of `O` (so `O` is written in every variant: it is a
        # source only in `source`)
        off = ch.pick(["0", "32", "N - 32", "BLK"])
        if len(a_shape) == 2:
            self.emit(f"O[cid :+ 1, {off} :+ {a_shape[1]}] = {acc}[{ch.int(0, a_shape[0] - 1)} :+ 1, :]")
        else:
            self.emit(f"O[cid, {off} :+ {a_shape[0]}] = {acc}")
        if dot:
            self.emit(f"O[cid :+ 1, {ch.pick(['0', '64'])} :+ {tiles[1][3]}] = {accd}[{ch.int(0, t1[2] - 1)} :+ 1, :]")
        if variant == "after":
            self.emit(f"O[cid :+ 1, 8 :+ {w1}] = {f32_of(t1, f'{t1[0]}[0 :+ 1, :]')}" if t1[5] == 2 else
                      f"O[cid, 8 :+ {w1}] = {f32_of(t1, t1[0])}")

    # ------------------------------------------------------------------ the kernel
    def kernel(self) -> GenKernel:
        ch = self.ch
        blocks = self.blocks or tuple(sorted({ch.pick(BLOCK_SIZES[:3]) for _ in range(3)}))
        self.scopes = [{
            "cid": GenVar("cid", "i32", U),
        }]
        body_start = len(self.lines)
        self.block(U, 0)
        if self.floor == U and self.exact and ch.chance(self.COPY_AHEAD_CHANCE):
            self.copy_ahead_stmt(U)
        body = self.lines[body_start:]
        params = ", ".join([GEN_PARAMS] + self.extra_params)
        src = (GEN_FUNCTIONS + "\n"
               + f"@autotune(BLK in [{', '.join(str(b) for b in blocks)}])\n@launch(BLK)\n"
               + f"kernel gen({params}) {{\n" + GEN_PROLOGUE + "\n".join(body) + "\n}\n")
        return GenKernel(src, blocks, self.race_free, self.violations, shapes=tuple(self.shapes))


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
