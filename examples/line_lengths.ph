// The length of the first line of each row of a byte matrix: lengths[r] = the column of the
// first newline (0x0A) in text[r, :], or N when the row has none. One warp per row scans 32
// columns at a time. `any<over ctx.lane>` tells the whole warp at once that some lane has found
// a newline, `min<over ctx.lane>` picks the leftmost one, and the warp leaves the loop together:
// the `break` runs under warp-uniform control, so the collectives stay legal.
@launch(256)
kernel line_lengths(text: tensor<u8>[M, N], lengths: tensor<i32>[M]) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  if row < M {
    var found = N
    for base in range(0, N, ctx.lanes) {
      let c = base + ctx.lane
      var is_newline = false
      if c < N {
        is_newline = text[row, c] == 0x0A
      }
      if any<over ctx.lane>(is_newline) {
        found = min<over ctx.lane>(where(is_newline, c, N))
        break
      }
    }
    if ctx.lane == 0 {
      lengths[row] = found
    }
  }
}
