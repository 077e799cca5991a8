/* contact_rows.h - the `solve` stage's start: the rows of the contact solver, built once per
 * step from the key-sorted contact points (Catto, "Iterative Dynamics with
 * Temporal Coherence", GDC 2005): per point the arms from each centre of mass,
 * a tangent basis, the effective masses of the normal and the two friction
 * rows; per body the inverse mass and world inverse inertia of the step. Also
 * the kinematics every later solver room uses (point velocities, impulses
 * applied to a pair of bodies) and the separation update of each substep.
 *
 * Only simulated bodies (awake dynamic) are written. Static, kinematic and
 * sleeping bodies enter a row with infinite mass and their own velocity. */
#ifndef TP_CONTACT_ROWS_H
#define TP_CONTACT_ROWS_H

#include "row_law.h"
#include "solver_scratch.h"

/* A deterministic orthonormal tangent basis for unit normal n (Box2D's and
 * Bullet's choice: the larger of x or y goes into the first tangent). */
TP_HD void tp_tangent_basis(tp_vec3 n, tp_vec3 *t1, tp_vec3 *t2)
{
    if (tp_absf(n.x) >= 0.57735f) *t1 = tp_normalize_or(tp_v3(n.y, -n.x, 0.0f), tp_v3(0.0f, 1.0f, 0.0f));
    else *t1 = tp_normalize_or(tp_v3(0.0f, n.z, -n.y), tp_v3(1.0f, 0.0f, 0.0f));
    *t2 = tp_cross(n, *t1);
}

/* World position of body b's centre of mass (tp_body_com_local: a link's per-world offset included). */
TP_HD tp_vec3 tp_body_com(const tp_world *wd, int b)
{
    return tp_add(tp_v3_load(wd->pos + 3 * b), tp_q_rotate(tp_q_load(wd->quat + 4 * b), tp_body_com_local(wd, b)));
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

/* Normal speed of point i of a row (B relative to A, < 0 approaching). */
TP_HD float tp_row_normal_speed(const tp_world *wd, const tp_contact *c, const tp_contact_row *r)
{
    tp_vec3 dv = tp_sub(tp_point_velocity(wd, c->body_b, tp_v3_load(r->rb)),
                        tp_point_velocity(wd, c->body_a, tp_v3_load(r->ra)));
    return tp_dot(dv, tp_v3_load(c->normal));
}

/* Effective mass of a row with direction d: 1 / (1/m_A + 1/m_B + ca.wa + cb.wb)
 * with ca = ra x d and wa = I_A^-1 ca its angular response (likewise for B);
 * 0 if both are fixed. */
TP_HD float tp_row_mass(const tp_solver_body *A, const tp_solver_body *B, tp_vec3 ca, tp_vec3 wa, tp_vec3 cb, tp_vec3 wb)
{
    float k = A->inv_m + B->inv_m + tp_dot(ca, wa) + tp_dot(cb, wb);
    return k > 0.0f ? 1.0f / k : 0.0f;
}

/* A row of direction d at arms ra, rb: its angular responses I^-1 (r x d)
 * into wa, wb (3 floats each) and its effective mass (tp_row_mass). */
TP_HD float tp_prepare_direction(const tp_solver_body *A, const tp_solver_body *B, tp_vec3 ra, tp_vec3 rb, tp_vec3 d,
                                 float *wa, float *wb)
{
    tp_vec3 ca = tp_cross(ra, d), cb = tp_cross(rb, d);
    tp_vec3 a = tp_m3_mul_v(A->inv_i, ca), b = tp_m3_mul_v(B->inv_i, cb);
    tp_v3_store(wa, a);
    tp_v3_store(wb, b);
    return tp_row_mass(A, B, ca, a, cb, b);
}

/* Effective mass of a row with direction d when only one body moves: its
 * inverse mass, arm r and angular response dw = I^-1 (r x d). 0 if fixed. */
TP_HD float tp_row_mass_one(float inv_m, tp_vec3 r, tp_vec3 d, tp_vec3 dw)
{
    float k = inv_m + tp_dot(tp_cross(r, d), dw);
    return k > 0.0f ? 1.0f / k : 0.0f;
}

/* Which body of a row a sweep holds fixed (kernels/shock.h: in the shock
 * pass the supporting body of a constraint takes no impulse). */
#define TP_HOLD_NONE 0
#define TP_HOLD_A 1
#define TP_HOLD_B 2

/* Apply impulse p (linear part) to A (negated) and B, whose angular velocity
 * changes are dwa and dwb (the row's responses times the impulse), by the row
 * law (tp_row_take, tp_row_give); a held body (the shock pass) takes none. v
 * and w are [bodies][stride] arrays: the velocities (stride 3, v and w apart)
 * or the pseudo velocities of the split impulse (stride 6, w after v). */
TP_HD void tp_apply_impulse_held(float *v, float *w, int stride, const tp_solver_body *sb, int a, int b, tp_vec3 p,
                                 tp_vec3 dwa, tp_vec3 dwb, int hold)
{
    const tp_solver_body *A = &sb[a], *B = &sb[b];
    if (A->simulated && hold != TP_HOLD_A) {
        tp_vec3 va = tp_v3_load(v + stride * a), wa = tp_v3_load(w + stride * a);
        tp_row_take(&va, &wa, 1, A->inv_m, p, dwa);
        tp_v3_store(v + stride * a, va);
        tp_v3_store(w + stride * a, wa);
    }
    if (B->simulated && hold != TP_HOLD_B) {
        tp_vec3 vb = tp_v3_load(v + stride * b), wb = tp_v3_load(w + stride * b);
        tp_row_give(&vb, &wb, 1, B->inv_m, p, dwb);
        tp_v3_store(v + stride * b, vb);
        tp_v3_store(w + stride * b, wb);
    }
}

/* As tp_apply_impulse_held with neither body held. */
TP_HD void tp_apply_impulse_dw(float *v, float *w, int stride, const tp_solver_body *sb, int a, int b, tp_vec3 p,
                               tp_vec3 dwa, tp_vec3 dwb)
{
    tp_apply_impulse_held(v, w, stride, sb, a, b, p, dwa, dwb, TP_HOLD_NONE);
}

/* Pseudo velocity of the point at arm r of body b. */
TP_HD tp_vec3 tp_push_velocity(const float *push, int b, tp_vec3 r)
{
    return tp_add(tp_v3_load(push + 6 * b), tp_cross(tp_v3_load(push + 6 * b + 3), r));
}

/* Inverse mass, world inverse inertia and centre of mass of body b for this step. */
TP_HD void tp_solver_prepare_bodies_one(const tp_world *wd, tp_solver_body *sb, int b)
{
    const float zero6[6] = {0, 0, 0, 0, 0, 0};
    int sim = tp_body_is_simulated(wd, b);
    sb[b].simulated = sim;
    sb[b].inv_m = sim ? wd->inv_mass[b] : 0.0f;
    sb[b].inv_i = tp_inv_inertia_world(tp_q_load(wd->quat + 4 * b), sim ? wd->inv_inertia + 6 * b : zero6);
    tp_v3_store(sb[b].com, tp_body_com(wd, b)); /* once per body, not once per contact point */
}

/* ... of every body. */
TP_HD void tp_solver_prepare_bodies(const tp_world *wd, tp_solver_body *sb)
{
    for (int b = 0; b < wd->bodies; ++b) tp_solver_prepare_bodies_one(wd, sb, b);
}

/* Arms, tangent basis, effective masses and normal speed of one point. */
TP_HD void tp_prepare_row(const tp_world *wd, const tp_solver_body *sb, const tp_contact *c, tp_contact_row *r)
{
    int a = c->body_a, b = c->body_b;
    tp_vec3 n = tp_v3_load(c->normal);
    tp_vec3 pa = tp_body_point(wd, a, c->local_a), pb = tp_body_point(wd, b, c->local_b);
    tp_vec3 mid = tp_scale(tp_add(pa, pb), 0.5f);
    tp_vec3 ra = tp_sub(mid, tp_v3_load(sb[a].com)), rb = tp_sub(mid, tp_v3_load(sb[b].com));
    tp_vec3 t1, t2;
    tp_tangent_basis(n, &t1, &t2);
    tp_v3_store(r->ra, ra);
    tp_v3_store(r->rb, rb);
    tp_v3_store(r->t1, t1);
    tp_v3_store(r->t2, t2);
    r->normal_mass = tp_prepare_direction(&sb[a], &sb[b], ra, rb, n, r->wa_n, r->wb_n);
    r->tangent_mass[0] = tp_prepare_direction(&sb[a], &sb[b], ra, rb, t1, r->wa_t1, r->wb_t1);
    r->tangent_mass[1] = tp_prepare_direction(&sb[a], &sb[b], ra, rb, t2, r->wa_t2, r->wb_t2);
    r->approach_start = r->approach = tp_row_normal_speed(wd, c, r);
    r->bounce_speed = 0.0f;
    r->fresh = 1;
    r->max_normal_impulse = 0.0f;
    r->push_impulse = 0.0f; /* the first substep's; tp_solver_end_substep zeroes it for the others */
    r->normal_total = r->tangent_total[0] = r->tangent_total[1] = 0.0f;
}

/* Separation of every point at the current poses. Poses change only in the
 * position integration of a substep, so all sweeps between two integrations
 * see the same separation: evaluating it once after each integration (and at
 * a step's start; kernels/solver.h) gives the bits that evaluating it in every
 * sweep would, at a fraction of the cost (two quaternion rotations per point
 * per sweep were most of the solver's time).
 *
 * Here and in the other solver rooms, (tid, nth) share a per-point or per-body
 * loop among the nth threads of a CUDA block (thread tid takes tid, tid + nth,
 * ...); the CPU passes (0, 1), which is the plain loop. Each item is computed
 * by one thread from data no other thread of the phase writes, so the bits do
 * not depend on nth. */
TP_HD void tp_solver_update_separations(const tp_world *wd, const tp_contact *contacts, tp_contact_row *rows, int n,
                                        int tid, int nth)
{
    for (int i = tid; i < n; i += nth) {
        const tp_contact *c = &contacts[i];
        tp_vec3 d = tp_sub(tp_body_point(wd, c->body_b, c->local_b), tp_body_point(wd, c->body_a, c->local_a));
        rows[i].separation = tp_dot(d, tp_v3_load(c->normal));
    }
}

/* Point c's friction impulses become (l1, l2) (tp_row_friction's); the
 * changes from the stored ones into (d1, d2). */
TP_HD void tp_friction_store(tp_contact *c, float l1, float l2, float *d1, float *d2)
{
    *d1 = l1 - c->tangent_impulse[0];
    *d2 = l2 - c->tangent_impulse[1];
    c->tangent_impulse[0] = l1;
    c->tangent_impulse[1] = l2;
}

#endif
