/* keyframe_model.c - keyframes (include/torpor_keyframes.h): checks, the
 * builder's list, the model's copy (full arrays in the batch layout) and its
 * queries. The reset from a keyframe: csrc/keyframe_batch.c. */
#include "keyframe_host.h"

#include "articulation_host.h"
#include "error.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tp_keyframe_def tp_default_keyframe_def(void)
{
    tp_keyframe_def d;
    memset(&d, 0, sizeof d);
    return d;
}

/* Coordinates and dofs of a joint type (torpor_joints.h). */
static int type_nq(tp_joint_type t) { return t == TP_JOINT_FREE ? 7 : t == TP_JOINT_BALL ? 4 : t == TP_JOINT_FIXED ? 0 : 1; }
static int type_nv(tp_joint_type t) { return t == TP_JOINT_FREE ? 6 : t == TP_JOINT_BALL ? 3 : t == TP_JOINT_FIXED ? 0 : 1; }

/* One array's length against the model's count and its values finite. */
static tp_status check_array(const char *name, const char *field, const float *v, int n, int want, const char *what)
{
    if (!v && n != 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "keyframe \"%s\": %s: NULL with %d values", name, field, n);
    if (v && n != want)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "keyframe \"%s\": %s: has %d values; the %s %d", name, field, n, what,
                       want);
    for (int k = 0; v && k < n; ++k)
        if (!isfinite(v[k]))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "keyframe \"%s\": %s: [%d] must be finite, got %g", name, field, k,
                           (double)v[k]);
    return TP_OK;
}

static tp_status check_def(const tp_keyframe_list *l, const tp_keyframe_def *d, int nq, int nv, int nu)
{
    if (!d->name || !d->name[0])
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "keyframe: name: a keyframe needs a name");
    for (int k = 0; k < l->count; ++k)
        if (strcmp(l->defs[k].name, d->name) == 0)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "keyframe \"%s\": name: already the name of keyframe %d", d->name, k);
    tp_status st;
    if ((st = check_array(d->name, "q", d->q, d->nq, nq, "joints have nq =")) ||
        (st = check_array(d->name, "qd", d->qd, d->nv, nv, "joints have nv =")) ||
        (st = check_array(d->name, "ctrl", d->ctrl, d->nu, nu, "actuators number")))
        return st;
    for (int k = 0; d->qd && k < d->nv; ++k)
        if (!(fabsf(d->qd[k]) <= TP_MAX_JOINT_QD))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "keyframe \"%s\": qd: [%d] must be within [%g, %g] rad/s or m/s "
                           "(TP_MAX_JOINT_QD), got %g", d->name, k, -(double)TP_MAX_JOINT_QD, (double)TP_MAX_JOINT_QD,
                           (double)d->qd[k]);
    return TP_OK;
}

/* A copy of n floats (NULL for none); *ok 0 when out of memory. */
static float *copy_floats(const float *v, int n, int *ok)
{
    if (!v || n <= 0) return NULL;
    float *c = malloc((size_t)n * sizeof *c);
    if (!c) *ok = 0;
    else memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

/* A copy of name (NULL when out of memory). */
static char *copy_name(const char *name)
{
    size_t n = strlen(name) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, name, n);
    return c;
}

static void free_def(tp_keyframe_def *d)
{
    free((void *)d->name);
    free((void *)d->q);
    free((void *)d->qd);
    free((void *)d->ctrl);
}

/* Append d (name and arrays copied). */
static tp_status append(tp_keyframe_list *l, const tp_keyframe_def *d)
{
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 4;
        tp_keyframe_def *p = realloc(l->defs, (size_t)cap * sizeof *p);
        if (!p) return tp_fail(TP_ERR_OUT_OF_MEMORY, "keyframe: out of memory");
        l->defs = p;
        l->capacity = cap;
    }
    int ok = 1;
    tp_keyframe_def k = *d;
    char *name = copy_name(d->name);
    k.name = name;
    k.q = copy_floats(d->q, d->nq, &ok);
    k.qd = copy_floats(d->qd, d->nv, &ok);
    k.ctrl = copy_floats(d->ctrl, d->nu, &ok);
    if (!name || !ok) {
        free_def(&k);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "keyframe: out of memory");
    }
    l->defs[l->count++] = k;
    return TP_OK;
}

tp_status tp_keyframe_list_add(tp_keyframe_list *l, const tp_joint_def *joints, int joint_count, int nu,
                               const tp_keyframe_def *def, int *out_index)
{
    if (!def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_keyframe: def is NULL");
    int nq = 0, nv = 0;
    for (int j = 0; j < joint_count; ++j) nq += type_nq(joints[j].type), nv += type_nv(joints[j].type);
    tp_status st = check_def(l, def, nq, nv, nu);
    if (st != TP_OK) return st;
    if (out_index) *out_index = l->count;
    return append(l, def);
}

/* Keyframe d's q against the compiled joints: 1-dof positions within
 * TP_MAX_JOINT_Q, no zero quaternion; quaternions normalized in q. */
static tp_status check_q(const tp_artic_host *h, const char *name, float *q)
{
    for (int j = 0; j < h->km.joint_count; ++j) {
        const tp_artic_joint *jt = &h->joints[j];
        const char *joint = h->names[h->added_of[j]];
        if (jt->type == TP_AJ_REVOLUTE || jt->type == TP_AJ_PRISMATIC) {
            if (!(fabsf(q[jt->q_start]) <= TP_MAX_JOINT_Q))
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "keyframe \"%s\": q: [%d] (joint \"%s\") must be within [%g, %g] "
                               "rad or m (TP_MAX_JOINT_Q), got %g", name, jt->q_start, joint, -(double)TP_MAX_JOINT_Q,
                               (double)TP_MAX_JOINT_Q, (double)q[jt->q_start]);
            continue;
        }
        int qo = jt->type == TP_AJ_BALL ? jt->q_start : jt->type == TP_AJ_FREE ? jt->q_start + 3 : -1;
        if (qo < 0) continue;
        if (q[qo] == 0.0f && q[qo + 1] == 0.0f && q[qo + 2] == 0.0f && q[qo + 3] == 0.0f)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "keyframe \"%s\": q: the quaternion at [%d, %d) (joint \"%s\") is "
                           "zero", name, qo, qo + 4, joint);
        tp_q_store(q + qo, tp_q_normalize_any(tp_q_load(q + qo))); /* as tp_batch_set_joints writes it */
    }
    return TP_OK;
}

/* The model's keyframe from the builder's d: full arrays (the initial joint
 * state and controls 0 where d gives none), checked against the compiled joints. */
static tp_status compile_one(const tp_keyframe_def *d, const tp_artic_host *h, int nu, tp_keyframe_def *out)
{
    int nq = h ? h->km.nq : 0, nv = h ? h->km.nv : 0;
    tp_status st = TP_OK;
    if (d->q) st = check_array(d->name, "q", d->q, d->nq, nq, "joints have nq =");
    if (!st && d->qd) st = check_array(d->name, "qd", d->qd, d->nv, nv, "joints have nv =");
    if (!st && d->ctrl) st = check_array(d->name, "ctrl", d->ctrl, d->nu, nu, "actuators number");
    if (st) return st;
    int ok = 1;
    memset(out, 0, sizeof *out);
    out->nq = nq, out->nv = nv, out->nu = nu;
    out->name = copy_name(d->name);
    out->q = copy_floats(d->q ? d->q : h ? h->q0 : NULL, nq, &ok);
    out->qd = copy_floats(d->qd ? d->qd : h ? h->qd0 : NULL, nv, &ok);
    if (d->ctrl) out->ctrl = copy_floats(d->ctrl, nu, &ok);
    else if (nu > 0 && !(out->ctrl = calloc((size_t)nu, sizeof(float)))) ok = 0;
    if (!out->name || !ok) return tp_fail(TP_ERR_OUT_OF_MEMORY, "keyframe: out of memory");
    return h ? check_q(h, d->name, (float *)out->q) : TP_OK;
}

tp_status tp_keyframe_list_compile(const tp_keyframe_list *from, const tp_artic_host *h, int nu, tp_keyframe_list *to)
{
    if (from->count == 0) return TP_OK;
    to->defs = calloc((size_t)from->count, sizeof *to->defs);
    if (!to->defs) return tp_fail(TP_ERR_OUT_OF_MEMORY, "keyframe: out of memory");
    to->capacity = from->count;
    for (int i = 0; i < from->count; ++i) {
        tp_status st = compile_one(&from->defs[i], h, nu, &to->defs[i]);
        to->count = i + 1; /* what compile_one allocated is freed with the list */
        if (st != TP_OK) {
            if (st != TP_ERR_OUT_OF_MEMORY) tp_fail_item("keyframes", i);
            return st;
        }
    }
    return TP_OK;
}

void tp_keyframe_list_free(tp_keyframe_list *l)
{
    for (int k = 0; k < l->count; ++k) free_def(&l->defs[k]);
    free(l->defs);
    memset(l, 0, sizeof *l);
}

int tp_model_keyframe_count(const tp_model *m) { return m ? m->keyframes.count : 0; }

int tp_model_find_keyframe(const tp_model *m, const char *name)
{
    if (!m || !name) return -1;
    for (int k = 0; k < m->keyframes.count; ++k)
        if (strcmp(m->keyframes.defs[k].name, name) == 0) return k;
    return -1;
}

tp_status tp_model_keyframe(const tp_model *m, int index, tp_keyframe_def *out)
{
    if (!m || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_keyframe: model or out is NULL");
    if (index < 0 || index >= m->keyframes.count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_keyframe: index %d out of range (%d keyframes)", index,
                       m->keyframes.count);
    *out = m->keyframes.defs[index];
    return TP_OK;
}
