// "The kinds are ordered: uniform, then warp-uniform, then varying. The inference always takes the
// more varying side" (LANGUAGE §9.9), through every operator, comparisons and `where` included.
// pins: kinds.order L9.9 kinds.expression
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128], n: i32) {
  let wu = ctx.warp + n                         //~ kind wu warp-uniform
  let wv = ctx.warp * ctx.lane                  //~ kind wv varying
  let cmp = ctx.warp < n                        //~ kind cmp warp-uniform
  let both = cmp && ctx.lane > 2                //~ kind both varying
  let sel = where(cmp, 1, n)                    //~ kind sel warp-uniform
  let sel2 = where(n > 0, ctx.lane, 0)          //~ kind sel2 varying
  let conv = f32(ctx.warp)                      //~ kind conv warp-uniform
  let math = max(sqrt(f32(n)), 2.0)             //~ kind math uniform
  let neg = -ctx.warp                           //~ kind neg warp-uniform
  let bits = ~(n << 2) ^ (ctx.warp & 3)         //~ kind bits warp-uniform
  O[0, ctx.thread] = f32(wu + wv + sel + sel2 + neg + bits) + conv + math + where(both, 1.0, 0.0)
}
