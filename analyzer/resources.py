"""Target resources (DESIGN.md, `phobos-check --arch`; LANGUAGE §2 `@launch`, §10 shared memory):
what a kernel asks of the GPU that the target cannot give, found before phobos-build meets it.

- **PH211** shared memory over the limit: everything the build allocates (smem.py's plan: the
  named tiles, the scratch of the statement that needs the most, the collectives' buffers; the
  same bytes the lowering places) is more than one CTA may use on the target; or
  `@launch(T, minBlocks)` asks for more CTAs on one SM than its shared memory holds. The
  allocations are the diagnostic's labels, largest first. phobos-build checks first, so it
  stops with this diagnostic rather than meet the limit itself.
- **PH212** a launch size the target cannot run: `@launch(T, minBlocks)` asks for more threads on
  one SM than it has (`minBlocks * T`), or `@launch(T, minBlocks, maxRegs)` for more registers
  than a CTA or an SM has (`T * maxRegs`, `minBlocks * T * maxRegs` against 64K registers).

- **PH215** kernel parameters over the parameter space: the bytes the launch passes, laid out as
  the lowering lays them out (each tensor a 64-bit pointer, each scalar by its type's size, then
  each runtime extent as an i32, each aligned to its own size), are more than ptxas accepts for
  one entry (32,764 on every target; ptxas 13 says "uses too much parameter space").

``TARGETS`` is the project's one table of targets and their limits (the lowering reads it).
"""

from __future__ import annotations

from . import smem
from ..language.targets import TARGETS, Limits  # noqa: F401 (the table's home is language/)
from .diagnostics.model import Diagnostic, Label
from ..language.types import BYTES, Tensor, Tile, settle

# The parameter space of one entry, the same on every target phobos-build emits for (sm_75 to
# sm_120, PTX ISA 8.6 and 8.7): ptxas 13 refuses more ("0x7ffc max").
PARAM_SPACE_BYTES = 32_764
POINTER_BYTES = 8          # a tensor parameter is a 64-bit global pointer
EXTENT_BYTES = 4           # a runtime extent is an i32 after the parameters (LANGUAGE §10)


def tile_bytes(t: Tile) -> int:
    return smem.tile_bytes(t.elem, t.shape)


def plan(kinfo, analysis) -> smem.SharedPlan:
    """The shared-memory plan of a checked kernel (``analysis`` is its KernelAnalysis)."""
    return smem.plan_kernel(kinfo, analysis)


def check(program, arch: str, analyses: list) -> list[Diagnostic]:
    """PH211/PH212 diagnostics of every kernel of ``program`` (a sema ProgramInfo, whose kernels'
    KernelAnalysis are ``analyses``) on ``arch``. Raises ValueError for a target phobos-build
    does not know."""
    limits = TARGETS.get(arch)
    if limits is None:
        raise ValueError(f"unknown target {arch}; the targets are {', '.join(TARGETS)}")
    out = []
    for kinfo, analysis in zip(program.kernels, analyses):
        out.extend(kernel_diagnostics(kinfo, plan(kinfo, analysis), arch))
        out.extend(parameter_diagnostics(kinfo, arch))
    return out


def parameter_layout(kinfo) -> list[tuple[str, int, int]]:
    """(name, offset, bytes) of each value the launch passes, in order: the parameters, then the
    runtime extents, each at the next multiple of its own size (as LLVM's NVPTX back end lays
    out ``.param`` space)."""
    out = []
    offset = 0
    items = [(b.name, POINTER_BYTES if isinstance(b.type, Tensor) else BYTES[settle(b.type).name])
             for b in kinfo.params]
    items += [(name, EXTENT_BYTES) for name in kinfo.extents]
    for name, size in items:
        offset = -(-offset // size) * size
        out.append((name, offset, size))
        offset += size
    return out


def parameter_bytes(kinfo) -> int:
    """The bytes of parameter space the kernel's launch takes."""
    layout = parameter_layout(kinfo)
    return layout[-1][1] + layout[-1][2] if layout else 0


def parameter_diagnostics(kinfo, arch: str) -> list[Diagnostic]:
    """PH215 when the kernel's parameters take more parameter space than an entry has."""
    layout = parameter_layout(kinfo)
    total = layout[-1][1] + layout[-1][2] if layout else 0
    if total <= PARAM_SPACE_BYTES:
        return []
    name = kinfo.kernel.name
    tensors = sum(1 for b in kinfo.params if isinstance(b.type, Tensor))
    scalars = len(kinfo.params) - tensors
    what = [f"{tensors:,} tensor{'s' if tensors != 1 else ''} ({POINTER_BYTES} bytes each)"]
    if scalars:
        what.append(f"{scalars:,} scalar{'s' if scalars != 1 else ''}")
    if kinfo.extents:
        what.append(f"{len(kinfo.extents):,} runtime extent{'s' if len(kinfo.extents) != 1 else ''} "
                    f"({EXTENT_BYTES} bytes each)")
    chain = []
    over = next(((n, off + size) for n, off, size in layout if off + size > PARAM_SPACE_BYTES), None)
    param = next((b for b in kinfo.params if over is not None and b.name == over[0]), None)
    if param is not None and param.span is not None:
        chain.append(Label(param.span, f"`{param.name}` ends at byte {over[1]:,}, past the limit"))
    return [Diagnostic(
        "PH215", f"the parameters of `{name}` take {total:,} bytes, over the {PARAM_SPACE_BYTES:,} bytes of "
                 f"parameter space a kernel has on {arch}", kinfo.kernel.name_span,
        label=", ".join(what), chain=chain,
        help="pass fewer, larger tensors (one tensor with an extra axis instead of many of one shape)",
        notes=["a launch passes each tensor as a 64-bit pointer, each scalar in its own size and each "
               "runtime extent as an i32, each aligned to its size; ptxas refuses an entry whose "
               "parameters take more than 32,764 bytes"])]


def kernel_diagnostics(kinfo, p: smem.SharedPlan, arch: str) -> list[Diagnostic]:
    """PH211/PH212 of one kernel whose shared-memory plan is ``p``."""
    limits = TARGETS[arch]
    out = []
    name = kinfo.kernel.name
    span = kinfo.kernel.name_span
    live = p.at_peak()
    total = p.total
    labels = [Label(a.span, a.label) for a in live]
    if total > limits.shared_per_block:
        out.append(Diagnostic(
            "PH211", f"`{name}` needs {total:,} bytes of shared memory, over the {limits.shared_per_block:,} "
                     f"bytes a CTA may use on {arch}", span,
            label=f"{len(live)} allocation{'s' if len(live) != 1 else ''}, {total:,} bytes", chain=labels,
            help="use smaller tiles, or fewer of them at once",
            notes=["LANGUAGE §10: tiles live in shared memory, up to the target's limit, and so do the "
                   "temporaries of a tile statement (the scratch labels)"]))
    threads = kinfo.threads
    blocks = kinfo.min_blocks or 1
    if kinfo.min_blocks and total and blocks * total > limits.shared_per_sm:
        out.append(Diagnostic(
            "PH211", f"{blocks} CTAs of `{name}` need {blocks * total:,} bytes of shared memory on one SM, over "
                     f"the {limits.shared_per_sm:,} bytes of an SM of {arch}", span,
            label=f"{total:,} bytes per CTA", chain=labels,
            help="lower `minBlocks` in `@launch`, or use smaller tiles"))
    if blocks * threads > limits.threads_per_sm:
        out.append(Diagnostic(
            "PH212", f"`@launch({threads}, {blocks})` asks for {blocks * threads:,} threads on one SM, and an SM of "
                     f"{arch} runs at most {limits.threads_per_sm:,}", span,
            label="this launch cannot be resident", help="lower `minBlocks` or the thread count"))
    if kinfo.max_regs is not None:
        per_cta = threads * kinfo.max_regs
        if per_cta > limits.registers:
            out.append(Diagnostic(
                "PH212", f"{threads} threads with up to {kinfo.max_regs} registers each need {per_cta:,} registers, "
                         f"over the {limits.registers:,} of a CTA on {arch}", span,
                label="this launch cannot run", help="lower `maxRegs` or the thread count"))
        elif blocks * per_cta > limits.registers:
            out.append(Diagnostic(
                "PH212", f"{blocks} CTAs of {threads} threads with {kinfo.max_regs} registers each need "
                         f"{blocks * per_cta:,} registers on one SM, over the {limits.registers:,} of {arch}", span,
                label="this launch cannot be resident", help="lower `minBlocks` or `maxRegs`"))
    return out


__all__ = ["check", "plan", "kernel_diagnostics", "parameter_diagnostics", "parameter_bytes", "parameter_layout",
           "PARAM_SPACE_BYTES", "TARGETS", "Limits", "tile_bytes"]
