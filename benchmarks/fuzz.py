"""Long fuzzing runs (issue 8): every generator through every entry point, and the analysis against
the simulator on race-free programs. In-process, seeded, with a time budget per phase.

    python benchmarks/fuzz.py                          # ~10 minutes over all phases, 2 workers
    python benchmarks/fuzz.py --budget 3600 --jobs 4   # an hour
    python benchmarks/fuzz.py --phases soundness --budget 120 --seed 7
    python benchmarks/fuzz.py --out fuzz-out --shrink  # write (and shrink) one input per distinct bug

Phases (tests/support/phobos_gen.py has the generators, tests/support/fuzz_harness.py the oracles):

- ``valid``:     kernels of the grammar-wide generator (rules kept or broken on purpose, racy stores
                 allowed): check_source, and phobos-check in one of text/json/sarif (in turn); every
                 ``--deep-every``-th input also through phobos-build (to a temporary directory) and the
                 simulator (``unchecked``: PH3xx-rejected kernels run too).
- ``race-free``: the race-free, terminating variant, the same way.
- ``mutants``:   generated kernels and the examples, damaged one to three times (tokens dropped,
                 duplicated, swapped, replaced; bytes flipped; truncation; NUL and invalid UTF-8;
                 huge literals; lines duplicated, dropped, swapped, spliced; deep wrapping).
- ``extremes``:  the fixed extreme inputs (5,000-deep nesting of every kind, 100k-long chains, files at
                 and over 4 MiB, ...), through check_source, all three formats, phobos-build and the
                 simulator, each timed (a separate process with a timeout guards phobos-build).
- ``soundness``: race-free kernels at each of their block sizes: checked; each accepted program built
                 (LLVM and ptxas) once and simulated on random inputs over two grids per block size. A
                 PH301-PH306 dynamic check on an accepted program is a soundness counterexample.
- ``differential``: race-free kernels the checker accepts, at one of their block sizes, run on the same
                 random inputs by the simulator and by tests/support/ir_simt.py on the LLVM module phobos-build
                 emits (two small grids each); every tensor compared, integers bit for bit, floats
                 within the tolerance tests/support/fuzz_harness.py justifies. A difference, or a race, an
                 out-of-bounds access or undefined behaviour in the lowered module, is a finding;
                 ``--replay-differential SEED`` reruns one kernel and prints it.
- ``hostile``:   issue 18's hostile input, in three parts sharing the phase's budget. (a) The bundled
                 examples spliced into each other (one to three random line ranges of one inserted
                 into, or over, another), checked in-process and built when accepted. (b) Each DoS
                 shape of benchmarks/hostile.py (its worker's share of them, in a seeded order)
                 grown by 4x steps until its output shows a budget (PH008, PH213, PH405 or z3's
                 budget note) or it reaches the 100 KB size cap, each step ``phobos-check`` (and
                 ``phobos-build`` for the shapes that reach the build) in a child under a CPU-time
                 and address-space limit, its CPU seconds and peak MB measured by the kernel; over
                 30 s of CPU or 2 GB is a ``slow`` finding, an exit 3, a traceback or a death by
                 signal a ``crash``; the table lists where each shape stopped. (c) phobos-check,
                 phobos-build and phobos-run (``--sim``) as console scripts on small generated
                 kernels and examples, under random file names (non-ASCII, quotes, spaces, bytes
                 that are not UTF-8), a random environment (``PYTHONIOENCODING`` ascii:strict,
                 latin-1 or utf-8, ``PYTHONUNBUFFERED``, ``NO_COLOR``, ``FORCE_COLOR``) and a random
                 stdout (a pipe, /dev/null, /dev/full, a pipe whose reader is gone, or closed: by
                 the child before exec or by a shell's ``>&-``); an exit 3, a traceback or an
                 internal error on either stream, or a death by signal, is a ``crash``.

The soundness and differential phases also count the kernels holding each targeted shape of the
generator (calls in `while` conditions, `&&`/`||` by position, built-ins with broadcast scalars,
early exits in nested loops and inlined functions, loop-variable guards by template);
``--kernels N`` stops each of them after N kernels.

A "crash" is an exception, a traceback, PH900/PH901, an exit status outside 0/1/2/4, an unlocated
diagnostic or output that does not parse; "slow" is a call over 10 s (30 s for a build). The
summary table goes to stdout; each distinct finding (by signature) is listed with a reproduction
command, and with ``--out`` written to DIR/NN-signature.ph (shrunk with ``--shrink``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "support"))

import numpy as np  # noqa: E402

import fuzz_harness as H  # noqa: E402
import phobos_gen as G  # noqa: E402

PHASES = ("valid", "race-free", "mutants", "extremes", "soundness", "differential", "hostile")
WEIGHTS = {"valid": 0.25, "race-free": 0.23, "mutants": 0.12, "extremes": 0.22, "soundness": 0.18,
           "differential": 0.15, "hostile": 0.15}
FORMATS = ("text", "json", "sarif")


class Stats(Counter):
    pass


# ------------------------------------------------------------------------------------------------ phases


def _examples() -> list[bytes]:
    return [p.read_bytes() for p in sorted((REPO / "examples").glob("*.ph"))]


def _deep(stats, data, defines, tmp, rng, findings):
    _, f = H.build_cli(H.write_input(tmp, data), Path(tempfile.mkdtemp(dir=tmp)), data, defines)
    findings += f
    stats["built (cli)"] += 1
    runs, f = H.simulate_any(data, defines, np.random.default_rng(rng.getrandbits(32)))
    findings += f
    stats["sim runs"] += len(runs)
    for r in runs:
        stats[f"sim {r.code or 'clean'}"] += 1


def phase_generated(name, seed, deadline, target, deep_every, tmp):
    """``valid``, ``race-free`` or ``mutants``: (stats, findings)."""
    stats, findings = Stats(), []
    rng = random.Random(seed)
    pool = _examples()
    i = 0
    while time.perf_counter() < deadline and stats["inputs"] < target:
        i += 1
        ch = G.RandomChooser(random.Random(rng.getrandbits(64)))
        blk = ch.pick(G.BLOCK_SIZES)
        if name == "mutants":
            base = (G.KernelGen(ch, race_free=ch.chance(0.5), max_depth=2).kernel().source.encode()
                    if ch.chance(0.7) else ch.pick(pool))
            data, _ = G.mutants_of(ch, base, pool)
        else:
            data = G.KernelGen(ch, race_free=name == "race-free", violate=0.06 if name == "race-free" else 0.12,
                               blocks=(blk,)).kernel().source
        defines = {"BLK": str(blk)}
        result, f = H.check_api(data, defines)
        findings += f
        stats["inputs"] += 1
        if result is not None:
            errors = [d for d in result.diagnostics if d.severity == "error"]
            stats["accepted" if not errors else "rejected PH3xx" if all(d.code.startswith("PH3") for d in errors)
                  else "rejected front end"] += 1
        if i % 2 == 0:                       # phobos-check itself, in each format in turn
            findings += H.check_cli(H.write_input(tmp, data), FORMATS[(i // 2) % 3], data, defines)
        if i % deep_every == 0:
            _deep(stats, data, defines, tmp, rng, findings)
    return stats, findings


def phase_extremes(seed, deadline, tmp):
    stats, findings = Stats(), []
    rng = random.Random(seed)
    for name, data in G.extreme_inputs():
        if time.perf_counter() > deadline:
            stats["skipped (budget)"] += 1
            continue
        stats["inputs"] += 1
        t0 = time.perf_counter()
        result, f = H.check_api(data)
        findings += [_named(x, name) for x in f]
        stats["accepted" if result is not None and result.ok else "rejected"] += 1
        path = H.write_input(tmp, data, "extreme.ph")
        # every format, but only one for the inputs that take seconds to check
        slow = time.perf_counter() - t0 > 2.0
        for fmt in (FORMATS[stats["inputs"] % 3],) if slow else FORMATS:
            findings += [_named(x, name) for x in H.check_cli(path, fmt, data)]
        findings += [_named(x, name) for x in _build_subprocess(path, tmp, data)]
        if result is not None and result.ok:
            runs, f = H.simulate_any(data, None, np.random.default_rng(rng.getrandbits(32)), grids=((1,),))
            findings += [_named(x, name) for x in f]
            stats["sim runs"] += len(runs)
        stats["max s/input"] = max(stats["max s/input"], round(time.perf_counter() - t0, 1))
    return stats, findings


def _named(f: H.Finding, name: str) -> H.Finding:
    f.detail = f"[{name}] {f.detail}"
    f.stage = f"{f.stage}[{name}]" if f.kind == "slow" else f.stage
    return f


def _build_subprocess(path, tmp, data, timeout=60.0):
    """phobos-build in its own process: an extreme input may take LLVM long; kill it at ``timeout``."""
    out = Path(tempfile.mkdtemp(dir=tmp))
    t0 = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", "import sys; from phobos_tools.cli.build import main; "
                                                     "sys.exit(main(sys.argv[1:]))", str(path), "-o", str(out)],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [H.Finding("slow", "build-cli", f"killed after {timeout:.0f} s", data)]
    dt = time.perf_counter() - t0
    findings = []
    bad = H._bad_text(done.stdout, done.stderr)
    if done.returncode not in (0, 1) or bad:
        findings.append(H.Finding("crash", "build-cli", f"exit {done.returncode}: {bad or done.stderr[-1500:]}", data))
    if dt > H.SLOW_S * 3:
        findings.append(H.Finding("slow", "build-cli", f"took {dt:.1f} s", data))
    return findings


def phase_soundness(seed, deadline, target, tmp, kernels=0):
    stats, findings = Stats(), []
    rng = random.Random(seed)
    while time.perf_counter() < deadline and stats["accepted programs"] < target and \
            not (kernels and stats["kernels"] >= kernels):
        gk = G.generate(random.Random(rng.getrandbits(64)), race_free=True)
        outcomes, f = H.soundness(gk, np.random.default_rng(rng.getrandbits(32)))
        findings += f
        stats["kernels"] += 1
        _count_shapes(stats, gk)
        for o in outcomes:
            stats["inputs"] += 1
            stats["accepted programs" if o.accepted else "rejected programs"] += 1
            if o.built != "no":
                stats[f"built {o.built}"] += 1
            for r in o.runs:
                stats["sim runs"] += 1
                code = r.code or "clean"
                if o.accepted:
                    stats[f"accepted: {code}"] += 1
                else:
                    stats[f"rejected: {code}"] += 1
            if not o.accepted:
                static = set(o.codes)
                if not o.fired:
                    stats["rejected, simulator saw nothing"] += 1
                elif o.fired & static:
                    stats["rejected, simulator confirms"] += 1
                else:
                    stats["rejected, simulator saw something else"] += 1
    return stats, findings


def _count_shapes(stats, gk) -> None:
    """How many kernels hold each targeted shape of the generator (KernelGen.SHAPES; `sc-POS`
    names the position of a `&&`/`||`, `loop-guard-T` the template, `-bad` one that needs a barrier
    it lacks)."""
    for name in set(gk.shapes):
        stats[f"shape {name}"] += 1


def phase_differential(seed, deadline, target, kernels=0):
    """Simulator against the lowered module on accepted race-free kernels: (stats, findings). Each
    finding names the kernel's seed, which ``--replay-differential`` takes."""
    stats, findings = Stats(), []
    rng = random.Random(seed)
    while time.perf_counter() < deadline and stats["compared programs"] < target and \
            not (kernels and stats["inputs"] >= kernels):
        kseed = rng.getrandbits(64)
        gk = G.generate(random.Random(kseed), race_free=True)
        runs, f = H.differential(gk, np.random.default_rng(kseed % 2**32))
        stats["inputs"] += 1
        _count_shapes(stats, gk)
        for x in f:
            x.detail = f"{x.detail}\n  kernel seed {kseed}: python benchmarks/fuzz.py --replay-differential {kseed}"
        findings += f
        if runs and runs[0].status == "skipped":
            stats[f"skipped ({runs[0].detail})"] += 1
            continue
        if runs:
            stats["compared programs"] += 1
        for r in runs:
            stats["sim runs"] += 1
            stats[f"runs {r.status}"] += 1
    return stats, findings


# ------------------------------------------------------------------------------------------------ hostile


BUDGET_MARKS = (("[PH008]", "PH008"), ("[PH213]", "PH213"), ("[PH405]", "PH405"), ("z3's budget", "z3 budget"))
SIZE_CAP = 100 * 1024            # bytes: the goal holds for files under 100 KB
DOS_CPU_S, DOS_PEAK_MB = 30.0, 2048.0
CHILD_CPU_LIMIT, CHILD_MEM_MB = 45, 4096


def _hostile_module():
    from hostile_shapes import shapes   # benchmarks/hostile.py, loaded the way the tests load it
    return shapes


def _child(argv, stdout_mode="pipe", env=None, cpu_limit=CHILD_CPU_LIMIT, mem_mb=CHILD_MEM_MB, shell_close=False):
    """Run ``argv`` in a fresh process under a CPU-time and an address-space limit: (wait status as
    an exit code, negative for a signal; stdout bytes; stderr bytes; CPU s; peak MB). ``stdout_mode``:
    pipe (captured), devnull, full (/dev/full), gone (a pipe whose reader is closed), closed (fd 1
    closed in the child before exec; with ``shell_close`` by ``/bin/sh -c 'exec "$@" >&-'``)."""
    def limits():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))
        if stdout_mode == "closed" and not shell_close:
            os.close(1)
    full_env = dict(os.environ, PYTHONHASHSEED="0")
    for k in ("PHOBOS_TRACEBACK", "PYTHONIOENCODING", "PYTHONUNBUFFERED", "NO_COLOR", "FORCE_COLOR"):
        full_env.pop(k, None)
    full_env.update(env or {})
    if stdout_mode == "closed" and shell_close:
        argv = ["/bin/sh", "-c", 'exec "$@" >&-', "sh", *argv]
    close_after = []
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        if stdout_mode == "pipe":
            stdout = out
        elif stdout_mode == "devnull":
            stdout = subprocess.DEVNULL
        elif stdout_mode == "full":
            stdout = open("/dev/full", "wb")       # noqa: SIM115
            close_after.append(stdout)
        elif stdout_mode == "gone":
            r, stdout = os.pipe()
            os.close(r)
        else:
            stdout = None                          # inherited, then closed (above)
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=err, preexec_fn=limits,
                                 env=full_env)
            _pid, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
        finally:
            for f in close_after:
                f.close()
            if stdout_mode == "gone":
                os.close(stdout)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def _cli_trouble(status, out: bytes, err: bytes) -> str | None:
    """An exit 3, a death by signal, a traceback or an internal error: what the child did wrong."""
    bad = H._bad_text(out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
    if status == 3 or status < 0 or bad:
        how = f"signal {-status}" if status < 0 else f"exit {status}"
        return f"{how}: {bad or err.decode('utf-8', 'replace')[-1500:]}"
    return None


def _splice(rng, pool: list[bytes]) -> bytes:
    """One example with one to three line ranges of others inserted into it, or written over a range."""
    lines = rng.choice(pool).splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        donor = rng.choice(pool).splitlines(keepends=True)
        a = rng.randrange(len(donor))
        piece = donor[a: a + rng.randint(1, 12)]
        at = rng.randrange(len(lines) + 1)
        over = rng.choice((0, 0, rng.randint(1, 6)))
        lines[at: at + over] = piece
    return b"".join(lines)


def _hostile_splices(stats, findings, rng, deadline, tmp):
    pool = _examples()
    i = 0
    while time.perf_counter() < deadline:
        i += 1
        data = _splice(rng, pool)
        stats["inputs"] += 1
        stats["spliced"] += 1
        result, f = H.check_api(data)
        findings += [_named(x, "splice") for x in f]
        if result is None:
            continue
        if result.ok:
            stats["accepted"] += 1
            built, f = H.build_api(data)
            findings += [_named(x, "splice") for x in f]
            stats["built ok" if built is not None and built.ok else "built failed"] += 1
        else:
            stats["rejected"] += 1
        if i % 5 == 0:
            findings += [_named(x, "splice") for x in H.check_cli(H.write_input(tmp, data), FORMATS[(i // 5) % 3], data)]


def _dos_ladder(make, rng) -> list[int]:
    """Sizes n of one shape, about 4x apart from 1-3 KB, the last the largest under the size cap."""
    hostile = _hostile_module()
    cap_n, src = hostile.grown(make, SIZE_CAP / 1024)
    if len(src.encode()) > SIZE_CAP and cap_n > 1:
        cap_n -= 1
    ns, kb = [], rng.uniform(1.0, 3.0)
    while kb < SIZE_CAP / 1024 / 2:
        n, _ = hostile.grown(make, kb)
        if n < cap_n and (not ns or n > ns[-1]):
            ns.append(n)
        kb *= 4
    return ns + [cap_n]


def _hostile_dos(stats, findings, rng, deadline, tmp, part):
    hostile = _hostile_module()
    j, jobs = part
    names = sorted(hostile.SHAPES)[j::jobs]
    rng.shuffle(names)
    for name in names:
        make, _quoted, commands = hostile.SHAPES[name]
        stopped, row = "phase budget", None
        ladder = _dos_ladder(make, rng)
        for n in ladder:
            if deadline - time.perf_counter() < 3.0:
                break
            src = make(n)
            path = H.write_input(tmp, src, f"{name}_{n}.ph")
            kb = len(src.encode()) / 1024
            hit = None
            for which in commands:
                argv = hostile.command(which, path, Path(tempfile.mkdtemp(dir=tmp)))
                status, out, err, cpu, peak = _child(argv)
                stats["inputs"] += 1
                stats["DoS runs"] += 1
                stats["accepted" if status == 0 else "rejected" if status == 1 else f"exit {status}"] += 1
                if which == "build" and status == 0:
                    stats["built (cli)"] += 1
                stats["max cpu s"] = max(stats["max cpu s"], round(cpu, 1))
                stats["max peak MB"] = max(stats["max peak MB"], round(peak))
                text = (out + err).decode("utf-8", "replace")
                trouble = _cli_trouble(status, out, err)
                if trouble and not (status < 0 and cpu >= CHILD_CPU_LIMIT - 1):
                    findings.append(H.Finding("crash", f"dos-{which}[{name}]", f"n {n}, {kb:.1f} KB: {trouble}", src))
                if cpu > DOS_CPU_S or status < 0 and cpu >= CHILD_CPU_LIMIT - 1:
                    findings.append(H.Finding("slow", f"dos-{which}[{name}]",
                                              f"n {n}, {kb:.1f} KB: {cpu:.1f} s of CPU (limit {DOS_CPU_S:.0f} s)", src))
                if peak > DOS_PEAK_MB:
                    findings.append(H.Finding("slow", f"dos-{which}[{name}]",
                                              f"n {n}, {kb:.1f} KB: peak {peak:.0f} MB (limit {DOS_PEAK_MB:.0f} MB)", src))
                marks = [m for needle, m in BUDGET_MARKS if needle in text]
                row = (f"{name:<22} {n:>6} {kb:>6.1f} {which:<7} {cpu:>6.2f} {peak:>7.0f} {status:>6}  ")
                if marks:
                    hit = marks[0]
                    stats[f"budget {hit}"] += 1
                    break
            if hit:
                stopped = hit
                break
            if n == ladder[-1]:
                stopped = "size cap"
        stats[f"dos {name}"] = (row or f"{name:<22} {'':>6} {'':>6} {'':<7} {'':>6} {'':>7} {'':>6}  ") + stopped


def _random_name(rng) -> bytes:
    """A file name with some of: non-ASCII letters, quotes, spaces, bytes that are not UTF-8."""
    parts = [b"k", "ünïcödé".encode(), "核函数".encode(), b"it's", b'say "hi"', b"a b", b"\xff\xfe", b"\xe9t\xe9",
             b"-", b"$x", b"back\\slash", "😀".encode()]
    stem = b"".join(rng.sample(parts, rng.randint(1, 4)))
    return stem + rng.choice((b".ph", b".ph", b".PH", b".ph.txt"))


def _hostile_scripts(stats, findings, rng, deadline, tmp):
    pool = [p for p in _examples() if len(p) < 1500]
    i = 0
    while time.perf_counter() < deadline:
        i += 1
        ch = G.RandomChooser(random.Random(rng.getrandbits(64)))
        blk = ch.pick((32, 64))
        generated = ch.chance(0.6)
        data = (G.KernelGen(ch, race_free=True, max_depth=2, blocks=(blk,)).kernel().source.encode()
                if generated else ch.pick(pool))
        folder = os.path.join(os.fsencode(tmp), _random_name(rng)[:-3] if rng.random() < 0.3 else b"d")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, _random_name(rng))
        with open(path, "wb") as fh:
            fh.write(data)
        prog = rng.choice(("phobos-check", "phobos-check", "phobos-build", "phobos-run") if generated
                          else ("phobos-check", "phobos-build"))
        exe = str(Path(sys.executable).with_name(prog))
        argv: list = [exe, path]
        if prog == "phobos-check":
            argv += ["--format", rng.choice(FORMATS)]
        elif prog == "phobos-build":
            argv += ["-o", os.path.join(os.fsencode(tmp), b"out")]
        if generated:
            argv += ["-D", f"BLK={blk}"]
        if prog == "phobos-run":
            n, grid = max(64, 4 * blk), rng.choice((1, 2))
            argv += ["--sim", "--grid", str(grid), "-k", "gen", "--out", os.path.join(os.fsencode(tmp), b"run"),
                     "--max-steps", "2000000", "--arg", f"A=rand:f32:4x{n}", "--arg", f"C=rand:i32:{n}",
                     "--arg", f"B=rand:i8:{n}", "--arg", f"O=zeros:f32:{grid}x{n}", "--arg", "F=zeros:i32:8",
                     "--arg", f"k={rng.randint(-5, 40)}", "--arg", "alpha=0.5", "--arg", f"flag={rng.choice(('true', 'false'))}"]
        env = {}
        enc = rng.choice((None, "ascii:strict", "latin-1", "utf-8"))
        if enc:
            env["PYTHONIOENCODING"] = enc
        for var in ("PYTHONUNBUFFERED", "NO_COLOR", "FORCE_COLOR"):
            if rng.random() < 0.4:
                env[var] = "1"
        mode = rng.choice(("pipe", "pipe", "devnull", "full", "gone", "closed", "closed"))
        shell = mode == "closed" and rng.random() < 0.5
        status, out, err, cpu, _peak = _child(argv, mode, env, cpu_limit=60, shell_close=shell)
        stats["inputs"] += 1
        stats["script runs"] += 1
        stats[f"{prog} exit {status}"] += 1
        if status == 0:
            stats["accepted"] += 1
            if prog == "phobos-build":
                stats["built (cli)"] += 1
        elif status in (1, 4):
            stats["rejected"] += 1
        trouble = _cli_trouble(status, out, err)
        if trouble:
            what = (f"{os.fsdecode(os.path.basename(path))!r}, env {env}, stdout {mode}{' (sh >&-)' if shell else ''}: "
                    f"{trouble}")
            findings.append(H.Finding("crash", f"script:{prog}", what, data))
        if cpu > H.SLOW_S * 3:
            findings.append(H.Finding("slow", f"script:{prog}", f"took {cpu:.1f} s of CPU", data))


def phase_hostile(seed, deadline, part, tmp):
    """Issue 18: splices of the examples, the DoS shapes grown to their budgets, the console scripts
    under hostile names, environments and stdouts: (stats, findings)."""
    stats, findings = Stats(), []
    rng = random.Random(seed)
    if not isinstance(part, tuple):
        part = (0, 1)
    start = time.perf_counter()
    total = max(0.0, deadline - start)
    _hostile_splices(stats, findings, rng, start + 0.25 * total, tmp)
    _hostile_dos(stats, findings, rng, start + 0.70 * total, tmp, part)     # what it leaves goes to (c)
    _hostile_scripts(stats, findings, rng, deadline, Path(tmp))
    return stats, findings


def replay_differential(kseed: int) -> int:
    """One kernel of the phase `differential`, by its seed: its source, then each run's verdict."""
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    gk = G.generate(random.Random(kseed), race_free=True)
    print(gk.source)
    runs, findings = H.differential(gk, np.random.default_rng(kseed % 2**32))
    for r in runs:
        print(f"block {r.block}, grid {r.grid}: {r.status}{': ' + r.detail if r.detail else ''}")
    for f in findings:
        if f.kind != "differential":
            print(f.short())
    return 1 if findings else 0


STRETCH = 1.5      # a phase short of its target may run over its share by this factor, within the budget


def run_phase(args):
    name, seed, deadline_s, target, deep_every, end, kernels = args
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    # time.time(), not perf_counter: the workers compare it with the parent's end of budget
    deadline = time.perf_counter() + max(0.0, min(deadline_s * (1 if name in ("extremes", "hostile") else STRETCH),
                                                  end - time.time()))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{name}-") as tmp:
        tmp = Path(tmp)
        if name == "extremes":
            stats, findings = phase_extremes(seed, deadline, tmp)
        elif name == "soundness":
            stats, findings = phase_soundness(seed, deadline, target, tmp, kernels)
        elif name == "differential":
            stats, findings = phase_differential(seed, deadline, target, kernels)
        elif name == "hostile":
            stats, findings = phase_hostile(seed, deadline, target, tmp)
        else:
            stats, findings = phase_generated(name, seed, deadline, target, deep_every, tmp)
    stats["seconds"] = round(time.perf_counter() - t0, 1)
    for f in findings:                       # keep what travels back between processes small
        if isinstance(f.source, bytes) and len(f.source) > 200_000:
            f.source = f.source[:200_000]
    return name, seed, stats, findings


# ------------------------------------------------------------------------------------------------ report


def merge(results):
    by_phase: dict[str, Stats] = {}
    findings = []
    for name, _seed, stats, f in results:
        acc = by_phase.setdefault(name, Stats())
        for k, v in stats.items():
            if k.startswith("dos "):             # one row per grown shape (phase hostile)
                acc[k] = v
            elif k in ("seconds", "max s/input", "max cpu s", "max peak MB"):
                acc[k] = max(acc[k], v)
            else:
                acc[k] += v
        findings += [(name, x) for x in f]
    return by_phase, findings


def table(by_phase, findings) -> str:
    kinds = ("crash", "slow", "unsound", "differential", "ptxas", "unlocated", "bad-output", "generator", "known")
    count = {p: Counter("known" if H.known_bug(f) else f.kind for n, f in findings if n == p) for p in by_phase}
    # kernels: generated kernels (the soundness phase checks and runs each at every block size it
    # declares, one program, an input, per block size); inputs, accepted and rejected count programs
    head = f"{'phase':12s} {'kernels':>7s} {'inputs':>7s} {'accepted':>8s} {'rejected':>8s} {'built':>6s} " \
        f"{'sims':>6s} " + " ".join(f"{k:>9s}" for k in kinds) + f" {'seconds':>7s}"
    rows = [head, "-" * len(head)]
    for p in PHASES:
        if p not in by_phase:
            continue
        s = by_phase[p]
        accepted = s["accepted"] + s["accepted programs"] + s["compared programs"]
        rejected = s["rejected PH3xx"] + s["rejected front end"] + s["rejected"] + s["rejected programs"] + \
            s["skipped (rejected)"]
        built = s["built (cli)"] + s["built ok"] + s["built unsupported"] + s["built failed"] + s["compared programs"]
        kernels = s["kernels"] or s["inputs"]
        rows.append(f"{p:12s} {kernels:7d} {s['inputs']:7d} {accepted:8d} {rejected:8d} {built:6d} "
                    f"{s['sim runs']:6d} " + " ".join(f"{count[p][k]:9d}" for k in kinds) + f" {s['seconds']:7.1f}")
    out = "\n".join(rows)
    for p in PHASES:
        if p in by_phase:
            extra = {k: v for k, v in sorted(by_phase[p].items())
                     if k not in ("inputs", "seconds") and not k.startswith(("shape ", "dos "))}
            out += f"\n  {p}: " + ", ".join(f"{k} {v}" for k, v in extra.items())
            shapes = {k[6:]: v for k, v in sorted(by_phase[p].items()) if k.startswith("shape ")}
            if shapes:
                out += f"\n  {p} shapes (kernels holding each): " + ", ".join(f"{k} {v}" for k, v in shapes.items())
            dos = [v for k, v in sorted(by_phase[p].items()) if k.startswith("dos ")]
            if dos:
                out += (f"\n  {p} DoS shapes, where each stopped:\n    {'shape':<22} {'n':>6} {'KB':>6} {'command':<7} "
                        f"{'cpu s':>6} {'peak MB':>7} {'exit':>6}  stopped by")
                out += "".join(f"\n    {r}" for r in dos)
    return out


def distinct(findings):
    seen: dict[str, tuple] = {}
    for phase, f in findings:
        sig = f.signature()
        if sig in seen:
            seen[sig] = (seen[sig][0], seen[sig][1], seen[sig][2] + 1)
        else:
            seen[sig] = (phase, f, 1)
    return seen


def _predicate(f: H.Finding):
    """Does a smaller source still show the same finding?"""
    sig = f.signature()
    defines = f.defines

    def same(src):
        if f.kind == "differential":
            gk = G.GenKernel(src, (int(defines["BLK"]),), True)
            _, found = H.differential(gk, np.random.default_rng(0), grids=len(H.DIFF_GRIDS))
            return any(x.signature() == sig for x in found)
        if f.stage == "sim" or f.stage == "sim-load":
            if f.kind == "unsound":
                gk = G.GenKernel(src, (int(defines["BLK"]),), True)
                _, found = H.soundness(gk, np.random.default_rng(0), grids_per_block=len(H.GRIDS), build=False)
                return any(x.signature() == sig for x in found)
            exc = f.detail.split(":")[0]
            return H.sim_crashes(src, defines, exc, unchecked=True)
        if f.stage.startswith("build"):
            _, found = H.build_api(src, defines)
            return any(x.signature().split(":")[-1][:40] == sig.split(":")[-1][:40] for x in found)
        _, found = H.check_api(src, defines)
        return any(x.signature() == sig for x in found)
    return same


def write_findings(unique, out_dir: Path, shrink: bool) -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, (sig, (phase, f, times)) in enumerate(sorted(unique.items())):
        src = f.source
        text = src.decode("utf-8", "replace") if isinstance(src, bytes) else src
        if shrink and text and isinstance(src, str) and f.kind in ("crash", "unsound", "differential", "ptxas") \
                and len(text) < 50_000:
            try:
                text = H.shrink_lines(text, _predicate(f), max_tests=1500)
            except Exception as e:  # noqa: BLE001
                lines.append(f"  (shrinking {sig} failed: {e})")
        stem = f"{n:02d}-{''.join(c if c.isalnum() else '-' for c in sig)[:60]}"
        path = out_dir / f"{stem}.ph"
        if isinstance(src, bytes) and not shrink:
            path.write_bytes(src)
        else:
            path.write_text(text or "", encoding="utf-8", errors="surrogatepass")
        (out_dir / f"{stem}.txt").write_text(f"{sig}\nphase {phase}, seen {times} time(s), defines {f.defines}\n\n"
                                             f"{f.detail}\n")
        lines.append(f"  {path}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=600.0, help="total seconds over all phases (default 600)")
    ap.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    ap.add_argument("--target", type=int, default=10_000, help="inputs per generator phase (stops early)")
    ap.add_argument("--accepted", type=int, default=100_000, help="accepted programs for the soundness phase")
    ap.add_argument("--kernels", type=int, default=0,
                    help="generated kernels per soundness and differential phase, over all workers (stops early; "
                         "default: no limit but the budget)")
    ap.add_argument("--deep-every", type=int, default=10, help="build and simulate every Nth generated input")
    ap.add_argument("--out", type=Path, help="write one input per distinct finding here")
    ap.add_argument("--shrink", action="store_true", help="shrink each written input (needs --out)")
    ap.add_argument("--replay-differential", type=int, metavar="SEED",
                    help="rerun one kernel of the phase differential (its seed, as a finding names it) and stop")
    args = ap.parse_args(argv)
    if args.replay_differential is not None:
        return replay_differential(args.replay_differential)
    phases = [p for p in args.phases.split(",") if p]
    bad = [p for p in phases if p not in PHASES]
    if bad:
        ap.error(f"unknown phases {bad}")
    if not H.ptxas_available():
        print("warning: ptxas is not on the PATH: builds are not assembled", file=sys.stderr)
    total = sum(WEIGHTS[p] for p in phases)
    jobs = max(1, args.jobs)
    tasks = []
    # the extreme inputs run once, in one worker; the other phases split their budget over the workers
    wall = args.budget
    end = time.time() + wall
    for p in phases:
        share = wall * WEIGHTS[p] / total
        if p == "extremes":
            tasks.append((p, args.seed, share * jobs, 0, args.deep_every, end, 0))
            continue
        if p == "hostile":                   # each worker grows its own share of the DoS shapes
            tasks += [(p, args.seed * 1000 + j, share, (j, jobs), args.deep_every, end, 0) for j in range(jobs)]
            continue
        for j in range(jobs):
            target = args.accepted if p in ("soundness", "differential") else -(-args.target // jobs)
            tasks.append((p, args.seed * 1000 + j, share, target, args.deep_every, end, -(-args.kernels // jobs)))
    t0 = time.perf_counter()
    if jobs == 1:
        results = [run_phase(t) for t in tasks]
    else:
        # longest first, so the workers finish together
        tasks.sort(key=lambda t: -t[2])
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = pool.map(run_phase, tasks, chunksize=1)
    by_phase, findings = merge(results)
    print(f"phobos-tools fuzz: seed {args.seed}, {jobs} worker(s), budget {args.budget:.0f} s, "
          f"wall {time.perf_counter() - t0:.0f} s")
    print(table(by_phase, findings))
    unique = distinct(findings)
    print(f"\n{len(unique)} distinct finding(s):")
    for sig, (phase, f, times) in sorted(unique.items()):
        known = H.known_bug(f)
        note = f" (known bug `{known}`, pinned by a strict xfail)" if known else ""
        print(f"- [{phase}] x{times} {sig}{note}\n    {f.short()}")
        repro = [line.strip() for line in f.detail.splitlines() if "--replay-differential" in line]
        if repro:
            print(f"    repro: {repro[0].split(': ', 1)[1]}")
    if args.out and unique:
        print("\nwritten:")
        print("\n".join(write_findings(unique, args.out, args.shrink)))
    return 1 if any(f.kind in ("crash", "unsound", "differential", "ptxas", "unlocated", "bad-output")
                    and not H.known_bug(f)
                    for _, f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
