/* mover_rows.h - the rows of the movers, solved in the colors with the
 * contact and constraint rows (kernels/constraint_colors.h; kernels/solver.h
 * builds them every substep).
 *
 *   - every substep, after the velocity update, each active mover's rows are
 *     built from the current poses and warm started; a VectorForce or Torque
 *     adds its impulse (force x substep) there instead;
 *   - a row is a velocity row along a direction (linear at attachment0, or
 *     at the centre of mass, or angular) whose target is the velocity to
 *     hold: an AlignPosition's speed toward its goal (distance x gain, capped
 *     at max_velocity; the gain makes a step close 0.3 x responsiveness x dt
 *     of the distance, as seed 004's per-step law does: csrc/mover_model.c),
 *     an AlignOrientation's turn rate (angle x gain, the same cap), a
 *     LinearVelocity's or AngularVelocity's value;
 *   - the rows of one mover share one budget: their accumulated impulses,
 *     as a vector, are scaled back to max_force x substep after each pass
 *     over them (the way Box2D clamps a 2-D friction impulse to its disc);
 *   - a rigid Align mover's rows are equality rows of the constraints' soft
 *     step (kernels/constraint_rows.h): a ball joint (AlignPosition) or a
 *     turn lock (AlignOrientation) to its goal, with no limit;
 *   - against a goal on a moving body (attachment1) the rows hold the
 *     velocity relative to it: with reaction the rows act on both bodies,
 *     else the goal's velocity is added to the target.
 * docs/movers.md gives the rows and the tests' closed forms. */
#ifndef TP_MOVER_ROWS_H
#define TP_MOVER_ROWS_H

#include "constraint_rows.h"
#include "mover.h"

#define TP_MOVER_PI 3.14159265358979f

/* atan(z) for 0 <= z <= 1 (Abramowitz and Stegun 4.4.49, |error| <= 1e-5):
 * the kernels use no libm transcendental functions. */
TP_HD float tp_mover_atan01(float z)
{
    float z2 = z * z;
    return z * (0.9998660f + z2 * (-0.3302995f + z2 * (0.1801410f + z2 * (-0.0851330f + z2 * 0.0208351f))));
}

/* atan2(y, x) for y >= 0, in [0, pi]. */
TP_HD float tp_mover_atan2(float y, float x)
{
    float ax = x < 0.0f ? -x : x;
    if (y == 0.0f && ax == 0.0f) return 0.0f;
    float a = ax >= y ? tp_mover_atan01(y / ax) : 0.5f * TP_MOVER_PI - tp_mover_atan01(ax / y);
    return x >= 0.0f ? a : TP_MOVER_PI - a;
}

/* Attachment (pos, quat) of body b in the world. */
TP_HD tp_vec3 tp_mover_point(const tp_world *wd, int b, const float *pos)
{
    return tp_add(tp_cons_body_p(wd, b), tp_q_rotate(tp_cons_body_q(wd, b), tp_v3_load(pos)));
}
TP_HD tp_quat tp_mover_turn(const tp_world *wd, int b, const float *quat)
{
    return tp_q_mul(tp_cons_body_q(wd, b), tp_q_load(quat));
}

/* The frame a mover's numbers are read in. */
TP_HD tp_quat tp_mover_frame_turn(const tp_world *wd, const tp_mover_model *m)
{
    if (m->relative_to == TP_FRAME_ATTACHMENT0) return tp_mover_turn(wd, m->body0, m->quat0);
    if (m->relative_to == TP_FRAME_ATTACHMENT1) return tp_mover_turn(wd, m->body1, m->quat1);
    return tp_q_identity();
}

/* Velocity of body b's point p and its angular velocity (0 for the world and
 * for bodies the solve leaves alone but kinematic ones). */
TP_HD tp_vec3 tp_mover_point_velocity(const tp_world *wd, const tp_solver_body *sb, int b, tp_vec3 p)
{
    if (b < 0 || !(sb[b].simulated || wd->model[b].type == TP_BODY_KINEMATIC)) return tp_v3(0.0f, 0.0f, 0.0f);
    return tp_add(tp_v3_load(wd->v + 3 * b), tp_cross(tp_v3_load(wd->w + 3 * b), tp_sub(p, tp_cons_com(wd, b))));
}
TP_HD tp_vec3 tp_mover_spin(const tp_world *wd, const tp_solver_body *sb, int b)
{
    if (b < 0 || !(sb[b].simulated || wd->model[b].type == TP_BODY_KINEMATIC)) return tp_v3(0.0f, 0.0f, 0.0f);
    return tp_v3_load(wd->w + 3 * b);
}

/* The speed toward a goal `dist` away: dist x gain, capped at max_velocity. */
TP_HD float tp_mover_approach(const tp_mover_model *m, float dist)
{
    return tp_minf(dist * m->gain, m->max_velocity);
}

/* What the rows of one mover need to know. */
typedef struct tp_mover_rowset {
    int other;          /* the rows' body0 */
    tp_vec3 r0, r1;     /* arms at attachment1's body (reaction) and at the moved body */
    int angular;
} tp_mover_rowset;

/* The largest velocity change a mover's rows may give their body in one
 * substep, m/s: the accumulated impulse is held within this times the row's
 * effective mass, the impulse whose float rounding (x 2^-23) moves the body
 * by 1e-4 m/s, and above any speed a mover's approach law asks of a
 * metre-scale scene (responsiveness 200 crosses 1 m in a 1/240 s substep:
 * 240 m/s). Without it a mover with no force limit pushing a body that a
 * contact or joint holds pushed harder every sweep, the contact pushing back
 * as hard, without bound (docs/movers.md, "Rows"). */
#define TP_MOVER_MAX_SPEED_CHANGE (1.0e-4f / 1.1920929e-7f)

/* Row k along unit direction d: a velocity row toward `speed` (plus the
 * goal's own `goal_speed` when the goal's body is not in the rows), or, rigid,
 * an equality row with position error c. */
TP_HD void tp_mover_row(tp_mover_state *st, const tp_solver_body *sb, const tp_mover_model *m, const tp_mover_rowset *rs,
                        int k, tp_vec3 d, float speed, float goal_speed, float c, float h)
{
    tp_vec3 z = tp_v3(0.0f, 0.0f, 0.0f);
    tp_cons_row *r = &st->rows[k];
    int rigid = (m->flags & TP_MOVER_RIGID) != 0;
    tp_cons_row_set(r, sb, rs->other, m->body0, rs->angular ? z : d, rs->angular ? d : z, rs->r0, rs->r1,
                    rigid ? TP_ROW_EQ : TP_ROW_MOTOR, rigid ? c : speed + (rs->other < 0 ? goal_speed : 0.0f));
    r->max_impulse = tp_minf(m->max_force * h, r->mass * TP_MOVER_MAX_SPEED_CHANGE);
}

/* Rows along the world axes X, Y, Z: approach speed v, the goal's speed gv and
 * the error e (goal minus attachment; its negative is the rigid row's error). */
TP_HD void tp_mover_rows_xyz(tp_mover_state *st, const tp_solver_body *sb, const tp_mover_model *m,
                             const tp_mover_rowset *rs, tp_vec3 v, tp_vec3 gv, tp_vec3 e, float h)
{
    const float *vv = &v.x, *gvv = &gv.x, *ev = &e.x;
    for (int k = 0; k < 3; ++k) {
        tp_vec3 d = tp_v3(k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f);
        tp_mover_row(st, sb, m, rs, k, d, vv[k], gvv[k], -ev[k], h);
    }
}

/* AlignPosition: attachment0 toward the goal point. */
TP_HD void tp_mover_align_position(const tp_world *wd, const tp_solver_body *sb, const tp_mover_model *m,
                                   tp_mover_state *st, const tp_mover_rowset *rs, tp_vec3 pa, float h)
{
    int two = (m->flags & TP_MOVER_TWO_ATTACHMENT) != 0;
    tp_vec3 goal = two ? tp_mover_point(wd, m->body1, m->pos1) : tp_v3_load(st->target);
    tp_vec3 gv = two ? tp_mover_point_velocity(wd, sb, m->body1, goal) : tp_v3(0.0f, 0.0f, 0.0f);
    tp_vec3 e = tp_sub(goal, pa);
    float dist = tp_len(e);
    tp_vec3 v = dist > 0.0f ? tp_scale(e, tp_mover_approach(m, dist) / dist) : e;
    tp_mover_rows_xyz(st, sb, m, rs, v, gv, e, h);
}

/* AlignOrientation: attachment0's turn onto the goal's (its X axis only with
 * primary_axis_only). */
TP_HD void tp_mover_align_orientation(const tp_world *wd, const tp_solver_body *sb, const tp_mover_model *m,
                                      tp_mover_state *st, const tp_mover_rowset *rs, float h)
{
    int two = (m->flags & TP_MOVER_TWO_ATTACHMENT) != 0;
    tp_quat qa = tp_mover_turn(wd, m->body0, m->quat0);
    tp_quat qg = two ? tp_mover_turn(wd, m->body1, m->quat1) : tp_q_load(st->target);
    tp_vec3 gw = two ? tp_mover_spin(wd, sb, m->body1) : tp_v3(0.0f, 0.0f, 0.0f);
    tp_vec3 axis[3];
    float angle[3];
    if (m->flags & TP_MOVER_PRIMARY_AXIS) { /* the X axes: a turn about their common normal */
        tp_vec3 xa = tp_q_rotate(qa, tp_v3(1.0f, 0.0f, 0.0f)), xg = tp_q_rotate(qg, tp_v3(1.0f, 0.0f, 0.0f));
        tp_vec3 c = tp_cross(xa, xg);
        float s = tp_len(c);
        tp_vec3 side = tp_normalize_or(tp_cross(xa, tp_v3(0.0f, 0.0f, 1.0f)), tp_v3(0.0f, 1.0f, 0.0f));
        axis[0] = s > 1e-6f ? tp_scale(c, 1.0f / s) : side; /* any normal of xa when parallel */
        axis[1] = tp_cross(xa, axis[0]);
        angle[0] = tp_mover_atan2(s, tp_dot(xa, xg));
        angle[1] = 0.0f;
        float speed = tp_mover_approach(m, angle[0]);
        tp_mover_row(st, sb, m, rs, 0, axis[0], speed, tp_dot(gw, axis[0]), -angle[0], h);
        tp_mover_row(st, sb, m, rs, 1, axis[1], 0.0f, tp_dot(gw, axis[1]), 0.0f, h);
        return;
    }
    tp_quat qe = tp_q_mul(qg, tp_q_conj(qa)); /* the world turn from attachment0 to the goal */
    if (qe.w < 0.0f) qe = tp_q(-qe.x, -qe.y, -qe.z, -qe.w);
    tp_vec3 u = tp_v3(qe.x, qe.y, qe.z);
    float s = tp_len(u), a = 2.0f * tp_mover_atan2(s, qe.w);
    tp_vec3 phi = s > 0.0f ? tp_scale(u, a / s) : u; /* rotation vector, rad */
    tp_vec3 om = a > 0.0f ? tp_scale(phi, tp_mover_approach(m, a) / a) : phi;
    tp_mover_rows_xyz(st, sb, m, rs, om, gw, phi, h);
}

/* LinearVelocity and AngularVelocity: the target held along the frame's
 * directions (a line's one, a plane's two, a vector's three). */
TP_HD void tp_mover_hold_velocity(const tp_world *wd, const tp_solver_body *sb, const tp_mover_model *m,
                                  tp_mover_state *st, const tp_mover_rowset *rs, tp_vec3 pa, float h)
{
    tp_quat f = tp_mover_frame_turn(wd, m);
    tp_vec3 d[3];
    int n = 3;
    d[0] = tp_q_rotate(f, tp_v3(1.0f, 0.0f, 0.0f));
    d[1] = tp_q_rotate(f, tp_v3(0.0f, 1.0f, 0.0f));
    d[2] = tp_q_rotate(f, tp_v3(0.0f, 0.0f, 1.0f));
    if (m->type == TP_MOVER_LINEAR_VELOCITY && m->velocity_mode == TP_VELOCITY_LINE) {
        n = 1;
        d[0] = tp_q_rotate(f, tp_v3_load(m->line));
    } else if (m->type == TP_MOVER_LINEAR_VELOCITY && m->velocity_mode == TP_VELOCITY_PLANE) {
        n = 2;
        d[0] = tp_q_rotate(f, tp_v3_load(m->tangent0));
        d[1] = tp_q_rotate(f, tp_v3_load(m->tangent1));
    }
    int rel = m->relative_to == TP_FRAME_ATTACHMENT1;
    tp_vec3 g = tp_v3(0.0f, 0.0f, 0.0f);
    if (rel && rs->angular) g = tp_mover_spin(wd, sb, m->body1);
    else if (rel) g = tp_mover_point_velocity(wd, sb, m->body1, tp_mover_point(wd, m->body1, m->pos1));
    for (int k = 0; k < n; ++k) tp_mover_row(st, sb, m, rs, k, d[k], st->target[k], tp_dot(g, d[k]), 0.0f, h);
    (void)pa;
}

/* VectorForce and Torque: their impulse over substep h, at once. */
TP_HD void tp_mover_push(tp_world *wd, const tp_solver_body *sb, const tp_mover_model *m, tp_mover_state *st,
                         tp_vec3 r1, float h)
{
    int b = m->body0;
    tp_vec3 f = tp_q_rotate(tp_mover_frame_turn(wd, m), tp_v3_load(st->target));
    tp_vec3 dw = m->type == TP_MOVER_TORQUE ? f : tp_cross(r1, f);
    if (m->type == TP_MOVER_VECTOR_FORCE)
        tp_v3_store(wd->v + 3 * b, tp_mad(tp_v3_load(wd->v + 3 * b), f, h * sb[b].inv_m));
    tp_v3_store(wd->w + 3 * b, tp_mad(tp_v3_load(wd->w + 3 * b), tp_m3_mul_v(sb[b].inv_i, dw), h));
    for (int c = 0; c < 3; ++c) st->fsum[c] += (&f.x)[c] * h;
}

/* A mover's rows (or push) for this substep, from the poses and velocities
 * after its velocity update. */
TP_HD void tp_mover_build(tp_world *wd, const tp_solver_body *sb, const tp_mover_model *m, tp_mover_state *st, float h)
{
    for (int k = 0; k < TP_MOVER_ROWS; ++k) st->rows[k].kind = TP_ROW_OFF;
    st->pushing = 0;
    if (!tp_mover_active(wd, m, st) || !tp_cons_moves(sb, m->body0)) return;
    st->pushing = 1;
    int b0 = m->body0;
    tp_mover_rowset rs;
    int two_bodies = m->type != TP_MOVER_VECTOR_FORCE && m->type != TP_MOVER_TORQUE && tp_mover_uses_body1(m);
    rs.other = two_bodies && (m->flags & TP_MOVER_REACTION) && tp_cons_moves(sb, m->body1) ? m->body1 : -1;
    rs.angular = m->type == TP_MOVER_ALIGN_ORIENTATION || m->type == TP_MOVER_ANGULAR_VELOCITY ||
                 m->type == TP_MOVER_TORQUE;
    tp_vec3 pa = tp_mover_point(wd, b0, m->pos0);
    rs.r1 = (m->flags & TP_MOVER_AT_COM) ? tp_v3(0.0f, 0.0f, 0.0f) : tp_sub(pa, tp_cons_com(wd, b0));
    rs.r0 = rs.other >= 0 ? tp_sub(tp_mover_point(wd, rs.other, m->pos1), tp_cons_com(wd, rs.other))
                          : tp_v3(0.0f, 0.0f, 0.0f);
    st->other = rs.other;
    switch (m->type) {
    case TP_MOVER_ALIGN_POSITION: tp_mover_align_position(wd, sb, m, st, &rs, pa, h); break;
    case TP_MOVER_ALIGN_ORIENTATION: tp_mover_align_orientation(wd, sb, m, st, &rs, h); break;
    case TP_MOVER_LINEAR_VELOCITY:
    case TP_MOVER_ANGULAR_VELOCITY: tp_mover_hold_velocity(wd, sb, m, st, &rs, pa, h); break;
    default: tp_mover_push(wd, sb, m, st, rs.r1, h); break;
    }
}

/* ---------------------------------------------------------------- the world's movers
 * Built, warm started and summed in mover order by one thread (lane 0 on the
 * device); solved in the colors of the contact constraints
 * (kernels/constraint_colors.h). */

TP_HD void tp_mover_begin_step(tp_world *wd)
{
    for (int k = 0; k < wd->mover_count; ++k)
        for (int c = 0; c < 3; ++c) wd->mover_state[k].fsum[c] = 0.0f;
}

/* A substep's rows, after its velocity update: built, then warm started. */
TP_HD void tp_mover_prepare(tp_world *wd, const tp_solver_body *sb, float h)
{
    for (int k = 0; k < wd->mover_count; ++k) {
        const tp_mover_model *m = &wd->movers[k];
        tp_mover_state *st = &wd->mover_state[k];
        tp_mover_build(wd, sb, m, st, h);
        for (int i = 0; i < TP_MOVER_ROWS; ++i) {
            if (st->rows[i].kind == TP_ROW_OFF) st->impulse[i] = 0.0f;
            else tp_cons_row_apply(wd, sb, st->other, m->body0, &st->rows[i], st->impulse[i]);
        }
    }
}

/* One pass over a mover's velocity rows; after each row's update their
 * impulses, as a vector, are held within max_force x h and only the change
 * of each is applied (never an unclamped impulse: a far goal asks for far
 * more than the budget, and applying it and taking it back loses the
 * velocity's low bits). */
TP_HD void tp_mover_solve_motors(tp_world *wd, const tp_solver_body *sb, int b0, tp_mover_state *st)
{
    for (int i = 0; i < TP_MOVER_ROWS; ++i) {
        tp_cons_row *r = &st->rows[i];
        if (r->kind != TP_ROW_MOTOR) continue;
        float acc[TP_MOVER_ROWS], n2 = 0.0f, max = r->max_impulse;
        for (int j = 0; j < TP_MOVER_ROWS; ++j) acc[j] = st->impulse[j];
        acc[i] -= r->mass * (tp_cons_row_speed(wd, st->other, b0, r) - r->c);
        for (int j = 0; j < TP_MOVER_ROWS; ++j) n2 += acc[j] * acc[j];
        float s = n2 > max * max ? max / sqrtf(n2) : 1.0f;
        for (int j = 0; j < TP_MOVER_ROWS; ++j) {
            if (st->rows[j].kind != TP_ROW_MOTOR) continue;
            float now = s < 1.0f ? acc[j] * s : acc[j];
            if (now != st->impulse[j]) tp_cons_row_apply(wd, sb, st->other, b0, &st->rows[j], now - st->impulse[j]);
            st->impulse[j] = now;
        }
    }
}

/* One pass over the rows of mover k (one with rows: the colors hold only
 * those, kernels/constraint_colors.h). */
TP_HD void tp_mover_solve(tp_world *wd, const tp_solver_body *sb, int k, float inv_h, const tp_row_soft *soft,
                          int use_bias)
{
    tp_mover_state *st = &wd->mover_state[k];
    int b0 = wd->movers[k].body0;
    if (wd->movers[k].flags & TP_MOVER_RIGID) {
        for (int i = 0; i < TP_MOVER_ROWS; ++i)
            if (st->rows[i].kind != TP_ROW_OFF)
                tp_cons_solve_row(wd, sb, st->other, b0, &st->rows[i], &st->impulse[i], inv_h, soft, use_bias);
    } else {
        tp_mover_solve_motors(wd, sb, b0, st);
    }
}

/* End of a substep: the rows' push on the moved body summed for the read-out. */
TP_HD void tp_mover_end_substep(tp_world *wd)
{
    for (int k = 0; k < wd->mover_count; ++k) {
        tp_mover_state *st = &wd->mover_state[k];
        for (int i = 0; i < TP_MOVER_ROWS; ++i) {
            const tp_cons_row *r = &st->rows[i];
            if (r->kind == TP_ROW_OFF) continue;
            int angular = r->lin[0] == 0.0f && r->lin[1] == 0.0f && r->lin[2] == 0.0f;
            for (int c = 0; c < 3; ++c) st->fsum[c] += (angular ? r->j1[c] : r->lin[c]) * st->impulse[i];
        }
    }
}

TP_HD void tp_mover_end_step(tp_world *wd, float dt)
{
    for (int k = 0; k < wd->mover_count; ++k) {
        tp_mover_state *st = &wd->mover_state[k];
        st->force = tp_len(tp_v3_load(st->fsum)) / dt;
    }
}

#endif
