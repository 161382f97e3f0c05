"""Source lines for the PTX: LLVM debug locations that become ``.loc`` directives.

The compile unit asks for directives only (``DebugDirectivesOnly``, as clang's
``-gline-directives-only``): PTX gets ``.file`` and ``.loc`` lines but no DWARF sections and no
``debug`` target flag, so ptxas optimizes as usual, and with ``-lineinfo`` (or the driver's line
info JIT option) profilers and compute-sanitizer map SASS back to ``.ph`` lines.
"""

from __future__ import annotations

import os

import llvmlite.ir as ir


class DebugInfo:
    def __init__(self, module: ir.Module, source_path: str):
        self.module = module
        path = os.path.abspath(source_path) if source_path and not source_path.startswith("<") else source_path
        directory, filename = os.path.split(path or "<input>")
        self.file = module.add_debug_info("DIFile", {"filename": filename or "<input>", "directory": directory})
        self.unit = module.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_C"), "file": self.file, "producer": "phobos-build",
            "isOptimized": True, "runtimeVersion": 0,
            "emissionKind": ir.DIToken("DebugDirectivesOnly"),
        }, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        i32 = ir.IntType(32)
        flags = module.add_named_metadata("llvm.module.flags")
        flags.add(module.add_metadata([ir.Constant(i32, 2), ir.MetaDataString(module, "Debug Info Version"),
                                       ir.Constant(i32, 3)]))
        flags.add(module.add_metadata([ir.Constant(i32, 2), ir.MetaDataString(module, "Dwarf Version"),
                                       ir.Constant(i32, 4)]))
        self.subprogram = None
        self._locations: dict = {}

    def attach(self, fn: ir.Function, kernel) -> None:
        m = self.module
        sub_type = m.add_debug_info("DISubroutineType", {"types": m.add_metadata([])})
        line = kernel.span.line or 1
        self.subprogram = m.add_debug_info("DISubprogram", {
            "name": kernel.name, "scope": self.file, "file": self.file, "line": line, "type": sub_type,
            "scopeLine": line, "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": self.unit,
        }, is_distinct=True)
        fn.set_metadata("dbg", self.subprogram)

    def location(self, span):
        key = (span.line, span.column)
        loc = self._locations.get(key)
        if loc is None:
            loc = self.module.add_debug_info("DILocation", {"line": max(span.line, 0), "column": max(span.column, 0),
                                                            "scope": self.subprogram})
            self._locations[key] = loc
        return loc
