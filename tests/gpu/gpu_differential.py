"""Generated race-free kernels on a real GPU against the simulator: the differential oracle of
benchmarks/fuzz.py (``tests/support/fuzz_harness.differential``, which runs the LLVM module in
``tests/support/ir_simt.py``) carried through the rest of the chain: LLVM's NVPTX back end, ptxas, the
driver and the hardware.

Here (the package, no GPU):

    python tests/gpu/gpu_differential.py prepare DIR [--count 150] [--seed S] [--budget-s 600]

generates kernels with ``tests/support/phobos_gen.py`` (race-free), keeps those the checker accepts, that
build, and that the simulator runs without a dynamic check, and stores for each one, in
``DIR/cNNN/``, its PTX (gzipped) and manifest, its inputs and the simulator's outputs: once on random inputs,
once on "tame" ones (small multiples of 1/8 and small integers, where sums, products and
conversions are exact in f32).

There (numpy and ``lowering/runtime.py`` only):

    python tests/gpu/gpu_differential.py run DIR --json OUT/gpu_diff.json [--backend pycuda]

launches each kernel and compares every array with the simulator's. Integers must agree exactly,
floats within the fuzzer's tolerance (``fuzz_harness.compare_outputs``). The GPU may fuse a
multiply and an add (LANGUAGE §10 allows it) and has approximate ``exp``/``log``/``tanh``, and a
rounding difference can grow without bound through later arithmetic. So a kernel that differs on
random inputs is run again on its tame inputs: agreeing there makes it ``inexact``, and only a
difference there too is a finding (``differs``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "support"))
sys.path.insert(0, str(HERE))

import fuzz_harness as H  # noqa: E402  (numpy and the standard library only at import)
from run_gpu import load_runtime  # noqa: E402  (the package's runtime, or lowering/runtime.py from its file)

ONCE_PER_CTA = re.compile(r"\b(atomic_add|atomic_max|atomic_min|atomic_cas|load_acquire|store_release)\s*\(")


# ================================================================================ here: prepare
def prepare(out: Path, count: int, seed: int, budget_s: float, log=print) -> dict:
    import phobos_gen as G

    from phobos_tools.analyzer import check_source
    from phobos_tools.lowering.build import build_source
    from phobos_tools.lowering.manifest import dumps
    from phobos_tools.run import DynamicCheckFailed, loads

    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    deadline = time.perf_counter() + budget_s
    meta: dict = {"seed": seed, "cases": {}, "skipped": {}}

    def skip(why):
        meta["skipped"][why] = meta["skipped"].get(why, 0) + 1

    while len(meta["cases"]) < count and time.perf_counter() < deadline:
        kseed = rng.getrandbits(64)
        gk = G.generate(random.Random(kseed), race_free=True)
        nrng = np.random.default_rng(kseed % 2**32)
        block = int(nrng.choice(gk.blocks))
        defines = {"BLK": str(block)}
        checked = check_source(gk.source, "f.ph", defines)
        if not checked.ok:
            skip("rejected")
            continue
        kinfo = checked.semantics.kernels[-1]
        try:
            built = build_source(gk.source, "f.ph", defines, "sm_90", kinfo.kernel.name)
        except Exception:  # noqa: BLE001 - the fuzzer reports build crashes; here they are skipped
            skip("build crashed")
            continue
        if not built.ok or not built.kernels:
            skip("not built")
            continue
        kernel = loads(gk.source, "f.ph", defines).kernel(kinfo.kernel.name)
        grid = tuple(H.DIFF_GRIDS[int(nrng.integers(len(H.DIFF_GRIDS)))])
        if ONCE_PER_CTA.search(gk.source):
            # the simulator runs such a kernel's CTAs one after another in block order; the GPU in
            # any order, and a value two CTAs store through `store_release` (or an atomic's result
            # that flows on) depends on that order: one CTA has only one
            grid = (1,)
        values = H.arguments(kinfo, nrng, grid, block, special=len(meta["cases"]) % 3 == 1)
        tame = {k: (H._tame(nrng, v) if isinstance(v, np.ndarray) and k != "F" else v) for k, v in values.items()}
        results = []
        for vals in (values, tame):
            sim = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in vals.items()}
            try:
                kernel(**sim, grid=grid, max_loop_iterations=20_000)
            except DynamicCheckFailed:
                break
            results.append(sim)
        if len(results) != 2:
            skip("a dynamic check fired")
            continue
        name = f"c{len(meta['cases']):03d}"
        d = out / name
        d.mkdir(exist_ok=True)
        k = built.kernels[0]
        (d / "gen.ptx.gz").write_bytes(gzip.compress(k.ptx.encode(), 6))     # (a fifth of the size: more
        (d / "gen.json").write_text(dumps(k.manifest))                         # kernels fit in what travels)
        arrays = [p.name for p in kinfo.params if isinstance(values[p.name], np.ndarray)]
        np.savez_compressed(d / "data.npz",
                            **{f"in_{a}": values[a] for a in arrays}, **{f"out_{a}": results[0][a] for a in arrays},
                            **{f"tin_{a}": tame[a] for a in arrays}, **{f"tout_{a}": results[1][a] for a in arrays})
        scalars = {p.name: _plain(values[p.name]) for p in kinfo.params if p.name not in arrays}
        tscalars = {p.name: _plain(tame[p.name]) for p in kinfo.params if p.name not in arrays}
        meta["cases"][name] = {"kseed": kseed, "block": block, "grid": list(grid),
                               "params": [p.name for p in kinfo.params], "arrays": arrays,
                               "scalars": scalars, "tame_scalars": tscalars}
    (out / "cases.json").write_text(json.dumps(meta, indent=1))
    log(f"gpu_differential prepare: {len(meta['cases'])} kernels in {out} (skipped: {meta['skipped']})")
    return meta


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


# ================================================================================ there: run
def _launch(rt, d: Path, case: dict, data, prefix: str, scalars: dict, backend):
    kernel = rt.Kernel(gzip.decompress((d / "gen.ptx.gz").read_bytes()).decode(),
                       json.loads((d / "gen.json").read_text()), backend)
    args, arrays = [], {}
    for p in case["params"]:
        if p in case["arrays"]:
            arrays[p] = np.array(data[f"{prefix}in_{p}"])
            args.append(arrays[p])
        else:
            args.append(scalars[p])
    kernel(*args, grid=tuple(case["grid"]))
    return arrays


def run(bundle: Path, json_path: Path, backend: str | None, log=print) -> int:
    rt = load_runtime()
    meta = json.loads((bundle / "cases.json").read_text())
    report: dict = {"seed": meta["seed"], "cases": []}
    counts: dict = {}
    for name, case in meta["cases"].items():
        d = bundle / name
        row = {"case": name, "kseed": case["kseed"], "block": case["block"], "grid": case["grid"]}
        t0 = time.perf_counter()
        try:
            data = np.load(d / "data.npz")
            got = _launch(rt, d, case, data, "", case["scalars"], backend)
            bad = H.compare_outputs({a: data[f"out_{a}"] for a in case["arrays"]}, got)
            if not bad:
                row["status"] = "same"
            else:
                got2 = _launch(rt, d, case, data, "t", case["tame_scalars"], backend)
                bad2 = H.compare_outputs({a: data[f"tout_{a}"] for a in case["arrays"]}, got2)
                row["status"] = "inexact" if not bad2 else "differs"
                row["detail"] = "; ".join(bad2 or bad)[:600]
        except Exception as e:  # noqa: BLE001 - a launch error is a finding of its own
            row["status"] = "error"
            row["detail"] = f"{type(e).__name__}: {' '.join(str(e).split())[:600]}"
        row["seconds"] = round(time.perf_counter() - t0, 3)
        counts[row["status"]] = counts.get(row["status"], 0) + 1
        report["cases"].append(row)
        report["counts"] = counts
        json_path.write_text(json.dumps(report, indent=1))
        if row["status"] in ("differs", "error"):
            log(f"{name} (kernel seed {case['kseed']}, python benchmarks/fuzz.py --replay-differential "
                f"{case['kseed']}): {row['status']}: {row.get('detail', '')[:300]}")
    log(f"gpu_differential: {len(report['cases'])} kernels: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return 0 if not counts.get("differs") and not counts.get("error") else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare")
    pp.add_argument("out", type=Path)
    pp.add_argument("--count", type=int, default=150)
    pp.add_argument("--seed", type=int, default=2026)
    pp.add_argument("--budget-s", type=float, default=600)
    pr = sub.add_parser("run")
    pr.add_argument("bundle", type=Path)
    pr.add_argument("--json", type=Path, required=True)
    pr.add_argument("--backend", default=None)
    a = p.parse_args()
    if a.cmd == "prepare":
        prepare(a.out, a.count, a.seed, a.budget_s)
        return 0
    return run(a.bundle, a.json, a.backend)


if __name__ == "__main__":
    sys.exit(main())
