/* articulation_contact.h - articulations inside the contact solve: the trees'
 * substeps interleaved with the rigid solver's, and contact rows whose link
 * side uses the articulation's true response.
 *
 * Per substep h (kernels/solver.h calls the phases; docs/articulations.md):
 *   velocity phase (after the rigid bodies' velocity integration): every tree's
 *     unconstrained qd += h qdd (articulation_dynamics.h, steps 1-3), its joint
 *     rows (limits, velocity motors, friction) with their response columns,
 *     and for every contact point with a link side the row Jacobians and
 *     responses (below);
 *   sweeps: the contact rows of a constraint that touches a link are solved
 *     here (tp_artic_solve_constraint), the joint rows of every tree after the
 *     colors and the serial tail of each pass (tp_artic_sweep_joint_rows);
 *   position phase (after the rigid bodies' pose update): q from qd plus the
 *     pseudo velocities of the split impulse, forward kinematics, the free
 *     base's momentum correction, links published to the body arrays.
 *
 * A contact row along unit d at point p (world frame) on link i of a tree
 * has the Jacobian j (1 x nv of the tree) with j_k = S_k . (p x d, d), S_k the
 * motion-subspace column of dof k about the tree's reference point O (zero
 * for dofs that are not i's or its ancestors'): j qd is the velocity of the
 * link's material point at p along d (Featherstone 2008, 2.11 and 5.3; the
 * contact Jacobian of MuJoCo's engine_core_constraint.c). The effective mass
 * is 1 / (k_rigid + j H~^-1 j^T), H~ the tree's mass matrix with the implicit
 * terms (the factor of the velocity phase, reused), and an impulse lambda
 * changes qd by H~^-1 j^T lambda: one impulse moves the whole tree. The other
 * side is a rigid body (its usual response), static geometry, or another
 * link (of another tree: a second Jacobian; of the same tree: one Jacobian,
 * the difference of the two). Signs: side 0 (body_a) enters with -j, side 1
 * (body_b) with +j, so the row's speed is sum_s J_s qd_s plus the rigid sides'.
 *
 * The rows are the rigid rows' (kernels/sweeps.h): rigid normal row with
 * speculative target, split-impulse push-out beyond the slop, friction in a
 * circular cone, restitution from the published link velocities, warm start.
 * Arms and tangents of the rigid side are fixed for the step as for any row;
 * the link side's Jacobian is evaluated at the point's current position in
 * every substep. The start of a step's solve (the link points) runs on lane 0
 * of a world's group; the tree passes run tree t on lane t mod nth, the
 * points' rows point by point over the lanes (trees share no scratch); the
 * contact rows go with their constraint's color (an articulation is one body
 * for coloring, kernels/coloring.h). */
/* Included by kernels/sweeps.h, after the rigid rows it builds on. */
#ifndef TP_ARTICULATION_CONTACT_H
#define TP_ARTICULATION_CONTACT_H

#include "articulation.h"
#include "contact_rows.h"
#include "wake.h"

/* A row response (1/kg) below this is a direction the tree cannot move (a
 * hinge's axis, rounded into a tangent, leaves a denormal response whose
 * reciprocal is infinite): no impulse, as between two fixed bodies. */
#define TP_ARTIC_FIXED_RESPONSE 1e-9f

/* One world's articulations during its solve. */
typedef struct tp_artic_solve {
    const tp_artic_model *m;
    tp_artic_world s;
    tp_artic_scratch x;
    tp_vec3 g;
    float h;
    int kin_fresh; /* the scratch holds every awake tree's kinematics and motion at (q, qd): set by
                      tp_artic_substep_end, so the next substep's velocity phase need not redo them */
} tp_artic_solve;

/* The solve context of one world: model, joint arrays, scratch (sized by
 * tp_artic_scratch_bytes for `capacity` contact points), substep h. */
TP_HD tp_artic_solve tp_artic_solve_at(const tp_artic_model *m, tp_artic_world s, tp_world *wd, void *scratch,
                                       int capacity, float h)
{
    tp_artic_solve A;
    A.m = m;
    A.s = s;
    A.s.force = wd->force;
    A.s.torque = wd->torque;
    A.x = tp_artic_scratch_at(scratch, m, capacity);
    A.x.link_scale = s.link_scale;
    A.x.link_com = s.link_com;
    A.g = tp_v3(wd->gravity[0], wd->gravity[1], wd->gravity[2]);
    A.h = h;
    A.kin_fresh = 0; /* q, o or the scratch may have changed since the last step */
    return A;
}

/* Is tree t awake? Its links are one island, so they sleep and wake together
 * (kernels/islands.h); a sleeping tree is not stepped, and its links enter
 * rows as fixed bodies. */
TP_HD int tp_artic_tree_awake(const tp_artic_model *m, const tp_world *wd, int t)
{
    return wd->sleep_state[m->joints[m->trees[t].first].body] != TP_SLEEPING;
}

/* Does constraint body pair (a, b) touch a link? Its rows are solved here. */
TP_HD int tp_artic_pair(const tp_world *wd, int a, int b) { return wd->model[a].link || wd->model[b].link; }

TP_HD int tp_artic_tree_of(const tp_artic_model *m, int joint)
{
    for (int t = 0; t < m->tree_count; ++t)
        if (joint >= m->trees[t].first && joint < m->trees[t].end) return t;
    return -1;
}

/* 1 / effective mass of a row along d for two rigid bodies (0 for a link). */
TP_HD float tp_artic_rigid_k(const tp_solver_body *A, const tp_solver_body *B, tp_vec3 ra, tp_vec3 rb, tp_vec3 d)
{
    tp_vec3 ca = tp_cross(ra, d), cb = tp_cross(rb, d);
    return A->inv_m + B->inv_m + tp_dot(ca, tp_m3_mul_v(A->inv_i, ca)) + tp_dot(cb, tp_m3_mul_v(B->inv_i, cb));
}

/* Another lane's copy of the step's link-point count, from the slots lane 0's
 * tp_artic_solve_begin wrote (each lane holds its own tp_artic_solve). */
TP_HD void tp_artic_count_points(tp_artic_solve *A, int n)
{
    int used = 0;
    for (int i = 0; i < n && i < A->x.capacity; ++i) used += A->x.slot[i] >= 0;
    A->x.used = used;
}

/* Start of a step's solve, after the rows are prepared: each tree's reference
 * point for the step; each contact point with a link side gets a link point
 * (slots in contact order; beyond x->points it gets none, no rows this step,
 * and counts in x->overflow) with its sides and rigid share of mass. */
TP_HD void tp_artic_solve_begin(tp_artic_solve *A, const tp_world *wd, const tp_solver_body *sb,
                                const tp_contact *contacts, const tp_contact_row *rows, int n)
{
    const tp_artic_model *m = A->m;
    tp_artic_scratch *x = &A->x;
    for (int t = 0; t < m->tree_count; ++t)
        tp_v3_store(x->o + 3 * t, tp_artic_reference(m, &m->trees[t], A->s.q));
    x->used = 0;
    x->overflow = 0;
    for (int i = 0; i < n && i < x->capacity; ++i) {
        const tp_contact *c = &contacts[i];
        const tp_contact_row *r = &rows[i];
        int la = tp_body_link(wd, c->body_a), lb = tp_body_link(wd, c->body_b);
        x->slot[i] = -1;
        if (la < 0 && lb < 0) continue;
        if (x->used == x->points) {
            x->overflow++;
            continue;
        }
        x->slot[i] = x->used++;
        tp_artic_point *p = &x->pts[x->slot[i]];
        p->link[0] = la;
        p->link[1] = lb;
        p->tree[0] = la >= 0 ? tp_artic_tree_of(m, la) : -1;
        p->tree[1] = lb >= 0 ? tp_artic_tree_of(m, lb) : -1;
        for (int side = 0; side < 2; ++side)
            if (p->tree[side] >= 0 && !tp_artic_tree_awake(m, wd, p->tree[side])) p->tree[side] = -1;
        p->merged = p->tree[0] >= 0 && p->tree[0] == p->tree[1];
        if (p->merged) p->tree[1] = -1; /* one Jacobian, on side 0 */
        for (int side = 0; side < 2; ++side) p->chain[side] = p->tree[side] >= 0 ? x->link_dof[p->link[side]] : -1;
        if (p->merged) p->chain[0] = -2;
        tp_vec3 ra = tp_v3_load(r->ra), rb = tp_v3_load(r->rb);
        const tp_solver_body *SA = &sb[c->body_a], *SB = &sb[c->body_b];
        p->k_rigid[0] = tp_artic_rigid_k(SA, SB, ra, rb, tp_v3_load(c->normal));
        p->k_rigid[1] = tp_artic_rigid_k(SA, SB, ra, rb, tp_v3_load(r->t1));
        p->k_rigid[2] = tp_artic_rigid_k(SA, SB, ra, rb, tp_v3_load(r->t2));
    }
}

/* Jacobian row of link `joint` at point pr (relative to the tree's O) along d,
 * scaled by sign, added into out[tree-local dofs]: only the dofs on the link's
 * root path (the others are zero). */
TP_HD void tp_artic_add_jacobian(const tp_artic_tree *tr, const tp_artic_scratch *x, int joint, tp_vec3 pr,
                                 tp_vec3 d, float sign, float *out)
{
    tp_svec f = tp_sv(tp_cross(pr, d), d);
    const int32_t *par = x->dof_parent + tr->v_start;
    const float *s = x->s_all + 6 * tr->v_start;
    for (int k = x->link_dof[joint]; k >= 0; k = par[k]) out[k] += sign * tp_sv_dot(tp_sv_load(s + 6 * k), f);
}

/* a . b over the dofs of a side's Jacobian: [0, chain] (the root path of dof
 * `chain` ends there, dofs being in topological order; the entries off the
 * path are zero), all n for chain -2 (merged), none for -1. Four partial
 * sums in a fixed order (the compiler may run them as one vector: the same
 * operations, so the same bits on every target). */
TP_HD float tp_artic_chain_dot(const float *a, const float *b, int n, int chain)
{
    int len = chain == -2 ? n : chain + 1, k = 0;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (; k + 4 <= len; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < len; ++k) s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

/* Where side `side` of contact point `point` keeps its rows: side 1 in the
 * side-1 arrays only when side 0 is a link too (two trees); a single link
 * side, on either side, in the side-0 arrays. */
TP_HD size_t tp_artic_rows_at(const tp_artic_scratch *x, const tp_artic_model *m, int point, int side, int dir,
                              int *second)
{
    int slot = x->slot[point];
    *second = side == 1 && x->pts[slot].tree[0] >= 0;
    return ((size_t)slot * 3 + (size_t)dir) * (size_t)m->max_tree_nv;
}

/* Row `dir` of side `side` of contact point `point`'s Jacobian (the point has a link point). */
TP_HD float *tp_artic_jac(const tp_artic_scratch *x, const tp_artic_model *m, int point, int side, int dir)
{
    int second;
    size_t at = tp_artic_rows_at(x, m, point, side, dir, &second);
    return (second ? x->jac1 : x->jac) + at;
}

TP_HD float *tp_artic_resp(const tp_artic_scratch *x, const tp_artic_model *m, int point, int side, int dir)
{
    int second;
    size_t at = tp_artic_rows_at(x, m, point, side, dir, &second);
    return (second ? x->resp1 : x->resp) + at;
}

/* Jacobians, responses and effective masses of contact point i at the
 * current poses and this substep's factors. */
TP_HD void tp_artic_point_rows(tp_artic_solve *A, const tp_world *wd, const tp_contact *c, const tp_contact_row *r,
                               int i)
{
    const tp_artic_model *m = A->m;
    tp_artic_scratch *x = &A->x;
    tp_artic_point *p = &x->pts[x->slot[i]];
    tp_vec3 mid = tp_scale(tp_add(tp_body_point(wd, c->body_a, c->local_a), tp_body_point(wd, c->body_b, c->local_b)),
                           0.5f);
    tp_vec3 dirs[3] = {tp_v3_load(c->normal), tp_v3_load(r->t1), tp_v3_load(r->t2)};
    for (int k = 0; k < 3; ++k) p->mass[k] = p->k_rigid[k];
    for (int side = 0; side < 2; ++side) {
        int t = p->tree[side];
        if (t < 0) continue;
        const tp_artic_tree *tr = &m->trees[t];
        tp_vec3 pr = tp_sub(mid, tp_v3_load(x->o + 3 * t));
        const int32_t *par = x->dof_parent + tr->v_start;
        const double *fac = x->h_all + x->h_start[t];
        int chain = p->chain[side], n = tr->nv;
        float *j[3], *v[3];
        for (int k = 0; k < 3; ++k) {
            j[k] = tp_artic_jac(x, m, i, side, k);
            v[k] = tp_artic_resp(x, m, i, side, k);
            for (int d = 0; d < n; ++d) j[k][d] = 0.0f;
            if (p->merged) { /* two links of one tree: +j of body_b's link, -j of body_a's */
                tp_artic_add_jacobian(tr, x, p->link[0], pr, dirs[k], -1.0f, j[k]);
                tp_artic_add_jacobian(tr, x, p->link[1], pr, dirs[k], 1.0f, j[k]);
            } else {
                tp_artic_add_jacobian(tr, x, p->link[side], pr, dirs[k], side == 0 ? -1.0f : 1.0f, j[k]);
            }
            for (int d = 0; d < n; ++d) v[k][d] = j[k][d];
        }
        if (p->merged)
            for (int k = 0; k < 3; ++k) tp_ltl_solve(fac, n, par, v[k]);
        else
            tp_ltl_solve_chain3(fac, n, par, chain, v[0], v[1], v[2]);
        for (int k = 0; k < 3; ++k) p->mass[k] += tp_artic_chain_dot(j[k], v[k], n, chain);
    }
    for (int k = 0; k < 3; ++k) p->mass[k] = p->mass[k] > TP_ARTIC_FIXED_RESPONSE ? 1.0f / p->mass[k] : 0.0f;
}

/* Velocity phase of a substep, tree part: tree t's free velocity update and
 * joint rows; its links' velocities published. Trees share no scratch
 * (tp_artic_use_tree), so lanes may run different trees at once. */
TP_HD void tp_artic_tree_velocity(tp_artic_solve *A, tp_world *wd, int t)
{
    const tp_artic_model *m = A->m;
    tp_artic_scratch *x = &A->x;
    tp_artic_world *s = &A->s;
    const tp_artic_tree *tr = &m->trees[t];
    float h = A->h;
    x->row_end[t] = x->row_start[t];
    if (!tp_artic_tree_awake(m, wd, t)) { /* no rows; its pseudo velocities 0 for the sweeps' note (tp_artic_note) */
        for (int d = tr->v_start; d < tr->v_start + tr->nv; ++d) x->push_qd[d] = 0.0f;
        return;
    }
    tp_artic_use_tree(m, x, t);
    if (!A->kin_fresh) {
        tp_artic_fk(m, tr, s->q, tp_v3_load(x->o + 3 * t), x);
        tp_artic_motion(m, tr, s->qd, A->g, x);
    }
    if (tr->free_root)
        tp_sv_store(x->target + 6 * t, tp_sv_add(tp_artic_momentum(tr, x),
                                                 tp_sv_scale(tp_artic_external(m, tr, s, x, A->g), h)));
    tp_artic_solve_accel(m, tr, s, x, A->g, h);
    float *qd = s->qd + tr->v_start;
    for (int d = 0; d < tr->nv; ++d) {
        qd[d] += h * x->qdd[d];
        x->qd_free[tr->v_start + d] = qd[d];
        x->push_qd[tr->v_start + d] = 0.0f;
    }
    x->row_end[t] = tp_artic_build_rows(m, tr, s, x, qd, h, x->row_start[t]);
    tp_artic_row_columns(m, tr, x, x->row_start[t], x->row_end[t]);
    tp_artic_velocities(m, tr, s->qd, x);
    tp_artic_publish(m, tr, x, wd);
}

/* Velocity phase of a substep, run by lanes tid of nth of a world's group
 * (the CPU: 0 of 1): every tree's velocity update (tree t on lane t mod
 * nth), a barrier, then every link contact point's rows at the new factors
 * (point by point over the lanes). The caller's barrier follows. */
TP_HD void tp_artic_substep_velocity(tp_artic_solve *A, tp_world *wd, const tp_contact *contacts,
                                     const tp_contact_row *rows, int n, int tid, int nth)
{
    for (int t = tid; t < A->m->tree_count; t += nth) tp_artic_tree_velocity(A, wd, t);
    TP_BARRIER(nth); /* a point's rows read its trees' factors and poses */
    for (int i = tid; i < n && i < A->x.capacity; i += nth)
        if (A->x.slot[i] >= 0) /* (a sleeping tree's side: masses only) */
            tp_artic_point_rows(A, wd, &contacts[i], &rows[i], i);
}

/* Speed along row `dir` of point i contributed by the link sides, with
 * velocities qd (the joint velocities or the pseudo velocities). */
TP_HD float tp_artic_row_speed(const tp_artic_solve *A, int i, int dir, const float *qd)
{
    const tp_artic_point *p = &A->x.pts[A->x.slot[i]];
    float v = 0.0f;
    for (int side = 0; side < 2; ++side) {
        int t = p->tree[side];
        if (t < 0) continue;
        const tp_artic_tree *tr = &A->m->trees[t];
        v += tp_artic_chain_dot(tp_artic_jac(&A->x, A->m, i, side, dir), qd + tr->v_start, tr->nv, p->chain[side]);
    }
    return v;
}

/* Impulse `lambda` along row `dir` of point i into the link sides' qd. */
TP_HD void tp_artic_row_apply(const tp_artic_solve *A, int i, int dir, float lambda, float *qd)
{
    if (lambda == 0.0f) return;
    const tp_artic_point *p = &A->x.pts[A->x.slot[i]];
    for (int side = 0; side < 2; ++side) {
        int t = p->tree[side];
        if (t < 0) continue;
        const tp_artic_tree *tr = &A->m->trees[t];
        const float *v = tp_artic_resp(&A->x, A->m, i, side, dir);
        float *q = qd + tr->v_start;
        for (int d = 0; d < tr->nv; ++d) q[d] += v[d] * lambda;
    }
}

/* Speed of the rigid sides of a point along d (a link side counts nothing:
 * its published velocity is not what the sweep works on). */
TP_HD float tp_artic_rigid_speed(const tp_world *wd, int a, int b, tp_vec3 ra, tp_vec3 rb, tp_vec3 d)
{
    float v = 0.0f;
    if (!wd->model[b].link) v += tp_dot(tp_point_velocity(wd, b, rb), d);
    if (!wd->model[a].link) v -= tp_dot(tp_point_velocity(wd, a, ra), d);
    return v;
}

/* Warm start of a constraint that touches a link. */
TP_HD void tp_artic_warm_start_constraint(tp_artic_solve *A, tp_world *wd, const tp_solver_body *sb, int a, int b,
                                          int first, int count, const tp_contact *contacts,
                                          const tp_contact_row *rows)
{
    for (int i = first; i < first + count; ++i) {
        if (A->x.slot[i] < 0) continue; /* over the link-point capacity: no rows */
        const tp_contact *c = &contacts[i];
        tp_warm_start_point(wd, sb, a, b, c, &rows[i]);
        tp_artic_row_apply(A, i, 0, c->normal_impulse, A->s.qd);
        tp_artic_row_apply(A, i, 1, c->tangent_impulse[0], A->s.qd);
        tp_artic_row_apply(A, i, 2, c->tangent_impulse[1], A->s.qd);
    }
}

/* Normal row of point i (tp_solve_normal_row with the link sides' response). */
TP_HD void tp_artic_normal_row(tp_artic_solve *A, tp_world *wd, const tp_solver_body *sb, int a, int b, int i,
                               tp_contact *c, tp_contact_row *r, float *push, float inv_h, int use_bias)
{
    if (!tp_row_active(1, use_bias, r->max_normal_impulse)) return;
    float mass = A->x.pts[A->x.slot[i]].mass[0], s = r->separation;
    tp_vec3 n = tp_v3_load(c->normal), ra = tp_v3_load(r->ra), rb = tp_v3_load(r->rb);
    if (tp_row_pushes(use_bias, s)) {
        float pn = tp_artic_row_speed(A, i, 0, A->x.push_qd);
        if (!wd->model[b].link) pn += tp_dot(tp_push_velocity(push, b, rb), n);
        if (!wd->model[a].link) pn -= tp_dot(tp_push_velocity(push, a, ra), n);
        float pl = tp_row_impulse(r->push_impulse, mass, pn, tp_row_push_target(s, inv_h));
        float dp = tp_push_store(r, pl);
        tp_apply_normal(push, push + 3, 6, sb, a, b, c, r, dp, TP_HOLD_NONE);
        tp_artic_row_apply(A, i, 0, dp, A->x.push_qd);
    }
    float vn = tp_artic_rigid_speed(wd, a, b, ra, rb, n) + tp_artic_row_speed(A, i, 0, A->s.qd);
    float lambda = tp_row_impulse(c->normal_impulse, mass, vn, tp_row_target(s, inv_h, r->bounce_speed));
    float delta = tp_normal_store(c, r, lambda);
    tp_apply_normal(wd->v, wd->w, 3, sb, a, b, c, r, delta, TP_HOLD_NONE);
    tp_artic_row_apply(A, i, 0, delta, A->s.qd);
}

/* The two friction rows' link-side speeds of point i at once: the same
 * operations as two tp_artic_row_speed calls, one walk over the sides. */
TP_HD void tp_artic_row_speed2(const tp_artic_solve *A, int i, const float *qd, float *v1, float *v2)
{
    const tp_artic_point *p = &A->x.pts[A->x.slot[i]];
    float s1 = 0.0f, s2 = 0.0f;
    for (int side = 0; side < 2; ++side) {
        int t = p->tree[side];
        if (t < 0) continue;
        const tp_artic_tree *tr = &A->m->trees[t];
        const float *q = qd + tr->v_start;
        s1 += tp_artic_chain_dot(tp_artic_jac(&A->x, A->m, i, side, 1), q, tr->nv, p->chain[side]);
        s2 += tp_artic_chain_dot(tp_artic_jac(&A->x, A->m, i, side, 2), q, tr->nv, p->chain[side]);
    }
    *v1 = s1;
    *v2 = s2;
}

/* Impulses l1, l2 along the two friction rows of point i into qd: per
 * element the operations of tp_artic_row_apply for row 1, then row 2. */
TP_HD void tp_artic_row_apply2(const tp_artic_solve *A, int i, float l1, float l2, float *qd)
{
    if (l1 == 0.0f || l2 == 0.0f) {
        tp_artic_row_apply(A, i, 1, l1, qd);
        tp_artic_row_apply(A, i, 2, l2, qd);
        return;
    }
    const tp_artic_point *p = &A->x.pts[A->x.slot[i]];
    for (int side = 0; side < 2; ++side) {
        int t = p->tree[side];
        if (t < 0) continue;
        const tp_artic_tree *tr = &A->m->trees[t];
        const float *u = tp_artic_resp(&A->x, A->m, i, side, 1), *v = tp_artic_resp(&A->x, A->m, i, side, 2);
        float *q = qd + tr->v_start;
        for (int d = 0; d < tr->nv; ++d) q[d] = (q[d] + u[d] * l1) + v[d] * l2;
    }
}

/* Friction rows of point i in the cone |(l1, l2)| <= mu ln. */
TP_HD void tp_artic_friction_row(tp_artic_solve *A, tp_world *wd, const tp_solver_body *sb, int a, int b, int i,
                                 tp_contact *c, const tp_contact_row *r)
{
    const tp_artic_point *p = &A->x.pts[A->x.slot[i]];
    tp_vec3 ra = tp_v3_load(r->ra), rb = tp_v3_load(r->rb);
    float j1, j2, l1, l2, d1, d2;
    tp_artic_row_speed2(A, i, A->s.qd, &j1, &j2);
    float v1 = tp_artic_rigid_speed(wd, a, b, ra, rb, tp_v3_load(r->t1)) + j1;
    float v2 = tp_artic_rigid_speed(wd, a, b, ra, rb, tp_v3_load(r->t2)) + j2;
    tp_row_friction(c->tangent_impulse[0], c->tangent_impulse[1], p->mass[1], p->mass[2], v1, v2, 0.0f, 0.0f,
                    c->friction * c->normal_impulse, &l1, &l2);
    tp_friction_store(c, l1, l2, &d1, &d2);
    tp_apply_friction(wd, sb, a, b, r, d1, d2, TP_HOLD_NONE);
    tp_artic_row_apply2(A, i, d1, d2, A->s.qd);
}

/* One Gauss-Seidel pass over the rows of a constraint touching a link:
 * normal rows, then friction (the order of tp_solve_constraint). */
TP_HD void tp_artic_solve_constraint(tp_artic_solve *A, tp_world *wd, const tp_solver_body *sb, int a, int b,
                                     int first, int count, tp_contact *contacts, tp_contact_row *rows, float *push,
                                     float inv_h, int use_bias, int reverse)
{
    for (int q = 0; q < count; ++q) {
        int i = first + (reverse ? count - 1 - q : q);
        if (A->x.slot[i] >= 0) tp_artic_normal_row(A, wd, sb, a, b, i, &contacts[i], &rows[i], push, inv_h, use_bias);
    }
    for (int q = 0; q < count; ++q) {
        int i = first + (reverse ? count - 1 - q : q);
        if (A->x.slot[i] >= 0) tp_artic_friction_row(A, wd, sb, a, b, i, &contacts[i], &rows[i]);
    }
}

/* The joint rows of every tree, one pass (after the contact rows of a
 * sweep), tree t on lane t mod nth of the world's group (the CPU: 0 of 1); in
 * a biased sweep the limit rows on the pseudo velocities too. */
TP_HD void tp_artic_sweep_joint_rows(tp_artic_solve *A, int use_bias, int tid, int nth)
{
    for (int t = tid; t < A->m->tree_count; t += nth) {
        const tp_artic_tree *tr = &A->m->trees[t];
        int first = A->x.row_start[t], end = A->x.row_end[t];
        tp_artic_sweep_rows(A->m, tr, &A->x, A->s.qd + tr->v_start, first, end);
        if (use_bias) tp_artic_sweep_push_rows(A->m, tr, &A->x, A->x.push_qd + tr->v_start, first, end);
    }
}

/* Position phase of a substep: the free bases' momentum targets take the
 * contact impulses of the substep (exactly: at the configuration they were
 * applied in); q from qd plus the pseudo velocities; forward kinematics; the
 * momentum correction (articulation.h, step 6); links published. */
TP_HD void tp_artic_substep_position(tp_artic_solve *A, tp_world *wd, int tid, int nth)
{
    const tp_artic_model *m = A->m;
    tp_artic_scratch *x = &A->x;
    tp_artic_world *s = &A->s;
    for (int t = tid; t < m->tree_count; t += nth) {
        const tp_artic_tree *tr = &m->trees[t];
        if (!tp_artic_tree_awake(m, wd, t)) continue;
        tp_artic_use_tree(m, x, t);
        int v0 = tr->v_start;
        if (tr->free_root) { /* x->li and x->s_all still hold the configuration of the velocity phase */
            for (int d = v0; d < v0 + tr->nv; ++d) x->tmp_all[d] = s->qd[d] - x->qd_free[d];
            tp_artic_velocities(m, tr, x->tmp_all, x);
            tp_sv_store(x->target + 6 * t, tp_sv_add(tp_sv_load(x->target + 6 * t), tp_artic_momentum(tr, x)));
        }
        for (int d = v0; d < v0 + tr->nv; ++d) x->tmp_all[d] = s->qd[d] + x->push_qd[d];
        tp_artic_integrate_q(m, tr, s->q, x->tmp_all, A->h, s->link_com);
        tp_artic_fk(m, tr, s->q, tp_v3_load(x->o + 3 * t), x);
        tp_artic_velocities(m, tr, s->qd, x);
        if (tr->free_root) {
            tp_artic_fix_momentum(m, tr, s, x, tp_sv_load(x->target + 6 * t));
            tp_artic_velocities(m, tr, s->qd, x);
        }
        tp_artic_publish(m, tr, x, wd);
    }
}

/* The joint-limit force per dof of tree t in this substep into s->limit_f
 * (if kept): the impulse of its limit rows (one side unbounded) over h. */
TP_HD void tp_artic_record_limit_forces(const tp_artic_solve *A, int t)
{
    float *out = A->s.limit_f;
    if (!out) return;
    const tp_artic_tree *tr = &A->m->trees[t];
    const tp_artic_scratch *x = &A->x;
    for (int d = tr->v_start; d < tr->v_start + tr->nv; ++d) out[d] = 0.0f;
    for (int r = x->row_start[t]; r < x->row_end[t]; ++r)
        if (tp_artic_limit_row(x, r))
            out[tr->v_start + x->row_dof[r]] += x->row_lambda[r] / A->h;
}

/* End of a substep: links' velocities after the relax sweeps published (tree
 * t on lane t mod nth; each lane's view then holds its trees' kinematics). */
TP_HD void tp_artic_substep_end(tp_artic_solve *A, tp_world *wd, int tid, int nth)
{
    const tp_artic_model *m = A->m;
    for (int t = tid; t < m->tree_count; t += nth) {
        const tp_artic_tree *tr = &m->trees[t];
        if (!tp_artic_tree_awake(m, wd, t)) continue;
        tp_artic_record_limit_forces(A, t);
        tp_artic_use_tree(m, &A->x, t);
        tp_artic_motion(m, tr, A->s.qd, A->g, &A->x);
        tp_artic_publish(m, tr, &A->x, wd);
    }
    A->kin_fresh = 1;
}

/* After a world's step: joint_f lasts one step; 0 if joint_q or joint_qd
 * became non-finite (the world faults). */
TP_HD int tp_artic_world_finish(const tp_artic_model *m, tp_artic_world *s)
{
    int ok = 1;
    for (int k = 0; k < m->nq; ++k) ok &= tp_finitef(s->q[k]);
    for (int k = 0; k < m->nv; ++k) { ok &= tp_finitef(s->qd[k]); s->f[k] = 0.0f; }
    return ok;
}

#endif
