"""analyzer/resources.py: shared memory over the target's limit (PH211) and launch sizes the
target cannot run (PH212), with the tile declarations as labels (DESIGN.md `--arch`)."""

from __future__ import annotations

import pytest

from phobos_tools.analyzer import check_source
from phobos_tools.analyzer import resources
from phobos_tools.analyzer.resources import tile_bytes
from phobos_tools.language.targets import TARGETS
from phobos_tools.language.types import F32, Tile
from phobos_tools.lowering.shared import TARGET_LIMIT


def program(src: str):
    """The checked program; check_source runs the resource checks for sm_90 itself, so only
    their codes may appear here (the tests call resources.check for each target)."""
    r = check_source(src, "t.ph")
    assert all(d.code in ("PH211", "PH212") for d in r.diagnostics if d.severity == "error"), \
        [(d.code, d.message) for d in r.diagnostics]
    return r


def check(r, arch: str) -> list:
    """phobos-check --arch ARCH's resource diagnostics of a checked program."""
    return resources.check(r.semantics, arch, r.analyses)


def kernel(body: str, launch: str = "@launch(256)") -> str:
    return f"{launch}\nkernel k(O: tensor<f32>[256, 256]) {{\n{body}\n}}\n"


def test_tiles_within_the_limit_are_fine_on_every_target():
    src = kernel("  var a: tile<f32>[64, 64] = 0.0\n  O[0 :+ 64, 0 :+ 64] = a")
    for arch in TARGETS:
        assert check(program(src), arch) == []


def test_shared_memory_over_the_limit_names_each_tile():
    src = kernel("  var a: tile<f32>[128, 64] = 0.0\n  var b: tile<f32>[64, 128] = 0.0\n"
                 "  let c = a * 2.0\n  let v = a[0 :+ 1, :]\n  O[0 :+ 128, 0 :+ 64] = c")
    assert check(program(src), "sm_90") == []               # 96 KB: fine on sm_90
    [d] = check(program(src), "sm_75")                      # over sm_75's 64 KB
    assert d.code == "PH211" and "98,304 bytes" in d.message and "65,536" in d.message
    assert d.span.line == 2                                 # the kernel's name
    assert [lab.span.line for lab in d.chain] == [3, 4, 5]  # a, b, c: the view v allocates nothing
    assert "`a`: f32[128, 64], 32,768 bytes" == d.chain[0].text


def test_tiles_of_inlined_functions_count():
    src = ("fn fill(O: tensor<f32>[R, C]) {\n  var t: tile<f32>[128, 128] = 1.0\n  O[0 :+ 128, 0 :+ 128] = t\n}\n"
           + kernel("  fill(O)\n  fill(O)"))
    assert check(program(src), "sm_80") == []
    [d] = check(program(src), "sm_86")
    assert d.code == "PH211" and "131,072" in d.message
    assert [lab.span.line for lab in d.chain] == [2, 2]


def test_min_blocks_over_the_sm():
    src = kernel("  var a: tile<f32>[128, 128] = 0.0\n  O[0 :+ 128, 0 :+ 128] = a", "@launch(256, 4)")
    codes = [d.code for d in check(program(src), "sm_90")]
    assert codes == ["PH211"]                                # 4 x 64 KB > 228 KB per SM


@pytest.mark.parametrize("launch,arch,fires", [
    ("@launch(1024, 2)", "sm_75", True),       # 2048 threads on a 1024-thread SM
    ("@launch(1024, 2)", "sm_90", False),
    ("@launch(512, 3)", "sm_86", True),        # 1536 is the limit: 1536 fits
    ("@launch(512, 4)", "sm_86", True),
    ("@launch(1024, 1, 128)", "sm_90", True),  # 1024 x 128 registers > 64K
    ("@launch(256, 2, 128)", "sm_90", False),  # 2 x 256 x 128 = 64K
    ("@launch(256, 3, 128)", "sm_90", True),
])
def test_launch_sizes(launch, arch, fires):
    src = kernel("  O[0, ctx.thread] = 1.0", launch)
    codes = [d.code for d in check(program(src), arch)]
    if launch == "@launch(512, 3)":
        fires = False                           # exactly 1536
    assert codes == (["PH212"] if fires else [])


def test_unknown_target():
    with pytest.raises(ValueError, match="unknown target"):
        check(program(kernel("  O[0, 0] = 1.0")), "sm_70")


def test_the_checker_and_the_lowering_agree_on_sizes_and_limits():
    assert tile_bytes(Tile(F32, (3, 5))) == 64
    assert {a: t.shared_per_block for a, t in TARGETS.items()} == TARGET_LIMIT


def test_the_runtime_passes_dynamic_shared_memory_at_launch():
    """A fake pycuda: the launch passes the manifest's dynamic_shared_bytes and opts in beyond
    48 KB (the attribute is set once)."""
    import types

    import numpy as np

    from phobos_tools.lowering import runtime as rt

    calls = []

    class Fn:
        def set_attribute(self, attr, value):
            calls.append(("attr", attr, value))

        def __call__(self, *args, **kw):
            calls.append(("launch", kw["shared"]))

    fake = rt._PyCuda.__new__(rt._PyCuda)
    fake.fn = Fn()
    fake.cuda = types.SimpleNamespace(function_attribute=types.SimpleNamespace(MAX_DYNAMIC_SHARED_SIZE_BYTES="max"),
                                      Context=types.SimpleNamespace(synchronize=lambda: None))
    manifest = {"version": 1, "entry": "big", "target": "sm_90", "ptx_version": "8.6", "block": 256,
                "dynamic_shared_bytes": 131072, "params": [{"name": "O", "kind": "tensor", "dtype": "f32",
                                                            "shape": [4]}],
                "extents": [], "aligned": {}, "resources": None}
    k = rt.Kernel("", manifest)
    d = np.zeros(4, np.float32)
    dev = types.SimpleNamespace(__cuda_array_interface__={"shape": (4,), "typestr": "<f4", "data": (4096, False),
                                                          "version": 3, "strides": None})
    prepared = k.prepare(dev)
    fake.launch(k, prepared, (1, 1, 1), None)
    fake.launch(k, prepared, (1, 1, 1), None)
    assert calls == [("attr", "max", 131072), ("launch", 131072), ("launch", 131072)]
    assert d.sum() == 0


def test_a_computed_tile_argument_counts_as_a_tile_of_its_own():
    # `first(a * 2.0)` sweeps into a fresh tile before the call (LANGUAGE §2 arguments, §10)
    src = ("fn first(t: tile<f32>[128, 72]) -> f32 {\n  return t[0, 0]\n}\n"
           + kernel("  var a: tile<f32>[128, 72] = 0.0\n  O[0, 0] = first(a * 2.0) + first(a)"))
    assert check(program(src), "sm_90") == []
    [d] = check(program(src), "sm_75")                      # 2 x 36 KB: over sm_75's 64 KB
    assert d.code == "PH211" and "73,728" in d.message
    assert [lab.text for lab in d.chain] == ["`a`: f32[128, 72], 36,864 bytes",
                                             "`t` of `first`: f32[128, 72], 36,864 bytes"]
    assert (d.chain[1].span.line, d.chain[1].span.column) == (7, 19)      # at `a * 2.0`


def test_a_tile_result_counts_as_a_tile_of_its_own():
    src = ("fn twice(t: tile<f32>[128, 72]) -> tile<f32>[128, 72] {\n  return t * 2.0\n}\n"
           + kernel("  var a: tile<f32>[128, 72] = 0.0\n  a = twice(a)\n  O[0 :+ 128, 0 :+ 72] = a"))
    [d] = check(program(src), "sm_75")
    assert [lab.text for lab in d.chain] == ["`a`: f32[128, 72], 36,864 bytes",
                                             "the result of `twice`: f32[128, 72], 36,864 bytes"]
