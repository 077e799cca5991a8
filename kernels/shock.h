/* shock.h - the shock pass, part of the `solve` stage: after the biased
 * sweeps of a substep, before its position update, the constraints again,
 * level by level from the ground up, with the supporting body of each
 * constraint held fixed (shock propagation: Guendelman, Bridson and Fedkiw,
 * "Nonconvex rigid bodies with stacking", SIGGRAPH 2003, section 7). It lets
 * a heavy body rest on a light one and a pushed tower stop rocking, where
 * Gauss-Seidel alone passes corrections between bodies too slowly. Support
 * depths, which rows take part, what is kept and when it runs:
 * docs/solver.md, "The shock pass: design". */
#ifndef TP_SHOCK_H
#define TP_SHOCK_H

#include "sweeps.h"

/* Sweeps over each level in the shock pass, at most: enough to hold a light
 * support under a heavy body in place (docs/solver.md has the measurements). */
#ifndef TP_SHOCK_INNER
#define TP_SHOCK_INNER 4
#endif
/* A level's sweeps stop early once a backward sweep changed no velocity of
 * the level's bodies (m/s and rad/s, the push-out's pseudo velocities
 * included) by more than this: the level has converged. At rest in a stack
 * most levels settle after the first forward-backward pair; an impact or a
 * heavy load keeps all TP_SHOCK_INNER. 1e-4 m/s over a 1/240 s substep is
 * 0.4 um, about a 1,250th of the 0.5 mm slop, and the next substep's sweeps
 * take it up (docs/solver.md, "Shock pass: stopping a level early"). */
#ifndef TP_SHOCK_TOL
#define TP_SHOCK_TOL 1.0e-4f
#endif
/* Friction rows aim at no slip (else at the sweeps' slip) when the supported
 * body is at least this many times heavier than its support (file comment). */
/* A contact carries weight (counts for the support depth) when its normal is
 * within 60 degrees of the vertical. */
#ifndef TP_SHOCK_SUPPORT_COS
#define TP_SHOCK_SUPPORT_COS 0.5f
#endif
/* A body counts as on another when a point of theirs is this close (m; the
 * speculative margin, manifold.h). With the slop (0.5 mm) instead, the depth of
 * fallen dominoes flickered as their corners lifted a fraction of a millimetre,
 * holds switched from one step to the next and the dominoes popped. */
#ifndef TP_SHOCK_TOUCH
#define TP_SHOCK_TOUCH 0.02f
#endif
#ifndef TP_SHOCK_FRICTION_RATIO
#define TP_SHOCK_FRICTION_RATIO 4.0f
#endif

/* 1 if constraint k can carry weight: some point is within TP_SHOCK_TOUCH and
 * the normal is within TP_SHOCK_SUPPORT_COS of the gravity
 * direction g (unit, or zero: then nothing is a support). */
TP_HD int tp_constraint_supports(const tp_constraint *k, const tp_contact *contacts, tp_vec3 g)
{
    float up = tp_dot(tp_v3_load(contacts[k->first].normal), g);
    if (tp_absf(up) < TP_SHOCK_SUPPORT_COS) return 0;
    for (int i = k->first; i < k->first + k->count; ++i)
        if (contacts[i].separation <= TP_SHOCK_TOUCH) return 1;
    return 0;
}

/* Support depth of every body (see the file comment); bodies + 1 for a body
 * with no support. Relaxed over the constraints in key order until nothing
 * changes (at most `bodies` passes; a stack whose keys rise with height takes
 * two), so the result depends on the contacts only. */
TP_HD void tp_support_depth(const tp_world *wd, const tp_solver_body *sb, const tp_contact *contacts,
                            const tp_constraint *cons, int n_cons, int32_t *depth)
{
    int unsupported = wd->bodies + 1;
    tp_vec3 g = tp_v3_load(wd->gravity);
    float g_len = tp_len(g);
    g = g_len > 0.0f ? tp_scale(g, 1.0f / g_len) : tp_v3(0.0f, 0.0f, 0.0f);
    for (int b = 0; b < wd->bodies; ++b) depth[b] = sb[b].simulated ? unsupported : 0;
    for (int pass = 0; pass < wd->bodies; ++pass) {
        int changed = 0;
        for (int i = 0; i < n_cons; ++i) {
            const tp_constraint *k = &cons[i];
            int a = k->body_a, b = k->body_b;
            if (depth[a] + 1 >= depth[b] && depth[b] + 1 >= depth[a]) continue;
            if (!tp_constraint_supports(k, contacts, g)) continue;
            if (depth[a] + 1 < depth[b]) depth[b] = depth[a] + 1;
            else depth[a] = depth[b] + 1;
            changed = 1;
        }
        if (!changed) break;
    }
}

/* Level of a constraint: the larger depth of its two bodies (1 .. bodies + 1).
 * A constraint between two bodies of depth 0 (an articulation link, which the
 * rigid solver does not simulate, against the ground or another link) takes
 * level 1, with the other rows on fixed bodies: tp_shock_order counts levels
 * from 1 (level 0 would index level_start[-1]). */
TP_HD int tp_constraint_level(const tp_constraint *k, const int32_t *depth)
{
    int da = depth[k->body_a], db = depth[k->body_b];
    int level = da > db ? da : db;
    return level > 0 ? level : 1;
}

/* order[0 .. n_cons): the constraints by level, key order within a level
 * (stable counting sort). level_start: [bodies + 2] scratch. */
TP_HD void tp_shock_order(const tp_world *wd, const tp_constraint *cons, int n_cons, const int32_t *depth,
                          int32_t *order, int32_t *level_start)
{
    int levels = wd->bodies + 1; /* level L counts at L, starts at level_start[L - 1] */
    for (int l = 0; l <= levels; ++l) level_start[l] = 0;
    for (int i = 0; i < n_cons; ++i) level_start[tp_constraint_level(&cons[i], depth)]++;
    for (int l = 0; l < levels; ++l) level_start[l + 1] += level_start[l];
    for (int i = 0; i < n_cons; ++i) order[level_start[tp_constraint_level(&cons[i], depth) - 1]++] = i;
}

/* Which body of constraint k the shock pass holds: the one of smaller depth;
 * none between equal depths, or when that body is fixed anyway (the ordinary
 * row, with its precomputed mass, then does the same). */
TP_HD int tp_shock_hold(const tp_constraint *k, const int32_t *depth)
{
    int da = depth[k->body_a], db = depth[k->body_b];
    if (da == 0 || db == 0 || da == db) return TP_HOLD_NONE;
    return da < db ? TP_HOLD_A : TP_HOLD_B;
}

/* In the `constraints` stage: support depths and the shock order of this step's constraints. */
TP_HD void tp_shock_prepare(const tp_world *wd, const tp_contact *contacts, const tp_constraint *cons, int n_cons,
                            tp_solver_work *w)
{
    tp_support_depth(wd, w->bodies, contacts, cons, n_cons, w->depth);
    tp_shock_order(wd, cons, n_cons, w->depth, w->shock_order, w->level_start);
    for (int b = 0; b < wd->bodies; ++b) w->carries[b] = 0;
    for (int i = 0; i < n_cons; ++i) {
        int hold = tp_shock_hold(&cons[i], w->depth);
        if (hold == TP_HOLD_A) w->carries[cons[i].body_a] = 1;
        if (hold == TP_HOLD_B) w->carries[cons[i].body_b] = 1;
    }
}

/* 1 if constraint k takes part in the shock pass: it holds a support, or one
 * of its bodies is fixed (depth 0: the ground rows are the base the held rows
 * stand on). Rows between two bodies of equal depth are left to the sweeps. */
TP_HD int tp_shock_takes_part(const tp_constraint *k, const int32_t *depth, const int32_t *carries)
{
    if (tp_shock_hold(k, depth) != TP_HOLD_NONE) return 1;
    if (depth[k->body_a] == 0) return carries[k->body_b];
    if (depth[k->body_b] == 0) return carries[k->body_a];
    return 0;
}

/* 1 if the friction rows of k aim at no slip: the supported body is at least
 * TP_SHOCK_FRICTION_RATIO times heavier than the held one. */
TP_HD int tp_shock_no_slip(const tp_constraint *k, const tp_solver_body *sb, int hold)
{
    if (hold == TP_HOLD_A) return sb[k->body_b].inv_m * TP_SHOCK_FRICTION_RATIO <= sb[k->body_a].inv_m;
    if (hold == TP_HOLD_B) return sb[k->body_a].inv_m * TP_SHOCK_FRICTION_RATIO <= sb[k->body_b].inv_m;
    return 1;
}

/* The accumulated impulses of the points of constraint k: saved (save = 1)
 * to, or put back (save = 0) from, their shock_points records. Saving also
 * notes each point's slip speeds along t1, t2. */
TP_HD void tp_shock_keep(const tp_world *wd, const tp_solver_work *w, const tp_constraint *k, tp_contact *contacts,
                         int save)
{
    for (int i = k->first; i < k->first + k->count; ++i) {
        tp_contact_row *r = &w->rows[i];
        float *m[4] = {&contacts[i].normal_impulse, &contacts[i].tangent_impulse[0], &contacts[i].tangent_impulse[1],
                       &r->push_impulse};
        tp_shock_point *s = &w->shock_points[i];
        for (int q = 0; q < 4; ++q) {
            if (save) s->impulse[q] = *m[q];
            else *m[q] = s->impulse[q];
        }
        if (!save) continue;
        tp_vec3 dv = tp_sub(tp_point_velocity(wd, k->body_b, tp_v3_load(r->rb)),
                            tp_point_velocity(wd, k->body_a, tp_v3_load(r->ra)));
        s->slip[0] = tp_dot(dv, tp_v3_load(r->t1));
        s->slip[1] = tp_dot(dv, tp_v3_load(r->t2));
    }
}

/* One sweep of constraint k in the shock pass: its normal rows, then its
 * friction rows, aiming at no slip (tp_shock_no_slip, and ordinary rows) or
 * at the slip the sweeps left, noted in the points' records. */
TP_HD void tp_shock_constraint(tp_world *wd, tp_solver_work *w, const tp_constraint *k, tp_contact *contacts,
                               float inv_h, int use_bias, int reverse)
{
    int hold = tp_shock_hold(k, w->depth), a = k->body_a, b = k->body_b;
    int no_slip = tp_shock_no_slip(k, w->bodies, hold);
    for (int q = 0; q < k->count; ++q) {
        int i = k->first + (reverse ? k->count - 1 - q : q);
        tp_solve_normal_row(wd, w->bodies, a, b, &contacts[i], &w->rows[i], w->push, inv_h, use_bias, hold,
                            &w->shock_points[i].held);
    }
    for (int q = 0; q < k->count; ++q) {
        int i = k->first + (reverse ? k->count - 1 - q : q);
        const tp_shock_point *s = &w->shock_points[i];
        float s1 = no_slip ? 0.0f : s->slip[0], s2 = no_slip ? 0.0f : s->slip[1];
        tp_solve_friction_row(wd, w->bodies, a, b, &contacts[i], &w->rows[i], hold, &s->held, s1, s2);
    }
}

/* The effective masses of every held row (tp_shock_hold) along n, t1, t2, with
 * only the moving body's response (tp_row_mass_one), into the points'
 * records (held.mass): once per step, after the rows are
 * prepared. Constraints tid, tid + nth, ... of n_cons; rows the pass leaves
 * alone (tp_shock_skips) are not read and not written. */
TP_HD void tp_shock_held_masses(const tp_world *wd, tp_solver_work *w, const tp_contact *contacts, int n_cons, int tid,
                                int nth);

/* 1 if the shock pass leaves constraint k alone: a link of an articulation
 * is one of its bodies. Its rows take the tree's response
 * (kernels/articulation_contact.h), not the rigid effective masses this pass
 * uses, which are never computed for them; the sweeps solve them. */
TP_HD int tp_shock_skips(const tp_world *wd, const tp_solver_work *w, const tp_constraint *k)
{
    return w->artic && tp_artic_pair(wd, k->body_a, k->body_b);
}

/* 1 if a held row of this step's constraints holds a support under a body
 * at least TP_SHOCK_FRICTION_RATIO times heavier (tp_shock_no_slip).
 * Gauss-Seidel moves such a pair by about m_light / m_heavy of its error per
 * sweep, so sweeps that changed no velocity past TP_SWEEP_TOL can still leave
 * the heavy body sinking at hundreds of times that (a 1000 kg box on a 1 kg
 * box, warm started 15 % short of its weight: 6 mm/s after 2 sweeps). In
 * such a step the pass follows every substep's biased sweeps
 * (tp_solver_biased_phase). Every thread scans all constraints: no shared
 * write. */
TP_HD int tp_shock_heavy_support(const tp_world *wd, const tp_solver_work *w, int n_cons)
{
    for (int j = 0; j < n_cons; ++j) {
        const tp_constraint *k = &w->cons[j];
        int hold = tp_shock_hold(k, w->depth);
        if (hold != TP_HOLD_NONE && !tp_shock_skips(wd, w, k) && tp_shock_no_slip(k, w->bodies, hold)) return 1;
    }
    return 0;
}

TP_HD void tp_shock_held_masses(const tp_world *wd, tp_solver_work *w, const tp_contact *contacts, int n_cons, int tid,
                                int nth)
{
    for (int j = tid; j < n_cons; j += nth) {
        const tp_constraint *k = &w->cons[j];
        int hold = tp_shock_hold(k, w->depth);
        if (hold == TP_HOLD_NONE || tp_shock_skips(wd, w, k)) continue;
        int m = hold == TP_HOLD_A ? k->body_b : k->body_a; /* the moving body */
        float inv_m = w->bodies[m].inv_m;
        for (int i = k->first; i < k->first + k->count; ++i) {
            const tp_contact_row *r = &w->rows[i];
            tp_vec3 n = tp_v3_load(contacts[i].normal), arm = tp_v3_load(hold == TP_HOLD_A ? r->rb : r->ra);
            float *mass = w->shock_points[i].held.mass;
            mass[0] = tp_row_mass_one(inv_m, arm, n, tp_v3_load(hold == TP_HOLD_A ? r->wb_n : r->wa_n));
            mass[1] = tp_row_mass_one(inv_m, arm, tp_v3_load(r->t1), tp_v3_load(hold == TP_HOLD_A ? r->wb_t1 : r->wa_t1));
            mass[2] = tp_row_mass_one(inv_m, arm, tp_v3_load(r->t2), tp_v3_load(hold == TP_HOLD_A ? r->wb_t2 : r->wa_t2));
        }
    }
}

/* End of the level that starts at shock_order[begin]: the first position
 * past it (levels are contiguous in the shock order). */
TP_HD int tp_shock_level_end(const tp_solver_work *w, int begin, int n_cons)
{
    int level = tp_constraint_level(&w->cons[w->shock_order[begin]], w->depth), end = begin + 1;
    while (end < n_cons && tp_constraint_level(&w->cons[w->shock_order[end]], w->depth) == level) ++end;
    return end;
}

/* Before a level's sweeps: every taking-part constraint's impulses (and slips) saved. */
TP_HD void tp_shock_level_save(tp_world *wd, const tp_solver_work *w, tp_contact *contacts, int begin, int end)
{
    for (int i = begin; i < end; ++i) {
        const tp_constraint *k = &w->cons[w->shock_order[i]];
        if (!tp_shock_skips(wd, w, k)) tp_shock_keep(wd, w, k, contacts, 1);
    }
}

/* The velocities (v, w and the push-out's v, w) of the bodies that a level's
 * taking-part rows touch: noted in w->vel_note (note = 1; returns 0), or 1 if
 * one of them changed by more than TP_SHOCK_TOL since the note or is NaN
 * (note = 0). Bodies held by a row are read, not written: their change is 0. */
TP_HD int tp_shock_level_moved(const tp_world *wd, const tp_solver_work *w, int begin, int end, int note)
{
    int moved = 0;
    for (int i = begin; i < end; ++i) {
        const tp_constraint *k = &w->cons[w->shock_order[i]];
        if (!tp_shock_takes_part(k, w->depth, w->carries) || tp_shock_skips(wd, w, k)) continue;
        if (w->bodies[k->body_a].simulated) moved |= tp_body_note(wd, w, k->body_a, note, TP_SHOCK_TOL);
        if (w->bodies[k->body_b].simulated) moved |= tp_body_note(wd, w, k->body_b, note, TP_SHOCK_TOL);
    }
    return moved;
}

/* Before a level's inner sweep `it`: note the velocities where
 * tp_shock_sweep_settled will look at them. */
TP_HD void tp_shock_sweep_begin(const tp_world *wd, const tp_solver_work *w, int begin, int end, int it)
{
    if ((it & 1) && it + 1 < TP_SHOCK_INNER) tp_shock_level_moved(wd, w, begin, end, 1);
}

/* After sweep `it`: 1 if the level has converged (that sweep changed nothing
 * by more than TP_SHOCK_TOL) and the remaining sweeps are skipped. Asked only
 * after a backward sweep: the sweeps go in forward-backward pairs, and a stop
 * after a forward one leaves an order bias that walks a stack sideways
 * (docs/solver.md). */
TP_HD int tp_shock_sweep_settled(const tp_world *wd, const tp_solver_work *w, int begin, int end, int it)
{
    return (it & 1) && it + 1 < TP_SHOCK_INNER && !tp_shock_level_moved(wd, w, begin, end, 0);
}

/* A level's sweeps, at most TP_SHOCK_INNER, alternating the order of the
 * constraints and of their points, as the sweeps do, until the level settles
 * (the scalar form; csrc/solver_simd.c runs the same updates in lanes). */
TP_HD void tp_shock_level_sweeps(tp_world *wd, tp_solver_work *w, tp_contact *contacts, int begin, int end, float inv_h,
                                 int use_bias)
{
    for (int it = 0; it < TP_SHOCK_INNER; ++it) {
        tp_shock_sweep_begin(wd, w, begin, end, it);
        for (int q = 0; q < end - begin; ++q) {
            const tp_constraint *k = &w->cons[w->shock_order[(it & 1) ? end - 1 - q : begin + q]];
            if (tp_shock_takes_part(k, w->depth, w->carries) && !tp_shock_skips(wd, w, k))
                tp_shock_constraint(wd, w, k, contacts, inv_h, use_bias, it & 1);
        }
        if (tp_shock_sweep_settled(wd, w, begin, end, it)) break;
    }
}

/* After a level's sweeps: the held constraints' impulses put back as the sweeps left them. */
TP_HD void tp_shock_level_restore(tp_world *wd, const tp_solver_work *w, tp_contact *contacts, int begin, int end)
{
    for (int i = begin; i < end; ++i) {
        const tp_constraint *k = &w->cons[w->shock_order[i]];
        if (tp_shock_hold(k, w->depth) != TP_HOLD_NONE && !tp_shock_skips(wd, w, k))
            tp_shock_keep(wd, w, k, contacts, 0);
    }
}

/* The shock pass (biased: with the split-impulse push-out, as the biased
 * sweeps; unbiased: as the relax sweeps, unused), on one thread: its order
 * crosses colors. Per level: the impulses saved, up to TP_SHOCK_INNER sweeps
 * over the level's constraints, the impulses of held constraints put back. */
TP_HD void tp_solver_shock_pass(tp_world *wd, tp_solver_work *w, tp_contact *contacts, float inv_h, int use_bias)
{
#if !defined(__CUDA_ARCH__)
    if (w->simd) { /* the CPU's wide lanes over each level's bodies (csrc/solver_simd.c): the same bits */
        w->simd->shock(w->simd, wd, w, contacts, inv_h, use_bias);
        return;
    }
#endif
    int n_cons = w->color_start[TP_OVERFLOW_COLOR + 1];
    for (int begin = 0, end = 0; begin < n_cons; begin = end) {
        end = tp_shock_level_end(w, begin, n_cons);
        tp_shock_level_save(wd, w, contacts, begin, end);
        tp_shock_level_sweeps(wd, w, contacts, begin, end, inv_h, use_bias);
        tp_shock_level_restore(wd, w, contacts, begin, end);
    }
}

#endif
