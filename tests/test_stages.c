/* test_stages.c - the CUDA backend's stage decomposition, run on the CPU.
 *
 * kernels/cuda_backend.cu splits a step into stage kernels: has-work flags,
 * unsorted collision with per-world sentinel keys, one stable sort of every
 * world's keys (CUB on the device), a gather by the sorted slots, islands and
 * wakes, warm-start match, coloring, then the substeps with one thread block
 * per world (tp_solver_substeps_block, colors shared among the threads with a
 * barrier after each), then the finish. Without a GPU the kernels cannot run,
 * but the decomposition can: this file replays the same sequence of kernels/
 * calls on the host (the global sort by tp_radix_sort_u64, a thread block by
 * an OpenMP team whose TP_BARRIER is "omp barrier", the shared-memory copy of
 * v and w included) and checks that it gives the bits of tp_batch_step.
 * What it does not test is the .cu itself (launches, graph, CUB): that needs
 * a GPU (tests/gpu/run.sh). Teams are small because CI machines have few
 * cores and a barrier-heavy team on an oversubscribed machine is slow; a
 * team of 3 already shares colors among threads. Replacing the barrier by
 * nothing makes every case here fail (checked by hand). */
#define TP_BARRIER(nth)                                                                                                \
    do {                                                                                                               \
        if ((nth) > 1) {                                                                                               \
            _Pragma("omp barrier")                                                                                     \
        }                                                                                                              \
    } while (0)

#include "batch.h"
#include "helpers.h"
#include "world_step.h"

#include <omp.h>

#define WORK_FAULTED 0
#define WORK_IDLE 1
#define WORK_BUSY 2

/* The device-only arrays of kernels/cuda_backend.cu, on the host. */
typedef struct emu {
    char *scratch;
    size_t collide_bytes, solver_bytes, scratch_bytes;
    uint8_t *work;
    int32_t *step_overflow;
    uint64_t *keys_in, *keys_out, *tmp_keys;
    int32_t *slots_in, *slots_out, *tmp_slots;
    float *vw; /* the "shared memory" of one block */
} emu;

static uint64_t world_sentinel(int w)
{
    return ((uint64_t)(uint32_t)w << TP_KEY_WORLD_SHIFT) | ((UINT64_C(1) << TP_KEY_WORLD_SHIFT) - 1u);
}

static void emu_init(emu *e, const tp_batch *b)
{
    size_t W = (size_t)b->worlds, items = W * (size_t)b->contact_capacity;
    e->collide_bytes = tp_solver_align(tp_collide_scratch_bytes(b->bodies, b->contact_capacity));
    e->solver_bytes = tp_solver_align(tp_solver_scratch_bytes(b->bodies, b->contact_capacity));
    e->scratch_bytes = e->collide_bytes + e->solver_bytes + tp_solver_align(tp_island_scratch_bytes(b->bodies));
    e->scratch = aligned_alloc(16, e->scratch_bytes * W);
    e->work = calloc(W, 1);
    e->step_overflow = calloc(W, sizeof(int32_t));
    e->keys_in = malloc(items * sizeof(uint64_t));
    e->keys_out = malloc(items * sizeof(uint64_t));
    e->tmp_keys = malloc(items * sizeof(uint64_t));
    e->slots_in = malloc(items * sizeof(int32_t));
    e->slots_out = malloc(items * sizeof(int32_t));
    e->tmp_slots = malloc(items * sizeof(int32_t));
    e->vw = malloc(6 * (size_t)b->bodies * sizeof(float));
    cr_assert(e->scratch && e->work && e->step_overflow && e->keys_in && e->keys_out && e->tmp_keys && e->slots_in &&
              e->slots_out && e->tmp_slots && e->vw);
    for (size_t i = 0; i < items; ++i) { /* tp_sort_init_kernel */
        e->keys_in[i] = world_sentinel((int)(i / (size_t)b->contact_capacity));
        e->slots_in[i] = (int32_t)(i % (size_t)b->contact_capacity);
    }
}

static void emu_free(emu *e)
{
    free(e->scratch);
    free(e->work);
    free(e->step_overflow);
    free(e->keys_in);
    free(e->keys_out);
    free(e->tmp_keys);
    free(e->slots_in);
    free(e->slots_out);
    free(e->tmp_slots);
    free(e->vw);
}

static tp_world_buffers buffers(tp_batch *b, emu *e, int w)
{
    size_t cap = (size_t)b->contact_capacity;
    int cur = b->current;
    char *s = e->scratch + (size_t)w * e->scratch_bytes;
    tp_world_buffers buf;
    buf.contacts = b->contacts[1 - cur] + (size_t)w * cap;
    buf.previous = b->contacts[cur] + (size_t)w * cap;
    buf.prev_count = b->contact_count[cur][w];
    buf.capacity = b->contact_capacity;
    buf.collide_scratch = s;
    buf.solver_scratch = s + e->collide_bytes;
    buf.island_scratch = s + e->collide_bytes + e->solver_bytes;
    buf.contact_count = buf.overflow = 0;
    return buf;
}

/* One step as kernels/cuda_backend.cu's graph runs it; nth threads per "block". */
static void emu_step(tp_batch *b, emu *e, int nth)
{
    tp_step_params p = tp_batch_step_params(b);
    int W = b->worlds, cap = b->contact_capacity, next = 1 - b->current;
    unsigned any = 0;
    for (int w = 0; w < W; ++w) { /* tp_has_work_kernel */
        tp_world wd = tp_batch_world(b, w);
        e->work[w] = b->faults[w] ? WORK_FAULTED : tp_world_has_work(&wd) ? WORK_BUSY : WORK_IDLE;
        any |= e->work[w] == WORK_BUSY;
    }
    if (any) { /* the IF node's body */
        for (int w = 0; w < W; ++w) { /* tp_collide_kernel */
            if (e->work[w] != WORK_BUSY) continue;
            tp_world wd = tp_batch_world(b, w);
            tp_world_buffers buf = buffers(b, e, w);
            tp_island_work iw = tp_island_work_at(buf.island_scratch, b->bodies);
            tp_world_save_v_start(&wd, iw.v_start);
            int over = 0, n = tp_collide_world_unsorted(&wd, buf.collide_scratch, buf.contacts, cap, &over);
            e->step_overflow[w] = over;
            b->contact_count[next][w] = n;
            uint64_t *keys = e->keys_in + (size_t)w * (size_t)cap;
            for (int i = 0; i < n; ++i) keys[i] = buf.contacts[i].key;
            for (int i = n; i < cap; ++i) keys[i] = world_sentinel(w);
        }
        size_t items = (size_t)W * (size_t)cap; /* CUB SortPairs: stable, all 64 bits */
        memcpy(e->keys_out, e->keys_in, items * sizeof(uint64_t));
        memcpy(e->slots_out, e->slots_in, items * sizeof(int32_t));
        tp_radix_sort_u64(e->keys_out, e->slots_out, e->tmp_keys, e->tmp_slots, (int)items, 0, 8);
        for (int w = 0; w < W; ++w) { /* tp_islands_kernel */
            if (e->work[w] != WORK_BUSY) continue;
            tp_world wd = tp_batch_world(b, w);
            tp_world_buffers buf = buffers(b, e, w);
            tp_island_work iw = tp_island_work_at(buf.island_scratch, b->bodies);
            int n = b->contact_count[next][w];
            for (int i = 0; i < n; ++i) /* world w's sorted keys stay in its own segment */
                cr_assert_eq(tp_contact_key_world(e->keys_out[(size_t)w * (size_t)cap + (size_t)i]), w);
            tp_contacts_permute(buf.contacts, n, e->slots_out + (size_t)w * (size_t)cap);
            buf.overflow = e->step_overflow[w];
            n = tp_world_islands_and_wake(&wd, &buf, n, p.solver.dt, iw.parent, iw.root_flags);
            if (p.solver.warm_starting) tp_match_impulses(buf.contacts, n, buf.previous, buf.prev_count);
            b->contact_count[next][w] = n;
            b->contact_overflow[w] += buf.overflow;
        }
        for (int w = 0; w < W; ++w) { /* tp_color_kernel */
            if (e->work[w] != WORK_BUSY) continue;
            tp_world wd = tp_batch_world(b, w);
            tp_world_buffers buf = buffers(b, e, w);
            tp_solver_work sw = tp_solver_work_at(buf.solver_scratch, b->bodies, cap);
            tp_solver_color(&wd, buf.contacts, b->contact_count[next][w], &sw, &p.solver);
        }
        for (int w = 0; w < W; ++w) { /* tp_solve_kernel: one block per world */
            if (e->work[w] != WORK_BUSY) continue;
            int nv = 3 * b->bodies;
#pragma omp parallel num_threads(nth)
            {
                int tid = omp_get_thread_num(), team = omp_get_num_threads();
                tp_world wd = tp_batch_world(b, w);
                tp_world_buffers buf = buffers(b, e, w);
                tp_solver_work sw = tp_solver_work_at(buf.solver_scratch, b->bodies, cap);
                float *vg = wd.v, *wg = wd.w;
                for (int k = tid; k < nv; k += team) {
                    e->vw[k] = vg[k];
                    e->vw[nv + k] = wg[k];
                }
                wd.v = e->vw;
                wd.w = e->vw + nv;
                TP_BARRIER(team);
                tp_solver_substeps_block(&wd, buf.contacts, b->contact_count[next][w], &sw, &p.solver, tid, team);
                TP_BARRIER(team);
                for (int k = tid; k < nv; k += team) {
                    vg[k] = e->vw[k];
                    wg[k] = e->vw[nv + k];
                }
            }
        }
    }
    for (int w = 0; w < W; ++w) { /* tp_finish_kernel */
        if (e->work[w] == WORK_FAULTED) {
            b->contact_count[next][w] = 0;
            continue;
        }
        tp_world wd = tp_batch_world(b, w);
        if (e->work[w] == WORK_IDLE) {
            tp_world_step_idle(&wd);
            b->contact_count[next][w] = 0;
        } else {
            tp_world_buffers buf = buffers(b, e, w);
            tp_island_work iw = tp_island_work_at(buf.island_scratch, b->bodies);
            tp_solver_work sw = tp_solver_work_at(buf.solver_scratch, b->bodies, cap);
            if (!tp_world_step_finish(&wd, &p, buf.contacts, b->contact_count[next][w], sw.rows, iw.v_start,
                                      iw.root_flags))
                b->faults[w] = 1;
        }
        tp_world_count(&wd, b->awake_count + w, b->sleeping_count + w, b->checking_count + w);
    }
    b->current = next;
}

/* `steps` steps of `scene` in `worlds` worlds, by tp_batch_step and by the
 * stage emulation with nth threads per block: every world hash equal.
 * capacity: contacts per world (0: the default). Returns the overflow count. */
static long compare(const char *scene, int worlds, int steps, int nth, int capacity)
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

Test(stages, contact_overflow)
{
    long overflow = compare("tests/scenes/heap20.json", 2, 60, 3, 24); /* far below what the heap needs */
    cr_expect_gt(overflow, 0, "the capacity was meant to overflow");
}
