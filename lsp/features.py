"""The answers the server gives, as plain functions of one finished check (``Checked``): hover,
inlay hints, definition, document symbols and code actions. ``server.py`` wires them to LSP
requests; tests call them directly on every prefix of a document, where half-typed code must
get an answer or nothing, never an exception.
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass

from lsprotocol import types as T

from ..analyzer import ALL_LINTS, check_source
from ..analyzer.checked import CheckedProgram
from ..analyzer.diagnostics.model import Diagnostic, Span
from ..analyzer.syntax import ast as A
from ..cli.common import UsageError
from ..cli.config import Configs, lints_enabled, merged_defines
from ..language.builtins import BUILTINS
from ..language.targets import DEFAULT_TARGET
from .convert import code_actions, lsp_diagnostic, lsp_range
from .describe import Analysed, builtin_line, ctx_line
from .locate import called_name_at, declaration_at, innermost_expression, name_span_of, node_path
from .text import UTF16, Lines

log = logging.getLogger("phobos-lsp")


@dataclass
class Checked:
    """One finished check: the text it read and everything answered from it."""

    generation: int
    lines: Lines
    analysed: Analysed
    published: list[tuple[Diagnostic, T.Diagnostic]]
    problem: str | None = None        # the configuration file could not be used: why


def check_text(text: str, path: str, uri: str, generation: int = 0, arch: str | None = None,
               defines: dict[str, str] | None = None, encoding: str = UTF16) -> Checked:
    """Check one document's text (the server does it in a worker thread) as ``phobos-check``
    checks the file: with its configuration (`[tool.phobos]` or `phobos.toml` above ``path``;
    ``arch`` and ``defines`` win over it, as flags do) and every `@autotune` configuration. A bug
    in the checker becomes PH900 at 1:1, as in ``phobos-check``."""
    arch, defines, lints, problem = _configured(path, arch, defines or {})
    try:
        result = check_source(text, path, defines, arch, lints)
        checked = CheckedProgram.of(result)
        analysed = Analysed(checked)
    except Exception as exc:   # noqa: BLE001
        log.error("internal error checking %s:\n%s", path, traceback.format_exc())
        checked = CheckedProgram(path, text, [Diagnostic(
            "PH900", f"internal error: {type(exc).__name__}: {exc}", Span(1, 1, 1, 1),
            notes=["this is a bug in phobos-tools, not in your program: please report it with this file"])])
        analysed = Analysed(checked)
    lines = Lines(text, encoding)
    published = [(d, lsp_diagnostic(d, uri, lines)) for d in checked.diagnostics]
    return Checked(generation, lines, analysed, published, problem)


def _configured(path: str, arch: str | None, defines: dict[str, str]):
    """(arch, defines, lints, a problem with the configuration file or None) for one document."""
    try:
        config = Configs().for_file(path)
    except (UsageError, OSError, ValueError) as exc:
        # checked as without any configuration: every lint, as phobos-check --isolated
        return arch or DEFAULT_TARGET, dict(defines), ALL_LINTS, f"{exc}; checking without it"
    return (arch or config.arch or DEFAULT_TARGET, merged_defines(config, defines),
            lints_enabled(config, None, None, path), None)


# ---- hover
def hover(checked: Checked, position: T.Position) -> T.Hover | None:
    line, column = checked.lines.from_client(position.line, position.character)
    analysed = checked.analysed
    path = node_path(analysed.where.program, line, column)
    if not path:
        return None
    text, span = _hover_text(analysed, path, line, column)
    if text is None:
        return None
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text), lsp_range(checked.lines, span))


def _hover_text(analysed: Analysed, path: list, line: int, column: int):
    item = path[0]
    for node in reversed(path):
        if isinstance(node, A.CtxPath):
            return ctx_line(node), node.span
    call = called_name_at(path, line, column)
    if call is not None:
        span = call.func_span if isinstance(call, A.Call) else call.head_span
        function = analysed.where.functions().get(call.func)
        if function is not None:
            params = ", ".join(f"{p.name}: {type_text(p.type)}" for p in function.params)
            ret = f" -> {type_text(function.ret)}" if function.ret is not None else ""
            return f"`fn {function.name}({params}){ret}`: inlined at each call (LANGUAGE §2)", span
        if call.func in BUILTINS:
            return builtin_line(call.func, isinstance(call, A.GenericCall)), span
    decl = declaration_at(path, line, column)
    if decl is not None:
        found = analysed.where.declared(item, decl)
        if found:
            return analysed.binding_hover(found[0][0], declared_here=True), name_span_of(decl)
    expr = innermost_expression(path)
    if isinstance(expr, A.Name):
        found = analysed.where.resolved(item, expr)
        # a let, var or loop variable: its kind and chain, as on its declaration; a scalar
        # parameter falls through to the expression's kind (in a function, per call site)
        if found and (found[0][0].kind in ("let", "var", "loop") or not found[0][0].is_scalar_or_run):
            return analysed.binding_hover(found[0][0], declared_here=False), expr.span
    if expr is not None:
        text = analysed.expression_hover(item, expr)
        if text is not None:
            return text, expr.span
    return None, None


def type_text(t: A.TypeExpr) -> str:
    if t.kind == "scalar":
        return t.elem
    dims = ", ".join(d.name if isinstance(d, A.DimName) else str(d.value) for d in t.dims)
    return f"{t.kind}<{t.elem}>[{dims}]"


# ---- inlay hints
def inlay_hints(checked: Checked, first_line: int = 0, last_line: int = 1 << 31) -> list[T.InlayHint]:
    """The kind after every binding's name, and the control kind before every CTA-wide
    operation whose control is not uniform, on lines ``first_line..last_line`` (0-based)."""
    hints = []
    for (line, column), label, tip in checked.analysed.kind_hints():
        pos = T.Position(*checked.lines.to_client(line, column))
        if first_line <= pos.line <= last_line:
            hints.append(T.InlayHint(pos, label, kind=T.InlayHintKind.Type, tooltip=tip))
    for (line, column), label, tip in checked.analysed.control_hints():
        pos = T.Position(*checked.lines.to_client(line, column))
        if first_line <= pos.line <= last_line:
            hints.append(T.InlayHint(pos, label, kind=T.InlayHintKind.Parameter, tooltip=tip, padding_right=True))
    hints.sort(key=lambda h: (h.position.line, h.position.character))
    return hints


# ---- definition
def definition(checked: Checked, uri: str, position: T.Position) -> T.Location | None:
    """Where a name use's binding (a `let`, `var`, loop variable or parameter) or a called
    function is declared."""
    line, column = checked.lines.from_client(position.line, position.character)
    where = checked.analysed.where
    path = node_path(where.program, line, column)
    if not path:
        return None
    target = None
    call = called_name_at(path, line, column)
    functions = where.functions()
    if call is not None and call.func in functions:
        target = functions[call.func].name_span
    else:
        expr = innermost_expression(path)
        if isinstance(expr, A.Name):
            found = where.resolved(path[0], expr)
            if found:
                b = found[0][0]
                target = Span(b.span.line, b.span.column, b.span.line, b.span.column + len(b.name))
    if target is None:
        return None
    return T.Location(uri, lsp_range(checked.lines, target))


# ---- document symbols
def document_symbols(checked: Checked) -> list[T.DocumentSymbol]:
    """The kernels and functions, each with its parameters."""
    program = checked.analysed.where.program
    if program is None:
        return []
    lines = checked.lines
    out = []
    for item in program.items:
        params = [T.DocumentSymbol(p.name, T.SymbolKind.Variable, lsp_range(lines, p.span),
                                   lsp_range(lines, Span(p.span.line, p.span.column, p.span.line,
                                                         p.span.column + len(p.name))),
                                   detail=type_text(p.type))
                  for p in item.params]
        detail = "kernel" if isinstance(item, A.Kernel) else "fn"
        out.append(T.DocumentSymbol(item.name, T.SymbolKind.Function, lsp_range(lines, item.span),
                                    lsp_range(lines, item.name_span), detail=detail, children=params))
    return out


# ---- code actions
def quick_fixes(checked: Checked, uri: str, wanted: T.Range) -> list[T.CodeAction]:
    """The fixes of the diagnostics that touch ``wanted``."""
    actions = []
    for diag, published in checked.published:
        r = published.range
        if (r.end.line, r.end.character) < (wanted.start.line, wanted.start.character) or \
                (r.start.line, r.start.character) > (wanted.end.line, wanted.end.character):
            continue
        actions.extend(code_actions(diag, published, uri, checked.lines))
    return actions
