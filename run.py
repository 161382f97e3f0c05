"""Run Phobos kernels from Python: load a file, pick a kernel, call it on numpy arrays and a grid,
on the CPU simulator (``device="sim"``) or the GPU (``device="gpu"``).

    from phobos_tools.run import load
    matvec = load("examples/lanes_matvec.ph").kernel("lanes_matvec")
    matvec(W, x, y, grid=(N // 4,))                 # y now holds W @ x (on the simulator)
    matvec(W, x, y, grid=(N // 4,), device="gpu")   # built once, cached, launched

Arguments go positionally or by name, as the kernel lists its parameters, and are bound once,
by the binder the GPU runtime uses too (language/arguments.py): tensors are C-contiguous,
writeable numpy arrays of the parameter's dtype (``ml_dtypes.bfloat16`` for bf16), updated in
place, or on the GPU device arrays exposing ``__cuda_array_interface__``; runtime extents come
from their shapes. The GPU build goes through the build cache (lowering/cache.py), keyed by the
source, the kernel, the -D values, the target and the compiler's own sources.
"""

from __future__ import annotations

import numpy as np

from .analyzer.checked import CheckedKernel, CheckedProgram, check_source, read_source
from .language.arguments import ArgumentError, Bound, bind
from .lowering.build import DEFAULT_ARCH
from .lowering.cache import BuildFailed, build_cached_source
from .lowering.runtime import BadArguments, Kernel as GPUKernel, LaunchError, grid_of
from .simulator.errors import DynamicCheckFailed, ProgramRejected
from .simulator.launch import normalize_grid, params_of, simulate
from .simulator.machine import Options

DEVICES = ("sim", "gpu")


class GPUUnavailable(RuntimeError):
    """``device="gpu"`` on a machine without a usable GPU."""


def load(path, defines: dict | None = None, unchecked: bool = False, arch: str = DEFAULT_ARCH) -> "Program":
    """Read (at most 4 MiB + 1 byte) and check a file. Raises ProgramRejected when it does not
    check; with ``unchecked``, errors of the per-thread rules (PH3xx) are let through, so that the
    simulator's dynamic checks show them at run time. ``arch`` is the GPU target of
    ``device="gpu"``. OSError (missing, unreadable, not a file) propagates."""
    return loads(read_source(path), str(path), defines, unchecked, arch)


def loads(source, path: str = "<input>", defines: dict | None = None, unchecked: bool = False,
          arch: str = DEFAULT_ARCH) -> "Program":
    """``load`` for source text or bytes; ``path`` names it in messages."""
    defines = dict(defines or {})
    checked = check_source(source, path, defines, arch)
    errors = checked.errors()
    blocking = [d for d in errors if not (unchecked and d.code.startswith("PH3"))]
    if blocking or not checked.typed:
        n = len(blocking) or len(errors)
        raise ProgramRejected(f"{path} does not check ({n} error{'s' if n != 1 else ''})",
                              blocking or errors, path, checked.text)
    return Program(checked, source, defines, arch, waived=errors)


class Program:
    """A checked file and its kernels."""

    def __init__(self, checked: CheckedProgram, source, defines: dict, arch: str, waived: list):
        self.checked = checked
        self.path = checked.path
        self.text = checked.text
        self.source = source
        self.defines = defines
        self.arch = arch
        self.waived = waived            # PH3xx errors run anyway under `unchecked`
        self.kernels = {k.name: Kernel(self, k) for k in checked.kernels}

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
    """One kernel of a loaded program; call it to run it."""

    def __init__(self, program: Program, info: CheckedKernel):
        self.program = program
        self.info = info
        self.name = info.name
        self.threads = info.threads
        self._params = params_of(info)
        self._gpu: GPUKernel | None = None

    @property
    def params(self) -> list[str]:
        return [p.name for p in self._params]

    def bind(self, *args, device: str = "sim", **kwargs) -> Bound:
        """The arguments matched to the parameters and checked, as a call does (ArgumentError)."""
        _device(device)
        return bind(self.name, self._params, self.info.extents, args, kwargs, device_arrays=device == "gpu")

    def __call__(self, *args, grid, device: str = "sim", max_loop_iterations: int | None = None, stream=None,
                 **kwargs) -> None:
        """Run the kernel over ``grid`` (1 to 3 positive integers). Arrays are updated in place.
        Raises ArgumentError (arguments or grid that do not fit), DynamicCheckFailed (a check of
        the simulator fired), GPUUnavailable, ProgramRejected (the GPU build refused it) or
        LaunchError (the driver failed)."""
        bound = self.bind(*args, device=device, **kwargs)
        if device == "gpu":
            self._run_gpu(bound, grid, stream)
            return
        if max_loop_iterations is not None and (isinstance(max_loop_iterations, bool)
                                                or not isinstance(max_loop_iterations, (int, np.integer))
                                                or max_loop_iterations < 1):
            raise ArgumentError(f"max_loop_iterations is a positive integer, not {max_loop_iterations!r}")
        options = Options() if max_loop_iterations is None else Options(int(max_loop_iterations))
        simulate(self.info, bound, normalize_grid(grid), options, self.program.path, self.program.text)

    def _run_gpu(self, bound: Bound, grid, stream) -> None:
        if self.program.waived:
            raise ArgumentError("a program that does not check runs on the simulator only")
        grid = grid_of(grid)                             # CUDA's grid limits (BadArguments)
        gpu = self._gpu_kernel()
        prepared = gpu.prepared(bound)                   # the @aligned promises (BadArguments)
        try:
            gpu.launch(prepared, grid, stream)
        except BadArguments:
            raise
        except LaunchError as e:
            if "no GPU backend" in str(e):
                raise GPUUnavailable(f"no GPU available: {e}") from e
            raise

    def _gpu_kernel(self) -> GPUKernel:
        if self._gpu is None:
            p = self.program
            try:
                ptx, manifest = build_cached_source(p.source, p.path, self.name, p.defines, p.arch)
            except BuildFailed as e:
                raise ProgramRejected(f"phobos-build cannot build `{self.name}`", e.diagnostics, p.path,
                                      p.text) from None
            self._gpu = GPUKernel(ptx, manifest)
        return self._gpu


def _device(device) -> None:
    if device not in DEVICES:
        raise ArgumentError(f"device is one of {', '.join(DEVICES)}, not {device!r}")


__all__ = ["DEVICES", "ArgumentError", "DynamicCheckFailed", "GPUUnavailable", "Kernel", "LaunchError",
           "Program", "ProgramRejected", "load", "loads"]
