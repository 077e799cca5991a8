/* writes.c - changing one body or one world through the API.
 *
 * Every call checks all of its arguments before it changes anything (acceptance
 * case C12): a bad index or a non-finite number returns TP_ERR_INVALID_ARGUMENT
 * with a message naming the value, and the batch is untouched. A write that
 * changes a body is a wake event (DESIGN.md section 7). */
#include "batch.h"

#include "backend.h"
#include "error.h"
#include "batch_wake.h"

#include <math.h>
#include <string.h>

static tp_status check_body(const tp_batch *b, int world, int body, const char *call, int dynamic_only)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if (world < 0 || world >= b->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: world %d out of range [0, %d)", call, world, b->worlds);
    if (body < 0 || body >= b->bodies)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: body %d out of range [0, %d)", call, body, b->bodies);
    if (dynamic_only && b->model->bodies[body].type == TP_BODY_STATIC)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: body %d (%s) is static and cannot be changed", call, body,
                       b->model->body_names[body]);
    return TP_OK;
}

/* A vector argument must be present and finite. */
static tp_status check_vec(const float *v, int n, const char *call, const char *name)
{
    if (!v) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", call, name);
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s[%d] must be finite, got %g; nothing was changed", call, name,
                           i, (double)v[i]);
    return TP_OK;
}

static int is_zero(const float *v, int n)
{
    for (int i = 0; i < n; ++i)
        if (v[i] != 0.0f) return 0;
    return 1;
}

static size_t idx(const tp_batch *b, int world, int body) { return (size_t)world * (size_t)b->bodies + (size_t)body; }

/* Start a write to one body: its world is made current (on CUDA a copy), then a
 * removed body is refused. */
static tp_status begin_body_write(tp_batch *b, int world, int body, const char *call)
{
    tp_status st = tp_batch_begin_write(b, world, world);
    if (st) return st;
    if (b->flags[idx(b, world, body)] & TP_FLAG_REMOVED)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: body %d (%s) was removed from world %d; nothing was changed",
                       call, body, b->model->body_names[body], world);
    return TP_OK;
}

tp_status tp_batch_set_pose(tp_batch *b, int world, int body, const float pos[3], const float quat[4])
{
    const char *call = "tp_batch_set_pose";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(pos, 3, call, "pos")) ||
        (st = check_vec(quat, 4, call, "quat")))
        return st;
    if (is_zero(quat, 4)) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: quat is the zero quaternion", call);
    if ((st = begin_body_write(b, world, body, call))) return st;
    size_t k = idx(b, world, body);
    memcpy(b->pos + 3 * k, pos, 3 * sizeof(float));
    tp_q_store(b->quat + 4 * k, tp_q_normalize(tp_q_load(quat)));
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_batch_set_velocity(tp_batch *b, int world, int body, const float v[3], const float w[3])
{
    const char *call = "tp_batch_set_velocity";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(v, 3, call, "v")) ||
        (st = check_vec(w, 3, call, "w")))
        return st;
    if ((st = begin_body_write(b, world, body, call))) return st;
    size_t k = idx(b, world, body);
    memcpy(b->v + 3 * k, v, 3 * sizeof(float));
    memcpy(b->w + 3 * k, w, 3 * sizeof(float));
    tp_wake_body(b, world, body);
    return TP_OK;
}

/* Torque r x F of a force applied at a world point, about the centre of mass. */
static void torque_at(const tp_batch *b, size_t k, int body, const float f[3], const float point[3], float out[3])
{
    const float *c = b->model->bodies[body].com;
    tp_quat q = tp_q_load(b->quat + 4 * k);
    tp_vec3 com = tp_add(tp_v3_load(b->pos + 3 * k), tp_q_rotate(q, tp_v3(c[0], c[1], c[2])));
    tp_v3_store(out, tp_cross(tp_sub(tp_v3_load(point), com), tp_v3_load(f)));
}

/* w += I^-1 L for an angular impulse L (world frame) on the body in slot k. */
static void add_angular_impulse(tp_batch *b, size_t k, const float L[3])
{
    tp_mat3 inv_i = tp_inv_inertia_world(tp_q_load(b->quat + 4 * k), b->inv_inertia + 6 * k);
    tp_v3_store(b->w + 3 * k, tp_add(tp_v3_load(b->w + 3 * k), tp_m3_mul_v(inv_i, tp_v3_load(L))));
}

tp_status tp_batch_apply_force(tp_batch *b, int world, int body, const float force[3], const float point[3])
{
    const char *call = "tp_batch_apply_force";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(force, 3, call, "force")) ||
        (point && (st = check_vec(point, 3, call, "point"))))
        return st;
    if (is_zero(force, 3)) return TP_OK; /* a zero force is no wake event */
    if ((st = begin_body_write(b, world, body, call))) return st;
    size_t k = idx(b, world, body);
    float tau[3] = {0.0f, 0.0f, 0.0f};
    if (point) torque_at(b, k, body, force, point, tau);
    for (int i = 0; i < 3; ++i) {
        b->force[3 * k + i] += force[i];
        b->torque[3 * k + i] += tau[i];
    }
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_batch_apply_torque(tp_batch *b, int world, int body, const float torque[3])
{
    const char *call = "tp_batch_apply_torque";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(torque, 3, call, "torque"))) return st;
    if (is_zero(torque, 3)) return TP_OK;
    if ((st = begin_body_write(b, world, body, call))) return st;
    size_t k = idx(b, world, body);
    for (int i = 0; i < 3; ++i) b->torque[3 * k + i] += torque[i];
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_batch_apply_impulse(tp_batch *b, int world, int body, const float impulse[3], const float point[3])
{
    const char *call = "tp_batch_apply_impulse";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(impulse, 3, call, "impulse")) ||
        (point && (st = check_vec(point, 3, call, "point"))))
        return st;
    if (is_zero(impulse, 3)) return TP_OK;
    if ((st = begin_body_write(b, world, body, call))) return st;
    size_t k = idx(b, world, body);
    float im = b->inv_mass[k];
    tp_v3_store(b->v + 3 * k, tp_mad(tp_v3_load(b->v + 3 * k), tp_v3_load(impulse), im));
    if (point) {
        float ang[3];
        torque_at(b, k, body, impulse, point, ang);
        add_angular_impulse(b, k, ang);
    }
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_batch_apply_angular_impulse(tp_batch *b, int world, int body, const float impulse[3])
{
    const char *call = "tp_batch_apply_angular_impulse";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(impulse, 3, call, "impulse"))) return st;
    if (is_zero(impulse, 3)) return TP_OK;
    if ((st = begin_body_write(b, world, body, call))) return st;
    add_angular_impulse(b, idx(b, world, body), impulse);
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_batch_set_gravity(tp_batch *b, int world, const float g[3])
{
    const char *call = "tp_batch_set_gravity";
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if (world < -1 || world >= b->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: world %d out of range [-1, %d)", call, world, b->worlds);
    tp_status st = check_vec(g, 3, call, "gravity");
    if (st) return st;
    for (int i = 0; i < 3; ++i)
        if (g[i] < -500.0f || g[i] > 500.0f)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: gravity[%d] must be within [-500, 500] m/s^2, got %g", call, i,
                           (double)g[i]);
    int first = world < 0 ? 0 : world, last = world < 0 ? b->worlds - 1 : world;
    if ((st = tp_batch_begin_write(b, first, last))) return st;
    for (int w = first; w <= last; ++w) {
        float *gw = b->gravity + 3 * w;
        if (gw[0] == g[0] && gw[1] == g[1] && gw[2] == g[2]) continue; /* no change, no wake */
        memcpy(gw, g, 3 * sizeof(float));
        tp_wake_world(b, w); /* a change of gravity wakes everything in the world */
    }
    return TP_OK;
}

tp_status tp_batch_get_gravity(const tp_batch *b, int world, float g[3])
{
    if (!b || !g) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_get_gravity: batch or g is NULL");
    if (world < 0 || world >= b->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_get_gravity: world %d out of range [0, %d)", world, b->worlds);
    /* A device reset may have changed it. The host mirror is a cache, so
     * refreshing it does not change the batch as the caller sees it. */
    tp_status st = tp_batch_pull((tp_batch *)b, world, world, TP_MIRROR_BODIES);
    if (st != TP_OK) return st;
    memcpy(g, b->gravity + 3 * world, 3 * sizeof(float));
    return TP_OK;
}

tp_status tp_batch_remove_body(tp_batch *b, int world, int body)
{
    tp_status st = check_body(b, world, body, "tp_batch_remove_body", 0);
    if (st) return st;
    if ((st = tp_batch_begin_write(b, world, world))) return st;
    size_t k = idx(b, world, body);
    if (b->flags[k] & TP_FLAG_REMOVED) return TP_OK;
    /* Wake first, while the island still holds the body: what it supported wakes.
     * A static or kinematic body belongs to no island: wake everything whose
     * bounding sphere meets its bounding sphere grown by the contact margin. */
    tp_wake_body(b, world, body);
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

tp_status tp_batch_wake(tp_batch *b, int world, int body)
{
    const char *call = "tp_batch_wake";
    tp_status st = check_body(b, world, body, call, 1);
    if (st) return st;
    if ((st = begin_body_write(b, world, body, call))) return st;
    tp_wake_body(b, world, body);
    return TP_OK;
}

tp_status tp_batch_sleep(tp_batch *b, int world, int body)
{
    const char *call = "tp_batch_sleep";
    tp_status st = check_body(b, world, body, call, 1);
    if (st) return st;
    if ((st = begin_body_write(b, world, body, call))) return st;
    tp_wake_force_sleep(b, world, body);
    return TP_OK;
}

tp_status tp_batch_wake_sphere(tp_batch *b, int world, const float center[3], float radius)
{
    const char *call = "tp_batch_wake_sphere";
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if (world < -1 || world >= b->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: world %d out of range [-1, %d)", call, world, b->worlds);
    tp_status st = check_vec(center, 3, call, "center");
    if (st) return st;
    if (!isfinite(radius) || radius < 0.0f)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: radius must be a finite number >= 0 m, got %g", call, (double)radius);
    int first = world < 0 ? 0 : world, last = world < 0 ? b->worlds - 1 : world;
    if ((st = tp_batch_begin_write(b, first, last))) return st;
    for (int w = first; w <= last; ++w) tp_wake_sphere(b, w, center, radius);
    return TP_OK;
}

tp_status tp_batch_reset_worlds(tp_batch *b, const int *worlds, int count)
{
    const char *call = "tp_batch_reset_worlds";
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if (count < 0) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: count must be >= 0, got %d", call, count);
    if (count > 0 && !worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %d worlds listed but the list is NULL", call, count);
    for (int i = 0; i < count; ++i)
        if (worlds[i] < 0 || worlds[i] >= b->worlds)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: worlds[%d] = %d out of range [0, %d)", call, i, worlds[i],
                           b->worlds);
    return b->ops->reset_worlds(b, worlds, count); /* CUDA: drawn on the device with cuRAND */
}
