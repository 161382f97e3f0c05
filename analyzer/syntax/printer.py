"""AST -> Phobos source. Parsing the output gives an equal AST (spans aside).

Parentheses are added exactly where precedence needs them (LANGUAGE §6): a child binds less
tightly than its parent, or equally on the right of a left-associative operator, or equally on
either side of a (non-associative) comparison.
"""

from __future__ import annotations

from . import ast as A

# Binding strength, tightest highest (LANGUAGE §6, Rust's order).
PRECEDENCE = {
    "||": 1, "&&": 2,
    "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
    "|": 4, "^": 5, "&": 6, "<<": 7, ">>": 7, "+": 8, "-": 8, "*": 9, "/": 9, "%": 9,
}
UNARY_PREC = 10
POSTFIX_PREC = 11
COMPARISONS = {"==", "!=", "<", "<=", ">", ">="}
INDENT = "  "


def _prec(e) -> int:
    if isinstance(e, A.Binary):
        return PRECEDENCE[e.op]
    if isinstance(e, A.Unary):
        return UNARY_PREC
    if isinstance(e, (A.IntLit, A.FloatLit)) and e.value < 0:
        return UNARY_PREC          # prints with a leading `-`
    return POSTFIX_PREC


def expr(e) -> str:
    if isinstance(e, A.IntLit):
        return ("-" if e.value < 0 else "") + e.text
    if isinstance(e, A.FloatLit):
        return ("-" if e.value < 0 or str(e.value).startswith("-") else "") + e.text
    if isinstance(e, A.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.CtxPath):
        return e.text
    if isinstance(e, A.Member):
        base = _wrap(e.value, POSTFIX_PREC)
        if isinstance(e.value, (A.IntLit, A.FloatLit)):
            base = f"({expr(e.value)})"            # `1.x` would lex as the number `1.`
        return f"{base}.{e.attr}"
    if isinstance(e, A.Unary):
        inner = _wrap(e.operand, UNARY_PREC)
        # `- -x` rather than `--x`, and `-(5)` must not fold into a literal when reparsed
        if e.op == "-" and (inner.startswith("-") or isinstance(e.operand, (A.IntLit, A.FloatLit))):
            inner = f"({expr(e.operand)})" if isinstance(e.operand, (A.IntLit, A.FloatLit)) else " " + inner
        return e.op + inner
    if isinstance(e, A.Binary):
        p = PRECEDENCE[e.op]
        cmp = e.op in COMPARISONS
        lhs = _wrap(e.lhs, p, strict=cmp)
        rhs = _wrap(e.rhs, p, strict=True)
        return f"{lhs} {e.op} {rhs}"
    if isinstance(e, A.Call):
        return f"{e.func}({', '.join(expr(a) for a in e.args)})"
    if isinstance(e, A.GenericCall):
        param = expr(e.param)
        if _prec(e.param) < PRECEDENCE["+"]:     # the parameter is an additive expression (§6)
            param = f"({param})"
        return f"{e.func}<{e.mode} {param}>({', '.join(expr(a) for a in e.args)})"
    if isinstance(e, A.Index):
        return f"{_wrap(e.base, POSTFIX_PREC)}[{', '.join(subscript(s) for s in e.subs)}]"
    raise TypeError(f"not an expression: {type(e).__name__}")


def _wrap(e, parent: int, strict: bool = False) -> str:
    p = _prec(e)
    text = expr(e)
    if p < parent or (strict and p == parent):
        return f"({text})"
    return text


def subscript(s) -> str:
    if isinstance(s, A.Point):
        return expr(s.index)
    if isinstance(s, A.SpanSub):
        return f"{expr(s.start)} :+ {expr(s.length)}"
    lo = "" if s.lo is None else expr(s.lo) + " "
    hi = "" if s.hi is None else " " + expr(s.hi)
    if s.lo is None:
        return ":" if s.hi is None else f":{expr(s.hi)}"
    return f"{lo}:{hi}".rstrip()


def type_expr(t: A.TypeExpr) -> str:
    if t.kind == "scalar":
        return t.elem
    dims = ", ".join(d.name if isinstance(d, A.DimName) else str(d.value) for d in t.dims)
    return f"{t.kind}<{t.elem}>[{dims}]"


def _attr_value(v) -> str:
    return expr(v)


def attribute(a: A.Attribute) -> str:
    if not a.has_parens:
        return f"@{a.name}"
    parts = []
    for arg in a.args:
        if arg.choices is not None:
            parts.append(f"{arg.name} in [{', '.join(expr(c) for c in arg.choices)}]")
        elif arg.name is not None:
            parts.append(f"{arg.name} = {_attr_value(arg.value)}")
        else:
            parts.append(_attr_value(arg.value))
    return f"@{a.name}({', '.join(parts)})"


def stmt(s, depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    if isinstance(s, A.Let):
        t = f": {type_expr(s.type)}" if s.type is not None else ""
        out.append(f"{pad}let {s.name}{t} = {expr(s.value)}")
    elif isinstance(s, A.Var):
        t = f": {type_expr(s.type)}" if s.type is not None else ""
        v = f" = {expr(s.value)}" if s.value is not None else ""
        out.append(f"{pad}var {s.name}{t}{v}")
    elif isinstance(s, A.Assign):
        out.append(f"{pad}{expr(s.target)} {s.op} {expr(s.value)}")
    elif isinstance(s, A.If):
        _if(s, depth, out, pad)
    elif isinstance(s, A.For):
        unroll = f"<{s.unroll_word} {expr(s.unroll)}>" if s.unroll is not None else ""
        out.append(f"{pad}for{unroll} {s.var} in {s.range_name}({', '.join(expr(a) for a in s.args)}) {{")
        block_body(s.body, depth + 1, out)
        out.append(pad + "}")
    elif isinstance(s, A.While):
        out.append(f"{pad}while {expr(s.cond)} {{")
        block_body(s.body, depth + 1, out)
        out.append(pad + "}")
    elif isinstance(s, A.Break):
        out.append(pad + "break")
    elif isinstance(s, A.Continue):
        out.append(pad + "continue")
    elif isinstance(s, A.Return):
        out.append(pad + ("return" if s.value is None else f"return {expr(s.value)}"))
    elif isinstance(s, A.ExprStmt):
        out.append(pad + expr(s.expr))
    else:
        raise TypeError(f"not a statement: {type(s).__name__}")


def _if(s: A.If, depth: int, out: list[str], pad: str, prefix: str = "") -> None:
    out.append(f"{pad if not prefix else ''}{prefix}if {expr(s.cond)} {{")
    block_body(s.then, depth + 1, out)
    if s.orelse is None:
        out.append(pad + "}")
    elif isinstance(s.orelse, A.If):
        out.append(pad + "} else ")
        last = out.pop()
        _if(s.orelse, depth, out, pad, prefix=last)
    else:
        out.append(pad + "} else {")
        block_body(s.orelse, depth + 1, out)
        out.append(pad + "}")


def block_body(b: A.Block, depth: int, out: list[str]) -> None:
    for s in b.stmts:
        stmt(s, depth, out)


def params(ps) -> str:
    return ", ".join(f"{p.name}: {type_expr(p.type)}" for p in ps)


def program(p: A.Program) -> str:
    """The whole program as source text, two-space indented, one item per paragraph."""
    out: list[str] = []
    for i, item in enumerate(p.items):
        if i:
            out.append("")
        if isinstance(item, A.Kernel):
            for a in item.attrs:
                out.append(attribute(a))
            out.append(f"kernel {item.name}({params(item.params)}) {{")
        else:
            ret = f" -> {type_expr(item.ret)}" if item.ret is not None else ""
            out.append(f"fn {item.name}({params(item.params)}){ret} {{")
        block_body(item.body, 1, out)
        out.append("}")
    return "\n".join(out) + "\n"
