"""The simulator against the peer users would otherwise reach for: numba-cuda's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``, one Python thread per GPU thread).

Both run the spec's matrix-vector product y = W x, one warp per row of W, on the same inputs, in
this one process. Ours is the lanes matvec of per-thread-values.md, timed from its source text to
the result (check, then simulate). numba's simulator has no shuffles, so its kernel keeps the
same per-lane partial sums and folds them through shared memory with barriers; it is timed from
the jitted function's call to the result. Prints the times and their ratio at two sizes.

    python benchmarks/sim_vs_numba.py [--sizes 256x1024,1024x1024] [--numba-site DIR]

``--numba-site`` adds a folder where numba-cuda was installed with ``pip install --target``
(so a shared environment need not carry it). Without numba-cuda the script says so and prints
our times only.
"""

from __future__ import annotations

import argparse
import os
import site
import sys
import time
from pathlib import Path

import numpy as np

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"           # before numba is imported anywhere

REPO = Path(__file__).resolve().parents[1]
SOURCE = (REPO / "examples" / "lanes_matvec.ph").read_text()
cuda = None                                          # numba.cuda, once numba_matvec() imports it


def ours(W, x):
    from phobos_tools.run import loads
    y = np.zeros((1, W.shape[0]), np.float32)
    start = time.perf_counter()
    kernel = loads(SOURCE, "lanes_matvec.ph").kernel("lanes_matvec")
    kernel(W, x, y, grid=(-(-W.shape[0] // 4),))
    return time.perf_counter() - start, y


def _matvec_for_numba(W, x, y):
    """The same matvec for numba's simulator: 128 threads, one warp per row, lanes taking runs of
    four columns 128 apart, partial sums folded through shared memory (no shuffles there). A
    module-level function: the simulator swaps its own `cuda` into the kernel's globals."""
    partial = cuda.shared.array(128, np.float32)
    t = cuda.threadIdx.x
    lane = t % 32
    row = cuda.blockIdx.x * 4 + t // 32
    acc = np.float32(0.0)
    if row < W.shape[0]:
        for k in range(0, W.shape[1], 128):
            at = k + lane * 4
            acc += (W[row, at] * x[0, at] + W[row, at + 1] * x[0, at + 1]
                    + W[row, at + 2] * x[0, at + 2] + W[row, at + 3] * x[0, at + 3])
    partial[t] = acc
    cuda.syncthreads()
    s = 16
    while s > 0:
        if lane < s:
            partial[t] += partial[t + s]
        cuda.syncthreads()
        s //= 2
    if lane == 0 and row < W.shape[0]:
        y[0, row] = partial[t]


def numba_matvec():
    from numba import cuda as numba_cuda
    globals()["cuda"] = numba_cuda
    matvec = numba_cuda.jit(_matvec_for_numba)

    def run(W, x):
        y = np.zeros((1, W.shape[0]), np.float32)
        start = time.perf_counter()
        matvec[-(-W.shape[0] // 4), 128](W, x, y)
        return time.perf_counter() - start, y

    return run


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="256x1024,1024x1024", help="N x K pairs, comma-separated")
    p.add_argument("--numba-site", help="a folder numba-cuda was installed into with pip --target")
    opts = p.parse_args()
    if opts.numba_site:
        site.addsitedir(opts.numba_site)
    sizes = [tuple(int(v) for v in s.split("x")) for s in opts.sizes.split(",")]
    try:
        numba_run = numba_matvec()
        import numba
        peer = f"numba {numba.__version__} CUDA simulator"
    except ImportError as e:
        numba_run = None
        print(f"numba-cuda is not installed ({e}); `pip install numba-cuda` to compare. Our times only.")

    from phobos_tools.analyzer import check_source
    check_source("kernel warm() {}\n")             # build the parser once, as any session does
    print(f"{'N x K':>12} {'phobos sim (s)':>15} {'numba sim (s)':>14} {'ratio':>8}")
    rng = np.random.default_rng(0)
    for n, k in sizes:
        W = rng.standard_normal((n, k), dtype=np.float32)
        x = rng.standard_normal((1, k), dtype=np.float32)
        t_ours, y = ours(W, x)
        assert np.allclose(y[0], W @ x[0], rtol=1e-4, atol=1e-3)
        if numba_run is None:
            print(f"{n:>5} x {k:<5} {t_ours:15.3f} {'-':>14} {'-':>8}")
            continue
        t_numba, y_numba = numba_run(W, x)
        assert np.allclose(y_numba[0], W @ x[0], rtol=1e-4, atol=1e-3)
        print(f"{n:>5} x {k:<5} {t_ours:15.3f} {t_numba:14.2f} {t_numba / t_ours:7.0f}x")
    if numba_run is not None:
        print(f"peer: {peer}; ours from source text to result, numba's from the call to the result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
