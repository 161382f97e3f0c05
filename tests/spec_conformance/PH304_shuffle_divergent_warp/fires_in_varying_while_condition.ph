// "Lane-level operations": a shuffle needs every lane of the warp. A while loop's condition runs
// again before every iteration, only in the lanes still in the loop, so a shuffle in a varying
// condition misses the lanes that left from its second test on. Found by benchmarks/fuzz.py
// (issue 8): the simulator reports PH304 here, the analysis accepts it.
// pins: lane.shuffle control.enclosing L9.3
@launch(64)
kernel k(O: tensor<i32>[64]) {
  var y = 0
  while y < ctx.lane + shfl<idx 0>(1) - 1 {    //~ error PH304
    y += 1
  }
  O[ctx.thread] = y
}
