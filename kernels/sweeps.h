/* sweeps.h - the `solve` stage's sweeps: projected Gauss-Seidel over the
 * contact rows of the colored constraints (Catto, "Iterative Dynamics with
 * Temporal Coherence", GDC 2005), with the structure of Box2D v3's
 * substepping solver (Catto, "Solver2D", 2024): warm start, biased sweeps,
 * relax sweeps. Each row follows the row law (kernels/row_law.h); here are
 * the rigid rows' loads and stores, the order of the rows and the drivers:
 *   - odd sweeps visit the points of each manifold in reverse order, so a
 *     four-point face contact does not tip the body toward whichever corner
 *     is solved first (the color order is kept);
 *   - a manifold's normal rows come before its friction rows;
 *   - accumulated impulses are per substep (applied again at the start of
 *     every substep).
 * docs/solver.md gives the reasons and the tuning. */
#ifndef TP_SWEEPS_H
#define TP_SWEEPS_H

#include "constraint_colors.h"
#include "contact_rows.h"

#ifndef TP_RELAX_DIVISOR
#define TP_RELAX_DIVISOR 2 /* relax sweeps per substep = iterations / this, at least 1 */
#endif

/* Relative speed along d of the points at arms ra, rb of bodies a and b in
 * [bodies][stride] velocity arrays v, w (tp_apply_impulse_held's layout). */
TP_HD float tp_pair_speed(const float *v, const float *w, int stride, int a, int b, tp_vec3 ra, tp_vec3 rb, tp_vec3 d)
{
    return tp_row_speed(tp_v3_load(v + stride * a), tp_v3_load(w + stride * a), ra, tp_v3_load(v + stride * b),
                        tp_v3_load(w + stride * b), rb, d);
}

/* A point's accumulated impulses applied again to bodies a and b (the warm start). */
TP_HD void tp_warm_start_point(tp_world *wd, const tp_solver_body *sb, int a, int b, const tp_contact *c,
                               const tp_contact_row *r)
{
    float ln = c->normal_impulse, l1 = c->tangent_impulse[0], l2 = c->tangent_impulse[1];
    tp_vec3 p = tp_row_sum3(tp_v3_load(c->normal), ln, tp_v3_load(r->t1), l1, tp_v3_load(r->t2), l2);
    tp_vec3 dwa = tp_row_sum3(tp_v3_load(r->wa_n), ln, tp_v3_load(r->wa_t1), l1, tp_v3_load(r->wa_t2), l2);
    tp_vec3 dwb = tp_row_sum3(tp_v3_load(r->wb_n), ln, tp_v3_load(r->wb_t1), l1, tp_v3_load(r->wb_t2), l2);
    tp_apply_impulse_dw(wd->v, wd->w, 3, sb, a, b, p, dwa, dwb);
}

/* Impulse `delta` along a point's normal on bodies a and b, in velocity
 * arrays v, w of `stride` (the velocities or the push-out's). */
TP_HD void tp_apply_normal(float *v, float *w, int stride, const tp_solver_body *sb, int a, int b, const tp_contact *c,
                           const tp_contact_row *r, float delta, int hold)
{
    tp_apply_impulse_held(v, w, stride, sb, a, b, tp_scale(tp_v3_load(c->normal), delta),
                          tp_scale(tp_v3_load(r->wa_n), delta), tp_scale(tp_v3_load(r->wb_n), delta), hold);
}

/* Impulses (d1, d2) along a point's tangents on bodies a and b. */
TP_HD void tp_apply_friction(tp_world *wd, const tp_solver_body *sb, int a, int b, const tp_contact_row *r, float d1,
                             float d2, int hold)
{
    tp_vec3 p = tp_row_sum2(tp_v3_load(r->t1), d1, tp_v3_load(r->t2), d2);
    tp_vec3 dwa = tp_row_sum2(tp_v3_load(r->wa_t1), d1, tp_v3_load(r->wa_t2), d2);
    tp_vec3 dwb = tp_row_sum2(tp_v3_load(r->wb_t1), d1, tp_v3_load(r->wb_t2), d2);
    tp_apply_impulse_held(wd->v, wd->w, 3, sb, a, b, p, dwa, dwb, hold);
}

/* The push-out row's new accumulated impulse stored; returns the change. */
TP_HD float tp_push_store(tp_contact_row *r, float pl)
{
    float dp = pl - r->push_impulse;
    r->push_impulse = pl;
    return dp;
}

/* The normal row's new accumulated impulse stored (and the step's largest
 * noted, tp_row_active); returns the change. */
TP_HD float tp_normal_store(tp_contact *c, tp_contact_row *r, float lambda)
{
    float delta = lambda - c->normal_impulse;
    c->normal_impulse = lambda;
    r->max_normal_impulse = tp_maxf(r->max_normal_impulse, lambda);
    return delta;
}

/* Re-apply the accumulated impulses of a constraint (warm start). */
TP_HD void tp_warm_start_constraint(tp_world *wd, const tp_solver_body *sb, const tp_constraint *k,
                                    const tp_contact *contacts, const tp_contact_row *rows)
{
    for (int i = k->first; i < k->first + k->count; ++i)
        tp_warm_start_point(wd, sb, k->body_a, k->body_b, &contacts[i], &rows[i]);
}

/* Normal row of one point: split-impulse push-out (biased sweeps only), then
 * the velocity row with its target; `hold` (contact_rows.h) names a body that
 * takes no impulse (the shock pass, kernels/shock.h), else TP_HOLD_NONE. A
 * held row takes the moving body's effective masses from `held`
 * (solver_scratch.h: the same floats as computing them here); NULL when
 * nothing is held. */
TP_HD void tp_solve_normal_row(tp_world *wd, const tp_solver_body *sb, int a, int b, tp_contact *c, tp_contact_row *r,
                               float *push, float inv_h, int use_bias, int hold, const tp_held_point *held)
{
    if (!tp_row_active(1, use_bias, r->max_normal_impulse)) return;
    tp_vec3 n = tp_v3_load(c->normal), ra = tp_v3_load(r->ra), rb = tp_v3_load(r->rb);
    float s = r->separation, mass = hold == TP_HOLD_NONE ? r->normal_mass : held->mass[0];
    if (tp_row_pushes(use_bias, s)) {
        float pn = tp_pair_speed(push, push + 3, 6, a, b, ra, rb, n);
        float pl = tp_row_impulse(r->push_impulse, mass, pn, tp_row_push_target(s, inv_h));
        tp_apply_normal(push, push + 3, 6, sb, a, b, c, r, tp_push_store(r, pl), hold);
    }
    float vn = tp_pair_speed(wd->v, wd->w, 3, a, b, ra, rb, n);
    float lambda = tp_row_impulse(c->normal_impulse, mass, vn, tp_row_target(s, inv_h, r->bounce_speed));
    tp_apply_normal(wd->v, wd->w, 3, sb, a, b, c, r, tp_normal_store(c, r, lambda), hold);
}

/* Friction rows of one point, in the cone |(l1, l2)| <= mu ln, aiming at slip
 * speeds (s1, s2) along t1, t2 (0 but in the shock pass, kernels/shock.h);
 * hold and held as tp_solve_normal_row. */
TP_HD void tp_solve_friction_row(tp_world *wd, const tp_solver_body *sb, int a, int b, tp_contact *c,
                                 const tp_contact_row *r, int hold, const tp_held_point *held, float s1, float s2)
{
    tp_vec3 dv = tp_row_rel_velocity(tp_v3_load(wd->v + 3 * a), tp_v3_load(wd->w + 3 * a), tp_v3_load(r->ra),
                                     tp_v3_load(wd->v + 3 * b), tp_v3_load(wd->w + 3 * b), tp_v3_load(r->rb));
    float m1 = hold == TP_HOLD_NONE ? r->tangent_mass[0] : held->mass[1];
    float m2 = hold == TP_HOLD_NONE ? r->tangent_mass[1] : held->mass[2];
    float l1, l2, d1, d2;
    tp_row_friction(c->tangent_impulse[0], c->tangent_impulse[1], m1, m2, tp_dot(dv, tp_v3_load(r->t1)),
                    tp_dot(dv, tp_v3_load(r->t2)), s1, s2, c->friction * c->normal_impulse, &l1, &l2);
    tp_friction_store(c, l1, l2, &d1, &d2);
    tp_apply_friction(wd, sb, a, b, r, d1, d2, hold);
}

/* One Gauss-Seidel pass over the rows of a constraint: normal rows, then friction. */
TP_HD void tp_solve_constraint(tp_world *wd, const tp_solver_body *sb, const tp_constraint *k, tp_contact *contacts,
                               tp_contact_row *rows, float *push, float inv_h, int use_bias, int reverse)
{
    for (int q = 0; q < k->count; ++q) {
        int i = k->first + (reverse ? k->count - 1 - q : q);
        tp_solve_normal_row(wd, sb, k->body_a, k->body_b, &contacts[i], &rows[i], push, inv_h, use_bias, TP_HOLD_NONE,
                            NULL);
    }
    for (int q = 0; q < k->count; ++q) {
        int i = k->first + (reverse ? k->count - 1 - q : q);
        tp_solve_friction_row(wd, sb, k->body_a, k->body_b, &contacts[i], &rows[i], TP_HOLD_NONE, NULL, 0.0f, 0.0f);
    }
}

/* Rows on articulation links: the same law with the tree's response. */
#include "articulation_contact.h"

/* The joint rows of a world's trees in this substep (tp_artic_substep_velocity
 * builds them, tree by tree on the lanes; the same for every thread after its
 * barrier). */
TP_HD int tp_artic_joint_rows(const tp_artic_solve *A)
{
    int rows = 0;
    for (int t = 0; t < A->m->tree_count; ++t) rows += A->x.row_end[t] - A->x.row_start[t];
    return rows;
}

/* 1 if a sweep has rows to visit: contact constraints, constraints between
 * two bodies, movers or the trees' joint rows (every kind tp_solver_pass
 * sweeps). A sweep over none changes nothing, so a world without rows skips
 * its sweeps (a robot off the ground: its passes were a third of the
 * cart-pole's step, bench/README.md "Robots"). The same for every thread:
 * uniform barriers. */
TP_HD int tp_solver_has_rows(const tp_world *wd, const tp_solver_work *w)
{
    return w->color_start[TP_OVERFLOW_COLOR + 1] > 0 || wd->cons_count > 0 || wd->mover_count > 0 ||
           (w->artic && tp_artic_joint_rows(w->artic) > 0);
}

/* What a pass over the constraints does to each one. */
#define TP_PASS_WARM_START 0
#define TP_PASS_SWEEP 1

typedef struct tp_pass_args {
    float inv_h;
    int use_bias, reverse;      /* sweeps */
} tp_pass_args;

/* Constraints order[begin .. end), thread tid of nth taking every nth one. With
 * nth > 1 the range must lie within one color: its constraints share no
 * simulated body, so solving them at once writes what solving them one after
 * the other in key order would. This is the per-lane body of a color sweep on
 * the device (kernels/solve_group.h gives the argument in full; tests/test_stages.c
 * runs the lanes one after the other in both orders). */
TP_HD void tp_solver_sweep_range(int pass, tp_world *wd, tp_solver_work *w, tp_contact *contacts, int begin, int end,
                                 const tp_pass_args *a, int tid, int nth)
{
    for (int i = begin + tid; i < end; i += nth) {
        const tp_constraint *k = &w->cons[w->order[i]];
        if (w->artic && tp_artic_pair(wd, k->body_a, k->body_b)) {
            if (pass == TP_PASS_WARM_START)
                tp_artic_warm_start_constraint(w->artic, wd, w->bodies, k->body_a, k->body_b, k->first, k->count,
                                               contacts, w->rows);
            else
                tp_artic_solve_constraint(w->artic, wd, w->bodies, k->body_a, k->body_b, k->first, k->count, contacts,
                                          w->rows, w->push, a->inv_h, a->use_bias, a->reverse);
            continue;
        }
        if (pass == TP_PASS_WARM_START) tp_warm_start_constraint(wd, w->bodies, k, contacts, w->rows);
        else tp_solve_constraint(wd, w->bodies, k, contacts, w->rows, w->push, a->inv_h, a->use_bias, a->reverse);
    }
}

/* The colors of a pass in the CPU's wide lanes (csrc/solver_simd.c), in a
 * phase that runs there (one thread): the same bits as the colors' sweeps.
 * Returns 1 then, 0 where the colors are swept here. */
TP_HD int tp_solver_wide_colors(int pass, tp_world *wd, tp_solver_work *w, tp_contact *contacts, const tp_pass_args *a)
{
#if !defined(__CUDA_ARCH__)
    if (w->simd && w->simd->wide) {
        w->simd->colors(w->simd, pass, wd, w, contacts, a);
        return 1;
    }
#else
    (void)pass, (void)wd, (void)w, (void)contacts, (void)a;
#endif
    return 0;
}

/* Does color c of a pass hold constraints or movers (kernels/constraint_colors.h)?
 * Sweeps only: their warm start is in their rows' preparation. */
TP_HD int tp_pass_cons_color(int pass, const tp_world *wd, const tp_solver_work *w, int c)
{
    return pass == TP_PASS_SWEEP && (wd->cons_count || wd->mover_count) && w->cons_colors[c] > 0;
}

/* The constraints and movers of color c in a sweep, if it has any. */
TP_HD void tp_solver_cons_color(int pass, tp_world *wd, tp_solver_work *w, int c, const tp_pass_args *a, int tid,
                                int nth)
{
    if (tp_pass_cons_color(pass, wd, w, c)) tp_cons_sweep_color(wd, w->bodies, c, a->inv_h, a->use_bias, tid, nth);
}

/* One pass over all constraints in solve order: colors in order (the contact
 * constraints, constraints between two bodies and movers of a color are
 * independent and shared among the threads, with a barrier after each
 * color), then the serial tail by thread 0 (contacts, then constraints and
 * movers); in serial mode everything is in the tail, contacts in key order.
 * The sequence of updates each body sees is that of visiting order[0 ..
 * n_cons) one by one, each color's constraints and movers after its
 * contacts. */
TP_HD void tp_solver_pass(int pass, tp_world *wd, tp_solver_work *w, tp_contact *contacts, const tp_pass_args *a,
                          int tid, int nth)
{
    /* every kind of row swept here is in tp_solver_has_rows */
    int colored_end = w->color_start[TP_OVERFLOW_COLOR]; /* colors from c on are empty once color_start[c] is this */
    int more = pass == TP_PASS_SWEEP && (wd->cons_count || wd->mover_count); /* constraint colors to look at */
    if (!tp_solver_wide_colors(pass, wd, w, contacts, a))
        for (int c = 0; c < TP_MAX_COLORS && (more || w->color_start[c] < colored_end); ++c) {
            int points = w->color_start[c] < w->color_start[c + 1], rows = tp_pass_cons_color(pass, wd, w, c);
            if (!points && !rows) continue; /* the same for every thread: uniform barriers */
            tp_solver_sweep_range(pass, wd, w, contacts, w->color_start[c], w->color_start[c + 1], a, tid, nth);
            tp_solver_cons_color(pass, wd, w, c, a, tid, nth);
            TP_BARRIER(nth);
        }
    int begin = w->color_start[TP_OVERFLOW_COLOR], end = w->color_start[TP_OVERFLOW_COLOR + 1];
    if (begin < end || tp_pass_cons_color(pass, wd, w, TP_OVERFLOW_COLOR)) {
        if (tid == 0) {
            tp_solver_sweep_range(pass, wd, w, contacts, begin, end, a, 0, 1);
            tp_solver_cons_color(pass, wd, w, TP_OVERFLOW_COLOR, a, 0, 1);
        }
        TP_BARRIER(nth);
    }
    if (w->artic && pass == TP_PASS_SWEEP) { /* joint limits, motors, friction: rows of the same sweep */
        tp_artic_sweep_joint_rows(w->artic, a->use_bias, tid, nth); /* tree t on lane t mod nth */
        TP_BARRIER(nth);
    }
}

/* A phase of passes (sweep: 1 for sweeps, 0 for the warm start) begins: in
 * the CPU's wide lanes where a single thread runs it and its rows fit them;
 * returns 1 then (the phase's tp_solver_wide_end is due). */
TP_HD int tp_solver_wide_begin(const tp_world *wd, tp_solver_work *w, const tp_contact *contacts, float inv_h,
                               int use_bias, int sweep, int nth)
{
#if !defined(__CUDA_ARCH__)
    if (w->simd && nth == 1) return w->simd->wide = w->simd->begin(w->simd, wd, w, contacts, inv_h, use_bias, sweep);
#else
    (void)wd, (void)w, (void)contacts, (void)inv_h, (void)use_bias, (void)sweep, (void)nth;
#endif
    return 0;
}

/* A phase begun wide ends after `passes` passes. */
TP_HD void tp_solver_wide_end(tp_solver_work *w, tp_contact *contacts, int wide, int sweep, int passes)
{
#if !defined(__CUDA_ARCH__)
    if (!wide) return;
    w->simd->wide = 0;
    w->simd->end(w->simd, w, contacts, sweep, passes);
#else
    (void)w, (void)contacts, (void)wide, (void)sweep, (void)passes;
#endif
}

/* A phase's sweeps stop early once a backward sweep changed no velocity of
 * any body (m/s and rad/s, the push-out's pseudo velocities included) by more
 * than this: the phase has converged, and the sweeps left would move nothing
 * by more than a few of these. Solvers commonly stop on such a tolerance
 * (MuJoCo's `tolerance`, Bullet's m_leastSquaresResidualThreshold); checking
 * only after backward sweeps keeps the forward-backward pairs whole, so a
 * stop leaves no bias of order (docs/solver.md, "Stopping the sweeps early").
 * 1e-5 m/s over a 1/240 s substep is 0.04 um. */
#ifndef TP_SWEEP_TOL
#define TP_SWEEP_TOL 1.0e-5f
#endif

/* Body b's velocities (v, w and the push-out's v, w): noted in w->vel_note
 * (note = 1; returns 0), or 1 if one of them changed by more than tol since
 * the note or is NaN. The test is !(-tol <= d <= tol) per component, joined
 * with |, so the loop has no branch to mispredict (the signs of the changes
 * are random) and a NaN counts as a move. */
TP_HD int tp_body_note(const tp_world *wd, const tp_solver_work *w, int b, int note, float tol)
{
    float now[12], *snap = w->vel_note + 12 * b;
    for (int c = 0; c < 3; ++c) {
        now[c] = wd->v[3 * b + c];
        now[3 + c] = wd->w[3 * b + c];
    }
    for (int c = 0; c < 6; ++c) now[6 + c] = w->push[6 * b + c];
    if (note) {
        for (int c = 0; c < 12; ++c) snap[c] = now[c];
        return 0;
    }
    int within = 1;
    for (int c = 0; c < 12; ++c) {
        float d = now[c] - snap[c];
        within &= (d <= tol) & (d >= -tol);
    }
    return !within;
}

/* Is sweep `it` of a phase of `count` followed by a convergence check? After
 * each backward sweep but the last. */
TP_HD int tp_sweep_checked(const tp_solver_work *w, int it, int count)
{
    (void)w;
    return (it & 1) && it + 1 < count;
}

/* The articulations' joint velocities and pseudo velocities (m/s or rad/s
 * per dof: the trees' share of what the sweeps move), dofs tid, tid + nth,
 * ...: noted or compared as tp_body_note does a body's. */
TP_HD int tp_artic_note(tp_artic_solve *A, int note, int tid, int nth)
{
    int nv = A->m->nv, moved = 0;
    const float *qd = A->s.qd, *push = A->x.push_qd;
    float *snap = A->x.qd_note;
    for (int d = tid; d < nv; d += nth) {
        if (note) {
            snap[d] = qd[d];
            snap[nv + d] = push[d];
            continue;
        }
        float a = qd[d] - snap[d], b = push[d] - snap[nv + d];
        moved |= !((a <= TP_SWEEP_TOL) & (a >= -TP_SWEEP_TOL) & (b <= TP_SWEEP_TOL) & (b >= -TP_SWEEP_TOL));
    }
    return moved;
}

/* The simulated bodies among tid, tid + nth, ... and the trees' dofs among
 * them: noted (note = 1; returns 0), or 1 if one of them moved by more than
 * TP_SWEEP_TOL since the note or holds a NaN. */
TP_HD int tp_sweeps_moved(const tp_world *wd, const tp_solver_work *w, int note, int tid, int nth)
{
    int moved = 0;
    for (int b = tid; b < wd->bodies; b += nth)
        if (w->bodies[b].simulated) moved |= tp_body_note(wd, w, b, note, TP_SWEEP_TOL);
    if (w->artic) moved |= tp_artic_note(w->artic, note, tid, nth);
    return moved;
}

/* Up to `count` sweeps of the rows (biased: with the split-impulse push-out;
 * else relax or restitution sweeps), alternating the point order, stopping
 * once converged (TP_SWEEP_TOL); returns the sweeps run. With nth threads the decision is shared
 * through w->moved: each thread checks its bodies, any that moved raises the
 * flag (a plain store of 1; no thread ever stores anything else meanwhile),
 * and every thread reads it after a barrier, so all stop together. */
TP_HD int tp_solver_sweeps(tp_world *wd, tp_solver_work *w, tp_contact *contacts, float inv_h, int use_bias,
                           int count, int tid, int nth)
{
    if (!tp_solver_has_rows(wd, w)) return count; /* every sweep ran, over nothing */
    int wide = tp_solver_wide_begin(wd, w, contacts, inv_h, use_bias, 1, nth), ran = count;
    tp_pass_args a;
    a.inv_h = inv_h;
    a.use_bias = use_bias;
    for (int it = 0; it < count; ++it) {
        int checked = tp_sweep_checked(w, it, count);
        if (checked) {
            tp_sweeps_moved(wd, w, 1, tid, nth);
            if (tid == 0) *w->moved = 0;
            TP_BARRIER(nth);
        }
        a.reverse = it & 1;
        tp_solver_pass(TP_PASS_SWEEP, wd, w, contacts, &a, tid, nth);
        if (checked) {
            TP_BARRIER(nth); /* a pass over no constraints ends without one */
            if (tp_sweeps_moved(wd, w, 0, tid, nth)) *w->moved = 1;
            TP_BARRIER(nth);
            int settled = !*w->moved;
            TP_BARRIER(nth); /* every thread has read the flag before thread 0 clears it again */
            if (settled) {
                ran = it + 1;
                break;
            }
        }
    }
    tp_solver_wide_end(w, contacts, wide, 1, ran);
    return ran;
}

/* Warm start: every constraint's accumulated impulses applied again. */
TP_HD void tp_solver_warm_start(tp_world *wd, tp_solver_work *w, tp_contact *contacts, int tid, int nth)
{
    if (w->color_start[TP_OVERFLOW_COLOR + 1] == 0) return; /* no constraints: nothing to apply again */
    int wide = tp_solver_wide_begin(wd, w, contacts, 0.0f, 0, 0, nth);
    tp_pass_args a;
    a.inv_h = 0.0f;
    a.use_bias = a.reverse = 0;
    tp_solver_pass(TP_PASS_WARM_START, wd, w, contacts, &a, tid, nth);
    tp_solver_wide_end(w, contacts, wide, 0, 1);
}

/* Relax sweeps per substep: half the biased ones, at least one. A single
 * sweep (as in Box2D v3) leaves enough push-out velocity in a tall stack to
 * make it jitter (docs/solver.md has the measurements). */
TP_HD int tp_relax_sweeps(int iterations) { return iterations / TP_RELAX_DIVISOR > 1 ? iterations / TP_RELAX_DIVISOR : 1; }

#endif
