"""Shared helpers of the lowering tests: building sources, finding ptxas/cuobjdump, and the rule
that turns a missing tool into a failure when CI asks for it (PHOBOS_REQUIRE_PTXAS=1)."""

from __future__ import annotations

import os
import re
from functools import lru_cache

import pytest

from phobos_tools.lowering.build import build_file, build_source
from phobos_tools.lowering.ptxas import REQUIRE_ENV, find_ptxas, find_tool
from paths import REPO, SPEC_KERNELS

EXAMPLES = sorted((REPO / "examples").glob("*.ph"))

# Examples that use tile operations (LANGUAGE §8 CTA-wide tile ops), and those that do not.
TILE_EXAMPLES = {"attention_scores", "barrier_store", "chunk_cumsum", "closed_branch", "embedding_gather",
                 "jacobi_poisson", "linear_relu", "row_scan", "stage", "tiled_gemm"}
LANE_EXAMPLES = [p for p in EXAMPLES if p.stem not in TILE_EXAMPLES]
CONFORMANCE = sorted((REPO / "tests" / "spec_conformance").glob("*/clean_*.ph")) + \
    sorted(SPEC_KERNELS.glob("accepted_*.ph"))


def need_tool(name: str) -> str:
    """The tool's path; skip without it, or fail when PHOBOS_REQUIRE_PTXAS=1 (set by .ci/run)."""
    path = find_ptxas() if name == "ptxas" else find_tool(name)
    if path is None:
        message = (f"{name} not found (PATH or the NVIDIA wheel: ptxas from nvidia-cuda-nvcc==13.0.*, "
                   f"cuobjdump from nvidia-cuda-cuobjdump, nvdisasm from nvidia-cuda-nvdisasm)")
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{message}, and {REQUIRE_ENV}=1 requires it")
        pytest.skip(message)
    return path


@lru_cache(maxsize=None)
def built_example(stem: str, arch: str = "sm_90"):
    return build_file(REPO / "examples" / f"{stem}.ph", arch=arch, resources=False)


def ptx_of(source: str, arch: str = "sm_90", kernel: str | None = None, defines=None) -> str:
    r = build_source(source, "t.ph", defines, arch, kernel, resources=False)
    assert r.ok, [(d.code, d.span, d.message) for d in r.diagnostics]
    assert r.kernels
    return r.kernels[0].ptx


def body(ptx: str) -> str:
    """The instructions of the PTX, without comments, .loc lines and blank lines."""
    keep = []
    for line in ptx.splitlines():
        s = line.strip()
        if not s or s.startswith("//") or s.startswith(".loc") or s.startswith(".file"):
            continue
        keep.append(s)
    return "\n".join(keep)


def count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text, re.M))


def sass_of(ptx: str, arch: str = "sm_90"):
    """(SASS listing, ptxas's result) of ``ptx`` for ``arch``; skips without ptxas, cuobjdump or
    nvdisasm (need_tool), fails when ptxas refuses it."""
    from phobos_tools.lowering.ptxas import assemble, sass
    ptxas = need_tool("ptxas")
    need_tool("cuobjdump")
    need_tool("nvdisasm")
    done = assemble(ptx, arch, ptxas, keep_cubin=True)
    assert done.ok, done.log
    return sass(done.cubin), done


# ---------------------------------------------------------------- loops in PTX and SASS
_SASS_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_SASS_BRANCH = re.compile(r"\bBRA\s+(?:`\()?(0x[0-9a-f]+)")


def sass_loops(text: str) -> list[tuple[int, int, list[str]]]:
    """The loops of a SASS listing, one per backward branch: (first address, branch address,
    the instructions between, both included)."""
    insns = [(int(m.group(1), 16), m.group(2).strip()) for m in map(_SASS_LINE.search, text.splitlines()) if m]
    out = []
    for a, i in insns:
        m = _SASS_BRANCH.search(i)
        if m and int(m.group(1), 16) < a:
            lo = int(m.group(1), 16)
            out.append((lo, a, [x for b, x in insns if lo <= b <= a]))
    return out


def smallest_sass_loop(text: str, marker: str) -> list[str]:
    """The smallest SASS loop holding a ``marker`` instruction (a GEMM's k loop: its copies are
    loops of their own inside it)."""
    bodies = [body for _lo, _hi, body in sass_loops(text) if any(re.match(marker, i) for i in body)]
    return min(bodies, key=len, default=[])


def smallest_ptx_loop(ptx: str, marker: str) -> list[str]:
    """The lines from a PTX label to the smallest backward branch to it whose span holds
    ``marker`` (code LLVM placed out of the loop's line is not in it)."""
    lines = [ln.strip() for ln in ptx.splitlines()]
    labels = {ln[:-1]: i for i, ln in enumerate(lines) if re.match(r"^\$L\w+:$", ln)}
    best = None
    for i, ln in enumerate(lines):
        m = re.search(r"\bbra(?:\.uni)?\s+(\$L\w+);", ln)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            body = lines[labels[m.group(1)]:i + 1]
            if any(marker in x for x in body) and (best is None or len(body) < len(best)):
                best = body
    return best or []
