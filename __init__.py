"""phobos-tools: a static analyzer and compiler for Phobos GPU kernels.

The repository's top-level folders install under this namespace, so users import
``phobos_tools.analyzer`` and nothing named ``cli`` or ``analyzer`` reaches the top of
site-packages.
"""

import functools


@functools.lru_cache(maxsize=None)
def package_version() -> str:
    """The installed version (pyproject.toml is the one place it is written). Read on demand:
    importing ``importlib.metadata`` costs tens of milliseconds, more than a small check."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("phobos-tools")
    except PackageNotFoundError:                 # pragma: no cover - run from a bare checkout
        return "0+unknown"


def __getattr__(name: str):
    if name == "__version__":
        return package_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
