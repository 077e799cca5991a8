/* constraint_model.c - constraints between two bodies in the builder and the
 * model: defaults, checks, the kernels' table, the model's queries. */
#include "constraint_host.h"

#include "error.h"
#include "named_list.h"
#include "model.h"
#include "names.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define type_names tp_constraint_type_names

tp_constraint_def tp_default_constraint_def(void)
{
    tp_constraint_def d;
    memset(&d, 0, sizeof d);
    d.type = TP_CONSTRAINT_HINGE;
    d.body0 = d.body1 = -1;
    d.quat0[3] = d.quat1[3] = 1.0f;
    d.speed = 1.0f;
    d.stiffness = 100.0f;
    d.enabled = 1;
    d.winch_target = -1.0f;
    d.winch_speed = 2.0f;
    d.winch_responsiveness = 45.0f;
    d.winch_force = 10000.0f;
    return d;
}

static int finite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* A quaternion that can be normalized: finite, not all zero. */
static int quat_ok(const float *q)
{
    return isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3]) &&
           (q[0] != 0.0f || q[1] != 0.0f || q[2] != 0.0f || q[3] != 0.0f);
}

/* Body `body` (field "body0"/"body1") against the bodies so far. */
static tp_status check_body(int body_count, int body, const char *field)
{
    if (body < -1 || body >= body_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: %s: no body %d (the model has %d so far; -1 is the world)",
                       field, body, body_count);
    return TP_OK;
}

/* A value >= 0 and finite. */
static tp_status check_nonneg(float v, const char *field)
{
    if (!(v >= 0.0f) || !isfinite(v))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: %s: must be >= 0 and finite, got %g", field, (double)v);
    return TP_OK;
}

/* A length (m) in [0, TP_MAX_SIZE] (so its squares stay finite). */
static tp_status check_length(float v, const char *field)
{
    if (!(v >= 0.0f && v <= TP_MAX_SIZE))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: %s: must be within [0, %g] m, got %g", field,
                       (double)TP_MAX_SIZE, (double)v);
    return TP_OK;
}

/* The ball socket's limits, the winch and enabled. */
static tp_status check_more(const tp_constraint_def *d)
{
    tp_status st;
    if (d->enabled != 0 && d->enabled != 1)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: enabled: must be 0 or 1, got %d", d->enabled);
    if ((d->cone || d->twist) && d->type != TP_CONSTRAINT_BALL)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: %s: only a ball socket has one (this is a %s)",
                       d->cone ? "cone" : "twist", type_names[d->type]);
    if (d->cone && !(d->cone_angle >= 0.0f && d->cone_angle <= 3.1416f))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: cone_angle: must lie in [0, pi] rad, got %g",
                       (double)d->cone_angle);
    if (d->twist && !(d->twist_lower <= d->twist_upper && d->twist_lower >= -3.1416f && d->twist_upper <= 3.1416f))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: twist: need -pi <= twist_lower <= twist_upper <= pi rad, "
                       "got [%g, %g]", (double)d->twist_lower, (double)d->twist_upper);
    if (d->winch && d->type != TP_CONSTRAINT_ROPE)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: winch: only a rope has one (this is a %s)",
                       type_names[d->type]);
    if (!isfinite(d->winch_target))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: winch_target: must be finite, got %g",
                       (double)d->winch_target);
    if (d->winch_target >= 0.0f && (st = check_length(d->winch_target, "winch_target"))) return st; /* < 0: the length */
    if ((st = check_nonneg(d->winch_speed, "winch_speed")) || (st = check_nonneg(d->winch_force, "winch_force")) ||
        (st = check_nonneg(d->winch_responsiveness, "winch_responsiveness")))
        return st;
    return TP_OK;
}

/* The value checks, naming the field at fault. */
static tp_status check_def(const tp_body_def *bodies, int body_count, const tp_constraint_def *d)
{
    tp_status st;
    if ((unsigned)d->type >= TP_CONSTRAINT_TYPE_COUNT)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: type: unknown type %d", (int)d->type);
    if ((st = check_body(body_count, d->body0, "body0")) != TP_OK) return st;
    if ((st = check_body(body_count, d->body1, "body1")) != TP_OK) return st;
    if (d->body0 == d->body1)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, d->body0 < 0 ? "constraint: body0, body1: both are the world"
                                                             : "constraint: body1: the same body as body0 (%d)", d->body0);
    int dyn0 = d->body0 >= 0 && bodies[d->body0].type == TP_BODY_DYNAMIC;
    int dyn1 = d->body1 >= 0 && bodies[d->body1].type == TP_BODY_DYNAMIC;
    if (!dyn0 && !dyn1)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: body0, body1: neither is a dynamic body (one must move)");
    if (!finite3(d->pos0) || !finite3(d->pos1))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: %s: must be finite", finite3(d->pos0) ? "pos1" : "pos0");
    if ((st = tp_position_check(d->pos0, "constraint", "pos0")) || (st = tp_position_check(d->pos1, "constraint", "pos1")))
        return st;
    if (!quat_ok(d->quat0) || !quat_ok(d->quat1))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: %s: must be a finite, non-zero quaternion (the axis is "
                       "undefined)", quat_ok(d->quat0) ? "quat1" : "quat0");
    if ((unsigned)d->actuator > TP_CONS_SERVO)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: actuator: unknown actuator %d", (int)d->actuator);
    int drives = d->type == TP_CONSTRAINT_HINGE || d->type == TP_CONSTRAINT_PRISMATIC;
    if (!drives && (d->actuator != TP_CONS_FREE || d->limits))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: %s: only a hinge or a prismatic has one (this is a %s)",
                       d->limits ? "limits" : "actuator", type_names[d->type]);
    if (!isfinite(d->velocity) || !isfinite(d->target))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: %s: must be finite", isfinite(d->velocity) ? "target" : "velocity");
    if (!(d->speed > 0.0f) || !isfinite(d->speed))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: speed: must be > 0 and finite, got %g", (double)d->speed);
    if (!(d->max_force >= 0.0f) || !isfinite(d->max_force))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: max_force: must be >= 0 and finite, got %g", (double)d->max_force);
    if (d->limits && !(d->lower <= d->upper && isfinite(d->lower) && isfinite(d->upper)))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: limits: need lower <= upper, both finite, got [%g, %g]",
                       (double)d->lower, (double)d->upper);
    if (d->limits && d->type == TP_CONSTRAINT_HINGE && (d->lower < -3.1416f || d->upper > 3.1416f))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: limits: a hinge's must lie in [-pi, pi] rad, got [%g, %g]",
                       (double)d->lower, (double)d->upper);
    if (!(d->length >= 0.0f) || !isfinite(d->length))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: length: must be >= 0 and finite, got %g", (double)d->length);
    if ((st = check_length(d->length, "length"))) return st;
    if (!(d->restitution >= 0.0f && d->restitution <= 1.0f))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: restitution: must be in [0, 1], got %g", (double)d->restitution);
    if (d->type == TP_CONSTRAINT_SPRING && (!(d->stiffness > 0.0f) || !isfinite(d->stiffness)))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: stiffness: must be > 0 and finite, got %g", (double)d->stiffness);
    if (!(d->damping >= 0.0f) || !isfinite(d->damping))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "constraint: damping: must be >= 0 and finite, got %g", (double)d->damping);
    return check_more(d);
}

tp_status tp_cons_builder_add(tp_cons_builder *cb, const tp_body_def *bodies, int body_count,
                              const tp_constraint_def *def, int *out_index)
{
    if (!def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_constraint: def is NULL");
    tp_status st = check_def(bodies, body_count, def);
    if (st != TP_OK) return st;
    void *items = cb->defs;
    st = tp_named_list_add(&items, &cb->count, &cb->capacity, sizeof(tp_constraint_def), offsetof(tp_constraint_def, name), def, "constraint",
                           "tp_builder_add_constraint", out_index);
    cb->defs = items;
    return st;
}

void tp_cons_builder_free(tp_cons_builder *cb)
{
    tp_named_list_free(cb->defs, cb->count, sizeof(tp_constraint_def), offsetof(tp_constraint_def, name));
    memset(cb, 0, sizeof *cb);
}

void tp_cons_host_free(tp_cons_host *h)
{
    if (!h) return;
    tp_named_list_free(h->defs, h->count, sizeof(tp_constraint_def), offsetof(tp_constraint_def, name));
    free(h->table);
    free(h);
}

/* A weld's attachments: attachment1 at body1's origin, attachment0 where that
 * frame starts, in body0's frame (the world's for -1). */
static void weld_frames(const tp_model *m, tp_constraint_def *d)
{
    const tp_body_init *i1 = &m->body_init[d->body1 < 0 ? d->body0 : d->body1];
    tp_quat q1 = tp_q_load(i1->quat), q0 = tp_q_identity();
    tp_vec3 p1 = tp_v3_load(i1->pos), p0 = tp_v3(0.0f, 0.0f, 0.0f);
    if (d->body1 < 0) { /* body0 moves: attachment1 in the world where body0 starts */
        tp_v3_store(d->pos0, tp_v3(0.0f, 0.0f, 0.0f));
        tp_q_store(d->quat0, tp_q_identity());
        tp_v3_store(d->pos1, p1);
        tp_q_store(d->quat1, q1);
        return;
    }
    if (d->body0 >= 0) {
        q0 = tp_q_load(m->body_init[d->body0].quat);
        p0 = tp_v3_load(m->body_init[d->body0].pos);
    }
    tp_v3_store(d->pos0, tp_q_inv_rotate(q0, tp_sub(p1, p0)));
    tp_q_store(d->quat0, tp_q_normalize(tp_q_mul(tp_q_conj(q0), q1)));
    tp_v3_store(d->pos1, tp_v3(0.0f, 0.0f, 0.0f));
    tp_q_store(d->quat1, tp_q_identity());
}

static void table_entry(const tp_constraint_def *d, tp_cons_model *t)
{
    memset(t, 0, sizeof *t);
    t->type = (uint8_t)d->type;
    t->actuator = (uint8_t)d->actuator;
    t->limits = (uint8_t)(d->limits != 0);
    t->body0 = d->body0;
    t->body1 = d->body1;
    memcpy(t->pos0, d->pos0, sizeof t->pos0);
    memcpy(t->pos1, d->pos1, sizeof t->pos1);
    memcpy(t->quat0, d->quat0, sizeof t->quat0);
    memcpy(t->quat1, d->quat1, sizeof t->quat1);
    t->velocity = d->velocity;
    t->target = d->target;
    t->speed = d->speed;
    t->max_force = d->max_force;
    t->lower = d->lower;
    t->upper = d->upper;
    t->length = d->length;
    t->restitution = d->restitution;
    t->stiffness = d->stiffness;
    t->damping = d->damping;
    t->enabled = (uint8_t)(d->enabled != 0);
    t->cone = (uint8_t)(d->cone != 0);
    t->twist = (uint8_t)(d->twist != 0);
    t->cone_angle = d->cone_angle;
    t->twist_lower = d->twist_lower;
    t->twist_upper = d->twist_upper;
    t->winch = (uint8_t)(d->winch != 0);
    t->winch_target = d->winch_target;
    t->winch_speed = d->winch_speed;
    t->winch_responsiveness = d->winch_responsiveness;
    t->winch_force = d->winch_force;
}

tp_status tp_cons_compile(const tp_cons_builder *cb, tp_model *m)
{
    if (cb->count == 0) return TP_OK;
    for (int k = 0; k < cb->count; ++k) {
        const tp_constraint_def *d = &cb->defs[k];
        tp_status st = tp_ends_not_links_check(m, "constraints", k, "constraint", d->name, d->body0, d->body1,
                                               "join links with joints");
        if (st != TP_OK) return st;
    }
    tp_cons_host *h = calloc(1, sizeof *h);
    if (!h) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory for the constraints");
    m->cons = h;
    h->defs = calloc((size_t)cb->count, sizeof *h->defs);
    h->table = calloc((size_t)cb->count, sizeof *h->table);
    if (!h->defs || !h->table) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory for the constraints");
    for (int k = 0; k < cb->count; ++k) {
        tp_constraint_def d = cb->defs[k];
        d.name = tp_name_copy(cb->defs[k].name);
        if (!d.name) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory for the constraints");
        h->count = k + 1;
        tp_q_store(d.quat0, tp_q_normalize_any(tp_q_load(d.quat0)));
        tp_q_store(d.quat1, tp_q_normalize_any(tp_q_load(d.quat1)));
        if (d.type == TP_CONSTRAINT_WELD) weld_frames(m, &d);
        if (d.winch_target < 0.0f) d.winch_target = d.length; /* the winch holds still until written */
        h->defs[k] = d;
        table_entry(&d, &h->table[k]);
    }
    return TP_OK;
}

int tp_cons_builder_find(const tp_cons_builder *cb, const char *name)
{
    for (int k = 0; k < cb->count; ++k)
        if (strcmp(cb->defs[k].name, name) == 0) return k;
    return -1;
}

int tp_model_constraint_count(const tp_model *m) { return m && m->cons ? m->cons->count : 0; }

tp_status tp_model_constraint(const tp_model *m, int index, tp_constraint_def *out)
{
    if (!m || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_constraint: model or out is NULL");
    int n = tp_model_constraint_count(m);
    if (index < 0 || index >= n)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_constraint: index %d out of range (%d constraints)", index, n);
    *out = m->cons->defs[index];
    return TP_OK;
}

int tp_model_find_constraint(const tp_model *m, const char *name)
{
    if (!name) return -1;
    for (int k = 0; k < tp_model_constraint_count(m); ++k)
        if (strcmp(m->cons->defs[k].name, name) == 0) return k;
    return -1;
}
