"""Source lines for the PTX: LLVM debug locations that become ``.loc`` directives.

The compile unit asks for directives only (``DebugDirectivesOnly``, as clang's
``-gline-directives-only``): PTX gets ``.file`` and ``.loc`` lines but no DWARF sections and no
``debug`` target flag, so ptxas optimizes as usual, and with ``-lineinfo`` (or the driver's line
info JIT option) profilers and compute-sanitizer map SASS back to ``.ph`` lines.

The ``.file`` directive names the source by its absolute path, which may hold any byte but `/`
and NUL. LLVM prints it with `"` escaped as `\"`, which ptxas does not read, and llvmlite cannot
encode a name that is not UTF-8 (a file system name, surrogate-escaped). So LLVM is given the
path with those characters replaced (``llvm_path``), and the directive in the PTX is rewritten
from the path's own bytes, every byte outside printable ASCII, `"` and `\\` as an octal escape,
which ptxas reads (``fix_file_directives``).
"""

from __future__ import annotations

import os
import re

import llvmlite.ir as ir


class DebugInfo:
    def __init__(self, module: ir.Module, source_path: str):
        self.module = module
        self.path = source_path_of(source_path)
        directory, filename = os.path.split(llvm_path(self.path))
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


def source_path_of(source_path: str | None) -> str:
    """The path the PTX names: absolute for a file, as given for ``<stdin>`` and the like."""
    if source_path and not source_path.startswith("<"):
        return os.path.abspath(source_path)
    return source_path or "<input>"


def llvm_path(path: str) -> str:
    """``path`` as LLVM is given it: `"` (which LLVM's PTX printer escapes in a way ptxas does
    not read) and what is not UTF-8 (surrogate escapes) replaced; the PTX gets the real bytes
    back from ``fix_file_directives``."""
    return "".join("?" if ch == '"' or "\ud800" <= ch <= "\udfff" else ch for ch in path)


def path_bytes(path: str) -> bytes:
    """The bytes of a path as the file system has them (a surrogate-escaped name gives back its
    own bytes)."""
    try:
        return os.fsencode(path)
    except UnicodeError:
        return path.encode("utf-8", "backslashreplace")


def ptx_string(data: bytes) -> str:
    """``data`` as a PTX string literal: printable ASCII as it is, `"`, `\\` and every other byte
    as a three-digit octal escape."""
    return '"' + "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:03o}" for b in data) + '"'


_FILE_DIRECTIVE = re.compile(r'^([ \t]*\.file[ \t]+\d+[ \t]+)"(?:[^"\\\n]|\\.)*"', re.M)


def fix_file_directives(ptx: str, path: str) -> str:
    """The PTX with the string of each ``.file`` directive (the module has one file, the
    source) written from ``path``'s bytes."""
    literal = ptx_string(path_bytes(path))
    return _FILE_DIRECTIVE.sub(lambda m: m.group(1) + literal, ptx)
