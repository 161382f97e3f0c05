// PH504: compound assignments that two threads of a CTA can make to one element at once
@launch(128)
kernel k(A: tensor<f32>[128], O: tensor<f32>[4], P: tensor<f32>[4], Q: tensor<f32>[64], R: tensor<f32>[8],
         S: tensor<f32>[8]) {
  O[0] += A[ctx.thread]                     //~ warning PH504 "loses updates"
  P[ctx.warp] += 1.0                        //~ warning PH504
  Q[ctx.thread / 2] += 1.0                  //~ warning PH504 note "threads 0 and 1"
  if ctx.lane == 0 {
    R[5] -= 1.0                             //~ warning PH504
  }
  for i in range(0, 4) {
    S[i + 2] *= 2.0                         //~ warning PH504
  }
}
