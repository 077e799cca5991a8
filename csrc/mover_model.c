/* mover_model.c - movers in the builder and the model: defaults, checks, the
 * kernels' table, the model's queries. */
#include "mover_host.h"

#include "error.h"
#include "named_list.h"
#include "model.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tp_mover_def tp_default_mover_def(void)
{
    tp_mover_def d;
    memset(&d, 0, sizeof d);
    d.type = TP_MOVER_ALIGN_POSITION;
    d.body0 = d.body1 = -1;
    d.quat0[3] = d.quat1[3] = 1.0f;
    d.target[3] = 1.0f;
    d.enabled = 1;
    d.relative_to = TP_FRAME_WORLD;
    d.velocity_mode = TP_VELOCITY_VECTOR;
    d.line_direction[0] = 1.0f;
    d.tangent0[0] = 1.0f;
    d.tangent1[1] = 1.0f;
    d.responsiveness = 10.0f;
    d.max_velocity = FLT_MAX;
    d.max_force = FLT_MAX;
    return d;
}

tp_mover_def tp_default_mover_def_of(tp_mover_type type)
{
    tp_mover_def d = tp_default_mover_def();
    d.type = type;
    if (type == TP_MOVER_VECTOR_FORCE || type == TP_MOVER_TORQUE) d.relative_to = TP_FRAME_ATTACHMENT0;
    if (type != TP_MOVER_ALIGN_ORIENTATION) d.target[3] = 0.0f;
    return d;
}

static int finite_n(const float *v, int n)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

static int nonzero3(const float *v) { return finite_n(v, 3) && (v[0] != 0.0f || v[1] != 0.0f || v[2] != 0.0f); }

static int quat_ok(const float *q) { return finite_n(q, 4) && (q[0] != 0.0f || q[1] != 0.0f || q[2] != 0.0f || q[3] != 0.0f); }

static tp_status check_body(int body_count, int body, const char *field)
{
    if (body < -1 || body >= body_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: %s: no body %d (the model has %d so far; -1: not set)", field,
                       body, body_count);
    return TP_OK;
}

/* A limit: >= 0, not NaN (FLT_MAX: none). */
static tp_status check_limit(float v, const char *field)
{
    if (!(v >= 0.0f) || isinf(v))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: %s: must be >= 0 and finite (%g for none), got %g", field,
                       (double)FLT_MAX, (double)v);
    return TP_OK;
}

/* The value checks, naming the field at fault. */
static tp_status check_def(int body_count, const tp_mover_def *d)
{
    tp_status st;
    if ((unsigned)d->type >= TP_MOVER_TYPE_COUNT)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: type: unknown type %d", (int)d->type);
    if ((st = check_body(body_count, d->body0, "body0")) != TP_OK) return st;
    if ((st = check_body(body_count, d->body1, "body1")) != TP_OK) return st;
    if (d->body0 >= 0 && d->body0 == d->body1)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: body1: the same body as body0 (%d)", d->body0);
    if (!finite_n(d->pos0, 3) || !finite_n(d->pos1, 3))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: %s: must be finite", finite_n(d->pos0, 3) ? "pos1" : "pos0");
    if (!quat_ok(d->quat0) || !quat_ok(d->quat1))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: %s: must be a finite, non-zero quaternion",
                       quat_ok(d->quat0) ? "quat1" : "quat0");
    if (!finite_n(d->target, 4))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: target: must be finite, got [%g, %g, %g, %g]",
                       (double)d->target[0], (double)d->target[1], (double)d->target[2], (double)d->target[3]);
    if ((st = tp_position_check(d->pos0, "mover", "pos0")) || (st = tp_position_check(d->pos1, "mover", "pos1")))
        return st;
    if (d->type == TP_MOVER_ALIGN_POSITION && (st = tp_position_check(d->target, "mover", "target"))) return st;
    if (d->type == TP_MOVER_ALIGN_ORIENTATION && !d->two_attachment && !quat_ok(d->target))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: target: an align_orientation's goal must be a non-zero "
                       "quaternion [x, y, z, w]");
    if ((unsigned)d->relative_to > TP_FRAME_ATTACHMENT1)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: relative_to: unknown frame %d", (int)d->relative_to);
    if ((unsigned)d->velocity_mode > TP_VELOCITY_VECTOR)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: velocity_mode: unknown mode %d", (int)d->velocity_mode);
    if (d->type == TP_MOVER_LINEAR_VELOCITY && d->velocity_mode == TP_VELOCITY_LINE && !nonzero3(d->line_direction))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: line_direction: must be a finite, non-zero direction");
    if (d->type == TP_MOVER_LINEAR_VELOCITY && d->velocity_mode == TP_VELOCITY_PLANE) {
        if (!nonzero3(d->tangent0) || !nonzero3(d->tangent1))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: %s: must be a finite, non-zero direction",
                           nonzero3(d->tangent0) ? "tangent1" : "tangent0");
        tp_vec3 a = tp_normalize_or(tp_v3_load(d->tangent0), tp_v3(1.0f, 0.0f, 0.0f)), b = tp_normalize_or(tp_v3_load(d->tangent1), tp_v3(1.0f, 0.0f, 0.0f));
        if (tp_len(tp_cross(a, b)) < 1e-3f)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: tangent1: parallel to tangent0 (a plane needs two directions)");
    }
    if (!(d->responsiveness >= 0.0f) || !isfinite(d->responsiveness))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: responsiveness: must be >= 0 and finite, got %g",
                       (double)d->responsiveness);
    if ((st = check_limit(d->max_velocity, "max_velocity")) != TP_OK) return st;
    if ((st = check_limit(d->max_force, "max_force")) != TP_OK) return st;
    if (d->enabled != 0 && d->enabled != 1)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mover: enabled: must be 0 or 1, got %d", d->enabled);
    return TP_OK;
}

tp_status tp_mover_builder_add(tp_mover_builder *mb, int body_count, const tp_mover_def *def, int *out_index)
{
    if (!def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_mover: def is NULL");
    tp_status st = check_def(body_count, def);
    if (st != TP_OK) return st;
    void *items = mb->defs;
    st = tp_named_list_add(&items, &mb->count, &mb->capacity, sizeof(tp_mover_def), offsetof(tp_mover_def, name), def, "mover",
                           "tp_builder_add_mover", out_index);
    mb->defs = items;
    return st;
}

void tp_mover_builder_free(tp_mover_builder *mb)
{
    tp_named_list_free(mb->defs, mb->count, sizeof(tp_mover_def), offsetof(tp_mover_def, name));
    memset(mb, 0, sizeof *mb);
}

void tp_mover_host_free(tp_mover_host *h)
{
    if (!h) return;
    tp_named_list_free(h->defs, h->count, sizeof(tp_mover_def), offsetof(tp_mover_def, name));
    free(h->table);
    free(h->initial);
    free(h);
}

/* A direction stored unit (an unused one may be zero: left as given). */
static void unit3(float *v)
{
    if (nonzero3(v)) tp_v3_store(v, tp_normalize_or(tp_v3_load(v), tp_v3_load(v)));
}

/* The per-substep gain (1/s) of the approach law: seed 004 moves a goal
 * `distance x rate` per second, worked out once per physics step of dt, so a
 * step leaves (1 - rate dt) of the distance (none at rate dt >= 1: "at 200 it
 * gets there in one physics step"); S substeps of h = dt / S each leave the
 * S-th root of that, i.e. they head for the goal at gain x distance. */
static float approach_gain(float rate, float dt, int substeps)
{
    double left = 1.0 - fmin((double)rate * (double)dt, 1.0);
    double h = (double)dt / (double)substeps;
    return (float)((1.0 - pow(left, 1.0 / (double)substeps)) / h);
}

static void table_entry(const tp_mover_def *d, const tp_model_def *md, tp_mover_model *t)
{
    memset(t, 0, sizeof *t);
    t->type = (uint8_t)d->type;
    t->relative_to = (uint8_t)d->relative_to;
    t->velocity_mode = (uint8_t)d->velocity_mode;
    t->flags = (uint8_t)((d->two_attachment ? TP_MOVER_TWO_ATTACHMENT : 0) | (d->rigid ? TP_MOVER_RIGID : 0) |
                         (d->apply_at_com ? TP_MOVER_AT_COM : 0) | (d->reaction ? TP_MOVER_REACTION : 0) |
                         (d->primary_axis_only ? TP_MOVER_PRIMARY_AXIS : 0));
    t->body0 = d->body0;
    t->body1 = d->body1;
    memcpy(t->pos0, d->pos0, sizeof t->pos0);
    memcpy(t->pos1, d->pos1, sizeof t->pos1);
    memcpy(t->quat0, d->quat0, sizeof t->quat0);
    memcpy(t->quat1, d->quat1, sizeof t->quat1);
    memcpy(t->line, d->line_direction, sizeof t->line);
    memcpy(t->tangent0, d->tangent0, sizeof t->tangent0);
    memcpy(t->tangent1, d->tangent1, sizeof t->tangent1);
    t->gain = approach_gain(d->responsiveness * TP_MOVER_RATE_PER_RESPONSIVENESS, md->dt, md->substeps);
    t->max_velocity = d->max_velocity;
    t->max_force = d->max_force;
}

tp_status tp_mover_compile(const tp_mover_builder *mb, tp_model *m)
{
    if (mb->count == 0) return TP_OK;
    for (int k = 0; k < mb->count; ++k) {
        const tp_mover_def *d = &mb->defs[k];
        tp_status st = tp_ends_not_links_check(m, "movers", k, "mover", d->name, d->body0, d->body1,
                                               "drive links with actuators");
        if (st != TP_OK) return st;
    }
    tp_mover_host *h = calloc(1, sizeof *h);
    if (!h) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory for the movers");
    m->movers = h;
    h->defs = calloc((size_t)mb->count, sizeof *h->defs);
    h->table = calloc((size_t)mb->count, sizeof *h->table);
    h->initial = calloc((size_t)mb->count, sizeof *h->initial); /* padding zero too: copied as words */
    if (!h->defs || !h->table || !h->initial) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory for the movers");
    for (int k = 0; k < mb->count; ++k) {
        tp_mover_def d = mb->defs[k];
        d.name = tp_name_copy(mb->defs[k].name);
        if (!d.name) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory for the movers");
        h->count = k + 1;
        tp_q_store(d.quat0, tp_q_normalize_any(tp_q_load(d.quat0)));
        tp_q_store(d.quat1, tp_q_normalize_any(tp_q_load(d.quat1)));
        if (d.type == TP_MOVER_ALIGN_ORIENTATION && quat_ok(d.target))
            tp_q_store(d.target, tp_q_normalize_any(tp_q_load(d.target)));
        unit3(d.line_direction);
        unit3(d.tangent0);
        unit3(d.tangent1);
        h->defs[k] = d;
        table_entry(&d, &m->def, &h->table[k]);
        memcpy(h->initial[k].target, d.target, sizeof h->initial[k].target);
        h->initial[k].enabled = (uint8_t)d.enabled;
        h->initial[k].other = -1;
    }
    return TP_OK;
}

int tp_model_mover_count(const tp_model *m) { return m && m->movers ? m->movers->count : 0; }

tp_status tp_model_mover(const tp_model *m, int index, tp_mover_def *out)
{
    if (!m || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_mover: model or out is NULL");
    int n = tp_model_mover_count(m);
    if (index < 0 || index >= n)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_mover: index %d out of range (%d movers)", index, n);
    *out = m->movers->defs[index];
    return TP_OK;
}

int tp_model_find_mover(const tp_model *m, const char *name)
{
    if (!name) return -1;
    for (int k = 0; k < tp_model_mover_count(m); ++k)
        if (strcmp(m->movers->defs[k].name, name) == 0) return k;
    return -1;
}

int tp_mover_builder_find(const tp_mover_builder *mb, const char *name)
{
    for (int k = 0; k < mb->count; ++k)
        if (mb->defs[k].name && strcmp(mb->defs[k].name, name) == 0) return k;
    return -1;
}
