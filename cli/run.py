"""``phobos-run``: run one kernel of a Phobos file on arrays, on the CPU simulator or the GPU.

``phobos-run FILE [-k KERNEL] (--sim | --gpu) --grid X[,Y[,Z]] [--arg NAME=SPEC ...] [--seed N]
[-D NAME=VALUE ...] [--out DIR] [--unchecked]`` (DESIGN.md), and for the simulator ``--ctas N|A:B``
(part of the grid) and ``-q``/``--quiet`` (no progress bar). Each ``SPEC`` is a ``.npy`` path,
``rand:DTYPE:D1xD2``, ``zeros:DTYPE:D1xD2`` or a scalar literal; runtime extents come from the
arrays' shapes. After the run every tensor argument is written to ``DIR/NAME.npy`` (default: the
current directory). Exit status: 0 ran; 1 the program is rejected (its diagnostics are printed);
2 usage error (a bad option or argument, an array over 16 GiB, a grid the simulator cannot run, no
GPU for ``--gpu``); 3 internal error; 4 a dynamic check fired (its located message is printed).
It never prints a traceback, unless PHOBOS_TRACEBACK=1 asks for the one of an internal error.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from .config import Configs, merged_defines
from .conventions import add_conventions, color_wanted, read_named_source, render_colored
from .extras import missing_extra, refuse
from ..language.literals import shown

try:                    # the simulator and the argument binder need the `run` extra (numpy)
    import numpy as np

    from ..analyzer.checked import read_source
    from ..language.arguments import ArgumentError, numpy_dtype, scalar_value
    from ..language.types import INT_NAMES, SCALAR_NAMES, Tensor
    from ..run import DynamicCheckFailed, GPUUnavailable, ProgramRejected, loads
    from ..simulator.machine import DEFAULT_MAX_STEPS
    _MISSING = None
except ModuleNotFoundError as e:
    if missing_extra(e) is None:
        raise
    _MISSING = e
from .common import (EXIT_OK, EXIT_PROGRAM_ERROR as EXIT_REJECTED, I32_MAX, OUTPUT_DIR, Parser, UsageError,
                     add_define_option, float_fits, guarded, is_int_literal, parse_defines, parse_literal,
                     path_argument)

EXIT_DYNAMIC = 4
PROG = "phobos-run"
_ARG = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.+)", re.DOTALL)
_ARRAY_SPEC = re.compile(r"(rand|zeros):([a-z0-9]+):([0-9]+(?:x[0-9]+)*)")
SEED_LIMIT = 2**64              # seeds are 0 .. 2**64 - 1
MAX_ARRAY_BYTES = 16 << 30      # the largest array a rand:/zeros: spec or a .npy file may give
_RAND_CHUNK = 1 << 22           # elements drawn at a time: bounds the float64 draws beside the array
_NPY_MAGIC = b"\x93NUMPY"


def _seed(text: str) -> int:
    if not re.fullmatch(r"[0-9]+", text) or int(text) >= SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"the seed is an integer from 0 to 2**64 - 1, not {text!r}")
    return int(text)


def _max_steps(text: str) -> int:
    if not re.fullmatch(r"[1-9][0-9]{0,17}", text, re.ASCII):
        raise argparse.ArgumentTypeError(f"the work bound is a positive integer below 10**18, not {shown(repr(text))}")
    return int(text)


def _ctas(text: str) -> tuple[int, int]:
    """``N`` (the first N CTAs) or ``A:B`` (CTAs A to B - 1), as block-order indices."""
    m = re.fullmatch(r"([0-9]{1,12})(?::([0-9]{1,12}))?", text.strip(), re.ASCII)
    if m is None:
        raise argparse.ArgumentTypeError(f"--ctas takes N (the first N CTAs) or A:B (CTAs A to B-1), not "
                                         f"{shown(repr(text))}")
    a, b = m.groups()
    first, stop = (0, int(a)) if b is None else (int(a), int(b))
    if first >= stop:
        raise argparse.ArgumentTypeError(f"--ctas {shown(text)} selects no CTA: N is at least 1, and A:B needs A < B")
    return first, stop


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description="Run a Phobos kernel on arrays, on the CPU simulator (--sim) or the GPU "
                                       "(--gpu), and write every tensor argument to DIR/NAME.npy.")
    p.add_argument("file", metavar="FILE", help="a .ph source file")
    p.add_argument("-k", "--kernel", metavar="KERNEL", help="the kernel to run (needed when the file has several)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--sim", action="store_true", help="run on the CPU reference simulator")
    where.add_argument("--gpu", action="store_true", help="build the kernel and run it on the GPU")
    p.add_argument("--grid", required=True, metavar="X[,Y[,Z]]", help="the grid, in CTAs")
    p.add_argument("--arg", dest="args", action="append", default=[], metavar="NAME=SPEC",
                   help="a kernel argument: a .npy path, rand:DTYPE:D1xD2, zeros:DTYPE:D1xD2, or a scalar "
                        "literal (repeatable)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the rand: arguments, 0 to 2**64 - 1 (default 0)")
    add_define_option(p)
    p.add_argument("--out", metavar="DIR", default=".", help="where to write NAME.npy (default: .)")
    p.add_argument("--unchecked", action="store_true",
                   help="run a program phobos-check rejects for the per-thread rules (simulator only), so "
                        "that the dynamic checks show the problem at run time")
    p.add_argument("--max-steps", type=_max_steps, default=None, metavar="N",
                   help="the simulator's work bound: stop with PH405 once the launch has run N steps (a "
                        f"statement or a loop iteration for one CTA; default {DEFAULT_MAX_STEPS:,})")
    p.add_argument("--ctas", type=_ctas, default=None, metavar="N|A:B",
                   help="simulate part of the grid: its first N CTAs, or CTAs A to B-1, in block order (x "
                        "fastest); the checks see only those CTAs, and the arrays change only where they store")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar (drawn on stderr, when it is a terminal, for simulator runs of more "
                        "than about a second)")
    add_conventions(p, PROG)
    return p


def main(argv: list[str] | None = None) -> int:
    if _MISSING is not None:
        return refuse(PROG, _MISSING)
    return guarded(PROG, _main, argv)


def _main(argv: list[str]) -> int:
    opts = _parser().parse_args(argv)
    if opts.gpu and opts.unchecked:
        raise UsageError("--unchecked runs a rejected program on the simulator only (use --sim)")
    if opts.gpu and opts.max_steps is not None:
        raise UsageError("--max-steps bounds the simulator only (use --sim)")
    if opts.gpu and opts.ctas is not None:
        raise UsageError("--ctas simulates part of a grid: it is for the simulator only (use --sim)")
    # the configuration (cli/config.py) gives `defines` (validated whole); -D wins name by name
    config = Configs(opts.config, opts.isolated).for_file(opts.stdin_filename or opts.file)
    defines = merged_defines(config, parse_defines(opts.defines))
    color = color_wanted(opts.color)
    grid = _grid(opts.grid)
    path = path_argument(opts.file, "FILE")
    out = path_argument(opts.out, "--out", OUTPUT_DIR)
    try:
        # at most 4 MiB and a byte, as phobos-check reads it; `-` is standard input
        data, name = read_named_source(opts, opts.file, read_source)
        opts.file = name
    except OSError as e:
        raise UsageError(f"cannot read {opts.file}: {e.strerror or e}") from None
    try:
        program = loads(data, opts.file, defines, unchecked=opts.unchecked)
    except ProgramRejected as e:
        if e.diagnostics:
            sys.stdout.write(render_colored(e.diagnostics, e.path, e.text, color) + "\n")
        hint = ""
        if e.diagnostics and all(d.code.startswith("PH3") for d in e.diagnostics) and not opts.unchecked:
            hint = " (--sim --unchecked runs it anyway, to show the problem at run time)"
        sys.stderr.write(f"{PROG}: {e}; nothing ran{hint}\n")
        return EXIT_REJECTED
    if program.waived:
        sys.stderr.write(f"{PROG}: running {opts.file} although phobos-check rejects it "
                         f"({len(program.waived)} error(s) of the per-thread rules), as --unchecked asks\n")
    try:
        kernel = program.kernel(opts.kernel)
    except ArgumentError as e:
        raise UsageError(str(e)) from None
    arrays = _arguments(kernel, opts.args, opts.seed)
    start = time.perf_counter()
    try:
        bound = {} if opts.max_steps is None else {"max_steps": opts.max_steps}
        if not opts.gpu:
            bound.update(ctas=opts.ctas, progress=not opts.quiet)
        kernel(**arrays, grid=grid, device="gpu" if opts.gpu else "sim", **bound)
    except ArgumentError as e:
        raise UsageError(str(e)) from None
    except DynamicCheckFailed as e:
        sys.stderr.write(e.render() + "\n")
        sys.stderr.write(f"{PROG}: a dynamic check stopped `{kernel.name}`; nothing was written\n")
        return EXIT_DYNAMIC
    except GPUUnavailable as e:
        raise UsageError(str(e)) from None
    except ProgramRejected as e:
        sys.stdout.write(e.render() + "\n")
        sys.stderr.write(f"{PROG}: {e}\n")
        return EXIT_REJECTED
    elapsed = time.perf_counter() - start
    written = _write(out, kernel, arrays)
    where = "GPU" if opts.gpu else "simulator"
    ctas = 1
    for g in grid:
        ctas *= g
    part = ""
    if opts.ctas is not None:
        first, stop = opts.ctas
        n = stop - first
        part = (f"; simulated only CTA{'s' if n != 1 else ''} {first}" + (f" to {stop - 1}" if n != 1 else "")
                + f" ({n} of {ctas}, --ctas): the checks saw only {'those' if n != 1 else 'that'}, and the "
                "arrays hold their inputs wherever no simulated CTA stored")
    sys.stderr.write(f"{PROG}: ran `{kernel.name}` on the {where}, grid ({','.join(map(str, grid))}): {ctas} "
                     f"CTA{'s' if ctas != 1 else ''} of {kernel.threads} threads, in {elapsed:.3f} s{part}; wrote "
                     f"{', '.join(written) or 'nothing'} to {out}\n")
    return EXIT_OK


def _grid(text: str) -> tuple[int, ...]:
    parts = text.split(",")
    # ASCII decimal digits only (str.isdigit would take `²`, which int() refuses), and no more
    # of them than an i32 can hold (int() refuses thousands of digits)
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"[0-9]+", p.strip(), re.ASCII) for p in parts):
        raise UsageError(f"--grid takes X[,Y[,Z]] with positive integers, not {shown(repr(text))} (see {PROG} --help)")
    digits = [p.strip().lstrip("0") or "0" for p in parts]
    grid = tuple(int(d) if len(d) <= 10 else 2**31 for d in digits)
    if any(g < 1 or g > 2**31 - 1 for g in grid):
        raise UsageError(f"--grid extents are from 1 to 2147483647, not {shown(repr(text))} (see {PROG} --help)")
    return grid


def _arguments(kernel, specs: list[str], seed: int) -> dict:
    """Each parameter's value from its ``--arg NAME=SPEC``."""
    params = {p.name: (i, p.type) for i, p in enumerate(kernel.info.params)}
    given: dict[str, str] = {}
    for item in specs:
        m = _ARG.fullmatch(item)
        if m is None:
            raise UsageError(f"--arg takes NAME=SPEC, not {item!r}")
        name, spec = m.groups()
        if name not in params:
            raise UsageError(f"`{kernel.name}` has no parameter `{name}` (its parameters: {', '.join(params)})")
        if name in given:
            raise UsageError(f"--arg {name} is given twice")
        given[name] = spec
    missing = [n for n in params if n not in given]
    if missing:
        described = ", ".join(f"{n} ({params[n][1]})" for n in missing)
        raise UsageError(f"missing --arg for {described}")
    values = {}
    for name, spec in given.items():
        index, t = params[name]
        if isinstance(t, Tensor):
            # the generator made only for a random array: numpy.random's import is a tenth of a
            # small run's own start-up (issue 22)
            values[name] = _array(name, t, spec, lambda index=index: np.random.default_rng([seed, index]))
        else:
            values[name] = _scalar(name, t, spec)
    return values


def _array(name: str, t, spec: str, new_rng) -> np.ndarray:
    want = numpy_dtype(t.elem.name)
    m = _ARRAY_SPEC.fullmatch(spec)
    if m is not None:
        kind, dtype, dims = m.groups()
        if dtype not in SCALAR_NAMES:
            raise UsageError(f"--arg {name}: unknown dtype `{dtype}` (one of {', '.join(SCALAR_NAMES)})")
        if dtype != t.elem.name:
            raise UsageError(f"--arg {name}: `{name}` is a {t}, so its spec needs dtype {t.elem.name}, not {dtype}")
        texts = dims.split("x")
        if len(texts) != len(t.shape):
            raise UsageError(f"--arg {name}: `{name}` is a {t} of rank {len(t.shape)}, but {shown(dims)} has "
                             f"rank {len(texts)}")
        for d in texts:
            if len(d.lstrip("0")) > 10 or int(d.lstrip("0") or "0") > I32_MAX:   # int() refuses 4,300 digits
                raise UsageError(f"--arg {name}: {shown(spec)}: the extent {shown(d)} does not fit in i32 "
                                 "(extents are i32)")
        shape = tuple(int(d.lstrip("0") or "0") for d in texts)
        nbytes = int(np.prod(shape, dtype=object)) * want.itemsize
        if nbytes > MAX_ARRAY_BYTES:
            raise UsageError(f"--arg {name}: {spec} is {nbytes:,} bytes ({nbytes / 2**30:,.1f} GiB), over "
                             f"phobos-run's limit of 16 GiB per array")
        try:
            if kind == "zeros":
                return np.zeros(shape, dtype=want)
            return _random(shape, t.elem.name, want, new_rng())
        except MemoryError:
            raise UsageError(f"--arg {name}: not enough memory for {spec} ({nbytes:,} bytes)") from None
    if spec.endswith(".npy") or Path(spec).is_file():
        arr = _load_npy(name, spec)
        if t.elem.name == "bf16" and arr.dtype.kind == "V" and arr.dtype.itemsize == 2:
            arr = arr.view(want)                     # np.save writes bfloat16 as 2-byte void
        # C order (a Fortran-order .npy is copied); not np.ascontiguousarray, which makes a 0-d
        # array 1-d, so that a scalar saved to .npy would be reported as shape [1]
        return arr if arr.flags.c_contiguous else np.array(arr, order="C")
    raise UsageError(f"--arg {name}: `{name}` is a {t}: give a .npy path, rand:{t.elem.name}:D1xD2 or "
                     f"zeros:{t.elem.name}:D1xD2, not {shown(repr(spec))}")


def _load_npy(name: str, spec: str) -> np.ndarray:
    """A .npy file's array, never its pickled objects: a usage error for anything else."""
    try:
        f = open(spec, "rb")
    except OSError as e:
        raise UsageError(f"--arg {name}: cannot load {spec}: {e.strerror or e}") from None
    with f:
        try:
            magic, size = f.read(len(_NPY_MAGIC)), os.fstat(f.fileno()).st_size
        except OSError as e:
            raise UsageError(f"--arg {name}: cannot load {spec}: {e.strerror or e}") from None
        if magic != _NPY_MAGIC:
            why = ("it is a .npz archive; save one array with numpy.save" if magic[:4] == b"PK\x03\x04"
                   else "it lacks the .npy header; save the array with numpy.save")
            raise UsageError(f"--arg {name}: {spec} is not a .npy file ({why})")
        if size > MAX_ARRAY_BYTES + 65536:          # the header is at most a few kilobytes
            raise UsageError(f"--arg {name}: {spec} is {size:,} bytes, over phobos-run's limit of 16 GiB per array")
        f.seek(0)
        try:
            return np.load(f, allow_pickle=False)
        except ValueError as e:
            if "allow_pickle" in str(e):
                raise UsageError(f"--arg {name}: {spec} holds Python objects (dtype object), which phobos-run "
                                 "does not load") from None
            raise UsageError(f"--arg {name}: cannot load {spec}: {e}") from None
        except (OSError, EOFError) as e:
            raise UsageError(f"--arg {name}: cannot load {spec}: {e}") from None
        except MemoryError:
            raise UsageError(f"--arg {name}: not enough memory to load {spec}") from None


def _random(shape, elem: str, dtype, rng) -> np.ndarray:
    """Uniform values, drawn ``_RAND_CHUNK`` elements at a time in row-major order (the same
    values as one draw of the whole shape, without its float64 copy of the array)."""
    out = np.empty(shape, dtype)
    flat = out.reshape(-1)
    for start in range(0, flat.size, _RAND_CHUNK):
        n = min(_RAND_CHUNK, flat.size - start)
        flat[start:start + n] = _draw(n, elem, dtype, rng)
    return out


def _draw(n: int, elem: str, dtype, rng) -> np.ndarray:
    if elem == "bool":
        return rng.random(n) < 0.5
    if elem in ("i8", "u8"):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max + 1, n).astype(dtype)
    if elem in ("i32", "i64"):
        return rng.integers(-1000, 1000, n).astype(dtype)
    return rng.uniform(-1.0, 1.0, n).astype(np.float32).astype(dtype)


def _scalar(name: str, t, spec: str):
    """A scalar parameter's value from a literal of the language (LANGUAGE §1) that fits its type:
    true/false for a bool, an integer literal (decimal or 0x hex) for an integer type, any number
    for a float type."""
    value = parse_literal(spec)
    if t.name == "bool":
        if not isinstance(value, bool):
            raise UsageError(f"--arg {name}: `{name}` is a bool: give true or false, not {shown(repr(spec))}")
    elif t.name in INT_NAMES:
        if not is_int_literal(value):
            raise UsageError(f"--arg {name}: `{name}` is {_a(t)}: give an integer literal such as 3 or -0x10, "
                             f"not {shown(repr(spec))}")
        info = np.iinfo(numpy_dtype(t.name))
        if not info.min <= value <= info.max:
            raise UsageError(f"--arg {name}: {shown(spec)} does not fit in {t} ({info.min} to {info.max})")
    else:
        if value is None or isinstance(value, bool):
            raise UsageError(f"--arg {name}: `{name}` is {_a(t)}: give a literal such as 1.5, -2e-3 or 3, "
                             f"not {shown(repr(spec))}")
        if not float_fits(value, t.name):
            raise UsageError(f"--arg {name}: {shown(spec)} does not fit in {t}")
    try:
        return scalar_value(name, t.name, value)
    except ArgumentError as e:
        raise UsageError(f"--arg {name}: {e}") from None


def _a(t) -> str:
    return f"{'a' if t.name in ('u8', 'bf16', 'bool') else 'an'} {t}"


def _write(out: Path, kernel, arrays: dict) -> list[str]:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create {out}: {e.strerror or e}") from None
    written = []
    for p in kernel.info.params:
        value = arrays.get(p.name)
        if isinstance(value, np.ndarray):
            target = out / f"{p.name}.npy"
            try:
                np.save(target, value)
            except OSError as e:
                raise UsageError(f"cannot write {target}: {e.strerror or e}") from None
            written.append(target.name)
    return written


if __name__ == "__main__":
    sys.exit(main())
