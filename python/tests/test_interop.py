"""Views leave torpor without copies: DLPack export of the read-only views to
torch.from_dlpack and jax.dlpack.from_dlpack (each test skips only when its
module is missing; scripts/test-deps.sh installs both), NumPy's consumer and a
consumer of the legacy, unversioned capsule; and batch.contacts(world) over
tp_batch_contacts."""
import json

import numpy as np
import pytest

import torpor
from conftest import ROOT


class _LegacyCapsule:
    """A producer that hands over only the unversioned DLPack capsule (what a
    consumer asking for an older DLPack version receives)."""

    def __init__(self, capsule, device):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def test_views_export_through_dlpack_without_copies():
    b = torpor.Batch(torpor.Model.load(ROOT / "scenes" / "cartpole.json"), 4)
    views = [b.state().pos, b.joint_q, b.joint_qd[:, 1:]]
    for v in views:
        assert not v.flags.writeable
        assert v.__dlpack_device__() == (1, 0)  # kDLCPU
        legacy = v.__dlpack__()  # no max_version: the legacy capsule; NumPy alone raises BufferError here
        t = np.from_dlpack(_LegacyCapsule(legacy, v.__dlpack_device__()))
        assert t.shape == v.shape and np.shares_memory(t, v) and np.array_equal(t, v)
        t2 = np.from_dlpack(v)
        assert np.shares_memory(t2, v)
    q = np.from_dlpack(b.joint_q)
    before = q[:, 1].copy()
    b.step(5)
    assert not np.array_equal(q[:, 1], before), "the exported tensor shows later steps (same memory)"


def _views(b):
    """A state view, a joint view, an actuator view and a strided column slice."""
    return [b.state().pos, b.joint_q, b.actuator_force, b.joint_qd[:, 1:]]


def test_torch_from_dlpack_shares_the_views_memory():
    torch = pytest.importorskip("torch")
    b = torpor.Batch(torpor.Model.load(ROOT / "scenes" / "cartpole.json"), 4)
    for v in _views(b):
        t = torch.from_dlpack(v)
        assert t.dtype == torch.float32 and tuple(t.shape) == v.shape and t.device.type == "cpu"
        assert t.data_ptr() == v.ctypes.data, "no copy"
        assert np.array_equal(t.numpy(), v)
    q = torch.from_dlpack(b.joint_q)
    before = q[:, 1].clone()
    b.step(5)
    assert not torch.equal(q[:, 1], before), "the tensor shows later steps (same memory)"


def test_jax_from_dlpack_reads_the_views():
    jax = pytest.importorskip("jax")
    b = torpor.Batch(torpor.Model.load(ROOT / "scenes" / "cartpole.json"), 4)
    b.step(3)
    for v in _views(b)[:3]:  # XLA takes only compact strides: a column slice it refuses, as for any producer
        j = jax.dlpack.from_dlpack(v)
        assert j.shape == v.shape and j.dtype == np.float32
        assert np.array_equal(np.asarray(j), v)
    b.set_joints(qd=[1.0, 0.0])
    before = np.array(b.joint_q)
    b.step(5)
    again = jax.dlpack.from_dlpack(b.joint_q)  # taken again after the step: the new state
    assert np.array_equal(np.asarray(again), b.joint_q) and not np.array_equal(np.asarray(again), before)


def test_contacts_of_a_world():
    scene = {"version": 2, "sleep": {"enabled": False}, "bodies": [
        {"name": "ground", "shape": "box", "size": [4, 4, 1], "pos": [0, 0, -0.5], "static": True},
        {"name": "cube", "shape": "box", "size": [0.5, 0.5, 0.5], "pos": [0, 0, 0.25], "mass": 2}]}
    b = torpor.Batch(torpor.Model.from_json(json.dumps(scene)), 2)
    b.step(60)
    c = b.contacts(1)
    assert c.shape[0] == 4 and set(c["body_a"]) == {0} and set(c["body_b"]) == {1}
    np.testing.assert_allclose(c["normal"], np.tile([0, 0, 1], (4, 1)), atol=1e-6)
    assert c["normal_force"].sum() == pytest.approx(2 * 9.81, rel=1e-3), "four corners carry m g"
    with pytest.raises(torpor.InvalidArgumentError):
        b.contacts(2)


def test_empty_views_export_through_dlpack(tower):
    """A model without joints or actuators: the (W, 0) joint and actuator views were
    plain read-only arrays, which NumPy refuses to export (BufferError)."""
    b = torpor.Batch(tower, 3)
    for v in (b.joint_q, b.joint_qd, b.joint_f, b.target_q, b.target_qd, b.ctrl, b.actuator_force, b.limit_force,
              b.contact_sensors()[0]):
        assert isinstance(v, torpor.View) and not v.flags.writeable and v.shape[0] == 3 and v.size == 0
        t = np.from_dlpack(v)
        assert t.shape == v.shape and t.dtype == v.dtype
