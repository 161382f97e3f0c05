// "What needs every thread": an atomic runs once per CTA and every thread must reach it. In a while
// condition it runs again before every iteration, only in the threads still in the loop, so a
// varying condition leaves threads out from its second test on. Found by benchmarks/fuzz.py
// (issue 8): the simulator reports PH301 on the atomic here, the analysis accepts it.
// pins: everyone.rule-control control.enclosing L9.3
@launch(64)
kernel k(F: tensor<i32>[8], O: tensor<i32>[64]) {
  var w = 0
  while w < (ctx.lane & 7) + atomic_add(F[0], 0) {    //~ error PH301
    w += 1
  }
  var v = 0
  while v < ctx.warp + load_acquire(F[1]) {    //~ error PH301
    v += 1
  }
  O[ctx.thread] = w + v
}
