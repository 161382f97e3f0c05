// "Control": a while loop's condition runs again before every iteration, and only in the threads
// still in the loop, so from the second test on it runs under the control of the loop's own
// condition. A CTA collective in a varying (or warp-uniform) condition is not reached by every
// thread. Found by benchmarks/fuzz.py (issue 8): the simulator reports PH306 on this kernel at its
// second test ("only 31 of the 32 threads"), the analysis accepts it.
// pins: lane.cta-collective control.enclosing L9.3
@launch(64)
kernel k(O: tensor<i32>[64]) {
  var w = 0
  while w < ctx.lane + sum<over ctx.thread>(0) {    //~ error PH306
    w += 1
  }
  var x = 0
  while x < ctx.warp + sum<over ctx.thread>(1) {    //~ error PH306
    x += 1
  }
  O[ctx.thread] = w + x
}
