"""Shared memory of a kernel (LANGUAGE §10): where each tile lives.

Two regions. **Named** tiles (``var`` tiles and materialized ``let``s) live for the whole kernel.
**Scratch** holds the temporaries of one tile statement (a materialized ``rowmax``, the shared
copy of a ``dot`` operand from global memory, ...): the statement ends with a barrier, so the
next statement's temporaries reuse the same bytes, and the scratch region is as large as the
largest statement needs (tiles whose lifetimes do not overlap share bytes).

Up to 48 KB in all, every named tile is its own ``.shared`` array (so LLVM sees that two tiles do
not alias) and the scratch region one more. Beyond 48 KB the kernel needs dynamic shared memory:
both regions become offsets into one ``.extern .shared`` array whose size the manifest reports as
``dynamic_shared_bytes`` and the runtime passes at launch. The build lowers a kernel once in the
static layout, and again in the dynamic one when the total is over the limit.
"""

from __future__ import annotations

import llvmlite.ir as ir

from .ltypes import BYTES, I8, SHARED, memory_ir

STATIC_LIMIT = 48 * 1024
ALIGN = 16

# Shared memory one CTA may use, per target (static + dynamic; CUDA's "max shared memory per
# block, opt-in"): sm_75 64 KB, sm_80/87 163 KB, sm_86/89 99 KB, sm_90 227 KB.
TARGET_LIMIT = {"sm_75": 65536, "sm_80": 166912, "sm_86": 101376, "sm_87": 166912, "sm_89": 101376,
                "sm_90": 232448}


def _round(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def tile_bytes(elem, count: int) -> int:
    return BYTES[elem.name] * count


class SharedMemory:
    def __init__(self, module: ir.Module, kernel: str, dynamic: bool = False, named_total: int = 0):
        self.module = module
        self.kernel = kernel
        self.dynamic = dynamic
        self.named_bytes = 0                 # bump pointer of the named region
        self.named_total = named_total       # known in the dynamic layout (from the first build)
        self.scratch_top = 0                 # bump pointer of the scratch region
        self.scratch_peak = 0
        self._scratch = None
        self._dyn = None

    # ---------------------------------------------------------------- allocation
    def named(self, name: str, elem, count: int) -> ir.Value:
        size = tile_bytes(elem, count)
        if self.dynamic:
            at = self.named_bytes
            self.named_bytes += _round(size)
            return self._at(self._dynamic_array(), at)
        self.named_bytes += _round(size)
        g = ir.GlobalVariable(self.module, ir.ArrayType(memory_ir(elem), count),
                              self._unique(f"{name}_{self.kernel}"), addrspace=SHARED)
        g.linkage = "internal"
        g.align = ALIGN
        g.initializer = ir.Constant(g.value_type, ir.Undefined)
        return _ref(g)

    def scratch(self, elem, count: int) -> ir.Value:
        at = self.scratch_top
        self.scratch_top += _round(tile_bytes(elem, count))
        self.scratch_peak = max(self.scratch_peak, self.scratch_top)
        if self.dynamic:
            return self._at(self._dynamic_array(), self.named_total + at)
        return self._at(self._scratch_array(), at)

    def release_scratch(self, mark: int) -> None:
        self.scratch_top = mark

    # ---------------------------------------------------------------- totals
    def finish(self) -> None:
        """Size the scratch array now that every statement has taken what it needs."""
        if self._scratch is not None:
            self._scratch.value_type = ir.ArrayType(I8, max(self.scratch_peak, ALIGN))
            self._scratch.initializer = ir.Constant(self._scratch.value_type, ir.Undefined)

    @property
    def tile_bytes(self) -> int:
        return self.named_bytes + _round(self.scratch_peak)

    @property
    def dynamic_bytes(self) -> int:
        return self.tile_bytes if self.dynamic else 0

    # ---------------------------------------------------------------- helpers
    def _scratch_array(self):
        if self._scratch is None:
            g = ir.GlobalVariable(self.module, ir.ArrayType(I8, ALIGN), self._unique(f"__phobos_scratch_{self.kernel}"),
                                  addrspace=SHARED)
            g.linkage = "internal"
            g.align = ALIGN
            g.initializer = ir.Constant(g.value_type, ir.Undefined)
            self._scratch = g
        return self._scratch

    def _dynamic_array(self):
        if self._dyn is None:
            g = ir.GlobalVariable(self.module, ir.ArrayType(I8, 0), f"__phobos_dynamic_{self.kernel}",
                                  addrspace=SHARED)
            g.linkage = "external"
            g.align = ALIGN
            self._dyn = g
        return self._dyn

    def _at(self, g, offset: int) -> ir.Value:
        base = g.get_reference()
        if offset == 0:
            return ir.FormattedConstant(ir.PointerType(addrspace=SHARED), base)
        return ir.FormattedConstant(ir.PointerType(addrspace=SHARED),
                                    f"getelementptr inbounds (i8, ptr addrspace({SHARED}) {base}, i64 {offset})")

    def _unique(self, name: str) -> str:
        n, i = name, 1
        while n in self.module.globals:
            n = f"{name}.{i}"
            i += 1
        return n


def _ref(g: ir.GlobalVariable) -> ir.Value:
    return ir.FormattedConstant(ir.PointerType(addrspace=g.type.addrspace), g.get_reference())
