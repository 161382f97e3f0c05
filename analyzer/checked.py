"""What the checker hands on: the one interface the lowering, the simulator and the run API read.

``check_source``/``check_file`` here return a ``CheckedProgram``: the diagnostics, and for a file
whose names and types check, one ``CheckedKernel`` per kernel. A kernel carries what the
semantic pass found (its AST, the instance tree with every expression's type, binding and
operation class, its launch settings, parameters and extents), the kinds the analysis derived
(``kind_of``), the execution plan both back ends follow (``plan``: the barriers before CTA-wide
writes, the collectives that exchange data; LANGUAGE §6, §10) and the shared-memory plan
(``smem``) that ``phobos-check --arch`` counted.

Of the analyzer, lowering/ and simulator/ import only this module, ``analyzer.syntax.ast`` and
``analyzer.diagnostics.model`` (tests/architecture/test_architecture.py checks): what else they need of it is
re-exported below, so the analyzer's inside can change without them.
"""

from __future__ import annotations

from dataclasses import field
from functools import cached_property

from ..language.records import record
from . import api
from .analysis import KernelAnalysis
from .api import pause_gc, read_source, recursion_room
from .constants import affine, constant_of, int_op
from .diagnostics.model import ERROR, Diagnostic
from .diagnostics.text import render_text
from .facts.atoms import expr_kind
from .facts.schema import UNIFORM, VARYING, WARP_UNIFORM
from .sema.model import Binding, Instance, KernelInfo
from .smem import (ALIGN, FOLD, FOLD_SLOTS, ONCE, ONCE_SLOTS, PRODUCERS, STATIC_LIMIT,
                   SharedPlan, argument_key, plan_kernel, result_key, round_up, second_key, ahead_key, statement_key, tile_children,
                   tile_key)
from .syntax import ast as A
from .syntax.printer import expr as source_of


class CheckedKernel:
    """One kernel of a checked program: its semantic record and its analysis."""

    def __init__(self, info: KernelInfo, analysis: KernelAnalysis):
        self.info = info
        self.analysis = analysis

    # what the semantic pass recorded
    @property
    def name(self) -> str:
        return self.info.kernel.name

    @property
    def kernel(self) -> A.Kernel:
        return self.info.kernel

    @property
    def instance(self) -> Instance:
        """The kernel body's instance; every inlined call is an instance below it (``tree()``)."""
        return self.info.instance

    @property
    def params(self) -> list[Binding]:
        return self.info.params

    @property
    def extents(self) -> list[str]:
        return self.info.extents

    @property
    def threads(self) -> int:
        return self.info.threads

    @property
    def min_blocks(self) -> int | None:
        return self.info.min_blocks

    @property
    def max_regs(self) -> int | None:
        return self.info.max_regs

    @property
    def aligned(self) -> dict[str, int]:
        return self.info.aligned

    @property
    def constants(self) -> dict[str, object]:
        return self.info.constants

    # what the analysis derived
    def kind_of(self, expr, inst: Instance) -> int:
        """UNIFORM, WARP_UNIFORM or VARYING: the kind of ``expr`` evaluated in ``inst``."""
        return expr_kind(self.analysis, expr, inst)

    @property
    def plan(self):
        """The execution plan (analyzer/facts/plan.py) the lowering and the simulator both follow."""
        return self.analysis.plan

    @cached_property
    def smem(self) -> SharedPlan:
        """The shared-memory plan (analyzer/smem.py): the bytes PH211 counted, placed by the build."""
        return plan_kernel(self.info, self.analysis)


@record
class CheckedProgram:
    """A checked source: its diagnostics and, when its names and types check, its kernels."""

    path: str
    text: str | None
    diagnostics: list[Diagnostic]
    kernels: list[CheckedKernel] = field(default_factory=list)
    functions: dict = field(default_factory=dict)     # name -> A.Function
    result: api.CheckResult | None = None

    @property
    def ok(self) -> bool:
        return not any(d.severity == ERROR for d in self.diagnostics)

    @property
    def typed(self) -> bool:
        """Did names, types and shapes check (so the kernels exist, whatever the per-thread rules
        said)?"""
        return self.result is not None and self.result.semantics is not None and \
            len(self.kernels) == len(self.result.semantics.kernels)

    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == ERROR]

    def kernel(self, name: str) -> CheckedKernel | None:
        for k in self.kernels:
            if k.name == name:
                return k
        return None

    def render(self, diagnostics: list[Diagnostic] | None = None) -> str:
        """The diagnostics (all, or those given) in phobos-check's text format."""
        shown = self.diagnostics if diagnostics is None else diagnostics
        return "\n\n".join(render_text(d, self.path, self.text) for d in shown)

    @classmethod
    def of(cls, result: api.CheckResult) -> "CheckedProgram":
        kernels = []
        if result.semantics is not None and len(result.analyses) == len(result.semantics.kernels):
            kernels = [CheckedKernel(k, a) for k, a in zip(result.semantics.kernels, result.analyses)]
        functions = dict(result.semantics.functions) if result.semantics is not None else {}
        return cls(result.path, result.text, result.diagnostics, kernels, functions, result)


def check_source(data, path: str = "<input>", defines: dict | None = None, arch: str = "sm_90") -> CheckedProgram:
    """Check one source for ``arch`` (api.check_source) and hand on what it found."""
    # one configuration: each build or run fixes the @autotune names (their first values by default)
    return CheckedProgram.of(api.check_source(data, path, defines, arch, every_configuration=False))


def check_file(path, defines: dict | None = None, arch: str = "sm_90") -> CheckedProgram:
    """Read (at most 4 MiB + 1 byte) and check one file; OSError propagates (a usage error)."""
    return check_source(read_source(path), str(path), defines, arch)


def render_diagnostics(diagnostics: list[Diagnostic], path: str, text: str | None) -> str:
    """Diagnostics in phobos-check's text format, blank-line separated."""
    return "\n\n".join(render_text(d, path, text) for d in diagnostics)


__all__ = [
    # checking, and what it hands on
    "check_source", "check_file", "read_source", "CheckedProgram", "CheckedKernel", "render_diagnostics",
    "pause_gc", "recursion_room",
    # the kinds (CheckedKernel.kind_of) and the values of constant expressions
    "UNIFORM", "WARP_UNIFORM", "VARYING", "affine", "constant_of", "int_op", "source_of",
    # the shared-memory plan (CheckedKernel.smem) and the keys the lowering asks it by
    "SharedPlan", "ALIGN", "STATIC_LIMIT", "FOLD", "FOLD_SLOTS", "ONCE", "ONCE_SLOTS", "PRODUCERS",
    "round_up", "tile_key", "argument_key", "result_key", "statement_key", "second_key", "ahead_key", "tile_children",
]
