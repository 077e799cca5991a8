/* body_ops.c - the effect of each write on a batch, its arguments already
 * checked (csrc/body_ops.h says by whom). A write that changes a body is a
 * wake event (DESIGN.md section 7). */
#include "body_ops.h"

#include "articulation_host.h"
#include "backend.h"
#include "batch_wake.h"

#include <string.h>

static size_t idx(const tp_batch *b, int world, int body) { return (size_t)world * (size_t)b->bodies + (size_t)body; }

static int is_zero(const float *v, int n)
{
    for (int i = 0; i < n; ++i)
        if (v[i] != 0.0f) return 0;
    return 1;
}

tp_status tp_op_set_pose(tp_batch *b, int world, int body, const float pos[3], const float quat[4])
{
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    size_t k = idx(b, world, body);
    memcpy(b->pos + 3 * k, pos, 3 * sizeof(float));
    tp_q_store(b->quat + 4 * k, tp_q_normalize_any(tp_q_load(quat))); /* safe for components as large as 3e38 and as small as 1e-20 */
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_op_set_velocity(tp_batch *b, int world, int body, const float v[3], const float w[3])
{
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    size_t k = idx(b, world, body);
    memmove(b->v + 3 * k, v, 3 * sizeof(float)); /* memmove: a caller may pass the body's own arrays */
    memmove(b->w + 3 * k, w, 3 * sizeof(float));
    tp_wake_body(b, world, body);
    return TP_OK;
}

/* Torque r x F of a force applied at a world point, about the centre of mass
 * (tp_body_com_local: a link's per-world offset included). */
static void torque_at(tp_batch *b, int world, int body, const float f[3], const float point[3], float out[3])
{
    tp_world wd = tp_batch_world(b, world);
    size_t k = idx(b, world, body);
    tp_vec3 com = tp_add(tp_v3_load(b->pos + 3 * k), tp_q_rotate(tp_q_load(b->quat + 4 * k), tp_body_com_local(&wd, body)));
    tp_v3_store(out, tp_cross(tp_sub(tp_v3_load(point), com), tp_v3_load(f)));
}

/* w += I^-1 L for an angular impulse L (world frame) on the body in slot k. */
static void add_angular_impulse(tp_batch *b, size_t k, const float L[3])
{
    tp_mat3 inv_i = tp_inv_inertia_world(tp_q_load(b->quat + 4 * k), b->inv_inertia + 6 * k);
    tp_v3_store(b->w + 3 * k, tp_add(tp_v3_load(b->w + 3 * k), tp_m3_mul_v(inv_i, tp_v3_load(L))));
}

tp_status tp_op_add_force(tp_batch *b, int world, int body, const float force[3], const float point[3])
{
    if (is_zero(force, 3)) return TP_OK; /* a zero force is no wake event */
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    size_t k = idx(b, world, body);
    float tau[3] = {0.0f, 0.0f, 0.0f};
    if (point) torque_at(b, world, body, force, point, tau);
    for (int i = 0; i < 3; ++i) {
        b->force[3 * k + i] += force[i];
        b->torque[3 * k + i] += tau[i];
    }
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_op_add_torque(tp_batch *b, int world, int body, const float torque[3])
{
    if (is_zero(torque, 3)) return TP_OK;
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    size_t k = idx(b, world, body);
    for (int i = 0; i < 3; ++i) b->torque[3 * k + i] += torque[i];
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_op_add_impulse(tp_batch *b, int world, int body, const float impulse[3], const float point[3])
{
    if (is_zero(impulse, 3)) return TP_OK;
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    if (b->model->bodies[body].link) { /* a link's inverse mass here is 0: the impulse acts on its tree */
        tp_artic_batch_impulse(b, world, body, impulse, point, NULL);
        tp_wake_body(b, world, body);
        return TP_OK;
    }
    size_t k = idx(b, world, body);
    float im = b->inv_mass[k];
    tp_v3_store(b->v + 3 * k, tp_mad(tp_v3_load(b->v + 3 * k), tp_v3_load(impulse), im));
    if (point) {
        float ang[3];
        torque_at(b, world, body, impulse, point, ang);
        add_angular_impulse(b, k, ang);
    }
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_op_add_angular_impulse(tp_batch *b, int world, int body, const float impulse[3])
{
    if (is_zero(impulse, 3)) return TP_OK;
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    if (b->model->bodies[body].link) tp_artic_batch_impulse(b, world, body, NULL, NULL, impulse);
    else add_angular_impulse(b, idx(b, world, body), impulse);
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_op_set_gravity(tp_batch *b, int first, int last, const float g[3])
{
    tp_status st = tp_batch_begin_write(b, first, last);
    if (st) return st;
    for (int w = first; w <= last; ++w) {
        float *gw = b->gravity + 3 * w;
        if (gw[0] == g[0] && gw[1] == g[1] && gw[2] == g[2]) continue; /* no change, no wake */
        memcpy(gw, g, 3 * sizeof(float));
        tp_wake_world(b, w); /* a change of gravity wakes everything in the world */
    }
    return TP_OK;
}

tp_status tp_op_remove_body(tp_batch *b, int world, int body)
{
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    size_t k = idx(b, world, body);
    if (b->flags[k] & TP_FLAG_REMOVED) return TP_OK;
    /* Wake first, while the island still holds the body: what it supported wakes.
     * A static or kinematic body belongs to no island: wake everything whose
     * bounding sphere meets its bounding sphere grown by the contact margin.
     * The island also under the assembly policy (DESIGN.md section 7). */
    tp_wake_island(b, world, body);
    if (b->model->bodies[body].type != TP_BODY_DYNAMIC)
        tp_wake_sphere(b, world, b->pos + 3 * k, b->model->bodies[body].bound_radius + 0.02f);
    b->flags[k] |= TP_FLAG_REMOVED;
    b->island[k] = -1; /* in no island from now on, even if no step rebuilds the islands (all else asleep) */
    memset(b->v + 3 * k, 0, 3 * sizeof(float));
    memset(b->w + 3 * k, 0, 3 * sizeof(float));
    memset(b->force + 3 * k, 0, 3 * sizeof(float));
    memset(b->torque + 3 * k, 0, 3 * sizeof(float));
    tp_batch_count_world(b, world);
    return TP_OK;
}

tp_status tp_op_wake(tp_batch *b, int world, int body)
{
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_op_sleep(tp_batch *b, int world, int body)
{
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    tp_wake_force_sleep(b, world, body);
    return TP_OK;
}

tp_status tp_op_wake_sphere(tp_batch *b, int first, int last, const float center[3], float radius)
{
    tp_status st = tp_batch_begin_write(b, first, last);
    if (st) return st;
    for (int w = first; w <= last; ++w) tp_wake_sphere(b, w, center, radius);
    return TP_OK;
}

tp_status tp_op_reset_worlds(tp_batch *b, const int *worlds, int count)
{
    int n = 0; /* each world once: it starts one new episode */
    for (int i = 0; i < count; ++i)
        if (!b->world_mark[worlds[i]]) {
            b->world_mark[worlds[i]] = 1;
            b->world_list[n++] = worlds[i];
        }
    for (int i = 0; i < n; ++i) b->world_mark[b->world_list[i]] = 0;
    return tp_op_reset_unique_worlds(b, b->world_list, n);
}

tp_status tp_op_reset_unique_worlds(tp_batch *b, const int32_t *worlds, int count)
{
    for (int i = 0; i < count; ++i) b->episode[worlds[i]]++;
    tp_status st = b->ops->reset_worlds(b, worlds, count); /* CUDA: drawn on the device with cuRAND */
    if (st != TP_OK)
        for (int i = 0; i < count; ++i) b->episode[worlds[i]]--;
    return st;
}
