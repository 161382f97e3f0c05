// "Control": a while loop's condition runs again before every iteration, and only in the lanes still
// in the loop; a lane collective in a varying condition is reached by part of the warp from the
// second test on. Found by benchmarks/fuzz.py (issue 8): the simulator reports PH305 here ("only 31
// of the 32 lanes of warp 0"), the analysis accepts it.
// pins: lane.lane-collective control.enclosing L9.3
@launch(64)
kernel k(O: tensor<i32>[64]) {
  var x = 0
  while x < ctx.lane + sum<over ctx.lane>(1) - 32 {    //~ error PH305
    x += 1
  }
  O[ctx.thread] = x
}
