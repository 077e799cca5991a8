"""Sensors as arrays: the IMU of every body (include/torpor_sensors.h) reads zero
proper acceleration in free fall and |g| up, in the body frame, at rest."""
import json

import numpy as np
import pytest

import torpor

G = 9.81


def test_imu_free_fall_reads_zero_and_rest_reads_g_up():
    s = np.sin(np.pi / 4)
    scene = {"version": 2, "sleep": {"enabled": False}, "bodies": [
        {"name": "ground", "shape": "box", "size": [4, 4, 1], "pos": [0, 0, -0.5], "static": True},
        # turned 90 degrees about x: world up is its body +y
        {"name": "resting", "shape": "box", "size": [0.5, 0.5, 0.5], "pos": [0, 0, 0.25], "quat": [s, 0, 0, s]},
        {"name": "falling", "shape": "ball", "size": [0.2, 0.2, 0.2], "pos": [2, 1, 50],
         "quat": [0, s, 0, s], "ang_vel": [0, 0, 0]}]}
    b = torpor.Batch(torpor.Model.from_json(json.dumps(scene)), 3)
    v, w, a = b.imu()
    assert a.shape == (3, 3, 3) and not a.flags.writeable
    assert np.all(a == 0), "zeros until the next step"
    b.step(60)
    b.step(3)  # several steps in one call: the reading is the last step's
    for world in range(3):
        # falling: proper acceleration 0; turned 90 degrees about y, world down is its body +x
        np.testing.assert_allclose(a[world, 2], 0.0, atol=1e-3)
        t = 63 / 60
        np.testing.assert_allclose(v[world, 2], [G * t, 0, 0], rtol=1e-4, atol=1e-4)
        # resting: |g| against gravity, along its body +y
        np.testing.assert_allclose(a[world, 1], [0.0, G, 0.0], atol=2e-2 * G)
        np.testing.assert_allclose(w[world, 1], 0.0, atol=1e-3)


def test_contact_sensors_split_m_g_between_two_balls_by_statics():
    # a 2 kg board (two halves, both sensors) on static balls at x = -0.3 and 0.5, its
    # centre of mass at x = 0: moments about each support give F1 = m g 0.5 / 0.8, F2 = m g 0.3 / 0.8
    ball = {"shape": "ball", "size": [0.2, 0.2, 0.2], "static": True, "sensor": True}
    scene = {"version": 2, "sleep": {"enabled": False}, "bodies": [
        dict(ball, name="b1", pos=[-0.3, 0, 0.1]), dict(ball, name="b2", pos=[0.5, 0, 0.1]),
        {"name": "plain", "shape": "ball", "size": [0.2, 0.2, 0.2], "pos": [3, 0, 0.1], "static": True},
        {"name": "board", "pos": [0, 0, 0.25], "mass": 2, "shapes": [
            {"shape": "box", "size": [0.6, 0.4, 0.1], "pos": [-0.3, 0, 0], "sensor": True},
            {"shape": "box", "size": [0.6, 0.4, 0.1], "pos": [0.3, 0, 0], "sensor": True}]}]}
    m = torpor.Model.from_json(json.dumps(scene))
    assert m.contact_sensors == [(0, 0), (1, 0), (3, 0), (3, 1)]
    b = torpor.Batch(m, 4)
    force, touching = b.contact_sensors()
    assert force.shape == (4, 4, 3) and touching.shape == (4, 4) and touching.dtype == np.uint8
    assert not force.flags.writeable and not touching.flags.writeable
    assert np.all(force == 0) and np.all(touching == 0), "before the first step: no contacts"
    b.step(90)
    f1, f2 = 2 * G * 0.5 / 0.8, 2 * G * 0.3 / 0.8
    np.testing.assert_allclose(-force[:, 0, 2], f1, rtol=0.01)
    np.testing.assert_allclose(-force[:, 1, 2], f2, rtol=0.01)
    np.testing.assert_allclose(force[:, 2:, 2], np.tile([f1, f2], (4, 1)), rtol=0.01)
    assert np.all(touching == 1)
    b.reset(worlds=[2])
    assert np.all(touching[2] == 0) and np.all(force[2] == 0), "a reset world has no contacts yet"
    assert np.all(touching[[0, 1, 3]] == 1)
    b.step(1)
    assert np.all(touching[2] == 1)
    plain = torpor.Batch(torpor.Model.from_json(json.dumps(dict(scene, bodies=scene["bodies"][2:3]))), 1)
    f, t = plain.contact_sensors()
    assert f.shape == (1, 0, 3) and t.shape == (1, 0), "a model without sensors has none"
