"""Kernel shapes that once made phobos-check grow faster than the kernel, each a function of a
size n: shared by the count-based regression tests (tests/analysis/test_scaling.py) and the timings of
benchmarks/check_scaling.py. Every shape is a valid kernel; the comment says what grew and how.
"""

from __future__ import annotations

_HEAD = "@launch(256)\nkernel k(A: tensor<f32>[M, N], O: tensor<f32>[M, N]) {\n"
_TILE = "  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]\n"


def stores_then_barrier(n: int) -> str:
    """n per-thread stores to a tile, one barrier, one read: each store walked the CFG to the
    barrier (n^2 steps)."""
    body = "".join(f"  t[0, ctx.lane] = {j}.0\n" for j in range(n))
    return _HEAD + _TILE + body + "  barrier()\n  O[0 :+ 1, 0 :+ 32] = t\n}\n"


def stores_in_loops(n: int) -> str:
    """n loops one after the other, each with a per-thread store to one tile, then a barrier and
    a read: each store walked the rest of the kernel through the later loops (n^2 steps)."""
    body = "".join(f"  for q{j} in range(0, N) {{\n    t[0, ctx.lane] = {j}.0\n  }}\n" for j in range(n))
    return _HEAD + _TILE + body + "  barrier()\n  O[0 :+ 1, 0 :+ 32] = t\n}\n"


def store_barrier_read_loop(n: int) -> str:
    """A per-thread store, a barrier and a tile read, repeated n times in one loop: the candidate
    readers of every (store, loop) pair were listed before the cheap latch test (n^1.9: 30,000
    statements took 44 s)."""
    body = "".join(f"    t[0, ctx.lane] = {j}.0\n    barrier()\n    O[0 :+ 1, 0 :+ 32] = t\n" for j in range(n // 3))
    return _HEAD + _TILE + "  for i in range(0, N) {\n" + body + "  }\n}\n"


def loop_stores_and_reads(n: int) -> str:
    """n guarded tile reads at the top of a loop and n guarded per-thread stores below them; z3
    proves each of the n^2 (store, read) pairs through the back edge infeasible (a store at
    i >= 10 + j never reaches a read at i' < 10 in a later iteration)."""
    body = "".join(f"    if i < {10 - j % 5} {{ O[0 :+ 1, 0 :+ 32] = t }}\n" for j in range(n))
    body += "".join(f"    if i >= {10 + j} {{ t[0, ctx.lane] = 1.0 }}\n" for j in range(n))
    return _HEAD + _TILE + "  for i in range(0, 100) {\n" + body + "  }\n}\n"


def let_doubling(n: int) -> str:
    """A loop guard on `a{n-1}`, where `a{j} = a{j-1} + a{j-1}`: z3's translation substituted
    each `let` as a tree, 2^n terms."""
    body = "    let a0 = i\n" + "".join(f"    let a{j} = a{j - 1} + a{j - 1}\n" for j in range(1, n))
    body += (f"    if a{n - 1} == 5 {{ O[0 :+ 1, 0 :+ 32] = t }}\n"
             f"    if a{n - 1} == 3 {{ t[0, ctx.lane] = 1.0 }}\n")
    return _HEAD + _TILE + "  for i in range(0, 100) {\n" + body + "  }\n}\n"


def early_returns(n: int) -> str:
    """n `if .. { return }` in a row: each return raises the control of every statement after it
    (n^2 facts)."""
    body = "".join(f"  if A[0, {j}] > 0.0 {{ return }}\n  O[0, {j}] = 1.0\n" for j in range(n))
    return _HEAD + body + "}\n"


def early_continues(n: int) -> str:
    """n `if .. { continue }` in one loop body: as early_returns, within the loop."""
    body = "".join(f"    if A[0, {j}] > 0.0 {{ continue }}\n    O[0, {j}] = 1.0\n" for j in range(n))
    return _HEAD + "  for i in range(0, N) {\n" + body + "  }\n}\n"


def varying_returns(n: int) -> str:
    """n returns under per-lane conditions, a tile sweep now and then, a barrier at the end: each
    varying return raised every statement after it again (n^2 edges). n + 1 PH301 errors."""
    body = "".join(f"  if A[0, {j}] > 0.0 {{ if ctx.lane == {j % 32} {{ return }} }}\n  O[0, {j}] = 1.0\n"
                   f"  if {j} % 7 == 0 {{ t = t * 2.0 }}\n" for j in range(n))
    return _HEAD + _TILE + body + "  barrier()\n}\n"


def varying_whiles(n: int) -> str:
    """n `while` loops on a per-lane condition, each with a barrier: n PH301 errors, and each
    one's label and help looked for its condition among all n loops (n^2)."""
    body = "".join(f"  var x{j} = 0\n  while x{j} < ctx.lane {{\n    x{j} += 1\n    barrier()\n  }}\n"
                   for j in range(n))
    return _HEAD + body + "}\n"


def sequential_loops(n: int) -> str:
    """n loops one after the other, each storing per thread."""
    body = "".join(f"  for q{j} in range(0, N) {{\n    O[0, q{j}] = 1.0\n  }}\n" for j in range(n))
    return _HEAD + body + "}\n"


def nested_loops(n: int) -> str:
    """n loops nested in each other (the parser allows about 490)."""
    body = "".join(f"{'  ' * (j + 1)}for q{j} in range(0, N) {{\n" for j in range(n))
    body += "  " * (n + 1) + "O[0, 0] = 1.0\n" + "".join("  " * (j + 1) + "}\n" for j in reversed(range(n)))
    return _HEAD + body + "}\n"


def deep_body(n: int, depth: int = 200) -> str:
    """n statements inside ``depth`` nested loops: each name lookup walked every enclosing scope,
    and every loop kept a set of all the nodes inside it (depth x n both; 400 loops around 20,000
    statements: 2.4 s and 1.1 GB)."""
    body = "".join(f"  for q{j} in range(0, N) {{\n" for j in range(depth))    # (indenting would
    body += "".join(f"    O[0, {i}] = 1.0\n" for i in range(n))                  # pass 4 MiB)
    body += "  }\n" * depth
    return _HEAD + body + "}\n"


def else_if_chain(n: int) -> str:
    """`if .. else if ..` n branches long (each `else if` nests one level)."""
    chain = "  if ctx.lane == 0 { x = 0 }" + "".join(f" else if ctx.lane == {j} {{ x = {j} }}" for j in range(1, n))
    return _HEAD + "  var x = 0\n" + chain + "\n}\n"


def tile_statements(n: int) -> str:
    """n tiles, each declared, swept and copied out."""
    body = "".join(f"  var t{j}: tile<f32>[1, 8] = A[0 :+ 1, 0 :+ 8]\n  t{j} = t{j} * 2.0\n"
                   f"  O[0 :+ 1, 0 :+ 8] = t{j}\n" for j in range(n))
    return _HEAD + body + "}\n"


def call_chain(n: int) -> str:
    """Functions g{n-1} -> .. -> g0, each calling the next once, called 20 times."""
    fns = "fn g0(x: i32) -> i32 {\n  return x + 1\n}\n" + "".join(
        f"fn g{j}(x: i32) -> i32 {{\n  return g{j - 1}(x) + 1\n}}\n" for j in range(1, n))
    body = "".join(f"  O[0, g{n - 1}(ctx.lane + {j})] = 1.0\n" for j in range(20))
    return fns + _HEAD + body + "}\n"


def call_tree(n: int) -> str:
    """g{j} calls g{j-1} twice: 2^n inlined calls. Inherent to inlining (a function's bindings get
    one kind per call site); the time doubles with each level."""
    fns = "fn g0(x: i32) -> i32 {\n  return x + 1\n}\n" + "".join(
        f"fn g{j}(x: i32) -> i32 {{\n  return g{j - 1}(x) + g{j - 1}(x + 1)\n}}\n" for j in range(1, n))
    return fns + _HEAD + f"  O[0, g{n - 1}(ctx.lane)] = 1.0\n}}\n"


# name -> (generator, sizes the benchmark times)
SHAPES = {
    "stores_then_barrier": (stores_then_barrier, (1000, 4000)),
    "stores_in_loops": (stores_in_loops, (500, 2000)),
    "store_barrier_read_loop": (store_barrier_read_loop, (10000, 100000)),
    "loop_stores_and_reads": (loop_stores_and_reads, (20, 80)),
    "let_doubling": (let_doubling, (8, 12)),
    "early_returns": (early_returns, (400, 1600)),
    "early_continues": (early_continues, (400, 1600)),
    "varying_returns": (varying_returns, (400, 1600)),
    "varying_whiles": (varying_whiles, (500, 2000)),
    "sequential_loops": (sequential_loops, (2000, 8000)),
    "nested_loops": (nested_loops, (120, 480)),
    "deep_body": (deep_body, (2500, 10000)),
    "else_if_chain": (else_if_chain, (120, 480)),
    "tile_statements": (tile_statements, (1000, 4000)),
    "call_chain": (call_chain, (8, 31)),
    "call_tree": (call_tree, (8, 12)),
}
