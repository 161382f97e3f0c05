"""The small ones of issue 18: `--grid` and extents are ASCII decimal numbers (a clean usage error
otherwise, never an internal one), a `-D` value of thousands of digits is PH206 from the API and
a one-line usage error from the commands, a scalar too large for any float is ArgumentError, and
keywords are refused as `-D` names as the other reserved words are."""

from __future__ import annotations

import numpy as np
import pytest

from hostile_shapes import run
from paths import EXAMPLES
from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.syntax.tokens import KEYWORDS as TOKEN_KEYWORDS
from phobos_tools.language.arguments import ArgumentError, scalar_value
from phobos_tools.language.literals import KEYWORDS, DefineError, define_value
from phobos_tools.run import loads

pytestmark = pytest.mark.slow

GELU = str(EXAMPLES / "gelu.ph")
GELU_ARGS = ["--arg", "X=rand:f16:4x8", "--arg", "Y=zeros:f16:4x8"]
SCALAR = """\
@launch(32)
kernel k(O: tensor<f32>[32], f: f32, n: i32) {
  O[ctx.thread] = f + f32(n) + f32(N)
}
"""
DIGITS = "9" * 3600


def short(v) -> str:
    """A test id for a value of thousands of digits (str() refuses an int past 4,300)."""
    text = f"int of {v.bit_length()} bits" if isinstance(v, int) and abs(v) > 10**100 else str(v)
    return text if len(text) <= 24 else f"{text[:10]}..{len(text)}chars"


def one_line(ran, prog="phobos-run") -> str:
    assert ran.status == 2, ran.err
    assert ran.out == "" and "Traceback" not in ran.err
    lines = ran.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), ran.err
    assert len(lines[0]) < 300, lines[0]            # a long value is shortened, not echoed whole
    return lines[0]


@pytest.mark.parametrize("grid", ["²", "١", "1,²", "٣,1", "1x2", "-1", "0", "1,,2", "", "1,2,3,4",
                                  "9" * 5000, "1," + "9" * 5000, "0" * 5000 + "1" * 12], ids=short)
def test_a_grid_that_is_no_ascii_decimal_is_a_usage_error(tmp_path, grid):
    line = one_line(run("phobos-run", "--sim", "--grid", grid, GELU, *GELU_ARGS, "--out", str(tmp_path)))
    assert "--grid" in line


def test_leading_zeros_in_a_grid_are_only_digits(tmp_path):
    ran = run("phobos-run", "--sim", "--grid", "0" * 5000 + "2", GELU, *GELU_ARGS, "--out", str(tmp_path))
    assert ran.status == 0 and "grid (2)" in ran.err, ran.err


@pytest.mark.parametrize("spec", ["rand:f16:4x" + "9" * 5000, "zeros:f16:" + "9" * 5000 + "x8",
                                  "rand:f16:4x2147483648", "rand:f16:4x²"], ids=short)
def test_an_extent_of_thousands_of_digits_is_a_usage_error(tmp_path, spec):
    line = one_line(run("phobos-run", "--sim", "--grid", "1", GELU, "--arg", f"X={spec}", "--arg",
                        "Y=zeros:f16:4x8", "--out", str(tmp_path)))
    assert "--arg X" in line


@pytest.mark.parametrize("prog", ["phobos-check", "phobos-build", "phobos-run"])
def test_a_define_of_3600_digits_is_a_usage_error_in_one_short_line(tmp_path, prog):
    f = tmp_path / "k.ph"
    f.write_text(SCALAR)
    extra = {"phobos-check": [], "phobos-build": ["-o", str(tmp_path)],
             "phobos-run": ["--sim", "--grid", "1", "--arg", "O=zeros:f32:32", "--arg", "f=1.0", "--arg", "n=1"]}
    line = one_line(run(prog, str(f), "-D", f"N={DIGITS}", *extra[prog]), prog)
    assert "-D N=999999" in line and "(3,600 characters)" in line and "does not fit in i32" in line


@pytest.mark.parametrize("value", [DIGITS, int(DIGITS), 10**5000, -10**5000, "1" + "0" * 400 + ".0", 1e300], ids=short)
def test_a_huge_define_is_ph206_from_the_api(value):
    r = check_source(SCALAR, "k.ph", defines={"N": value})
    [d] = [d for d in r.diagnostics if d.code == "PH206"]
    assert "does not fit in" in d.message and len(d.message) < 200, d.message


@pytest.mark.parametrize("name", sorted(KEYWORDS))
def test_a_keyword_is_refused_as_a_define_name(name):
    with pytest.raises(DefineError, match=f"`{name}` is reserved \\(a keyword\\)"):
        define_value(name, "5")
    r = check_source(SCALAR, "k.ph", defines={"N": 1, name: 5})
    assert [d.code for d in r.diagnostics] == ["PH206"]


@pytest.mark.parametrize("define", ["true=5", "if=3", "while=1", "fn=2"])
def test_a_keyword_as_a_define_is_a_usage_error_in_the_commands(tmp_path, define):
    f = tmp_path / "k.ph"
    f.write_text(SCALAR)
    name = define.split("=")[0]
    line = one_line(run("phobos-check", str(f), "-D", "N=1", "-D", define), "phobos-check")
    assert f"-D {define}: `{name}` is reserved (a keyword)" in line


def test_the_keywords_are_the_lexer_s():
    assert KEYWORDS == set(TOKEN_KEYWORDS)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32", "f64", "i8", "i32", "i64", "u8"])
@pytest.mark.parametrize("value", [10**400, -10**400, 10**5000], ids=short)
def test_a_scalar_beyond_every_float_is_an_argument_error(dtype, value):
    with pytest.raises(ArgumentError, match=f"integer of [0-9,]+ bits does not fit in {dtype}"):
        scalar_value("f", dtype, value)


def test_a_huge_scalar_is_an_argument_error_from_a_kernel_call():
    kernel = loads(SCALAR, "k.ph", {"N": 1}).kernel()
    with pytest.raises(ArgumentError, match="does not fit in f32"):
        kernel(np.zeros(32, np.float32), 10**400, 1, grid=1)
    with pytest.raises(ArgumentError, match="does not fit in i32"):
        kernel(np.zeros(32, np.float32), 1.0, 10**5000, grid=1)


@pytest.mark.parametrize("value", ["1" + "0" * 400 + ".0", "1e400", "-" + "9" * 5000], ids=short)
def test_a_huge_scalar_is_a_usage_error_from_phobos_run(tmp_path, value):
    f = tmp_path / "k.ph"
    f.write_text(SCALAR)
    line = one_line(run("phobos-run", "--sim", "--grid", "1", str(f), "-D", "N=1", "--arg", "O=zeros:f32:32",
                        "--arg", f"f={value}", "--arg", "n=1", "--out", str(tmp_path)))
    assert "--arg f" in line and "does not fit in f32" in line
