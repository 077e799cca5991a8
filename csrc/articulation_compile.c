/* articulation_compile.c - a builder's joints into trees for kernels/articulation.h,
 * and the model's joint queries. */
#include "articulation_host.h"
#include "error.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int joint_nq[TP_JOINT_TYPE_COUNT] = {0, 1, 1, 4, 7};
static const int joint_nv[TP_JOINT_TYPE_COUNT] = {0, 1, 1, 3, 6};

void tp_artic_host_free(tp_artic_host *h)
{
    if (!h) return;
    if (h->names)
        for (int i = 0; i < h->km.joint_count; ++i) free(h->names[i]);
    if (h->dof_names)
        for (int i = 0; i < h->km.nv; ++i) free(h->dof_names[i]);
    free(h->names);
    free(h->dof_names);
    free(h->joints);
    free(h->trees);
    free(h->kernel_of);
    free(h->added_of);
    free(h->defs);
    free(h->q0);
    free(h->qd0);
    free(h->target_q0);
    free(h->target_qd0);
    tp_actuator_host_free(h);
    free(h);
}

/* Preorder of the tree under joint `j` (children in the order they were added). */
static void visit(const tp_joint_def *defs, int count, int j, int *order, int *n)
{
    order[(*n)++] = j;
    for (int c = 0; c < count; ++c)
        if (defs[c].parent == defs[j].child) visit(defs, count, c, order, n);
}

/* The unit vector of a joint axis that is finite and not all zero (checked by
 * tp_joint_def_check), whatever its length: where the float sum of squares
 * would overflow or underflow ([1e30, 0, 0], [1e-20, 0, 0]) the axis is first
 * divided by its largest |component|. In between, tp_normalize_or bit for bit. */
static tp_vec3 axis_unit(const float *a)
{
    tp_vec3 v = tp_v3_load(a);
    float l2 = tp_len_sq(v);
    if (!(l2 > 1e-24f && l2 < 1e30f)) {
        float m = fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fabsf(v.z));
        if (m > 0.0f && m < INFINITY) v = tp_v3(v.x / m, v.y / m, v.z / m); /* 1 / m overflows for 1e-45 */
    }
    return tp_normalize_or(v, tp_v3(0.0f, 0.0f, 1.0f));
}

/* Joint i's geometry at q = 0 from the scene's poses of its parent and child. */
static void joint_geometry(const tp_joint_def *d, const tp_model *m, tp_artic_joint *j)
{
    const tp_body_def *c = &m->body_defs[d->child];
    tp_quat cq = tp_q_load(c->quat), pq = tp_q_identity();
    tp_vec3 pp = tp_v3(0.0f, 0.0f, 0.0f);
    if (d->parent >= 0) {
        pq = tp_q_load(m->body_defs[d->parent].quat);
        pp = tp_v3_load(m->body_defs[d->parent].pos);
    }
    tp_vec3 anchor = tp_add(tp_v3_load(c->pos), tp_q_rotate(cq, tp_v3_load(d->anchor)));
    tp_q_store(j->rel_quat, tp_q_normalize(tp_q_mul(tp_q_conj(pq), cq)));
    tp_v3_store(j->parent_anchor, tp_q_inv_rotate(pq, tp_sub(anchor, pp)));
    memcpy(j->child_anchor, d->anchor, sizeof j->child_anchor);
    tp_v3_store(j->axis, axis_unit(d->axis));
}

static void fill_joint(const tp_joint_def *d, const tp_model *m, int parent_kernel, tp_artic_joint *j)
{
    memset(j, 0, sizeof *j);
    j->type = (int32_t)d->type;
    j->parent = parent_kernel;
    j->body = d->child;
    j->nq = joint_nq[d->type];
    j->nv = joint_nv[d->type];
    joint_geometry(d, m, j);
    j->has_limits = d->has_limits;
    j->lower = d->lower;
    j->upper = d->upper;
    j->damping = d->damping;
    j->friction = d->friction;
    j->armature = d->armature;
    j->stiffness = d->stiffness;
    j->rest = d->rest;
    j->drive = (int32_t)d->drive;
    j->kp = d->drive == TP_DRIVE_POSITION ? d->kp : 0.0f;
    j->kd = d->drive == TP_DRIVE_POSITION ? d->kd : 0.0f;
    j->max_effort = d->max_effort > 0.0f ? d->max_effort : 3.0e38f;
    const tp_body_model *bm = &m->bodies[d->child];
    j->mass = bm->mass;
    memcpy(j->com, bm->com, sizeof j->com);
    memcpy(j->inertia, bm->inertia, sizeof j->inertia);
}

/* Initial joint_q / joint_qd / targets of joint j. */
static void initial_values(const tp_joint_def *d, const tp_model *m, const tp_artic_joint *j, tp_artic_host *h)
{
    float *q = h->q0 + j->q_start, *qd = h->qd0 + j->v_start;
    const tp_body_def *c = &m->body_defs[d->child];
    if (j->nq == 1) {
        q[0] = d->q0;
        qd[0] = d->qd0;
        h->target_q0[j->v_start] = d->target_q;
        h->target_qd0[j->v_start] = d->target_qd;
    } else if (d->type == TP_JOINT_BALL) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
    } else if (d->type == TP_JOINT_FREE) {
        memcpy(q, c->pos, 3 * sizeof(float));
        memcpy(q + 3, c->quat, 4 * sizeof(float));
        memcpy(qd, c->vel, 3 * sizeof(float));
        memcpy(qd + 3, c->ang_vel, 3 * sizeof(float));
    }
}

static char *dof_name(const char *joint, tp_joint_type t, int k)
{
    static const char *const ball[3] = {".wx", ".wy", ".wz"};
    static const char *const free_[6] = {".vx", ".vy", ".vz", ".wx", ".wy", ".wz"};
    const char *suffix = t == TP_JOINT_BALL ? ball[k] : t == TP_JOINT_FREE ? free_[k] : "";
    size_t n = strlen(joint) + strlen(suffix) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s%s", joint, suffix);
    return s;
}

/* Trees, offsets and initial values of the joints in kernel order. */
static int build_trees(const tp_artic_builder *ab, const tp_model *m, const int *order, tp_artic_host *h)
{
    int J = ab->count, nq = 0, nv = 0, trees = 0;
    for (int k = 0; k < J; ++k) {
        const tp_joint_def *d = &ab->defs[order[k]];
        h->kernel_of[order[k]] = k;
        h->added_of[k] = order[k];
        int parent = -1;
        if (d->parent >= 0)
            for (int p = 0; p < k; ++p)
                if (ab->defs[order[p]].child == d->parent) parent = p;
        fill_joint(d, m, parent, &h->joints[k]);
        h->joints[k].q_start = nq;
        h->joints[k].v_start = nv;
        nq += h->joints[k].nq;
        nv += h->joints[k].nv;
        if (d->parent < 0) {
            tp_artic_tree *t = &h->trees[trees++];
            t->first = k;
            t->v_start = h->joints[k].v_start;
            t->free_root = d->type == TP_JOINT_FREE;
        }
        h->trees[trees - 1].end = k + 1;
        h->trees[trees - 1].nv = nv - h->trees[trees - 1].v_start;
    }
    h->km.tree_count = trees;
    h->km.nq = nq;
    h->km.nv = nv;
    for (int t = 0; t < trees; ++t)
        if (h->trees[t].nv > h->km.max_tree_nv) h->km.max_tree_nv = h->trees[t].nv;
    h->q0 = calloc((size_t)nq + 1, sizeof(float));
    h->qd0 = calloc((size_t)nv + 1, sizeof(float));
    h->target_q0 = calloc((size_t)nv + 1, sizeof(float));
    h->target_qd0 = calloc((size_t)nv + 1, sizeof(float));
    h->dof_names = calloc((size_t)nv + 1, sizeof(char *));
    if (!h->q0 || !h->qd0 || !h->target_q0 || !h->target_qd0 || !h->dof_names) return 0;
    for (int k = 0; k < J; ++k) {
        const tp_joint_def *d = &ab->defs[order[k]];
        initial_values(d, m, &h->joints[k], h);
        for (int i = 0; i < h->joints[k].nv; ++i)
            if (!(h->dof_names[h->joints[k].v_start + i] = dof_name(ab->names[order[k]], d->type, i))) return 0;
    }
    return 1;
}

/* Does the tree rooted at joint `root` have a drive with non-zero gains (or a
 * velocity motor), a passive spring or an actuator? Such a tree never sleeps. */
static int tree_driven(const tp_artic_host *h, int root)
{
    for (int t = 0; t < h->km.tree_count; ++t) {
        const tp_artic_tree *tr = &h->trees[t];
        if (tr->first != root) continue;
        for (int k = tr->first; k < tr->end; ++k) {
            const tp_artic_joint *j = &h->joints[k];
            if (j->stiffness != 0.0f || j->drive == TP_AD_VELOCITY ||
                (j->drive == TP_AD_POSITION && (j->kp != 0.0f || j->kd != 0.0f)))
                return 1;
        }
        for (int a = 0; a < h->km.actuator_count; ++a)
            if (&h->trees[h->actuators[a].tree] == tr) return 1;
    }
    return 0;
}

/* Links leave the rigid pipeline's dynamics: kinematic there, moved by the articulation. */
static void links_to_kinematic(tp_model *m, const tp_artic_host *h)
{
    for (int k = 0; k < h->km.joint_count; ++k) {
        int b = h->joints[k].body, root = k, parent = h->joints[k].parent;
        while (h->joints[root].parent >= 0) root = h->joints[root].parent;
        m->bodies[b].link = k + 1;
        m->bodies[b].link_root = h->joints[root].body + 1;
        m->bodies[b].link_parent = parent >= 0 ? h->joints[parent].body + 1 : 0;
        m->bodies[b].link_flags = (uint8_t)((h->joints[root].type != TP_AJ_FREE ? TP_LINK_FIXED_BASE : 0) |
                                            (tree_driven(h, root) ? TP_LINK_DRIVEN : 0));
        m->bodies[b].type = TP_BODY_KINEMATIC;
        m->body_init[b].dynamic = 0;
        m->body_init[b].inv_mass = 0.0f;
        for (int i = 0; i < 6; ++i) m->body_init[b].inv_inertia[i] = 0.0f;
        m->dynamic_count--;
    }
}

tp_status tp_artic_compile(const tp_artic_builder *ab, tp_model *m, int solver_iterations)
{
    m->artic = NULL;
    if (ab->count == 0) return TP_OK;
    int J = ab->count, bad = 0;
    char field[64], reason[256];
    if (!tp_joint_tree_check(ab->defs, J, m->body_defs, m->body_count, &bad, field, sizeof field, reason,
                             sizeof reason)) {
        tp_status st = tp_fail(TP_ERR_INVALID_ARGUMENT, "joints[%d] (%s): %s: %s", bad, ab->names[bad], field, reason);
        tp_fail_item("joints", bad);
        return st;
    }
    tp_artic_host *h = calloc(1, sizeof *h);
    int *order = calloc((size_t)J, sizeof *order);
    if (!h || !order) goto oom;
    h->km.joint_count = J;
    h->km.iterations = solver_iterations;
    h->joints = calloc((size_t)J, sizeof *h->joints);
    h->trees = calloc((size_t)J, sizeof *h->trees);
    h->kernel_of = calloc((size_t)J, sizeof *h->kernel_of);
    h->added_of = calloc((size_t)J, sizeof *h->added_of);
    h->defs = calloc((size_t)J, sizeof *h->defs);
    h->names = calloc((size_t)J, sizeof *h->names);
    if (!h->joints || !h->trees || !h->kernel_of || !h->added_of || !h->defs || !h->names) goto oom;
    for (int i = 0; i < J; ++i) {
        size_t n = strlen(ab->names[i]) + 1;
        if (!(h->names[i] = malloc(n))) goto oom;
        memcpy(h->names[i], ab->names[i], n);
        h->defs[i] = ab->defs[i];
        h->defs[i].name = h->names[i];
    }
    int n = 0;
    for (int i = 0; i < J; ++i)
        if (ab->defs[i].parent < 0) visit(ab->defs, J, i, order, &n);
    if (!build_trees(ab, m, order, h)) goto oom;
    for (int t = 0; t < h->km.tree_count; ++t)
        if (h->trees[t].nv > TP_MAX_TREE_DOFS) {
            int root = order[h->trees[t].first];
            tp_status st = tp_fail(TP_ERR_CAPACITY,
                                   "joints[%d] (%s): its tree has %d dofs (%d joints); at most %d per tree "
                                   "(TP_MAX_TREE_DOFS: a contact on a link costs about dofs^2 per substep)",
                                   root, ab->names[root], h->trees[t].nv, h->trees[t].end - h->trees[t].first,
                                   TP_MAX_TREE_DOFS);
            tp_fail_item("joints", root);
            free(order);
            tp_artic_host_free(h);
            return st;
        }
    h->km.joints = h->joints;
    h->km.trees = h->trees;
    if (!tp_actuator_compile(ab, h)) goto oom;
    links_to_kinematic(m, h);
    m->artic = h;
    free(order);
    return TP_OK;
oom:
    free(order);
    tp_artic_host_free(h);
    return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory for the joints");
}

/* ---------------------------------------------------------------- queries */

int tp_model_joint_count(const tp_model *m) { return m && m->artic ? m->artic->km.joint_count : 0; }
int tp_model_joint_q_count(const tp_model *m) { return m && m->artic ? m->artic->km.nq : 0; }
int tp_model_joint_dof_count(const tp_model *m) { return m && m->artic ? m->artic->km.nv : 0; }

int tp_model_find_joint(const tp_model *m, const char *name)
{
    if (!m || !m->artic || !name) return -1;
    for (int i = 0; i < m->artic->km.joint_count; ++i)
        if (strcmp(m->artic->names[i], name) == 0) return i;
    return -1;
}

const char *tp_model_joint_name(const tp_model *m, int joint)
{
    if (!m || !m->artic || joint < 0 || joint >= m->artic->km.joint_count) return NULL;
    return m->artic->names[joint];
}

const char *tp_model_dof_name(const tp_model *m, int dof)
{
    if (!m || !m->artic || dof < 0 || dof >= m->artic->km.nv) return NULL;
    return m->artic->dof_names[dof];
}

tp_status tp_model_joint(const tp_model *m, int joint, tp_joint_def *out)
{
    if (!m || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_joint: model or out is NULL");
    int n = tp_model_joint_count(m);
    if (joint < 0 || joint >= n)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_joint: joint must be in [0, %d), got %d", n, joint);
    *out = m->artic->defs[joint];
    return TP_OK;
}

tp_status tp_model_joint_slices(const tp_model *m, int joint, int *q_start, int *nq, int *v_start, int *nv)
{
    int n = tp_model_joint_count(m);
    if (joint < 0 || joint >= n)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_joint_slices: joint must be in [0, %d), got %d", n, joint);
    const tp_artic_joint *j = &m->artic->joints[m->artic->kernel_of[joint]];
    if (q_start) *q_start = j->q_start;
    if (nq) *nq = j->nq;
    if (v_start) *v_start = j->v_start;
    if (nv) *nv = j->nv;
    return TP_OK;
}
