"""The oracles of the fuzzing runs (issue 8), shared by tests/test_fuzz*.py, tests/test_soundness*.py
and benchmarks/fuzz.py.

- ``check_api``, ``check_cli``, ``build_cli``, ``build_api``, ``run_cli`` and ``simulate_any``
  put one input through one entry point and return the ``Finding``s it broke: an exception, a
  traceback, PH900/PH901, an exit status outside 0/1/2/4, a diagnostic that is not located, output
  that does not parse (JSON, SARIF), PTX that ptxas refuses, or a call slower than ``SLOW_S``.
- ``soundness`` runs one race-free generated kernel at each of its block sizes: it checks it, builds
  it (ptxas included) and simulates it on random inputs over several grids; it returns an
  ``Outcome`` that says whether the analysis accepted it and what the simulator saw, and the
  ``Finding``s: a PH301-PH306 dynamic check firing on an accepted kernel is a soundness
  counterexample.

Nothing here raises for a bad input: every problem is a Finding.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SLOW_S = 10.0                     # issue 8: bounded time, under 10 s for the largest file
EXIT_OK = {0, 1}                  # a checked input: accepted or rejected
PER_THREAD = ("PH301", "PH302", "PH303", "PH304", "PH305", "PH306")
# what a race-free generated kernel never does: a racy point read (§9.8), an access out of bounds, a
# runaway loop, a division by zero, two threads storing different values in one element, a CTA
# reading what another CTA stored, a store over what another thread read (tests/support/phobos_gen.py
# promises all seven, whatever the checker says of the kernel)
GENERATOR_PROMISES = ("PH401", "PH402", "PH405", "PH406", "PH408", "PH409", "PH410")
GRIDS = ((1,), (2,), (3,), (2, 2), (1, 2, 2), (4, 1, 1))


@dataclass
class Finding:
    kind: str                     # crash | unsound | differential | slow | ptxas | unlocated | bad-output | generator
    stage: str                    # check | check-cli:FMT | build | build-cli | run-cli | sim
    detail: str
    source: bytes | str | None = None
    defines: dict | None = None
    known: str | None = None      # the name of a known bug (KNOWN_BUGS) this is, when set by the harness

    def short(self) -> str:
        return f"{self.kind} in {self.stage}: {self.detail.splitlines()[0][:200] if self.detail else ''}"

    def signature(self) -> str:
        """What makes two findings the same bug: the exception and the innermost phobos frame of a
        crash, the code and operation of an unsound verdict, the message shape otherwise."""
        if self.known:
            return f"known:{self.known}"
        first = self.detail.splitlines()[0] if self.detail else ""
        family = self.stage.split(":")[0].split("[")[0].replace("-cli", "")
        m = re.search(r"\b(PH9\d\d)\]?: (.*)", self.detail)
        if m and self.kind in ("crash", "ptxas"):
            msg = re.sub(r"`[^`]*`", "`.`", re.sub(r"\d+", "#", m.group(2)))
            return f"{self.kind}:{family}:{m.group(1)}:{msg[:80]}"
        frames = re.findall(r'File "([^"]*/(?:analyzer|lowering|simulator|cli)/[^"]+)", line (\d+)', self.detail)
        if self.kind == "crash" and frames:
            f, line = frames[-1]
            return f"crash:{self.stage}:{first.split(':')[0]}@{'/'.join(f.split('/')[-2:])}:{line}"
        if self.kind == "differential":
            # the shape of the difference: which check of the lowered module, or which array
            m = re.search(r"(race|out-of-bounds|division by zero|overflow|deadlock|bar\.sync|lanes disagree)", first)
            if m:
                return f"differential:lowered:{m.group(1)}"
            m = re.search(r"`([^`]*)`\[", first)
            return f"differential:differs:{m.group(1) if m else first[:40]}{':tame' if 'tame' in first else ''}"
        if self.kind == "unsound":
            m = re.search(r"error\[(PH\d+)\]: `([^`]*)`", first)
            return f"unsound:{m.group(1)}:{m.group(2)}" if m else f"unsound:{first[:60]}"
        text = re.sub(r"\d+", "#", first)
        text = re.sub(r"`[^`]*`", "`.`", text)
        return f"{self.kind}:{family}:{text[:90]}"


def _crash(stage, exc, source, defines=None) -> Finding:
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return Finding("crash", stage, f"{type(exc).__name__}: {exc}\n{tb[-3000:]}", source, defines)


@contextlib.contextmanager
def _timed(stage, findings, source, defines=None, limit=SLOW_S):
    """Report a stage whose CPU time (this process's and its children's) passes `limit`.

    CPU time rather than wall time: on a loaded machine (CI runs beside other jobs) a 1 s check
    has been seen to take 13 s of wall time, which says nothing about the checker.
    """
    def cpu():
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system
    c0, t0 = cpu(), time.perf_counter()
    yield
    dc, dt = cpu() - c0, time.perf_counter() - t0
    if dc > limit:
        findings.append(Finding("slow", stage, f"took {dc:.1f} s of CPU ({dt:.1f} s wall; limit {limit:.0f} s)",
                                source, defines))


def _size(data) -> int:
    return len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))


# ------------------------------------------------------------------------------------------------ check


def validate_diagnostics(result, stage, source, defines=None) -> list[Finding]:
    """Every diagnostic located, registered, rendered; never PH900."""
    from phobos_tools.analyzer.diagnostics import CODES
    from phobos_tools.analyzer.diagnostics.text import render_text

    out = []
    for i, d in enumerate(result.diagnostics):
        if d.code in ("PH900", "PH901"):
            out.append(Finding("crash", stage, f"{d.code}: {d.message}", source, defines))
            continue
        if d.code not in CODES:
            out.append(Finding("unlocated", stage, f"unregistered code {d.code}: {d.message}", source, defines))
        sp = d.span
        if sp is None or sp.line < 1 or sp.column < 1 or (sp.end_line, sp.end_column) < (sp.line, sp.column):
            out.append(Finding("unlocated", stage, f"{d.code} at {sp}: {d.message}", source, defines))
            continue
        if result.text is not None:
            nlines = result.text.count("\n") + 1
            if sp.line > nlines + 1:
                out.append(Finding("unlocated", stage, f"{d.code} at line {sp.line} of {nlines}", source, defines))
        if i < 5:
            try:
                render_text(d, "f.ph", result.text)
            except Exception as e:  # noqa: BLE001
                out.append(_crash(stage + ":render", e, source, defines))
    return out


def check_api(data, defines=None, stage="check"):
    """(CheckResult or None, findings)."""
    from phobos_tools.analyzer import check_source

    findings: list[Finding] = []
    result = None
    with _timed(stage, findings, data, defines):
        try:
            result = check_source(data, "f.ph", defines)
        except Exception as e:  # noqa: BLE001
            findings.append(_crash(stage, e, data, defines))
    if result is not None:
        findings += validate_diagnostics(result, stage, data, defines)
    return result, findings


def _call_main(main, argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as e:          # argparse --help and friends
            status = e.code if isinstance(e.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def _bad_text(out: str, err: str) -> str | None:
    both = out + err
    for needle in ("Traceback (most recent call last)", "[PH900]", "[PH901]", "internal error"):
        if needle in both:
            i = both.index(needle)
            return both[max(0, i - 300): i + 1500]
    return None


def write_input(directory: Path, data, name: str = "f.ph") -> Path:
    path = Path(directory) / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    return path


def check_cli(path: Path, fmt: str, source=None, defines=None) -> list[Finding]:
    """``phobos-check --format FMT PATH`` in-process."""
    from phobos_tools.cli.check import main

    stage = f"check-cli:{fmt}"
    argv = [str(path), "--format", fmt] + [f"-D{k}={v}" for k, v in (defines or {}).items()]
    findings: list[Finding] = []
    with _timed(stage, findings, source, defines):
        try:
            status, out, err = _call_main(main, argv)
        except Exception as e:  # noqa: BLE001
            return findings + [_crash(stage, e, source, defines)]
    bad = _bad_text(out, err)
    if status not in EXIT_OK or bad:
        findings.append(Finding("crash", stage, f"exit {status}: {bad or err[-1500:]}", source, defines))
        return findings
    if fmt in ("json", "sarif"):
        try:
            doc = json.loads(out)
        except ValueError as e:
            findings.append(Finding("bad-output", stage, f"not JSON: {e}: {out[:300]!r}", source, defines))
            return findings
        if fmt == "json" and not (doc.get("version") == 1 and isinstance(doc.get("files"), list)):
            findings.append(Finding("bad-output", stage, f"not JSON format version 1: {out[:300]}", source, defines))
        if fmt == "sarif" and not (doc.get("version") == "2.1.0" and len(doc.get("runs", ())) == 1):
            findings.append(Finding("bad-output", stage, f"not one SARIF 2.1.0 run: {out[:300]}", source, defines))
        if fmt == "json" and status == 1 and not any(f["diagnostics"] for f in doc["files"]):
            findings.append(Finding("bad-output", stage, "exit 1 without a diagnostic", source, defines))
    return findings


# ------------------------------------------------------------------------------------------------ build


def ptxas_available() -> bool:
    from phobos_tools.lowering.ptxas import find_ptxas
    return find_ptxas() is not None


def build_api(source, defines=None, stage="build"):
    """(BuildResult or None, findings). With ptxas on the PATH the build assembles the PTX: a PTX
    that ptxas refuses comes back as PH901 and is reported as kind ``ptxas``."""
    from phobos_tools.lowering.build import build_source

    findings: list[Finding] = []
    result = None
    with _timed(stage, findings, source, defines, limit=SLOW_S * 3):
        try:
            result = build_source(source, "f.ph", defines)
        except Exception as e:  # noqa: BLE001
            findings.append(_crash(stage, e, source, defines))
    if result is None:
        return None, findings
    for d in result.diagnostics:
        if d.code in ("PH900", "PH901"):
            kind = "ptxas" if "ptxas rejected" in d.message else "crash"
            findings.append(Finding(kind, stage, f"{d.code}: {d.message[:2500]}", source, defines))
    if result.ok and result.check is not None and result.check.ok and not result.kernels:
        findings.append(Finding("crash", stage, "accepted, yet no kernel was built", source, defines))
    return result, findings


def build_cli(path: Path, out_dir: Path, source=None, defines=None) -> tuple[int | None, list[Finding]]:
    """``phobos-build PATH -o DIR`` in-process."""
    from phobos_tools.cli.build import main

    argv = [str(path), "-o", str(out_dir)] + [f"-D{k}={v}" for k, v in (defines or {}).items()]
    findings: list[Finding] = []
    with _timed("build-cli", findings, source, defines, limit=SLOW_S * 3):
        try:
            status, out, err = _call_main(main, argv)
        except Exception as e:  # noqa: BLE001
            return None, findings + [_crash("build-cli", e, source, defines)]
    bad = _bad_text(out, err)
    if status not in EXIT_OK or bad:
        kind = "ptxas" if "ptxas rejected" in out + err else "crash"
        findings.append(Finding(kind, "build-cli", f"exit {status}: {bad or err[-1500:]}", source, defines))
    return status, findings


# ------------------------------------------------------------------------------------------------ simulator

GEN_EXTENTS = {"R": (4, 8), "N": None, "G": None}       # N from the block size, G from the grid


def _array(rng, dtype, shape, special: bool):
    import ml_dtypes

    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (info.min, info.max) if dt.itemsize == 1 else (-1000, 1000)
        a = rng.integers(lo, hi, size=shape, endpoint=True).astype(dt)
        if special and a.size and dt.itemsize >= 4:
            a.flat[rng.integers(0, a.size)] = info.max
            a.flat[rng.integers(0, a.size)] = info.min
        return a
    a = rng.standard_normal(shape).astype(np.float32)
    if special and a.size:
        for v in (np.inf, -np.inf, np.nan, -0.0, 1e30):
            a.flat[rng.integers(0, a.size)] = v
    if dt == np.dtype(ml_dtypes.bfloat16):
        return a.astype(ml_dtypes.bfloat16)
    return a.astype(dt)


def arguments(kinfo, rng, grid, block: int, special: bool = False) -> dict:
    """Random arguments for any kernel: tensors from the parameter types (extents R, N, G of the
    generated kernels sized so their masked indices stay in bounds), scalars from their types."""
    from phobos_tools.language.types import Tensor
    from phobos_tools.simulator.values import dtype_of

    ctas = int(np.prod(grid))
    extents: dict = {"R": int(rng.choice([4, 8])), "N": max(64, 4 * block) * int(rng.choice([1, 2])), "G": ctas}
    values = {}
    for p in kinfo.params:
        t = p.type
        if isinstance(t, Tensor):
            shape = []
            for d in t.shape:
                if isinstance(d, int):
                    shape.append(d)
                else:
                    extents.setdefault(d, int(rng.choice([1, 4, 8, 32, 64])))
                    shape.append(extents[d])
            dt = dtype_of(t.elem)
            if p.name == "F":
                values[p.name] = rng.integers(0, 8, size=tuple(shape)).astype(dt)
            else:
                values[p.name] = _array(rng, dt, tuple(shape), special)
        else:
            name = t.name
            if name == "bool":
                values[p.name] = bool(rng.random() < 0.5)
            elif name in ("i8", "u8", "i32", "i64"):
                values[p.name] = int(rng.integers(-5, 40)) if name != "u8" else int(rng.integers(0, 40))
            else:
                values[p.name] = float(rng.standard_normal())
    return values


@dataclass
class SimRun:
    grid: tuple
    block: int
    code: str | None              # the dynamic check that fired, None: ran to the end
    message: str = ""


def simulate_one(kernel, rng, grid, block, special=False, max_loop=20_000, source=None, defines=None):
    """(SimRun or None, findings): one launch on random arguments."""
    from phobos_tools.run import DynamicCheckFailed

    findings: list[Finding] = []
    args = arguments(kernel.info, rng, grid, block, special)
    run = None
    with _timed("sim", findings, source, defines):
        try:
            kernel(**args, grid=grid, max_loop_iterations=max_loop)
            run = SimRun(grid, block, None)
        except DynamicCheckFailed as e:
            d = e.diagnostic
            if d.span is None or d.span.line < 1:
                findings.append(Finding("unlocated", "sim", f"{d.code} at {d.span}: {d.message}", source, defines))
            run = SimRun(grid, block, e.code, str(e))
        except Exception as e:  # noqa: BLE001  (ArgumentError included: the arguments fit the kernel)
            findings.append(_crash("sim", e, source, defines))
    return run, findings


def simulate_any(source, defines, rng, grids=GRIDS[:2], unchecked=True):
    """Load and run any source that checks (with ``unchecked``, also one the per-thread rules
    reject): (runs, findings). A source that does not load is no finding (its check said why)."""
    from phobos_tools.run import ArgumentError, ProgramRejected, loads

    findings: list[Finding] = []
    try:
        program = loads(source, "f.ph", defines, unchecked=unchecked)
    except ProgramRejected:
        return [], findings
    except Exception as e:  # noqa: BLE001
        return [], [_crash("sim-load", e, source, defines)]
    runs = []
    for name in list(program.kernels)[:2]:
        try:
            kernel = program.kernel(name)
        except ArgumentError as e:
            findings.append(_crash("sim-load", e, source, defines))
            continue
        for grid in grids:
            run, f = simulate_one(kernel, rng, grid, kernel.threads, source=source, defines=defines, max_loop=2000)
            findings += f
            if run is not None:
                runs.append(run)
    return runs, findings


def run_cli(path: Path, kinfo, block: int, grid, out_dir: Path, defines=None, source=None, unchecked=False):
    """``phobos-run PATH --sim --grid .. --arg ..`` in-process: exit 0, 1 or 4, no traceback."""
    from phobos_tools.language.types import Tensor
    from phobos_tools.cli.run import main

    rng = np.random.default_rng(0)
    args = arguments(kinfo, rng, grid, block)
    argv = [str(path), "--sim", "--grid", ",".join(map(str, grid)), "--out", str(out_dir), "-k", kinfo.kernel.name]
    for p in kinfo.params:
        v = args[p.name]
        if isinstance(p.type, Tensor):
            argv += ["--arg", f"{p.name}={'zeros' if p.name == 'F' else 'rand'}:{p.type.elem.name}:"
                              f"{'x'.join(map(str, v.shape))}"]
        else:
            argv += ["--arg", f"{p.name}={str(v).lower() if isinstance(v, bool) else v}"]
    argv += [f"-D{k}={v}" for k, v in (defines or {}).items()]
    if unchecked:
        argv.append("--unchecked")
    findings: list[Finding] = []
    with _timed("run-cli", findings, source, defines):
        try:
            status, out, err = _call_main(main, argv)
        except Exception as e:  # noqa: BLE001
            return None, [_crash("run-cli", e, source, defines)]
    bad = _bad_text(out, err)
    if status not in (0, 1, 4) or bad:
        findings.append(Finding("crash", "run-cli", f"exit {status} for {' '.join(argv)}: {bad or err[-1500:]}",
                                source, defines))
    return status, findings


# ------------------------------------------------------------------------------------------------ no crash


def no_crash(data, tmp: Path, fmt: str = "text", build: bool = True, simulate: bool = True, defines=None,
             rng=None) -> tuple[object, list[Finding]]:
    """One input through every entry point: check_source, phobos-check (``fmt``), phobos-build (its
    CLI, to a temporary directory) and, when it checks (PH3xx errors waived), the simulator."""
    findings: list[Finding] = []
    result, f = check_api(data, defines)
    findings += f
    path = write_input(tmp, data)
    findings += check_cli(path, fmt, data, defines)
    if build:
        out = Path(tempfile.mkdtemp(dir=tmp))
        _, f = build_cli(path, out, data, defines)
        findings += f
    if simulate and result is not None and result.semantics is not None and result.analyzed:
        errors = [d for d in result.diagnostics if d.severity == "error"]
        if all(d.code.startswith("PH3") for d in errors):
            _, f = simulate_any(data, defines, rng or np.random.default_rng(0))
            findings += f
    return result, findings


# ------------------------------------------------------------------------------------------------ soundness


@dataclass
class Outcome:
    """What one race-free kernel did at one block size."""

    block: int
    accepted: bool
    codes: list = field(default_factory=list)      # the analysis' per-thread error codes
    runs: list = field(default_factory=list)       # SimRun
    built: str = "no"                              # no | ok | unsupported | failed

    @property
    def fired(self) -> set:
        return {r.code for r in self.runs if r.code}


def soundness(gk, rng, grids_per_block: int = 2, build: bool = True, special_every: int = 3):
    """Run one race-free ``GenKernel`` at each of its block sizes: (outcomes, findings)."""
    from phobos_tools.run import loads

    findings: list[Finding] = []
    outcomes: list[Outcome] = []
    built_once = False
    for blk in gk.blocks:
        defines = {"BLK": str(blk)}
        result, f = check_api(gk.source, defines)
        findings += f
        if result is None:
            continue
        errors = [d for d in result.diagnostics if d.severity == "error"]
        if any(not d.code.startswith("PH3") for d in errors):
            findings.append(Finding("generator", "check", "; ".join(f"{d.code} {d.span.line}:{d.span.column} "
                                                                    f"{d.message}" for d in errors[:3]),
                                    gk.source, defines))
            continue
        out = Outcome(blk, not errors, sorted({d.code for d in errors}))
        if out.accepted and build and not built_once:
            built_once = True
            res, f = build_api(gk.source, defines)
            findings += f
            if res is not None:
                if res.kernels:
                    out.built = "ok"
                elif any(d.code == "PH210" for d in res.diagnostics):
                    out.built = "unsupported"
                else:
                    out.built = "failed"
        try:
            program = loads(gk.source, "f.ph", defines, unchecked=not out.accepted)
            kernel = program.kernel("gen")
        except Exception as e:  # noqa: BLE001
            findings.append(_crash("sim-load", e, gk.source, defines))
            continue
        picks = rng.choice(len(GRIDS), size=grids_per_block, replace=False)
        for n, gi in enumerate(picks):
            grid = GRIDS[int(gi)]
            special = special_every and (n + blk) % special_every == 0
            run, f = simulate_one(kernel, rng, grid, blk, special=bool(special), source=gk.source, defines=defines)
            findings += f
            if run is None:
                continue
            out.runs.append(run)
            if run.code in GENERATOR_PROMISES:
                f = Finding("generator", "sim", f"{'accepted' if out.accepted else 'rejected'}, "
                            f"at block {blk}, grid {grid}: {run.message}", gk.source, defines)
                findings.append(f)
            if out.accepted and run.code in PER_THREAD:
                f = Finding("unsound", "sim", f"accepted, but at block {blk}, grid {grid}: {run.message}",
                            gk.source, defines)
                findings.append(f)
        outcomes.append(out)
    return outcomes, findings


# ------------------------------------------------------------------------------------------------ differential
#
# The lowering against the simulator: one accepted race-free kernel, run on identical random inputs
# by the simulator and by tests/support/ir_simt.py on the LLVM module phobos-build emits (before LLVM's
# passes), every tensor compared afterwards. Integers and bools must agree bit for bit. Floats may
# differ only by what LANGUAGE §10 lets the lowering do differently from the simulator's exact
# arithmetic, as the module ir_simt runs it:
#
# - exp, log and pow are composed of ex2.approx/lg2.approx (which ir_simt evaluates exactly) around
#   an f32 multiply: exp(x) = ex2(f32(x * log2 e)) is off by up to |x| * 2^-24 relative (5e-6 at
#   the edge of f32, |x| = 88), log(x) = f32(lg2(x)) * ln 2 by 2 ulp, pow(x, y) = ex2(y * lg2 x)
#   by |y lg2 x| * 2^-23 (1e-5 at the edge); sqrt.approx and tanh.approx are exact in ir_simt;
#   on f64 the four run in f32 (docs/limitations.md): f32's error in an f64 result;
# - the order of a reduction (lane and CTA collectives, `sum` of a run, rowsum, dot, cumsum): each
#   addition rounds, so a sum of n terms may differ by n ulp of the sum of the magnitudes;
# - FMA contraction, which LANGUAGE §10 allows, does not show: ir_simt runs the module before
#   LLVM fuses anything (every fmul and fadd rounds on its own, as in the simulator).
#
# Both error sources are relative to the magnitudes that flow into a value, not to the value
# itself, and later arithmetic can amplify them without bound (a difference of nearly equal values,
# `i32(x)` at an integer boundary, a comparison at equality). So an element passes when it is
# within RTOL of itself or of the largest finite magnitude of its whole array (ATOL_SCALE), and a
# kernel whose floats meet anything inexact (the four functions above, a float reduction, a float
# division) is run a second time on "tame" inputs (small multiples of 1/8, where sums, products
# and float<->int conversions are exact in f32) when the first run differs: a difference that the
# tame run does not show is counted as `inexact`, not as a finding. A kernel without such
# operations must agree exactly (floats to the bit, -0.0 == 0.0 and NaN == NaN aside).

DIFF_RTOL = 2e-5          # 4x the largest single-step error above (pow at the edge of f32)
DIFF_ATOL_SCALE = 1e-5    # of the largest finite magnitude in the array (reduction order)
INEXACT = re.compile(r"\b(exp|log|pow|tanh|sqrt|rowsum|rowmax|dot|dot_t|cumsum|rowtotal|lanesum)\s*\(|"
                     r"<over ctx\.(lane|thread)>|\bsum\s*\(|/")     # (the generator's functions that reduce too)
DIFF_GRIDS = ((1,), (2,), (2, 2), (1, 1, 2))


@dataclass
class DiffRun:
    grid: tuple
    block: int
    status: str                  # same | inexact | differs | sim-check | ir-error | skipped
    detail: str = ""


def _tame(rng, a):
    """The same shape and dtype with small multiples of 1/8 (floats) or small integers."""
    dt = a.dtype
    if dt == np.bool_:
        return a
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -8, 9, size=a.shape).astype(dt)
    return (rng.integers(-16, 17, size=a.shape) / 8.0).astype(dt)


def compare_outputs(sim: dict, ir: dict, rtol=DIFF_RTOL, atol_scale=DIFF_ATOL_SCALE, exact=False) -> list[str]:
    """The arrays where the simulator's and ir_simt's results differ beyond the tolerance (or at
    all, with ``exact``): one line each, naming the first differing element."""
    out = []
    for name in sim:
        a, b = np.asarray(sim[name]), np.asarray(ir[name])
        if a.dtype.kind not in "fc" and a.dtype.kind != "V" and a.dtype.name != "bfloat16":
            bad = a != b
        else:
            x, y = a.astype(np.float64), b.astype(np.float64)
            both_nan = np.isnan(x) & np.isnan(y)
            with np.errstate(all="ignore"):
                if exact:
                    bad = ~((x == y) | both_nan)
                else:
                    finite = np.isfinite(x) & np.isfinite(y)
                    scale = float(np.max(np.abs(x[np.isfinite(x)]), initial=0.0))
                    tol = rtol * np.maximum(np.abs(x), np.abs(y)) + atol_scale * scale
                    bad = ~(both_nan | (x == y) | (finite & (np.abs(x - y) <= tol)))
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            out.append(f"`{name}`{list(idx)}: simulator {a[idx]!r}, lowered {b[idx]!r} "
                       f"({int(np.count_nonzero(bad))} element(s) differ)")
    return out


def _ir_args(kinfo, values: dict) -> list:
    from phobos_tools.language.types import Tensor

    args, extents = [], {}
    for p in kinfo.params:
        v = values[p.name]
        if isinstance(p.type, Tensor):
            for d, n in zip(p.type.shape, v.shape):
                if isinstance(d, str):
                    extents.setdefault(d, n)
        args.append(v)
    return args + [extents[x] for x in kinfo.extents]


def _diff_once(module, kinfo, kernel, values, grid, block, max_loop):
    """(sim arrays or None, ir arrays or None, status, detail) for one launch on ``values``."""
    import ir_simt
    from phobos_tools.run import DynamicCheckFailed

    sim = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in values.items()}
    try:
        kernel(**sim, grid=grid, max_loop_iterations=max_loop)
    except DynamicCheckFailed as e:
        return None, None, "sim-check", f"{e.code}: {str(e).splitlines()[0]}"
    ir = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in values.items()}
    try:
        ir_simt.Kernel(module, kinfo.kernel.name).launch(
            _ir_args(kinfo, ir), grid, block, getattr(module, "phobos_dynamic_shared_bytes", 0))
    except ir_simt.SimtError as e:
        return sim, None, "ir-error", f"the lowered module: {e}"
    arrays = [k for k, v in values.items() if isinstance(v, np.ndarray)]
    return {k: sim[k] for k in arrays}, {k: ir[k] for k in arrays}, "ran", ""


def differential(gk, rng, grids: int = 2, block: int | None = None, max_loop: int = 20_000,
                 special_every: int = 3):
    """Run one race-free ``GenKernel`` (at one of its block sizes, drawn, unless ``block``) with
    the simulator and with ir_simt on the lowered module: (runs, findings). A kernel the checker
    rejects, or the lowering does not support, is skipped (one run with status ``skipped``)."""
    from phobos_tools.lowering.errors import Unsupported
    from phobos_tools.lowering.pipeline import build_module
    from phobos_tools.run import loads

    blk = block or int(rng.choice(gk.blocks))       # several warps too: the barriers matter there
    defines = {"BLK": str(blk)}
    findings: list[Finding] = []
    result, f = check_api(gk.source, defines)
    findings += f
    if result is None or not result.ok:
        return [DiffRun((), blk, "skipped", "rejected")], findings
    from phobos_tools.analyzer.checked import CheckedProgram
    kinfo = CheckedProgram.of(result).kernels[-1]
    try:
        module = build_module(kinfo, "sm_90", "f.ph", line_info=False)
        program = loads(gk.source, "f.ph", defines)
        kernel = program.kernel(kinfo.kernel.name)
    except Unsupported:
        return [DiffRun((), blk, "skipped", "unsupported")], findings
    except Exception as e:  # noqa: BLE001
        return [], findings + [_crash("diff-build", e, gk.source, defines)]
    inexact = bool(INEXACT.search(gk.source.split("kernel gen(", 1)[-1]))
    runs = []
    picks = rng.choice(len(DIFF_GRIDS), size=min(grids, len(DIFF_GRIDS)), replace=False)
    for n, gi in enumerate(picks):
        grid = DIFF_GRIDS[int(gi)]
        values = arguments(kinfo, rng, grid, blk, special=bool(special_every) and n % special_every == 1)
        with _timed("diff", findings, gk.source, defines, limit=SLOW_S * 6):
            try:
                sim, ir, status, detail = _diff_once(module, kinfo, kernel, values, grid, blk, max_loop)
                if status == "ran":
                    bad = compare_outputs(sim, ir, exact=not inexact)
                    status, detail = ("differs", "; ".join(bad)) if bad else ("same", "")
                    if bad and inexact:
                        tame = {k: (_tame(rng, v) if isinstance(v, np.ndarray) and k != "F" else v)
                                for k, v in values.items()}
                        sim2, ir2, st2, d2 = _diff_once(module, kinfo, kernel, tame, grid, blk, max_loop)
                        if st2 == "ran":
                            bad2 = compare_outputs(sim2, ir2)
                            if not bad2:
                                status = "inexact"
                            else:
                                detail = "on tame inputs: " + "; ".join(bad2)
                        elif st2 == "ir-error":
                            status, detail = st2, d2
            except Exception as e:  # noqa: BLE001
                findings.append(_crash("diff", e, gk.source, defines))
                continue
        runs.append(DiffRun(grid, blk, status, detail))
        if status in ("differs", "ir-error"):
            findings.append(Finding("differential", "diff", f"{detail}\n  at block {blk}, grid {grid}",
                                    gk.source, defines))
    return runs, findings


# ------------------------------------------------------------------------------------------------ shrinking


def shrink_lines(source: str, predicate, max_tests: int = 4000) -> str:
    """Delta debugging over lines (ddmin), then over single lines once more: the smallest source
    for which ``predicate(source)`` still holds. Lines whose removal breaks the syntax simply make
    the predicate false and stay."""
    lines = source.splitlines()
    tests = 0

    def holds(ls):
        nonlocal tests
        tests += 1
        try:
            return bool(predicate("\n".join(ls) + "\n"))
        except Exception:  # noqa: BLE001
            return False

    n = 2
    while len(lines) >= 2 and tests < max_tests:
        chunk = max(1, len(lines) // n)
        reduced = False
        for i in range(0, len(lines), chunk):
            cand = lines[:i] + lines[i + chunk:]
            if cand and holds(cand):
                lines, n, reduced = cand, max(n - 1, 2), True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(lines), n * 2)
    # brace pairs: a line ending in `{` together with its matching `}` (unwraps a block)
    changed = True
    while changed and tests < max_tests:
        changed = False
        for i, line in enumerate(lines):
            if not line.rstrip().endswith("{"):
                continue
            depth, j = 0, i
            for j in range(i, len(lines)):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0:
                    break
            if j > i and lines[j].strip() == "}":
                cand = lines[:i] + lines[i + 1:j] + lines[j + 1:]
                if holds(cand):
                    lines, changed = cand, True
                    break
                cand = lines[:i] + lines[j + 1:]
                if holds(cand):
                    lines, changed = cand, True
                    break
    return "\n".join(lines) + "\n"


def sim_crashes(source: str, defines: dict, exc_name: str, seeds=range(6), unchecked=True) -> bool:
    """Shrinking predicate: the simulator raises ``exc_name`` (not a dynamic check) on some seed."""
    from phobos_tools.run import DynamicCheckFailed, loads

    program = loads(source, "f.ph", defines, unchecked=unchecked)
    kernel = program.kernel()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        for grid in GRIDS:
            args = arguments(kernel.info, rng, grid, kernel.threads, special=seed % 2 == 1)
            try:
                kernel(**args, grid=grid, max_loop_iterations=2000)
            except DynamicCheckFailed:
                pass
            except Exception as e:  # noqa: BLE001
                if type(e).__name__ == exc_name:
                    return True
    return False


# ------------------------------------------------------------------------------------------------ known bugs
#
# Bugs the fuzzers found that are pinned by strict-xfail tests (tests/fuzz/test_fuzz.py,
# tests/fuzz/test_soundness.py) and, for the analysis, by `//~ gap` conformance fixtures. The property
# tests set them aside (by name) so that they keep guarding everything else; when one is fixed its
# xfail test starts passing (strict: the suite fails) and its entry here goes.
#
# Empty now: every bug found so far is fixed, and tests/fuzz/test_fuzz.py keeps a regression test for each.
KNOWN_BUGS: dict = {
}


def known_bug(f: Finding) -> str | None:
    if f.known:
        return f.known
    for name, test in KNOWN_BUGS.items():
        try:
            if test(f):
                return name
        except Exception:  # noqa: BLE001
            pass
    return None


def unexplained(findings) -> list[Finding]:
    return [f for f in findings if known_bug(f) is None]
