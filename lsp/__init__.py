"""``phobos-lsp``: the checker as a language server (DESIGN.md, "Language server").

The server (``server.py``, pygls over stdio) keeps each open document's latest check and answers
from it: diagnostics with their chains (``convert.py``), hovers and inlay hints with the kinds the
analysis derived (``describe.py``), definitions and symbols (``locate.py``), semantic tokens with
the kinds as modifiers (``semantic.py``). The Pygments lexer
(``lexer.py``) stands apart: it needs neither pygls nor the checker. Nothing here analyses
anything: every kind and chain comes from the checker's public interface and from the code that
prints ``phobos-check --kinds`` and ``--why``.
"""
