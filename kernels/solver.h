/* solver.h - stage 8: contact constraints solved by projected Gauss-Seidel.
 *
 * Method (docs/solver.md gives the reasons and the sources):
 *   - substepping as in Box2D v3's solver (Catto, "Solver2D", 2024): each
 *     substep integrates velocities, warm starts, sweeps the rows `iterations`
 *     times with position correction, integrates positions, then relaxes with
 *     iterations / 2 sweeps without position correction, so the correction
 *     velocity does not survive as kinetic energy;
 *   - rigid non-penetration rows (Catto, "Iterative Dynamics with Temporal
 *     Coherence", GDC 2005) whose separation is re-evaluated from the current
 *     poses in every substep, before the biased sweeps and again after the
 *     position integration for the relax sweeps (as in TGS, Macklin et al., "Small Steps in Physics
 *     Simulation", SCA 2019); a speculative point (separation > 0) lets the
 *     bodies close the gap but no more; penetration beyond a slop is pushed out
 *     by a Baumgarte velocity bias (factor 0.2 as in Box2D v2.4, capped at
 *     3 m/s as Box2D v3 caps its push-out speed);
 *   - odd sweeps visit the points of each manifold in reverse order, so a
 *     four-point face contact does not tip the body toward whichever corner
 *     is solved first (the color order is kept);
 *   - friction per point in a circular cone |(l1, l2)| <= mu ln over two
 *     tangent rows, after the normal rows of the manifold;
 *   - restitution after the substeps, only where the normal approach speed
 *     exceeded the threshold (Box2D v3's rule), so resting contact never
 *     bounces; the approach speed is taken in the substep in which the point
 *     first pushed (Box2D v3 takes it at the start of the step).
 * Accumulated impulses are per substep (they are applied again at the start of
 * every substep); forces are their sum over the substeps divided by dt.
 *
 * Only simulated bodies (awake dynamic) are written. Static, kinematic and
 * sleeping bodies enter a row with infinite mass and their own velocity. */
#ifndef TP_SOLVER_H
#define TP_SOLVER_H

#include "coloring.h"
#include "integrate.h"

/* Tuned on the C04 tower and the 55-cube pyramid (docs/solver.md, "Tuning");
 * overridable at compile time only so that the tuning sweep can be rerun. */
#ifndef TP_LINEAR_SLOP
#define TP_LINEAR_SLOP 0.0005f /* m of penetration left alone (no bias) */
#endif
#ifndef TP_BAUMGARTE
#define TP_BAUMGARTE 0.2f /* fraction of the penetration removed per substep */
#endif
#ifndef TP_RELAX_DIVISOR
#define TP_RELAX_DIVISOR 2 /* relax sweeps per substep = iterations / this, at least 1 */
#endif
#define TP_MAX_PUSH_SPEED 3.0f      /* m/s, cap of the push-out velocity */
/* A step whose contact points are mostly new (a scene's first step, a reset)
 * sweeps its first substep this many times more: a cold ten-box tower
 * otherwise sinks 0.1 mm per contact before the warm start catches up. */
#ifndef TP_COLD_SWEEP_FACTOR
#define TP_COLD_SWEEP_FACTOR 8
#endif

/* Per contact point, prepared once per step. */
typedef struct tp_contact_row {
    float ra[3], rb[3];         /* centre of mass to the contact point, world frame, m */
    float t1[3], t2[3];         /* tangent basis, world frame */
    float normal_mass;          /* 1 / effective mass along the normal, kg */
    float tangent_mass[2];
    float relative_velocity;    /* normal speed before the point first pushed in this step, m/s (< 0 approaching) */
    float separation;           /* m along the normal at the current poses (see tp_solver_update_separations) */
    float push_impulse;         /* split impulse of this substep's position correction, N s */
    float max_normal_impulse;   /* largest per-substep normal impulse this step, N s */
    float normal_total;         /* normal impulse summed over substeps, N s */
    float tangent_total[2];
} tp_contact_row;

/* Per body, prepared once per step. */
typedef struct tp_solver_body {
    tp_mat3 inv_i;              /* world-frame inverse inertia at the start of the step */
    float inv_m;                /* 0 when the body is not simulated */
    int simulated;
} tp_solver_body;

typedef struct tp_solver_params {
    float dt;
    int substeps, iterations;
    int serial;                 /* 1: all constraints in key order (the reference) */
    int warm_starting;
    float restitution_threshold;
} tp_solver_params;

/* Views of the scratch memory of one world's solve. */
typedef struct tp_solver_work {
    tp_contact_row *rows;       /* [contact capacity] */
    tp_constraint *cons;        /* [contact capacity] */
    int32_t *order;             /* [contact capacity] */
    int32_t *color_start;       /* [TP_MAX_COLORS + 2] */
    uint32_t *body_mask;        /* [bodies] */
    tp_solver_body *bodies;     /* [bodies] */
    float *push;                /* [bodies][6] pseudo velocities v, w of the position correction */
    int32_t *cold;              /* [1] this step's points are mostly new (tp_solver_color) */
} tp_solver_work;

TP_HD size_t tp_solver_align(size_t n) { return (n + 15u) & ~(size_t)15u; }

TP_HD size_t tp_solver_scratch_bytes(int bodies, int capacity)
{
    size_t c = (size_t)capacity, b = (size_t)bodies;
    return tp_solver_align(c * sizeof(tp_contact_row)) + tp_solver_align(c * sizeof(tp_constraint)) +
           tp_solver_align(c * sizeof(int32_t)) + tp_solver_align((TP_MAX_COLORS + 2) * sizeof(int32_t)) +
           tp_solver_align(b * sizeof(uint32_t)) + tp_solver_align(b * sizeof(tp_solver_body)) +
           tp_solver_align(6 * b * sizeof(float)) + tp_solver_align(sizeof(int32_t));
}

TP_HD tp_solver_work tp_solver_work_at(void *scratch, int bodies, int capacity)
{
    char *p = (char *)scratch;
    size_t c = (size_t)capacity, b = (size_t)bodies;
    tp_solver_work w;
    w.rows = (tp_contact_row *)p; p += tp_solver_align(c * sizeof(tp_contact_row));
    w.cons = (tp_constraint *)p; p += tp_solver_align(c * sizeof(tp_constraint));
    w.order = (int32_t *)p; p += tp_solver_align(c * sizeof(int32_t));
    w.color_start = (int32_t *)p; p += tp_solver_align((TP_MAX_COLORS + 2) * sizeof(int32_t));
    w.body_mask = (uint32_t *)p; p += tp_solver_align(b * sizeof(uint32_t));
    w.bodies = (tp_solver_body *)p; p += tp_solver_align(b * sizeof(tp_solver_body));
    w.push = (float *)p; p += tp_solver_align(6 * b * sizeof(float));
    w.cold = (int32_t *)p;
    return w;
}

/* A deterministic orthonormal tangent basis for unit normal n (Box2D's and
 * Bullet's choice: the larger of x or y goes into the first tangent). */
TP_HD void tp_tangent_basis(tp_vec3 n, tp_vec3 *t1, tp_vec3 *t2)
{
    if (tp_absf(n.x) >= 0.57735f) *t1 = tp_normalize_or(tp_v3(n.y, -n.x, 0.0f), tp_v3(0.0f, 1.0f, 0.0f));
    else *t1 = tp_normalize_or(tp_v3(0.0f, n.z, -n.y), tp_v3(1.0f, 0.0f, 0.0f));
    *t2 = tp_cross(n, *t1);
}

TP_HD tp_vec3 tp_body_com(const tp_world *wd, int b)
{
    const float *c = wd->model[b].com;
    return tp_add(tp_v3_load(wd->pos + 3 * b), tp_q_rotate(tp_q_load(wd->quat + 4 * b), tp_v3(c[0], c[1], c[2])));
}

/* World position of a point given in a body's frame relative to its origin. */
TP_HD tp_vec3 tp_body_point(const tp_world *wd, int b, const float *local)
{
    return tp_add(tp_v3_load(wd->pos + 3 * b), tp_q_rotate(tp_q_load(wd->quat + 4 * b), tp_v3_load(local)));
}

/* Velocity of the material point at arm r from the centre of mass of body b. */
TP_HD tp_vec3 tp_point_velocity(const tp_world *wd, int b, tp_vec3 r)
{
    return tp_add(tp_v3_load(wd->v + 3 * b), tp_cross(tp_v3_load(wd->w + 3 * b), r));
}

/* Effective mass of a row with direction d at arms ra, rb; 0 if both are fixed. */
TP_HD float tp_row_mass(const tp_solver_body *A, const tp_solver_body *B, tp_vec3 ra, tp_vec3 rb, tp_vec3 d)
{
    tp_vec3 ca = tp_cross(ra, d), cb = tp_cross(rb, d);
    float k = A->inv_m + B->inv_m + tp_dot(ca, tp_m3_mul_v(A->inv_i, ca)) + tp_dot(cb, tp_m3_mul_v(B->inv_i, cb));
    return k > 0.0f ? 1.0f / k : 0.0f;
}

/* Apply impulse p at arms ra (to A, negated) and rb (to B). */
TP_HD void tp_apply_impulse_pair(tp_world *wd, const tp_solver_body *sb, int a, int b, tp_vec3 ra, tp_vec3 rb,
                                 tp_vec3 p)
{
    const tp_solver_body *A = &sb[a], *B = &sb[b];
    if (A->simulated) {
        tp_v3_store(wd->v + 3 * a, tp_sub(tp_v3_load(wd->v + 3 * a), tp_scale(p, A->inv_m)));
        tp_v3_store(wd->w + 3 * a, tp_sub(tp_v3_load(wd->w + 3 * a), tp_m3_mul_v(A->inv_i, tp_cross(ra, p))));
    }
    if (B->simulated) {
        tp_v3_store(wd->v + 3 * b, tp_add(tp_v3_load(wd->v + 3 * b), tp_scale(p, B->inv_m)));
        tp_v3_store(wd->w + 3 * b, tp_add(tp_v3_load(wd->w + 3 * b), tp_m3_mul_v(B->inv_i, tp_cross(rb, p))));
    }
}

/* Apply a position-correction impulse p to the pseudo velocities (split impulse). */
TP_HD void tp_apply_push_pair(float *push, const tp_solver_body *sb, int a, int b, tp_vec3 ra, tp_vec3 rb, tp_vec3 p)
{
    const tp_solver_body *A = &sb[a], *B = &sb[b];
    if (A->simulated) {
        tp_v3_store(push + 6 * a, tp_sub(tp_v3_load(push + 6 * a), tp_scale(p, A->inv_m)));
        tp_v3_store(push + 6 * a + 3, tp_sub(tp_v3_load(push + 6 * a + 3), tp_m3_mul_v(A->inv_i, tp_cross(ra, p))));
    }
    if (B->simulated) {
        tp_v3_store(push + 6 * b, tp_add(tp_v3_load(push + 6 * b), tp_scale(p, B->inv_m)));
        tp_v3_store(push + 6 * b + 3, tp_add(tp_v3_load(push + 6 * b + 3), tp_m3_mul_v(B->inv_i, tp_cross(rb, p))));
    }
}

/* Pseudo velocity of the point at arm r of body b. */
TP_HD tp_vec3 tp_push_velocity(const float *push, int b, tp_vec3 r)
{
    return tp_add(tp_v3_load(push + 6 * b), tp_cross(tp_v3_load(push + 6 * b + 3), r));
}

/* Inverse mass and world inverse inertia of every body for this step. */
TP_HD void tp_solver_prepare_bodies(const tp_world *wd, tp_solver_body *sb)
{
    const float zero6[6] = {0, 0, 0, 0, 0, 0};
    for (int b = 0; b < wd->bodies; ++b) {
        int sim = tp_body_is_simulated(wd, b);
        sb[b].simulated = sim;
        sb[b].inv_m = sim ? wd->inv_mass[b] : 0.0f;
        sb[b].inv_i = tp_inv_inertia_world(tp_q_load(wd->quat + 4 * b), sim ? wd->inv_inertia + 6 * b : zero6);
    }
}

/* Arms, tangent basis, effective masses and approach speed of one point. */
TP_HD void tp_prepare_row(const tp_world *wd, const tp_solver_body *sb, const tp_contact *c, tp_contact_row *r)
{
    int a = c->body_a, b = c->body_b;
    tp_vec3 n = tp_v3_load(c->normal);
    tp_vec3 pa = tp_body_point(wd, a, c->local_a), pb = tp_body_point(wd, b, c->local_b);
    tp_vec3 mid = tp_scale(tp_add(pa, pb), 0.5f);
    tp_vec3 ra = tp_sub(mid, tp_body_com(wd, a)), rb = tp_sub(mid, tp_body_com(wd, b));
    tp_vec3 t1, t2;
    tp_tangent_basis(n, &t1, &t2);
    tp_v3_store(r->ra, ra);
    tp_v3_store(r->rb, rb);
    tp_v3_store(r->t1, t1);
    tp_v3_store(r->t2, t2);
    r->normal_mass = tp_row_mass(&sb[a], &sb[b], ra, rb, n);
    r->tangent_mass[0] = tp_row_mass(&sb[a], &sb[b], ra, rb, t1);
    r->tangent_mass[1] = tp_row_mass(&sb[a], &sb[b], ra, rb, t2);
    r->relative_velocity = tp_dot(tp_sub(tp_point_velocity(wd, b, rb), tp_point_velocity(wd, a, ra)), n);
    r->max_normal_impulse = 0.0f;
    r->normal_total = r->tangent_total[0] = r->tangent_total[1] = 0.0f;
}

/* Re-apply the accumulated impulses of a constraint (warm start). */
TP_HD void tp_warm_start_constraint(tp_world *wd, const tp_solver_body *sb, const tp_constraint *k,
                                    const tp_contact *contacts, const tp_contact_row *rows)
{
    for (int i = k->first; i < k->first + k->count; ++i) {
        const tp_contact *c = &contacts[i];
        const tp_contact_row *r = &rows[i];
        tp_vec3 p = tp_scale(tp_v3_load(c->normal), c->normal_impulse);
        p = tp_mad(p, tp_v3_load(r->t1), c->tangent_impulse[0]);
        p = tp_mad(p, tp_v3_load(r->t2), c->tangent_impulse[1]);
        tp_apply_impulse_pair(wd, sb, k->body_a, k->body_b, tp_v3_load(r->ra), tp_v3_load(r->rb), p);
    }
}

/* One Gauss-Seidel pass over the rows of a constraint: normal rows, then friction. */
TP_HD void tp_solve_constraint(tp_world *wd, const tp_solver_body *sb, const tp_constraint *k, tp_contact *contacts,
                               tp_contact_row *rows, float *push, float inv_h, int use_bias, int reverse)
{
    int a = k->body_a, b = k->body_b;
    for (int q = 0; q < k->count; ++q) {
        int i = k->first + (reverse ? k->count - 1 - q : q);
        tp_contact *c = &contacts[i];
        tp_contact_row *r = &rows[i];
        tp_vec3 n = tp_v3_load(c->normal), ra = tp_v3_load(r->ra), rb = tp_v3_load(r->rb);
        float s = r->separation;
        float bias = s > 0.0f ? s * inv_h : 0.0f; /* speculative: may close the gap, no more */
        if (use_bias && s < -TP_LINEAR_SLOP) {
            /* Split impulse: the push-out acts on pseudo velocities that move
             * the bodies in this substep's position update and are then
             * dropped, so correcting penetration adds no kinetic energy. */
            float push_bias = tp_maxf(TP_BAUMGARTE * inv_h * (s + TP_LINEAR_SLOP), -TP_MAX_PUSH_SPEED);
            float pn = tp_dot(tp_sub(tp_push_velocity(push, b, rb), tp_push_velocity(push, a, ra)), n);
            float pl = tp_maxf(r->push_impulse - r->normal_mass * (pn + push_bias), 0.0f);
            tp_apply_push_pair(push, sb, a, b, ra, rb, tp_scale(n, pl - r->push_impulse));
            r->push_impulse = pl;
        }
        float vn = tp_dot(tp_sub(tp_point_velocity(wd, b, rb), tp_point_velocity(wd, a, ra)), n);
        float lambda = tp_maxf(c->normal_impulse - r->normal_mass * (vn + bias), 0.0f);
        float delta = lambda - c->normal_impulse;
        c->normal_impulse = lambda;
        r->max_normal_impulse = tp_maxf(r->max_normal_impulse, lambda);
        tp_apply_impulse_pair(wd, sb, a, b, ra, rb, tp_scale(n, delta));
    }
    for (int q = 0; q < k->count; ++q) {
        int i = k->first + (reverse ? k->count - 1 - q : q);
        tp_contact *c = &contacts[i];
        tp_contact_row *r = &rows[i];
        tp_vec3 ra = tp_v3_load(r->ra), rb = tp_v3_load(r->rb), t1 = tp_v3_load(r->t1), t2 = tp_v3_load(r->t2);
        tp_vec3 dv = tp_sub(tp_point_velocity(wd, b, rb), tp_point_velocity(wd, a, ra));
        float l1 = c->tangent_impulse[0] - r->tangent_mass[0] * tp_dot(dv, t1);
        float l2 = c->tangent_impulse[1] - r->tangent_mass[1] * tp_dot(dv, t2);
        float limit = c->friction * c->normal_impulse, len2 = l1 * l1 + l2 * l2;
        if (len2 > limit * limit) {
            float scale = limit > 0.0f ? limit / sqrtf(len2) : 0.0f;
            l1 *= scale;
            l2 *= scale;
        }
        tp_vec3 p = tp_add(tp_scale(t1, l1 - c->tangent_impulse[0]), tp_scale(t2, l2 - c->tangent_impulse[1]));
        c->tangent_impulse[0] = l1;
        c->tangent_impulse[1] = l2;
        tp_apply_impulse_pair(wd, sb, a, b, ra, rb, p);
    }
}

/* Restitution: where the approach speed at the start of the step exceeded the
 * threshold and the contact pushed, aim for -e times that speed. */
TP_HD void tp_restitution_constraint(tp_world *wd, const tp_solver_body *sb, const tp_constraint *k,
                                     tp_contact *contacts, tp_contact_row *rows, float threshold)
{
    int a = k->body_a, b = k->body_b;
    for (int i = k->first; i < k->first + k->count; ++i) {
        tp_contact *c = &contacts[i];
        tp_contact_row *r = &rows[i];
        if (c->restitution == 0.0f || r->relative_velocity > -threshold || r->max_normal_impulse == 0.0f) continue;
        tp_vec3 n = tp_v3_load(c->normal), ra = tp_v3_load(r->ra), rb = tp_v3_load(r->rb);
        float vn = tp_dot(tp_sub(tp_point_velocity(wd, b, rb), tp_point_velocity(wd, a, ra)), n);
        float lambda = tp_maxf(c->normal_impulse - r->normal_mass * (vn + c->restitution * r->relative_velocity), 0.0f);
        float delta = lambda - c->normal_impulse;
        c->normal_impulse = lambda;
        r->normal_total += delta;
        tp_apply_impulse_pair(wd, sb, a, b, ra, rb, tp_scale(n, delta));
    }
}

/* Separation of every point at the current poses. Poses change only in the
 * position integration of a substep, so all sweeps between two integrations
 * see the same separation: evaluating it once per phase (biased sweeps, relax
 * sweeps) gives the bits that evaluating it in every sweep would, at a fraction
 * of the cost (two quaternion rotations per point per sweep were most of the
 * solver's time).
 *
 * Here and below, (tid, nth) share a per-point or per-body loop among the nth
 * threads of a CUDA block (thread tid takes tid, tid + nth, ...); the CPU
 * passes (0, 1), which is the plain loop. Each item is computed by one thread
 * from data no other thread of the phase writes, so the bits do not depend on
 * nth. */
TP_HD void tp_solver_update_separations(const tp_world *wd, const tp_contact *contacts, tp_contact_row *rows, int n,
                                        int tid, int nth)
{
    for (int i = tid; i < n; i += nth) {
        const tp_contact *c = &contacts[i];
        tp_vec3 d = tp_sub(tp_body_point(wd, c->body_b, c->local_b), tp_body_point(wd, c->body_a, c->local_a));
        rows[i].separation = tp_dot(d, tp_v3_load(c->normal));
    }
}

/* Restitution needs the normal speed just before impact. The speed at the
 * start of the step misses the gravity gained during the step until the
 * bodies meet (up to g dt = 0.16 m/s at 60 Hz, which moved a bounce apex by
 * up to 6 % depending on where in the step the impact fell). So while a point
 * has not yet pushed in this step, its approach speed is taken again after
 * each substep's velocity integration; the value of the substep in which it
 * first pushes is what restitution uses (error at most g h). */
TP_HD void tp_solver_capture_approach(const tp_world *wd, const tp_contact *contacts, tp_contact_row *rows, int n,
                                      int tid, int nth)
{
    for (int i = tid; i < n; i += nth) {
        tp_contact_row *r = &rows[i];
        if (r->max_normal_impulse > 0.0f) continue;
        const tp_contact *c = &contacts[i];
        tp_vec3 dv = tp_sub(tp_point_velocity(wd, c->body_b, tp_v3_load(r->rb)),
                            tp_point_velocity(wd, c->body_a, tp_v3_load(r->ra)));
        r->relative_velocity = tp_dot(dv, tp_v3_load(c->normal));
    }
}

/* What a pass over the constraints does to each one. */
#define TP_PASS_WARM_START 0
#define TP_PASS_SWEEP 1
#define TP_PASS_RESTITUTION 2

typedef struct tp_pass_args {
    float inv_h;
    int use_bias, reverse;      /* sweeps */
    float threshold;            /* restitution */
} tp_pass_args;

/* Constraints order[begin .. end), thread tid of nth taking every nth one. With
 * nth > 1 the range must lie within one color: its constraints share no
 * simulated body, so solving them at once writes what solving them one after
 * the other in key order would. */
TP_HD void tp_solver_sweep_range(int pass, tp_world *wd, tp_solver_work *w, tp_contact *contacts, int begin, int end,
                                 const tp_pass_args *a, int tid, int nth)
{
    for (int i = begin + tid; i < end; i += nth) {
        const tp_constraint *k = &w->cons[w->order[i]];
        if (pass == TP_PASS_WARM_START) tp_warm_start_constraint(wd, w->bodies, k, contacts, w->rows);
        else if (pass == TP_PASS_SWEEP)
            tp_solve_constraint(wd, w->bodies, k, contacts, w->rows, w->push, a->inv_h, a->use_bias, a->reverse);
        else tp_restitution_constraint(wd, w->bodies, k, contacts, w->rows, a->threshold);
    }
}

/* One pass over all constraints in solve order: colors in order (constraints
 * of a color are independent and shared among the threads, with a barrier
 * after each color), then the serial tail by thread 0; in serial mode
 * everything is in the tail, in key order. The sequence of updates each body
 * sees is that of visiting order[0 .. n_cons) one by one. */
TP_HD void tp_solver_pass(int pass, tp_world *wd, tp_solver_work *w, tp_contact *contacts, const tp_pass_args *a,
                          int tid, int nth)
{
    for (int c = 0; c < TP_MAX_COLORS; ++c) {
        int begin = w->color_start[c], end = w->color_start[c + 1];
        if (begin == end) continue; /* the same for every thread: the barrier below stays uniform */
        tp_solver_sweep_range(pass, wd, w, contacts, begin, end, a, tid, nth);
        TP_BARRIER(nth);
    }
    int begin = w->color_start[TP_OVERFLOW_COLOR], end = w->color_start[TP_OVERFLOW_COLOR + 1];
    if (begin < end) {
        if (tid == 0) tp_solver_sweep_range(pass, wd, w, contacts, begin, end, a, 0, 1);
        TP_BARRIER(nth);
    }
}

/* One sweep of the rows (the biased or the relax kind). */
TP_HD void tp_solver_sweep(tp_world *wd, tp_solver_work *w, tp_contact *contacts, float inv_h, int use_bias,
                           int reverse, int tid, int nth)
{
    tp_pass_args a;
    a.inv_h = inv_h;
    a.use_bias = use_bias;
    a.reverse = reverse;
    a.threshold = 0.0f;
    tp_solver_pass(TP_PASS_SWEEP, wd, w, contacts, &a, tid, nth);
}

/* Relax sweeps per substep: half the biased ones, at least one. One sweep (as
 * in Box2D v3) left enough push-out velocity in a ten-box tower to make it
 * jitter; iterations / 2 settles it (docs/solver.md has the measurements). */
TP_HD int tp_relax_sweeps(int iterations) { return iterations / TP_RELAX_DIVISOR > 1 ? iterations / TP_RELAX_DIVISOR : 1; }

/* Add each point's per-substep impulses to its totals. */
TP_HD void tp_solver_accumulate(const tp_contact *contacts, tp_contact_row *rows, int n, int tid, int nth)
{
    for (int i = tid; i < n; i += nth) {
        rows[i].normal_total += contacts[i].normal_impulse;
        rows[i].tangent_total[0] += contacts[i].tangent_impulse[0];
        rows[i].tangent_total[1] += contacts[i].tangent_impulse[1];
    }
}

TP_HD void tp_zero_impulses(tp_contact *contacts, int n, int tid, int nth)
{
    for (int i = tid; i < n; i += nth)
        contacts[i].normal_impulse = contacts[i].tangent_impulse[0] = contacts[i].tangent_impulse[1] = 0.0f;
}

/* Stage 7 of one world: body masses for this step, constraints from the
 * key-sorted contacts, and their colors. Returns the number of constraints. */
TP_HD int tp_solver_color(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w, const tp_solver_params *p)
{
    tp_solver_prepare_bodies(wd, w->bodies);
    int n_cons = tp_build_constraints(wd, contacts, n, w->cons);
    tp_color_constraints(wd, w->cons, n_cons, p->serial, w->body_mask, w->order, w->color_start);
    int fresh = 0; /* points without a warm-start impulse */
    for (int i = 0; i < n; ++i) fresh += contacts[i].normal_impulse == 0.0f;
    *w->cold = p->warm_starting && 2 * fresh > n;
    return n_cons;
}

/* Stages 8-9 of one world, after tp_solver_color, run by threads tid of nth
 * together (the CPU: 0 of 1; CUDA: one thread block per world, every thread
 * calling this with the same arguments but tid): rows, then every substep's
 * velocity integration, warm start, sweeps, position integration and relax,
 * then restitution, with a barrier after each phase. contacts[0..n) sorted by
 * key carry last step's impulses when warm starting (else they are zeroed
 * here). */
TP_HD void tp_solver_substeps_block(tp_world *wd, tp_contact *contacts, int n, tp_solver_work *w,
                                    const tp_solver_params *p, int tid, int nth)
{
    float h = p->dt / (float)p->substeps, inv_h = (float)p->substeps / p->dt;
    for (int i = tid; i < n; i += nth) tp_prepare_row(wd, w->bodies, &contacts[i], &w->rows[i]);
    if (!p->warm_starting) tp_zero_impulses(contacts, n, tid, nth);
    TP_BARRIER(nth);
    tp_pass_args warm;
    warm.inv_h = inv_h;
    warm.use_bias = warm.reverse = 0;
    warm.threshold = 0.0f;
    for (int s = 0; s < p->substeps; ++s) {
        for (int b = tid; b < wd->bodies; b += nth)
            if (w->bodies[b].simulated) tp_integrate_velocity(wd, b, h);
        TP_BARRIER(nth);
        tp_solver_capture_approach(wd, contacts, w->rows, n, tid, nth);
        TP_BARRIER(nth);
        if (p->warm_starting) {
            tp_solver_pass(TP_PASS_WARM_START, wd, w, contacts, &warm, tid, nth);
        } else {
            tp_zero_impulses(contacts, n, tid, nth);
            TP_BARRIER(nth);
        }
        tp_solver_update_separations(wd, contacts, w->rows, n, tid, nth);
        for (int i = tid; i < n; i += nth) w->rows[i].push_impulse = 0.0f;
        for (int k = tid; k < 6 * wd->bodies; k += nth) w->push[k] = 0.0f;
        TP_BARRIER(nth);
        int sweeps = p->iterations * (s == 0 && *w->cold ? TP_COLD_SWEEP_FACTOR : 1);
        for (int it = 0; it < sweeps; ++it) tp_solver_sweep(wd, w, contacts, inv_h, 1, it & 1, tid, nth);
        for (int b = tid; b < wd->bodies; b += nth)
            if (tp_body_moves(wd, b))
                tp_integrate_pose(wd, b, h, tp_add(tp_v3_load(wd->v + 3 * b), tp_v3_load(w->push + 6 * b)),
                                  tp_add(tp_v3_load(wd->w + 3 * b), tp_v3_load(w->push + 6 * b + 3)));
        TP_BARRIER(nth);
        tp_solver_update_separations(wd, contacts, w->rows, n, tid, nth);
        TP_BARRIER(nth);
        for (int it = 0; it < tp_relax_sweeps(p->iterations); ++it) tp_solver_sweep(wd, w, contacts, inv_h, 0, it & 1, tid, nth);
        tp_solver_accumulate(contacts, w->rows, n, tid, nth);
        TP_BARRIER(nth);
    }
    tp_pass_args rest;
    rest.inv_h = inv_h;
    rest.use_bias = rest.reverse = 0;
    rest.threshold = p->restitution_threshold;
    tp_solver_pass(TP_PASS_RESTITUTION, wd, w, contacts, &rest, tid, nth);
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
