/* finish.h - the end of a world's step: contact forces, applied forces
 * cleared, the fault check, and the per-world counts that the sleep stage
 * publishes (kernels/step.h runs them in that order). */
#ifndef TP_FINISH_H
#define TP_FINISH_H

#include "contact.h"
#include "tp_world.h"

/* Force rows of the solver, as tp_contact_forces reads them. */
#include "solver.h"

/* 1 if every non-static body's pose and velocity are finite and no body
 * moves faster than TP_MAX_SPEED, at its centre or, by its spin, on its
 * bounding sphere (include/torpor.h: past that a world is faulted). */
TP_HD int tp_world_is_sane(const tp_world *wd)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->model[b].type == TP_BODY_STATIC) continue;
        for (int k = 0; k < 3; ++k)
            if (!tp_finitef(wd->pos[3 * b + k]) || !tp_finitef(wd->v[3 * b + k]) || !tp_finitef(wd->w[3 * b + k]))
                return 0;
        for (int k = 0; k < 4; ++k)
            if (!tp_finitef(wd->quat[4 * b + k])) return 0;
        /* compared squared: |v|^2 of a finite v can overflow to inf, which fails as it should */
        float v2 = tp_len_sq(tp_v3_load(wd->v + 3 * b)), w2 = tp_len_sq(tp_v3_load(wd->w + 3 * b));
        float r = wd->model[b].bound_radius;
        if (!(v2 <= TP_MAX_SPEED * TP_MAX_SPEED) || !(w2 * r * r <= TP_MAX_SPEED * TP_MAX_SPEED)) return 0;
    }
    return 1;
}

/* body_awake and the awake / sleeping / checking counts of present dynamic
 * bodies; awake: a state that moves (tp_state_moves, by the sleep policy).
 * Body b's part: its body_awake, and its count added to *a, *s or *c. */
TP_HD void tp_body_count(tp_world *wd, int b, int32_t *a, int32_t *s, int32_t *c)
{
    int counted = tp_body_in_islands(wd, b) || /* dynamic bodies and links (never checking) */
                  (wd->model[b].link && !(wd->flags[b] & TP_FLAG_REMOVED));
    uint8_t st = wd->sleep_state[b];
    int is_awake = tp_state_moves(wd, st);
    wd->body_awake[b] = (uint8_t)(counted && is_awake);
    if (!counted) return;
    *a += is_awake;
    *s += st == TP_SLEEPING;
    *c += st == TP_CHECKING;
}

/* ... of every body of the world. */
TP_HD void tp_world_count(tp_world *wd, int32_t *awake, int32_t *sleeping, int32_t *checking)
{
    int32_t a = 0, s = 0, c = 0;
    for (int b = 0; b < wd->bodies; ++b) tp_body_count(wd, b, &a, &s, &c);
    *awake = a;
    *sleeping = s;
    *checking = c;
}

/* tp_world_count as lane tid of nth: each of the first `parts` lanes (at
 * most `slots`) writes body_awake of its contiguous range of bodies and
 * counts them into partial[3 x tid ..], lane 0 adds the counts up (integers:
 * the same sums in any order). partial: [3 x slots] scratch. */
TP_HD void tp_world_count_lanes(tp_world *wd, int32_t *awake, int32_t *sleeping, int32_t *checking, int32_t *partial,
                                int slots, int tid, int nth)
{
    int parts = nth < slots ? nth : slots, lo, hi;
    if (tid < parts) {
        int32_t a = 0, s = 0, c = 0;
        tp_lanes_range(wd->bodies, tid, parts, &lo, &hi);
        for (int b = lo; b < hi; ++b) tp_body_count(wd, b, &a, &s, &c);
        partial[3 * tid] = a, partial[3 * tid + 1] = s, partial[3 * tid + 2] = c;
    }
    TP_BARRIER(nth);
    if (tid != 0) return;
    int32_t a = 0, s = 0, c = 0;
    for (int t = 0; t < parts; ++t) a += partial[3 * t], s += partial[3 * t + 1], c += partial[3 * t + 2];
    *awake = a;
    *sleeping = s;
    *checking = c;
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

/* Applied forces and torques last one step, whether the world was busy or idle. */
TP_HD void tp_world_clear_applied(tp_world *wd)
{
    for (size_t k = 0; k < 3 * (size_t)wd->bodies; ++k) {
        wd->force[k] = 0.0f;
        wd->torque[k] = 0.0f;
    }
}

/* The whole finish of a world with no work: its skipped rows report zero. */
TP_HD void tp_world_finish_idle(tp_world *wd)
{
    for (int k = 0; k < 3 * wd->bodies; ++k) wd->contact_f[k] = 0.0f;
    tp_world_clear_applied(wd);
}

/* A sleeper solved only for its contact forces (skip_constraints off) stays frozen. */
TP_HD void tp_world_refreeze_sleepers(tp_world *wd)
{
    if (!wd->solve_sleeping) return;
    for (int b = 0; b < wd->bodies; ++b)
        if (wd->sleep_state[b] == TP_SLEEPING)
            for (int k = 0; k < 3; ++k) wd->v[3 * b + k] = wd->w[3 * b + k] = 0.0f;
}

#endif
