/* contact_sensors.c - per-shape contact sensors (include/torpor_sensors.h):
 * the shapes a model marks as sensors, and per world and step the contact
 * force on each and whether it touches, summed from the last step's contact
 * points. Turned on by the first tp_batch_contact_sensors (filled at once
 * from the last step), then updated after every tp_batch_step call. */
#include "batch.h"
#include "compound.h"
#include "contact_rows.h" /* tp_tangent_basis: the friction rows' tangents */
#include "error.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

struct tp_contact_sensors {
    int count;
    int16_t *index; /* [B][TP_MAX_BODY_SHAPES] sensor of (body, shape), or -1 */
    float *force;   /* [W][S][3] */
    uint8_t *touching; /* [W][S] */
};

/* Is shape k of body b marked (k = 0 for a body of one shape)? */
static int marked(const tp_model *m, int b, int k)
{
    const tp_body_def *d = &m->body_defs[b];
    return d->shape_count > 0 ? d->shapes[k].sensor : d->sensor;
}

static int shapes_of(const tp_model *m, int b) { return m->body_defs[b].shape_count > 0 ? m->body_defs[b].shape_count : 1; }

int tp_model_contact_sensor_count(const tp_model *m)
{
    if (!m) return 0;
    int n = 0;
    for (int b = 0; b < m->body_count; ++b)
        for (int k = 0; k < shapes_of(m, b); ++k) n += marked(m, b, k);
    return n;
}

tp_status tp_model_contact_sensor(const tp_model *m, int sensor, int *body, int *shape)
{
    if (!m || !body || !shape) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_contact_sensor: an argument is NULL");
    int n = 0;
    for (int b = 0; b < m->body_count; ++b)
        for (int k = 0; k < shapes_of(m, b); ++k)
            if (marked(m, b, k) && n++ == sensor) {
                *body = b;
                *shape = k;
                return TP_OK;
            }
    return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_contact_sensor: sensor %d out of range [0, %d)", sensor, n);
}

/* Sensor of the shape on side `side` (0: body_a, 1: body_b) of contact c, or -1. */
static int sensor_of(const tp_batch *b, const tp_contact *c, int side)
{
    const tp_contact_sensors *t = b->touch;
    int body = side ? c->body_b : c->body_a, shape = 0;
    if (b->model->bodies[c->body_a].shape_count > 0 || b->model->bodies[c->body_b].shape_count > 0) {
        /* a compound pair's feature holds the shape pair (kernels/compound.h) */
        uint32_t pair = c->feature >> TP_COMPOUND_HASH_BITS, mask = (1u << TP_COMPOUND_SHAPE_BITS) - 1u;
        shape = (int)(side ? pair & mask : (pair >> TP_COMPOUND_SHAPE_BITS) & mask);
    }
    return t->index[(size_t)body * TP_MAX_BODY_SHAPES + (size_t)shape];
}

/* World w's sensors from its contacts of the last step. */
static void fill_world(tp_batch *b, int w)
{
    tp_contact_sensors *t = b->touch;
    float *force = t->force + 3 * (size_t)w * (size_t)t->count;
    uint8_t *touching = t->touching + (size_t)w * (size_t)t->count;
    memset(force, 0, 3 * (size_t)t->count * sizeof(float));
    memset(touching, 0, (size_t)t->count);
    int n = b->contact_count[b->current][w];
    const tp_contact *cs = b->contacts[b->current] + (size_t)w * (size_t)b->contact_capacity;
    for (int i = 0; i < n; ++i) {
        const tp_contact *c = &cs[i];
        int sa = sensor_of(b, c, 0), sb = sensor_of(b, c, 1);
        if (sa < 0 && sb < 0) continue;
        tp_vec3 nrm = tp_v3_load(c->normal), t1, t2;
        tp_tangent_basis(nrm, &t1, &t2);
        tp_vec3 f = tp_mad(tp_mad(tp_scale(nrm, c->normal_force), t1, c->tangent_force[0]), t2, c->tangent_force[1]);
        int touches = c->separation <= 0.0f || c->normal_force > 0.0f;
        if (sa >= 0) { /* the force on A is -F */
            tp_v3_store(force + 3 * sa, tp_sub(tp_v3_load(force + 3 * sa), f));
            touching[sa] |= (uint8_t)touches;
        }
        if (sb >= 0) {
            tp_v3_store(force + 3 * sb, tp_add(tp_v3_load(force + 3 * sb), f));
            touching[sb] |= (uint8_t)touches;
        }
    }
}

void tp_contact_sensors_world(tp_batch *b, int w)
{
    if (b->touch) fill_world(b, w);
}

void tp_contact_sensors_update(tp_batch *b)
{
    if (!b->touch) return;
    for (int w = 0; w < b->worlds; ++w) fill_world(b, w);
}

void tp_contact_sensors_free(tp_batch *b)
{
    if (!b->touch) return;
    free(b->touch->index);
    free(b->touch->force);
    free(b->touch->touching);
    free(b->touch);
    b->touch = NULL;
}

tp_status tp_batch_contact_sensors(tp_batch *b, tp_contact_sensor_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_contact_sensors: batch or out is NULL");
    if (b->backend == TP_BACKEND_CUDA)
        return tp_fail(TP_ERR_BACKEND, "tp_batch_contact_sensors: contact sensors are computed on the cpu backend "
                                       "only so far");
    if (!b->touch) {
        const tp_model *m = b->model;
        int S = tp_model_contact_sensor_count(m);
        tp_contact_sensors *t = calloc(1, sizeof *t);
        if (!t) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_contact_sensors: out of memory");
        b->touch = t;
        t->count = S;
        t->index = malloc((size_t)m->body_count * TP_MAX_BODY_SHAPES * sizeof(int16_t) + 1);
        t->force = calloc(3 * (size_t)b->worlds * (size_t)S + 1, sizeof(float));
        t->touching = calloc((size_t)b->worlds * (size_t)S + 1, 1);
        if (!t->index || !t->force || !t->touching) {
            tp_contact_sensors_free(b);
            return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_contact_sensors: out of memory (%d worlds, %d sensors)",
                           b->worlds, S);
        }
        int n = 0;
        for (int body = 0; body < m->body_count; ++body)
            for (int k = 0; k < TP_MAX_BODY_SHAPES; ++k)
                t->index[(size_t)body * TP_MAX_BODY_SHAPES + (size_t)k] =
                    (int16_t)(k < shapes_of(m, body) && marked(m, body, k) ? n++ : -1);
        tp_contact_sensors_update(b); /* the last step's contacts */
    }
    out->worlds = b->worlds;
    out->sensors = b->touch->count;
    out->force = b->touch->force;
    out->touching = b->touch->touching;
    return TP_OK;
}
