"""Device arrays of a CUDA batch, for PyTorch, JAX and CuPy without a host copy.

:meth:`torpor.Batch.device_state` returns a :class:`DeviceState` whose fields
are :class:`DeviceArray` objects: read-only views of the batch's own GPU
memory (tp_batch_device_state), exported two ways:

- ``__cuda_array_interface__`` (version 3; Numba's CUDA Array Interface, read by
  CuPy, PyTorch's ``torch.as_tensor`` and Numba);
- DLPack (``__dlpack__`` / ``__dlpack_device__``, the Python array API's
  protocol, read by ``torch.from_dlpack``, ``jax.dlpack.from_dlpack`` and
  ``cupy.from_dlpack``), as a ``"dltensor"`` capsule (DLPack 0.8 ABI:
  DLManagedTensor).

The memory belongs to the batch: each array keeps the :class:`Batch` alive,
and so does a capsule until its consumer calls the deleter. What the arrays
show is current when :meth:`~torpor.Batch.device_state` returns (the batch's
stream is synchronised); later steps change it in place. The arrays are
read-only by contract (CAI ``data[1]`` is True; DLPack has no read-only flag):
writes go through the Batch methods.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Tuple

import cffi

_KDL_CUDA = 2  # DLDeviceType kDLCUDA
_DTYPES = {  # CAI typestr: (DLPack type code, bits); codes: 0 int, 1 uint, 2 float
    "<f4": (2, 32), "|u1": (1, 8), "<i4": (0, 32),
}

_dl = cffi.FFI()
_dl.cdef("""
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data; DLDevice device; int32_t ndim; DLDataType dtype;
    int64_t *shape; int64_t *strides; uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor; void *manager_ctx; void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
""")

# What a capsule's tensor needs alive until its deleter runs: the struct, the
# shape array and the array (which holds the batch). Keyed by the struct's address.
_live: dict = {}


@_dl.callback("void(DLManagedTensor *)")
def _deleter(managed):
    _live.pop(int(_dl.cast("uintptr_t", managed)), None)


_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_PyCapsule_IsValid = ctypes.pythonapi.PyCapsule_IsValid
_PyCapsule_IsValid.restype = ctypes.c_int
_PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


# The same two calls on a raw PyObject pointer, for the destructor: a capsule
# being destroyed has no references left and must not get a new one.
_IsValidRaw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", ctypes.pythonapi))
_GetPointerRaw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


@ctypes.PYFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    """A capsule never consumed still owns its tensor: call its deleter. A
    consumer renames the capsule "used_dltensor" and calls the deleter itself."""
    if _IsValidRaw(capsule, b"dltensor"):
        _deleter(_dl.cast("DLManagedTensor *", _GetPointerRaw(capsule, b"dltensor")))


class DeviceArray:
    """One array of a CUDA batch's state in device memory (read-only)."""

    def __init__(self, owner: Any, address: int, shape: Tuple[int, ...], typestr: str, device_id: int = 0):
        if typestr not in _DTYPES:
            raise ValueError(f"DeviceArray: element type {typestr!r} is not one of {sorted(_DTYPES)}")
        self._owner = owner  # keeps the batch (and so the memory) alive
        self.address = int(address)
        self.shape = tuple(int(n) for n in shape)
        self.typestr = typestr
        self.device_id = int(device_id)

    @property
    def __cuda_array_interface__(self) -> dict:
        # stream None: the producer synchronised before handing the pointer out.
        return {"shape": self.shape, "typestr": self.typestr, "data": (self.address, True), "version": 3,
                "strides": None, "stream": None}

    def __dlpack_device__(self) -> Tuple[int, int]:
        return (_KDL_CUDA, self.device_id)

    def __dlpack__(self, stream: Any = None) -> Any:
        """A "dltensor" capsule of this array (C-contiguous, no copy). `stream`
        is accepted for the protocol; the data is already synchronised."""
        managed = _dl.new("DLManagedTensor *")
        shape = _dl.new("int64_t[]", max(len(self.shape), 1))
        for i, n in enumerate(self.shape):
            shape[i] = n
        code, bits = _DTYPES[self.typestr]
        t = managed.dl_tensor
        t.data = _dl.cast("void *", self.address)
        t.device.device_type = _KDL_CUDA
        t.device.device_id = self.device_id
        t.ndim = len(self.shape)
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = shape
        t.strides = _dl.NULL  # C-contiguous
        t.byte_offset = 0
        managed.manager_ctx = _dl.NULL
        managed.deleter = _deleter
        key = int(_dl.cast("uintptr_t", managed))
        _live[key] = (managed, shape, self)
        return _PyCapsule_New(key, b"dltensor", ctypes.cast(_capsule_destructor, ctypes.c_void_p))

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, typestr={self.typestr!r}, device={self.device_id})"


@dataclass(frozen=True)
class DeviceState:
    """The state of a CUDA batch in device memory; fields and shapes as
    :class:`torpor.State` (pos (W, B, 3) m, quat (W, B, 4), v (W, B, 3) m/s,
    w (W, B, 3) rad/s, ... awake_count (W,) int32, faults (W,) uint8)."""

    pos: DeviceArray
    quat: DeviceArray
    v: DeviceArray
    w: DeviceArray
    body_awake: DeviceArray
    sleep_state: DeviceArray
    quiet_timer: DeviceArray
    removed: DeviceArray
    contact_f: DeviceArray
    island: DeviceArray
    awake_count: DeviceArray
    sleeping_count: DeviceArray
    checking_count: DeviceArray
    contact_overflow: DeviceArray
    faults: DeviceArray


def capsule_tensor(capsule: Any) -> Any:
    """The DLManagedTensor inside an unconsumed "dltensor" capsule (for tests
    and debugging); raises ValueError for any other object."""
    if not _PyCapsule_IsValid(capsule, b"dltensor"):
        raise ValueError("not an unconsumed DLPack capsule")
    return _dl.cast("DLManagedTensor *", _PyCapsule_GetPointer(capsule, b"dltensor"))


def live_tensors() -> int:
    """How many exported DLPack tensors have not been deleted yet."""
    return len(_live)
