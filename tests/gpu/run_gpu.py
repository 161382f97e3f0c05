"""Run a prepared bundle on the GPU and print the max relative error of every kernel.

    python tests/gpu/run_gpu.py BUNDLE [--backend pycuda] [--fresh | --seed-base N] [--only NAME,..]
                                       [--json OUT.json] [--dry-run]

numpy and the runtime only: ``lowering/runtime.py`` is loaded from its file, so the repository
need not be installed. Inputs come from each case's seed (``--fresh``: seeds drawn from the OS, and
printed, so that every run checks new inputs; ``--seed-base N`` repeats such a run); references are
computed in float64 by ``tests/gpu/cases.py``. Every output that the case starts from zeros is
poisoned before the launch (NaN for floats, a bit pattern for integers), so an element the kernel
never writes fails the check instead of passing as a zero. ``--dry-run`` does everything but the
launch: inputs, poison, references, and the runtime's argument checks against each manifest.
Exit status 0 when every kernel is within its tolerance, 1 otherwise, 2 when no GPU backend can run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

# what an output starts as before the launch: NaN for floats; for integers a value that no
# kernel here writes by accident (for u8 outputs that can take any byte, a miss may still pass)
POISON_INT = {"i8": -91, "u8": 0xA5, "i32": -0x5A5A5A5B, "i64": -0x5A5A5A5A5A5A5A5B, "bool": 1}


def load_runtime():
    try:
        from phobos_tools.lowering import runtime
        return runtime
    except ImportError:
        spec = importlib.util.spec_from_file_location("phobos_runtime", REPO / "lowering" / "runtime.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["phobos_runtime"] = module
        spec.loader.exec_module(module)
        return module


def max_rel_error(out, ref) -> float:
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64).reshape(out.shape)
    scale = max(float(np.abs(ref).max(initial=0.0)), 1e-30)
    return float(np.abs(out - ref).max(initial=0.0)) / scale


def poison(spec, value) -> None:
    """Fill an output the case starts from zeros with a value the kernel must overwrite."""
    if spec.get("init") != "zeros" or not isinstance(value, np.ndarray):
        return
    if value.dtype.kind == "f" or value.dtype.name == "bfloat16":
        value[...] = np.nan
    else:
        value[...] = POISON_INT[spec["dtype"]]


def unwritten(spec, value) -> int:
    """Elements still NaN after the run (float outputs that were poisoned)."""
    if spec.get("init") != "zeros" or not (value.dtype.kind == "f" or value.dtype.name == "bfloat16"):
        return 0
    return int(np.isnan(value.astype(np.float64)).sum())


def seeds_for(meta: dict, fresh: bool, seed_base: int | None) -> tuple[int | None, dict]:
    """Each case's seed: the bundle's, or seed_base + the case's index (seed_base drawn from the
    OS when ``fresh``)."""
    if fresh and seed_base is None:
        seed_base = int.from_bytes(os.urandom(4), "little")
    if seed_base is None:
        return None, {name: case["seed"] for name, case in meta["cases"].items()}
    return seed_base, {name: seed_base + i for i, name in enumerate(meta["cases"])}


def run_bundle(bundle: Path, backend: str | None = None, *, only=None, fresh: bool = False,
               seed_base: int | None = None, dry_run: bool = False, records: list | None = None) -> list[tuple]:
    """One row per kernel: (name, max relative error, tolerance, result text). ``records``, when
    given, receives one dict per kernel with everything the JSON report holds."""
    sys.path.insert(0, str(HERE))
    from cases import REFERENCES, generate

    rt = load_runtime()
    meta = json.loads((bundle / "cases.json").read_text())
    base, seeds = seeds_for(meta, fresh, seed_base)
    if base is not None:
        print(f"run_gpu: seed base {base} (repeat with --seed-base {base})")
    rows = []
    for name, case in meta["cases"].items():
        if only and name not in only:
            continue
        rng = np.random.default_rng(seeds[name])
        values = [generate(spec, rng) for spec in case["args"]]
        named = {spec["name"]: v for spec, v in zip(case["args"], values)}
        ref = REFERENCES[name]({k: (v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype.kind == "f"
                                    or isinstance(v, np.ndarray) and v.dtype.name == "bfloat16" else v)
                                for k, v in named.items()})
        for spec, v in zip(case["args"], values):
            if spec["name"] in case["outputs"]:
                poison(spec, v)
        record = {"kernel": name, "seed": seeds[name], "tolerance": case["tolerance"], "grid": case["grid"]}
        kernel = rt.Kernel.load(bundle, name, backend)
        try:
            if dry_run:
                kernel.prepare(*values)          # the runtime's checks against the manifest, no launch
                rows.append((name, float("nan"), case["tolerance"], "dry run: inputs, poison, reference, "
                             "arguments checked"))
                record.update(status="dry-run")
                if records is not None:
                    records.append(record)
                continue
            t0 = time.perf_counter()
            kernel(*values, grid=tuple(case["grid"]))
            ms = (time.perf_counter() - t0) * 1e3
        except rt.LaunchError as e:
            rows.append((name, float("nan"), case["tolerance"], f"ERROR: {e}"))
            record.update(status="error", error=str(e))
            if records is not None:
                records.append(record)
            continue
        specs = {spec["name"]: spec for spec in case["args"]}
        errors = {o: max_rel_error(named[o], ref[o]) for o in case["outputs"]}
        missed = {o: unwritten(specs[o], named[o]) for o in case["outputs"]}
        err = max(errors.values())
        ok = err <= case["tolerance"]             # NaN (an unwritten element) never passes
        note = "".join(f", {n} of {named[o].size} elements of {o} unwritten" for o, n in missed.items() if n)
        rows.append((name, err, case["tolerance"], f"{'ok' if ok else 'FAIL'} ({ms:.1f} ms incl. copies{note})"))
        record.update(status="ok" if ok else "fail", max_rel_error=err, errors=errors, unwritten=missed,
                      ms_with_copies=ms, backend=kernel._backend.name if kernel._backend else None)
        if records is not None:
            records.append(record)
    return rows


def print_table(rows) -> None:
    print(f"{'kernel':<24} {'max rel error':>14} {'tolerance':>10}  result")
    for name, err, tol, result in rows:
        print(f"{name:<24} {err:>14.3e} {tol:>10.1e}  {result}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", type=Path)
    p.add_argument("--backend", default=None)
    p.add_argument("--only", default=None, help="comma-separated kernels to run (default: all)")
    p.add_argument("--fresh", action="store_true", help="new random inputs: seeds drawn from the OS")
    p.add_argument("--seed-base", type=int, default=None, help="case i gets seed SEED_BASE + i")
    p.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    p.add_argument("--dry-run", action="store_true", help="everything but the launch (no GPU needed)")
    a = p.parse_args()
    only = set(a.only.split(",")) if a.only else None
    records: list = []
    rows = run_bundle(a.bundle, a.backend, only=only, fresh=a.fresh, seed_base=a.seed_base, dry_run=a.dry_run,
                      records=records)
    print_table(rows)
    if a.json:
        a.json.write_text(json.dumps({"bundle": str(a.bundle), "backend": a.backend, "dry_run": a.dry_run,
                                      "kernels": records}, indent=1, default=float))
    if a.dry_run:
        return 0
    if rows and all(r[3].startswith("ERROR: no GPU backend") for r in rows):
        return 2
    return 0 if all(r[3].startswith("ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
