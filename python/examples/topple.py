"""Topple the tower with as few pushes as possible: a random and a scripted
policy on ToppleVecEnv (torpor.envs), 32 towers stepped together.

    PYTHONPATH=python python3 python/examples/topple.py      (from the repository root)

Prints, for each policy, the episodes that ended with a toppled tower and the
mean pushes they took. Runs in well under a minute on one CPU core.
"""
import time

import numpy as np

from torpor.envs import ToppleVecEnv


def run(policy, env, steps, rng):
    env.reset(seed=7)
    pushes = np.zeros(env.num_envs)
    toppled_pushes, ended = [], np.zeros(env.num_envs, dtype=bool)
    for t in range(steps):
        actions = np.where(ended, 0, policy(t, rng, env))  # an ended env is being reset: action ignored
        _, reward, terminated, truncated, _ = env.step(actions)
        pushes += np.where(ended, 0, actions > 0)
        toppled_pushes += list(pushes[terminated])
        ended = terminated | truncated
        pushes[ended] = 0
    return toppled_pushes


def random_policy(t, rng, env):
    """Push a random cube with probability 0.3, else wait."""
    return np.where(rng.random(env.num_envs) < 0.3, rng.integers(1, env.levels + 1, env.num_envs), 0)


def scripted_policy(t, rng, env):
    """Push the 7th cube from the bottom every third step."""
    return np.full(env.num_envs, 7 if t % 3 == 0 else 0)


if __name__ == "__main__":
    env = ToppleVecEnv(32, max_steps=30)
    rng = np.random.default_rng(0)
    for name, policy in (("random", random_policy), ("scripted", scripted_policy)):
        start = time.perf_counter()
        done = run(policy, env, 45, rng)
        print(f"{name:8s}: {len(done)} towers toppled, {np.mean(done) if done else float('nan'):.1f} pushes each "
              f"({time.perf_counter() - start:.1f} s)")
    env.close()
