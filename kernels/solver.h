/* solver.h - the `constraints` and `solve` stages of one world: the contact
 * solver's driver, and the substep as a list of named phases.
 *
 * The rooms it drives, in the order of a step:
 *   kernels/coloring.h       constraints stage: contact points grouped into constraints, colored
 *   kernels/solver_scratch.h the per-step data and its scratch memory
 *   kernels/contact_rows.h   solve stage, once: rows (arms, tangents, effective masses)
 *   kernels/integrate.h      velocity and position integration of each substep
 *   kernels/row_law.h        the law of one contact row
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
 * sweeps its first substep this many times more: a cold stack otherwise sinks
 * into its supports before the warm start catches up. */
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

/* The constraints stage of one world: body masses for this step, constraints
 * from the key-sorted contacts, their colors, the colors of the constraints
 * between two bodies and of the movers (kernels/constraint_colors.h), the
 * shock pass's order, and whether the step starts cold. Returns the number
 * of (contact) constraints. */
TP_HD int tp_solver_constraints(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w, const tp_solver_params *p)
{
    tp_solver_prepare_bodies(wd, w->bodies);
    int n_cons = tp_build_constraints(wd, contacts, n, w->cons);
    tp_color_constraints(wd, w->cons, n_cons, p->serial, w->body_mask, w->order, w->color_start);
    tp_cons_color_all(wd, w->bodies, p->serial, w->body_mask, w->cons_colors);
    tp_shock_prepare(wd, contacts, w->cons, n_cons, w);
    int fresh = 0; /* points without a warm-start impulse */
    for (int i = 0; i < n; ++i) fresh += contacts[i].normal_impulse == 0.0f;
    *w->cold = p->warm_starting && 2 * fresh > n;
    return n_cons;
}

/* tp_solver_constraints as lane tid of nth (the CUDA backend's group of lanes
 * per world; kernels/coloring.h's lane forms): the bodies, the constraints,
 * their colors and order in lanes, the same bits as tp_solver_constraints; the
 * colors of the constraints between two bodies and movers, the support depths
 * and shock order (tp_shock_prepare, a breadth-first walk) on lane 0. With one lane it is tp_solver_constraints itself (the CPU; see docs/cuda.md for
 * why). Returns the number of constraints (every lane). */
TP_HD int tp_solver_constraints_lanes(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w,
                                      const tp_solver_params *p, int tid, int nth)
{
    if (nth == 1) return tp_solver_constraints(wd, contacts, n, w, p);
    for (int b = tid; b < wd->bodies; b += nth) tp_solver_prepare_bodies_one(wd, w->bodies, b);
    int fresh = 0;
    int n_cons = tp_build_constraints_lanes(wd, contacts, n, w->cons, &w->color, &fresh, tid, nth);
    TP_BARRIER(nth); /* every lane has read the count before the coloring reuses the scratch */
    tp_color_constraints_lanes(wd, w->cons, n_cons, p->serial, w->body_mask, &w->color, w->order, w->color_start,
                               tid, nth);
    TP_BARRIER(nth);
    if (tid == 0) {
        tp_cons_color_all(wd, w->bodies, p->serial, w->body_mask, w->cons_colors);
        tp_shock_prepare(wd, contacts, w->cons, n_cons, w);
        *w->cold = p->warm_starting && 2 * fresh > n;
    }
    return n_cons;
}

/* The shock pass after the biased sweeps (kernels/shock.h), with warm
 * starting only; thread 0 of the block runs it, the others wait. Not after
 * the relax sweeps: the cost outweighs what it gives (docs/solver.md). */
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
 * component, and rad/s) is settling, not in motion: a resting stack's sweeps
 * leave residuals of 1e-5 to 1e-4 m/s, a push, an impact or a rocking tower
 * moves at cm/s; 1 mm/s is a fiftieth of the default sleep threshold
 * (docs/solver.md, "Shock pass: once a step while settling"). */
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
 * first substep only of a step whose world is settling: the pass's velocity
 * changes are not in the warm start (kernels/shock.h), so in every substep it
 * would hand the next substep's sweeps a residual of its own making and a
 * settling stack would never converge (docs/solver.md, "Shock pass: once a
 * step while settling", has the measurements). */
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
    if (w->color_start[TP_OVERFLOW_COLOR + 1] == 0) return 0; /* no contact constraints to hold */
    tp_solver_shock(wd, w, contacts, p, inv_h, 1, tid, nth);
    return p->warm_starting;
}

/* A substep's phases, in order (tp_solver_substep runs them). Each is a
 * tp_phase_<name> function over the substep's context; every thread of a
 * block runs each, and each ends at a barrier where the next needs one. The
 * articulations' work enters through tp_substep_artic at the end of a phase. */
#define TP_SUBSTEP_PHASES(X)                                                                                          \
    X(VELOCITY, velocity)     /* velocities integrated; the trees' free velocities and rows */                      \
    X(CAPTURE, capture)       /* approach speeds noted where the step can bounce */                                 \
    X(WARM_START, warm_start) /* the accumulated impulses applied again; separations; push-out zeroed */             \
    X(BIASED, biased)         /* biased sweeps, then the shock pass as the step says */                             \
    X(BOUNCE, bounce)         /* restitution targets; the bounce sweeps where a point bounces */                    \
    X(POSITION, position)     /* poses integrated (with the push-out); the trees' q; separations */                 \
    X(RELAX, relax)           /* relax sweeps; the trees' velocities published */                                   \
    X(END, end)               /* impulses into the totals; bounces' impulses dropped */

enum {
#define TP_PHASE_INDEX(NAME, name) TP_PHASE_##NAME,
    TP_SUBSTEP_PHASES(TP_PHASE_INDEX)
#undef TP_PHASE_INDEX
    TP_PHASE_COUNT
};

/* What the phases of substep s share. */
typedef struct tp_substep {
    tp_world *wd;
    tp_contact *contacts;
    int n;                      /* contact points */
    tp_solver_work *w;
    const tp_solver_params *p;
    int s;                      /* substep index */
    float h, inv_h;             /* its length and 1 / length */
    int bouncy;                 /* the step can bounce (tp_restitution_possible) */
    int heavy, moving;          /* the shock pass's mode (tp_solver_shock_mode) */
    int bounces;                /* a point bounces in this substep (set by the bounce phase) */
} tp_substep;

/* The articulations' work at the end of a phase, tree t on lane t mod nth
 * (kernels/articulation_contact.h); the caller's barrier follows. Every
 * lane calls it (the velocity phase holds a barrier of its own). */
TP_HD void tp_substep_artic(const tp_substep *ss, int phase, int tid, int nth)
{
    tp_artic_solve *A = ss->w->artic;
    if (!A) return;
    if (phase == TP_PHASE_VELOCITY) tp_artic_substep_velocity(A, ss->wd, ss->contacts, ss->w->rows, ss->n, tid, nth);
    else if (phase == TP_PHASE_POSITION) tp_artic_substep_position(A, ss->wd, tid, nth);
    else if (phase == TP_PHASE_RELAX) tp_artic_substep_end(A, ss->wd, tid, nth);
}

TP_HD void tp_phase_velocity(tp_substep *ss, int tid, int nth)
{
    for (int b = tid; b < ss->wd->bodies; b += nth)
        if (ss->w->bodies[b].simulated) tp_integrate_velocity(ss->wd, b, ss->h);
    tp_substep_artic(ss, TP_PHASE_VELOCITY, tid, nth);
    TP_BARRIER(nth);
}

TP_HD void tp_phase_capture(tp_substep *ss, int tid, int nth)
{
    if (!ss->bouncy) return;
    tp_restitution_capture(ss->wd, ss->contacts, ss->w->rows, ss->n, tid, nth);
    TP_BARRIER(nth);
}

/* After the first substep the separations are still those of the last
 * position update (velocities moved since, poses did not); an
 * articulation's substep end publishes its links again, so with
 * articulations they are evaluated anew. */
TP_HD void tp_phase_warm_start(tp_substep *ss, int tid, int nth)
{
    tp_solver_work *w = ss->w;
    if (ss->p->warm_starting) {
        tp_solver_warm_start(ss->wd, w, ss->contacts, tid, nth);
    } else {
        tp_zero_impulses(ss->contacts, ss->n, tid, nth);
        TP_BARRIER(nth);
    }
    if (ss->wd->cons_count) { /* constraint rows at this substep's poses, warm started (constraint_rows.h) */
        if (tid == 0) tp_cons_prepare(ss->wd, w->bodies, ss->h);
        TP_BARRIER(nth);
    }
    if (ss->wd->mover_count) { /* movers' rows (or pushes) at this substep's poses (mover_rows.h) */
        if (tid == 0) tp_mover_prepare(ss->wd, w->bodies, ss->h);
        TP_BARRIER(nth);
    }
    if (ss->s == 0 || w->artic) tp_solver_update_separations(ss->wd, ss->contacts, w->rows, ss->n, tid, nth);
    for (int k = tid; k < 6 * ss->wd->bodies; k += nth) w->push[k] = 0.0f; /* the points': tp_solver_end_substep */
    TP_BARRIER(nth);
}

TP_HD void tp_phase_biased(tp_substep *ss, int tid, int nth)
{
    int sweeps = ss->p->iterations * (ss->s == 0 && *ss->w->cold ? TP_COLD_SWEEP_FACTOR : 1);
    tp_solver_biased_phase(ss->wd, ss->w, ss->contacts, ss->p, ss->inv_h, sweeps,
                           tp_solver_shock_mode(ss->s, ss->heavy, ss->moving), tid, nth);
}

/* Bounces start here, before the position update, so that the bodies leave
 * the impact with their rebound speed (kernels/restitution.h). */
TP_HD void tp_phase_bounce(tp_substep *ss, int tid, int nth)
{
    ss->bounces = 0;
    if (!ss->bouncy) return;
    tp_restitution_targets(ss->contacts, ss->w->rows, ss->n, ss->h, ss->p->restitution_threshold, tid, nth);
    TP_BARRIER(nth);
    ss->bounces = tp_restitution_any(ss->w->rows, ss->n);
    if (ss->bounces)
        tp_solver_sweeps(ss->wd, ss->w, ss->contacts, ss->inv_h, 0, ss->p->iterations * TP_BOUNCE_SWEEP_FACTOR, tid, nth);
}

TP_HD void tp_phase_position(tp_substep *ss, int tid, int nth)
{
    tp_world *wd = ss->wd;
    const float *push = ss->w->push;
    for (int b = tid; b < wd->bodies; b += nth)
        if (tp_body_moves(wd, b))
            tp_integrate_pose(wd, b, ss->h, tp_add(tp_v3_load(wd->v + 3 * b), tp_v3_load(push + 6 * b)),
                              tp_add(tp_v3_load(wd->w + 3 * b), tp_v3_load(push + 6 * b + 3)));
    tp_substep_artic(ss, TP_PHASE_POSITION, tid, nth);
    TP_BARRIER(nth);
    if (wd->cons_count) { /* joint errors projected out of the new poses, before anything reads them */
        if (tid == 0) tp_cons_project(wd, ss->w->bodies, ss->h);
        TP_BARRIER(nth);
    }
    tp_solver_update_separations(wd, ss->contacts, ss->w->rows, ss->n, tid, nth);
    if (wd->cons_count && tid == 0) tp_cons_rebuild(wd, ss->w->bodies, ss->h);
    TP_BARRIER(nth);
}

TP_HD void tp_phase_relax(tp_substep *ss, int tid, int nth)
{
    tp_solver_sweeps(ss->wd, ss->w, ss->contacts, ss->inv_h, 0, tp_relax_sweeps(ss->p->iterations), tid, nth);
    if (!ss->w->artic) return;
    tp_substep_artic(ss, TP_PHASE_RELAX, tid, nth);
    TP_BARRIER(nth);
}

TP_HD void tp_phase_end(tp_substep *ss, int tid, int nth)
{
    tp_solver_end_substep(ss->wd, ss->contacts, ss->w->rows, ss->n, ss->bouncy, tid, nth);
    if (ss->wd->cons_count && tid == 0) tp_cons_end_substep(ss->wd, ss->w->bodies);
    if (ss->wd->mover_count && tid == 0) tp_mover_end_substep(ss->wd);
#if !defined(__CUDA_ARCH__)
    /* a bounce's impulses were zeroed: the CPU's wide sweeps read them again (csrc/solver_simd.c) */
    if (ss->bounces && ss->w->simd && tid == 0) ss->w->simd->impulses_changed = 1;
#endif
    TP_BARRIER(nth);
}

/* One substep: its phases in list order. */
TP_HD void tp_solver_substep(tp_substep *ss, int tid, int nth)
{
#define TP_PHASE_CALL(NAME, name) tp_phase_##name(ss, tid, nth);
    TP_SUBSTEP_PHASES(TP_PHASE_CALL)
#undef TP_PHASE_CALL
}

/* The solve stage of one world, after tp_solver_constraints, run by threads
 * tid of nth together (the CPU: 0 of 1; CUDA: one thread block per world,
 * every thread calling this with the same arguments but tid): rows, then
 * every substep, with a barrier after each phase. contacts[0..n) sorted by
 * key carry last step's impulses when warm starting (else they are zeroed
 * here). */
TP_HD void tp_solver_substeps_block(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w,
                                    const tp_solver_params *p, int tid, int nth)
{
    tp_substep ss;
    ss.wd = wd;
    ss.contacts = contacts;
    ss.n = n;
    ss.w = w;
    ss.p = p;
    ss.h = p->dt / (float)p->substeps;
    ss.inv_h = (float)p->substeps / p->dt;
    /* read before the barrier below: no thread changes a velocity until after it */
    ss.moving = tp_solver_world_moving(wd, w);
    for (int i = tid; i < n; i += nth) tp_prepare_row(wd, w->bodies, &contacts[i], &w->rows[i]);
    if (!p->warm_starting) tp_zero_impulses(contacts, n, tid, nth);
#if !defined(__CUDA_ARCH__)
    if (w->simd) w->simd->rows_changed = 1; /* the CPU's wide sweeps pack them again (csrc/solver_simd.c) */
#endif
    TP_BARRIER(nth);
    if (w->artic) {
        if (tid == 0) tp_artic_solve_begin(w->artic, wd, w->bodies, contacts, w->rows, n);
        TP_BARRIER(nth);
        if (tid != 0) tp_artic_count_points(w->artic, n); /* the limit rows read it */
    }
    if (p->warm_starting) { /* the shock pass runs only then (tp_solver_shock) */
        tp_shock_held_masses(wd, w, contacts, w->color_start[TP_OVERFLOW_COLOR + 1], tid, nth);
        TP_BARRIER(nth);
    }
    ss.bouncy = tp_restitution_possible(contacts, n);
    ss.heavy = p->warm_starting && tp_shock_heavy_support(wd, w, w->color_start[TP_OVERFLOW_COLOR + 1]);
    ss.bounces = 0;
    if (wd->cons_count && tid == 0) tp_cons_begin_step(wd);
    if (wd->mover_count && tid == 0) tp_mover_begin_step(wd);
    for (ss.s = 0; ss.s < p->substeps; ++ss.s) tp_solver_substep(&ss, tid, nth);
    if (wd->cons_count || wd->mover_count) {
        if (tid == 0 && wd->cons_count) tp_cons_end_step(wd, p->dt);
        if (tid == 0 && wd->mover_count) tp_mover_end_step(wd, p->dt);
        TP_BARRIER(nth);
    }
}

#endif
