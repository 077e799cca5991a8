/* constraint_rows.h - the rows of the constraints between two bodies, solved
 * with the contact rows (in their colors: kernels/constraint_colors.h;
 * kernels/solver.h builds them every substep).
 *
 *   - every substep, after the velocity update, each constraint's rows are
 *     built from the current poses (attachment frames in world), as TGS
 *     evaluates its rows at the substep's poses (Macklin et al., "Small Steps
 *     in Physics Simulation", SCA 2019); the accumulated impulses are warm
 *     started into them;
 *   - an equality row is soft in the biased sweeps and rigid in the others,
 *     Box2D v3's soft step (Catto, "Solver2D", 2024; b2MakeSoft): a damped
 *     spring of TP_JOINT_HERTZ (at most a quarter of the substep rate) and
 *     damping ratio TP_JOINT_DAMPING_RATIO pulls the error out;
 *   - an inequality row (limits, a rope) is speculative while apart, as a
 *     contact is, and the unbiased sweeps leave it alone until a biased sweep
 *     has pushed on it (so an impact is met whole in one substep); a rope that snaps taut in a substep with its ends parting
 *     faster than TP_ROPE_NO_BOUNCE_SPEED aims at restitution times that speed;
 *   - a spring is Catto's soft constraint with the user's stiffness and
 *     damping ("Soft Constraints", GDC 2011): one implicit Euler step of the
 *     damped spring per substep, solved in the biased sweeps only;
 *   - motors and servos are velocity rows with their impulse bounded by
 *     max_force times the substep.
 * docs/constraints.md gives the rows of every type. */
#ifndef TP_CONSTRAINT_ROWS_H
#define TP_CONSTRAINT_ROWS_H

#include "constraint.h"
#include "integrate.h"
#include "row_law.h"
#include "solver_scratch.h"

#ifndef TP_JOINT_HERTZ
#define TP_JOINT_HERTZ 60.0f
#endif
#ifndef TP_JOINT_DAMPING_RATIO
#define TP_JOINT_DAMPING_RATIO 2.0f
#endif
#define TP_CONS_PI 3.14159265358979f

/* The equality rows' softness for substep h (kernels/row_law.h's soft step). */
TP_HD tp_row_soft tp_cons_make_soft(float h)
{
    return tp_row_make_soft(tp_minf(TP_JOINT_HERTZ, 0.25f / h), TP_JOINT_DAMPING_RATIO, h);
}

/* Body b's pose and centre of mass (the world for b = -1: identity at 0). */
TP_HD tp_quat tp_cons_body_q(const tp_world *wd, int b) { return b < 0 ? tp_q_identity() : tp_q_load(wd->quat + 4 * b); }
TP_HD tp_vec3 tp_cons_body_p(const tp_world *wd, int b) { return b < 0 ? tp_v3(0.0f, 0.0f, 0.0f) : tp_v3_load(wd->pos + 3 * b); }
TP_HD tp_vec3 tp_cons_com(const tp_world *wd, int b)
{
    if (b < 0) return tp_v3(0.0f, 0.0f, 0.0f);
    return tp_add(tp_cons_body_p(wd, b), tp_q_rotate(tp_cons_body_q(wd, b), tp_body_com_local(wd, b)));
}
TP_HD int tp_cons_moves(const tp_solver_body *sb, int b) { return b >= 0 && sb[b].simulated; }

/* An angle in (-pi, pi]. */
TP_HD float tp_cons_wrap(float a)
{
    while (a > TP_CONS_PI) a -= 2.0f * TP_CONS_PI;
    while (a <= -TP_CONS_PI) a += 2.0f * TP_CONS_PI;
    return a;
}

/* Row r along linear direction lin at arms r0, r1 plus angular axis ang. */
TP_HD void tp_cons_row_set(tp_cons_row *r, const tp_solver_body *sb, int b0, int b1, tp_vec3 lin, tp_vec3 ang,
                           tp_vec3 r0, tp_vec3 r1, int kind, float c)
{
    tp_vec3 j0 = tp_sub(tp_neg(tp_cross(r0, lin)), ang), j1 = tp_add(tp_cross(r1, lin), ang);
    tp_vec3 iw0 = tp_v3(0.0f, 0.0f, 0.0f), iw1 = iw0;
    float k = 0.0f;
    if (tp_cons_moves(sb, b0)) {
        iw0 = tp_m3_mul_v(sb[b0].inv_i, j0);
        k += sb[b0].inv_m * tp_dot(lin, lin) + tp_dot(j0, iw0);
    }
    if (tp_cons_moves(sb, b1)) {
        iw1 = tp_m3_mul_v(sb[b1].inv_i, j1);
        k += sb[b1].inv_m * tp_dot(lin, lin) + tp_dot(j1, iw1);
    }
    tp_v3_store(r->lin, lin);
    tp_v3_store(r->j0, j0);
    tp_v3_store(r->j1, j1);
    tp_v3_store(r->iw0, iw0);
    tp_v3_store(r->iw1, iw1);
    r->mass = k > 0.0f ? 1.0f / k : 0.0f;
    r->kind = r->mass > 0.0f ? kind : TP_ROW_OFF;
    r->c = c;
    r->bounce = 0.0f;
    r->rate = 0.0f;
    r->max_impulse = 0.0f;
    r->gamma = r->beta = 0.0f;
}

TP_HD void tp_cons_row_apply(tp_world *wd, const tp_solver_body *sb, int b0, int b1, const tp_cons_row *r, float l)
{
    tp_vec3 lin = tp_v3_load(r->lin);
    if (tp_cons_moves(sb, b0)) {
        tp_v3_store(wd->v + 3 * b0, tp_mad(tp_v3_load(wd->v + 3 * b0), lin, -l * sb[b0].inv_m));
        tp_v3_store(wd->w + 3 * b0, tp_mad(tp_v3_load(wd->w + 3 * b0), tp_v3_load(r->iw0), l));
    }
    if (tp_cons_moves(sb, b1)) {
        tp_v3_store(wd->v + 3 * b1, tp_mad(tp_v3_load(wd->v + 3 * b1), lin, l * sb[b1].inv_m));
        tp_v3_store(wd->w + 3 * b1, tp_mad(tp_v3_load(wd->w + 3 * b1), tp_v3_load(r->iw1), l));
    }
}

/* Three rows locking the turn of frame qb onto frame qa (world axes). */
TP_HD void tp_cons_lock_turn(tp_cons_row *rows, const tp_solver_body *sb, int b0, int b1, tp_quat qa, tp_quat qb)
{
    tp_quat e = tp_q_mul(qb, tp_q_conj(qa));
    float s = e.w < 0.0f ? -2.0f : 2.0f;
    tp_vec3 z = tp_v3(0.0f, 0.0f, 0.0f);
    tp_cons_row_set(&rows[0], sb, b0, b1, z, tp_v3(1.0f, 0.0f, 0.0f), z, z, TP_ROW_EQ, s * e.x);
    tp_cons_row_set(&rows[1], sb, b0, b1, z, tp_v3(0.0f, 1.0f, 0.0f), z, z, TP_ROW_EQ, s * e.y);
    tp_cons_row_set(&rows[2], sb, b0, b1, z, tp_v3(0.0f, 0.0f, 1.0f), z, z, TP_ROW_EQ, s * e.z);
}

/* Motor or servo (row 5) and limits (rows 6, 7) of a hinge or slider whose
 * value is x along direction lin / axis ang at arms r0, r1. */
TP_HD void tp_cons_drive_rows(tp_cons_row *rows, const tp_solver_body *sb, const tp_cons_model *m, float x, float err,
                              tp_vec3 lin, tp_vec3 ang, tp_vec3 r0, tp_vec3 r1, float h)
{
    if (m->actuator != TP_CONS_FREE) {
        float target = m->actuator == TP_CONS_MOTOR ? m->velocity : tp_clampf(err / h, -m->speed, m->speed);
        tp_cons_row_set(&rows[5], sb, m->body0, m->body1, lin, ang, r0, r1, TP_ROW_MOTOR, target);
        rows[5].max_impulse = m->max_force * h;
    }
    if (m->limits) {
        tp_cons_row_set(&rows[6], sb, m->body0, m->body1, lin, ang, r0, r1, TP_ROW_INEQ, x - m->lower);
        tp_cons_row_set(&rows[7], sb, m->body0, m->body1, tp_neg(lin), tp_neg(ang), r0, r1, TP_ROW_INEQ, m->upper - x);
    }
}

/* A ball socket's limits (rows 3-5): attachment1's X axis within cone_angle
 * of attachment0's (the swing), and attachment1's twist about it from
 * attachment0 (the hinge's angle formula) within [twist_lower, twist_upper],
 * about the axes' bisector (the twist axis of a swing-twist split). */
TP_HD void tp_cons_ball_limits(tp_cons_row *rows, const tp_solver_body *sb, const tp_cons_model *m, tp_quat qa,
                               tp_quat qb, tp_vec3 ax, tp_vec3 ay)
{
    int b0 = m->body0, b1 = m->body1;
    tp_vec3 bx = tp_q_rotate(qb, tp_v3(1.0f, 0.0f, 0.0f)), z = tp_v3(0.0f, 0.0f, 0.0f);
    if (m->cone) {
        tp_vec3 s = tp_cross(ax, bx);
        float sl = tp_len(s), swing = atan2f(sl, tp_dot(ax, bx));
        tp_vec3 n = sl > 1e-6f ? tp_scale(s, 1.0f / sl) : ay; /* the swing grows along n */
        tp_cons_row_set(&rows[3], sb, b0, b1, z, tp_neg(n), z, z, TP_ROW_INEQ, m->cone_angle - swing);
    }
    if (m->twist) {
        tp_quat rel = tp_q_mul(tp_q_conj(qa), qb);
        float tw = tp_cons_wrap(2.0f * atan2f(rel.x, rel.w));
        tp_vec3 t = tp_add(ax, bx);
        float tl = tp_len(t);
        t = tl > 1e-6f ? tp_scale(t, 1.0f / tl) : ax;
        tp_cons_row_set(&rows[4], sb, b0, b1, z, t, z, z, TP_ROW_INEQ, tw - m->twist_lower);
        tp_cons_row_set(&rows[5], sb, b0, b1, z, tp_neg(t), z, z, TP_ROW_INEQ, m->twist_upper - tw);
    }
}

/* A constraint's read-out at the current poses: a hinge's angle, a slider's
 * position, the distance between the attachments (0 for a weld). */
TP_HD float tp_cons_measure(const tp_world *wd, const tp_cons_model *m)
{
    int b0 = m->body0, b1 = m->body1;
    tp_quat q0 = tp_cons_body_q(wd, b0), q1 = tp_cons_body_q(wd, b1);
    tp_quat qa = tp_q_mul(q0, tp_q_load(m->quat0)), qb = tp_q_mul(q1, tp_q_load(m->quat1));
    tp_vec3 pa = tp_add(tp_cons_body_p(wd, b0), tp_q_rotate(q0, tp_v3_load(m->pos0)));
    tp_vec3 pb = tp_add(tp_cons_body_p(wd, b1), tp_q_rotate(q1, tp_v3_load(m->pos1)));
    switch (m->type) {
    case TP_CONSTRAINT_WELD: return 0.0f;
    case TP_CONSTRAINT_HINGE: {
        tp_quat rel = tp_q_mul(tp_q_conj(qa), qb);
        return tp_cons_wrap(2.0f * atan2f(rel.x, rel.w));
    }
    case TP_CONSTRAINT_PRISMATIC: return tp_dot(tp_q_rotate(qa, tp_v3(1.0f, 0.0f, 0.0f)), tp_sub(pb, pa));
    default: return tp_len(tp_sub(pb, pa));
    }
}

/* The rows of one constraint at the current poses and velocities (after the
 * substep's velocity update); st->value gets its angle, position or length. */
TP_HD void tp_cons_build(const tp_world *wd, const tp_solver_body *sb, const tp_cons_model *m, tp_cons_state *st,
                         float h)
{
    int b0 = m->body0, b1 = m->body1;
    tp_cons_row *rows = st->rows;
    for (int i = 0; i < TP_CONS_ROWS; ++i) rows[i].kind = TP_ROW_OFF;
    tp_quat q0 = tp_cons_body_q(wd, b0), q1 = tp_cons_body_q(wd, b1);
    tp_quat qa = tp_q_mul(q0, tp_q_load(m->quat0)), qb = tp_q_mul(q1, tp_q_load(m->quat1));
    tp_vec3 pa = tp_add(tp_cons_body_p(wd, b0), tp_q_rotate(q0, tp_v3_load(m->pos0)));
    tp_vec3 pb = tp_add(tp_cons_body_p(wd, b1), tp_q_rotate(q1, tp_v3_load(m->pos1)));
    tp_vec3 ra = tp_sub(pa, tp_cons_com(wd, b0)), rb = tp_sub(pb, tp_cons_com(wd, b1)), d = tp_sub(pb, pa);
    tp_vec3 ax = tp_q_rotate(qa, tp_v3(1.0f, 0.0f, 0.0f)), ay = tp_q_rotate(qa, tp_v3(0.0f, 1.0f, 0.0f));
    tp_vec3 az = tp_q_rotate(qa, tp_v3(0.0f, 0.0f, 1.0f)), z = tp_v3(0.0f, 0.0f, 0.0f);
    st->value = 0.0f;
    switch (m->type) {
    case TP_CONSTRAINT_WELD:
    case TP_CONSTRAINT_HINGE:
    case TP_CONSTRAINT_BALL:
        tp_cons_row_set(&rows[0], sb, b0, b1, tp_v3(1.0f, 0.0f, 0.0f), z, ra, rb, TP_ROW_EQ, d.x);
        tp_cons_row_set(&rows[1], sb, b0, b1, tp_v3(0.0f, 1.0f, 0.0f), z, ra, rb, TP_ROW_EQ, d.y);
        tp_cons_row_set(&rows[2], sb, b0, b1, tp_v3(0.0f, 0.0f, 1.0f), z, ra, rb, TP_ROW_EQ, d.z);
        if (m->type == TP_CONSTRAINT_WELD) tp_cons_lock_turn(rows + 3, sb, b0, b1, qa, qb);
        if (m->type == TP_CONSTRAINT_BALL) {
            st->value = tp_len(d);
            tp_cons_ball_limits(rows, sb, m, qa, qb, ax, ay);
        }
        if (m->type == TP_CONSTRAINT_HINGE) {
            tp_vec3 e = tp_cross(ax, tp_q_rotate(qb, tp_v3(1.0f, 0.0f, 0.0f)));
            tp_cons_row_set(&rows[3], sb, b0, b1, z, ay, z, z, TP_ROW_EQ, tp_dot(ay, e));
            tp_cons_row_set(&rows[4], sb, b0, b1, z, az, z, z, TP_ROW_EQ, tp_dot(az, e));
            tp_quat rel = tp_q_mul(tp_q_conj(qa), qb);
            float angle = tp_cons_wrap(2.0f * atan2f(rel.x, rel.w));
            st->value = angle;
            tp_cons_drive_rows(rows, sb, m, angle, tp_cons_wrap(m->target - angle), z, ax, z, z, h);
        }
        break;
    case TP_CONSTRAINT_PRISMATIC: {
        tp_vec3 rc = tp_sub(pb, tp_cons_com(wd, b0)); /* body0's point where attachment1 is */
        tp_cons_row_set(&rows[0], sb, b0, b1, ay, z, rc, rb, TP_ROW_EQ, tp_dot(ay, d));
        tp_cons_row_set(&rows[1], sb, b0, b1, az, z, rc, rb, TP_ROW_EQ, tp_dot(az, d));
        tp_cons_lock_turn(rows + 2, sb, b0, b1, qa, qb);
        float x = tp_dot(ax, d);
        st->value = x;
        tp_cons_drive_rows(rows, sb, m, x, m->target - x, ax, z, rc, rb, h);
        break;
    }
    default: { /* rope, spring, rod: along the line between the attachments */
        float dist = tp_len(d);
        tp_vec3 n = dist > 1e-6f ? tp_scale(d, 1.0f / dist) : ax;
        st->value = dist;
        if (m->type == TP_CONSTRAINT_ROD) {
            tp_cons_row_set(&rows[0], sb, b0, b1, n, z, ra, rb, TP_ROW_EQ, dist - m->length);
        } else if (m->type == TP_CONSTRAINT_ROPE) {
            tp_cons_row *r = &rows[0];
            tp_cons_row_set(r, sb, b0, b1, tp_neg(n), z, ra, rb, TP_ROW_INEQ, m->length - dist);
            if (st->winch_rate > 0.0f) r->rate = st->winch_rate; /* paying out */
            if (st->winch_rate < 0.0f) { /* reeling in at -winch_rate with at most winch_force */
                tp_cons_row_set(&rows[1], sb, b0, b1, tp_neg(n), z, ra, rb, TP_ROW_WINCH, -st->winch_rate);
                rows[1].max_impulse = m->winch_force * h;
            }
            float parting = -tp_cons_row_speed(wd, b0, b1, r);
            if (m->restitution > 0.0f && r->c > 0.0f && parting > TP_ROPE_NO_BOUNCE_SPEED && parting * h >= r->c)
                r->bounce = m->restitution * parting; /* snaps taut in this substep */
        } else {
            tp_cons_row *r = &rows[0];
            tp_cons_row_set(r, sb, b0, b1, n, z, ra, rb, TP_ROW_SPRING, dist - m->length);
            float ch = m->damping + h * m->stiffness; /* Catto 2011: gamma = 1 / (h (c + h k)), beta / h = k / (c + h k) */
            r->gamma = 1.0f / (h * ch);
            r->beta = m->stiffness / ch;
        }
        break;
    }
    }
}

/* One Gauss-Seidel update of row i of a constraint, by the row law
 * (kernels/row_law.h): the soft step, a contact's speculative target and
 * bounce, the clamps. */
TP_HD void tp_cons_solve_row(tp_world *wd, const tp_solver_body *sb, int b0, int b1, tp_cons_row *r, float *acc,
                             float inv_h, const tp_row_soft *soft, int use_bias)
{
    float jv = tp_cons_row_speed(wd, b0, b1, r), old = *acc, now;
    switch (r->kind) {
    case TP_ROW_EQ:
        now = use_bias ? tp_row_soft_impulse(old, r->mass, jv, r->c, soft) : old - r->mass * jv;
        break;
    case TP_ROW_INEQ:
        jv += r->rate; /* a moving bound: the winch's length */
        /* apart and not bouncing: as a contact, the unbiased sweeps leave it until a biased one pushed */
        if (r->bounce <= 0.0f && r->c > 0.0f && !tp_row_active(1, use_bias, old)) return;
        if (r->bounce > 0.0f || r->c > 0.0f || !use_bias) /* a bounce, speculative, or rigid */
            now = tp_row_impulse(old, r->mass, jv, tp_row_target(r->c, inv_h, r->bounce));
        else now = tp_maxf(tp_row_soft_impulse(old, r->mass, jv, r->c, soft), 0.0f); /* violated: soft push-out */
        break;
    case TP_ROW_MOTOR:
        now = tp_row_clamped(old, r->mass, jv, -r->c, -r->max_impulse, r->max_impulse);
        break;
    case TP_ROW_WINCH:
        now = tp_row_clamped(old, r->mass, jv, -r->c, 0.0f, r->max_impulse);
        break;
    case TP_ROW_SPRING:
        if (!use_bias) return;
        now = old - (jv + r->beta * r->c + r->gamma * old) / (1.0f / r->mass + r->gamma);
        break;
    default: return;
    }
    *acc = now;
    tp_cons_row_apply(wd, sb, b0, b1, r, now - old);
}

/* ---------------------------------------------------------------- the world's constraints
 * Built, warm started, projected and summed in constraint order by one
 * thread (lane 0 on the device); solved in the colors of the contact
 * constraints (kernels/constraint_colors.h). */

/* Is constraint k worth solving: enabled, and one of its bodies moves? */
TP_HD int tp_cons_active(const tp_world *wd, const tp_solver_body *sb, int k)
{
    return wd->cons[k].enabled && (tp_cons_moves(sb, wd->cons[k].body0) || tp_cons_moves(sb, wd->cons[k].body1));
}

/* A rope winch (seed 004, "Winches") in a substep of h: towards winch_target
 * at winch_speed, slower near it (the distance to go x winch_responsiveness /
 * 10, capped at winch_speed; 0: winch_speed all the way). Paying out moves
 * m->length to where it is at the substep's end and returns the rate (m/s,
 * > 0): the rope's bound moves out at it. Reeling in returns minus the reel
 * speed: a winch row pulls the ends together at that speed with at most
 * winch_force (so a load heavier than winch_force stalls it, as the seed's
 * "reeling in stops while the rope pulls harder than winchForce"), and the
 * length follows the rope in (tp_cons_end_substep). */
TP_HD float tp_cons_winch(tp_cons_model *m, float h)
{
    if (m->type != TP_CONSTRAINT_ROPE || !m->winch || m->length == m->winch_target) return 0.0f;
    float to_go = m->winch_target - m->length, dist = fabsf(to_go);
    float speed = m->winch_speed;
    if (m->winch_responsiveness > 0.0f) speed = tp_minf(speed, dist * m->winch_responsiveness * 0.1f);
    if (to_go < 0.0f) return -speed;
    float step = speed * h;
    if (step >= dist) {
        m->length = m->winch_target;
        return to_go / h;
    }
    m->length += step;
    return speed;
}

/* Start of a step: the force sums cleared, each winch's length noted. */
TP_HD void tp_cons_begin_step(tp_world *wd)
{
    for (int k = 0; k < wd->cons_count; ++k) {
        for (int c = 0; c < 3; ++c) wd->cons_state[k].fsum[c] = 0.0f;
        wd->cons_state[k].winch_from = wd->cons[k].length;
    }
}

/* A substep's rows, after its velocity update: built, then warm started. */
TP_HD void tp_cons_prepare(tp_world *wd, const tp_solver_body *sb, float h)
{
    for (int k = 0; k < wd->cons_count; ++k) {
        tp_cons_model *m = &wd->cons[k];
        tp_cons_state *st = &wd->cons_state[k];
        if (!tp_cons_active(wd, sb, k)) continue;
        float len = m->length;
        st->winch_rate = tp_cons_winch(m, h);
        float moved = m->length;
        m->length = len; /* the rows see the bound at the substep's start, moving at winch_rate */
        tp_cons_build(wd, sb, m, st, h);
        m->length = moved;
        for (int i = 0; i < TP_CONS_ROWS; ++i) {
            if (st->rows[i].kind == TP_ROW_OFF || st->rows[i].kind == TP_ROW_SPRING || st->rows[i].bounce > 0.0f)
                st->impulse[i] = 0.0f;
            else tp_cons_row_apply(wd, sb, m->body0, m->body1, &st->rows[i], st->impulse[i]);
        }
    }
}

/* A substep's rows again after its position update, for the relax sweeps: the
 * same impulses, the Jacobians and errors at the new poses (Box2D v3 too
 * evaluates its joints' arms at the current poses in every solve); a bounce
 * found at the substep's start keeps its target. */
TP_HD void tp_cons_rebuild(tp_world *wd, const tp_solver_body *sb, float h)
{
    for (int k = 0; k < wd->cons_count; ++k) {
        if (!tp_cons_active(wd, sb, k)) continue;
        tp_cons_state *st = &wd->cons_state[k];
        float bounce[TP_CONS_ROWS];
        for (int i = 0; i < TP_CONS_ROWS; ++i) bounce[i] = st->rows[i].kind == TP_ROW_OFF ? 0.0f : st->rows[i].bounce;
        tp_cons_build(wd, sb, &wd->cons[k], st, h);
        for (int i = 0; i < TP_CONS_ROWS; ++i) st->rows[i].bounce = bounce[i];
    }
}

/* The projection below leaves errors up to these alone (the soft rows take
 * them out without touching the energy); beyond them it removes the excess
 * in each of its passes. */
#ifndef TP_JOINT_SLOP
#define TP_JOINT_SLOP 5.0e-4f       /* m */
#endif
#define TP_JOINT_ANGULAR_SLOP 2.0e-3f /* rad */
#ifndef TP_JOINT_PROJECT_PASSES
#define TP_JOINT_PROJECT_PASSES 50
#endif

/* Body b moved by the position impulse l along row r (side -1 for body0, +1
 * for body1): its centre of mass by l lin / m, its turn by l I^-1 j; its
 * velocity by the same over the substep (inv_h), as if the substep had
 * moved it there. */
TP_HD void tp_cons_shift(tp_world *wd, const tp_solver_body *sb, int b, const tp_cons_row *r, float l, float side,
                         float inv_h)
{
    if (!tp_cons_moves(sb, b)) return;
    tp_vec3 dp = tp_scale(tp_v3_load(r->lin), side * l * sb[b].inv_m);
    tp_vec3 dw = tp_scale(tp_v3_load(side < 0.0f ? r->iw0 : r->iw1), l);
    tp_integrate_pose(wd, b, 1.0f, dp, dw);
    tp_v3_store(wd->v + 3 * b, tp_mad(tp_v3_load(wd->v + 3 * b), dp, inv_h));
    tp_v3_store(wd->w + 3 * b, tp_mad(tp_v3_load(wd->w + 3 * b), dw, inv_h));
}

/* After a substep's position update: the joints' position errors beyond the
 * slops projected out (nonlinear Gauss-Seidel, as Box2D v2.4's
 * SolvePositionConstraints), each equality row's and each violated limit's
 * or rope's, in up to TP_JOINT_PROJECT_PASSES passes (until one moves nothing) with the
 * rows rebuilt at each constraint. The soft rows alone leave a loop near a dead point (a four-bar
 * linkage whose rocker turns back) millimetres apart (docs/constraints.md).
 * Each move changes the velocities by itself over the substep, as position
 * based dynamics derives its velocities from the projected poses (Mueller et
 * al., "Position Based Dynamics", 2007; Macklin et al., "Small Steps", 2019):
 * a move of the poses alone left the velocity that caused the error, and a
 * loaded chain (a rope bridge) crept at it every substep while its poses did
 * not move (docs/constraints.md, "Long chains"). */
TP_HD void tp_cons_project(tp_world *wd, const tp_solver_body *sb, float h)
{
    float inv_h = 1.0f / h;
    for (int pass = 0, moved = 1; pass < TP_JOINT_PROJECT_PASSES && moved; ++pass) {
        moved = 0; /* a pass that moved nothing ends the projection */
        for (int k = 0; k < wd->cons_count; ++k) {
            if (!tp_cons_active(wd, sb, k)) continue;
            const tp_cons_model *m = &wd->cons[k];
            tp_cons_state *st = &wd->cons_state[k];
            float bounce[TP_CONS_ROWS];
            for (int i = 0; i < TP_CONS_ROWS; ++i) bounce[i] = st->rows[i].kind == TP_ROW_OFF ? 0.0f : st->rows[i].bounce;
            tp_cons_build(wd, sb, m, st, h);
            for (int i = 0; i < TP_CONS_ROWS; ++i) st->rows[i].bounce = bounce[i];
            /* a point held on a point (rows 0-2): the slop is on the distance */
            int point = m->type == TP_CONSTRAINT_WELD || m->type == TP_CONSTRAINT_HINGE || m->type == TP_CONSTRAINT_BALL;
            float gap = point ? tp_len(tp_v3(st->rows[0].c, st->rows[1].c, st->rows[2].c)) : 0.0f;
            float keep = gap > TP_JOINT_SLOP ? 1.0f - TP_JOINT_SLOP / gap : 0.0f;
            for (int i = 0; i < TP_CONS_ROWS; ++i) {
                const tp_cons_row *r = &st->rows[i];
                int eq = r->kind == TP_ROW_EQ, ineq = r->kind == TP_ROW_INEQ && r->c < 0.0f;
                if (!eq && !ineq) continue;
                float slop = tp_len_sq(tp_v3_load(r->lin)) > 0.0f ? TP_JOINT_SLOP : TP_JOINT_ANGULAR_SLOP;
                float excess = r->c > slop ? r->c - slop : (r->c < -slop ? r->c + slop : 0.0f);
                if (point && i < 3) excess = r->c * keep;
                if (excess == 0.0f) continue;
                float l = -r->mass * excess;
                tp_cons_shift(wd, sb, m->body0, r, l, -1.0f, inv_h);
                tp_cons_shift(wd, sb, m->body1, r, l, 1.0f, inv_h);
                moved = 1;
            }
        }
    }
}

/* One Gauss-Seidel pass over the rows of constraint k (an active one: the
 * colors hold only those, kernels/constraint_colors.h). */
TP_HD void tp_cons_solve(tp_world *wd, const tp_solver_body *sb, int k, float inv_h, const tp_row_soft *soft,
                         int use_bias)
{
    const tp_cons_model *m = &wd->cons[k];
    tp_cons_state *st = &wd->cons_state[k];
    for (int i = 0; i < TP_CONS_ROWS; ++i)
        if (st->rows[i].kind != TP_ROW_OFF)
            tp_cons_solve_row(wd, sb, m->body0, m->body1, &st->rows[i], &st->impulse[i], inv_h, soft, use_bias);
}

/* End of a substep: the linear impulses on body1 summed for the force
 * read-out; a reeling winch's length follows its rope in (st->value: the
 * distance at the substep's final poses, tp_cons_rebuild), never past its target. */
TP_HD void tp_cons_end_substep(tp_world *wd, const tp_solver_body *sb)
{
    for (int k = 0; k < wd->cons_count; ++k) {
        if (!tp_cons_active(wd, sb, k)) continue;
        tp_cons_state *st = &wd->cons_state[k];
        tp_cons_model *m = &wd->cons[k];
        if (st->winch_rate < 0.0f) m->length = tp_maxf(m->winch_target, tp_minf(m->length, st->value));
        for (int i = 0; i < TP_CONS_ROWS; ++i)
            if (st->rows[i].kind != TP_ROW_OFF)
                for (int c = 0; c < 3; ++c) st->fsum[c] += st->rows[i].lin[c] * st->impulse[i];
    }
}

/* End of a step of length dt: the read-outs at the step's final poses; a
 * winch reeling in whose length did not move in the step is stalled (its
 * load pulls harder than winch_force, tp_cons_driving). */
TP_HD void tp_cons_end_step(tp_world *wd, float dt)
{
    for (int k = 0; k < wd->cons_count; ++k) {
        tp_cons_state *st = &wd->cons_state[k];
        st->force = tp_len(tp_v3_load(st->fsum)) / dt;
        st->value = tp_cons_measure(wd, &wd->cons[k]);
        st->winch_stalled = (uint8_t)(st->winch_rate < 0.0f && wd->cons[k].length == st->winch_from);
    }
}

#endif
