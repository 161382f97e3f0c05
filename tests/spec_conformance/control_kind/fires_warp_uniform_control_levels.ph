// LANGUAGE §8's table: under warp-uniform control shuffles and lane collectives are allowed; a CTA
// collective, a barrier and a tile operation are not.
// pins: control.enclosing L8.lane-level L8.lane-collective L8.cta-collective L8.cta-wide
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  var v = A[0, ctx.thread]
  while ctx.warp < 3 {
    v = shfl<xor 1>(v)
    v = v + max<over ctx.lane>(v)
    v = v + sum<over ctx.thread>(v)                 //~ error PH306
    barrier()                                        //~ error PH301
    O[0 :+ 1, 0 :+ 256] = A[0 :+ 1, 0 :+ 256]        //~ error PH301
  }
  O[0, ctx.thread] = v
}
