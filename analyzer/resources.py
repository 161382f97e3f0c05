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

``TARGETS`` is the project's one table of targets and their limits (the lowering reads it).
"""

from __future__ import annotations

from . import smem
from ..language.targets import TARGETS, Limits  # noqa: F401 (the table's home is language/)
from .diagnostics.model import Diagnostic, Label
from ..language.types import Tile


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
    return out


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


__all__ = ["check", "plan", "kernel_diagnostics", "TARGETS", "Limits", "tile_bytes"]
