"""``phobos-run``: run one kernel of a Phobos file on arrays, on the CPU simulator or the GPU.

``phobos-run FILE [-k KERNEL] (--sim | --gpu) --grid X[,Y[,Z]] [--arg NAME=SPEC ...] [--seed N]
[-D NAME=VALUE ...] [--out DIR] [--unchecked]`` (DESIGN.md). Each ``SPEC`` is a ``.npy`` path,
``rand:DTYPE:D1xD2``, ``zeros:DTYPE:D1xD2`` or a scalar literal; runtime extents come from the
arrays' shapes. After the run every tensor argument is written to ``DIR/NAME.npy`` (default: the
current directory). Exit status: 0 ran; 1 the program is rejected (its diagnostics are printed);
2 usage error (a bad option or argument, no GPU for ``--gpu``); 3 internal error; 4 a dynamic
check fired (its located message is printed). It never prints a traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

from .common import (EXIT_OK, EXIT_PROGRAM_ERROR as EXIT_REJECTED, Parser, UsageError, add_define_option, guarded,
                     parse_defines)

EXIT_DYNAMIC = 4
PROG = "phobos-run"
_ARG = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.+)", re.DOTALL)
_ARRAY_SPEC = re.compile(r"(rand|zeros):([a-z0-9]+):([0-9]+(?:x[0-9]+)*)")
_SCALAR_TYPES = ("bool", "i8", "u8", "i32", "i64", "f16", "bf16", "f32", "f64")


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
    p.add_argument("--seed", type=int, default=0, help="seed of the rand: arguments (default 0)")
    add_define_option(p)
    p.add_argument("--out", metavar="DIR", default=".", help="where to write NAME.npy (default: .)")
    p.add_argument("--unchecked", action="store_true",
                   help="run a program phobos-check rejects for the per-thread rules (simulator only), so "
                        "that the dynamic checks show the problem at run time")
    return p


def main(argv: list[str] | None = None) -> int:
    return guarded(PROG, _main, argv)


def _main(argv: list[str]) -> int:
    opts = _parser().parse_args(argv)
    from ..simulator import ArgumentError, DynamicCheckFailed, GPUUnavailable, ProgramRejected, loads

    if opts.gpu and opts.unchecked:
        raise UsageError("--unchecked runs a rejected program on the simulator only (use --sim)")
    defines = parse_defines(opts.defines)
    grid = _grid(opts.grid)
    path = Path(opts.file)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {opts.file}: {e.strerror or e}") from None
    try:
        program = loads(data, opts.file, defines, unchecked=opts.unchecked)
    except ProgramRejected as e:
        if e.diagnostics:
            sys.stdout.write(e.render() + "\n")
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
        kernel(**arrays, grid=grid, device="gpu" if opts.gpu else "sim")
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
    out = Path(opts.out)
    written = _write(out, kernel, arrays)
    where = "GPU" if opts.gpu else "simulator"
    sys.stderr.write(f"{PROG}: ran `{kernel.name}` on the {where}, grid {','.join(map(str, grid))} x "
                     f"{kernel.threads} threads, in {elapsed:.3f} s; wrote {', '.join(written) or 'nothing'} "
                     f"to {out}\n")
    return EXIT_OK


def _grid(text: str) -> tuple[int, ...]:
    parts = text.split(",")
    if not 1 <= len(parts) <= 3 or not all(p.strip().isdigit() for p in parts):
        raise UsageError(f"--grid takes X[,Y[,Z]] with positive integers, not {text!r}")
    grid = tuple(int(p) for p in parts)
    if any(g < 1 or g > 2**31 - 1 for g in grid):
        raise UsageError(f"--grid extents are from 1 to 2147483647, not {text!r}")
    return grid


def _arguments(kernel, specs: list[str], seed: int) -> dict:
    """Each parameter's value from its ``--arg NAME=SPEC``."""
    from ..analyzer.types import Tensor
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
            values[name] = _array(name, t, spec, np.random.default_rng([seed, index]))
        else:
            values[name] = _scalar(name, t, spec)
    return values


def _array(name: str, t, spec: str, rng) -> np.ndarray:
    from ..simulator.values import NUMPY_DTYPES
    want = NUMPY_DTYPES[t.elem.name]
    m = _ARRAY_SPEC.fullmatch(spec)
    if m is not None:
        kind, dtype, dims = m.groups()
        if dtype not in _SCALAR_TYPES:
            raise UsageError(f"--arg {name}: unknown dtype `{dtype}` (one of {', '.join(_SCALAR_TYPES)})")
        if dtype != t.elem.name:
            raise UsageError(f"--arg {name}: `{name}` is a {t}, so its spec needs dtype {t.elem.name}, not {dtype}")
        shape = tuple(int(d) for d in dims.split("x"))
        if len(shape) != len(t.shape):
            raise UsageError(f"--arg {name}: `{name}` is a {t} of rank {len(t.shape)}, but {dims} has rank {len(shape)}")
        if kind == "zeros":
            return np.zeros(shape, dtype=want)
        return _random(shape, t.elem.name, want, rng)
    if spec.endswith(".npy") or Path(spec).is_file():
        try:
            arr = np.load(spec, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise UsageError(f"--arg {name}: cannot load {spec}: {e}") from None
        if t.elem.name == "bf16" and arr.dtype.kind == "V" and arr.dtype.itemsize == 2:
            arr = arr.view(want)                     # np.save writes bfloat16 as 2-byte void
        return np.ascontiguousarray(arr)
    raise UsageError(f"--arg {name}: `{name}` is a {t}: give a .npy path, rand:{t.elem.name}:D1xD2 or "
                     f"zeros:{t.elem.name}:D1xD2, not {spec!r}")


def _random(shape, elem: str, dtype, rng) -> np.ndarray:
    if elem == "bool":
        return rng.random(shape) < 0.5
    if elem in ("i8", "u8"):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max + 1, shape).astype(dtype)
    if elem in ("i32", "i64"):
        return rng.integers(-1000, 1000, shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, shape).astype(np.float32).astype(dtype)


def _scalar(name: str, t, spec: str):
    from ..simulator import ArgumentError
    from ..simulator.launch import scalar_argument
    text = spec.strip()
    if text in ("true", "false"):
        value = text == "true"
    else:
        try:
            value = int(text, 0)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                raise UsageError(f"--arg {name}: `{name}` is a {t}: give a literal such as 1, -2.5 or true, "
                                 f"not {spec!r}") from None
    try:
        return scalar_argument(name, t, value)
    except ArgumentError as e:
        raise UsageError(f"--arg {name}: {e}") from None


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
