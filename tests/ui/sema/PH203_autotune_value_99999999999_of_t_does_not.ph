// PH203 (bad-autotune)
@autotune(T in [4, 99999999999])    //~ error PH203 "`@autotune` value 99999999999 of `T` does not fit in i32"
@launch(T)
kernel k() {
  var t: tile<f32>[1, T] = 0.0
}
