// a decrement inside a block is found too
@launch(32)
kernel k() {
  var i = 0
  for j in range(0, 4) { i-- }    //~ error PH005 help "`i -= 1`"
}
