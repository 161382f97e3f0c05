// LANGUAGE §9.8: "Kinds belong to scalars and runs. Tiles, tensors and views belong to the CTA and
// have no kind; a scalar read out of them (t[i, j], A[i]) has the kind of its address."
// pins: L9.8 kinds.uniform
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  let v = t[0 :+ 1, 0 :+ 16]
  let a = t[0, 0]                    //~ kind a uniform
  let b = t[0, ctx.warp]             //~ kind b warp-uniform
  let c = v[0, ctx.lane % 16]        //~ kind c varying
  if a > 0.0 {
    O[0 :+ 1, 0 :+ 32] = t
  }
  O[0, ctx.lane] = b + c
}
