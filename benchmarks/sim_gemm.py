"""The simulator on examples/tiled_gemm.ph (issue 22): C = A B of f16 n x n matrices, f32
accumulation, BM = BN = 64, BK = 32, through the Python API (``device="sim"``), timed from the
kernel call to its return (the check of the file is not counted).

With ``--base DIR`` the same run goes, in the same invocation, through another copy of the
package as well (``DIR/phobos_tools``: an older checkout, e.g. ``git worktree add /tmp/base
HEAD`` and a symlink ``/tmp/base-site/phobos_tools -> /tmp/base``), alternating the two, each
in a fresh process, and prints the ratio of the medians.

    python benchmarks/sim_gemm.py [--sizes 1024] [--reps 3] [--base DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, sys, time
import numpy as np
from phobos_tools.run import load
n = int(sys.argv[1])
k = load(sys.argv[2], defines={"BM": 64, "BN": 64, "BK": 32}).kernel("tiled_gemm")
rng = np.random.default_rng(0)
A = rng.standard_normal((n, n)).astype(np.float16)
B = rng.standard_normal((n, n)).astype(np.float16)
C = np.zeros((n, n), np.float32)
t = time.perf_counter()
k(A, B, C, grid=(-(-n // 64), -(-n // 64)))
dt = time.perf_counter() - t
err = float(np.abs(C - A.astype(np.float32) @ B.astype(np.float32)).max())
print(json.dumps({"seconds": dt, "max_abs_error": err}))
"""


def one(n: int, site: str | None) -> dict:
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = site + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", _CHILD, str(n), str(REPO / "examples" / "tiled_gemm.ph")],
                         capture_output=True, text=True, env=env, cwd="/", check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1024")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--base", help="a folder holding another copy of phobos_tools, to compare with")
    opts = ap.parse_args()
    for n in (int(s) for s in opts.sizes.split(",")):
        ours, base = [], []
        for _ in range(opts.reps):
            ours.append(one(n, None))
            if opts.base:
                base.append(one(n, opts.base))
        t = statistics.median(r["seconds"] for r in ours)
        line = f"n={n}: this tree {t:.2f} s (max abs error {ours[0]['max_abs_error']:.3g})"
        if base:
            b = statistics.median(r["seconds"] for r in base)
            line += f"; base {b:.2f} s (max abs error {base[0]['max_abs_error']:.3g}); {b / t:.1f}x faster"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
