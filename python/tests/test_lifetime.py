"""A batch's life from Python: views that outlive close(), two threads on one
batch, fork() after a batch exists, and Ctrl-C during a long step call."""
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import torpor
from conftest import ROOT

G = 9.81
DT = 1.0 / 60.0

FALL = """{"name": "fall", "sleep": {"enabled": false}, "gravity": [0, 0, -9.81],
 "bodies": [{"shape": "box", "size": [0.2, 0.2, 0.2], "pos": [0, 0, 100], "mass": 1}]}"""


@pytest.fixture(scope="module")
def fall() -> torpor.Model:
    """One cube in free fall: after k steps its height follows the integrator
    in closed form (semi-implicit Euler: z_k = z_0 - g dt^2 k (k + 1) / 2)."""
    return torpor.Model.from_json(FALL, "fall")


def fallen_z(steps: int, substeps: int = 4) -> float:
    """Height of the cube after `steps` steps of `substeps` semi-implicit Euler substeps."""
    h = DT / substeps
    n = steps * substeps
    return 100.0 - G * h * h * n * (n + 1) / 2.0


# ---------------------------------------------------------------- views after close


def test_state_views_outlive_close_and_show_the_last_state(fall):
    with torpor.Batch(fall, worlds=4) as b:
        b.step(30)
        s = b.state()
        q = b.joint_q  # (4, 0): a model without joints still gives a view
    z = np.array(s.pos)[:, 0, 2]  # after close: the memory is still the batch's
    assert np.allclose(z, fallen_z(30), atol=1e-3), z
    assert q.shape == (4, 0)
    with pytest.raises(torpor.InvalidArgumentError, match="closed"):
        b.state()
    b2 = torpor.Batch(fall, worlds=4)
    s2 = b2.state()
    b2.close()
    b3 = torpor.Batch(fall, worlds=4)  # may reuse freed memory: it must not be s2's
    b3.step(60)
    assert np.allclose(s2.pos[:, 0, 2], 100.0), "a closed batch's view changed"
    b3.close()


def test_joint_views_outlive_close():
    m = torpor.Model.load(ROOT / "scenes" / "cartpole.json")
    b = torpor.Batch(m, worlds=2)
    q = b.joint_q
    b.close()
    assert np.all(np.array(q) == np.float32([0.0, 0.05]))  # the scene's q0


def test_vec_env_reset_with_seed_keeps_old_views_valid():
    envs = pytest.importorskip("torpor.envs")
    env = envs.ToppleVecEnv(num_envs=3, levels=4)
    env.reset(seed=1)
    old = env.batch.state()
    env.reset(seed=2)  # closes the old batch under the view
    pos = np.array(old.pos)  # a whole copy (memcpy, which ASan checks) of the old batch's memory
    assert np.allclose(pos[:, 1:, 2], [0.5, 1.5, 2.5, 3.5], atol=0.01)
    env.close()


# ---------------------------------------------------------------- threads


def test_two_threads_stepping_one_batch_take_turns(rand_model):
    """Two threads stepping one batch (threads=2 inside) give the same state
    as one thread taking all the steps: the batch's lock serializes them."""
    ref = torpor.Batch(rand_model, worlds=8, threads=2)
    ref.step(2 * 40)
    b = torpor.Batch(rand_model, worlds=8, threads=2)
    errors = []

    def run():
        try:
            for _ in range(40):
                b.step(1)
                b.state_hash()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=run) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    assert b.step_count == 80
    assert not b.state().faults.any()
    assert b.state_hash() == ref.state_hash()


def test_close_while_another_thread_steps(fall):
    b = torpor.Batch(fall, worlds=64, threads=2)
    s = b.state()
    stop = threading.Event()
    failures = []

    def run():
        while not stop.is_set():
            try:
                b.step(5)
            except torpor.InvalidArgumentError:
                return  # closed: the next call says so
            except Exception as e:  # pragma: no cover
                failures.append(e)
                return

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.05)
    b.close()
    stop.set()
    t.join()
    assert not failures, failures
    assert np.isfinite(s.pos).all() and (s.pos[:, 0, 2] < 100.0).all()


# ---------------------------------------------------------------- fork


def _child_steps(conn):
    """In a forked child: step the batch the parent made (global), report its height."""
    b = _FORKED["batch"]
    b.step(30)
    conn.send(float(b.state().pos[0, 0, 2]))
    conn.close()


_FORKED = {}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork()")
def test_fork_after_a_batch_exists(fall):
    """A child forked after the parent stepped a batch with 2 threads steps it
    (on one thread) to the same result as the parent."""
    b = torpor.Batch(fall, worlds=8, threads=2)
    b.step(10)
    _FORKED["batch"] = b
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_child_steps, args=(child,))
    p.start()
    assert parent.poll(30), "the forked child's step hung"
    z_child = parent.recv()
    p.join(10)
    assert p.exitcode == 0
    b.step(30)
    assert z_child == float(b.state().pos[0, 0, 2])
    assert abs(z_child - fallen_z(40)) < 1e-3
    _FORKED.clear()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork()")
def test_async_vector_env_with_fork():
    """Gymnasium's AsyncVectorEnv forks workers after the parent made and
    stepped a torpor env with 2 threads; each worker's env steps."""
    gym = pytest.importorskip("gymnasium")
    envs = pytest.importorskip("torpor.envs")
    warm = envs.ToppleVecEnv(num_envs=4, levels=4, threads=2)  # a pool in the parent before the fork
    warm.reset(seed=0)
    warm.step(np.zeros(4, np.int64))
    vec = gym.vector.AsyncVectorEnv([lambda: envs.ToppleEnv(levels=4, threads=2) for _ in range(2)],
                                    context="fork")
    try:
        obs, _ = vec.reset(seed=3)
        for _ in range(3):
            obs, reward, term, trunc, _ = vec.step(np.array([1, 0]))
        assert obs.shape == (2, 12) and np.isfinite(obs).all()
        assert reward[0] <= -1.0 or term[0]  # env 0 pushed every step
    finally:
        vec.close()
        warm.close()


# ---------------------------------------------------------------- interrupts


# The script restores Python's Ctrl-C handler: a shell that starts a job in the background
# (`cmd &` without job control) starts it with SIGINT ignored, and the child inherits that.
INTERRUPT_SCRIPT = r"""
import signal, sys, time, torpor
signal.signal(signal.SIGINT, signal.default_int_handler)
m = torpor.Model.load(sys.argv[1])
b = torpor.Batch(m, worlds=64)
print("ready", flush=True)
t0 = time.perf_counter()
try:
    b.step(10**7)
except KeyboardInterrupt:
    print(f"interrupted {time.perf_counter() - t0:.3f} {b.step_count}", flush=True)
    b.step(1)  # still usable
    sys.exit(7)
"""


def test_ctrl_c_stops_a_long_step_call(tmp_path):
    script = tmp_path / "interrupt.py"
    script.write_text(INTERRUPT_SCRIPT)
    p = subprocess.Popen([sys.executable, str(script), str(ROOT / "scenes" / "tower.json")],
                         stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    sent = time.perf_counter()
    p.send_signal(signal.SIGINT)
    try:
        out, _ = p.communicate(timeout=30)
    finally:
        p.kill()
    waited = time.perf_counter() - sent
    assert p.returncode == 7, out
    steps = int(out.split()[2])
    assert 0 < steps < 10**7
    assert waited < 2.0, f"{waited:.2f} s from SIGINT to exit"


# README: 128 + the signal number (130 after Ctrl-C, 143 after SIGTERM, as a shell reports a
# process killed by it), the outputs written with "interrupted": true
@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_cli_run_stops_on_a_signal_and_writes_a_partial_summary(tmp_path, sig, status):
    cli = os.environ.get("TORPOR_CLI", str(ROOT / "build" / "torpor"))
    if not os.path.exists(cli):
        pytest.skip(f"{cli} not built")
    out_dir = tmp_path / "out"
    p = subprocess.Popen([cli, "run", str(ROOT / "scenes" / "tower.json"), "--worlds", "256", "--steps", "100000000",
                          "--out", str(out_dir), "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while not (out_dir / "awake.csv").exists() and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    sent = time.perf_counter()
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=30)
    finally:
        p.kill()
    assert time.perf_counter() - sent < 5.0
    assert p.returncode == status, err
    import json
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["interrupted"] is True
    assert 0 < summary["steps"] < summary["steps_requested"] == 100000000
    assert "interrupted after" in err
