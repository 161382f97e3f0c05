"""The build API: source -> checked program -> per kernel, PTX (and the LLVM module) plus its
manifest. ``build_source``/``build_file`` never raise for a bad program: a rejected file keeps
the analyzer's diagnostics, an operation the lowering cannot lower yet becomes a located error,
and any failure inside the lowering (LLVM included) becomes internal error PH901.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..analyzer import checked as C
from ..analyzer.diagnostics.model import ERROR, Diagnostic, Label, Span
from ..analyzer.syntax import ast as A
from .emit import loop_unroll, unsupported_ops
from .errors import INTERNAL_CODE, UNSUPPORTED_CODE, LoweringError, Unsupported
from .manifest import manifest
from .pipeline import TARGETS, build_and_verify, codegen_many
from .ptxas import assemble, find_ptxas

DEFAULT_ARCH = "sm_90"
TOO_LARGE_CODE = "PH213"
# The most expressions and declarations one kernel may hold, its inlined calls included. Building
# grows with the size and faster than linearly (this machine, 2 cores: 110,000 in 4.2 s; 220,000
# in 9.4 s; 440,000 in 26 s; a 4 MiB file of statements, 1.1 million, in 34 s); hand-written
# kernels hold a few thousand. Past it the build stops with PH213 rather than run for minutes.
MAX_KERNEL_SIZE = 100_000


@dataclass
class BuiltKernel:
    name: str
    arch: str
    ptx: str
    llvm_ir: str
    manifest: dict
    ptxas_log: str | None = None
    cubin: bytes | None = None        # ptxas's output, when the build was asked for it (--emit cubin)


@dataclass
class BuildResult:
    path: str
    text: str | None
    diagnostics: list = field(default_factory=list)
    kernels: list[BuiltKernel] = field(default_factory=list)
    check: C.CheckedProgram | None = None

    @property
    def ok(self) -> bool:
        return not any(d.severity == ERROR for d in self.diagnostics)

    @property
    def internal_error(self) -> bool:
        return any(d.code == INTERNAL_CODE for d in self.diagnostics)


class NoSuchKernel(ValueError):
    pass


class NoPtxas(RuntimeError):
    """A cubin was asked for and ptxas is not installed."""


def build_file(path, defines=None, arch: str = DEFAULT_ARCH, kernel: str | None = None,
               resources: bool = True, cubin: bool = False) -> BuildResult:
    data = C.read_source(path)        # at most 4 MiB + 1 byte; OSError propagates: a usage error
    return build_source(data, str(path), defines, arch, kernel, resources, cubin)


def build_source(source, path: str = "<input>", defines=None, arch: str = DEFAULT_ARCH,
                 kernel: str | None = None, resources: bool = True, cubin: bool = False) -> BuildResult:
    """Check ``source``; if it is accepted, lower its kernels (or only ``kernel``) for ``arch``.
    Raises NoSuchKernel when ``kernel`` names no kernel of an accepted file. With ``cubin``, each
    kernel's PTX also goes through ptxas and ``BuiltKernel.cubin`` holds the result (NoPtxas
    without ptxas)."""
    if arch not in TARGETS:
        raise ValueError(f"unsupported target {arch}; phobos-build targets {', '.join(TARGETS)}")
    if cubin and find_ptxas() is None:
        raise NoPtxas("a cubin needs ptxas, which is not installed (PATH, or the nvidia-cuda-nvcc wheel: "
                      "pip install 'phobos-tools[ptx]')")
    checked = _check(source, path, dict(defines or {}), arch)
    result = BuildResult(path, checked.text, list(checked.diagnostics), check=checked)
    if not checked.ok or not checked.typed:
        return result
    with C.pause_gc():        # the emitter makes llvmlite objects by the million: collection took 40 %
        _lower_all(result, checked, arch, path, kernel, resources or cubin, cubin)
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


def _lower_all(result, checked, arch, path, kernel, resources, cubin=False) -> None:
    kernels = checked.kernels
    if kernel is not None:
        kernels = [k for k in kernels if k.name == kernel]
        if not kernels:
            names = ", ".join(k.name for k in checked.kernels) or "none"
            raise NoSuchKernel(f"no kernel named `{kernel}` in {path} (kernels: {names})")
    verified = []                           # (kinfo, stages 1-2 done) of the kernels still going
    for kinfo in kernels:
        size, loops = unrolled_size(kinfo.instance, MAX_KERNEL_SIZE)
        if size > MAX_KERNEL_SIZE:
            result.diagnostics.append(_too_large(kinfo, loops))
            continue
        v = _guarded(kinfo, result.diagnostics, lambda: _build_and_verify(kinfo, arch, path))
        if v is not None:
            verified.append((kinfo, v))
    # LLVM's passes and PTX printer: in forked children, one per CPU; then ptxas, as many at once
    ptxs = codegen_many([v for _, v in verified], arch)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = [pool.submit(_resources, ptx, arch, cubin) if resources and isinstance(ptx, str) else None
                   for ptx in ptxs]
        for (kinfo, v), ptx, future in zip(verified, ptxs, futures):
            built = _guarded(kinfo, result.diagnostics, lambda: _finish(kinfo, v, ptx, future, arch))
            if built is not None:
                result.kernels.append(built)


def _too_large(kinfo, loops) -> Diagnostic:
    """PH213 for a kernel past MAX_KERNEL_SIZE; ``loops`` are the unrolled loops counted."""
    name = kinfo.kernel.name
    chain, notes = [], []
    if loops:
        loop, factor, _ = min(loops, key=lambda x: (-x[1], x[0].span.line, x[0].span.column))
        where = loop.span.to(loop.var_span) if loop.var_span.line else loop.span
        chain.append(Label(where, f"unrolled {factor} times, so its body counts {factor} times"))
        notes.append("the count is taken after inlining and unrolling: each inlined call counts its "
                     "function's body again, each unrolled loop its body once per copy")
    notes.append("phobos-check accepts it; only the build stops here, so that it stays quick")
    return Diagnostic(
        TOO_LARGE_CODE, f"kernel `{name}` is too large to build: more than {MAX_KERNEL_SIZE:,} expressions "
        f"and declarations, inlined calls{' and unrolled loops' if loops else ''} included",
        kinfo.kernel.name_span, label="too large", chain=chain,
        help=("unroll less (a smaller `<unroll n>`), or repeat work with a loop rather than copies of "
              "statements" if loops else
              "repeat work with a loop (`for<unroll n>` keeps it fast) rather than copies of statements, "
              "or split the kernel"),
        notes=notes)


def kernel_size(inst, stop: int | None = None) -> int:
    """The expressions and declarations of ``inst`` and of the calls inlined into it, each counted
    once per copy that unrolling makes of it (a loop the lowering asks LLVM to unroll ``n`` times
    counts its body ``n`` times; counting stops once past ``stop``)."""
    return unrolled_size(inst, stop)[0]


def unrolled_size(inst, stop: int | None = None) -> tuple[int, list]:
    """(size, loops): ``kernel_size``, and the loops unrolled in what was counted, as (the
    ``A.For``, its factor, its instance)."""
    base = 0
    for i in inst.tree():
        base += len(i.types) + len(i.decls)
    if stop is not None and base > stop:
        return base, []
    hits = 0            # entries met in the walk, each once
    weighted = 0        # the same entries, each times the unroll factors around it
    loops = []
    seen = {id(inst)}
    stack = [(inst, inst.node, 1)]
    while stack:
        i, n, w = stack.pop()
        key = id(n)
        if key in i.types:
            hits += 1
            weighted += w
        if key in i.decls:
            hits += 1
            weighted += w
        callee = i.calls.get(key)
        if callee is not None and id(callee) not in seen:
            seen.add(id(callee))
            stack.append((callee, callee.node, w))
        if isinstance(n, A.For):
            u = loop_unroll(i, n, w) or 1
            if u > 1:
                loops.append((n, u, i))
            for child in _children(n):
                stack.append((i, child, w * u if child is n.body else w))
        else:
            for child in _children(n):
                stack.append((i, child, w))
        if stop is not None and weighted + (base - hits) > stop:
            break
    return weighted + (base - hits), loops


_FIELDS: dict = {}


def _children(n):
    """The AST nodes directly below ``n``."""
    fields = _FIELDS.get(type(n))
    if fields is None:
        fields = _FIELDS[type(n)] = tuple(f for f in getattr(type(n), "__slots__", ())
                                          if f != "span" and not f.endswith("_span"))
    for f in fields:
        v = getattr(n, f)
        if isinstance(v, tuple):
            for x in v:
                if hasattr(x, "span"):
                    yield x
        elif hasattr(v, "span"):
            yield v


def _check(source, path, defines, arch) -> C.CheckedProgram:
    """The checker for ``arch``, resource checks (PH211, PH212) included."""
    return C.check_source(source, path, defines, arch=arch)


def _build_and_verify(kinfo, arch, path):
    missing = unsupported_ops(kinfo)
    if missing:
        raise _NotLowered(missing)
    return build_and_verify(kinfo, arch, path)


def _finish(kinfo, v, ptx, future, arch) -> BuiltKernel:
    if isinstance(ptx, Exception):
        raise ptx
    res, log, binary = future.result() if future is not None else (None, None, None)
    return BuiltKernel(v.name, arch, ptx, v.llvm_ir, manifest(kinfo, arch, res, v.dynamic_shared_bytes), log,
                       binary)


class _NotLowered(Exception):
    def __init__(self, missing):
        self.missing = missing


def _guarded(kinfo, diagnostics, step):
    """``step()``, with what stops it as diagnostics: operations not lowered yet (PH210), shared
    memory over the target (PH211), and any other failure, a bug (PH901)."""
    name = kinfo.kernel.name
    try:
        return step()
    except _NotLowered as e:
        for u in e.missing:
            diagnostics.append(Diagnostic(UNSUPPORTED_CODE, str(u), u.span, label="not lowered yet",
                                          help=u.help, notes=[f"in kernel `{name}`"]))
    except Unsupported as u:
        label = "not lowered yet" if u.code == UNSUPPORTED_CODE else None
        diagnostics.append(Diagnostic(u.code, str(u), u.span or kinfo.kernel.name_span, label=label, help=u.help))
    except Exception as exc:                 # noqa: BLE001 - every failure here is a bug: PH901
        span = getattr(exc, "span", None) or kinfo.kernel.name_span or Span(1, 1, 1, 1)
        what = str(exc) if isinstance(exc, LoweringError) else f"{type(exc).__name__}: {exc}"
        diagnostics.append(Diagnostic(INTERNAL_CODE, f"internal error while lowering `{name}`: {what}", span,
                                      help="this is a bug in phobos-build; please report it with this file"))
    return None


def _resources(ptx: str, arch: str, cubin: bool = False):
    ptxas = find_ptxas()
    if ptxas is None:
        return None, None, None
    done = assemble(ptx, arch, ptxas, keep_cubin=cubin)
    if not done.ok:
        raise LoweringError(f"ptxas rejected the generated PTX: {done.log[-1500:]}")
    return done.resources, done.log, done.cubin
