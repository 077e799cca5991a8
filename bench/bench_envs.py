"""bench_envs.py - env-steps/s of torpor's Gymnasium tasks next to Gymnasium's MuJoCo envs.

Part "locomotion": Ant and Humanoid (torpor.envs.locomotion, the v5 tasks on
Gymnasium's own MJCF models) at 1, 64, 1,024 and 4,096 worlds in one torpor
batch (CPU, `threads` threads), against Gymnasium's Ant-v5 and Humanoid-v5
(MuJoCo) in a SyncVectorEnv (one process) and an AsyncVectorEnv (one process
per environment, so run only at 1 and at `threads` environments: more
processes than cores would measure the scheduler, and 64 MuJoCo processes
would take gigabytes).
Uniform random actions from a fixed generator, autoreset on; env-steps/s =
worlds x vector steps / wall time of the vector steps (reset excluded); at
each world count the envs are stepped in alternating chunks, three rounds, so
the machine's load falls on all alike.

Part "clutter": the clutter task (torpor.envs.clutter) at `clutter_worlds`
worlds with sleep on and off, the scripted pusher (push_policy), the two
batches stepped in alternating chunks of 4 env-steps so the machine's load
falls on both alike; env-steps/s per chunk, the mean awake fraction and the
worlds that faulted (non-finite state; none since main's b1f7ddb).

    PYTHONPATH=python python3 bench/bench_envs.py [threads] [scale] [clutter_worlds]

scale multiplies the number of vector steps of each measurement (default 1;
0 skips the locomotion part); clutter_worlds 0 skips the clutter part.
The spawned Async workers import the package from PYTHONPATH.
"""
import sys
import time
import warnings

import numpy as np

import gymnasium
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

from torpor.envs import clutter, locomotion


def timed_steps(env, worlds, steps, rng):
    """Seconds for `steps` vector steps of uniform random actions (drawn before the clock starts)."""
    space = env.single_action_space
    actions = [rng.uniform(space.low, space.high, (worlds,) + space.shape).astype(np.float32) for _ in range(steps)]
    t0 = time.perf_counter()
    for a in actions:
        env.step(a)
    return time.perf_counter() - t0


def interleaved(envs, worlds, steps, rng, rounds=3):
    """env-steps/s of each env (dict), stepped in alternating chunks of `steps`
    vector steps, `rounds` times, after a reset and one step each."""
    for env in envs.values():
        env.reset(seed=0)
        timed_steps(env, worlds, 1, rng)
    total = {k: 0.0 for k in envs}
    for _ in range(rounds):
        for k, env in envs.items():
            total[k] += timed_steps(env, worlds, steps, rng)
    return {k: worlds * steps * rounds / t for k, t in total.items()}


def gym_make(task):
    def make():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return gymnasium.make(f"{task}-v5")
    return make


def locomotion_table(threads, scale):
    rng = np.random.default_rng(0)
    print(f"\nthreads {threads}; env-steps/s (worlds x vector steps / s), torpor and Gymnasium interleaved")
    print("| task | worlds | torpor | Gymnasium Sync | Gymnasium Async | torpor / Sync |")
    print("|---|---:|---:|---:|---:|---:|")
    for task in ("Ant", "Humanoid"):
        cls = getattr(locomotion, f"{task}VecEnv")
        for worlds in sorted({1, threads, 64, 1024, 4096}):
            steps = max(1, int(scale * 4096 / worlds / 16)) if worlds > 1 else max(1, int(scale * 60))
            envs = {"torpor": cls(worlds, threads=threads, seed=0), "sync": SyncVectorEnv([gym_make(task)] * worlds)}
            if worlds == threads or worlds == 1:  # a process per env: only where they fit the cores
                envs["async"] = AsyncVectorEnv([gym_make(task)] * worlds, context="spawn")
            r = interleaved(envs, worlds, steps, rng)
            for env in envs.values():
                env.close()
            asy = f"{r['async']:,.0f}" if "async" in r else "not run (a process per env)"
            print(f"| {task} | {worlds:,} | {r['torpor']:,.0f} | {r['sync']:,.0f} | {asy} | {r['torpor'] / r['sync']:.2f} |",
                  flush=True)


def clutter_table(threads, worlds, chunks=4):
    envs = {"on": clutter.ClutterVecEnv(worlds, sleep=True, threads=threads, seed=1),
            "off": clutter.ClutterVecEnv(worlds, sleep=False, threads=threads, seed=1)}
    obs = {k: e.reset(seed=1)[0] for k, e in envs.items()}
    faulted = {k: np.zeros(worlds, bool) for k in envs}
    awake = {k: [] for k in envs}
    print(f"\nclutter, {worlds:,} worlds, threads {threads}: env-steps/s per chunk of 4 env-steps (interleaved)")
    print("| chunk (env-steps) | sleep on | sleep off | on / off | awake fraction (on) |")
    print("|---|---:|---:|---:|---:|")
    totals = {k: 0.0 for k in envs}
    for c in range(chunks):
        rates = {}
        for k, env in envs.items():
            t = 0.0
            for _ in range(4):
                a = np.nan_to_num(clutter.push_policy(obs[k]))
                t0 = time.perf_counter()
                obs[k], _, _, _, info = env.step(a)
                t += time.perf_counter() - t0
                awake[k].append(info["awake_fraction"].mean())
                faulted[k] |= env.batch.state().faults != 0
            rates[k] = 4 * worlds / t
            totals[k] += t
        print(f"| {4 * c}-{4 * c + 3} | {rates['on']:,.0f} | {rates['off']:,.0f} | {rates['on'] / rates['off']:.1f} | "
              f"{np.mean(awake['on'][-4:]):.3f} |", flush=True)
    n = 4 * chunks * worlds
    print(f"| all | {n / totals['on']:,.0f} | {n / totals['off']:,.0f} | {totals['off'] / totals['on']:.1f} | "
          f"{np.mean(awake['on']):.3f} |")
    print(f"worlds that faulted: sleep on {faulted['on'].sum()}, sleep off {faulted['off'].sum()} of {worlds}")


def main(argv):
    threads = int(argv[1]) if len(argv) > 1 else 2
    scale = float(argv[2]) if len(argv) > 2 else 1.0
    clutter_worlds = int(argv[3]) if len(argv) > 3 else 1024
    if clutter_worlds > 0:
        clutter_table(threads, clutter_worlds)
    if scale > 0:
        locomotion_table(threads, scale)


if __name__ == "__main__":
    main(sys.argv)
