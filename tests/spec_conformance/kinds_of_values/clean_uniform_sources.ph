// "The three kinds": uniform holds "The same value in every thread of the CTA", from "Literals, kernel
// parameters, ctx.block, the ctx counts, loads at uniform addresses" (LANGUAGE §4's table).
// pins: kinds.uniform intro.sources
@launch(128)
kernel k(A: tensor<f32>[4, 32], C: tensor<i32>[16], O: tensor<f32>[4, 32], n: i32, s: f32) {
  let lit = 7                                  //~ kind lit uniform
  let par = n * 2                              //~ kind par uniform
  let fpar = s + 1.0                           //~ kind fpar uniform
  let ext = C[0] + 1                           //~ kind ext uniform
  let bx = ctx.block.x                         //~ kind bx uniform
  let by = ctx.block.y + ctx.block.z           //~ kind by uniform
  let gx = ctx.blocks.x * ctx.blocks.y * ctx.blocks.z   //~ kind gx uniform
  let counts = ctx.threads + ctx.warps + ctx.lanes      //~ kind counts uniform
  let ld = A[bx % 4, n % 32]                   //~ kind ld uniform
  let ld2 = C[C[1] % 16]                       //~ kind ld2 uniform
  O[0 :+ 1, lit + par + ext + by + gx + counts + ld2 :+ 4] = A[0 :+ 1, 0 :+ 4] * (fpar + ld)
}
