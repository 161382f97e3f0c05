"""Putting a fake module in ``sys.modules`` for a test, and taking it out again: shared by
fake_pycuda.py and fake_cupy.py."""

from __future__ import annotations

import sys


def swap_in(modules, saved: dict) -> None:
    """Install each ``(name, module)``, keeping in ``saved`` what stood under the name before."""
    for name, mod in modules:
        saved.setdefault(name, sys.modules.get(name))
        sys.modules[name] = mod


def swap_out(saved: dict) -> None:
    """Put back what ``swap_in`` replaced (removing the names that were not there)."""
    for name, mod in saved.items():
        if mod is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = mod
    saved.clear()
