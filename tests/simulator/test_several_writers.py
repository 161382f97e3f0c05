"""Stores by several threads of a CTA into one element between two barriers (simulator/memory.py's
race records): where each earlier writer overwrites its own store, which value stays does not depend
on the order the GPU runs the threads in, and nothing is reported; where one of them does not, the
run stops with PH408, located at the other thread's store (the record's "several threads" of CTA 0
once read as a uniform store of every thread, and the report crashed)."""

from __future__ import annotations

import numpy as np
import pytest

from phobos_tools.run import DynamicCheckFailed, loads

HEAD = """@launch(64)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 9.0
  t[0, ctx.lane] = 6.0
"""
TAIL = """  barrier()
  O[0 :+ 1, 0 :+ 32] = t
}
"""


def run(body: str, unchecked: bool = False):
    a = np.zeros((1, 32), np.float32)
    o = np.zeros((1, 32), np.float32)
    loads(HEAD + body + TAIL, "k.ph", unchecked=unchecked).kernel()(a, o, grid=(1,))
    return o


def test_every_writer_overwriting_its_own_stores_is_no_race():
    # threads 0 and 32 both store 9, 6, then 2 in t[0, 0]: each one's last store is 2, so 2 stays
    o = run("  t[0, ctx.lane] = 2.0\n  t[0, ctx.lane] = 4.0\n")
    assert (o == 4.0).all()


@pytest.mark.parametrize("guard", ["ctx.warp == 0", "ctx.thread < 32"])
def test_a_writer_that_does_not_overwrite_races_with_the_others(guard):
    # only warp 0 stores 2: thread 32's 6 may land after it
    with pytest.raises(DynamicCheckFailed) as err:
        run(f"  if {guard} {{\n    t[0, ctx.lane] = 2.0\n  }}\n", unchecked=True)
    e = err.value
    assert e.code == "PH408", str(e)
    assert (e.diagnostic.span.line, e.diagnostic.span.column) == (7, 5), str(e)
    assert ("thread 0 of CTA (0, 0, 0) stores 2.0 in `t[0, 0]`, where several threads of the CTA stored "
            "another value since the last barrier (among them thread 32, at 5:3)") in str(e), str(e)
