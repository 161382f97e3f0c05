"""`Kernel.autotune` (issue 22): every `@autotune` configuration timed (here by a fake timer that
reads which configuration each timed call launches), the fastest kept and cached on disk per
(kernel, device, key), refused on the simulator; and `bench.do_bench`'s warm-up and median."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paths import EXAMPLES
from phobos_tools.analyzer.autotune import label
from phobos_tools.bench import MAX_CALLS, do_bench
from phobos_tools.run import ArgumentError, LaunchError, load, loads

GEMM = EXAMPLES / "tiled_gemm.ph"


class FakeTimer:
    """Times each configuration as ``ms[label]`` (a configuration missing there fails to launch)."""

    def __init__(self, ms: dict, device: str = "Fake H200"):
        self.ms, self.device, self.timed = ms, device, []

    def measure(self, fn, n):
        name = label(fn.config)
        self.timed.append((name, n))
        if name not in self.ms:
            raise LaunchError("too many resources requested for launch")
        return [self.ms[name]] * n


def gemm_args(n=64):
    rng = np.random.default_rng(1)
    A, B = (rng.standard_normal((n, n)).astype(np.float16) for _ in "AB")
    return A, B, np.zeros((n, n), np.float32)


def times(fastest: str) -> dict:
    configs = [f"BM={m}, BN={n}, BK={k}" for m in (64, 32) for n in (64, 32) for k in (32, 16)]
    assert fastest in configs
    return {c: (0.5 if c == fastest else 1.0 + i / 10) for i, c in enumerate(configs)}


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_every_configuration_is_timed_and_the_fastest_kept(cache):
    k = load(GEMM).kernel()
    timer = FakeTimer(times("BM=32, BN=64, BK=16"))
    grids = []

    def grid(cfg):
        grids.append(dict(cfg))
        return (64 // cfg["BN"], 64 // cfg["BM"])

    tuned = k.autotune(*gemm_args(), grid=grid, key=(64, 64, 64), timer=timer)
    assert tuned.config == {"BM": 32, "BN": 64, "BK": 16} and not tuned.cached
    assert len(tuned.timings) == 8 and tuned.timings["BM=32, BN=64, BK=16"] == 0.5
    assert len(grids) == 8 and {"BM": 64, "BN": 64, "BK": 32} in grids
    assert tuned.kernel.program.defines == {"BM": 32, "BN": 64, "BK": 16}
    # each configuration: an estimate, a warm-up, the timed calls (25 ms and 100 ms budgets)
    assert [n for name, n in timer.timed if name == "BM=32, BN=64, BK=16"] == [5, 50, 200]
    saved = [json.loads(p.read_text()) for p in (cache / "autotune").glob("*.json")]
    assert len(saved) == 1 and saved[0]["config"] == tuned.config and saved[0]["device"] == "Fake H200"
    # the winner is the kernel of its configuration: on the simulator it computes A @ B
    A, B, C = gemm_args()
    tuned(A, B, C, grid=(2, 4), device="sim")
    np.testing.assert_allclose(C, A.astype(np.float32) @ B.astype(np.float32), rtol=1e-4, atol=1e-3)


def test_the_cache_is_per_kernel_device_and_key():
    k = load(GEMM).kernel()
    first = FakeTimer(times("BM=64, BN=32, BK=32"))
    k.autotune(*gemm_args(), grid=(1, 1), key="64^3", timer=first)
    again = FakeTimer(times("BM=32, BN=32, BK=16"))
    hit = k.autotune(*gemm_args(), grid=(1, 1), key="64^3", timer=again)
    assert hit.cached and hit.config == {"BM": 64, "BN": 32, "BK": 32} and again.timed == []
    other_key = k.autotune(*gemm_args(), grid=(1, 1), key="128^3", timer=again)
    assert not other_key.cached and other_key.config == {"BM": 32, "BN": 32, "BK": 16}
    other_device = FakeTimer(times("BM=32, BN=32, BK=16"), device="Fake B200")
    assert not k.autotune(*gemm_args(), grid=(1, 1), key="64^3", timer=other_device).cached
    # a kernel whose program fixes a name tunes the rest, under its own cache entry
    fixed = load(GEMM, defines={"BK": 16}).kernel()
    part = FakeTimer({c: v for c, v in ((label({"BM": m, "BN": n}), 1.0 + m / 100 - n / 100)
                                        for m in (64, 32) for n in (64, 32))})
    tuned = fixed.autotune(*gemm_args(), grid=(1, 1), key="64^3", timer=part)
    assert tuned.config == {"BM": 32, "BN": 64} and len(part.timed) == 12


def test_cache_false_neither_reads_nor_writes(cache):
    k = load(GEMM).kernel()
    k.autotune(*gemm_args(), grid=(1, 1), timer=FakeTimer(times("BM=64, BN=64, BK=32")), cache=False)
    assert not (cache / "autotune").exists()


def test_configurations_that_fail_are_left_out_with_the_reason():
    k = load(GEMM).kernel()
    ms = times("BM=64, BN=64, BK=32")
    del ms["BM=64, BN=64, BK=32"]                       # this one cannot launch
    tuned = k.autotune(*gemm_args(), grid=(1, 1), timer=FakeTimer(ms))
    assert tuned.config != {"BM": 64, "BN": 64, "BK": 32}
    assert "too many resources" in tuned.failed["BM=64, BN=64, BK=32"]
    with pytest.raises(LaunchError, match="no configuration of `tiled_gemm` ran: BM=64, BN=64, BK=32: ArgumentError"):
        k.autotune(np.zeros((4, 4), np.float32), *gemm_args()[1:], grid=(1, 1), timer=FakeTimer(ms), cache=False)


def test_autotune_refuses_the_simulator_and_kernels_without_configurations():
    k = load(GEMM).kernel()
    with pytest.raises(ArgumentError, match="autotune times each configuration on the GPU: the simulator's times"):
        k.autotune(*gemm_args(), grid=(1, 1), device="sim", timer=FakeTimer({}))
    with pytest.raises(ArgumentError, match="device is one of sim, gpu"):
        k.autotune(*gemm_args(), grid=(1, 1), device="tpu", timer=FakeTimer({}))
    fixed = load(GEMM, defines={"BM": 32, "BN": 32, "BK": 16}).kernel()
    with pytest.raises(ArgumentError, match="`tiled_gemm` has no `@autotune` configuration left to choose from"):
        fixed.autotune(*gemm_args(), grid=(1, 1), timer=FakeTimer({}))
    plain = loads("@launch(32)\nkernel k(y: tensor<f32>[4]) {\n  y[0 :+ 4] = 1.0\n}\n").kernel()
    with pytest.raises(ArgumentError, match="no `@autotune` configuration"):
        plain.autotune(np.zeros(4, np.float32), grid=(1,), timer=FakeTimer({}))


class StepTimer:
    """Each call takes ``per_call`` ms, but the first ``cold`` calls take ten times that."""

    device = "Fake"

    def __init__(self, per_call, cold=3):
        self.per_call, self.cold, self.calls = per_call, cold, 0

    def measure(self, fn, n):
        out = []
        for _ in range(n):
            fn()
            self.calls += 1
            out.append(self.per_call * (10 if self.calls <= self.cold else 1))
        return out


def test_do_bench_warms_up_and_takes_the_median():
    ran = []
    t = StepTimer(2.0, cold=1)
    assert do_bench(lambda: ran.append(1), timer=t) == 2.0       # the cold call is not in the median
    # 5 to estimate (median 2 ms), 25 ms / 2 ms = 12 to warm up, 100 ms / 2 ms = 50 timed
    assert len(ran) == 5 + 12 + 50
    fast = StepTimer(1e-9, cold=0)
    do_bench(lambda: None, timer=fast)
    assert fast.calls == 5 + 2 * MAX_CALLS                      # a budget never asks for more than the cap
    for bad in (0, -1, True, "25"):
        with pytest.raises(ValueError, match="warmup is a positive number of milliseconds"):
            do_bench(lambda: None, warmup=bad, timer=fast)
