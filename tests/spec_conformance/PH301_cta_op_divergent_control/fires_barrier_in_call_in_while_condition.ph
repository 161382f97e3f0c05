// LANGUAGE §6: "a `while` loop evaluates its whole condition before every iteration, calls
// included"; §9.3: "a `break` under control K raises, to at least K, every statement of its loop,
// ... and the loop's condition (a `while` condition, calls and operations in it included)", and a
// `return` in a kernel "every statement of each loop that encloses it, its `while` condition
// included". The barriers inside the calls run again only in the threads still looping.
// pins: L6.loops L9.3a L9.3c L8.cta-wide
fn ready(n: i32) -> bool {
  barrier()                       //~ error PH301
  return n > 0
}

fn sync_more(n: i32) -> bool {
  barrier()                       //~ error PH301
  return n > 0
}

@launch(128)
kernel k(A: tensor<i32>[128], C: tensor<i32>[1], n: i32) {
  while ready(n) {
    if A[ctx.thread] > 0 {
      break
    }
  }
  while n > 1 && sync_more(n) && atomic_add(C[0], 1) < n {    //~ error PH301
    if A[ctx.thread] > 1 {
      return
    }
  }
}
