"""Model.build goes through the scene loader: a scene built in Python with NumPy
values is the model its JSON file gives, bit for bit (a float32 reaches the model
unchanged), every top-level key of the scene format is taken, and every refusal is
a SceneError that names the key path."""
import json

import numpy as np
import pytest

import torpor

from conftest import ROOT

# A robot: a cart-pole on joints with a motor and a servo, a door on a hinge
# constraint with a servo, a drone held by a mover, a keyframe every reset starts
# from (plus noise), an impulse event, a site and an excluded pair. Written by hand
# as a file would be: decimals as people write them ("0.33333334" is the float32
# nearest 1/3), so the build below, which gives float32 and float64 NumPy values,
# must round to the same float32 bits through its own JSON text.
ROBOT_JSON = """{
 "format": "torpor-scene", "version": 2, "name": "robot",
 "gravity": [0, 0, -9.81], "dt": 0.016666667, "substeps": 2,
 "solver": {"iterations": 10, "mode": "colored"},
 "sleep": {"enabled": false},
 "randomize": {"seed": 7, "joint_q_noise": 0.05, "keyframe": "lean"},
 "bodies": [
  {"name": "ground", "shape": "box", "size": [8, 4, 1], "pos": [0, 0, -0.5], "static": true},
  {"name": "cart", "shape": "box", "size": [0.4, 0.3, 0.2], "pos": [0, 0, 1], "mass": 1},
  {"name": "pole", "shape": "box", "size": [0.05, 0.05, 1], "pos": [0, 0, 1.6], "mass": 0.1},
  {"name": "door", "shape": "box", "size": [1, 0.1, 2], "pos": [3.5, 0, 1.05], "mass": 10},
  {"name": "drone", "shape": "box", "size": [0.33333334, 0.3, 0.3], "pos": [-3, 0, 2], "mass": 2}
 ],
 "exclude": [["door", "ground"]],
 "joints": [
  {"name": "slider", "type": "prismatic", "parent": "world", "child": "cart", "axis": [1, 0, 0],
   "limits": [-2.4, 2.4], "damping": 0.1},
  {"name": "pole_hinge", "type": "revolute", "parent": "cart", "child": "pole", "axis": [0, 1, 0],
   "anchor": [0, 0, -0.5], "q0": 0.05, "armature": 0.01}
 ],
 "actuators": [
  {"name": "push", "type": "motor", "joint": "slider", "gear": 10, "ctrl_range": [-1, 1]},
  {"name": "hold", "type": "position", "joint": "pole_hinge", "kp": 5, "kv": 0.5, "force_range": [-2, 2]}
 ],
 "constraints": [
  {"name": "door_hinge", "type": "hinge", "body0": "world", "pos0": [3, 0, 1.05], "axis0": [0, 0, 1],
   "body1": "door", "pos1": [-0.5, 0, 0], "axis1": [0, 0, 1], "actuator": "servo", "target": 1.2,
   "speed": 2, "max_force": 500, "limits": [0, 1.75]}
 ],
 "movers": [
  {"name": "follow", "type": "align_position", "body0": "drone", "target": [-3, 0, 3],
   "responsiveness": 10, "max_velocity": 5, "apply_at_com": true}
 ],
 "sites": [{"name": "tip", "body": "pole", "pos": [0, 0, 0.5]}],
 "keyframes": [{"name": "lean", "q": [0.3, -0.2], "qd": [0, 0.1], "ctrl": [0.2, 0.1]}],
 "events": [{"time": 0.1, "action": "impulse", "body": "drone", "value": [0.5, 0, 0]},
            {"time": 0.1, "action": "angular_impulse", "body": "drone", "value": [0, 0.02, 0.01]}]
}"""


def build_robot() -> torpor.Model:
    f32 = np.float32
    bodies = [
        {"name": "ground", "shape": "box", "size": np.array([8, 4, 1], f32), "pos": (0, 0, -0.5), "static": True},
        {"name": "cart", "size": f32([0.4, 0.3, 0.2]), "pos": np.array([0.0, 0.0, 1.0]), "mass": np.int64(1)},
        {"name": "pole", "size": [f32(0.05), f32(0.05), 1], "pos": [0, 0, f32(1.6)], "mass": f32(0.1)},
        {"name": "door", "size": f32([1, 0.1, 2]), "pos": f32([3.5, 0, 1.05]), "mass": 10.0},
        {"name": "drone", "size": f32([1 / 3, 0.3, 0.3]), "pos": [-3, 0, 2], "mass": np.float64(2)},
    ]
    joints = [{"name": "slider", "type": "prismatic", "parent": "world", "child": "cart", "axis": np.eye(3)[0],
               "limits": f32([-2.4, 2.4]), "damping": f32(0.1)},
              {"name": "pole_hinge", "parent": "cart", "child": "pole", "axis": (0, 1, 0),
               "anchor": f32([0, 0, -0.5]), "q0": f32(0.05), "armature": 0.01}]
    actuators = [{"name": "push", "joint": "slider", "gear": 10, "ctrl_range": (-1, 1)},
                 {"name": "hold", "type": "position", "joint": "pole_hinge", "kp": f32(5), "kv": f32(0.5),
                  "force_range": f32([-2, 2])}]
    constraints = [{"name": "door_hinge", "type": "hinge", "body0": "world", "pos0": f32([3, 0, 1.05]),
                    "axis0": f32([0, 0, 1]), "body1": "door", "pos1": f32([-0.5, 0, 0]), "axis1": [0, 0, 1],
                    "actuator": "servo", "target": f32(1.2), "speed": 2, "max_force": 500.0,
                    "limits": f32([0, 1.75])}]
    movers = [{"name": "follow", "type": "align_position", "body0": "drone", "target": f32([-3, 0, 3]),
               "responsiveness": 10, "max_velocity": f32(5), "apply_at_com": np.bool_(True)}]
    keyframes = [{"name": "lean", "q": f32([0.3, -0.2]), "qd": np.array([0, 0.1]), "ctrl": f32([0.2, 0.1])}]
    return torpor.Model.build(
        bodies, name="robot", gravity=np.array([0, 0, -9.81]), dt=f32(1 / 60), substeps=np.int64(2),
        solver={"iterations": 10, "mode": "colored"}, sleep={"enabled": False},
        randomize={"seed": 7, "joint_q_noise": f32(0.05), "keyframe": "lean"}, exclude=[("door", "ground")],
        joints=joints, actuators=actuators, constraints=constraints, movers=movers,
        sites=[{"name": "tip", "body": "pole", "pos": f32([0, 0, 0.5])}], keyframes=keyframes,
        events=[{"time": 0.1, "action": "impulse", "body": "drone", "value": [0.5, 0, 0]},
                {"time": f32(0.1), "action": "angular_impulse", "body": "drone", "value": f32([0, 0.02, 0.01])}])


def run(model: torpor.Model, worlds: int = 4, steps: int = 40) -> list:
    """Every state array after `steps` steps with per-world controls, as bytes."""
    b = torpor.Batch(model, worlds)
    if model.actuator_count:
        b.set_ctrl(np.linspace(-1, 1, 2 * worlds, dtype=np.float32).reshape(worlds, 2))
    b.step(steps)
    s = b.state()
    value, force = b.constraints()
    return [np.ascontiguousarray(a).tobytes() for a in (s.pos, s.quat, s.v, s.w, b.joint_q, b.joint_qd, value,
                                                        force)] + [b.state_hash()]


def test_robot_built_in_python_is_the_json_file_bit_for_bit(tmp_path):
    path = tmp_path / "robot.json"
    path.write_text(ROBOT_JSON)
    built, loaded = build_robot(), torpor.Model.load(path)
    assert built.name == loaded.name == "robot" and built.dt == loaded.dt == np.float32(1 / 60)
    assert built.body_names == loaded.body_names and built.joint_names == loaded.joint_names
    assert built.actuator_names == loaded.actuator_names == ["push", "hold"]
    assert built.constraint_names == loaded.constraint_names == ["door_hinge"]
    assert built.mover_names == loaded.mover_names == ["follow"]
    assert built.site_names == loaded.site_names == ["tip"]
    for body in range(built.body_count):
        for a, b in zip(built.body_inertia(body), loaded.body_inertia(body)):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), body
    for j in range(built.joint_count):
        a, b = built.joint_def(j), loaded.joint_def(j)
        assert a.keys() == b.keys() and all(np.asarray(a[k]).tobytes() == np.asarray(b[k]).tobytes() for k in a)
    for k in ("q", "qd", "ctrl"):
        assert built.keyframe("lean")[k].tobytes() == loaded.keyframe("lean")[k].tobytes()
    a, b = run(built), run(loaded)
    assert a == b, "the same model: the same bits after 40 steps"
    # and the run did something: the door servo turned the door, the mover lifted the drone
    m = torpor.Batch(built, 1)
    m.step(40)
    assert m.constraints()[0][0, 0] > 0.3 and m.state().pos[0, 4, 2] > 2.2


def test_cartpole_built_in_python_matches_the_scene_file():
    scene = json.loads((ROOT / "scenes" / "cartpole.json").read_text())
    keys = ("name", "gravity", "dt", "substeps", "sleep", "joints")
    built = torpor.Model.build(scene["bodies"], **{k: scene[k] for k in keys})
    loaded = torpor.Model.load(ROOT / "scenes" / "cartpole.json")
    runs = []
    for m in (built, loaded):
        b = torpor.Batch(m, 3)
        for step in range(120):
            b.set_joints(f=np.float32([[3, 0], [-2, 0], [0, 0.01]]) * np.sin(step / 10))
            b.step()
        assert np.abs(b.joint_q[:, 1]).max() > 0.1, "the pole fell"
        runs.append((b.joint_q.tobytes(), b.joint_qd.tobytes(), b.state().pos.tobytes(), b.state_hash()))
    assert runs[0] == runs[1]


CART = [{"name": "cart", "size": [0.4, 0.3, 0.2]}, {"name": "pole", "size": [0.05, 0.05, 1], "pos": [0, 0, 0.6]}]
SLIDER = [{"name": "slider", "type": "prismatic", "child": "cart", "axis": [1, 0, 0]}]


@pytest.mark.parametrize("kwargs, path", [
    # what the scene loader refuses, at its path
    ({"joints": [{"child": "cart", "axis": [0, 0]}]}, r"joints\[0\]\.axis: must have 3 elements, got 2"),
    ({"joints": SLIDER, "actuators": [{"joint": "slidr"}]}, r"actuators\[0\]\.joint: .*\"slidr\""),
    ({"constraints": [{"type": "hinge", "body1": "pole", "axs0": [0, 0, 1]}]},
     r"constraints\[0\]\.axs0: unknown key; did you mean \"axis0\"\?"),
    ({"constraints": [{"type": "rope", "body1": "pole", "length": -2}]}, r"constraints\[0\]\.length: must be >= 0"),
    ({"movers": [{"type": "torque", "body0": "pole", "torq": 1}]}, r"movers\[0\]\.torq: unknown key"),
    ({"joints": SLIDER, "keyframes": [{"name": "k", "q": [1, 2]}]}, r"keyframes\[0\]\.q: has 2 values"),
    ({"sites": [{"name": "s", "body": "lid"}]}, r"sites\[0\]\.body: unknown body \"lid\""),
    ({"events": [{"time": -1, "action": "wake", "body": "cart"}]}, r"events\[0\]\.time: must be a time >= 0"),
    ({"exclude": [["cart"]]}, r"exclude\[0\]: must be a pair of body names"),
    ({"solver": {"iterations": 0}}, r"solver\.iterations: "),
    ({"sleep": {"enabled": 1}}, r"sleep\.enabled: must be true or false"),
    ({"randomize": {"mass_scale": [2, 1]}}, r"randomize\.mass_scale"),
    ({"gravity": [0, 0]}, r"gravity: must have 3 elements, got 2"),
    ({"dt": 2.0}, r"dt: "),
    # what has no JSON form, at its path, before the loader runs
    ({"joints": [{"child": "cart", "axis": {0, 0, 1}}]}, r"joints\[0\]\.axis: a set has no JSON form"),
    ({"joints": [{"child": "cart", "q0": np.float32("nan")}]}, r"joints\[0\]\.q0: must be finite, got nan"),
    ({"gravity": np.array([0, 0, -np.inf])}, r"gravity\[2\]: must be finite, got -inf"),
    ({"randomize": {"seed": 2 ** 64}}, r"randomize\.seed: 18446744073709551616 is past the 64-bit integers"),
    ({"movers": [{"type": "torque", "body0": "pole", 3: 1}]}, r"movers\[0\]: keys must be strings, got 3"),
    ({"joints": [{"child": object()}]}, r"joints\[0\]\.child: a object has no JSON form"),
    ({"constraints": 5}, r"constraints: must be an array"),
])
def test_errors_name_the_key_path(kwargs, path):
    with pytest.raises(torpor.SceneError, match=rf"^<Model\.build>: {path}"):
        torpor.Model.build(CART, **kwargs)


def test_bodies_of_the_wrong_form_name_their_path():
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: bodies: must be an array"):
        torpor.Model.build({"name": "cart"})
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: bodies\[1\]: must be an object"):
        torpor.Model.build([{}, [1, 2, 3]])
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: bodies\[0\]\.size\[1\]: a str has no|"
                                                r"^<Model\.build>: bodies\[0\]\.size\[1\]: must be a number"):
        torpor.Model.build([{"size": [1, "2", 1]}])


def test_empty_lists_and_none_are_absent_keys():
    a = torpor.Model.build(CART, joints=None, actuators=[], constraints=(), randomize=None)
    b = torpor.Model.from_json(json.dumps({"bodies": CART}))
    assert run(a, 2, 10) == run(b, 2, 10)
