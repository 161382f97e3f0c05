// LANGUAGE §9.2: "A function's result is the join over its returns of the value's kind and the control
// kind at the return"; a function is inlined at every call (§2), so each call site has its own kinds
// (DESIGN.md: "a function's bindings once per call site").
// pins: L9.2d
fn scale(x: i32) -> i32 {
  let y = x * 2              //~ kind y uniform varying warp-uniform
  return y + 1
}

@launch(256)
kernel k(O: tensor<i32>[256], n: i32) {
  let a = scale(n)           //~ kind a uniform
  let b = scale(ctx.lane)    //~ kind b varying
  let c = scale(ctx.warp)    //~ kind c warp-uniform
  O[ctx.thread] = a + b + c
}
