"""The package's own GPU path on a real device: what run_gpu.py (the runtime alone, on prepared
PTX) does not reach. Every example goes through the Python API with ``device="gpu"`` (check,
build through llvmlite, launch with the lowering's runtime), at the first shape of its case in
tests/support/example_cases.py, whose numpy references (tests/gpu/cases.py) come from each
example's header comment; then ``phobos-run --gpu`` runs one kernel and its outputs are compared with ``phobos-run --sim``
on the same seed.

Needs ``phobos_tools`` importable with its dependencies (tests/gpu/device_run.sh installs the
carried wheels and links the checkout as ``phobos_tools``), a GPU backend and a GPU. Writes a JSON
report after every case, so a run that is stopped keeps what it did.

    python tests/gpu/api_gpu.py --json OUT/api_gpu.json [--only NAME,..]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# the simulator's cases use float tolerances meant for it (exact exp, no fused multiply-add); on
# the GPU (ex2.approx, fma) a case whose only failure is a numeric mismatch below this relative
# error is reported as "close", not as a failure
CLOSE_REL = 2e-3


def _on_gpu():
    """Every kernel call of the cases goes to the GPU (the cases pass no ``device``); returns
    what puts the simulator back."""
    from phobos_tools import run as api
    call = api.Kernel.__call__

    def gpu_call(self, *args, grid, device="sim", max_loop_iterations=None, **kwargs):
        return call(self, *args, grid=grid, device="gpu", **kwargs)
    api.Kernel.__call__ = gpu_call
    return lambda: setattr(api.Kernel, "__call__", call)


def _rel_error(message: str) -> float | None:
    """The max relative difference numpy's assert_allclose reports, if it says one."""
    for line in message.splitlines():
        if "Max relative difference" in line:
            try:
                return float(line.split(":")[-1].split()[0])
            except ValueError:
                return None
    return None


def run_cases(only: set | None, report: dict, save) -> None:
    sys.path.insert(0, str(REPO / "tests" / "support"))
    import example_cases as ex
    from phobos_tools.run import GPUUnavailable
    restore = _on_gpu()
    try:
        _each_case(ex.CASES, only, report, save, GPUUnavailable)
    finally:
        restore()


def _each_case(all_cases, only, report, save, GPUUnavailable) -> None:
    for name, cases in all_cases.items():
        if only and name not in only:
            continue
        fn, shape = cases[0]
        row = {"kernel": name, "shape": list(shape)}
        t0 = time.perf_counter()
        try:
            fn(np.random.default_rng(hash(shape) % 2**32), *shape)
            row["status"] = "ok"
        except AssertionError as e:
            text = str(e)
            rel = _rel_error(text)
            row["status"] = "close" if rel is not None and rel <= CLOSE_REL else "fail"
            row["max_rel"] = rel
            row["detail"] = " ".join(text.split())[:400]
        except GPUUnavailable as e:
            row["status"] = "no-gpu"
            row["detail"] = str(e)[:400]
        except Exception as e:  # noqa: BLE001 - every failure is a row of the report
            row["status"] = "error"
            row["detail"] = f"{type(e).__name__}: {' '.join(str(e).split())[:400]}"
            row["where"] = traceback.format_exc(limit=-3)[-1200:]
        row["seconds"] = round(time.perf_counter() - t0, 2)
        report["api"].append(row)
        print(f"{name:24} {row['status']:6} {row['seconds']:7.2f} s  {row.get('detail', '')[:100]}", flush=True)
        save()


def run_cli(report: dict, save) -> None:
    """phobos-run --gpu against phobos-run --sim: row sums of a ragged matrix, same seed."""
    from phobos_tools.cli.run import main
    row = {"command": "phobos-run --gpu examples/row_sums.ph (against --sim)"}
    with tempfile.TemporaryDirectory() as tmp:
        outs = {}
        for mode in ("gpu", "sim"):
            d = Path(tmp) / mode
            argv = [f"--{mode}", str(REPO / "examples" / "row_sums.ph"), "--grid", "13", "--seed", "7",
                    "--arg", "A=rand:f32:100x300", "--arg", "out=zeros:f32:100", "--out", str(d)]
            try:
                row[f"{mode}_exit"] = main(argv)
            except SystemExit as e:
                row[f"{mode}_exit"] = e.code
            outs[mode] = d / "out.npy"
        if all(p.exists() for p in outs.values()):
            g, s = np.load(outs["gpu"]), np.load(outs["sim"])
            row["max_rel"] = float(np.max(np.abs(g - s)) / max(float(np.max(np.abs(s))), 1e-30))
            row["status"] = "ok" if row["max_rel"] <= 1e-5 else "fail"
        else:
            row["status"] = "error"
    report["cli"] = row
    print(f"phobos-run --gpu vs --sim: {row}", flush=True)
    save()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", type=Path, required=True)
    p.add_argument("--only", default=None, help="comma-separated example names")
    a = p.parse_args()
    report: dict = {"api": [], "cli": None}

    def save():
        a.json.write_text(json.dumps(report, indent=1))
    run_cases(set(a.only.split(",")) if a.only else None, report, save)
    run_cli(report, save)
    bad = [r["kernel"] for r in report["api"] if r["status"] not in ("ok", "close")]
    print(f"api_gpu: {sum(r['status'] == 'ok' for r in report['api'])} ok, "
          f"{sum(r['status'] == 'close' for r in report['api'])} close, {len(bad)} not ({', '.join(bad)}); "
          f"phobos-run --gpu: {report['cli'] and report['cli']['status']}")
    return 0 if not bad and report["cli"] and report["cli"]["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
