"""Time to parse, and to parse and type-check (the front end, without the per-thread analysis that
benchmarks/check_scaling.py times), generated kernels of 1k, 10k and 100k statements.

Prints a table; asserts nothing. Target (issue 2): 10k statements parsed and type-checked in
under 0.5 s on the 2-core development machine, growth close to linear.

    python benchmarks/parse_scaling.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_kernels import kernel_source  # noqa: E402

from phobos_tools.analyzer import check_source  # noqa: E402
from phobos_tools.analyzer.api import pause_gc  # noqa: E402
from phobos_tools.analyzer.sema import analyze  # noqa: E402
from phobos_tools.analyzer.syntax import parse  # noqa: E402


def _parse_as_checked(src: str) -> None:
    with pause_gc():                # as check_source runs it
        parse(src, [])


def _parse_and_type_check(src: str) -> None:
    """The front end only (issue 2's target): parse, names, types, shapes, op classes."""
    with pause_gc():
        diags: list = []
        program = parse(src, diags)
        analyze(program, None, diags)
        assert not diags, diags[:3]


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sizes", default="1000,10000,100000")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    check_source("kernel warm() { }")       # build the parser tables once, outside the timing
    rows = []
    for n in sizes:
        src = kernel_source(n)
        result = check_source(src)
        assert result.ok, [d.message for d in result.diagnostics[:3]]
        repeat = args.repeat if n <= 10000 else max(1, args.repeat // 2)
        t_parse = best_of(lambda: _parse_as_checked(src), repeat)
        t_check = best_of(lambda: _parse_and_type_check(src), repeat)
        rows.append((n, src.count("\n"), len(src), t_parse, t_check))
    print(f"{'statements':>10} {'lines':>8} {'bytes':>10} {'parse s':>9} {'parse+types s':>14} {'us/stmt':>8}")
    for n, lines, size, tp, tc in rows:
        print(f"{n:>10} {lines:>8} {size:>10} {tp:>9.3f} {tc:>14.3f} {tc / n * 1e6:>8.1f}")
    if len(rows) >= 2:
        (n0, *_, c0), (n1, *_, c1) = rows[0], rows[-1]
        print(f"growth exponent (parse+check, {n0} -> {n1}): {math.log(c1 / c0) / math.log(n1 / n0):.2f}")


if __name__ == "__main__":
    main()
