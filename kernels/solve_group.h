/* solve_group.h - the solve stage as the CUDA backend runs it: a group of
 * lanes per world, several worlds per thread block, the world's hot data in
 * shared memory.
 *
 * The solve (kernels/solver.h, tp_solver_substeps_block) is already written
 * for `nth` threads that share its loops as lane `tid` of `nth` with a
 * TP_BARRIER(nth) after each phase. Here is how those lanes are laid out on
 * the device (kernels/cuda/stages.cu, tp_group_stage_kernel) and on the host
 * replay (tests/test_stages.c), from one description, tp_solve_plan:
 *
 *   - lanes per world: the smallest power of two that holds the largest color
 *     the model allows, at most TP_SOLVE_MAX_LANES. A color's constraints share
 *     no simulated body and each has at least one, so a color holds at most as
 *     many constraints as the model has dynamic bodies (`movers`); the launch
 *     is fixed when the step's graph is captured, so the bound, not one step's
 *     colors, sizes it. Tower10: 10 movers, 16 lanes, 8 worlds per block;
 *     pyramid (55 movers): 64 lanes, two warps, 2 worlds per block.
 *   - a group is `lanes` consecutive threads of a block, aligned to a multiple
 *     of `lanes`; its barrier is __syncwarp over the group's lanes (up to 32
 *     lanes, part of one warp) or a named barrier `barrier.sync 1 + group, lanes`
 *     (two or more warps), never __syncthreads, so a group waits for its own
 *     world only (kernels/tp_hd.h, TP_BARRIER). Every lane of a group runs the
 *     same trip counts (the loops and the colors depend on the world, not on
 *     the lane), so every lane reaches every barrier.
 *   - shared memory per world, in three tiers (tp_solve_plan_make): v and w
 *     always (24 bytes per body; a world that does not fit even alone in a
 *     block is refused at batch creation); pos, quat, the push velocities and
 *     the solver bodies when the block's worlds fit TP_SOLVE_SHARED_TARGET
 *     (108 more bytes per body); and, in a step where the world's contacts fit
 *     the room left (`rows` points), its contacts, rows, constraints and solve
 *     order. Where a part does not fit it stays in global memory: the same
 *     code runs on either, through the pointers of the world's view.
 *
 * Why lanes give the CPU's bits. Between two barriers each lane works on items
 * (bodies, points, or the constraints of one color) that no other lane of the
 * phase reads or writes; the staging copies are bit copies. For the color
 * sweep (kernels/sweeps.h, tp_solver_sweep_range, the per-lane body of a
 * color) lane l takes the color's constraints l, l + lanes, ... in key order.
 * A constraint reads and writes only the velocities (and push velocities) of
 * its two bodies, its own points' impulses and its own rows, and writes a body
 * only if it is simulated (tp_apply_impulse_dw); bodies that are not simulated
 * are read only and never change during the solve. No two constraints of a
 * color share a simulated body (kernels/coloring.h). So each simulated body
 * sees exactly one constraint of the color, and reads of other bodies see
 * values no constraint of the color writes: whatever the order or
 * interleaving of the lanes, every constraint computes from the same inputs
 * as when the CPU visits the color's constraints one by one in key order, with
 * the same float operations in the same order inside it. The bits are the
 * serial sweep's. The overflow color (the serial tail) runs on lane 0 alone.
 * tests/test_stages.c checks this by running the lanes of every phase one
 * after the other, in increasing and in decreasing order (lanes as coroutines
 * that switch at TP_BARRIER), against tp_batch_step. */
#ifndef TP_SOLVE_GROUP_H
#define TP_SOLVE_GROUP_H

#include "step.h"

#define TP_SOLVE_BLOCK_THREADS 128 /* threads per block of the solve (a multiple of every lane count up to it) */
#define TP_SOLVE_MAX_LANES 128     /* lanes per world at most (4 warps; named barriers 1..15 per block) */
/* Shared bytes per block up to which the optional tiers are staged: four such
 * blocks (plus 1 KiB reserved each) fill an sm_90 multiprocessor's 228 KiB,
 * as many as the registers of 128-thread blocks allow. Untuned (no GPU yet). */
#ifndef TP_SOLVE_SHARED_TARGET
#define TP_SOLVE_SHARED_TARGET (56 * 1024)
#endif
/* Shared bytes per contact point in the third tier: the contact, its row, and
 * at most one constraint and one order entry. */
#define TP_SOLVE_POINT_BYTES (sizeof(tp_contact) + sizeof(tp_contact_row) + sizeof(tp_constraint) + sizeof(int32_t))

typedef struct tp_solve_plan {
    int lanes;            /* threads per world: a power of two, 1 .. TP_SOLVE_MAX_LANES */
    int worlds_per_block; /* groups per block */
    int block_threads;    /* lanes x worlds_per_block */
    int body_tier;        /* 1: pos, quat, push and the solver bodies are in shared memory too */
    int rows;             /* contact points whose contacts, rows, constraints and order fit (0: none) */
    /* Byte offsets within a world's part of the block's shared memory. */
    size_t off_v, off_w, off_pos, off_quat, off_push, off_bodies, off_color_start;
    size_t off_contacts, off_rows, off_cons, off_order;
    size_t world_bytes;   /* one world's part (16-byte multiple) */
    size_t block_bytes;   /* worlds_per_block x world_bytes: the launch's dynamic shared memory */
} tp_solve_plan;

/* Dynamic bodies of the model: the bound on a color's constraints. */
TP_HD int tp_solve_movers(const tp_body_model *model, int bodies)
{
    int n = 0;
    for (int b = 0; b < bodies; ++b) n += model[b].type == TP_BODY_DYNAMIC;
    return n;
}

/* The smallest power of two >= movers, in [1, TP_SOLVE_MAX_LANES]. */
TP_HD int tp_solve_lanes(int movers)
{
    int lanes = 1;
    while (lanes < movers && lanes < TP_SOLVE_MAX_LANES) lanes *= 2;
    return lanes;
}

/* The plan for worlds of `bodies` bodies and `capacity` contact points, with
 * `lanes` threads per world (tp_solve_lanes of the model's movers on the
 * device; the host replay may pick others) and at most `max_block_bytes` of
 * shared memory per block (the device's opt-in limit): fewer worlds per block
 * when their velocities would not fit. block_bytes > max_block_bytes: not even
 * one world fits (the batch is refused). */
TP_HD tp_solve_plan tp_solve_plan_make(int bodies, int capacity, int lanes, size_t max_block_bytes)
{
    tp_solve_plan P;
    size_t B = (size_t)bodies, f = sizeof(float);
    P.off_v = 0;
    P.off_w = tp_solver_align(3 * B * f);
    size_t vw = P.off_w + tp_solver_align(3 * B * f);
    P.lanes = lanes;
    P.worlds_per_block = lanes >= TP_SOLVE_BLOCK_THREADS ? 1 : TP_SOLVE_BLOCK_THREADS / lanes;
    while (P.worlds_per_block > 1 && vw * (size_t)P.worlds_per_block > max_block_bytes) P.worlds_per_block /= 2;
    P.block_threads = P.worlds_per_block * lanes;
    P.off_pos = vw;
    P.off_quat = P.off_pos + tp_solver_align(3 * B * f);
    P.off_push = P.off_quat + tp_solver_align(4 * B * f);
    P.off_bodies = P.off_push + tp_solver_align(6 * B * f);
    P.off_color_start = P.off_bodies + tp_solver_align(B * sizeof(tp_solver_body));
    size_t body_end = P.off_color_start + tp_solver_align((TP_MAX_COLORS + 2) * sizeof(int32_t));
    size_t per_world_target = (size_t)TP_SOLVE_SHARED_TARGET / (size_t)P.worlds_per_block;
    P.body_tier = body_end <= per_world_target;
    P.rows = 0;
    if (P.body_tier) {
        size_t room = per_world_target - body_end, point = TP_SOLVE_POINT_BYTES;
        size_t fit = room > 4 * 16 ? (room - 4 * 16) / point : 0; /* 16 bytes of alignment per array */
        P.rows = fit < (size_t)capacity ? (int)fit : capacity;
    }
    size_t end = P.body_tier ? body_end : vw;
    size_t r = (size_t)P.rows;
    P.off_contacts = end;
    P.off_rows = P.off_contacts + tp_solver_align(r * sizeof(tp_contact));
    P.off_cons = P.off_rows + tp_solver_align(r * sizeof(tp_contact_row));
    P.off_order = P.off_cons + tp_solver_align(r * sizeof(tp_constraint));
    if (P.rows > 0) end = P.off_order + tp_solver_align(r * sizeof(int32_t));
    P.world_bytes = tp_solver_align(end);
    P.block_bytes = P.world_bytes * (size_t)P.worlds_per_block;
    return P;
}

/* Copy `words` 32-bit words from src to dst, lane of lanes taking every lanes-th
 * (consecutive lanes, consecutive words: coalesced). */
TP_HD void tp_lanes_copy(void *dst, const void *src, size_t words, int lane, int lanes)
{
    uint32_t *d = (uint32_t *)dst;
    const uint32_t *s = (const uint32_t *)src;
    for (size_t k = (size_t)lane; k < words; k += (size_t)lanes) d[k] = s[k];
}

#define TP_WORDS(bytes) ((bytes) / sizeof(uint32_t))

/* What a group stages (tp_solve_group_enter) and must write back (leave). */
typedef struct tp_solve_staged {
    tp_world_step global;     /* the world's step before staging: where everything lives */
    int n, n_cons, points;    /* points: 1 if the contacts and rows are staged this step */
} tp_solve_staged;

/* Lane `lane` of the world's group copies what the plan stages into `shared`
 * (this world's part) and points *s at it. The caller puts a barrier after. */
TP_HD tp_solve_staged tp_solve_group_enter(tp_world_step *s, const tp_solve_plan *P, char *shared, int lane)
{
    tp_solve_staged g;
    g.global = *s;
    g.n = *s->contact_count;
    g.n_cons = s->solver.color_start[TP_OVERFLOW_COLOR + 1];
    g.points = P->body_tier && g.n <= P->rows;
    size_t B = (size_t)s->wd.bodies;
    int L = P->lanes;
    s->wd.v = (float *)(shared + P->off_v);
    s->wd.w = (float *)(shared + P->off_w);
    tp_lanes_copy(s->wd.v, g.global.wd.v, 3 * B, lane, L);
    tp_lanes_copy(s->wd.w, g.global.wd.w, 3 * B, lane, L);
    if (P->body_tier) {
        s->wd.pos = (float *)(shared + P->off_pos);
        s->wd.quat = (float *)(shared + P->off_quat);
        s->solver.push = (float *)(shared + P->off_push); /* zeroed in every substep before use */
        s->solver.bodies = (tp_solver_body *)(shared + P->off_bodies);
        s->solver.color_start = (int32_t *)(shared + P->off_color_start);
        tp_lanes_copy(s->wd.pos, g.global.wd.pos, 3 * B, lane, L);
        tp_lanes_copy(s->wd.quat, g.global.wd.quat, 4 * B, lane, L);
        tp_lanes_copy(s->solver.bodies, g.global.solver.bodies, TP_WORDS(B * sizeof(tp_solver_body)), lane, L);
        tp_lanes_copy(s->solver.color_start, g.global.solver.color_start, TP_MAX_COLORS + 2, lane, L);
    }
    if (g.points) {
        s->contacts = (tp_contact *)(shared + P->off_contacts);
        s->solver.rows = (tp_contact_row *)(shared + P->off_rows); /* written by the solve before it is read */
        s->solver.cons = (tp_constraint *)(shared + P->off_cons);
        s->solver.order = (int32_t *)(shared + P->off_order);
        tp_lanes_copy(s->contacts, g.global.contacts, TP_WORDS((size_t)g.n * sizeof(tp_contact)), lane, L);
        tp_lanes_copy(s->solver.cons, g.global.solver.cons, TP_WORDS((size_t)g.n_cons * sizeof(tp_constraint)), lane, L);
        tp_lanes_copy(s->solver.order, g.global.solver.order, (size_t)g.n_cons, lane, L);
    }
    return g;
}

/* After the stage and a barrier: what the solve changed back to global memory
 * (velocities, poses, contacts with their impulses, rows for the finish
 * stage's forces); s points at global memory again. */
TP_HD void tp_solve_group_leave(tp_world_step *s, const tp_solve_plan *P, const tp_solve_staged *g, int lane)
{
    size_t B = (size_t)s->wd.bodies;
    int L = P->lanes;
    tp_lanes_copy(g->global.wd.v, s->wd.v, 3 * B, lane, L);
    tp_lanes_copy(g->global.wd.w, s->wd.w, 3 * B, lane, L);
    if (P->body_tier) {
        tp_lanes_copy(g->global.wd.pos, s->wd.pos, 3 * B, lane, L);
        tp_lanes_copy(g->global.wd.quat, s->wd.quat, 4 * B, lane, L);
    }
    if (g->points) {
        tp_lanes_copy(g->global.contacts, s->contacts, TP_WORDS((size_t)g->n * sizeof(tp_contact)), lane, L);
        tp_lanes_copy(g->global.solver.rows, s->solver.rows, TP_WORDS((size_t)g->n * sizeof(tp_contact_row)), lane,
                      L);
    }
    *s = g->global;
}

/* Stage `stage` (a TP_LAUNCH_GROUP stage: islands, color, solve, sleep) of one world
 * as lane `lane` of the plan's lanes; for the solve, `shared` is this world's
 * part of the block's shared memory (the other group stages use none). Every
 * lane of the group calls it with the same s and P. */
TP_HD_DISPATCH void tp_solve_group_run(int stage, tp_world_step *s, const tp_step_params *p, const tp_solve_plan *P,
                              char *shared, int lane)
{
    if (stage != TP_STEP_SOLVE) {
        tp_stage_run(stage, s, p, lane, P->lanes);
        return;
    }
    tp_solve_staged g = tp_solve_group_enter(s, P, shared, lane);
    TP_BARRIER(P->lanes);
    tp_stage_run(stage, s, p, lane, P->lanes);
    TP_BARRIER(P->lanes);
    tp_solve_group_leave(s, P, &g, lane);
}

#endif
