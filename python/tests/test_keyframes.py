"""Keyframes (include/torpor_keyframes.h, docs/scene-format.md "Keyframes"):
named joint states a reset starts from. MJCF's <key> elements import as
keyframes; a reset to each puts the bodies where MuJoCo's mj_resetDataKeyframe
(then mj_forward) puts them, with the same velocities; the scene's joint noise
is drawn around a keyframe; resets are bitwise the same at any world count;
bad keyframes are refused at their place with nothing half-built."""
import json
import warnings

import mujoco
import numpy as np
import pytest

import torpor

# A free base with a hinge (with ref) and a slide below it and a ball beside
# it; a motor and a position servo; three keys: one full (ignored time, ctrl),
# one unnamed with only qvel, one with nothing (MuJoCo's qpos0).
MJCF = """<mujoco model="keys">
  <compiler angle="degree"/>
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="base" pos="0 0 1" euler="0 0 30">
      <freejoint name="root"/>
      <geom type="box" size="0.2 0.1 0.05" pos="0.05 0 0.01"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="shoulder" type="hinge" axis="0 1 0" range="-90 90" ref="10"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="slider" pos="0.3 0 0">
          <joint name="slide" type="slide" axis="1 0 0" range="-0.1 0.1"/>
          <geom type="sphere" size="0.04"/>
        </body>
      </body>
      <body name="head" pos="-0.2 0 0.1">
        <joint name="neck" type="ball"/>
        <geom type="box" size="0.05 0.05 0.08" pos="0.01 0 0.08"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="m_shoulder" joint="shoulder" gear="2"/>
    <position name="p_slide" joint="slide" kp="50"/>
  </actuator>
  <keyframe>
    <key name="tilted" time="0.5"
         qpos="0.1 -0.2 0.8  0.9238795 0 0.3826834 0   0.5 0.05  0.9659258 0.2588190 0 0"
         qvel="0.3 -0.1 0.2  0.5 -0.4 1.0   -2 0.3  0.1 0.2 -0.3"
         ctrl="0.7 0.02"/>
    <key qvel="1 0 0 0 0 2 0 0 0 0 0"/>
    <key name="rest"/>
  </keyframe>
</mujoco>
"""


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    path = tmp_path_factory.mktemp("keys") / "keys.xml"
    path.write_text(MJCF)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportWarning)
        tm = torpor.Model.load(path)
    return tm, mujoco.MjModel.from_xml_path(str(path))


def mujoco_bodies(mm, key):
    """World pose (origin, [x y z w]) and world velocities (centre of mass, angular) of every named body."""
    d = mujoco.MjData(mm)
    mujoco.mj_resetDataKeyframe(mm, d, key)
    mujoco.mj_forward(mm, d)
    out = {}
    for b in range(1, mm.nbody):
        vel = np.zeros(6)
        mujoco.mj_objectVelocity(mm, d, mujoco.mjtObj.mjOBJ_XBODY, b, vel, 0)  # [w, v at the origin], world
        w, v0 = vel[:3], vel[3:]
        v_com = v0 + np.cross(w, d.xipos[b] - d.xpos[b])
        q = d.xquat[b]
        out[mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_BODY, b)] = (d.xpos[b].copy(), np.r_[q[1:], q[0]], v_com, w)
    return out, d


def same_rotation(a, b):
    return min(np.abs(a - b).max(), np.abs(a + b).max())


def test_import_reads_every_key(models):
    tm, mm = models
    assert tm.keyframe_names == ["tilted", "key1", "rest"]
    assert mm.nkey == 3
    assert tm.find_keyframe("rest") == 2 and tm.find_keyframe("nope") == -1
    k = tm.keyframe("tilted")
    assert k["q"].shape == (tm.joint_q_count,) and k["qd"].shape == (tm.dof_count,)
    assert np.allclose(k["ctrl"], [0.7, 0.02])
    assert np.array_equal(tm.keyframe("rest")["ctrl"], np.zeros(2, np.float32)), "ctrl not given: 0"


@pytest.mark.parametrize("key", [0, 1, 2])
def test_reset_to_each_key_matches_mj_resetDataKeyframe(models, key):
    tm, mm = models
    ref, d = mujoco_bodies(mm, key)
    batch = torpor.Batch(tm, 3)
    batch.reset(worlds=[1], keyframe=tm.keyframe_names[key])
    s = batch.state()
    for name, (pos, quat, v, w) in ref.items():
        b = tm.find_body(name)
        assert np.allclose(s.pos[1, b], pos, atol=2e-6), name
        assert same_rotation(s.quat[1, b], quat) < 2e-6, name
        assert np.allclose(s.v[1, b], v, atol=5e-6), name
        assert np.allclose(s.w[1, b], w, atol=5e-6), name
    # the joint values themselves: MuJoCo's qpos = q + ref, quaternions w x y z
    for j, name in enumerate(tm.joint_names):
        qs, vs = tm.joint_slices(name)
        mj = mm.joint(name)
        qpos, qvel = d.qpos[mj.qposadr[0]:], d.qvel[mj.dofadr[0]:]
        q, qd = batch.joint_q[1, qs], batch.joint_qd[1, vs]
        jt = tm.joint_type(j)
        if jt in ("revolute", "prismatic"):
            assert q[0] + tm.joint_def(j)["ref"] == pytest.approx(qpos[0], abs=1e-6)
            assert qd[0] == pytest.approx(qvel[0], abs=1e-6)
        elif jt == "ball":
            assert same_rotation(q, np.r_[qpos[1:4], qpos[0]] / np.linalg.norm(qpos[:4])) < 1e-6
            assert np.allclose(qd, qvel[:3], atol=1e-6)
        else:
            assert np.allclose(q[:3], qpos[:3], atol=1e-6)
            assert same_rotation(q[3:], np.r_[qpos[4:7], qpos[3]] / np.linalg.norm(qpos[3:7])) < 1e-6
    assert np.allclose(batch.ctrl[1], d.ctrl, atol=1e-7), "ctrl from the keyframe"


def test_first_key_is_where_every_reset_starts(models):
    tm, mm = models
    ref, _ = mujoco_bodies(mm, 0)
    batch = torpor.Batch(tm, 2)
    s = batch.state()
    b = tm.find_body("slider")
    assert np.allclose(s.pos[0, b], ref["slider"][0], atol=2e-6), "a new batch starts at the first key"
    batch.reset(keyframe="rest")
    batch.reset(worlds=[0])
    assert np.allclose(batch.state().pos[0, b], ref["slider"][0], atol=2e-6), "a plain reset: the first key again"
    assert np.allclose(batch.ctrl[0], [0.7, 0.02], atol=1e-7)


def pendulum_scene(randomize=None, keyframes=None):
    scene = {"version": 2, "sleep": {"enabled": False}, "bodies": [
        {"name": "cart", "shape": "box", "size": [0.4, 0.3, 0.2], "mass": 1, "pos": [0, 0, 1]},
        {"name": "pole", "shape": "box", "size": [0.05, 0.05, 1], "mass": 0.1, "pos": [0, 0, 1.6]}],
        "joints": [
            {"name": "slider", "type": "prismatic", "child": "cart", "axis": [1, 0, 0]},
            {"name": "hinge", "parent": "cart", "child": "pole", "axis": [0, 1, 0], "anchor": [0, 0, -0.5],
             "limits": [-1, 1]}],
        "actuators": [{"name": "push", "joint": "slider", "gear": 3},
                      {"name": "hold", "type": "position", "joint": "hinge", "kp": 20, "kv": 2}],
        "keyframes": keyframes if keyframes is not None else [
            {"name": "left", "q": [-0.5, 0.4], "qd": [0.2, -0.3], "ctrl": [0.1, 0.4]},
            {"name": "right", "q": [0.5, -0.4]}]}
    if randomize:
        scene["randomize"] = randomize
    return scene


def test_noise_is_drawn_around_the_keyframe():
    rnd = {"seed": 5, "joint_q_noise": 0.1, "joint_qd_noise": 0.2, "joint_noise": "normal", "keyframe": "left"}
    m = torpor.Model.from_json(json.dumps(pendulum_scene(rnd)))
    W = 4000
    batch = torpor.Batch(m, W)
    for centre_q, centre_qd, reset in (([-0.5, 0.4], [0.2, -0.3], None), ([0.5, -0.4], [0.0, 0.0], "right")):
        if reset:
            batch.reset(keyframe=reset)
        q, qd = batch.joint_q.astype(np.float64), batch.joint_qd.astype(np.float64)
        # mean within 4 standard errors of the centre; the spread is the noise's
        assert np.all(np.abs(q.mean(0) - centre_q) < 4 * 0.1 / np.sqrt(W)), (q.mean(0), centre_q)
        assert np.all(np.abs(qd.mean(0) - centre_qd) < 4 * 0.2 / np.sqrt(W)), (qd.mean(0), centre_qd)
        assert np.allclose(q.std(0), 0.1, rtol=0.05) and np.allclose(qd.std(0), 0.2, rtol=0.05)
    assert np.allclose(batch.ctrl, 0.0), "keyframe right has no ctrl: 0"


def test_keyframe_reset_is_the_same_at_any_world_count_and_ctrl_persists():
    rnd = {"seed": 9, "joint_q_noise": 0.05, "joint_qd_noise": 0.1, "mass_scale": [0.8, 1.2]}
    m = torpor.Model.from_json(json.dumps(pendulum_scene(rnd)))
    runs = {}
    for W in (1, 7, 64):
        b = torpor.Batch(m, W)
        b.reset(keyframe="left")
        b.step(3)
        b.reset(worlds=[0], keyframe="right")
        b.step(2)
        s = b.state()
        runs[W] = (b.joint_q[0].copy(), b.joint_qd[0].copy(), s.pos[0].copy(), b.ctrl[0].copy())
        if W == 64:
            assert np.array_equal(b.ctrl[5], np.float32([0.1, 0.4])), "ctrl from the keyframe held through steps"
            assert np.array_equal(b.ctrl[0], np.float32([0, 0]))
    for W in (7, 64):
        for a, c in zip(runs[1], runs[W]):
            assert np.array_equal(a, c), W


def test_keyframes_built_in_python_match_the_scene():
    s = pendulum_scene()
    bodies = s["bodies"]
    m = torpor.Model.build(bodies, joints=s["joints"], actuators=s["actuators"], keyframes=s["keyframes"],
                           randomize={"keyframe": "right"})
    j = torpor.Model.from_json(json.dumps(pendulum_scene({"keyframe": "right"})))
    for k in ("left", "right"):
        a, b = m.keyframe(k), j.keyframe(k)
        for f in ("q", "qd", "ctrl"):
            assert np.array_equal(a[f], b[f])
    assert np.array_equal(torpor.Batch(m, 1).joint_q, torpor.Batch(j, 1).joint_q)
    assert np.allclose(torpor.Batch(m, 1).joint_q[0], [0.5, -0.4])


@pytest.mark.parametrize("keyframes, randomize, error", [
    ([{"name": "a", "q": [0.1, 0.2, 0.3]}], None,
     r"<string>:\d+:\d+: keyframes\[0\]\.q: has 3 values; the joints have nq = 2 \(keyframe \"a\"\)"),
    ([{"name": "a", "qd": [0.1]}], None, r"keyframes\[0\]\.qd: has 1 values; the joints have nv = 2"),
    ([{"name": "a", "ctrl": [1, 2, 3]}], None, r"keyframes\[0\]\.ctrl: has 3 values; the actuators number 2"),
    ([{"name": "a"}, {"name": "a"}], None, r"keyframes\[1\]\.name: already the name of keyframe 0"),
    ([{"q": [0, 0]}], None, r"keyframes\[0\]: needs \"name\"|keyframes\[0\].*name"),
    ([{"name": "a", "q": [0, "x"]}], None, r"keyframes\[0\]\.q\[1\]"),
    ([{"name": "a", "speed": 1}], None, r"keyframes\[0\]\.speed: unknown key"),
    ([{"name": "a"}], {"keyframe": "b"}, r"randomize\.keyframe: no keyframe is called \"b\""),
])
def test_bad_keyframes_name_the_place(keyframes, randomize, error):
    with pytest.raises(torpor.SceneError, match=error):
        torpor.Model.from_json(json.dumps(pendulum_scene(randomize, keyframes)))


def test_a_keyframe_of_the_wrong_length_is_reported_at_its_line():
    text = json.dumps(pendulum_scene(None, [{"name": "a"}, {"name": "b", "q": [1, 2, 3]}]), indent=1)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if '"q": [' in t and i > text[:text.index('"b"')].count("\n"))
    with pytest.raises(torpor.SceneError, match=rf"<string>:{line}:\d+: keyframes\[1\]\.q: has 3 values; the joints "
                                                 rf"have nq = 2 \(keyframe \"b\"\)"):
        torpor.Model.from_json(text)


def test_unknown_keyframe_resets_nothing():
    m = torpor.Model.from_json(json.dumps(pendulum_scene()))
    b = torpor.Batch(m, 4)
    b.step(5)
    before = (b.joint_q.copy(), b.episodes.copy())
    with pytest.raises(torpor.InvalidArgumentError, match="no keyframe 'middle'"):
        b.reset(keyframe="middle")
    with pytest.raises(torpor.InvalidArgumentError, match="no keyframe 7"):
        b.reset(keyframe=7)
    assert np.array_equal(b.joint_q, before[0])
    assert np.array_equal(b.episodes, before[1])


def test_mjcf_key_of_the_wrong_length_is_refused_at_its_line(tmp_path):
    path = tmp_path / "bad.xml"
    text = MJCF.replace('<key name="rest"/>', '<key name="rest" qpos="0 0 1"/>')
    path.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if 'name="rest"' in t)
    with pytest.raises(torpor.SceneError, match=rf"bad\.xml:{line}:\d+: <key qpos>: .*expected 13 numbers, got 3"):
        torpor.Model.load(path)
