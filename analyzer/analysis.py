"""The per-thread analysis of one checked program: for each kernel, its CFG, its facts, the
derived relations and the rules' diagnostics; plus every binding's kind (for ``--kinds``) and
the chain behind it (for ``--why``)."""

from __future__ import annotations

from dataclasses import field

from ..language.records import record
from .cfg import KernelCFG, build_cfg
from .diagnostics.model import Label
from .facts import Facts, extract
from .facts.derive import solve
from .facts.explain import chain_labels, chain_notes
from .facts.plan import make_plan
from .facts.schema import KIND_NAMES
from .rules import run as run_rules
from .sema import Binding, Instance, ProgramInfo
from ..language.types import Run, Scalar


@record(eq=False)
class KernelAnalysis:
    name: str
    cfg: KernelCFG
    facts: Facts
    bindings: list = field(default_factory=list)    # (Binding, Instance) for let/var/loop scalars and runs
    _plan: object = None

    @property
    def plan(self):
        """The execution plan the lowering and the simulator read (facts/plan.py), made on
        first use: checking alone never needs it."""
        if self._plan is None:
            self._plan = make_plan(self.facts)
        return self._plan

    def kind_of(self, b: Binding) -> int:
        return self.facts.derived.of(("b", b.uid))

    def why(self, b: Binding) -> list[Label]:
        labels, _ = chain_labels(self.facts, ("b", b.uid))
        return labels

    def why_notes(self, b: Binding) -> list[str]:
        """What ``--why`` adds under the chain: a `var` whose other assignments are less varying
        (LANGUAGE §9.1), a warp index written through `ctx.thread`."""
        return chain_notes(self.facts, ("b", b.uid), lane_level=True)


def analyze_kernel(kinfo) -> KernelAnalysis:
    """The CFG, facts and derived relations of one checked kernel (no rules run)."""
    cfg = build_cfg(kinfo)
    facts = extract(cfg)
    facts.derived = solve(facts)
    ka = KernelAnalysis(kinfo.kernel.name, cfg, facts)
    for inst in _instances(kinfo.instance):
        for b in inst.bindings:
            if b.kind in ("let", "var", "loop") and isinstance(b.type, (Scalar, Run)):
                ka.bindings.append((b, inst))
    return ka


def analyze_program(info: ProgramInfo, diagnostics: list) -> list[KernelAnalysis]:
    out = []
    for kinfo in info.kernels:
        ka = analyze_kernel(kinfo)
        diagnostics.extend(run_rules(ka.facts))
        out.append(ka)
    return out


def release(analyses: list[KernelAnalysis]) -> None:
    """Break the reference cycles of the analyses' instance trees (each inlined call's
    ``parent`` points back at the instance whose ``calls`` hold it), so that reference counting
    frees a checked file's trees, ASTs and facts at once, without the cyclic collector (which
    phobos-check keeps off). The analyses must not be used afterwards."""
    for ka in analyses:
        kernel = getattr(getattr(ka, "cfg", None), "kernel", None)
        root = getattr(kernel, "instance", None)
        if isinstance(root, Instance):
            for inst in _instances(root):
                inst.parent = None


def _instances(root: Instance):
    stack = [root]
    while stack:
        inst = stack.pop()
        yield inst
        stack.extend(reversed(list(inst.calls.values())))


def kinds_table(analyses: list[KernelAnalysis]) -> list[dict]:
    """The JSON `kinds` entries (DESIGN.md): kernel, name, line, column, kind; sorted."""
    rows = []
    for ka in analyses:
        for b, _inst in ka.bindings:
            rows.append({"kernel": ka.name, "name": b.name, "line": b.span.line, "column": b.span.column,
                         "kind": KIND_NAMES[ka.kind_of(b)]})
    rows.sort(key=lambda r: (r["line"], r["column"], r["kernel"], r["name"]))
    return rows
