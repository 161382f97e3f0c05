"""Run Phobos kernels from Python: load a file, pick a kernel, call it on numpy arrays and a grid,
on the CPU simulator (``device="sim"``) or the GPU (``device="gpu"``).

    from phobos_tools.run import load
    matvec = load("examples/lanes_matvec.ph").kernel("lanes_matvec")
    matvec(W, x, y, grid=(N // 4,))                 # y now holds W @ x (on the simulator)
    matvec(W, x, y, grid=(N // 4,), device="gpu")   # built once, cached, launched

Arguments go positionally or by name, as the kernel lists its parameters, and are bound once,
by the binder the GPU runtime uses too (language/arguments.py): tensors are C-contiguous,
writeable numpy arrays of the parameter's dtype (``ml_dtypes.bfloat16`` for bf16), updated in
place, or on the GPU device arrays exposing ``__cuda_array_interface__`` or ``__dlpack__`` (torch,
cupy, jax; launched asynchronously on ``stream=``, lowering/runtime.py); runtime extents come
from their shapes. The GPU build goes through the build cache (lowering/cache.py), keyed by the
source, the kernel, the -D values, the target and the compiler's own sources.
"""

from __future__ import annotations

import sys

import numpy as np

from .analyzer.checked import CheckedKernel, CheckedProgram, check_source, read_source
from .language.arguments import ArgumentError, Bound, bind
from .language.targets import DEFAULT_TARGET as DEFAULT_ARCH
from .lowering.runtime import BadArguments, Kernel as GPUKernel, LaunchError, grid_of, stream_handle
from .simulator.errors import DynamicCheckFailed, ProgramRejected
from .simulator.launch import cta_range, normalize_grid, params_of, simulate, written
from .simulator.machine import Options
from .simulator.progress import Progress, wanted
from .tuning import Tuned, autotune

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
                                    f"({', '.join(self.kernels) or 'none'}): name one "
                                    "(`-k NAME` on the command line, `.kernel(NAME)` in Python)")
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

    def bind(self, *args, device: str = "sim", stream=None, **kwargs) -> Bound:
        """The arguments matched to the parameters and checked, as a call does (ArgumentError).
        On the GPU, DLPack producers are asked for their tensors on ``stream`` (None: the legacy
        default stream)."""
        _device(device)
        handle = None
        if device == "gpu" and stream is not None:
            try:
                handle = stream_handle(stream)
            except LaunchError as e:
                raise ArgumentError(str(e)) from None
        return bind(self.name, self._params, self.info.extents, args, kwargs, device_arrays=device == "gpu",
                    stream=handle)

    def __call__(self, *args, grid, device: str = "sim", max_loop_iterations: int | None = None, stream=None,
                 max_steps: int | None = None, ctas=None, progress: bool = False, **kwargs) -> None:
        """Run the kernel over ``grid`` (1 to 3 positive integers). Arrays are updated in place.
        On the simulator, ``max_loop_iterations`` bounds each loop and ``max_steps`` the whole
        launch (simulator/machine.py's defaults; past either, PH405); ``ctas`` simulates part of
        the grid: the first N CTAs for an integer N, CTAs A to B - 1 (block order, x fastest) for
        a pair (A, B); ``progress=True`` draws a progress bar on stderr when it is a terminal and
        the run takes more than about a second. Raises ArgumentError
        (arguments or grid that do not fit), DynamicCheckFailed (a check of the simulator fired),
        GPUUnavailable, ProgramRejected (the GPU build refused it) or LaunchError (the driver
        failed)."""
        bound = self.bind(*args, device=device, stream=stream, **kwargs)
        if device == "gpu":
            if ctas is not None:
                raise ArgumentError("ctas= simulates part of a grid: it is for device=\"sim\" only")
            self._run_gpu(bound, grid, stream)
            return
        for what, v in (("max_loop_iterations", max_loop_iterations), ("max_steps", max_steps)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1):
                raise ArgumentError(f"{what} is a positive integer, not {v!r}")
        options = Options()
        if max_loop_iterations is not None:
            options.max_loop_iterations = int(max_loop_iterations)
        if max_steps is not None:
            options.max_steps = int(max_steps)
        grid = normalize_grid(grid)
        bar = None
        if progress and wanted(sys.stderr):
            first, stop = cta_range(grid, ctas)
            bar = Progress(sys.stderr, stop - first, label=f"simulating `{self.name}`")
        try:
            simulate(self.info, bound, grid, options, self.program.path, self.program.text, ctas,
                     None if bar is None else lambda done, _total: bar.update(done))
        finally:
            if bar is not None:
                bar.close()

    def autotune(self, *args, grid, key=None, device: str = "gpu", stream=None, warmup: float = 25, rep: float = 100,
                 timer=None, cache: bool = True, **kwargs) -> Tuned:
        """Time every ``@autotune`` configuration the program's defines leave open on the GPU, on
        these arguments, and return the fastest as a ``tuning.Tuned`` (call it as the kernel).
        ``grid``: a grid, or a function of the configuration (a dict of its values) giving one;
        ``key``: what the choice holds for (shapes, say): the winner is cached on disk per
        (kernel, device, key) and read back by later calls (``cache=False``: neither read nor
        written). ``warmup``/``rep``: milliseconds, as ``bench.do_bench`` takes them; ``timer``:
        a ``bench.EventTimer``-like object. The simulator's times say nothing about the GPU's, so
        ``device="sim"`` is refused (ArgumentError)."""
        if device == "sim":
            raise ArgumentError("autotune times each configuration on the GPU: the simulator's times say nothing "
                                "about a GPU's; call it with device=\"gpu\", or choose a configuration with "
                                "defines= (phobos-run -D) to simulate it")
        _device(device)
        if self.program.waived:
            raise ArgumentError("a program that does not check runs on the simulator only")
        p = self.program

        def load_config(config: dict) -> "Kernel":
            return loads(p.source, p.path, {**p.defines, **config}, arch=p.arch).kernel(self.name)

        return autotune(self, args, kwargs, load=load_config, grid=grid, key=key, stream=stream, warmup=warmup,
                        rep=rep, timer=timer, cache=cache)

    def _run_gpu(self, bound: Bound, grid, stream) -> None:
        if self.program.waived:
            raise ArgumentError("a program that does not check runs on the simulator only")
        grid = grid_of(grid)                             # CUDA's grid limits (BadArguments)
        gpu = self._gpu_kernel()
        prepared = gpu.prepared(bound)                   # @aligned promises, read-only arrays (BadArguments)
        try:
            gpu.launch(prepared, grid, stream, bound)     # queued on `stream`; waits only for numpy copies
        except BadArguments:
            raise
        except LaunchError as e:
            if "no GPU backend" in str(e):
                raise GPUUnavailable(f"no GPU available: {e}") from e
            raise

    def _gpu_kernel(self) -> GPUKernel:
        if self._gpu is None:
            p = self.program
            # the lowering (llvmlite) is imported only when a kernel goes to the GPU, so a run on
            # the simulator starts without it (tests/architecture allows this one lazy import)
            try:
                from .lowering.cache import BuildFailed, build_cached_source
            except ModuleNotFoundError as e:
                if (e.name or "").partition(".")[0] != "llvmlite":
                    raise
                raise GPUUnavailable("device=\"gpu\" builds the kernel with llvmlite, which is not installed; "
                                     "install the `build` extra: pip install 'phobos-tools[build]'") from None
            try:
                ptx, manifest = build_cached_source(p.source, p.path, self.name, p.defines, p.arch)
            except BuildFailed as e:
                raise ProgramRejected(f"phobos-build cannot build `{self.name}`", e.diagnostics, p.path,
                                      p.text) from None
            # the tensors the kernel may store into: a read-only device array there is refused
            self._gpu = GPUKernel(ptx, manifest, writes=sorted(written(self.info.instance)[1]))
        return self._gpu


def _device(device) -> None:
    if device not in DEVICES:
        raise ArgumentError(f"device is one of {', '.join(DEVICES)}, not {device!r}")


__all__ = ["DEVICES", "ArgumentError", "DynamicCheckFailed", "GPUUnavailable", "Kernel", "LaunchError",
           "Program", "ProgramRejected", "Tuned", "load", "loads"]
