// shadowing a name in an inner block is allowed (no diagnostic at all: no snapshot)
kernel k() {
  let a = 1
  if true {
    let a = 2.0
  }
}
