"""Double-buffered copies (issue 19, part 2): a `for` loop whose body starts with copies of
tensor slices into `var` tiles copies iteration i + 1 during iteration i, into a second buffer of
each tile, with `cp.async` on sm_80 and later (analyzer/facts/plan.py decides where nothing can
tell, analyzer/smem.py adds the second buffers while every target's limit holds, emit.py and
tiles.py lower it). Results through the SIMT interpreter, which runs `cp.async` as PTX defines
it (a copy lands only at the thread's `cp.async.wait_group`) and checks every barrier phase for
races; the plan's decisions; the PTX and SASS of the k loop."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ir_simt import SimtError, run
from lowering_tools import ptx_of, smallest_ptx_loop, sass_of

from phobos_tools.analyzer.checked import check_source
from phobos_tools.lowering import intrinsics

pytestmark = pytest.mark.slow
rng = np.random.default_rng(2031)


def gemm(bm: int = 32, bn: int = 32, bk: int = 32, threads: int = 128, t: str = "f16", inside: str = "",
         after: str = "", before: str = "", step: str = "") -> str:
    """C = A B + 1.5 over runtime M, N, K, one CTA per BM x BN tile of C, as examples/tiled_gemm.ph."""
    return (f"@launch({threads})\n"
            f"kernel g(A: tensor<{t}>[M, K], B: tensor<{t}>[K, N], C: tensor<f32>[M, N]) {{\n"
            f"  let row0 = ctx.block.y * {bm}\n  let col0 = ctx.block.x * {bn}\n"
            f"  var a: tile<{t}>[{bm}, {bk}]\n  var b: tile<{t}>[{bk}, {bn}]\n"
            f"  var acc: tile<f32>[{bm}, {bn}] = 1.5\n{before}"
            f"  for k0 in range(0, K, {step or bk}) {{\n"
            f"    a = A[row0 :+ {bm}, k0 :+ {bk}]\n    b = B[k0 :+ {bk}, col0 :+ {bn}]\n"
            f"    acc += dot(a, b)\n{inside}  }}\n{after}"
            f"  C[row0 :+ {bm}, col0 :+ {bn}] = acc\n}}\n")


def _arrays(m: int, n: int, k: int, t=np.float16):
    return {"A": rng.standard_normal((m, k)).astype(t), "B": rng.standard_normal((k, n)).astype(t),
            "C": np.zeros((m, n), np.float32)}


def _want(arrays) -> np.ndarray:
    return arrays["A"].astype(np.float64) @ arrays["B"].astype(np.float64) + 1.5


def _close(got, want) -> bool:
    return np.abs(got - want).max() <= 1e-5 * max(1.0, np.abs(want).max())


def _double_buffered(src: str) -> int:
    return sum(len(v) for v in check_source(src, "t.ph").kernels[0].smem.double_buffered.values())


def _grid(m: int, n: int, bm: int = 32, bn: int = 32) -> tuple:
    return (-(-n // bn), -(-m // bm))


@pytest.mark.parametrize("m,n,k,arch", [
    (32, 32, 96, "sm_90"),       # three iterations: the last one copies nothing ahead
    (32, 32, 128, "sm_80"),      # four: the buffers swap an even number of times
    (40, 48, 72, "sm_90"),       # edges: chunks cut by M, N and K are zeros and masked elements
    (32, 32, 32, "sm_90"),       # one iteration: only the copy before the loop
    (32, 32, 0, "sm_90"),        # no iteration: no copy at all, C = 1.5
    (40, 40, 80, "sm_75"),       # no cp.async: the second buffers are filled with plain stores
])
def test_double_buffered_gemm_is_exact(m, n, k, arch):
    src = gemm()
    assert _double_buffered(src) == 2
    arrays = _arrays(m, n, k)
    want = _want(arrays)
    run(src, arrays, _grid(m, n), arch=arch)
    assert _close(arrays["C"], want)


@pytest.mark.parametrize("t,arch", [("f32", "sm_90"), ("bf16", "sm_80"), ("bf16", "sm_75")])
def test_double_buffered_fma_and_bf16_products_are_exact(t, arch):
    """f32 keeps the FMA path (4-byte elements, 4 to a chunk); bf16 runs on tensor cores on sm_80
    and on FMA on sm_75, both from the current buffer."""
    import ml_dtypes
    src = gemm(t=t)
    arrays = _arrays(40, 40, 72, np.float32 if t == "f32" else ml_dtypes.bfloat16)
    want = _want(arrays)
    run(src, arrays, _grid(40, 40), arch=arch)
    assert _close(arrays["C"], want)


def test_a_runtime_step_and_a_per_thread_read_of_a_tile_in_the_loop():
    """The loop's step is a runtime value, and every thread reads `a` in the loop: the copy into
    `a` needs a barrier first (the plan's), which now comes before the copy of the next iteration
    (the buffer it writes is the one read in the previous iteration)."""
    inside = "    if ctx.thread == 0 {\n      C[0, 0] = f32(a[0, 0])\n    }\n"
    src = gemm(inside=inside, step="S").replace("C: tensor<f32>[M, N])", "C: tensor<f32>[M, N], S: i32)")
    k = check_source(src, "t.ph").kernels[0]
    assert _double_buffered(src) == 2
    assert any(k.plan.needs_barrier_before(st, k.instance) for st in k.kernel.body.stmts[5].body.stmts[:1])
    arrays = _arrays(32, 32, 64)
    want = _want(arrays)
    run(src, arrays, (1, 1), scalars={"S": 32})
    assert _close(arrays["C"][1:], want[1:]) and _close(arrays["C"][0, 1:], want[0, 1:])


@pytest.mark.parametrize("change", [
    "  A[0, 0] = f16(0.0)\n",                          # a source is written: the early read could tell
])
def test_a_written_source_is_not_double_buffered(change):
    assert _double_buffered(gemm(after=change)) == 0


@pytest.mark.parametrize("what,src", [
    ("a tile read after the loop", gemm(after="  acc += dot(a, b)\n")),
    ("a view made before the loop", gemm(before="  let top = a[0 :+ 16, 0 :+ 32]\n",
                                         inside="    acc[0 :+ 16, 0 :+ 32] += dot(top, b[0 :+ 32, 0 :+ 32])\n")),
    ("a break", gemm(inside="    if k0 > 64 {\n      break\n    }\n")),
    ("another write to a tile", gemm(inside="    a = A[row0 :+ 32, 0 :+ 32]\n")),
    ("an atomic on a source", gemm(t="f32", after="  let x = atomic_add(A[0, 0], 0.0)\n")),
    ("an acquire load of a source", gemm(t="f32", after="  let x = load_acquire(A[0, 0])\n")),
])
def test_what_could_tell_keeps_the_single_buffer(what, src):
    assert check_source(src, "t.ph").ok, what
    assert _double_buffered(src) == 0, what
    assert _double_buffered(gemm(t="f32")) == 2


def test_a_tile_copied_into_another_after_the_loop_keeps_one_buffer():
    src = gemm(after="  var last: tile<f16>[32, 32] = a\n  acc += dot(last, b)\n")
    assert check_source(src, "t.ph").ok and _double_buffered(src) == 0


NESTED = """@launch(128)
kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  var a: tile<f16>[32, 32]
  var b: tile<f16>[32, 32]
  var acc: tile<f32>[32, 32]
  for col0 in range(0, N, 32) {
    acc = 1.5
    for k0 in range(0, K, 32) {
      a = A[ctx.block.x * 32 :+ 32, k0 :+ 32]
      b = B[k0 :+ 32, col0 :+ 32]
      acc += dot(a, b)
    }
    C[ctx.block.x * 32 :+ 32, col0 :+ 32] = acc
  }
}
"""


def test_a_double_buffered_loop_inside_another_starts_over_each_time():
    """The inner loop's copies before it and its buffers' parity are set again at every
    iteration of the outer loop (three of them; the inner loop runs three times each)."""
    assert _double_buffered(NESTED) == 2
    arrays = _arrays(64, 96, 96)
    want = _want(arrays)
    run(NESTED, arrays, (2,))
    assert _close(arrays["C"], want)


GROUPED = """@launch(64)
kernel g(X: tensor<f32>[1, 128], Y: tensor<f32>[1, 128], O: tensor<f32>[1, 64]) {
  var a: tile<f32>[1, 32]
  var b: tile<f32>[1, 32]
  for j in range(0, 3) {
    a = X[0 :+ 1, j * 32 + OFF :+ 32]
    b = Y[0 :+ 1, j * 32 + OFF :+ 32]
    O[0, ctx.thread] = b[0, ctx.thread % 32]
  }
}
"""

REENTERED = """@launch(64)
kernel g(X: tensor<f32>[1, 128], O: tensor<f32>[1, 64]) {
  var a: tile<f32>[1, 32]
  for q in range(0, 2) {
    for j in range(0, 3) {
      a = X[0 :+ 1, j * 32 + OFF :+ 32]
      O[0, ctx.thread] = a[0, ctx.thread % 32]
    }
  }
}
"""


@pytest.mark.parametrize("arch", ["sm_90", "sm_80", "sm_75"])
@pytest.mark.parametrize("off", [0, 1])          # 1: chunks not 16-byte aligned, plain stores
@pytest.mark.parametrize("src,tile", [(GROUPED, "Y"), (REENTERED, "X")])
def test_copies_ahead_wait_for_the_last_per_thread_reads(src, tile, off, arch):
    """Found by the fuzzer's copy-ahead shape (seed 57): every thread reads `b` (or `a`) after
    the copies, so the next copies need a barrier first. In the single-buffered program `a`'s
    closing barrier gave `b`'s copy one; grouped at the top, the group needs its own (the plan's
    ahead_barriers). A loop entered again (inside another) needs one before its first copies too.
    Without them the interpreter sees the race, a cp.async from the moment it is issued."""
    src = src.replace("OFF", str(off))
    k = check_source(src, "t.ph").kernels[0]
    assert k.smem.double_buffered
    assert any(top for _first, top in k.plan.ahead_barriers.values())
    x = rng.standard_normal((1, 128)).astype(np.float32)
    y = rng.standard_normal((1, 128)).astype(np.float32)
    arrays = {"X": x, "O": np.zeros((1, 64), np.float32)} | ({"Y": y} if tile == "Y" else {})
    run(src, arrays, (1,), arch=arch)
    last = (y if tile == "Y" else x)[0, 64 + off:96 + off]
    assert np.array_equal(arrays["O"][0], np.concatenate([last, last]))


def test_a_tile_read_after_the_loop_keeps_its_value_with_one_buffer():
    src = gemm(after="  acc += dot(a, b)\n")
    arrays = _arrays(32, 32, 96)
    a, b = arrays["A"].astype(np.float64), arrays["B"].astype(np.float64)
    want = a @ b + a[:, 64:] @ b[64:, :] + 1.5
    run(src, arrays, (1, 1))
    assert _close(arrays["C"], want)


def test_the_interpreter_catches_a_wait_that_lets_a_copy_land_late(monkeypatch):
    """Waiting for all but the two newest groups leaves this iteration's copies in flight when
    the product reads them: the interpreter must see it (stale data or a race), or its model of
    cp.async could not find a wrong wait."""
    real = intrinsics.cp_async_wait
    monkeypatch.setattr(intrinsics, "cp_async_wait", lambda o, pending: real(o, pending + 1))
    src = gemm()
    arrays = _arrays(32, 32, 128)
    want = _want(arrays)
    try:
        run(src, arrays, (1, 1))
    except SimtError:
        return
    assert not _close(arrays["C"], want)


def test_second_buffers_stay_within_every_targets_limit():
    """f32 tiles of 16 KB each: doubling `a` and `b` would take 80 KB, over sm_75's 64 KB, so the
    plan keeps one buffer each and sm_75 still accepts the kernel; halve the tiles and they are
    doubled, and the labels say so."""
    big = gemm(64, 64, 64, 256, "f32")
    k = check_source(big, "t.ph", arch="sm_75").kernels[0]
    assert not k.smem.double_buffered and k.smem.total == 3 * 16384
    assert check_source(big, "t.ph", arch="sm_75").ok
    small = gemm(32, 32, 32, 128, "f32")
    k = check_source(small, "t.ph").kernels[0]
    labels = [a.label for a in k.smem.allocations()]
    assert "second buffer of `a`: f32[32, 32], 4,096 bytes" in labels
    assert "second buffer of `b`: f32[32, 32], 4,096 bytes" in labels
    assert k.smem.total == 5 * 4096


def views(bm: int = 32, bn: int = 32, bk: int = 32, threads: int = 128, t: str = "f16", func: str = "dot_t",
          inside: str = "") -> str:
    """C = A B^T + 1.5 (``dot_t``, W stored [N, K] as linear_relu's) or A B (``dot``) with the
    operands as views the product copies itself."""
    wshape, wview = ("[N, K]", "W[col0 :+ {bn}, k0 :+ {bk}]") if func == "dot_t" else \
        ("[K, N]", "W[k0 :+ {bk}, col0 :+ {bn}]")
    return (f"@launch({threads})\n"
            f"kernel g(X: tensor<{t}>[M, K], W: tensor<{t}>{wshape}, C: tensor<f32>[M, N]) {{\n"
            f"  let row0 = ctx.block.y * {bm}\n  let col0 = ctx.block.x * {bn}\n"
            f"  var acc: tile<f32>[{bm}, {bn}] = 1.5\n"
            f"  for k0 in range(0, K, {bk}) {{\n"
            f"    let x = X[row0 :+ {bm}, k0 :+ {bk}]\n    let w = {wview.format(bn=bn, bk=bk)}\n"
            f"    acc += {func}(x, w)\n{inside}  }}\n"
            f"  C[row0 :+ {bm}, col0 :+ {bn}] = acc\n}}\n")


@pytest.mark.parametrize("t,func,arch", [
    ("f16", "dot_t", "sm_90"),     # tensor cores: W's copy in its own [N, K] layout, read transposed
    ("bf16", "dot_t", "sm_80"),
    ("bf16", "dot_t", "sm_75"),    # bf16 on FMA: W's copy transposed, rows contiguous
    ("f32", "dot_t", "sm_90"),     # FMA
    ("f16", "dot", "sm_90"),
])
def test_a_products_view_operands_are_copied_one_iteration_ahead(t, func, arch):
    import ml_dtypes
    src = views(t=t, func=func)
    k = check_source(src, "t.ph").kernels[0]
    assert sum(len(v) for v in k.smem.double_buffered.values()) == 2
    assert not any(key[0] == "copy" for sp in k.smem.statements.values() for key in sp.scratch)
    dt = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}[t]
    m, n, kk = 40, 48, 72                      # edges cut rows, columns and K
    x = rng.standard_normal((m, kk)).astype(dt)
    w = rng.standard_normal((n, kk) if func == "dot_t" else (kk, n)).astype(dt)
    arrays = {"X": x, "W": w, "C": np.zeros((m, n), np.float32)}
    w64 = w.astype(np.float64)
    want = x.astype(np.float64) @ (w64.T if func == "dot_t" else w64) + 1.5
    run(src, arrays, _grid(m, n), arch=arch)
    assert _close(arrays["C"], want)


def test_view_copies_ahead_take_named_buffers_and_leave_the_products_scratch():
    k = check_source(views(64, 64, 32, 256), "t.ph").kernels[0]
    labels = [a.label for a in k.smem.allocations()]
    assert "copy of `x` for `dot_t` at 9:12, made one iteration ahead: f16[64, 32] (rows padded to 40), " \
           "5,120 bytes" in labels
    assert "second buffer of the transposed copy of `w` for `dot_t` at 9:12, made one iteration ahead: " \
           "f16[32, 64] (stored f16[64, 32], rows padded to 40), 5,120 bytes" in labels
    assert k.smem.scratch_peak == 0 and k.smem.total == 64 * 64 * 4 + 4 * 5120


@pytest.mark.parametrize("what,src,ahead", [
    ("views used twice", views(inside="    acc += dot_t(x, w)\n"), []),
    ("a view read by an elementwise statement", views(inside="    acc += f32(x[0 :+ 32, 0 :+ 32])\n"), ["w"]),
])
def test_a_view_used_otherwise_keeps_its_copy_in_the_product(what, src, ahead):
    """A view used otherwise than once, by the product, keeps the product's own copy (the other
    may still be copied ahead)."""
    r = check_source(src, "t.ph")
    assert r.ok, what
    assert [e.stmt.name for v in r.kernels[0].smem.double_buffered.values() for e in v] == ahead, what


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_the_k_loop_copies_ahead_asynchronously(arch):
    ptx = ptx_of(gemm(64, 64, 32, 256), arch)
    loop = smallest_ptx_loop(ptx, "mma.sync")
    assert sum("mma.sync" in x for x in loop) == 8
    assert [x for x in loop if "cp.async.wait_group" in x] == ["cp.async.wait_group \t1;"]
    assert sum("cp.async.commit_group" in x for x in loop) == 1
    assert sum("bar.sync" in x for x in loop) == 2                         # after the wait, after the product
    # a's chunk and b's, before the loop and (placed out of the loop's line by LLVM) in it
    assert sum("cp.async.cg.shared.global" in x for x in ptx.splitlines()) == 4
    assert sum("cp.async.commit_group" in x for x in ptx.splitlines()) == 2
    assert not re.search(r"st\.shared\.v4\.b32\s+\[[^]]+\],\s*\{%r", ptx)     # no chunk through registers


def test_sm_75_has_no_cp_async():
    ptx = ptx_of(gemm(64, 64, 32, 256), "sm_75")
    assert "cp.async" not in ptx


@pytest.mark.ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_sass_k_loop_copies_with_ldgsts(arch):
    text, done = sass_of(ptx_of(gemm(64, 64, 32, 256), arch), arch)
    assert re.search(r"\bLDGSTS\.E\.BYPASS\.128\b", text), text[:2000]
    assert re.search(r"\bLDGDEPBAR\b", text) and re.search(r"\bDEPBAR\.LE\s+SB0,\s*0x1\b", text)
    assert not re.search(r"\b(LDL|STL)\b", text) and done.resources["spills"] == 0
