// PH104 (literal-out-of-range)
// a literal beside a run or a tile takes its element type (found by the fuzzer: these were
// accepted)
kernel k(A: tensor<f32>[N]) {
  store(A[4 :+ 4], A[0 :+ 4] * 1e39)    //~ error PH104 "literal 1e39 does not fit in f32"
}
