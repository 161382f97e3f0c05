"""A one-line progress bar for long simulator runs: CTAs done out of those simulated, the time so
far and an estimate of the time left, redrawn in place on a terminal.

It appears only once the run has taken ``PHOBOS_PROGRESS_AFTER`` seconds (default 1), so short
runs print nothing, and only on a terminal (the caller checks, ``Progress.wanted``). A thread
redraws it a few times a second, so that the elapsed time moves while one large batch of CTAs
runs; the estimate comes from the batches finished so far. ``close`` erases the line.
"""

from __future__ import annotations

import os
import threading
import time

AFTER_ENV = "PHOBOS_PROGRESS_AFTER"
DEFAULT_AFTER = 1.0                # seconds before the bar appears
REDRAW = 0.25                      # seconds between redraws
WIDTH = 24                         # characters of the bar itself


def wanted(stream) -> bool:
    """Is ``stream`` a terminal (where a bar redrawn in place makes sense)?"""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _after() -> float:
    text = os.environ.get(AFTER_ENV, "")
    try:
        v = float(text)
    except ValueError:
        return DEFAULT_AFTER
    return v if v >= 0 and v == v else DEFAULT_AFTER


def _duration(s: float) -> str:
    if s < 60:
        return f"{s:.0f} s"
    m, s = divmod(int(s + 0.5), 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


class Progress:
    """``update(done)`` after each batch; ``close()`` at the end (also after an error)."""

    def __init__(self, stream, total: int, label: str = "simulating"):
        self.stream = stream
        self.total = max(int(total), 1)
        self.label = label
        self.done = 0
        self.start = time.monotonic()
        self.after = _after()
        self.drawn = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="phobos-progress", daemon=True)
        self._thread.start()

    def update(self, done: int) -> None:
        self.done = int(done)
        self._draw()

    def line(self, now: float | None = None) -> str:
        """The bar's text at ``now`` (time.monotonic())."""
        elapsed = (time.monotonic() if now is None else now) - self.start
        done, total = self.done, self.total
        filled = WIDTH * done // total
        bar = "#" * filled + "-" * (WIDTH - filled)
        if done == 0:
            eta = "ETA unknown"
        elif done >= total:
            eta = "done"
        else:
            eta = f"ETA {_duration(elapsed / done * (total - done))}"
        return f"{self.label} [{bar}] {done:,}/{total:,} CTAs, {_duration(elapsed)}, {eta}"

    def _draw(self) -> None:
        if time.monotonic() - self.start < self.after or self._stop.is_set():
            return
        with self._lock:
            try:
                self.stream.write("\r\x1b[K" + self.line())
                self.stream.flush()
            except (OSError, ValueError):
                self._stop.set()
                return
            self.drawn = True

    def _tick(self) -> None:
        while not self._stop.wait(REDRAW):
            self._draw()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        with self._lock:
            if self.drawn:
                try:
                    self.stream.write("\r\x1b[K")
                    self.stream.flush()
                except (OSError, ValueError):
                    pass
                self.drawn = False
