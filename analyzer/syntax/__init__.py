"""Lexer, grammar, parser, AST and printer for Phobos source (LANGUAGE §1-§7)."""

from .parser import parse

__all__ = ["parse"]
