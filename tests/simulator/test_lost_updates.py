"""Lost updates on the simulator: several threads reading and writing one element in one barrier
phase through a compound assignment (LANGUAGE §6: it reads its target, then writes it) or a run's
read-modify-write stop the run with PH410 (PH408, PH409 between CTAs), and the message locates the
other thread's access: its thread, its line and column, and "in the previous iteration" when a loop
made it one iteration before. The updates that nothing can lose stay clean: one thread, each thread
its own element, a barrier between, one value stored with `=`, a kernel whose CTAs run in turn."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from phobos_tools.run import DynamicCheckFailed, loads


def fails(src, *args, grid=(1,)) -> DynamicCheckFailed:
    k = loads(src, "k.ph", unchecked=True).kernel()
    with pytest.raises(DynamicCheckFailed) as err:
        k(*args, grid=grid)
    return err.value


def runs(src, *args, grid=(1,)) -> None:
    loads(src, "k.ph").kernel()(*args, grid=grid)


def at(err: DynamicCheckFailed) -> tuple[int, int]:
    return err.diagnostic.span.line, err.diagnostic.span.column


COUNTER = "@launch(64)\nkernel k(O: tensor<i32>[1]) {\n  O[0] UPDATE\n}\n"


@pytest.mark.parametrize("update", ["+= 1", "-= 1", "*= 2", "^= 1"])
def test_every_thread_updating_one_tensor_element_is_a_lost_update(update):
    # every thread reads 1, then every thread stores its result: on a GPU 64 increments may leave
    # one, although all the threads store one same value
    e = fails(COUNTER.replace("UPDATE", update), np.ones(1, np.int32))
    assert e.code == "PH410" and at(e) == (3, 3), str(e)
    assert ("thread 0 of CTA (0, 0, 0) stores a new value in `O[0]`, which several threads of the CTA read "
            "since the last barrier (among them thread 63, at 3:3, in this statement)") in str(e), str(e)
    text = e.render()
    assert f"a lost update: thread 63 runs this `{update.split()[0]}` on `O[0]` too" in text, text
    assert "reads the element, then stores it (LANGUAGE §6)" in text


def test_a_tile_element_updated_by_many_threads_is_a_lost_update():
    src = """@launch(64)
kernel k(O: tensor<i32>[1, 4]) {
  var t: tile<i32>[1, 4] = 0
  t[0, 0] += 1
  barrier()
  O[0 :+ 1, 0 :+ 4] = t
}
"""
    e = fails(src, np.zeros((1, 4), np.int32))
    assert e.code == "PH410" and at(e) == (4, 3), str(e)
    assert "stores a new value in `t[0, 0]`, which several threads of the CTA read since the last barrier " \
           "(among them thread 63, at 4:3, in this statement)" in str(e), str(e)


@pytest.mark.parametrize("start, where", [
    ("0", "(among them thread 63, at 3:28, in this statement)"),          # every thread, one run
    ("ctx.thread % 4", None),                                             # runs that overlap
])
def test_a_run_read_modify_write_of_shared_elements_races(start, where):
    src = (f"@launch(64)\nkernel k(O: tensor<f32>[1, 8]) {{\n"
           f"  store(O[0, {start} :+ 4], elem(O[0, {start} :+ 4]) + 1.0)\n}}\n")
    e = fails(src, np.zeros((1, 8), np.float32))
    assert e.code in ("PH410", "PH408") and at(e) == (3, 9), str(e)
    assert "in this statement" in str(e), str(e)
    if where is not None:
        assert e.code == "PH410" and where in str(e), str(e)


def test_ctas_updating_one_element_race_between_ctas():
    # CTAs 0 and 1 both read O[0] and then store into it, as 2 and 3 do O[1]: nothing orders them
    src = """@launch(32)
kernel k(O: tensor<i32>[2]) {
  if ctx.thread == 0 {
    O[ctx.block.x / 2] += 1
  }
}
"""
    e = fails(src, np.zeros(2, np.int32), grid=(4,))
    assert e.code == "PH409" and at(e) == (4, 5), str(e)
    assert ("CTA (0, 0, 0) stores a new value in `O[0]`, which CTA (1, 0, 0) read in this launch "
            "(by its thread 0, at 4:5)") in str(e), str(e)
    assert "a store racing another CTA's read" in e.render()


def test_a_cta_storing_where_another_read_names_the_read():
    src = """@launch(32)
kernel k(O: tensor<f32>[64], P: tensor<f32>[64]) {
  P[ctx.block.x * 32 + ctx.lane] = O[(1 - ctx.block.x) * 32 + ctx.lane]
  O[ctx.block.x * 32 + ctx.lane] += 5.0
}
"""
    e = fails(src, np.zeros(64, np.float32), np.zeros(64, np.float32), grid=(2,))
    assert e.code == "PH409" and at(e) == (4, 3), str(e)
    assert "which CTA (1, 0, 0) read in this launch (by its thread 0, at 3:36)" in str(e), str(e)
    assert "(1) CTA (1, 0, 0) reads `O[0]` here" in e.render()


ROTATE = """@launch(32)
kernel k(O: tensor<i32>[4]) {
  for i in range(0, 4) {
    if ctx.thread < 4 {
      O[(i + ctx.thread) % 4] += 1
    }
    SYNC
  }
}
"""


def test_a_lost_update_across_loop_iterations_says_the_previous_iteration():
    # thread 1 updates O[1] in iteration 0, thread 0 in iteration 1, with no barrier between
    e = fails(ROTATE.replace("SYNC", ""), np.zeros(4, np.int32))
    assert e.code == "PH410" and at(e) == (5, 7), str(e)
    assert ("thread 0 of CTA (0, 0, 0) stores a new value in `O[1]`, which several threads of the CTA read "
            "since the last barrier (among them thread 1, at 5:7, in the previous iteration)") in str(e), str(e)
    assert "a lost update: thread 1 runs this `+=` on `O[1]` too, in the previous iteration" in e.render()
    # a barrier in every iteration orders the updates
    o = np.zeros(4, np.int32)
    runs(ROTATE.replace("SYNC", "barrier()"), o)
    assert o.tolist() == [4, 4, 4, 4]


def test_iterations_further_back_and_outer_loops_are_named():
    src = """@launch(32)
kernel k(O: tensor<i32>[4]) {
  for i in range(0, 4) {
    if (ctx.thread == 0 && i == 0) || (ctx.thread == 1 && i == 2) {
      O[0] += 1
    }
  }
}
"""
    e = fails(src, np.zeros(4, np.int32))
    assert e.code == "PH410" and at(e) == (5, 7), str(e)
    assert "(among them thread 0, at 5:7, in a previous iteration (2 iterations back))" in str(e), str(e)
    nested = """@launch(32)
kernel k(O: tensor<i32>[4]) {
  for j in range(0, 2) {
    for i in range(0, 2) {
      if ctx.thread < 2 && i == 0 {
        O[(j + ctx.thread) % 2] += 1
      }
    }
  }
}
"""
    e = fails(nested, np.zeros(4, np.int32))
    assert e.code == "PH410" and at(e) == (6, 9), str(e)
    assert "at 6:9, in the previous iteration of the loop at line 3)" in str(e), str(e)


def test_updates_in_two_statements_point_at_the_first():
    src = """@launch(32)
kernel k(O: tensor<i32>[1]) {
  if ctx.thread == 0 {
    O[0] += 1
  }
  if ctx.thread == 1 {
    O[0] += 2
  }
}
"""
    e = fails(src, np.zeros(1, np.int32))
    assert e.code == "PH410" and at(e) == (7, 5), str(e)
    assert "thread 1 of CTA (0, 0, 0) stores a new value in `O[0]`" in str(e)
    assert "(among them thread 0, at 4:5)" in str(e), str(e)
    text = e.render()
    assert "(1) thread 0 reads `O[0]` here" in text, text
    assert "a lost update: thread 0 read and stored `O[0]` too" in text, text


def test_an_update_after_another_threads_plain_read_is_a_write_after_read():
    # thread 1 only reads: it may see the old value or the new one, but no update is lost
    src = """@launch(32)
kernel k(O: tensor<i32>[1], P: tensor<i32>[1]) {
  if ctx.thread == 1 {
    P[0] = O[0]
  }
  if ctx.thread == 0 {
    O[0] += 1
  }
}
"""
    e = fails(src, np.zeros(1, np.int32), np.zeros(1, np.int32))
    assert e.code == "PH410" and at(e) == (7, 5), str(e)
    # (the record counts thread 0's own read of its `+=` too)
    assert "which several threads of the CTA read since the last barrier (among them thread 1, at 4:12)" in str(e)
    text = e.render()
    assert "a store racing another thread's read" in text and "lost update" not in text, text


def test_records_before_a_barrier_are_not_named():
    # thread 5 read O[0] before the barrier: the lost update after it is threads 0 and 1's
    src = """@launch(32)
kernel k(O: tensor<i32>[1], P: tensor<i32>[1]) {
  if ctx.thread == 5 {
    P[0] = O[0]
  }
  barrier()
  if ctx.thread < 2 {
    O[0] += 1
  }
}
"""
    e = fails(src, np.zeros(1, np.int32), np.zeros(1, np.int32))
    assert e.code == "PH410" and at(e) == (8, 5), str(e)
    assert "(among them thread 1, at 8:5, in this statement)" in str(e) and "thread 5" not in e.render(), str(e)


def test_a_compound_read_racing_a_store_that_races_nothing_is_ph401_located():
    # thread 1 adds 0: its store changes nothing, but its read races thread 0's store
    src = """@launch(32)
kernel k(O: tensor<i32>[1]) {
  if ctx.thread == 0 {
    O[0] = 5
  }
  if ctx.thread == 1 {
    O[0] += 0
  }
}
"""
    e = fails(src, np.zeros(1, np.int32))
    assert e.code == "PH401" and at(e) == (7, 5), str(e)
    assert "thread 1 of CTA (0, 0, 0) reads `O[0]`, which thread 0 of the CTA stored since the last barrier " \
           "(at 4:5)" in str(e), str(e)


def test_a_point_read_of_a_store_made_in_the_previous_iteration():
    src = """@launch(32)
kernel k(O: tensor<i32>[2]) {
  for i in range(0, 2) {
    if ctx.thread == 0 && i == 0 {
      O[0] = 7
    }
    if ctx.thread == 1 && i == 1 {
      O[1] = O[0]
    }
  }
}
"""
    e = fails(src, np.zeros(2, np.int32))
    assert e.code == "PH401" and at(e) == (8, 14), str(e)
    assert "which thread 0 of the CTA stored since the last barrier (at 5:7, in the previous iteration)" in str(e)
    assert "(1) thread 0 stores `O[0]` here, in the previous iteration" in e.render()


@pytest.mark.parametrize("body, where, said", [
    ("if ctx.thread == 0 { O[0] = 5 }\n  if ctx.thread == 1 { O[0] = 7 }", (4, 24),
     "thread 1 of CTA (0, 0, 0) stores 7 in `O[0]`, where thread 0 of the CTA stored another value since the "
     "last barrier (at 3:24)"),
    ("O[0] = 5\n  if ctx.thread == 1 { O[0] = 7 }", (4, 24),
     "where every thread of the CTA stored another value since the last barrier (at 3:3)"),
])
def test_ph408_names_where_the_other_store_was(body, where, said):
    e = fails(f"@launch(32)\nkernel k(O: tensor<i32>[1]) {{\n  {body}\n}}\n", np.zeros(1, np.int32))
    assert e.code == "PH408" and at(e) == where, str(e)
    assert said in str(e), str(e)


@pytest.mark.parametrize("body, expect", [
    ("if ctx.thread == 0 {\n    O[0] += 1\n  }", [1, 0]),                     # one thread
    ("if ctx.lane == 0 {\n    O[ctx.warp] += 1\n  }", [1, 1]),                 # one thread per element
    ("O[0] = 1\n  O[0] = 1", [1, 0]),                                        # one value, with `=`
    ("O[0] += 0", [0, 0]),                                                   # nothing changes
    ("for i in range(0, 3) {\n    if ctx.thread == i {\n      O[0] += 1\n    }\n    barrier()\n  }", [3, 0]),
    ("let s = sum<over ctx.thread>(1)\n  if ctx.thread == 0 {\n    O[0] += s\n  }", [64, 0]),
])
def test_updates_nothing_can_lose_run_clean(body, expect):
    o = np.zeros(2, np.int32)
    runs(f"@launch(64)\nkernel k(O: tensor<i32>[2]) {{\n  {body}\n}}\n", o)
    assert o.tolist() == expect


def test_each_thread_updating_its_own_element_runs_clean():
    src = """@launch(64)
kernel k(O: tensor<i32>[64]) {
  var t: tile<i32>[1, 64] = 0
  for i in range(0, 4) {
    O[ctx.thread] += i
    t[0, ctx.thread] += 1
  }
  barrier()
  O[ctx.thread] += t[0, ctx.thread]
}
"""
    o = np.zeros(64, np.int32)
    runs(src, o, grid=(1,))
    assert (o == 10).all()


def test_ctas_that_run_in_turn_are_not_checked_against_each_other():
    # a kernel with an atomic runs one CTA at a time (PH409 is not checked there)
    src = """@launch(32)
kernel k(O: tensor<i32>[2], F: tensor<i32>[1]) {
  let turn = atomic_add(F[0], 1)
  if ctx.thread == 0 {
    O[ctx.block.x / 2] += 1
  }
}
"""
    o, f = np.zeros(2, np.int32), np.zeros(1, np.int32)
    runs(src, o, f, grid=(4,))
    assert o.tolist() == [2, 2] and f.tolist() == [4]


@pytest.mark.slow
def test_phobos_run_stops_a_lost_update_with_exit_status_4(tmp_path):
    path = tmp_path / "k.ph"
    path.write_text(COUNTER.replace("UPDATE", "+= 1"))
    exe = Path(sys.executable).with_name("phobos-run")
    done = subprocess.run([str(exe), str(path), "--sim", "--grid", "1", "--arg", "O=zeros:i32:1",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 4, done.stderr
    err = done.stderr
    assert "Traceback" not in err
    assert (f"{path}:3:3: error[PH410]: thread 0 of CTA (0, 0, 0) stores a new value in `O[0]`, which several "
            "threads of the CTA read since the last barrier (among them thread 63, at 3:3, in this statement)"
            ) in err, err
    assert "a lost update" in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_phobos_run_names_the_previous_iteration(tmp_path, capsys):
    from phobos_tools.cli.run import main

    path = tmp_path / "k.ph"
    path.write_text(ROTATE.replace("SYNC", ""))
    assert main([str(path), "--sim", "--grid", "1", "--arg", "O=zeros:i32:4", "--out", str(tmp_path)]) == 4
    err = capsys.readouterr().err
    assert f"{path}:5:7: error[PH410]" in err and "among them thread 1, at 5:7, in the previous iteration" in err, err
