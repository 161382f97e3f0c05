"""The llvmlite stages of the lowering, in one place:

1. **build**: the checked kernel -> an ``llvmlite.ir`` module (emit.py), kernel attributes
   (``ptx_kernel``, ``.maxntid``, ``.minnctapersm``, ``.maxnreg``) and line information;
2. **parse and verify**: the module's text through LLVM's parser and verifier;
3. **passes**: LLVM's O3 pipeline for the NVPTX target machine;
4. **PTX**: the target machine's assembly printer.

Between stages the lowering checks its own invariants: the module verifies before any pass
runs, the kernel is still an ``.entry`` after optimization, and the ``.version`` line is the PTX
ISA asked for (LLVM falls back silently to an older one on a misspelt feature). Stages 3 and 4
run in a forked child process: an invalid construct can make LLVM abort the whole process
("Cannot select", "no libcall available"), and in a child that becomes internal error PH901
with LLVM's own message instead of the death of the caller.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass

import llvmlite.ir as ir

from ..language.targets import PTX_ISA, TARGETS as TARGETS_LIMITS, ptx_features, ptx_isa  # noqa: F401 (PTX_ISA: the default)
from .debug import DebugInfo, fix_file_directives, source_path_of
from .emit import KernelEmitter
from .errors import LoweringError
from .names import entry_symbol

TRIPLE = "nvptx64-nvidia-cuda"
TARGETS = tuple(TARGETS_LIMITS)      # the language's table of targets (language/targets.py)

_llvm_ready = False


def _llvm():
    global _llvm_ready
    import llvmlite.binding as llvm
    if not _llvm_ready:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        # 32-bit pointers to shared memory (as nvcc uses): a shared address fits one register,
        # and the data layout taken from the target machine says so (p3:32:32)
        llvm.set_option("phobos-build", "--nvptx-short-ptr")
        # partial and runtime unrolling of small loops: NVPTX allows a quarter of the full
        # unrolling threshold (75); 300 lets loops like lanes_matvec's unroll 8 times, as nvcc
        # does (benchmarks/sass_vs_nvcc.py)
        llvm.set_option("phobos-build", "-unroll-partial-threshold=300")
        # a runtime-unrolled loop runs its remainder iterations first (a prologue, as nvcc's
        # loops do), so nothing of the unrolled loop (its 64-bit counters) is live after it:
        # lanes_matvec unrolled 16 times holds 31 registers with the prologue, 43 with an epilogue
        llvm.set_option("phobos-build", "-unroll-runtime-epilog=false")
        _llvm_ready = True
    return llvm


def target_machine(arch: str):
    if arch not in TARGETS:
        raise LoweringError(f"unsupported target {arch} (phobos-build targets {', '.join(TARGETS)})")
    llvm = _llvm()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=ptx_features(arch), opt=3)


# ---------------------------------------------------------------- stage 1: build
def build_module(kinfo, arch: str, source_path: str, line_info: bool = True):
    """The kernel's module, in the layout its shared-memory plan (analyzer/smem.py) chooses:
    static up to 48 KB, dynamic beyond (shared.py). ``module.phobos_dynamic_shared_bytes`` is
    what the launch must pass. ``kinfo`` is the analyzer.checked.CheckedKernel to build."""
    tm = target_machine(arch)
    plan = kinfo.smem
    limit = TARGETS_LIMITS[arch].shared_per_block
    if plan.total > limit:
        # phobos-build checks for `arch` first, and that check (PH211) counts this plan
        raise LoweringError(f"`{kinfo.kernel.name}` needs {plan.total:,} bytes of shared memory, over the "
                            f"{limit:,} of {arch}, and the checker did not refuse it (PH211)", kinfo.kernel.name_span)
    module, em = _build(kinfo, tm, source_path, line_info, plan, arch)
    # SharedMemory.finish held what the lowering took against the plan, so these are the plan's
    module.phobos_dynamic_shared_bytes = em.smem.dynamic_bytes
    return module


def _build(kinfo, tm, source_path, line_info, plan, arch):
    module = ir.Module(name=kinfo.kernel.name)
    module.triple = TRIPLE
    module.data_layout = str(tm.target_data)
    debug = DebugInfo(module, source_path) if line_info else None
    em = KernelEmitter(module, kinfo, debug, plan, arch)
    fn = em.lower()
    fn.linkage = "external"
    # launch bounds as NVVM annotations (LLVM upgrades them to its nvvm.* function attributes)
    i32 = ir.IntType(32)
    annotations = module.add_named_metadata("nvvm.annotations")
    bounds = [("maxntidx", kinfo.threads), ("minctasm", kinfo.min_blocks), ("maxnreg", kinfo.max_regs)]
    for key, value in bounds:                       # .maxntid, .minnctapersm, .maxnreg
        if value is not None:
            annotations.add(module.add_metadata([fn, ir.MetaDataString(module, key), ir.Constant(i32, value)]))
    return module, em


def module_text(module) -> str:
    """The module as LLVM 22 reads it: opaque pointers only (llvmlite would print the typed
    pointers of its globals, which LLVM no longer parses)."""
    import llvmlite.ir.types as T
    saved = T.ir_layer_typed_pointers_enabled
    T.ir_layer_typed_pointers_enabled = False
    try:
        return str(module)
    finally:
        T.ir_layer_typed_pointers_enabled = saved


# ---------------------------------------------------------------- stage 2: parse and verify
def parse_and_verify(text: str):
    llvm = _llvm()
    try:
        mod = llvm.parse_assembly(text)
        mod.verify()
    except RuntimeError as e:
        raise LoweringError(f"the LLVM module does not verify: {str(e).strip()}") from None
    return mod


# ---------------------------------------------------------------- stages 3 and 4: passes, PTX
def optimize(mod, tm) -> None:
    llvm = _llvm()
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(3))
    pb.getModulePassManager().run(mod, pb)


def emit_ptx(mod, tm) -> str:
    return tm.emit_assembly(mod)


def check_ptx(ptx: str, entry: str, arch: str) -> None:
    m = re.search(r"^\.version\s+(\S+)", ptx, re.M)
    want = ptx_isa(arch)
    if m is None or m.group(1) != want:
        raise LoweringError(f"LLVM emitted PTX ISA {m.group(1) if m else '?'} instead of {want}")
    if not re.search(rf"^\.target\s+{arch}\b", ptx, re.M):
        raise LoweringError(f"the PTX does not target {arch}")
    if not re.search(rf"\.entry\s+{re.escape(entry)}\s*\(", ptx):
        raise LoweringError(f"`{entry}` is not a kernel entry in the PTX (it became a .func?)")


@dataclass
class Verified:
    """A kernel through stages 1 and 2: its module built, printed, parsed and verified."""
    name: str
    llvm_ir: str                  # the module as built (stage 1), before optimization
    mod: object                   # LLVM's parsed module, which stages 3 and 4 transform
    dynamic_shared_bytes: int
    entry: str = ""               # the kernel's PTX symbol (names.py)
    source_path: str | None = None  # what the .file directive names (None: no line information)


def build_and_verify(kinfo, arch: str, source_path: str) -> Verified:
    """Stages 1 and 2 for one kernel (here, in this process: they run our code, not LLVM's passes)."""
    module = build_module(kinfo, arch, source_path)
    text = module_text(module)
    return Verified(kinfo.kernel.name, text, parse_and_verify(text), module.phobos_dynamic_shared_bytes,
                    entry_symbol(kinfo.kernel.name), source_path_of(source_path))


def _codegen(v: Verified, arch: str, tm) -> str:
    optimize(v.mod, tm)
    v.mod.verify()
    ptx = emit_ptx(v.mod, tm)
    if v.source_path is not None:
        ptx = fix_file_directives(ptx, v.source_path)
    check_ptx(ptx, v.entry or entry_symbol(v.name), arch)
    return ptx


def codegen_many(kernels: list[Verified], arch: str, workers: int | None = None) -> list:
    """Stages 3 and 4 for several kernels: each kernel's PTX, or the LoweringError that stopped it.
    The kernels are shared among up to ``workers`` (default: the CPUs) forked children that run at
    once, each doing its share in turn; when a child dies (an LLVM abort), each of its kernels is
    done again in a child of its own, so that the abort is reported for the kernel that caused it
    and the others still build."""
    if not kernels:
        return []
    tm = target_machine(arch)

    def share(group):
        def work():
            out = []
            for v in group:
                try:
                    out.append(["ptx", _codegen(v, arch, tm)])
                except LoweringError as e:
                    out.append(["error", str(e)])
                except RuntimeError as e:                      # the verifier after the passes
                    out.append(["error", f"the optimized module does not verify: {str(e).strip()}"])
            return json.dumps(out)
        return work

    def decode(text):
        return [data if kind == "ptx" else LoweringError(data) for kind, data in json.loads(text)]

    n = max(1, min(workers or os.cpu_count() or 1, len(kernels)))
    groups = [kernels[i::n] for i in range(n)]
    results: dict[int, object] = {}
    for group, outcome in zip(groups, run_forked([share(g) for g in groups])):
        if not isinstance(outcome, LoweringError):
            outcomes = decode(outcome)
        elif len(group) == 1:
            outcomes = [outcome]
        else:
            outcomes = [None] * len(group)                      # find which kernel it was, below
        for v, o in zip(group, outcomes):
            results[id(v)] = o
    retry = [v for v in kernels if results[id(v)] is None]
    for v, outcome in zip(retry, run_forked([share([v]) for v in retry], at_once=n)):
        results[id(v)] = outcome if isinstance(outcome, LoweringError) else decode(outcome)[0]
    return [results[id(v)] for v in kernels]


def run_forked(works: list, at_once: int | None = None) -> list:
    """``work()`` of each (a function returning text), each in a forked child so that an LLVM abort
    cannot take the caller down, up to ``at_once`` (default: all) at a time: its text, or a
    LoweringError saying how the child died and what it printed. ``PHOBOS_LOWERING_INPROCESS=1``
    (or a platform without fork) runs them here instead."""
    if not hasattr(os, "fork") or os.environ.get("PHOBOS_LOWERING_INPROCESS") == "1":
        return [work() for work in works]
    at_once = at_once or len(works) or 1
    outcomes: list = [None] * len(works)
    running: dict[int, tuple] = {}
    pending = list(enumerate(works))
    try:
        while pending or running:
            while pending and len(running) < at_once:
                i, work = pending.pop(0)
                out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
                running[_fork(work, out, err)] = (i, out, err)
            pid = next(iter(running))                   # the oldest: only our own children
            _, status = os.waitpid(pid, 0)
            i, out, err = running.pop(pid)
            with out, err:
                if status == 0:
                    out.seek(0)
                    outcomes[i] = out.read().decode()
                else:
                    err.seek(0)
                    message = err.read().decode("utf-8", "replace").strip()
                    how = (f"was killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
                           else f"exited with status {os.WEXITSTATUS(status)}")
                    outcomes[i] = LoweringError(f"LLVM code generation {how}: {message[-2000:] or 'no message'}")
    finally:
        for pid, (_, out, err) in running.items():     # interrupted: leave no child behind
            try:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            except OSError:
                pass
            out.close()
            err.close()
    return outcomes


def _fork(work, out, err) -> int:
    pid = os.fork()
    if pid == 0:                                       # the child: never returns
        status = 0
        try:
            os.dup2(err.fileno(), 2)
            import faulthandler
            faulthandler.disable()                     # the abort's report is LLVM's message
            out.write(work().encode())
            out.flush()
        except BaseException as exc:                   # noqa: BLE001 - reported to the parent
            try:
                os.write(2, f"\n{type(exc).__name__}: {exc}".encode())
            finally:
                status = 3
        os._exit(status)
    return pid
