"""Device arrays from other libraries, without a GPU (issue 22): any object with ``__dlpack__``
(a CUDA producer accepted, asked for its tensor on the launch's stream; numpy's CPU export
refused with a clear error; bf16 through DLPack), ``__cuda_array_interface__`` with its producer's
stream (the launch waits for it) and read-only flag (refused where the kernel stores), and
launches queued on ``stream=`` (default: the backend's current stream), on a fake backend.

The CUDA producer is numpy's own DLPack export with the device field of the capsule's C struct
rewritten to kDLCUDA: a real capsule, laid out as torch's or cupy's are."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from phobos_tools.language import dlpack
from phobos_tools.language.arguments import DeviceArray
from phobos_tools.lowering.runtime import BadArguments, Kernel, LaunchError, stream_handle
from phobos_tools.run import ArgumentError, loads

MANIFEST = {"version": 1, "entry": "scale", "target": "sm_90", "ptx_version": "8.6", "block": 128,
            "dynamic_shared_bytes": 0,
            "params": [{"name": "x", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
                       {"name": "y", "kind": "tensor", "dtype": "f32", "shape": ["N"]}],
            "extents": ["N"], "aligned": {}, "resources": None}
BF16 = {**MANIFEST, "params": [{"name": "x", "kind": "tensor", "dtype": "bf16", "shape": ["N"]},
                               {"name": "y", "kind": "tensor", "dtype": "f32", "shape": ["N"]}]}
SCALE = """@launch(128)
kernel scale(x: tensor<f32>[N], y: tensor<f32>[N]) {
  let i = ctx.block.x * 128 + ctx.thread
  if i < N {
    y[i] = 2.0 * x[i]
  }
}
"""


class HostProducer:
    """A tensor in host memory that only speaks DLPack (numpy's export, as a CPU torch tensor's)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class CudaProducer:
    """A DLPack producer whose tensors are on CUDA device 0: records the streams it is asked for."""

    def __init__(self, a, code=None, versioned=True):
        self.a, self.code, self.versioned, self.streams = a, code, versioned, []

    def __dlpack_device__(self):
        return dlpack.KDL_CUDA, 0

    def __dlpack__(self, stream=None, max_version=None):
        self.streams.append(stream)
        if self.versioned and max_version is not None:
            capsule = self.a.__dlpack__(max_version=max_version)
            managed = dlpack._ManagedVersioned.from_address(
                dlpack._api.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
        else:
            capsule = self.a.__dlpack__()
            managed = dlpack._Managed.from_address(dlpack._api.PyCapsule_GetPointer(capsule, b"dltensor"))
        managed.dl_tensor.device.device_type = dlpack.KDL_CUDA
        if self.code is not None:
            managed.dl_tensor.dtype.code = self.code
        return capsule


class OldCudaProducer(CudaProducer):
    """One from before DLPack 1.0: ``__dlpack__`` takes no ``max_version``."""

    def __dlpack__(self, stream=None):
        return super().__dlpack__(stream)


class CAI:
    """A device array by ``__cuda_array_interface__`` (version 3, with a stream when given)."""

    def __init__(self, a, stream=None, readonly=False):
        self.a = a
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str, "version": 3,
                                         "data": (a.ctypes.data, readonly), "strides": None, "stream": stream}


class Stream:
    def __init__(self, handle):
        self.handle = handle


class FakeBackend:
    """The backend interface (current_stream, wait_for, launch), recording what it is asked."""

    name = "fake"

    def __init__(self, current=None):
        self.current = current
        self.calls = []

    def current_stream(self):
        return self.current

    def wait_for(self, producer, stream):
        self.calls.append(("wait", producer, stream_handle(stream)))

    def launch(self, kernel, prepared, grid, stream):
        self.calls.append(("launch", stream_handle(stream), grid,
                           [ptr for (_i, _h, ptr, _n) in prepared.tensors]))


def f32(n=256):
    return np.arange(n, dtype=np.float32)


# ---------------------------------------------------------------- DLPack

def test_numpys_cpu_dlpack_is_refused_with_a_clear_error():
    k = Kernel("", MANIFEST, backend=FakeBackend())
    with pytest.raises(BadArguments, match=r"`x` is a DLPack array \([a-z_.]*HostProducer\) in CPU \(kDLCPU\) memory, not on "
                                           r"the GPU: pass a numpy array \(numpy.from_dlpack\(x\)\)"):
        k(HostProducer(f32()), f32(), grid=(2,))
    # and the same words from the Python API, on either device
    kern = loads(SCALE).kernel()
    for device in ("gpu", "sim"):
        with pytest.raises(ArgumentError, match="in CPU \\(kDLCPU\\) memory, not on the GPU"):
            kern(HostProducer(f32()), f32(), grid=(2,), device=device)


def test_a_cuda_dlpack_producer_is_accepted_and_asked_on_the_launch_stream():
    x, y = f32(), f32()
    px, py = CudaProducer(x), CudaProducer(y)
    backend = FakeBackend(current=Stream(0x77))
    k = Kernel("", MANIFEST, backend=backend, writes=["y"])
    k(px, py, grid=(2,))                                    # the backend's current stream
    k(px, py, grid=(2,), stream=Stream(0x99))               # a given one
    assert px.streams == [0x77, 0x99] and py.streams == [0x77, 0x99]
    assert backend.calls == [("launch", 0x77, (2, 1, 1), [x.ctypes.data, y.ctypes.data]),
                             ("launch", 0x99, (2, 1, 1), [x.ctypes.data, y.ctypes.data])]


def test_the_legacy_default_stream_is_named_1_to_a_producer():
    px = CudaProducer(f32())
    Kernel("", MANIFEST, backend=FakeBackend(current=None), writes=["y"])(px, CudaProducer(f32()), grid=(1,))
    assert px.streams == [1]


def test_a_producer_from_before_dlpack_1_is_read_too():
    x = f32()
    p = OldCudaProducer(x, versioned=False)
    prepared = Kernel("", MANIFEST, backend=FakeBackend(), writes=["y"]).prepare(p, CudaProducer(f32()))
    assert prepared.tensors[0][2] == x.ctypes.data and prepared.extents == {"N": 256}


def test_bf16_comes_in_through_dlpack():
    bits = np.zeros(64, np.uint16)                       # the bits of 64 bf16 values
    p = CudaProducer(bits, code=4)                         # kDLBfloat, 16 bits
    prepared = Kernel("", BF16, backend=FakeBackend(), writes=["y"]).prepare(p, CudaProducer(f32(64)))
    assert prepared.tensors[0][2] == bits.ctypes.data and prepared.tensors[0][3] == 128
    # a bf16 tensor for an f32 parameter names both types
    with pytest.raises(BadArguments, match="must hold float32, not bfloat16"):
        Kernel("", MANIFEST, backend=FakeBackend(), writes=["y"]).prepare(CudaProducer(bits, code=4),
                                                                          CudaProducer(f32(64)))


def test_dlpack_shape_and_dtype_are_checked_against_the_kernel():
    k = Kernel("", MANIFEST, backend=FakeBackend(), writes=["y"])
    with pytest.raises(BadArguments, match="must hold float32, not int32"):
        k.prepare(CudaProducer(np.zeros(8, np.int32)), CudaProducer(f32(8)))
    with pytest.raises(BadArguments, match="extent `N` is 8"):
        k.prepare(CudaProducer(f32(8)), CudaProducer(f32(9)))
    with pytest.raises(BadArguments, match="not C-contiguous"):
        k.prepare(CudaProducer(np.zeros((16, 2), np.float32).T[0]), CudaProducer(f32(16)))


def test_a_read_only_dlpack_array_where_the_kernel_stores_is_refused():
    ro = f32()
    ro.flags.writeable = False                          # numpy marks its DLPack 1.0 export read-only
    k = Kernel("", MANIFEST, backend=FakeBackend(), writes=["y"])
    k(CudaProducer(ro), CudaProducer(f32()), grid=(1,))   # x is only read: fine
    with pytest.raises(BadArguments, match="`y` is a read-only device array, but the kernel stores into it"):
        k(CudaProducer(f32()), CudaProducer(ro), grid=(1,))


# ---------------------------------------------------------------- __cuda_array_interface__

def test_the_launch_waits_for_the_producers_stream():
    x, y = f32(), f32()
    backend = FakeBackend(current=Stream(0x77))
    k = Kernel("", MANIFEST, backend=backend, writes=["y"])
    k(CAI(x, stream=0x55), CAI(y, stream=0x55), grid=(2,))
    assert backend.calls == [("wait", 0x55, 0x77), ("launch", 0x77, (2, 1, 1), [x.ctypes.data, y.ctypes.data])]
    backend.calls.clear()
    k(CAI(x, stream=0x77), CAI(y), grid=(2,))                # already the launch's stream; none named
    assert [c[0] for c in backend.calls] == ["launch"]
    backend.calls.clear()
    k(CAI(x, stream=1), CAI(y, stream=2), grid=(2,), stream=Stream(0))   # legacy default (0 is 1)
    assert backend.calls[:-1] == [("wait", 2, 0)]


def test_a_cai_stream_of_0_is_refused():
    k = Kernel("", MANIFEST, backend=FakeBackend(), writes=["y"])
    with pytest.raises(BadArguments, match="names the stream 0, which is no stream"):
        k(CAI(f32(), stream=0), CAI(f32()), grid=(1,))


def test_a_read_only_cai_array_where_the_kernel_stores_is_refused():
    k = Kernel("", MANIFEST, backend=FakeBackend(), writes=["y"])
    k(CAI(f32(), readonly=True), CAI(f32()), grid=(1,))
    with pytest.raises(BadArguments, match="`y` is a read-only device array, but the kernel stores into it"):
        k(CAI(f32()), CAI(f32(), readonly=True), grid=(1,))
    # from a manifest alone, which tensors the kernel stores into is not known: refused, saying so
    with pytest.raises(BadArguments, match="the manifest does not say which tensors the kernel stores into"):
        Kernel("", MANIFEST, backend=FakeBackend())(CAI(f32(), readonly=True), CAI(f32()), grid=(1,))


def test_the_python_api_knows_which_tensors_the_kernel_stores_into():
    kern = loads(SCALE).kernel()
    assert kern._gpu_kernel().writes == {"y"}      # from the analysis (the build needs no GPU)
    # refused before any backend is asked for
    with pytest.raises(ArgumentError, match="`y` is a read-only device array, but the kernel stores into it"):
        kern(CAI(f32()), CAI(f32(), readonly=True), grid=(2,), device="gpu")


def test_what_is_no_stream_is_a_clear_error():
    k = Kernel("", MANIFEST, backend=FakeBackend(), writes=["y"])
    with pytest.raises(LaunchError, match="stream= is a CUDA stream .* not str"):
        k(CAI(f32()), CAI(f32()), grid=(1,), stream="fast")
    with pytest.raises(ArgumentError, match="stream= is a CUDA stream"):
        loads(SCALE).kernel()(CAI(f32()), CAI(f32()), grid=(1,), device="gpu", stream=object())


def test_stream_handles_of_each_library():
    class CoreStream:                        # cuda.core and the __cuda_stream__ protocol
        def __cuda_stream__(self):
            return (0, 0xABC)

    class CupyStream:
        ptr = 0xDEF

    class Handle:                            # cuda.bindings' CUstream: converts with int()
        def __int__(self):
            return 0x123

    assert stream_handle(None) is None and stream_handle(7) == 7
    assert stream_handle(CoreStream()) == 0xABC and stream_handle(CupyStream()) == 0xDEF
    assert stream_handle(Stream(Handle())) == 0x123


def test_device_arrays_keep_their_capsule_until_the_launch():
    x = f32()
    v = Kernel("", MANIFEST, backend=FakeBackend(), writes=["y"])
    bound_x = v.prepare(CudaProducer(x), CudaProducer(f32()))
    assert bound_x.tensors[0][2] == x.ctypes.data
    from phobos_tools.language.arguments import bind, manifest_params
    b = bind("scale", manifest_params(MANIFEST), ["N"], (CudaProducer(x), CudaProducer(f32())), {},
             device_arrays=True)
    assert isinstance(b.values["x"], DeviceArray) and b.values["x"].keep is not None
    assert ctypes.pythonapi.PyCapsule_IsValid(ctypes.py_object(b.values["x"].keep), b"dltensor_versioned")
