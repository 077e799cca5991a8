"""Movers from Python (docs/movers.md): Model.build and the scene JSON give the
same model, the AlignPosition approach law per step (seed 004: each step leaves
1 - 0.3 r dt of the distance), per-world targets and enabled flags through
worlds= and movers=, refusals that change nothing, the read-outs."""
import json

import numpy as np
import pytest

import torpor

DT = 1.0 / 60.0

BODIES = [{"name": "drone", "size": [0.5, 0.5, 0.5], "mass": 2.0},
          {"name": "rocket", "size": [0.5, 0.5, 0.5], "mass": 2.0, "pos": [0, 3, 0]}]
MOVERS = [{"name": "follow", "type": "align_position", "body0": "drone", "target": [3, 0, 0],
           "apply_at_com": True},
          {"name": "thrust", "type": "vector_force", "body0": "rocket", "relative_to": "world",
           "target": [0, 0, 4], "apply_at_com": True}]


def model() -> torpor.Model:
    return torpor.Model.build(BODIES, gravity=(0, 0, 0), sleep={"enabled": False}, movers=MOVERS)


def test_build_and_json_give_the_same_model():
    m = model()
    scene = {"version": 2, "gravity": [0, 0, 0], "sleep": {"enabled": False}, "bodies": BODIES, "movers": MOVERS}
    j = torpor.Model.from_json(json.dumps(scene))
    assert m.mover_count == j.mover_count == 2
    assert m.mover_names == j.mover_names == ["follow", "thrust"]
    a, b = torpor.Batch(m, worlds=2), torpor.Batch(j, worlds=2)
    a.step(30)
    b.step(30)
    assert a.state_hash() == b.state_hash()


def test_align_position_law_and_vector_force():
    b = torpor.Batch(model(), worlds=1)
    left = 3.0
    for n in range(60):
        b.step(1)
        left *= 1.0 - 0.3 * 10.0 * DT
        assert abs(3.0 - b.state().pos[0, 0, 0] - left) < 1e-4 * 3.0, n
    out = b.movers()
    assert out["active"].tolist() == [[True, True]]
    assert abs(out["force"][0, 1] - 4.0) < 1e-5                 # a VectorForce reads its force
    assert abs(b.state().v[0, 1, 2] - 4.0 / 2.0 * 1.0) < 1e-4   # a = F / m for 1 s


def test_per_world_targets_and_enabled():
    b = torpor.Batch(model(), worlds=3)
    b.set_mover_targets([[0, 2, 0, 0]], worlds=[2], movers=["follow"])
    b.set_mover_enabled(False, worlds=np.array([True, False, False]), movers=[1])
    t = b.movers()["target"]
    assert t[2, 0].tolist() == [0, 2, 0, 0] and t[0, 0].tolist() == [3, 0, 0, 0]
    assert t[2, 1].tolist() == [0, 0, 4, 0]                     # the other mover was not written
    assert b.movers()["active"][:, 1].tolist() == [False, True, True]
    b.step(120)
    pos = b.state().pos
    assert abs(pos[2, 0, 1] - 2.0) < 1e-2 and abs(pos[1, 0, 0] - 3.0) < 1e-2
    assert pos[0, 1, 2] == 0.0 and pos[1, 1, 2] > 1.0          # world 0's rocket is off
    before = b.movers()["target"].copy()
    with pytest.raises(torpor.InvalidArgumentError, match="row 0, mover 0"):
        b.set_mover_targets([[np.nan, 0, 0, 0], [0, 0, 0, 0]], worlds=[1])
    with pytest.raises(torpor.InvalidArgumentError, match="no mover 'nope'"):
        b.set_mover_targets(0, movers=["nope"])
    assert np.array_equal(b.movers()["target"], before)


def test_build_refuses_bad_values():
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: movers\[0\]\.max_force: "):
        torpor.Model.build(BODIES, movers=[{"type": "align_position", "body0": "drone", "max_force": -1}])
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: movers\[0\]\.type: unknown mover type"):
        torpor.Model.build(BODIES, movers=[{"type": "align", "body0": "drone"}])
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: movers\[0\]\.torq: unknown key"):
        torpor.Model.build(BODIES, movers=[{"type": "torque", "body0": "drone", "torq": 1}])


@pytest.mark.parametrize("enabled, shown, index", [([np.nan, 1, 1], "nan", r"\[0\]"), ([1, 2, 1], "2", r"\[1\]"),
                                                   (["no", "no", "no"], "'no'", r"\[0\]"),
                                                   ([[1, 0], [1, 1], [0, 0.5]], "0.5", r"\[2, 1\]"),
                                                   ([True, None, False], "None", r"\[1\]")])
def test_enabled_takes_bools_and_0_1_only(enabled, shown, index):
    """Any value went through bool() before the C check: NaN, 2 and "no" all enabled."""
    b = torpor.Batch(model(), worlds=3)
    b.set_mover_enabled(False)
    before = b.movers()["active"].copy()
    e = np.array(enabled, dtype=object if None in enabled else None)
    if e.ndim == 1:
        e = e[:, None]  # (3, 1): a column per world, broadcast over the movers
        index = index[:-2] + r", 0\]"
    with pytest.raises(torpor.InvalidArgumentError, match=rf"^enabled{index}: must be a bool, 0 or 1, got {shown};"):
        b.set_mover_enabled(e)
    b.step(1)
    assert np.array_equal(b.movers()["active"], before) and not before.any(), "a refused write changed nothing"
    b.set_mover_enabled([[1, 0], [True, False], [np.float32(1), np.int64(0)]])
    b.step(1)
    assert b.movers()["active"].tolist() == [[True, False]] * 3


def test_movers_by_one_name_and_refusals():
    b = torpor.Batch(model(), worlds=2)
    b.set_mover_targets([0, 5, 0, 0], movers="follow")  # one name, not the letters f, o, l, ...
    b.set_mover_enabled(False, movers=1)
    m = b.movers()
    assert m["target"][:, 0].tolist() == [[0, 5, 0, 0]] * 2 and m["target"][:, 1].tolist() == [[0, 0, 4, 0]] * 2
    assert m["active"][:, 1].tolist() == [False, False]
    before = b.movers()["target"].copy()
    with pytest.raises(torpor.InvalidArgumentError, match=r"movers: mover 0 \(follow\) is picked a second time"):
        b.set_mover_targets(0, movers=["follow", 0])
    with pytest.raises(torpor.InvalidArgumentError, match=r"movers: no mover 'folow' \(the model has 2: follow, thrust\)"):
        b.set_mover_targets(0, movers="folow")
    with pytest.raises(torpor.InvalidArgumentError, match="movers: no mover 2 "):
        b.set_mover_enabled(True, movers=[2])
    with pytest.raises(torpor.InvalidArgumentError, match="movers: no mover True "):
        b.set_mover_enabled(True, movers=[True])
    assert np.array_equal(b.movers()["target"], before)
    t = np.full((2, 2, 4), np.nan)  # (rows, M, 4) even with one mover picked: the other's column is not read
    t[:, 1] = [0, 0, 7, 0]
    b.set_mover_targets(t, movers="thrust")
    assert b.movers()["target"][:, 1].tolist() == [[0, 0, 7, 0]] * 2
