// PH104 (literal-out-of-range)
// a literal beside a run or a tile takes its element type (found by the fuzzer: these were
// accepted)
kernel k() {
  var t: tile<f32>[8, 8] = 1.0
  t *= 1e39    //~ error PH104 "literal 1e39 does not fit in f32"
}
