"""phobos-check's scaling: generated clean kernels of 1k, 10k and 100k statements (nested loops
and ifs, lane-strided loops, per-thread stores each followed by a barrier, tile operations and
lane collectives; see gen_kernels.py), checked in-process with parse included, plus the wall
time of the `phobos-check` command on one small file and the peak memory at the largest size.

Then the shapes of tests/support/scaling_shapes.py, each at two sizes (the kernels that once grew
faster than their size: many stores before one barrier, z3 pairs in a loop, let chains in a
guard, early exits in a row, deep nesting, call chains and trees), with the growth exponent
between the sizes (1: linear; call_tree doubles per level by design, so its "size" is levels).

Prints tables of CPU seconds (the process's, parse included); asserts nothing. Targets (issues 3
and 16): growth exponent at most 1.1 from 10k to 100k statements, for the generated kernels and
for a store, a barrier and a read repeated in one loop (30k statements of it in under 3 s);
`phobos-check` on one small file under 0.4 s wall; peak memory under 1 GB at 100k.

    python benchmarks/check_scaling.py [--repeat 3] [--shapes NAME,..|none]
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "support"))

from gen_kernels import kernel_source  # noqa: E402
from scaling_shapes import SHAPES  # noqa: E402

from phobos_tools.analyzer import check_source  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def timed_check(src: str, repeat: int, clean: bool = True) -> float:
    """The best CPU time of ``repeat`` checks (CPU, not wall: the figures hold on a loaded machine)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()                  # as phobos-check runs (cli/check.py)
        t0 = time.process_time()
        result = check_source(src)
        best = min(best, time.process_time() - t0)
        gc.enable()
        if clean:
            assert result.ok, [d.message for d in result.diagnostics[:3]]
        else:                         # errors of the analysis are the point of some shapes
            assert result.analyzed, [d.message for d in result.diagnostics[:3]]
        del result
    return best


def shape_rows(names: list[str], repeat: int) -> None:
    print(f"\n{'shape':<24} {'size':>6} {'cpu s':>9} {'size':>6} {'cpu s':>9} {'growth':>7}")
    for name in names:
        make, (n0, n1) = SHAPES[name]
        t0 = timed_check(make(n0), repeat, clean=False)
        t1 = timed_check(make(n1), repeat, clean=False)
        print(f"{name:<24} {n0:>6} {t0:>9.3f} {n1:>6} {t1:>9.3f} {math.log(t1 / t0) / math.log(n1 / n0):>7.2f}")


def peak_rss_mib(n: int) -> float:
    """Peak resident memory of a fresh process that checks an n-statement kernel."""
    code = (f"import sys, resource; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
            "from gen_kernels import kernel_source\n"
            "from phobos_tools.analyzer import check_source\n"
            f"r = check_source(kernel_source({n}))\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


def cli_wall(path: Path, repeat: int) -> float:
    exe = Path(sys.executable).with_name("phobos-check")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "phobos_tools.cli.check"]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd + [str(path)], capture_output=True, check=False)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--shapes", default="all", help="comma-separated names from tests/support/scaling_shapes.py, "
                    "`all` or `none`")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    check_source(kernel_source(100))           # build the parser tables outside the timing
    rows = []
    for n in sizes:
        src = kernel_source(n)
        t = timed_check(src, args.repeat if n <= 10000 else 1)
        rows.append((n, t))
    print(f"{'statements':>10} {'cpu s':>9} {'us/stmt':>8}")
    for n, t in rows:
        print(f"{n:>10} {t:>9.3f} {t / n * 1e6:>8.1f}")
    if len(rows) >= 2:
        (n0, t0), (n1, t1) = rows[0], rows[-1]
        print(f"growth exponent ({n0} -> {n1}): {math.log(t1 / t0) / math.log(n1 / n0):.2f}")
    print(f"phobos-check examples/lanes_matvec.ph, wall: {cli_wall(ROOT / 'examples' / 'lanes_matvec.ph', 5):.3f} s")
    print(f"peak memory at {sizes[-1]} statements: {peak_rss_mib(sizes[-1]):.0f} MiB")
    names = list(SHAPES) if args.shapes == "all" else [] if args.shapes == "none" else args.shapes.split(",")
    if names:
        shape_rows(names, args.repeat)


if __name__ == "__main__":
    main()
