"""The names the lowering puts in PTX, and the kernel names the API accepts.

A Phobos name is ASCII letters, digits and `_`, not starting with a digit (analyzer/syntax/
tokens.py). PTX is stricter in two places: an identifier that starts with `_` needs a second
character, so `_` alone is not one, and `WARP_SZ` is a name PTX predefines. A kernel whose name
PTX cannot take gets the entry symbol ``NAME$``: `$` may appear in a PTX identifier but never in
a Phobos name, so the symbol can equal no other name in the module (tiles, the lowering's own
globals and LLVM's ``SYMBOL_param_N`` are all made of Phobos names). Every other kernel's symbol
is its name unchanged. The manifest's ``entry`` is the symbol, which the runtime hands to the
driver to find the kernel (docs/output-formats.md).

The other symbols the lowering makes from source names need nothing: shared tiles and buffers
are ``NAME_UID_KERNEL`` (longer than one character, never a predefined name), and parameters are
named by LLVM (``SYMBOL_param_N``).
"""

from __future__ import annotations

import re

# Identifiers PTX reserves that a Phobos name can spell (the others start with `%` or `.`);
# checked against ptxas 13 by tests/hostile/test_buildable.py.
PTX_RESERVED = frozenset({"WARP_SZ"})

_PTX_IDENTIFIER = re.compile(r"(?:[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+)\Z")
_PHOBOS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_kernel_name(name) -> bool:
    """Is ``name`` a name the language allows for a kernel (its spelling: reserved words are the
    checker's to refuse)? The build cache checks it before it forms any path."""
    return isinstance(name, str) and _PHOBOS_NAME.match(name) is not None


def is_ptx_identifier(name: str) -> bool:
    return _PTX_IDENTIFIER.match(name) is not None and name not in PTX_RESERVED


def entry_symbol(kernel: str) -> str:
    """The PTX symbol of the kernel named ``kernel``: the name, or ``NAME$`` when PTX cannot
    take the name itself."""
    return kernel if is_ptx_identifier(kernel) else kernel + "$"


__all__ = ["PTX_RESERVED", "entry_symbol", "is_kernel_name", "is_ptx_identifier"]
