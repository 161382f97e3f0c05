"""Shared memory of a kernel (LANGUAGE §10): each tile, scratch temporary and collective buffer
placed where the kernel's plan (analyzer/smem.py) says, and checked against it.

Two regions of tiles. **Named** tiles (``var`` tiles, materialized ``let``s, a call's computed
tile argument and tile result) live for the whole kernel. **Scratch** holds the temporaries of
one tile statement (a materialized ``rowmax``, the shared copy of a ``dot`` operand, ...): the
statement ends with a barrier, so the next statement's temporaries reuse the same bytes, and the
scratch region is as large as the largest statement needs. The collectives' buffers are static
arrays of their own.

Up to 48 KB in all, every named tile is its own ``.shared`` array (so LLVM sees that two tiles do
not alias) and the scratch region one more. Beyond 48 KB (the plan says which) both regions
become offsets into one ``.extern .shared`` array whose size the manifest reports as
``dynamic_shared_bytes`` and the runtime passes at launch.

The plan is what phobos-check counted against the target (PH211), so the lowering takes exactly
that: every allocation is asked for by its plan key and placed at the plan's offset, and what it
took (the named tiles, each statement's scratch, the buffers) must be what the plan lists, or the
build stops with internal error PH901 (a LoweringError) instead of running out of shared memory.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ..language.targets import TARGETS
from ..analyzer.checked import ALIGN, STATIC_LIMIT, round_up, statement_key
from .errors import LoweringError
from .ltypes import BYTES, I8, I64, SHARED, memory_ir

# Shared memory one CTA may use, per target (static + dynamic; CUDA's "max shared memory per
# block, opt-in"), read off the analyzer's table of targets.
TARGET_LIMIT = {arch: t.shared_per_block for arch, t in TARGETS.items()}


class SharedMemory:
    def __init__(self, module: ir.Module, kernel: str, plan):
        self.module = module
        self.kernel = kernel
        self.plan = plan
        self.dynamic = plan.dynamic
        self.named_taken: dict = {}      # plan key -> bytes, of the named tiles placed
        self.static_taken: dict = {}     # plan key -> bytes, of the collectives' buffers
        self.scratch_peak = 0            # the most scratch one statement took
        self._statements: list = []      # (StatementPlan, {key: bytes}) of the statements being lowered
        self._begun: set = set()
        self._scratch = None
        self._dyn = None
        self._buffers: dict = {}

    # ---------------------------------------------------------------- allocation
    def named(self, key, name: str, elem, count: int) -> ir.Value:
        """The named tile the plan lists under ``key`` (its own array, or its offset in the
        dynamic one)."""
        a = self.plan.named.get(key)
        size = round_up(BYTES[elem.name] * count)
        if a is None or a.bytes != size or key in self.named_taken:
            raise LoweringError(f"the tile `{name}` ({size:,} bytes) is not in the shared-memory plan "
                                f"({a.label if a is not None else 'no such tile'})")
        self.named_taken[key] = size
        if self.dynamic:
            return self._at(self._dynamic_array(), a.offset)
        g = ir.GlobalVariable(self.module, ir.ArrayType(memory_ir(elem), count),
                              self._unique(f"{name}_{self.kernel}"), addrspace=SHARED)
        g.linkage = "internal"
        g.align = ALIGN
        g.initializer = ir.Constant(g.value_type, ir.Undefined)
        return _ref(g)

    def begin(self, inst, stmt):
        """Enter a tile statement: its StatementPlan (what to fuse, materialize, copy)."""
        sp = self.plan.statements.get(statement_key(inst, stmt))
        if sp is None:
            raise LoweringError("a tile statement the shared-memory plan does not know", getattr(stmt, "span", None))
        self._begun.add(statement_key(inst, stmt))
        self._statements.append((sp, {}))
        return sp

    @property
    def current(self):
        """The plan of the tile statement being lowered."""
        return self._statements[-1][0]

    def scratch(self, key, elem, count: int) -> ir.Value:
        """The current statement's scratch tile ``key``, at the plan's offset. Every statement's
        temporaries start at offset 0: a statement runs the statements it inlines (its calls)
        before it takes any scratch, and each ends with a barrier."""
        sp, taken = self._statements[-1]
        a = sp.scratch.get(key)
        size = round_up(BYTES[elem.name] * count)
        if a is None or a.bytes != size or key in taken:
            raise LoweringError(f"a scratch tile of {size:,} bytes the shared-memory plan does not list")
        taken[key] = size
        if self.dynamic:
            return self._at(self._dynamic_array(), self.plan.named_bytes + a.offset)
        return self._at(self._scratch_array(), a.offset)

    def end(self) -> None:
        sp, taken = self._statements.pop()
        if set(taken) != set(sp.scratch):
            raise LoweringError(f"a tile statement took {len(taken)} scratch tiles where the shared-memory plan "
                                f"has {len(sp.scratch)}")
        self.scratch_peak = max(self.scratch_peak, sum(taken.values()))

    def static_buffer(self, key, name: str, slots: int) -> ir.Value:
        """A collective's buffer of ``slots`` i64 (``key`` smem.FOLD or smem.ONCE)."""
        g = self._buffers.get(key)
        if g is None:
            a = self.plan.static.get(key)
            if a is None or a.bytes != round_up(slots * 8):
                raise LoweringError(f"the buffer `{name}` is not in the shared-memory plan")
            self.static_taken[key] = a.bytes
            g = ir.GlobalVariable(self.module, ir.ArrayType(I64, slots), f"{name}_{self.kernel}", addrspace=SHARED)
            g.linkage = "internal"
            g.align = ALIGN
            g.initializer = ir.Constant(g.value_type, ir.Undefined)
            self._buffers[key] = g
        return _ref(g)

    # ---------------------------------------------------------------- totals
    def finish(self) -> None:
        """Size the scratch array by what the statements took, and hold what was taken against
        the plan (PH901 on any difference: the checker's PH211 counted the plan)."""
        if self._scratch is not None:
            self._scratch.value_type = ir.ArrayType(I8, max(self.scratch_peak, ALIGN))
            self._scratch.initializer = ir.Constant(self._scratch.value_type, ir.Undefined)
        plan = self.plan
        if (set(self.named_taken) != set(plan.named) or self.scratch_peak != plan.scratch_peak
                or set(self.static_taken) != set(plan.static) or self._statements):
            raise LoweringError(
                f"`{self.kernel}` took {self.named_bytes:,} bytes of named tiles, {self.scratch_peak:,} of scratch "
                f"and {self.static_bytes:,} of buffers; its shared-memory plan says {plan.named_bytes:,}, "
                f"{plan.scratch_peak:,} and {plan.static_bytes:,}")

    @property
    def named_bytes(self) -> int:
        return sum(self.named_taken.values())

    @property
    def static_bytes(self) -> int:
        return sum(self.static_taken.values())

    @property
    def tile_bytes(self) -> int:
        return self.named_bytes + round_up(self.scratch_peak)

    @property
    def dynamic_bytes(self) -> int:
        return self.tile_bytes if self.dynamic else 0

    @property
    def total(self) -> int:
        return self.tile_bytes + self.static_bytes

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


__all__ = ["SharedMemory", "STATIC_LIMIT", "TARGET_LIMIT", "ALIGN"]
