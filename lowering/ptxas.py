"""ptxas and cuobjdump: finding them, assembling PTX, reading the resources ptxas reports.

ptxas comes from the PATH or from the ``nvidia-cuda-nvcc`` wheel (the ``ptx`` extra);
cuobjdump and the nvdisasm it runs from the ``nvidia-cuda-cuobjdump`` and
``nvidia-cuda-nvdisasm`` wheels. Nothing here is needed to build PTX: without ptxas the
manifest's ``resources`` is null.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REQUIRE_ENV = "PHOBOS_REQUIRE_PTXAS"     # "1": tests fail instead of skipping without the tools


def _wheel_binary(name: str) -> str | None:
    """``name`` inside an installed NVIDIA wheel (site-packages/nvidia/*/bin/NAME)."""
    roots = []
    try:
        import nvidia  # namespace package of the NVIDIA wheels
        roots.extend(Path(p) for p in getattr(nvidia, "__path__", []))
    except ImportError:
        pass
    for p in sys.path:
        cand = Path(p) / "nvidia"
        if cand.is_dir() and cand not in roots:
            roots.append(cand)
    for root in roots:
        for found in sorted(root.glob(f"*/bin/{name}")):
            if os.access(found, os.X_OK):
                return str(found)
    return None


def find_tool(name: str) -> str | None:
    return shutil.which(name) or _wheel_binary(name)


def find_ptxas() -> str | None:
    return find_tool("ptxas")


@dataclass
class Assembled:
    ok: bool
    log: str                       # ptxas's messages (errors, or -v output)
    resources: dict | None         # {"registers", "shared_bytes", "spills"} from -v
    cubin: bytes | None = None


def assemble(ptx: str, arch: str, ptxas: str | None = None, keep_cubin: bool = False,
             timeout_s: float = 120.0) -> Assembled:
    ptxas = ptxas or find_ptxas()
    if ptxas is None:
        raise FileNotFoundError("ptxas not found (PATH, or the nvidia-cuda-nvcc wheel)")
    with tempfile.TemporaryDirectory(prefix="phobos-ptxas-") as d:
        src = Path(d) / "k.ptx"
        out = Path(d) / "k.cubin"
        src.write_text(ptx)
        proc = subprocess.run([ptxas, f"-arch={arch}", "-v", str(src), "-o", str(out)],
                              capture_output=True, text=True, timeout=timeout_s)
        log = (proc.stdout + proc.stderr).strip()
        cubin = out.read_bytes() if keep_cubin and proc.returncode == 0 and out.exists() else None
    ok = proc.returncode == 0
    return Assembled(ok, log, parse_resources(log) if ok else None, cubin)


_REGS = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def parse_resources(log: str) -> dict | None:
    regs = _REGS.search(log)
    if regs is None:
        return None
    smem = _SMEM.search(log)
    spill = _SPILL.search(log)
    return {"registers": int(regs.group(1)), "shared_bytes": int(smem.group(1)) if smem else 0,
            "spills": (int(spill.group(1)) + int(spill.group(2))) if spill else 0}


def sass(cubin: bytes, timeout_s: float = 60.0) -> str:
    """``cuobjdump -sass`` of a cubin (needs cuobjdump and nvdisasm)."""
    cuobjdump = find_tool("cuobjdump")
    if cuobjdump is None:
        raise FileNotFoundError("cuobjdump not found (PATH, or the nvidia-cuda-cuobjdump wheel)")
    env = dict(os.environ)
    nvdisasm = find_tool("nvdisasm")
    if nvdisasm is not None:
        env["PATH"] = str(Path(nvdisasm).parent) + os.pathsep + env.get("PATH", "")
    with tempfile.TemporaryDirectory(prefix="phobos-sass-") as d:
        path = Path(d) / "k.cubin"
        path.write_bytes(cubin)
        proc = subprocess.run([cuobjdump, "-sass", str(path)], capture_output=True, text=True,
                              timeout=timeout_s, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"cuobjdump failed: {(proc.stdout + proc.stderr).strip()}")
    return proc.stdout
