// LANGUAGE §9.2: "A let has the kind of its initializer", through chains of lets and from vars, loop
// variables, loads and calls alike.
// pins: L9.2a kinds.expression
@launch(256)
kernel k(A: tensor<f32>[8, 256], O: tensor<f32>[8, 256], n: i32) {
  var acc = n                      //~ kind acc uniform
  let a = acc * 2                  //~ kind a uniform
  let b = a + ctx.warp             //~ kind b warp-uniform
  let c = b                        //~ kind c warp-uniform
  for r in range(0, 8) {
    let d = r + c                  //~ kind d warp-uniform
    let e = A[r, ctx.thread]       //~ kind e varying
    O[r, ctx.thread] = e + f32(d)
  }
}
