"""The simulator against numpy references: every kernel in examples/, at several shapes, ragged ones
included so that masked slices, guards and early exits are exercised. The cases are
tests/support/example_cases.py's: each builds inputs, runs the kernel on the simulator and compares
every output with the example's one numpy reference (tests/gpu/cases.py, shared with the GPU run),
written from the example's header comment (what the kernel computes), not from its code."""

from __future__ import annotations

import numpy as np
import pytest

from example_cases import CASES, EXAMPLES, close, kernel, reference
from phobos_tools.run import DynamicCheckFailed


def test_lanes_matvec_at_4096_by_1024_runs_its_ctas_as_one_vector(monkeypatch):
    """Issue 7's bar: CTAs of a kernel without atomics run together, so the spec's matvec at
    N = 4096, K = 1024 (1024 CTAs of 128 threads) is one batch of numpy vectors, not 1024 runs.
    Its time is a benchmark's figure (benchmarks/sim_vs_numba.py), not a unit test's."""
    from phobos_tools.run import loads
    from phobos_tools.simulator import launch
    made = []

    class Counting(launch.Machine):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self.C)
    monkeypatch.setattr(launch, "Machine", Counting)
    source = (EXAMPLES / "lanes_matvec.ph").read_text()
    rng = np.random.default_rng(0)
    W = rng.standard_normal((4096, 1024), dtype=np.float32)
    x = rng.standard_normal((1, 1024), dtype=np.float32)
    y = np.zeros((1, 4096), np.float32)
    loads(source, "lanes_matvec.ph").kernel()(W, x, y, grid=(1024,))
    close(y, reference("lanes_matvec", {"W": W, "x": x, "y": y})["y"], rtol=1e-5, atol=1e-4)
    assert made == [1024]


def test_lane_strided_with_ragged_rows_reads_out_of_bounds():
    """LANGUAGE §11's lane_strided loads W[col, k] before checking col < N, so with N not a
    multiple of the warps per CTA the last warps read past W: undefined on a GPU, reported here."""
    rng = np.random.default_rng(1)
    W = rng.standard_normal((6, 40), dtype=np.float32)
    A = rng.standard_normal((1, 40), dtype=np.float32)
    y = np.zeros((1, 6), np.float32)
    with pytest.raises(DynamicCheckFailed) as err:
        kernel("lane_strided")(W, A, y, grid=(2,))
    assert err.value.code == "PH402"
    assert "`W[col, k]` is out of bounds of `W` (shape [6, 40])" in str(err.value)
    assert "CTA (1, 0, 0)" in str(err.value)


def test_chunk_cumsum_with_other_autotune_values():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((70, 90), dtype=np.float32)
    Y = np.zeros_like(X)
    kernel("chunk_cumsum", TT=32, CC=64)(X, Y, grid=(2,))
    close(Y, reference("chunk_cumsum", {"X": X, "Y": Y})["Y"], rtol=1e-4, atol=1e-4)


def test_every_example_has_a_case():
    assert sorted(CASES) == sorted(p.stem for p in EXAMPLES.glob("*.ph"))


def _case(name, fn, shape):
    """One example at one shape; the few that take seconds on the simulator in the slow tier."""
    ident = f"{name}-{'x'.join(map(str, shape)) or 'fixed'}"
    return pytest.param(fn, shape, id=ident, marks=[pytest.mark.slow] if ident in SLOW_CASES else [])


SLOW_CASES = {"jacobi_poisson-1x3000"}


@pytest.mark.parametrize("fn,shape", [_case(name, fn, s) for name, cs in CASES.items() for fn, s in cs])
def test_example_matches_numpy(fn, shape):
    fn(np.random.default_rng(hash(shape) % 2**32), *shape)
