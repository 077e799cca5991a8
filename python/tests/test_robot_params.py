"""Per-world robot parameters (include/torpor_actuators.h, "robot parameters"):
the randomize block draws joint damping, armature, friction loss and actuator
gear, kp and kv per world and episode; Batch.set_robot_params writes them for
all worlds, an index list or a mask, and a written world moves as a model
built with those values does (bit for bit)."""
import json

import numpy as np
import pytest

import torpor


def cartpole(randomize=None, hinge_damping=0.4, kp=20.0):
    scene = {"version": 2, "sleep": {"enabled": False}, "bodies": [
        {"name": "cart", "shape": "box", "size": [0.4, 0.3, 0.2], "mass": 1, "pos": [0, 0, 1]},
        {"name": "pole", "shape": "box", "size": [0.05, 0.05, 1], "mass": 0.1, "pos": [0, 0, 1.6]}],
        "joints": [
            {"name": "slider", "type": "prismatic", "child": "cart", "axis": [1, 0, 0], "damping": 0.3,
             "armature": 0.02},
            {"name": "hinge", "parent": "cart", "child": "pole", "axis": [0, 1, 0], "anchor": [0, 0, -0.5],
             "q0": 0.3, "damping": hinge_damping, "friction": 0.1}],
        "actuators": [{"name": "push", "joint": "slider", "gear": 3},
                      {"name": "hold", "type": "position", "joint": "hinge", "kp": kp, "kv": 2}]}
    if randomize:
        scene["randomize"] = randomize
    return torpor.Model.from_json(json.dumps(scene))


def test_draws_in_range_new_per_episode_same_at_any_world_count():
    rnd = {"seed": 3, "joint_damping_scale": [0.5, 1.5], "actuator_kp_scale": [0.5, 2.0]}
    m = cartpole(rnd)
    big, small = torpor.Batch(m, 64), torpor.Batch(m, 7)
    d = big.robot_params("joint_damping")
    assert d.shape == (64, 2)
    assert np.all((d >= np.float32([0.3, 0.4]) * 0.5) & (d <= np.float32([0.3, 0.4]) * 1.5))
    kp = big.robot_params("actuator_kp")
    assert np.all(kp[:, 0] == 0) and np.all((kp[:, 1] >= 10) & (kp[:, 1] <= 40))
    assert np.array_equal(small.robot_params("joint_damping"), d[:7]), "same bits at 7 and 64 worlds"
    big.reset([5])
    d2 = big.robot_params("joint_damping")
    assert not np.array_equal(d2[5], d[5]) and np.array_equal(np.delete(d2, 5, 0), np.delete(d, 5, 0))
    assert np.all(big.robot_params("joint_armature") == np.float32([0.02, 0.0])), "not randomized: the model's"


def test_setters_take_all_worlds_a_list_or_a_mask_and_match_the_model():
    b = torpor.Batch(cartpole(), 3)
    b.set_robot_params("joint_damping", [0.3, 2.5], worlds=[1])
    b.set_robot_params("actuator_kp", [0.0, 60.0], worlds=np.array([False, True, False]))
    ref = torpor.Batch(cartpole(hinge_damping=2.5, kp=60.0), 1)
    base = torpor.Batch(cartpole(), 1)
    for x in (b, ref, base):
        x.step(60)
    assert np.array_equal(b.joint_q[1], ref.joint_q[0]), "world 1 moves as the model with its values"
    assert np.array_equal(b.joint_q[0], base.joint_q[0]) and np.array_equal(b.joint_q[2], base.joint_q[0])
    b.set_robot_params("joint_friction", [0.0, 0.5])  # one row broadcast to every world
    assert np.all(b.robot_params("joint_friction") == np.float32([0.0, 0.5]))
    before = b.robot_params("actuator_kv")
    with pytest.raises(torpor.InvalidArgumentError, match="a motor actuator has no kv"):
        b.set_robot_params("actuator_kv", [[1.0, 2.0]] * 3)
    with pytest.raises(torpor.InvalidArgumentError, match="must be >= 0"):
        b.set_robot_params("actuator_kv", [[0.0, 2.0], [0.0, 2.0], [0.0, -1.0]])
    assert np.array_equal(b.robot_params("actuator_kv"), before), "nothing changed"
    with pytest.raises(torpor.InvalidArgumentError, match="unknown robot parameter"):
        b.robot_params("stiffness")
    b.reset()
    assert np.all(b.robot_params("joint_friction") == np.float32([0.0, 0.1])), "a reset restores the model's"


def test_reset_to_state_takes_the_joint_state():
    m = cartpole({"joint_q_noise": 0.2})
    b = torpor.Batch(m, 4)
    b.step(20)
    b.reset_to_state(worlds=[3, 1], joint_q=[[0.5, -0.25], [-1.0, 0.75]], joint_qd=[0.0, 1.5])
    assert np.array_equal(b.joint_q[[3, 1]], np.float32([[0.5, -0.25], [-1.0, 0.75]]))
    assert np.array_equal(b.joint_qd[[3, 1]], np.float32([[0.0, 1.5]] * 2))
    assert list(b.episodes) == [0, 1, 0, 1]
    # the links follow: the pole's centre 0.5 m from the hinge on the cart
    pos = b.state().pos
    np.testing.assert_allclose(pos[3, 1, 0], 0.5 + 0.5 * np.sin(-0.25), atol=1e-6)
    with pytest.raises(torpor.InvalidArgumentError, match="joint_q row 0"):
        b.reset_to_state(joint_q=[np.nan, 0.0])
    assert list(b.episodes) == [0, 1, 0, 1], "nothing was reset"
    full = b.state()
    b.reset_to_state(full.pos[:1].copy(), full.quat[:1].copy(), worlds=[0], joint_q=[0.1, 0.2])
    assert np.array_equal(b.joint_q[0], np.float32([0.1, 0.2])) and b.episodes[0] == 1


def test_model_build_with_joints_and_actuators_equals_the_json_scene():
    from conftest import ROOT
    scene = json.loads((ROOT / "scenes" / "cartpole.json").read_text())
    bodies = []
    for body in scene["bodies"]:
        d = {k: v for k, v in body.items() if k != "static"}
        if body.get("static"):
            d["type"] = "static"
        bodies.append(d)
    acts = [{"name": "push", "joint": "slider", "gear": 10, "ctrl_range": [-1, 1]},
            {"name": "hold", "type": "position", "joint": "pole_hinge", "kp": 5, "kv": 0.5, "force_range": [-2, 2]}]
    built = torpor.Model.build(bodies, name="cartpole", dt=scene["dt"], substeps=scene["substeps"],
                               sleep={"enabled": False}, joints=scene["joints"], actuators=acts)
    loaded = torpor.Model.from_json(json.dumps(dict(scene, actuators=acts)))
    assert built.joint_names == loaded.joint_names and built.actuator_names == ["push", "hold"]
    hashes = []
    for m in (built, loaded):
        b = torpor.Batch(m, 3)
        b.set_ctrl([[0.5, 0.1], [-2.0, 0.0], [0.0, -0.3]])
        b.step(120)
        assert np.abs(b.joint_q).max() > 0.05, "it moved"
        hashes.append(b.state_hash())
    assert hashes[0] == hashes[1], "the same model: the same bits after 120 steps"
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: actuators\[0\]\.joint: must be the name of a joint"):
        torpor.Model.build(bodies, joints=scene["joints"], actuators=[dict(acts[0], joint=0)])  # names, as in a scene
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: joints\[0\]\.child: unknown body \"crat\""):
        torpor.Model.build(bodies, joints=[{"child": "crat"}])
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: actuators\[0\]\.kp: "):
        torpor.Model.build(bodies, joints=scene["joints"], actuators=[{"joint": "slider", "kp": 3}])


def test_reset_to_state_leaves_links_to_the_joint_state():
    """reset_to_state's pos / quat do not pose articulation links, a free root's
    included (tp_batch_reset_to_state): their rows are checked, not written; the
    joint state places them. The docstring says so and points to joint_q."""
    scene = {"version": 2, "gravity": [0, 0, 0], "sleep": {"enabled": False}, "bodies": [
        {"name": "crate", "size": [0.5, 0.5, 0.5], "mass": 1, "pos": [3, 0, 1]},
        {"name": "base", "size": [0.4, 0.4, 0.4], "mass": 1, "pos": [0, 0, 1]}],
        "joints": [{"name": "root", "type": "free", "child": "base"}]}
    m = torpor.Model.from_json(json.dumps(scene))
    b = torpor.Batch(m, 2)
    s = b.state()
    pos, quat = s.pos.copy(), s.quat.copy()
    pos[:, :, 2] += 5.0  # both bodies 5 m up
    b.reset_to_state(pos, quat)
    assert np.all(b.state().pos[:, 0, 2] == pos[:, 0, 2]), "the free body is posed"
    assert np.all(b.state().pos[:, 1, 2] == 1.0), "the free root link keeps the reset's pose"
    with pytest.raises(torpor.InvalidArgumentError, match="pos"):
        bad = pos.copy()
        bad[0, 1, 0] = np.nan  # a link's row is still checked
        b.reset_to_state(bad, quat)
    q = b.joint_q.copy()
    q[:, 2] = 6.0  # the free joint's origin z
    b.reset_to_state(pos, quat, joint_q=q)
    assert np.allclose(b.state().pos[:, 1, 2], 6.0), "joint_q places the root"
    doc = torpor.Batch.reset_to_state.__doc__
    assert "checked but not written" in doc and "free root" in doc and "joint_q" in doc


def test_actuator_def_names_its_type_and_joint():
    """actuator_def gave type and joint as ints where joint_def gives names."""
    m = cartpole()
    push, hold = m.actuator_def(0), m.actuator_def(1)
    assert (push["type"], push["joint"], push["joint_index"]) == ("motor", "slider", 0)
    assert (hold["type"], hold["joint"], hold["joint_index"]) == ("position", "hinge", 1)
    assert m.joint_def(hold["joint_index"])["type"] == "revolute"
    scene = {"version": 2, "bodies": [{"name": "a", "size": [1, 1, 1]}],
             "joints": [{"name": "j", "child": "a", "axis": [0, 0, 2]}]}
    axis = torpor.Model.from_json(json.dumps(scene)).joint_def(0)["axis"]
    assert axis.tolist() == [0, 0, 2], "the axis as written, not normalized (the docstring says which)"
