/* articulation_dynamics.h - the dynamics and integration of articulation trees.
 * Included by articulation.h, whose comment describes the method and sources. */
#ifndef TP_ARTICULATION_DYNAMICS_H
#define TP_ARTICULATION_DYNAMICS_H

/* Bias forces C (qdd = 0) by the backward pass of RNEA into x->rhs (tree-local
 * dofs): f_i = I_i a_i + v_i x* I_i v_i - f_ext_i, accumulated towards the root. */
TP_HD void tp_artic_bias(const tp_artic_model *m, const tp_artic_tree *tr, const tp_artic_world *s, tp_artic_scratch *x)
{
    for (int i = tr->first; i < tr->end; ++i) {
        tp_svec v = tp_sv_load(x->lv + 6 * i);
        tp_svec f = tp_si_mul(&x->li[i], tp_sv_load(x->la + 6 * i));
        f = tp_sv_add(f, tp_sv_crf(v, tp_si_mul(&x->li[i], v)));
        tp_sv_store(x->lf + 6 * i, tp_sv_sub(f, tp_artic_ext_force(m, s, x, i)));
    }
    for (int i = tr->end - 1; i >= tr->first; --i) {
        const tp_artic_joint *j = &m->joints[i];
        tp_svec f = tp_sv_load(x->lf + 6 * i);
        for (int k = 0; k < j->nv; ++k) {
            int d = j->v_start - tr->v_start + k;
            x->rhs[d] = tp_sv_dot(tp_sv_load(x->s + 6 * d), f);
        }
        if (j->parent >= 0) tp_sv_store(x->lf + 6 * j->parent, tp_sv_add(tp_sv_load(x->lf + 6 * j->parent), f));
    }
}

/* Joint-space mass matrix H (n x n, tree-local) by the composite-rigid-body
 * algorithm: composite inertias towards the root, then H_kl = S_l . (Ic_i S_k)
 * for every dof l of link i and of its ancestors (Featherstone 2008, 6.2).
 * Only those entries, H[k][l] with l <= k on k's root path, are written: the
 * others are zero and never read (tp_ltl_factor). */
TP_HD void tp_artic_crba(const tp_artic_model *m, const tp_artic_tree *tr, tp_artic_scratch *x)
{
    int n = tr->nv;
    for (int i = tr->first; i < tr->end; ++i) x->lic[i] = x->lid[i];
    for (int i = tr->end - 1; i >= tr->first; --i) {
        int p = m->joints[i].parent;
        if (p >= 0) tp_sid_add_to(&x->lic[p], &x->lic[i]);
    }
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        for (int k = 0; k < j->nv; ++k) {
            int dk = j->v_start - tr->v_start + k;
            double f[6];
            tp_sid_mul(&x->lic[i], x->s + 6 * dk, f);
            for (int a = i; a >= 0; a = m->joints[a].parent) {
                const tp_artic_joint *ja = &m->joints[a];
                for (int l = 0; l < ja->nv; ++l) {
                    int dl = ja->v_start - tr->v_start + l;
                    if (a == i && dl > dk) continue;
                    const float *sl = x->s + 6 * dl;
                    double hkl = 0.0;
                    for (int e = 0; e < 6; ++e) hkl += (double)sl[e] * f[e];
                    x->h[dk * n + dl] = hkl;
                }
            }
        }
    }
}

/* The drive force of a PD-driven dof at the end of the substep (for the max effort check). */
TP_HD float tp_artic_drive_force(const tp_artic_joint *j, const tp_artic_world *s, int v, float q, float qd1, float h)
{
    return j->kp * (s->target_q[v] - (q + h * qd1)) + j->kd * (s->target_qd[v] - qd1);
}

/* The actuators of tree tr (kernels/actuator.h) into step 3: each one's force
 * at the predicted (q + h qd, qd) times gear into x->rhs, its implicit
 * stiffness and damping on the diagonal (add_diag); a saturated one
 * (x->act_sat) at its force bound, explicit. */
TP_HD void tp_artic_actuator_terms(const tp_artic_model *m, const tp_artic_tree *tr, const tp_artic_world *s,
                                   tp_artic_scratch *x, float h, int add_diag)
{
    int n = tr->nv, t = (int)(tr - m->trees);
    for (int k = 0; k < m->actuator_count; ++k) {
        const tp_artic_actuator *a = &tp_artic_world_actuator_table(m, s)[k];
        if (a->tree != t) continue;
        int d = a->v - tr->v_start;
        float qd = s->qd[a->v], f;
        if (x->act_sat[k]) {
            f = tp_actuator_bound(a, x->act_sat[k]);
        } else {
            f = tp_actuator_force(a, tp_actuator_ctrl(a, s->ctrl[k]), s->q[a->q] + h * qd, qd);
            if (add_diag) x->h[d * n + d] += tp_actuator_implicit_diag(a, h);
        }
        x->rhs[d] += a->gear * f;
    }
}

/* After a solve for x->qdd: actuators whose force at the substep's end passes
 * their force range become explicit at the bound; returns 1 if any did. */
TP_HD int tp_artic_actuators_saturate(const tp_artic_model *m, const tp_artic_tree *tr, const tp_artic_world *s,
                                      tp_artic_scratch *x, float h)
{
    int t = (int)(tr - m->trees), more = 0;
    for (int k = 0; k < m->actuator_count; ++k) {
        const tp_artic_actuator *a = &tp_artic_world_actuator_table(m, s)[k];
        if (a->tree != t || x->act_sat[k]) continue;
        float qd1 = s->qd[a->v] + h * x->qdd[a->v - tr->v_start];
        float f = tp_actuator_force(a, tp_actuator_ctrl(a, s->ctrl[k]), s->q[a->q] + h * qd1, qd1);
        int sat = tp_actuator_saturation(a, f);
        if (sat) { x->act_sat[k] = (uint8_t)sat; more = 1; }
    }
    return more;
}

/* The actuators' generalised force per dof of tree tr in this substep (gear F
 * at the substep's end, or at the bound) into s->act_f, if kept. */
TP_HD void tp_artic_actuators_record(const tp_artic_model *m, const tp_artic_tree *tr, const tp_artic_world *s,
                                     const tp_artic_scratch *x, float h)
{
    if (!s->act_f) return;
    int t = (int)(tr - m->trees);
    for (int d = tr->v_start; d < tr->v_start + tr->nv; ++d) s->act_f[d] = 0.0f;
    for (int k = 0; k < m->actuator_count; ++k) {
        const tp_artic_actuator *a = &tp_artic_world_actuator_table(m, s)[k];
        if (a->tree != t) continue;
        float f;
        if (x->act_sat[k]) {
            f = tp_actuator_bound(a, x->act_sat[k]);
        } else {
            float qd1 = s->qd[a->v] + h * x->qdd[a->v - tr->v_start];
            f = tp_actuator_force(a, tp_actuator_ctrl(a, s->ctrl[k]), s->q[a->q] + h * qd1, qd1);
        }
        s->act_f[a->v] += a->gear * f;
    }
}

/* Implicit terms of step 3 on the diagonal of H (already in x->h), and their
 * forces into the right-hand side x->rhs, which holds -C + tau on entry. */
TP_HD void tp_artic_implicit_terms(const tp_artic_model *m, const tp_artic_tree *tr, const tp_artic_world *s,
                                   tp_artic_scratch *x, float h, int add_diag)
{
    int n = tr->nv;
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        for (int k = 0; k < j->nv; ++k) {
            int v = j->v_start + k, d = v - tr->v_start;
            float damping = tp_artic_joint_param(m, s, i, TP_AJP_DAMPING);
            float qd = s->qd[v], diag = tp_artic_joint_param(m, s, i, TP_AJP_ARMATURE) + h * damping, r = -damping * qd;
            if (j->nv == 1 && j->type != TP_AJ_FREE) {
                float q = s->q[j->q_start];
                diag += h * h * j->stiffness;
                r -= j->stiffness * (q + h * qd - j->rest);
                if (j->drive == TP_AD_POSITION) {
                    if (x->saturated[d]) {
                        r += x->saturated[d] == 1 ? j->max_effort : -j->max_effort;
                    } else {
                        diag += h * j->kd + h * h * j->kp;
                        r += j->kp * (s->target_q[v] - q - h * qd) + j->kd * (s->target_qd[v] - qd);
                    }
                }
            }
            if (add_diag) x->h[d * n + d] += diag;
            x->rhs[d] += r;
        }
    }
    tp_artic_actuator_terms(m, tr, s, x, h, add_diag);
}

/* Velocity-dependent forces at the mid-step velocity qd + h/2 qdd (one
 * predictor pass), solved again with the same factor. */
TP_HD void tp_artic_midpoint_bias(const tp_artic_model *m, const tp_artic_tree *tr, tp_artic_world *s,
                                  tp_artic_scratch *x, tp_vec3 g, float h)
{
    int n = tr->nv;
    float *save = x->tmp;
    float *qd = s->qd + tr->v_start;
    for (int d = 0; d < n; ++d) { save[d] = qd[d]; qd[d] += 0.5f * h * x->qdd[d]; }
    tp_artic_motion(m, tr, s->qd, g, x);
    for (int d = 0; d < n; ++d) qd[d] = save[d];
    tp_artic_bias(m, tr, s, x);
    for (int d = 0; d < n; ++d) x->rhs[d] = s->f[tr->v_start + d] - x->rhs[d];
    tp_artic_implicit_terms(m, tr, s, x, h, 0);
    for (int d = 0; d < n; ++d) x->qdd[d] = x->rhs[d];
    tp_ltl_solve(x->h, n, x->par, x->qdd);
}

/* Build and solve step 3 for x->qdd; PD drives that exceed their max effort
 * and actuators past their force range become explicit at the bound and the
 * system is solved again (none leaves the saturated set, so at most
 * n + nu + 1 passes; usually 1 or 2).
 * On return x->h holds the factor of the final H~. */
TP_HD void tp_artic_solve_accel(const tp_artic_model *m, const tp_artic_tree *tr, tp_artic_world *s,
                                tp_artic_scratch *x, tp_vec3 g, float h)
{
    int n = tr->nv;
    int t = (int)(tr - m->trees);
    for (int d = 0; d < n; ++d) x->saturated[d] = 0;
    for (int k = 0; k < m->actuator_count; ++k) /* this tree's only: another lane may be stepping the others */
        if (tp_artic_world_actuator_table(m, s)[k].tree == t) x->act_sat[k] = 0;
    for (int pass = 0; pass <= n + m->actuator_count; ++pass) {
        tp_artic_crba(m, tr, x);
        tp_artic_bias(m, tr, s, x);
        for (int d = 0; d < n; ++d) x->rhs[d] = s->f[tr->v_start + d] - x->rhs[d];
        tp_artic_implicit_terms(m, tr, s, x, h, 1);
        tp_ltl_factor(x->h, n, x->par);
        for (int d = 0; d < n; ++d) x->qdd[d] = x->rhs[d];
        tp_ltl_solve(x->h, n, x->par, x->qdd);
        int more = 0;
        for (int i = tr->first; i < tr->end; ++i) {
            const tp_artic_joint *j = &m->joints[i];
            if (j->drive != TP_AD_POSITION) continue;
            int v = j->v_start, d = v - tr->v_start;
            if (x->saturated[d]) continue;
            float f = tp_artic_drive_force(j, s, v, s->q[j->q_start], s->qd[v] + h * x->qdd[d], h);
            if (tp_absf(f) > j->max_effort) { x->saturated[d] = f > 0.0f ? 1 : 2; more = 1; }
        }
        more |= tp_artic_actuators_saturate(m, tr, s, x, h);
        if (!more) break;
    }
    tp_artic_actuators_record(m, tr, s, x, h);
    tp_artic_midpoint_bias(m, tr, s, x, g, h);
}

/* Add one velocity row on tree-local dof d: qd_d -> target, impulse in [lo, hi]. */
TP_HD int tp_artic_add_row(tp_artic_scratch *x, int rows, int d, float target, float lo, float hi)
{
    x->row_dof[rows] = d;
    x->row_target[rows] = target;
    x->row_lo[rows] = lo;
    x->row_hi[rows] = hi;
    x->row_lambda[rows] = 0.0f;
    x->row_push[rows] = 0.0f;
    return rows + 1;
}

/* Step 4: rows for limits (speculative: the joint may reach the limit this
 * substep, not pass it; a violated one may not go further in, and
 * tp_artic_integrate_q moves it back by TP_ARTIC_LIMIT_BETA of the
 * violation), velocity motors and joint friction,
 * written from row `rows` on (at most 3 per dof). qd holds the unconstrained
 * new velocities (tree-local). Returns the end of the tree's rows. */
TP_HD int tp_artic_build_rows(const tp_artic_model *m, const tp_artic_tree *tr, const tp_artic_world *s,
                              tp_artic_scratch *x, const float *qd, float h, int rows)
{
    const float big = TP_ARTIC_OPEN_SIDE;
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        for (int k = 0; k < j->nv; ++k) {
            int d = j->v_start - tr->v_start + k;
            /* While links touch anything (x->used link contact points), a limited
             * dof always has a row, on the side it passes or else the nearer one:
             * the contact rows may turn a joint toward a limit its free velocity
             * leaves (a foot pressed on the ground straightening a knee), and
             * only a row present from the start can stop them. */
            if (j->has_limits) {
                float q = s->q[j->q_start], pred = q + h * qd[d];
                int touching = x->used > 0;
                if (pred < j->lower || (touching && pred <= j->upper && q - j->lower < j->upper - q)) {
                    float gap = j->lower - q;
                    rows = tp_artic_add_row(x, rows, d, gap > 0.0f ? 0.0f : gap / h, 0.0f, big);
                } else if (pred > j->upper || touching) {
                    float gap = j->upper - q;
                    rows = tp_artic_add_row(x, rows, d, gap < 0.0f ? 0.0f : gap / h, -big, 0.0f);
                }
            }
            if (j->drive == TP_AD_VELOCITY)
                rows = tp_artic_add_row(x, rows, d, s->target_qd[j->v_start], -j->max_effort * h, j->max_effort * h);
            float friction = tp_artic_joint_param(m, s, i, TP_AJP_FRICTION);
            if (friction > 0.0f) rows = tp_artic_add_row(x, rows, d, 0.0f, -friction * h, friction * h);
        }
    }
    return rows;
}

/* Response columns (H~)^-1 e_d of rows [first, end) of a tree, from the factor in x->h. */
TP_HD void tp_artic_row_columns(const tp_artic_model *m, const tp_artic_tree *tr, tp_artic_scratch *x, int first,
                                int end)
{
    int n = tr->nv, stride = m->max_tree_nv;
    for (int r = first; r < end; ++r) {
        float *col = x->cols + (size_t)r * (size_t)stride;
        for (int d = 0; d < n; ++d) col[d] = d == x->row_dof[r] ? 1.0f : 0.0f;
        tp_ltl_solve_chain(x->h, n, x->par, x->row_dof[r], col);
    }
}

/* One projected Gauss-Seidel pass over rows [first, end) of a tree, in order,
 * with their response columns; updates qd (tree-local). */
TP_HD void tp_artic_sweep_rows(const tp_artic_model *m, const tp_artic_tree *tr, tp_artic_scratch *x, float *qd,
                               int first, int end)
{
    int n = tr->nv, stride = m->max_tree_nv;
    for (int r = first; r < end; ++r) {
        const float *col = x->cols + (size_t)r * (size_t)stride;
        int d = x->row_dof[r];
        float old = x->row_lambda[r];
        float lam = tp_clampf(old + (x->row_target[r] - qd[d]) / col[d], x->row_lo[r], x->row_hi[r]);
        float dl = lam - old;
        x->row_lambda[r] = lam;
        if (dl != 0.0f)
            for (int k = 0; k < n; ++k) qd[k] += col[k] * dl;
    }
}

/* Is row r a joint limit's (one side unbounded; tp_artic_build_rows)? */
TP_HD int tp_artic_limit_row(const tp_artic_scratch *x, int r)
{
    return x->row_lo[r] == -TP_ARTIC_OPEN_SIDE || x->row_hi[r] == TP_ARTIC_OPEN_SIDE;
}

/* One projected Gauss-Seidel pass of the limit rows among rows [first, end)
 * on the pseudo velocities push (tree-local) of the split impulse: the
 * contacts' push-out may not move a joint further toward a limit it is at
 * or passing (target 0, the limit row's sign). Without them the push-out
 * turns such a joint past its limit, tp_artic_integrate_q turns it back,
 * and the penetration stays while the rest of the push accumulates in the
 * other joints every substep. */
TP_HD void tp_artic_sweep_push_rows(const tp_artic_model *m, const tp_artic_tree *tr, tp_artic_scratch *x, float *push,
                                    int first, int end)
{
    int n = tr->nv, stride = m->max_tree_nv;
    for (int r = first; r < end; ++r) {
        if (!tp_artic_limit_row(x, r)) continue;
        const float *col = x->cols + (size_t)r * (size_t)stride;
        int d = x->row_dof[r];
        float old = x->row_push[r];
        float lam = tp_clampf(old - push[d] / col[d], x->row_lo[r], x->row_hi[r]);
        float dl = lam - old;
        x->row_push[r] = lam;
        if (dl != 0.0f)
            for (int k = 0; k < n; ++k) push[k] += col[k] * dl;
    }
}

/* Step 5: q from the new qd (link_com: the world's link COM offsets, NULL = 0; a free
 * base's COM moves by h v). */
TP_HD void tp_artic_integrate_q(const tp_artic_model *m, const tp_artic_tree *tr, float *q, const float *qd, float h,
                                const float *link_com)
{
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        float *qj = q + j->q_start;
        const float *v = qd + j->v_start;
        if (j->type == TP_AJ_REVOLUTE || j->type == TP_AJ_PRISMATIC) {
            qj[0] += h * v[0];
            /* A violated limit is corrected in position, not by a velocity
             * target: a push-back velocity would stay in qd and carry the
             * joint across its range (Baumgarte's energy gain; Box2D v3's
             * relax pass removes it likewise). Reduced coordinates make this
             * exact: nothing else in the tree moves. */
            if (j->has_limits && qj[0] > j->upper) qj[0] -= TP_ARTIC_LIMIT_BETA * (qj[0] - j->upper);
            else if (j->has_limits && qj[0] < j->lower) qj[0] += TP_ARTIC_LIMIT_BETA * (j->lower - qj[0]);
        } else if (j->type == TP_AJ_BALL) {
            tp_quat a = tp_q_load(qj), d = tp_q_mul(a, tp_q(v[0], v[1], v[2], 0.0f));
            float hh = 0.5f * h;
            tp_q_store(qj, tp_q_normalize(tp_q(a.x + d.x * hh, a.y + d.y * hh, a.z + d.z * hh, a.w + d.w * hh)));
        } else if (j->type == TP_AJ_FREE) {
            tp_quat a = tp_q_load(qj + 3);
            tp_vec3 cl = tp_artic_com_local(j, link_com, i);
            tp_vec3 com = tp_mad(tp_add(tp_v3_load(qj), tp_q_rotate(a, cl)), tp_v3_load(v), h);
            tp_quat d = tp_q_mul(tp_q(v[3], v[4], v[5], 0.0f), a);
            float hh = 0.5f * h;
            a = tp_q_normalize(tp_q(a.x + d.x * hh, a.y + d.y * hh, a.z + d.z * hh, a.w + d.w * hh));
            tp_q_store(qj + 3, a);
            tp_v3_store(qj, tp_sub(com, tp_q_rotate(a, cl)));
        }
    }
}

/* Total external spatial force on a tree about O (gravity, applied link
 * forces, joint_f on the free dofs), with x holding the tree's kinematics. */
TP_HD tp_svec tp_artic_external(const tp_artic_model *m, const tp_artic_tree *tr, const tp_artic_world *s,
                                const tp_artic_scratch *x, tp_vec3 g)
{
    tp_svec f = tp_sv_zero();
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_sinertia *I = &x->li[i];
        f = tp_sv_add(f, tp_sv(tp_cross(I->h, g), tp_scale(g, I->m)));
        f = tp_sv_add(f, tp_artic_ext_force(m, s, x, i));
    }
    const tp_artic_joint *r = &m->joints[tr->first];
    tp_vec3 fl = tp_v3_load(s->f + r->v_start), tq = tp_v3_load(s->f + r->v_start + 3);
    tp_vec3 c = tp_v3_load(x->lc + 3 * tr->first);
    return tp_sv_add(f, tp_sv(tp_add(tq, tp_cross(c, fl)), fl));
}

/* Step 6: change the free base's velocity by the rigid motion dv that brings
 * the momentum to `target`: (sum of inertias) dv = target - momentum. */
TP_HD void tp_artic_fix_momentum(const tp_artic_model *m, const tp_artic_tree *tr, tp_artic_world *s,
                                 tp_artic_scratch *x, tp_svec target)
{
    tp_svec err = tp_sv_sub(target, tp_artic_momentum(tr, x));
    tp_sinertia t = x->li[tr->first];
    for (int i = tr->first + 1; i < tr->end; ++i) tp_si_add_to(&t, &x->li[i]);
    float a[36], b[6];
    for (int c = 0; c < 6; ++c) {
        tp_svec e = tp_sv(tp_v3(c == 0, c == 1, c == 2), tp_v3(c == 3, c == 4, c == 5));
        tp_sv_store(b, tp_si_mul(&t, e));
        for (int r = 0; r < 6; ++r) a[r * 6 + c] = b[r];
    }
    tp_sv_store(b, err);
    tp_ldl_factor(a, 6);
    tp_ldl_solve(a, 6, b);
    tp_vec3 dw = tp_v3_load(b), dvo = tp_v3_load(b + 3);
    float *qd = s->qd + m->joints[tr->first].v_start;
    tp_vec3 c = tp_v3_load(x->lc + 3 * tr->first);
    tp_v3_store(qd, tp_add(tp_v3_load(qd), tp_add(dvo, tp_cross(dw, c))));
    tp_v3_store(qd + 3, tp_add(tp_v3_load(qd + 3), dw));
}

/* Write the links' poses and velocities (COM linear, angular) to the body arrays. */
TP_HD void tp_artic_publish(const tp_artic_model *m, const tp_artic_tree *tr, const tp_artic_scratch *x, tp_world *wd)
{
    for (int i = tr->first; i < tr->end; ++i) {
        int b = m->joints[i].body;
        for (int k = 0; k < 3; ++k) wd->pos[3 * b + k] = x->lp[3 * i + k];
        for (int k = 0; k < 4; ++k) wd->quat[4 * b + k] = x->lq[4 * i + k];
        tp_svec v = tp_sv_load(x->lv + 6 * i);
        tp_v3_store(wd->v + 3 * b, tp_add(v.l, tp_cross(v.a, tp_v3_load(x->lc + 3 * i))));
        tp_v3_store(wd->w + 3 * b, v.a);
    }
}

/* Poses and velocities of every link from (q, qd) without stepping (after a
 * reset or a write of joint_q / joint_qd). */
TP_HD void tp_artic_world_publish(const tp_artic_model *m, tp_artic_world *s, tp_world *wd, void *scratch)
{
    tp_artic_scratch x = tp_artic_scratch_at(scratch, m, 0);
    x.link_com = s->link_com;
    tp_vec3 g = tp_v3(wd->gravity[0], wd->gravity[1], wd->gravity[2]);
    for (int t = 0; t < m->tree_count; ++t) {
        const tp_artic_tree *tr = &m->trees[t];
        tp_artic_use_tree(m, &x, t);
        tp_vec3 o = tp_artic_reference(m, tr, s->q);
        tp_artic_fk(m, tr, s->q, o, &x);
        tp_artic_motion(m, tr, s->qd, g, &x);
        tp_artic_publish(m, tr, &x, wd);
    }
}

#endif
