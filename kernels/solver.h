/* solver.h - stages 7-9 of one world: the contact solver's driver.
 *
 * The rooms it drives, in the order of a step:
 *   kernels/coloring.h       stage 7: contact points grouped into constraints, colored
 *   kernels/solver_scratch.h the per-step data and its scratch memory
 *   kernels/contact_rows.h   stage 8a: rows (arms, tangents, effective masses)
 *   kernels/integrate.h      velocity and position integration of each substep
 *   kernels/sweeps.h         warm start, biased and relax sweeps
 *   kernels/shock.h          the shock pass after the biased sweeps (support held)
 *   kernels/restitution.h    bounces, in the substep of the impact
 * docs/solver.md gives the method, its sources and the measurements. */
#ifndef TP_SOLVER_H
#define TP_SOLVER_H

#include "integrate.h"
#include "restitution.h"
#include "shock.h"
#include "sweeps.h"

/* A substep with a bounce sweeps its restitution phase up to this many times
 * `iterations` (stopping once converged, tp_solver_sweeps): a box landing
 * flat solves four normal and eight friction rows on one body, Gauss-Seidel
 * over them one point after the other, and `iterations` sweeps left spin from
 * that order (0.011 rad/s on an e = 1 flat drop, tumbling at the fourth
 * bounce; docs/solver.md, "A flat landing gives no spin"). */
#ifndef TP_BOUNCE_SWEEP_FACTOR
#define TP_BOUNCE_SWEEP_FACTOR 4
#endif

/* A step whose contact points are mostly new (a scene's first step, a reset)
 * sweeps its first substep this many times more: a cold ten-box tower
 * otherwise sinks 0.1 mm per contact before the warm start catches up. */
#ifndef TP_COLD_SWEEP_FACTOR
#define TP_COLD_SWEEP_FACTOR 8
#endif

TP_HD void tp_zero_impulses(tp_contact *contacts, int n, int tid, int nth)
{
    for (int i = tid; i < n; i += nth)
        contacts[i].normal_impulse = contacts[i].tangent_impulse[0] = contacts[i].tangent_impulse[1] = 0.0f;
}

/* End of a substep, per point: its impulses added to its totals (forces); a
 * point that bounced keeps none for the warm start (it now separates); its
 * push-out impulse zeroed for the next substep (tp_prepare_row zeroes it for
 * the first: one pass over the points fewer than a reset of its own); where
 * the step can bounce (tp_restitution_possible), the normal speed noted as
 * the next substep's starting speed (restitution). */
TP_HD void tp_solver_end_substep(const tp_world *wd, tp_contact *contacts, tp_contact_row *rows, int n, int bouncy,
                                 int tid, int nth)
{
    for (int i = tid; i < n; i += nth) {
        tp_contact *c = &contacts[i];
        tp_contact_row *r = &rows[i];
        r->normal_total += c->normal_impulse;
        r->tangent_total[0] += c->tangent_impulse[0];
        r->tangent_total[1] += c->tangent_impulse[1];
        if (r->bounce_speed > 0.0f) {
            c->normal_impulse = c->tangent_impulse[0] = c->tangent_impulse[1] = 0.0f;
            r->bounce_speed = 0.0f;
        }
        r->push_impulse = 0.0f;
        if (bouncy && r->max_normal_impulse == 0.0f) r->approach_start = tp_row_normal_speed(wd, c, r);
    }
}

/* Stage 7 of one world: body masses for this step, constraints from the
 * key-sorted contacts, and their colors. Returns the number of constraints. */
TP_HD int tp_solver_color(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w, const tp_solver_params *p)
{
    tp_solver_prepare_bodies(wd, w->bodies);
    int n_cons = tp_build_constraints(wd, contacts, n, w->cons);
    tp_color_constraints(wd, w->cons, n_cons, p->serial, w->body_mask, w->order, w->color_start);
    tp_shock_prepare(wd, contacts, w->cons, n_cons, w);
    int fresh = 0; /* points without a warm-start impulse */
    for (int i = 0; i < n; ++i) fresh += contacts[i].normal_impulse == 0.0f;
    *w->cold = p->warm_starting && 2 * fresh > n;
    return n_cons;
}

/* tp_solver_color as lane tid of nth (the CUDA backend's group of lanes per
 * world; kernels/coloring.h's lane forms): the bodies, the constraints, their
 * colors and order in lanes, the same bits as tp_solver_color; the support
 * depths and shock order (tp_shock_prepare, a breadth-first walk) on lane 0.
 * With one lane it is tp_solver_color itself (the CPU; see docs/cuda.md for
 * why). Returns the number of constraints (every lane). */
TP_HD int tp_solver_color_lanes(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w,
                                const tp_solver_params *p, int tid, int nth)
{
    if (nth == 1) return tp_solver_color(wd, contacts, n, w, p);
    for (int b = tid; b < wd->bodies; b += nth) tp_solver_prepare_bodies_one(wd, w->bodies, b);
    int fresh = 0;
    int n_cons = tp_build_constraints_lanes(wd, contacts, n, w->cons, &w->color, &fresh, tid, nth);
    TP_BARRIER(nth); /* every lane has read the count before the coloring reuses the scratch */
    tp_color_constraints_lanes(wd, w->cons, n_cons, p->serial, w->body_mask, &w->color, w->order, w->color_start,
                               tid, nth);
    TP_BARRIER(nth);
    if (tid == 0) {
        tp_shock_prepare(wd, contacts, w->cons, n_cons, w);
        *w->cold = p->warm_starting && 2 * fresh > n;
    }
    return n_cons;
}

/* The shock pass after the biased sweeps (kernels/shock.h), with warm
 * starting only; thread 0 of the block runs it, the others wait. After the
 * relax sweeps too it cost 30 % more instructions on the tower for little
 * (docs/solver.md). */
TP_HD void tp_solver_shock(tp_world *wd, tp_solver_work *w, tp_contact *contacts, const tp_solver_params *p,
                           float inv_h, int use_bias, int tid, int nth)
{
    if (!p->warm_starting) return;
    if (tid == 0) tp_solver_shock_pass(wd, w, contacts, inv_h, use_bias);
    TP_BARRIER(nth);
}

/* When a substep's shock pass runs (tp_solver_biased_phase). */
enum {
    TP_SHOCK_SKIP = 0,           /* not in this substep */
    TP_SHOCK_IF_UNCONVERGED = 1, /* if the biased sweeps ran all their count */
    TP_SHOCK_ALWAYS = 2          /* a heavy body on a light support (tp_shock_heavy_support) */
};

/* A world whose simulated bodies all move slower than this (m/s per
 * component, and rad/s) is settling, not in motion: a resting stack's
 * sweeps leave residuals of 1e-5 to 1e-4 m/s (the 210-cube pyramid's
 * first seconds), a push, an impact or a rocking tower moves at cm/s. 1 mm/s
 * is a fiftieth of the default sleep threshold (docs/solver.md, "Shock pass:
 * once a step while settling"). */
#ifndef TP_SHOCK_MOVING_SPEED
#define TP_SHOCK_MOVING_SPEED 1.0e-3f
#endif

/* 1 if a simulated body of the world moves faster than TP_SHOCK_MOVING_SPEED
 * along an axis or turns faster about one (or holds a NaN). Every thread
 * scans all bodies, so all get the same answer without sharing it. */
TP_HD int tp_solver_world_moving(const tp_world *wd, const tp_solver_work *w)
{
    const float lim = TP_SHOCK_MOVING_SPEED;
    int moving = 0;
    for (int b = 0; b < wd->bodies; ++b) {
        if (!w->bodies[b].simulated) continue;
        for (int c = 0; c < 3; ++c) {
            float v = wd->v[3 * b + c], r = wd->w[3 * b + c];
            moving |= !((v <= lim) & (v >= -lim) & (r <= lim) & (r >= -lim));
        }
    }
    return moving;
}

/* The shock pass of substep s (tp_solver_biased_phase): in every substep of a
 * step with a heavy body on a light support (`heavy`, tp_shock_heavy_support);
 * else after unconverged sweeps, in every substep of a step whose world is
 * moving (`moving`, tp_solver_world_moving, at the step's start), and in the
 * first substep only of a step whose world is settling. Why once a step
 * there: the pass's velocity changes are not in the warm start
 * (kernels/shock.h), so a pass in every substep hands the next substep's
 * sweeps a residual of its own making, and a settling stack kept running all
 * its sweeps and the pass for hundreds of steps; once a step, its sweeps
 * converge sooner and the pass stops (docs/solver.md, "Shock pass: once a
 * step while settling"). A moving world keeps it in every substep: a pushed
 * tower's rocking dies out about as fast as with the pass in every substep
 * (C19: asleep again 0.850 s after the push, against 0.833 s). */
TP_HD int tp_solver_shock_mode(int s, int heavy, int moving)
{
    if (heavy) return TP_SHOCK_ALWAYS;
    return s == 0 || moving ? TP_SHOCK_IF_UNCONVERGED : TP_SHOCK_SKIP;
}

/* A substep's biased sweeps (up to `count`: iterations, or more in a cold
 * first substep), then the shock pass as `shock` says (tp_solver_shock_mode).
 * Where the sweeps stopped early (tp_solver_sweeps: a backward sweep changed
 * no velocity past TP_SWEEP_TOL) between comparable masses, no body is left
 * closing in on its support by more than a few times that, and the pass,
 * which only holds supports against such closing, is skipped
 * (kernels/shock.h, "When it runs"). Returns 1 if the shock pass ran. Every
 * thread of a block gets the same count from tp_solver_sweeps and the same
 * `shock`, so all take the same branch. */
TP_HD int tp_solver_biased_phase(tp_world *wd, tp_solver_work *w, tp_contact *contacts, const tp_solver_params *p,
                                 float inv_h, int count, int shock, int tid, int nth)
{
    int ran = tp_solver_sweeps(wd, w, contacts, inv_h, 1, count, tid, nth);
    if (shock == TP_SHOCK_SKIP || (ran < count && shock != TP_SHOCK_ALWAYS)) return 0;
    tp_solver_shock(wd, w, contacts, p, inv_h, 1, tid, nth);
    return p->warm_starting;
}

/* One substep s of length h: velocities, warm start, biased sweeps and the
 * shock pass (tp_solver_biased_phase, tp_solver_shock_mode: `heavy` and
 * `moving` as there),
 * bounces (where the step can bounce: `bouncy`, tp_restitution_possible),
 * position update, relax sweeps. */
TP_HD void tp_solver_substep(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w, const tp_solver_params *p,
                             int s, float h, float inv_h, int bouncy, int heavy, int moving, int tid, int nth)
{
    for (int b = tid; b < wd->bodies; b += nth)
        if (w->bodies[b].simulated) tp_integrate_velocity(wd, b, h);
    if (w->artic && tid == 0) tp_artic_substep_velocity(w->artic, wd, contacts, w->rows, n);
    TP_BARRIER(nth);
    if (bouncy) {
        tp_restitution_capture(wd, contacts, w->rows, n, tid, nth);
        TP_BARRIER(nth);
    }
    if (p->warm_starting) {
        tp_solver_warm_start(wd, w, contacts, tid, nth);
    } else {
        tp_zero_impulses(contacts, n, tid, nth);
        TP_BARRIER(nth);
    }
    /* After the first substep the separations are still those of the last
     * position update (velocities moved since, poses did not); an
     * articulation's substep end publishes its links again, so with
     * articulations they are evaluated anew. */
    if (wd->cons_count) { /* constraint rows at this substep's poses, warm started (constraint_rows.h) */
        if (tid == 0) tp_cons_prepare(wd, w->bodies, h);
        TP_BARRIER(nth);
    }
    if (s == 0 || w->artic) tp_solver_update_separations(wd, contacts, w->rows, n, tid, nth);
    for (int k = tid; k < 6 * wd->bodies; k += nth) w->push[k] = 0.0f; /* the points': tp_solver_end_substep */
    TP_BARRIER(nth);
    int sweeps = p->iterations * (s == 0 && *w->cold ? TP_COLD_SWEEP_FACTOR : 1);
    tp_solver_biased_phase(wd, w, contacts, p, inv_h, sweeps, tp_solver_shock_mode(s, heavy, moving), tid, nth);
    /* Bounces start here, before the position update, so that the bodies
     * leave the impact with their rebound speed (kernels/restitution.h). */
    int bounces = 0;
    if (bouncy) {
        tp_restitution_targets(contacts, w->rows, n, h, p->restitution_threshold, tid, nth);
        TP_BARRIER(nth);
        bounces = tp_restitution_any(w->rows, n);
    }
    if (bounces) tp_solver_sweeps(wd, w, contacts, inv_h, 0, p->iterations * TP_BOUNCE_SWEEP_FACTOR, tid, nth);
    for (int b = tid; b < wd->bodies; b += nth)
        if (tp_body_moves(wd, b))
            tp_integrate_pose(wd, b, h, tp_add(tp_v3_load(wd->v + 3 * b), tp_v3_load(w->push + 6 * b)),
                              tp_add(tp_v3_load(wd->w + 3 * b), tp_v3_load(w->push + 6 * b + 3)));
    if (w->artic && tid == 0) tp_artic_substep_position(w->artic, wd);
    TP_BARRIER(nth);
    if (wd->cons_count) { /* joint errors projected out of the new poses, before anything reads them */
        if (tid == 0) tp_cons_project(wd, w->bodies, h);
        TP_BARRIER(nth);
    }
    tp_solver_update_separations(wd, contacts, w->rows, n, tid, nth);
    if (wd->cons_count && tid == 0) tp_cons_rebuild(wd, w->bodies, h);
    TP_BARRIER(nth);
    tp_solver_sweeps(wd, w, contacts, inv_h, 0, tp_relax_sweeps(p->iterations), tid, nth);
    if (w->artic) {
        if (tid == 0) tp_artic_substep_end(w->artic, wd);
        TP_BARRIER(nth);
    }
    tp_solver_end_substep(wd, contacts, w->rows, n, bouncy, tid, nth);
    if (wd->cons_count && tid == 0) tp_cons_end_substep(wd, w->bodies);
#if !defined(__CUDA_ARCH__)
    /* a bounce's impulses were zeroed: the CPU's wide sweeps read them again (csrc/solver_simd.c) */
    if (bounces && w->simd && tid == 0) w->simd->impulses_changed = 1;
#endif
    TP_BARRIER(nth);
}

/* Stages 8-9 of one world, after tp_solver_color, run by threads tid of nth
 * together (the CPU: 0 of 1; CUDA: one thread block per world, every thread
 * calling this with the same arguments but tid): rows, then every substep,
 * with a barrier after each phase. contacts[0..n) sorted by key carry last
 * step's impulses when warm starting (else they are zeroed here). */
TP_HD void tp_solver_substeps_block(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w,
                                    const tp_solver_params *p, int tid, int nth)
{
    float h = p->dt / (float)p->substeps, inv_h = (float)p->substeps / p->dt;
    /* read before the barrier below: no thread changes a velocity until after it */
    int moving = tp_solver_world_moving(wd, w);
    for (int i = tid; i < n; i += nth) tp_prepare_row(wd, w->bodies, &contacts[i], &w->rows[i]);
    if (!p->warm_starting) tp_zero_impulses(contacts, n, tid, nth);
#if !defined(__CUDA_ARCH__)
    if (w->simd) w->simd->rows_changed = 1; /* the CPU's wide sweeps pack them again (csrc/solver_simd.c) */
#endif
    TP_BARRIER(nth);
    if (w->artic) {
        if (tid == 0) tp_artic_solve_begin(w->artic, wd, w->bodies, contacts, w->rows, n);
        TP_BARRIER(nth);
    }
    if (p->warm_starting) { /* the shock pass runs only then (tp_solver_shock) */
        tp_shock_held_masses(wd, w, contacts, w->color_start[TP_OVERFLOW_COLOR + 1], tid, nth);
        TP_BARRIER(nth);
    }
    int bouncy = tp_restitution_possible(contacts, n);
    int heavy = p->warm_starting && tp_shock_heavy_support(wd, w, w->color_start[TP_OVERFLOW_COLOR + 1]);
    if (wd->cons_count && tid == 0) tp_cons_begin_step(wd);
    for (int s = 0; s < p->substeps; ++s)
        tp_solver_substep(wd, contacts, n, w, p, s, h, inv_h, bouncy, heavy, moving, tid, nth);
    if (wd->cons_count) {
        if (tid == 0) tp_cons_end_step(wd, p->dt);
        TP_BARRIER(nth);
    }
}

/* Stages 8-9 of one world on one thread. n_cons (from tp_solver_color) is
 * also color_start[TP_OVERFLOW_COLOR + 1], which is what the passes read. */
TP_HD void tp_solver_substeps(tp_world *wd, tp_contact *contacts, int n, int n_cons, tp_solver_work *w,
                              const tp_solver_params *p)
{
    (void)n_cons;
    tp_solver_substeps_block(wd, contacts, n, w, p, 0, 1);
}

/* Stages 7-9 of one world (coloring, then the substeps). Returns the number of
 * constraints solved. */
TP_HD int tp_solve_world(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w, const tp_solver_params *p)
{
    int n_cons = tp_solver_color(wd, contacts, n, w, p);
    tp_solver_substeps(wd, contacts, n, n_cons, w, p);
    return n_cons;
}

#endif
