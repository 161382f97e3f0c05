"""The CPU reference simulator: runs a checked Phobos kernel over a grid on numpy arrays, every
CTA's threads in lockstep under an active mask, and reports with file:line:col, CTA and threads
what the per-thread rules exist to prevent (docs/simulator.md).

``launch.simulate(kernel, bound, grid)`` runs an analyzer.checked.CheckedKernel on arguments bound
by language/arguments.py; the Python API over it (and over the GPU) is ``phobos_tools.run``.
"""

from .errors import ArgumentError, DynamicCheckFailed, ProgramRejected
from .launch import bind_arguments, simulate
from .machine import Options

__all__ = ["ArgumentError", "DynamicCheckFailed", "Options", "ProgramRejected", "bind_arguments", "simulate"]
