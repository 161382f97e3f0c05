"""``Kernel.autotune`` (run.py): time every ``@autotune`` configuration of a kernel on the GPU and
keep the fastest, cached on disk per (kernel, device, key), as triton's ``autotune(configs, key)``
does.

Each configuration (the product of the lists ``-D``/``defines`` leave open, LANGUAGE §2) is
checked and built as ``defines`` plus its values, launched on the caller's arguments over
``grid(config)`` and timed by ``bench.do_bench`` (CUDA events, warm-up, median; the function timed
carries the configuration as ``.config``). A configuration
that cannot be built or launched (too much shared memory for the device, say) is left out, with
its reason in ``Tuned.failed``. The winner is written to ``CACHE/autotune/HASH.json``, where
CACHE is the build cache's folder (``PHOBOS_CACHE_DIR``, else ``$XDG_CACHE_HOME/phobos-tools``,
else ``~/.cache/phobos-tools``) and HASH covers the source, the kernel, the fixed defines, the
target, the device's name and ``key`` (any value JSON or ``repr`` can write: the shapes the
tuning holds for, say). A later call with the same of all those reads it back instead of timing.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import field
from itertools import product
from pathlib import Path

from .analyzer.autotune import choices, label
from .language.records import record
from .bench import EventTimer, do_bench
from .language.arguments import ArgumentError
from .lowering.runtime import LaunchError, stream_handle
from .simulator.errors import ProgramRejected

CACHE_VERSION = 1


@record
class Tuned:
    """The outcome of ``Kernel.autotune``: call it as the kernel (``device="gpu"``)."""

    config: dict                                   # the fastest configuration's values
    kernel: object                                 # the run.Kernel built with them
    timings: dict = field(default_factory=dict)    # configuration label -> median ms (empty from the cache)
    failed: dict = field(default_factory=dict)     # configuration label -> why it was left out
    cached: bool = False                           # read from the cache, not timed

    def __call__(self, *args, **kwargs):
        kwargs.setdefault("device", "gpu")
        return self.kernel(*args, **kwargs)


def cache_root() -> Path:
    """The build cache's folder (lowering/cache.py's rule, repeated here so that tuning does not
    import the lowering)."""
    explicit = os.environ.get("PHOBOS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "phobos-tools"


def configurations(kernel) -> list[dict]:
    """The configurations of a run.Kernel's ``@autotune`` that its program's defines leave open."""
    names = choices(kernel.info.kernel, kernel.program.defines)
    if not names:
        return []
    return [dict(zip([n for n, _ in names], combo)) for combo in product(*(v for _, v in names))]


def autotune(kernel, args: tuple, kwargs: dict, *, load, grid, key, stream, warmup, rep, timer, cache: bool) -> Tuned:
    """``load(config) -> run.Kernel`` builds a configuration's kernel (module docstring)."""
    configs = configurations(kernel)
    if not configs:
        raise ArgumentError(f"`{kernel.name}` has no `@autotune` configuration left to choose from (its defines fix "
                            "every name, or it has no `@autotune`)")
    handle = stream_handle(stream) if stream is not None else 0
    if timer is None:
        # the CUDA events need a context: the first configuration's backend makes one current
        try:
            load(configs[0])._gpu_kernel().backend()
        except LaunchError as e:
            raise ArgumentError(f"autotune needs a GPU: {e}") from None
        timer = EventTimer(handle)
    path = cache_root() / "autotune" / f"{_hash(kernel, timer.device, key)}.json"
    if cache:
        hit = _read(path, configs)
        if hit is not None:
            return Tuned(hit, load(hit), cached=True)
    timings, failed = {}, {}
    for config in configs:
        name = label(config)
        try:
            k = load(config)
            g = grid(config) if callable(grid) else grid
            k.bind(*args, device="gpu", **kwargs)         # the arguments fit this configuration
            timings[name] = do_bench(_launcher(k, args, kwargs, g, stream, config), warmup, rep, timer=timer,
                                     stream=handle)
        except (ProgramRejected, LaunchError, ArgumentError) as e:
            failed[name] = f"{type(e).__name__}: {e}"
    if not timings:
        raise LaunchError(f"no configuration of `{kernel.name}` ran: " +
                          "; ".join(f"{n}: {why}" for n, why in failed.items()))
    best_name = min(timings, key=timings.get)
    best = next(c for c in configs if label(c) == best_name)
    if cache:
        _write(path, {"version": CACHE_VERSION, "kernel": kernel.name, "device": timer.device, "key": _text(key),
                      "config": best, "timings_ms": timings})
    return Tuned(best, load(best), timings, failed)


def _launcher(k, args, kwargs, grid, stream, config):
    """The call ``do_bench`` times; it carries ``.config`` (the configuration), for timers that
    want to know what they time."""
    def launch():
        k(*args, grid=grid, device="gpu", stream=stream, **kwargs)
    launch.config = dict(config)
    return launch


def _text(key) -> str:
    return json.dumps(key, sort_keys=True, default=repr)


def _hash(kernel, device: str, key) -> str:
    p = kernel.program
    source = p.source.encode() if isinstance(p.source, str) else bytes(p.source)
    material = json.dumps({"source": hashlib.sha256(source).hexdigest(), "kernel": kernel.name,
                           "defines": {k: p.defines[k] for k in sorted(p.defines)}, "arch": p.arch,
                           "device": device, "key": _text(key)}, sort_keys=True, default=repr)
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def _read(path: Path, configs: list[dict]) -> dict | None:
    """The cached winner, when the file is ours and names a configuration that still exists."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or data.get("config") not in configs:
        return None
    return dict(data["config"])


def _write(path: Path, data: dict) -> None:
    """Atomically; a cache that cannot be written costs the next call a tuning, nothing else."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass
