#!/usr/bin/env python3
"""torpor next to MuJoCo on the same robots, one core each.

For the cart-pole and the walker (scenes/*.json and their MJCF twins in
bench/mjcf/, same masses, inertias, joints, drives, gravity and dt) this steps
W worlds, W in 1, 64 and 4,096 (--worlds), in both engines:

- warm-up: every run first steps its W worlds --warmup steps (default 20)
  from the initial state, untimed: a world's first steps make its contacts
  and cost more than the steps after, in both engines;
- timed: then --world-steps / W steps (default 81,920 world-steps: 81,920
  steps of 1 world, 1,280 of 64, 20 of 4,096), so every world count does the
  same work and the figures compare across world counts;
- torpor: build/bench_robots (the C library, one thread, sleep off), on the
  scene as it is (its "substeps", printed) and on copies with each count of
  --substeps (default 1: MuJoCo takes one step per dt). Its integrator:
  semi-implicit Euler per substep, damping and PD drives implicit, contacts
  and limits as PGS rows (the scene's "iterations" sweeps per substep)
  (docs/articulations.md, "Method");
- MuJoCo: mujoco.rollout.rollout with ONE MjData (so one thread), the W
  states as a batch, in C; the Python loop over MjData copies is not used
  because its per-call overhead would be MuJoCo's handicap, not its speed.
  Its integrator and solver are the MJCF's (printed: implicitfast, one step
  per dt, the Newton solver at MuJoCo's default iterations and tolerance).

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
(the scene as it is) to every round, for before/after figures side by side;
the bytes per world are torpor's tp_batch_memory_bytes.

Before timing it checks that the two models agree: body masses (1e-6) and the
cart-pole's joint angles after 1 s (within 5 %: the integrators differ).

    pip install mujoco            # scripts/setup.sh installs it
    python3 bench/bench_mujoco.py [--build build] [--worlds 1,64,4096] [--rounds 3]
        [--world-steps 81920] [--warmup 20] [--substeps 1] [--compare DIR]
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


def scene_substeps(scene):
    """The scene's substeps per dt (torpor's default 4 where it names none)."""
    return int(json.loads((ROOT / scene).read_text()).get("substeps", 4))


def substep_copy(scene, substeps):
    """The scene with "substeps": k, in a temporary file."""
    doc = json.loads((ROOT / scene).read_text())
    doc["substeps"] = substeps
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(doc, f)
    f.close()
    return f.name


def torpor_run(build, scene, worlds, steps, warmup):
    """One run of bench_robots, `warmup` untimed steps then `steps` timed: (CPU seconds, bytes per world)."""
    out = subprocess.run([str(build / "bench_robots"), str(ROOT / scene), str(worlds), str(steps), str(warmup)],
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


def mujoco_settings(m):
    """What MuJoCo runs: integrator, solver, iterations, tolerance."""
    return (f"{mujoco.mjtIntegrator(m.opt.integrator).name[len('mjINT_'):].lower()}, one step per dt, "
            f"{mujoco.mjtSolver(m.opt.solver).name[len('mjSOL_'):].lower()} solver, "
            f"<= {m.opt.iterations} iterations, tolerance {m.opt.tolerance:g}")


def mujoco_run(m, worlds, steps, warmup):
    """One rollout of W worlds for `warmup` untimed steps, then S timed, on one MjData: CPU seconds."""
    d = mujoco.MjData(m)
    s0 = np.tile(mujoco_initial_state(m), (worlds, 1))
    if warmup:
        state, _ = rollout.rollout(m, d, s0, nstep=warmup)
        s0 = np.ascontiguousarray(state[:, -1])
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
    ap.add_argument("--world-steps", type=int, default=81920,
                    help="timed world-steps per run, at every world count (steps = this / worlds)")
    ap.add_argument("--warmup", type=int, default=20, help="untimed steps before the timed ones")
    ap.add_argument("--substeps", default="1", help="torpor also runs copies of each scene at these substeps")
    ap.add_argument("--compare", default=None, help="another build folder whose bench_robots runs alongside")
    a = ap.parse_args()
    build = (ROOT / a.build).resolve()
    other = (ROOT / a.compare).resolve() if a.compare else None
    worlds = [int(w) for w in a.worlds.split(",")]
    extra = [int(k) for k in a.substeps.split(",") if k]
    if a.world_steps < max(worlds) or a.warmup < 0 or any(k < 1 for k in extra):
        sys.exit(f"--world-steps {a.world_steps} must be >= the largest world count {max(worlds)}, "
                 f"--warmup {a.warmup} >= 0, --substeps {a.substeps} each >= 1")
    print(f"MuJoCo {mujoco.__version__}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(check_models(build))
    print(f"every run: {a.warmup} untimed warm-up steps, then {a.world_steps} world-steps timed "
          f"(steps = {a.world_steps} / worlds)")
    cases = []  # (model, worlds, steps, torpor runs [(label, build, scene)], MJCF, MuJoCo variants)
    copies, columns = [], {}
    for name, scene, mjcf, bodies, variants in MODELS:
        k0 = scene_substeps(scene)
        runs = [(f"torpor {k0} substep{'s' * (k0 != 1)}", build, scene)]
        for k in extra:
            if k != k0:
                copies.append(substep_copy(scene, k))
                runs.append((f"torpor {k} substep{'s' * (k != 1)}", build, copies[-1]))
        if other:
            runs.append(("compare", other, scene))
        columns[name] = [r[0] for r in runs]
        print(f"{name}: torpor {k0} substeps per dt (the scene's), iterations "
              f"{json.loads((ROOT / scene).read_text()).get('solver', {}).get('iterations', 8)} per substep; "
              f"MuJoCo {mujoco_settings(mujoco_model(mjcf, True))}")
        for w in worlds:
            cases.append((name, w, a.world_steps // w, runs, mjcf, variants))
    rates, memory = {}, {}
    for r in range(a.rounds):
        for name, w, steps, runs, mjcf, variants in cases:
            for label, b, sc in runs:
                cpu, mem = torpor_run(b, sc, w, steps, a.warmup)
                rates.setdefault((name, w, label), []).append(w * steps / cpu)
                memory[(name, w, label)] = mem
            for label, contacts in variants:
                cpu = mujoco_run(mujoco_model(mjcf, contacts), w, steps, a.warmup)
                rates.setdefault((name, w, "MuJoCo " + label), []).append(w * steps / cpu)
        print(f"round {r + 1} of {a.rounds} done; load average {os.getloadavg()[0]:.2f}", flush=True)
    for one in copies:
        os.unlink(one)
    print(f"per core (process CPU time); world-steps/s, median of {a.rounds} interleaved rounds "
          "[spread (max - min) / median]; torpor/MuJoCo per torpor column")
    for name, scene, mjcf, bodies, variants in MODELS:
        print(f"{name}: {bodies} moving bodies")
        cols = columns[name]
        for w in worlds:
            t = {c: median_spread(rates[(name, w, c)]) for c in cols}
            mem = memory[(name, w, cols[0])]
            line = f"  {w:6d} worlds, torpor {mem:,} B/world | " + " | ".join(
                f"{c} {t[c][0]:.4g} [{100 * t[c][1]:.0f} %]" for c in cols)
            for label, _ in variants:
                mv, ms = median_spread(rates[(name, w, "MuJoCo " + label)])
                line += f" | MuJoCo {label} {mv:.4g} [{100 * ms:.0f} %]: torpor/MuJoCo " + " / ".join(
                    f"{t[c][0] / mv:.2f}" for c in cols if c != "compare")
            print(line)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
