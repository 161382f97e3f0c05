"""``phobos-build``: lower the kernels of a Phobos file to PTX and write their launch manifests.

``phobos-build FILE [-k KERNEL] [-o DIR] [--arch sm_90] [-D NAME=VALUE ...] [--emit ptx|llvm|cubin]``
writes ``DIR/KERNEL.ptx`` (or ``DIR/KERNEL.ll`` with ``--emit llvm``, ``DIR/KERNEL.cubin`` through
ptxas with ``--emit cubin``) and ``DIR/KERNEL.json``
for each kernel (or only ``KERNEL``). A thin layer over ``phobos_tools.lowering.build``. Exit
status: 0 built; 1 the file is rejected, or uses an operation the lowering does not support yet
(the diagnostics are printed, nothing is written for that kernel); 2 usage error (bad option, a
missing or unreadable file, an output directory that cannot be written, no such kernel); 3
internal error (PH900/PH901). It never prints a traceback, unless PHOBOS_TRACEBACK=1 asks for the
one of an internal error.
"""

from __future__ import annotations

import argparse
import sys

from ..analyzer import autotune
from ..analyzer.api import check_source as check_every_configuration
from ..analyzer.checked import read_source
from .common import (EXIT_INTERNAL, EXIT_OK, EXIT_PROGRAM_ERROR, OUTPUT_DIR, Parser, UsageError, add_define_option,
                     guarded, parse_defines, path_argument)
from .config import Configs, merged_defines
from .conventions import add_conventions, color_wanted, read_named_source, render_colored
from .extras import missing_extra, refuse

try:                    # the lowering needs the `build` extra (llvmlite)
    from ..lowering.build import NoPtxas, NoSuchKernel, build_source
    from ..lowering.manifest import dumps
    from ..lowering.pipeline import TARGETS
    _MISSING = None
except ModuleNotFoundError as e:
    if missing_extra(e) is None:
        raise
    _MISSING = e

PROG = "phobos-build"
_COLOR = False          # --color: whether the diagnostics printed are coloured


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description="Lower the kernels of a Phobos file to PTX and write their "
                                       "launch manifests (DIR/KERNEL.ptx, DIR/KERNEL.json).")
    p.add_argument("file", metavar="FILE", help="a .ph source file")
    p.add_argument("-k", "--kernel", metavar="KERNEL", help="build only this kernel (default: all)")
    p.add_argument("-o", "--output", metavar="DIR", default=".", help="output directory (default: .)")
    p.add_argument("--arch", default=None,
                   help=f"target: {', '.join(TARGETS)} (default: the configuration's `arch`, else sm_90)")
    add_define_option(p)
    p.add_argument("--emit", choices=("ptx", "llvm", "cubin"), default="ptx",
                   help="write PTX (default), the LLVM module before optimization, or a cubin (needs ptxas)")
    add_conventions(p, PROG)
    p.add_argument("--autotune", action="store_true",
                   help="check every @autotune configuration and write one build of each, "
                        "DIR/KERNEL.NAME=v[.NAME=v..].ptx with its manifest (the values under \"defines\")")
    return p


def main(argv: list[str] | None = None) -> int:
    if _MISSING is not None:
        return refuse(PROG, _MISSING)
    # the collector is paused where the objects are made: check_source and build_source
    return guarded(PROG, _main, argv)


def _main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    path = path_argument(args.file, "FILE")
    # the configuration (cli/config.py) gives `arch` and `defines`; the flags win, -D name by name
    config = Configs(args.config, args.isolated).for_file(args.stdin_filename or args.file)
    defines = merged_defines(config, parse_defines(args.defines))
    args.arch = args.arch or config.arch or "sm_90"
    global _COLOR
    _COLOR = color_wanted(args.color)
    out_dir = path_argument(args.output, "-o", OUTPUT_DIR)
    if args.arch not in TARGETS:
        raise UsageError(f"--arch {args.arch}: phobos-build targets {', '.join(TARGETS)} (see {PROG} --help)")
    try:
        # at most 4 MiB and a byte, as phobos-check reads it; `-` is standard input
        data, name = read_named_source(args, args.file, read_source)
        path = type(path)(name)
    except FileNotFoundError:
        raise UsageError(f"{args.file}: no such file") from None
    except OSError as e:
        raise UsageError(f"cannot read {args.file}: {e.strerror or e}") from None
    if args.autotune:
        return _build_every_configuration(args, data, str(path), defines, out_dir)
    try:
        result = build_source(data, str(path), defines, args.arch, args.kernel, cubin=args.emit == "cubin")
    except (NoSuchKernel, NoPtxas) as e:
        raise UsageError(f"--emit cubin: {e}" if isinstance(e, NoPtxas) else str(e)) from None
    _print_diagnostics(result)
    written = []
    if result.kernels:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"-o {args.output}: {e.strerror or e}") from None
    for k in result.kernels:
        suffix = {"llvm": "ll", "cubin": "cubin"}.get(args.emit, "ptx")
        code_path = out_dir / f"{k.name}.{suffix}"
        manifest_path = out_dir / f"{k.name}.json"
        code = {"llvm": k.llvm_ir, "cubin": k.cubin}.get(args.emit, k.ptx)
        for target, content in ((code_path, code), (manifest_path, dumps(k.manifest))):
            try:
                if isinstance(content, bytes):
                    target.write_bytes(content)
                else:
                    target.write_text(content)
            except OSError as e:
                done = f" (wrote {', '.join(written)})" if written else ""
                raise UsageError(f"-o {args.output}: cannot write {target}: {e.strerror or e}{done}") from None
            written.append(str(target))
    if written:
        sys.stderr.write(f"{PROG}: wrote {', '.join(written)}\n")
    if result.internal_error or any(d.code == "PH900" for d in result.diagnostics):
        return EXIT_INTERNAL
    if not result.ok:
        return EXIT_PROGRAM_ERROR
    return EXIT_OK


def _print_diagnostics(result) -> None:
    if result.diagnostics:
        sys.stdout.write(render_colored(result.diagnostics, result.path, result.text, _COLOR) + "\n")
        sys.stdout.flush()



def _build_every_configuration(args, data, path: str, defines: dict, out_dir) -> int:
    """``--autotune``: check every configuration (phobos-check's way: a diagnostic once, naming
    the configurations it holds in), then build each one with its values as `-D` bindings."""
    checked = check_every_configuration(data, path, defines, args.arch)
    if not checked.ok or checked.program is None:
        _print_diagnostics(checked)
        return EXIT_PROGRAM_ERROR
    configs = autotune.configurations(checked.program, defines, [])
    kernels = [k.name for k in checked.program.kernels if args.kernel in (None, k.name)]
    if not kernels:
        raise UsageError(f"no kernel `{args.kernel}` in {path}")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"-o {args.output}: {e.strerror or e}") from None
    written, status = [], EXIT_OK
    suffix = {"llvm": "ll", "cubin": "cubin"}.get(args.emit, "ptx")
    for name in kernels:
        for values in configs.get(name, [{}]):
            bound = dict(defines, **{n: str(v) for n, v in values.items()})
            try:
                result = build_source(data, path, bound, args.arch, name, cubin=args.emit == "cubin")
            except (NoSuchKernel, NoPtxas) as e:
                raise UsageError(f"--emit cubin: {e}" if isinstance(e, NoPtxas) else str(e)) from None
            _print_diagnostics(result)
            if not result.kernels:
                status = EXIT_PROGRAM_ERROR
                continue
            k = result.kernels[0]
            stem = ".".join([name] + [f"{n}={v}" for n, v in values.items()])
            manifest = dict(k.manifest, defines={n: _define_value(v) for n, v in bound.items()})
            code = {"llvm": k.llvm_ir, "cubin": k.cubin}.get(args.emit, k.ptx)
            for target, content in ((out_dir / f"{stem}.{suffix}", code), (out_dir / f"{stem}.json", dumps(manifest))):
                try:
                    if isinstance(content, bytes):
                        target.write_bytes(content)
                    else:
                        target.write_text(content)
                except OSError as e:
                    raise UsageError(f"-o {args.output}: cannot write {target}: {e.strerror or e}") from None
                written.append(str(target))
    if written:
        sys.stderr.write(f"{PROG}: wrote {', '.join(written)}\n")
    return status


def _define_value(text: str):
    """A `-D` value as the manifest records it: an integer as a number, anything else as written."""
    try:
        return int(text, 0)
    except ValueError:
        return text


if __name__ == "__main__":
    sys.exit(main())
