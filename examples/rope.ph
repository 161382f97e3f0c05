// Rotary position embedding (RoPE, interleaved pairs) for f16 query or key vectors. Row r of X
// is one token's head vector; each pair (X[r, 2m], X[r, 2m + 1]) is rotated by the angle that
// the token's position p = positions[r] gives frequency m, read from a table that holds cos and
// sin side by side: cos_sin[p, 2m] = cos(p * theta_m), cos_sin[p, 2m + 1] = sin(p * theta_m).
// One thread per pair. The pair is a run of 2 held in registers, read and set one element at a
// time and stored back as f16. The global pair index is computed in i64.
@launch(256)
@aligned(D = 2)
kernel rope(X: tensor<f16>[T, D], positions: tensor<i32>[T], cos_sin: tensor<f32>[S, D],
            Y: tensor<f16>[T, D]) {
  let pairs_per_row = D / 2
  let g = i64(ctx.block.x) * i64(ctx.threads) + i64(ctx.thread)
  if g < i64(T) * i64(pairs_per_row) {
    let r = i32(g / i64(pairs_per_row))
    let c = i32(g % i64(pairs_per_row)) * 2
    let pos = positions[r]
    let cs = elem(cos_sin[pos, c :+ 2])
    var v = elem(f32(X[r, c :+ 2]))
    let x0 = v[0]
    let x1 = v[1]
    v[0] = x0 * cs[0] - x1 * cs[1]
    v[1] = x0 * cs[1] + x1 * cs[0]
    store(Y[r, c :+ 2], f16(v))
  }
}
