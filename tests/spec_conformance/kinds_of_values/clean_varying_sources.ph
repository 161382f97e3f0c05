// "The three kinds": varying holds "A value per lane", from ctx.thread, ctx.lane, "a load at a
// varying address".
// pins: kinds.varying intro.sources
@launch(128)
kernel k(A: tensor<f32>[1, 128], C: tensor<i32>[128], O: tensor<f32>[1, 128]) {
  let t = ctx.thread                 //~ kind t varying
  let l = ctx.lane                   //~ kind l varying
  let x = A[0, t]                    //~ kind x varying
  let i = C[l]                       //~ kind i varying
  let y = A[0, C[l] % 128]           //~ kind y varying
  O[0, t] = x + y + f32(i)
}
