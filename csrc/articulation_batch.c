/* articulation_batch.c - the public joint calls of a batch: the joint view
 * and the batched, all-or-nothing writes of joint state and targets (which
 * wake the world's trees). The arrays themselves: csrc/articulation_world.c. */
#include "articulation_host.h"
#include "batch.h"
#include "batch_wake.h"
#include "error.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const tp_artic_host *host_of(const tp_batch *b) { return b->model->artic; }

tp_status tp_batch_joints(tp_batch *b, tp_joint_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_joints: batch or out is NULL");
    memset(out, 0, sizeof *out);
    out->worlds = b->worlds;
    if (!b->artic) return TP_OK;
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_BODIES); /* CUDA: the joint arrays' group */
    if (st != TP_OK) return st;
    const tp_artic_model *km = &host_of(b)->km;
    out->nq = km->nq;
    out->nv = km->nv;
    out->q = b->artic->q;
    out->qd = b->artic->qd;
    out->f = b->artic->f;
    out->target_q = b->artic->target_q;
    out->target_qd = b->artic->target_qd;
    return TP_OK;
}

static const char *const array_names[] = {"joint_q", "joint_qd", "joint_f", "target_q", "target_qd"};

/* A row of joint_q for world slot i: finite, and quaternions of ball and free joints not zero. */
static tp_status check_q_row(const tp_artic_model *km, const float *row, int i, const char *call)
{
    for (int j = 0; j < km->joint_count; ++j) {
        const tp_artic_joint *jt = &km->joints[j];
        int qo = jt->type == TP_AJ_BALL ? jt->q_start : jt->type == TP_AJ_FREE ? jt->q_start + 3 : -1;
        if (qo < 0) continue;
        /* only all zeros: any other finite quaternion is normalized safely (tp_q_normalize_any) */
        if (row[qo] == 0.0f && row[qo + 1] == 0.0f && row[qo + 2] == 0.0f && row[qo + 3] == 0.0f)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: joint_q row %d: the quaternion at [%d, %d) is zero", call,
                           i, qo, qo + 4);
    }
    return TP_OK;
}

/* Positions of 1-dof joints in a joint_q row (at their q_start) or a target_q
 * row (at their v_start) within TP_MAX_JOINT_Q. */
static tp_status check_positions(const tp_artic_host *h, const float *row, int i, int target, const char *call)
{
    const tp_artic_model *km = &h->km;
    for (int j = 0; j < km->joint_count; ++j) {
        const tp_artic_joint *jt = &km->joints[j];
        if (jt->type != TP_AJ_REVOLUTE && jt->type != TP_AJ_PRISMATIC) continue;
        int k = target ? jt->v_start : jt->q_start;
        if (!(fabsf(row[k]) <= TP_MAX_JOINT_Q))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s row %d [%d] (%s): must be within [%g, %g] rad or m "
                           "(TP_MAX_JOINT_Q), got %g", call, target ? "target_q" : "joint_q", i, k,
                           h->dof_names[jt->v_start], -(double)TP_MAX_JOINT_Q, (double)TP_MAX_JOINT_Q, (double)row[k]);
    }
    return TP_OK;
}

/* Every entry of a joint_qd or target_qd row within TP_MAX_JOINT_QD. */
static tp_status check_velocities(const tp_artic_host *h, const float *row, int i, const char *array,
                                  const char *call)
{
    for (int k = 0; k < h->km.nv; ++k)
        if (!(fabsf(row[k]) <= TP_MAX_JOINT_QD))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s row %d [%d] (%s): must be within [%g, %g] rad/s or m/s "
                           "(TP_MAX_JOINT_QD), got %g", call, array, i, k, h->dof_names[k],
                           -(double)TP_MAX_JOINT_QD, (double)TP_MAX_JOINT_QD, (double)row[k]);
    return TP_OK;
}

/* What entry k of array `which` is: a dof's name, or for joint_q its joint's name. */
static const char *entry_name(const tp_artic_host *h, tp_joint_array which, int k)
{
    if (which != TP_JOINT_ARRAY_Q) return h->dof_names[k];
    for (int j = 0; j < h->km.joint_count; ++j)
        if (k >= h->joints[j].q_start && k < h->joints[j].q_start + h->joints[j].nq) return h->names[h->added_of[j]];
    return "?";
}

/* Every row of one array `which` that the write reads: finite, and a position
 * or quaternion the model accepts. */
static tp_status check_array(const tp_batch *b, tp_joint_array which, const tp_world_select *s, const float *values,
                             const char *call)
{
    const tp_artic_model *km = &host_of(b)->km;
    int n = which == TP_JOINT_ARRAY_Q ? km->nq : km->nv;
    tp_status st;
    for (int i = 0, rows = tp_select_rows(b, s); i < rows; ++i) {
        if (tp_select_world(s, i) < 0) continue;
        const float *row = values + (size_t)i * (size_t)n;
        for (int k = 0; k < n; ++k)
            if (!isfinite(row[k]))
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s row %d [%d] (%s): must be finite, got %g", call,
                               array_names[which], i, k, entry_name(host_of(b), which, k), (double)row[k]);
        if (which == TP_JOINT_ARRAY_Q && (st = check_q_row(km, row, i, call))) return st;
        if ((which == TP_JOINT_ARRAY_QD || which == TP_JOINT_ARRAY_TARGET_QD) &&
            (st = check_velocities(host_of(b), row, i, array_names[which], call)))
            return st;
        if ((which == TP_JOINT_ARRAY_Q || which == TP_JOINT_ARRAY_TARGET_Q) &&
            (st = check_positions(host_of(b), row, i, which == TP_JOINT_ARRAY_TARGET_Q, call)))
            return st;
    }
    return TP_OK;
}

/* Row i of `values` into world w's array `which` (checked before). */
static void write_row(tp_batch *b, tp_joint_array which, int w, const float *values, int i)
{
    const tp_artic_model *km = &host_of(b)->km;
    int n = which == TP_JOINT_ARRAY_Q ? km->nq : km->nv;
    tp_artic_world s = tp_artic_batch_world(b, w);
    float *dst[] = {s.q, s.qd, s.f, s.target_q, s.target_qd};
    memcpy(dst[which], values + (size_t)i * (size_t)n, (size_t)n * sizeof(float));
    if (which == TP_JOINT_ARRAY_Q)
        for (int j = 0; j < km->joint_count; ++j) {
            const tp_artic_joint *jt = &km->joints[j];
            int qo = jt->type == TP_AJ_BALL ? jt->q_start : jt->type == TP_AJ_FREE ? jt->q_start + 3 : -1;
            if (qo >= 0) tp_q_store(s.q + qo, tp_q_normalize_any(tp_q_load(s.q + qo))); /* 3e38 and 1e-20 too */
        }
}

/* The selection and the arrays of values[TP_JOINT_ARRAY_COUNT] that are not
 * NULL, all checked; *moves / *wakes: whether writing them moves the links
 * and wakes the trees. */
static tp_status check_arrays(tp_batch *b, const tp_world_select *s, const float *const values[TP_JOINT_ARRAY_COUNT],
                              const char *call, int *moves, int *wakes)
{
    tp_status st = tp_select_check(b, s, call);
    if (st) return st;
    if (!b->artic) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: model \"%s\" has no joints", call, b->model->name);
    *moves = *wakes = 0;
    for (int a = 0; a < TP_JOINT_ARRAY_COUNT; ++a) {
        if (!values[a]) continue;
        if ((st = check_array(b, (tp_joint_array)a, s, values[a], call))) return st;
        *moves |= a == TP_JOINT_ARRAY_Q || a == TP_JOINT_ARRAY_QD;
        *wakes |= a != TP_JOINT_ARRAY_F; /* joint_f wakes in the step (kernels/step.h, plan) */
    }
    return TP_OK;
}

tp_status tp_artic_check_joint_arrays(tp_batch *b, const tp_world_select *s,
                                      const float *const values[TP_JOINT_ARRAY_COUNT], const char *call)
{
    int moves, wakes;
    return check_arrays(b, s, values, call, &moves, &wakes);
}

/* The arrays of values[TP_JOINT_ARRAY_COUNT] that are not NULL, all checked
 * before any is written; each world is then published and woken once. */
static tp_status set_arrays(tp_batch *b, const tp_world_select *s, const float *const values[TP_JOINT_ARRAY_COUNT],
                            const char *call)
{
    int moves, wakes;
    tp_status st = check_arrays(b, s, values, call, &moves, &wakes);
    if (st || (st = tp_select_begin_writes(b, s))) return st; /* CUDA: every written world current on the host first */
    for (int i = 0, rows = tp_select_rows(b, s); i < rows; ++i) {
        int w = tp_select_world(s, i);
        if (w < 0) continue;
        for (int a = 0; a < TP_JOINT_ARRAY_COUNT; ++a)
            if (values[a]) write_row(b, (tp_joint_array)a, w, values[a], i);
        if (moves) tp_artic_batch_publish(b, w);
        if (wakes) tp_wake_trees(b, w);
    }
    return TP_OK;
}

tp_status tp_batch_set_joints(tp_batch *b, tp_joint_array which, const tp_world_select *s, const float *values)
{
    const char *call = "tp_batch_set_joints";
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if ((unsigned)which >= TP_JOINT_ARRAY_COUNT)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: unknown joint array %d", call, (int)which);
    if (b->artic && !values) {
        const tp_artic_model *km = &host_of(b)->km;
        int n = which == TP_JOINT_ARRAY_Q ? km->nq : km->nv, rows = tp_select_rows(b, s);
        if (rows > 0 && n > 0) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: values is NULL", call);
    }
    static const float nothing[1];
    const float *arrays[TP_JOINT_ARRAY_COUNT] = {NULL};
    arrays[which] = values ? values : nothing; /* no rows or no columns: nothing is read */
    return set_arrays(b, s, arrays, call);
}

tp_status tp_batch_set_joint_arrays(tp_batch *b, const tp_world_select *s,
                                    const float *const values[TP_JOINT_ARRAY_COUNT])
{
    const char *call = "tp_batch_set_joint_arrays";
    if (!values) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: values is NULL", call);
    return set_arrays(b, s, values, call);
}

tp_status tp_batch_reset_to_joint_state(tp_batch *b, const tp_world_select *s, const float *pos, const float *quat,
                                        const float *v, const float *w, const float *joint_q, const float *joint_qd)
{
    const char *call = "tp_batch_reset_to_joint_state";
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    tp_status st = tp_select_check(b, s, call);
    if (st) return st;
    if (!pos != !quat) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: give pos and quat together, or neither", call);
    if (!pos && (v || w)) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: velocities need pos and quat", call);
    const float *values[TP_JOINT_ARRAY_COUNT] = {joint_q, joint_qd, NULL, NULL, NULL};
    if ((joint_q || joint_qd) && (st = tp_artic_check_joint_arrays(b, s, values, call))) return st;
    st = pos ? tp_batch_reset_to_state(b, s, pos, quat, v, w) : tp_batch_reset_worlds(b, s);
    if (st || !(joint_q || joint_qd)) return st;
    return set_arrays(b, s, values, call);
}
