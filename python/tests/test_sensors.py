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
