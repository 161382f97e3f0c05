"""Target resources (DESIGN.md, `phobos-check --arch`; LANGUAGE §2 `@launch`, §10 shared memory):
what a kernel asks of the GPU that the target cannot give, found before phobos-build meets it.

- **PH211** shared memory over the limit: the kernel's tiles (every `var` tile and materialized
  `let`, in the kernel and in each function call inlined into it, rounded up to 16 bytes as the
  lowering places them) need more shared memory than one CTA may use on the target; or
  `@launch(T, minBlocks)` asks for more CTAs on one SM than its shared memory holds. The tile
  declarations are the diagnostic's labels, largest first.
- **PH212** a launch size the target cannot run: `@launch(T, minBlocks)` asks for more threads on
  one SM than it has (`minBlocks * T`), or `@launch(T, minBlocks, maxRegs)` for more registers
  than a CTA or an SM has (`T * maxRegs`, `minBlocks * T * maxRegs` against 64K registers).

The lowering adds scratch tiles of its own (tiles.py) and reports PH211 itself when those push
a kernel over the limit; this check sees only what the source declares.
"""

from __future__ import annotations

from dataclasses import dataclass

from .diagnostics.model import Diagnostic, Label
from .types import Tile, settle

TILE_ALIGN = 16


@dataclass(frozen=True)
class Limits:
    shared_per_block: int      # bytes one CTA may use (opt-in maximum)
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
}

_BYTES = {"bool": 1, "i8": 1, "u8": 1, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}


def tile_bytes(t: Tile) -> int:
    n = _BYTES[settle(t.elem).name]
    for d in t.shape:
        n *= d
    return (n + TILE_ALIGN - 1) // TILE_ALIGN * TILE_ALIGN


@dataclass(frozen=True)
class ArgumentTile:
    """A tile the lowering allocates for a call: the one a computed tile argument (`f(t * 2.0)`)
    is swept into before the call, or the one a function's tile result is returned in."""
    what: str                  # as the label names it
    span: object
    type: Tile


def declared_tiles(kinfo) -> list:
    """(binding, bytes) of every tile the kernel allocates: `var` tiles and materialized `let`s
    (a `let` view allocates nothing), in the kernel and each inlined call, and the tile of each
    computed tile argument (an ArgumentTile)."""
    from .sema_helpers import _is_plain_tile
    out = []
    for inst in kinfo.instance.tree():
        for b in inst.bindings:
            if b.kind in ("var", "let") and isinstance(b.type, Tile) and b.type.static:
                out.append((b, tile_bytes(b.type)))
        for callee in inst.calls.values():
            call = callee.call_node
            for p, a in zip(callee.node.params, call.args if call is not None else ()):
                t = inst.types.get(id(a))
                if p.type.kind == "tile" and isinstance(t, Tile) and t.static and not _is_plain_tile(a, inst):
                    arg = ArgumentTile(f"`{p.name}` of `{callee.name}`", a.span, t)
                    out.append((arg, tile_bytes(t)))
            r = callee.ret_type
            if call is not None and isinstance(r, Tile) and r.static:
                out.append((ArgumentTile(f"the result of `{callee.name}`", call.span, r), tile_bytes(r)))
    return out


def check(program, arch: str = "sm_90") -> list[Diagnostic]:
    """PH211/PH212 diagnostics of every kernel of ``program`` (a semantics.ProgramInfo) on
    ``arch``. Raises ValueError for a target phobos-build does not know."""
    limits = TARGETS.get(arch)
    if limits is None:
        raise ValueError(f"unknown target {arch}; the targets are {', '.join(TARGETS)}")
    out = []
    for kinfo in program.kernels:
        out.extend(_kernel(kinfo, arch, limits))
    return out


def _kernel(kinfo, arch: str, limits: Limits) -> list[Diagnostic]:
    out = []
    name = kinfo.kernel.name
    span = kinfo.kernel.name_span
    tiles = sorted(declared_tiles(kinfo), key=lambda x: -x[1])
    total = sum(n for _, n in tiles)
    labels = [Label(b.span, f"{b.what if isinstance(b, ArgumentTile) else f'`{b.name}`'}: {b.type.elem}"
                            f"[{', '.join(str(d) for d in b.type.shape)}], {n:,} bytes")
              for b, n in tiles]
    if total > limits.shared_per_block:
        out.append(Diagnostic(
            "PH211", f"`{name}` needs {total:,} bytes of shared memory, over the {limits.shared_per_block:,} "
                     f"bytes a CTA may use on {arch}", span,
            label=f"{len(tiles)} tile{'s' if len(tiles) != 1 else ''}, {total:,} bytes", chain=labels,
            help="use smaller tiles, or fewer of them at once",
            notes=["LANGUAGE §10: tiles live in shared memory, up to the target's limit"]))
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


__all__ = ["check", "TARGETS", "Limits", "declared_tiles", "tile_bytes"]
