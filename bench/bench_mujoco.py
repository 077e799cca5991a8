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
count less than in wall time). The runs are interleaved: each of `--rounds`
rounds (default 3) runs every case once, torpor and MuJoCo one after the
other on the same model and world count, so a change in the machine's load
hits both; the table gives each case's median world-steps/s and its spread
((max - min) / median over the rounds), and the ratios are of medians.
Body-steps count the moving bodies (links and free bodies): 2 for the
cart-pole, 9 for the walker. The walker runs in MuJoCo twice: with contacts
(it stands on the ground, as it does in torpor with its link contacts) and
with contacts disabled. `--compare DIR` adds another build's bench_robots
(4 substeps) to every round, for before/after figures side by side; the
bytes per world are torpor's tp_batch_memory_bytes.

Before timing it checks that the two models agree: body masses (1e-6) and the
cart-pole's joint angles after 1 s (within 5 %: the integrators differ, torpor
takes 4 substeps per dt, MuJoCo one implicitfast step).

    pip install mujoco            # scripts/setup.sh installs it
    python3 bench/bench_mujoco.py [--build build] [--worlds 1,64,4096] [--rounds 3] [--compare DIR]
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


def torpor_run(build, scene, worlds, steps):
    """One run of bench_robots: (CPU seconds, bytes per world)."""
    out = subprocess.run([str(build / "bench_robots"), str(ROOT / scene), str(worlds), str(steps)],
                         capture_output=True, text=True, check=True).stdout
    kv = dict(re.findall(r"(\w+)=(\S+)", out))
    if int(kv["faults"]):
        sys.exit(f"torpor faulted on {scene}: {out}")
    return float(kv["cpu_s"]), int(kv.get("bytes_per_world", 0))


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


def mujoco_run(m, worlds, steps):
    """One rollout of W worlds for S steps on one MjData: CPU seconds."""
    d = mujoco.MjData(m)
    s0 = np.tile(mujoco_initial_state(m), (worlds, 1))
    c0 = time.process_time()
    state, _ = rollout.rollout(m, d, s0, nstep=steps)
    cpu = time.process_time() - c0
    if not np.all(np.isfinite(state[:, -1])):
        sys.exit("MuJoCo state not finite")
    return cpu


def median_spread(xs):
    """Median and (max - min) / median of a list of rates."""
    med = float(np.median(xs))
    return med, (max(xs) - min(xs)) / med


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
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compare", default=None, help="another build folder whose bench_robots runs alongside")
    a = ap.parse_args()
    build = (ROOT / a.build).resolve()
    other = (ROOT / a.compare).resolve() if a.compare else None
    worlds = [int(w) for w in a.worlds.split(",")]
    print(f"MuJoCo {mujoco.__version__}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(check_models(build))
    cases = []  # (model, worlds, steps, bodies, scene, one-substep scene, MuJoCo variants)
    copies = []
    for name, scene, mjcf, bodies, variants in MODELS:
        one = one_substep_copy(scene)
        copies.append(one)
        for w in worlds:
            cases.append((name, w, steps_for(w), bodies, scene, one, mjcf, variants))
    rates, memory = {}, {}
    for r in range(a.rounds):
        for name, w, steps, bodies, scene, one, mjcf, variants in cases:
            runs = [("torpor", build, scene), ("torpor 1 substep", build, one)]
            if other:
                runs.append(("compare", other, scene))
            for label, b, sc in runs:
                cpu, mem = torpor_run(b, sc, w, steps)
                rates.setdefault((name, w, label), []).append(w * steps / cpu)
                memory[(name, w, label)] = mem
            for label, contacts in variants:
                cpu = mujoco_run(mujoco_model(mjcf, contacts), w, steps)
                rates.setdefault((name, w, "MuJoCo " + label), []).append(w * steps / cpu)
        print(f"round {r + 1} of {a.rounds} done; load average {os.getloadavg()[0]:.2f}", flush=True)
    for one in copies:
        os.unlink(one)
    print(f"per core (process CPU time); world-steps/s, median of {a.rounds} interleaved rounds "
          "[spread (max - min) / median]; torpor at 4 substeps per dt (the scenes' default) and at 1")
    for name, scene, mjcf, bodies, variants in MODELS:
        print(f"{name}: {bodies} moving bodies")
        cols = ["torpor", "torpor 1 substep"] + (["compare"] if other else [])
        for w in worlds:
            t = {c: median_spread(rates[(name, w, c)]) for c in cols}
            mem = memory[(name, w, "torpor")]
            line = f"  {w:6d} worlds, torpor {mem:,} B/world | " + " | ".join(
                f"{c} {t[c][0]:.4g} [{100 * t[c][1]:.0f} %]" for c in cols)
            for label, _ in variants:
                mv, ms = median_spread(rates[(name, w, "MuJoCo " + label)])
                line += (f" | MuJoCo {label} {mv:.4g} [{100 * ms:.0f} %]: torpor/MuJoCo {t['torpor'][0] / mv:.2f}"
                         f" (1 substep {t['torpor 1 substep'][0] / mv:.2f})")
            print(line)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
