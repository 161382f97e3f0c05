// "Lane-level operations": a shuffle's result is "as varying as its operands" (LANGUAGE §8: the join
// of v and E): shuffling a uniform value from a uniform lane stays uniform.
// pins: lane.shuffle-result everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64], n: i32) {
  let s = shfl<idx 0>(n)            //~ kind s uniform
  O[0 :+ 1, s :+ 8] = A[0 :+ 1, 0 :+ 8]
}
