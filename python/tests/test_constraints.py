"""Constraints between two bodies from Python: per-world parameter writes (masks,
index lists, column picks), read-outs, and the winch and servo laws they drive
(seed 004: a winch pays out at winch_speed; a servo turns at speed to its target)."""
import json

import numpy as np
import pytest

import torpor

G = 9.81

SCENE = {
    "format": "torpor-scene", "version": 2, "name": "crane_and_door",
    "gravity": [0, 0, -G], "sleep": {"enabled": False},
    "bodies": [
        {"name": "hook", "shape": "box", "size": [0.5, 0.5, 0.5], "mass": 1.0, "pos": [0, 0, 7.75]},
        {"name": "door", "shape": "box", "size": [1, 0.1, 2], "mass": 10.0, "pos": [5.5, 0, 2]},
    ],
    "constraints": [
        {"name": "cable", "type": "rope", "body0": "world", "pos0": [0, 0, 10], "body1": "hook",
         "pos1": [0, 0, 0.25], "length": 2, "winch": True, "winch_speed": 1.5},
        {"name": "door_hinge", "type": "hinge", "body0": "world", "pos0": [5, 0, 2], "axis0": [0, 0, 1],
         "body1": "door", "pos1": [-0.5, 0, 0], "axis1": [0, 0, 1], "actuator": "servo", "target": 0,
         "speed": 2, "max_force": 500, "limits": [0, 1.75]},
    ],
}


@pytest.fixture()
def batch():
    m = torpor.Model.from_json(json.dumps(SCENE), "crane.json")
    with torpor.Batch(m, worlds=3) as b:
        yield b


def test_model_lists_the_constraints(batch):
    m = batch.model
    assert m.constraint_count == 2
    assert m.constraint_names == ["cable", "door_hinge"]
    assert m.find_constraint("door_hinge") == 1 and m.find_constraint("nope") == -1


def test_winch_target_per_world_pays_out_at_winch_speed(batch):
    dt = batch.model.dt
    assert np.array_equal(batch.constraint_params("winch_target")[:, 0], [2, 2, 2])  # starts at the length
    batch.set_constraint_params("winch_target", [6.0], worlds=np.array([False, True, False]),
                                constraints=["cable"])
    batch.step(60)  # 1 s at 1.5 m/s, still 2.5 m from the target
    length = batch.constraint_params("length")[:, 0]
    assert abs(length[1] - 3.5) < 1e-4 and length[0] == 2 and length[2] == 2, length
    value, force = batch.constraints()
    assert abs(value[1, 0] - length[1]) < 5e-3  # the hook hangs on the taut rope
    assert abs(force[0, 0] - G) < 0.05, force  # a still hook's weight, N
    imp = batch.constraint_impulses()
    assert imp.shape == (3, 2, 3)
    assert abs(imp[0, 0, 2] - G * dt) < 1e-3, imp[0, 0]  # the rope holds the hook up: m g dt along +z
    assert batch.state().v[1, 0, 2] == pytest.approx(-1.5, abs=0.05)


def test_servo_target_by_index_list(batch):
    batch.set_constraint_params("target", [[1.2], [0.6]], worlds=[2, 0], constraints=[1])
    assert np.allclose(batch.constraint_params("target")[:, 1], [0.6, 0, 1.2])
    batch.step(60)  # 1 s: at 2 rad/s the servo reaches either target
    angle = batch.constraints()[0][:, 1]
    assert abs(angle[0] - 0.6) < 0.01 and abs(angle[2] - 1.2) < 0.01 and abs(angle[1]) < 0.01, angle


def test_bad_values_name_the_constraint_and_change_nothing(batch):
    with pytest.raises(torpor.InvalidArgumentError, match=r"winch_speed row 0 \[0\] \(cable\)"):
        batch.set_constraint_params("winch_speed", [[-1, 0]] * 3)
    assert np.all(batch.constraint_params("winch_speed")[:, 0] == 1.5)
    with pytest.raises(torpor.InvalidArgumentError, match="hinge has no winch_target"):
        batch.set_constraint_params("winch_target", [3.0], constraints=["door_hinge"])
    with pytest.raises(torpor.InvalidArgumentError, match="unknown constraint parameter"):
        batch.constraint_params("colour")
    with pytest.raises(torpor.InvalidArgumentError, match="constraints: no constraint 'nope'"):
        batch.set_constraint_params("enabled", [0], constraints=["nope"])


def test_disable_lets_the_hook_fall(batch):
    batch.set_constraint_params("enabled", [0.0], worlds=[1], constraints=["cable"])
    z0 = batch.state().pos[1, 0, 2]
    batch.step(30)
    fall = z0 - batch.state().pos[1, 0, 2]
    assert fall == pytest.approx(0.5 * G * 0.5 ** 2, rel=0.03)
    assert batch.state().pos[0, 0, 2] == pytest.approx(z0, abs=5e-3)


def test_constraints_picked_by_one_name_each_once(batch):
    """A misspelt name raised KeyError, a single str was read letter by letter and a
    repeated name was taken (the last value won)."""
    batch.set_constraint_params("winch_target", [4.0], constraints="cable")
    assert batch.constraint_params("winch_target")[:, 0].tolist() == [4, 4, 4]
    batch.set_constraint_params("target", [[0.5], [0.25]], worlds=[2, 0], constraints=1)
    assert batch.constraint_params("target")[:, 1].tolist() == [0.25, 0, 0.5]
    before = batch.constraint_params("winch_target")
    with pytest.raises(torpor.InvalidArgumentError,
                       match=r"^constraints: no constraint 'cabel' \(the model has 2: cable, door_hinge\); nothing"):
        batch.set_constraint_params("winch_target", [5.0], constraints=["cabel"])
    with pytest.raises(torpor.InvalidArgumentError, match=r"constraint 'cable' \(cable\) is picked a second time"):
        batch.set_constraint_params("winch_target", [[5.0, 6.0]], constraints=["cable", "cable"])
    with pytest.raises(torpor.InvalidArgumentError, match=r"constraint 0 \(cable\) is picked a second time"):
        batch.set_constraint_params("winch_target", [[5.0, 6.0]], constraints=["cable", 0])
    with pytest.raises(torpor.InvalidArgumentError, match="constraints: no constraint 2 "):
        batch.set_constraint_params("winch_target", [5.0], constraints=[2])
    assert np.array_equal(batch.constraint_params("winch_target"), before)
