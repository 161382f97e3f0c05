"""Hints for the mistakes a programmer coming from CUDA makes first: each diagnostic below must
say what to write instead, and nothing else may change (the code, the location, the number of
errors). Found by writing kernels the way a CUDA user would (warp indices through `ctx.thread`, a
per-thread histogram with `atomic_add`, one `var` reused, `var acc = 0` for a float sum, 32-bit hash
constants, `threadIdx.x`, `i++`, `?:`).

The single kernels are UI fixtures (tests/ui/hints/), their hints pinned by `//~` markers (`help
"..."`, `note "..."`) and by their snapshots; what stays here is a table of variants, several
programs, or a hint that must *not* be given."""

from __future__ import annotations

import pytest

from phobos_tools.analyzer import check_source


def errors(src: str):
    return [d for d in check_source(src, "t.ph").diagnostics if d.severity == "error"]


def only(src: str, code: str):
    errs = errors(src)
    assert [d.code for d in errs] == [code], [(d.code, d.message) for d in errs]
    return errs[0]


LANE_SUM = """@launch(128)
kernel k(X: tensor<f32>[1, 128], O: tensor<f32>[1, 4]) {{
  {pre}
  if {cond} {{
    let t = sum<over ctx.lane>(X[0, ctx.thread])
    O[0, 0] = t
  }}
}}
"""


@pytest.mark.parametrize("pre, cond, form", [
    ("", "ctx.thread < 32", "ctx.warp == 0"),
    ("", "ctx.thread >= 64", "ctx.warp >= 2"),
    ("", "96 > ctx.thread", "ctx.warp < 3"),
    ("", "ctx.thread <= 63", "ctx.warp <= 1"),
    ("", "ctx.thread > 31", "ctx.warp > 0"),
    ("let w = ctx.thread / 32", "w == 1", "`ctx.warp`"),
    ("let w = ctx.thread / 64", "w == 1", "ctx.warp / 2"),
    ("let w = ctx.thread >> 5", "w == 1", "`ctx.warp`"),
    ("let w = ctx.thread / ctx.lanes", "w == 1", "`ctx.warp`"),
])
def test_a_warp_index_through_ctx_thread_points_to_ctx_warp(pre, cond, form):
    d = only(LANE_SUM.format(pre=pre, cond=cond), "PH305")
    assert any(form in n and "most varying operand" in n for n in d.notes), d.notes


@pytest.mark.parametrize("pre, cond", [("", "ctx.lane < 16"), ("", "ctx.thread < 16"),
                                       ("let w = ctx.thread / 16", "w == 1")])
def test_no_warp_hint_where_the_value_really_differs_within_a_warp(pre, cond):
    d = only(LANE_SUM.format(pre=pre, cond=cond), "PH305")
    assert not any("ctx.warp" in n for n in d.notes), d.notes


ATOMICS = """@launch(256)
kernel h(X: tensor<i32>[N], H: tensor<i32>[16], Y: tensor<f32>[N], S: tensor<f32>[4]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  STMT
}
"""


@pytest.mark.parametrize("stmt, want, not_want", [
    ("atomic_add(H[X[i]], 1)",
     "`for e in range(0, 16) { atomic_add(H[e], sum<over ctx.thread>(where(X[i] == e, 1, 0))) }`", None),
    ("atomic_add(H[X[i]], 2)", "a loop over the elements", None),
    ("let f = atomic_max(H[X[i]], 1)", "a histogram", "range("),   # max has no neutral value to give
    ("atomic_add(S[0], Y[i])", "`atomic_add(S[0], sum<over ctx.thread>(Y[i]))`", "histogram"),
    ("atomic_max(H[1], X[i])", "`atomic_max(H[1], max<over ctx.thread>(X[i]))`", "histogram"),
    ("let f = load_acquire(H[i % 16])", "an element the whole CTA agrees on", "histogram"),
    ("let c = atomic_cas(H[0], 0, i)", "a value the whole CTA agrees on", "histogram"),
])
def test_atomics_with_per_thread_operands_explain_once_per_cta(stmt, want, not_want):
    d = only(ATOMICS.replace("STMT", stmt), "PH302")
    assert "runs once per CTA, by one thread, not once per thread" in d.help
    assert want in d.help, d.help
    assert not_want is None or not_want not in d.help


def test_no_reuse_note_when_every_assignment_differs_between_threads():
    src = """@launch(128)
kernel k(X: tensor<f32>[128], Y: tensor<f32>[128]) {
  var n = ctx.thread % 4
  n = ctx.thread % 3
  for it in range(0, n) {
    barrier()
  }
}
"""
    d = only(src, "PH301")
    assert not any("§9.1" in n for n in d.notes)


@pytest.mark.parametrize("expr, want", [
    ("A[ctx.lane] * i32(0x85ebca6b)", "write `-2048144789` or `i32(i64(0x85ebca6b))`"),
    ("A[ctx.lane] ^ 0x85ebca6b", "`-2048144789`"),
    ("A[ctx.lane] + 5000000000", "compute in `i64`: `i64(5000000000)`"),
])
def test_an_out_of_range_i32_literal_says_how_to_write_it(expr, want):
    src = f"@launch(32)\nkernel k(A: tensor<i32>[32], O: tensor<i32>[32]) {{\n  O[ctx.lane] = {expr}\n}}\n"
    d = only(src, "PH104")
    assert want in d.help, d.help


@pytest.mark.parametrize("call, word, fix", [
    ("shfl<xor1>(v)", "xor1", "shfl<xor 1"),
    ("shfl<idx0>(v)", "idx0", "shfl<idx 0"),
    ("sum<overctx.lane>(v)", "overctx", "sum<over ctx"),
])
def test_a_generic_call_without_its_space_is_named_as_such(call, word, fix):
    src = f"@launch(32)\nkernel k(A: tensor<f32>[32], O: tensor<f32>[32]) {{\n  let v = A[ctx.lane]\n  O[ctx.lane] = {call}\n}}\n"
    d = only(src, "PH005")
    assert f"`{word}`" in d.label and fix in d.help and "chained" not in d.message
    assert (d.span.line, d.span.column) == (4, len("  O[ctx.lane] = ") + call.index(word) + 1)


def test_cuda_builtin_names_give_one_error_each_with_the_phobos_spelling():
    src = """@launch(128)
kernel k(X: tensor<f32>[N]) {
  let i = blockIdx.x * blockDim.x + threadIdx.x
  __syncthreads()
}
"""
    errs = errors(src)
    assert [(d.code, d.span.column) for d in errs] == [("PH101", 11), ("PH101", 24), ("PH101", 37), ("PH109", 3)]
    helps = [d.help for d in errs]
    assert "`ctx.block.x`" in helps[0] and "`ctx.threads`" in helps[1] and "`ctx.thread`" in helps[2]
    assert "`barrier()`" in helps[3]


@pytest.mark.parametrize("stmt, op, fix", [("i++", "++", "`i += 1`"), ("i--", "--", "`i -= 1`")])
def test_increment_operators_say_what_to_write(stmt, op, fix):
    src = f"@launch(32)\nkernel k() {{\n  var i = 0\n  {stmt}\n}}\n"
    d = only(src, "PH005")
    assert d.message == f"Phobos has no `{op}`" and fix in d.help and (d.span.line, d.span.column) == (4, 4)


def test_why_adds_the_same_notes(capsys, tmp_path):
    from phobos_tools.cli.check import main
    src = tmp_path / "k.ph"
    src.write_text("""@launch(64)
kernel k(X: tensor<f32>[64], O: tensor<f32>[64], n: i32) {
  let w = ctx.thread / 32
  var m = ctx.thread % 4
  O[ctx.thread] = X[ctx.thread] * f32(m + w)
  m = n
}
""")
    main(["--why", "w", str(src)])
    out = capsys.readouterr().out
    assert "= note: `ctx.thread / 32` is the same in every lane of a warp" in out and "`ctx.warp`" in out
    main(["--why", "m", str(src)])
    out = capsys.readouterr().out
    assert "= note: `m` is a `var`, so it has one kind for the whole kernel" in out and "at 6:3" in out


@pytest.mark.parametrize("written, fix", [
    ("float", "write `f32`"), ("double", "write `f64`"), ("int", "write `i32`"), ("half", "write `f16`"),
    ("uint8_t", "write `u8`"), ("u32", "no unsigned type wider than `u8`: write `i64`"),
    ("short", "Phobos has no `short`; the scalar types are"), ("f23", "the scalar types are bool, i8"),
])
def test_a_c_type_name_says_which_phobos_type_to_write(written, fix):
    for src in (f"kernel k(A: tensor<{written}>[N]) {{\n  A[0] = 1\n}}\n",
                f"kernel k(A: tensor<f32>[N]) {{\n  let x: {written} = 1\n  A[0] = f32(x)\n}}\n"):
        e = only(src, "PH118")
        assert fix in e.help, e.help


@pytest.mark.parametrize("value, want", [
    ("1", "is an i32 and cannot be subscripted"), ("1.0", "is an f32 and cannot be subscripted"),
    ("u8(1)", "is a u8 and cannot be subscripted"), ("bf16(1.0)", "is a bf16 and cannot be subscripted"),
])
def test_messages_name_a_type_with_its_article(value, want):
    e = only(f"kernel k(A: tensor<f32>[N]) {{\n  let v = {value}\n  A[0] = f32(v[0])\n}}\n", "PH110")
    assert want in e.message, e.message


def test_an_atomic_on_a_tile_says_how_to_update_a_tile():
    src = """@launch(256)
kernel k(data: tensor<u8>[N], bins: tensor<i32>[256]) {
  var local: tile<i32>[256] = 0
  atomic_add(local[0], 1)
  bins[ctx.thread] = local[ctx.thread]
}
"""
    e = only(src, "PH109")
    assert "a tile belongs to one CTA" in e.help and "`barrier()`" in e.help
    # on a scalar there is nothing to say about tiles
    e = only("kernel k(A: tensor<i32>[N]) {\n  let s = 1\n  atomic_add(s, 1)\n}\n", "PH109")
    assert e.help is None or "tile" not in e.help


@pytest.mark.parametrize("line, column", [
    ("  A[0] = 1.0 /* one */", 14), ("  /* a note\n  A[0] = 1.0", 3), ("  A[0] = 2.0 /*3.0*/ + 1.0", 14),
])
def test_a_c_block_comment_says_to_use_line_comments(line, column):
    e = errors(f"kernel k(A: tensor<f32>[N]) {{\n{line}\n}}\n")[0]
    assert e.code == "PH005" and e.message == "Phobos has no `/* */` comments", e.message
    assert (e.span.line, e.span.column, e.span.end_column) == (2, column, column + 2)
    assert "`//`" in e.help


def test_a_division_by_a_spaced_star_is_no_comment():
    e = errors("kernel k(A: tensor<f32>[N]) {\n  A[1] = 2.0 / *A\n}\n")[0]
    assert e.code == "PH005" and "comment" not in e.message and "found `*`" in e.message


@pytest.mark.parametrize("body, where, message, fix", [
    ("let x = 1.0f", (2, 11, 15), "Phobos numbers take no suffix such as `f`", "write `1.0`: a float literal is an f32"),
    ("let n = 10u", (2, 11, 14), "no suffix such as `u`", "`i64(10)` makes an i64"),
    ("float x = 1.0", (2, 3, 10), "a declaration starts with `let` or `var`", "write `let x: f32 = ..`"),
    ("i32 n = 4", (2, 3, 8), "a declaration starts with `let` or `var`", "write `let n: i32 = ..`"),
    ("for (var i = 0; i < 4; i += 1) {\n  }", (2, 7, 8), "not C's `(init; condition; step)`", "for i in range(lo, hi)"),
    ("let x = 3 ** 2", (2, 13, 15), "Phobos has no `**`", "pow(x, y)"),
    ("if (true) A[0] = 1.0", (2, 13, 14), "the body of `if` goes in braces", "`if c { x = 1 }`"),
    ("while true A[0] = 1.0", (2, 14, 15), "the body of `while` goes in braces", "`{` before the body"),
    ("for i in range(0, 4) A[i] = 1.0", (2, 24, 25), "the body of `for` goes in braces", "`{` before the body"),
    ("if true {\n  } else A[0] = 1.0", (3, 10, 11), "the body of `else` goes in braces", "`{` before the body"),
])
def test_c_and_python_habits_get_the_phobos_spelling(body, where, message, fix):
    e = errors(f"kernel k(A: tensor<f32>[N]) {{\n  {body}\n}}\n")[0]
    assert e.code == "PH005" and message in e.message, e.message
    assert (e.span.line, e.span.column, e.span.end_column) == where
    assert fix in e.help, e.help


@pytest.mark.parametrize("body", ["if x y {\n  }", "let x = y z", "A[0] = 2.0 * * 3.0", "let q = 3 f"])
def test_no_habit_hint_where_the_mistake_is_another(body):
    e = errors(f"kernel k(A: tensor<f32>[N]) {{\n  {body}\n}}\n")[0]
    assert e.code == "PH005" and e.message.startswith("expected "), e.message


@pytest.mark.parametrize("field, meant", [
    ("thread_id", "ctx.thread"), ("threadIdx.x", "ctx.thread"), ("blockIdx.y", "ctx.block.y"),
    ("blockDim.x", "ctx.threads"), ("gridDim.x", "ctx.blocks.x"), ("block.w", "ctx.block.x"),
    ("thred", "ctx.thread"), ("thread.x", "ctx.thread"), ("laneid", "ctx.lane"), ("warp_id", "ctx.warp"),
])
def test_an_unknown_ctx_field_names_the_field_meant(field, meant):
    e = only(f"kernel k(A: tensor<f32>[N]) {{\n  A[0] = f32(ctx.{field})\n}}\n", "PH108")
    assert e.help.startswith(f"did you mean `{meant}`?"), e.help
    e = only("kernel k(A: tensor<f32>[N]) {\n  A[0] = f32(ctx.zzz)\n}\n", "PH108")
    assert e.help.startswith("the fields are"), e.help


@pytest.mark.parametrize("expr", ["A.shape[0]", "A.size", "A.rows"])
def test_a_tensor_extent_as_a_field_points_to_the_dimension_names(expr):
    e = only(f"kernel k(A: tensor<f32>[N, 64]) {{\n  A[0, 0] = f32({expr})\n}}\n", "PH108")
    assert "its extents are the names and numbers of its type (`N`, `64`)" in e.help, e.help


@pytest.mark.parametrize("call, said", [
    ("len(A)", "a tensor's extents are the names in its type"), ("print(A[0])", "a kernel cannot print"),
])
def test_functions_of_other_languages_say_what_to_do_instead(call, said):
    e = only(f"kernel k(A: tensor<f32>[N]) {{\n  let v = {call}\n}}\n", "PH109")
    assert said in e.help, e.help


def test_a_misspelt_attribute_note_names_the_attribute_meant():
    notes = [d for d in check_source("@lunch(128)\nkernel k(A: tensor<f32>[N]) {\n  A[0] = 1.0\n}\n", "t.ph").diagnostics]
    assert [(d.code, d.severity) for d in notes] == [("PH204", "note")]
    assert notes[0].help == "did you mean `@launch`?"
    note = check_source("@cluster(2)\nkernel k(A: tensor<f32>[N]) {\n  A[0] = 1.0\n}\n", "t.ph").diagnostics[0]
    assert note.code == "PH204" and note.help is None


RUN_LET = """@launch(64)
kernel k(A: tensor<f32>[M, 256], O: tensor<f32>[M, 256], S: tensor<f32>[M, 64]) {{
  let x = A[0, ctx.thread * 4 :+ 4]
  {use}
}}
"""


@pytest.mark.parametrize("use, code", [
    ("store(O[0, ctx.thread * 4 :+ 4], x * 2.0)", "PH105"),
    ("S[0, ctx.thread] = sum(x * x)", "PH112"),
    ("let y = elem(x)", "PH111"),
])
def test_a_let_of_a_slice_where_a_run_is_needed_says_to_hold_elem(use, code):
    errs = errors(RUN_LET.format(use=use))
    e = next(d for d in errs if d.code == code)
    assert "`x` holds a slice" in e.help and "let x = elem(A[0, ctx.thread * 4 :+ 4])" in e.help, e.help
    # and so written, it checks
    fixed = RUN_LET.format(use=use).replace("let x = A[0, ctx.thread * 4 :+ 4]", "let x = elem(A[0, ctx.thread * 4 :+ 4])")
    fixed = fixed.replace("elem(x)", "x")
    assert errors(fixed) == []


def test_a_sum_of_a_real_tile_still_says_rowsum():
    for let in ("let t = A[0 :+ 4, 0 :+ 32]", "let t = A[0, 0 :+ 32]", "var t: tile<f32>[4] = 1.0"):
        e = only(f"kernel k(A: tensor<f32>[4, 32], S: tensor<f32>[4]) {{\n  {let}\n  S[0] = sum(t * 2.0)\n}}\n",
                 "PH112")
        assert e.help == "use `rowsum`", (let, e.help)

