/* curand_draws.h - a body's reset draws from cuRAND's Philox4x32-10 device API.
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
#include <curand_kernel.h>

#include "world_init.h"

/* Four words of stream `stream` for (seed, world, body, episode), as tp_philox_draw. */
TP_HD tp_philox4 tp_curand_draw(uint64_t seed, uint32_t world, uint32_t body, uint32_t stream, uint32_t episode)
{
    curandStatePhilox4_32_10_t state;
    unsigned long long offset = 4ull * stream + ((unsigned long long)(episode & TP_EPISODE_MASK) << 34);
    curand_init((unsigned long long)seed, ((unsigned long long)world << 32) | body, offset, &state);
    uint4 x = curand4(&state);
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
    tp_body_draws u = tp_body_draws_curand(r->seed, (uint32_t)wd->index, (uint32_t)i, episode);
    tp_world_init_body(wd, i, t, r, &u);
}

/* cuRAND's own uint32 -> (0, 1] float map (curand_uniform), for the test that
 * tp_uniform01 is the same map. */
TP_HD float tp_curand_uniform_of(uint32_t x) { return _curand_uniform(x); }

#endif
