"""The lowering: a program that ``phobos-check`` accepts -> LLVM IR (llvmlite) -> PTX, plus the
launch manifest (DESIGN.md), and the GPU runtime that launches the result.

``build_file``/``build_source`` (build.py) are the compiler's API; ``runtime`` (runtime.py)
launches PTX and a manifest and imports neither the analyzer nor llvmlite. Heavy modules
(llvmlite, pycuda) load only when used.
"""

from __future__ import annotations


def build_file(*args, **kwargs):
    from .build import build_file as _build_file
    return _build_file(*args, **kwargs)


def build_source(*args, **kwargs):
    from .build import build_source as _build_source
    return _build_source(*args, **kwargs)


__all__ = ["build_file", "build_source"]
