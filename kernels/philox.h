/* philox.h - Philox4x32-10 counter-based random numbers, bit-exact with cuRAND.
 *
 * Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3"
 * (SC 2011). Ten rounds of a multiply-xor network on a 128-bit counter under a
 * 64-bit key. Being counter-based, draw number k of stream s of body b in world w
 * is a pure function of (seed, w, b, s, k): world w gets the same numbers
 * whatever the number of worlds, and any thread can compute any draw.
 *
 * torpor's counter layout is {stream, episode, body, world} under key {seed lo,
 * seed hi}. That is exactly what cuRAND's Philox device API produces after
 * curand_init(seed, subsequence = (world << 32) | body,
 *             offset = 4 * stream + (episode << 34)):
 * the subsequence fills counter words 2 and 3, and the offset advances word 0
 * by `stream` and word 1 by `episode` (cuRAND keeps the offset in a 64-bit
 * number of draws, 4 per counter, so the episode is taken modulo 2^30:
 * TP_EPISODE_MASK). Episode 0 is the draw every world starts with.
 * The uniform mapping is cuRAND's too: u = x 2^-32 + 2^-33, in (0, 1]. */
#ifndef TP_PHILOX_H
#define TP_PHILOX_H

#include "tp_hd.h"
#include <stdint.h>

typedef struct tp_philox4 { uint32_t v[4]; } tp_philox4;

TP_HD uint32_t tp_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* The Philox4x32-10 bijection of `ctr` under `key`. */
TP_HD tp_philox4 tp_philox4x32_10(tp_philox4 ctr, uint32_t key0, uint32_t key1)
{
    const uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u; /* round multipliers */
    const uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u; /* key schedule (golden ratio, sqrt 3) */
    for (int round = 0; round < 10; ++round) {
        uint32_t hi0, hi1;
        uint32_t lo0 = tp_mulhilo32(m0, ctr.v[0], &hi0);
        uint32_t lo1 = tp_mulhilo32(m1, ctr.v[2], &hi1);
        tp_philox4 next;
        next.v[0] = hi1 ^ ctr.v[1] ^ key0;
        next.v[1] = lo1;
        next.v[2] = hi0 ^ ctr.v[3] ^ key1;
        next.v[3] = lo0;
        ctr = next;
        key0 += w0;
        key1 += w1;
    }
    return ctr;
}

/* Episodes are counted modulo 2^30 in the draws (the counter word cuRAND's
 * 64-bit offset can reach; see above). */
#define TP_EPISODE_MASK 0x3fffffffu

/* Four 32-bit draws of stream `stream` for (world, body) in episode `episode`
 * (modulo 2^30) under `seed`. */
TP_HD tp_philox4 tp_philox_draw(uint64_t seed, uint32_t world, uint32_t body, uint32_t stream, uint32_t episode)
{
    tp_philox4 ctr;
    ctr.v[0] = stream;
    ctr.v[1] = episode & TP_EPISODE_MASK;
    ctr.v[2] = body;
    ctr.v[3] = world;
    return tp_philox4x32_10(ctr, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* cuRAND's uint32 -> float mapping onto (0, 1]. */
TP_HD float tp_uniform01(uint32_t x)
{
    const float inv = 2.3283064365386963e-10f; /* 2^-32 */
    return (float)x * inv + inv * 0.5f;
}

/* Uniform in [-a, a] (up to one ulp of the (0, 1] mapping). */
TP_HD float tp_uniform_pm(uint32_t x, float a) { return (2.0f * tp_uniform01(x) - 1.0f) * a; }

#endif
