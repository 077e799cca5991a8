"""bench_rl.py - bench/bench_rl.c's RL loop written with the Python package.

Each loop step, as in bench_rl.c: a 5 N force along +x on the top cube of every
`act_every`-th world (one batched call from a NumPy array), one step, a read of
the whole state (NumPy views, no copy on the CPU), and a reset of `resets`
worlds (an index array). Prints world-steps per second and the time of each
part, to compare with `build/bench_rl` run with the same arguments.

    PYTHONPATH=python python3 bench/bench_rl.py [scene] [worlds] [steps] [cpu|cuda] [act_every] [resets]
    defaults: scenes/tower.json 1024 120 cpu 4 8
"""
import sys
import time

import numpy as np

import torpor


def main(argv):
    scene = argv[1] if len(argv) > 1 else "scenes/tower.json"
    worlds, steps = (int(argv[2]) if len(argv) > 2 else 1024), (int(argv[3]) if len(argv) > 3 else 120)
    backend = argv[4] if len(argv) > 4 else "cpu"
    act_every, resets = (int(argv[5]) if len(argv) > 5 else 4), (int(argv[6]) if len(argv) > 6 else 8)
    resets = min(resets, worlds)
    model = torpor.Model.load(scene)
    body = int(np.flatnonzero(model.body_types() == 0)[-1])  # the last dynamic body: the top of a tower
    batch = torpor.Batch(model, worlds, backend=backend)
    batch.step(1)  # as bench_rl.c: the CUDA graph is captured at the first step
    forces = np.zeros(((worlds + act_every - 1) // act_every, batch.bodies, 3), np.float32)
    forces[:, body, 0] = 5.0
    phase = np.zeros(4)  # act, step, read, reset
    awake = 0
    start = time.perf_counter()
    for k in range(steps):
        t0 = time.perf_counter()
        acting = np.arange(k % act_every, worlds, act_every, dtype=np.int32)
        batch.apply_forces(forces[: acting.size], worlds=acting)
        t1 = time.perf_counter()
        batch.step(1)
        t2 = time.perf_counter()
        s = batch.state()
        awake += int(s.awake_count[k % worlds])
        t3 = time.perf_counter()
        batch.reset((k * resets + np.arange(resets)) % worlds)
        t4 = time.perf_counter()
        phase += (t1 - t0, t2 - t1, t3 - t2, t4 - t3)
    total = time.perf_counter() - start
    print(f"scene {scene}, {worlds} worlds, {steps} steps, backend {backend}, force on every {act_every}-th world, "
          f"{resets} resets per step (Python)")
    print(f"RL loop: {worlds * steps / total:.0f} world-steps/s ({total:.3f} s)")
    for name, t in zip(("act (apply_forces)", "Batch.step", "read (Batch.state)", "reset"), phase):
        print(f"  {name:22s} {1e3 * t / steps:8.3f} ms per loop step ({100 * t / total:5.1f} %)")
    print(f"mean awake bodies in a sampled world: {awake / steps:.2f}")


if __name__ == "__main__":
    main(sys.argv)
