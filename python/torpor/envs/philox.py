"""Philox4x32-10 in whole-array NumPy: the episode draws of the environments.

Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3"
(SC 2011), the generator cuRAND implements and the C library draws its own
randomization from (DESIGN.md section 5). A draw depends only on the key (the
environment's seed) and the counter (world, episode, stream, index), so world w
gets the same numbers at any world count, in any order, on any machine.
"""
from __future__ import annotations

import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_LO = np.uint64(0xFFFFFFFF)


def philox4x32(counter: np.ndarray, key: tuple[int, int]) -> np.ndarray:
    """The 10-round Philox4x32 of each counter: (..., 4) uint32 in, (..., 4) uint32 out."""
    c = [counter[..., i].astype(np.uint64) for i in range(4)]
    k0, k1 = key[0] & 0xFFFFFFFF, key[1] & 0xFFFFFFFF
    for r in range(10):
        p0, p1 = _M0 * c[0], _M1 * c[2]
        hi0, lo0, hi1, lo1 = p0 >> np.uint64(32), p0 & _LO, p1 >> np.uint64(32), p1 & _LO
        c = [hi1 ^ c[1] ^ np.uint64(k0), lo1, hi0 ^ c[3] ^ np.uint64(k1), lo0]
        k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
    return np.stack(c, axis=-1).astype(np.uint32)


def _unit(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """53-bit float64 in [0, 1) from two uint32 words."""
    return ((a >> np.uint32(5)).astype(np.float64) * 67108864.0 + (b >> np.uint32(6))) / 9007199254740992.0


def draw(seed: int, worlds: np.ndarray, episodes: np.ndarray, stream: int, n: int,
         normal: bool = False) -> np.ndarray:
    """(len(worlds), n) float64 numbers for the given global world indices and
    their episodes (both (R,) integer arrays): uniform in [-1, 1), or standard
    normal (Box-Muller) if ``normal``. Counter = (world, episode, stream, index)."""
    R = len(worlds)
    ctr = np.empty((R, n, 4), np.uint32)
    ctr[..., 0] = np.asarray(worlds, np.uint32)[:, None]
    ctr[..., 1] = np.asarray(episodes, np.uint32)[:, None]
    ctr[..., 2] = stream
    ctr[..., 3] = np.arange(n, dtype=np.uint32)[None, :]
    x = philox4x32(ctr, (seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF))
    u = _unit(x[..., 0], x[..., 1])
    if not normal:
        return 2.0 * u - 1.0
    v = _unit(x[..., 2], x[..., 3])
    return np.sqrt(-2.0 * np.log1p(-u)) * np.cos(2.0 * np.pi * v)  # 1 - u in (0, 1]
