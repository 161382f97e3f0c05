"""Hypothesis strategies for valid Phobos kernels (type-correct; the per-thread rules may or
may not hold), shared by the oracle and property tests and by benchmarks/fuzz.py.

A generated kernel draws its statements from the whole per-thread surface: scalar `let`/`var`
fed by every `ctx` path, loads at uniform and varying addresses, nested `if`/`for`/`while`,
`break`/`continue`/`return` under conditions of each kind, per-thread stores to a shared tile,
barriers, tile copies and sweeps, lane and CTA collectives, shuffles, an atomic and an inlined
function.
"""

from __future__ import annotations

from hypothesis import strategies as st

HEADER = """fn clamp3(x: i32) -> i32 {
  if x > 3 {
    return 3
  }
  return x
}

@launch(128)
kernel gen(A: tensor<f32>[M, N], O: tensor<f32>[M, N], C: tensor<i32>[M]) {
  var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  var v0 = 0
  var v1 = 0
  var v2 = 0
"""

SOURCES = ["ctx.thread", "ctx.lane", "ctx.warp", "ctx.block.x", "M", "7", "v0", "v1", "v2"]


@st.composite
def int_expr(draw, depth=0, lets=()):
    names = SOURCES + list(lets)
    choice = draw(st.integers(0, 9 if depth < 2 else 3))
    if choice <= 3:
        return draw(st.sampled_from(names))
    if choice == 4:
        return f"C[{draw(int_expr(depth + 1, lets))} % M]"
    if choice == 5:
        op = draw(st.sampled_from(["+", "-", "*", "&", "%"]))
        rhs = draw(st.sampled_from(["3", "5", "ctx.warps"])) if op == "%" else draw(int_expr(depth + 1, lets))
        return f"({draw(int_expr(depth + 1, lets))} {op} {rhs})"
    if choice == 6:
        return f"{draw(st.sampled_from(['sum', 'max', 'min']))}<over ctx.lane>({draw(int_expr(depth + 1, lets))})"
    if choice == 7:
        return f"sum<over ctx.thread>({draw(int_expr(depth + 1, lets))})"
    if choice == 8:
        return f"shfl<{draw(st.sampled_from(['xor 1', 'down 2', 'idx 0']))}>({draw(int_expr(depth + 1, lets))})"
    return f"clamp3({draw(int_expr(depth + 1, lets))})"


@st.composite
def cond_expr(draw, lets=()):
    lhs = draw(int_expr(1, lets))
    rhs = draw(int_expr(1, lets))
    op = draw(st.sampled_from(["<", "==", "!=", ">="]))
    c = f"{lhs} {op} {rhs}"
    if draw(st.booleans()) and draw(st.booleans()):
        c = f"{c} && {draw(int_expr(2, lets))} > 0"
    return c


class _Ctx:
    def __init__(self):
        self.n = 0

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"


@st.composite
def block(draw, ctx, depth, in_loop, lets, indent):
    out = []
    lets = list(lets)
    pad = "  " * indent
    for _ in range(draw(st.integers(1, 4 if depth < 2 else 2))):
        kind = draw(st.integers(0, 14 if depth < 3 else 8))
        if kind == 0:
            name = ctx.fresh("l")
            out.append(f"{pad}let {name} = {draw(int_expr(0, lets))}")
            lets.append(name)
        elif kind == 1:
            out.append(f"{pad}{draw(st.sampled_from(['v0', 'v1', 'v2']))} = {draw(int_expr(0, lets))}")
        elif kind == 2:
            out.append(f"{pad}v{draw(st.integers(0, 2))} += {draw(int_expr(1, lets))}")
        elif kind == 3:
            out.append(f"{pad}t[{draw(int_expr(1, lets))} % 4, {draw(int_expr(1, lets))} % 32] = "
                       f"f32({draw(int_expr(1, lets))})")
        elif kind == 4:
            out.append(f"{pad}barrier()")
        elif kind == 5:
            out.append(f"{pad}O[0 :+ 4, 0 :+ 32] = t")
        elif kind == 6:
            out.append(f"{pad}t = t * 0.5 + 1.0")
        elif kind == 7:
            out.append(f"{pad}atomic_add(C[0], 1)")
        elif kind == 8 and in_loop:
            word = draw(st.sampled_from(["break", "continue"]))
            out.append(f"{pad}if {draw(cond_expr(lets))} {{")
            out.append(f"{pad}  {word}")
            out.append(f"{pad}}}")
        elif kind == 9:
            out.append(f"{pad}if {draw(cond_expr(lets))} {{")
            out.append(f"{pad}  return")
            out.append(f"{pad}}}")
        elif kind in (10, 11):
            out.append(f"{pad}if {draw(cond_expr(lets))} {{")
            out += draw(block(ctx, depth + 1, in_loop, lets, indent + 1))
            if draw(st.booleans()):
                out.append(f"{pad}}} else {{")
                out += draw(block(ctx, depth + 1, in_loop, lets, indent + 1))
            out.append(f"{pad}}}")
        elif kind == 12:
            var = ctx.fresh("k")
            lo = draw(st.sampled_from(["0", "ctx.lane", "ctx.warp", "v0"]))
            hi = draw(st.sampled_from(["4", "M", "v1 + 2"]))
            out.append(f"{pad}for {var} in range({lo}, {hi}) {{")
            out += draw(block(ctx, depth + 1, True, lets + [var], indent + 1))
            out.append(f"{pad}}}")
        elif kind == 13:
            w = ctx.fresh("w")
            out.append(f"{pad}var {w} = 0")
            out.append(f"{pad}while {w} < {draw(st.sampled_from(['3', 'v2', 'ctx.lane']))} {{")
            out += draw(block(ctx, depth + 1, True, lets, indent + 1))
            out.append(f"{pad}  {w} += 1")
            out.append(f"{pad}}}")
        else:
            out.append(f"{pad}v{draw(st.integers(0, 2))} = clamp3({draw(int_expr(1, lets))})")
    return out


@st.composite
def kernels(draw):
    """Source text of one generated kernel (with an inlined helper function)."""
    ctx = _Ctx()
    body = draw(block(ctx, 0, False, [], 1))
    return HEADER + "\n".join(body) + "\n}\n"
