// LANGUAGE §9.3: "a `return` under K in a kernel raises every statement that can run after it: the
// rest of the kernel and every statement of each loop that encloses it, its `while` condition
// included". The atomic after the call in the condition runs, in the next iteration, only in the
// threads that have not returned.
// pins: L9.3c L6.loops L8.cta-wide
fn limit(i: i32) -> i32 {
  return i + 1
}

@launch(128)
kernel k(A: tensor<i32>[128], C: tensor<i32>[1], O: tensor<i32>[128]) {
  var i = 0
  while limit(i) < atomic_add(C[0], 1) {    //~ error PH301
    if A[ctx.thread] > i {
      return
    }
    i += 1
  }
  O[ctx.thread] = i
}
