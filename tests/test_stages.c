/* test_stages.c - the CUDA backend's plan, run on the CPU.
 *
 * kernels/cuda/ runs kernels/step.h's stage list stage-major: each stage for
 * every world, then the next, each as the list's launch column says (a
 * thread per world; a block per world whose threads share the stage with a
 * barrier after each phase, v and w in "shared memory"; the contact sort, a
 * block per world up to TP_SORT_BLOCK_MAX contacts and otherwise one sort of
 * every world's keys at once), with the busy-only stages skipped when
 * no world is busy (the conditional node) and otherwise launched over the
 * compacted list of busy worlds (tp_busy_list_kernel: the busy worlds in
 * increasing order), not over every world. Without a GPU the kernels cannot
 * run, but the plan can: this file walks the same list with the same stage
 * functions on the host (a block is an OpenMP team whose TP_BARRIER is "omp
 * barrier", the block sort is tp_radix_sort_u64 over the world's padded tile,
 * the global sort tp_radix_sort_u64 over every world's keys) and
 * checks that it gives the bits of tp_batch_step, which runs the list
 * world-major. What it does not test is the .cu itself (launches, graph, CUB):
 * that needs a GPU (tests/gpu/run.sh). Teams are small because CI machines
 * have few cores and a barrier-heavy team on an oversubscribed machine is
 * slow; a team of 3 already shares colors among threads. Replacing the
 * barrier by nothing makes every case here fail (checked by hand). */
#define TP_BARRIER(nth)                                                                                                \
    do {                                                                                                               \
        if ((nth) > 1) {                                                                                               \
            _Pragma("omp barrier")                                                                                     \
        }                                                                                                              \
    } while (0)

#include "batch.h"
#include "cub_sort.h"
#include "events.h" /* tp_events_apply_due */
#include "helpers.h"
#include "step.h"

#include <omp.h>

/* The device-only arrays of kernels/cuda/, on the host. */
typedef struct emu {
    char *scratch;                  /* [W] one world's step scratch each */
    size_t scratch_bytes;
    uint64_t *keys_in, *keys_out, *tmp_keys;
    int32_t *slots_in, *slots_out, *tmp_slots;
    float *vw;                      /* the "shared memory" of one block */
    int32_t *busy_list;             /* [W] the busy worlds, as tp_busy_list_kernel makes it */
    int32_t *perm;                  /* [capacity] one world's sorted slots (block sort) */
    int busy_count;
} emu;

static void emu_init(emu *e, const tp_batch *b)
{
    size_t W = (size_t)b->worlds, items = W * (size_t)b->contact_capacity;
    size_t buf = items > TP_SORT_BLOCK_MAX ? items : TP_SORT_BLOCK_MAX; /* a block sort's tile fits too */
    e->scratch_bytes = tp_solver_align(tp_step_scratch_bytes(b->bodies, b->contact_capacity));
    e->scratch = aligned_alloc(16, e->scratch_bytes * W);
    e->keys_in = malloc(items * sizeof(uint64_t));
    e->keys_out = malloc(buf * sizeof(uint64_t));
    e->tmp_keys = malloc(buf * sizeof(uint64_t));
    e->slots_in = malloc(items * sizeof(int32_t));
    e->slots_out = malloc(buf * sizeof(int32_t));
    e->tmp_slots = malloc(buf * sizeof(int32_t));
    e->vw = malloc(6 * (size_t)b->bodies * sizeof(float));
    e->busy_list = malloc(W * sizeof(int32_t));
    e->perm = malloc((size_t)b->contact_capacity * sizeof(int32_t) + 1);
    cr_assert(e->scratch && e->keys_in && e->keys_out && e->tmp_keys && e->slots_in && e->slots_out && e->tmp_slots &&
              e->vw && e->busy_list && e->perm);
    for (size_t i = 0; i < items; ++i) { /* tp_sort_init_kernel */
        e->keys_in[i] = tp_world_sentinel_key((int)(i / (size_t)b->contact_capacity));
        e->slots_in[i] = (int32_t)(i % (size_t)b->contact_capacity);
    }
}

static void emu_free(emu *e)
{
    free(e->scratch);
    free(e->keys_in);
    free(e->keys_out);
    free(e->tmp_keys);
    free(e->slots_in);
    free(e->slots_out);
    free(e->tmp_slots);
    free(e->vw);
    free(e->busy_list);
    free(e->perm);
}

static tp_world_step step_of(tp_batch *b, emu *e, int w)
{
    return tp_world_step_at(&b->layout, w, b->current, e->scratch + (size_t)w * e->scratch_bytes);
}

/* The world that item i (a thread, or a block) of `stage`'s launch works on,
 * -1 if none: a busy-only stage launches over the busy list, the others over
 * every world (world_of_item in kernels/cuda/stages.cu). The launch has W
 * items either way (its size is fixed when the graph is captured). */
static int world_of_item(const tp_batch *b, const emu *e, int stage, int i)
{
    if (!tp_stage_runs(stage, TP_WORK_IDLE)) return i < e->busy_count ? e->busy_list[i] : -1;
    return i < b->worlds ? i : -1;
}

/* tp_busy_list_kernel: the worlds whose plan is busy, in increasing order.
 * Returns 1 if there is one (the IF node's condition). */
static int make_busy_list(tp_batch *b, emu *e)
{
    e->busy_count = 0;
    for (int w = 0; w < b->worlds; ++w)
        if (step_of(b, e, w).rec->work == TP_WORK_BUSY) e->busy_list[e->busy_count++] = w;
    return e->busy_count > 0;
}

/* TP_LAUNCH_WORLD: a thread per item (tp_world_stage_kernel). */
static void launch_world(tp_batch *b, emu *e, int stage, const tp_step_params *p)
{
    for (int i = 0; i < b->worlds; ++i) {
        int w = world_of_item(b, e, stage, i);
        if (w < 0) continue;
        tp_world_step s = step_of(b, e, w);
        if (stage == TP_STEP_PLAN || tp_stage_runs(stage, s.rec->work)) tp_stage_run(stage, &s, p, 0, 1);
    }
}

/* TP_LAUNCH_BLOCK: a team of nth per item, v and w in "shared memory"
 * (tp_block_stage_kernel). */
static void launch_block(tp_batch *b, emu *e, int stage, const tp_step_params *p, int nth)
{
    int nv = 3 * b->bodies;
    for (int i = 0; i < b->worlds; ++i) {
        int w = world_of_item(b, e, stage, i);
        if (w < 0 || !tp_stage_runs(stage, step_of(b, e, w).rec->work)) continue;
#pragma omp parallel num_threads(nth)
        {
            int tid = omp_get_thread_num(), team = omp_get_num_threads();
            tp_world_step s = step_of(b, e, w);
            float *vg = s.wd.v, *wg = s.wd.w;
            for (int k = tid; k < nv; k += team) {
                e->vw[k] = vg[k];
                e->vw[nv + k] = wg[k];
            }
            s.wd.v = e->vw;
            s.wd.w = e->vw + nv;
            TP_BARRIER(team);
            tp_stage_run(stage, &s, p, tid, team);
            TP_BARRIER(team);
            for (int k = tid; k < nv; k += team) {
                vg[k] = e->vw[k];
                wg[k] = e->vw[nv + k];
            }
        }
    }
}

/* TP_LAUNCH_SORT, per world (capacity <= TP_SORT_BLOCK_MAX;
 * tp_block_sort_kernel): a block per listed world sorts its own tile, the
 * n keys then UINT64_MAX up to the tile, with slots 0 .. tile - 1, stably over
 * all 64 bits (CUB BlockRadixSort); the first n sorted slots permute the
 * contacts. The tile is the smallest of 256, 1,024, 4,096 that holds the
 * capacity, as tp_launch_block_sort picks it. */
static void launch_block_sort(tp_batch *b, emu *e)
{
    int cap = b->contact_capacity, tile = cap <= 256 ? 256 : cap <= 1024 ? 1024 : TP_SORT_BLOCK_MAX;
    for (int i = 0; i < b->worlds; ++i) {
        int w = world_of_item(b, e, TP_STEP_SORT, i);
        if (w < 0) continue;
        tp_world_step s = step_of(b, e, w);
        if (s.rec->work != TP_WORK_BUSY) continue;
        int n = *s.contact_count;
        for (int k = 0; k < tile; ++k) {
            e->keys_out[k] = k < n ? s.contacts[k].key : UINT64_MAX;
            e->slots_out[k] = k;
        }
        tp_radix_sort_u64(e->keys_out, e->slots_out, e->tmp_keys, e->tmp_slots, tile, 0, 8);
        for (int k = 0; k < n; ++k) /* the real keys come first, in order */
            cr_assert(e->keys_out[k] != UINT64_MAX && (k == 0 || e->keys_out[k - 1] <= e->keys_out[k]));
        memcpy(e->perm, e->slots_out, (size_t)n * sizeof(int32_t)); /* d.slots_out's segment on the device */
        tp_contacts_permute(s.contacts, n, e->perm);
    }
}

/* TP_LAUNCH_SORT, global (capacity > TP_SORT_BLOCK_MAX): keys exported per
 * listed world, one stable sort of every world's keys (CUB SortPairs: stable,
 * all 64 bits), contacts permuted per listed world. */
static void launch_sort(tp_batch *b, emu *e)
{
    if (b->contact_capacity <= TP_SORT_BLOCK_MAX) {
        launch_block_sort(b, e);
        return;
    }
    size_t cap = (size_t)b->contact_capacity, items = (size_t)b->worlds * cap;
    for (int i = 0; i < b->worlds; ++i) {
        int w = world_of_item(b, e, TP_STEP_SORT, i);
        if (w < 0) continue;
        tp_world_step s = step_of(b, e, w);
        if (s.rec->work == TP_WORK_BUSY)
            tp_contact_keys_export(s.contacts, *s.contact_count, w, b->contact_capacity, e->keys_in + (size_t)w * cap);
    }
    memcpy(e->keys_out, e->keys_in, items * sizeof(uint64_t));
    memcpy(e->slots_out, e->slots_in, items * sizeof(int32_t));
    tp_radix_sort_u64(e->keys_out, e->slots_out, e->tmp_keys, e->tmp_slots, (int)items, 0, 8);
    for (int i = 0; i < b->worlds; ++i) {
        int w = world_of_item(b, e, TP_STEP_SORT, i);
        if (w < 0) continue;
        tp_world_step s = step_of(b, e, w);
        if (s.rec->work != TP_WORK_BUSY) continue;
        for (int k = 0; k < *s.contact_count; ++k) /* world w's sorted keys stay in its own segment */
            cr_assert_eq(tp_contact_key_world(e->keys_out[(size_t)w * cap + (size_t)k]), w);
        tp_contacts_permute(s.contacts, *s.contact_count, e->slots_out + (size_t)w * cap);
    }
}

/* Steps in which some worlds were busy and some not (the busy list has gaps). */
static int mixed_steps;

/* One step as kernels/cuda/graph.cu captures it; nth threads per block. */
static void emu_step(tp_batch *b, emu *e, int nth)
{
    tp_step_params p = tp_batch_step_params(b);
    int any_busy = 0;
    e->busy_count = 0;
    for (int stage = 0; stage < TP_STEP_STAGE_COUNT; ++stage) {
        if (stage == TP_STEP_PLAN + 1) { /* tp_busy_list_kernel, and the IF node's condition */
            any_busy = make_busy_list(b, e);
            mixed_steps += any_busy && e->busy_count < b->worlds;
        }
        if (!tp_stage_runs(stage, TP_WORK_IDLE) && !any_busy) continue; /* inside the skipped IF body */
        switch (tp_stage_launch(stage)) {
        case TP_LAUNCH_WORLD: launch_world(b, e, stage, &p); break;
        case TP_LAUNCH_BLOCK: launch_block(b, e, stage, &p, nth); break;
        case TP_LAUNCH_SORT: launch_sort(b, e); break;
        default: cr_assert_fail("stage %d: unknown launch", stage);
        }
    }
    b->current = 1 - b->current;
}

/* `steps` steps of `scene` in `worlds` worlds, by tp_batch_step and by the
 * stage emulation with nth threads per block: every world hash equal.
 * capacity: contacts per world (0: the default). kick_step >= 0: before that
 * step, an upward impulse of 1 N s on the last body of worlds 1 and
 * worlds - 2 in both batches. Returns the overflow count. */
static long compare_kicked(const char *scene, int worlds, int steps, int nth, int capacity, int kick_step)
{
    long overflow = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TP_SOURCE_DIR, scene);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = worlds;
    bd.threads = 1;
    bd.backend = TP_BACKEND_CPU;
    bd.contact_capacity = capacity;
    tp_batch *ref = NULL, *emb = NULL;
    cr_assert_eq(tp_batch_create(m, &bd, &ref), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_create(m, &bd, &emb), TP_OK, "%s", tp_last_error());
    emu e;
    emu_init(&e, emb);
    omp_set_dynamic(0);
    for (int s = 0; s < steps; ++s) {
        if (s == kick_step) {
            const float up[3] = {0.0f, 0.0f, 1.0f};
            int kicked[2] = {1, worlds - 2};
            for (int k = 0; k < 2; ++k) {
                cr_assert_eq(tp_batch_apply_impulse(ref, kicked[k], tp_batch_bodies(ref) - 1, up, NULL), TP_OK);
                cr_assert_eq(tp_batch_apply_impulse(emb, kicked[k], tp_batch_bodies(emb) - 1, up, NULL), TP_OK);
            }
        }
        cr_assert_eq(tp_batch_step(ref, 1), TP_OK, "%s", tp_last_error());
        cr_assert_eq(tp_events_apply_due(emb), TP_OK, "%s", tp_last_error());
        emu_step(emb, &e, nth);
        emb->step_count++;
    }
    for (int w = 0; w < worlds; ++w) {
        uint64_t h_ref = 0, h_emu = 0;
        cr_assert_eq(tp_batch_world_hash(ref, w, &h_ref), TP_OK);
        cr_assert_eq(tp_batch_world_hash(emb, w, &h_emu), TP_OK);
        cr_expect_eq(h_emu, h_ref, "%s world %d after %d steps, %d threads per block: stages %016llx, step %016llx",
                     scene, w, steps, nth, (unsigned long long)h_emu, (unsigned long long)h_ref);
        cr_expect_eq(emb->contact_overflow[w], ref->contact_overflow[w]);
        overflow += ref->contact_overflow[w];
        cr_expect_eq(emb->awake_count[w], ref->awake_count[w]);
    }
    emu_free(&e);
    tp_batch_destroy(ref);
    tp_batch_destroy(emb);
    tp_model_destroy(m);
    return overflow;
}

static long compare(const char *scene, int worlds, int steps, int nth, int capacity)
{
    return compare_kicked(scene, worlds, steps, nth, capacity, -1);
}

Test(stages, heap20_matches_step)
{
    compare("tests/scenes/heap20.json", 6, 100, 1, 0);
    compare("tests/scenes/heap20.json", 4, 80, 3, 0);
}

Test(stages, pyramid_colors_in_parallel)
{
    compare("scenes/pyramid.json", 1, 60, 4, 0);
}

Test(stages, sleep_and_wake_events)
{
    compare("tests/scenes/sleep/c08_impulse.json", 2, 240, 2, 0);
    compare("tests/scenes/sleep/c05_remove_support.json", 2, 240, 2, 0);
    compare("tests/scenes/sleep/c09_pass_by.json", 2, 240, 2, 0);
}

/* Contact capacity above TP_SORT_BLOCK_MAX: the sort stage takes the global
 * form (every world's keys in one sort) instead of a block per world. */
Test(stages, global_sort_above_block_tiles)
{
    compare("tests/scenes/heap20.json", 3, 60, 2, TP_SORT_BLOCK_MAX + 1);
}

Test(stages, contact_overflow)
{
    long overflow = compare("tests/scenes/heap20.json", 2, 60, 3, 24); /* far below what the heap needs */
    cr_expect_gt(overflow, 0, "the capacity was meant to overflow");
}

/* A settled tower (asleep well before 4 s) in 6 worlds; two of them are kicked
 * awake, so for a while the busy list holds worlds 1 and 4 only and the
 * busy-only stages run on those two through the list. */
Test(stages, busy_list_with_gaps)
{
    mixed_steps = 0;
    compare_kicked("scenes/tower.json", 6, 300, 2, 0, 240);
    cr_expect_gt(mixed_steps, 0, "no step had some worlds busy and others idle: the list was never partial");
}
