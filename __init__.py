"""phobos-tools: a static analyzer and compiler for Phobos GPU kernels.

The repository's top-level folders install under this namespace, so users import
``phobos_tools.analyzer`` and nothing named ``cli`` or ``analyzer`` reaches the top of
site-packages.
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("phobos-tools")     # pyproject.toml is the one place it is written
except PackageNotFoundError:                   # pragma: no cover - run from a bare checkout
    __version__ = "0+unknown"
