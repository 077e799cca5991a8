/* constraint_params.c - per-world constraint parameters (include/torpor_constraints.h,
 * "Per-world parameters"): each world's copy of the constraint table
 * (csrc/constraint_batch.c) read and written column by column, a changed
 * constraint waking its bodies; and the value, force and impulse read-outs. */
#include "batch.h"
#include "batch_wake.h"
#include "constraint_host.h"
#include "error.h"
#include "mirror.h" /* TP_MIRROR_CONSTRAINTS */
#include "model.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const param_names[TP_CONS_PARAM_COUNT] = {
    "enabled", "velocity", "target", "speed", "max_force", "length", "restitution",
    "stiffness", "damping", "winch", "winch_target", "winch_speed", "winch_responsiveness", "winch_force"};

const char *tp_constraint_param_name(tp_constraint_param which)
{
    return (unsigned)which < TP_CONS_PARAM_COUNT ? param_names[which] : NULL;
}

/* The field of `which` in a table entry. */
static float *field(tp_cons_model *t, tp_constraint_param which)
{
    switch (which) {
    case TP_CONS_VELOCITY: return &t->velocity;
    case TP_CONS_TARGET: return &t->target;
    case TP_CONS_SPEED: return &t->speed;
    case TP_CONS_MAX_FORCE: return &t->max_force;
    case TP_CONS_LENGTH: return &t->length;
    case TP_CONS_RESTITUTION: return &t->restitution;
    case TP_CONS_STIFFNESS: return &t->stiffness;
    case TP_CONS_DAMPING: return &t->damping;
    case TP_CONS_WINCH_TARGET: return &t->winch_target;
    case TP_CONS_WINCH_SPEED: return &t->winch_speed;
    case TP_CONS_WINCH_RESPONSIVENESS: return &t->winch_responsiveness;
    case TP_CONS_WINCH_FORCE: return &t->winch_force;
    default: return NULL; /* the flags */
    }
}

static float get_value(tp_cons_model *t, tp_constraint_param which)
{
    if (which == TP_CONS_ENABLED) return t->enabled;
    if (which == TP_CONS_WINCH) return t->winch;
    return *field(t, which);
}

/* Does a constraint of type `type` have parameter `which`? */
static int has_param(int type, tp_constraint_param which)
{
    int drive = type == TP_CONSTRAINT_HINGE || type == TP_CONSTRAINT_PRISMATIC, rope = type == TP_CONSTRAINT_ROPE;
    switch (which) {
    case TP_CONS_ENABLED: return 1;
    case TP_CONS_VELOCITY: case TP_CONS_TARGET: case TP_CONS_SPEED: case TP_CONS_MAX_FORCE: return drive;
    case TP_CONS_LENGTH: return rope || type == TP_CONSTRAINT_ROD || type == TP_CONSTRAINT_SPRING;
    case TP_CONS_STIFFNESS: case TP_CONS_DAMPING: return type == TP_CONSTRAINT_SPRING;
    default: return rope; /* restitution, the winch's */
    }
}

/* Why value v cannot be `which` (NULL: it can); buf holds a formatted reason. */
static const char *bad_value(tp_constraint_param which, float v, char *buf, size_t len)
{
    if (!isfinite(v)) return "must be finite";
    switch (which) {
    case TP_CONS_LENGTH: case TP_CONS_WINCH_TARGET: /* lengths, m: their squares stay finite */
        if (v >= 0.0f && v <= TP_MAX_SIZE) return NULL;
        snprintf(buf, len, v < 0.0f ? "must be >= 0" : "must be within [0, %g] m (TP_MAX_SIZE)", (double)TP_MAX_SIZE);
        return buf;
    case TP_CONS_ENABLED: case TP_CONS_WINCH: return v == 0.0f || v == 1.0f ? NULL : "must be 0 or 1";
    case TP_CONS_VELOCITY: case TP_CONS_TARGET: return NULL;
    case TP_CONS_SPEED: case TP_CONS_STIFFNESS: return v > 0.0f ? NULL : "must be > 0";
    case TP_CONS_RESTITUTION: return v >= 0.0f && v <= 1.0f ? NULL : "must be in [0, 1]";
    default: return v >= 0.0f ? NULL : "must be >= 0";
    }
}

static tp_status usable(tp_batch *b, tp_constraint_param which, const char *call)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if ((unsigned)which >= TP_CONS_PARAM_COUNT)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: unknown constraint parameter %d", call, (int)which);
    if (!b->cons_table)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: model \"%s\" has no constraints", call, b->model->name);
    return TP_OK;
}

/* Row r's value v for constraint k of world w (< 0: unselected), checked. */
static tp_status check_value(tp_batch *b, tp_constraint_param which, int r, int w, int k, float v, const char *call)
{
    tp_cons_model *t = &b->cons_table[(size_t)w * (size_t)b->layout.cons_count + (size_t)k];
    char buf[64];
    const char *name = b->model->cons->defs[k].name, *why = bad_value(which, v, buf, sizeof buf);
    if (why)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s row %d [%d] (%s) %s, got %g; nothing was changed", call,
                       param_names[which], r, k, name, why, (double)v);
    if (!has_param(t->type, which) && v != get_value(t, which))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s row %d [%d] (%s): a %s has no %s (give its present value "
                       "%g); nothing was changed", call, param_names[which], r, k, name,
                       tp_constraint_type_names[t->type], param_names[which], (double)get_value(t, which));
    return TP_OK;
}

/* Sets the value; 1 if it changed. */
static int set_value(tp_cons_model *t, tp_constraint_param which, float v)
{
    if (get_value(t, which) == v) return 0;
    if (which == TP_CONS_ENABLED) t->enabled = (uint8_t)(v != 0.0f);
    else if (which == TP_CONS_WINCH) t->winch = (uint8_t)(v != 0.0f);
    else *field(t, which) = v;
    return 1;
}

/* Seed 000: a constraint's property change wakes the assemblies it touches
 * (the island policy: their islands). */
static void wake_ends(tp_batch *b, int w, const tp_cons_model *t)
{
    int ends[2] = {t->body0, t->body1};
    for (int e = 0; e < 2; ++e)
        if (ends[e] >= 0 && b->model->bodies[ends[e]].type == TP_BODY_DYNAMIC) tp_wake_body(b, w, ends[e]);
}

tp_status tp_cons_event_check(const tp_event_def *e, int i, const tp_model *m)
{
    int n = tp_model_constraint_count(m);
    if (e->constraint < 0 || e->constraint >= n)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (constraint at t = %g s): constraint: no constraint %d "
                       "(the model has %d)", i, e->time, e->constraint, n);
    if ((unsigned)e->param >= TP_CONS_PARAM_COUNT)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (constraint at t = %g s): param: unknown constraint "
                       "parameter %d", i, e->time, e->param);
    tp_cons_model t = m->cons->table[e->constraint];
    char buf[64];
    const char *why = bad_value((tp_constraint_param)e->param, e->value[0], buf, sizeof buf);
    const char *name = m->cons->defs[e->constraint].name;
    if (!why && !has_param(t.type, (tp_constraint_param)e->param)) why = "is not a parameter of its type";
    if (why)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (constraint at t = %g s): %s of \"%s\" (a %s) %s, got %g", i,
                       e->time, param_names[e->param], name, tp_constraint_type_names[t.type], why, (double)e->value[0]);
    return TP_OK;
}

tp_status tp_cons_param_write(tp_batch *b, int w, int k, tp_constraint_param which, float v)
{
    tp_status st = tp_batch_begin_write(b, w, w); /* CUDA: the world's table current here, then sent */
    if (st) return st;
    tp_cons_model *t = &b->cons_table[(size_t)w * (size_t)b->layout.cons_count + (size_t)k];
    if (set_value(t, which, v)) wake_ends(b, w, t);
    return TP_OK;
}

tp_status tp_batch_set_constraint_params(tp_batch *b, tp_constraint_param which, const tp_world_select *s,
                                         const float *values)
{
    const char *call = "tp_batch_set_constraint_params";
    tp_status st = usable(b, which, call);
    if (st || (st = tp_select_check(b, s, call))) return st;
    int n = b->layout.cons_count, rows = tp_select_rows(b, s);
    if (rows > 0 && !values) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: values is NULL", call);
    for (int r = 0; r < rows; ++r) {
        int w = tp_select_world(s, r);
        if (w < 0) continue;
        for (int k = 0; k < n; ++k)
            if ((st = check_value(b, which, r, w, k, values[(size_t)r * (size_t)n + (size_t)k], call))) return st;
    }
    if ((st = tp_select_begin_writes(b, s))) return st;
    for (int r = 0; r < rows; ++r) {
        int w = tp_select_world(s, r);
        if (w < 0) continue;
        for (int k = 0; k < n; ++k) {
            tp_cons_model *t = &b->cons_table[(size_t)w * (size_t)n + (size_t)k];
            if (set_value(t, which, values[(size_t)r * (size_t)n + (size_t)k])) wake_ends(b, w, t);
        }
    }
    return TP_OK;
}

tp_status tp_batch_constraint_params(tp_batch *b, tp_constraint_param which, float *out)
{
    const char *call = "tp_batch_constraint_params";
    tp_status st = usable(b, which, call);
    if (st) return st;
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: out is NULL", call);
    if ((st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_CONSTRAINTS))) return st; /* CUDA: winches moved them */
    size_t total = (size_t)b->worlds * (size_t)b->layout.cons_count;
    for (size_t i = 0; i < total; ++i) out[i] = get_value(&b->cons_table[i], which);
    return TP_OK;
}

tp_status tp_batch_constraint_impulses(tp_batch *b, float *impulse)
{
    if (!b || !impulse) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_constraint_impulses: batch or impulse is NULL");
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_CONSTRAINTS); /* CUDA: the last step's */
    if (st) return st;
    size_t total = (size_t)b->worlds * (size_t)b->layout.cons_count;
    for (size_t i = 0; i < total; ++i) memcpy(impulse + 3 * i, b->cons_state[i].fsum, 3 * sizeof(float));
    return TP_OK;
}

tp_status tp_batch_constraints(tp_batch *b, float *value, float *force)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_constraints: batch is NULL");
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_CONSTRAINTS); /* CUDA: the last step's */
    if (st) return st;
    size_t n = (size_t)tp_model_constraint_count(b->model), total = n * (size_t)b->worlds;
    for (size_t i = 0; i < total; ++i) {
        if (value) value[i] = b->cons_state[i].value;
        if (force) force[i] = b->cons_state[i].force;
    }
    return TP_OK;
}
