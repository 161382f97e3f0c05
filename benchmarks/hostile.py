"""The worst shapes of issue 18, grown to about 100 KB: how much CPU time and memory
`phobos-check` (and `phobos-build`, for the shapes that reach the build) spends per KB.

Each shape is a small generator of valid source, grown until the file is about the size asked
for. Every run is a fresh process under a CPU-time limit and an address-space limit (a run past
them is printed as `>LIMIT` / `killed`), measured by the kernel (``os.wait4``): CPU seconds
(user + system) and peak resident memory. The goal of the issue: no file under 100 KB takes more
than 30 s of CPU or 2 GB in `phobos-check`/`phobos-build` on the 2-core test machine.

Shapes (each also at the size the issue quotes, where it quotes one):

- ``z3_loop_pairs``: n guarded tile reads and n guarded per-thread stores in one loop, the
  guards nonlinear, so that every store-to-read question costs z3 its whole limit (issue: 8 and
  8 in 1.3 KB took 95 s);
- ``z3_function_copies``: the same 10 x 10 in a function, called k times (issue: 2.5 KB with 100
  calls ran for hours);
- ``z3_many_kernels``: one hard question in each of many small kernels (every kernel has its own
  budget, so this is the file-wide total of those budgets);
- ``loop_stores_and_reads``: tests/support/scaling_shapes.py's shape (z3 proves n^2 paths
  infeasible);
- ``while_sequence`` / ``while_nest``: a store and a read in each of n `while` loops, one after
  the other or nested (each read's path from the first store crossed every loop before it);
- ``doubling_calls``: 14 functions that each call the next one twice, n statements each
  (issue: 3.4 KB doubling 14 times checked after 50 s and 6.9 GB);
- ``nested_loops``, ``else_if_chain``, ``long_sum``, ``let_chain``: deep and long syntax;
- ``unrolled_body``: `for<unroll 256>` around many statements (``phobos-build``: PH213).

    python benchmarks/hostile.py [--kb 100] [--shapes NAME,..] [--cpu-limit 120] [--mem-limit-gb 8]
                                 [--quoted]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HEAD = "@launch(256)\nkernel k(A: tensor<f32>[M, N], O: tensor<f32>[M, N]) {\n"
TILE = "  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]\n"


# ---------------------------------------------------------------- the shapes
def z3_loop_pairs(n: int) -> str:
    reads = "".join(f"    if (i * i + {j}) % 7 == 0 {{ O[0 :+ 1, 0 :+ 32] = t }}\n" for j in range(n))
    stores = "".join(f"    if (i * i * i + {j}) % 11 == 1 {{ t[0, ctx.lane] = 1.0 }}\n" for j in range(n))
    return HEAD + TILE + "  for i in range(0, N) {\n" + reads + stores + "  }\n}\n"


def z3_function_copies(k: int, n: int = 10) -> str:
    reads = "".join(f"    if (i * i + c + {j}) % 7 == 0 {{ A[0 :+ 1, 0 :+ 32] = O[0 :+ 1, 0 :+ 32] }}\n"
                    for j in range(n))
    stores = "".join(f"    if (i * i * i + c + {j}) % 11 == 1 {{ O[0, ctx.lane] = 1.0 }}\n" for j in range(n))
    fn = ("fn f(A: tensor<f32>[M, N], O: tensor<f32>[M, N], c: i32) {\n  for i in range(0, N) {\n"
          + reads + stores + "  }\n}\n")
    return fn + HEAD + "".join(f"  f(A, O, {j})\n" for j in range(k)) + "}\n"


def z3_many_kernels(n: int) -> str:
    one = ("@launch(128)\nkernel k{j}(A: tensor<f32>[1, 32], a: i32, b: i32) {{\n"
           "  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]\n  t[0, ctx.lane] = 1.0\n"
           "  if a * a * a + b * b * b == {c} {{ A[0 :+ 1, 0 :+ 32] = t }}\n}}\n")
    return "".join(one.format(j=j, c=7 + j) for j in range(n))


def loop_stores_and_reads(n: int) -> str:
    body = "".join(f"    if i < {10 - j % 5} {{ O[0 :+ 1, 0 :+ 32] = t }}\n" for j in range(n))
    body += "".join(f"    if i >= {10 + j} {{ t[0, ctx.lane] = 1.0 }}\n" for j in range(n))
    return HEAD + TILE + "  for i in range(0, 100) {\n" + body + "  }\n}\n"


def while_sequence(n: int) -> str:
    body = "".join(f"  while x < {j} {{\n    t[0, ctx.lane] = 1.0\n    O[0 :+ 1, 0 :+ 32] = t\n    x += 1\n  }}\n"
                   for j in range(n))
    return HEAD + TILE + "  var x = 0\n" + body + "}\n"


def while_nest(n: int) -> str:
    depth = min(n, 450)
    per = max(1, n // depth)
    opens = "".join(f"while x < {j} {{\n" + "O[0 :+ 1, 0 :+ 32] = t\nt[0, ctx.lane] = 1.0\n" * per
                    for j in range(depth))
    return HEAD + TILE + "  var x = 0\n" + opens + "}\n" * depth + "}\n"


def doubling_calls(stmts: int, levels: int = 14) -> str:
    work = "".join(f"  let v{s} = x * {s + 2} + {s}\n" for s in range(stmts))
    total = " + ".join(f"v{s}" for s in range(stmts))
    fns = f"fn g0(x: i32) -> i32 {{\n{work}  return {total}\n}}\n"
    for j in range(1, levels):
        fns += f"fn g{j}(x: i32) -> i32 {{\n{work}  return g{j - 1}(x + v0) + g{j - 1}(x + v1)\n}}\n"
    return fns + HEAD + f"  O[0, g{levels - 1}(ctx.lane)] = 1.0\n}}\n"


def nested_loops(n: int) -> str:
    depth = min(n, 450)
    opens = "".join(f"for q{j} in range(0, N) {{\n" for j in range(depth))
    return HEAD + opens + "O[0, 0] = 1.0\n" * max(1, n - depth) + "}\n" * depth + "}\n"


def else_if_chain(n: int) -> str:
    chain = "  if ctx.lane == 0 { x = 0 }" + "".join(f" else if ctx.lane == {j} {{ x = {j} }}" for j in range(1, n))
    return HEAD + "  var x = 0\n" + chain + "\n  O[0, 0] = f32(x)\n}\n"


def long_sum(n: int) -> str:
    lines = []
    for b in range(0, n, 900):
        terms = " + ".join(f"A[0, {j}]" for j in range(b, min(n, b + 900)))
        lines.append(f"  s += {terms}\n")
    return HEAD + "  var s = 0.0\n" + "".join(lines) + "  O[0, 0] = s\n}\n"


def let_chain(n: int) -> str:
    body = "    let a0 = i\n" + "".join(f"    let a{j} = a{j - 1} * 3 + a{j - 1} % 5\n" for j in range(1, n))
    body += (f"    if a{n - 1} == 5 {{ O[0 :+ 1, 0 :+ 32] = t }}\n"
             f"    if a{n - 1} == 3 {{ t[0, ctx.lane] = 1.0 }}\n")
    return HEAD + TILE + "  for i in range(0, 100) {\n" + body + "  }\n}\n"


def unrolled_body(n: int) -> str:
    body = "".join(f"    O[0, i + {j % 97}] = A[0, i] * {j}.0\n" for j in range(n))
    return HEAD + "  for<unroll 256> i in range(0, 256) {\n" + body + "  }\n}\n"


# name -> (generator, the size the issue quotes or None, commands)
SHAPES = {
    "z3_loop_pairs": (z3_loop_pairs, 8, ("check",)),
    "z3_function_copies": (z3_function_copies, 100, ("check",)),
    "z3_many_kernels": (z3_many_kernels, None, ("check",)),
    "loop_stores_and_reads": (loop_stores_and_reads, None, ("check",)),
    "while_sequence": (while_sequence, None, ("check",)),
    "while_nest": (while_nest, None, ("check",)),
    "doubling_calls": (doubling_calls, 7, ("check",)),
    "nested_loops": (nested_loops, None, ("check", "build")),
    "else_if_chain": (else_if_chain, None, ("check", "build")),
    "long_sum": (long_sum, None, ("check", "build")),
    "let_chain": (let_chain, None, ("check",)),
    "unrolled_body": (unrolled_body, 1000, ("check", "build")),
}


def grown(make, kb: float) -> tuple[int, str]:
    """The smallest n (found by doubling, then bisection) whose source is at least ``kb`` KB."""
    target = int(kb * 1024)
    lo, hi = 1, 2
    while len(make(hi)) < target:
        lo, hi = hi, hi * 2
        if hi > 1 << 22:
            break
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if len(make(mid)) < target:
            lo = mid
        else:
            hi = mid
    return hi, make(hi)


# ---------------------------------------------------------------- measuring
def command(which: str, path: Path, out: Path) -> list[str]:
    exe = Path(sys.executable).with_name(f"phobos-{which}")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", f"phobos_tools.cli.{which}"]
    cmd.append(str(path))
    if which == "build":
        cmd += ["-o", str(out)]
    return cmd


def measure(cmd: list[str], cpu_limit: int, mem_limit: int) -> tuple[float, float, str]:
    """(CPU seconds, peak RSS MB, exit status or what stopped it) of one fresh process."""
    def limits():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))
        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
    env = dict(os.environ, PYTHONHASHSEED="0")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limits, env=env)
    stderr = p.stderr
    tail = stderr.read()[-2000:] if stderr is not None else b""
    _pid, status, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    cpu = ru.ru_utime + ru.ru_stime
    rss = ru.ru_maxrss / 1024
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        how = f">{cpu_limit}s" if sig in (24, 9) and cpu >= cpu_limit - 1 else f"signal {sig}"
    else:
        code = os.WEXITSTATUS(status)
        how = str(code)
        if code in (1, 3) and b"memory" in tail.lower():
            how = f"{code} (memory)"
    return cpu, rss, how


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", type=float, default=100.0, help="grow each shape to this size (default 100)")
    ap.add_argument("--shapes", default="all", help="comma-separated names, or `all`")
    ap.add_argument("--cpu-limit", type=int, default=120, help="CPU seconds per run (default 120)")
    ap.add_argument("--mem-limit-gb", type=float, default=8.0, help="address space per run (default 8)")
    ap.add_argument("--quoted", action="store_true", help="also run each shape at the size the issue quotes")
    ap.add_argument("--keep", type=Path, default=None, help="write the generated files into this folder")
    args = ap.parse_args()
    names = list(SHAPES) if args.shapes == "all" else args.shapes.split(",")
    mem_limit = int(args.mem_limit_gb * (1 << 30))
    print(f"{'shape':<22} {'n':>7} {'KB':>7} {'command':<7} {'cpu s':>8} {'peak MB':>8} "
          f"{'s/KB':>7} {'MB/KB':>7} {'exit':>10}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            make, quoted, commands = SHAPES[name]
            runs = []
            if args.quoted and quoted is not None:
                runs.append((quoted, make(quoted)))
            runs.append(grown(make, args.kb))
            for n, src in runs:
                path = folder / f"{name}_{n}.ph"
                path.write_text(src)
                kb = len(src.encode()) / 1024
                for which in commands:
                    cpu, rss, how = measure(command(which, path, folder / f"{name}_{n}.out"), args.cpu_limit, mem_limit)
                    print(f"{name:<22} {n:>7} {kb:>7.1f} {which:<7} {cpu:>8.2f} {rss:>8.0f} "
                          f"{cpu / kb:>7.3f} {rss / kb:>7.2f} {how:>10}", flush=True)


if __name__ == "__main__":
    main()
