"""Which optional part of the install a command needs, when a module of it is missing.

The core install is the checker; ``phobos-build`` needs the ``build`` extra (llvmlite), ``phobos-run``
and the Python API the ``run`` extra (numpy, ml_dtypes). A command started without its extra
says which one to install and exits 2 (a usage error), never a traceback.
"""

from __future__ import annotations

import sys

from .common import EXIT_USAGE

# the top-level module -> the extra of pyproject.toml that installs it
EXTRA_OF = {"llvmlite": "build", "numpy": "run", "ml_dtypes": "run"}


def missing_extra(error: ModuleNotFoundError) -> str | None:
    """The extra that installs the module ``error`` names, or None for another module."""
    return EXTRA_OF.get((error.name or "").partition(".")[0])


def message(prog: str, error: ModuleNotFoundError) -> str:
    module = (error.name or "").partition(".")[0]
    extra = missing_extra(error)
    return (f"{prog}: error: {prog} needs {module}, which is not installed; install the `{extra}` extra: "
            f"pip install 'phobos-tools[{extra}]'")


def refuse(prog: str, error: ModuleNotFoundError) -> int:
    """Print the one line and return the usage status."""
    sys.stderr.write(message(prog, error) + "\n")
    return EXIT_USAGE
