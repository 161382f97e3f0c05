"""The Python API: load a `.ph` file, pick a kernel, call it on numpy arrays and a grid, on the
simulator (``device="sim"``) or the GPU (``device="gpu"``, through the lowering and its runtime).

    from phobos_tools.simulator import load
    matvec = load("examples/lanes_matvec.ph").kernel("lanes_matvec")
    matvec(W, x, y, grid=(N // 4,))             # y now holds W @ x

Arguments go positionally or by name, as the kernel lists its parameters; tensors are numpy
arrays of the parameter's dtype (``ml_dtypes.bfloat16`` for bf16), updated in place; runtime
extents come from their shapes.
"""

from __future__ import annotations

import numpy as np

from .errors import ArgumentError, ProgramRejected
from .launch import bind_arguments, normalize_grid, simulate
from .machine import Options

DEVICES = ("sim", "gpu")


class GPUUnavailable(RuntimeError):
    """``device="gpu"`` on a machine without a usable GPU (or before the lowering can build it)."""


def load(path, defines: dict | None = None, unchecked: bool = False) -> "Program":
    """Read and check a file. Raises ProgramRejected when it does not check; with ``unchecked``,
    only errors of the per-thread rules (PH3xx) are let through, so the simulator's dynamic checks
    can show them at run time."""
    from ..analyzer.api import read_source
    return loads(read_source(path), str(path), defines, unchecked)     # at most 4 MiB + 1 byte


def loads(source, path: str = "<input>", defines: dict | None = None, unchecked: bool = False) -> "Program":
    from ..analyzer import check_source
    defines = {k: str(v) for k, v in (defines or {}).items()}
    result = check_source(source, path, defines)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    blocking = [d for d in errors if not (unchecked and d.code.startswith("PH3"))]
    if blocking or result.semantics is None:
        n = len(blocking) or len(errors)
        raise ProgramRejected(f"{path} does not check ({n} error{'s' if n != 1 else ''})",
                              blocking or errors, path, result.text)
    return Program(path, result, defines, waived=errors)


class Program:
    """A checked file and its kernels."""

    def __init__(self, path: str, result, defines: dict, waived: list):
        self.path = path
        self.text = result.text
        self.check = result
        self.defines = defines
        self.waived = waived            # PH3xx errors run anyway under `unchecked`
        kernels = result.semantics.kernels
        analyses = result.analyses if len(result.analyses) == len(kernels) else [None] * len(kernels)
        self.kernels = {k.kernel.name: Kernel(self, k, a) for k, a in zip(kernels, analyses)}

    def kernel(self, name: str | None = None) -> "Kernel":
        if name is None:
            if len(self.kernels) != 1:
                raise ArgumentError(f"{self.path} has {len(self.kernels)} kernels "
                                    f"({', '.join(self.kernels) or 'none'}): name one")
            return next(iter(self.kernels.values()))
        if name not in self.kernels:
            raise ArgumentError(f"no kernel `{name}` in {self.path} (kernels: {', '.join(self.kernels) or 'none'})")
        return self.kernels[name]

    __getitem__ = kernel


class Kernel:
    def __init__(self, program: Program, info, analysis=None):
        self.program = program
        self.info = info
        self.analysis = analysis
        self.name = info.kernel.name
        self.threads = info.threads
        self._gpu = None

    @property
    def params(self) -> list[str]:
        return [p.name for p in self.info.params]

    def __call__(self, *args, grid, device: str = "sim", max_loop_iterations: int | None = None, **kwargs) -> None:
        if device not in DEVICES:
            raise ArgumentError(f"device is one of {', '.join(DEVICES)}, not {device!r}")
        if device == "gpu":
            return self._run_gpu(args, kwargs, grid)
        if max_loop_iterations is not None and (isinstance(max_loop_iterations, bool)
                                                or not isinstance(max_loop_iterations, (int, np.integer))
                                                or max_loop_iterations < 1):
            raise ArgumentError(f"max_loop_iterations is a positive integer, not {max_loop_iterations!r}")
        bound = bind_arguments(self.info, args, kwargs)
        options = Options() if max_loop_iterations is None else Options(int(max_loop_iterations))
        from ..analyzer.api import recursion_room
        with recursion_room():      # the machine recurses along the tree, as the checker does
            simulate(self.info, bound, normalize_grid(grid), options, self.program.path, self.program.text,
                     self.analysis)

    def _run_gpu(self, args, kwargs, grid) -> None:
        if self.program.waived:
            raise ArgumentError("a program that does not check runs on the simulator only")
        bind_arguments(self.info, args, kwargs)          # the same argument errors as the simulator
        grid = normalize_grid(grid)
        if self._gpu is None:
            self._gpu = _build_for_gpu(self)
        from ..lowering.runtime import LaunchError, _grid
        try:                                             # the runtime's own checks (CUDA's grid limits)
            _grid(grid)
            self._gpu.prepare(*args, **kwargs)
        except LaunchError as e:
            raise ArgumentError(str(e)) from None
        try:
            self._gpu(*args, grid=grid, **kwargs)
        except LaunchError as e:
            if "no GPU backend" in str(e):
                raise GPUUnavailable(f"no GPU available: {e}") from e
            raise


def _build_for_gpu(kernel: Kernel):
    try:
        from ..lowering.build import build_source
        from ..lowering.runtime import Kernel as GPUKernel
    except ImportError as e:
        raise GPUUnavailable(f"GPU runtime not built yet ({e})") from e
    built = build_source(kernel.program.text, kernel.program.path, kernel.program.defines, kernel=kernel.name)
    if not built.ok or not built.kernels:
        raise ProgramRejected(f"phobos-build cannot build `{kernel.name}`", [d for d in built.diagnostics
                                                                            if d.severity == "error"],
                              kernel.program.path, kernel.program.text)
    b = built.kernels[0]
    return GPUKernel(b.ptx, b.manifest)
