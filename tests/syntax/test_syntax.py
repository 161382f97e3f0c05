"""Lexer and parser (LANGUAGE §1, §2, §5-§7): Go's newline rule and its two errors, generic-call
tokens, precedence, literal folding, numbers, subscripts, `for<unroll n>`, attributes, types,
statement-level recovery and exact spans."""

from __future__ import annotations

import pytest

from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.diagnostics import ERROR
from phobos_tools.analyzer.diagnostics.model import Edit, Span
from phobos_tools.analyzer.syntax import ast as A
from phobos_tools.analyzer.syntax import parse
from phobos_tools.analyzer.syntax.printer import program as print_program
from phobos_tools.analyzer.syntax.tokens import tokenize
from phobos_tools.language.types import I32


# ------------------------------------------------------------------ helpers


def lex(text: str) -> list[tuple[str, str]]:
    errors: list = []
    toks = tokenize(text, errors)
    assert not errors, errors
    return [(t.type, t.value) for t in toks]


def kinds(text: str) -> list[str]:
    return [k for k, _ in lex(text)]


def parse_ok(text: str) -> A.Program:
    diags: list = []
    program = parse(text, diags)
    assert program is not None
    assert not diags, [(d.code, d.span, d.message) for d in diags]
    return program


def parse_diags(text: str):
    diags: list = []
    program = parse(text, diags)
    return program, [(d.code, d.span.line, d.span.column) for d in diags], diags


def body(text: str) -> tuple:
    """The statements of a one-kernel program whose body is ``text``."""
    return parse_ok("kernel k() {\n" + text + "\n}\n").kernels[0].body.stmts


def value(src: str):
    """The expression ``src``, parsed as the value of a `let`."""
    (stmt,) = body(f"  let z = {src}")
    return stmt.value


def sexpr(e) -> str:
    """An expression, fully parenthesized, to show the tree's shape."""
    if isinstance(e, A.Binary):
        return f"({sexpr(e.lhs)} {e.op} {sexpr(e.rhs)})"
    if isinstance(e, A.Unary):
        return f"({e.op}{sexpr(e.operand)})"
    if isinstance(e, A.IntLit):
        return str(e.value)
    if isinstance(e, A.FloatLit):
        return repr(e.value)
    if isinstance(e, A.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.CtxPath):
        return e.text
    if isinstance(e, A.Index):
        return f"{sexpr(e.base)}[..]"
    if isinstance(e, A.Call):
        return f"{e.func}({', '.join(sexpr(a) for a in e.args)})"
    if isinstance(e, A.GenericCall):
        return f"{e.func}<{e.mode} {sexpr(e.param)}>({', '.join(sexpr(a) for a in e.args)})"
    raise AssertionError(type(e))


def codes_at(text: str, defines=None) -> list[tuple[str, int, int]]:
    r = check_source(text, "k.ph", defines)
    return [(d.code, d.span.line, d.span.column) for d in r.diagnostics]


def errors_of(text: str):
    return [d for d in check_source(text, "k.ph").diagnostics if d.severity == ERROR]


# ------------------------------------------------------------------ the newline rule (§1)


@pytest.mark.parametrize("last", [
    "x", "42", "0x1F", "1.5", "1e-3", "true", "false", "f()", "a[0]", "break", "continue", "return",
])
def test_newline_ends_a_statement_after(last):
    toks = lex(f"{last}\ny")
    i = [v for _, v in toks].index("y")
    assert toks[i - 1] == ("SEMI", ""), toks


def test_newline_ends_a_statement_after_closing_brace():
    toks = lex("{ }\ny")
    assert toks[2] == ("SEMI", "")


@pytest.mark.parametrize("op", [
    "+", "-", "*", "/", "%", "<<", ">>", "&", "^", "|", "&&", "||", "==", "!=", "<", "<=", ">", ">=",
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ",", ":", ":+", "!", "~", "->", "@", ".",
])
def test_a_line_ending_in_an_operator_or_comma_continues(op):
    assert "SEMI" not in kinds(f"a {op}\nb")[:-1]


def test_newlines_inside_parentheses_and_brackets_end_nothing():
    assert kinds("f(a\n,\nb\n)\n") == ["NAME", "LPAR", "NAME", "COMMA", "NAME", "RPAR", "SEMI"]
    assert kinds("A[i\n,\nj\n]\n") == ["NAME", "LSQB", "NAME", "COMMA", "NAME", "RSQB", "SEMI"]
    # nested: a `[` inside `(` and the reverse
    assert "SEMI" not in kinds("f(A[i\n]\n, g(\nx\n)\n)")[:-1]


def test_newline_inside_braces_ends_statements():
    assert kinds("{ a\nb }") == ["LBRACE", "NAME", "SEMI", "NAME", "RBRACE", "SEMI"]


def test_blank_lines_and_comments_do_not_add_statement_ends():
    assert kinds("a // note\n\n// more\n\nb") == ["NAME", "SEMI", "NAME", "SEMI"]


def test_semicolons_and_empty_statements():
    (a, b) = body("  ; ;\n  let a = 1;; let b = 2;\n  ;")
    assert (a.name, b.name) == ("a", "b")
    assert kinds("a;b") == ["NAME", "SEMI", "NAME", "SEMI"]
    parse_ok(";\nkernel k() {}\n;\nfn f() {};\n")


def test_multi_line_expressions_parse():
    stmts = parse_ok(
        "kernel k(A: tensor<f32>[N,\n    M]) {\n  let a = A[\n    0,\n    1\n  ]\n  let b = a *\n    2.0 +\n"
        "    f32(\n      1\n    )\n  var c = 0\n  c +=\n    1\n}\n").kernels[0].body.stmts
    assert [type(s).__name__ for s in stmts] == ["Let", "Let", "Var", "Assign"]
    assert sexpr(stmts[1].value) == "((a * 2.0) + f32(1))"


def test_return_at_the_end_of_a_line_takes_no_value():
    stmts = parse_ok("fn f() {\n  return\n  g()\n}\n").functions[0].body.stmts
    assert isinstance(stmts[0], A.Return) and stmts[0].value is None
    assert isinstance(stmts[1], A.ExprStmt)


@pytest.mark.parametrize("src, line, col, where", [
    ("kernel k() {\n  if true\n  {\n  }\n}\n", 3, 3, "the condition"),
    ("kernel k() {\n  if true {\n  } else if false\n  {\n  }\n}\n", 4, 3, "the condition"),
    ("kernel k() {\n  while false\n    {\n  }\n}\n", 3, 5, "the condition"),
    ("kernel k() {\n  for i in range(0, 4)\n  {\n  }\n}\n", 3, 3, "the `for`"),
    ("kernel k()\n{\n}\n", 2, 1, "the kernel's header"),
    ("fn f() -> i32\n{\n  return 1\n}\n", 2, 1, "the function's header"),
])
def test_brace_on_the_next_line_is_PH006(src, line, col, where):
    _, found, diags = parse_diags(src)
    assert found == [("PH006", line, col)]
    assert diags[0].message == f"put `{{` on the line of {where}"
    assert diags[0].span == Span(line, col, line, col + 1)


def test_PH006_recovers_and_the_program_is_kept():
    program, found, _ = parse_diags("kernel k() {\n  if true\n  {\n    let a = 1\n  }\n  let b = 2\n}\n")
    assert found == [("PH006", 3, 3)]
    stmts = program.kernels[0].body.stmts
    assert isinstance(stmts[0], A.If) and isinstance(stmts[1], A.Let)


@pytest.mark.parametrize("src, line, col", [
    ("kernel k() {\n  if true {\n  }\n  else {\n  }\n}\n", 4, 3),
    ("kernel k() {\n  if true {\n  }\n\n      else if false {\n  }\n}\n", 5, 7),
    ("kernel k() {\n  if true {\n  } // done\n  else {\n  }\n}\n", 4, 3),
])
def test_else_on_the_next_line_is_PH007(src, line, col):
    program, found, diags = parse_diags(src)
    assert found == [("PH007", line, col)]
    assert diags[0].message == "`else` must follow `}` on the same line"
    assert diags[0].span == Span(line, col, line, col + 4)
    assert program.kernels[0].body.stmts[0].orelse is not None     # joined, parsing went on


def test_else_on_the_same_line_is_fine():
    (s,) = body("  if true {\n  } else if false {\n  } else {\n  }")
    assert isinstance(s.orelse, A.If) and isinstance(s.orelse.orelse, A.Block)


# ------------------------------------------------------------------ generic calls (§1, §6)


def test_generic_call_tokens():
    assert lex("sum<over ctx.lane>(x)")[0] == ("GENERIC", "sum<over")
    assert lex("shfl<xor 16>(v)")[:3] == [("GENERIC", "shfl<xor"), ("INT", "16"), ("GT", ">")]
    for mode in ("over", "xor", "up", "down", "idx"):
        assert lex(f"max<{mode} 1")[0] == ("GENERIC", f"max<{mode}")


def test_generic_call_trees():
    e = value("sum<over ctx.lane>(x)")
    assert isinstance(e, A.GenericCall)
    assert (e.func, e.mode, e.param, e.args) == ("sum", "over", A.CtxPath(("lane",)), (A.Name("x"),))
    e = value("shfl<xor 16>(v)")
    assert (e.func, e.mode, e.param, e.args) == ("shfl", "xor", A.IntLit(16, "16"), (A.Name("v"),))
    e = value("shfl<down (n >> 1)>(v)")
    assert (e.func, e.mode, sexpr(e.param)) == ("shfl", "down", "(n >> 1)")
    e = value("shfl<up d + 1>(v) * 2")
    assert sexpr(e) == "(shfl<up (d + 1)>(v) * 2)"


@pytest.mark.parametrize("src", ["a < over", "a < xor", "sum<overt", "shfl<upper"])
def test_a_spaced_or_longer_word_is_a_comparison(src):
    assert "GENERIC" not in kinds(src)
    assert "LT" in kinds(src)


def test_a_space_between_a_built_in_and_its_generic_angle_is_one_error_and_parses_on():
    # LANGUAGE §1 allows no space; `sum < over` could mean nothing else (`sum` is a function)
    errors: list = []
    assert [t.type for t in tokenize("sum <over ctx.lane", errors)][0] == "GENERIC"
    assert [e.code for e in errors] == ["PH005"]
    _, found, diags = parse_diags("kernel k() {\n  let s = sum  <over ctx.lane>(1.0)\n}\n")
    assert found == [("PH005", 2, 11)]
    assert diags[0].help == "write `sum<over ctx.lane>(1.0)`"
    assert diags[0].fixes[0].edits == (Edit(2, 14, 2, 16, ""),)


def test_comparison_with_a_variable_named_like_a_mode():
    assert codes_at("kernel k() {\n  let up = 3\n  let i = 1\n  let b = i < up\n}\n") == []


def test_non_builtin_followed_by_lt_mode_word_is_a_comparison():
    assert "GENERIC" not in kinds("i<idx")
    assert codes_at("kernel k() {\n  let idx = 3\n  let i = 1\n  if i<idx {\n  }\n}\n") == []


# ------------------------------------------------------------------ precedence (§6)


@pytest.mark.parametrize("src, tree", [
    ("a & b == c", "((a & b) == c)"),
    ("a == b & c", "(a == (b & c))"),
    ("-x * y", "((-x) * y)"),
    ("a || b && c", "(a || (b && c))"),
    ("a && b || c", "((a && b) || c)"),
    ("a << 1 + 2", "(a << (1 + 2))"),
    ("a + b << c", "((a + b) << c)"),
    ("a >> b & c", "((a >> b) & c)"),
    ("a | b ^ c & d", "(a | (b ^ (c & d)))"),
    ("a & b ^ c | d", "(((a & b) ^ c) | d)"),
    ("a + b * c", "(a + (b * c))"),
    ("a - b - c", "((a - b) - c)"),
    ("a / b % c * d", "(((a / b) % c) * d)"),
    ("a << b >> c", "((a << b) >> c)"),
    ("a < b | c", "(a < (b | c))"),
    ("a == b && c != d || e >= f", "(((a == b) && (c != d)) || (e >= f))"),
    ("!a && b", "((!a) && b)"),
    ("~a & b", "((~a) & b)"),
    ("- -a", "(-(-a))"),
    ("-a[0]", "(-a[..])"),
    ("(a || b) && c", "((a || b) && c)"),
    ("(a < b) == c", "((a < b) == c)"),
    ("ctx.block.x * ctx.warps + ctx.warp", "((ctx.block.x * ctx.warps) + ctx.warp)"),
])
def test_precedence(src, tree):
    assert sexpr(value(src)) == tree


@pytest.mark.parametrize("src, col", [
    ("a < b < c", 17), ("a == b != c", 18), ("a < b == c", 17), ("a >= b <= c", 18), ("(a < b) == c < d", 24),
])
def test_comparisons_are_non_associative(src, col):
    _, found, diags = parse_diags(f"kernel k() {{\n  let z = {src}\n}}\n")
    assert found == [("PH010", 2, col)]
    assert diags[0].message == "comparison operators cannot be chained"


def test_comparisons_under_and_or_are_not_chained():
    assert sexpr(value("a < b && b < c")) == "((a < b) && (b < c))"
    assert sexpr(value("f(a < b, c < d)")) == "f((a < b), (c < d))"


# ------------------------------------------------------------------ literals (§1)


def test_negative_literal_folds():
    lit = value("-2147483648")
    assert lit == A.IntLit(-2147483648, "2147483648")
    assert value("- 7") == A.IntLit(-7, "7")
    assert value("-1.5") == A.FloatLit(-1.5, "1.5")


def test_folded_minimum_i32_type_checks_as_i32():
    r = check_source("kernel k() {\n  let a = -2147483648\n}\n")
    assert r.diagnostics == []
    (b,) = [b for b in r.semantics.kernels[0].instance.bindings if b.name == "a"]
    assert b.type == I32


def test_subtraction_of_literals_stays_binary():
    e = value("1 - 2")
    assert isinstance(e, A.Binary) and e.op == "-"
    assert e.lhs == A.IntLit(1, "1") and e.rhs == A.IntLit(2, "2")
    assert sexpr(value("x-1")) == "(x - 1)"
    assert sexpr(value("x - -1")) == "(x - -1)"


@pytest.mark.parametrize("src, val", [
    ("0x1F", 31), ("0XfF", 255), ("0x0", 0), ("0x7FFFFFFF", 2147483647), ("-0x10", -16), ("007", 7),
])
def test_integer_literals(src, val):
    lit = value(src)
    assert isinstance(lit, A.IntLit) and lit.value == val
    assert lit.text == src.lstrip("-")


@pytest.mark.parametrize("src, val", [
    ("1.0", 1.0), ("1e-3", 1e-3), ("2.5e4", 2.5e4), ("1E5", 1e5), ("3.25E+2", 325.0), ("0.5", 0.5),
])
def test_float_literals(src, val):
    lit = value(src)
    assert isinstance(lit, A.FloatLit) and lit.value == val and lit.text == src


@pytest.mark.parametrize("src, col, end, hint", [
    ("1.", 11, 13, "write `1.0`"),
    (".5", 11, 13, "write `0.5`"),
    ("12. + 1.0", 11, 14, "write `12.0`"),
    ("0x", 11, 13, "a hex literal needs digits after `0x`"),
])
def test_malformed_numbers_are_PH004(src, col, end, hint):
    _, found, diags = parse_diags(f"kernel k() {{\n  let a = {src}\n}}\n")
    assert found[0] == ("PH004", 2, col)
    assert diags[0].span == Span(2, col, 2, end)
    assert diags[0].message == f"`{src.split()[0]}` is not a number"
    assert diags[0].help == hint


def test_bool_literals():
    assert value("true") == A.BoolLit(True)
    assert value("false") == A.BoolLit(False)


# ------------------------------------------------------------------ subscripts (§7)


def test_subscript_forms():
    e = value("A[i, s : e, s :+ n, :, :e]")
    assert isinstance(e, A.Index) and e.base == A.Name("A")
    assert e.subs == (
        A.Point(A.Name("i")),
        A.Range(A.Name("s"), A.Name("e")),
        A.SpanSub(A.Name("s"), A.Name("n")),
        A.Range(None, None),
        A.Range(None, A.Name("e")),
    )
    assert value("A[i, j]").is_point
    assert not value("A[i, :]").is_point


def test_span_operator_is_one_token():
    assert kinds("s :+ n") == ["NAME", "SPANOP", "NAME", "SEMI"]
    assert kinds("s : +n") == ["NAME", "COLON", "PLUS", "NAME", "SEMI"]


def test_open_end_parses_and_is_PH110():
    assert value("A[i:]").subs == (A.Range(A.Name("i"), None),)
    r = check_source("kernel k(A: tensor<f32>[N]) {\n  var t = A[1:]\n}\n")
    assert [(d.code, d.span.line, d.span.column) for d in r.diagnostics] == [("PH110", 2, 13)]
    assert "open ends are not allowed" in r.diagnostics[0].message


def test_subscripts_type_check():
    src = ("kernel k(A: tensor<f32>[N, M], B: tensor<f32>[N, M]) {\n"
           "  var t: tile<f32>[4, 8] = A[0 :+ 4, 8 : 16]\n"
           "  var u: tile<f32>[8] = A[0, :8]\n"
           "  let x = A[1, 2]\n"
           "  B[:, :] = A[:, :]\n"
           "}\n")
    assert codes_at(src) == []


# ------------------------------------------------------------------ statements (§5)


@pytest.mark.parametrize("op", ["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="])
def test_assignment_operators(op):
    (s,) = body(f"  x {op} 1")
    assert isinstance(s, A.Assign) and s.op == op and s.target == A.Name("x")
    assert codes_at(f"kernel k() {{\n  var x = 6\n  x {op} 1\n}}\n") == []


def test_for_with_unroll():
    (s,) = body("  for<unroll 4> i in range(0, 8, 2) {\n  }")
    assert isinstance(s, A.For)
    assert s.unroll == A.IntLit(4, "4") and s.var == "i" and s.range_name == "range"
    assert s.args == (A.IntLit(0, "0"), A.IntLit(8, "8"), A.IntLit(2, "2"))
    (s,) = body("  for i in range(0, 8) {\n  }")
    assert s.unroll is None and len(s.args) == 2


def test_for_unroll_constant_and_errors():
    assert codes_at("@autotune(U in [2, 4])\nkernel k() {\n  for<unroll U> i in range(0, 8) {\n  }\n}\n") == []
    assert codes_at("kernel k() {\n  for<unrol 4> i in range(0, 8) {\n  }\n}\n") == [("PH119", 2, 3)]
    assert codes_at("kernel k() {\n  for<unroll 0> i in range(0, 8) {\n  }\n}\n") == [("PH119", 2, 14)]
    assert codes_at("kernel k(n: i32) {\n  for<unroll n> i in range(0, 8) {\n  }\n}\n") == [("PH107", 2, 14)]


def test_let_var_while_break_continue_return():
    stmts = body("  let a: i32 = 1\n  var b: f32\n  var c = 2\n  while a < c {\n    break\n    continue\n  }\n  return")
    assert [type(s).__name__ for s in stmts] == ["Let", "Var", "Var", "While", "Return"]
    assert stmts[0].type == A.TypeExpr("scalar", "i32") and stmts[1].value is None
    assert [type(s).__name__ for s in stmts[3].body.stmts] == ["Break", "Continue"]


def test_ctx_paths():
    assert value("ctx.block.x") == A.CtxPath(("block", "x"))
    assert value("ctx.lane") == A.CtxPath(("lane",))
    e = value("a.b")
    assert isinstance(e, A.Member) and e.attr == "b"


# ------------------------------------------------------------------ attributes (§2)


def test_attribute_forms():
    k = parse_ok("@launch(-1, BLOCK, -2.5, true, false)\n@autotune(X in [1, 2], Y in [-4])\n"
                 "@aligned(K = 128)\n@cluster\n@foo()\nkernel k() {\n}\n").kernels[0]
    launch, autotune, aligned, cluster, foo = k.attrs
    assert launch.name == "launch" and [a.value for a in launch.args] == [
        A.IntLit(-1, "1"), A.Name("BLOCK"), A.FloatLit(-2.5, "2.5"), A.BoolLit(True), A.BoolLit(False)]
    assert all(a.name is None and a.choices is None for a in launch.args)
    assert [(a.name, a.choices) for a in autotune.args] == [
        ("X", (A.IntLit(1, "1"), A.IntLit(2, "2"))), ("Y", (A.IntLit(-4, "4"),))]
    assert [(a.name, a.value) for a in aligned.args] == [("K", A.IntLit(128, "128"))]
    assert (cluster.args, cluster.has_parens) == ((), False)
    assert (foo.args, foo.has_parens) == ((), True)


def test_attributes_may_share_a_line_or_be_separated_by_blank_lines():
    parse_ok("@launch(128) @aligned(K = 4) kernel k(A: tensor<f32>[K]) {}\n")
    parse_ok("@launch(128)\n\n// comment\n@aligned(K = 4)\n\nkernel k(A: tensor<f32>[K]) {}\n")


def test_attribute_constant_names():
    r = check_source("@autotune(BLOCK in [128, 256])\n@launch(BLOCK)\nkernel k() {\n}\n")
    assert r.diagnostics == [] and r.semantics.kernels[0].threads == 128
    r = check_source("@autotune(BLOCK in [128, 256])\n@launch(BLOCK)\nkernel k() {\n}\n", defines={"BLOCK": "256"})
    assert r.diagnostics == [] and r.semantics.kernels[0].threads == 256
    r = check_source("@launch(T, 2, 64)\nkernel k() {\n}\n", defines={"T": "512"})
    info = r.semantics.kernels[0]
    assert (info.threads, info.min_blocks, info.max_regs) == (512, 2, 64)


def test_negative_attribute_literal_is_checked():
    assert codes_at("@launch(-64)\nkernel k() {\n}\n") == [("PH201", 1, 9)]


# ------------------------------------------------------------------ types (§2, §3)


SCALAR_NAMES = ("bool", "i8", "u8", "i32", "i64", "f16", "bf16", "f32", "f64")


@pytest.mark.parametrize("name", SCALAR_NAMES)
def test_scalar_types(name):
    k = parse_ok(f"kernel k(a: {name}, T: tensor<{name}>[N], U: tensor<{name}>[N, 4]) {{\n"
                 f"  var t: tile<{name}>[4]\n  var u: tile<{name}>[4, 8]\n  var s: {name}\n}}\n").kernels[0]
    a, t, u = (p.type for p in k.params)
    assert a == A.TypeExpr("scalar", name)
    assert t == A.TypeExpr("tensor", name, (A.DimName("N"),))
    assert u == A.TypeExpr("tensor", name, (A.DimName("N"), A.DimInt(4)))
    tiles = [s.type for s in k.body.stmts]
    assert tiles[0] == A.TypeExpr("tile", name, (A.DimInt(4),))
    assert tiles[1] == A.TypeExpr("tile", name, (A.DimInt(4), A.DimInt(8)))
    assert tiles[2] == A.TypeExpr("scalar", name)
    r = check_source(print_program(parse_ok(
        f"kernel k(a: {name}, T: tensor<{name}>[N], U: tensor<{name}>[N, 4]) {{\n"
        f"  var t: tile<{name}>[4]\n  var u: tile<{name}>[4, 8]\n}}\n")))
    assert r.diagnostics == []


def test_function_types():
    f = parse_ok("fn f(x: tile<f16>[R, C], A: tensor<f32>[N]) -> tile<f16>[R, C] {\n  return x\n}\n"
                 "fn g() -> u8 {\n  return 1\n}\nfn h() {\n}\n").functions
    assert f[0].ret == A.TypeExpr("tile", "f16", (A.DimName("R"), A.DimName("C")))
    assert f[1].ret == A.TypeExpr("scalar", "u8")
    assert f[2].ret is None


@pytest.mark.parametrize("ty, col, message", [
    ("tensor<f32>[N, M, K]", 13, "a tensor has rank 1 or 2, not 3"),
    ("tensor<f32>[0]", 25, "a dimension must be a positive i32, not 0"),
    ("tensor<f33>[4]", 20, "unknown element type `f33`"),
    ("matrix<f32>[4]", 13, "unknown type `matrix<..>`"),
    ("tensor", 13, "`tensor` needs an element type and a shape"),
    ("f31", 13, "unknown type `f31`"),
    ("run<f32>[4]", 13, "unknown type `run<..>`"),
    ("tile<f32>[4]", 13, "a kernel cannot take a tile parameter"),
])
def test_bad_types_are_PH118(ty, col, message):
    r = check_source(f"kernel k(T: {ty}) {{}}\n")
    assert [(d.code, d.span.line, d.span.column, d.message) for d in r.diagnostics] == [("PH118", 1, col, message)]


# ------------------------------------------------------------------ recovery


def test_three_independent_syntax_errors_are_all_reported():
    src = ("kernel k() {\n"
           "  let a = 1 2\n"       # 2: PH005 at `2`
           "  var ok1 = 1\n"
           "  let b = * 3\n"       # 4: PH005 at `*`
           "  var ok2 = 2\n"
           "  var c: = 4\n"        # 6: PH005 at `=`
           "  var ok3 = 3\n"
           "}\n")
    program, found, _ = parse_diags(src)
    assert found == [("PH005", 2, 13), ("PH005", 4, 11), ("PH005", 6, 10)]
    # the good statements survive the cuts
    assert [s.name for s in program.kernels[0].body.stmts] == ["ok1", "ok2", "ok3"]
    r = check_source(src)
    assert [(d.code, d.span.line) for d in r.diagnostics] == [("PH005", 2), ("PH005", 4), ("PH005", 6)]


def test_unclosed_brace_at_end_of_file():
    _, found, diags = parse_diags("kernel k() {\n  let a = 1\n")
    assert found == [("PH005", 1, 12)]            # at the `{` (rustc's "unclosed delimiter")
    assert diags[0].message == "unclosed delimiter: `{` has no `}`"
    assert [(tuple(step.span)[:2], step.text) for step in diags[0].chain] == [((3, 1), "the file ends here")]


def test_many_errors_stop_with_a_note():
    src = "kernel k() {\n" + "".join(f"  let a{i} = )\n" for i in range(40)) + "}\n"
    diags = check_source(src).diagnostics
    errors = [d for d in diags if d.severity == ERROR]
    assert 1 < len(errors) <= 40
    assert all(d.code == "PH005" for d in errors)
    assert [d.span.line for d in errors] == sorted(d.span.line for d in errors)


# ------------------------------------------------------------------ spans


def test_spans_of_nodes():
    src = ("@launch(128)\n"
           "kernel k(A: tensor<f32>[N]) {\n"
           "  let x = A[0 :+ 4]\n"
           "  var y = sum<over ctx.lane>(1.0) + 2.0\n"
           "}\n")
    program = parse_ok(src)
    k = program.kernels[0]
    assert k.span == Span(1, 1, 5, 2)
    assert k.name_span == Span(2, 8, 2, 9)
    assert k.attrs[0].span == Span(1, 1, 1, 13)
    p = k.params[0]
    assert p.span == Span(2, 10, 2, 27)
    assert p.type.span == Span(2, 13, 2, 27)
    assert p.type.elem_span == Span(2, 20, 2, 23)
    assert p.type.dims[0].span == Span(2, 25, 2, 26)
    assert k.body.span == Span(2, 29, 5, 2)
    let, var = k.body.stmts
    assert let.span == Span(3, 3, 3, 20) and let.name_span == Span(3, 7, 3, 8)
    assert let.value.span == Span(3, 11, 3, 20)
    assert let.value.subs[0].span == Span(3, 13, 3, 19)
    assert var.span == Span(4, 3, 4, 40)
    g = var.value.lhs
    assert g.span == Span(4, 11, 4, 34)
    assert g.head_span == Span(4, 11, 4, 29)
    assert g.param.span == Span(4, 20, 4, 28)
    assert var.value.rhs.span == Span(4, 37, 4, 40)


def test_spans_count_code_points_and_tabs_as_one_column():
    # `²` (2 bytes) and an astral-plane emoji (4 bytes, 2 UTF-16 units) are one column each;
    # the bad characters are reported (PH003) and skipped.
    src = "kernel k() {\n\t\u00b2\U0001F600\tlet x = -1\n\t\tvar y = x\n}\n"
    program, found, diags = parse_diags(src)
    assert found == [("PH003", 2, 2)]
    assert diags[0].span == Span(2, 2, 2, 3)
    let, var = program.kernels[0].body.stmts
    assert let.span == Span(2, 5, 2, 15)
    assert let.name_span == Span(2, 9, 2, 10)
    assert let.value.span == Span(2, 13, 2, 15)         # the folded `-1`
    assert var.span == Span(3, 3, 3, 12)


def test_unicode_in_comments_does_not_shift_columns():
    src = "// caf\u00e9 \U0001F600 \u4e2d\u6587\nkernel k() { // \u00e9\u00e9\u00e9\n\tlet x = 1 // \U0001F600\n}\n"
    program = parse_ok(src)
    (let,) = program.kernels[0].body.stmts
    assert let.span == Span(3, 2, 3, 11)
    assert program.kernels[0].span == Span(2, 1, 4, 2)


def test_semantic_error_span_after_a_tab():
    r = check_source("kernel k() {\n\t\tlet a = b\n}\n")
    assert [(d.code, d.span) for d in r.diagnostics] == [("PH101", Span(2, 11, 2, 12))]


def test_crlf_line_endings():
    r = check_source("kernel k() {\r\n  let a = b\r\n}\r\n")
    assert [(d.code, d.span.line, d.span.column) for d in r.diagnostics] == [("PH101", 2, 11)]


def test_byte_order_mark_is_ignored():
    r = check_source("\ufeffkernel k() {\n  let a = b\n}\n".encode())
    assert [(d.code, d.span.line, d.span.column) for d in r.diagnostics] == [("PH101", 2, 11)]


# ------------------------------------------------------------------ the printer beyond the examples


ROUND_TRIP_SOURCES = [
    "@launch(-1, BLOCK, -2.5, true)\n@autotune(X in [1, -2], Y in [0x10])\n@cluster\n@foo()\n"
    "kernel k(A: tensor<f32>[N, 4], b: bf16) {\n"
    "  let a = -(5) + - -x - -1 - (-2147483648)\n"
    "  let c = (a < b) == c && !(d || e) || f & g == h\n"
    "  let d = shfl<down (n >> 1)>(v) + shfl<xor 1 + 2>(v) + shfl<idx -k>(v) + sum<over ctx.lane>(x)\n"
    "  let e = A[:, :e, 1 : 2, s :+ 4, 1:]\n"
    "  let f = -0.0 + 1e-3 * 2.5e4 - 0x1F + -0x10 - ~x % 3\n"
    "  let g = a.b.c + ctx.block.x + ctx.lane\n"
    "  let h = (-x) * y + -(x * y) + (-1) * 2 + - (1.5) + -(-(0.0))\n"
    "  for<unroll 4> i in range(0, 8, 2) {\n"
    "    if a { } else if b { x += 1 } else { while c { break } }\n"
    "  }\n"
    "  A[0, 0] <<= 2; f(); return\n"
    "}\n"
    "fn f(x: tile<f16>[R, C]) -> tile<f16>[R, C] {\n  return x\n}\n",
    "kernel k() {\n  let a = (1 - 2) - (3 - 4)\n  let b = 1 - (2 - 3)\n  let c = a * (b + c) / (d % e)\n"
    "  let d = (a << b) << (c >> d)\n  let e = (a | b) & (c ^ d)\n  let f = -(a[0]) + (-a)[0]\n}\n",
]


@pytest.mark.parametrize("src", ROUND_TRIP_SOURCES)
def test_printer_round_trip_of_tricky_sources(src):
    original = parse_ok(src)
    printed = print_program(original)
    again = parse_ok(printed)
    assert again == original
    assert print_program(again) == printed


def test_printer_keeps_parentheses_of_a_generic_over_parameter():
    original = parse_ok("kernel k() {\n  let a = sum<over (a | b)>(x)\n}\n")
    assert parse_ok(print_program(original)) == original


def test_printer_keeps_parentheses_of_a_literal_before_a_member():
    original = parse_ok("kernel k() {\n  let a = (1).x\n}\n")
    assert parse_ok(print_program(original)) == original


def test_each_trailing_comma_is_one_error_and_the_rest_still_parses():
    diags: list = []
    program = parse("@launch(32,)\nkernel k(A: tensor<f32>[4,], b: i32,) {\n  let x = min(\n    1,\n    2,\n  )\n"
                    "  A[0,] = 1.0\n}\n", diags)
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [
        ("PH005", 1, 11), ("PH005", 2, 26), ("PH005", 2, 36), ("PH005", 5, 6), ("PH005", 7, 6)]
    assert program is not None and [p.name for p in program.kernels[0].params] == ["A", "b"]


@pytest.mark.parametrize("src, kinds, codes", [
    ("sum<over ctx.lane>(x)", [("GENERIC", "sum<over"), ("NAME", "ctx"), ("DOT", "."), ("NAME", "lane"),
                               ("GT", ">"), ("LPAR", "("), ("NAME", "x"), ("RPAR", ")"), ("SEMI", "")], []),
    ("dot_t<idx 1>(a)", [("GENERIC", "dot_t<idx"), ("INT", "1"), ("GT", ">"), ("LPAR", "("), ("NAME", "a"),
                         ("RPAR", ")"), ("SEMI", "")], []),
    # a built-in's name right after a digit is no call head: `2sum` is `2` then `sum`
    ("2sum<over x>(y)", [("INT", "2"), ("NAME", "sum"), ("LT", "<"), ("NAME", "over"), ("NAME", "x"),
                         ("GT", ">"), ("LPAR", "("), ("NAME", "y"), ("RPAR", ")"), ("SEMI", "")], []),
    ("sum <over x>(y)", [("GENERIC", "sum<over"), ("NAME", "x"), ("GT", ">"), ("LPAR", "("), ("NAME", "y"),
                         ("RPAR", ")"), ("SEMI", "")], ["PH005"]),
    ("sum<overx>(y)", [("NAME", "sum"), ("LT", "<"), ("NAME", "overx"), ("GT", ">"), ("LPAR", "("),
                       ("NAME", "y"), ("RPAR", ")"), ("SEMI", "")], []),
    # a letter outside ASCII right after the mode: the head ends at the mode, the letter is a name
    ("sum<overé x>(y)", [("GENERIC", "sum<over"), ("NAME", "é"), ("NAME", "x"), ("GT", ">"), ("LPAR", "("),
                         ("NAME", "y"), ("RPAR", ")"), ("SEMI", "")], ["PH003"]),
])
def test_generic_call_heads(src, kinds, codes):
    errors = []
    assert [(t.type, t.value) for t in tokenize(src, errors)] == kinds
    assert [d.code for d in errors] == codes
