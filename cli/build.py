"""``phobos-build``: lower the kernels of a Phobos file to PTX and write their launch manifests.

``phobos-build FILE [-k KERNEL] [-o DIR] [--arch sm_90] [-D NAME=VALUE ...] [--emit ptx|llvm]``
writes ``DIR/KERNEL.ptx`` (or ``DIR/KERNEL.ll`` with ``--emit llvm``) and ``DIR/KERNEL.json``
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

from ..analyzer.checked import read_source, render_diagnostics
from ..lowering.build import NoSuchKernel, build_source
from ..lowering.manifest import dumps
from ..lowering.pipeline import TARGETS
from .common import (EXIT_INTERNAL, EXIT_OK, EXIT_PROGRAM_ERROR, OUTPUT_DIR, Parser, UsageError, add_define_option,
                     guarded, parse_defines, path_argument)

PROG = "phobos-build"


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description="Lower the kernels of a Phobos file to PTX and write their "
                                       "launch manifests (DIR/KERNEL.ptx, DIR/KERNEL.json).")
    p.add_argument("file", metavar="FILE", help="a .ph source file")
    p.add_argument("-k", "--kernel", metavar="KERNEL", help="build only this kernel (default: all)")
    p.add_argument("-o", "--output", metavar="DIR", default=".", help="output directory (default: .)")
    p.add_argument("--arch", default="sm_90", help="target, sm_75 to sm_90 (default: sm_90)")
    add_define_option(p)
    p.add_argument("--emit", choices=("ptx", "llvm"), default="ptx",
                   help="write PTX (default) or the LLVM module before optimization")
    return p


def main(argv: list[str] | None = None) -> int:
    # the collector is paused where the objects are made: check_source and build_source
    return guarded(PROG, _main, argv)


def _main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    defines = parse_defines(args.defines)
    path = path_argument(args.file, "FILE")
    out_dir = path_argument(args.output, "-o", OUTPUT_DIR)
    if args.arch not in TARGETS:
        raise UsageError(f"--arch {args.arch}: phobos-build targets {', '.join(TARGETS)} (see {PROG} --help)")
    try:
        data = read_source(path)        # at most 4 MiB and a byte, as phobos-check reads it
    except FileNotFoundError:
        raise UsageError(f"{args.file}: no such file") from None
    except OSError as e:
        raise UsageError(f"cannot read {args.file}: {e.strerror or e}") from None
    try:
        result = build_source(data, str(path), defines, args.arch, args.kernel)
    except NoSuchKernel as e:
        raise UsageError(str(e)) from None
    _print_diagnostics(result)
    written = []
    if result.kernels:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"-o {args.output}: {e.strerror or e}") from None
    for k in result.kernels:
        code_path = out_dir / (f"{k.name}.ll" if args.emit == "llvm" else f"{k.name}.ptx")
        manifest_path = out_dir / f"{k.name}.json"
        for target, content in ((code_path, k.llvm_ir if args.emit == "llvm" else k.ptx),
                                (manifest_path, dumps(k.manifest))):
            try:
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
        sys.stdout.write(render_diagnostics(result.diagnostics, result.path, result.text) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
