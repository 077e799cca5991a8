/* test_stages.c - the CUDA backend's plan, run on the CPU.
 *
 * kernels/cuda/ runs kernels/step.h's stage list stage-major: each stage for
 * every world, then the next, each as the list's launch column says (a
 * thread per world; for the solve a group of lanes per world, several worlds
 * per block, the world's hot data staged in "shared memory" as
 * kernels/solve_group.h plans it, and the islands stage in the same groups;
 * the collide stage by candidate pairs, kernels/collide_pairs.h, its pairs
 * listed by a group of lanes per world as kernels/broadphase.h's
 * tp_broadphase_pairs_lanes and checked pair by pair against the CPU's sweep;
 * the wake stage as its two launches, the contact wakes and the re-collision
 * of the worlds that woke; the contact
 * sort, a block per world up to TP_SORT_BLOCK_MAX contacts and otherwise one
 * sort of every world's keys at once), with the busy-only stages skipped when no world is busy (the
 * conditional node) and otherwise launched over the compacted list of busy
 * worlds (tp_busy_list_kernel: the busy worlds in increasing order), not over
 * every world. Without a GPU the kernels cannot run, but the plan can: this
 * file walks the same list with the same stage functions on the host and
 * checks that it gives the bits of tp_batch_step, which runs the list
 * world-major. The block sort is tp_radix_sort_u64 over the world's padded
 * tile, the global sort tp_radix_sort_u64 over every world's keys.
 *
 * A group's lanes run as coroutines (ucontext) on one thread: lane 0 runs to
 * its first TP_BARRIER, then lane 1 to its first, ..., then lane 0 on to its
 * second, and so on; every other group launch runs the lanes in decreasing
 * order instead. So between two barriers the lanes' work is done one lane
 * after the other, in either order, exactly the decomposition the device runs
 * in parallel: if one lane read what another wrote in the same phase (a
 * missing barrier, two constraints of a color sharing a body), the two orders
 * and tp_batch_step would disagree. Every lane must reach the same number of
 * barriers (a divergent barrier hangs a GPU): checked at every launch.
 * Replacing the barrier by nothing makes every case here fail (checked by
 * hand). What it does not test is the .cu itself (launches, graph, CUB,
 * __syncwarp and bar.sync): that needs a GPU (tests/gpu/run.sh). */
#define _GNU_SOURCE /* ucontext */
static void lane_barrier(void);
#define TP_BARRIER(nth)                                                                                                \
    do {                                                                                                               \
        if ((nth) > 1) lane_barrier();                                                                                 \
    } while (0)

#include "batch.h"
#include "cub_sort.h"
#include "events.h" /* tp_events_apply_due */
#include "helpers.h"
#include "collide_pairs.h"
#include "solve_group.h"
#include "step.h"

#include <ucontext.h>

/* ---------------------------------------------------------------- lanes as coroutines */

#define LANE_STACK (256 * 1024)

typedef struct lane_sched {
    ucontext_t main, ctx[TP_SOLVE_MAX_LANES];
    char *stacks;                     /* [TP_SOLVE_MAX_LANES][LANE_STACK] */
    int n, reverse, cur, finished;
    int done[TP_SOLVE_MAX_LANES];
    long barriers[TP_SOLVE_MAX_LANES];
    void (*fn)(void *arg, int lane);
    void *arg;
} lane_sched;

static lane_sched *running; /* the group being run, NULL outside */

/* Hand over to the next lane (in the launch's order) that has not finished;
 * back to the caller of lanes_run when all have. */
static void lane_switch(void)
{
    lane_sched *S = running;
    int from = S->cur, to = from;
    if (S->finished == S->n) setcontext(&S->main);
    do to = S->reverse ? (to + S->n - 1) % S->n : (to + 1) % S->n;
    while (S->done[to]);
    S->cur = to;
    swapcontext(&S->ctx[from], &S->ctx[to]);
}

static void lane_barrier(void)
{
    running->barriers[running->cur]++;
    lane_switch();
}

static void lane_entry(void)
{
    lane_sched *S = running;
    int lane = S->cur;
    S->fn(S->arg, lane);
    S->done[lane] = 1;
    S->finished++;
    lane_switch(); /* never returns */
}

/* Run fn(arg, lane) for lanes 0 .. n - 1 as one group with TP_BARRIER
 * between phases; lanes in increasing order, or decreasing when reverse. */
static void lanes_run(lane_sched *S, int n, int reverse, void (*fn)(void *, int), void *arg)
{
    cr_assert(n >= 1 && n <= TP_SOLVE_MAX_LANES);
    S->n = n;
    S->reverse = reverse;
    S->finished = 0;
    S->fn = fn;
    S->arg = arg;
    for (int l = 0; l < n; ++l) {
        S->done[l] = 0;
        S->barriers[l] = 0;
        getcontext(&S->ctx[l]);
        S->ctx[l].uc_stack.ss_sp = S->stacks + (size_t)l * LANE_STACK;
        S->ctx[l].uc_stack.ss_size = LANE_STACK;
        S->ctx[l].uc_link = &S->main;
        makecontext(&S->ctx[l], lane_entry, 0);
    }
    S->cur = reverse ? n - 1 : 0;
    running = S;
    swapcontext(&S->main, &S->ctx[S->cur]);
    running = NULL;
    for (int l = 1; l < n; ++l)
        cr_assert_eq(S->barriers[l], S->barriers[0], "lane %d reached %ld barriers, lane 0 %ld: not uniform", l,
                     S->barriers[l], S->barriers[0]);
}

/* The device-only arrays of kernels/cuda/, on the host. */
typedef struct emu {
    char *scratch;                  /* [W] one world's step scratch each */
    size_t scratch_bytes;
    uint64_t *keys_in, *keys_out, *tmp_keys;
    int32_t *slots_in, *slots_out, *tmp_slots;
    tp_solve_plan plan;             /* the solve's lanes and shared memory (kernels/solve_group.h) */
    char *shared;                   /* the "shared memory" of one block: plan.block_bytes */
    lane_sched sched;
    int reverse;                    /* the next group launch runs its lanes in decreasing order */
    long staged_points, global_points; /* group runs with the contacts and rows in shared memory, and not */
    tp_poly *polys;                 /* [bodies] the model's polytopes (d.polys) */
    tp_pair_slot *pairs;            /* [W][pair_slots] */
    int32_t *pair_count;            /* [W] */
    int32_t *pair_first;            /* [W + 1] the packed pairs' offsets per listed world */
    tp_list_plan list_plan;         /* the listing's lanes and work areas (kernels/collide_pairs.h) */
    char *list_area;                /* a block's shared memory (list_plan.block_bytes), or [W] global work areas */
    int32_t *ref_pairs;             /* [ref_cap][2] one world's pairs by the CPU's sweep */
    int ref_cap;
    int pair_slots;
    long pair_worlds, whole_worlds; /* collide launches by pairs, and worlds collided whole (too many pairs) */
    long again_worlds;              /* worlds that collided again in the wake stage (tp_wake_again_kernel) */
    int32_t *busy_list;             /* [W] the busy worlds, as tp_busy_list_kernel makes it */
    int32_t *perm;                  /* [capacity] one world's sorted slots (block sort) */
    int busy_count;
} emu;

/* sm_90's shared memory per block with the opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin). */
#define SM90_OPTIN (227 * 1024)

/* lanes: per world in the solve; 0: what the device takes for this model. */
static void emu_init(emu *e, const tp_batch *b, int lanes)
{
    if (lanes == 0) lanes = tp_solve_lanes(tp_solve_movers(b->layout.model, b->bodies));
    e->plan = tp_solve_plan_make(b->bodies, b->contact_capacity, lanes, SM90_OPTIN);
    cr_assert_leq(e->plan.block_bytes, (size_t)SM90_OPTIN);
    e->shared = aligned_alloc(16, e->plan.block_bytes);
    e->sched.stacks = malloc((size_t)TP_SOLVE_MAX_LANES * LANE_STACK); /* the solve's lanes or the listing's */
    e->reverse = 0;
    e->staged_points = e->global_points = 0;
    e->pair_slots = tp_pair_capacity(b->contact_capacity);
    e->polys = calloc((size_t)b->bodies, sizeof(tp_poly));
    e->pairs = calloc((size_t)b->worlds * (size_t)e->pair_slots, sizeof(tp_pair_slot));
    e->pair_count = calloc((size_t)b->worlds, sizeof(int32_t));
    e->pair_first = calloc((size_t)b->worlds + 1, sizeof(int32_t));
    cr_assert(e->polys && e->pairs && e->pair_count && e->pair_first);
    tp_build_body_polys(b->layout.model, b->bodies, e->polys);
    e->list_plan = tp_list_plan_make(b->bodies, 0, SM90_OPTIN);
    e->list_area = aligned_alloc(16, e->list_plan.shared ? e->list_plan.block_bytes
                                                          : e->list_plan.world_bytes * (size_t)b->worlds);
    e->ref_cap = b->bodies * (b->bodies - 1) / 2 + 1;
    e->ref_pairs = malloc((size_t)e->ref_cap * 2 * sizeof(int32_t));
    cr_assert(e->list_area && e->ref_pairs);
    e->pair_worlds = e->whole_worlds = 0;
    e->again_worlds = 0;
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
    e->busy_list = malloc(W * sizeof(int32_t));
    e->perm = malloc((size_t)b->contact_capacity * sizeof(int32_t) + 1);
    cr_assert(e->scratch && e->keys_in && e->keys_out && e->tmp_keys && e->slots_in && e->slots_out && e->tmp_slots &&
              e->shared && e->sched.stacks && e->busy_list && e->perm);
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
    free(e->shared);
    free(e->polys);
    free(e->pairs);
    free(e->pair_count);
    free(e->pair_first);
    free(e->list_area);
    free(e->ref_pairs);
    free(e->sched.stacks);
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

/* One group of TP_LAUNCH_GROUP: world w, its part of the block's shared memory. */
typedef struct group_arg {
    tp_batch *b;
    emu *e;
    int stage, w;
    const tp_step_params *p;
    char *shared;
} group_arg;

/* What one lane of the group runs: its own view of the world, as a device
 * thread builds it (tp_group_stage_kernel), then the stage as that lane. */
static void group_lane(void *arg, int lane)
{
    group_arg *g = arg;
    tp_world_step s = step_of(g->b, g->e, g->w);
    tp_solve_group_run(g->stage, &s, g->p, &g->e->plan, g->shared, lane);
}

/* TP_LAUNCH_GROUP: blocks of plan.worlds_per_block groups, group g of block k
 * on item k * worlds_per_block + g, each group's lanes as coroutines
 * (tp_group_stage_kernel). */
static void launch_group(tp_batch *b, emu *e, int stage, const tp_step_params *p)
{
    const tp_solve_plan *P = &e->plan;
    int blocks = (b->worlds + P->worlds_per_block - 1) / P->worlds_per_block;
    for (int k = 0; k < blocks; ++k)
        for (int g = 0; g < P->worlds_per_block; ++g) {
            int w = world_of_item(b, e, stage, k * P->worlds_per_block + g);
            if (w < 0) continue;
            tp_world_step s = step_of(b, e, w);
            if (!tp_stage_runs(stage, s.rec->work)) continue;
            if (stage == TP_STEP_SOLVE) {
                int staged = P->body_tier && *s.contact_count <= P->rows;
                e->staged_points += staged;
                e->global_points += !staged;
            }
            memset(e->shared, 0xA5, P->block_bytes); /* stale bytes, as a block's shared memory has */
            group_arg ga = {b, e, stage, w, p, e->shared + (size_t)g * P->world_bytes};
            lanes_run(&e->sched, P->lanes, e->reverse, group_lane, &ga);
            e->reverse = !e->reverse;
        }
}

/* TP_LAUNCH_PAIRS (tp_pairs_list_kernel, tp_pairs_narrow_kernel,
 * tp_pairs_scan_kernel, tp_pairs_gather_kernel): every listed world's
 * candidate pairs; their packing end to end; then every packed pair's
 * manifold, each found from its thread number as the device finds it, here
 * from the last to the first (the device runs them all at once: no pair may
 * depend on another); then
 * each world's points gathered in slot order, or the world collided whole
 * when it had more pairs than slots (tp_pairs_whole_kernel). */
/* The CPU's candidate pairs of a world (tp_broadphase_begin / next) into
 * out[2k], out[2k + 1] (at most cap); returns how many, *compound as
 * tp_collide_list_pairs_lanes sees it. */
static int sweep_pairs(const tp_world *wd, void *scratch, int32_t *out, int cap, int *compound)
{
    tp_broadphase bp;
    tp_broadphase_begin(&bp, wd, TP_CONTACT_MARGIN, scratch);
    int n = 0, a, b;
    *compound = 0;
    while (tp_broadphase_next(&bp, &a, &b)) {
        cr_assert_lt(n, cap);
        out[2 * n] = a;
        out[2 * n + 1] = b;
        *compound |= tp_body_is_compound(wd, a) || tp_body_is_compound(wd, b);
        ++n;
    }
    return n;
}

/* One group of tp_pairs_list_kernel: world w's lanes, its work area. */
typedef struct list_arg {
    tp_world wd;
    char *work;
    tp_pair_slot *slots;
    int slot_count, lanes;
    int32_t *count;
    int counts[TP_LIST_MAX_LANES]; /* what each lane returned */
} list_arg;

static void list_lane(void *arg, int lane)
{
    list_arg *g = arg;
    g->counts[lane] = tp_collide_list_pairs_lanes(&g->wd, g->work, g->slots, g->slot_count, lane, g->lanes);
    if (lane == 0) *g->count = g->counts[0];
}

/* Run world wd's listing as one group of `lanes` lanes (in the order of
 * e->reverse, then flipped) in `work` (filled with stale bytes first);
 * returns the pair count, which every lane must have returned. */
static int list_group(lane_sched *S, int *reverse, const tp_world *wd, char *work, size_t work_bytes, int lanes,
                      tp_pair_slot *slots, int slot_count)
{
    int32_t count = -1;
    list_arg g = {*wd, work, slots, slot_count, lanes, &count, {0}};
    memset(work, 0xA5, work_bytes); /* stale bytes, as shared memory has */
    lanes_run(S, lanes, *reverse, list_lane, &g);
    *reverse = !*reverse;
    for (int l = 1; l < lanes; ++l) cr_assert_eq(g.counts[l], count, "lane %d returned %d pairs, lane 0 %d", l, g.counts[l], count);
    return count;
}

static void launch_pairs(tp_batch *b, emu *e, const tp_step_params *p)
{
    int P = e->pair_slots;
    const tp_list_plan *L = &e->list_plan;
    int blocks = (b->worlds + L->worlds_per_block - 1) / L->worlds_per_block;
    for (int k = 0; k < blocks; ++k) /* tp_pairs_list_kernel: group g of block k on item k * worlds_per_block + g */
        for (int g = 0; g < L->worlds_per_block; ++g) {
            int w = world_of_item(b, e, TP_STEP_COLLIDE, k * L->worlds_per_block + g);
            if (w < 0) continue;
            tp_world_step s = step_of(b, e, w);
            if (s.rec->work != TP_WORK_BUSY) continue;
            char *work = L->shared ? e->list_area + (size_t)g * L->world_bytes : e->list_area + (size_t)w * L->world_bytes;
            tp_pair_slot *slots = e->pairs + (size_t)w * (size_t)P;
            e->pair_count[w] = list_group(&e->sched, &e->reverse, &s.wd, work, L->world_bytes, L->lanes, slots, P);
            /* the CPU's sweep gives the same pairs in the same order (the
             * contact sort would hide a different order from the hashes) */
            int compound = 0, n = sweep_pairs(&s.wd, s.collide_scratch, e->ref_pairs, e->ref_cap, &compound);
            cr_assert_eq(e->pair_count[w], compound && n <= P ? P + 1 : n, "world %d: listed %d pairs, the sweep %d", w,
                         e->pair_count[w], n);
            for (int q = 0; q < n && q < P; ++q)
                cr_assert(slots[q].a == e->ref_pairs[2 * q] && slots[q].b == e->ref_pairs[2 * q + 1],
                          "world %d: pair %d is (%d, %d), the sweep's (%d, %d)", w, q, slots[q].a, slots[q].b,
                          e->ref_pairs[2 * q], e->ref_pairs[2 * q + 1]);
        }
    /* tp_pairs_scan_kernel: the listed worlds' pairs packed end to end */
    int total = 0;
    for (int k = 0; k < e->busy_count; ++k) {
        e->pair_first[k] = total;
        total += tp_pairs_for_narrowphase(e->pair_count[e->busy_list[k]], P);
    }
    e->pair_first[e->busy_count] = total;
    for (int t = total - 1; t >= 0; --t) { /* tp_pairs_narrow_kernel, thread t */
        int k = tp_pair_item_world(e->pair_first, e->busy_count, t), w = e->busy_list[k];
        int slot = t - e->pair_first[k];
        cr_assert(slot >= 0 && slot < e->pair_count[w] && e->pair_count[w] <= P);
        tp_world wd = tp_layout_world(&b->layout, w);
        tp_collide_pair_slot(&wd, e->polys, e->pairs + (size_t)w * (size_t)P + slot);
    }
    for (int i = 0; i < b->worlds; ++i) {
        int w = world_of_item(b, e, TP_STEP_COLLIDE, i);
        if (w < 0) continue;
        tp_world_step s = step_of(b, e, w);
        if (s.rec->work != TP_WORK_BUSY) continue;
        e->pair_worlds++;
        if (e->pair_count[w] > P) { /* tp_pairs_whole_kernel */
            e->whole_worlds++;
            tp_stage_run(TP_STEP_COLLIDE, &s, p, 0, 1);
        } else {
            tp_stage_collide_gather(&s, e->pairs + (size_t)w * (size_t)P, e->pair_count[w]);
        }
    }
}

/* TP_LAUNCH_WAKE (tp_wake_begin_kernel, tp_wake_again_kernel): every listed
 * world's contact wakes, then, in a second launch, every listed world in
 * which something woke collides again. */
static void launch_wake(tp_batch *b, emu *e, const tp_step_params *p)
{
    for (int i = 0; i < b->worlds; ++i) {
        int w = world_of_item(b, e, TP_STEP_WAKE, i);
        if (w < 0) continue;
        tp_world_step s = step_of(b, e, w);
        if (s.rec->work == TP_WORK_BUSY) tp_stage_wake_begin(&s, p);
    }
    for (int i = 0; i < b->worlds; ++i) {
        int w = world_of_item(b, e, TP_STEP_WAKE, i);
        if (w < 0) continue;
        tp_world_step s = step_of(b, e, w);
        if (s.rec->work != TP_WORK_BUSY || !s.rec->again) continue;
        e->again_worlds++;
        tp_stage_wake_again(&s, p);
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
        for (int k = 0; k < n; ++k) /* the real keys come first, in order, and no two are equal */
            cr_assert(e->keys_out[k] != UINT64_MAX && (k == 0 || e->keys_out[k - 1] < e->keys_out[k]),
                      "world %d: key %d of %d not above the one before", w, k, n);
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

/* One step as kernels/cuda/graph.cu captures it. */
static void emu_step(tp_batch *b, emu *e)
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
        case TP_LAUNCH_GROUP: launch_group(b, e, stage, &p); break;
        case TP_LAUNCH_PAIRS: launch_pairs(b, e, &p); break;
        case TP_LAUNCH_SORT: launch_sort(b, e); break;
        case TP_LAUNCH_WAKE: launch_wake(b, e, &p); break;
        default: cr_assert_fail("stage %d: unknown launch", stage);
        }
    }
    b->current = 1 - b->current;
}

/* Group runs of the last compare with the contacts and rows in shared memory, and without. */
static long staged_points, global_points;
/* Collide launches of the last compare by pairs, and worlds among them collided whole. */
static long pair_worlds, whole_worlds;
/* Worlds of the last compare that collided again in the wake stage. */
static long again_worlds;

/* `steps` steps of `scene` in `worlds` worlds, by tp_batch_step and by the
 * stage emulation with nth lanes per world in the solve (0: the device's
 * choice for the model, tp_solve_lanes): every world hash equal.
 * capacity: contacts per world (0: the default). kick_step >= 0: before that
 * step, an upward impulse of 1 N s on the last body of worlds 1 and
 * worlds - 2 in both batches. Returns the overflow count. */
/* Load `scene` (a path under the source folder); with `assembly`,
 * "sleep": {"policy": "assembly"} put in front of its bodies (the scene has no
 * sleep section of its own), as tests/test_sleep_assembly.c does. */
static tp_model *load_scene(const char *scene, int assembly)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TP_SOURCE_DIR, scene);
    tp_model *m = NULL;
    if (!assembly) {
        cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
        return m;
    }
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    static char text[1 << 16], out[(1 << 16) + 64];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cr_assert_null(strstr(text, "\"sleep\""), "%s has its own sleep section", path);
    char *bodies = strstr(text, "\"bodies\"");
    cr_assert(bodies, "%s has no bodies", path);
    snprintf(out, sizeof out, "%.*s\"sleep\": {\"policy\": \"assembly\"}, %s", (int)(bodies - text), text, bodies);
    cr_assert_eq(tp_model_load_string(out, path, &m), TP_OK, "%s", tp_last_error());
    return m;
}

/* compare_kicked loads its scenes with the assembly policy while this is set. */
static int assembly_policy;

static long compare_kicked(const char *scene, int worlds, int steps, int nth, int capacity, int kick_step)
{
    long overflow = 0;
    tp_model *m = load_scene(scene, assembly_policy);
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = worlds;
    bd.threads = 1;
    bd.backend = TP_BACKEND_CPU;
    bd.contact_capacity = capacity;
    tp_batch *ref = NULL, *emb = NULL;
    cr_assert_eq(tp_batch_create(m, &bd, &ref), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_create(m, &bd, &emb), TP_OK, "%s", tp_last_error());
    emu e;
    emu_init(&e, emb, nth);
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
        emu_step(emb, &e);
        emb->step_count++;
    }
    for (int w = 0; w < worlds; ++w) {
        uint64_t h_ref = 0, h_emu = 0;
        cr_assert_eq(tp_batch_world_hash(ref, w, &h_ref), TP_OK);
        cr_assert_eq(tp_batch_world_hash(emb, w, &h_emu), TP_OK);
        cr_expect_eq(h_emu, h_ref, "%s world %d after %d steps, %d lanes per world: stages %016llx, step %016llx",
                     scene, w, steps, e.plan.lanes, (unsigned long long)h_emu, (unsigned long long)h_ref);
        cr_expect_eq(emb->contact_overflow[w], ref->contact_overflow[w]);
        overflow += ref->contact_overflow[w];
        cr_expect_eq(emb->awake_count[w], ref->awake_count[w]);
        /* island labels: the CPU's, and canonical (the smallest body of the island) */
        const int32_t *li = emb->island + (size_t)w * (size_t)emb->bodies, *lr = ref->island + (size_t)w * (size_t)ref->bodies;
        for (int b = 0; b < emb->bodies; ++b) {
            cr_expect_eq(li[b], lr[b], "%s world %d body %d: island %d, CPU %d", scene, w, b, li[b], lr[b]);
            if (li[b] >= 0) cr_expect(li[b] <= b && li[li[b]] == li[b], "world %d body %d: label %d not canonical", w, b, li[b]);
        }
    }
    staged_points = e.staged_points;
    pair_worlds = e.pair_worlds;
    whole_worlds = e.whole_worlds;
    again_worlds = e.again_worlds;
    global_points = e.global_points;
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

/* heap20 has 20 dynamic bodies: the device runs its solve with 32 lanes (a
 * warp) per world, 4 worlds per block, and stages a world's contacts and rows
 * in shared memory when they fit (39 points); the falling heap has fewer at
 * first, more once it piles up, so both ways run. 1 and 3 lanes: the CPU's
 * loop, and a count that does not divide the colors evenly. */
Test(stages, heap20_matches_step)
{
    compare("tests/scenes/heap20.json", 6, 100, 0, 0);
    cr_expect_gt(staged_points, 0, "no solve with its contacts in shared memory");
    cr_expect_gt(global_points, 0, "no solve with its contacts in global memory");
    cr_expect_gt(pair_worlds, whole_worlds, "the collide stage never ran by pairs (%ld of %ld worlds whole)",
                 whole_worlds, pair_worlds);
    compare("tests/scenes/heap20.json", 4, 80, 1, 0);
    compare("tests/scenes/heap20.json", 4, 80, 3, 0);
}

/* The pyramid (210 cubes): 128 lanes per world (four warps, a named barrier
 * on the device), one world per block; and 4 lanes, so each lane takes
 * several constraints of a color. Jenga (54 blocks): 64 lanes (two warps),
 * 2 worlds per block. */
Test(stages, pyramid_colors_in_parallel)
{
    compare("scenes/pyramid.json", 2, 60, 0, 0);
    compare("scenes/pyramid.json", 1, 60, 4, 0);
    compare("scenes/jenga.json", 3, 60, 0, 0);
}

/* Compound bodies (kernels/compound.h): a world with a compound candidate pair
 * is collided whole (tp_collide_list_pairs_lanes reports more pairs than slots), so
 * the replay must take that path and still give the CPU's bits, through the
 * fall, the pile and the sleep. */
Test(stages, compound_bodies_collide_whole)
{
    compare("tests/scenes/compound_pile.json", 3, 240, 0, 0);
}

/* tests/scenes/contact_wake.json: a cube dropped from 8 m onto a stack of two
 * that has fallen asleep (after 0.5 s) wakes it by contact on landing
 * (t = 1.2 s), so its worlds collide again in the wake stage's second launch
 * (tp_wake_again_kernel). */
Test(stages, sleep_and_wake_events)
{
    compare("tests/scenes/contact_wake.json", 3, 100, 0, 0);
    cr_expect_gt(again_worlds, 0, "no world collided again in the wake stage");
    compare("tests/scenes/sleep/c08_impulse.json", 2, 240, 0, 0);
    compare("tests/scenes/sleep/c05_remove_support.json", 2, 240, 0, 0);
    compare("tests/scenes/sleep/c09_pass_by.json", 2, 240, 2, 0);
}

/* The same scenes under the assembly policy, whose wake stage applies its own
 * contact rules before it collides again. */
Test(stages, assembly_policy_wakes)
{
    assembly_policy = 1;
    long again = 0;
    const char *scenes[] = {"tests/scenes/contact_wake.json", "tests/scenes/sleep/c08_impulse.json", "tests/scenes/sleep/c05_remove_support.json",
                            "tests/scenes/sleep/c09_pass_by.json", "tests/scenes/sleep/c04_tower.json"};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        compare(scenes[i], 2, 240, 0, 0);
        again += again_worlds;
    }
    assembly_policy = 0;
    cr_expect_gt(again, 0, "no world collided again in the wake stage under the assembly policy");
}

/* Contact capacity above TP_SORT_BLOCK_MAX: the sort stage takes the global
 * form (every world's keys in one sort) instead of a block per world. */
Test(stages, global_sort_above_block_tiles)
{
    compare("tests/scenes/heap20.json", 3, 60, 2, TP_SORT_BLOCK_MAX + 1);
}

Test(stages, contact_overflow)
{
    long overflow = compare("tests/scenes/heap20.json", 2, 60, 0, 24); /* far below what the heap needs */
    cr_expect_gt(overflow, 0, "the capacity was meant to overflow");
    /* 16 pair slots for 20 falling boxes: some steps have more candidate
     * pairs, and those worlds are collided whole by the gather thread. */
    cr_expect_gt(whole_worlds, 0, "no world had more candidate pairs than slots");
}

/* A settled tower (asleep well before 4 s) in 6 worlds; two of them are kicked
 * awake, so for a while the busy list holds worlds 1 and 4 only and the
 * busy-only stages run on those two through the list. */
Test(stages, busy_list_with_gaps)
{
    mixed_steps = 0;
    compare_kicked("scenes/tower.json", 6, 300, 0, 0, 240);
    cr_expect_gt(mixed_steps, 0, "no step had some worlds busy and others idle: the list was never partial");
}

/* tp_broadphase_pairs_lanes (kernels/broadphase.h) against the CPU's
 * iterator on every scene of scenes/ and the test scenes with bodies that
 * fall, pile, sleep or are compound: at the start and after some steps, every
 * world, 1, 3, 5 lanes, the device's count (tp_list_plan) and 128, each run
 * in both lane orders in a work area of stale bytes: the same pairs in the
 * same order, the same count in every lane, the compound flag; and with the
 * slots cut to half the pairs, the first half written, nothing past it, the
 * full count returned. The device's plan holds each world's work area in
 * shared memory, but for many_pyramids (22,001 bodies: global memory). */
Test(stages, broadphase_lanes_match_the_sweep, .timeout = 600)
{
    const char *scenes[] = {"scenes/tower.json", "scenes/pyramid.json", "scenes/jenga.json", "scenes/heap.json",
                            "scenes/cartpole.json", "scenes/pyramid3d.json", "scenes/arm_tower.json",
                            "scenes/card_house.json", "scenes/dominoes.json", "scenes/double_pendulum.json",
                            "scenes/pendulum.json", "scenes/ring_tower.json", "scenes/tower_push.json",
                            "scenes/walker.json", "scenes/many_pyramids.json", "tests/scenes/heap20.json",
                            "tests/scenes/compound_pile.json", "tests/scenes/contact_wake.json"};
    lane_sched S;
    S.stacks = malloc((size_t)TP_SOLVE_MAX_LANES * LANE_STACK);
    cr_assert(S.stacks);
    int reverse = 0;
    long checked = 0, compound_worlds = 0;
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        tp_model *m = load_scene(scenes[i], 0);
        tp_batch_def bd = tp_default_batch_def();
        bd.worlds = 2;
        bd.threads = 1;
        bd.backend = TP_BACKEND_CPU;
        tp_batch *b = NULL;
        cr_assert_eq(tp_batch_create(m, &bd, &b), TP_OK, "%s", tp_last_error());
        int B = b->bodies, big = B > 5000;
        tp_list_plan plan = tp_list_plan_make(B, 0, SM90_OPTIN);
        cr_expect_eq(plan.shared, !big, "%s (%d bodies): work area of %zu bytes %s shared memory", scenes[i], B,
                     plan.world_bytes, plan.shared ? "in" : "not in");
        int cap = 64 * B + 64; /* far more than any scene's pairs */
        int32_t *ref = malloc((size_t)cap * 2 * sizeof(int32_t));
        tp_pair_slot *slots = malloc(((size_t)cap + 1) * sizeof(tp_pair_slot));
        char *scratch = aligned_alloc(16, tp_broadphase_scratch_bytes(B) + 16);
        size_t area_bytes = tp_broadphase_lanes_bytes(B, TP_SOLVE_MAX_LANES);
        char *area = aligned_alloc(16, area_bytes);
        cr_assert(ref && slots && scratch && area);
        int checkpoints[] = {0, 25, 90}, at = 0;
        for (int c = 0; c < 3; ++c) {
            if (big && c > 0) break; /* 22,001 bodies: the start only (the CPU step is slow) */
            cr_assert_eq(tp_batch_step(b, checkpoints[c] - at), TP_OK, "%s", tp_last_error());
            at = checkpoints[c];
            for (int w = 0; w < b->worlds; ++w) {
                tp_world wd = tp_layout_world(&b->layout, w);
                int compound = 0, n = sweep_pairs(&wd, scratch, ref, cap, &compound);
                compound_worlds += compound;
                int lane_counts[] = {1, 3, 5, plan.lanes, TP_SOLVE_MAX_LANES};
                for (int l = 0; l < 5; ++l)
                    for (int order = 0; order < 2; ++order) {
                        int lanes = lane_counts[l], half = n / 2, keep = order ? half : cap;
                        for (int k = 0; k <= cap; ++k) slots[k].a = slots[k].b = -7;
                        int got = list_group(&S, &reverse, &wd, area, tp_broadphase_lanes_bytes(B, lanes), lanes,
                                             slots, keep);
                        int expect = compound && n <= keep ? keep + 1 : n;
                        cr_assert_eq(got, expect, "%s world %d step %d, %d lanes: %d pairs, the sweep %d", scenes[i],
                                     w, at, lanes, got, expect);
                        int written = n < keep ? n : keep;
                        for (int k = 0; k < written; ++k)
                            cr_assert(slots[k].a == ref[2 * k] && slots[k].b == ref[2 * k + 1],
                                      "%s world %d step %d, %d lanes: pair %d is (%d, %d), the sweep's (%d, %d)",
                                      scenes[i], w, at, lanes, k, slots[k].a, slots[k].b, ref[2 * k], ref[2 * k + 1]);
                        for (int k = written; k <= cap; ++k)
                            cr_assert(slots[k].a == -7 && slots[k].b == -7, "%s, %d lanes: slot %d written past %d",
                                      scenes[i], lanes, k, written);
                        ++checked;
                    }
            }
        }
        free(ref);
        free(slots);
        free(scratch);
        free(area);
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
    free(S.stacks);
    cr_expect_gt(compound_worlds, 0, "no world with a compound candidate pair");
    cr_expect_gt(checked, 0);
}

/* The solve's launch plan (kernels/solve_group.h) for every scene of scenes/
 * and a range of lane counts: lanes a power of two that holds the largest
 * possible color, groups that tile a block of at most TP_SOLVE_BLOCK_THREADS,
 * the parts of a world's shared memory 16-byte aligned, apart and inside it,
 * the optional tiers only within TP_SOLVE_SHARED_TARGET, and a world too large
 * for the device's shared memory (many_pyramids) refused. */
Test(stages, solve_plan_invariants)
{
    const char *scenes[] = {"scenes/tower.json", "scenes/pyramid.json", "scenes/jenga.json", "scenes/heap.json",
                            "scenes/cartpole.json", "scenes/pyramid3d.json", "scenes/many_pyramids.json"};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", TP_SOURCE_DIR, scenes[i]);
        tp_model *m = NULL;
        cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
        int bodies = tp_model_body_count(m), movers = tp_model_dynamic_body_count(m), capacity = 16 * movers + 32;
        int lanes = tp_solve_lanes(movers);
        cr_expect((lanes & (lanes - 1)) == 0 && lanes <= TP_SOLVE_MAX_LANES, "%s: %d lanes", scenes[i], lanes);
        cr_expect(lanes >= movers || lanes == TP_SOLVE_MAX_LANES, "%s: %d lanes for %d movers", scenes[i], lanes, movers);
        cr_expect(lanes == 1 || lanes / 2 < movers, "%s: %d lanes for %d movers: a smaller power would do", scenes[i],
                  lanes, movers);
        for (int l = 1; l <= TP_SOLVE_MAX_LANES; l *= 2) {
            tp_solve_plan P = tp_solve_plan_make(bodies, capacity, l, SM90_OPTIN);
            size_t vw = 6 * (size_t)bodies * sizeof(float);
            if (vw > SM90_OPTIN) { /* not even one world's v and w: refused at creation */
                cr_expect_gt(P.block_bytes, (size_t)SM90_OPTIN, "%s: %zu bytes", scenes[i], P.block_bytes);
                continue;
            }
            cr_expect_leq(P.block_bytes, (size_t)SM90_OPTIN, "%s, %d lanes", scenes[i], l);
            cr_expect(P.block_threads <= TP_SOLVE_BLOCK_THREADS || P.worlds_per_block == 1);
            cr_expect_eq(P.block_threads, P.lanes * P.worlds_per_block);
            cr_expect_eq(P.block_bytes, P.world_bytes * (size_t)P.worlds_per_block);
            size_t parts[][2] = {{P.off_v, 3 * (size_t)bodies * 4}, {P.off_w, 3 * (size_t)bodies * 4},
                                 {P.off_pos, P.body_tier ? 3 * (size_t)bodies * 4 : 0},
                                 {P.off_quat, P.body_tier ? 4 * (size_t)bodies * 4 : 0},
                                 {P.off_push, P.body_tier ? 6 * (size_t)bodies * 4 : 0},
                                 {P.off_bodies, P.body_tier ? (size_t)bodies * sizeof(tp_solver_body) : 0},
                                 {P.off_color_start, P.body_tier ? (TP_MAX_COLORS + 2) * sizeof(int32_t) : 0},
                                 {P.off_contacts, (size_t)P.rows * sizeof(tp_contact)},
                                 {P.off_rows, (size_t)P.rows * sizeof(tp_contact_row)},
                                 {P.off_cons, (size_t)P.rows * sizeof(tp_constraint)},
                                 {P.off_order, (size_t)P.rows * sizeof(int32_t)}};
            size_t np = sizeof parts / sizeof parts[0];
            for (size_t a = 0; a < np; ++a) {
                if (!parts[a][1]) continue;
                cr_expect_eq(parts[a][0] % 16, 0, "%s, %d lanes: part %zu at %zu", scenes[i], l, a, parts[a][0]);
                cr_expect_leq(parts[a][0] + parts[a][1], P.world_bytes, "%s, %d lanes: part %zu", scenes[i], l, a);
                for (size_t b = a + 1; b < np; ++b)
                    if (parts[b][1])
                        cr_expect(parts[a][0] + parts[a][1] <= parts[b][0] || parts[b][0] + parts[b][1] <= parts[a][0],
                                  "%s, %d lanes: parts %zu and %zu overlap", scenes[i], l, a, b);
            }
            cr_expect(P.rows <= capacity);
            if (P.body_tier) cr_expect_leq(P.block_bytes, (size_t)TP_SOLVE_SHARED_TARGET, "%s, %d lanes", scenes[i], l);
            else cr_expect_eq(P.rows, 0);
        }
        tp_model_destroy(m);
    }
}
