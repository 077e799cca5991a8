/* collide_pairs.h - the collide stage as the CUDA backend runs it: a thread
 * per candidate pair for the narrowphase.
 *
 * The CPU runs the stage as one loop per world (tp_stage_collide: broadphase,
 * and each candidate pair's manifold pushed into the contact buffer as it is
 * found). On the device that loop is cut in three launches
 * (kernels/cuda/stages.cu, TP_LAUNCH_PAIRS), each calling one function here:
 *
 *   1. tp_collide_list_pairs_lanes, a group of lanes per busy world, its
 *      work area in shared memory (tp_list_plan): the broadphase's candidate
 *      pairs, in the order tp_broadphase_next gives them
 *      (tp_broadphase_pairs_lanes, kernels/broadphase.h), into the world's
 *      pair slots (at most tp_pair_capacity of them);
 *   2. tp_collide_pair_slot, a thread per candidate pair of the busy worlds,
 *      packed end to end (tp_pair_item_world): the pair's manifold, with the
 *      polytopes of the model's bodies built once per batch (tp_poly_build
 *      depends on the shape and size only) instead of twice per pair;
 *   3. tp_stage_collide_gather, a thread per busy world: the manifolds' points
 *      pushed into the contact buffer in slot order, which is the order in
 *      which the CPU pushes them.
 *
 * Why the bits are the CPU's: no launch writes what an earlier one of the
 * same stage reads besides the slots (poses, velocities and flags are the
 * world's and unchanged), a pair's manifold is a function of the pair's
 * bodies only (tp_collide_pair_manifold), and tp_contact_push sees the same
 * points in the same order, so the buffer (including which points a full
 * buffer keeps) is the CPU's. The order matters only for equal keys:
 * contact keys are (world, body pair, feature id), and a manifold's feature
 * ids differ from point to point, so keys are unique in a world and the sorted
 * list would be the same in any pair order; pushing in the CPU's order makes
 * that hold without relying on it (tests/test_stages.c checks that every
 * world's sorted keys strictly increase).
 *
 * A world with more candidate pairs than slots (a heap collapsing into a
 * dense pile, say) is collided whole by one thread instead (tp_stage_collide,
 * the CPU's function, in a launch of its own): the same bits, one thread's
 * speed. */
#ifndef TP_COLLIDE_PAIRS_H
#define TP_COLLIDE_PAIRS_H

#include "step.h"

/* One candidate pair and, after step 2, its manifold. */
typedef struct tp_pair_slot {
    int32_t a, b;   /* body indices, a < b */
    int32_t from;   /* tp_collide_pair_manifold's: last step's manifold reused (1 + its first point), or 0 */
    tp_manifold m;
} tp_pair_slot;

/* Pair slots per world for a contact capacity: a quarter of it (each touching
 * pair gives 1-4 points), at least 16. */
TP_HD int tp_pair_capacity(int capacity) { return capacity / 4 > 16 ? capacity / 4 : 16; }

/* Step 1: the world's candidate pairs into slots[0 .. slot_count), by lane tid
 * of a group of nth (kernels/broadphase.h, tp_broadphase_pairs_lanes: the
 * sort-and-sweep's pairs in the order tp_broadphase_next gives them); returns
 * how many there are, the same in every lane (more than slot_count: only the
 * first slot_count are written, and step 3 collides the world whole). work:
 * tp_broadphase_lanes_bytes(wd->bodies, nth) bytes shared by the group (the
 * device: its part of the block's shared memory, tp_list_plan).
 *
 * A compound body (kernels/compound.h) collides shape pair by shape pair
 * (tp_collide_compound_pair), which one slot's manifold cannot hold: a world
 * with a compound candidate pair reports slot_count + 1 pairs, so it is
 * collided whole by the CPU's own function, the same bits at one thread's
 * speed (docs/cuda.md). */
TP_HD int tp_collide_list_pairs_lanes(const tp_world *wd, void *work, tp_pair_slot *slots, int slot_count, int tid,
                                      int nth)
{
    int compound = 0;
    /* a slot is (a, b, manifold): pair k's bodies are the first two words of slot k */
    int n = tp_broadphase_pairs_lanes(wd, TP_CONTACT_MARGIN, work, &slots->a,
                                      (int)(sizeof(tp_pair_slot) / sizeof(int32_t)), slot_count, &compound, tid, nth);
    return compound && n <= slot_count ? slot_count + 1 : n;
}

/* How the device lists the pairs (kernels/cuda/stages.cu,
 * tp_pairs_list_kernel): a group of `lanes` threads per listed world,
 * several worlds per block of at most TP_LIST_BLOCK_THREADS, the lanes
 * barrier as the solve's do (kernels/tp_hd.h), each world's work area in the
 * block's shared memory when one world's fits the device's shared memory per
 * block, otherwise (`shared` 0: worlds of more than 5,923 bodies on
 * sm_90) in a global array of world_bytes per world, the same code through
 * another pointer (docs/cuda.md, "Large worlds"). */
#define TP_LIST_BLOCK_THREADS 128
#define TP_LIST_MAX_LANES 128

typedef struct tp_list_plan {
    int lanes;            /* per world: the smallest power of two >= the bodies, at most TP_LIST_MAX_LANES */
    int worlds_per_block; /* groups per block */
    int block_threads;    /* lanes x worlds_per_block */
    int shared;           /* 1: work areas in shared memory; 0: in global memory */
    size_t world_bytes;   /* one world's work area (tp_broadphase_lanes_bytes, a 16-byte multiple) */
    size_t block_bytes;   /* the launch's dynamic shared memory (0 when not shared) */
} tp_list_plan;

/* The plan for worlds of `bodies` bodies; lanes 0: the device's choice;
 * max_block_bytes: the device's shared memory per block (with the opt-in). */
TP_HD tp_list_plan tp_list_plan_make(int bodies, int lanes, size_t max_block_bytes)
{
    tp_list_plan P;
    if (lanes <= 0) {
        lanes = 1;
        while (lanes < bodies && lanes < TP_LIST_MAX_LANES) lanes *= 2;
    }
    P.lanes = lanes;
    P.worlds_per_block = lanes >= TP_LIST_BLOCK_THREADS ? 1 : TP_LIST_BLOCK_THREADS / lanes;
    P.world_bytes = (tp_broadphase_lanes_bytes(bodies, lanes) + 15u) & ~(size_t)15u;
    while (P.worlds_per_block > 1 && P.world_bytes * (size_t)P.worlds_per_block > max_block_bytes)
        P.worlds_per_block /= 2;
    P.shared = P.world_bytes <= max_block_bytes;
    P.block_threads = P.worlds_per_block * lanes;
    P.block_bytes = P.shared ? P.world_bytes * (size_t)P.worlds_per_block : 0;
    return P;
}

/* Pairs a world hands to step 2: its candidate pairs when they fit its
 * slots, none otherwise (the world is collided whole). */
TP_HD int tp_pairs_for_narrowphase(int pair_count, int slot_count) { return pair_count <= slot_count ? pair_count : 0; }

/* Step 2 runs over the busy worlds' pairs packed end to end (so a warp's 32
 * threads hold 32 pairs, not one world's few pairs and empty slots):
 * first[k] is the number of pairs of listed worlds 0 .. k - 1 (an exclusive
 * prefix sum of tp_pairs_for_narrowphase, non-decreasing). The listed world
 * whose pairs hold item t is the largest k with first[k] <= t (a world with
 * no pairs shares its first with the next one and is passed over). */
TP_HD int tp_pair_item_world(const int32_t *first, int count, int t)
{
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (first[mid] <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Step 2: one slot's manifold. polys: [bodies] the model's polytopes. */
TP_HD void tp_collide_pair_slot(const tp_world *wd, const tp_poly *polys, tp_pair_slot *slot)
{
    int a = slot->a, b = slot->b;
    tp_collide_pair_manifold(wd, a, b, tp_pair_margin(wd, a, b), polys, &slot->m, &slot->from);
}

/* Step 3: what tp_stage_collide leaves (the unsorted buffer, its count, the
 * overflow), from the slots of steps 1-2; pair_count as step 1 returned it,
 * at most slot_count (a world with more runs tp_stage_collide itself: on the
 * device in a launch of its own, tp_pairs_whole_kernel, so that this one does
 * not carry the narrowphase's registers and stack). */
TP_HD void tp_stage_collide_gather(tp_world_step *s, const tp_pair_slot *slots, int pair_count)
{
    tp_contact_buffer cb;
    cb.out = s->contacts;
    cb.capacity = s->capacity > 0 ? s->capacity : 0;
    cb.count = cb.overflow = cb.heap = 0;
    tp_contact pts[TP_MAX_MANIFOLD_POINTS];
    for (int i = 0; i < pair_count; ++i) {
        int n = slots[i].m.count > 0
                    ? tp_manifold_contacts(&s->wd, slots[i].a, slots[i].b, &slots[i].m, slots[i].from, pts)
                    : 0;
        for (int k = 0; k < n; ++k) tp_contact_push(&cb, &pts[k]);
    }
    *s->contact_count = cb.count;
    s->rec->overflow = cb.overflow;
}

#endif
