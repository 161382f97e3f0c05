"""phobos-tools: a static analyzer and compiler for Phobos GPU kernels.

The repository's top-level folders install under this namespace, so users import
``phobos_tools.analyzer`` and nothing named ``cli`` or ``analyzer`` reaches the top of
site-packages.
"""

__version__ = "0.1.0"
