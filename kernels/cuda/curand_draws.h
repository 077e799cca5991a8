/* curand_draws.h - a body's reset draws from cuRAND's Philox4x32-10.
 *
 * nvcc only. The CUDA reset kernel (tp_reset_kernel in kernels/cuda/stages.cu) draws
 * with cuRAND; the CPU draws with kernels/philox.h (tp_body_draws_philox). The
 * two agree bit for bit because torpor's counter layout {stream, episode, body,
 * world} under key {seed lo, seed hi} is what curand_init produces with
 *   subsequence = (world << 32) | body   -> counter words 2 and 3,
 *   offset      = 4 * stream + (episode << 34)
 *                                        -> counter word 0 += stream, word 1 += episode
 *                                           (episode < 2^30, TP_EPISODE_MASK),
 * and curand4 then returns Philox4x32-10 of that counter (cuRAND library
 * documentation, "Device API overview"; Salmon et al., SC 2011).
 *
 * Only cuRAND's Philox header (curand_philox4x32_x.h: the state, its counter
 * increments and the ten rounds) is included, not curand_kernel.h: that one
 * brings every generator's precomputed tables (XORWOW, MRG32k3a, MTGP32,
 * Sobol scrambles), about 218 KB of __device__ data that every module
 * including it carries although the reset uses none of it. So tp_curand_draw
 * does what curand_init (seed, subsequence, offset) followed by one curand4
 * does for an offset that is a multiple of 4: key from the seed, counter
 * zero, Philox_State_Incr_hi(subsequence) (skipahead_sequence),
 * Philox_State_Incr(offset / 4) (skipahead), then the ten rounds; with
 * offset % 4 == 0 curand4 returns exactly that block. tests/curand_draws_host.cu
 * checks this against the full curand_init + curand4 of curand_kernel.h.
 *
 * cuRAND declares its device functions `static __forceinline__ __device__`
 * unless QUALIFIERS is defined first. Here they are made __host__ __device__ as
 * well, so that tests/curand_draws_host.cu can call this very function on a
 * machine without a GPU and compare it with kernels/philox.h
 * (tests/test_curand.c). On the host cuRAND's mulhilo32 takes its 64-bit
 * product branch instead of __umulhi; both are exact integer arithmetic. */
#ifndef TP_CURAND_DRAWS_H
#define TP_CURAND_DRAWS_H

#ifndef __CUDACC__
#error "curand_draws.h needs nvcc (cuRAND's device API)"
#endif

#ifndef QUALIFIERS
#define QUALIFIERS static __forceinline__ __host__ __device__
#endif
#include <curand_philox4x32_x.h>

#include "world_init.h"

/* Four words of stream `stream` for (seed, world, body, episode), as tp_philox_draw. */
TP_HD tp_philox4 tp_curand_draw(uint64_t seed, uint32_t world, uint32_t body, uint32_t stream, uint32_t episode)
{
    curandStatePhilox4_32_10_t state;
    state.ctr = make_uint4(0u, 0u, 0u, 0u);
    state.key.x = (unsigned int)seed;
    state.key.y = (unsigned int)(seed >> 32);
    Philox_State_Incr_hi(&state, ((unsigned long long)world << 32) | body); /* curand_init's subsequence */
    /* its offset (4 x stream + (episode << 34)) / 4: word 0 += stream, word 1 += episode */
    Philox_State_Incr(&state, (unsigned long long)stream + ((unsigned long long)(episode & TP_EPISODE_MASK) << 32));
    uint4 x = curand_Philox4x32_10(state.ctr, state.key);
    tp_philox4 r;
    r.v[0] = x.x;
    r.v[1] = x.y;
    r.v[2] = x.z;
    r.v[3] = x.w;
    return r;
}

/* The draws of body `body` in world `world` in episode `episode`, as tp_body_draws_philox. */
TP_HD tp_body_draws tp_body_draws_curand(uint64_t seed, uint32_t world, uint32_t body, uint32_t episode)
{
    tp_body_draws d;
    d.pose = tp_curand_draw(seed, world, body, 0u, episode);
    d.mass = tp_curand_draw(seed, world, body, 1u, episode).v[0];
    d.friction = tp_curand_draw(seed, world, body, 2u, episode).v[0];
    return d;
}

/* Body i of world `wd` as a fresh world has it, drawn with cuRAND: what the
 * CUDA reset kernel runs for each body (tp_batch_init_world's loop body on the
 * CPU, with tp_body_draws_philox), in the world's episode `episode`. */
TP_HD void tp_world_init_body_curand(tp_world *wd, int i, const tp_body_init *t, const tp_randomize_params *r,
                                     uint32_t episode)
{
    tp_body_draws u = tp_body_draws_curand(r->seed, tp_draw_world(r, wd->index), (uint32_t)i, episode);
    tp_world_init_body(wd, i, t, r, &u);
}

#endif
