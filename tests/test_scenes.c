#define _POSIX_C_SOURCE 200809L
/* test_scenes.c - the scene library of scenes/, per-world randomization
 * (Philox4x32-10, bit-exact), and the pictures of `torpor run`.
 *
 * Every scene loads and runs 2 simulated seconds in 4 worlds without faults or
 * contact overflow, and its towers still stand: no body ends lower than its
 * start height by more than its own height (size[2]: these scenes turn bodies
 * about z only), except in dominoes, heap and card_house, which are meant to
 * fall; what those three do instead (dominoes all fall, the card house
 * collapses and sleeps, the heap settles in its bin) is checked by the
 * scenes_physics tests. many_pyramids (22,000 boxes per world, minutes on two cores) runs only
 * with TORPOR_TEST_LARGE=1; it and pyramid3d are skipped in the Sanitize build. */
#include <criterion/criterion.h>

#include "batch.h"
#include "helpers.h"
#include "philox.h"
#include "torpor.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- Philox */

/* Known-answer vectors of Random123 (kat_vectors, "philox4x32 10"): counter,
 * key, output. The third uses the digits of pi. */
Test(philox, random123_known_answers)
{
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
        {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0x408f276du, 0x41c83b0eu,
         0xa20bc7c6u, 0x6d5451fdu},
        {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u, 0xd16cfe09u, 0x94fdccebu,
         0x5001e420u, 0x24126ea1u}};
    for (int i = 0; i < 3; ++i) {
        tp_philox4 ctr = {{kat[i][0], kat[i][1], kat[i][2], kat[i][3]}};
        tp_philox4 out = tp_philox4x32_10(ctr, kat[i][4], kat[i][5]);
        for (int k = 0; k < 4; ++k)
            cr_expect_eq(out.v[k], kat[i][6 + k], "vector %d word %d: got %08x, expected %08x", i, k, out.v[k],
                         kat[i][6 + k]);
    }
}

/* cuRAND's host generator (CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161) runs on the
 * CPU without a GPU. With seed S its first outputs come in blocks of four, block
 * k from subsequence k at offset 0 (as its device API's curand_init(S, k, 0)):
 * Philox of counter (0, 0, k, 0) under key (S lo, S hi), which is torpor's
 * tp_philox_draw(S, world 0, body k, stream 0). This checks the key layout
 * (both halves of a 64-bit seed) and the subsequence word. Loaded with dlopen
 * so that the suite builds and runs where cuRAND is not installed. */
typedef int (*curand_create_fn)(void **, int);
typedef int (*curand_seed_fn)(void *, unsigned long long);
typedef int (*curand_generate_fn)(void *, unsigned int *, size_t);
typedef int (*curand_destroy_fn)(void *);

static void *open_curand(void)
{
    const char *names[] = {"libcurand.so", "libcurand.so.10", "/usr/local/cuda/lib64/libcurand.so",
                           "/usr/local/cuda/lib64/libcurand.so.10"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
    }
    return NULL;
}

Test(philox, matches_curand_host_generator)
{
    void *lib = open_curand();
    if (!lib) cr_skip_test("libcurand not found (no CUDA toolkit): the known-answer test stands alone");
    curand_create_fn create = (curand_create_fn)(uintptr_t)dlsym(lib, "curandCreateGeneratorHost");
    curand_seed_fn seed = (curand_seed_fn)(uintptr_t)dlsym(lib, "curandSetPseudoRandomGeneratorSeed");
    curand_generate_fn generate = (curand_generate_fn)(uintptr_t)dlsym(lib, "curandGenerate");
    curand_destroy_fn destroy = (curand_destroy_fn)(uintptr_t)dlsym(lib, "curandDestroyGenerator");
    cr_assert(create && seed && generate && destroy, "libcurand lacks the host generator API");
    const unsigned long long seeds[] = {0ull, 1ull, 0x0123456789abcdefull};
    for (size_t s = 0; s < 3; ++s) {
        void *gen = NULL;
        int st = create(&gen, 161);
        if (st != 0) cr_skip_test("curandCreateGeneratorHost failed with status %d", st);
        cr_assert_eq(seed(gen, seeds[s]), 0);
        unsigned int out[16];
        cr_assert_eq(generate(gen, out, 16), 0);
        for (uint32_t k = 0; k < 4; ++k) {
            tp_philox4 mine = tp_philox_draw(seeds[s], 0, k, 0, 0);
            for (int j = 0; j < 4; ++j)
                cr_expect_eq(out[4 * k + j], mine.v[j], "seed %llx block %u word %d: cuRAND %08x, torpor %08x",
                             seeds[s], k, j, out[4 * k + j], mine.v[j]);
        }
        destroy(gen);
    }
    dlclose(lib);
}

/* ---------------------------------------------------------------- randomization */

static const char *random_scene =
    "{\"randomize\": {\"seed\": 7, \"pos_noise\": 0.01, \"yaw_noise_deg\": 5, \"mass_scale\": [0.9, 1.1],"
    " \"friction_range\": [0.5, 0.7]},"
    " \"bodies\": [{\"name\": \"ground\", \"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], \"static\": true},"
    "  {\"generate\": \"stack\", \"count\": 6, \"base\": [0, 0, 0.5], \"step\": [0, 0, 1], \"name\": \"b\"}]}";

/* A batch on the backend TORPOR_TEST_BACKEND names (tests/helpers.h), with its
 * host arrays current, so that the tests below may read them directly (on
 * CUDA they then read the device's cuRAND draws). */
static tp_batch *batch_of(const tp_model *m, int worlds)
{
    tp_batch *b = make_batch(m, worlds, 1);
    cr_assert_eq(tp_batch_pull(b, 0, worlds - 1, TP_MIRROR_STATE), TP_OK, "%s", tp_last_error());
    return b;
}

/* World w's initial state and materials are bitwise the same at 4 and 64 worlds. */
Test(randomize, world_draws_do_not_depend_on_world_count)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(random_scene, "random", &m), TP_OK, "%s", tp_last_error());
    tp_batch *a = batch_of(m, 4), *b = batch_of(m, 64);
    size_t n = 4 * (size_t)tp_model_body_count(m);
    cr_assert_eq(memcmp(a->pos, b->pos, 3 * n * sizeof(float)), 0, "positions differ");
    cr_assert_eq(memcmp(a->quat, b->quat, 4 * n * sizeof(float)), 0, "orientations differ");
    cr_assert_eq(memcmp(a->inv_mass, b->inv_mass, n * sizeof(float)), 0, "inverse masses differ");
    cr_assert_eq(memcmp(a->inv_inertia, b->inv_inertia, 6 * n * sizeof(float)), 0, "inverse inertias differ");
    cr_assert_eq(memcmp(a->friction, b->friction, n * sizeof(float)), 0, "frictions differ");
    uint64_t ha, hb;
    for (int w = 0; w < 4; ++w) {
        cr_assert_eq(tp_batch_world_hash(a, w, &ha), TP_OK);
        cr_assert_eq(tp_batch_world_hash(b, w, &hb), TP_OK);
        cr_expect_eq(ha, hb, "world %d hash differs", w);
    }
    tp_batch_destroy(a);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Draws land in their ranges, differ between worlds and bodies, and the mass
 * scale divides inverse mass and inverse inertia alike. */
Test(randomize, draws_in_range_and_applied)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(random_scene, "random", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = batch_of(m, 32);
    int B = tp_model_body_count(m);
    float mass = 0.0f, inertia[3];
    cr_assert_eq(tp_model_body_mass(m, 1, &mass, inertia), TP_OK);
    int distinct = 0;
    for (int w = 0; w < 32; ++w)
        for (int i = 0; i < B; ++i) {
            size_t k = (size_t)w * (size_t)B + (size_t)i;
            cr_assert(b->friction[k] >= 0.5f && b->friction[k] <= 0.7f, "friction %g out of range", b->friction[k]);
            distinct += k > 0 && b->friction[k] != b->friction[k - 1];
            if (i == 0) continue; /* the static ground keeps inv_mass 0 */
            float scale = 1.0f / (b->inv_mass[k] * mass); /* drawn mass / template mass */
            cr_assert(scale >= 0.9f * (1.0f - 1e-6f) && scale <= 1.1f * (1.0f + 1e-6f), "mass scale %g", scale);
            float inertia_scale = b->inv_inertia[6 * k] / m->body_init[i].inv_inertia[0];
            cr_assert_float_eq(inertia_scale * scale, 1.0f, 1e-5f, "inertia not scaled with the mass");
        }
    cr_expect_gt(distinct, 32 * B / 2, "frictions hardly vary: %d changes", distinct);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A bad range is refused naming the field, by the loader and by the API. */
Test(randomize, bad_ranges_name_the_field)
{
    const struct { const char *randomize, *expect; } cases[] = {
        {"\"mass_scale\": [0, 1]", "randomize.mass_scale[0]: must be > 0, got 0"},
        {"\"mass_scale\": [1.2, 1.1]", "randomize.mass_scale[1]: must be >= randomize.mass_scale[0]"},
        {"\"friction_range\": [-0.1, 0.5]", "randomize.friction_range[0]: must be >= 0, got -0.1"},
        {"\"friction_range\": [0.7, 0.5]", "randomize.friction_range[1]"},
        {"\"mass_scale\": [1, 2, 3]", "randomize.mass_scale: must have 2 elements, got 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char json[256];
        snprintf(json, sizeof json, "{\"randomize\": {%s}, \"bodies\": [{}]}", cases[i].randomize);
        tp_model *m = NULL;
        cr_assert_eq(tp_model_load_string(json, "bad", &m), TP_ERR_PARSE, "case %zu loaded", i);
        cr_expect(strstr(tp_last_error(), cases[i].expect) != NULL, "case %zu: \"%s\" lacks \"%s\"", i,
                  tp_last_error(), cases[i].expect);
    }
    tp_model_def d = tp_default_model_def();
    d.randomize.mass_scale[1] = NAN;
    tp_builder *bl = NULL;
    cr_assert_eq(tp_builder_create(&d, &bl), TP_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(tp_last_error(), "randomize.mass_scale[1]") != NULL, "%s", tp_last_error());
}

/* ---------------------------------------------------------------- scenes */

typedef struct scene_case {
    const char *file;
    int may_fall;  /* bodies are meant to fall over */
    int large;     /* skipped in the Sanitize build */
    int opt_in;    /* runs only with TORPOR_TEST_LARGE=1 */
} scene_case;

/* 2 s in 4 worlds: no faults, no overflow, finite state, and standing towers. */
static void run_scene(const scene_case *c)
{
#ifdef TP_SANITIZE
    if (c->large) cr_skip_test("%s is too slow under the sanitizers", c->file);
#endif
    const char *large = getenv("TORPOR_TEST_LARGE");
    if (c->opt_in && !(large && strcmp(large, "1") == 0))
        cr_skip_test("%s: set TORPOR_TEST_LARGE=1 to run it (minutes on two cores)", c->file);
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", TP_SOURCE_DIR, c->file);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = batch_of(m, 4);
    int steps = (int)(2.0 / tp_model_settings(m).dt + 0.5);
    cr_assert_eq(tp_batch_step(b, steps), TP_OK, "%s", tp_last_error());
    tp_state_view s;
    cr_assert_eq(tp_batch_state(b, &s), TP_OK);
    for (int w = 0; w < 4; ++w) {
        cr_expect_eq(s.faults[w], 0, "%s: world %d faulted", c->file, w);
        cr_expect_eq(s.contact_overflow[w], 0, "%s: world %d lost %d contact points", c->file, w,
                     s.contact_overflow[w]);
        for (int i = 0; i < s.bodies; ++i) {
            tp_body_def d;
            tp_model_body(m, i, &d);
            size_t k = (size_t)w * (size_t)s.bodies + (size_t)i;
            cr_assert(isfinite(s.pos[3 * k + 2]), "%s: body %s is not finite", c->file, d.name);
            if (c->may_fall || d.type != TP_BODY_DYNAMIC || s.removed[k]) continue;
            float start = b->model->body_defs[i].pos[2];
            cr_expect(s.pos[3 * k + 2] > start - d.size[2], "%s: world %d body %s fell from z = %g to %g", c->file, w,
                      d.name, start, s.pos[3 * k + 2]);
        }
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

#define SCENE_TEST(name, file, may_fall, large, opt_in)                 \
    Test(scenes, name, .timeout = 600)                                   \
    {                                                                    \
        const scene_case c = {file, may_fall, large, opt_in};            \
        run_scene(&c);                                                   \
    }

SCENE_TEST(tower, "tower.json", 0, 0, 0)
SCENE_TEST(tower_push, "tower_push.json", 0, 0, 0)
SCENE_TEST(pyramid, "pyramid.json", 0, 0, 0)
SCENE_TEST(jenga, "jenga.json", 0, 0, 0)
SCENE_TEST(ring_tower, "ring_tower.json", 0, 0, 0)
SCENE_TEST(dominoes, "dominoes.json", 1, 0, 0)
SCENE_TEST(card_house, "card_house.json", 1, 0, 0)
SCENE_TEST(heap, "heap.json", 1, 0, 0)
SCENE_TEST(pyramid3d, "pyramid3d.json", 0, 1, 0)
SCENE_TEST(many_pyramids, "many_pyramids.json", 0, 1, 1)
/* Articulations (version 2): swinging and falling links (tests/test_articulation.c checks their physics). */
SCENE_TEST(pendulum, "pendulum.json", 1, 0, 0)
SCENE_TEST(double_pendulum, "double_pendulum.json", 1, 0, 0)
SCENE_TEST(cartpole, "cartpole.json", 1, 0, 0)
/* Robots (tests/test_robot_scenes.c checks what they do): the arm pushes a cube off; the walker falls
 * through the ground until links touch it. */
SCENE_TEST(arm_tower, "arm_tower.json", 1, 0, 0)
SCENE_TEST(walker, "walker.json", 1, 0, 0)
/* The clutter task's bin (python/torpor/envs/clutter.py writes it): 128 objects resting around an arm. */
SCENE_TEST(clutter_arm, "clutter_arm.json", 0, 0, 0)

/* ---------------------------------------------------------------- what the falling scenes do */

/* Scene file `file` in 4 worlds, stepped to `seconds`. */
static tp_batch *run_scene_for(const char *file, double seconds, tp_model **model)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", TP_SOURCE_DIR, file);
    cr_assert_eq(tp_model_load(path, model), TP_OK, "%s", tp_last_error());
    tp_batch *b = batch_of(*model, 4);
    batch_steps(b, (int)(seconds / tp_model_settings(*model).dt + 0.5));
    return b;
}

/* z component of a body's local z axis: 1 upright, 0 lying on its side. */
static float up_z(const float *q)
{
    return 1.0f - 2.0f * (q[0] * q[0] + q[1] * q[1]);
}

/* dominoes (scenes/README.md): they stand until the push at 0.5 s, then the
 * chain knocks every one over and every world is asleep again by 11.1 s. A
 * fallen 0.1 x 0.5 x 1 m domino lies flat (centre 0.05 m up) or leans on the
 * next one at about 80 degrees (centre 0.15 m up); a standing one has its centre
 * at 0.5 m and its axis vertical, so "fallen" is: tilted past 60 degrees and
 * centre below 0.3 m. */
Test(scenes_physics, dominoes_all_fall_in_a_chain, .timeout = 600)
{
    tp_model *m = NULL;
    tp_batch *b = run_scene_for("dominoes.json", 0.45, &m);
    tp_state_view s = batch_view(b);
    for (int k = 0; k < 4 * s.bodies; ++k)
        if (k % s.bodies != 0) cr_assert(up_z(s.quat + 4 * k) > 0.999f, "body %d tipped before the push", k);
    batch_steps(b, (int)((1.0 - 0.45) * 60.0 + 0.5));
    s = batch_view(b);
    for (int w = 0; w < 4; ++w) /* the chain takes seconds to reach the far end */
        cr_assert(up_z(s.quat + 4 * (w * s.bodies + s.bodies - 1)) > 0.999f, "world %d: the last domino fell at 1 s", w);
    batch_steps(b, 11 * 60);
    s = batch_view(b);
    for (int w = 0; w < 4; ++w) {
        cr_expect_eq(s.awake_count[w], 0, "world %d: %d dominoes still awake at 12 s", w, s.awake_count[w]);
        for (int i = 1; i < s.bodies; ++i) {
            size_t k = (size_t)w * s.bodies + i;
            cr_expect(up_z(s.quat + 4 * k) < 0.5f && s.pos[3 * k + 2] < 0.3f,
                      "world %d domino %d still stands: z %g, axis z %g", w, i - 1, s.pos[3 * k + 2],
                      up_z(s.quat + 4 * k));
        }
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* card_house (scenes/README.md): it collapses within about 2 s and sleeps at
 * 3.4 s. By 5 s every card lies on the ground or on another card (centre below
 * 0.25 m; the cards stood up to 1.2 m, and a card lying flat on two others is
 * 0.05 m up), every world is asleep, and no card gained height on the way. */
Test(scenes_physics, card_house_collapses_and_sleeps, .timeout = 600)
{
    tp_model *m = NULL;
    tp_batch *b = run_scene_for("card_house.json", 5.0, &m);
    tp_state_view s = batch_view(b);
    for (int w = 0; w < 4; ++w) {
        cr_expect_eq(s.awake_count[w], 0, "world %d: %d cards awake at 5 s", w, s.awake_count[w]);
        cr_expect_eq(s.faults[w], 0);
        for (int i = 1; i < s.bodies; ++i) {
            size_t k = (size_t)w * s.bodies + i;
            tp_body_def d;
            tp_model_body(m, i, &d);
            cr_expect(s.pos[3 * k + 2] < 0.25f, "world %d card %s still up at z = %g", w, d.name, s.pos[3 * k + 2]);
            cr_expect(s.pos[3 * k + 2] > 0.0f, "world %d card %s went through the ground", w, d.name);
        }
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* heap (scenes/README.md): 200 shapes dropped into a bin 4 x 4 m inside with
 * walls 0.2 m thick and 2 m high. By 8 s none has left the bin (box centre
 * inside the walls' mid-planes at |x|, |y| = 2.1), none is below the ground
 * (box centre above z = -1 mm: a wedge lying on its sloped face has its box
 * centre on that face, so at the ground's surface less the contact's
 * penetration, which the 0.5 mm slop bounds) or above the wall tops (the heap settles
 * below 2 m: 200 shapes of 0.3-0.5 m fill about 13 m^3, under 1 m over 16 m^2
 * when packed), and the heap has settled: at most one body of the 800 moves
 * faster than 0.2 m/s (4 x the sleep threshold; one dropped from the top of
 * the heap would reach 5 m/s), none faster than 1 m/s. The one: a flat face
 * resting on round shapes (balls, cylinders) can rock on them for seconds,
 * since rolling loses no energy (there is no rolling resistance); a wedge on
 * two balls in world 1 does so at up to 0.47 m/s until 8.1 s, then slides off
 * and sleeps. */
Test(scenes_physics, heap_settles_in_the_bin, .timeout = 600)
{
#ifdef TP_SANITIZE
    cr_skip_test("heap over 8 s is too slow under the sanitizers");
#endif
    tp_model *m = NULL;
    tp_batch *b = run_scene_for("heap.json", 8.0, &m);
    tp_state_view s = batch_view(b);
    int moving = 0;
    for (int w = 0; w < 4; ++w) {
        cr_expect_eq(s.faults[w], 0);
        for (int i = 0; i < s.bodies; ++i) {
            tp_body_def d;
            tp_model_body(m, i, &d);
            if (d.type != TP_BODY_DYNAMIC) continue;
            size_t k = (size_t)w * s.bodies + i;
            const float *p = s.pos + 3 * k, *v = s.v + 3 * k;
            cr_expect(fabsf(p[0]) < 2.1f && fabsf(p[1]) < 2.1f, "world %d %s left the bin: (%g, %g)", w, d.name, p[0],
                      p[1]);
            cr_expect(p[2] > -0.001f && p[2] < 2.0f, "world %d %s at z = %g", w, d.name, p[2]);
            float speed = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            cr_expect(speed < 1.0f, "world %d %s still moves at %g m/s at 8 s", w, d.name, speed);
            if (speed >= 0.2f) cr_log_info("world %d %s moves at %g m/s at 8 s", w, d.name, speed);
            moving += speed >= 0.2f;
        }
    }
    cr_expect(moving <= 1, "%d bodies move faster than 0.2 m/s at 8 s", moving);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* rock_pile (scenes/README.md): 18 hull rocks fall into a low pile and sleep
 * (the 4 s of the README's figure); tests/test_convex.c checks its determinism. */
Test(scenes_physics, rock_pile_settles_and_sleeps, .timeout = 600)
{
    tp_model *m = NULL;
    tp_batch *b = run_scene_for("rock_pile.json", 4.0, &m);
    tp_state_view s = batch_view(b);
    for (int w = 0; w < 4; ++w) {
        cr_expect_eq(s.faults[w], 0);
        cr_expect_eq(s.contact_overflow[w], 0);
        cr_expect_eq(s.awake_count[w], 0, "world %d: %d rocks awake at 4 s", w, s.awake_count[w]);
        for (int i = 1; i < s.bodies; ++i) { /* a rock's origin lies inside it: above the ground, below the drop */
            float z = s.pos[3 * ((size_t)w * s.bodies + i) + 2];
            cr_expect(z > 0.0f && z < 0.9f, "world %d rock %d at z = %g", w, i, z);
        }
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* clutter_arm: with its controls at 0 the arm holds still, and every one of the 128
 * objects (placed resting) falls asleep after the 0.5 s quiet time: only the
 * arm's two links, an actuated tree the island policy keeps awake, stay awake. */
Test(scenes_physics, clutter_objects_sleep_around_a_still_arm, .timeout = 600)
{
    tp_model *m = NULL;
    tp_batch *b = run_scene_for("clutter_arm.json", 1.5, &m);
    tp_state_view s = batch_view(b);
    for (int w = 0; w < 4; ++w) {
        cr_expect_eq(s.faults[w], 0);
        cr_expect_eq(s.contact_overflow[w], 0);
        cr_expect_eq(s.awake_count[w], 2, "world %d: %d bodies awake at 1.5 s (the arm's 2 links expected)", w,
                     s.awake_count[w]);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Constraints between bodies (version 2; tests/test_constraint_scenes.c checks what they do). */
SCENE_TEST(rope_bridge, "rope_bridge.json", 1, 0, 0)
SCENE_TEST(servo_door, "servo_door.json", 1, 0, 0)
SCENE_TEST(motor_cart, "motor_cart.json", 1, 0, 0)
SCENE_TEST(crane, "crane.json", 1, 0, 0)
SCENE_TEST(bungee, "bungee.json", 1, 0, 0)
SCENE_TEST(spring_pad, "spring_pad.json", 1, 0, 0)
SCENE_TEST(rod_pendulum, "rod_pendulum.json", 1, 0, 0)
/* Movers (tests/test_movers.c checks what they do): the drone follows its goal, moved by mover events. */
SCENE_TEST(drone, "drone.json", 1, 0, 0)
SCENE_TEST(turntable, "turntable.json", 0, 0, 0)
/* Every file in scenes/ is covered by a test above. */
Test(scenes, every_file_is_tested)
{
    static const char *known = " tower.json tower_push.json pyramid.json jenga.json ring_tower.json dominoes.json "
                               "card_house.json heap.json pyramid3d.json many_pyramids.json pendulum.json "
                               "double_pendulum.json cartpole.json arm_tower.json walker.json rock_pile.json clutter_arm.json "
                               "rope_bridge.json servo_door.json motor_cart.json crane.json bungee.json "
                               "spring_pad.json rod_pendulum.json drone.json turntable.json ";
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s/scenes", TP_SOURCE_DIR);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char name[256];
    while (fgets(name, sizeof name, p)) {
        name[strcspn(name, "\n")] = '\0';
        size_t n = strlen(name);
        if (n < 5 || strcmp(name + n - 5, ".json") != 0) continue;
        char word[260];
        snprintf(word, sizeof word, " %s ", name);
        cr_expect(strstr(known, word) != NULL, "scenes/%s has no test in tests/test_scenes.c", name);
    }
    pclose(p);
}

/* ---------------------------------------------------------------- pictures */

static int cli(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s", TP_CLI, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A PNG file of more than 1 KB. */
static void expect_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s was not written", path);
    unsigned char sig[8] = {0};
    cr_assert_eq(fread(sig, 1, 8, f), 8u, "%s is shorter than a PNG signature", path);
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    cr_expect_eq(memcmp(sig, png, 8), 0, "%s is not a PNG", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    cr_expect_gt(size, 1024, "%s has only %ld bytes", path, size);
}

Test(pictures, run_writes_awake_and_snapshot_png, .timeout = 120)
{
    char dir[] = "/tmp/tp_pictures_XXXXXX", args[1024], info[600];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(info, sizeof info, "%s info | grep -q '^pictures: yes'", TP_CLI);
    int have_cairo = system(info) == 0;
    snprintf(args, sizeof args, "run %s/scenes/tower.json --worlds 4 --seconds 1 --snapshot 0.5 --quiet --out %s 2>%s/err",
             TP_SOURCE_DIR, dir, dir);
    cr_assert_eq(cli(args), 0);
    char path[600];
    if (have_cairo) {
        snprintf(path, sizeof path, "%s/awake.png", dir);
        expect_png(path);
        snprintf(path, sizeof path, "%s/snapshot.png", dir);
        expect_png(path);
    } else {
        snprintf(path, sizeof path, "grep -q 'has no cairo' %s/err", dir);
        cr_expect_eq(system(path), 0, "a build without cairo must say why there are no pictures");
    }
    snprintf(path, sizeof path, "rm -rf %s", dir);
    cr_expect_eq(system(path), 0);
}
