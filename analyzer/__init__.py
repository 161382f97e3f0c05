"""The Phobos front end and per-thread analysis. Public API: ``check_source``, ``check_file``."""

from .api import CheckResult, check_file, check_source

__all__ = ["CheckResult", "check_file", "check_source"]
