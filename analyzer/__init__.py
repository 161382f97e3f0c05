"""The Phobos front end and per-thread analysis. Public API: ``check_source`` (also ``check``) and
``check_file``; ``checked`` is what the lowering and the simulator read (docs/python-api.md)."""

from .api import ALL_LINTS, CheckResult, check_file, check_source

check = check_source

__all__ = ["ALL_LINTS", "CheckResult", "check", "check_file", "check_source"]
