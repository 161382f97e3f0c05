"""Malformed input, through ``check_source`` and through ``phobos-check``'s ``main()``: deep
nesting, long chains, huge literals, bad encodings, size limits, empty files, NUL bytes, random
bytes and truncated kernels. None may raise, reach PH900 or print a traceback; the command line
exits 0, 1 or 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paths import REPO, SPEC_KERNELS
from phobos_tools.analyzer import check_source
from phobos_tools.analyzer.api import MAX_SOURCE_BYTES
from phobos_tools.analyzer.diagnostics import CODES, ERROR
from phobos_tools.analyzer.diagnostics.text import render_text
from phobos_tools.cli.check import main

pytestmark = pytest.mark.fuzz

KERNELS = sorted((REPO / "examples").glob("*.ph")) + sorted(SPEC_KERNELS.glob("*.ph"))
KERNEL_BYTES = [p.read_bytes() for p in KERNELS]

FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=200,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FUZZ_CLI = settings(FUZZ, max_examples=40)


def checked(data: bytes | str, defines=None):
    """check_source, with the invariants every input must keep."""
    result = check_source(data, "m.ph", defines)
    for i, d in enumerate(result.diagnostics):
        assert d.code != "PH900"
        assert d.code in CODES
        assert d.span.line >= 1 and d.span.column >= 1
        assert (d.span.end_line, d.span.end_column) >= (d.span.line, d.span.column)
        if i < 20:                                           # rendering never raises either
            text = render_text(d, "m.ph", result.text)
            assert text.startswith(f"m.ph:{d.span.line}:{d.span.column}: {d.severity}[{d.code}]: ")
    if result.text is None:
        assert any(d.code in ("PH001", "PH002") for d in result.diagnostics)
    return result


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


def run_cli(tmp_path: Path, data: bytes | str, capsys, name: str = "m.ph") -> tuple[int, str]:
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    status = main([str(path)])
    out, err = capsys.readouterr()
    assert status in (0, 1, 2), status
    assert "Traceback" not in out + err
    assert "[PH900]" not in out and "internal error" not in err
    return status, out


def both(tmp_path, capsys, data, expect_codes=None, expect_status=None):
    """Through check_source, then the command line; returns the check result and CLI output."""
    result = checked(data)
    if expect_codes is not None:
        assert codes(result) == expect_codes, [(d.code, d.span, d.message) for d in result.diagnostics]
    status, out = run_cli(tmp_path, data, capsys)
    if expect_status is not None:
        assert status == expect_status
    first_error = next((d for d in result.diagnostics if d.severity == ERROR), None)
    assert status == (1 if first_error else 0)
    if first_error is not None:
        assert f"m.ph:{first_error.span.line}:{first_error.span.column}: error[{first_error.code}]" in out
    return result, out


# ------------------------------------------------------------------ deep nesting and long chains


def test_5000_deep_parentheses(tmp_path, capsys):
    # parentheses build no nodes, so this is just `1`; it must neither recurse nor fail
    src = "kernel k() {\n  let a = " + "(" * 5000 + "1" + ")" * 5000 + "\n}\n"
    result, _ = both(tmp_path, capsys, src)
    assert set(codes(result)) <= {"PH008"}


def test_5000_deep_parenthesized_sums(tmp_path, capsys):
    src = "kernel k() {\n  let a = " + "(1 + " * 5000 + "1" + ")" * 5000 + "\n}\n"
    both(tmp_path, capsys, src, ["PH008"], 1)


def test_5000_deep_if_blocks(tmp_path, capsys):
    src = "kernel k() {\n" + "if true {\n" * 5000 + "}\n" * 5000 + "}\n"
    result, _ = both(tmp_path, capsys, src, ["PH008"], 1)
    assert "nesting deeper than" in result.diagnostics[0].message


def test_5000_deep_loops(tmp_path, capsys):
    src = "kernel k() {\n" + "".join(f"for i{j} in range(0, 2) {{\n" for j in range(5000)) + "}\n" * 5000 + "}\n"
    both(tmp_path, capsys, src, ["PH008"], 1)


@pytest.mark.parametrize("shape", ["unary", "not", "index", "call", "generic", "member"])
def test_5000_deep_expressions(shape, tmp_path, capsys):
    n = 5000
    inner = {
        "unary": "-" * n + "x",
        "not": "!" * n + "true",
        "index": "A" + "[0]" * n,
        "call": "abs(" * n + "1" + ")" * n,
        "generic": "sum<over ctx.lane>(" * n + "1.0" + ")" * n,
        "member": "a" + ".b" * n,
    }[shape]
    src = f"kernel k(A: tensor<f32>[N]) {{\n  let a = {inner}\n}}\n"
    both(tmp_path, capsys, src, ["PH008"], 1)


def test_100k_long_operator_chain(tmp_path, capsys):
    src = "kernel k() {\n  let a = " + "1+" * 100_000 + "1\n}\n"
    result, _ = both(tmp_path, capsys, src, ["PH008"], 1)
    assert result.diagnostics[0].span.line == 2


def test_100k_digit_literal(tmp_path, capsys):
    src = "kernel k() {\n  let a = " + "7" * 100_000 + "\n}\n"
    result, _ = both(tmp_path, capsys, src, ["PH104"], 1)
    assert (result.diagnostics[0].span.line, result.diagnostics[0].span.column) == (2, 11)
    assert len(result.diagnostics[0].message) < 200       # the literal is shortened in the message


def test_100k_digit_float_and_hex_literals():
    assert codes(checked("kernel k() {\n  let a = 0x" + "f" * 100_000 + "\n}\n")) == ["PH104"]
    assert codes(checked("kernel k() {\n  let a = 1." + "5" * 100_000 + "\n}\n")) == []
    assert codes(checked("kernel k() {\n  let a = " + "9" * 100_000 + ".0\n}\n")) == ["PH104"]


def test_long_line_of_statements(tmp_path, capsys):
    both(tmp_path, capsys, "kernel k() {var a = 0;" + "a += 1;" * 20_000 + "}\n", [], 0)


def test_1000_long_else_if_chain(tmp_path, capsys):
    src = "kernel k() {\n  " + "if true { } else " * 1000 + "{ }\n}\n"
    result, _ = both(tmp_path, capsys, src)
    assert codes(result) in ([], ["PH008"])


# ------------------------------------------------------------------ encoding, size, emptiness


@pytest.mark.parametrize("data, line, col", [
    (b"\xff\xfe\x00k", 1, 1),
    (b"kernel k() {\n  let a = 1 // \xc0\xaf\n}\n", 2, 16),
    (b"kernel k() {\n  let a = 1\n}\n\xe2\x82", 4, 1),           # a truncated 3-byte sequence
    (b"kernel k() {}\n\xed\xa0\x80\n", 2, 1),                   # an encoded surrogate
])
def test_non_utf8_is_PH001(data, line, col, tmp_path, capsys):
    result, _ = both(tmp_path, capsys, data, ["PH001"], 1)
    d = result.diagnostics[0]
    assert (d.span.line, d.span.column) == (line, col)
    assert result.text is None and result.program is None


def test_over_4_MiB_is_PH002(tmp_path, capsys):
    data = b"kernel k() {}\n" + b" " * (MAX_SOURCE_BYTES - 14) + b"\n"
    assert len(data) == MAX_SOURCE_BYTES + 1
    result, out = both(tmp_path, capsys, data, ["PH002"], 1)
    assert "4 MiB" in result.diagnostics[0].message


def test_exactly_4_MiB_of_valid_content_is_accepted(tmp_path, capsys):
    head = b"// padding follows\nkernel k(A: tensor<f32>[N]) {\n  A[0] = 1.0\n}\n"
    line = b"// " + b"x" * 60 + b"\n"
    body = head + line * ((MAX_SOURCE_BYTES - len(head)) // len(line))
    data = body + b"/" * (MAX_SOURCE_BYTES - len(body))
    assert len(data) == MAX_SOURCE_BYTES
    result, _ = both(tmp_path, capsys, data, [], 0)
    assert result.semantics is not None and result.semantics.kernels[0].kernel.name == "k"


def test_empty_file_is_PH009(tmp_path, capsys):
    both(tmp_path, capsys, b"", ["PH009"], 1)


def test_whitespace_and_comments_only_is_PH009(tmp_path, capsys):
    both(tmp_path, capsys, b"\n\n   \t\n// nothing here\r\n", ["PH009"], 1)


def test_nul_bytes(tmp_path, capsys):
    result, _ = both(tmp_path, capsys, b"\x00" * 1000, expect_status=1)
    assert codes(result)[0] == "PH003"
    result, _ = both(tmp_path, capsys, b"kernel k() {\n  let a = 1\x00\x00\n}\n", ["PH003"], 1)
    assert (result.diagnostics[0].span.line, result.diagnostics[0].span.column) == (2, 12)


def test_control_characters_and_unicode_spaces():
    for ch in ("\x0b", "\x0c", "\u00a0", "\u2028", "\u200b", "\x7f"):
        result = checked(f"kernel k() {{\n  let a ={ch}1\n}}\n")
        assert codes(result) == ["PH003"]
        assert (result.diagnostics[0].span.line, result.diagnostics[0].span.column) == (2, 10)


def test_lone_surrogate_in_a_str():
    checked("kernel k() {\n  let a = 1 \ud800\n}\n")


# ------------------------------------------------------------------ random input (hypothesis)


@FUZZ
@given(st.binary(max_size=3000))
def test_random_bytes(data):
    result = checked(data)
    assert result.ok == (not any(d.severity == ERROR for d in result.diagnostics))


@FUZZ
@given(st.text(max_size=2000))
def test_random_text(text):
    checked(text)
    checked(text.encode("utf-8", "surrogatepass"))


@FUZZ_CLI
@given(st.binary(min_size=1, max_size=2000))
def test_random_bytes_through_the_cli(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("rand") / "r.ph"
    path.write_bytes(data)
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(path)])
    assert status in (0, 1, 2)
    assert "Traceback" not in out.getvalue() + err.getvalue()
    assert "[PH900]" not in out.getvalue()


TOKENS = [
    "kernel", "fn", "let", "var", "if", "else", "for", "in", "while", "break", "continue", "return", "true", "false",
    "(", ")", "[", "]", "{", "}", ",", ":", ":+", "->", "@", ".", ";", "+", "-", "*", "/", "%", "<<", ">>", "&&",
    "||", "&", "^", "|", "!", "~", "==", "!=", "<=", ">=", "<", ">", "=", "+=", "<<=", "\n", "\n", "\n",
    "k", "x", "A", "N", "ctx", "lane", "block", "range", "sum<over", "shfl<xor", "tensor", "tile", "f32", "i8",
    "0", "1", "4", "-1", "1.5", "0x1F", "1e-3", "launch", "aligned", "autotune", "dot", "barrier",
]


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=300))
def test_random_token_soup(tokens):
    checked(" ".join(tokens))


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=120))
def test_random_statements_in_a_kernel(tokens):
    checked("@launch(128)\nkernel k(A: tensor<f32>[N, K], x: i32) {\n  " + " ".join(tokens) + "\n}\n")


# ------------------------------------------------------------------ truncated and damaged kernels


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_line_truncation(path):
    data = path.read_bytes()
    ends = [i for i, b in enumerate(data) if b == 0x0A]
    for end in ends:
        checked(data[:end])
        checked(data[:end + 1] + b"}")


@FUZZ
@given(st.data())
def test_truncation_at_random_points(data):
    source = data.draw(st.sampled_from(KERNEL_BYTES))
    cut = data.draw(st.integers(0, len(source)))
    checked(source[:cut])


@FUZZ
@given(st.data())
def test_random_deletions_and_duplications(data):
    source = data.draw(st.sampled_from(KERNEL_BYTES))
    a = data.draw(st.integers(0, len(source)))
    b = data.draw(st.integers(a, min(len(source), a + 80)))
    if data.draw(st.booleans()):
        damaged = source[:a] + source[b:]            # a piece cut out
    else:
        damaged = source[:b] + source[a:]            # a piece repeated
    checked(damaged)


@FUZZ_CLI
@given(st.data())
def test_truncation_through_the_cli(tmp_path_factory, data):
    source = data.draw(st.sampled_from(KERNEL_BYTES))
    cut = data.draw(st.integers(0, len(source)))
    path = tmp_path_factory.mktemp("trunc") / "t.ph"
    path.write_bytes(source[:cut])
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(path)])
    assert status in (0, 1)
    assert "Traceback" not in out.getvalue() + err.getvalue()
    assert "[PH900]" not in out.getvalue()


def test_a_directory_of_malformed_files(tmp_path, capsys):
    samples = {
        "empty.ph": b"",
        "bad_utf8.ph": b"\xff",
        "nul.ph": b"\x00",
        "deep.ph": ("kernel k() {\n" + "if true {\n" * 600 + "}\n" * 600 + "}\n").encode(),
        "ok.ph": b"kernel k() {\n}\n",
        "half.ph": KERNEL_BYTES[0][: len(KERNEL_BYTES[0]) // 2],
    }
    for name, data in samples.items():
        (tmp_path / name).write_bytes(data)
    status = main([str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 1
    assert "Traceback" not in out + err and "[PH900]" not in out
    for name in ("empty.ph", "bad_utf8.ph", "nul.ph", "deep.ph", "half.ph"):
        assert f"{tmp_path / name}:" in out
    assert f"{tmp_path / 'ok.ph'}:" not in out
    assert "6 files checked" in err


# ------------------------------------------------------------------ known crashes found by fuzzing


def test_non_constant_range_length_is_PH107(tmp_path, capsys):
    src = "kernel k(A: tensor<f32>[N]) {\n  let r = ctx.block.x\n  let v = A[r : 64]\n}\n"
    result, _ = both(tmp_path, capsys, src, expect_status=1)
    assert codes(result) == ["PH107"]


def test_unknown_shaped_parameter_type_in_a_called_function(tmp_path, capsys):
    src = "fn f(x: vec<f32>[4]) -> f32 {\n  return 1.0\n}\nkernel k() {\n  let a = f(1.0)\n}\n"
    result, _ = both(tmp_path, capsys, src, expect_status=1)
    assert "PH118" in codes(result)


# ------------------------------------------------------------------ deep but within the limits


def test_a_990_term_sum_checks_builds_and_runs(tmp_path):
    # a flat chain nests one level per operator: 990 are within MAX_NESTING (1000) and every
    # pass, the simulator's too, has the recursion room for them
    from phobos_tools.run import loads
    import numpy as np
    src = ("@launch(32)\nkernel k(A: tensor<f32>[32], O: tensor<f32>[32]) {\n  O[ctx.thread] = "
           + " + ".join(["A[ctx.thread]"] * 990) + "\n}\n")
    assert codes(checked(src)) == []
    a = np.random.default_rng(1).random(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    loads(src, "k.ph").kernel()(a, out, grid=(1,))
    np.testing.assert_allclose(out, 990 * a.astype(np.float64), rtol=1e-4)
    from phobos_tools.lowering.build import build_source
    built = build_source(src, "k.ph")
    assert built.ok and ".entry k" in built.kernels[0].ptx


def test_a_chain_of_32_calls_and_folded_minimum_literals_are_accepted():
    src = "".join(f"fn g{i}(x: i32) -> i32 {{\n  return g{i + 1}(x) + 1\n}}\n" for i in range(31))
    src += "fn g31(x: i32) -> i32 {\n  return x\n}\n"
    src += "kernel k(O: tensor<i32>[4]) {\n  O[0] = g0(1)\n  O[1] = -2147483648\n  O[2] = - 2147483648\n  O[3] = -(5)\n}\n"
    assert codes(checked(src)) == []


def test_the_python_api_reads_files_as_the_commands_do(tmp_path):
    # simulator.load and lowering.build_file read through read_source: a device is refused at
    # once, and an oversized file is PH002 without being read whole
    from phobos_tools.lowering.build import build_file
    from phobos_tools.run import ProgramRejected, load
    for f in (load, build_file):
        with pytest.raises(OSError, match="not a regular file"):
            f("/dev/zero")
    big = tmp_path / "big.ph"
    big.write_bytes(b"kernel k() {}\n" + b"/" * MAX_SOURCE_BYTES)
    with pytest.raises(ProgramRejected) as err:
        load(big)
    assert [d.code for d in err.value.diagnostics] == ["PH002"]
    assert [d.code for d in build_file(big).diagnostics] == ["PH002"]
