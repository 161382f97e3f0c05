// PH008 (nesting-too-deep)
// calls nested past the inlining limit (32); a chain of 32 is fine (tests/fuzz/test_malformed.py)
fn g0(x: i32) -> i32 {
  return g1(x)
}
fn g1(x: i32) -> i32 {
  return g2(x)
}
fn g2(x: i32) -> i32 {
  return g3(x)
}
fn g3(x: i32) -> i32 {
  return g4(x)
}
fn g4(x: i32) -> i32 {
  return g5(x)
}
fn g5(x: i32) -> i32 {
  return g6(x)
}
fn g6(x: i32) -> i32 {
  return g7(x)
}
fn g7(x: i32) -> i32 {
  return g8(x)
}
fn g8(x: i32) -> i32 {
  return g9(x)
}
fn g9(x: i32) -> i32 {
  return g10(x)
}
fn g10(x: i32) -> i32 {
  return g11(x)
}
fn g11(x: i32) -> i32 {
  return g12(x)
}
fn g12(x: i32) -> i32 {
  return g13(x)
}
fn g13(x: i32) -> i32 {
  return g14(x)
}
fn g14(x: i32) -> i32 {
  return g15(x)
}
fn g15(x: i32) -> i32 {
  return g16(x)
}
fn g16(x: i32) -> i32 {
  return g17(x)
}
fn g17(x: i32) -> i32 {
  return g18(x)
}
fn g18(x: i32) -> i32 {
  return g19(x)
}
fn g19(x: i32) -> i32 {
  return g20(x)
}
fn g20(x: i32) -> i32 {
  return g21(x)
}
fn g21(x: i32) -> i32 {
  return g22(x)
}
fn g22(x: i32) -> i32 {
  return g23(x)
}
fn g23(x: i32) -> i32 {
  return g24(x)
}
fn g24(x: i32) -> i32 {
  return g25(x)
}
fn g25(x: i32) -> i32 {
  return g26(x)
}
fn g26(x: i32) -> i32 {
  return g27(x)
}
fn g27(x: i32) -> i32 {
  return g28(x)
}
fn g28(x: i32) -> i32 {
  return g29(x)
}
fn g29(x: i32) -> i32 {
  return g30(x)
}
fn g30(x: i32) -> i32 {
  return g31(x)
}
fn g31(x: i32) -> i32 {
  return g32(x)    //~ error PH008 "calls nested more than 32 deep (`g0` -> `g1` -> `g2` -> ... -> `g31` -> `g32`)"
}
fn g32(x: i32) -> i32 {
  return g33(x)
}
fn g33(x: i32) -> i32 {
  return x
}
kernel k() {
  let a = g0(1)
}
