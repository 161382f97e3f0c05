"""Tile matrix products against cuBLAS (issue 19): f16, bf16, i8 and f32 GEMM at 4096^3 and
8192^3, ``linear_relu`` and ``attention_scores``, timed with CUDA events in the same run as the
same operation through cuBLAS (``cupy.cuda.cublas.gemmEx``: f32 in f32 (no TF32), f16/bf16 with
f32 accumulation, i8 in and i32 out), median of --reps (at least 20) after a warm-up.

Here (no GPU; the analyzer, llvmlite, and ptxas/cuobjdump when present):

    python benchmarks/gemm.py prepare [BUNDLE] [--arch sm_90]
        builds every kernel into BUNDLE (default build/gemm-bundle: KERNEL.ptx, KERNEL.json) and
        writes BUNDLE/gemm.json: each case's kernel, -D values, grid rule and the SASS facts
        (HMMA/IMMA/FFMA/LDS counts, registers, spills, LDL/STL) when ptxas and cuobjdump are here.
    python benchmarks/gemm.py run BUNDLE --dry-run
        everything the GPU run does but the GPU: every launch's arrays checked against its
        manifest by the runtime's own argument checks (lowering/runtime.py), the grids, and the
        TFLOP/s arithmetic; prints the static table.

There (the GPU machine: numpy, cupy and lowering/runtime.py, loaded from its file):

    python benchmarks/gemm.py run BUNDLE --out DIR [--reps 20] [--quick]
        writes DIR/gemm.json and DIR/gemm.md: per case our median ms, cuBLAS's, TFLOP/s of both and
        the ratio (cuBLAS time over ours: 1.0 is parity), and the max relative error of our output
        against cuBLAS's (f32 reference for the float cases, exact for i8).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_BUNDLE = REPO / "build" / "gemm-bundle"
MIN_REPS = 20

GEMM_F16 = (REPO / "examples" / "tiled_gemm.ph").read_text()
# the same kernel on other element types: bf16 (f32 accumulation, as f16), f32 (FMA: f32 stays f32)
GEMM_BF16 = GEMM_F16.replace("tensor<f16>", "tensor<bf16>").replace("tile<f16>", "tile<bf16>")
GEMM_F32 = GEMM_F16.replace("tensor<f16>", "tensor<f32>").replace("tile<f16>", "tile<f32>")
GEMM_I8 = """// i8 GEMM, i32 out, B stored [N, K] (the layout int8 GEMMs use: cuBLAS's "TN")
@launch(256)
kernel gemm_i8(A: tensor<i8>[M, K], Bt: tensor<i8>[N, K], C: tensor<i32>[M, N]) {
  let row0 = ctx.block.y * BM
  let col0 = ctx.block.x * BN
  var acc: tile<i32>[BM, BN] = 0
  for k0 in range(0, K, BK) {
    let a = A[row0 :+ BM, k0 :+ BK]
    let b = Bt[col0 :+ BN, k0 :+ BK]
    acc += dot_t(a, b)
  }
  C[row0 :+ BM, col0 :+ BN] = acc
}
"""
LINEAR_RELU = (REPO / "examples" / "linear_relu.ph").read_text()
ATTENTION = (REPO / "examples" / "attention_scores.ph").read_text()

TILES = {"BM": 64, "BN": 64, "BK": 32}
# name: (source, kernel, -D, element type, operation)
KERNELS = {
    "gemm_f16": (GEMM_F16, "tiled_gemm", TILES, "f16", "gemm"),
    "gemm_bf16": (GEMM_BF16, "tiled_gemm", TILES, "bf16", "gemm"),
    "gemm_f32": (GEMM_F32, "tiled_gemm", TILES, "f32", "gemm"),
    "gemm_i8": (GEMM_I8, "gemm_i8", {"BM": 64, "BN": 64, "BK": 64}, "i8", "gemm_tn"),
    "linear_relu": (LINEAR_RELU, "linear_relu", {"BM": 128, "BN": 64, "BK": 32}, "bf16", "linear_relu"),
    "attention_scores": (ATTENTION, "attention_scores", {}, "f16", "attention"),
}
# case: (kernel, M, N, K); attention: rows R = blocks * 64 (64 x 64 blocks, head size 64)
CASES = [("gemm_f16", 4096, 4096, 4096), ("gemm_f16", 8192, 8192, 8192),
         ("gemm_bf16", 4096, 4096, 4096), ("gemm_bf16", 8192, 8192, 8192),
         ("gemm_i8", 4096, 4096, 4096), ("gemm_i8", 8192, 8192, 8192),
         ("gemm_f32", 4096, 4096, 4096), ("gemm_f32", 8192, 8192, 8192),
         ("linear_relu", 8192, 4096, 4096), ("attention_scores", 64 * 4096, 64, 64)]
QUICK_CASES = [("gemm_f16", 256, 256, 256), ("gemm_bf16", 256, 256, 256), ("gemm_i8", 256, 256, 256),
               ("gemm_f32", 256, 256, 256), ("linear_relu", 256, 128, 256), ("attention_scores", 64 * 8, 64, 64)]
GOALS = {"f16": 0.60, "bf16": 0.60, "f32": 0.85, "i8": 0.50}


def flops(kernel: str, m: int, n: int, k: int) -> float:
    if KERNELS[kernel][4] == "attention":
        return 2.0 * m * 64 * 64          # Q K^T per 64-row block: 64 x 64 x 64, m / 64 blocks
    return 2.0 * m * n * k


def tflops(kernel, m, n, k, ms: float) -> float:
    return flops(kernel, m, n, k) / (ms * 1e-3) / 1e12


def grid(kernel: str, m: int, n: int) -> tuple:
    d = KERNELS[kernel][2]
    if KERNELS[kernel][4] == "attention":
        return (m // 64,)
    return (-(-n // d["BN"]), -(-m // d["BM"]))


# ==================================================================== here: build and SASS facts
def prepare(bundle: Path, arch: str = "sm_90", log=print) -> dict:
    from phobos_tools.lowering.build import build_source
    from phobos_tools.lowering.manifest import dumps
    from phobos_tools.lowering.ptxas import assemble, find_ptxas, find_tool, sass

    bundle.mkdir(parents=True, exist_ok=True)
    meta = {"arch": arch, "kernels": {}}
    tools = find_ptxas() and find_tool("cuobjdump") and find_tool("nvdisasm")
    for name, (src, kname, defines, _dtype, _op) in KERNELS.items():
        r = build_source(src, f"{name}.ph", {k: str(v) for k, v in defines.items()}, arch, kname, resources=False)
        if not r.ok or not r.kernels:
            raise SystemExit(f"{name}: {[(d.code, d.message) for d in r.diagnostics]}")
        k = r.kernels[0]
        (bundle / f"{name}.ptx").write_text(k.ptx)
        man = dict(k.manifest, entry=k.manifest["entry"])
        facts = None
        if tools:
            done = assemble(k.ptx, arch, keep_cubin=True)
            if not done.ok:
                raise SystemExit(f"{name}: ptxas: {done.log}")
            man["resources"] = done.resources
            facts = dict(sass_facts(sass(done.cubin)), **done.resources)
        (bundle / f"{name}.json").write_text(dumps(man))
        meta["kernels"][name] = {"kernel": kname, "defines": defines, "sass": facts}
        log(f"{name}: built for {arch}" + (f"; {facts}" if facts else " (no ptxas/cuobjdump: no SASS facts)"))
    (bundle / "gemm.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def sass_facts(text: str) -> dict:
    """Counts of the instructions that say how a product runs (static, whole kernel; not the
    ``@!PT LDS RZ, [RZ]`` that ptxas puts before an LDGSTS, which never run)."""
    text = "\n".join(line for line in text.splitlines() if "@!PT" not in line)

    def n(pattern):
        return len(re.findall(pattern, text, re.M))
    lds = n(r"\bLDS(\.[\w.]+)?\b") + n(r"\bLDSM\b[\w.]*")
    ffma = n(r"\bFFMA\b")
    return {"hmma": n(r"\bHMMA\b"), "imma": n(r"\bIMMA\b"), "ldsm": n(r"\bLDSM\b"), "lds": lds, "ffma": ffma,
            "ffma_per_lds": round(ffma / lds, 2) if lds else None, "ldgsts": n(r"\bLDGSTS\b"),
            "local": n(r"\b(LDL|STL)\b"), "bar": n(r"\bBAR\.SYNC\b|\bBAR\b")}


def static_table(meta: dict) -> str:
    rows = ["| kernel | arch | HMMA | IMMA | LDSM | LDS (all) | FFMA | FFMA/LDS | registers | spills | LDL/STL |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, k in meta["kernels"].items():
        f = k["sass"]
        if f is None:
            rows.append(f"| {name} | {meta['arch']} | n/a (no ptxas/cuobjdump) |")
            continue
        rows.append(f"| {name} | {meta['arch']} | {f['hmma']} | {f['imma']} | {f['ldsm']} | {f['lds']} | {f['ffma']} | "
                    f"{f['ffma_per_lds'] if f['ffma_per_lds'] is not None else '-'} | {f['registers']} | {f['spills']} | "
                    f"{f['local']} |")
    return "\n".join(rows)


# ==================================================================== there: the GPU
def load_runtime():
    sys.path.insert(0, str(REPO / "tests" / "gpu"))
    from run_gpu import load_runtime as find
    return find()


class Cublas:
    """cuBLAS's GEMM on row-major operands through ``gemmEx`` (column-major: C^T = B^T A^T)."""

    R_32F, R_16F, R_8I, R_16BF, R_32I = 0, 2, 3, 14, 10
    COMPUTE_32F, COMPUTE_32I = 68, 72
    TYPES = {"f32": (R_32F, R_32F, COMPUTE_32F), "f16": (R_16F, R_32F, COMPUTE_32F),
             "bf16": (R_16BF, R_32F, COMPUTE_32F), "i8": (R_8I, R_32I, COMPUTE_32I)}

    def __init__(self, cp):
        from cupy.cuda import cublas, device
        self.cp, self.cublas, self.handle = cp, cublas, device.get_cublas_handle()

    def gemm(self, dtype: str, a, b, c, m: int, n: int, k: int, b_transposed: bool):
        """C[m, n] = A[m, k] B, B stored [k, n] (or [n, k] when ``b_transposed``)."""
        ab, ct, compute = self.TYPES[dtype]
        scalar = np.int32 if dtype == "i8" else np.float32
        one, zero = np.array(1, scalar), np.array(0, scalar)
        cb = self.cublas
        if b_transposed:     # C^T (n x m) = Bt^T... : op(Bt col-major [k, n]) = T, A col-major [k, m]
            args = (cb.CUBLAS_OP_T, cb.CUBLAS_OP_N, n, m, k, one.ctypes.data, b.data.ptr, ab, k,
                    a.data.ptr, ab, k)
        else:                # B col-major is [n, k] with ld n, A col-major [k, m] with ld k
            args = (cb.CUBLAS_OP_N, cb.CUBLAS_OP_N, n, m, k, one.ctypes.data, b.data.ptr, ab, n,
                    a.data.ptr, ab, k)
        return lambda: cb.gemmEx(self.handle, *args, zero.ctypes.data, c.data.ptr, ct, n, compute, -1)


def _time(cp, fn, warmup: int, reps: int) -> list[float]:
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    events[-1][1].synchronize()
    cp.cuda.Device().synchronize()
    return [cp.cuda.get_elapsed_time(s, e) for s, e in events]


def run(bundle: Path, out: Path | None, dry_run: bool, reps: int, warmup: int, quick: bool, log=print) -> dict:
    if reps < MIN_REPS and not dry_run:
        raise SystemExit(f"--reps {reps}: at least {MIN_REPS}")
    meta = json.loads((bundle / "gemm.json").read_text())
    rt = load_runtime()
    report = {"arch": meta["arch"], "reps": reps, "dry_run": dry_run, "rows": []}
    for kname, m, n, k in (QUICK_CASES if quick else CASES):
        kernel = rt.Kernel.load(bundle, kname) if dry_run else rt.Kernel.load(bundle, kname, "cupy")
        dtype, op = KERNELS[kname][3], KERNELS[kname][4]
        g = grid(kname, m, n)
        if dry_run:
            arrays = _host_arrays(kname, m, n, k, np)
            kernel.prepare(*arrays)                    # the runtime's checks against the manifest
            ms = [1.0] * reps
            ref_ms = [1.0] * reps
            err = None
        else:
            ms, ref_ms, err = _gpu_case(rt, kernel, kname, m, n, k, g, reps, warmup)
        row = {"case": kname, "dtype": dtype, "op": op, "m": m, "n": n, "k": k, "grid": list(g),
               "ms": statistics.median(ms), "cublas_ms": statistics.median(ref_ms), "max_rel_err": err}
        row["tflops"] = tflops(kname, m, n, k, row["ms"])
        row["cublas_tflops"] = tflops(kname, m, n, k, row["cublas_ms"])
        row["ratio"] = row["cublas_ms"] / row["ms"]
        report["rows"].append(row)
        log(f"{kname} {m}x{n}x{k}: grid {g}, {row['ms']:.3f} ms ({row['tflops']:.1f} TFLOP/s), cuBLAS "
            f"{row['cublas_ms']:.3f} ms, ratio {row['ratio']:.2f}" + (" (dry run: made-up times)" if dry_run else ""))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "gemm.json").write_text(json.dumps(report, indent=1) + "\n")
        (out / "gemm.md").write_text(markdown(report) + "\n")
    return report


def _host_arrays(kname, m, n, k, xp, cp=None):
    """The launch's arguments, in parameter order (numpy for the dry run: np.empty, whose pages
    are never touched, so that 8192^3 costs address space only)."""
    op = KERNELS[kname][4]

    def arr(shape, dtype):
        return xp.empty(shape, dtype)
    import ml_dtypes
    dt = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "i8": np.int8}[KERNELS[kname][3]]
    if op == "gemm":
        return [arr((m, k), dt), arr((k, n), dt), arr((m, n), np.float32)]
    if op == "gemm_tn":
        return [arr((m, k), dt), arr((n, k), dt), arr((m, n), np.int32)]
    if op == "linear_relu":
        return [arr((m, k), dt), arr((n, k), dt), arr((1, n), np.float32), arr((m, n), dt)]
    return [arr((m, 64), dt), arr((m, 64), dt), arr((m, 64), dt), 0.125]


def _gpu_case(rt, kernel, kname, m, n, k, g, reps, warmup):
    import cupy as cp
    dtype, op = KERNELS[kname][3], KERNELS[kname][4]
    rs = cp.random.RandomState(19)
    blas = Cublas(cp)

    def floats(shape):
        return rs.standard_normal(shape, dtype=cp.float32)

    def as16(x, t):            # bf16 on the device as its bits (cupy has no bfloat16)
        if t == "f16":
            return x.astype(cp.float16)
        bits = x.view(cp.uint32)
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(cp.uint16)
    if op in ("gemm", "gemm_tn", "linear_relu"):
        bshape = (k, n) if op == "gemm" else (n, k)
        if dtype == "i8":
            a, b = rs.randint(-128, 128, (m, k)).astype(cp.int8), rs.randint(-128, 128, bshape).astype(cp.int8)
        elif dtype == "f32":
            a, b = floats((m, k)), floats(bshape)
        else:
            a, b = as16(floats((m, k)), dtype), as16(floats(bshape), dtype)
        c_type = cp.int32 if dtype == "i8" else cp.float32
        ours_c = cp.empty((m, n), c_type if op != "linear_relu" else cp.uint16)
        ref_c = cp.empty((m, n), c_type)
        args = [a, b, ours_c] if op != "linear_relu" else [a, b, cp.zeros((1, n), cp.float32), ours_c]
        gemm = blas.gemm(dtype, a, b, ref_c, m, n, k, op != "gemm")
        ref = (lambda: (gemm(), cp.maximum(ref_c, 0, out=ref_c))) if op == "linear_relu" else gemm
    else:
        q, kk = as16(floats((m, 64)), "f16"), as16(floats((m, 64)), "f16")
        p = cp.empty((m, 64), cp.float16)
        args = [q, kk, p, 0.125]
        blocks = m // 64
        tri = cp.tril(cp.ones((64, 64), cp.bool_))

        def ref():
            s = cp.matmul(q.reshape(blocks, 64, 64), kk.reshape(blocks, 64, 64).transpose(0, 2, 1)) * 0.125
            s = cp.where(tri, s.astype(cp.float32), -cp.inf)
            e = cp.exp(s - s.max(-1, keepdims=True))
            return (e / e.sum(-1, keepdims=True)).astype(cp.float16)
    prepared = kernel.prepare(*args)
    backend = kernel._load_backend()
    params = tuple(rt._params(kernel, prepared, [ptr for (_i, _h, ptr, _n) in prepared.tensors]))
    fn = backend.fn
    grid3, block, shared = rt.grid_of(g), (kernel.block, 1, 1), kernel.dynamic_shared

    def ours():
        fn(grid3, block, params, shared_mem=shared)
    ms = _time(cp, ours, warmup, reps)
    ref_ms = _time(cp, ref, warmup, reps)
    if op in ("gemm", "gemm_tn"):
        gemm()
        got, want = ours_c.astype(cp.float64), ref_c.astype(cp.float64)
        err = float(cp.abs(got - want).max() / max(float(cp.abs(want).max()), 1e-30))
    elif op == "linear_relu":
        ref()
        got = (ours_c.astype(cp.uint32) << 16).view(cp.float32).astype(cp.float64)
        err = float(cp.abs(got - ref_c).max() / max(float(cp.abs(ref_c).max()), 1e-30))
    else:
        want = ref().astype(cp.float64)
        err = float(cp.abs(p.astype(cp.float64) - want).max())
    return ms, ref_ms, err


def markdown(report: dict) -> str:
    rows = ["| case | M x N x K | ms | TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | cuBLAS/ours | goal | max rel err |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        goal = GOALS.get(r["dtype"]) if r["op"] in ("gemm", "gemm_tn") else None
        rows.append(f"| {r['case']} | {r['m']} x {r['n']} x {r['k']} | {r['ms']:.3f} | {r['tflops']:.1f} | "
                    f"{r['cublas_ms']:.3f} | {r['cublas_tflops']:.1f} | {r['ratio']:.2f} | "
                    f"{'>= ' + format(goal, '.2f') if goal else '-'} | "
                    f"{'-' if r['max_rel_err'] is None else format(r['max_rel_err'], '.1e')} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare")
    pp.add_argument("bundle", nargs="?", type=Path, default=DEFAULT_BUNDLE)
    pp.add_argument("--arch", default="sm_90")
    pr = sub.add_parser("run")
    pr.add_argument("bundle", type=Path)
    pr.add_argument("--out", type=Path)
    pr.add_argument("--dry-run", action="store_true")
    pr.add_argument("--quick", action="store_true", help="small shapes (a smoke test)")
    pr.add_argument("--reps", type=int, default=MIN_REPS)
    pr.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args(argv)
    if args.cmd == "prepare":
        meta = prepare(args.bundle, args.arch)
        print(static_table(meta))
        return 0
    run(args.bundle, args.out, args.dry_run, args.reps, args.warmup, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
