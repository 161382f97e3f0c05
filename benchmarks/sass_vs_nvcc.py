"""Code quality against nvcc: the SASS of phobos-build's kernels next to hand-written CUDA C.

    python benchmarks/sass_vs_nvcc.py [--arch sm_90] [--json OUT] [--keep DIR]

For each kernel below, the Phobos source (an example, or a kernel under benchmarks/cuda_ref/) is
built with phobos-build and assembled with ``ptxas``; the straightforward CUDA C equivalent under
benchmarks/cuda_ref/ (same algorithm, same block size and data layout) is compiled with
``nvcc -O3``. Both cubins go through ``cuobjdump -sass``. The table compares registers, spill
bytes and shared memory (from ``ptxas -v``), SASS instructions in the whole kernel, and in the
innermost loop body (the largest loop that contains no other loop: a backward branch's range;
NOPs not counted), with the Phobos/nvcc ratio of each instruction count. Needs nvcc, ptxas,
cuobjdump and nvdisasm (the CUDA toolkit, or the NVIDIA wheels for the last three).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REF = HERE / "cuda_ref"

# name: (Phobos source, -D bindings, CUDA reference, (marker, markers per source iteration[, loop])).
# Compilers unroll loops by different factors, so the innermost loop is compared per iteration of
# the source loop: the loop body's instructions divided by (markers in it / markers per iteration),
# where the marker is an instruction each source iteration issues a known number of times. Where a
# kernel has several loops with the marker, ``loop`` picks the same source loop on both sides:
# (an instruction its body must hold, one it must not hold, either None).
KERNELS = {
    "lanes_matvec": (REPO / "examples" / "lanes_matvec.ph", {}, REF / "lanes_matvec.cu", (r"LDG\.E\.128", 2)),
    # the exp-and-sum loop (the middle one): MUFU.EX2 and no store; the write loop has STG
    "row_softmax": (REPO / "examples" / "row_softmax.ph", {}, REF / "row_softmax.cu", (r"LDG", 1, (r"MUFU\.EX2", r"STG"))),
    "row_sums": (REPO / "examples" / "row_sums.ph", {}, REF / "row_sums.cu", (r"LDG", 1)),
    "int8_dot": (REPO / "examples" / "int8_dot.ph", {}, REF / "int8_dot.cu", (r"IDP\.4A", 1)),
    "tile_sweep": (REF / "tile_sweep.ph", {}, REF / "tile_sweep.cu", (r"MUFU\.TANH", 1)),
    "tiled_gemm": (REPO / "examples" / "tiled_gemm.ph", {"BM": 64, "BN": 64, "BK": 32}, REF / "tiled_gemm.cu",
                   (r"FFMA", 16)),
}


@dataclass
class Measure:
    registers: int
    spills: int
    shared: int
    sass: int
    loop: float           # instructions per source iteration of the hottest innermost loop


# ---------------------------------------------------------------- tools
def tool(name: str) -> str:
    sys.path.insert(0, str(REPO.parent))
    try:
        from phobos_tools.lowering.ptxas import find_tool
        found = find_tool(name)
    except ImportError:
        found = shutil.which(name)
    if found is None:
        raise SystemExit(f"sass_vs_nvcc: {name} not found")
    return found


def sass_of(cubin: Path) -> str:
    from phobos_tools.lowering.ptxas import sass
    return sass(cubin.read_bytes())


def resources(log: str) -> tuple[int, int, int]:
    from phobos_tools.lowering.ptxas import parse_resources
    r = parse_resources(log)
    if r is None:
        raise SystemExit(f"sass_vs_nvcc: no resources in ptxas output:\n{log}")
    return r["registers"], r["spills"], r["shared_bytes"]


# ---------------------------------------------------------------- SASS counting
_INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_BRANCH = re.compile(r"\bBRA\s+(?:`\()?(0x[0-9a-f]+)")
_NOP = re.compile(r"^(@!?U?P\w+\s+)?NOP\b")


def parse_sass(text: str) -> list[tuple[int, str]]:
    """(address, instruction) of every SASS instruction (cuobjdump -sass)."""
    return [(int(m.group(1), 16), m.group(2).strip()) for m in map(_INSN.search, text.splitlines()) if m]


def counts(text: str, marker: tuple[str, int]) -> tuple[int, float]:
    """(instructions, instructions per source iteration of the hottest innermost loop: the one
    with the most marker instructions, among those ``marker[2]`` selects; 0 when no loop has one,
    e.g. fully unrolled). NOPs and the final branch-to-self after EXIT (padding) are not counted."""
    pattern, per_iteration = marker[:2]
    must, must_not = marker[2] if len(marker) > 2 else (None, None)
    insns = [(a, i) for a, i in parse_sass(text) if not _NOP.match(i)]
    loops = []
    for a, i in insns:
        m = _BRANCH.search(i)
        if m and int(m.group(1), 16) < a:
            loops.append((int(m.group(1), 16), a))
        elif m and int(m.group(1), 16) == a:
            insns = [x for x in insns if x[0] != a]          # the padding loop at the end
    inner = [lp for lp in loops if not any(o != lp and lp[0] <= o[0] and o[1] <= lp[1] for o in loops)]
    best = (0, 0)
    for lo, hi in inner:
        body = [i for a, i in insns if lo <= a <= hi]
        if must and not any(re.search(must, i) for i in body) or must_not and any(re.search(must_not, i) for i in body):
            continue
        marks = sum(1 for i in body if re.search(rf"\b{pattern}\b", i))
        best = max(best, (marks, len(body)))
    marks, body = best
    return len(insns), (body * per_iteration / marks if marks else 0.0)


# ---------------------------------------------------------------- the two sides
def measure_phobos(src: Path, defines: dict, arch: str, work: Path, name: str, marker) -> Measure:
    from phobos_tools.lowering.build import build_file
    from phobos_tools.lowering.ptxas import assemble
    r = build_file(src, defines=defines, arch=arch, kernel=name, resources=False)
    if not r.ok:
        raise SystemExit(f"sass_vs_nvcc: {src} does not build: {[(d.code, d.message) for d in r.diagnostics]}")
    k = r.kernels[0]
    (work / f"{name}.ptx").write_text(k.ptx)
    done = assemble(k.ptx, arch, tool("ptxas"), keep_cubin=True)
    if not done.ok:
        raise SystemExit(f"sass_vs_nvcc: ptxas rejected {name}: {done.log}")
    cubin = work / f"{name}.phobos.cubin"
    cubin.write_bytes(done.cubin)
    regs, spills, smem = resources(done.log)
    text = sass_of(cubin)
    (work / f"{name}.phobos.sass").write_text(text)
    total, loop = counts(text, marker)
    return Measure(regs, spills, smem, total, loop)


def measure_nvcc(cu: Path, arch: str, work: Path, name: str, marker) -> Measure:
    cubin = work / f"{name}.nvcc.cubin"
    proc = subprocess.run([tool("nvcc"), f"-arch={arch}", "-O3", "-cubin", "-Xptxas", "-v", "-o", str(cubin), str(cu)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"sass_vs_nvcc: nvcc failed on {cu}:\n{proc.stdout}{proc.stderr}")
    regs, spills, smem = resources(proc.stdout + proc.stderr)
    text = sass_of(cubin)
    (work / f"{name}.nvcc.sass").write_text(text)
    total, loop = counts(text, marker)
    return Measure(regs, spills, smem, total, loop)


def table(rows: dict) -> str:
    head = (f"{'kernel':<14} {'registers':>9} {'spills':>7} {'smem bytes':>15} {'SASS insns':>13} {'ratio':>6} "
            f"{'loop insns/iter':>15} {'ratio':>6}")
    lines = [head, f"{'':<14} {'ph / nv':>9} {'ph / nv':>7} {'ph / nv':>15} {'ph / nv':>13} {'':>6} {'ph / nv':>15}",
             "-" * len(head)]

    def r(x, y):
        return f"{x / y:>6.2f}" if y else f"{'-':>6}"

    def it(x):
        return f"{x:.1f}" if x else "-"
    for name, (p, n) in rows.items():
        lines.append(f"{name:<14} {p.registers:>4} / {n.registers:<3} {p.spills:>3} / {n.spills:<2} "
                     f"{p.shared:>6} / {n.shared:<6} {p.sass:>5} / {n.sass:<5} {r(p.sass, n.sass)} "
                     f"{it(p.loop):>6} / {it(n.loop):<6} {r(p.loop, n.loop) if p.loop else f'{chr(45):>6}'}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--json", type=Path, help="also write the measurements as JSON")
    ap.add_argument("--keep", type=Path, help="keep PTX, cubins and SASS in this directory")
    ap.add_argument("kernels", nargs="*", help="only these kernels")
    a = ap.parse_args()
    rows = {}
    with tempfile.TemporaryDirectory(prefix="sass-vs-nvcc-") as tmp:
        work = a.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for name, (src, defines, cu, marker) in KERNELS.items():
            if a.kernels and name not in a.kernels:
                continue
            rows[name] = (measure_phobos(src, defines, a.arch, work, name, marker),
                          measure_nvcc(cu, a.arch, work, name, marker))
    print(f"phobos-build vs nvcc -O3 for {a.arch} (ph / nv)")
    print(table(rows))
    if a.json:
        a.json.write_text(json.dumps({k: {"phobos": asdict(p), "nvcc": asdict(n)} for k, (p, n) in rows.items()},
                                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
