/* test_stages.c - the CUDA backend's plan, run on the CPU.
 *
 * kernels/cuda/ runs kernels/step.h's stage list stage-major: each stage for
 * every world, then the next, each as the list's launch column says (a
 * thread per world; for the solve a group of lanes per world, several worlds
 * per block, the world's hot data staged in "shared memory" as
 * kernels/solve_group.h plans it, and the islands, color and sleep stages in
 * the same groups; the collide stage by candidate pairs, kernels/collide_pairs.h,
 * its pairs listed by a group of lanes per world as kernels/broadphase.h's
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
 * A group's lanes run as coroutines (ucontext, tests/lanes.h) on one thread: lane 0 runs to
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
 * __syncwarp and barrier.sync): that needs a GPU (tests/gpu/run.sh). */
#include "lanes.h" /* first: TP_BARRIER switches lanes */

#include "batch.h"
#include "cub_sort.h"
#include "events.h" /* tp_events_apply_due */
#include "helpers.h"
#include "collide_pairs.h"
#include "sensors.h"
#include "solve_group.h"
#include "step.h"

_Static_assert(TP_SOLVE_MAX_LANES <= LANES_MAX, "tests/lanes.h runs fewer lanes than a group may have");

/* The device-only arrays of kernels/cuda/, on the host. */
typedef struct emu {
    char *scratch;                  /* [W] one world's step scratch each */
    size_t scratch_bytes;
    char *artic_scratch;            /* [W] one world's articulation scratch each (NULL without joints) */
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
    char *color_ref;                /* one world's solver scratch for tp_solver_constraints, the reference */
    long color_checks, color_cons;  /* worlds whose lane coloring was compared, and their constraints */
    int color_rounds;               /* the most Jones-Plassmann rounds any of them needed */
} emu;

/* sm_90's shared memory per block with the opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin). */
#define SM90_OPTIN (227 * 1024)

/* lanes: per world in the solve; 0: what the device takes for this model. */
/* aligned_alloc with its size rounded up to a multiple of the alignment, as C11 asks. */
static void *alloc16(size_t n) { return aligned_alloc(16, (n + 15u) & ~(size_t)15u); }

static void emu_init(emu *e, const tp_batch *b, int lanes)
{
    if (lanes == 0) /* as kernels/cuda/memory.cu: movers and trees */
        lanes = tp_solve_lanes(tp_solve_movers(b->layout.model, b->bodies) + (b->layout.artic ? b->layout.artic->tree_count : 0));
    e->plan = tp_solve_plan_make(b->bodies, b->contact_capacity, lanes, SM90_OPTIN);
    cr_assert_leq(e->plan.block_bytes, (size_t)SM90_OPTIN);
    e->shared = alloc16(e->plan.block_bytes);
    e->sched.stacks = malloc((size_t)TP_SOLVE_MAX_LANES * LANE_STACK); /* the solve's lanes or the listing's */
    e->reverse = 0;
    e->staged_points = e->global_points = 0;
    e->pair_slots = tp_pair_capacity(b->contact_capacity);
    e->polys = calloc((size_t)b->bodies, sizeof(tp_poly));
    e->pairs = calloc((size_t)b->worlds * (size_t)e->pair_slots, sizeof(tp_pair_slot));
    e->pair_count = calloc((size_t)b->worlds, sizeof(int32_t));
    e->pair_first = calloc((size_t)b->worlds + 1, sizeof(int32_t));
    cr_assert(e->polys && e->pairs && e->pair_count && e->pair_first);
    tp_build_body_polys(b->layout.model, b->bodies, b->layout.hulls, e->polys);
    e->list_plan = tp_list_plan_make(b->bodies, 0, SM90_OPTIN);
    e->list_area = alloc16(e->list_plan.shared ? e->list_plan.block_bytes
                                                          : e->list_plan.world_bytes * (size_t)b->worlds);
    e->ref_cap = b->bodies * (b->bodies - 1) / 2 + 1;
    e->ref_pairs = malloc((size_t)e->ref_cap * 2 * sizeof(int32_t));
    cr_assert(e->list_area && e->ref_pairs);
    e->pair_worlds = e->whole_worlds = 0;
    e->again_worlds = 0;
    size_t W = (size_t)b->worlds, items = W * (size_t)b->contact_capacity;
    size_t buf = items > TP_SORT_BLOCK_MAX ? items : TP_SORT_BLOCK_MAX; /* a block sort's tile fits too */
    e->scratch_bytes = tp_solver_align(tp_step_scratch_bytes(b->bodies, b->contact_capacity));
    e->scratch = alloc16(e->scratch_bytes * W);
    e->artic_scratch = b->layout.artic ? alloc16(b->layout.artic_scratch_bytes * W) : NULL;
    e->keys_in = malloc(items * sizeof(uint64_t));
    e->keys_out = malloc(buf * sizeof(uint64_t));
    e->tmp_keys = malloc(buf * sizeof(uint64_t));
    e->slots_in = malloc(items * sizeof(int32_t));
    e->slots_out = malloc(buf * sizeof(int32_t));
    e->tmp_slots = malloc(buf * sizeof(int32_t));
    e->busy_list = malloc(W * sizeof(int32_t));
    e->perm = malloc((size_t)b->contact_capacity * sizeof(int32_t) + 1);
    e->color_ref = alloc16(tp_solver_align(tp_solver_scratch_bytes(b->bodies, b->contact_capacity)));
    e->color_checks = e->color_cons = 0;
    e->color_rounds = 0;
    cr_assert(e->color_ref);
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
    free(e->artic_scratch);
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
    free(e->color_ref);
}

static tp_world_step step_of(tp_batch *b, emu *e, int w)
{
    tp_world_step s = tp_world_step_at(&b->layout, w, b->current, e->scratch + (size_t)w * e->scratch_bytes);
    if (s.artic) s.artic_scratch = e->artic_scratch + (size_t)w * b->layout.artic_scratch_bytes; /* the device's */
    return s;
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
        tp_world wd = tp_layout_world_stepping(&b->layout, w, b->current);
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

/* Rounds the lane coloring needs for these constraints: constraint i is
 * colored in round 1 + the largest round of the constraints before it that
 * share a unit with it (kernels/coloring.h), so the longest chain in key
 * order. unit_round: [bodies] scratch. */
static int color_rounds(const tp_world *wd, const tp_constraint *cons, int n, int32_t *unit_round)
{
    int most = 0;
    for (int b = 0; b < wd->bodies; ++b) unit_round[b] = 0;
    for (int i = 0; i < n; ++i) {
        int ua, ub, top;
        tp_constraint_units(wd, &cons[i], &ua, &ub, &top);
        int r = 1 + (ua >= 0 ? unit_round[ua] : 0);
        if (ub >= 0 && 1 + unit_round[ub] > r) r = 1 + unit_round[ub];
        if (ua >= 0) unit_round[ua] = r;
        if (ub >= 0) unit_round[ub] = r;
        if (r > most) most = r;
    }
    return most;
}

/* After the color stage's group launch: every busy world's constraints,
 * colors, solve order, color ranges, body masses, shock order and cold flag
 * equal tp_solver_constraints' (the serial greedy, which the CPU runs) on the same
 * contacts. */
static void check_colors(tp_batch *b, emu *e, const tp_step_params *p)
{
    for (int k = 0; k < e->busy_count; ++k) {
        int w = e->busy_list[k];
        tp_world_step s = step_of(b, e, w);
        tp_solver_work ref = tp_solver_work_at(e->color_ref, b->bodies, b->contact_capacity);
        int n = *s.contact_count;
        int n_cons = tp_solver_constraints(&s.wd, s.contacts, n, &ref, &p->solver);
        const tp_solver_work *got = &s.solver;
        cr_assert_eq(got->color_start[TP_OVERFLOW_COLOR + 1], n_cons, "world %d: %d constraints, greedy %d", w,
                     got->color_start[TP_OVERFLOW_COLOR + 1], n_cons);
        for (int i = 0; i < n_cons; ++i) {
            const tp_constraint *c = &got->cons[i], *r = &ref.cons[i];
            cr_assert(c->first == r->first && c->count == r->count && c->body_a == r->body_a && c->body_b == r->body_b,
                      "world %d constraint %d: points %d+%d bodies %d-%d, greedy %d+%d %d-%d", w, i, c->first,
                      c->count, c->body_a, c->body_b, r->first, r->count, r->body_a, r->body_b);
            cr_assert_eq(c->color, r->color, "world %d constraint %d: color %d, greedy %d", w, i, c->color, r->color);
            cr_assert_eq(got->order[i], ref.order[i], "world %d order[%d]", w, i);
            cr_assert_eq(got->shock_order[i], ref.shock_order[i], "world %d shock_order[%d]", w, i);
        }
        for (int c = 0; c < TP_MAX_COLORS + 2; ++c)
            cr_assert_eq(got->color_start[c], ref.color_start[c], "world %d color_start[%d]", w, c);
        cr_assert_eq(*got->cold, *ref.cold, "world %d: cold", w);
        cr_assert(memcmp(got->bodies, ref.bodies, (size_t)b->bodies * sizeof(tp_solver_body)) == 0, "world %d: bodies", w);
        for (int bd = 0; bd < b->bodies; ++bd)
            cr_assert(got->depth[bd] == ref.depth[bd] && got->carries[bd] == ref.carries[bd], "world %d body %d: depth",
                      w, bd);
        int rounds = color_rounds(&s.wd, ref.cons, n_cons, ref.color.ticket);
        if (rounds > e->color_rounds) e->color_rounds = rounds;
        e->color_checks++;
        e->color_cons += n_cons;
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
        case TP_LAUNCH_GROUP:
            launch_group(b, e, stage, &p);
            if (stage == TP_STEP_CONSTRAINTS) check_colors(b, e, &p);
            break;
        case TP_LAUNCH_PAIRS: launch_pairs(b, e, &p); break;
        case TP_LAUNCH_SORT: launch_sort(b, e); break;
        case TP_LAUNCH_WAKE: launch_wake(b, e, &p); break;
        default: cr_assert_fail("stage %d: unknown launch", stage);
        }
    }
    b->current = 1 - b->current;
    /* A step of one world has an even number of group launches (islands,
     * color, solve, sleep), which would give each stage the same lane order
     * at every step: one more flip lets every stage see both orders. */
    e->reverse = !e->reverse;
}

/* Group runs of the last compare with the contacts and rows in shared memory, and without. */
static long staged_points, global_points;
/* The last compare's lane colorings checked against the greedy, their constraints, the most rounds. */
static long color_checks, color_cons;
static int color_rounds_most;
/* Collide launches of the last compare by pairs, and worlds among them collided whole. */
static long pair_worlds, whole_worlds;
/* Worlds of the last compare that collided again in the wake stage. */
static long again_worlds;

/* Load `scene` (a path under the source folder); with `assembly`,
 * "sleep": {"policy": "assembly"} put in front of its bodies (the scene has no
 * sleep section of its own: load_assembly_scene, tests/helpers.h). */
static tp_model *load_scene(const char *scene, int assembly)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TP_SOURCE_DIR, scene);
    tp_model *m = NULL;
    if (!assembly) {
        cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
        return m;
    }
    return load_assembly_scene(path);
}

/* compare_kicked loads its scenes with the assembly policy while this is set. */
static int assembly_policy;

/* What a test does to a batch before step `step` (the same to both). */
typedef void (*step_hook)(tp_batch *b, int step);

/* Constraint and mover state equal bit for bit (tables, rows, impulses,
 * read-outs, winch lengths, targets, enabled flags). Returns the number of
 * bytes compared. */
static size_t check_links(const tp_batch *ref, const tp_batch *emb, const char *scene, int step)
{
    size_t W = (size_t)ref->worlds, C = (size_t)ref->layout.cons_count, M = (size_t)ref->layout.mover_count;
    if (C) {
        cr_assert(!memcmp(emb->cons_table, ref->cons_table, W * C * sizeof(tp_cons_model)),
                  "%s step %d: a world's constraint table differs", scene, step);
        cr_assert(!memcmp(emb->cons_state, ref->cons_state, W * C * sizeof(tp_cons_state)),
                  "%s step %d: constraint state differs", scene, step);
    }
    if (M)
        cr_assert(!memcmp(emb->mover_state, ref->mover_state, W * M * sizeof(tp_mover_state)),
                  "%s step %d: mover state differs", scene, step);
    return W * (C * (sizeof(tp_cons_model) + sizeof(tp_cons_state)) + M * sizeof(tp_mover_state));
}

/* Bytes of constraint and mover state the last compare checked after its steps. */
static size_t link_bytes;

/* `steps` steps of `scene` in `worlds` worlds, by tp_batch_step and by the
 * stage emulation with nth lanes per world in the solve (0: the device's
 * choice for the model, tp_solve_lanes): every world hash equal, and after
 * every step the constraint and mover state (check_links). capacity:
 * contacts per world (0: the default). hook (may be NULL): what is done to
 * both batches before each step (writes, resets, impulses). Returns the
 * overflow count. */
static long compare_hooked(const char *scene, int worlds, int steps, int nth, int capacity, step_hook hook)
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
    link_bytes = 0;
    for (int s = 0; s < steps; ++s) {
        if (hook) {
            hook(ref, s);
            hook(emb, s);
        }
        cr_assert_eq(tp_batch_step(ref, 1), TP_OK, "%s", tp_last_error());
        cr_assert_eq(tp_events_apply_due(emb), TP_OK, "%s", tp_last_error());
        emu_step(emb, &e);
        emb->step_count++;
        link_bytes += check_links(ref, emb, scene, s);
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
    color_checks = e.color_checks;
    color_cons = e.color_cons;
    color_rounds_most = e.color_rounds;
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

/* compare_kicked's step and worlds: before that step (>= 0), an upward
 * impulse of 1 N s on the last body of worlds 1 and W - 2. */
static int kick_at, kick_worlds;

static void kick(tp_batch *b, int step)
{
    if (step != kick_at) return;
    const float up[3] = {0.0f, 0.0f, 1.0f};
    int kicked[2] = {1, kick_worlds - 2};
    for (int k = 0; k < 2; ++k) cr_assert_eq(tp_batch_apply_impulse(b, kicked[k], tp_batch_bodies(b) - 1, up, NULL), TP_OK);
}

static long compare_kicked(const char *scene, int worlds, int steps, int nth, int capacity, int kick_step)
{
    kick_at = kick_step;
    kick_worlds = worlds;
    return compare_hooked(scene, worlds, steps, nth, capacity, kick_step >= 0 ? kick : NULL);
}

static long compare(const char *scene, int worlds, int steps, int nth, int capacity)
{
    return compare_hooked(scene, worlds, steps, nth, capacity, NULL);
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
        char *scratch = alloc16(tp_broadphase_scratch_bytes(B) + 16);
        size_t area_bytes = tp_broadphase_lanes_bytes(B, TP_SOLVE_MAX_LANES);
        char *area = alloc16(area_bytes);
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

/* ---------------------------------------------------------------- coloring in lanes */

/* Scenes with articulations (the links of a tree take colors as one unit)
 * and the sleep scenes go through the lane coloring too: every busy world's
 * colors are checked against the greedy after each color launch
 * (check_colors), and the step's bits against tp_batch_step. */
Test(stages, articulated_scenes_color_in_lanes, .timeout = 300)
{
    compare("scenes/walker.json", 2, 60, 0, 0);
    cr_expect_gt(color_checks, 0);
    compare("scenes/arm_tower.json", 2, 120, 0, 0);
    cr_expect_gt(color_checks, 0);
    compare("scenes/arm_tower.json", 1, 60, 3, 0);
}

/* Constraints between bodies (kernels/constraint_rows.h: their rows on lane
 * 0 after each pass's colors) with contacts and the island policy: a rope
 * bridge, a spring pad, a weld, a door on a servo, a bungee, a rod pendulum. */
Test(stages, constraint_scene_matches_step, .timeout = 300)
{
    compare("tests/scenes/constraints_mix.json", 2, 180, 0, 0);
    compare("tests/scenes/constraints_mix.json", 1, 120, 3, 0);
}

/* ---------------------------------------------------------------- constraints and movers */

/* Constraint k's parameter `which` set to v in world w of b (the other
 * constraints and worlds as they are), through the per-world write. */
static void set_cons(tp_batch *b, tp_constraint_param which, int w, int k, float v)
{
    int C = tp_model_constraint_count(tp_batch_model(b));
    float *row = malloc((size_t)b->worlds * (size_t)C * sizeof(float));
    cr_assert(row && k >= 0 && k < C);
    cr_assert_eq(tp_batch_constraint_params(b, which, row), TP_OK, "%s", tp_last_error());
    row[(size_t)w * (size_t)C + (size_t)k] = v;
    const int32_t one = w;
    cr_assert_eq(tp_batch_set_constraint_params(b, which, WORLD_LIST(&one, 1), row + (size_t)w * (size_t)C), TP_OK,
                 "%s", tp_last_error());
    free(row);
}

static void reset_world(tp_batch *b, int w)
{
    const int32_t one = w;
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(&one, 1)), TP_OK, "%s", tp_last_error());
}

/* Mover k of world w enabled or not. */
static void set_mover_on(tp_batch *b, int w, int k, int on)
{
    int M = tp_model_mover_count(tp_batch_model(b));
    uint8_t row[8] = {0}, mask[8] = {0};
    cr_assert(M <= 8 && k < M);
    row[k] = (uint8_t)on;
    mask[k] = 1;
    const int32_t one = w;
    cr_assert_eq(tp_batch_set_mover_enabled(b, WORLD_LIST(&one, 1), row, mask), TP_OK, "%s", tp_last_error());
}

/* Mover k of world w given target t. */
static void set_mover_target(tp_batch *b, int w, int k, const float t[4])
{
    int M = tp_model_mover_count(tp_batch_model(b));
    float row[4 * 8] = {0};
    uint8_t mask[8] = {0};
    cr_assert(M <= 8 && k < M);
    memcpy(row + 4 * k, t, 4 * sizeof(float));
    mask[k] = 1;
    const int32_t one = w;
    cr_assert_eq(tp_batch_set_mover_targets(b, WORLD_LIST(&one, 1), row, mask), TP_OK, "%s", tp_last_error());
}

/* scenes/crane.json (4 worlds; its events move the winch's target at 1 s and
 * 5 s in every world): world 1's and 3's winch targets written apart at
 * step 30, world 2 reset at 150 (its table the model's again, the events'
 * target undone), world 3's sling disabled at 200 (the crate drops). */
static void crane_hook(tp_batch *b, int step)
{
    int cable = tp_model_find_constraint(tp_batch_model(b), "cable");
    int sling = tp_model_find_constraint(tp_batch_model(b), "sling");
    if (step == 30) {
        set_cons(b, TP_CONS_WINCH_TARGET, 1, cable, 2.5f);
        set_cons(b, TP_CONS_WINCH_TARGET, 3, cable, 1.2f);
    }
    if (step == 150) reset_world(b, 2);
    if (step == 200) set_cons(b, TP_CONS_ENABLED, 3, sling, 0.0f);
}

/* scenes/servo_door.json (3 worlds; its events open the door at 1 s and
 * close it at 3 s): world 2's servo target written at step 100, world 0
 * reset at 130 (then closed by the 3 s event with the others). */
static void door_hook(tp_batch *b, int step)
{
    if (step == 100) set_cons(b, TP_CONS_TARGET, 2, tp_model_find_constraint(tp_batch_model(b), "door_hinge"), 0.8f);
    if (step == 130) reset_world(b, 0);
}

/* scenes/rope_bridge.json (3 worlds): a plank of world 1 kicked at step 60,
 * world 2 reset at 120, a rope of world 0 cut at 150. */
static void bridge_hook(tp_batch *b, int step)
{
    if (step == 60) {
        const float up[3] = {0.0f, 0.0f, 4.0f};
        cr_assert_eq(tp_batch_apply_impulse(b, 1, tp_model_find_body(tp_batch_model(b), "plank2"), up, NULL), TP_OK);
    }
    if (step == 120) reset_world(b, 2);
    if (step == 150) set_cons(b, TP_CONS_ENABLED, 0, tp_model_find_constraint(tp_batch_model(b), "rope_l+"), 0.0f);
}

/* scenes/drone.json (3 worlds): its goal jumped by the scene's mover event
 * at 2 s (step 120); world 1's mover off at step 40 (the drone falls) and on
 * again at 70, world 2 reset at 90. */
static void drone_hook(tp_batch *b, int step)
{
    if (step == 40) set_mover_on(b, 1, 0, 0);
    if (step == 70) set_mover_on(b, 1, 0, 1);
    if (step == 90) reset_world(b, 2);
}

/* scenes/turntable.json (3 worlds): world 0's pin moved at step 30, world
 * 1's spin reversed at 50, world 2's spin off at 60, world 1 reset at 100. */
static void turntable_hook(tp_batch *b, int step)
{
    const float pin[4] = {0.2f, 0.0f, 3.0f, 0.0f}, back[4] = {0.0f, 0.0f, -2.0f, 0.0f};
    if (step == 30) set_mover_target(b, 0, tp_model_find_mover(tp_batch_model(b), "pin"), pin);
    if (step == 50) set_mover_target(b, 1, tp_model_find_mover(tp_batch_model(b), "spin"), back);
    if (step == 60) set_mover_on(b, 2, tp_model_find_mover(tp_batch_model(b), "spin"), 0);
    if (step == 100) reset_world(b, 1);
}

/* The constraint scenes on the CUDA plan, over several worlds, with
 * per-world writes, events and resets between steps: the constraint rows on
 * the solve group's lanes as kernels/solver.h runs them, the islands' union
 * over constraints, their sleep and wake rules; bit for bit against
 * tp_batch_step, the constraint tables and state after every step too. The
 * device's lane count and 3 lanes (a count that divides nothing). */
Test(stages, constraint_scenes_with_writes_and_resets, .timeout = 300)
{
    compare_hooked("scenes/crane.json", 4, 360, 0, 0, crane_hook);
    cr_expect_gt(link_bytes, 0);
    compare_hooked("scenes/crane.json", 4, 240, 3, 0, crane_hook);
    compare_hooked("scenes/servo_door.json", 3, 240, 0, 0, door_hook);
    compare_hooked("scenes/rope_bridge.json", 3, 300, 0, 0, bridge_hook);
    compare_hooked("scenes/rope_bridge.json", 3, 160, 3, 0, bridge_hook);
}

/* The mover scenes likewise: per-world enabled flags and targets, resets. */
Test(stages, mover_scenes_with_writes_and_resets, .timeout = 300)
{
    compare_hooked("scenes/drone.json", 3, 180, 0, 0, drone_hook);
    cr_expect_gt(link_bytes, 0);
    compare_hooked("scenes/turntable.json", 3, 150, 0, 0, turntable_hook);
    compare_hooked("scenes/turntable.json", 3, 120, 3, 0, turntable_hook);
}

/* Constraints under the assembly policy (tests/scenes/constraints_mix.json:
 * its servo door is an actuated joint of seed 000's table, its bridge's
 * planks neighbours through their hinges): the sleep stage's assembly rules
 * on lane 0, the wake stage's, as tp_batch_step has them. */
Test(stages, constraints_under_the_assembly_policy, .timeout = 300)
{
    assembly_policy = 1;
    compare("tests/scenes/constraints_mix.json", 2, 240, 0, 0);
    assembly_policy = 0;
}

/* Every robot scene of scenes/ on the CUDA plan: the tree passes of each
 * substep over the lanes of the solve's group (tree t on lane t mod nth)
 * between its barriers (kernels/solver.h), the link contacts as rows of the
 * tree spread over the lanes by color, the limits and drives the scenes
 * have, with the lanes in both orders, bit for bit against tp_batch_step.
 * Running tp_artic_substep_end before the relax sweeps instead of after
 * makes it fail (checked by hand). */
Test(stages, robot_scenes_match_step, .timeout = 600)
{
    const char *scenes[] = {"scenes/pendulum.json", "scenes/double_pendulum.json", "scenes/cartpole.json",
                            "scenes/walker.json", "scenes/arm_tower.json"};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) compare(scenes[i], 3, 90, 0, 0);
}

/* The sensors as kernels/cuda/sensors.cu launches them around a step call of
 * three steps, on the plan's steps: the IMU's copy of the velocities (a
 * thread per world, tp_imu_save_kernel) before the last step, the sensors'
 * kernel (a thread per world, tp_sensors_after_kernel: the IMU, then the
 * contact sensors from the buffer that step wrote) after it. The bits of
 * tp_batch_imu and tp_batch_contact_sensors of a CPU batch stepped by
 * tp_batch_step(3), through falls, contacts on compound shapes' sensors and a
 * reset world (tp_contact_sensors_clear_world, what the reset kernel runs).
 * Calling the after-kernel with the other buffer makes it fail. */
Test(stages, sensors_match_step)
{
    tp_model *m = load_scene("tests/scenes/sensor_pile.json", 0);
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = 3;
    bd.threads = 1;
    bd.backend = TP_BACKEND_CPU;
    tp_batch *ref = NULL, *emb = NULL;
    cr_assert_eq(tp_batch_create(m, &bd, &ref), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_create(m, &bd, &emb), TP_OK, "%s", tp_last_error());
    tp_imu_view ri, ei;
    tp_contact_sensor_view rc, ec;
    cr_assert_eq(tp_batch_imu(ref, &ri), TP_OK);
    cr_assert_eq(tp_batch_imu(emb, &ei), TP_OK);
    cr_assert_eq(tp_batch_contact_sensors(ref, &rc), TP_OK);
    cr_assert_eq(tp_batch_contact_sensors(emb, &ec), TP_OK);
    cr_assert_eq(rc.sensors, 4);
    emu e;
    emu_init(&e, emb, 0);
    size_t n = 3 * (size_t)bd.worlds * (size_t)tp_batch_bodies(ref), S = (size_t)rc.sensors * (size_t)bd.worlds;
    long touching = 0, moving = 0;
    for (int call = 0; call < 40; ++call) {
        if (call == 25) { /* world 1 reset: its contact sensors read 0 until its next step */
            const int32_t w = 1;
            cr_assert_eq(tp_batch_reset_worlds(ref, WORLD_LIST(&w, 1)), TP_OK);
            cr_assert_eq(tp_batch_reset_worlds(emb, WORLD_LIST(&w, 1)), TP_OK);
            for (int k = 0; k < rc.sensors; ++k) cr_assert_eq(ec.touching[(size_t)rc.sensors + (size_t)k], 0);
        }
        cr_assert_eq(tp_batch_step(ref, 3), TP_OK, "%s", tp_last_error());
        for (int s = 0; s < 3; ++s) {
            cr_assert_eq(tp_events_apply_due(emb), TP_OK, "%s", tp_last_error());
            if (s == 2)
                for (int w = 0; w < bd.worlds; ++w) tp_imu_save_world(&emb->layout, &emb->sensors, w);
            emu_step(emb, &e);
            emb->step_count++;
        }
        for (int w = 0; w < bd.worlds; ++w) {
            tp_imu_world(&emb->layout, &emb->sensors, w, emb->layout.dt);
            tp_contact_sensors_fill_world(&emb->layout, &emb->sensors, w, emb->current);
        }
        cr_assert(!memcmp(ri.v, ei.v, 3 * n * sizeof(float)), "call %d: IMU v, w or a differ", call);
        cr_assert(!memcmp(rc.force, ec.force, 3 * S * sizeof(float)), "call %d: contact sensor forces differ", call);
        cr_assert(!memcmp(rc.touching, ec.touching, S), "call %d: touching differs", call);
        for (size_t k = 0; k < S; ++k) touching += rc.touching[k];
        for (size_t k = 0; k < n; ++k) moving += ri.a[k] != 0.0f;
    }
    cr_expect_gt(touching, 0, "no sensor touched");
    cr_expect_gt(moving, 0, "no IMU reading");
    emu_free(&e);
    tp_batch_destroy(ref);
    tp_batch_destroy(emb);
    tp_model_destroy(m);
}

/* Three trees in one world (tests/scenes/robot_trees.json: a walker dropped
 * onto another, so points between links of two trees, and a cart-pole with
 * joint friction and limits under a falling box): the device's 4 lanes (a
 * box and three trees) run the trees on lanes 0, 1, 2 (and, with 2 lanes,
 * trees 0 and 2 on lane 0), their link
 * points' rows over all lanes. Removing the barrier between the trees' and
 * the points' part of tp_artic_substep_velocity makes it fail (checked by
 * hand). Trees sharing their temporaries (rhs, qdd) again does not: the
 * replay runs a lane's work between two barriers whole, so only a GPU (or
 * racecheck) can see two lanes interleave within a phase. */
Test(stages, several_trees_over_lanes, .timeout = 600)
{
    compare("tests/scenes/robot_trees.json", 2, 90, 0, 0);
    compare("tests/scenes/robot_trees.json", 2, 90, 2, 0);
}

/* The rounds of the lane coloring (the longest chain of constraints sharing
 * a unit in key order; kernels/coloring.h) on the tower and the pyramid, as
 * reported in docs/cuda.md: a tower of 10 boxes on the ground needs 10. */
Test(stages, color_rounds_of_tower_and_pyramid)
{
    compare("scenes/tower.json", 1, 30, 0, 0);
    cr_expect_eq(color_rounds_most, 10, "tower: %d rounds", color_rounds_most);
    cr_log_info("tower: %d rounds, %ld constraints in %ld worlds", color_rounds_most, color_cons, color_checks);
    compare("scenes/pyramid.json", 1, 20, 0, 0);
    cr_log_info("pyramid: %d rounds, %ld constraints in %ld worlds", color_rounds_most, color_cons, color_checks);
    cr_expect_gt(color_rounds_most, 0);
}

/* A random world for the coloring's unit test: `bodies` bodies, some static,
 * kinematic, sleeping, some awake articulation trees (several bodies, one
 * unit); `pairs` random body pairs in key order with 1-4 points each. */
typedef struct color_world {
    tp_world wd;
    tp_body_model *model;
    uint8_t *flags, *sleep;
    tp_contact *contacts;
    int n;
} color_world;

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

static void color_world_make(color_world *cw, int bodies, int pairs, uint32_t *seed)
{
    memset(cw, 0, sizeof *cw);
    cw->model = calloc((size_t)bodies, sizeof(tp_body_model));
    cw->flags = calloc((size_t)bodies, 1);
    cw->sleep = calloc((size_t)bodies, 1);
    cw->contacts = calloc((size_t)pairs * 4, sizeof(tp_contact));
    cr_assert(cw->model && cw->flags && cw->sleep && cw->contacts);
    for (int b = 0; b < bodies; ++b) {
        uint32_t r = lcg(seed) % 100;
        cw->model[b].type = r < 12 ? TP_BODY_STATIC : r < 18 ? TP_BODY_KINEMATIC : TP_BODY_DYNAMIC;
        cw->sleep[b] = cw->model[b].type == TP_BODY_DYNAMIC && lcg(seed) % 100 < 15 ? TP_SLEEPING : TP_AWAKE;
    }
    for (int b = 0; b + 3 < bodies; ++b) /* a few trees of 2-4 consecutive awake links */
        if (lcg(seed) % 100 < 8) {
            int len = 2 + (int)(lcg(seed) % 3);
            for (int k = 0; k < len; ++k) {
                tp_body_model *m = &cw->model[b + k];
                m->type = TP_BODY_DYNAMIC;
                m->link = k + 1;
                m->link_root = b + 1;
                m->link_parent = k ? b + k : 0;
                cw->sleep[b + k] = TP_AWAKE;
            }
            b += len;
        }
    cw->wd.bodies = bodies;
    cw->wd.model = cw->model;
    cw->wd.flags = cw->flags;
    cw->wd.sleep_state = cw->sleep;
    /* distinct pairs a < b in key order: a random subset of all pairs, in order */
    long all = (long)bodies * (bodies - 1) / 2;
    int n = 0, taken = 0;
    for (int a = 0; a < bodies && taken < pairs; ++a)
        for (int b = a + 1; b < bodies && taken < pairs; ++b) {
            long left = all--;
            if ((long)(lcg(seed) % (uint32_t)left) >= pairs - taken) continue; /* selection sampling (Knuth's S) */
            taken++;
            int points = 1 + (int)(lcg(seed) % 4);
            for (int k = 0; k < points; ++k) {
                cw->contacts[n].body_a = a;
                cw->contacts[n].body_b = b;
                cw->contacts[n].normal_impulse = lcg(seed) % 2 ? 0.0f : 1.0f;
                n++;
            }
        }
    cw->n = n;
}

static void color_world_free(color_world *cw)
{
    free(cw->model);
    free(cw->flags);
    free(cw->sleep);
    free(cw->contacts);
}

typedef struct color_lanes_arg {
    color_world *cw;
    tp_constraint *cons;
    int32_t *order, *color_start;
    uint32_t *mask;
    tp_color_lanes_scratch S;
    int serial, n_cons, fresh;
} color_lanes_arg;

static void color_lane(void *arg, int lane)
{
    color_lanes_arg *a = arg;
    int nth = running->n, fresh = 0;
    int n_cons = tp_build_constraints_lanes(&a->cw->wd, a->cw->contacts, a->cw->n, a->cons, &a->S, &fresh, lane, nth);
    TP_BARRIER(nth);
    tp_color_constraints_lanes(&a->cw->wd, a->cons, n_cons, a->serial, a->mask, &a->S, a->order, a->color_start, lane,
                               nth);
    if (lane == 0) a->n_cons = n_cons, a->fresh = fresh;
}

/* Random constraint graphs (fixed seed): the lane forms of kernels/coloring.h
 * with 1, 3 and 32 lanes, run in increasing and decreasing lane order, give
 * the serial greedy's constraints, colors, order and color ranges, in the
 * colored and the serial mode. The graphs are dense enough that some
 * constraints find no free color (the overflow color), have bodies that take
 * no color (static, kinematic, sleeping: from the top) and articulation
 * trees (several bodies, one unit); 32 lanes for fewer than 32 bodies leaves
 * lanes idle in the counting phases. */
Test(stages, lane_coloring_equals_greedy_on_random_graphs)
{
    uint32_t seed = 12345u;
    const int lane_counts[] = {1, 3, 32};
    lane_sched S;
    S.stacks = malloc((size_t)32 * LANE_STACK);
    cr_assert(S.stacks);
    long overflowed = 0, colored = 0, from_top = 0;
    for (int trial = 0; trial < 60; ++trial) {
        int bodies = 2 + (int)(lcg(&seed) % 60);
        int max_pairs = bodies * (bodies - 1) / 2;
        int pairs = (int)(lcg(&seed) % (uint32_t)(max_pairs < 400 ? max_pairs + 1 : 401));
        color_world cw;
        color_world_make(&cw, bodies, pairs, &seed);
        int n = cw.n, cap = n > 0 ? n : 1;
        tp_constraint *ref = calloc((size_t)cap, sizeof *ref), *got = calloc((size_t)cap, sizeof *got);
        int32_t *ref_order = calloc((size_t)cap, 4), *got_order = calloc((size_t)cap, 4);
        int32_t ref_start[TP_MAX_COLORS + 2], got_start[TP_MAX_COLORS + 2];
        uint32_t *mask = calloc((size_t)bodies, 4);
        int slots = tp_color_slots(bodies);
        int32_t *ticket = calloc((size_t)bodies, 4), *counts = calloc((size_t)slots * TP_COLOR_BINS, 4), flags[4];
        cr_assert(ref && got && ref_order && got_order && mask && ticket && counts);
        for (int serial = 0; serial < 2; ++serial) {
            int ref_n = tp_build_constraints(&cw.wd, cw.contacts, n, ref);
            tp_color_constraints(&cw.wd, ref, ref_n, serial, mask, ref_order, ref_start);
            int ref_fresh = 0;
            for (int i = 0; i < n; ++i) ref_fresh += cw.contacts[i].normal_impulse == 0.0f;
            for (int i = 0; i < ref_n && !serial; ++i) {
                overflowed += ref[i].color == TP_OVERFLOW_COLOR;
                colored += ref[i].color != TP_OVERFLOW_COLOR;
                int ua, ub, top;
                tp_constraint_units(&cw.wd, &ref[i], &ua, &ub, &top);
                from_top += top;
            }
            for (size_t l = 0; l < sizeof lane_counts / sizeof lane_counts[0]; ++l)
                for (int reverse = 0; reverse < 2; ++reverse) {
                    memset(got, 0xA5, (size_t)cap * sizeof *got); /* stale scratch */
                    memset(got_order, 0xA5, (size_t)cap * 4);
                    memset(got_start, 0xA5, sizeof got_start);
                    memset(mask, 0xA5, (size_t)bodies * 4);
                    memset(ticket, 0xA5, (size_t)bodies * 4);
                    memset(counts, 0xA5, (size_t)slots * TP_COLOR_BINS * 4);
                    memset(flags, 0xA5, sizeof flags);
                    color_lanes_arg a = {&cw, got, got_order, got_start, mask, {ticket, counts, flags, slots}, serial, -1, -1};
                    lanes_run(&S, lane_counts[l], reverse, color_lane, &a);
                    cr_assert_eq(a.n_cons, ref_n, "trial %d, %d lanes: %d constraints, greedy %d", trial, lane_counts[l],
                                 a.n_cons, ref_n);
                    cr_assert_eq(a.fresh, ref_fresh, "trial %d: fresh points", trial);
                    for (int i = 0; i < ref_n; ++i) {
                        cr_assert(got[i].first == ref[i].first && got[i].count == ref[i].count &&
                                      got[i].body_a == ref[i].body_a && got[i].body_b == ref[i].body_b,
                                  "trial %d, %d lanes: constraint %d", trial, lane_counts[l], i);
                        cr_assert_eq(got[i].color, ref[i].color, "trial %d (%d bodies, serial %d), %d lanes%s: constraint %d color %d, greedy %d",
                                     trial, bodies, serial, lane_counts[l], reverse ? " reversed" : "", i, got[i].color,
                                     ref[i].color);
                        cr_assert_eq(got_order[i], ref_order[i], "trial %d, %d lanes: order[%d]", trial, lane_counts[l], i);
                    }
                    for (int c = 0; c < TP_MAX_COLORS + 2; ++c)
                        cr_assert_eq(got_start[c], ref_start[c], "trial %d, %d lanes: color_start[%d]", trial,
                                     lane_counts[l], c);
                }
        }
        free(ref), free(got), free(ref_order), free(got_order), free(mask), free(ticket), free(counts);
        color_world_free(&cw);
    }
    free(S.stacks);
    cr_expect_gt(overflowed, 0, "no constraint went to the overflow color");
    cr_expect_gt(colored, 0);
    cr_expect_gt(from_top, 0, "no constraint against a body that takes no color");
}

/* The scenes of scenes/ not replayed above, a few steps each, one world:
 * every lane coloring equal to the greedy (check_colors) and the bits to
 * tp_batch_step. many_pyramids is left out: its velocities do not fit a
 * block's shared memory, so the CUDA backend refuses it (docs/cuda.md). */
Test(stages, every_scene_colors_in_lanes, .timeout = 600)
{
    const char *scenes[] = {"scenes/card_house.json", "scenes/cartpole.json",   "scenes/dominoes.json",
                            "scenes/double_pendulum.json", "scenes/heap.json", "scenes/pendulum.json",
                            "scenes/ring_tower.json", "scenes/tower_push.json"};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) compare(scenes[i], 1, 40, 0, 0);
    compare("scenes/pyramid3d.json", 1, 4, 0, 0);
    cr_expect_gt(color_cons, 0, "pyramid3d: no constraint colored");
}

/* The sleep stage in lanes (kernels/sleep.h, tp_sleep_update_lanes; the
 * counts, tp_world_count_lanes) under the assembly policy, which runs on lane
 * 0 while the counts run in lanes: the tower of scenes/tower.json with
 * "policy": "assembly" settles and sleeps as tp_batch_step has it (all ten
 * boxes of all three worlds asleep at step 240: `torpor run
 * tests/scenes/tower_assembly.json --worlds 3 --steps 240`, awake.csv). */
Test(stages, assembly_policy_sleeps_in_groups)
{
    compare("tests/scenes/tower_assembly.json", 3, 240, 0, 0);
}
