/* test_shard.c - a batch of worlds [k, k + n) of a run (tp_batch_def.first_world)
 * is exactly worlds k .. k + n - 1 of one batch of all the worlds: the same
 * initial draws, the same scripted events (world lists are global), the same
 * resets, so the same bits after hundreds of steps. Also the errors of the
 * sharding and device fields. */
#include <criterion/criterion.h>

#include "torpor.h"

#include <stdlib.h>
#include <string.h>

/* A tower of 6 boxes with every draw on (pose, mass, friction), knocked over
 * in some worlds, reset in others (listed, and all worlds at once), pushed
 * by a force in some: every per-world path of the step and of resets. */
static const char *const SCENE =
    "{\"version\": 1, \"name\": \"shard\", \"dt\": 0.016666667, \"substeps\": 4,"
    " \"randomize\": {\"seed\": 7, \"pos_noise\": 0.01, \"yaw_noise_deg\": 3.0, \"mass_scale\": [0.8, 1.2],"
    "   \"friction_range\": [0.4, 0.8]},"
    " \"bodies\": ["
    "  {\"name\": \"ground\", \"shape\": \"box\", \"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], \"static\": true},"
    "  {\"name\": \"b0\", \"size\": [1, 1, 1], \"pos\": [0, 0, 0.5]},"
    "  {\"name\": \"b1\", \"size\": [1, 1, 1], \"pos\": [0, 0, 1.5]},"
    "  {\"name\": \"b2\", \"size\": [1, 1, 1], \"pos\": [0, 0, 2.5]},"
    "  {\"name\": \"b3\", \"size\": [1, 1, 1], \"pos\": [0, 0, 3.5]},"
    "  {\"name\": \"b4\", \"shape\": \"ball\", \"size\": [1, 1, 1], \"pos\": [0, 0, 4.5]},"
    "  {\"name\": \"b5\", \"size\": [1, 1, 1], \"pos\": [0, 0, 5.5]}],"
    " \"events\": ["
    "  {\"time\": 0.5, \"action\": \"impulse\", \"body\": \"b5\", \"value\": [4, 0, 0], \"worlds\": [1, 4, 6, 8]},"
    "  {\"time\": 1.0, \"action\": \"reset\", \"worlds\": [2, 4, 6, 4]},"
    "  {\"time\": 1.5, \"action\": \"force\", \"body\": \"b3\", \"value\": [0, 30, 0], \"duration\": 0.2, \"worlds\": [0, 3, 7]},"
    "  {\"time\": 2.0, \"action\": \"impulse\", \"body\": \"b0\", \"value\": [0, 2, 1]},"
    "  {\"time\": 3.0, \"action\": \"reset\"},"
    "  {\"time\": 3.5, \"action\": \"angular_impulse\", \"body\": \"b4\", \"value\": [0, 0, 0.5], \"worlds\": [5, 8]},"
    "  {\"time\": 4.5, \"action\": \"reset\", \"worlds\": [3, 7]}]}";

#define WORLDS 9
#define STEPS 300

static tp_model *load(void)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(SCENE, "shard.json", &m), TP_OK, "%s", tp_last_error());
    return m;
}

static tp_batch *make(const tp_model *m, int first, int n, int total)
{
    tp_batch_def d = tp_default_batch_def();
    d.worlds = n;
    d.first_world = first;
    d.total_worlds = total;
    d.threads = 1;
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, &d, &b), TP_OK, "%s", tp_last_error());
    return b;
}

/* World w of batch a and world v of batch b hold the same bits. */
static void assert_same_world(tp_batch *a, int w, tp_batch *b, int v, int global)
{
    tp_state_view x, y;
    cr_assert_eq(tp_batch_state(a, &x), TP_OK);
    cr_assert_eq(tp_batch_state(b, &y), TP_OK);
    size_t B = (size_t)x.bodies, i = (size_t)w * B, j = (size_t)v * B;
    cr_assert(memcmp(x.pos + 3 * i, y.pos + 3 * j, 3 * B * sizeof(float)) == 0, "world %d: positions differ", global);
    cr_assert(memcmp(x.quat + 4 * i, y.quat + 4 * j, 4 * B * sizeof(float)) == 0, "world %d: orientations", global);
    cr_assert(memcmp(x.v + 3 * i, y.v + 3 * j, 3 * B * sizeof(float)) == 0, "world %d: velocities differ", global);
    cr_assert(memcmp(x.w + 3 * i, y.w + 3 * j, 3 * B * sizeof(float)) == 0, "world %d: spins differ", global);
    cr_assert(memcmp(x.sleep_state + i, y.sleep_state + j, B) == 0, "world %d: sleep states differ", global);
    uint64_t ha, hb;
    cr_assert_eq(tp_batch_world_hash(a, w, &ha), TP_OK);
    cr_assert_eq(tp_batch_world_hash(b, v, &hb), TP_OK);
    cr_assert_eq(ha, hb, "world %d: hash %016llx in the whole batch, %016llx in its shard", global,
                 (unsigned long long)ha, (unsigned long long)hb);
}

Test(shard, shards_concatenated_equal_one_batch_after_resets_and_impulses)
{
    tp_model *m = load();
    tp_batch *whole = make(m, 0, WORLDS, 0);
    const int first[] = {0, 4, 7, 9}; /* three shards: [0, 4), [4, 7), [7, 9) */
    tp_batch *shard[3];
    for (int s = 0; s < 3; ++s) shard[s] = make(m, first[s], first[s + 1] - first[s], WORLDS);
    /* at creation: the draws are keyed on the global index */
    for (int s = 0; s < 3; ++s)
        for (int g = first[s]; g < first[s + 1]; ++g) assert_same_world(whole, g, shard[s], g - first[s], g);
    cr_assert_eq(tp_batch_step(whole, STEPS), TP_OK, "%s", tp_last_error());
    for (int s = 0; s < 3; ++s) cr_assert_eq(tp_batch_step(shard[s], STEPS), TP_OK, "%s", tp_last_error());
    uint32_t ep_whole[WORLDS], ep[WORLDS];
    cr_assert_eq(tp_batch_episodes(whole, ep_whole), TP_OK);
    uint64_t hashes[WORLDS];
    for (int s = 0; s < 3; ++s) {
        cr_assert_eq(tp_batch_episodes(shard[s], ep + first[s]), TP_OK);
        for (int g = first[s]; g < first[s + 1]; ++g) {
            assert_same_world(whole, g, shard[s], g - first[s], g);
            cr_assert_eq(tp_batch_world_hash(shard[s], g - first[s], &hashes[g]), TP_OK);
        }
    }
    /* the resets happened (two listed, one of all; world 4 listed twice counts once) */
    const uint32_t expect[WORLDS] = {1, 1, 2, 2, 2, 1, 2, 2, 1};
    for (int g = 0; g < WORLDS; ++g) {
        cr_assert_eq(ep[g], ep_whole[g], "world %d: episode %u in its shard, %u in the whole batch", g, ep[g], ep_whole[g]);
        cr_assert_eq(ep[g], expect[g], "world %d: episode %u, expected %u", g, ep[g], expect[g]);
    }
    /* the run's hash from the shards' world hashes */
    uint64_t h = 0;
    cr_assert_eq(tp_batch_state_hash(whole, &h), TP_OK);
    cr_assert_eq(tp_world_hashes_combine(hashes, WORLDS), h);
    /* and the worlds differ from one another: the draws are not all one */
    uint64_t h0 = 0, h1 = 0;
    cr_assert_eq(tp_batch_world_hash(whole, 2, &h0), TP_OK);
    cr_assert_eq(tp_batch_world_hash(whole, 6, &h1), TP_OK);
    cr_assert_neq(h0, h1);
    for (int s = 0; s < 3; ++s) tp_batch_destroy(shard[s]);
    tp_batch_destroy(whole);
    tp_model_destroy(m);
}

Test(shard, a_shard_is_not_the_first_worlds_of_a_batch)
{
    /* worlds 0.. of a batch from world 0 draw as the first worlds of the run, not as 4.. */
    tp_model *m = load();
    tp_batch *whole = make(m, 0, WORLDS, 0), *plain = make(m, 0, 3, WORLDS);
    uint64_t a, b;
    cr_assert_eq(tp_batch_world_hash(whole, 4, &a), TP_OK);
    cr_assert_eq(tp_batch_world_hash(plain, 0, &b), TP_OK);
    cr_assert_neq(a, b);
    cr_assert_eq(tp_batch_first_world(plain), 0);
    tp_batch *s = make(m, 4, 3, WORLDS);
    cr_assert_eq(tp_batch_first_world(s), 4);
    cr_assert_eq(tp_batch_worlds(s), 3);
    tp_batch_destroy(s);
    tp_batch_destroy(plain);
    tp_batch_destroy(whole);
    tp_model_destroy(m);
}

static void expect_error(const tp_model *m, tp_batch_def d, tp_status status, const char *words)
{
    tp_batch *b = (tp_batch *)1;
    cr_assert_eq(tp_batch_create(m, &d, &b), status, "expected %s, got: %s", tp_status_name(status), tp_last_error());
    cr_assert_null(b);
    cr_assert(strstr(tp_last_error(), words), "\"%s\" not in: %s", words, tp_last_error());
}

Test(shard, bad_fields_are_named)
{
    tp_model *m = load();
    tp_batch_def d = tp_default_batch_def();
    d.worlds = 3;
    d.first_world = -1;
    expect_error(m, d, TP_ERR_INVALID_ARGUMENT, "first_world: must be >= 0, got -1");
    d.first_world = 4;
    d.total_worlds = 6;
    expect_error(m, d, TP_ERR_INVALID_ARGUMENT, "total_worlds: 6 is fewer than first_world + worlds = 4 + 3");
    d.first_world = 2147483647 - 1;
    d.total_worlds = 0;
    expect_error(m, d, TP_ERR_INVALID_ARGUMENT, "first_world + worlds");
    /* an event's world past the run: the scene lists world 8, so a run of 8 worlds is refused */
    d.first_world = 0;
    d.total_worlds = 8;
    expect_error(m, d, TP_ERR_INVALID_ARGUMENT, "worlds[3] = 8, but the sharded run (total_worlds) has 8 worlds");
    d.total_worlds = 0;
    d.worlds = 8;
    expect_error(m, d, TP_ERR_INVALID_ARGUMENT, "worlds[3] = 8, but the batch has 8 worlds");
    /* the device field */
    d.worlds = 9;
    d.device = -2;
    expect_error(m, d, TP_ERR_INVALID_ARGUMENT, "device: must be >= 0, got -2");
    d.device = 1;
    expect_error(m, d, TP_ERR_INVALID_ARGUMENT, "device: 1 asked for, but the backend is cpu");
    d.backend = TP_BACKEND_CUDA;
    d.device = 0;
    if (tp_cuda_device_count() == 0) /* this machine: no device (or no CUDA backend) */
        expect_error(m, d, TP_ERR_BACKEND, "backend cuda");
    d.device = 4096; /* no machine has it */
    expect_error(m, d, TP_ERR_BACKEND, tp_cuda_device_count() > 0 ? "CUDA device 4096 does not exist" : "backend cuda");
    tp_model_destroy(m);
}

/* Arrays of one state field: the worlds of shard a, then those of shard b. */
static void *concat(const void *a, size_t na, const void *b, size_t nb)
{
    char *out = malloc(na + nb);
    cr_assert_not_null(out);
    memcpy(out, a, na);
    memcpy(out + na, b, nb);
    return out;
}

/* tp_render_state draws worlds gathered from two shards (what `torpor run`'s
 * rank 0 does for snapshot.png) to the bytes tp_batch_render draws from one
 * batch of all the worlds. */
Test(shard, render_state_of_gathered_shards_equals_render_of_one_batch)
{
    if (!tp_render_available()) cr_skip_test("built without cairo");
    tp_model *m = load();
    tp_batch *whole = make(m, 0, WORLDS, 0), *lo = make(m, 0, 4, WORLDS), *hi = make(m, 4, WORLDS - 4, WORLDS);
    tp_batch *all[3] = {whole, lo, hi};
    for (int i = 0; i < 3; ++i) cr_assert_eq(tp_batch_step(all[i], 100), TP_OK, "%s", tp_last_error());
    tp_state_view a, b, g;
    cr_assert_eq(tp_batch_state(lo, &a), TP_OK);
    cr_assert_eq(tp_batch_state(hi, &b), TP_OK);
    memset(&g, 0, sizeof g);
    g.worlds = WORLDS;
    g.bodies = a.bodies;
    size_t na = (size_t)a.worlds * (size_t)a.bodies, nb = (size_t)b.worlds * (size_t)b.bodies;
    g.pos = concat(a.pos, 3 * na * sizeof(float), b.pos, 3 * nb * sizeof(float));
    g.quat = concat(a.quat, 4 * na * sizeof(float), b.quat, 4 * nb * sizeof(float));
    g.sleep_state = concat(a.sleep_state, na, b.sleep_state, nb);
    g.removed = concat(a.removed, na, b.removed, nb);
    size_t wa = (size_t)a.worlds * sizeof(int32_t), wb = (size_t)b.worlds * sizeof(int32_t);
    g.awake_count = concat(a.awake_count, wa, b.awake_count, wb);
    g.sleeping_count = concat(a.sleeping_count, wa, b.sleeping_count, wb);
    g.checking_count = concat(a.checking_count, wa, b.checking_count, wb);
    tp_render_def rd = tp_default_render_def();
    const int worlds[3] = {8, 1, 5}; /* both shards, out of order */
    rd.width = 300;
    rd.height = 200;
    rd.worlds = worlds;
    rd.world_count = 3;
    rd.labels = 1;
    rd.title = "gathered";
    size_t bytes = (size_t)rd.width * (size_t)rd.height * 3;
    uint8_t *one = malloc(bytes), *gathered = malloc(bytes);
    cr_assert_eq(tp_batch_render(whole, &rd, one), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_render_state(m, &g, &rd, gathered), TP_OK, "%s", tp_last_error());
    cr_assert(memcmp(one, gathered, bytes) == 0, "the gathered view draws other pixels than the one batch");
    /* a view that does not belong to the model is refused, rgb untouched */
    g.bodies = a.bodies - 1;
    memset(gathered, 7, bytes);
    cr_assert_eq(tp_render_state(m, &g, &rd, gathered), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_render_state: the view has 9 worlds of 6 bodies (the model has 7 bodies)"),
              "%s", tp_last_error());
    cr_assert_eq(gathered[0], 7);
    free((void *)g.pos), free((void *)g.quat), free((void *)g.sleep_state), free((void *)g.removed);
    free((void *)g.awake_count), free((void *)g.sleeping_count), free((void *)g.checking_count);
    free(one), free(gathered);
    for (int i = 0; i < 3; ++i) tp_batch_destroy(all[i]);
    tp_model_destroy(m);
}
