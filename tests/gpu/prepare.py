"""Compile here, run there: build every GPU case's kernel and write one small bundle folder.

    python tests/gpu/prepare.py OUT [--arch sm_90]

OUT gets, per kernel, ``KERNEL.ptx`` and ``KERNEL.json`` (the manifest), and ``cases.json``:
each case's arguments (shapes, dtypes, how to generate them), seed, grid, outputs and tolerance.
Together with ``tests/gpu/cases.py``, ``tests/gpu/run_gpu.py`` and ``lowering/runtime.py`` that
is all the GPU machine needs (numpy and a GPU backend; no analyzer, no llvmlite).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def prepare(out: Path, arch: str = "sm_90") -> dict:
    sys.path.insert(0, str(HERE))
    from cases import CASES

    from phobos_tools.lowering.build import build_file
    from phobos_tools.lowering.manifest import dumps

    out.mkdir(parents=True, exist_ok=True)
    meta = {"arch": arch, "cases": {}}
    for seed, (name, (args, grid, outputs, tol)) in enumerate(sorted(CASES.items())):
        r = build_file(REPO / "examples" / f"{name}.ph", arch=arch, kernel=name)
        if not r.ok:
            raise SystemExit(f"prepare: {name} does not build: {[(d.code, d.message) for d in r.diagnostics]}")
        k = r.kernels[0]
        (out / f"{name}.ptx").write_text(k.ptx)
        (out / f"{name}.json").write_text(dumps(k.manifest))
        meta["cases"][name] = {"args": args, "grid": list(grid), "outputs": outputs, "tolerance": tol,
                               "seed": 1000 + seed}
    (out / "cases.json").write_text(json.dumps(meta, indent=1))
    return meta


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--arch", default="sm_90")
    a = p.parse_args()
    meta = prepare(a.out, a.arch)
    print(f"prepare: {len(meta['cases'])} kernels for {a.arch} in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
