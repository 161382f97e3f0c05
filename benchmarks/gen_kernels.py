"""Generated Phobos kernels of a given size, for the scaling benchmarks.

Each generated kernel is valid and clean: a mix of scalar `let`/`var` statements, lane-strided
loops, nested `if`s, per-thread stores into a shared tile each followed by a barrier, tile copies
and sweeps, and lane collectives, in the proportions of the examples. ``statements`` counts every
statement, nested ones included.
"""

from __future__ import annotations


def kernel_source(statements: int, name: str = "generated") -> str:
    lines = [
        "@launch(256)",
        f"kernel {name}(A: tensor<f32>[M, N], B: tensor<f32>[M, N], out: tensor<f32>[M, N]) {{",
        "  let row = ctx.block.x * ctx.warps + ctx.warp",
        "  var acc: f32 = 0.0",
        "  var t: tile<f32>[8, 32] = A[0 :+ 8, 0 :+ 32]",
    ]
    count = 3
    i = 0
    while count < statements:
        k = i % 6
        if k == 0:      # a lane-strided loop with a nested if: 5 statements
            lines += [
                f"  for c{i} in range(ctx.lane, N, ctx.lanes) {{",
                f"    let v{i} = A[row, c{i}] * 2.0 + B[row, c{i}]",
                f"    if v{i} > 0.0 {{",
                f"      acc += v{i}",
                "    }",
                f"    out[row, c{i}] = v{i}",
                "  }",
            ]
            count += 5
        elif k == 1:    # scalar arithmetic: 3 statements
            lines += [
                f"  let a{i} = row * {i % 7 + 1} + ctx.lane",
                f"  var b{i} = a{i} % 13 + (a{i} >> 2)",
                f"  b{i} += a{i} & 7",
            ]
            count += 3
        elif k == 2:    # a per-thread store into the tile, then a barrier: 3 statements
            lines += [
                "  if ctx.thread < 32 {",
                f"    t[{i % 8}, ctx.thread] = acc * {i % 5 + 1}.0",
                "  }",
                "  barrier()",
            ]
            count += 3
        elif k == 3:    # a sweep and a copy out: 2 statements
            lines += [
                f"  t = t * 0.5 + {i % 3}.0",
                f"  out[{i % 4} :+ 8, 0 :+ 32] = t",
            ]
            count += 2
        elif k == 4:    # a lane collective under warp-uniform control: 3 statements
            lines += [
                "  if row < M {",
                f"    let s{i} = sum<over ctx.lane>(acc)",
                f"    acc = s{i} * 0.25",
                "  }",
            ]
            count += 3
        else:           # a while loop with a break: 4 statements
            lines += [
                f"  var n{i} = 0",
                f"  while n{i} < 4 {{",
                f"    n{i} += 1",
                "  }",
            ]
            count += 3
        i += 1
    lines.append("}")
    return "\n".join(lines) + "\n"
