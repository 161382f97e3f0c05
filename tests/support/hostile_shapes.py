"""What the hostile-input tests share: the console scripts run as a user runs them (a child
process under a CPU-time and address-space limit, its CPU time and peak memory measured by the
kernel through ``os.wait4``), and the shapes of issue 18 from benchmarks/hostile.py, so that the
tests and the benchmark grow the same sources."""

from __future__ import annotations

import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from paths import REPO

_spec = importlib.util.spec_from_file_location("hostile_benchmark", REPO / "benchmarks" / "hostile.py")
shapes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shapes)


def script(prog: str) -> str:
    exe = Path(sys.executable).with_name(prog)
    assert exe.exists(), f"{prog} is not installed beside {sys.executable} (pip install -e .)"
    return str(exe)


@dataclass
class Ran:
    status: int
    out: str
    err: str
    cpu: float          # seconds, user + system, of this child alone
    peak_mb: float      # its peak resident memory


def run(prog: str, *argv, env: dict | None = None, cpu_limit: int = 120, mem_limit_mb: int = 4096,
        stdout=subprocess.PIPE) -> Ran:
    """Run the console script ``prog`` with ``argv`` in a fresh process, under a CPU-time and an
    address-space limit (a regression fails instead of taking the machine down)."""
    def limits():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))
        resource.setrlimit(resource.RLIMIT_AS, (mem_limit_mb << 20, mem_limit_mb << 20))
    full_env = dict(os.environ, PYTHONHASHSEED="0")
    full_env.pop("PHOBOS_TRACEBACK", None)
    full_env.update(env or {})
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([script(prog), *argv], stdin=subprocess.DEVNULL,
                             stdout=out if stdout == subprocess.PIPE else stdout, stderr=err,
                             preexec_fn=limits, env=full_env)
        _pid, status, ru = os.wait4(p.pid, 0)       # this child's own CPU time and peak memory
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Ran(p.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                   ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024)
