"""Per-world link COM offsets (include/torpor_actuators.h, "link COM offsets";
docs/articulations.md, "Randomization"): each world's offset of every link's
centre of mass, drawn from ``randomize.link_com_offset`` at each reset or
written by Batch.set_link_com_offsets. Checked against closed forms (a
compound pendulum's period, a torque-free spinning body's straight COM line)
and against MuJoCo's accelerations with the same body ``ipos``."""
import json
import math

import mujoco  # the oracle: scripts/setup.sh installs it
import numpy as np
import pytest

import torpor

ROD_L, ROD_A, ROD_M, G = 1.0, 0.04, 1.0, 9.81


def pendulum(randomize=None, worlds_note=""):
    """A rod of length ROD_L hanging from a hinge about y at its top end (world (0, 0, 1))."""
    scene = {"version": 2, "sleep": {"enabled": False}, "gravity": [0, 0, -G], "bodies": [
        {"name": "rod", "shape": "box", "size": [ROD_A, ROD_A, ROD_L], "mass": ROD_M, "pos": [0, 0, 0.5]}],
        "joints": [{"name": "hinge", "child": "rod", "axis": [0, 1, 0], "anchor": [0, 0, 0.5], "q0": 0.05}]}
    if randomize:
        scene["randomize"] = randomize
    return torpor.Model.from_json(json.dumps(scene))


def period(q, dt):
    """Mean time between upward zero crossings of q (linear interpolation between samples)."""
    t = [(k + q[k] / (q[k] - q[k + 1])) * dt for k in range(len(q) - 1) if q[k] < 0.0 <= q[k + 1]]
    assert len(t) >= 4, "too few swings to time"
    return (t[-1] - t[0]) / (len(t) - 1)


def test_pendulum_period_follows_the_moved_com():
    """A compound pendulum swings with T = 2 pi sqrt(I_pivot / (m g l)) for small angles,
    l the pivot-COM distance and I_pivot = I_c + m l^2 (I_c = m (a^2 + L^2) / 12 of the
    rod about its centre, which the offset leaves alone). Offsets d along the rod
    (away from the pivot: -z of the link) move l from 0.5 to 0.5 + d; the three periods
    differ by > 3 %, each is matched within 0.5 % (the amplitude, 0.05 rad, lengthens
    it by 1.6e-4 and the integrator by ~1e-5)."""
    b = torpor.Batch(pendulum(), 3)
    d = np.array([0.0, 0.2, -0.3], np.float32)
    offsets = np.zeros((3, 1, 3), np.float32)
    offsets[:, 0, 2] = -d
    b.set_link_com_offsets(offsets)
    assert np.array_equal(b.link_com_offsets(), offsets)
    dt = b.model.dt
    q = []
    for _ in range(int(10.0 / dt)):
        b.step(1)
        q.append(b.joint_q[:, 0].copy())
    q = np.array(q)
    i_c = ROD_M * (ROD_A ** 2 + ROD_L ** 2) / 12.0
    periods = []
    for w in range(3):
        l = 0.5 + float(d[w])
        expect = 2.0 * math.pi * math.sqrt((i_c + ROD_M * l * l) / (ROD_M * G * l))
        got = period(q[:, w], dt)
        assert got == pytest.approx(expect, rel=5e-3), (w, got, expect)
        periods.append(got)
    assert min(abs(periods[1] - periods[0]), abs(periods[2] - periods[0])) > 0.03 * periods[0]


def test_published_velocity_is_the_moved_coms():
    """The rigid side reads the link's COM with the world's offset: the published linear
    velocity is w x (COM - pivot) for the offset COM (body frame c + d)."""
    b = torpor.Batch(pendulum(), 2)
    b.set_link_com_offsets([[[0.03, -0.02, -0.25]]], worlds=[1])
    b.step(20)
    s = b.state()
    com_model = np.array(b.model.body_inertia(0)[1], np.float64)
    pivot = np.array([0.0, 0.0, 1.0])
    for w, d in ((0, np.zeros(3)), (1, np.array([0.03, -0.02, -0.25]))):
        x, y, z, qw = s.quat[w, 0].astype(np.float64)
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * qw), 2 * (x * z + y * qw)],
                      [2 * (x * y + z * qw), 1 - 2 * (x * x + z * z), 2 * (y * z - x * qw)],
                      [2 * (x * z - y * qw), 2 * (y * z + x * qw), 1 - 2 * (x * x + y * y)]])
        com = s.pos[w, 0] + R @ (com_model + d)
        expect = np.cross(s.w[w, 0].astype(np.float64), com - pivot)
        np.testing.assert_allclose(s.v[w, 0], expect, atol=2e-5)
    assert abs(s.v[1, 0] - s.v[0, 0]).max() > 0.01, "the offset moved the point whose velocity is published"


def test_forces_and_impulses_act_about_the_moved_com():
    """A force at the pivot turns no hinge (torpor splits it into a force at the link's COM
    and the torque about that COM: both must use the world's COM, else a moment
    F x (c_model - c) remains); an impulse p at the COM changes the hinge's rate by
    (r x p) . y / I_pivot, r = COM - pivot, I_pivot = I_c + m (r_x^2 + r_z^2)."""
    b = torpor.Batch(pendulum(), 3)
    d = np.float32([0.1, 0.0, -0.2])
    b.set_link_com_offsets(d[None, :])
    b.set_joints(q=np.zeros((3, 1), np.float32))
    f = np.zeros((3, 1, 3), np.float32)
    f[1, 0] = [20.0, 0.0, 0.0]
    b.apply_forces(f, point=np.float32([0.0, 0.0, 1.0]).reshape(1, 1, 3))
    p = np.zeros((3, 1, 3), np.float32)
    p[2, 0] = [0.5, 0.0, 0.0]
    b.apply_impulses(p)
    r = np.array([0.0, 0.0, -0.5]) + d  # the rod's centre is 0.5 below the pivot
    i_pivot = ROD_M * (ROD_A ** 2 + ROD_L ** 2) / 12.0 + ROD_M * (r[0] ** 2 + r[2] ** 2)
    kick = np.cross(r, p[2, 0])[1] / i_pivot
    assert float(b.joint_qd[2, 0] - b.joint_qd[0, 0]) == pytest.approx(kick, rel=1e-5)
    b.step(1)
    assert abs(b.joint_qd[1, 0] - b.joint_qd[0, 0]) < 1e-5, "a force at the pivot turns nothing"
    assert abs(b.joint_qd[0, 0]) > 0.01, "gravity turns the offset COM (the comparison means something)"


def test_free_body_com_moves_on_a_straight_line():
    """A free body with an offset COM, no gravity, spinning about its largest principal axis
    (z: torque-free, so w stays constant) and drifting: its COM, origin + R (c + d), moves on
    the straight line COM0 + v t, and the origin circles the COM. With the model's COM in
    the integration instead, the COM would leave the line by ~|d| = 0.06 m."""
    scene = {"version": 2, "sleep": {"enabled": False}, "gravity": [0, 0, 0], "bodies": [
        {"name": "slab", "shape": "box", "size": [0.3, 0.2, 0.1], "mass": 2.0, "pos": [0, 0, 1]}],
        "joints": [{"name": "float", "type": "free", "child": "slab"}]}
    m = torpor.Model.from_json(json.dumps(scene))
    b = torpor.Batch(m, 1)
    d = np.array([0.05, -0.03, 0.0], np.float32)
    b.set_link_com_offsets(d[None, :])
    v0, w0 = np.array([0.4, -0.1, 0.2]), 3.0
    b.set_joints(qd=np.float32([[*v0, 0.0, 0.0, w0]]))
    origin0 = np.array([0.0, 0.0, 1.0])
    com0 = origin0 + d  # R = identity at t = 0; the model's COM is the box centre
    steps = int(round(1.0 / m.dt))
    b.step(steps)
    t = steps * m.dt
    s = b.state()
    a = w0 * t
    R = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    com = com0 + v0 * t
    np.testing.assert_allclose(s.pos[0, 0], com - R @ d, atol=1e-4)
    np.testing.assert_allclose(s.v[0, 0], v0, atol=1e-5)
    np.testing.assert_allclose(b.joint_q[0, :3] + R @ d, com, atol=1e-4)


# ---------------------------------------------------------------- against MuJoCo

CHAIN_XML = """<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="upper" pos="0 0 1.5">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" contype="0" conaffinity="0"/>
      <inertial pos="0.2 0 0" mass="1.2" diaginertia="0.02 0.03 0.025"/>
      <body name="lower" pos="0.4 0 0">
        <joint name="elbow" type="hinge" axis="1 0 0.5"/>
        <geom type="capsule" fromto="0 0 0 0 0.3 0" size="0.025" contype="0" conaffinity="0"/>
        <inertial pos="0 0.15 0" mass="0.7" diaginertia="0.01 0.012 0.008"/>
        <body name="hand" pos="0 0.3 0">
          <joint name="wrist" type="slide" axis="0 0 1"/>
          <geom type="box" size="0.05 0.04 0.03" contype="0" conaffinity="0"/>
          <inertial pos="0 0 0" mass="0.4" diaginertia="0.002 0.003 0.004"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""
BODIES = ["upper", "lower", "hand"]
JOINTS = ["shoulder", "elbow", "wrist"]


def chain_models(tmp_path, randomize=None, dt=0.01):
    """MuJoCo's model of CHAIN_XML and torpor's import of it, one substep of dt."""
    path = tmp_path / "chain.xml"
    path.write_text(CHAIN_XML)
    mm = mujoco.MjModel.from_xml_path(str(path))
    scene = json.loads(torpor.import_scene(path)[0])
    scene.update({"dt": dt, "substeps": 1, "sleep": {"enabled": False}})
    if randomize:
        scene["randomize"] = randomize
    return mm, torpor.Model.from_json(json.dumps(scene), "chain")


def mujoco_qacc(mm, ipos, q, qd):
    """MuJoCo's joint accelerations at (q, qd) with the bodies' ipos replaced (body_sameframe
    cleared: MuJoCo's compiler marks a body whose inertial frame is its own, the hand, and
    its kinematics then skips body_ipos)."""
    for name, p in zip(BODIES, ipos):
        i = mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_BODY, name)
        mm.body_ipos[i] = p
        mm.body_sameframe[i] = 0
    d = mujoco.MjData(mm)
    d.qpos[:], d.qvel[:] = q, qd
    mujoco.mj_forward(mm, d)
    return d.qacc.copy()


def one_step_qacc(b, tm, mm, q, qd):
    """(qd1 - qd0) / h of every world after one step of one substep h from (q, qd): torpor's
    qdd at (q, qd) up to O(h) (the velocity-dependent forces are taken at qd + h/2 qdd,
    docs/articulations.md), in MuJoCo's dof order."""
    jq, jqd = np.zeros_like(b.joint_q), np.zeros_like(b.joint_qd)
    cols = []
    for name in JOINTS:
        qs, vs = tm.joint_slices(name)
        a = mm.jnt_qposadr[mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_JOINT, name)]
        jq[:, qs], jqd[:, vs] = q[a], qd[a]
        cols.append((vs, a))
    b.set_joints(q=jq, qd=jqd)
    before = b.joint_qd.astype(np.float64)
    b.step(1)
    acc = (b.joint_qd.astype(np.float64) - before) / tm.dt
    out = np.zeros((b.worlds, mm.nv))
    for vs, a in cols:
        out[:, a] = acc[:, vs][:, 0]
    return out


def torpor_qacc(tmp_path, q, qd, worlds, offsets=None, randomize=None, h=0.02):
    """torpor's joint accelerations at (q, qd) in each world (offsets [W][J][3] written, or
    drawn by `randomize`): one_step_qacc at steps h, h/2, h/4, extrapolated to h -> 0
    (Richardson, two passes: the error of a(h) is a power series in h). The float32
    rounding of qd1 - qd0 stays ~1e-5 of qdd at these steps."""
    a = []
    for k in range(3):
        mm, tm = chain_models(tmp_path, randomize, dt=h / 2 ** k)
        b = torpor.Batch(tm, worlds)
        if offsets is not None:
            b.set_link_com_offsets(offsets)
        a.append(one_step_qacc(b, tm, mm, q, qd))
    r1 = [2.0 * a[1] - a[0], 2.0 * a[2] - a[1]]
    return (4.0 * r1[1] - r1[0]) / 3.0


def test_accelerations_match_mujoco_with_the_same_ipos(tmp_path):
    """torpor imports the chain with MuJoCo's ipos A, then each world gets its own offset d;
    its joint accelerations at a random state (gravity, Coriolis and centrifugal terms, a
    hinge, a skew hinge and a slide) match mj_forward's with body_ipos = A + d within 1e-5
    of their size (float32 rounding and the extrapolation's rest), while the offsets change
    them by over 100 times that."""
    mm, tm = chain_models(tmp_path)
    A = [np.array(tm.body_inertia(tm.find_body(n))[1], np.float64) for n in BODIES]
    for n, a in zip(BODIES, A):
        np.testing.assert_allclose(a, mm.body_ipos[mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_BODY, n)], atol=1e-6)
    rng = np.random.default_rng(5)
    q, qd = rng.uniform(-0.8, 0.8, 3), rng.uniform(-1.5, 1.5, 3)
    offsets = np.zeros((3, 3, 3), np.float32)
    offsets[1] = [[0.05, 0.02, -0.03], [0.01, -0.04, 0.06], [0.0, 0.03, 0.02]]
    offsets[2] = [[-0.1, 0.0, 0.05], [0.0, 0.08, 0.0], [0.04, -0.02, 0.0]]
    order = [tm.joint_names.index(n) for n in JOINTS]  # the link of JOINTS[k] is BODIES[k]
    written = np.zeros_like(offsets)
    written[:, order] = offsets
    got = torpor_qacc(tmp_path, q, qd, 3, offsets=written)
    expects = [mujoco_qacc(mm, [A[k] + offsets[w, k] for k in range(3)], q, qd) for w in range(3)]
    for w in range(3):
        np.testing.assert_allclose(got[w], expects[w], rtol=0, atol=1e-5 * np.abs(expects[w]).max())
    for w in (1, 2):
        assert np.abs(expects[w] - expects[0]).max() > 1e-3 * np.abs(expects[0]).max(), "the offsets matter"


def test_drawn_offsets_match_mujoco(tmp_path):
    """The randomize block's draws act as the same ipos in MuJoCo, world by world."""
    rnd = {"seed": 4, "link_com_offset": [0.05, 0.05, 0.08]}
    mm, tm = chain_models(tmp_path, rnd)
    A = [np.array(tm.body_inertia(tm.find_body(n))[1], np.float64) for n in BODIES]
    drawn = torpor.Batch(tm, 4).link_com_offsets()
    order = [tm.joint_names.index(n) for n in JOINTS]
    q, qd = np.array([0.3, -0.5, 0.1]), np.array([0.7, -1.1, 0.4])
    got = torpor_qacc(tmp_path, q, qd, 4, randomize=rnd)
    for w in range(4):
        expect = mujoco_qacc(mm, [A[k] + drawn[w, order[k]] for k in range(3)], q, qd)
        np.testing.assert_allclose(got[w], expect, rtol=0, atol=1e-5 * np.abs(expect).max())


# ---------------------------------------------------------------- draws and writes

def test_draws_in_range_new_per_episode_same_at_any_world_count():
    rnd = {"seed": 9, "link_com_offset": [0.02, 0.05, 0.0]}
    m = pendulum(rnd)
    big, seven, one = torpor.Batch(m, 64), torpor.Batch(m, 7), torpor.Batch(m, 1)
    d = big.link_com_offsets()
    assert d.shape == (64, 1, 3)
    assert np.all(np.abs(d[..., 0]) <= 0.02) and np.all(np.abs(d[..., 1]) <= 0.05)
    assert np.all(d[..., 2] == 0.0), "an axis of amplitude 0 is not drawn"
    assert np.abs(d[..., 0]).max() > 0.015 and np.abs(d[..., 1]).max() > 0.04, "the draws span the range"
    assert len(np.unique(d[..., 0])) == 64, "every world draws its own"
    assert np.array_equal(seven.link_com_offsets(), d[:7]) and np.array_equal(one.link_com_offsets(), d[:1])
    big.reset([5])
    d2 = big.link_com_offsets()
    assert not np.array_equal(d2[5], d[5]) and np.array_equal(np.delete(d2, 5, 0), np.delete(d, 5, 0))
    assert np.all(np.abs(d2[5, 0, :2]) <= [0.02, 0.05])


def test_a_drawn_world_moves_as_a_written_one():
    """Randomized world w steps bit for bit as a plain world given the same offsets by the setter."""
    drawn_b = torpor.Batch(pendulum({"seed": 2, "link_com_offset": [0.03, 0.03, 0.1]}), 4)
    plain = torpor.Batch(pendulum(), 4)
    plain.set_link_com_offsets(drawn_b.link_com_offsets())
    drawn_b.step(90)
    plain.step(90)
    assert np.array_equal(drawn_b.joint_q, plain.joint_q) and np.array_equal(drawn_b.joint_qd, plain.joint_qd)
    base = torpor.Batch(pendulum(), 1)
    base.step(90)
    assert not np.any(plain.joint_q[:, 0] == base.joint_q[0, 0]), "the offsets changed the motion"


def test_bad_offsets_are_refused_and_nothing_changes():
    b = torpor.Batch(pendulum(), 3)
    good = np.zeros((3, 1, 3), np.float32)
    good[1, 0] = [0.01, 0.0, -0.1]
    b.set_link_com_offsets(good)
    bad = good.copy()
    bad[0, 0] = [0.5, 0.5, 0.5]
    bad[2, 0, 1] = np.nan
    with pytest.raises(torpor.InvalidArgumentError,
                       match=r'row 2 \[0\]\[1\] \(the y offset of link "rod" of joint "hinge", world 2\) must be finite'):
        b.set_link_com_offsets(bad)
    bad[2, 0, 1] = 2e4
    with pytest.raises(torpor.InvalidArgumentError, match=r"world 2\) must be finite and within \[-10000, 10000\] m"):
        b.set_link_com_offsets(bad)
    assert np.array_equal(b.link_com_offsets(), good), "nothing changed"
    with pytest.raises(torpor.InvalidArgumentError, match=r"world 1\) must be finite"):
        b.set_link_com_offsets([[np.inf, 0, 0]], worlds=[1])
    with pytest.raises(ValueError, match="offsets must have shape"):
        b.set_link_com_offsets(np.zeros((3, 2, 3)))
    assert np.array_equal(b.link_com_offsets(), good)
    b.set_link_com_offsets([[0.0, 0.0, 0.3]], worlds=np.array([False, False, True]))  # a mask
    good[2, 0] = [0.0, 0.0, 0.3]
    assert np.array_equal(b.link_com_offsets(), good), "only the masked world changed"
    b.reset([1])
    good[1] = 0.0
    assert np.array_equal(b.link_com_offsets(), good), "a reset without draws sets the world's to 0"
    ball = torpor.Model.from_json(json.dumps({"version": 2, "bodies": [{"name": "ball", "shape": "ball"}]}))
    with pytest.raises(torpor.InvalidArgumentError, match="has no joints"):
        torpor.Batch(ball, 1).link_com_offsets()
    for value, match in (([-0.1, 0, 0], r"randomize.link_com_offset\[0\]"),
                         ([0, 0, 2e4], r"randomize.link_com_offset\[2\]"), ([0.1, 0.1], "3")):
        scene = {"version": 2, "randomize": {"link_com_offset": value}, "bodies": [{"name": "ball", "shape": "ball"}]}
        with pytest.raises(torpor.SceneError, match=match):
            torpor.Model.from_json(json.dumps(scene))
