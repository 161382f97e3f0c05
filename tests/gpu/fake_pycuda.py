"""A stand-in for ``pycuda.driver``, on numpy, that holds the runtime's pycuda backend to the API
of the pycuda that the GPU machine gets (the 2026.1 wheel in shared/wheels/gpu-py312).

What it copies from the real thing, each checked against pycuda's own code or binary:

- ``jit_option`` has only the members pycuda's ``wrap_cudadrv.cpp`` declares (MAX_REGISTERS ..
  FALLBACK_STRATEGY; no GENERATE_LINE_INFO), and ``module_from_buffer`` takes (option, int) pairs.
- ``Function.__call__`` builds its argument buffer as pycuda's ``_build_arg_buf`` does: a numpy
  scalar (``isinstance(arg, np.number)``) packs by its ``dtype.char``, a DeviceAllocation as
  "P", anything else is "invalid type on parameter #i"; the packing refuses the format characters
  that pycuda's ``_pvt_struct`` does not know ('e' for float16: "bad char in struct format").
- Contexts form a stack; ``Context.get_current()`` is None when it is empty; a context still on
  the stack when the interpreter exits aborts the process (pycuda: "The context stack was not
  empty upon module cleanup ... The program will be aborted now"): here, exit status 134.
- ``memcpy_dtoh`` needs a writable buffer; dynamic shared memory above 48 KB needs
  ``set_attribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, n)`` first.

"Launching" computes the kernel's result with numpy, chosen by the entry name (the PTX is never
run). For the harness's own tests, the environment can make one entry misbehave:
FAKE_PYCUDA_CRASH=ENTRY ends the process (status 139), FAKE_PYCUDA_FAULT=ENTRY raises an illegal
address that stays (every later call fails, as CUDA's sticky errors do), FAKE_PYCUDA_HANG=ENTRY
never returns. ``install()`` puts ``pycuda`` and ``pycuda.driver`` into sys.modules; ``uninstall()``
removes them. ``launches`` records (entry, format, packed bytes, grid, block, shared).
"""

from __future__ import annotations

import atexit
import enum
import os
import struct
import sys
import types

import numpy as np

from fake_modules import swap_in, swap_out

PVT_STRUCT_CHARS = set("xcbB?hHiIlLqQfdspP") | set("0123456789")      # pycuda/_pvt_struct: no 'e'


class jit_option(enum.IntEnum):          # noqa: N801 - pycuda's spelling
    MAX_REGISTERS = 0
    THREADS_PER_BLOCK = 1
    WALL_TIME = 2
    INFO_LOG_BUFFER = 3
    INFO_LOG_BUFFER_SIZE_BYTES = 4
    ERROR_LOG_BUFFER = 5
    ERROR_LOG_BUFFER_SIZE_BYTES = 6
    OPTIMIZATION_LEVEL = 7
    TARGET_FROM_CUCONTEXT = 8
    TARGET = 9
    FALLBACK_STRATEGY = 10


class function_attribute(enum.IntEnum):  # noqa: N801
    MAX_THREADS_PER_BLOCK = 0
    SHARED_SIZE_BYTES = 1
    CONST_SIZE_BYTES = 2
    LOCAL_SIZE_BYTES = 3
    NUM_REGS = 4
    PTX_VERSION = 5
    BINARY_VERSION = 6
    CACHE_MODE_CA = 7
    MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


class Error(Exception):
    pass


class LogicError(Error):
    pass


class LaunchError(Error):
    pass


_MEMORY: dict[int, bytearray] = {}
_STICKY: list = []
_STACK: list = []
launches: list[tuple] = []
_next_ptr = [0x7F0000000000]


class DeviceAllocation:
    def __init__(self, nbytes):
        self.ptr = _next_ptr[0]
        _next_ptr[0] += (nbytes + 255) // 256 * 256 + 256
        _MEMORY[self.ptr] = bytearray(nbytes)

    def __int__(self):
        return self.ptr

    __index__ = __int__

    def free(self):
        _MEMORY.pop(self.ptr, None)


def _host_bytes(a, writable=False) -> np.ndarray:
    # pycuda takes any contiguous buffer (no format needed); dtoh needs a writable one
    if writable and isinstance(a, np.ndarray) and not a.flags.writeable:
        raise TypeError("buffer is not writable")
    return np.frombuffer(a, dtype=np.uint8) if not writable else a.reshape(-1).view(np.uint8)


def _misbehave(entry=None):
    if _STICKY:
        raise LaunchError(f"cuCtxSynchronize failed: {_STICKY[0]}")
    if entry is None:
        return
    if os.environ.get("FAKE_PYCUDA_CRASH") == entry:
        os._exit(139)
    if os.environ.get("FAKE_PYCUDA_HANG") == entry:
        import time
        while True:
            time.sleep(1)
    if os.environ.get("FAKE_PYCUDA_FAULT") == entry:
        _STICKY.append("an illegal memory access was encountered")
        raise LaunchError(f"cuCtxSynchronize failed: {_STICKY[0]}")


def mem_alloc(nbytes):
    _misbehave()
    if nbytes < 1:
        raise LogicError("cuMemAlloc failed: invalid argument")
    return DeviceAllocation(int(nbytes))


def memcpy_htod(dst, src):
    b = _host_bytes(src)
    _MEMORY[int(dst)][:b.size] = b.tobytes()


def memcpy_dtoh(dst, src):
    b = _host_bytes(dst, writable=True)
    b[...] = np.frombuffer(bytes(_MEMORY[int(src)][:b.size]), np.uint8)


def init(flags=0):
    pass


def get_driver_version():
    return 13000


def get_version():
    return (13, 0, 0)


class Context:
    def __init__(self, device):
        self.device = device

    def push(self):
        _STACK.append(self)

    def pop(self):
        if not _STACK:
            raise LogicError("cuCtxPopCurrent failed: invalid context")
        _STACK.pop()

    @staticmethod
    def get_current():
        return _STACK[-1] if _STACK else None

    @staticmethod
    def synchronize():
        if not _STACK:
            raise LogicError("cuCtxSynchronize failed: invalid device context")


class Device:
    def __init__(self, i):
        self.i = i

    def retain_primary_context(self):
        return Context(self)

    def name(self):
        return "Fake H200 (numpy)"

    @staticmethod
    def count():
        return 1


class Stream:
    def synchronize(self):
        pass


# ---------------------------------------------------------------- kernels, by entry name
def _f32(ptr, n):
    return np.frombuffer(_MEMORY[ptr], np.float32, count=n)


def _matvec(ptrs, ext, _scalars):
    N, K = ext
    W, x = _f32(ptrs[0], N * K).reshape(N, K), _f32(ptrs[1], K)
    np.frombuffer(_MEMORY[ptrs[2]], np.float32, count=N)[...] = W @ x


def _row_sums(ptrs, ext, _scalars):
    M, N = ext
    np.frombuffer(_MEMORY[ptrs[1]], np.float32, count=M)[...] = _f32(ptrs[0], M * N).reshape(M, N).sum(axis=1)


KERNELS = {"lanes_matvec": (_matvec, 3), "row_sums": (_row_sums, 2)}


class Function:
    def __init__(self, entry):
        self.entry = entry
        self.attributes = {function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES: 48 * 1024}

    def set_attribute(self, attr, value):
        self.attributes[function_attribute(attr)] = int(value)

    def __call__(self, *args, block=None, grid=(1, 1), stream=None, shared=0, texrefs=(), time_kernel=False):
        _misbehave(self.entry)
        if not _STACK:
            raise LogicError("cuLaunchKernel failed: invalid device context")
        if block is None:
            raise ValueError("must specify block size")
        fmt, data = "", []
        for i, arg in enumerate(args):                       # pycuda's _build_arg_buf
            if isinstance(arg, np.number):
                data.append(arg)
                fmt += arg.dtype.char
            elif isinstance(arg, DeviceAllocation):
                data.append(int(arg))
                fmt += "P"
            elif isinstance(arg, np.void):
                data.append(bytes(memoryview(arg)))
                fmt += "%ds" % arg.itemsize
            else:
                raise TypeError("invalid type on parameter #%d (0-based)" % i)
        if set(fmt) - PVT_STRUCT_CHARS:
            raise struct.error("bad char in struct format")
        packed = struct.pack(fmt, *data)
        if shared > self.attributes[function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES]:
            raise LogicError("cuLaunchKernel failed: invalid argument (shared memory above the function's limit)")
        if not 1 <= block[0] * block[1] * block[2] <= 1024 or any(g < 1 for g in grid):
            raise LogicError("cuLaunchKernel failed: invalid argument")
        launches.append((self.entry, fmt, packed, tuple(grid), tuple(block), shared))
        values = struct.unpack(fmt, packed)
        fn, n_tensors = KERNELS.get(self.entry, (None, 0))
        if fn is not None:
            fn([int(v) for v in values[:n_tensors]], [int(v) for v in values[-2:]], values[n_tensors:-2])


class Module:
    def __init__(self, ptx: str):
        self.ptx = ptx

    def get_function(self, entry):
        if f".entry {entry}(" not in self.ptx:
            raise LogicError(f"cuModuleGetFunction failed: named symbol not found ({entry})")
        return Function(entry)


def module_from_buffer(buffer, options=(), message_handler=None):
    for key, value in options:
        if not isinstance(key, jit_option):
            raise TypeError(f"No registered converter was able to produce a C++ rvalue of type CUjit_option "
                            f"from this Python object of type {type(key).__name__}")
        int(value)
    return Module(bytes(buffer).split(b"\0", 1)[0].decode())


# ---------------------------------------------------------------- the module
def _exit_check():
    if _STACK:                 # pycuda's context_stack destructor: print and abort
        sys.stderr.write("PyCUDA ERROR: The context stack was not empty upon module cleanup.\n")
        sys.stderr.flush()
        os._exit(134)


_saved: dict = {}


def install(exit_check: bool = False):
    """Put the stand-in in sys.modules. ``exit_check``: abort at exit with a context on the stack
    (registered now, so it runs after any atexit handler registered later)."""
    me = sys.modules[__name__]
    pkg = types.ModuleType("pycuda")
    pkg.VERSION_TEXT = "2026.1-fake"
    pkg.driver = me
    swap_in((("pycuda", pkg), ("pycuda.driver", me)), _saved)
    _STACK.clear()
    _MEMORY.clear()
    _STICKY.clear()
    launches.clear()
    if exit_check:
        atexit.register(_exit_check)
    return me


def uninstall():
    swap_out(_saved)
    _MEMORY.clear()
    _STACK.clear()
    _STICKY.clear()
