/* articulation_impulse.h - an impulse on an articulation link, through the tree.
 *
 * An impulse p (N s, world frame) at a world point x on link i, plus an
 * angular impulse L (N m s), is the spatial impulse f = (L + (x - O) x p, p)
 * about the tree's reference point O. Its generalized impulse is J^T f with
 * J the link's point Jacobian: (J^T f)_k = S_k . f for the dofs k of i and of
 * its ancestors (S_k the motion-subspace columns about O, zero elsewhere),
 * and it changes the joint velocities by
 *     dqd = (H + diag(armature))^-1 J^T f
 * (Featherstone, "Rigid Body Dynamics Algorithms", 2008, chapter 11: the
 * impulsive equation of motion H dqd = J^T f). The velocity of the link's
 * material point at x changes by J dqd, the tree's true response.
 *
 * Why at once and with H, not as a force J^T f / dt for one step: an impulse
 * is the limit of a large force over a vanishing time, in which damping,
 * springs and PD drives (finite forces) do no work. The step integrates those
 * implicitly: each substep solves (H + diag(a + h d + h^2 k + drive terms))
 * qdd = ..., so a force J^T f / dt spread over the substeps would change qd by
 * a sum of H~^-1 J^T f h / dt with H~ != H (and H changing with q within the
 * step): exact only for an undamped, undriven tree that does not move during
 * the step. Armature is inertia (a rotor's), so it stays in the matrix. This
 * is also what a rigid body's impulse does (v += p / m at once). A free base's
 * momentum correction (articulation.h, step 6) takes its target from the
 * momentum at the start of each substep, so it keeps the impulse.
 *
 * Runs on the host between steps (a write), with one world's scratch. */
#ifndef TP_ARTICULATION_IMPULSE_H
#define TP_ARTICULATION_IMPULSE_H

#include "articulation.h"

/* qd += (H + diag(armature))^-1 J^T f for the spatial impulse of p (N s,
 * world) at world point x (m) plus angular impulse L (N m s, world) on the
 * link of joint `joint` (kernel order). If at_com, x is ignored and p acts at
 * the link's centre of mass. scratch: one world's articulation scratch. */
TP_HD void tp_artic_apply_impulse(const tp_artic_model *m, tp_artic_world *s, void *scratch, int joint, tp_vec3 p,
                                  tp_vec3 x, int at_com, tp_vec3 L)
{
    int t = 0;
    while (t + 1 < m->tree_count && joint >= m->trees[t].end) ++t;
    const tp_artic_tree *tr = &m->trees[t];
    int n = tr->nv;
    if (n == 0) return; /* a tree of fixed joints to the world does not move */
    tp_artic_scratch sx = tp_artic_scratch_at(scratch, m, 0);
    sx.link_scale = s->link_scale;
    sx.link_com = s->link_com;
    tp_artic_use_tree(m, &sx, t);
    tp_vec3 o = tp_artic_reference(m, tr, s->q);
    tp_artic_fk(m, tr, s->q, o, &sx);
    tp_artic_crba(m, tr, &sx);
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        for (int k = 0; k < j->nv; ++k) {
            int d = j->v_start - tr->v_start + k;
            sx.h[d * n + d] += tp_artic_joint_param(m, s, i, TP_AJP_ARMATURE);
        }
    }
    tp_ltl_factor(sx.h, n, sx.par);
    tp_vec3 r = at_com ? tp_v3_load(sx.lc + 3 * joint) : tp_sub(x, o);
    tp_svec f = tp_sv(tp_add(L, tp_cross(r, p)), p);
    float *u = sx.rhs;
    for (int d = 0; d < n; ++d) u[d] = 0.0f;
    for (int a = joint; a >= 0; a = m->joints[a].parent) {
        const tp_artic_joint *ja = &m->joints[a];
        for (int k = 0; k < ja->nv; ++k) {
            int d = ja->v_start - tr->v_start + k;
            u[d] = tp_sv_dot(tp_sv_load(sx.s + 6 * d), f);
        }
    }
    tp_ltl_solve(sx.h, n, sx.par, u);
    for (int d = 0; d < n; ++d) s->qd[tr->v_start + d] += u[d];
}

#endif
