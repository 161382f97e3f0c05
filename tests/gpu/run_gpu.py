"""Run a prepared bundle on the GPU and print the max relative error of every kernel.

    python tests/gpu/run_gpu.py BUNDLE [--backend pycuda]

numpy and the runtime only: ``lowering/runtime.py`` is loaded from its file, so the repository
need not be installed. Inputs come from each case's seed; references are computed in float64 by
``tests/gpu/cases.py``. Exit status 0 when every kernel is within its tolerance, 1 otherwise, 2
when no GPU backend can run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


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


def run_bundle(bundle: Path, backend: str | None = None) -> list[tuple]:
    sys.path.insert(0, str(HERE))
    from cases import REFERENCES, generate

    rt = load_runtime()
    meta = json.loads((bundle / "cases.json").read_text())
    rows = []
    for name, case in meta["cases"].items():
        rng = np.random.default_rng(case["seed"])
        values = [generate(spec, rng) for spec in case["args"]]
        named = {spec["name"]: v for spec, v in zip(case["args"], values)}
        ref = REFERENCES[name]({k: (v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype.kind == "f"
                                    or isinstance(v, np.ndarray) and v.dtype.name == "bfloat16" else v)
                                for k, v in named.items()})
        kernel = rt.Kernel.load(bundle, name, backend)
        try:
            t0 = time.perf_counter()
            kernel(*values, grid=tuple(case["grid"]))
            ms = (time.perf_counter() - t0) * 1e3
        except rt.LaunchError as e:
            rows.append((name, float("nan"), case["tolerance"], f"ERROR: {e}"))
            continue
        err = max(max_rel_error(named[o], ref[o]) for o in case["outputs"])
        ok = err <= case["tolerance"]
        rows.append((name, err, case["tolerance"], f"{'ok' if ok else 'FAIL'} ({ms:.1f} ms incl. copies)"))
    return rows


def print_table(rows) -> None:
    print(f"{'kernel':<24} {'max rel error':>14} {'tolerance':>10}  result")
    for name, err, tol, result in rows:
        print(f"{name:<24} {err:>14.3e} {tol:>10.1e}  {result}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", type=Path)
    p.add_argument("--backend", default=None)
    a = p.parse_args()
    rows = run_bundle(a.bundle, a.backend)
    print_table(rows)
    if all(r[3].startswith("ERROR: no GPU backend") for r in rows):
        return 2
    return 0 if all(r[3].startswith("ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
