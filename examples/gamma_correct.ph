// Gamma correction of an 8-bit grayscale image: out = round(255 * (img / 255)^(1 / gamma)),
// clamped to 255. One thread per run of 16 consecutive pixels of a row (16-byte loads and
// stores); W is promised to be a multiple of 16. The u8 run converts to f32, goes through `pow`
// elementwise and is rounded and converted back to u8 as it is stored.
@launch(256)
@aligned(W = 16)
kernel gamma_correct(img: tensor<u8>[H, W], out: tensor<u8>[H, W], gamma: f32) {
  let inv_gamma = 1.0 / gamma
  let runs_per_row = W / 16
  let g = ctx.block.x * ctx.threads + ctx.thread
  if g < H * runs_per_row {
    let r = g / runs_per_row
    let c = (g % runs_per_row) * 16
    let level = pow(elem(f32(img[r, c :+ 16])) * (1.0 / 255.0), inv_gamma)
    store(out[r, c :+ 16], u8(min(round(255.0 * level), 255.0)))
  }
}
