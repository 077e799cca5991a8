/* test_curand.c - the CUDA reset draws with cuRAND's device API (built with nvcc only).
 *
 * kernels/cuda/curand_draws.h is the code the CUDA reset kernel runs per body.
 * tests/curand_draws_host.cu calls it on the host (no GPU needed), and these
 * tests hold it to the CPU's kernels/philox.h bit for bit:
 *   - single draws over seeds, worlds, bodies and streams at the edges of
 *     their ranges (the subsequence packs world and body into 64 bits);
 *   - the draw built from cuRAND's Philox header alone against the library's
 *     own curand_init + curand4 (curand_kernel.h), streams up to 2^30;
 *   - cuRAND's uniform map against tp_uniform01;
 *   - a whole world reset with cuRAND draws against tp_batch_init_world. */
#include <criterion/criterion.h>

#include "batch.h"
#include "torpor.h"
#include "world_init.h"

#include <string.h>

void tp_test_curand_draw(uint64_t seed, uint32_t world, uint32_t body, uint32_t stream, uint32_t episode,
                         uint32_t out[4]);
void tp_test_body_draws_curand(uint64_t seed, uint32_t world, uint32_t body, uint32_t episode, tp_body_draws *out);
float tp_test_curand_uniform(uint32_t x);
void tp_test_curand_init_draw(uint64_t seed, uint32_t world, uint32_t body, uint32_t stream, uint32_t episode,
                              uint32_t out[4]);
void tp_test_init_world_curand(tp_world *wd, const tp_body_init *t, const tp_randomize_params *r, uint32_t episode);

Test(curand, draws_match_philox)
{
    const uint64_t seeds[] = {0u, 1u, 0x0123456789abcdefull, 0xffffffff00000000ull, ~0ull};
    const uint32_t worlds[] = {0u, 1u, 77u, TP_MAX_WORLDS - 1};
    const uint32_t bodies[] = {0u, 1u, 1000u, TP_MAX_BODIES_PER_WORLD - 1};
    /* episodes at the edges of the 30 bits the offset carries, and past them (wrapped) */
    const uint32_t episodes[] = {0u, 1u, TP_EPISODE_MASK, TP_EPISODE_MASK + 2u};
    int compared = 0;
    for (size_t a = 0; a < sizeof seeds / sizeof seeds[0]; ++a)
        for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; ++w)
            for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; ++i)
                for (size_t e = 0; e < sizeof episodes / sizeof episodes[0]; ++e)
                    for (uint32_t s = 0; s < 4; ++s) {
                        uint32_t got[4];
                        tp_test_curand_draw(seeds[a], worlds[w], bodies[i], s, episodes[e], got);
                        tp_philox4 want = tp_philox_draw(seeds[a], worlds[w], bodies[i], s, episodes[e]);
                        for (int k = 0; k < 4; ++k, ++compared)
                            cr_assert_eq(got[k], want.v[k],
                                         "seed %llx world %u body %u stream %u episode %u word %d: cuRAND %08x, "
                                         "philox.h %08x",
                                         (unsigned long long)seeds[a], worlds[w], bodies[i], s, episodes[e], k, got[k],
                                         want.v[k]);
                    }
    cr_assert_eq(compared, 5 * 4 * 4 * 4 * 4 * 4);
}

/* kernels/cuda/curand_draws.h skips curand_kernel.h (its tables) and does
 * curand_init's counter arithmetic itself: the same words as the library's
 * curand_init + curand4, carries across counter words included (a stream
 * near 2^30 moves word 0 by that much; world and body fill words 2 and 3). */
Test(curand, philox_header_matches_curand_init)
{
    const uint64_t seeds[] = {0u, 7u, 0xfedcba9876543210ull, ~0ull};
    const uint32_t worlds[] = {0u, 3u, 0xffffu, 0xffffffffu};
    const uint32_t bodies[] = {0u, 5u, 0xfffffffeu, 0xffffffffu};
    const uint32_t streams[] = {0u, 1u, 2u, 3u, 1000u, 1u << 30};
    const uint32_t episodes[] = {0u, 1u, 12345u, (1u << 30) - 1u};
    for (size_t a = 0; a < sizeof seeds / sizeof seeds[0]; ++a)
        for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; ++w)
            for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; ++i)
                for (size_t s = 0; s < sizeof streams / sizeof streams[0]; ++s)
                    for (size_t e = 0; e < sizeof episodes / sizeof episodes[0]; ++e) {
                        uint32_t got[4], want[4];
                        tp_test_curand_draw(seeds[a], worlds[w], bodies[i], streams[s], episodes[e], got);
                        tp_test_curand_init_draw(seeds[a], worlds[w], bodies[i], streams[s], episodes[e], want);
                        cr_assert(memcmp(got, want, sizeof got) == 0,
                                  "seed %llx world %u body %u stream %u episode %u: Philox header %08x.., "
                                  "curand_init %08x..",
                                  (unsigned long long)seeds[a], worlds[w], bodies[i], streams[s], episodes[e], got[0],
                                  want[0]);
                    }
}

Test(curand, body_draws_match)
{
    for (uint32_t w = 0; w < 16; ++w)
        for (uint32_t i = 0; i < 16; ++i)
            for (uint32_t e = 0; e < 3; ++e) {
                tp_body_draws got, want = tp_body_draws_philox(42u, w, i, e);
                tp_test_body_draws_curand(42u, w, i, e, &got);
                cr_assert(memcmp(&got, &want, sizeof got) == 0, "world %u body %u episode %u: draws differ", w, i, e);
            }
}

/* curand_uniform's map is tp_uniform01's: the same float bits, ends included. */
Test(curand, uniform_map_matches)
{
    const uint32_t xs[] = {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu, 0x12345678u};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i) {
        float got = tp_test_curand_uniform(xs[i]), want = tp_uniform01(xs[i]);
        cr_assert(memcmp(&got, &want, sizeof got) == 0, "x = %08x: cuRAND %.9g, torpor %.9g", xs[i], (double)got,
                  (double)want);
    }
    cr_assert_gt(tp_uniform01(0u), 0.0f, "the map must exclude 0");
    cr_assert_eq(tp_uniform01(0xffffffffu), 1.0f, "the map must reach 1");
}

/* Every body slot of one array of world w, as bytes. */
static void expect_same_slice(const void *a, const void *b, size_t bytes, const char *name, int w)
{
    cr_expect(memcmp(a, b, bytes) == 0, "world %d: %s differs between the cuRAND and the Philox reset", w, name);
}

/* A world reset with cuRAND draws equals the same world as the CPU creates it,
 * in every per-body array the reset writes, on a scene that randomizes pose,
 * yaw, mass and friction. The world is first stepped away from its start so
 * that a reset that wrote nothing would fail. */
Test(curand, world_reset_matches_cpu)
{
    const char *scene = "{\"name\": \"rand\", \"randomize\": {\"seed\": 9, \"pos_noise\": 0.05, \"yaw_noise_deg\": 30,"
                        " \"mass_scale\": [0.5, 2], \"friction_range\": [0.2, 0.9]},"
                        " \"bodies\": [{\"shape\": \"box\", \"size\": [4, 4, 0.2], \"pos\": [0, 0, -0.1], \"static\": true},"
                        " {\"shape\": \"box\", \"size\": [0.2, 0.3, 0.4], \"pos\": [0, 0, 0.5], \"vel\": [0.1, 0, 0]},"
                        " {\"shape\": \"ball\", \"size\": [0.2, 0.2, 0.2], \"pos\": [0.5, 0, 0.5], \"ang_vel\": [0, 0, 2]}]}";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(scene, "rand", &m), TP_OK, "%s", tp_last_error());
    tp_batch_def def = tp_default_batch_def();
    def.worlds = 5;
    def.backend = TP_BACKEND_CPU;
    tp_batch *stepped = NULL, *fresh = NULL;
    cr_assert_eq(tp_batch_create(m, &def, &stepped), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_create(m, &def, &fresh), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_step(stepped, 20), TP_OK);
    tp_randomize_params r = tp_batch_randomize_params(stepped);
    size_t B = (size_t)stepped->bodies;
    for (int w = 0; w < def.worlds; ++w) {
        size_t o = (size_t)w * B;
        cr_assert_neq(memcmp(stepped->pos + 3 * o, fresh->pos + 3 * o, 3 * B * sizeof(float)), 0,
                      "world %d did not move in 20 steps: the test would prove nothing", w);
        tp_world wd = tp_batch_world(stepped, w);
        tp_test_init_world_curand(&wd, m->body_init, &r, 0u);
        expect_same_slice(stepped->pos + 3 * o, fresh->pos + 3 * o, 3 * B * sizeof(float), "pos", w);
        expect_same_slice(stepped->quat + 4 * o, fresh->quat + 4 * o, 4 * B * sizeof(float), "quat", w);
        expect_same_slice(stepped->v + 3 * o, fresh->v + 3 * o, 3 * B * sizeof(float), "v", w);
        expect_same_slice(stepped->w + 3 * o, fresh->w + 3 * o, 3 * B * sizeof(float), "w", w);
        expect_same_slice(stepped->inv_mass + o, fresh->inv_mass + o, B * sizeof(float), "inv_mass", w);
        expect_same_slice(stepped->inv_inertia + 6 * o, fresh->inv_inertia + 6 * o, 6 * B * sizeof(float),
                          "inv_inertia", w);
        expect_same_slice(stepped->friction + o, fresh->friction + o, B * sizeof(float), "friction", w);
        expect_same_slice(stepped->force + 3 * o, fresh->force + 3 * o, 3 * B * sizeof(float), "force", w);
        expect_same_slice(stepped->torque + 3 * o, fresh->torque + 3 * o, 3 * B * sizeof(float), "torque", w);
        expect_same_slice(stepped->contact_f + 3 * o, fresh->contact_f + 3 * o, 3 * B * sizeof(float), "contact_f", w);
        expect_same_slice(stepped->flags + o, fresh->flags + o, B, "flags", w);
        expect_same_slice(stepped->sleep_state + o, fresh->sleep_state + o, B, "sleep_state", w);
        expect_same_slice(stepped->quiet_timer + o, fresh->quiet_timer + o, B * sizeof(float), "quiet_timer", w);
        expect_same_slice(stepped->island + o, fresh->island + o, B * sizeof(int32_t), "island", w);
    }
    tp_batch_destroy(stepped);
    tp_batch_destroy(fresh);
    tp_model_destroy(m);
}
