"""Timing GPU work the way ``triton.testing.do_bench`` does: CUDA events around each call on the
stream the work is queued on, a warm-up, then the median.

    from phobos_tools.bench import do_bench
    ms = do_bench(lambda: kernel(A, B, C, grid=grid, device="gpu"))

``do_bench(fn, warmup=25, rep=100)``: ``warmup`` and ``rep`` are budgets in milliseconds, as in
triton: a first estimate of one call's time decides how many calls each takes (at least one, at
most ``MAX_CALLS``). The warm-up calls are not timed; the result is the median of the timed ones,
in milliseconds. Pass device arrays to time the kernel alone: a call with numpy arrays copies
them to the device and back, and those copies are timed too.

A timer is any object with ``measure(fn, n) -> list[float]`` (milliseconds of each of ``n``
calls) and ``device`` (the GPU's name, which ``Kernel.autotune`` keys its cache by):
``EventTimer`` is the real one, through the CUDA driver (libcuda, by ctypes, so that it works
with whichever backend launched the work); the tests pass fakes.
"""

from __future__ import annotations

MAX_CALLS = 10_000          # calls of one phase (warm-up or timing), however fast the work is
ESTIMATE_CALLS = 5          # calls that estimate one call's time


class TimerError(RuntimeError):
    """No CUDA driver or context to time with (the message says which)."""


class EventTimer:
    """CUDA events, recorded on ``stream`` (a handle; 0, the default, is the legacy default
    stream) around each call; the calls' work must be queued on that stream."""

    def __init__(self, stream: int = 0):
        self.stream = int(stream or 0)
        self._lib = None

    def _cuda(self):
        if self._lib is None:
            import ctypes
            import ctypes.util
            try:
                self._lib = ctypes.CDLL(ctypes.util.find_library("cuda") or "libcuda.so.1")
            except OSError as e:
                raise TimerError(f"no CUDA driver to time with ({e})") from None
        return self._lib

    def _call(self, name: str, *args) -> None:
        err = getattr(self._cuda(), name)(*args)
        if err:
            raise TimerError(f"{name} failed with CUDA error {err} (is a kernel launched, so that a context "
                             "is current?)")

    @property
    def device(self) -> str:
        """The name of the current context's device."""
        import ctypes
        dev = ctypes.c_int()
        self._call("cuCtxGetDevice", ctypes.byref(dev))
        name = ctypes.create_string_buffer(256)
        self._call("cuDeviceGetName", name, 256, dev)
        return name.value.decode(errors="replace")

    def measure(self, fn, n: int) -> list[float]:
        import ctypes
        starts = [ctypes.c_void_p() for _ in range(n)]
        ends = [ctypes.c_void_p() for _ in range(n)]
        stream = ctypes.c_void_p(self.stream)
        try:
            for s, e in zip(starts, ends):
                self._call("cuEventCreate", ctypes.byref(s), 0)
                self._call("cuEventCreate", ctypes.byref(e), 0)
            for s, e in zip(starts, ends):
                self._call("cuEventRecord", s, stream)
                fn()
                self._call("cuEventRecord", e, stream)
            self._call("cuEventSynchronize", ends[-1])
            out = []
            ms = ctypes.c_float()
            for s, e in zip(starts, ends):
                self._call("cuEventElapsedTime", ctypes.byref(ms), s, e)
                out.append(float(ms.value))
            return out
        finally:
            for ev in starts + ends:
                if ev.value:
                    self._cuda().cuEventDestroy_v2(ev)


def do_bench(fn, warmup: float = 25, rep: float = 100, timer=None, stream: int = 0) -> float:
    """The median time of ``fn()`` in milliseconds (module docstring). ``timer``: an object
    like ``EventTimer`` (default: ``EventTimer(stream)``)."""
    import statistics       # here: phobos-run imports this module, and statistics costs its start-up
    for what, v in (("warmup", warmup), ("rep", rep)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            raise ValueError(f"{what} is a positive number of milliseconds, not {v!r}")
    timer = timer if timer is not None else EventTimer(stream)
    estimate = statistics.median(timer.measure(fn, ESTIMATE_CALLS))
    per_call = max(estimate, 1e-4)
    timer.measure(fn, _calls(warmup, per_call))
    return statistics.median(timer.measure(fn, _calls(rep, per_call)))


def _calls(budget_ms: float, per_call_ms: float) -> int:
    return max(1, min(MAX_CALLS, int(budget_ms / per_call_ms)))


__all__ = ["EventTimer", "TimerError", "do_bench", "MAX_CALLS"]
