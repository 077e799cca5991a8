"""Joints from Python: model names and counts, zero-copy joint views, set_joints
for all worlds / a list / a mask, refusals that change nothing. Checked
against the C API (include/torpor_joints.h) and against physics."""
import json

import numpy as np
import pytest

import torpor
from torpor._ffi import ffi, lib
from conftest import ROOT

DT = 1.0 / 60.0


def cartpole(**slider_keys) -> torpor.Model:
    """scenes/cartpole.json, its slider given extra keys (a drive)."""
    scene = json.loads((ROOT / "scenes" / "cartpole.json").read_text())
    scene["joints"][0].update(slider_keys)
    return torpor.Model.from_json(json.dumps(scene), "cartpole+")


BALL = """{"format": "torpor-scene", "version": 2, "name": "ball-joint", "sleep": {"enabled": false},
 "bodies": [{"name": "ground", "size": [4, 4, 1], "pos": [0, 0, -0.5], "static": true},
            {"name": "bob", "shape": "ball", "size": [0.2, 0.2, 0.2], "pos": [0, 0, 1], "mass": 1}],
 "joints": [{"name": "pivot", "type": "ball", "child": "bob", "anchor": [0, 0, 0.5]}]}"""


def test_model_names_and_counts_match_the_c_api():
    m = torpor.Model.load(ROOT / "scenes" / "cartpole.json")
    assert (m.joint_count, m.joint_q_count, m.dof_count) == (2, 2, 2)
    assert m.joint_names == ["slider", "pole_hinge"] and m.dof_names == ["slider", "pole_hinge"]
    assert m.find_joint("pole_hinge") == 1 and m.find_joint("nope") == -1
    assert [m.joint_type(j) for j in range(2)] == ["prismatic", "revolute"]
    assert m.joint_slices("pole_hinge") == (slice(1, 2), slice(1, 2))
    with pytest.raises(KeyError, match="nope"):
        m.joint_slices("nope")
    with pytest.raises(torpor.InvalidArgumentError):
        m.joint_slices(2)
    ball = torpor.Model.from_json(BALL)
    assert (ball.joint_q_count, ball.dof_count) == (4, 3)
    assert ball.dof_names == ["pivot.wx", "pivot.wy", "pivot.wz"]
    assert ball.joint_slices(0) == (slice(0, 4), slice(0, 3))
    pend = torpor.Model.load(ROOT / "scenes" / "pendulum.json")
    assert (pend.joint_count, pend.joint_names, pend.dof_count) == (1, ["hinge"], 1)


def test_views_shapes_and_initial_values():
    m = cartpole()
    b = torpor.Batch(m, worlds=3)
    j = b.joints()
    for name, width in (("q", 2), ("qd", 2), ("f", 2), ("target_q", 2), ("target_qd", 2)):
        a = getattr(j, name)
        assert a.shape == (3, width) and a.dtype == np.float32, name
        assert a.flags.c_contiguous and not a.flags.writeable, name
    assert b.joint_q is j.q and b.target_qd is j.target_qd
    # the scene: the pole starts at q0 = 0.05 rad, everything else at rest
    assert np.all(j.q == np.float32([0.0, 0.05])) and not j.qd.any() and not j.f.any()
    with pytest.raises(ValueError):
        j.q[0, 0] = 1.0  # read-only: writes go through set_joints


def test_views_are_the_batch_memory():
    b = torpor.Batch(cartpole(), worlds=4)
    j = b.joints()
    view = ffi.new("tp_joint_view *")
    assert lib.tp_batch_joints(b._ptr, view) == 0
    for name in ("q", "qd", "f", "target_q", "target_qd"):
        assert getattr(j, name).__array_interface__["data"][0] == int(ffi.cast("uintptr_t", getattr(view, name))), name
    q0 = j.q.copy()
    b.step(5)  # the pole falls: a view taken before the step shows it
    assert np.all(j.q[:, 1] > q0[:, 1])
    b.set_joints(target_qd=[0.0, 0.5], worlds=[2])
    assert j.target_qd[2, 1] == np.float32(0.5)
    assert np.shares_memory(j.q, b.joints().q) and np.shares_memory(j.f, b.joint_f)


def test_joint_f_for_a_mask_pushes_only_those_carts():
    """6 N on the slider for one step (1/60 s) of the masked worlds: the cart's
    velocity gains F dt / m_eff over the unpushed worlds, where m_eff lies
    between the cart's 1 kg and cart + pole 1.1 kg (the pole, free to swing
    about its hinge, gives up part of its inertia). joint_f lasts one step."""
    b = torpor.Batch(cartpole(), worlds=5)
    mask = np.array([False, True, False, True, False])
    f = np.zeros((5, 2), np.float32)
    f[:, 0] = 6.0
    f[~mask] = np.nan  # rows of unmasked worlds are not read
    b.set_joints(f=f, worlds=mask)
    assert np.all(b.joint_f[mask, 0] == 6.0) and not b.joint_f[~mask].any()
    b.step()
    qd = b.joint_qd
    gain = qd[mask, 0] - qd[0, 0]
    assert np.all((6.0 * DT / 1.1 < gain) & (gain < 6.0 * DT / 1.0)), gain
    # unpushed worlds: as in a batch never written to (each world is stepped on its own)
    ref = torpor.Batch(cartpole(), worlds=5)
    ref.step()
    assert b.joint_qd[~mask].tobytes() == ref.joint_qd[~mask].tobytes()
    assert b.joint_q[~mask].tobytes() == ref.joint_q[~mask].tobytes()
    assert not b.joint_f.any(), "joint_f is cleared by the step"


def test_pd_target_moves_the_cart_there_in_the_written_worlds_only():
    """A PD drive on the slider (kp 100 N/m, kd 20 N s/m, cart + pole about
    1.03 kg: omega 9.9 rad/s, damping ratio about 1, settled to 1e-3 of the step
    within 1 s). The falling, then swinging pole pushes on the cart with at most
    a few N, a few cm against kp = 100 N/m, so after 1.5 s the cart is within
    0.1 m of its target. Worlds not written hold the cart near 0 and are
    bitwise those of a batch never written to."""
    m = cartpole(drive="position", kp=100, kd=20)
    b, ref = torpor.Batch(m, worlds=4), torpor.Batch(m, worlds=4)
    b.set_joints(target_q=[[1.0, 0.0], [-0.8, 0.0]], worlds=[0, 2])
    assert np.array_equal(b.target_q[:, 0], np.float32([1.0, 0.0, -0.8, 0.0]))
    b.step(10)
    x = b.joint_q[:, 0]
    assert x[0] > 0.05 and x[2] < -0.05, "the carts start towards their targets"
    b.step(80)
    ref.step(90)
    x = b.joint_q[:, 0]
    assert abs(x[0] - 1.0) < 0.1 and abs(x[2] + 0.8) < 0.1, x
    assert np.all(np.abs(x[[1, 3]]) < 0.1), x
    assert b.joint_q[[1, 3]].tobytes() == ref.joint_q[[1, 3]].tobytes()
    # the bodies follow the joints: the cart's body x is its slider coordinate (it starts at x = 0)
    cart = m.find_body("cart")
    assert np.allclose(b.state().pos[:, cart, 0], x, atol=1e-5)


def test_writes_for_all_worlds_broadcast_and_move_the_bodies():
    m = cartpole()
    b = torpor.Batch(m, worlds=3)
    b.set_joints(q=[0.5, 0.0], qd=[0.0, 0.0])  # every world, one row broadcast
    assert np.all(b.joint_q == np.float32([0.5, 0.0]))
    # written q moves the links' bodies at once: cart x = 0.5, the upright pole above it
    pos = b.state().pos
    assert np.allclose(pos[:, m.find_body("cart"), 0], 0.5) and np.allclose(pos[:, m.find_body("pole"), 0], 0.5)
    b.set_joints(qd=np.zeros((0, 2)), worlds=[])  # an empty list writes nothing
    with pytest.raises(ValueError, match="shape"):
        b.set_joints(q=np.zeros((2, 2)))


def test_refusals_carry_the_c_message_and_change_nothing():
    b = torpor.Batch(cartpole(drive="position", kp=10), worlds=3)
    b.step(3)
    before = {n: getattr(b.joints(), n).copy() for n in ("q", "qd", "f", "target_q", "target_qd")}
    h = b.state_hash()
    qd = np.zeros((3, 2), np.float32)
    qd[1, 1] = np.nan
    with pytest.raises(torpor.InvalidArgumentError, match=r"joint_qd row 1 \[1\] \(pole_hinge\): must be finite"):
        b.set_joints(qd=qd)
    # a valid target_q beside a refused qd is not written (one all-or-nothing call)
    with pytest.raises(torpor.InvalidArgumentError, match="joint_qd row 0"):
        b.set_joints(target_q=[0.7, 0.0], qd=[np.inf, 0.0], worlds=[2])
    # nor is a q, which would move the bodies (the state hash below covers them)
    with pytest.raises(torpor.InvalidArgumentError, match="joint_qd row 2"):
        b.set_joints(q=[0.3, 1.0], qd=qd[[0, 0, 1]], worlds=np.array([True, False, True]))
    with pytest.raises(torpor.InvalidArgumentError, match=r"target_q row 0 \[0\] \(slider\): must be within"):
        b.set_joints(target_q=[2e6, 0.0], worlds=np.array([True, False, False]))
    # the C call names itself and the bad index (one selection parser, checked in C)
    with pytest.raises(torpor.InvalidArgumentError,
                       match=r"tp_batch_set_joint_arrays: select.indices\[1\] = 1 names world 1 a second time"):
        b.set_joints(f=np.ones((2, 2)), worlds=[1, 1])
    with pytest.raises(torpor.InvalidArgumentError,
                       match=r"tp_batch_set_joint_arrays: select.indices\[0\] = 3 out of range \[0, 3\)"):
        b.set_joints(f=np.ones((1, 2)), worlds=[3])
    with pytest.raises(torpor.InvalidArgumentError, match=r"worlds: index 4294967297 out of range"):
        b.set_joints(f=np.ones((1, 2)), worlds=np.array([2**32 + 1]))  # would wrap to world 1 as int32
    with pytest.raises(ValueError, match="mask"):
        b.set_joints(f=0.0, worlds=np.array([True, False]))
    with pytest.raises(ValueError, match="shape"):  # checked before target_q is written
        b.set_joints(target_q=[0.3, 0.0], f=np.ones(3))
    for n, a in before.items():
        assert getattr(b.joints(), n).tobytes() == a.tobytes(), n
    assert b.state_hash() == h, "a refused call changed the batch"
    ball = torpor.Batch(torpor.Model.from_json(BALL), worlds=2)
    with pytest.raises(torpor.InvalidArgumentError, match="quaternion at \\[0, 4\\) is zero"):
        ball.set_joints(q=[0.0, 0.0, 0.0, 0.0])
    ball.set_joints(q=[0.0, 0.0, 0.0, 2.0], worlds=[1])  # normalized, as tp_batch_set_pose does
    assert list(ball.joint_q[1]) == [0.0, 0.0, 0.0, 1.0]


def test_model_without_joints_gives_empty_views_and_refuses_writes(tower):
    assert (tower.joint_count, tower.joint_q_count, tower.dof_count) == (0, 0, 0)
    assert tower.joint_names == [] and tower.dof_names == []
    b = torpor.Batch(tower, worlds=2)
    j = b.joints()
    assert all(getattr(j, n).shape == (2, 0) for n in ("q", "qd", "f", "target_q", "target_qd"))
    with pytest.raises(torpor.InvalidArgumentError, match="has no joints"):
        b.set_joints(f=0.0)


HANG = """{"format": "torpor-scene", "version": 2, "name": "hang",
 "bodies": [{"name": "ground", "size": [4, 4, 1], "pos": [0, 0, -0.5], "static": true},
            {"name": "rod", "size": [0.1, 0.1, 1], "pos": [0, 0, 1.5], "mass": 1}],
 "joints": [{"name": "pivot", "type": "revolute", "child": "rod", "axis": [1, 0, 0], "anchor": [0, 0, 0.5]}]}"""


def test_a_refused_write_leaves_sleeping_trees_asleep():
    """A rod hanging at rest sleeps after the quiet time (0.5 s); a set_joints
    with a valid target_q and a non-finite qd is refused whole, in one C call:
    sleep states, quiet timers, joint arrays and the state hash stay byte-identical
    (a write of target_q alone would have woken the tree)."""
    b = torpor.Batch(torpor.Model.from_json(HANG, "hang"), worlds=3)
    b.step(60)
    s = b.state()
    assert (s.sleep_state[:, 1] == 1).all(), s.sleep_state
    before = (s.sleep_state.tobytes(), s.quiet_timer.tobytes(), s.body_awake.tobytes(), b.target_q.tobytes(),
              b.joint_qd.tobytes(), b.state_hash())
    with pytest.raises(torpor.InvalidArgumentError, match=r"joint_qd row 1 \[0\] \(pivot\): must be finite"):
        b.set_joints(target_q=[0.5], qd=[[0.0], [np.nan], [0.0]])
    with pytest.raises(torpor.InvalidArgumentError, match=r"target_q row 0 \[0\] \(pivot\): must be within"):
        b.set_joints(q=[0.2], target_q=[2e6], worlds=[1])
    after = (s.sleep_state.tobytes(), s.quiet_timer.tobytes(), s.body_awake.tobytes(), b.target_q.tobytes(),
             b.joint_qd.tobytes(), b.state_hash())
    assert after == before, "a refused set_joints changed the batch"
    b.set_joints(target_q=[0.5], worlds=[2])  # accepted: wakes that world's tree alone
    assert list(s.sleep_state[:, 1]) == [1, 1, 0]


LEG = {"format": "torpor-scene", "version": 2, "name": "lying-leg",
       "bodies": [{"name": "ground", "size": [8, 8, 1], "pos": [0, 0, -0.5], "static": True},
                  {"name": "torso", "size": [0.5, 0.3, 0.1], "pos": [0, 0, 0.07], "mass": 10},
                  {"name": "waist", "size": [0.3, 0.3, 0.1], "pos": [0.4, 0, 0.07], "mass": 5},
                  {"name": "thigh", "size": [0.4, 0.1, 0.1], "pos": [-0.45, 0, 0.07], "mass": 3},
                  {"name": "shin", "size": [0.4, 0.1, 0.1], "pos": [-0.85, 0, 0.07], "mass": 2},
                  {"name": "foot", "shape": "ball", "size": [0.16, 0.16, 0.16], "pos": [-1.05, 0, 0.07], "mass": 1}],
       "joints": [{"name": "root", "type": "free", "child": "torso"},
                  {"name": "waist", "type": "revolute", "parent": "torso", "child": "waist", "axis": [0, 1, 0],
                   "anchor": [-0.15, 0, 0]},
                  {"name": "hip", "type": "revolute", "parent": "torso", "child": "thigh", "axis": [0, 1, 0],
                   "anchor": [0.2, 0, 0], "limits": [-0.2, 0.0]},
                  {"name": "knee", "type": "revolute", "parent": "thigh", "child": "shin", "axis": [0, 1, 0],
                   "anchor": [0.2, 0, 0], "limits": [-2.0, 0.0]},
                  {"name": "ankle", "type": "fixed", "parent": "shin", "child": "foot", "anchor": [0.2, 0, 0]}]}


def test_a_lying_leg_straight_at_its_limits_rests_on_its_foot():
    """A floating trunk lying on the ground with a leg held straight by its hip
    and knee limits (both at their upper limit 0, which lifting the foot would
    pass), the foot a ball 3 cm below the leg's underside, dropped 2 cm: the
    foot's contact may lift the foot only by tilting the trunk. The
    split-impulse push-out must respect the limits like the velocity rows: if
    it turns the knee past its limit, the limit's position correction turns it
    back, the foot stays in the ground and the push's share in the free joints
    accumulates (gymnasium's humanoidstandup drove its abdomen to its limit so).
    At rest (asleep after 3 s): every joint within 0.005 rad of its range (the
    limit's Baumgarte correction leaves a violation of the order of one
    substep's push), no contact deeper than 5 linear slops (2.5 mm)."""
    m = torpor.Model.from_json(json.dumps(LEG), "lying-leg")
    b = torpor.Batch(m, 2)
    b.step(180)
    s = b.state()
    assert (s.sleep_state[:, 1:] == 1).all() and (s.faults == 0).all()
    for name in ("hip", "knee"):
        assert (b.joint_q[:, m.joint_slices(name)[0]] <= 0.005).all(), (name, b.joint_q)
    b.set_joints(qd=0.0)  # wakes the tree: one step brings back its contacts
    b.step(1)
    assert b.contacts(0)["separation"].min() > -0.0025, b.contacts(0)
