"""The CPU reference simulator: runs a checked Phobos kernel over a grid on numpy arrays, every
CTA's threads in lockstep under an active mask, and reports with file:line:col, CTA and threads
what the per-thread rules exist to prevent (see README, "Running kernels").

Public API: ``load``/``loads`` a program, pick a ``kernel``, call it with arrays and a ``grid``.
"""

from .api import DEVICES, GPUUnavailable, Kernel, Program, load, loads
from .errors import ArgumentError, DynamicCheckFailed, ProgramRejected
from .machine import Options

__all__ = ["DEVICES", "ArgumentError", "DynamicCheckFailed", "GPUUnavailable", "Kernel", "Options",
           "Program", "ProgramRejected", "load", "loads"]
