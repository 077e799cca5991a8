/* sensors.h - the sensors of one world (include/torpor_sensors.h), run by
 * both backends: the CPU loops over worlds (csrc/sensors.c), the CUDA
 * backend runs a thread per world (kernels/cuda/sensors.cu), so both give the
 * same bits. Read after the last step of a step call:
 *   IMU             each body's COM velocity, angular velocity and proper
 *                   acceleration in its body frame, from v before and after
 *                   that step;
 *   contact sensors per marked shape, the force of the step's contact points
 *                   on it and whether one of them touches. */
#ifndef TP_SENSORS_H
#define TP_SENSORS_H

#include "compound.h"
#include "contact_rows.h" /* tp_tangent_basis: the friction rows' tangents */
#include "layout.h"

/* A batch's sensor arrays on one side (host or device); NULL: that sensor is off. */
typedef struct tp_sensor_arrays {
    float *imu;           /* [4][W][B][3]: v, w, a (body frame) and v before the last step (world frame) */
    int count;            /* contact sensors S */
    int16_t *index;       /* [B][TP_MAX_BODY_SHAPES] sensor of (body, shape), or -1 */
    float *force;         /* [W][S][3] N, world frame */
    uint8_t *touching;    /* [W][S] 0 or 1 */
} tp_sensor_arrays;

/* World w's body velocities into the IMU's "before" part. */
TP_HD void tp_imu_save_world(const tp_layout *L, const tp_sensor_arrays *s, int w)
{
    size_t n = 3 * (size_t)L->worlds * (size_t)L->bodies, o = 3 * (size_t)w * (size_t)L->bodies;
    for (size_t k = 0; k < 3 * (size_t)L->bodies; ++k) s->imu[3 * n + o + k] = L->v[o + k];
}

/* World w's IMU after the step: v and w rotated into the body frame, and
 * the proper acceleration (v_after - v_before) / dt - g in the body frame. */
TP_HD void tp_imu_world(const tp_layout *L, const tp_sensor_arrays *s, int w, float dt)
{
    size_t n = 3 * (size_t)L->worlds * (size_t)L->bodies;
    float *v = s->imu, *av = s->imu + n, *a = s->imu + 2 * n;
    const float *before = s->imu + 3 * n;
    tp_vec3 g = tp_v3_load(L->gravity + 3 * w);
    for (int i = 0; i < L->bodies; ++i) {
        size_t k = (size_t)w * (size_t)L->bodies + (size_t)i;
        tp_quat q = tp_q_load(L->quat + 4 * k);
        tp_vec3 v1 = tp_v3_load(L->v + 3 * k), acc = tp_scale(tp_sub(v1, tp_v3_load(before + 3 * k)), 1.0f / dt);
        tp_v3_store(v + 3 * k, tp_q_inv_rotate(q, v1));
        tp_v3_store(av + 3 * k, tp_q_inv_rotate(q, tp_v3_load(L->w + 3 * k)));
        tp_v3_store(a + 3 * k, tp_q_inv_rotate(q, tp_sub(acc, g)));
    }
}

/* Sensor of the shape on side `side` (0: body_a, 1: body_b) of contact c, or -1. */
TP_HD int tp_contact_sensor_of(const tp_layout *L, const tp_sensor_arrays *s, const tp_contact *c, int side)
{
    int body = side ? c->body_b : c->body_a, shape = 0;
    if (L->model[c->body_a].shape_count > 0 || L->model[c->body_b].shape_count > 0) {
        /* a compound pair's feature holds the shape pair (kernels/compound.h) */
        uint32_t pair = c->feature >> TP_COMPOUND_HASH_BITS, mask = (1u << TP_COMPOUND_SHAPE_BITS) - 1u;
        shape = (int)(side ? pair & mask : (pair >> TP_COMPOUND_SHAPE_BITS) & mask);
    }
    return s->index[(size_t)body * TP_MAX_BODY_SHAPES + (size_t)shape];
}

/* World w's contact sensors at 0 (a reset world has no contacts). */
TP_HD void tp_contact_sensors_clear_world(const tp_sensor_arrays *s, int w)
{
    float *force = s->force + 3 * (size_t)w * (size_t)s->count;
    uint8_t *touching = s->touching + (size_t)w * (size_t)s->count;
    for (int k = 0; k < 3 * s->count; ++k) force[k] = 0.0f;
    for (int k = 0; k < s->count; ++k) touching[k] = 0;
}

/* Whether body b's sensors hold their reading in world w: it sleeps and its
 * pairs make no contact points (sleep.skip_constraints, the default). */
TP_HD int tp_sensor_body_held(const tp_layout *L, int w, int b)
{
    return !L->solve_sleeping && L->sleep_state[(size_t)w * (size_t)L->bodies + (size_t)b] == TP_SLEEPING;
}

/* World w's contact sensors that do not hold their reading at 0, before the step's points add up. */
TP_HD void tp_contact_sensors_clear_live(const tp_layout *L, const tp_sensor_arrays *s, int w)
{
    float *force = s->force + 3 * (size_t)w * (size_t)s->count;
    uint8_t *touching = s->touching + (size_t)w * (size_t)s->count;
    for (int b = 0; b < L->bodies; ++b) {
        if (tp_sensor_body_held(L, w, b)) continue;
        for (int j = 0; j < TP_MAX_BODY_SHAPES; ++j) {
            int k = s->index[(size_t)b * TP_MAX_BODY_SHAPES + (size_t)j];
            if (k < 0) continue;
            force[3 * k] = force[3 * k + 1] = force[3 * k + 2] = 0.0f;
            touching[k] = 0;
        }
    }
}

/* World w's contact sensors from the contacts of buffer `current` (the last
 * step's): the force on each sensor's shape (the force on A is -F, on B +F,
 * F = normal and friction forces along the normal and the friction rows'
 * tangents), touching if a point has separation <= 0 or a normal force > 0.
 * A sensor on a body held asleep (tp_sensor_body_held) keeps its last reading
 * from before the body slept. A world with no contacts (just reset) reads 0. */
TP_HD void tp_contact_sensors_fill_world(const tp_layout *L, const tp_sensor_arrays *s, int w, int current)
{
    float *force = s->force + 3 * (size_t)w * (size_t)s->count;
    uint8_t *touching = s->touching + (size_t)w * (size_t)s->count;
    tp_contact_sensors_clear_live(L, s, w);
    int n = L->contact_count[current][w];
    const tp_contact *cs = L->contacts[current] + (size_t)w * (size_t)L->capacity;
    for (int i = 0; i < n; ++i) {
        const tp_contact *c = &cs[i];
        int sa = tp_contact_sensor_of(L, s, c, 0), sb = tp_contact_sensor_of(L, s, c, 1);
        if (sa >= 0 && tp_sensor_body_held(L, w, c->body_a)) sa = -1;
        if (sb >= 0 && tp_sensor_body_held(L, w, c->body_b)) sb = -1;
        if (sa < 0 && sb < 0) continue;
        tp_vec3 nrm = tp_v3_load(c->normal), t1, t2;
        tp_tangent_basis(nrm, &t1, &t2);
        tp_vec3 f = tp_mad(tp_mad(tp_scale(nrm, c->normal_force), t1, c->tangent_force[0]), t2, c->tangent_force[1]);
        int touches = c->separation <= 0.0f || c->normal_force > 0.0f;
        if (sa >= 0) {
            tp_v3_store(force + 3 * sa, tp_sub(tp_v3_load(force + 3 * sa), f));
            touching[sa] |= (uint8_t)touches;
        }
        if (sb >= 0) {
            tp_v3_store(force + 3 * sb, tp_add(tp_v3_load(force + 3 * sb), f));
            touching[sb] |= (uint8_t)touches;
        }
    }
}

#endif
