"""The semantic pass: names, types, shapes, attributes and operation classes (LANGUAGE §1-§8).

``analyze(program, defines, diagnostics)`` checks a parsed program and returns its
``ProgramInfo``; checker.py holds the program-level checks, context.py the state the parts share,
and declarations.py, statements.py, expressions.py and builtins.py the parts; model.py the records
the pass produces.
"""

from .checker import analyze, parse_defines
from .model import RESERVED, Binding, Instance, KernelInfo, ProgramInfo, Scope

__all__ = ["analyze", "parse_defines", "RESERVED", "Binding", "Instance", "KernelInfo", "ProgramInfo", "Scope"]
