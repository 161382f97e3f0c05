"""`phobos-check --explain` for the simulator's race checks (PH401, PH408, PH409, PH410): what
each one flags, why it matters on a GPU, a kernel that trips it, the command that shows it, and
the kernel fixed. The compiler does not check these (LANGUAGE §9.8: kinds are sound for
race-free programs only); `phobos-run --sim` and the Python API's simulator do, as the kernel
runs. tests/test_explain_runtime.py runs every example and every fix."""

from __future__ import annotations

EXPLANATIONS = {
    "PH401": """\
PH401 racy-point-read: a thread reads one element that another thread of its CTA stored since
the last barrier.

What it flags: a point read `t[i]` (or a run's element) of a tile or tensor, at run time, where
the element was stored per thread by another thread of the same CTA and no `barrier()` came in
between. A thread may read back what it stored itself.

Why it matters: nothing orders one thread's store with another thread's load but a barrier.
The GPU may run the reader's warp first, so it reads the old value on one launch and the new
one on the next.

Example (stopped at run time):

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      var t: tile<f32>[64] = 0.0
      t[ctx.thread] = A[ctx.thread]
      O[ctx.thread] = t[63 - ctx.thread]
    }

Run: phobos-run --sim k.ph --grid 1 --arg A=rand:f32:64 --arg O=zeros:f32:64

Fixed: a barrier between the stores and the reads.

    @launch(64)
    kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
      var t: tile<f32>[64] = 0.0
      t[ctx.thread] = A[ctx.thread]
      barrier()
      O[ctx.thread] = t[63 - ctx.thread]
    }
""",
    "PH408": """\
PH408 racy-write: two threads of a CTA store different values in one element with no barrier
between.

What it flags: per-thread stores, at run time, of two different values into one element by two
threads of the same CTA since the last barrier. It is no race when every thread stores the
same value, or when a thread overwrites its own earlier store.

Why it matters: the element keeps whichever store lands last, and that depends on how the GPU
schedules the warps: the result changes from launch to launch.

Example (stopped at run time):

    @launch(64)
    kernel k(O: tensor<i32>[1]) {
      O[0] = ctx.thread
    }

Run: phobos-run --sim k.ph --grid 1 --arg O=zeros:i32:1

Fixed: combine the threads' values first (or let one thread store, or give each thread an
element of its own).

    @launch(64)
    kernel k(O: tensor<i32>[1]) {
      O[0] = max<over ctx.thread>(ctx.thread)
    }
""",
    "PH409": """\
PH409 cross-cta-race: a CTA reads an element another CTA of the launch stored, or stores a new
value where another CTA stored or read.

What it flags: accesses by different CTAs of one launch to one element of a tensor, at run
time, where at least one of them stores a new value. It is checked in kernels without atomics,
`load_acquire` or `store_release`. The simulator runs those kernels' CTAs together, as the GPU
does; kernels with them run one CTA at a time, in block order.

Why it matters: the CTAs of a launch run in no fixed order, often at the same time, and
nothing but atomics and release/acquire orders one CTA's memory accesses with another's.

Example (stopped at run time):

    @launch(32)
    kernel k(O: tensor<i32>[2]) {
      if ctx.thread == 0 {
        O[0] = ctx.block.x
      }
    }

Run: phobos-run --sim k.ph --grid 2 --arg O=zeros:i32:2

Fixed: each CTA writes elements of its own (combine them in a second launch, or with an
atomic).

    @launch(32)
    kernel k(O: tensor<i32>[2]) {
      if ctx.thread == 0 {
        O[ctx.block.x] = ctx.block.x
      }
    }
""",
    "PH410": """\
PH410 racy-write-after-read: a thread stores a new value into an element another thread of its
CTA read since the last barrier.

What it flags: a per-thread store of a value other than the element's current one, at run time,
into an element that another thread of the same CTA read per thread since the last barrier.
Some operations also order the reads before them:
- a CTA collective orders the reads of its CTA;
- a shuffle or a lane collective orders only the reads of its own warp.
A collective whose operand is already the same in all it folds orders nothing: the lowering
exchanges nothing for it.
A compound assignment (`O[0] += 1`) reads its element, then stores it (LANGUAGE §6), so threads
of a CTA updating one element between two barriers, even to one same value, are caught here (or
as PH408): a lost update. The message names the other thread's access, its line and column, and
says "in the previous iteration" when a loop made it one iteration before.

Why it matters: the reader may see the old value or the new one, depending on which warp the
GPU runs first. Updating an array in place with values read from neighbours is the usual way to
trip it; several threads adding to one counter is another (64 threads adding 1 may add 1 in all).

Example (stopped at run time):

    @launch(64)
    kernel k(A: tensor<f32>[64]) {
      let v = A[(ctx.thread + 1) % 64]
      A[ctx.thread] = v * 2.0
    }

Run: phobos-run --sim k.ph --grid 1 --arg A=rand:f32:64

Fixed: every read before every store (a barrier between them), or the results written to
another tensor.

    @launch(64)
    kernel k(A: tensor<f32>[64]) {
      let v = A[(ctx.thread + 1) % 64]
      barrier()
      A[ctx.thread] = v * 2.0
    }
""",
}
