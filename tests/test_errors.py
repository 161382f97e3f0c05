"""One test per front-end diagnostic code (PH001-PH206): the exact code, line and column of the
primary span and the key part of the message, through ``check_source``; the text rendering of one
through the command line; and no input here ever reaches PH900."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest

from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.diagnostics import CODES, ERROR, NOTE
from phobos_tools.cli.check import main


@dataclass(frozen=True)
class Case:
    code: str
    source: str | bytes
    line: int
    column: int
    message: str                 # a part of the message that must appear
    defines: dict | None = None
    only: bool = True            # the case's diagnostic is the only one
    help: str | None = None      # a part of the help that must appear
    severity: str = ERROR


def deep_ifs(n: int) -> str:
    return "kernel k() {\n" + "if true {\n" * n + "}\n" * n + "}\n"


# One primary case per code, in code order (the first case of each code is "the" test for it).
CASES = [
    Case("PH001", b"kernel k() {\n  let a = 1 // caf\xe9\n}\n", 2, 19, "not valid UTF-8: byte 0xe9 at offset 31",
         help="UTF-8"),
    Case("PH002", b"kernel k() {}\n" + b"/" * (4 * 1024 * 1024), 1, 1, "over the 4 MiB limit"),
    Case("PH003", "kernel k() {\n  let a = 1$\n}\n", 2, 12, "unexpected character '$'"),
    Case("PH004", "kernel k() {\n  let a = .5\n}\n", 2, 11, "`.5` is not a number", only=False,
         help="write `0.5`"),
    Case("PH005", "kernel k() {\n  let = 1\n}\n", 2, 7, "expected a name, found `=`"),
    Case("PH006", "kernel k() {\n  if true\n  {\n  }\n}\n", 3, 3, "put `{` on the line of the condition"),
    Case("PH007", "kernel k() {\n  if true {\n  }\n  else {\n  }\n}\n", 4, 3, "`else` must follow `}` on the same line"),
    Case("PH008", deep_ifs(600), 501, 1, "nesting deeper than 1000 levels"),
    Case("PH009", b"", 1, 1, "no kernel and no function"),
    Case("PH010", "kernel k() {\n  let a = 1 < 2 < 3\n}\n", 2, 17, "comparison operators cannot be chained"),
    Case("PH101", "kernel k() {\n  let a = b + 1\n}\n", 2, 11, "`b` is not declared"),
    Case("PH102", "kernel k() {\n  let a = 1\n  var a = 2\n}\n", 3, 7, "`a` is already declared in this block"),
    Case("PH103", "kernel k() {\n  let sum = 1\n}\n", 2, 7, "`sum` is a built-in and cannot be declared"),
    Case("PH104", "kernel k() {\n  let a: i8 = 300\n}\n", 2, 15, "literal 300 does not fit in i8"),
    Case("PH105", "kernel k(A: tensor<f32>[N]) {\n  var x: i32 = 0\n  x = A[0]\n}\n", 3, 7, "expected i32, found f32"),
    Case("PH106", "kernel k() {\n  var a: tile<f32>[4, 8] = 0.0\n  var b: tile<f32>[4, 8] = 0.0\n  var c = dot(a, b)\n}\n",
         4, 11, "inner extents 8 and 4 differ"),
    Case("PH107", "kernel k(A: tensor<f32>[N]) {\n  var t: tile<f32>[N]\n}\n", 2, 20,
         "tile dimension `N` is not a compile-time constant"),
    Case("PH108", "kernel k() {\n  let a = ctx.foo\n}\n", 2, 11, "`ctx.foo` is not a `ctx` field"),
    Case("PH109", "kernel k() {\n  let a = foo(1)\n}\n", 2, 11, "no function `foo`"),
    Case("PH110", "kernel k(A: tensor<f32>[N, M]) {\n  let a = A[0]\n}\n", 2, 11, "`A` has rank 2, but 1 subscript is given"),
    Case("PH111", "kernel k(A: tensor<f32>[N]) {\n  let a = sum(A[0 :+ 32])\n}\n", 2, 15,
         "a run's length must be a constant from 2 to 16, not 32"),
    Case("PH112", "kernel k() {\n  let x = 1.0\n  let a = sum(x)\n}\n", 3, 11, "of a scalar",
         help="did you mean `sum<over ctx.lane>(x)`?"),
    Case("PH113", "fn f(x: i32) -> i32 {\n  return f(x)\n}\nkernel k() {\n  let a = f(1)\n}\n", 2, 10,
         "`f` calls itself (through f -> f)"),
    Case("PH114", "kernel k() {\n  break\n}\n", 2, 3, "`break` outside a loop"),
    Case("PH115", "kernel k() {\n  let a = 1\n  a = 2\n}\n", 3, 3, "cannot assign to `a`: it is a `let`"),
    Case("PH116", "kernel k() {\n  1 + 2\n}\n", 2, 3, "only a call can stand as a statement"),
    Case("PH117", "kernel k() {\n  let a = 1.0 & 2.0\n}\n", 2, 11, "`&` needs integers"),
    Case("PH118", "kernel k(A: tensor<f32>[N]) {\n  var x: tensor<f32>[4]\n}\n", 2, 10, "a tensor cannot be declared as a `var`"),
    Case("PH119", "kernel k() {\n  for i in range(0, 10, 0) {\n  }\n}\n", 2, 25, "the step of a `for` loop must be positive, not 0"),
    Case("PH201", "@launch(100)\nkernel k() {\n}\n", 1, 9, "must be a multiple of 32 between 32 and 1024, not 100"),
    Case("PH202", "@aligned(Q = 4)\nkernel k(A: tensor<f32>[N]) {\n}\n", 1, 10, "`Q` is not an extent of this kernel's tensors"),
    Case("PH203", "@autotune(X)\nkernel k() {\n}\n", 1, 11, "`NAME in [v1, v2, ..]`"),
    Case("PH204", "@cluster(2)\nkernel k() {\n}\n", 1, 1, "`@cluster` is not used by phobos-tools and is ignored",
         severity=NOTE),
    Case("PH205", "@launch(128)\n@launch(64)\nkernel k() {\n}\n", 2, 1, "`@launch` is given twice"),
    Case("PH206", "kernel k() {\n}\n", 1, 1, "-D X=abc: the value must be an integer (128, -4, 0x40), a float (1.5, -2e-3) or true/false",
         defines={"X": "abc"}),
]

# More inputs per code: other forms of the same mistake.
MORE_CASES = [
    # a tile parameter, like a view, is written through a slice (the help says how)
    Case("PH115", "fn f(t: tile<f32>[1, 32]) {\n  t += 1.0\n}\n@launch(32)\nkernel k() {\n"
         "  var u: tile<f32>[1, 32] = 0.0\n  f(u)\n}\n", 2, 3, "cannot assign to `t`: it is a parameter",
         help="assign to a slice of it: `t[..] = ..`"),
    # attribute values past i32 (an @aligned one was accepted; an @autotune one surfaced later as PH211)
    Case("PH202", "@aligned(N = 99999999999999999999)\nkernel k(A: tensor<f32>[N]) {\n}\n", 1, 14,
         "the alignment must be a positive i32, not 99999999999999999999"),
    Case("PH203", "@autotune(T in [4, 99999999999])\n@launch(T)\nkernel k() {\n  var t: tile<f32>[1, T] = 0.0\n}\n",
         1, 20, "`@autotune` value 99999999999 of `T` does not fit in i32"),
    # a name taken by a compile-time constant says where the constant comes from
    Case("PH102", "kernel k(O: tensor<i32>[4]) {\n  let T = 3\n}\n", 2, 7,
         "`T` is already a compile-time constant, bound on the command line with `-D T=4`", defines={"T": "4"},
         help="use another name"),
    Case("PH102", "@autotune(T in [2, 4])\nkernel k(O: tensor<i32>[4]) {\n  var T = 3\n}\n", 3, 7,
         "`T` is already a compile-time constant, declared by `@autotune` at 1:11"),
    # the two values of min/max/where are named as written (the message said `+`)
    Case("PH117", "kernel k(p: bool) {\n  let z = min(p, p)\n}\n", 2, 11, "`min` needs numbers, not bool"),
    Case("PH105", "kernel k(p: bool, a: i32) {\n  let z = where(p, p, a)\n}\n", 2, 11,
         "`where` selects between two numbers or two bools, not bool and i32"),
    # LANGUAGE §2's lists end without a comma; one error per comma, and parsing goes on
    Case("PH005", "@launch(32,)\nkernel k(A: tensor<f32>[4], b: i32,) {\n  let x = min(1, 2,)\n}\n", 1, 11,
         "a trailing comma before `)`", only=False, help="remove the `,`"),
    Case("PH005", "@autotune(X in [1, 2,])\nkernel k() {\n}\n", 1, 21, "a trailing comma before `]`"),
    # calls nested past the inlining limit (32); a chain of 32 is fine (test_malformed.py)
    Case("PH008", "".join(f"fn g{i}(x: i32) -> i32 {{\n  return g{i + 1}(x)\n}}\n" for i in range(33))
         + "fn g33(x: i32) -> i32 {\n  return x\n}\nkernel k() {\n  let a = g0(1)\n}\n", 95, 10,
         "calls nested more than 32 deep (`g0` -> `g1` -> `g2` -> ... -> `g31` -> `g32`)"),
    # LANGUAGE §1 folds a minus before a literal, not before a parenthesized one
    Case("PH104", "kernel k(O: tensor<i32>[2]) {\n  O[0] = -(2147483648)\n}\n", 2, 11,
         "literal 2147483648 does not fit in i32"),
    # LANGUAGE §8: a shuffle's lane operand `E` is i32 (an i64 was accepted and truncated)
    Case("PH105", "kernel k(O: tensor<i32>[32], l: i64) {\n  O[ctx.thread] = shfl<idx l>(1)\n}\n", 2, 28,
         "the lane operand of `shfl<idx ..>` is an i32, not i64", help="`i32(l)`"),
    Case("PH001", b"\xff\xfe", 1, 1, "byte 0xff at offset 0"),
    Case("PH001", "kernel k() {\n\t\u00e9\n}\n".encode() + b"\xc3", 4, 1, "byte 0xc3 at offset 19"),
    Case("PH001", b"kernel k() {\n  let \xe9\xe9 = 1\n}\n", 2, 7, "byte 0xe9 at offset 19"),
    Case("PH003", "kernel k() {\n  let a = 1 # 2\n}\n", 2, 13, "unexpected character '#'", only=False),
    Case("PH003", "kernel k() {\n\tlet \u00e9 = 1\n}\n", 2, 6, "`\u00e9` is not a name: names are ASCII letters"),
    Case("PH003", "kernel k() {\n\tlet a = 1\u00b2\n}\n", 2, 11, "unexpected character '\u00b2'"),
    Case("PH003", "kernel k() {\n  let a = 1\x00\n}\n", 2, 12, "U+0000"),
    Case("PH004", "kernel k() {\n  let a = 1.\n}\n", 2, 11, "`1.` is not a number", only=False, help="write `1.0`"),
    Case("PH004", "kernel k() {\n  let a = 0x\n}\n", 2, 11, "`0x` is not a number", only=False),
    Case("PH005", "kernel k() {\n  let a = 1 +\n}\n", 3, 1, "found `}`"),
    Case("PH005", "kernel k() {\n  let a = 1\n", 3, 1, "unclosed `{`"),
    Case("PH005", "kernel k() {\n  x = [1]\n}\n", 2, 7, "found `[`"),
    Case("PH005", "kernel k(a i32) {\n}\n", 1, 12, "found `i32`"),
    Case("PH006", "kernel k()\n{\n}\n", 2, 1, "put `{` on the line of the kernel's header"),
    Case("PH006", "kernel k() {\n  for i in range(0, 4)\n  {\n  }\n}\n", 3, 3, "put `{` on the line of the `for`"),
    Case("PH006", "kernel k() {\n  while true\n  {\n  }\n}\n", 3, 3, "put `{` on the line of the condition"),
    Case("PH008", "kernel k() {\n  let a = " + "-(1 + " * 600 + "1" + ")" * 600 + "\n}\n", 2, 3001,
         "nesting deeper than 1000 levels"),
    Case("PH009", "// only a comment\n\n", 1, 1, "no kernel and no function"),
    Case("PH009", " \n\t\n;\n", 1, 1, "no kernel and no function"),
    Case("PH010", "kernel k() {\n  let a = 1 == 2 != 3\n}\n", 2, 18, "cannot be chained"),
    Case("PH101", "kernel k() {\n  let a = b\n  let b = 1\n}\n", 2, 11, "`b` is not declared"),
    Case("PH101", "kernel k() {\n  if true {\n    let a = 1\n  }\n  let b = a\n}\n", 5, 11, "`a` is not declared"),
    Case("PH102", "kernel k() {\n}\nkernel k() {\n}\n", 3, 8, "`k` is declared twice"),
    Case("PH102", "kernel k(a: i32, a: f32) {\n}\n", 1, 18, "`a` is already declared"),
    Case("PH103", "kernel k() {\n  var ctx = 1\n}\n", 2, 7, "cannot be declared"),
    Case("PH103", "kernel k(f32: i32) {\n}\n", 1, 10, "`f32` is a type name"),
    Case("PH103", "fn sum() {\n}\n", 1, 4, "`sum` is a built-in and cannot name a function"),
    Case("PH103", "kernel k() {\n  for tile in range(0, 4) {\n  }\n}\n", 2, 7, "`tile`"),
    Case("PH104", "kernel k() {\n  let a = 99999999999999999999999999999999999999999999999999999\n}\n", 2, 11,
         "does not fit in i32"),
    Case("PH104", "kernel k() {\n  let a = 1e999\n}\n", 2, 11, "does not fit in f32"),
    Case("PH104", "kernel k(A: tensor<u8>[N]) {\n  A[0] = -1\n}\n", 2, 10, "literal -1 does not fit in u8"),
    # a literal beside a run or a tile takes its element type (found by the fuzzer: these were accepted)
    Case("PH104", "kernel k(A: tensor<f32>[N]) {\n  store(A[4 :+ 4], A[0 :+ 4] * 1e39)\n}\n", 2, 32,
         "literal 1e39 does not fit in f32"),
    Case("PH104", "kernel k(A: tensor<f32>[N]) {\n  store(A[4 :+ 4], max(A[0 :+ 4], 0x1" + "0" * 40 + "))\n}\n",
         2, 35, "does not fit in f32"),
    Case("PH104", "kernel k(A: tensor<f32>[N]) {\n  store(A[0 :+ 4], where(A[0 :+ 4] > 0.0, 1e39, A[4 :+ 4]))\n}\n",
         2, 43, "literal 1e39 does not fit in f32"),
    Case("PH104", "kernel k() {\n  var t: tile<f32>[8, 8] = 1.0\n  t = where(t < 1e39, t, 0.0)\n}\n", 3, 17,
         "literal 1e39 does not fit in f32"),
    Case("PH104", "kernel k() {\n  var t: tile<f32>[8, 8] = 1.0\n  t *= 1e39\n}\n", 3, 8,
         "literal 1e39 does not fit in f32"),
    Case("PH105", "kernel k() {\n  var x: i32 = 1.5\n}\n", 2, 16, "a float literal cannot become i32"),
    Case("PH105", "kernel k() {\n  if 1 {\n  }\n}\n", 2, 6, "must be a bool"),
    Case("PH105", "kernel k(A: tensor<i8>[N]) {\n  A[0] = A[1] * A[2]\n}\n", 2, 10, "expected i8, found i32"),
    Case("PH106", "kernel k(A: tensor<f32>[N]) {\n  let a = sum(A[0 :+ 4] * A[0 :+ 8])\n}\n", 2, 15,
         "runs of different lengths (4 and 8)"),
    Case("PH106", "kernel k(A: tensor<f32>[N]) {\n  A[0 :+ 4] = A[4 :+ 8]\n}\n", 2, 15, "does not fit"),
    Case("PH107", "kernel k(A: tensor<f32>[N]) {\n  var t = A[0 :+ N]\n}\n", 2, 18, "the span length `N`"),
    Case("PH108", "kernel k() {\n  let a = ctx.block\n}\n", 2, 11, "`ctx.block` alone is not a value"),
    Case("PH108", "kernel k() {\n  let a = ctx\n}\n", 2, 11, "`ctx` alone is not a value"),
    Case("PH108", "kernel k() {\n  let a = 1\n  let b = a.x\n}\n", 3, 11, "only `ctx` has fields"),
    Case("PH109", "fn f(x: i32) -> i32 {\n  return x\n}\nkernel k() {\n  let a = f(1, 2)\n}\n", 5, 11,
         "`f` takes 1 argument, not 2"),
    Case("PH109", "kernel k() {\n  let a = sum<over ctx.warp>(1)\n}\n", 2, 20, "not `ctx.warp`"),
    Case("PH109", "kernel k() {\n  let a = sum<xor 1>(1)\n}\n", 2, 11, "only `shfl` takes a lane mode"),
    Case("PH109", "kernel k() {\n  var t: tile<f32>[4] = 0.0\n  atomic_add(t[0], 1.0)\n}\n", 3, 14,
         "works on global memory"),
    Case("PH110", "kernel k(A: tensor<f32>[N]) {\n  var t = A[1:]\n}\n", 2, 13, "open ends are not allowed"),
    Case("PH111", "kernel k(A: tensor<f32>[N, M]) {\n  let a = sum(A[0 :+ 4, 0 :+ 4])\n}\n", 2, 15,
         "exactly one slice axis"),
    Case("PH111", "kernel k(A: tensor<f32>[N]) {\n  let a = elem(A[0 :+ 1])\n}\n", 2, 16, "not 1"),
    Case("PH112", "kernel k(A: tensor<f32>[N, M]) {\n  var t: tile<f32>[4, 4] = A[0 :+ 4, 0 :+ 4]\n  let a = sum(t)\n}\n",
         3, 11, "not a tile", help="rowsum"),
    Case("PH113", "fn f(x: i32) -> i32 {\n  return g(x)\n}\nfn g(x: i32) -> i32 {\n  return f(x)\n}\n"
                  "kernel k() {\n  let a = f(1)\n}\n", 5, 10, "(through f -> g -> f)"),
    Case("PH114", "fn f() {\n  break\n}\nkernel k() {\n  for i in range(0, 4) {\n    f()\n  }\n}\n", 2, 3,
         "outside a loop of this function"),
    Case("PH114", "kernel k() {\n  return 1\n}\n", 2, 10, "a kernel returns no value"),
    Case("PH114", "fn f(x: i32) -> i32 {\n  if x > 0 {\n    return 1\n  }\n}\nkernel k() {\n  let a = f(1)\n}\n",
         5, 1, "may reach its end without returning a value"),
    Case("PH114", "kernel k() {\n  let a = 1\n  continue\n}\n", 3, 3, "`continue` outside a loop"),
    Case("PH115", "kernel k(n: i32) {\n  n = 2\n}\n", 2, 3, "it is a parameter"),
    Case("PH115", "kernel k() {\n  for i in range(0, 4) {\n    i = 2\n  }\n}\n", 3, 5, "it is a loop variable"),
    Case("PH115", "kernel k() {\n  1 = 2\n}\n", 2, 3, "must be a name or a subscript"),
    Case("PH117", "kernel k() {\n  let a = !1\n}\n", 2, 12, "`!` needs a bool"),
    Case("PH117", "kernel k() {\n  let a = 1 && true\n}\n", 2, 11, "`&&` needs bools"),
    Case("PH117", "kernel k() {\n  let a = 1 << 2.0\n}\n", 2, 11, "`<<` needs integers"),
    Case("PH118", "kernel k(t: tile<f32>[4]) {\n}\n", 1, 13, "a kernel cannot take a tile parameter"),
    Case("PH118", "kernel k(a: f31) {\n}\n", 1, 13, "unknown type `f31`"),
    Case("PH119", "kernel k() {\n  for i in rnage(0, 10) {\n  }\n}\n", 2, 12, "not `rnage`"),
    Case("PH119", "kernel k() {\n  for i in range(0) {\n  }\n}\n", 2, 12, "takes 2 or 3 arguments"),
    Case("PH201", "@launch(128, 1, 300)\nkernel k() {\n}\n", 1, 17, "maxRegs must be between 16 and 255, not 300"),
    Case("PH201", "@launch(128, 0)\nkernel k() {\n}\n", 1, 14, "minBlocks must be at least 1, not 0"),
    Case("PH201", "@launch\nkernel k() {\n}\n", 1, 1, "`@launch` takes `(threads[, minBlocks[, maxRegs]])`"),
    Case("PH201", "@launch(BLOCK)\nkernel k() {\n}\n", 1, 9, "`BLOCK` is not one"),
    Case("PH202", "@aligned(K = 0)\nkernel k(A: tensor<f32>[K]) {\n}\n", 1, 14, "must be a positive i32, not 0"),
    Case("PH202", "@aligned(4)\nkernel k(A: tensor<f32>[K]) {\n}\n", 1, 10, "`EXTENT = n`"),
    Case("PH203", "@autotune(X in [1], X in [2])\nkernel k() {\n}\n", 1, 21, "`X` is listed twice"),
    Case("PH203", "@autotune\nkernel k() {\n}\n", 1, 1, "needs at least one"),
    Case("PH204", "@foo\n@bar(1, x = 2)\nkernel k() {\n}\n", 1, 1, "`@foo` is not used", only=False, severity=NOTE),
    Case("PH205", "@autotune(X in [1])\n@autotune(Y in [2])\nkernel k() {\n}\n", 2, 1, "`@autotune` is given twice"),
    Case("PH206", "kernel k() {\n}\n", 1, 1, "-D sum=1: `sum` is reserved (a built-in)", defines={"sum": "1"}),
]

# PH210-PH213 (what phobos-build cannot lower yet or build quickly; target resources) have their own tests in
# test_lowering*.py and test_tiles_resources.py
FRONT_END_CODES = sorted(c for c in CODES if c[2] in "012" and c not in ("PH210", "PH211", "PH212", "PH213"))


def _case_id(case: Case) -> str:
    return case.code


def _check(case: Case):
    result = check_source(case.source, "k.ph", case.defines)
    assert all(d.code != "PH900" for d in result.diagnostics)
    found = [d for d in result.diagnostics if d.code == case.code]
    assert found, f"no {case.code}; got {[(d.code, d.span.line, d.span.column, d.message) for d in result.diagnostics]}"
    d = found[0]
    assert (d.span.line, d.span.column) == (case.line, case.column), d.message
    assert d.span.end_line >= d.span.line
    assert case.message in d.message
    assert d.severity == case.severity
    if case.help is not None:
        assert d.help is not None and case.help in d.help
    if case.only:
        assert [x.code for x in result.diagnostics] == [case.code], \
            [(x.code, x.span.line, x.span.column, x.message) for x in result.diagnostics]
    return result, d


def test_every_front_end_code_has_a_test():
    assert [c.code for c in CASES] == FRONT_END_CODES


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_code(case):
    result, d = _check(case)
    assert result.ok == (case.severity != ERROR)
    assert d.name == CODES[case.code][0]


@pytest.mark.parametrize("case", MORE_CASES, ids=_case_id)
def test_more_forms(case):
    _check(case)


def test_PH002_boundary():
    # PH002 is decided on the byte size, before decoding: just over is refused unread,
    # and a 4 MiB file of invalid bytes is a PH001, not a PH002.
    limit = 4 * 1024 * 1024
    over = check_source(b"\xff" * (limit + 1))
    assert [d.code for d in over.diagnostics] == ["PH002"] and over.text is None
    at = check_source(b"\xff" * limit)
    assert [d.code for d in at.diagnostics] == ["PH001"]
    # str input counts UTF-8 bytes: 2 MiB + 1 two-byte characters are over the limit
    assert [d.code for d in check_source("\u00e9" * (limit // 2 + 1)).diagnostics] == ["PH002"]


def test_PH204_is_a_note_and_the_kernel_is_accepted():
    result = check_source("@cluster(2)\n@launch(64)\nkernel k() {\n}\n")
    assert result.ok
    assert [(d.code, d.severity) for d in result.diagnostics] == [("PH204", NOTE)]
    assert result.semantics.kernels[0].threads == 64


def test_PH102_points_at_the_first_declaration():
    result = check_source("kernel k() {\n  let a = 1\n  var a = 2\n}\n")
    assert result.diagnostics[0].notes == ["first declared at 2:7"]


def test_shadowing_in_an_inner_block_is_allowed():
    assert check_source("kernel k() {\n  let a = 1\n  if true {\n    let a = 2.0\n  }\n}\n").diagnostics == []


def test_several_semantic_errors_in_one_file():
    src = ("kernel k() {\n"
           "  let a = b\n"
           "  let sum = 1\n"
           "  let c: i8 = 300\n"
           "  break\n"
           "}\n")
    result = check_source(src)
    assert [(d.code, d.span.line) for d in result.diagnostics] == \
        [("PH101", 2), ("PH103", 3), ("PH104", 4), ("PH114", 5)]


def test_diagnostics_are_sorted_by_position():
    src = "@launch(100)\nkernel k() {\n  let a = b\n}\nkernel j() {\n  let c = d\n}\n"
    result = check_source(src)
    keys = [(d.span.line, d.span.column) for d in result.diagnostics]
    assert keys == sorted(keys) and len(keys) == 3


# ------------------------------------------------------------------ the text format, via the CLI


def test_text_rendering_through_the_cli(tmp_path):
    path = tmp_path / "chain.ph"
    path.write_text("kernel k() {\n  let a = 1 < 2 < 3\n}\n")
    proc = subprocess.run([sys.executable, "-m", "phobos_tools.cli.check", str(path)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"{path}:2:17: error[PH010]: comparison operators cannot be chained"
    assert lines[1] == " 2 |   let a = 1 < 2 < 3"
    assert lines[2] == "   |                 ^ a second comparison"
    assert lines[3] == "   = help: parenthesize one side, as in `(a < b) == c`"
    assert "1 error in 1 file" in proc.stderr


def test_text_rendering_of_a_wide_span(tmp_path, capsys):
    path = tmp_path / "wide.ph"
    path.write_text("kernel k(A: tensor<f32>[N, M]) {\n\tlet a = A[0]\n}\n")
    status = main([str(path)])
    out, err = capsys.readouterr()
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == f"{path}:2:10: error[PH110]: `A` has rank 2, but 1 subscript is given"
    assert lines[1] == " 2 | \tlet a = A[0]"
    # a tab counts as one column; the caret line copies it so the marks stay under `A[0]`
    assert lines[2].startswith("   | \t        ^^^^")
    assert "Traceback" not in out + err


def test_cli_exit_status_for_a_note_only_file(tmp_path, capsys):
    path = tmp_path / "note.ph"
    path.write_text("@cluster(2)\nkernel k() {\n}\n")
    assert main([str(path)]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[0] == f"{path}:1:1: note[PH204]: attribute `@cluster` is not used by phobos-tools and is ignored"


def test_cli_define_error(tmp_path, capsys):
    # a -D value that is no literal is a usage error of the command line, found before any file
    # is read; PH206 (the CASES above) is what check_source reports for it through the API
    path = tmp_path / "d.ph"
    path.write_text("kernel k() {\n}\n")
    assert main(["-D", "X=abc", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("phobos-check: error: -D X=abc: the value must be")


# ------------------------------------------------------------------ PH9xx


def test_no_input_reaches_PH900(tmp_path, capsys):
    """Every input of this file, through the command line: exit 0 or 1, never 3, never PH900."""
    paths = []
    for i, case in enumerate(CASES + MORE_CASES):
        if case.defines:
            continue
        p = tmp_path / f"c{i:03d}_{case.code}.ph"
        p.write_bytes(case.source if isinstance(case.source, bytes) else case.source.encode())
        paths.append(str(p))
    status = main(paths)
    out, err = capsys.readouterr()
    assert status == 1
    assert "[PH900]" not in out and "internal error" not in out + err
    assert "Traceback" not in out + err


def test_an_internal_error_is_PH900_exit_3(tmp_path, capsys, monkeypatch):
    import phobos_tools.analyzer

    def boom(path, defines=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(phobos_tools.analyzer, "check_file", boom)
    path = tmp_path / "k.ph"
    path.write_text("kernel k() {\n}\n")
    assert main([str(path)]) == 3
    out, err = capsys.readouterr()
    assert f"{path}:1:1: error[PH900]: internal error: RuntimeError: boom" in out
    assert "Traceback" not in out + err


# An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so what
# depends on their values waits for a call; what is wrong for any binding is still reported.
GENERIC_OK = [
    "fn f(t: tile<f32>[1, L]) -> f32 {\n  let z = rowsum(t)\n  return z[0, 0]\n}",
    "fn f(A: tensor<f32>[M, N], r: i32) -> f32 {\n  var t = A[r :+ 4, 0 :+ N]\n  let s = rowsum(t)\n  return s[0, 0]\n}",
    "fn f(A: tensor<f32>[N]) -> f32 {\n  return sum(A[0 :+ N])\n}",
    "fn f(A: tensor<f32>[N], O: tensor<f32>[N]) {\n  store(O[0 :+ N], A[0 :+ N] * 2.0)\n}",
    "fn f(a: tile<f32>[M, K], b: tile<f32>[K, N]) -> tile<f32>[M, N] {\n  return dot(a, b)\n}",
    "fn f(a: tile<f32>[M, K], b: tile<f32>[M, 1]) -> f32 {\n  var c = a + b\n  c = c * 2.0\n"
    "  let r = rowmax(c)\n  return r[0, 0]\n}",
    "fn f(a: tile<i8>[M, K], sa: tile<f32>[M, S], w: tile<i8>[N, K], sw: tile<f32>[N, S]) -> f32 {\n"
    "  let c = qdot_t(a, sa, w, sw)\n  return c[0, 0]\n}",
    # a dim bound at each call may size a tile (a constant wherever the call passes a static extent)
    "fn f(A: tensor<f32>[N]) -> f32 {\n  var t: tile<f32>[N] = A[0 :+ N]\n  return t[0]\n}",
]
GENERIC_BAD = [
    ("fn f(a: tile<f32>[4, 8], b: tile<f32>[8, 4]) -> f32 {\n  var c = a + b\n  return 0.0\n}", "PH106", 2),
    ("fn f(A: tensor<f32>[N], k: i32) -> f32 {\n  return sum(A[0 :+ k])\n}", "PH107", 2),
    ("fn f(t: tile<i32>[1, L]) -> i32 {\n  let z = rowsum(t)\n  return 0\n}", "PH105", 2),
    ("fn f(A: tensor<f32>[N]) -> f32 {\n  return sum(A[0 :+ 17])\n}", "PH111", 2),
]
KERNEL = "\n@launch(32)\nkernel k(O: tensor<f32>[4]) {\n  O[0] = 1.0\n}\n"


@pytest.mark.parametrize("fn", GENERIC_OK)
def test_an_uncalled_generic_function_is_accepted(fn):
    result = check_source(fn + KERNEL)
    assert result.ok and not result.diagnostics, [(d.code, d.message) for d in result.diagnostics]


@pytest.mark.parametrize("fn,code,line", GENERIC_BAD)
def test_an_uncalled_function_still_reports_type_errors(fn, code, line):
    result = check_source(fn + KERNEL)
    assert [(d.code, d.span.line) for d in result.diagnostics] == [(code, line)], \
        [(d.code, d.message) for d in result.diagnostics]


def test_a_generic_function_is_checked_again_at_each_call():
    fn = "fn f(A: tensor<f32>[N]) -> f32 {\n  return sum(A[0 :+ N])\n}\n"
    ok = fn + "@launch(32)\nkernel k(A: tensor<f32>[8], O: tensor<f32>[4]) {\n  O[0] = f(A[0 :+ 4])\n}\n"
    assert check_source(ok).ok
    bad = ok.replace("f(A[0 :+ 4])", "f(A[0 :+ 8])").replace("tensor<f32>[8]", "tensor<f32>[32]")
    bad = bad.replace("A[0 :+ 8]", "A[0 :+ 32]")
    result = check_source(bad)
    assert "PH111" in {d.code for d in result.diagnostics}, [(d.code, d.message) for d in result.diagnostics]


def test_a_tile_sized_by_a_function_dim_needs_a_static_extent_at_the_call():
    fn = "fn f(A: tensor<f32>[N]) -> f32 {\n  var t: tile<f32>[N] = A[0 :+ N]\n  return t[0]\n}\n"
    static = fn + "@launch(32)\nkernel k(A: tensor<f32>[8], O: tensor<f32>[1]) {\n  O[0] = f(A)\n}\n"
    assert check_source(static).ok
    runtime = static.replace("tensor<f32>[8]", "tensor<f32>[M]")
    assert [(d.code, d.span.line) for d in check_source(runtime).diagnostics] == [("PH107", 2), ("PH107", 2)]


# A function returns on every path when some statement of its body always returns: what follows
# it cannot run (it was a syntactic check of the last statement only).
ALWAYS_RETURNS = [
    "fn f(x: i32) -> i32 {\n  return x\n  let y = 1\n}",
    "fn f(x: i32) -> i32 {\n  if x > 0 {\n    return 1\n  } else {\n    return 2\n  }\n  let y = 1\n}",
    "fn f(x: i32) -> i32 {\n  while true {\n    if x > 3 {\n      return x\n    }\n  }\n}",
    "fn f(x: i32) -> i32 {\n  while true {\n    for i in range(0, 4) {\n      break\n    }\n    return x\n  }\n}",
]
MAY_END = [
    "fn f(x: i32) -> i32 {\n  while true {\n    if x > 0 {\n      break\n    }\n    return x\n  }\n}",
    "fn f(x: i32) -> i32 {\n  while x > 0 {\n    return x\n  }\n}",
    "fn f(x: i32) -> i32 {\n  for i in range(0, 4) {\n    return x\n  }\n}",
]
CALLER = "\n@launch(32)\nkernel k(O: tensor<i32>[32]) {\n  O[ctx.thread] = f(ctx.lane)\n}\n"


@pytest.mark.parametrize("fn", ALWAYS_RETURNS)
def test_a_function_returns_when_one_statement_always_does(fn):
    result = check_source(fn + CALLER)
    assert result.ok and not result.diagnostics, [(d.code, d.message) for d in result.diagnostics]


@pytest.mark.parametrize("fn", MAY_END)
def test_a_function_that_may_leave_its_loop_may_end_without_a_value(fn):
    result = check_source(fn + CALLER)
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("PH114", "`f` may reach its end without returning a value")]
    assert result.diagnostics[0].help == "end every path with a `return` of type i32"
