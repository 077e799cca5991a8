/* curand_draws_host.cu - kernels/cuda/curand_draws.h called on the host, for
 * tests/test_curand.c. nvcc compiles it; no kernel is launched and no GPU is
 * needed, so the cuRAND path of the CUDA reset is checked on every CI run. */
#include "curand_draws.h"

/* The whole device API, here only (a host-side test): curand_init and
 * curand4, which curand_draws.h reproduces from the Philox header alone, and
 * cuRAND's uniform map. QUALIFIERS is already __host__ __device__. */
#include <curand_kernel.h>

extern "C" void tp_test_curand_draw(uint64_t seed, uint32_t world, uint32_t body, uint32_t stream, uint32_t episode,
                                    uint32_t out[4])
{
    tp_philox4 r = tp_curand_draw(seed, world, body, stream, episode);
    for (int k = 0; k < 4; ++k) out[k] = r.v[k];
}

extern "C" void tp_test_body_draws_curand(uint64_t seed, uint32_t world, uint32_t body, uint32_t episode,
                                          tp_body_draws *out)
{
    *out = tp_body_draws_curand(seed, world, body, episode);
}

/* curand_init (seed, (world << 32) | body, 4 x stream + (episode << 34)) and
 * one curand4: the library's own path, against which tp_curand_draw is checked. */
extern "C" void tp_test_curand_init_draw(uint64_t seed, uint32_t world, uint32_t body, uint32_t stream,
                                         uint32_t episode, uint32_t out[4])
{
    curandStatePhilox4_32_10_t state;
    unsigned long long offset = 4ull * stream + ((unsigned long long)(episode & TP_EPISODE_MASK) << 34);
    curand_init((unsigned long long)seed, ((unsigned long long)world << 32) | body, offset, &state);
    uint4 x = curand4(&state);
    out[0] = x.x;
    out[1] = x.y;
    out[2] = x.z;
    out[3] = x.w;
}

/* cuRAND's own uint32 -> (0, 1] float map (curand_uniform's). */
extern "C" float tp_test_curand_uniform(uint32_t x) { return _curand_uniform(x); }

extern "C" void tp_test_init_world_curand(tp_world *wd, const tp_body_init *t, const tp_randomize_params *r,
                                          uint32_t episode)
{
    for (int i = 0; i < wd->bodies; ++i) tp_world_init_body_curand(wd, i, &t[i], r, episode);
}
