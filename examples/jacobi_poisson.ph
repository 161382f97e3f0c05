// Jacobi iterations for a batch of 1-D Poisson problems -u'' = f on 1024 interior grid points
// with u = 0 at both ends and grid spacing h (h2 = h * h): one CTA per problem, one thread per
// point. u lives in a shared tile with the two boundary zeros at its ends. Each sweep sets
// u_i = (u_{i-1} + u_{i+1} + h2 * f_i) / 2; it stops after max_iters sweeps, or once
// `all<over ctx.thread>` says that no point moved by more than tol. The first barrier keeps
// neighbours from being overwritten before every thread has read them; the second makes the
// per-thread stores land before the next sweep's reads and before the final CTA-wide copy out.
@launch(1024)
kernel jacobi_poisson(F: tensor<f32>[B, 1024], U: tensor<f32>[B, 1024], h2: f32, tol: f32,
                      max_iters: i32) {
  let sys = ctx.block.x
  let i = ctx.thread
  let f = F[sys, i]
  var u: tile<f32>[1, 1026] = 0.0
  var it = 0
  while it < max_iters {
    let updated = 0.5 * (u[0, i] + u[0, i + 2] + h2 * f)
    let change = abs(updated - u[0, i + 1])
    barrier()
    u[0, i + 1] = updated
    barrier()
    it += 1
    if all<over ctx.thread>(change <= tol) {
      break
    }
  }
  U[sys :+ 1, 0 :+ 1024] = u[0 :+ 1, 1 :+ 1024]
}
