"""The Python API's argument errors on the simulator (and the GPU runtime's, which must agree):
each bad input is one ArgumentError (a ValueError) naming what is wrong, never a silent
reinterpretation and never an error from deep inside the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from lowering_tools import REPO

from phobos_tools.lowering.runtime import Kernel as GPUKernel, LaunchError
from phobos_tools.run import ArgumentError, load

N, K = 8, 256


@pytest.fixture(scope="module")
def matvec():
    return load(REPO / "examples" / "lanes_matvec.ph").kernel("lanes_matvec")


def arrays():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((N, K), dtype=np.float32), rng.standard_normal((1, K), dtype=np.float32),
            np.zeros((1, N), np.float32))


@pytest.mark.parametrize("grid,why", [
    ("2", "not '2'"),             # was read as the grid (2,): "12" as (1, 2)
    ("12", "not '12'"),
    ((2.5,), "not (2.5,)"),       # was truncated to (2,)
    (2.5, "not 2.5"),
    ((True,), "not (True,)"),
    ((1, 2, 3, 4), "1 to 3"),
])
def test_a_grid_that_is_not_integers_is_refused(matvec, grid, why):
    with pytest.raises(ArgumentError, match="grid") as e:
        matvec(*arrays(), grid=grid)
    assert why in str(e.value)


def test_numpy_integers_make_a_grid(matvec):
    W, x, y = arrays()
    matvec(W, x, y, grid=(np.int64(2),))
    assert np.allclose(y[0], W @ x[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("grid", ["2", (2.5,), (True,)])
def test_the_gpu_runtime_refuses_the_same_grids(grid):
    manifest = {"version": 1, "entry": "k", "block": 32, "params": [], "extents": [], "aligned": {}}
    with pytest.raises(LaunchError, match="grid"):
        GPUKernel("", manifest)(grid=grid)


@pytest.mark.parametrize("value", [0, -1, "a", 2.5, True])
def test_max_loop_iterations_is_a_positive_integer(matvec, value):
    with pytest.raises(ArgumentError, match="max_loop_iterations"):
        matvec(*arrays(), grid=(2,), max_loop_iterations=value)


def test_an_output_that_overlaps_an_input_is_refused(matvec):
    # distinct tensor parameters do not alias (LANGUAGE §9.5): the GPU build marks them noalias,
    # so the simulator's answer for overlapping arrays is not what the GPU would give
    W, x, _y = arrays()
    buf = np.zeros(K + N, np.float32)
    x2, y2 = buf[:K].reshape(1, K), buf[K - N:K].reshape(1, N)        # y overlaps x's last elements
    with pytest.raises(ArgumentError, match="`x` and `y` share memory"):
        matvec(W, x2, y2, grid=(2,))
    with pytest.raises(ArgumentError, match="`W` and `x` share memory"):
        matvec(W, W[:1], np.zeros((1, N), np.float32), grid=(2,))


def test_the_gpu_runtime_refuses_overlapping_arrays_too():
    manifest = {"version": 1, "entry": "k", "block": 32, "extents": ["N"], "aligned": {},
                "params": [{"name": "A", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
                           {"name": "B", "kind": "tensor", "dtype": "f32", "shape": ["N"]}]}
    a = np.zeros(8, np.float32)
    with pytest.raises(LaunchError, match="`A` and `B` share memory"):
        GPUKernel("", manifest).prepare(a, a)

    class Dev:
        def __init__(self, ptr):
            self.__cuda_array_interface__ = {"shape": (8,), "typestr": "<f4", "data": (ptr, False), "version": 3}
    with pytest.raises(LaunchError, match="`A` and `B` share memory"):
        GPUKernel("", manifest).prepare(Dev(0x1000), Dev(0x1010))
    GPUKernel("", manifest).prepare(Dev(0x1000), Dev(0x1020))       # adjacent, not overlapping


def test_empty_arrays_share_nothing(matvec):
    matvec(np.zeros((0, K), np.float32), np.zeros((1, K), np.float32), np.zeros((1, 0), np.float32), grid=(1,))


HALF_SCALARS = """@launch(32)
kernel scale(X: tensor<bf16>[N], s: bf16, h: f16) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N {
    X[i] = bf16(f32(X[i]) * f32(s) + f32(h))
  }
}
"""


@pytest.mark.parametrize("s", [2.0, np.float32(2.0), "bf16"])
def test_a_bf16_scalar_takes_a_bf16_value(s):
    import ml_dtypes
    from phobos_tools.run import loads
    k = loads(HALF_SCALARS, "t.ph").kernel()
    value = ml_dtypes.bfloat16(2.0) if s == "bf16" else s        # was refused: "`s` is a bf16, not bfloat16"
    X = np.ones(32, ml_dtypes.bfloat16)
    k(X, value, np.float16(0.5), grid=1)
    assert X.astype(np.float32).tolist() == [2.5] * 32
    manifest = {"version": 1, "entry": "scale", "block": 32, "extents": ["N"], "aligned": {},
                "params": [{"name": "X", "kind": "tensor", "dtype": "bf16", "shape": ["N"]},
                           {"name": "s", "kind": "scalar", "dtype": "bf16"},
                           {"name": "h", "kind": "scalar", "dtype": "f16"}]}
    p = GPUKernel("", manifest).prepare(X, value, np.float16(0.5))
    assert float(p.scalars[1]) == 2.0 and p.scalars[1].dtype == ml_dtypes.bfloat16


def test_a_device_array_is_pointed_to_the_runtime(matvec):
    class ndarray:                      # what cupy's arrays look like to the API
        __module__ = "cupy._core.core"
        __cuda_array_interface__ = {"shape": (N, K), "typestr": "<f4", "data": (0x1000, False), "version": 3}
    _W, x, y = arrays()
    with pytest.raises(ArgumentError, match=r"`W` is a device array \(cupy.ndarray\).*device=\"gpu\""):
        matvec(ndarray(), x, y, grid=(2,))
    with pytest.raises(ArgumentError, match="pass a numpy array, not list"):
        matvec([[0.0]], x, y, grid=(2,))
