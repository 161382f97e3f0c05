"""Source text -> Program AST: our tokenizer feeds lark's LALR tables, and the AST is built
directly by the transformer lark wires to each rule (no intermediate parse tree).

lark generates the LALR(1) tables from phobos.lark once; tables.py caches them as plain data
(with each rule's `?rule` inlining and `[..]` placeholders), so a check imports no lark at all
once the cache holds the grammar. ``_drive`` below is the shift/reduce loop over them. It
replaces lark's own loop, which costs several times more per token (its rule names are
``Token``s whose ``__eq__`` runs on every table lookup).

Errors are recovered at statement level: the statement holding a syntax error is cut out of the
token stream and parsing restarts, so one file can report several errors. Every problem becomes a
Diagnostic; nothing here raises for bad input.
"""

from __future__ import annotations

from functools import lru_cache

from ..diagnostics.model import Diagnostic, Edit, Fix, Label, Span
from . import ast as A
from ...language.builtins import BUILTINS
from ...language.types import C_TYPES, SCALARS, an
from . import tables as _lalr
from .tokens import GENERIC_MODES, KEYWORDS, PUNCT, LexStats, Tok, generic_parts, int_value, tokenize



MAX_ERRORS = 25
MAX_NESTING = 1000  # blocks and expressions nested deeper than this are refused (PH008)


def _span(first, last) -> Span:
    """The span from the start of ``first`` to the end of ``last`` (tokens or nodes)."""
    if isinstance(first, Tok):
        line, column = first.line, first.column
    else:
        line, column = first.span[0], first.span[1]
    if isinstance(last, Tok):
        return _new_span(Span, (line, column, last.line, last.end_column))
    b = last.span
    return _new_span(Span, (line, column, b[2], b[3]))


def _tok_span(t: Tok) -> Span:
    return _new_span(Span, (t.line, t.column, t.line, t.end_column))


# Span(a, b, c, d) without the named tuple's Python-level __new__ (the parser makes one per node).
_new_span = tuple.__new__


def _lit_int(tok: Tok, negative: bool = False, minus: Tok | None = None) -> A.IntLit:
    v = int_value(tok.value)
    return A.IntLit(-v if negative else v, tok.value, _span(minus or tok, tok))


def _lit_float(tok: Tok, negative: bool = False, minus: Tok | None = None) -> A.FloatLit:
    v = float(tok.value)
    return A.FloatLit(-v if negative else v, tok.value, _span(minus or tok, tok))


def _bare_literal(e):
    """The literal class of ``e`` when it is a number literal as written (not in parentheses)."""
    t = type(e)
    if t is A.IntLit or t is A.FloatLit:
        a = e.span
        if a[0] == a[2] and a[3] - a[1] == len(e.text):
            return t
    return None


class _Build:
    """Inline callbacks: each receives the rule's children and returns an AST node."""

    # ---- literals and atoms
    def lit_int(self, c):
        return _lit_int(c[0])

    def lit_negint(self, c):
        return _lit_int(c[1], True, c[0])

    def lit_float(self, c):
        t = c[0]
        return A.FloatLit(float(t.value), t.value, _new_span(Span, (t.line, t.column, t.line, t.end_column)))

    def lit_negfloat(self, c):
        return _lit_float(c[1], True, c[0])

    def lit_true(self, c):
        return A.BoolLit(True, _tok_span(c[0]))

    def lit_false(self, c):
        return A.BoolLit(False, _tok_span(c[0]))

    def name(self, c):
        t = c[0]
        return A.Name(t.value, _new_span(Span, (t.line, t.column, t.line, t.end_column)))

    def paren(self, c):
        e = c[1]
        if type(e) is A.IntLit or type(e) is A.FloatLit:
            # a literal in parentheses spans them: `-(2147483648)` is a minus before a
            # parenthesized expression, not before a literal, and does not fold (see unary)
            return type(e)(e.value, e.text, _span(c[0], c[2]))
        return e

    # ---- operators
    def binary(self, c):
        lhs, op, rhs = c
        if not isinstance(op, Tok):       # cmp_op subtree: a list holding the token
            op = op[0]
        a, b = lhs.span, rhs.span
        return A.Binary(op.value, lhs, rhs, _new_span(Span, (a[0], a[1], b[2], b[3])))

    def cmp_op(self, c):
        return c

    def unary(self, c):
        op, operand = c
        # LANGUAGE §1: a `-` before a literal folds into it (so -2147483648 is an i32); not
        # before a literal in parentheses (whose span is wider than its text, see paren)
        if op.value == "-" and _bare_literal(operand) is A.IntLit and operand.value >= 0:
            return A.IntLit(-operand.value, operand.text, _span(op, operand))
        if op.value == "-" and _bare_literal(operand) is A.FloatLit and not operand.text.startswith("-") \
                and operand.value >= 0 and not _is_negzero(operand):
            return A.FloatLit(-operand.value, operand.text, _span(op, operand))
        return A.Unary(op.value, operand, _span(op, operand))

    # ---- postfix
    def index(self, c):
        base, _, subs, rb = c
        return A.Index(base, tuple(subs), _span(base, rb))

    def member(self, c):
        base, _, attr = c
        span = _span(base, attr)
        if isinstance(base, A.Name) and base.id == "ctx":
            return A.CtxPath((attr.value,), span)
        if isinstance(base, A.CtxPath):
            return A.CtxPath(base.path + (attr.value,), span)
        return A.Member(base, attr.value, span)

    def call(self, c):
        name, _, args, rp = c
        return A.Call(name.value, tuple(args), _span(name, rp), _tok_span(name))

    def generic_call(self, c):
        head, param, gt, _, args, rp = c
        func, mode = generic_parts(head.value)
        return A.GenericCall(func, mode, param, tuple(args), _span(head, rp), _span(head, gt))

    # ---- subscripts
    def sub_point(self, c):
        return A.Point(c[0], c[0].span)

    def sub_full(self, c):
        return A.Range(None, None, _tok_span(c[0]))

    def sub_upto(self, c):
        return A.Range(None, c[1], _span(c[0], c[1]))

    def sub_range(self, c):
        return A.Range(c[0], c[2], _span(c[0], c[2]))

    def sub_span(self, c):
        return A.SpanSub(c[0], c[2], _span(c[0], c[2]))

    def sub_open(self, c):
        # `A[i:]` parses so that the error can say exactly what is wrong (LANGUAGE §7).
        return A.Range(c[0], None, _span(c[0], c[1]))

    # ---- types
    def type_scalar(self, c):
        t = c[0]
        return A.TypeExpr("scalar", t.value, (), _tok_span(t), _tok_span(t))

    def type_shaped(self, c):
        kind, _, elem = c[0], c[1], c[2]
        dims = tuple(c[5])
        return A.TypeExpr(kind.value, elem.value, dims, _span(kind, c[-1]), _tok_span(elem))

    def dim(self, c):
        t = c[0]
        if t.type == "INT":
            return A.DimInt(int_value(t.value), _tok_span(t))
        return A.DimName(t.value, _tok_span(t))

    # ---- statements
    def items_new(self, c):
        return []

    def items_keep(self, c):
        return c[0]

    def items_add(self, c):
        c[0].append(c[1])
        return c[0]

    def params(self, c):            # `params: param_list` (the other forms are aliased)
        return c[0]

    args = attr_args = params

    def list_one(self, c):
        return [c[0]]

    def list_add(self, c):          # list COMMA item
        c[0].append(c[2])
        return c[0]


    def block(self, c):
        lb, stmts, last, rb = c
        if last is not None:
            stmts.append(last)
        return A.Block(tuple(stmts), _span(lb, rb))

    def let_stmt(self, c):
        let, name, _colon, typ, _eq, value = c
        return A.Let(name.value, typ, value, _span(let, value), _tok_span(name))

    def var_stmt(self, c):
        var, name, _colon, typ, _eq, value = c
        return A.Var(name.value, typ, value, _span(var, value if value is not None else typ),
                     _tok_span(name))

    def var_untyped(self, c):
        var, name, _eq, value = c
        return A.Var(name.value, None, value, _span(var, value), _tok_span(name))

    def assign_stmt(self, c):
        target, op, value = c
        a, b = target.span, value.span
        return A.Assign(target, op.value, value, _new_span(Span, (a[0], a[1], b[2], b[3])))

    def if_stmt(self, c):
        kw, cond, then, _else, orelse = c
        return A.If(cond, then, orelse, _span(kw, orelse if orelse is not None else then))

    def for_stmt(self, c):
        kw, _lt, word, unroll, _gt, var, _in, rng, _lp, args, _rp, body = c
        return A.For(var.value, rng.value, tuple(args), body, unroll, _span(kw, body),
                     _tok_span(var), _tok_span(rng), word.value if word is not None else "unroll")

    def while_stmt(self, c):
        kw, cond, body = c
        return A.While(cond, body, _span(kw, body))

    def break_stmt(self, c):
        return A.Break(_tok_span(c[0]))

    def continue_stmt(self, c):
        return A.Continue(_tok_span(c[0]))

    def return_stmt(self, c):
        kw, value = c
        return A.Return(value, _span(kw, value if value is not None else kw))

    def expr_stmt(self, c):
        return A.ExprStmt(c[0], c[0].span)

    # ---- top level
    def attr_choices(self, c):
        name = c[0]
        return A.AttrArg(name.value, None, tuple(c[3]), _span(name, c[-1]))

    def attr_named(self, c):
        name, _, value = c
        return A.AttrArg(name.value, value, None, _span(name, value))

    def attr_plain(self, c):
        return A.AttrArg(None, c[0], None, c[0].span)


    def attribute(self, c):
        at, name, lp, args, rp = c
        return A.Attribute(name.value, tuple(args) if args is not None else (), _span(at, rp or name),
                           lp is not None)


    def param(self, c):
        name, _, typ = c
        return A.Param(name.value, typ, _span(name, typ))

    def kernel(self, c):
        attrs, kw, name, _lp, params, _rp, body = c
        start = attrs[0] if attrs else kw
        return A.Kernel(tuple(attrs), name.value, tuple(params), body, _span(start, body), _tok_span(name))

    def function(self, c):
        kw, name, _lp, params, _rp, _arrow, ret, body = c
        return A.Function(name.value, tuple(params), ret, body, _span(kw, body), _tok_span(name))

    def start(self, c):
        items = tuple(c[0])
        span = _span(items[0], items[-1]) if items else Span(1, 1, 1, 1)
        return A.Program(items, span)


def _is_negzero(lit: A.FloatLit) -> bool:
    return lit.value == 0.0 and str(lit.value).startswith("-")


class _Tables:
    """The LALR tables (tables.py) recast for a tight loop: per state, token type ->
    (shift?, target) where a reduce's target is (size, callback, nonterminal name)."""

    def __init__(self, data: dict):
        build = _Build()
        reduce_info = [(size, _callback(build, size, method, expand1, include, append_none), origin)
                       for size, method, expand1, include, append_none, origin in data["rules"]]
        self.states = {state: {sym: (True, arg) if shift else (False, reduce_info[arg])
                               for sym, (shift, arg) in row.items()}
                       for state, row in data["states"].items()}
        self.start = data["start"]
        self.end = data["end"]
        # (state below, state on top, lookahead) -> the state on top once the unit `?rule`
        # reductions that this lookahead triggers are done, filled as the parser meets them: an
        # operand climbs about ten precedence levels that way, one lookup instead of ten.
        self.unit_runs: dict = {}
        # (state below, nonterminal, lookahead) -> the state on top after the goto on that
        # nonterminal and the unit reductions that follow it: a reduction and its climb in one.
        self.goto_runs: dict = {}

    def unit_run(self, key: tuple) -> int:
        below, top, ttype = key
        states = self.states
        act = states[top].get(ttype)
        while act is not None and not act[0] and act[1][1] is None:
            top = states[below][act[1][2]][1]
            act = states[top].get(ttype)
        self.unit_runs[key] = top
        return top

    def goto_run(self, key: tuple) -> int:
        below, origin, ttype = key
        top = self.states[below][origin][1]
        top = self.unit_run((below, top, ttype))
        self.goto_runs[key] = top
        return top


def _callback(build: _Build, size: int, method: str, expand1: bool, include, append_none: int):
    """The reduce callback of one rule (see tables.py for the fields); None for a one-symbol
    `?rule` alternative, which passes its child through unchanged (the loop only swaps the
    state, leaving the value in place)."""
    if expand1 and include is None and size == 1:
        return None
    f = getattr(build, method)
    if include is None:
        return f
    def filtered(children, include=include, tail=[None] * append_none, f=f, expand1=expand1):
        out = []
        for i, nones in include:
            if nones:
                out += [None] * nones
            out.append(children[i])
        if tail:
            out += tail
        if expand1 and len(out) == 1:
            return out[0]
        return f(out)
    return filtered


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    return _Tables(_lalr.load({name for name in dir(_Build) if not name.startswith("_")}))


class _ParseError(Exception):
    def __init__(self, token: Tok, expected: set[str]):
        self.token = token
        self.expected = expected


def _drive(tables: _Tables, tokens: list[Tok], end: Tok):
    """The LALR(1) shift/reduce loop. Raises _ParseError at the first token it cannot take."""
    states = tables.states
    end_state = tables.end
    state_stack = [tables.start]
    value_stack: list = []
    push_state = state_stack.append
    push_value = value_stack.append
    unit_runs = tables.unit_runs
    goto_runs = tables.goto_runs
    top = state_stack[-1]
    for tok in tokens:
        ttype = tok.type
        act = states[top].get(ttype)
        while act is not None and not act[0]:        # reductions, then the shift below
            size, callback, origin = act[1]
            if callback is None:                     # unit `?rule`s: the value passes through
                key = (state_stack[-2], top, ttype)
                top = unit_runs.get(key)
                if top is None:
                    top = tables.unit_run(key)
                state_stack[-1] = top
            else:
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                push_value(callback(children))
                key = (state_stack[-1], origin, ttype)
                top = goto_runs.get(key)
                if top is None:
                    top = tables.goto_run(key)
                push_state(top)
            act = states[top].get(ttype)
        if act is None:
            raise _ParseError(tok, {k for k in states[top] if k.isupper()})
        top = act[1]
        push_state(top)
        push_value(tok)
    while True:
        act = states[state_stack[-1]].get("$END")
        if act is None:
            raise _ParseError(end, {k for k in states[state_stack[-1]] if k.isupper()})
        size, callback, origin = act[1]
        if callback is None:
            state_stack[-1] = states[state_stack[-2]][origin][1]
        else:
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            push_value(callback(children))
            push_state(states[state_stack[-1]][origin][1])
        if state_stack[-1] == end_state:
            return value_stack[-1]


# ------------------------------------------------------------------ errors and recovery

_DESCRIBE = {
    "NAME": "a name", "INT": "an integer", "FLOAT": "a float", "GENERIC": "a generic call",
    "SEMI": "the end of the statement", "$END": "the end of the file",
}
_CMP = {"EQEQ", "NE", "LT", "LE", "GT", "GE"}


def _describe(tok: Tok) -> str:
    if tok.type == "SEMI" and tok.value == "":
        return "a line break (which ends the statement here)"
    if tok.type in ("NAME", "INT", "FLOAT"):
        return f"`{tok.value}`"
    if tok.type == "GENERIC":
        return f"`{tok.value}`"
    return _DESCRIBE.get(tok.type, f"`{tok.value}`")


def _expected_text(expected: set[str]) -> str:
    names = {v: k for k, v in PUNCT.items() if v != "AUGOP"}
    names.update({v: k for k, v in KEYWORDS.items()})
    shown = []
    for e in sorted(expected):
        if e in ("NAME", "INT", "FLOAT"):
            shown.append({"NAME": "a name", "INT": "an integer", "FLOAT": "a float"}[e])
        elif e in names:
            shown.append(f"`{names[e]}`")
        elif e == "$END":
            shown.append("the end of the file")
        elif e == "SEMI":
            shown.append("a line break or `;`")
    shown = sorted(set(shown))
    if not shown:
        return "something else"
    if len(shown) > 6:
        return "an expression or statement"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _syntax_error(tokens: list[Tok], tok: Tok, expected: set[str], eof_span: Span) -> Diagnostic:
    if tok.type == "$END":
        span = eof_span
        found = "the end of the file"
    else:
        span = _tok_span(tok)
        found = _describe(tok)
    hint = (_increment(tokens, tok) or _block_comment(tokens, tok) or _power(tokens, tok)
            or _literal_suffix(tokens, tok) or _c_declaration(tokens, tok) or _c_for(tokens, tok)
            or _braceless_body(tokens, tok, expected))
    if hint is not None:
        return hint
    typo = _generic_without_space(tokens, tok)
    if typo is not None:
        return typo
    if tok.type in _CMP and not (expected & _CMP) and _follows_comparison(tokens, tok):
        return Diagnostic("PH010", "comparison operators cannot be chained", span,
                          label="a second comparison", help=_split_comparison(tokens, tok))
    unclosed = _unclosed(tokens, tok, expected, span, found)
    if unclosed is not None:
        return unclosed
    return Diagnostic("PH005", f"expected {_expected_text(expected)}, found {found}", span,
                      label="unexpected here")


_CLOSER = {"LPAR": ")", "LSQB": "]", "LBRACE": "}"}


def _unclosed(tokens: list[Tok], tok: Tok, expected: set[str], span: Span, found: str) -> Diagnostic | None:
    """A bracket left open (rustc's "unclosed delimiter"): reported at the bracket, with a label
    where the parse gave up. A `(` or `[` when the parse fails on a later line than it (inside
    brackets a newline ends nothing, so the next line's statement runs on); a `{` at the end of
    the file, naming the `{` whose `}` is indented unlike its line when there is one."""
    stack: list[Tok] = []
    suspect: Tok | None = None
    for k in range(min(tok.index, len(tokens))):
        t = tokens[k]
        if t.type in _CLOSER:
            stack.append(t)
        elif t.type in ("RPAR", "RSQB", "RBRACE") and stack:
            opener = stack.pop()
            if t.type == "RBRACE" and opener.type == "LBRACE" and suspect is None and t.line != opener.line \
                    and _indent_of(tokens, t) == t.column and t.column != _indent_of(tokens, opener):
                suspect = opener
    if not stack:
        return None
    opener = stack[-1]
    close = _CLOSER[opener.type]
    if opener.type == "LBRACE":
        if tok.type != "$END":
            return None
        chain = [Label(span, "the file ends here")]
        if suspect is not None:
            chain.insert(0, Label(_tok_span(suspect), "this `{` may be the one left open: the `}` that "
                                                      "closes it is not indented as its line"))
        return Diagnostic("PH005", "unclosed delimiter: `{` has no `}`", _tok_span(opener),
                          label="unclosed delimiter", chain=chain, help="add the missing `}`")
    if tok.line <= opener.line:
        return None
    return Diagnostic("PH005", f"unclosed delimiter: `{opener.value}` has no `{close}`", _tok_span(opener),
                      label="unclosed delimiter",
                      chain=[Label(span, f"expected `{close}` before this line goes on; found {found}")],
                      help=f"add the missing `{close}`")


def _indent_of(tokens: list[Tok], t: Tok) -> int:
    """The column of the first token on ``t``'s line."""
    k = t.index
    while k > 0 and tokens[k - 1].line == t.line:
        k -= 1
    return tokens[k].column


def _increment(tokens: list[Tok], tok: Tok) -> Diagnostic | None:
    """`i++` or `i--` (C's increment), which reads as `i + +..` and fails at or after the
    second sign."""
    end = tok.index                          # the `$END` token's is len(tokens)
    for j in (end, end - 1):
        if j < 1 or j >= len(tokens) or tokens[j].type not in ("PLUS", "MINUS"):
            continue
        a, b = tokens[j - 1], tokens[j]
        if a.type == b.type and _touching(a, b):
            name = tokens[j - 2].value if j >= 2 and tokens[j - 2].type == "NAME" else "x"
            return Diagnostic("PH005", f"Phobos has no `{b.value * 2}`", _span(a, b), label="not an operator",
                              help=f"write `{name} {b.value}= 1`")
    return None


def _block_comment(tokens: list[Tok], tok: Tok) -> Diagnostic | None:
    """C's `/* .. */`, which reads as a division by `*` and fails at the `/` or the `*`."""
    end = tok.index
    for j in (end - 1, end):
        if j < 0 or j + 1 >= len(tokens):
            continue
        a, b = tokens[j], tokens[j + 1]
        if a.type == "SLASH" and b.type == "STAR" and _touching(a, b):
            return Diagnostic("PH005", "Phobos has no `/* */` comments", _span(a, b), label="a C block comment",
                              help="comment with `//`, which runs to the end of the line")
    return None


def _touching(a: Tok, b: Tok) -> bool:
    return a.line == b.line and a.end_column == b.column


def _power(tokens: list[Tok], tok: Tok) -> Diagnostic | None:
    """`x ** y` (Python's power), which reads as `x * *y` and fails at the second `*`."""
    j = tok.index
    if 1 <= j < len(tokens) and tok.type == "STAR" and tokens[j - 1].type == "STAR" and _touching(tokens[j - 1], tok):
        return Diagnostic("PH005", "Phobos has no `**`", _span(tokens[j - 1], tok), label="not an operator",
                          help="write `pow(x, y)`, or `x * x` for a square")
    return None


_SUFFIXES = {"f", "F", "u", "U", "l", "L", "ul", "UL", "ll", "LL", "ull", "ULL", "h", "H"}


def _literal_suffix(tokens: list[Tok], tok: Tok) -> Diagnostic | None:
    """A C suffix on a number (`1.0f`, `10u`, `1L`): the lexer reads a number, then a name."""
    j = tok.index
    if not (1 <= j < len(tokens) and tok.type == "NAME" and tok.value in _SUFFIXES):
        return None
    num = tokens[j - 1]
    if num.type not in ("INT", "FLOAT") or not _touching(num, tok):
        return None
    kind, wide = ("a float literal is an f32", "f64") if num.type == "FLOAT" else ("an integer literal is an i32", "i64")
    # `1.0f` is `1.0` for certain (a float literal is an f32); `10u` or `1L` is another type's
    fixes = [Fix(f"remove the suffix `{tok.value}`", (Edit(tok.line, tok.column, tok.line, tok.end_column, ""),))] \
        if num.type == "FLOAT" and tok.value in ("f", "F") else []
    return Diagnostic("PH005", f"Phobos numbers take no suffix such as `{tok.value}`", _span(num, tok),
                      label="a C suffix", fixes=fixes,
                      help=f"write `{num.value}`: {kind} unless its use needs another type, and `{wide}({num.value})` "
                           f"makes {an(wide)}")


def _c_declaration(tokens: list[Tok], tok: Tok) -> Diagnostic | None:
    """`float x = ..` or `f32 x = ..` (C's declaration) at the start of a statement."""
    j = tok.index
    if not (1 <= j < len(tokens) and tok.type == "NAME" and tokens[j - 1].type == "NAME"):
        return None
    if j >= 2 and tokens[j - 2].type not in ("SEMI", "LBRACE", "RBRACE"):
        return None
    written = tokens[j - 1].value
    phobos = written if written in SCALARS else C_TYPES.get(written)
    if phobos is None:
        return None
    return Diagnostic("PH005", "a declaration starts with `let` or `var`", _span(tokens[j - 1], tok),
                      label="a C declaration",
                      help=f"write `let {tok.value}: {phobos} = ..` (`var` for a variable assigned later)")


def _c_for(tokens: list[Tok], tok: Tok) -> Diagnostic | None:
    """`for (init; cond; step)`: C's loop header."""
    j = tok.index
    if 1 <= j < len(tokens) and tok.type == "LPAR" and tokens[j - 1].type == "FOR":
        return Diagnostic("PH005", "a `for` loop runs over a range, not C's `(init; condition; step)`",
                          _tok_span(tok), label="C's loop header",
                          help="write `for i in range(lo, hi) { .. }` (or `range(lo, hi, step)`), or a `while` loop")
    return None


_BODY_HEADS = {"IF": "`if`", "WHILE": "`while`", "FOR": "`for`", "ELSE": "`else`"}


def _braceless_body(tokens: list[Tok], tok: Tok, expected: set[str]) -> Diagnostic | None:
    """`if (c) x = 1` or `while c x += 1`: a body without braces, where C allows one statement."""
    if "LBRACE" not in expected or tok.type in ("LBRACE", "$END"):
        return None
    head = None
    for k in range(tok.index - 1, -1, -1):      # back to the statement's start (no slice: no copy)
        t = tokens[k]
        if t.type in ("SEMI", "LBRACE", "RBRACE"):
            break
        if t.type in _BODY_HEADS:
            head = t
    if head is None or head.line != tok.line:
        return None
    for k in range(tok.index, len(tokens)):     # a `{` later on the line: something else is wrong
        t = tokens[k]
        if t.line != tok.line or t.type == "SEMI":
            break
        if t.type == "LBRACE":
            return None
    return Diagnostic("PH005", f"the body of {_BODY_HEADS[head.type]} goes in braces", _tok_span(tok),
                      label="a body without `{`",
                      help="write `{` before the body and `}` after it, as in `if c { x = 1 }`")


def _generic_without_space(tokens: list[Tok], tok: Tok) -> Diagnostic | None:
    """A generic call whose mode runs into its operand (`shfl<xor1>(v)`, `sum<overctx.lane>`):
    the lexer sees the name `xor1`, and the parse fails later, usually as a chained comparison."""
    for i in range(tok.index - 1, 0, -1):
        head, lt = tokens[i - 1], tokens[i]
        if lt.type in ("SEMI", "LBRACE", "RBRACE"):
            return None
        if lt.type != "LT" or head.type != "NAME" or head.value not in BUILTINS or i + 1 >= len(tokens):
            continue
        word = tokens[i + 1]
        if word.type != "NAME" or head.line != lt.line or head.end_column != lt.column:
            continue
        mode = next((m for m in GENERIC_MODES if word.value.startswith(m) and len(word.value) > len(m)), None)
        if mode is None:
            continue
        rest = word.value[len(mode):]
        return Diagnostic("PH005", f"`{head.value}<{word.value}` is not a generic call: `{mode}` needs a space "
                                   "before its operand", _tok_span(word), label=f"read as the name `{word.value}`",
                          help=f"write `{head.value}<{mode} {rest}`")
    return None


def _follows_comparison(tokens: list[Tok], tok: Tok) -> bool:
    """Is ``tok`` a comparison whose left side already ends in a comparison (``a < b < c``)?"""
    depth = 0
    for t in reversed(tokens[: tok.index]):
        if t.type in ("RPAR", "RSQB"):
            depth += 1
        elif t.type in ("LPAR", "LSQB"):
            if depth == 0:
                return False
            depth -= 1
        elif t.type in ("SEMI", "LBRACE", "RBRACE", "COMMA", "ANDAND", "OROR") and depth == 0:
            return False
        elif t.type in _CMP and depth == 0:
            return True
    return False


def _operand(tokens: list[Tok], at: int, step: int) -> list[Tok]:
    """The tokens of the operand next to a comparison at ``at``, to its left (``step`` -1) or right
    (1): up to a bracket that does not close inside it, a comparison, `&&`, `||`, `,`, `=`, a
    keyword or the end of the statement."""
    out, depth, i = [], 0, at + step
    opening, closing = ("LPAR", "LSQB"), ("RPAR", "RSQB")
    while 0 <= i < len(tokens):
        t = tokens[i]
        if t.type in (closing if step < 0 else opening):
            depth += 1
        elif t.type in (opening if step < 0 else closing):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (t.type in _CMP or t.type in ("SEMI", "LBRACE", "RBRACE", "COMMA", "ANDAND", "OROR", "$END")
                             or "ASSIGN" in t.type or (t.type != "NAME" and t.value.isidentifier())):
            break
        out.append(t)
        i += step
    return out[::-1] if step < 0 else out


def _text(toks: list[Tok]) -> str:
    """Tokens as written: a space between two where the source has one."""
    return "".join((" " if i and (t.line != toks[i - 1].line or t.column > toks[i - 1].end_column) else "")
                   + str(t.value) for i, t in enumerate(toks))


def _split_comparison(tokens: list[Tok], tok: Tok) -> str:
    """PH010's help: `a < b < c` as the two comparisons joined by `&&`, from the operands written."""
    middle = _operand(tokens, tok.index, -1)
    first = tokens[middle[0].index - 1] if middle else None
    left = _operand(tokens, first.index, -1) if first is not None and first.type in _CMP else []
    right = _operand(tokens, tok.index, 1)
    if not (left and middle and right):
        return "write each comparison on its own and join them with `&&` or `||`, or parenthesize one side"
    a, b, c = _text(left), _text(middle), _text(right)
    return (f"to test both, join two comparisons with `&&`: `{a} {first.value} {b} && {b} {tok.value} {c}` "
            "(or parenthesize one side)")


def _cut_statement(tokens: list[Tok], at: int) -> list[Tok]:
    """Drop the statement holding token ``at``: from the previous statement boundary (a SEMI or
    an enclosing ``{``) to the next SEMI at the same brace depth, blocks inside it included.
    Always drops at least one token, so recovery makes progress."""
    if tokens[at].type == "RBRACE" and (at == 0 or tokens[at - 1].type in ("SEMI", "LBRACE", "RBRACE")):
        start, end = at, at + 1           # a `}` with no statement in progress is stray
    else:
        start = at
        depth = 0
        while start > 0:
            t = tokens[start - 1].type
            if t == "RBRACE":
                depth += 1
            elif t == "LBRACE":
                if depth == 0:
                    break
                depth -= 1
            elif t == "SEMI" and depth == 0:
                break
            start -= 1
        end = at
        depth = 0
        n = len(tokens)
        while end < n:
            t = tokens[end].type
            if t == "LBRACE":
                depth += 1
            elif t == "RBRACE":
                if depth == 0:
                    break
                depth -= 1
            elif t == "SEMI" and depth == 0:
                break
            end += 1
        if end <= start:
            start, end = at, at + 1
    kept = tokens[:start] + tokens[end:]
    for i, t in enumerate(kept):
        t.index = i
    return kept


def _close_open_braces(tokens: list[Tok]) -> list[Tok]:
    """At the end of the file, add the ``}`` that unclosed blocks lack (after reporting it)."""
    depth = 0
    for t in tokens:
        if t.type == "LBRACE":
            depth += 1
        elif t.type == "RBRACE" and depth:
            depth -= 1
    if depth == 0:
        return tokens
    last = tokens[-1]
    extra = []
    for _ in range(depth):
        extra.append(Tok("RBRACE", "}", 0, last.line, last.end_column, last.end_column))
        extra.append(Tok("SEMI", "", 0, last.line, last.end_column, last.end_column))
    kept = tokens + extra
    for i, t in enumerate(kept):
        t.index = i
    return kept


def parse(text: str, diagnostics: list[Diagnostic]) -> A.Program | None:
    """Parse ``text``; append every lexical and syntax error to ``diagnostics``.

    Returns the Program (the statements that held syntax errors left out), or None when the
    tree could not be built at all (nesting beyond the limit).
    """
    stats = LexStats()
    tokens = tokenize(text, diagnostics, stats)
    lines = text.split("\n")
    eof_span = Span(len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 1)
    tables = _tables()
    seen: set[tuple] = set()
    closed_braces = False
    for _ in range(MAX_ERRORS):
        if not tokens:
            return A.Program((), Span(1, 1, 1, 1))
        end = Tok("$END", "", len(tokens), eof_span.line, eof_span.column, eof_span.column)
        try:
            program = _drive(tables, tokens, end)
        except _ParseError as e:
            diag = _syntax_error(tokens, e.token, e.expected, eof_span)
            key = (diag.code, diag.span, diag.message)
            if key not in seen:
                seen.add(key)
                diagnostics.append(diag)
            if e.token.type == "$END":
                if closed_braces:
                    return None
                closed_braces = True
                tokens = _close_open_braces(tokens)
                if tokens[-1].type != "SEMI":   # nothing to close: drop the last statement
                    tokens = _cut_statement(tokens, len(tokens) - 1)
            else:
                tokens = _cut_statement(tokens, e.token.index)
            continue
        if _may_be_too_deep(stats):
            depth_error = _check_depth(program)
            if depth_error is not None:
                diagnostics.append(depth_error)
                return None
        return program
    diagnostics.append(Diagnostic("PH005", f"too many syntax errors; stopped after {MAX_ERRORS}",
                                  eof_span, severity="note"))
    return None


def _may_be_too_deep(stats: LexStats) -> bool:
    # Each block level adds at most three tree levels (statement, block, else-if), and an
    # expression is at most about two levels per token. Below this bound no tree can exceed
    # MAX_NESTING, so the exact (and slower) walk is skipped for every ordinary file.
    return 3 * stats.max_brace_depth + 2 * stats.max_statement_tokens + 2 * stats.else_count + 4 > MAX_NESTING


def _check_depth(program: A.Program) -> Diagnostic | None:
    """Refuse trees nested deeper than MAX_NESTING, iteratively, before any recursive pass."""
    stack = [(program, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > MAX_NESTING:
            return Diagnostic("PH008", f"nesting deeper than {MAX_NESTING} levels", node.span,
                              label="this is nested too deeply",
                              help="split the expression or the blocks with `let` bindings or functions")
        for child in _children(node):
            push((child, depth + 1))
    return None


_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node):
    cls = type(node)
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f for f in cls.__slots__ if f not in ("span",) and not f.endswith("_span"))
        _FIELDS[cls] = names
    for f in names:
        v = getattr(node, f)
        if isinstance(v, tuple):
            for x in v:
                if hasattr(x, "__slots__") and hasattr(x, "span"):
                    yield x
        elif hasattr(v, "__slots__") and hasattr(v, "span"):
            yield v
