/* integrate.h - velocity and position integration of one body, the first and
 * position phases of each substep of the `solve` stage.
 *
 * Semi-implicit (symplectic) Euler per substep h, as in Box2D v3's substepping
 * solver: velocities first (gravity and applied forces), then positions with the
 * new velocities. From rest, after n substeps a body has fallen g h^2 n (n+1) / 2.
 * The gyroscopic term is left out (as Box2D and Jolt do by default): it is
 * small for the compact shapes torpor simulates and keeps the step cheap.
 *
 * State: pos is the body origin (centre of the shape's box), v the velocity of
 * the centre of mass, w the angular velocity in the world frame. */
#ifndef TP_INTEGRATE_H
#define TP_INTEGRATE_H

#include "tp_world.h"

/* v += h (g + F/m), w += h I^-1 tau for a simulated (awake dynamic) body. */
TP_HD void tp_integrate_velocity(tp_world *wd, int b, float h)
{
    float im = wd->inv_mass[b];
    tp_vec3 g = tp_v3(wd->gravity[0], wd->gravity[1], wd->gravity[2]);
    tp_vec3 accel = tp_add(g, tp_scale(tp_v3_load(wd->force + 3 * b), im));
    tp_v3_store(wd->v + 3 * b, tp_mad(tp_v3_load(wd->v + 3 * b), accel, h));
    tp_vec3 tau = tp_v3_load(wd->torque + 3 * b);
    if (tau.x != 0.0f || tau.y != 0.0f || tau.z != 0.0f) {
        tp_mat3 inv_i = tp_inv_inertia_world(tp_q_load(wd->quat + 4 * b), wd->inv_inertia + 6 * b);
        tp_v3_store(wd->w + 3 * b, tp_mad(tp_v3_load(wd->w + 3 * b), tp_m3_mul_v(inv_i, tau), h));
    }
}

/* Advance pose by one substep h with velocities v and w: the centre of mass
 * moves by v h, the orientation by q += h/2 (w, 0) q (then normalized), and
 * the origin follows the centre of mass. */
TP_HD void tp_integrate_pose(tp_world *wd, int b, float h, tp_vec3 v, tp_vec3 w)
{
    tp_vec3 com_local = tp_body_com_local(wd, b);
    tp_quat q = tp_q_load(wd->quat + 4 * b);
    tp_vec3 com = tp_add(tp_v3_load(wd->pos + 3 * b), tp_q_rotate(q, com_local));
    com = tp_mad(com, v, h);
    if (w.x != 0.0f || w.y != 0.0f || w.z != 0.0f) {
        tp_quat dq = tp_q_mul(tp_q(w.x, w.y, w.z, 0.0f), q);
        float s = 0.5f * h;
        q = tp_q_normalize(tp_q(q.x + dq.x * s, q.y + dq.y * s, q.z + dq.z * s, q.w + dq.w * s));
        tp_q_store(wd->quat + 4 * b, q);
    }
    tp_v3_store(wd->pos + 3 * b, tp_sub(com, tp_q_rotate(q, com_local)));
}

/* Advance pose by one substep h with the body's own v and w. */
TP_HD void tp_integrate_position(tp_world *wd, int b, float h)
{
    tp_integrate_pose(wd, b, h, tp_v3_load(wd->v + 3 * b), tp_v3_load(wd->w + 3 * b));
}

/* A kinematic or simulated body moves; static and removed ones do not, nor
 * articulation links (their tree poses them), nor a dynamic body whose sleep
 * state does not move (tp_state_moves). */
TP_HD int tp_body_moves(const tp_world *wd, int b)
{
    int type = wd->model[b].type;
    if (type == TP_BODY_STATIC || (wd->flags[b] & TP_FLAG_REMOVED)) return 0;
    if (wd->model[b].link) return 0; /* articulation links: posed by their tree (articulation_contact.h) */
    if (type == TP_BODY_KINEMATIC) return 1;
    return tp_state_moves(wd, wd->sleep_state[b]);
}

#endif
