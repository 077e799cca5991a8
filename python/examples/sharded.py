"""One batch per process, worlds split in contiguous blocks, gathered on rank 0
and checked against one big batch: data-parallel stepping as an RL learner or
a benchmark sweep runs it (docs/scale-out.md).

    mpirun -n 2 python3 python/examples/sharded.py --comm mpi      (mpi4py)
    torchrun --nproc-per-node 2 python/examples/sharded.py --comm torch   (torch.distributed, gloo)

(from the repository root, with PYTHONPATH=python). Each rank makes a
torpor.Batch of its worlds with first_world=, so it draws and steps exactly
as those worlds of one batch of all of them; rank 0 gathers the awake counts
(every 20 steps), the world hashes and the final positions, steps one batch
of all the worlds itself, and prints whether they are equal. Exit status 1
when they are not.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

import torpor

ROOT = Path(__file__).resolve().parents[2]


class MpiComm:
    """Rank, size and a gather to rank 0 over mpi4py."""

    def __init__(self):
        from mpi4py import MPI
        self.c = MPI.COMM_WORLD
        self.rank, self.size = self.c.Get_rank(), self.c.Get_size()

    def gather(self, a: np.ndarray):
        return self.c.gather(a, root=0)

    def close(self):
        """mpi4py finalizes MPI at exit."""


class TorchComm:
    """Rank, size and a gather to rank 0 over torch.distributed (gloo on the CPU;
    NCCL would hold GPU tensors)."""

    def __init__(self):
        import torch
        import torch.distributed as dist
        dist.init_process_group("gloo")
        self.torch, self.dist = torch, dist
        self.rank, self.size = dist.get_rank(), dist.get_world_size()

    def gather(self, a: np.ndarray):
        # gather_object: the blocks may differ in length by one world
        out = [None] * self.size if self.rank == 0 else None
        self.dist.gather_object(a, out, dst=0)
        return out

    def close(self):
        """Every rank waits for the others, then the process group is destroyed
        (a rank that exits with it alive can abort in gloo's threads at exit)."""
        self.dist.barrier()
        self.dist.destroy_process_group()


def split(total: int, size: int, rank: int):
    """Rank's contiguous block of total worlds: the first total % size ranks get one more."""
    base, extra = divmod(total, size)
    first = rank * base + min(rank, extra)
    return first, base + (rank < extra)


def run(batch: torpor.Batch, steps: int, every: int):
    """Step; the awake counts every `every` steps, then world hashes and positions."""
    awake = []
    for s in range(0, steps, every):
        batch.step(every)
        awake.append(batch.state().awake_count.copy())
    hashes = np.array([batch.world_hash(w) for w in range(batch.worlds)], dtype=np.uint64)
    return np.stack(awake, axis=1), hashes, batch.state().pos.copy()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--comm", choices=["mpi", "torch"], required=True)
    p.add_argument("--scene", default=str(ROOT / "scenes" / "tower.json"))
    p.add_argument("--worlds", type=int, default=24)
    p.add_argument("--steps", type=int, default=300)
    a = p.parse_args()
    comm = MpiComm() if a.comm == "mpi" else TorchComm()
    try:
        return compare(comm, a)
    finally:
        comm.close()


def compare(comm, a) -> int:
    """Each rank steps its shard; rank 0 gathers them and compares with one batch."""
    model = torpor.Model.load(a.scene)
    first, n = split(a.worlds, comm.size, comm.rank)
    shard = torpor.Batch(model, n, first_world=first, total_worlds=a.worlds, threads=1)
    awake, hashes, pos = run(shard, a.steps, 20)
    parts = [comm.gather(x) for x in (awake, hashes, pos)]
    if comm.rank != 0:
        return 0
    gathered = [np.concatenate(x) for x in parts]
    whole = run(torpor.Batch(model, a.worlds, threads=1), a.steps, 20)
    same = [np.array_equal(g, w) for g, w in zip(gathered, whole)]
    asleep = int((gathered[0][:, -1] == 0).sum())
    print(f"{comm.size} ranks x ~{n} worlds of {Path(a.scene).name}, {a.steps} steps: "
          f"{asleep} of {a.worlds} worlds asleep at the end")
    print(f"gathered awake counts == one batch: {same[0]}; world hashes: {same[1]}; positions (bitwise): {same[2]}")
    return 0 if all(same) else 1


if __name__ == "__main__":
    sys.exit(main())
