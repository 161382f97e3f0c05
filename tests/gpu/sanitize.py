"""compute-sanitizer's racecheck and synccheck on every kernel of a prepared bundle.

    python tests/gpu/sanitize.py BUNDLE [--tools racecheck,synccheck] [--backend pycuda]
                                        [--per-kernel-s 40] [--budget-s 90] [--jobs 4]
                                        [--json OUT.json] [--log OUT.txt] [--dry-run]

Each (tool, kernel) is one ``compute-sanitizer --tool T --error-exitcode 9 python3
tests/gpu/run_gpu.py BUNDLE --only KERNEL`` under its own timeout, several at a time. A first probe
(racecheck on the smallest kernel) decides whether the sanitizer works on this machine at all
(under gVisor it answers «Device not supported»); if it does not, every job is reported as skipped
with the probe's words. No job starts once ``--budget-s`` has passed; those left are "not run".
A kernel passes a tool when the sanitizer exits 0 and reports no hazard or error; a kernel that
spins on another CTA (grid_counter) may run out of time under racecheck: that is "timeout", not a
failure. Exit status 0 unless some job found a hazard or an error (1); 0 too when the sanitizer
is absent or unsupported (the reason is printed).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PROBE_KERNEL = "stage"

_SUMMARY = re.compile(r"(ERROR SUMMARY: \d+ errors?|RACECHECK SUMMARY: \d+ hazards? displayed \([^)]*\))")
_COUNT = re.compile(r"(?:ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: (\d+) hazard)")
_UNSUPPORTED = ("Device not supported", "not supported on this", "Target application terminated before first "
                "instrumented API call", "Unable to find injection library")


def find_sanitizer() -> str | None:
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for pattern in ("/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda-*/bin/compute-sanitizer",
                    "/usr/local/cuda*/compute-sanitizer/compute-sanitizer", "/opt/nvidia/*/compute-sanitizer",
                    "/opt/nvidia/compute-sanitizer/compute-sanitizer"):
        for path in sorted(glob.glob(pattern)):
            if os.access(path, os.X_OK):
                return path
    return None


def command(sanitizer: str, tool: str, bundle: Path, kernel: str, backend: str | None) -> list[str]:
    cmd = [sanitizer, "--tool", tool, "--error-exitcode", "9", "--print-limit", "20",
           sys.executable, str(HERE / "run_gpu.py"), str(bundle), "--only", kernel]
    return cmd + (["--backend", backend] if backend else [])


_RUNNING: set = set()       # the jobs' process groups, ended on SIGTERM (timeout(1) stopping this script)
_STOPPING: list = []        # set on SIGTERM: no job starts after it (each job runs in a session of its
                            # own, out of reach of timeout(1)'s kill, so one started late would outlive us)


def _end_jobs(signum, _frame):
    _STOPPING.append(signum)
    for pid in list(_RUNNING):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    raise SystemExit(128 + signum)


def run_one(cmd: list[str], timeout_s: float) -> dict:
    t0 = time.monotonic()
    # a process group of its own: on a timeout the sanitizer and the Python under it both go
    # (a kernel left spinning would hold the GPU for the jobs after it)
    if _STOPPING:
        return {"status": "not run", "summary": "stopped"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    _RUNNING.add(proc.pid)
    if _STOPPING:                     # the signal came between the check and the start
        os.killpg(proc.pid, signal.SIGKILL)
    try:
        out, _ = proc.communicate(timeout=timeout_s)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return {"status": "timeout", "seconds": round(time.monotonic() - t0, 1), "tail": (out or "")[-1500:]}
    finally:
        _RUNNING.discard(proc.pid)
    counts = [int(a or b) for a, b in _COUNT.findall(out)]
    summary = "; ".join(_SUMMARY.findall(out))
    if any(s in out for s in _UNSUPPORTED):
        status = "unsupported"
    elif rc == 9 or any(counts):
        status = "hazard"
    elif rc == 0:
        status = "clean"
    else:                              # the run itself failed (a wrong result is run_gpu's exit 1)
        status = "run-failed" if rc in (1, 2) else f"exit {rc}"
    return {"status": status, "rc": rc, "seconds": round(time.monotonic() - t0, 1), "summary": summary,
            "tail": out[-1500:]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", type=Path)
    p.add_argument("--tools", default="racecheck,synccheck")
    p.add_argument("--backend", default=None)
    p.add_argument("--per-kernel-s", type=float, default=40.0)
    p.add_argument("--budget-s", type=float, default=90.0, help="start no job after this many seconds")
    p.add_argument("--jobs", type=int, default=4)
    p.add_argument("--only", default=None, help="comma-separated kernels (default: every kernel of the bundle)")
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--log", type=Path, default=None, help="every job's output tail, in one file")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    a = p.parse_args()
    t_start = time.monotonic()
    signal.signal(signal.SIGTERM, _end_jobs)
    kernels = list(json.loads((a.bundle / "cases.json").read_text())["cases"])
    if a.only:
        kernels = [k for k in kernels if k in set(a.only.split(","))]
    tools = a.tools.split(",")
    sanitizer = find_sanitizer()
    report = {"sanitizer": sanitizer, "tools": tools, "jobs": {}}

    def finish(code: int) -> int:
        if a.json:
            tmp = a.json.with_name(a.json.name + ".tmp")
            tmp.write_text(json.dumps(report, indent=1))
            os.replace(tmp, a.json)
        if a.log:
            with a.log.open("w") as f:
                for key, r in report["jobs"].items():
                    f.write(f"===== {key}: {r['status']} {r.get('summary', '')}\n{r.get('tail', '')}\n")
        return code

    if a.dry_run:
        for tool in tools:
            for k in kernels:
                print(" ".join(command(sanitizer or "compute-sanitizer", tool, a.bundle, k, a.backend)))
        return 0
    if sanitizer is None:
        report["skipped"] = "compute-sanitizer not found (PATH, /usr/local/cuda*/bin, /opt/nvidia)"
        print(f"sanitize: skipped: {report['skipped']}")
        return finish(0)
    try:
        return _sanitize(a, kernels, tools, sanitizer, report, finish, t_start)
    except SystemExit:                 # stopped (SIGTERM): what is done so far is the report
        report["stopped"] = True
        finish(1)
        raise


def _sanitize(a, kernels, tools, sanitizer, report, finish, t_start) -> int:
    probe_kernel = PROBE_KERNEL if PROBE_KERNEL in kernels else kernels[0]
    # the probe also pays for the first start (module loads, the sanitizer's own set-up): more time
    probe = run_one(command(sanitizer, "racecheck", a.bundle, probe_kernel, a.backend), 2 * a.per_kernel_s)
    report["jobs"][f"racecheck/{probe_kernel}"] = probe
    print(f"sanitize: probe racecheck/{probe_kernel}: {probe['status']} ({probe['seconds']} s) "
          f"{probe.get('summary', '')}")
    if probe["status"] in ("unsupported", "timeout") or probe["status"].startswith("exit"):
        report["skipped"] = f"the probe did not run ({probe['status']}): " + probe["tail"][-400:].strip()
        print(f"sanitize: skipped: {report['skipped']}")
        return finish(0)
    # kernel by kernel, both tools: when the budget runs out, the kernels left are the ones unchecked
    jobs = [(t, k) for k in kernels for t in tools if (t, k) != ("racecheck", probe_kernel)]
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        def job(tool, kernel):
            if _STOPPING:
                return {"status": "not run", "summary": "stopped"}
            if time.monotonic() - t_start > a.budget_s:
                return {"status": "not run", "summary": "out of the time budget"}
            return run_one(command(sanitizer, tool, a.bundle, kernel, a.backend), a.per_kernel_s)
        futures = {pool.submit(job, t, k): (t, k) for t, k in jobs}
        try:
            for f in cf.as_completed(futures):
                t, k = futures[f]
                report["jobs"][f"{t}/{k}"] = f.result()
                finish(0)                # the report so far, in case the step's timeout stops us
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    width = max(len(k) for k in report["jobs"])
    print(f"{'tool/kernel':<{width}}  status       seconds  summary")
    for key in sorted(report["jobs"]):
        r = report["jobs"][key]
        print(f"{key:<{width}}  {r['status']:<12} {r.get('seconds', '-'):>7}  {r.get('summary', '')}")
    statuses = [r["status"] for r in report["jobs"].values()]
    print("sanitize: " + ", ".join(f"{statuses.count(s)} {s}" for s in sorted(set(statuses))))
    return finish(1 if "hazard" in statuses else 0)


if __name__ == "__main__":
    sys.exit(main())
