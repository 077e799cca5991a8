#!/usr/bin/env python3
"""torpor next to MuJoCo on the same robots, one core each.

For the cart-pole and the walker (scenes/*.json and their MJCF twins in
bench/mjcf/, same masses, inertias, joints, drives, gravity and dt) this steps
W worlds from the initial state for S steps, W in 1, 64 and 4,096:

- torpor: build/bench_robots (the C library, one thread, sleep off), on the
  scene as it is (4 substeps per dt) and on a copy with 1 substep (MuJoCo
  takes one step per dt; the substeps are torpor's price for its stiff drives
  and contacts at dt 1/60);
- MuJoCo: mujoco.rollout.rollout with ONE MjData (so one thread), the W
  initial states as a batch, in C; the Python loop over MjData copies is not
  used because its per-call overhead would be MuJoCo's handicap, not its speed.

Times are process CPU seconds (per core; on a shared machine other processes
count less than in wall time), best of `--repeat` runs. Body-steps count the
moving bodies (links and free bodies): 2 for the cart-pole, 9 for the walker.
The walker runs in MuJoCo twice: with contacts (it stands on the ground, as
it does in torpor with its link contacts) and with contacts disabled.

Before timing it checks that the two models agree: body masses (1e-6) and the
cart-pole's joint angles after 1 s (within 5 %: the integrators differ, torpor
takes 4 substeps per dt, MuJoCo one implicitfast step).

    pip install mujoco            # once; not part of scripts/setup.sh
    python3 bench/bench_mujoco.py [--build build] [--worlds 1,64,4096] [--repeat 3]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

try:
    import mujoco
    from mujoco import rollout
except ImportError:  # pragma: no cover
    sys.exit("bench_mujoco.py needs MuJoCo: pip install mujoco")

ROOT = Path(__file__).resolve().parent.parent
MODELS = [  # name, torpor scene, MJCF, moving bodies, MuJoCo variants (label, contacts on)
    ("cartpole", "scenes/cartpole.json", "bench/mjcf/cartpole.xml", 2, [("no contacts", True)]),
    ("walker", "scenes/walker.json", "bench/mjcf/walker.xml", 9,
     [("contacts (stands)", True), ("contacts off", False)]),
]


def steps_for(worlds):
    """Steps per run: enough work to time, little enough to finish in seconds."""
    return {1: 600, 64: 120}.get(worlds, 30)


def one_substep_copy(scene):
    """The scene with "substeps": 1 (MuJoCo's one step per dt), in a temporary file."""
    doc = json.loads((ROOT / scene).read_text())
    doc["substeps"] = 1
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(doc, f)
    f.close()
    return f.name


def torpor_run(build, scene, worlds, steps, repeat):
    best = None
    for _ in range(repeat):
        out = subprocess.run([str(build / "bench_robots"), str(ROOT / scene), str(worlds), str(steps)],
                             capture_output=True, text=True, check=True).stdout
        kv = dict(re.findall(r"(\w+)=(\S+)", out))
        if int(kv["faults"]):
            sys.exit(f"torpor faulted on {scene}: {out}")
        cpu = float(kv["cpu_s"])
        best = cpu if best is None else min(best, cpu)
    return best


def mujoco_model(mjcf, contacts):
    m = mujoco.MjModel.from_xml_path(str(ROOT / mjcf))
    if not contacts:
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    return m


def mujoco_initial_state(m):
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    s = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, s, spec)
    return s


def mujoco_run(m, worlds, steps, repeat):
    d = mujoco.MjData(m)
    s0 = np.tile(mujoco_initial_state(m), (worlds, 1))
    best = None
    for _ in range(repeat):
        c0 = time.process_time()
        state, _ = rollout.rollout(m, d, s0, nstep=steps)
        cpu = time.process_time() - c0
        if not np.all(np.isfinite(state[:, -1])):
            sys.exit("MuJoCo state not finite")
        best = cpu if best is None else min(best, cpu)
    return best, state


def check_models(build):
    """Same masses; the cart-pole's trajectory close to torpor's over 1 s."""
    sys.path.insert(0, str(ROOT / "python"))
    import torpor
    from torpor._ffi import ffi, lib
    for name, scene, mjcf, _, _ in MODELS:
        tm = torpor.Model.from_json((ROOT / scene).read_text())
        mm = mujoco_model(mjcf, True)
        for b in range(1, mm.nbody):
            bname = mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_BODY, b)
            i = tm.find_body(bname)
            mass = ffi.new("float *")
            lib.tp_model_body_mass(tm._ptr, i, mass, ffi.NULL)
            if abs(mass[0] - mm.body_mass[b]) > 1e-6 * mm.body_mass[b]:
                sys.exit(f"{name}: body {bname} mass {mass[0]} (torpor) vs {mm.body_mass[b]} (MuJoCo)")
    tm = torpor.Model.from_json((ROOT / "scenes/cartpole.json").read_text())
    tb = torpor.Batch(tm, worlds=1)
    tb.step(60)
    jv = ffi.new("tp_joint_view *")
    lib.tp_batch_joints(tb._ptr, jv)
    mm = mujoco_model("bench/mjcf/cartpole.xml", True)
    d = mujoco.MjData(mm)
    mujoco.mj_resetDataKeyframe(mm, d, 0)
    for _ in range(60):
        mujoco.mj_step(mm, d)
    tq = np.array([jv.q[0], jv.q[1]])
    if np.any(np.abs(tq - d.qpos) > 0.05 * np.abs(d.qpos) + 1e-3):
        sys.exit(f"cart-pole after 1 s: torpor q {tq}, MuJoCo q {d.qpos}: the models differ")
    return f"cart-pole after 1 s: torpor q = ({tq[0]:.4f}, {tq[1]:.4f}), MuJoCo q = ({d.qpos[0]:.4f}, {d.qpos[1]:.4f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="CMake build folder with bench_robots")
    ap.add_argument("--worlds", default="1,64,4096")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    build = (ROOT / a.build).resolve()
    worlds = [int(w) for w in a.worlds.split(",")]
    print(f"MuJoCo {mujoco.__version__}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(check_models(build))
    print("per core (process CPU time, best of %d); ws/s = world-steps/s, bs/s = body-steps/s" % a.repeat)
    print("torpor: the scene as it is (4 substeps per dt), and the same with 1 substep (MuJoCo's one step)")
    print(f"{'model':9} {'worlds':>6} {'steps':>5} | {'torpor ws/s':>11} {'bs/s':>9} {'1 substep':>10} | "
          f"{'MuJoCo variant':25} {'ws/s':>10} {'bs/s':>9} | torpor/MuJoCo (1 substep)")
    for name, scene, mjcf, bodies, variants in MODELS:
        one = one_substep_copy(scene)
        for w in worlds:
            steps = steps_for(w)
            tws = w * steps / torpor_run(build, scene, w, steps, a.repeat)
            tws1 = w * steps / torpor_run(build, one, w, steps, a.repeat)
            for label, contacts in variants:
                m = mujoco_model(mjcf, contacts)
                mcpu, state = mujoco_run(m, w, steps, a.repeat)
                mws = w * steps / mcpu
                print(f"{name:9} {w:6d} {steps:5d} | {tws:11.4g} {tws * bodies:9.3g} {tws1:10.4g} | {label:25} "
                      f"{mws:10.4g} {mws * bodies:9.3g} | {tws / mws:.2f} ({tws1 / mws:.2f})")
        os.unlink(one)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
