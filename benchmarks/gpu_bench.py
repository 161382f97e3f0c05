"""The GPU bench of issue 9: memory-bound Phobos kernels against the copy bandwidth and cupy/cuBLAS.

Here (no GPU needed; the analyzer, llvmlite, ptxas and cuobjdump):

    python benchmarks/gpu_bench.py prepare [BUNDLE] [--wheels-from DIR] [--wheels DIR]
        builds every example (tests/gpu/prepare.py: correctness cases) and the bench kernels (the
        lanes matvec, row sums and row softmax examples, and the matvec variants of
        benchmarks/gpu_kernels/matvec_variants.ph) into BUNDLE (default build/gpu-bundle), reads
        ptxas -v and cuobjdump -sass of each bench kernel, copies the pycuda wheels into
        .gpu_wheels/, and prints the one device call that runs everything (tests/gpu/device_run.sh).
    python benchmarks/gpu_bench.py static [BUNDLE]
        the ptxas/SASS table of the bench kernels, as markdown (RESULTS.md, "Before the GPU").
    python benchmarks/gpu_bench.py run BUNDLE --dry-run [--out DIR]
        everything the GPU run does but the GPU: the manifests checked against every full-size
        launch, the grids, the byte counts and the GB/s arithmetic on made-up timings, and each
        bench kernel run in the simulator at a small size against a float64 reference.

There (the GPU machine: numpy, cupy and lowering/runtime.py, loaded from its file):

    python benchmarks/gpu_bench.py run BUNDLE --out $OUT
        times with CUDA events (warm-up, then the median of --reps launches) a device-to-device
        copy (the bandwidth ceiling: bytes read + written over the time), the lanes matvec and its
        variants in f32 at N = K = 16384 and at 4096 x 65536 (rows x columns), row sums and row
        softmax at two large shapes each, and the same operations through cupy (W @ x and
        cupy.cublas.gemv, A.sum(axis=1), softmax from cupy operations). Each output is poisoned
        (NaN) before its first launch and compared with a float64 reference (max |out - ref| /
        max |ref|), and again after the timed launches. Writes bench.json and bench.md.

Afterwards, here:

    python benchmarks/gpu_bench.py results-row OUT/bench.json [--correctness OUT/correctness.json]
        [--sanitizer OUT/sanitizer.json] [--api OUT/api_gpu.json] [--diff OUT/gpu_diff.json]
        [--backends OUT/backends.json]
        [--results benchmarks/RESULTS.md] [--print]
        turns a run into rows of benchmarks/RESULTS.md (inserted above the marker; earlier rows stay).

GB/s is the fewest bytes the operation must move (each input read once, each output written once)
over the median time; "% of copy" is that over the copy's GB/s in the same run; "vs cupy" is
cupy's median time over ours (above 1: faster than cupy; for the matvec, the faster of cupy's
W @ x and cupy.cublas.gemv, both cuBLAS).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_BUNDLE = REPO / "build" / "gpu-bundle"
DEFAULT_WHEELS = REPO / ".gpu_wheels"
WHEEL_SOURCES = (Path("/work/shared/wheels/gpu-py312"), REPO.parent / "shared" / "wheels" / "gpu-py312",
                 REPO / "shared" / "wheels" / "gpu-py312")
VARIANTS_SRC = "benchmarks/gpu_kernels/matvec_variants.ph"
RESULTS_MD = HERE / "RESULTS.md"
ROW_MARKER = "<!-- results-row inserts new rows above this line -->"
VARIANT_MARKER = "<!-- results-row inserts new variant rows above this line -->"
EXAMPLE_MARKER = "<!-- results-row inserts new example rows above this line -->"
DEVICE_CALL = {"command": "bash tests/gpu/device_run.sh", "carry": ["build/gpu-bundle", ".gpu_wheels"],
               "timeout_s": 300}

F32_TOL = 1e-4
APPROX_TOL = 2e-3        # row_softmax's exp is ex2.approx
COPY_BYTES = 2 << 30     # 2 GiB copied: 4 GiB moved

# the shapes timed (rows, columns); every one is a multiple of what the variants' @aligned asks
SHAPES = {
    "matvec": [(16384, 16384), (4096, 65536)],
    "row_sums": [(16384, 16384), (131072, 2048)],
    "row_softmax": [(16384, 8192), (131072, 1024)],
}
# --quick: the same steps at small shapes (a smoke test, on the GPU or with a stand-in for cupy)
QUICK_SHAPES = {"matvec": [(64, 4096), (16, 8192)], "row_sums": [(64, 300)], "row_softmax": [(64, 300)]}
QUICK_COPY_BYTES = 1 << 20
# the shapes of the dry run's simulator check (small: the simulator runs on the CPU)
SIM_SHAPES = {"matvec": (24, 4096), "row_sums": (20, 300), "row_softmax": (20, 300)}

# name: (kernel in VARIANTS_SRC, -D bindings). One knob at a time around the example's layout
# (RPW 1, VEC 4), then the combinations that keep most W bytes in flight (benchmarks/RESULTS.md,
# "Before the GPU", gives each one's registers and loads in flight).
VARIANTS = {
    "warp_r1_v4_u1_m16": ("matvec_warp", dict(RPW=1, VEC=4, UNROLL=1, MINB=16)),
    "warp_r1_v4_u4_m16": ("matvec_warp", dict(RPW=1, VEC=4, UNROLL=4, MINB=16)),
    "warp_r1_v4_u4_m8": ("matvec_warp", dict(RPW=1, VEC=4, UNROLL=4, MINB=8)),
    "warp_r1_v4_u8_m8": ("matvec_warp", dict(RPW=1, VEC=4, UNROLL=8, MINB=8)),
    "warp_r1_v4_u8_m4": ("matvec_warp", dict(RPW=1, VEC=4, UNROLL=8, MINB=4)),
    "warp_r1_v2_u4_m8": ("matvec_warp", dict(RPW=1, VEC=2, UNROLL=4, MINB=8)),
    "warp_r1_v8_u2_m8": ("matvec_warp", dict(RPW=1, VEC=8, UNROLL=2, MINB=8)),
    "warp_r1_v8_u4_m4": ("matvec_warp", dict(RPW=1, VEC=8, UNROLL=4, MINB=4)),
    "warp_r2_v4_u1_m16": ("matvec_warp", dict(RPW=2, VEC=4, UNROLL=1, MINB=16)),
    "warp_r2_v4_u2_m8": ("matvec_warp", dict(RPW=2, VEC=4, UNROLL=2, MINB=8)),
    "warp_r2_v4_u4_m4": ("matvec_warp", dict(RPW=2, VEC=4, UNROLL=4, MINB=4)),
    "warp_r2_v8_u2_m4": ("matvec_warp", dict(RPW=2, VEC=8, UNROLL=2, MINB=4)),
    "warp_r4_v4_u1_m8": ("matvec_warp", dict(RPW=4, VEC=4, UNROLL=1, MINB=8)),
    "warp_r4_v4_u2_m4": ("matvec_warp", dict(RPW=4, VEC=4, UNROLL=2, MINB=4)),
    "cta_b256_u1_m8": ("matvec_cta", dict(BLOCK=256, CUNROLL=1, CMINB=8)),
    "cta_b256_u4_m4": ("matvec_cta", dict(BLOCK=256, CUNROLL=4, CMINB=4)),
    "cta_b256_u8_m2": ("matvec_cta", dict(BLOCK=256, CUNROLL=8, CMINB=2)),
    "cta_b128_u4_m8": ("matvec_cta", dict(BLOCK=128, CUNROLL=4, CMINB=8)),
    "cta_b512_u4_m2": ("matvec_cta", dict(BLOCK=512, CUNROLL=4, CMINB=2)),
    "cta_b512_u8_m1": ("matvec_cta", dict(BLOCK=512, CUNROLL=8, CMINB=1)),
}
# the examples timed: name -> op
EXAMPLES = {"lanes_matvec": "matvec", "row_sums": "row_sums", "row_softmax": "row_softmax"}


# ==================================================================== byte counts and rates
def min_bytes(op: str, shape, itemsize: int = 4) -> int:
    """The fewest bytes ``op`` moves through device memory: each input read once, each output
    written once."""
    rows, cols = shape
    if op == "copy":
        return 2 * rows * cols * itemsize               # shape = (1, elements): read + write
    if op == "matvec":
        return (rows * cols + cols + rows) * itemsize   # W, x, y
    if op == "row_sums":
        return (rows * cols + rows) * itemsize          # A, out
    if op == "row_softmax":
        return 2 * rows * cols * itemsize               # X, Y
    raise ValueError(f"unknown op {op}")


def gbps(nbytes: int, ms: float) -> float:
    """Bytes over milliseconds, in GB/s (10^9 bytes per second)."""
    return nbytes / (ms * 1e-3) / 1e9


def summarize(times_ms: list[float]) -> dict:
    s = sorted(times_ms)
    return {"ms": statistics.median(s), "ms_min": s[0], "ms_max": s[-1],
            "ms_p10": s[len(s) // 10], "ms_p90": s[(len(s) * 9) // 10], "reps": len(s)}


def rate_fields(nbytes: int, ms: float, copy_gbps: float | None, ref_ms: float | None) -> dict:
    g = gbps(nbytes, ms)
    return {"bytes": nbytes, "gbps": g,
            "pct_copy": 100.0 * g / copy_gbps if copy_gbps else None,
            "vs_cupy": ref_ms / ms if ref_ms else None}


def max_rel_error(out, ref) -> float:
    """max |out - ref| / max |ref| (numpy or cupy arrays; NaN anywhere gives NaN)."""
    xp = _array_module(out)
    out = out.astype(xp.float64).reshape(-1)
    ref = ref.astype(xp.float64).reshape(-1)
    scale = max(float(xp.abs(ref).max()), 1e-30)
    return float(xp.abs(out - ref).max()) / scale


def _array_module(a):
    if type(a).__module__.split(".")[0] == "cupy":
        import cupy
        return cupy
    return np


def grid_for(entry: dict, rows: int) -> tuple[int]:
    per = entry["rows_per_cta"]
    return (-(-rows // per),)


# ==================================================================== the runtime
def load_runtime():
    """The GPU runtime, installed or from this checkout (tests/gpu/run_gpu.py finds it)."""
    sys.path.insert(0, str(REPO / "tests" / "gpu"))
    from run_gpu import load_runtime as find
    return find()


# ==================================================================== the GPU (cupy) and its stand-in
class CupyGpu:
    """Arrays, launches, timing and the cupy reference operations on the GPU."""

    dry = False

    def __init__(self, rt, seed: int):
        import cupy as cp
        self.cp, self.rt = cp, rt
        self.rs = cp.random.RandomState(seed)

    # ---- arrays
    def random(self, shape):
        return self.rs.standard_normal(shape, dtype=self.cp.float32)

    def empty(self, shape):
        return self.cp.empty(shape, dtype=self.cp.float32)

    def poison(self, a):
        a.fill(float("nan"))

    def unwritten(self, a) -> int:
        return int(self.cp.isnan(a).sum())

    def free(self, *arrays):
        del arrays
        self.cp.get_default_memory_pool().free_all_blocks()

    # ---- launches
    def load(self, directory: Path, name: str):
        return self.rt.Kernel.load(directory, name, "cupy")

    def launcher(self, kernel, arrays, grid):
        """A closure that launches ``kernel`` on the current stream with no synchronization: the
        runtime's argument checks run once, here."""
        rt = self.rt
        prepared = kernel.prepare(*arrays)
        backend = kernel._load_backend()
        args = tuple(rt._params(kernel, prepared, [ptr for (_i, _h, ptr, _n) in prepared.tensors]))
        grid3, block, shared, fn = rt.grid_of(grid), (kernel.block, 1, 1), kernel.dynamic_shared, backend.fn
        return lambda: fn(grid3, block, args, shared_mem=shared)

    def checked_launch(self, kernel, arrays, grid):
        """One launch through the runtime's public call (it synchronizes and reports errors)."""
        kernel(*arrays, grid=grid)

    # ---- timing
    def time(self, fn, warmup: int, reps: int, nbytes: int) -> list[float]:
        cp = self.cp
        for _ in range(warmup):
            fn()
        cp.cuda.Device().synchronize()
        events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
        for start, end in events:
            start.record()
            fn()
            end.record()
        events[-1][1].synchronize()
        cp.cuda.Device().synchronize()       # an asynchronous fault surfaces here
        return [cp.cuda.get_elapsed_time(s, e) for s, e in events]

    # ---- the operations through cupy
    def copy_ops(self, src, dst):
        cp = self.cp
        nbytes = src.nbytes

        def memcpy():
            cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes, cp.cuda.runtime.memcpyDeviceToDevice,
                                        cp.cuda.get_current_stream().ptr)
        return {"cudaMemcpyAsync D2D": memcpy, "cupy copyto (kernel)": lambda: cp.copyto(dst, src)}

    def copy_error(self, src, dst) -> float:
        return 0.0 if bool(self.cp.array_equal(src, dst)) else float("inf")

    def matvec_ref(self, W, x):
        return W.astype(self.cp.float64) @ x[0].astype(self.cp.float64)

    def matvec_ops(self, W, x, y):
        cp = self.cp
        ops = {"cupy W @ x (cuBLAS)": lambda: cp.matmul(W, x[0], out=y[0])}
        try:
            from cupy import cublas
            cublas.gemv("N", 1.0, W, x[0], 0.0, y[0])
            ops["cupy.cublas.gemv"] = lambda: cublas.gemv("N", 1.0, W, x[0], 0.0, y[0])
        except Exception as e:  # noqa: BLE001 - an API that differs between cupy versions: skip it
            print(f"gpu_bench: cupy.cublas.gemv not used: {type(e).__name__}: {e}")
        return ops

    def row_sums_ref(self, A):
        return A.astype(self.cp.float64).sum(axis=1)

    def row_sums_ops(self, A, out):
        return {"cupy A.sum(axis=1)": lambda: A.sum(axis=1, out=out)}

    def softmax_ref(self, X):
        cp = self.cp
        x = X.astype(cp.float64)
        e = cp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def softmax_ops(self, X, Y):
        cp = self.cp

        def softmax():
            e = cp.exp(X - X.max(axis=1, keepdims=True))
            cp.divide(e, e.sum(axis=1, keepdims=True), out=Y)
        return {"cupy exp/max/sum/divide": softmax}

    def info(self) -> dict:
        cp = self.cp
        dev = cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        name = props.get("name", b"")
        info = {"name": name.decode() if isinstance(name, bytes) else str(name),
                "cuda_driver_api": cp.cuda.runtime.driverGetVersion(),
                "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
                "cupy": cp.__version__, "sm_count": props.get("multiProcessorCount"),
                "l2_bytes": props.get("l2CacheSize"), "memory_bytes": props.get("totalGlobalMem"),
                "compute_capability": f"{props.get('major')}.{props.get('minor')}"}
        try:   # cudaDevAttrMemoryClockRate (kHz) and cudaDevAttrGlobalMemoryBusWidth (bits)
            khz = cp.cuda.runtime.deviceGetAttribute(36, dev.id)
            bits = cp.cuda.runtime.deviceGetAttribute(37, dev.id)
            info["dram_peak_gbps"] = 2 * khz * 1e3 * bits / 8 / 1e9
        except Exception:  # noqa: BLE001 - informative only
            pass
        info.update(_nvidia_smi())
        return info


class _FakeDevArray:
    """A device array that is not there: enough of __cuda_array_interface__ for the runtime's
    argument checks (dtype, shape, contiguity, 16-byte alignment), no memory."""

    _next = 1 << 20

    def __init__(self, shape, dtype=np.float32):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape)) * self.dtype.itemsize
        self.ptr = _FakeDevArray._next
        _FakeDevArray._next += (self.nbytes + 255) // 256 * 256 + 256
        self.__cuda_array_interface__ = {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
                                         "version": 3, "strides": None}

    def __getitem__(self, i):
        return _FakeDevArray(self.shape[1:]) if i == 0 else NotImplemented


class FakeGpu:
    """The dry run's stand-in: the runtime's checks and the arithmetic are real; nothing is
    launched, and each timing is the op's bytes at a made-up rate (FAKE_COPY_GBPS times FAKE_FRACTION)."""

    dry = True
    FAKE_COPY_GBPS = 4300.0
    FAKE_FRACTION = {"phobos": 0.8, "cupy": 0.9}

    def __init__(self, rt, seed: int):
        self.rt = rt
        self.kind = "phobos"
        self.launched: list[tuple] = []

    def random(self, shape):
        return _FakeDevArray(shape)

    empty = random

    def poison(self, a):
        pass

    def unwritten(self, a) -> int:
        return 0

    def free(self, *arrays):
        pass

    def load(self, directory: Path, name: str):
        return self.rt.Kernel.load(directory, name, "cupy")

    def launcher(self, kernel, arrays, grid):
        prepared = kernel.prepare(*arrays)                    # the real checks, at full size
        params = self.rt._params(kernel, prepared, [ptr for (_i, _h, ptr, _n) in prepared.tensors])
        self.launched.append((kernel.entry, self.rt.grid_of(grid), kernel.block, len(params)))
        return lambda: None

    def checked_launch(self, kernel, arrays, grid):
        kernel.prepare(*arrays)

    def time(self, fn, warmup: int, reps: int, nbytes: int) -> list[float]:
        rate = self.FAKE_COPY_GBPS * self.FAKE_FRACTION.get(self.kind, 1.0)
        ms = nbytes / (rate * 1e9) * 1e3
        return [ms * (1 + 0.01 * ((i * 7) % 5 - 2)) for i in range(reps)]   # median = ms exactly

    def copy_ops(self, src, dst):
        return {"cudaMemcpyAsync D2D": lambda: None, "cupy copyto (kernel)": lambda: None}

    def copy_error(self, src, dst) -> float:
        return 0.0

    def matvec_ref(self, W, x):
        return None

    def matvec_ops(self, W, x, y):
        return {"cupy W @ x (cuBLAS)": lambda: None, "cupy.cublas.gemv": lambda: None}

    def row_sums_ref(self, A):
        return None

    def row_sums_ops(self, A, out):
        return {"cupy A.sum(axis=1)": lambda: None}

    def softmax_ref(self, X):
        return None

    def softmax_ops(self, X, Y):
        return {"cupy exp/max/sum/divide": lambda: None}

    def info(self) -> dict:
        return {"name": "dry run (no GPU)", "cuda_driver_api": None, "cuda_runtime": None}


def _nvidia_smi() -> dict:
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,"
                            "clocks.max.mem", "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        name, driver, mem, sm, memclk = [f.strip() for f in p.stdout.splitlines()[0].split(",")]
        return {"driver": driver, "smi_name": name, "smi_memory": mem, "max_sm_clock": sm, "max_mem_clock": memclk}
    except Exception:  # noqa: BLE001 - informative only
        return {}


# ==================================================================== the run
class Bench:
    def __init__(self, bundle: Path, gpu, warmup: int, reps: int, log=print, copy_bytes: int = COPY_BYTES):
        self.bundle, self.gpu, self.warmup, self.reps, self.log = bundle, gpu, warmup, reps, log
        self.copy_bytes = copy_bytes
        self.meta = json.loads((bundle / "bench.json").read_text())
        self.results: list[dict] = []
        self.copy_gbps: float | None = None

    def _time(self, fn, nbytes, kind):
        if self.gpu.dry:
            self.gpu.kind = kind
        return summarize(self.gpu.time(fn, self.warmup, self.reps, nbytes))

    def copy(self):
        n = self.copy_bytes // 4
        src, dst = self.gpu.random((n,)), self.gpu.empty((n,))
        nbytes = min_bytes("copy", (1, n))
        rows = []
        for impl, fn in self.gpu.copy_ops(src, dst).items():
            fn()
            t = self._time(fn, nbytes, "copy")
            err = self.gpu.copy_error(src, dst)
            rows.append({"op": "copy", "shape": [1, n], "impl": impl, "kind": "copy", **t,
                         **rate_fields(nbytes, t["ms"], None, None), "max_rel_error": err, "tolerance": 0.0,
                         "ok": err == 0.0})
        self.copy_gbps = max(r["gbps"] for r in rows)
        for r in rows:
            r["pct_copy"] = 100.0 * r["gbps"] / self.copy_gbps
        self.results.extend(rows)
        self.gpu.free(src, dst)
        self.log(f"copy: {self.copy_gbps:.0f} GB/s (the ceiling: the faster of "
                 f"{', '.join(r['impl'] for r in rows)})")

    def op(self, op: str, shape):
        rows_, cols = shape
        gpu = self.gpu
        nbytes = min_bytes(op, shape)
        if op == "matvec":
            W, x, y = gpu.random((rows_, cols)), gpu.random((1, cols)), gpu.empty((1, rows_))
            inputs, out, view = (W, x, y), y, (lambda a: a[0])
            ref, cupy_ops, tol = gpu.matvec_ref(W, x), gpu.matvec_ops(W, x, y), F32_TOL
        elif op == "row_sums":
            A, o = gpu.random(shape), gpu.empty((rows_,))
            inputs, out, view = (A, o), o, (lambda a: a)
            ref, cupy_ops, tol = gpu.row_sums_ref(A), gpu.row_sums_ops(A, o), F32_TOL
        else:
            X, Y = gpu.random(shape), gpu.empty(shape)
            inputs, out, view = (X, Y), Y, (lambda a: a)
            ref, cupy_ops, tol = gpu.softmax_ref(X), gpu.softmax_ops(X, Y), APPROX_TOL

        def check():
            if gpu.dry:
                return None, 0
            return max_rel_error(view(out), ref), gpu.unwritten(out)

        rows = []
        for impl, fn in cupy_ops.items():
            gpu.poison(out)
            try:
                fn()
                err, missed = check()
                t = self._time(fn, nbytes, "cupy")
            except Exception as e:  # noqa: BLE001 - report it, go on with the rest
                rows.append({"op": op, "shape": list(shape), "impl": impl, "kind": "cupy",
                             "error": f"{type(e).__name__}: {e}"})
                continue
            rows.append({"op": op, "shape": list(shape), "impl": impl, "kind": "cupy", **t,
                         "max_rel_error": err, "unwritten": missed, "tolerance": tol,
                         "ok": gpu.dry or (err is not None and err <= tol)})
        ref_ms = min((r["ms"] for r in rows if "ms" in r), default=None)
        for r in rows:
            if "ms" in r:
                r.update(rate_fields(nbytes, r["ms"], self.copy_gbps, ref_ms))
        for name, entry in self.meta["kernels"].items():
            if entry["op"] != op:
                continue
            row = {"op": op, "shape": list(shape), "impl": name,
                   "kind": "variant" if entry.get("variant") else "phobos", "entry": entry["entry"],
                   "defines": entry["defines"], "block": entry["block"]}
            try:
                kernel = gpu.load(self.bundle / entry["dir"], name)
                grid = grid_for(entry, rows_)
                row["grid"] = list(grid)
                launch = gpu.launcher(kernel, inputs, grid)          # the runtime's checks, once
                gpu.poison(out)
                gpu.checked_launch(kernel, inputs, grid)
                err, missed = check()
                t = self._time(launch, nbytes, "phobos")
                err_after, _ = check()                               # the last timed launch's output
            except self._skippable() as e:
                row["error"] = f"{type(e).__name__}: {e}"
                rows.append(row)
                continue
            worst = None if err is None else (float("nan") if math.isnan(err) or math.isnan(err_after)
                                              else max(err, err_after))
            row.update(**t, **rate_fields(nbytes, t["ms"], self.copy_gbps, ref_ms), max_rel_error=worst,
                       unwritten=missed, tolerance=tol,
                       ok=gpu.dry or (worst is not None and worst <= tol and not missed))
            rows.append(row)
        self.results.extend(rows)
        gpu.free(*inputs)
        best = max((r for r in rows if r.get("kind") != "cupy" and "gbps" in r), key=lambda r: r["gbps"],
                   default=None)
        if best:
            self.log(f"{op} {shape[0]}x{shape[1]}: best {best['impl']} {best['gbps']:.0f} GB/s "
                     f"({_f(best['pct_copy'], '.0f')}% of copy, {_f(best['vs_cupy'], '.2f')}x cupy)")

    def _skippable(self):
        return (self.gpu.rt.LaunchError, RuntimeError, ValueError) if not self.gpu.dry else (self.gpu.rt.LaunchError,)


def sim_check(bundle: Path, meta: dict, log=print) -> list[dict]:
    """The dry run's correctness check: each bench kernel in the simulator at a small shape,
    against float64 numpy (needs the analyzer; skipped without it)."""
    try:
        from phobos_tools.run import loads
    except ImportError as e:
        log(f"sim check skipped: {e}")
        return []
    out = []
    rng = np.random.default_rng(0)
    for name, entry in meta["kernels"].items():
        op = entry["op"]
        rows_, cols = SIM_SHAPES[op]
        src = (REPO / entry["source"]).read_text()
        kernel = loads(src, entry["source"], defines=entry["defines"] or None).kernel(entry["entry"])
        if op == "matvec":
            W = rng.standard_normal((rows_, cols), dtype=np.float32)
            x = rng.standard_normal((1, cols), dtype=np.float32)
            y = np.full((1, rows_), np.nan, np.float32)
            kernel(W, x, y, grid=grid_for(entry, rows_), device="sim")
            got, ref, tol = y[0], W.astype(np.float64) @ x[0].astype(np.float64), F32_TOL
        elif op == "row_sums":
            A = rng.standard_normal((rows_, cols), dtype=np.float32)
            o = np.full((rows_,), np.nan, np.float32)
            kernel(A, o, grid=grid_for(entry, rows_), device="sim")
            got, ref, tol = o, A.astype(np.float64).sum(axis=1), F32_TOL
        else:
            X = rng.standard_normal((rows_, cols), dtype=np.float32)
            Y = np.full((rows_, cols), np.nan, np.float32)
            kernel(X, Y, grid=grid_for(entry, rows_), device="sim")
            x64 = X.astype(np.float64)
            e = np.exp(x64 - x64.max(axis=1, keepdims=True))
            got, ref, tol = Y, e / e.sum(axis=1, keepdims=True), APPROX_TOL
        err = max_rel_error(got, ref)
        out.append({"impl": name, "shape": [rows_, cols], "max_rel_error": err, "ok": err <= tol})
    bad = [r["impl"] for r in out if not r["ok"]]
    log(f"sim check: {len(out) - len(bad)} of {len(out)} bench kernels match float64 numpy at small shapes"
        + (f"; FAILED: {', '.join(bad)}" if bad else ""))
    return out


def run(bundle: Path, out: Path, dry_run: bool, warmup: int, reps: int, seed: int | None, ops=None,
        quick: bool = False) -> dict:
    rt = load_runtime()
    seed = seed if seed is not None else int.from_bytes(os.urandom(4), "little")
    shapes, copy_bytes = (QUICK_SHAPES, QUICK_COPY_BYTES) if quick else (SHAPES, COPY_BYTES)
    started = _dt.datetime.now(_dt.timezone.utc)
    report = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "dry_run": dry_run, "seed": seed, "warmup": warmup,
              "reps": reps, "quick": quick, "copy_bytes": copy_bytes, "device": {}, "bundle_arch": None}
    try:
        gpu = (FakeGpu if dry_run else CupyGpu)(rt, seed)
        bench = Bench(bundle, gpu, warmup, reps, copy_bytes=copy_bytes)
        report.update(device=gpu.info(), bundle_arch=bench.meta.get("arch"))
    except Exception as e:  # noqa: BLE001 - no cupy, no device: a report that says so, not a traceback
        if dry_run:
            raise
        report.update(copy_gbps=None, results=[], errors=[f"setup: {type(e).__name__}: {e}"], complete=False,
                      ok=False, seconds=0.0)
        out.mkdir(parents=True, exist_ok=True)
        _write_json(out / "bench.json", report)
        (out / "bench.md").write_text(markdown(report))
        print(f"gpu_bench: {report['errors'][0]}")
        return report
    errors = []
    steps = [("copy", None)] + [(op, shape) for op, op_shapes in shapes.items() if not ops or op in ops
                                for shape in op_shapes]
    out.mkdir(parents=True, exist_ok=True)
    report.update(copy_gbps=None, results=bench.results, errors=errors, complete=False, ok=False)
    for op, shape in steps:          # a step that breaks is reported; the others still run
        try:
            bench.copy() if op == "copy" else bench.op(op, shape)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{op} {shape}: {type(e).__name__}: {e}")
            print(f"gpu_bench: {errors[-1]}")
            if dry_run:
                raise
        # what is done so far, in case the run is stopped (the step's timeout) before the end
        report["copy_gbps"] = bench.copy_gbps
        report["steps_done"] = report.get("steps_done", 0) + 1
        _write_json(out / "bench.json", report)
    report["copy_gbps"] = bench.copy_gbps
    report["results"] = bench.results
    report["errors"] = errors
    report["complete"] = True
    if dry_run:
        report["sim_check"] = sim_check(bundle, bench.meta)
        report["launches_checked"] = len(gpu.launched)
    report["seconds"] = (_dt.datetime.now(_dt.timezone.utc) - started).total_seconds()
    report["ok"] = (not errors and all(r.get("ok", False) for r in bench.results)
                    and all(r["ok"] for r in report.get("sim_check", [])))
    _write_json(out / "bench.json", report)
    md = markdown(report)
    (out / "bench.md").write_text(md)
    print(md)
    return report


def _write_json(path: Path, report: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=1, default=float))
    os.replace(tmp, path)


def _f(v, fmt):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)


def markdown(report: dict) -> str:
    dev = report["device"]
    lines = [f"# GPU bench {report['date']}{' (DRY RUN: made-up timings)' if report['dry_run'] else ''}", "",
             f"device: {dev.get('name')}, driver {dev.get('driver', '?')}, CUDA driver API "
             f"{dev.get('cuda_driver_api')}, runtime {dev.get('cuda_runtime')}; copy ceiling "
             f"{_f(report['copy_gbps'], '.0f')} GB/s; median of {report['reps']} after {report['warmup']} warm-up; "
             f"seed {report['seed']}", "",
             "| op | shape | impl | median ms | GB/s | % of copy | vs cupy | max rel err | ok |",
             "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in report["results"]:
        shape = "x".join(str(s) for s in r["shape"])
        if "error" in r:
            lines.append(f"| {r['op']} | {shape} | {r['impl']} | - | - | - | - | - | {r['error'][:80]} |")
            continue
        lines.append(f"| {r['op']} | {shape} | {r['impl']} | {_f(r['ms'], '.4f')} | {_f(r['gbps'], '.0f')} | "
                     f"{_f(r['pct_copy'], '.1f')} | {_f(r['vs_cupy'], '.2f')} | {_f(r['max_rel_error'], '.2e')} | "
                     f"{'ok' if r['ok'] else 'FAIL'} |")
    if report.get("sim_check"):
        lines += ["", "simulator check (small shapes): " + ", ".join(
            f"{r['impl']} {r['max_rel_error']:.1e}{'' if r['ok'] else ' FAIL'}" for r in report["sim_check"])]
    lines += [""] + [f"ERROR {e}" for e in report.get("errors", [])]
    lines.append(f"all ok: {report['ok']}")
    return "\n".join(lines) + "\n"


# ==================================================================== prepare (here)
def bench_sources() -> dict:
    """name -> (source path relative to the repo, entry, defines, rows per CTA, variant?)."""
    out = {}
    for name in EXAMPLES:
        out[name] = (f"examples/{name}.ph", name, {}, None, False)
    for name, (entry, defines) in VARIANTS.items():
        rows = 1 if entry == "matvec_cta" else None
        out[name] = (VARIANTS_SRC, entry, dict(defines), rows, True)
    return out


def prepare(bundle: Path, arch: str = "sm_90", wheels: Path | None = DEFAULT_WHEELS, wheels_from: Path | None = None,
            static: bool = True, log=print, diff_count: int = 150) -> dict:
    sys.path.insert(0, str(REPO / "tests" / "gpu"))
    from prepare import prepare as prepare_cases

    from phobos_tools.lowering.build import build_source
    from phobos_tools.lowering.manifest import dumps

    cases = prepare_cases(bundle, arch)
    bench_dir = bundle / "bench"
    bench_dir.mkdir(parents=True, exist_ok=True)
    meta = {"arch": arch, "kernels": {}, "shapes": {k: [list(s) for s in v] for k, v in SHAPES.items()},
            "copy_bytes": COPY_BYTES}
    for name, (source, entry, defines, rows_per_cta, variant) in bench_sources().items():
        text = (REPO / source).read_text()
        r = build_source(text, source, defines, arch, entry)
        if not r.ok:
            raise SystemExit(f"gpu_bench prepare: {name} ({source} {defines}) does not build: "
                             f"{[(d.code, d.message) for d in r.diagnostics]}")
        k = r.kernels[0]
        (bench_dir / f"{name}.ptx").write_text(k.ptx)
        (bench_dir / f"{name}.json").write_text(dumps(k.manifest))
        block = k.manifest["block"]
        if rows_per_cta is None:
            rows_per_cta = block // 32 * int(defines.get("RPW", 1))
        meta["kernels"][name] = {"op": EXAMPLES.get(name, "matvec"), "source": source, "entry": entry,
                                 "defines": defines, "block": block, "rows_per_cta": rows_per_cta, "dir": "bench",
                                 "variant": variant, "resources": k.manifest.get("resources")}
        if static:
            meta["kernels"][name]["static"] = static_figures(k.ptx, arch, meta["kernels"][name])
    (bundle / "bench.json").write_text(json.dumps(meta, indent=1))
    log(f"gpu_bench prepare: {len(cases['cases'])} correctness kernels and {len(meta['kernels'])} bench kernels "
        f"for {arch} in {bundle}")
    if diff_count:                          # generated kernels against the simulator (tests/gpu/gpu_differential.py)
        from gpu_differential import prepare as prepare_diff
        shutil.rmtree(bundle / "diff", ignore_errors=True)
        prepare_diff(bundle / "diff", diff_count, seed=2026, budget_s=600, log=log)
    if wheels is not None:
        copy_wheels(wheels, wheels_from, log)
        package_wheels(wheels / "package", log)
    return meta


# what phobos_tools itself needs there beyond the image's numpy and llvmlite (tests/gpu/api_gpu.py)
PACKAGE_WHEELS = ("lark", "networkx", "z3-solver", "ml_dtypes")


def package_wheels(dest: Path, log=print) -> int:
    """CPython 3.12 x86-64 wheels of the package's own dependencies, for the device run's API step
    (tests/gpu/api_gpu.py). Best effort: it needs a package index here; without one the device run
    skips that step and says so."""
    if all(any(dest.glob(f"{n.replace('-', '_')}-*.whl")) for n in PACKAGE_WHEELS):
        log(f"gpu_bench prepare: the package's wheels are in {dest} already")
        return len(list(dest.glob("*.whl")))
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
           "--python-version", "3.12", "--platform", "manylinux2014_x86_64", "--platform", "manylinux_2_17_x86_64",
           "--platform", "manylinux_2_28_x86_64", "-d", str(dest), *PACKAGE_WHEELS]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        ok = r.returncode == 0
        why = (r.stderr.strip().splitlines() or ["pip failed"])[-1]
    except (OSError, subprocess.TimeoutExpired) as e:
        ok, why = False, str(e)
    n = len(list(dest.glob("*.whl")))
    log(f"gpu_bench prepare: {n} wheels of the package's dependencies in {dest}" if ok else
        f"gpu_bench prepare: no wheels of the package's dependencies ({why}); the device run skips its API step")
    return n if ok else 0


def copy_wheels(dest: Path, source: Path | None, log=print) -> int:
    sources = [source] if source else [s for s in WHEEL_SOURCES if s.is_dir()]
    if not sources or not sources[0].is_dir():
        log("gpu_bench prepare: no pycuda wheels found (looked in "
            f"{', '.join(str(s) for s in ([source] if source else WHEEL_SOURCES))}); the device run will fall "
            "back to cupy for the correctness harness")
        return 0
    dest.mkdir(parents=True, exist_ok=True)
    wheels = sorted(sources[0].glob("*.whl"))
    for w in wheels:
        shutil.copyfile(w, dest / w.name)
    log(f"gpu_bench prepare: {len(wheels)} wheels copied from {sources[0]} to {dest}")
    return len(wheels)


# ==================================================================== static figures (ptxas, SASS)
_REG = re.compile(r"\bR(\d+)(\.64)?\b")
_STACK = re.compile(r"(\d+) bytes stack frame")


def _regs(text: str) -> set[int]:
    out = set()
    for m in _REG.finditer(text):
        n = int(m.group(1))
        out.add(n)
        if m.group(2):
            out.add(n + 1)
    return out


def loads_in_flight(sass_text: str) -> dict:
    """In the innermost loop with the most global loads: how many loads, how many instructions,
    and the most global loads a warp has issued and not yet waited for (walking the loop twice in
    issue order; a load is waited for when an instruction reads one of its destination registers).
    A static estimate of the memory-level parallelism each warp offers."""
    sys.path.insert(0, str(HERE))
    from sass_vs_nvcc import _BRANCH, _NOP, parse_sass

    insns = [(a, i) for a, i in parse_sass(sass_text) if not _NOP.match(i)]
    loops = []
    for a, i in insns:
        m = _BRANCH.search(i)
        if m and int(m.group(1), 16) < a:
            loops.append((int(m.group(1), 16), a))
    best = (0, [])
    for lo, hi in loops:
        body = [i for a, i in insns if lo <= a <= hi]
        n = sum(1 for i in body if re.match(r"(@!?U?P\w+\s+)?LDG", i))
        if n > best[0] or (n == best[0] and len(body) > len(best[1])):
            best = (n, body)
    n, body = best
    pending: list[tuple[set, int]] = []
    most, most_bytes = 0, 0
    for insn in body + body:
        text = re.sub(r"^@!?U?P\w+\s+", "", insn)
        op, _, rest = text.partition(" ")
        operands = [o.strip() for o in rest.split(",")]
        reads = _regs(rest if op.startswith("ST") else ",".join(operands[1:]))
        pending = [(d, w) for d, w in pending if not (d & reads)]
        if op.startswith("LDG"):
            width = 16 if ".128" in op else 8 if ".64" in op else 4
            first = min(_regs(operands[0]) or {0})
            pending.append((set(range(first, first + width // 4)), width))
            most = max(most, len(pending))
            most_bytes = max(most_bytes, sum(w for _d, w in pending))
    return {"loop_loads": n, "loop_insns": len(body), "loads_in_flight": most, "bytes_in_flight_per_thread": most_bytes}


def occupancy(registers: int, block: int, shared: int = 0) -> int:
    """Resident warps per multiprocessor on sm_90 (65536 registers allocated per warp in units of
    256, at most 64 warps and 32 CTAs, 228 KB of shared memory with 1 KB reserved per CTA)."""
    warps_per_cta = block // 32
    per_warp = -(-max(registers, 1) * 32 // 256) * 256
    ctas = min(32, 64 // warps_per_cta, (65536 // per_warp) // warps_per_cta)
    if shared:
        ctas = min(ctas, (228 * 1024) // (shared + 1024))
    return ctas * warps_per_cta


def static_figures(ptx: str, arch: str, entry: dict) -> dict | None:
    """ptxas -v and cuobjdump -sass of one kernel (None without the tools)."""
    from phobos_tools.lowering.ptxas import assemble, find_ptxas, find_tool, sass
    if find_ptxas() is None or find_tool("cuobjdump") is None:
        return None
    done = assemble(ptx, arch, keep_cubin=True)
    if not done.ok:
        return {"error": done.log}
    text = sass(done.cubin)
    res = done.resources or {}
    stack = _STACK.search(done.log)
    fig = {"registers": res.get("registers"), "spill_bytes": res.get("spills"),
           "stack_bytes": int(stack.group(1)) if stack else None, "shared_bytes": res.get("shared_bytes"),
           "ldg128": len(re.findall(r"\bLDG\.E\.128", text)), "ldg64": len(re.findall(r"\bLDG\.E\.64", text)),
           "ldg32": len(re.findall(r"\bLDG\.E(?:\.CONSTANT)?\s", text)),
           "local": len(re.findall(r"\b(?:LDL|STL)\b", text))}
    fig.update(loads_in_flight(text))
    fig["warps_per_sm"] = occupancy(fig["registers"] or 0, entry["block"], fig["shared_bytes"] or 0)
    # bytes of the streamed matrix in flight per SM: a matvec step loads RPW runs of W per run
    # of x (x comes from the caches); row sums and softmax stream their matrix only
    rpw = int(entry["defines"].get("RPW", 1))
    share = rpw / (rpw + 1) if entry["op"] == "matvec" else 1.0
    fig["stream_kib_in_flight_per_sm"] = fig["warps_per_sm"] * 32 * fig["bytes_in_flight_per_thread"] * share / 1024
    return fig


def static_table(meta: dict) -> str:
    lines = ["| kernel | -D | regs | spills | stack | LDG.128 / .64 / .32 | LDL+STL | loop LDGs | LDGs in flight "
             "per warp | warps/SM | streamed KiB in flight/SM |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for name, e in meta["kernels"].items():
        s = e.get("static")
        if not s or "error" in s:
            lines.append(f"| {name} | | (no ptxas/cuobjdump) |||||||||")
            continue
        d = " ".join(f"{k}={v}" for k, v in e["defines"].items()) or "-"
        lines.append(f"| {name} | {d} | {s['registers']} | {s['spill_bytes']} | {s['stack_bytes']} | "
                     f"{s['ldg128']} / {s['ldg64']} / {s['ldg32']} | {s['local']} | {s['loop_loads']} | "
                     f"{s['loads_in_flight']} | {s['warps_per_sm']} | {s['stream_kib_in_flight_per_sm']:.0f} |")
    return "\n".join(lines)


# ==================================================================== RESULTS.md rows
def results_rows(report: dict, correctness: dict | None = None, sanitizer: dict | None = None,
                 api: dict | None = None, diff: dict | None = None, backends: dict | None = None) -> tuple[list, list]:
    """(rows for the runs table, rows for the variants table) of one device run."""
    dev = report["device"]
    cuda = dev.get("cuda_driver_api")
    cuda_s = f"{cuda // 1000}.{cuda % 1000 // 10}" if isinstance(cuda, int) else "?"
    head = f"| {report['date'][:16]} | {dev.get('smi_name') or dev.get('name')} | {dev.get('driver', '?')} | {cuda_s} |"
    ok_runs = "-"
    if correctness is not None:
        ks = correctness.get("kernels", [])
        good = sum(1 for k in ks if k.get("status") == "ok")
        ok_runs = f"{good}/{len(ks)} examples ok"
    if sanitizer is not None:
        if sanitizer.get("skipped"):
            ok_runs += "; sanitizer skipped"
        else:
            st = [j["status"] for j in sanitizer.get("jobs", {}).values()]
            ok_runs += f"; sanitizer {st.count('clean')}/{len(st)} clean"
    if api is not None:                         # tests/gpu/api_gpu.py: the Python API and phobos-run --gpu
        rows = api.get("api", [])
        cli = api.get("cli") or {}
        ok_runs += (f"; Python API {sum(1 for r in rows if r.get('status') == 'ok')}/{len(rows)} ok, "
                    f"phobos-run --gpu {cli.get('status', 'not run')}")
    if backends:                                # run_gpu.py --device-arrays through the other backends
        def tally(r):
            ks = r.get("kernels", [])
            limits = sum(1 for k in ks if k.get("status") == "unsupported")
            return (f"{sum(1 for k in ks if k.get('status') == 'ok')}/{len(ks)}"
                    + (f" ({limits} past the backend's limits)" if limits else ""))
        ok_runs += "; device arrays: " + ", ".join(f"{b} {tally(r)}" for b, r in backends.items())
    if diff is not None:                        # tests/gpu/gpu_differential.py: generated kernels
        counts = diff.get("counts", {})
        ok_runs += (f"; {sum(counts.values())} generated kernels against the simulator: "
                    + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    main, variants = [], []
    copy = report["copy_gbps"]
    size = report.get("copy_bytes", COPY_BYTES)
    size_s = f"{size >> 30} GiB" if size >= 1 << 30 else f"{size >> 20} MiB"
    main.append(f"{head} device-to-device copy | {size_s} | {_f(copy, '.0f')} | 100.0 | - | exact | {ok_runs} |")
    by_key: dict = {}
    for r in report["results"]:
        if r["kind"] == "copy" or "gbps" not in r:
            continue
        by_key.setdefault((r["op"], tuple(r["shape"])), []).append(r)
    for (op, shape), rs in by_key.items():
        shape_s = "x".join(map(str, shape))
        ours = [r for r in rs if r["kind"] != "cupy"]
        picks = [r for r in ours if r["kind"] == "phobos"]
        best_variant = max((r for r in ours if r["kind"] == "variant"), key=lambda r: r["gbps"], default=None)
        if best_variant:
            picks.append(best_variant)
        cupy_best = max((r for r in rs if r["kind"] == "cupy"), key=lambda r: r["gbps"], default=None)
        for r in picks + ([cupy_best] if cupy_best else []):
            label = r["impl"] + (" (best variant)" if r is best_variant else "")
            main.append(f"{head} {label} | {shape_s} | {r['gbps']:.0f} | {_f(r['pct_copy'], '.1f')} | "
                        f"{_f(r['vs_cupy'], '.2f')} | {_f(r['max_rel_error'], '.1e')} | "
                        f"{'ok' if r['ok'] else 'FAIL'} |")
        for r in sorted((r for r in ours if r["kind"] == "variant"), key=lambda r: -r["gbps"]):
            variants.append(f"{head} {r['impl']} | {shape_s} | {r['gbps']:.0f} | {_f(r['pct_copy'], '.1f')} | "
                            f"{_f(r['vs_cupy'], '.2f')} | {'ok' if r['ok'] else 'FAIL'} |")
    return main, variants


def example_rows(report: dict, correctness: dict | None, sanitizer: dict | None, api: dict | None) -> list[str]:
    """One row per example of a device run: the correctness harness's max relative error against
    float64 (fresh inputs, poisoned outputs), compute-sanitizer's two tools, and the Python API's
    check against numpy (tests/gpu/api_gpu.py), where the run had them."""
    if correctness is None:
        return []
    dev = report["device"]
    head = f"| {report['date'][:16]} | {dev.get('smi_name') or dev.get('name')} |"
    jobs = (sanitizer or {}).get("jobs", {})
    by_api = {r["kernel"]: r["status"] for r in (api or {}).get("api", [])}
    rows = []
    for k in sorted(correctness.get("kernels", []), key=lambda k: k["kernel"]):
        name = k["kernel"]
        err = k.get("max_rel_error")
        tools = [jobs.get(f"{tool}/{name}", {}).get("status", "-") for tool in ("racecheck", "synccheck")]
        rows.append(f"{head} {name} | {_f(err, '.1e') if err is not None else '-'} | {_f(k.get('tolerance'), '.0e')} | "
                    f"{k.get('status', '?')} | {tools[0]} | {tools[1]} | {by_api.get(name, '-')} |")
    return rows


def insert_rows(text: str, marker: str, rows: list[str]) -> str:
    if marker not in text:
        raise SystemExit(f"gpu_bench results-row: the marker {marker!r} is missing from RESULTS.md")
    return text.replace(marker, "\n".join(rows + [marker]), 1)


def results_row(args) -> int:
    report = json.loads(Path(args.report).read_text())
    if (report.get("dry_run") or report.get("quick")) and not args.print:
        raise SystemExit("gpu_bench results-row: that report is a dry run or a --quick run (not a measurement); "
                         "use --print to see the rows it would give")
    if not report.get("complete", True):
        print(f"gpu_bench results-row: that run stopped after {report.get('steps_done', 0)} steps; rows for those only")
    correctness = json.loads(Path(args.correctness).read_text()) if args.correctness else None
    sanitizer = json.loads(Path(args.sanitizer).read_text()) if args.sanitizer else None
    api = json.loads(Path(args.api).read_text()) if args.api else None
    diff = json.loads(Path(args.diff).read_text()) if args.diff else None
    backends = json.loads(Path(args.backends).read_text()) if args.backends else None
    main, variants = results_rows(report, correctness, sanitizer, api, diff, backends)
    examples = example_rows(report, correctness, sanitizer, api)
    if args.print:
        print("\n".join(main))
        print()
        print("\n".join(variants))
        return 0
    path = Path(args.results)
    text = insert_rows(insert_rows(path.read_text(), ROW_MARKER, main), VARIANT_MARKER, variants)
    if examples:
        text = insert_rows(text, EXAMPLE_MARKER, examples)
    text = re.sub(r"\n_No row yet:[^\n]*\n", "\n", text)
    path.write_text(text)
    print(f"gpu_bench results-row: {len(main)} rows, {len(variants)} variant rows and {len(examples)} example "
          f"rows added to {path}")
    return 0


# ==================================================================== command line
def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare", help="build the bundle and copy the wheels (here)")
    pp.add_argument("bundle", type=Path, nargs="?", default=DEFAULT_BUNDLE)
    pp.add_argument("--arch", default="sm_90")
    pp.add_argument("--wheels", type=Path, default=DEFAULT_WHEELS, help="where the pycuda wheels go")
    pp.add_argument("--wheels-from", type=Path, default=None, help="where they come from")
    pp.add_argument("--no-static", action="store_true", help="skip ptxas -v / cuobjdump -sass")
    pp.add_argument("--diff-count", type=int, default=150,
                    help="generated kernels for the GPU differential (tests/gpu/gpu_differential.py); 0: none")
    ps = sub.add_parser("static", help="the ptxas/SASS table of a prepared bundle")
    ps.add_argument("bundle", type=Path, nargs="?", default=DEFAULT_BUNDLE)
    pr = sub.add_parser("run", help="time everything (on the GPU), or --dry-run here")
    pr.add_argument("bundle", type=Path, nargs="?", default=DEFAULT_BUNDLE)
    pr.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "build/gpu-bench")))
    pr.add_argument("--dry-run", action="store_true")
    pr.add_argument("--warmup", type=int, default=10)
    pr.add_argument("--reps", type=int, default=100)
    pr.add_argument("--seed", type=int, default=None)
    pr.add_argument("--ops", default=None, help="comma-separated: matvec,row_sums,row_softmax (default: all)")
    pr.add_argument("--quick", action="store_true", help="small shapes: a smoke test, not a measurement")
    pq = sub.add_parser("results-row", help="turn a device run's bench.json into RESULTS.md rows")
    pq.add_argument("report", type=Path)
    pq.add_argument("--correctness", type=Path, default=None)
    pq.add_argument("--sanitizer", type=Path, default=None)
    pq.add_argument("--api", type=Path, default=None, help="OUT/api_gpu.json (tests/gpu/api_gpu.py)")
    pq.add_argument("--diff", type=Path, default=None, help="OUT/gpu_diff.json (tests/gpu/gpu_differential.py)")
    pq.add_argument("--backends", type=Path, default=None, help="OUT/backends.json (run_gpu.py --device-arrays)")
    pq.add_argument("--results", type=Path, default=RESULTS_MD)
    pq.add_argument("--print", action="store_true", help="print the rows instead of adding them")
    a = p.parse_args(argv)
    if a.cmd == "prepare":
        prepare(a.bundle, a.arch, a.wheels, a.wheels_from, static=not a.no_static, diff_count=a.diff_count)
        bundle_rel = os.path.relpath(a.bundle.resolve(), REPO)
        wheels_rel = os.path.relpath(a.wheels.resolve(), REPO)
        call = dict(DEVICE_CALL, carry=[bundle_rel, wheels_rel])
        if bundle_rel != "build/gpu-bundle" or wheels_rel != ".gpu_wheels":
            call["command"] = f"BUNDLE={bundle_rel} WHEELS={wheels_rel} {DEVICE_CALL['command']}"
        print("the device call (one run, about 4.5 minutes at most):")
        print(f"  run(command={call['command']!r}, carry={json.dumps(call['carry'])}, timeout_s={call['timeout_s']})")
        return 0
    if a.cmd == "static":
        print(static_table(json.loads((a.bundle / "bench.json").read_text())))
        return 0
    if a.cmd == "run":
        if a.reps < 50 and not a.dry_run:
            raise SystemExit("gpu_bench run: --reps must be at least 50")
        report = run(a.bundle, a.out, a.dry_run, a.warmup, a.reps, a.seed, set(a.ops.split(",")) if a.ops else None,
                     a.quick)
        return 0 if report["ok"] else 1
    return results_row(a)


if __name__ == "__main__":
    sys.exit(main())
