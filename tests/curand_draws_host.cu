/* curand_draws_host.cu - kernels/cuda/curand_draws.h called on the host, for
 * tests/test_curand.c. nvcc compiles it; no kernel is launched and no GPU is
 * needed, so the cuRAND path of the CUDA reset is checked on every CI run. */
#include "curand_draws.h"

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

extern "C" float tp_test_curand_uniform(uint32_t x) { return tp_curand_uniform_of(x); }

extern "C" void tp_test_init_world_curand(tp_world *wd, const tp_body_init *t, const tp_randomize_params *r,
                                          uint32_t episode)
{
    for (int i = 0; i < wd->bodies; ++i) tp_world_init_body_curand(wd, i, &t[i], r, episode);
}
