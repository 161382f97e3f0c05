"""Reading a DLPack tensor (``__dlpack__`` / ``__dlpack_device__``: torch, cupy, jax, numpy) without
a framework: the capsule's C structs through ctypes. Only the standard library.

The consumer (the GPU runtime) names the stream it will use when it asks for the capsule
(``stream=``), so that the producer orders its pending work before it; it asks for a versioned
capsule (DLPack 1.0, which carries the read-only flag) and falls back to the unversioned one.
The capsule stays referenced (``Exported.capsule``) until the launch has used the pointer; its
destructor then hands the tensor back to the producer, as the protocol says for a capsule the
consumer never renamed.
"""

from __future__ import annotations

import ctypes

from .records import record

# DLDeviceType
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
DEVICE_NAMES = {1: "CPU (kDLCPU)", 2: "CUDA (kDLCUDA)", 3: "CUDA host (kDLCUDAHost)", 4: "OpenCL", 7: "Vulkan",
                8: "Metal", 9: "VPI", 10: "ROCm", 11: "ROCm host", 13: "CUDA managed (kDLCUDAManaged)",
                14: "oneAPI"}
GPU_DEVICES = (KDL_CUDA, KDL_CUDA_MANAGED)
# DLDataTypeCode -> the letter numpy's typestr uses
_CODES = {0: "i", 1: "u", 2: "f", 4: "bf", 6: "b"}
READ_ONLY = 1                               # DLPACK_FLAG_BITMASK_READ_ONLY


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    _fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ManagedVersioned(ctypes.Structure):
    _fields_ = [("version", _Version), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", _Tensor)]


_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class DLPackError(ValueError):
    """An object whose DLPack export cannot be used (the message says why)."""


@record(frozen=True)
class Exported:
    pointer: int                   # the first element's address (data + byte_offset)
    shape: tuple
    strides: tuple | None          # in elements, as DLPack gives them; None: C-contiguous
    dtype: str                     # numpy typestr letter and bytes ("f4", "bf2", "i1", "b1")
    device_type: int
    device_id: int
    readonly: bool
    capsule: object                # keeps the tensor alive until the launch is done


def device_of(obj) -> tuple[int, int]:
    """``obj.__dlpack_device__()`` as (device type, device id); DLPackError when it fails."""
    try:
        t, i = obj.__dlpack_device__()
        return int(t), int(i)
    except Exception as e:  # noqa: BLE001 - a producer's own error, reported as such
        raise DLPackError(f"its __dlpack_device__() failed: {type(e).__name__}: {e}") from None


def export(obj, stream: int | None) -> Exported:
    """The tensor ``obj`` exports through ``__dlpack__``, asked for on ``stream`` (a CUDA stream
    handle: 1 is the legacy default stream; None for a host tensor)."""
    device_type, device_id = device_of(obj)
    try:
        try:
            capsule = obj.__dlpack__(stream=stream, max_version=(1, 0))
        except TypeError:                   # a producer from before DLPack 1.0: no max_version
            capsule = obj.__dlpack__(stream=stream)
    except Exception as e:  # noqa: BLE001 - a producer's own error, reported as such
        raise DLPackError(f"its __dlpack__() failed: {type(e).__name__}: {e}") from None
    if _api.PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        managed = _ManagedVersioned.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
        if managed.version.major != 1:
            raise DLPackError(f"it exports DLPack {managed.version.major}.{managed.version.minor}; "
                              "this runtime reads DLPack 1.x and 0.x")
        readonly = bool(managed.flags & READ_ONLY)
    elif _api.PyCapsule_IsValid(capsule, b"dltensor"):
        managed = _Managed.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor"))
        readonly = False                    # DLPack before 1.0 has no read-only flag
    else:
        raise DLPackError("its __dlpack__() returned no DLPack capsule (one named `dltensor` or "
                          "`dltensor_versioned`)")
    t = managed.dl_tensor
    ndim = int(t.ndim)
    shape = tuple(int(t.shape[i]) for i in range(ndim))
    strides = tuple(int(t.strides[i]) for i in range(ndim)) if t.strides else None
    code, bits, lanes = int(t.dtype.code), int(t.dtype.bits), int(t.dtype.lanes)
    if lanes != 1 or code not in _CODES or bits % 8:
        raise DLPackError(f"its element type (DLPack code {code}, {bits} bits, {lanes} lanes) is none of Phobos's")
    return Exported((t.data or 0) + int(t.byte_offset), shape, strides, f"{_CODES[code]}{bits // 8}",
                    int(t.device.device_type), int(t.device.device_id), readonly, capsule)
