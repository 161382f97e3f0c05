"""The targets `--arch` takes (DESIGN.md), with what one CTA and one SM of each may use, and the
PTX ISA the build writes: the project's one table of targets. The checker's resource checks
(PH211, PH212), the shared-memory plan, the lowering and the CLIs all read it."""

from __future__ import annotations

from .records import record


@record(frozen=True)
class Limits:
    shared_per_block: int      # bytes one CTA may use (opt-in maximum, static + dynamic)
    shared_per_sm: int         # bytes per SM
    threads_per_sm: int
    registers: int = 65536     # per CTA and per SM on every target here


TARGETS = {
    "sm_75": Limits(65536, 65536, 1024),
    "sm_80": Limits(166912, 167936, 2048),
    "sm_86": Limits(101376, 102400, 1536),
    "sm_87": Limits(166912, 167936, 2048),
    "sm_89": Limits(101376, 102400, 1536),
    "sm_90": Limits(232448, 233472, 2048),
    "sm_100": Limits(232448, 233472, 2048),     # data-centre Blackwell (B200): as sm_90
    "sm_120": Limits(101376, 102400, 1536),     # consumer Blackwell (RTX 50): as sm_86/sm_89
}
DEFAULT_TARGET = "sm_90"

PTX_ISA = "8.6"                # accepted by ptxas 13.0 and by the R580 driver
PTX_FEATURES = "+ptx86"        # the LLVM feature that asks for it
# Targets that PTX 8.6 does not know: sm_120 came with PTX ISA 8.7.
PTX_ISA_OF = {"sm_120": "8.7"}


def ptx_isa(arch: str) -> str:
    """The PTX ISA version the build writes for ``arch`` (the manifest's ``ptx_version``)."""
    return PTX_ISA_OF.get(arch, PTX_ISA)


def ptx_features(arch: str) -> str:
    """The LLVM NVPTX feature that makes LLVM write ``ptx_isa(arch)``."""
    return "+ptx" + ptx_isa(arch).replace(".", "")
STATIC_SHARED_LIMIT = 48 * 1024   # static shared memory of one CTA; beyond it, dynamic (LANGUAGE §10)
