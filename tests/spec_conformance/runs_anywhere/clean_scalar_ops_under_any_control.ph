// "What runs anywhere": "Scalar loads, scalar arithmetic, scalar stores to tensors and vars, and if,
// for and while run in each thread on its own. They are allowed under any control."
// pins: anywhere.ops L8.per-thread
@launch(128)
kernel k(A: tensor<f32>[1, 128], C: tensor<i32>[128], O: tensor<f32>[1, 128]) {
  var acc: f32 = 0.0
  if ctx.lane < 5 {
    let x = A[0, ctx.thread]
    acc = x * 2.0 + 1.0
    var i = C[ctx.thread]
    while i > 0 {
      i -= 1
      acc += 0.5
      if i == 3 {
        break
      }
    }
    for j in range(ctx.lane, 9) {
      if j == 6 {
        continue
      }
      C[ctx.thread] = j
    }
  }
  O[0, ctx.thread] = acc
}
