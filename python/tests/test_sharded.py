"""Shards of a run (Batch(first_world=...)) on their own and under mpi4py and
torchrun: gathered, they are one big batch bit for bit (docs/scale-out.md)."""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import torpor

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "python" / "examples" / "sharded.py"


def test_shards_in_one_process_equal_one_batch(tower):
    whole = torpor.Batch(tower, 10, threads=1)
    shards = [torpor.Batch(tower, n, first_world=f, total_worlds=10, threads=1) for f, n in ((0, 4), (4, 3), (7, 3))]
    for b in [whole] + shards:
        b.step(120)
    pos = np.concatenate([s.state().pos for s in shards])
    assert np.array_equal(pos, whole.state().pos)
    assert [s.first_world for s in shards] == [0, 4, 7]
    # without first_world, the second shard would draw as worlds 0..2: different worlds
    plain = torpor.Batch(tower, 3, threads=1)
    plain.step(120)
    assert not np.array_equal(plain.state().pos, shards[1].state().pos)


def test_bad_first_world_is_named(tower):
    with pytest.raises(torpor.InvalidArgumentError, match="first_world: must be >= 0, got -3"):
        torpor.Batch(tower, 2, first_world=-3)


def _env():
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    return env


def test_mpi4py_example_gathers_one_batch():
    """mpirun -n 3 of the example: rank 0's gathered awake counts, hashes and positions equal one batch's."""
    assert importlib.util.find_spec("mpi4py"), "python3-mpi4py is installed by scripts/setup.sh"
    mpirun = shutil.which("mpirun")
    assert mpirun, "mpirun (openmpi-bin) is installed by scripts/setup.sh"
    env = _env()
    cmd = [mpirun, "-n", "3", "--oversubscribe"] + [x for k in ("TORPOR_LIBRARY", "TORPOR_HEADER", "PYTHONPATH")
                                                      if k in env for x in ("-x", k)]
    r = subprocess.run(cmd + [sys.executable, str(EXAMPLE), "--comm", "mpi", "--worlds", "13", "--steps", "200"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gathered awake counts == one batch: True; world hashes: True; positions (bitwise): True" in r.stdout


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="torch is not installed: scripts/test-deps.sh installs it (scripts/test.sh runs it first)")
def test_torchrun_example_gathers_one_batch():
    """torchrun --nproc-per-node 2 of the example (gloo on the CPU)."""
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", str(EXAMPLE),
                        "--comm", "torch", "--worlds", "9", "--steps", "200"],
                       env=_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "positions (bitwise): True" in r.stdout
