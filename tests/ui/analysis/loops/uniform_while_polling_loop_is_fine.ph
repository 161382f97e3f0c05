// uniform while polling loop is fine
// grid_counter's pattern: poll with load_acquire under uniform control
@launch(256)
kernel k(F: tensor<i32>[4], epoch: i32) {
  var seen = load_acquire(F[0])
  while seen != epoch {
    seen = load_acquire(F[0])
  }
  barrier()
}
