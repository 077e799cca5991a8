"""Import time of an MJCF file, and torpor's CPU step of imported robots next to
MuJoCo's (mujoco.rollout), both on one thread, on the same file, at 1, 64 and 1024 worlds.

Measured interleaved (torpor, MuJoCo, torpor, ... per case, best of `repeats`),
since the machine may be shared: the ratio of the two is what to read.
Zero control, contacts on, from the model's initial state.

    PYTHONPATH=python TORPOR_LIBRARY=build/libtorpor.so /usr/bin/python3 bench/import_vs_mujoco.py
"""
import os
import sys
import time
import warnings

import mujoco
import numpy as np
from mujoco import rollout

import torpor

ASSETS = os.path.join(os.path.dirname(__import__("gymnasium").__file__), "envs", "mujoco", "assets")
STEPS = {1: 500, 64: 50, 1024: 5}


def import_time(path, repeats=5):
    best = 1e9
    for _ in range(repeats):
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torpor.Model.load(path)
        best = min(best, time.perf_counter() - t)
    return best


def torpor_rate(model, worlds, steps):
    batch = torpor.Batch(model, worlds, threads=1)  # one thread, as MuJoCo's rollout here
    batch.step(1)
    t = time.perf_counter()
    batch.step(steps)
    return worlds * steps / (time.perf_counter() - t)


def mujoco_rate(mm, worlds, steps):
    d = mujoco.MjData(mm)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.zeros(mujoco.mj_stateSize(mm, spec))
    mujoco.mj_getState(mm, d, state, spec)
    init = np.tile(state, (worlds, 1))
    ctrl = np.zeros((worlds, steps, mm.nu))
    rollout.rollout(mm, d, init[:1], ctrl[:1, :1])  # warm up
    t = time.perf_counter()
    rollout.rollout(mm, d, init, ctrl)
    return worlds * steps / (time.perf_counter() - t)


def main(names=("ant", "humanoid"), repeats=2):
    path = os.path.join(ASSETS, "humanoid.xml")
    print(f"import of humanoid.xml (best of 5): {1e3 * import_time(path):.1f} ms")
    print("model     worlds  torpor world-steps/s  mujoco world-steps/s  torpor/mujoco")
    for name in names:
        path = os.path.join(ASSETS, f"{name}.xml")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = torpor.Model.load(path)
            mm = mujoco.MjModel.from_xml_path(path)
        for worlds, steps in STEPS.items():
            t_best = m_best = 0.0
            for _ in range(repeats):  # interleaved
                t_best = max(t_best, torpor_rate(model, worlds, steps))
                m_best = max(m_best, mujoco_rate(mm, worlds, steps))
            print(f"{name:9s} {worlds:6d}  {t_best:20.0f}  {m_best:20.0f}  {t_best / m_best:13.3f}")


if __name__ == "__main__":
    main(*([sys.argv[1:]] if len(sys.argv) > 1 else []))
