"""MJCF and URDF import (docs/import.md) against MuJoCo, the oracle.

For every MJCF file of Gymnasium's MuJoCo assets: the import succeeds; body
masses, centres of mass and principal inertias match MuJoCo's compiled model;
the joints match in type, axis, range, damping, armature; with contacts (and
joint limits) off in both, 1 s of motion from a random state matches mj_step
within the two integrators' error, estimated from each run at the model's
step and at a quarter of it; dropped with contacts, each settles without
faults and, where MuJoCo's settles, within 2 cm of MuJoCo's height. URDF
robots written here are checked against their own numbers; bad input gives
file:line:col errors and `torpor run` exits with 2.
"""
import json
import os
import subprocess
import warnings
from pathlib import Path

import gymnasium  # the oracle's models and MuJoCo itself: scripts/setup.sh installs both, so a
import mujoco  # missing one fails these tests rather than skipping the oracle
import numpy as np
import pytest

import torpor

ASSETS = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"
MODELS = ["ant", "half_cheetah", "hopper", "humanoid", "humanoidstandup", "inverted_pendulum",
          "inverted_double_pendulum", "pusher", "reacher", "swimmer", "walker2d"]
ROOT = Path(__file__).resolve().parents[2]
TORPOR = ROOT / "build" / "torpor"

FREE, BALL, SLIDE, HINGE = 0, 1, 2, 3


def mj_model(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mujoco.MjModel.from_xml_path(str(ASSETS / f"{name}.xml"))


def load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportWarning)
        return torpor.Model.load(path)


def body_name(mm, b):
    return mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_BODY, b) or f"body{b}"


def joint_name(mm, j):
    return mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_JOINT, j)


# ---------------------------------------------------------------- the compiled model

@pytest.mark.parametrize("name", MODELS)
def test_mass_properties_match_mujoco(name):
    mm, tm = mj_model(name), load(ASSETS / f"{name}.xml")
    types = tm.body_types()
    checked = 0
    for b in range(1, mm.nbody):
        i = tm.find_body(body_name(mm, b))
        if mm.body_dofnum[b] == 0 and mm.body_weldid[b] == 0:
            continue  # welded to the world: a static body, or left out when it has nothing to collide with
        assert i >= 0, body_name(mm, b)
        assert types[i] == 0
        mass, com, inertia = tm.body_inertia(i)
        if mm.body_mass[b] < 1e-9:  # below torpor's least mass: raised to it, with a warning
            assert mass == pytest.approx(1e-9, rel=1e-6)
            continue
        assert mass == pytest.approx(mm.body_mass[b], rel=1e-5)
        # MuJoCo's body_ipos is the centre of mass in the body frame, as torpor's com
        scale = max(np.linalg.norm(mm.body_ipos[b]), 1e-3)
        assert np.abs(com - mm.body_ipos[b]).max() <= 1e-5 * scale
        principal = np.sort(np.linalg.eigvalsh(inertia))
        assert principal == pytest.approx(np.sort(mm.body_inertia[b]), rel=1e-5, abs=1e-5 * mm.body_inertia[b].max())
        checked += 1
    assert checked >= 1


@pytest.mark.parametrize("name", MODELS)
def test_joints_match_mujoco(name):
    mm, tm = mj_model(name), load(ASSETS / f"{name}.xml")
    torpor_type = {FREE: "free", BALL: "ball", SLIDE: "prismatic", HINGE: "revolute"}
    named = [n for n in tm.joint_names if not n.endswith(":weld")]  # welds: bodies fixed to a moving parent
    assert len(named) == mm.njnt
    for j in range(mm.njnt):
        jd = tm.joint_def(tm.find_joint(joint_name(mm, j)))
        assert jd["type"] == torpor_type[mm.jnt_type[j]]
        if mm.jnt_type[j] == FREE:
            continue
        dof = mm.jnt_dofadr[j]
        assert jd["damping"] == pytest.approx(mm.dof_damping[dof], rel=1e-6)
        assert jd["armature"] == pytest.approx(mm.dof_armature[dof], rel=1e-6)
        if mm.jnt_type[j] == BALL:
            continue
        # MuJoCo's jnt_axis is in the body frame, torpor's axis in the child (= that body's) frame
        assert jd["axis"] == pytest.approx(mm.jnt_axis[j], abs=1e-6)
        assert jd["anchor"] == pytest.approx(mm.jnt_pos[j], abs=1e-6)
        if mm.jnt_limited[j]:
            ref = mm.qpos0[mm.jnt_qposadr[j]]  # torpor's q = 0 is MuJoCo's reference pose
            assert jd["limits"] == pytest.approx(tuple(mm.jnt_range[j] - ref), abs=1e-6)
        else:
            assert jd["limits"] is None
        assert jd["stiffness"] == pytest.approx(mm.jnt_stiffness[j], rel=1e-6)
        # MuJoCo's qpos0 of a hinge or slide is its ref: qpos = q + ref (hopper's rootz 1.25)
        assert jd["ref"] == pytest.approx(mm.qpos0[mm.jnt_qposadr[j]], abs=1e-6)


# ---------------------------------------------------------------- motion without contacts

def free_motion_mujoco(mm, q0, v0, substeps, ctrl=None):
    """qpos after each of 1 s of steps, each step as `substeps` mj_steps."""
    m = mm
    dt = m.opt.timestep
    m.opt.timestep = dt / substeps
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = q0, v0
    if ctrl is not None:
        d.ctrl[:] = ctrl
    out = []
    for _ in range(int(round(1.0 / dt))):
        for _ in range(substeps):
            mujoco.mj_step(m, d)
        out.append(d.qpos.copy())
    m.opt.timestep = dt
    return np.array(out)


def free_motion_torpor(name, mm, q0, v0, substeps, ctrl=None):
    """The same from torpor, contacts and limits off, in MuJoCo's qpos layout."""
    text, _ = torpor.import_scene(ASSETS / f"{name}.xml")
    scene = json.loads(text)
    for body in scene["bodies"]:
        body["contype"] = 0
    for joint in scene["joints"]:
        joint.pop("limits", None)
    scene["substeps"] = substeps
    scene["sleep"] = {"enabled": False}
    tm = torpor.Model.from_json(json.dumps(scene), name)
    batch = torpor.Batch(tm, 1)
    q, qd = batch.joint_q.copy(), batch.joint_qd.copy()
    slots = []
    for j in range(mm.njnt):
        qs, vs = tm.joint_slices(joint_name(mm, j))
        a, av = mm.jnt_qposadr[j], mm.jnt_dofadr[j]
        slots.append((j, qs, a))
        if mm.jnt_type[j] in (SLIDE, HINGE):
            q[0, qs], qd[0, vs] = q0[a] - mm.qpos0[a], v0[av]
        else:  # free: MuJoCo's (origin, w x y z) and (origin velocity world, w body) to torpor's
            quat = q0[a + 3:a + 7]
            rot = np.zeros(9)
            mujoco.mju_quat2Mat(rot, quat)
            rot = rot.reshape(3, 3)
            w = rot @ v0[av + 3:av + 6]
            com = rot @ mm.body_ipos[mm.jnt_bodyid[j]]
            q[0, qs] = [*q0[a:a + 3], quat[1], quat[2], quat[3], quat[0]]
            qd[0, vs] = [*(v0[av:av + 3] + np.cross(w, com)), *w]
    batch.set_joints(q=q, qd=qd)
    if ctrl is not None:
        assert tm.actuator_names == [mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_ACTUATOR, k) or f"actuator{k}"
                                     for k in range(mm.nu)]
        batch.set_ctrl(np.asarray(ctrl, np.float32))
    out = []
    for _ in range(int(round(1.0 / tm.dt))):
        batch.step(1)
        row, jq = np.zeros(mm.nq), batch.joint_q[0]
        for j, qs, a in slots:
            x = jq[qs]
            if mm.jnt_type[j] in (SLIDE, HINGE):
                row[a] = x[0] + mm.qpos0[a]
            else:
                row[a:a + 7] = [*x[:3], x[6], x[3], x[4], x[5]]
        out.append(row)
    return np.array(out)


@pytest.mark.parametrize("actuated", [False, True], ids=["passive", "actuated"])
@pytest.mark.parametrize("name", MODELS)
def test_free_motion_matches_mj_step(name, actuated):
    """1 s from a random state, contacts and joint limits off in both.

    MuJoCo steps with the file's integrator (RK4 in most, Euler with implicit
    damping in half_cheetah and pusher); torpor with its semi-implicit scheme,
    4 substeps of the same dt (docs/articulations.md). Both converge to the
    same motion, so |x_mj - x_torpor| <= e_mj + e_torpor, each integrator's
    error. Each is estimated by Richardson extrapolation for a first-order
    method, e ~ 4/3 |x(h) - x(h/4)| (RK4's estimate is then an overestimate),
    from a run at a quarter of the step. The bound is 1.5 (e_mj + e_torpor)
    (the estimate's own higher-order terms) plus 1e-4 m or rad for float32
    rounding over 100-500 steps. Compared: every hinge and slide coordinate and
    the position of every free body. MuJoCo's limits are soft and torpor's hard,
    so both run without them; the damping and armature of a free joint (ant),
    which torpor's free joints lack, and the fluid forces (swimmer) are set to
    zero in MuJoCo. Actuated: every actuator at a random control in its
    range (MuJoCo's motor, position, velocity and general actuators are
    torpor's, docs/import.md), held for the second.
    """
    mm = mj_model(name)
    mm.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_LIMIT
    mm.opt.viscosity = mm.opt.density = 0.0
    for j in range(mm.njnt):
        if mm.jnt_type[j] == FREE:
            mm.dof_damping[mm.jnt_dofadr[j]:mm.jnt_dofadr[j] + 6] = 0.0
            mm.dof_armature[mm.jnt_dofadr[j]:mm.jnt_dofadr[j] + 6] = 0.0
    rng = np.random.default_rng(7)
    q0, v0 = mm.qpos0.copy(), rng.uniform(-1.0, 1.0, mm.nv)
    for j in range(mm.njnt):
        if mm.jnt_type[j] in (SLIDE, HINGE):
            q0[mm.jnt_qposadr[j]] += rng.uniform(-0.2, 0.2)
    ctrl = None
    if actuated:
        lo, hi = mm.actuator_ctrlrange[:, 0], mm.actuator_ctrlrange[:, 1]
        limited = mm.actuator_ctrllimited.astype(bool)
        ctrl = np.where(limited, rng.uniform(lo, hi), rng.uniform(-1.0, 1.0, mm.nu))
    cols = [mm.jnt_qposadr[j] + k for j in range(mm.njnt)
            for k in ((0,) if mm.jnt_type[j] in (SLIDE, HINGE) else (0, 1, 2))]
    mj, mj4 = free_motion_mujoco(mm, q0, v0, 1, ctrl), free_motion_mujoco(mm, q0, v0, 4, ctrl)
    tp, tp4 = free_motion_torpor(name, mm, q0, v0, 4, ctrl), free_motion_torpor(name, mm, q0, v0, 16, ctrl)
    e_mj = 4.0 / 3.0 * np.abs(mj - mj4)[:, cols].max()
    e_tp = 4.0 / 3.0 * np.abs(tp - tp4)[:, cols].max()
    moved = np.abs(mj[-1] - q0)[cols].max()
    diff = np.abs(mj - tp)[:, cols].max()
    assert moved > 0.1  # the state moved: the comparison means something
    assert diff <= 1.5 * (e_mj + e_tp) + 1e-4, (diff, e_mj, e_tp)


def quat_mat(q):
    """Rotation matrix of a unit quaternion [x, y, z, w]."""
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


@pytest.mark.parametrize("name", MODELS)
def test_sites_match_mujoco(name):
    """Every named <site> is a site of the model, on the body MuJoCo puts it on
    (the world for a site of the worldbody), and at the reference pose its
    world frame is MuJoCo's (site_xpos, site_xmat after mj_forward at qpos0)
    within float32 rounding of the poses (1e-5 m, 1e-5)."""
    mm, tm = mj_model(name), load(ASSETS / f"{name}.xml")
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    state = torpor.Batch(tm, 1).state()
    named = [s for s in range(mm.nsite) if mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_SITE, s)]
    assert len(tm.site_names) == len(named)
    for s in named:
        site_name = mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_SITE, s)
        got, body, pos, quat = tm.site(site_name)
        assert got == site_name
        mb = mm.site_bodyid[s]
        if mb == 0:
            assert body == -1
            xpos, xmat = pos, quat_mat(quat)
        else:
            assert tm.body_names[body] == body_name(mm, mb)
            r = quat_mat(state.quat[0, body].astype(np.float64))
            xpos, xmat = state.pos[0, body] + r @ pos, r @ quat_mat(quat)
        assert np.abs(xpos - md.site_xpos[s]).max() < 1e-5, (site_name, xpos, md.site_xpos[s])
        assert np.abs(xmat - md.site_xmat[s].reshape(3, 3)).max() < 1e-5, site_name


def test_sites_of_a_scene_and_their_errors():
    """A scene's "sites": on a body or the world, found by name; a site on an
    unknown body or with a zero quaternion is refused at its key."""
    base = {"format": "torpor-scene", "version": 2, "name": "sites",
            "bodies": [{"name": "box", "size": [1, 1, 1], "pos": [0, 0, 3]}]}
    scene = dict(base, sites=[{"name": "corner", "body": "box", "pos": [0.5, 0.5, 0.5]},
                              {"name": "mark", "body": "world", "pos": [1, 2, 3], "quat": [0, 0, 2, 0]}])
    m = torpor.Model.from_json(json.dumps(scene), "sites")
    assert m.site_names == ["corner", "mark"] and m.find_site("mark") == 1 and m.find_site("nope") == -1
    name, body, pos, quat = m.site("mark")
    assert body == -1 and list(pos) == [1, 2, 3] and list(quat) == [0, 0, 1, 0]
    assert m.site(0)[1] == m.find_body("box")
    with pytest.raises(torpor.InvalidArgumentError, match="no site called 'nope'"):
        m.site("nope")
    with pytest.raises(torpor.SceneError, match=r"sites\[0\]\.body.*unknown body \"lid\""):
        torpor.Model.from_json(json.dumps(dict(base, sites=[{"name": "a", "body": "lid"}])), "bad")
    with pytest.raises(torpor.SceneError, match=r"sites\[0\]\.quat.*non-zero"):
        torpor.Model.from_json(json.dumps(dict(base, sites=[{"name": "a", "body": "box", "quat": [0, 0, 0, 0]}])), "bad")
    with pytest.raises(torpor.SceneError, match=r"sites\[1\]\.name.*already the name of site 0"):
        torpor.Model.from_json(json.dumps(dict(base, sites=[{"name": "a", "body": "box"}, {"name": "a", "body": "box"}])),
                               "bad")


# ---------------------------------------------------------------- dropped with contacts

def drop(name, frictionless=False, seconds=4.0):
    """Both from the initial pose with each 1-dof joint moved 0.02 (into its
    range): a perfectly balanced pose (the hopper on its foot) would otherwise
    stand in torpor, where MuJoCo's soft contacts tip it. (MuJoCo's height,
    its largest |qvel|, torpor's height, torpor's faults)."""
    mm = mj_model(name)
    q0 = mm.qpos0.copy()
    for j in range(mm.njnt):
        if mm.jnt_type[j] in (SLIDE, HINGE):
            a = mm.jnt_qposadr[j]
            q0[a] += 0.02
            if mm.jnt_limited[j]:
                q0[a] = np.clip(q0[a], *mm.jnt_range[j])
    scene = json.loads(torpor.import_scene(ASSETS / f"{name}.xml")[0])
    if frictionless:
        mm.geom_friction[:, 0] = 0.0
        for body in scene["bodies"]:
            body["friction"] = 0.0
    d = mujoco.MjData(mm)
    d.qpos[:] = q0
    steps = int(round(seconds / mm.opt.timestep))
    for _ in range(steps):
        mujoco.mj_step(mm, d)
    tm = torpor.Model.from_json(json.dumps(scene), name)
    batch = torpor.Batch(tm, 1)
    q = batch.joint_q.copy()
    for j in range(mm.njnt):
        if mm.jnt_type[j] in (SLIDE, HINGE):
            q[0, tm.joint_slices(joint_name(mm, j))[0]] = q0[mm.jnt_qposadr[j]] - mm.qpos0[mm.jnt_qposadr[j]]
    batch.set_joints(q=q)
    batch.step(steps)
    state = batch.state()
    root = tm.find_body(body_name(mm, 1))
    return d.xpos[1][2], np.abs(d.qvel).max(), float(state.pos[0, root, 2]), int(state.faults[0])


@pytest.mark.parametrize("name", MODELS)
def test_drop_settles_like_mujoco(name):
    """Settled: MuJoCo's largest |qvel| under 0.01 after 4 s. Then torpor's root
    body (the first body) is within 2 cm of MuJoCo's height. half_cheetah
    rests on two feet with friction, so its rest pose depends on how it landed
    (any pose friction can hold is one): it is compared without friction,
    where the springs and the normal forces alone fix the pose."""
    mz, mv, tz, faults = drop(name, frictionless=name == "half_cheetah")
    assert faults == 0 and np.isfinite(tz)
    if mv < 0.01:
        assert abs(tz - mz) <= 0.02, (tz, mz)


# ---------------------------------------------------------------- one import path

def test_converted_scene_loads_to_the_same_model(tmp_path):
    """`torpor convert` writes the scene the import loads: the same state hash after 200 steps."""
    src = ASSETS / "humanoid.xml"
    out = tmp_path / "humanoid.json"
    r = subprocess.run([str(TORPOR), "convert", str(src), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "warning: tendon" in r.stderr  # what was ignored is said
    hashes = []
    for path in (src, out):
        batch = torpor.Batch(load(path), 4)
        batch.step(200)
        hashes.append(batch.state_hash())
    assert hashes[0] == hashes[1]


def test_load_warns_about_what_it_ignores():
    with pytest.warns(ImportWarning, match="tendon: fixed tendon \"left_hipknee\" ignored: it has no limit"):
        torpor.Model.load(ASSETS / "humanoid.xml")


@pytest.mark.parametrize("name", ["humanoid", "humanoidstandup"])
def test_gymnasium_tendons_are_inert(name):
    """Gymnasium's fixed tendons (the hip-knee pairs) have no limit, spring,
    damping, friction or armature and no actuator: MuJoCo's compiled model says
    so, which is why leaving them out changes nothing."""
    mm = mj_model(name)
    assert mm.ntendon == 2
    assert not mm.tendon_limited.any() and not mm.tendon_stiffness.any() and not mm.tendon_damping.any()
    assert not mm.tendon_frictionloss.any() and not mm.tendon_armature.any()
    assert (mm.actuator_trntype == mujoco.mjtTrn.mjTRN_JOINT).all()


TENDON_XML = """<mujoco>
 <default><tendon {default}/></default>
 <worldbody>
  <body><geom size="0.1"/><joint name="a" type="hinge"/>
   <body pos="0 0 -0.3"><geom size="0.1"/><joint name="b" type="hinge"/></body>
  </body>
 </worldbody>
 <tendon>
  <fixed name="t" {attrs}><joint joint="a" coef="1"/><joint joint="b" coef="-1"/></fixed>
 </tendon>
 {actuator}
</mujoco>
"""


@pytest.mark.parametrize("default, attrs, actuator, error", [
    ("", 'range="-1 1"', "", r":9:19: <fixed range>: fixed tendon \"t\" is limited"),
    ("", 'limited="true" range="-1 1"', "", r"is limited"),
    ("", 'stiffness="10"', "", r":9:19: <fixed stiffness>: fixed tendon \"t\" has stiffness 10"),
    ("", 'damping="1"', "", r"has damping 1"),
    ('frictionloss="0.5"', "", "", r":2:\d+: <tendon frictionloss>: fixed tendon \"t\" has frictionloss 0\.5"),
    ("", "", '<actuator><motor tendon="t"/></actuator>', r"<motor tendon>: tendon transmissions are not supported"),
])
def test_tendons_that_change_the_dynamics_are_refused(tmp_path, default, attrs, actuator, error):
    p = tmp_path / "tendon.xml"
    p.write_text(TENDON_XML.format(default=default, attrs=attrs, actuator=actuator))
    with pytest.raises(torpor.SceneError, match=error):
        torpor.Model.load(p)


def test_inert_tendon_is_left_out(tmp_path):
    p = tmp_path / "tendon.xml"
    p.write_text(TENDON_XML.format(default='range="-1 1" limited="false"', attrs="", actuator=""))
    with pytest.warns(ImportWarning, match=r"tendon: fixed tendon \"t\" ignored: it has no limit"):
        tm = torpor.Model.load(p)
    assert tm.joint_names == ["a", "b"]


# ---------------------------------------------------------------- collision filtering

def test_contype_conaffinity_filter_pairs(tmp_path):
    """MuJoCo's rule: a and b collide iff (contype_a & conaffinity_b) or (contype_b & conaffinity_a)."""
    def rest_height(ct, ca):
        xml = f"""<mujoco><worldbody><geom type="plane" size="5 5 .1" contype="1" conaffinity="1"/>
        <body pos="0 0 0.5"><freejoint/><geom type="sphere" size="0.1" contype="{ct}" conaffinity="{ca}"/></body>
        </worldbody></mujoco>"""
        p = tmp_path / f"ball{ct}{ca}.xml"
        p.write_text(xml)
        batch = torpor.Batch(load(p), 1)
        batch.step(60)
        return float(batch.state().pos[0, -1, 2])
    assert rest_height(1, 0) == pytest.approx(0.1, abs=2e-3)  # its contype meets the floor's conaffinity
    assert rest_height(0, 1) == pytest.approx(0.1, abs=2e-3)  # the floor's contype meets its conaffinity
    assert rest_height(2, 2) < 0.0                            # no common bit: it falls through


def test_contact_exclude(tmp_path):
    xml = """<mujoco><worldbody>
      <body name="low" pos="0 0 0.5"><freejoint/><geom type="box" size=".2 .2 .2"/></body>
      <body name="high" pos="0 0 0.6"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    </worldbody><contact><exclude body1="low" body2="high"/></contact></mujoco>"""
    p = tmp_path / "exclude.xml"
    p.write_text(xml)
    batch = torpor.Batch(load(p), 1)
    batch.step(30)  # 0.06 s: the two fall together, no ground
    pos = batch.state().pos[0]
    # excluded, so the boxes overlap as they were: no contact pushes them apart
    assert pos[1, 2] - pos[0, 2] == pytest.approx(0.1, abs=1e-4)


# ---------------------------------------------------------------- meshes

def write_box_stl(path, half):
    """A binary STL (MuJoCo reads only binary) of a box of half extents `half`: 12 triangles."""
    import struct
    hx, hy, hz = half
    v = [(sx * hx, sy * hy, sz * hz) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = [tri for a, b, c, d in quads for tri in ((a, b, c), (a, c, d))]
    data = b"\0" * 80 + struct.pack("<I", len(tris))
    for tri in tris:
        data += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *v[i]) for i in tri) + b"\0\0"
    path.write_bytes(data)


def test_mjcf_mesh_geom_matches_mujoco(tmp_path):
    """A box mesh, scaled: MuJoCo's mass and inertia of it (a closed convex mesh, so
    its volume is its hull's) against torpor's hull; it rests on the floor at its
    half height like a box."""
    write_box_stl(tmp_path / "box.stl", (0.5, 0.5, 0.5))
    xml = """<mujoco><asset><mesh name="b" file="box.stl" scale="0.4 0.2 0.1"/></asset><worldbody>
      <geom type="plane" size="5 5 .1"/>
      <body name="brick" pos="0 0 0.3" euler="0 0 30"><freejoint/><geom type="mesh" mesh="b" density="500"/></body>
    </worldbody></mujoco>"""
    p = tmp_path / "brick.xml"
    p.write_text(xml)
    mm = mujoco.MjModel.from_xml_path(str(p))
    tm = load(p)
    b = tm.find_body("brick")
    mass, com, inertia = tm.body_inertia(b)
    assert mass == pytest.approx(mm.body_mass[1], rel=1e-5)
    assert mass == pytest.approx(500 * 0.4 * 0.2 * 0.1, rel=1e-5)
    assert np.sort(np.linalg.eigvalsh(inertia)) == pytest.approx(np.sort(mm.body_inertia[1]), rel=1e-5)
    batch = torpor.Batch(tm, 1)
    batch.step(120)
    assert batch.state().pos[0, b, 2] == pytest.approx(0.05, abs=1e-3)


def test_urdf_mesh_collision(tmp_path):
    write_box_stl(tmp_path / "block.stl", (0.1, 0.1, 0.1))
    urdf = """<robot name="m"><link name="world"/>
      <link name="block"><inertial><mass value="1"/><inertia ixx="0.0067" iyy="0.0067" izz="0.0067"/></inertial>
        <collision><geometry><mesh filename="package://m/block.stl" scale="1 1 0.5"/></geometry></collision></link>
      <link name="floor"><collision><origin xyz="0 0 -0.5"/><geometry><box size="4 4 1"/></geometry></collision></link>
      <joint name="free" type="floating"><parent link="world"/><child link="block"/><origin xyz="0 0 0.5"/></joint>
      <joint name="fixed" type="fixed"><parent link="world"/><child link="floor"/></joint>
    </robot>"""
    p = tmp_path / "m.urdf"
    p.write_text(urdf)
    tm = load(p)
    batch = torpor.Batch(tm, 1)
    batch.step(120)
    assert batch.state().pos[0, tm.find_body("block"), 2] == pytest.approx(0.05, abs=1e-3)


def icosphere(subdivisions):
    """Unit icosphere: the icosahedron's 12 vertices, each triangle cut into 4
    per subdivision, new points pushed onto the sphere. (vertices (n, 3), triangles (m, 3))."""
    t = (1 + 5 ** 0.5) / 2
    v = [np.array(p, float) / np.linalg.norm(p) for p in
         [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
          (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
         (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
         (8, 6, 7), (9, 8, 1)]
    for _ in range(subdivisions):
        mid, nf = {}, []

        def middle(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                m = v[a] + v[b]
                v.append(m / np.linalg.norm(m))
                mid[key] = len(v) - 1
            return mid[key]
        for a, b, c in f:
            ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = nf
    return np.array(v), np.array(f)


def hull_volume(points, tol=1e-9):
    """Volume of the convex hull of a few points (an independent check of the
    library's): every supporting plane through three points, its points in
    angle order, volume = sum over faces of (plane offset x face area) / 3 with
    the origin inside. (volume, the smallest plane offset: the inscribed radius about the origin)"""
    p = np.asarray(points, float)
    planes = {}
    for i in range(len(p)):
        for j in range(i + 1, len(p)):
            for k in range(j + 1, len(p)):
                n = np.cross(p[j] - p[i], p[k] - p[i])
                if np.linalg.norm(n) < tol:
                    continue
                n /= np.linalg.norm(n)
                d = n @ p[i]
                side = p @ n - d
                if side.max() > tol:
                    if side.min() < -tol:
                        continue
                    n, d = -n, -d
                planes.setdefault(tuple(np.round(np.append(n, d), 6)), (n, d))
    volume = 0.0
    for n, d in planes.values():
        face = p[np.abs(p @ n - d) < 1e-7]
        c = face.mean(axis=0)
        u = face[0] - c
        w = np.cross(n, u)
        order = np.argsort(np.arctan2((face - c) @ w, (face - c) @ u))
        ring = face[order] - c
        area = 0.5 * sum(n @ np.cross(ring[a], ring[(a + 1) % len(ring)]) for a in range(len(ring)))
        volume += d * area / 3.0
    return volume, min(d for n, d in planes.values())


def test_dense_mesh_hull_is_reduced_within_the_caps(tmp_path):
    """A radius-0.1 icosphere of 642 points (3 subdivisions), a hull far past
    the caps: the import keeps a subset of its points within TP_MAX_HULL_* and
    says how much volume that keeps. Checked: the mass is the full hull's
    (the polyhedron's volume from its triangles, and MuJoCo's mass); the kept
    points are the mesh's own; the warning's kept share is the volume of their
    hull computed here; that share is at least the regular icosahedron's
    (whose 12 vertices the mesh holds: any selection of 18 or more points
    keeping less would be a poor one) and at most the sampled hull's share of
    the sphere; the body rests on a face, its centre between the kept hull's
    nearest face (less 1 mm of penetration) and the radius."""
    r, density = 0.1, 800.0
    v, f = icosphere(3)
    v *= r
    (tmp_path / "ball.obj").write_text("".join(f"v {a:.9f} {b:.9f} {c:.9f}\n" for a, b, c in v) +
                                       "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in f))
    xml = f"""<mujoco><asset><mesh name="ball" file="ball.obj"/></asset><worldbody>
      <geom type="plane" size="5 5 .1"/>
      <body name="ball" pos="0 0 0.3" euler="17 29 41"><freejoint/><geom type="mesh" mesh="ball" density="{density}"/></body>
    </worldbody></mujoco>"""
    p = tmp_path / "ball.xml"
    p.write_text(xml)
    text, lines = torpor.import_scene(p)
    volume = sum(np.linalg.det(v[t]) for t in f) / 6.0  # the mesh is closed, convex, around the origin
    sphere = 4.0 / 3.0 * np.pi * r ** 3
    tm = load(p)
    mass, com, inertia = tm.body_inertia(tm.find_body("ball"))
    assert mass == pytest.approx(density * volume, rel=1e-6)
    assert mass == pytest.approx(mujoco.MjModel.from_xml_path(str(p)).body_mass[1], rel=1e-5)
    kept = np.array([s for b in json.loads(text)["bodies"] if b["name"] == "ball" for s in b["shapes"]][0]["vertices"])
    assert 4 <= len(kept) <= 32
    assert np.min(np.linalg.norm(v[None, :, :] - kept[:, None, :], axis=2), axis=1).max() < 1e-7  # the mesh's points
    warning = [w for w in lines if w.startswith("mesh:")]
    assert len(warning) == 1 and f"its hull has {len(v)} vertices" in warning[0]
    assert f"the hull of {len(kept)} of them" in warning[0]
    share = float(warning[0].split("collides as the hull of")[1].split(",")[1].split("%")[0]) / 100
    kept_volume, inscribed = hull_volume(kept)
    assert kept_volume / volume == pytest.approx(share, abs=0.0006)  # printed to 0.1 %
    icosahedron = 5 * (3 + 5 ** 0.5) / 12 * (4 / np.sqrt(10 + 2 * np.sqrt(5))) ** 3 * r ** 3  # edge a = 4 r / sqrt(10 + 2 sqrt 5)
    assert icosahedron / sphere == pytest.approx(0.6055, abs=1e-4)
    assert icosahedron < kept_volume < volume < sphere
    batch = torpor.Batch(tm, 1)
    batch.step(240)
    st = batch.state()
    z = float(st.pos[0, tm.find_body("ball"), 2])
    assert st.faults[0] == 0 and inscribed - 1e-3 < z < r  # on a face: its offset, within 1 mm of penetration
    assert np.abs(st.v[0, tm.find_body("ball")]).max() < 1e-2


def urdf_fk(root):
    """Each link's world pose at q = 0 from a URDF's joints (fixed-axis roll,
    pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll)): {link: (R, p)}."""
    def rot(rpy):
        (cr, sr), (cp, sp), (cy, sy) = [(np.cos(a), np.sin(a)) for a in rpy]
        rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
        ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
        rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
        return rz @ ry @ rx
    joints = root.findall("joint")
    children = {j.find("child").get("link") for j in joints}
    base = [l.get("name") for l in root.findall("link") if l.get("name") not in children][0]
    pose = {base: (np.eye(3), np.zeros(3))}
    while len(pose) < len(root.findall("link")):
        for j in joints:
            parent, child = j.find("parent").get("link"), j.find("child").get("link")
            if parent in pose and child not in pose:
                o = j.find("origin")
                xyz = np.array([float(x) for x in (o.get("xyz", "0 0 0") if o is not None else "0 0 0").split()])
                rpy = [float(x) for x in (o.get("rpy", "0 0 0") if o is not None else "0 0 0").split()]
                R, pos = pose[parent]
                pose[child] = (R @ rot(rpy), pos + R @ xyz)
    return base, pose


@pytest.mark.parametrize("robot", ["kuka_iiwa/model.urdf", "franka_panda/panda.urdf"])
def test_real_urdf_robot_from_package_data(robot):
    """Robots as their makers ship them (pybullet's package data, installed by
    scripts/test-deps.sh): STL/OBJ collision meshes of hundreds of hull vertices,
    reduced to the caps with a warning each. Against the file's own numbers:
    each link's mass, centre and principal moments, each joint's type, axis
    and limits, and each link's place at q = 0 (forward kinematics done here).
    Then 2 s under gravity without faults."""
    import xml.etree.ElementTree as ET
    import pybullet_data
    path = Path(pybullet_data.getDataPath()) / robot
    root = ET.parse(path).getroot()
    text, lines = torpor.import_scene(path)
    assert any(w.startswith("mesh:") and "% lost" in w for w in lines)
    tm = load(path)
    base, fk = urdf_fk(root)
    st = torpor.Batch(tm, 1).state()
    for link in root.findall("link"):
        name, inertial = link.get("name"), link.find("inertial")
        b = tm.find_body(name)
        assert b >= 0, name
        R, pos = fk[name]
        assert st.pos[0, b] == pytest.approx(pos, abs=1e-5), name
        if name == base or inertial is None or float(inertial.find("mass").get("value")) == 0:
            continue
        mass, com, inertia = tm.body_inertia(b)
        assert mass == pytest.approx(float(inertial.find("mass").get("value")), rel=1e-6), name
        o = inertial.find("origin")
        assert com == pytest.approx([float(x) for x in o.get("xyz").split()], abs=1e-6), name
        e = {k: float(inertial.find("inertia").get(k, 0)) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        tensor = np.array([[e["ixx"], e["ixy"], e["ixz"]], [e["ixy"], e["iyy"], e["iyz"]], [e["ixz"], e["iyz"], e["izz"]]])
        assert np.linalg.eigvalsh(inertia) == pytest.approx(np.linalg.eigvalsh(tensor), rel=1e-5), name
    kinds = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic", "fixed": "fixed"}
    joints = root.findall("joint")
    assert tm.joint_names == [j.get("name") for j in joints]
    for i, j in enumerate(joints):
        d = tm.joint_def(i)
        assert d["type"] == kinds[j.get("type")]
        assert d["child"] == tm.find_body(j.find("child").get("link"))
        if j.get("type") in ("revolute", "prismatic"):
            lim = j.find("limit")
            assert d["limits"] == pytest.approx((float(lim.get("lower")), float(lim.get("upper"))), abs=1e-6)
            axis = np.array([float(x) for x in j.find("axis").get("xyz").split()])
            assert d["axis"] == pytest.approx(axis / np.linalg.norm(axis), abs=1e-6)
    batch = torpor.Batch(tm, 1)
    batch.step(int(round(2.0 / tm.dt)))
    assert batch.state().faults[0] == 0 and np.isfinite(batch.state().pos).all()


# ---------------------------------------------------------------- URDF

ARM = """<?xml version="1.0"?>
<robot name="arm">
  <link name="base">
    <collision><geometry><box size="0.4 0.4 0.1"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial><origin xyz="0 0 0.25"/><mass value="2.0"/>
      <inertia ixx="0.05" iyy="0.05" izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.25"/><geometry><cylinder radius="0.05" length="0.5"/></geometry></collision>
    <visual><geometry><cylinder radius="0.05" length="0.5"/></geometry></visual>
  </link>
  <link name="fore">
    <inertial><origin xyz="0 0 0.2" rpy="0 0 0"/><mass value="1.5"/>
      <inertia ixx="0.02" iyy="0.02" izz="0.003" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.2"/><geometry><sphere radius="0.06"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 0.05"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="50" velocity="3"/><dynamics damping="0.5" friction="0.1"/>
  </joint>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="fore"/><origin xyz="0 0 0.5" rpy="0 0 1.5707963267948966"/>
    <axis xyz="1 0 0"/>
  </joint>
</robot>
"""

WHEELED = """<robot name="cart">
  <link name="chassis">
    <inertial><mass value="10"/><inertia ixx="0.5" iyy="1.0" izz="1.2" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="1.0 0.6 0.2"/></geometry></collision>
  </link>
  <link name="wheel_l">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin rpy="1.5707963267948966 0 0"/><geometry><cylinder radius="0.15" length="0.05"/></geometry></collision>
  </link>
  <link name="wheel_r">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin rpy="1.5707963267948966 0 0"/><geometry><cylinder radius="0.15" length="0.05"/></geometry></collision>
  </link>
  <link name="world"/>
  <joint name="base" type="floating"><parent link="world"/><child link="chassis"/><origin xyz="0 0 0.3"/></joint>
  <joint name="left" type="continuous"><parent link="chassis"/><child link="wheel_l"/>
    <origin xyz="0 0.35 -0.1"/><axis xyz="0 1 0"/><dynamics damping="0.01"/></joint>
  <joint name="right" type="continuous"><parent link="chassis"/><child link="wheel_r"/>
    <origin xyz="0 -0.35 -0.1"/><axis xyz="0 1 0"/><dynamics damping="0.01"/></joint>
</robot>
"""


def test_urdf_arm(tmp_path):
    p = tmp_path / "arm.urdf"
    p.write_text(ARM)
    tm = load(p)
    assert tm.body_types()[tm.find_body("base")] == 1  # the root link is welded to the world
    mass, com, inertia = tm.body_inertia(tm.find_body("upper"))
    assert mass == pytest.approx(2.0) and com == pytest.approx([0, 0, 0.25])
    assert np.diag(inertia) == pytest.approx([0.05, 0.05, 0.004])
    mass, com, inertia = tm.body_inertia(tm.find_body("fore"))
    assert mass == pytest.approx(1.5) and np.diag(inertia) == pytest.approx([0.02, 0.02, 0.003])
    assert tm.joint_names == ["shoulder", "elbow"]
    shoulder, elbow = tm.joint_def(0), tm.joint_def(1)
    assert shoulder["type"] == "revolute" and shoulder["parent"] == -1 and shoulder["limits"] == pytest.approx((-1.5, 1.5))
    assert shoulder["damping"] == pytest.approx(0.5) and shoulder["friction"] == pytest.approx(0.1)
    assert shoulder["axis"] == pytest.approx([0, 1, 0])
    assert elbow["limits"] is None and elbow["parent"] == tm.find_body("upper")
    # the elbow's frame is turned 90 degrees about z: its x axis is the world's y, at q = 0
    batch = torpor.Batch(tm, 1)
    st = batch.state()
    fore = tm.find_body("fore")
    assert st.pos[0, fore] == pytest.approx([0, 0, 0.55], abs=1e-6)
    assert np.abs(st.quat[0, fore]) == pytest.approx([0, 0, np.sqrt(0.5), np.sqrt(0.5)], abs=1e-6)


def test_urdf_wheeled_base(tmp_path):
    p = tmp_path / "cart.urdf"
    p.write_text(WHEELED)
    tm = load(p)
    assert tm.find_body("world") < 0  # an empty root link is the world itself
    assert [tm.joint_type(j) for j in range(3)] == ["free", "revolute", "revolute"]
    assert tm.dof_count == 8
    total = sum(tm.body_inertia(tm.find_body(n))[0] for n in ("chassis", "wheel_l", "wheel_r"))
    assert total == pytest.approx(12.0)
    # no ground: it falls freely with its joints at rest; semi-implicit Euler over
    # n substeps of h falls g h^2 n (n + 1) / 2 (velocity first, then position)
    batch = torpor.Batch(tm, 1)
    batch.step(30)
    n, h = 30 * 4, tm.dt / 4
    fall = 9.81 * h * h * n * (n + 1) / 2
    assert batch.state().pos[0, tm.find_body("chassis"), 2] == pytest.approx(0.3 - fall, abs=1e-4)


# ---------------------------------------------------------------- bad input

BAD = {
    "malformed.xml": ("<mujoco>\n  <worldbody>\n    <body pos='0 0 1'>\n  </worldbody>\n</mujoco>\n",
                      r"malformed\.xml:4:\d+: malformed XML"),
    "mesh.xml": ("<mujoco>\n <asset><mesh name='m' file='nowhere.stl'/></asset>\n <worldbody>\n"
                 "  <body><freejoint/><geom type='mesh' mesh='m'/></body>\n </worldbody>\n</mujoco>\n",
                 r"mesh\.xml:2:24: <mesh file>: cannot read mesh file \"nowhere\.stl\""),
    "geomtype.xml": ("<mujoco>\n <worldbody>\n  <body>\n   <freejoint/>\n   <geom type='torus' size='1'/>\n"
                     "  </body>\n </worldbody>\n</mujoco>\n", r"geomtype\.xml:5:10: <geom type>: unknown geom type"),
    "range.xml": ("<mujoco>\n <worldbody>\n  <body>\n   <geom size='0.1'/>\n   <joint type='hinge' range='30 -30'/>\n"
                  "  </body>\n </worldbody>\n</mujoco>\n", r"range\.xml:5:24: <joint range>: lower must be <= upper"),
    "cycle.urdf": ("<robot name='c'>\n <link name='a'/>\n <link name='b'/>\n"
                   " <joint name='ab' type='fixed'><parent link='a'/><child link='b'/></joint>\n"
                   " <joint name='ba' type='fixed'><parent link='b'/><child link='a'/></joint>\n</robot>\n",
                   r"cycle\.urdf:4:2: <joint>: .*cycle"),
    "inertia.urdf": ("<robot name='i'>\n <link name='a'/>\n <link name='b'>\n  <inertial><mass value='1'/>\n"
                     "   <inertia ixx='3' iyy='1' izz='1'/>\n  </inertial>\n </link>\n"
                     " <joint name='j' type='continuous'><parent link='a'/><child link='b'/></joint>\n</robot>\n",
                     r"inertia\.urdf:5:4: <inertia>: .*exceeds the sum"),
    "meshurdf.urdf": ("<robot name='m'>\n <link name='a'/>\n <link name='b'>\n  <collision><geometry>\n"
                      "   <mesh filename='package://m/missing.stl'/>\n  </geometry></collision>\n </link>\n"
                      " <joint name='j' type='fixed'><parent link='a'/><child link='b'/></joint>\n</robot>\n",
                      r"meshurdf\.urdf:5:10: <mesh filename>: cannot read mesh file"),
}


@pytest.mark.parametrize("fname", sorted(BAD))
def test_bad_input(tmp_path, fname):
    text, pattern = BAD[fname]
    p = tmp_path / fname
    p.write_text(text)
    with pytest.raises(torpor.SceneError, match=pattern):
        torpor.Model.load(p)
    out = tmp_path / "out"
    r = subprocess.run([str(TORPOR), "run", str(p), "--steps", "1", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 2 and fname in r.stderr
    assert not out.exists()
    conv = tmp_path / "conv.json"
    r = subprocess.run([str(TORPOR), "convert", str(p), str(conv)], capture_output=True, text=True)
    assert r.returncode == 2 and not conv.exists()
