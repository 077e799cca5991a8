"""Device arrays (torpor.device): the CUDA Array Interface and DLPack exports.

Without a GPU no CUDA batch can be made, so the exports are checked on
DeviceArray objects over a stand-in address: shapes, element types, the
read-only flag, the capsule's DLManagedTensor and its deleter. On a machine
with a GPU, test_cuda_batch_exports runs against a real CUDA batch."""
import ctypes
import gc

import numpy as np
import pytest

import torpor
from torpor import device

TOWER = """{"format": "torpor-scene", "version": 1, "name": "t",
 "bodies": [{"name": "g", "size": [4, 4, 1], "pos": [0, 0, -0.5], "static": true},
            {"name": "a", "pos": [0, 0, 0.5], "mass": 1}, {"name": "b", "pos": [0, 0, 1.5], "mass": 1}]}"""


def test_cpu_backend_refuses_with_a_clear_error():
    batch = torpor.Batch(torpor.Model.from_json(TOWER), worlds=2)
    with pytest.raises(torpor.BackendError, match="cpu backend"):
        batch.device_state()


def test_cuda_array_interface_shape_type_and_read_only():
    a = device.DeviceArray(owner=None, address=0x7F0000001000, shape=(16, 3, 3), typestr="<f4")
    cai = a.__cuda_array_interface__
    assert cai["shape"] == (16, 3, 3) and cai["typestr"] == "<f4" and cai["version"] == 3
    assert cai["data"] == (0x7F0000001000, True) and cai["strides"] is None
    with pytest.raises(ValueError, match="element type"):
        device.DeviceArray(owner=None, address=1, shape=(1,), typestr="<f8")


@pytest.mark.parametrize("typestr, code, bits", [("<f4", 2, 32), ("|u1", 1, 8), ("<i4", 0, 32)])
def test_dlpack_capsule_describes_the_array_and_frees_it(typestr, code, bits):
    a = device.DeviceArray(owner=None, address=0x7F0000002000, shape=(4, 5), typestr=typestr, device_id=1)
    assert a.__dlpack_device__() == (2, 1)  # kDLCUDA, device 1
    before = device.live_tensors()
    capsule = a.__dlpack__()
    assert device.live_tensors() == before + 1
    t = device.capsule_tensor(capsule).dl_tensor
    assert int(device._dl.cast("uintptr_t", t.data)) == 0x7F0000002000
    assert (t.device.device_type, t.device.device_id, t.ndim) == (2, 1, 2)
    assert [t.shape[i] for i in range(2)] == [4, 5] and t.strides == device._dl.NULL
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (code, bits, 1)
    del capsule  # never consumed: its destructor calls the deleter
    gc.collect()
    assert device.live_tensors() == before


def test_a_consumer_calls_the_deleter_itself():
    a = device.DeviceArray(owner=None, address=0x7F0000003000, shape=(2,), typestr="<i4")
    before = device.live_tensors()
    capsule = a.__dlpack__()
    managed = device.capsule_tensor(capsule)
    # what a consumer does: rename the capsule, then delete the tensor when done with it
    rename = ctypes.pythonapi.PyCapsule_SetName
    rename.argtypes, rename.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_int
    assert rename(capsule, b"used_dltensor") == 0
    managed.deleter(managed)
    assert device.live_tensors() == before
    del capsule
    gc.collect()
    assert device.live_tensors() == before  # the renamed capsule did not delete it twice


@pytest.mark.skipif(torpor.cuda_device_count() == 0,
                    reason="needs a CUDA device")
def test_cuda_batch_exports():  # pragma: no cover - runs where a GPU is
    batch = torpor.Batch(torpor.Model.from_json(TOWER), worlds=3, backend="cuda")
    d = batch.device_state()
    assert d.pos.shape == (3, 3, 3) and d.awake_count.shape == (3,)
    assert d.pos.__cuda_array_interface__["data"][0] != 0
