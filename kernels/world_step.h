/* world_step.h - one world's step, shared by the CPU loop and the CUDA kernel.
 *
 * The stages of DESIGN.md section 4 in order, for one world. The CPU backend
 * calls tp_world_step for each world inside an OpenMP loop (csrc/step.c); the
 * CUDA backend calls the pieces tp_world_step is made of (has-work check,
 * v_start, collision, islands and wakes, warm-start match, coloring, substeps,
 * finish) from its stage kernels, in the same order (kernels/cuda_backend.cu,
 * docs/cuda.md). */
#ifndef TP_WORLD_STEP_H
#define TP_WORLD_STEP_H

#include "collision.h"
#include "sleep.h"
#include "solver.h"

/* 1 if every non-static body's pose and velocity are finite. */
TP_HD int tp_world_is_finite(const tp_world *wd)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->model[b].type == TP_BODY_STATIC) continue;
        for (int k = 0; k < 3; ++k)
            if (!tp_finitef(wd->pos[3 * b + k]) || !tp_finitef(wd->v[3 * b + k]) || !tp_finitef(wd->w[3 * b + k]))
                return 0;
        for (int k = 0; k < 4; ++k)
            if (!tp_finitef(wd->quat[4 * b + k])) return 0;
    }
    return 1;
}

/* body_awake and the awake / sleeping / checking counts of present dynamic bodies. */
TP_HD void tp_world_count(tp_world *wd, int32_t *awake, int32_t *sleeping, int32_t *checking)
{
    int32_t a = 0, s = 0, c = 0;
    for (int b = 0; b < wd->bodies; ++b) {
        int counted = wd->model[b].type == TP_BODY_DYNAMIC && !(wd->flags[b] & TP_FLAG_REMOVED);
        uint8_t st = wd->sleep_state[b];
        wd->body_awake[b] = (uint8_t)(counted && st != TP_SLEEPING);
        if (!counted) continue;
        a += st != TP_SLEEPING;
        s += st == TP_SLEEPING;
        c += st == TP_CHECKING;
    }
    *awake = a;
    *sleeping = s;
    *checking = c;
}

/* Two points closer than this (m, in A's frame) are taken as the same contact
 * point when their feature ids differ (Jolt keeps impulses within 1 cm too). */
#define TP_WARM_MATCH_DISTANCE 0.01f

TP_HD uint64_t tp_pair_of_key(uint64_t key) { return key >> TP_KEY_BODY_B_SHIFT; }

TP_HD void tp_copy_impulses(tp_contact *to, const tp_contact *from)
{
    to->normal_impulse = from->normal_impulse;
    to->tangent_impulse[0] = from->tangent_impulse[0];
    to->tangent_impulse[1] = from->tangent_impulse[1];
}

/* Warm starting: give each of this step's points the accumulated impulses of
 * last step's point of the same pair with the same contact key, or else of the
 * nearest one within TP_WARM_MATCH_DISTANCE (in body A's frame). Feature ids
 * of clipped points can flip between neighbouring features when faces are
 * exactly flush (two equal boxes stacked); matching by place keeps the
 * impulses there. Both lists are sorted by key, so the points of a pair are
 * contiguous in each: one merge pass over pairs. */
TP_HD void tp_match_impulses(tp_contact *cur, int n, const tp_contact *prev, int n_prev)
{
    int j = 0;
    for (int i = 0; i < n;) {
        uint64_t pair = tp_pair_of_key(cur[i].key);
        int i_end = i;
        while (i_end < n && tp_pair_of_key(cur[i_end].key) == pair) ++i_end;
        while (j < n_prev && tp_pair_of_key(prev[j].key) < pair) ++j;
        int j_end = j;
        while (j_end < n_prev && tp_pair_of_key(prev[j_end].key) == pair) ++j_end;
        for (int k = i; k < i_end; ++k) {
            int best = -1;
            float best_d2 = TP_WARM_MATCH_DISTANCE * TP_WARM_MATCH_DISTANCE;
            for (int m = j; m < j_end; ++m) {
                if (prev[m].key == cur[k].key) { best = m; break; }
                float d2 = tp_len_sq(tp_sub(tp_v3_load(prev[m].local_a), tp_v3_load(cur[k].local_a)));
                if (d2 < best_d2) { best_d2 = d2; best = m; }
            }
            if (best >= 0) tp_copy_impulses(&cur[k], &prev[best]);
        }
        i = i_end;
        j = j_end;
    }
}

/* Forces of every point (impulse totals over the step / dt) and their sum on
 * each body, contact_f [bodies][3] (world frame, N): +F on B, -F on A. */
TP_HD void tp_contact_forces(tp_world *wd, tp_contact *contacts, int n, const tp_contact_row *rows, float dt)
{
    float inv_dt = 1.0f / dt;
    for (int k = 0; k < 3 * wd->bodies; ++k) wd->contact_f[k] = 0.0f;
    for (int i = 0; i < n; ++i) {
        tp_contact *c = &contacts[i];
        const tp_contact_row *r = &rows[i];
        c->normal_force = r->normal_total * inv_dt;
        c->tangent_force[0] = r->tangent_total[0] * inv_dt;
        c->tangent_force[1] = r->tangent_total[1] * inv_dt;
        tp_vec3 f = tp_scale(tp_v3_load(c->normal), c->normal_force);
        f = tp_mad(f, tp_v3_load(r->t1), c->tangent_force[0]);
        f = tp_mad(f, tp_v3_load(r->t2), c->tangent_force[1]);
        tp_v3_store(wd->contact_f + 3 * c->body_a, tp_sub(tp_v3_load(wd->contact_f + 3 * c->body_a), f));
        tp_v3_store(wd->contact_f + 3 * c->body_b, tp_add(tp_v3_load(wd->contact_f + 3 * c->body_b), f));
    }
}

/* Settings of a step, from the model. */
typedef struct tp_step_params {
    tp_solver_params solver;
    tp_sleep_params sleep;
} tp_step_params;

/* What one world's step reads and writes besides its state. */
typedef struct tp_world_buffers {
    tp_contact *contacts;       /* [capacity] this step's contacts (output) */
    const tp_contact *previous; /* [prev_count] last step's, for warm starting */
    int prev_count, capacity;
    void *collide_scratch;      /* tp_collide_scratch_bytes(bodies, capacity) */
    void *solver_scratch;       /* tp_solver_scratch_bytes(bodies, capacity) */
    void *island_scratch;       /* tp_island_scratch_bytes(bodies) */
    int contact_count;          /* out: points in contacts */
    int overflow;               /* out: points that did not fit */
} tp_world_buffers;

TP_HD size_t tp_island_scratch_bytes(int bodies)
{
    size_t b = (size_t)bodies;
    return tp_solver_align(b * sizeof(int32_t)) + tp_solver_align(b) + tp_solver_align(3 * b * sizeof(float));
}

/* Views of the island scratch of one world's step. */
typedef struct tp_island_work {
    int32_t *parent;            /* [bodies] union-find */
    uint8_t *root_flags;        /* [bodies] TP_ISLAND_* per island root */
    float *v_start;             /* [bodies][3] velocities at the start of the step */
} tp_island_work;

TP_HD tp_island_work tp_island_work_at(void *scratch, int bodies)
{
    char *is = (char *)scratch;
    size_t nb = (size_t)bodies;
    tp_island_work iw;
    iw.parent = (int32_t *)is;
    iw.root_flags = (uint8_t *)(is + tp_solver_align(nb * sizeof(int32_t)));
    iw.v_start = (float *)(is + tp_solver_align(nb * sizeof(int32_t)) + tp_solver_align(nb));
    return iw;
}

/* 1 if any body of the world is awake (or the solver must visit sleepers). */
TP_HD int tp_world_has_work(const tp_world *wd)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->model[b].type == TP_BODY_STATIC || (wd->flags[b] & TP_FLAG_REMOVED)) continue;
        if (wd->model[b].type == TP_BODY_KINEMATIC) {
            if (tp_body_is_moving_kinematic(wd, b)) return 1;
            continue;
        }
        if (wd->sleep_state[b] != TP_SLEEPING || wd->solve_sleeping) return 1;
    }
    return 0;
}

/* The whole step of a world with no work: its skipped rows report zero. */
TP_HD void tp_world_step_idle(tp_world *wd)
{
    for (int k = 0; k < 3 * wd->bodies; ++k) {
        wd->contact_f[k] = 0.0f;
        wd->force[k] = 0.0f; /* applied forces last one step, idle or not */
        wd->torque[k] = 0.0f;
    }
}

TP_HD void tp_world_save_v_start(const tp_world *wd, float *v_start)
{
    for (size_t k = 0; k < 3 * (size_t)wd->bodies; ++k) v_start[k] = wd->v[k];
}

TP_HD void tp_world_wake_all(tp_world *wd)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (!tp_body_in_islands(wd, b)) continue;
        wd->sleep_state[b] = TP_AWAKE;
        wd->quiet_timer[b] = 0.0f;
    }
}

/* Stages 5-6 after the first collision pass, whose n sorted contacts are in
 * buf->contacts and whose overflow is in buf->overflow: islands and the wakes
 * they cause. If an island woke, its own pairs were skipped by the broadphase
 * (all asleep), so collide again (sorted in place, tp_collide_world). Returns
 * the number of contacts. */
TP_HD int tp_world_islands_and_wake(tp_world *wd, tp_world_buffers *buf, int n, float dt, int32_t *parent,
                                    uint8_t *root_flags)
{
    int woke = 0;
    if (buf->overflow > 0) { /* lost contacts: nothing may rest on them */
        for (int b = 0; b < wd->bodies; ++b) woke |= tp_body_in_islands(wd, b) && wd->sleep_state[b] == TP_SLEEPING;
        tp_world_wake_all(wd);
    }
    tp_islands_build(wd, buf->contacts, n, dt, parent, root_flags);
    /* Each pass wakes the islands touched by something awake and collides
     * again, since the pairs of what just woke were skipped; a woken island
     * may in turn reach another sleeper, so repeat until nothing more wakes
     * (at most once per island). */
    for (int pass = 0; pass <= wd->bodies; ++pass) {
        for (int r = 0; r < wd->bodies; ++r)
            woke |= (root_flags[r] & TP_ISLAND_HAS_AWAKE) && (root_flags[r] & TP_ISLAND_HAS_SLEEPING);
        if (!woke) return n;
        woke = 0;
        tp_islands_wake_touched(wd, root_flags);
        int more = 0;
        n = tp_collide_world(wd, buf->collide_scratch, buf->contacts, buf->capacity, &more);
        buf->overflow = more;
        tp_islands_build(wd, buf->contacts, n, dt, parent, root_flags);
    }
    return n;
}

/* Stages 2-6: collision, islands and the wakes they cause. */
TP_HD int tp_world_collide_and_wake(tp_world *wd, tp_world_buffers *buf, float dt, int32_t *parent,
                                    uint8_t *root_flags)
{
    int n = tp_collide_world(wd, buf->collide_scratch, buf->contacts, buf->capacity, &buf->overflow);
    return tp_world_islands_and_wake(wd, buf, n, dt, parent, root_flags);
}

/* After the solver (stage 10 and the end of the step): contact forces,
 * sleepers that were solved for their forces frozen again, the sleep update,
 * applied forces cleared. Returns 0 if the state became non-finite. */
TP_HD int tp_world_step_finish(tp_world *wd, const tp_step_params *p, tp_contact *contacts, int n,
                               const tp_contact_row *rows, const float *v_start, uint8_t *root_flags)
{
    tp_contact_forces(wd, contacts, n, rows, p->solver.dt);
    if (wd->solve_sleeping) /* solved for their forces only: sleepers stay frozen */
        for (int b = 0; b < wd->bodies; ++b)
            if (wd->sleep_state[b] == TP_SLEEPING)
                for (int k = 0; k < 3; ++k) wd->v[3 * b + k] = wd->w[3 * b + k] = 0.0f;
    tp_sleep_update(wd, &p->sleep, v_start, root_flags);
    for (size_t k = 0; k < 3 * (size_t)wd->bodies; ++k) {
        wd->force[k] = 0.0f;
        wd->torque[k] = 0.0f;
    }
    return tp_world_is_finite(wd);
}

/* Advance one world by one step; clears the applied forces. Returns 0 if the
 * state became non-finite (the caller flags the world). A world with nothing
 * awake costs one scan: no collision, no solve (DESIGN.md section 4). The CUDA
 * backend runs the same pieces in its stage kernels (docs/cuda.md). */
TP_HD int tp_world_step(tp_world *wd, const tp_step_params *p, tp_world_buffers *buf)
{
    buf->contact_count = 0;
    buf->overflow = 0;
    if (!tp_world_has_work(wd)) {
        tp_world_step_idle(wd);
        return 1;
    }
    tp_island_work iw = tp_island_work_at(buf->island_scratch, wd->bodies);
    tp_world_save_v_start(wd, iw.v_start);
    int n = tp_world_collide_and_wake(wd, buf, p->solver.dt, iw.parent, iw.root_flags);
    if (p->solver.warm_starting) tp_match_impulses(buf->contacts, n, buf->previous, buf->prev_count);
    tp_solver_work work = tp_solver_work_at(buf->solver_scratch, wd->bodies, buf->capacity);
    tp_solve_world(wd, buf->contacts, n, &work, &p->solver);
    buf->contact_count = n;
    return tp_world_step_finish(wd, p, buf->contacts, n, work.rows, iw.v_start, iw.root_flags);
}

#endif
