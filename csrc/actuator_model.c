/* actuator_model.c - actuators of a model: definitions, checks, compilation
 * into kernels/actuator.h's form, and the model's actuator queries. */
#include "articulation_host.h"
#include "error.h"
#include "model.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tp_actuator_def tp_default_actuator_def(void)
{
    tp_actuator_def d;
    memset(&d, 0, sizeof d);
    d.type = TP_ACTUATOR_MOTOR;
    d.joint = -1;
    d.gear = 1.0f;
    return d;
}

/* ---------------------------------------------------------------- checks */

/* Settings the type does not use must stay 0: one given anyway would be
 * silently ignored (kp on a motor leaves it a motor). */
static int check_unused(const tp_actuator_def *d, char *field, size_t field_len, char *reason, size_t reason_len)
{
    const char *t = tp_actuator_type_names[d->type];
    if (d->type != TP_ACTUATOR_POSITION && d->kp != 0.0f)
        return CHECK_FAIL("kp", "a %s actuator takes no kp (give \"type\": \"position\")", t);
    if ((d->type == TP_ACTUATOR_MOTOR || d->type == TP_ACTUATOR_GENERAL) && d->kv != 0.0f)
        return CHECK_FAIL("kv", "a %s actuator takes no kv (give \"type\": \"position\" or \"velocity\")", t);
    if (d->type != TP_ACTUATOR_GENERAL)
        for (int k = 0; k < 3; ++k)
            if (d->gain[k] != 0.0f || d->bias[k] != 0.0f)
                return CHECK_FAIL(d->gain[k] != 0.0f ? "gain" : "bias",
                                  "a %s actuator sets its own gain and bias (give \"type\": \"general\")", t);
    return 1;
}

int tp_actuator_def_check(const tp_actuator_def *d, const tp_joint_def *joints, int joint_count, char *field,
                          size_t field_len, char *reason, size_t reason_len)
{
    if ((unsigned)d->type >= TP_ACTUATOR_TYPE_COUNT)
        return CHECK_FAIL("type", "unknown actuator type %d", (int)d->type);
    if (d->joint < 0 || d->joint >= joint_count)
        return CHECK_FAIL("joint", "must be the index of a joint added before, in [0, %d), got %d", joint_count,
                          d->joint);
    const tp_joint_def *j = &joints[d->joint];
    if (j->type != TP_JOINT_REVOLUTE && j->type != TP_JOINT_PRISMATIC)
        return CHECK_FAIL("joint", "joints[%d] (%s) is a %s joint: an actuator drives a revolute or prismatic joint",
                          d->joint, j->name ? j->name : "?", tp_joint_type_name(j->type));
    const float *vals[] = {&d->gear, d->ctrl_range, d->ctrl_range + 1, d->force_range, d->force_range + 1, &d->kp,
                           &d->kv, d->gain, d->gain + 1, d->gain + 2, d->bias, d->bias + 1, d->bias + 2};
    const char *names[] = {"gear", "ctrl_range[0]", "ctrl_range[1]", "force_range[0]", "force_range[1]", "kp", "kv",
                           "gain[0]", "gain[1]", "gain[2]", "bias[0]", "bias[1]", "bias[2]"};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; ++i)
        if (!isfinite(*vals[i])) return CHECK_FAIL(names[i], "must be a finite number, got %g", (double)*vals[i]);
    if (d->gear == 0.0f) return CHECK_FAIL("gear", "must not be 0 (the actuator would do nothing)");
    if (d->ctrl_limited && !(d->ctrl_range[0] <= d->ctrl_range[1]))
        return CHECK_FAIL("ctrl_range", "lower must be <= upper, got [%g, %g]", (double)d->ctrl_range[0],
                          (double)d->ctrl_range[1]);
    if (d->force_limited && !(d->force_range[0] <= d->force_range[1]))
        return CHECK_FAIL("force_range", "lower must be <= upper, got [%g, %g]", (double)d->force_range[0],
                          (double)d->force_range[1]);
    if (d->kp < 0.0f) return CHECK_FAIL("kp", "must be >= 0, got %g", (double)d->kp);
    if (d->kv < 0.0f) return CHECK_FAIL("kv", "must be >= 0, got %g", (double)d->kv);
    return check_unused(d, field, field_len, reason, reason_len);
}

/* ---------------------------------------------------------------- builder */

tp_status tp_actuator_builder_add(tp_artic_builder *ab, const tp_actuator_def *def, int *out_index)
{
    if (!def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_actuator: def is NULL");
    int index = ab->act_count;
    char field[64], reason[256];
    if (!tp_actuator_def_check(def, ab->defs, ab->count, field, sizeof field, reason, sizeof reason))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "actuators[%d] (%s): %s: %s", index, def->name ? def->name : "unnamed",
                       field, reason);
    char auto_name[32];
    snprintf(auto_name, sizeof auto_name, "actuator%d", index);
    const char *name = def->name ? def->name : auto_name;
    if (name[0] == '\0') return tp_fail(TP_ERR_INVALID_ARGUMENT, "actuators[%d]: name: must not be empty", index);
    for (int i = 0; i < ab->act_count; ++i)
        if (strcmp(ab->act_defs[i].name, name) == 0)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "actuators[%d]: name: \"%s\" is already the name of actuators[%d]",
                           index, name, i);
    if (ab->act_count == ab->act_capacity) {
        int cap = ab->act_capacity ? 2 * ab->act_capacity : 8;
        tp_actuator_def *defs = realloc(ab->act_defs, (size_t)cap * sizeof *defs);
        if (!defs) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_add_actuator: out of memory");
        ab->act_defs = defs;
        ab->act_capacity = cap;
    }
    size_t n = strlen(name) + 1;
    char *copy = malloc(n);
    if (!copy) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_add_actuator: out of memory");
    memcpy(copy, name, n);
    ab->act_defs[index] = *def;
    ab->act_defs[index].name = copy;
    ab->act_count++;
    if (out_index) *out_index = index;
    return TP_OK;
}

void tp_actuator_builder_free(tp_artic_builder *ab)
{
    for (int i = 0; i < ab->act_count; ++i) free((char *)ab->act_defs[i].name);
    free(ab->act_defs);
    ab->act_defs = NULL;
    ab->act_count = ab->act_capacity = 0;
}

void tp_actuator_host_free(tp_artic_host *h)
{
    for (int i = 0; h->act_defs && i < h->km.actuator_count; ++i) free((char *)h->act_defs[i].name);
    free(h->act_defs);
    free(h->actuators);
    free(h->act_type);
}

/* ---------------------------------------------------------------- compile */

/* Gain and bias of a definition by its type (include/torpor_actuators.h). */
static void gain_bias(const tp_actuator_def *d, float gain[3], float bias[3])
{
    for (int k = 0; k < 3; ++k) gain[k] = bias[k] = 0.0f;
    switch (d->type) {
    case TP_ACTUATOR_MOTOR: gain[0] = 1.0f; break;
    case TP_ACTUATOR_POSITION: gain[0] = d->kp; bias[1] = -d->kp; bias[2] = -d->kv; break;
    case TP_ACTUATOR_VELOCITY: gain[0] = d->kv; bias[2] = -d->kv; break;
    default:
        for (int k = 0; k < 3; ++k) { gain[k] = d->gain[k]; bias[k] = d->bias[k]; }
    }
}

int tp_actuator_compile(const tp_artic_builder *ab, tp_artic_host *h)
{
    int U = ab->act_count;
    h->km.actuator_count = U;
    if (U == 0) return 1;
    h->actuators = calloc((size_t)U, sizeof *h->actuators);
    h->act_defs = calloc((size_t)U, sizeof *h->act_defs);
    h->act_type = calloc((size_t)U, sizeof *h->act_type);
    if (!h->actuators || !h->act_defs || !h->act_type) return 0;
    for (int i = 0; i < U; ++i) {
        const tp_actuator_def *d = &ab->act_defs[i];
        size_t n = strlen(d->name) + 1;
        char *name = malloc(n);
        if (!name) return 0;
        memcpy(name, d->name, n);
        h->act_defs[i] = *d;
        h->act_defs[i].name = name;
        h->act_type[i] = (int32_t)d->type;
        int k = h->kernel_of[d->joint];
        tp_artic_actuator *a = &h->actuators[i];
        a->tree = 0;
        for (int t = 0; t < h->km.tree_count; ++t)
            if (k >= h->trees[t].first && k < h->trees[t].end) a->tree = t;
        a->q = h->joints[k].q_start;
        a->v = h->joints[k].v_start;
        a->ctrl_limited = d->ctrl_limited;
        a->force_limited = d->force_limited;
        a->gear = d->gear;
        memcpy(a->ctrl_range, d->ctrl_range, sizeof a->ctrl_range);
        memcpy(a->force_range, d->force_range, sizeof a->force_range);
        gain_bias(d, a->gain, a->bias);
    }
    h->km.actuators = h->actuators;
    return 1;
}

/* ---------------------------------------------------------------- queries */

int tp_model_actuator_count(const tp_model *m) { return m && m->artic ? m->artic->km.actuator_count : 0; }

int tp_model_find_actuator(const tp_model *m, const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < tp_model_actuator_count(m); ++i)
        if (strcmp(m->artic->act_defs[i].name, name) == 0) return i;
    return -1;
}

const char *tp_model_actuator_name(const tp_model *m, int actuator)
{
    if (actuator < 0 || actuator >= tp_model_actuator_count(m)) return NULL;
    return m->artic->act_defs[actuator].name;
}

tp_status tp_model_actuator(const tp_model *m, int actuator, tp_actuator_def *out)
{
    if (!m || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_actuator: model or out is NULL");
    int n = tp_model_actuator_count(m);
    if (actuator < 0 || actuator >= n)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_actuator: actuator must be in [0, %d), got %d", n,
                       actuator);
    *out = m->artic->act_defs[actuator];
    return TP_OK;
}
