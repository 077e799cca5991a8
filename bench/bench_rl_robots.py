"""bench_rl_robots.py - the RL loop of a robot policy with the Python package.

Per env-step: observation read (joint_q, joint_qd views and the contact
sensors' touching flags, no copy), a NumPy policy (a fixed random linear map
with tanh), the ctrl write (set_ctrl, held through the decimation), step(4),
and a masked reset of the worlds that are done (each draws its joint noise and
robot parameters anew). Scenes: scenes/cartpole.json with a motor on the
slider (done when the pole passes 0.8 rad), scenes/walker.json with its PD
drives turned into position actuators (kp 200, kv 10, force range 120 N m),
its four foot balls contact sensors (done when the torso is below 0.25 m). Prints env-steps per second (worlds x env-steps / s) and
the share of the loop spent outside tp_batch_step.

    PYTHONPATH=python python3 bench/bench_rl_robots.py [threads] [env_steps_scale]
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

import torpor

ROOT = Path(__file__).resolve().parent.parent


def cartpole():
    s = json.loads((ROOT / "scenes" / "cartpole.json").read_text())
    s["actuators"] = [{"name": "push", "joint": "slider", "gear": 10, "ctrl_range": [-1, 1]}]
    s["randomize"] = {"joint_q_noise": 0.05, "joint_damping_scale": [0.5, 1.5], "actuator_gear_scale": [0.9, 1.1]}
    return torpor.Model.from_json(json.dumps(s), "cartpole-rl"), lambda q: np.abs(q[:, 1]) > 0.8


def walker():
    s = json.loads((ROOT / "scenes" / "walker.json").read_text())
    acts = []
    for j in s["joints"]:
        if j.get("drive") == "position":
            acts.append({"name": j["name"], "type": "position", "joint": j["name"], "kp": j.pop("kp"),
                         "kv": j.pop("kd"), "force_range": [-j["max_effort"], j.pop("max_effort")]})
            j.pop("drive")
            j.pop("target_q", None)
    s["actuators"] = acts
    for b in s["bodies"]:
        for shape in b.get("shapes", []):
            if b["name"].endswith("_shin") and shape["shape"] == "ball":
                shape["sensor"] = True  # the feet
    s["randomize"] = {"joint_q_noise": 0.05, "joint_damping_scale": [0.5, 1.5], "actuator_kp_scale": [0.8, 1.2]}
    return torpor.Model.from_json(json.dumps(s), "walker-rl"), lambda q: q[:, 2] < 0.25


def run(model, done_fn, worlds, env_steps, threads):
    batch = torpor.Batch(model, worlds, threads=threads)
    q, qd = batch.joint_q, batch.joint_qd
    touching = batch.contact_sensors()[1]
    rng = np.random.default_rng(0)
    n_obs = q.shape[1] + qd.shape[1] + touching.shape[1]
    policy = (0.1 * rng.standard_normal((n_obs, model.actuator_count))).astype(np.float32)
    batch.step(1)
    t_step = 0.0
    t0 = time.perf_counter()
    for _ in range(env_steps):
        obs = np.concatenate([q, qd, touching], axis=1, dtype=np.float32)
        batch.set_ctrl(np.tanh(obs @ policy))
        ts = time.perf_counter()
        batch.step(4)
        t_step += time.perf_counter() - ts
        done = done_fn(q)
        if done.any():
            batch.reset(worlds=done)
    total = time.perf_counter() - t0
    return worlds * env_steps / total, 1.0 - t_step / total


def main(argv):
    threads = int(argv[1]) if len(argv) > 1 else 1
    scale = float(argv[2]) if len(argv) > 2 else 1.0
    print(f"threads {threads}")
    print("| scene | worlds | env-steps | env-steps/s | outside tp_batch_step |")
    print("|---|---:|---:|---:|---:|")
    for name, make, base in (("cartpole", cartpole, 200), ("walker", walker, 40)):
        model, done_fn = make()
        for worlds in (64, 1024, 4096):
            n = max(3, int(base * scale * 64 / worlds))
            rate, outside = run(model, done_fn, worlds, n, threads)
            print(f"| {name} | {worlds} | {n} | {rate:,.0f} | {100 * outside:.1f} % |", flush=True)


if __name__ == "__main__":
    main(sys.argv)
