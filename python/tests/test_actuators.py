"""Actuators from Python: the held ctrl view, set_ctrl for all worlds / a list /
a mask / a broadcast row, refusals that change nothing, and the physics of a
motor (gear u / m) through the view (include/torpor_actuators.h)."""
import json
import warnings

import numpy as np
import pytest

import torpor
from conftest import ROOT

DT = 1.0 / 60.0


def cartpole_motor(**keys) -> torpor.Model:
    """scenes/cartpole.json with a motor on the slider (gear 10, ctrl in [-1, 1])."""
    scene = json.loads((ROOT / "scenes" / "cartpole.json").read_text())
    act = {"name": "push", "type": "motor", "joint": "slider", "gear": 10, "ctrl_range": [-1, 1]}
    act.update(keys)
    scene["actuators"] = [act]
    return torpor.Model.from_json(json.dumps(scene), "cartpole+motor")


def test_ctrl_view_and_writes():
    m = cartpole_motor()
    assert m.actuator_count == 1 and m.actuator_names == ["push"] and m.find_actuator("push") == 0
    b = torpor.Batch(m, 4)
    assert b.ctrl.shape == (4, 1) and b.ctrl.dtype == np.float32 and not b.ctrl.flags.writeable
    assert b.actuator_force.shape == (4, m.dof_count)
    b.set_ctrl([0.5])  # (nu,) broadcast to every world
    assert np.all(b.ctrl == 0.5)
    b.set_ctrl([[0.1], [0.2]], worlds=[3, 1])
    assert b.ctrl[:, 0].tolist() == pytest.approx([0.5, 0.2, 0.5, 0.1])
    b.set_ctrl(np.array([[9.0], [np.nan], [np.nan], [np.nan]]), worlds=np.array([True, False, False, False]))
    assert b.ctrl[0, 0] == 9.0
    before = b.ctrl.copy()
    with pytest.raises(torpor.InvalidArgumentError, match="finite"):
        b.set_ctrl([[1.0], [np.nan], [1.0], [1.0]])
    with pytest.raises(ValueError):
        b.set_ctrl(np.zeros((4, 2)))
    np.testing.assert_array_equal(b.ctrl, before)
    b.reset(worlds=[0])
    assert b.ctrl[0, 0] == 0.0 and b.ctrl[1, 0] == pytest.approx(0.2)


def test_model_without_actuators_refuses_ctrl():
    b = torpor.Batch(torpor.Model.load(ROOT / "scenes" / "cartpole.json"), 2)
    assert b.ctrl.shape == (2, 0)
    with pytest.raises(torpor.InvalidArgumentError, match="no actuators"):
        b.set_ctrl([1.0])


def test_held_motor_accelerates_the_cart_and_decimation_is_exact():
    """Zero g, pole upright on a free hinge: in the first step the cart accelerates at
    gear u / m_eff, m_eff = m_cart + m_pole - (m_pole d)^2 / I_hinge (the pole swings
    back as the cart starts); step(4) with a held ctrl equals four step(1) bit for bit."""
    scene = json.loads((ROOT / "scenes" / "cartpole.json").read_text())
    scene["gravity"] = [0, 0, 0]
    scene["joints"][1]["q0"] = 0.0
    scene["joints"][0]["damping"] = 0.0
    scene["actuators"] = [{"name": "push", "joint": "slider", "gear": 10}]
    m = torpor.Model.from_json(json.dumps(scene), "cartpole0")
    a, b = torpor.Batch(m, 3), torpor.Batch(m, 3)
    first = torpor.Batch(m, 1)
    first.set_ctrl([0.2])
    first.step(1)
    i_hinge = 0.1 * (1.0 + 0.05 ** 2) / 12 + 0.1 * 0.5 ** 2
    m_eff = 1.1 - (0.1 * 0.5) ** 2 / i_hinge
    assert first.joint_qd[0, 0] == pytest.approx(10 * 0.2 / m_eff * DT, rel=1e-3)
    a.set_ctrl([0.2])
    b.set_ctrl([0.2])
    for _ in range(5):
        a.step(4)
        for _ in range(4):
            b.step(1)
        assert a.state_hash() == b.state_hash()
    assert a.actuator_force[0, 0] == pytest.approx(2.0, rel=1e-6)


def test_set_ctrl_past_float32_names_the_value():
    """set_ctrl([1e39]) said "got inf" after a NumPy overflow warning: the cast to float32 came first."""
    b = torpor.Batch(cartpole_motor(), 2)
    b.set_ctrl([0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(torpor.InvalidArgumentError, match=r"^u\[0\]: 1e\+39 is past float32's range .*nothing"):
            b.set_ctrl([1e39])
        with pytest.raises(torpor.InvalidArgumentError, match=r"^u\[1, 0\]: 1e\+300 is past float32's range"):
            b.set_ctrl(np.array([[0.0], [1e300]]))
    assert b.ctrl[:, 0].tolist() == [0.5, 0.5]
