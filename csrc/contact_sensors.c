/* contact_sensors.c - per-shape contact sensors (include/torpor_sensors.h):
 * the shapes a model marks as sensors, and their arrays: turned on by the
 * first tp_batch_contact_sensors (filled at once from the last step), then
 * updated by the backend after every tp_batch_step call (kernels/sensors.h:
 * per world and step the contact force on each and whether it touches,
 * summed from the last step's contact points). */
#include "backend.h"
#include "error.h"
#include "model.h"

#include <stdlib.h>

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

/* Back to off: the host arrays freed. */
static void contact_sensors_off(tp_batch *b)
{
    tp_sensor_arrays *t = &b->sensors;
    free(t->index);
    free(t->force);
    free(t->touching);
    t->index = NULL;
    t->force = NULL;
    t->touching = NULL;
    t->count = 0;
}

tp_status tp_batch_contact_sensors(tp_batch *b, tp_contact_sensor_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_contact_sensors: batch or out is NULL");
    tp_sensor_arrays *t = &b->sensors;
    if (!t->force) {
        const tp_model *m = b->model;
        int S = tp_model_contact_sensor_count(m);
        t->count = S;
        t->index = malloc((size_t)m->body_count * TP_MAX_BODY_SHAPES * sizeof(int16_t) + 1);
        t->force = calloc(3 * (size_t)b->worlds * (size_t)S + 1, sizeof(float));
        t->touching = calloc((size_t)b->worlds * (size_t)S + 1, 1);
        if (!t->index || !t->force || !t->touching) {
            contact_sensors_off(b);
            return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_contact_sensors: out of memory (%d worlds, %d sensors)",
                           b->worlds, S);
        }
        int n = 0;
        for (int body = 0; body < m->body_count; ++body)
            for (int k = 0; k < TP_MAX_BODY_SHAPES; ++k)
                t->index[(size_t)body * TP_MAX_BODY_SHAPES + (size_t)k] =
                    (int16_t)(k < shapes_of(m, body) && marked(m, body, k) ? n++ : -1);
        tp_status st = b->ops->sensors_on(b); /* filled from the last step's contacts */
        if (st != TP_OK) {
            contact_sensors_off(b);
            return st;
        }
    }
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_SENSORS); /* CUDA: the last step's */
    if (st != TP_OK) return st;
    out->worlds = b->worlds;
    out->sensors = t->count;
    out->force = t->force;
    out->touching = t->touching;
    return TP_OK;
}
