"""Run a prepared bundle on the GPU and print the max relative error of every kernel.

    python tests/gpu/run_gpu.py BUNDLE [--backend pycuda] [--fresh | --seed-base N] [--only NAME,..]
                                       [--json OUT.json] [--dry-run] [--isolate [--per-kernel-s 20]]

numpy and the runtime only: ``lowering/runtime.py`` is loaded from its file, so the repository
need not be installed. Inputs come from each case's seed (``--fresh``: seeds drawn from the OS, and
printed, so that every run checks new inputs; ``--seed-base N`` repeats such a run); references are
computed in float64 by ``tests/gpu/cases.py``. Every output that the case starts from zeros is
poisoned before the launch (NaN for floats, a bit pattern for integers), so an element the kernel
never writes fails the check instead of passing as a zero. ``--dry-run`` does everything but the
launch: inputs, poison, references, and the runtime's argument checks against each manifest.
The JSON report is rewritten after every kernel, so a run that is stopped still reports the kernels
it did. ``--isolate`` runs the kernels in a child process and starts a fresh one (a fresh CUDA
context) for the kernels left when a kernel faults (an illegal address poisons the context for
every launch after it), crashes the process, or makes no progress for ``--per-kernel-s`` seconds.
Exit status 0 when every kernel is within its tolerance, 1 otherwise, 2 when no GPU backend can run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

# what an output starts as before the launch: NaN for floats; for integers a value that no
# kernel here writes by accident (for u8 outputs that can take any byte, a miss may still pass)
POISON_INT = {"i8": -91, "u8": 0xA5, "i32": -0x5A5A5A5B, "i64": -0x5A5A5A5A5A5A5A5B, "bool": 1}
# after a driver error the context may be unusable (an illegal address is "sticky": every later
# call fails): --isolate goes on with the kernels left in a fresh process
EXIT_STICKY = 3


def load_runtime():
    """The GPU runtime: from the installed package, else from this checkout as the package
    (``phobos_tools`` is the repository's root; the runtime needs only ``language`` beside it)."""
    try:
        from phobos_tools.lowering import runtime
        return runtime
    except ImportError:
        spec = importlib.util.spec_from_file_location("phobos_tools", REPO / "__init__.py",
                                                      submodule_search_locations=[str(REPO)])
        package = importlib.util.module_from_spec(spec)
        sys.modules["phobos_tools"] = package
        spec.loader.exec_module(package)
        return importlib.import_module("phobos_tools.lowering.runtime")


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


def run_bundle(bundle: Path, backend: str | None = None, *, only=None, fresh: bool = False, device_arrays: bool = False,
               seed_base: int | None = None, dry_run: bool = False, records: list | None = None,
               on_record=None, stop_on_sticky: bool = False) -> list[tuple]:
    """One row per kernel: (name, max relative error, tolerance, result text). ``records``, when
    given, receives one dict per kernel with everything the JSON report holds; ``on_record`` is
    called after each kernel. ``stop_on_sticky``: stop after a driver error that leaves the
    context unusable (the record says ``sticky``)."""
    if records is None:
        records = []
    sys.path.insert(0, str(HERE))
    rt = load_runtime()
    meta = json.loads((bundle / "cases.json").read_text())
    base, seeds = seeds_for(meta, fresh, seed_base)
    if base is not None:
        print(f"run_gpu: seed base {base} (repeat with --seed-base {base})")
    rows = []

    def done(record):
        records.append(record)
        if on_record is not None:
            on_record(records)

    for name, case in meta["cases"].items():
        if only and name not in only:
            continue
        try:
            row, record = _run_case(rt, bundle, name, case, seeds[name], backend, dry_run, device_arrays)
        except Exception as e:  # noqa: BLE001 - one broken case (inputs, reference) must not stop the rest
            row = (name, float("nan"), case["tolerance"], f"ERROR: {type(e).__name__}: {e}")
            record = {"kernel": name, "seed": seeds[name], "tolerance": case["tolerance"], "grid": case["grid"],
                      "status": "error", "error": f"{type(e).__name__}: {e}"}
        rows.append(row)
        done(record)
        if stop_on_sticky and record.get("sticky"):
            break
    return rows


def _run_case(rt, bundle, name, case, seed, backend, dry_run, device_arrays=False):
    from cases import generate, reference

    rng = np.random.default_rng(seed)
    values = [generate(spec, rng) for spec in case["args"]]
    named = {spec["name"]: v for spec, v in zip(case["args"], values)}
    ref = reference(name, named)
    for spec, v in zip(case["args"], values):
        if spec["name"] in case["outputs"]:
            poison(spec, v)
    record = {"kernel": name, "seed": seed, "tolerance": case["tolerance"], "grid": case["grid"]}
    kernel = rt.Kernel.load(bundle, name, backend)
    try:
        if dry_run:
            kernel.prepare(*values)          # the runtime's checks against the manifest, no launch
            record.update(status="dry-run")
            return (name, float("nan"), case["tolerance"], "dry run: inputs, poison, reference, "
                    "arguments checked"), record
        t0 = time.perf_counter()
        if device_arrays:                    # cupy arrays, used in place (the cuda.core backend takes no others)
            on_device = [_to_device(v) for v in values]
            kernel(*on_device, grid=tuple(case["grid"]))
            for v, d in zip(values, on_device):
                _from_device(v, d)
        else:
            kernel(*values, grid=tuple(case["grid"]))
        ms = (time.perf_counter() - t0) * 1e3
    except rt.LaunchError as e:
        if isinstance(e, getattr(rt, "BackendLimit", ())):     # documented: another backend runs it
            record.update(status="unsupported", error=str(e))
            return _row_of(record), record
        record.update(status="error", error=str(e))
        if "failed on" in str(e):           # the driver's error, not the runtime's argument check
            record["sticky"] = True
        return (name, float("nan"), case["tolerance"], f"ERROR: {e}"), record
    specs = {spec["name"]: spec for spec in case["args"]}
    errors = {o: max_rel_error(named[o], ref[o]) for o in case["outputs"]}
    missed = {o: unwritten(specs[o], named[o]) for o in case["outputs"]}
    err = max(errors.values())
    ok = err <= case["tolerance"]             # NaN (an unwritten element) never passes
    note = "".join(f", {n} of {named[o].size} elements of {o} unwritten" for o, n in missed.items() if n)
    record.update(status="ok" if ok else "fail", max_rel_error=err, errors=errors, unwritten=missed,
                  ms_with_copies=ms, backend=kernel._backend.name if kernel._backend else None)
    return (name, err, case["tolerance"], f"{'ok' if ok else 'FAIL'} ({ms:.1f} ms incl. copies{note})"), record


def _to_device(v):
    """A numpy argument as a cupy array (bf16 as its 16-bit patterns); scalars as they are."""
    if not isinstance(v, np.ndarray):
        return v
    import cupy
    return cupy.asarray(v.view(np.uint16) if v.dtype.name == "bfloat16" else v)


def _from_device(v, d) -> None:
    if isinstance(v, np.ndarray):
        host = d.get()
        v[...] = host.view(v.dtype) if v.dtype.name == "bfloat16" else host


def print_table(rows) -> None:
    print(f"{'kernel':<24} {'max rel error':>14} {'tolerance':>10}  result")
    for name, err, tol, result in rows:
        print(f"{name:<24} {err:>14.3e} {tol:>10.1e}  {result}")


def write_report(path: Path | None, bundle, backend, dry_run, records, **extra) -> None:
    if path is None:
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"bundle": str(bundle), "backend": backend, "dry_run": dry_run, **extra,
                               "kernels": records}, indent=1, default=float))
    os.replace(tmp, path)


def _row_of(record) -> tuple:
    status = record.get("status")
    if status in ("ok", "fail"):
        note = "".join(f", {n} elements of {o} unwritten" for o, n in (record.get("unwritten") or {}).items() if n)
        return (record["kernel"], record["max_rel_error"], record["tolerance"],
                f"{'ok' if status == 'ok' else 'FAIL'} ({record.get('ms_with_copies', 0):.1f} ms incl. copies{note})")
    if status == "unsupported":
        return (record["kernel"], float("nan"), record["tolerance"],
                f"SKIPPED (a limit of the backend: {record.get('error', '')})")
    return (record["kernel"], float("nan"), record["tolerance"], f"ERROR: {record.get('error', status)}")


def supervise(a, names: list[str], base: int | None) -> list[dict]:
    """Run ``names`` in child processes, one after another; a child that faults, crashes or stalls
    for ``a.per_kernel_s`` is replaced by a fresh one for the kernels it left."""
    records: list[dict] = []
    cases = json.loads((a.bundle / "cases.json").read_text())["cases"]
    import tempfile             # the children's reports: not beside a.json (the device run returns that folder)
    part = Path(tempfile.gettempdir()) / f"run_gpu.part{os.getpid()}.json"
    left = list(names)
    while left:
        part.unlink(missing_ok=True)
        cmd = [sys.executable, str(Path(__file__).resolve()), str(a.bundle), "--only", ",".join(left), "--json",
               str(part), "--child"] + (["--backend", a.backend] if a.backend else []) + \
              (["--device-arrays"] if a.device_arrays else []) + \
              (["--seed-base", str(base)] if base is not None else [])
        proc = subprocess.Popen(cmd, start_new_session=True)
        seen, last = 0, time.monotonic()
        try:
            while proc.poll() is None:
                time.sleep(0.2)
                n = len(_read_part(part))
                if n != seen:
                    seen, last = n, time.monotonic()
                elif time.monotonic() - last > a.per_kernel_s:
                    os.killpg(proc.pid, 9)
                    proc.wait()
                    break
        except BaseException:      # stopped (timeout(1)'s SIGTERM): the child goes too, the report stays
            _kill_group(proc)
            records.extend(_read_part(part))
            write_report(a.json, a.bundle, a.backend, False, records, isolated=True, seed_base=base, stopped=True)
            part.unlink(missing_ok=True)
            raise
        got = _read_part(part)
        records.extend(got)
        done = {r["kernel"] for r in got}
        left = [k for k in left if k not in done]
        if left and proc.returncode != EXIT_STICKY:          # it died or stalled in the next kernel
            why = (f"no result within {a.per_kernel_s:g} s (killed)" if proc.returncode in (-9, 137)
                   else f"the process ended with status {proc.returncode} during this kernel")
            records.append({"kernel": left[0], "status": "error", "error": why,
                            "tolerance": cases[left[0]]["tolerance"], "grid": cases[left[0]]["grid"], "crashed": True})
            print(f"run_gpu: {left[0]}: {why}; going on in a fresh process")
            left = left[1:]
        elif left:
            print(f"run_gpu: {got[-1]['kernel']} left the context unusable; going on in a fresh process")
        write_report(a.json, a.bundle, a.backend, False, records, isolated=True, seed_base=base)
    part.unlink(missing_ok=True)
    return records


def _kill_group(proc) -> None:
    try:
        os.killpg(proc.pid, 9)
    except OSError:
        pass
    proc.wait()


def _stop(signum, _frame):
    raise SystemExit(128 + signum)


def _read_part(path: Path) -> list[dict]:
    try:
        return json.loads(path.read_text())["kernels"]
    except (OSError, ValueError, KeyError):
        return []


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", type=Path)
    p.add_argument("--backend", default=None)
    p.add_argument("--only", default=None, help="comma-separated kernels to run (default: all)")
    p.add_argument("--device-arrays", action="store_true",
                   help="pass cupy arrays (in place) instead of numpy ones: how the cuda.core backend is run")
    p.add_argument("--fresh", action="store_true", help="new random inputs: seeds drawn from the OS")
    p.add_argument("--seed-base", type=int, default=None, help="case i gets seed SEED_BASE + i")
    p.add_argument("--json", type=Path, default=None, help="also write the results as JSON (after every kernel)")
    p.add_argument("--dry-run", action="store_true", help="everything but the launch (no GPU needed)")
    p.add_argument("--isolate", action="store_true", help="run in child processes; a fault, crash or stall "
                   "costs one kernel, not the rest")
    p.add_argument("--per-kernel-s", type=float, default=20.0, help="with --isolate: the longest one kernel may take")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    only = set(a.only.split(",")) if a.only else None
    if a.isolate and not a.dry_run:
        meta = json.loads((a.bundle / "cases.json").read_text())
        base, _ = seeds_for(meta, a.fresh, a.seed_base)
        if base is not None:
            print(f"run_gpu: seed base {base} (repeat with --seed-base {base})")
        signal.signal(signal.SIGTERM, _stop)
        records = supervise(a, [k for k in meta["cases"] if not only or k in only], base)
        rows = [_row_of(r) for r in records]
    else:
        records: list = []
        rows = run_bundle(a.bundle, a.backend, only=only, fresh=a.fresh, seed_base=a.seed_base, dry_run=a.dry_run,
                          device_arrays=a.device_arrays,
                          records=records, stop_on_sticky=a.child,
                          on_record=lambda rs: write_report(a.json, a.bundle, a.backend, a.dry_run, rs))
        write_report(a.json, a.bundle, a.backend, a.dry_run, records)
    print_table(rows)
    if a.child and records and records[-1].get("sticky"):
        return EXIT_STICKY
    if a.dry_run:
        return 0
    if rows and all(r[3].startswith("ERROR: no GPU backend") for r in rows):
        return 2
    return 0 if all(r[3].startswith(("ok", "SKIPPED")) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
