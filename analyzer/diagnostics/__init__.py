"""Diagnostics: the data model every stage reports with, and its renderers."""

from .model import Diagnostic, Edit, Fix, Label, Span, SpecRef, ERROR, WARNING, NOTE
from .codes import CODES, code_name

__all__ = ["Diagnostic", "Edit", "Fix", "Label", "Span", "SpecRef", "ERROR", "WARNING", "NOTE", "CODES", "code_name"]
