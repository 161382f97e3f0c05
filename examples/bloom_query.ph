// Bloom-filter membership for a batch of i32 keys: hits[i] = 1 when all num_hashes bits probed
// for keys[i] are set in the filter `bits` (NW words of 32 bits, bit b of the filter being bit
// b % 32 of word b / 32), else 0. Probe k tests bit (h1 + k * h2) mod (32 * NW), where h1 and h2
// come from a 32-bit xor-shift-multiply mixer; the mixer works in i64 and masks to 32 bits, so
// no product ever overflows, and h2 is forced odd. One thread per key; a thread stops at the
// first clear bit.

// Mixes the low 32 bits of x into a well-spread 32-bit value (returned in an i64).
fn mix32(x: i64) -> i64 {
  var h = x & 0xFFFFFFFF
  h ^= h >> 16
  h *= 0x45D9F3B
  h &= 0xFFFFFFFF
  h ^= h >> 16
  h *= 0x45D9F3B
  h &= 0xFFFFFFFF
  h ^= h >> 16
  return h
}

@launch(256)
kernel bloom_query(keys: tensor<i32>[N], bits: tensor<i32>[NW], hits: tensor<u8>[N],
                   num_hashes: i32) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i >= N {
    return
  }
  let nbits = i64(NW) << 5
  let h1 = mix32(i64(keys[i]))
  var h2 = mix32(h1 ^ 0x5BD1E995)
  h2 |= 1
  var present = true
  var k = 0
  while present && k < num_hashes {
    let bit = (h1 + i64(k) * h2) % nbits
    let word = bits[i32(bit >> 5)]
    present = ((word >> i32(bit & 31)) & 1) != 0
    k += 1
  }
  if present {
    hits[i] = 1
  } else {
    hits[i] = 0
  }
}
