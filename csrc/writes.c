/* writes.c - changing one body or one world through the API: the checks.
 *
 * Every call checks all of its arguments before it changes anything: a bad index or a non-finite number returns TP_ERR_INVALID_ARGUMENT
 * with a message naming the value, and the batch is untouched. What a write
 * then does (and what it wakes) is in csrc/body_ops.c, which the scripted
 * events use too. */
#include "batch.h"

#include "articulation_host.h"
#include "body_ops.h"
#include "error.h"

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

/* An articulation link moves with its joints only: a write of its body's pose
 * or velocity (the step would overwrite it) or its removal is refused, naming
 * the joint to write instead. Impulses act on the link's tree
 * (kernels/articulation_impulse.h). */
static tp_status check_not_link(const tp_batch *b, int body, const char *call)
{
    int joint = tp_model_link_joint(b->model, body);
    if (joint < 0) return TP_OK;
    char reason[384];
    tp_link_write_reason(reason, sizeof reason, body, b->model->body_names[body], joint,
                         tp_model_joint_name(b->model, joint));
    return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s; nothing was changed", call, reason);
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

/* A zero vector touches nothing: the call returns before the removed-body
 * check, as it always has (body_ops.c skips it too). */

tp_status tp_batch_set_pose(tp_batch *b, int world, int body, const float pos[3], const float quat[4])
{
    const char *call = "tp_batch_set_pose";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_not_link(b, body, call)) || (st = check_vec(pos, 3, call, "pos")) ||
        (st = check_vec(quat, 4, call, "quat")))
        return st;
    if (is_zero(quat, 4)) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: quat is the zero quaternion", call);
    if ((st = begin_body_write(b, world, body, call))) return st;
    return tp_op_set_pose(b, world, body, pos, quat);
}

tp_status tp_batch_set_velocity(tp_batch *b, int world, int body, const float v[3], const float w[3])
{
    const char *call = "tp_batch_set_velocity";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_not_link(b, body, call)) || (st = check_vec(v, 3, call, "v")) ||
        (st = check_vec(w, 3, call, "w")))
        return st;
    if ((st = begin_body_write(b, world, body, call))) return st;
    return tp_op_set_velocity(b, world, body, v, w);
}

tp_status tp_batch_apply_force(tp_batch *b, int world, int body, const float force[3], const float point[3])
{
    const char *call = "tp_batch_apply_force";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(force, 3, call, "force")) ||
        (point && (st = check_vec(point, 3, call, "point"))))
        return st;
    if (is_zero(force, 3)) return TP_OK;
    if ((st = begin_body_write(b, world, body, call))) return st;
    return tp_op_add_force(b, world, body, force, point);
}

tp_status tp_batch_apply_torque(tp_batch *b, int world, int body, const float torque[3])
{
    const char *call = "tp_batch_apply_torque";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(torque, 3, call, "torque"))) return st;
    if (is_zero(torque, 3)) return TP_OK;
    if ((st = begin_body_write(b, world, body, call))) return st;
    return tp_op_add_torque(b, world, body, torque);
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
    return tp_op_add_impulse(b, world, body, impulse, point);
}

tp_status tp_batch_apply_angular_impulse(tp_batch *b, int world, int body, const float impulse[3])
{
    const char *call = "tp_batch_apply_angular_impulse";
    tp_status st;
    if ((st = check_body(b, world, body, call, 1)) || (st = check_vec(impulse, 3, call, "impulse"))) return st;
    if (is_zero(impulse, 3)) return TP_OK;
    if ((st = begin_body_write(b, world, body, call))) return st;
    return tp_op_add_angular_impulse(b, world, body, impulse);
}

tp_status tp_batch_set_gravity(tp_batch *b, int world, const float g[3])
{
    const char *call = "tp_batch_set_gravity";
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if (world < 0 || world >= b->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: world %d out of range [0, %d) (several worlds: "
                       "tp_batch_set_gravities)", call, world, b->worlds);
    tp_status st = check_vec(g, 3, call, "gravity");
    if (st) return st;
    for (int i = 0; i < 3; ++i)
        if (g[i] < -500.0f || g[i] > 500.0f)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: gravity[%d] must be within [-500, 500] m/s^2, got %g", call, i,
                           (double)g[i]);
    return tp_op_set_gravity(b, world, world, g);
}

tp_status tp_batch_gravity(const tp_batch *b, int world, float g[3])
{
    if (!b || !g) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_gravity: batch or g is NULL");
    if (world < 0 || world >= b->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_gravity: world %d out of range [0, %d)", world, b->worlds);
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
    if (st || (st = check_not_link(b, body, "tp_batch_remove_body"))) return st;
    return tp_op_remove_body(b, world, body);
}

tp_status tp_batch_wake(tp_batch *b, int world, int body)
{
    const char *call = "tp_batch_wake";
    tp_status st = check_body(b, world, body, call, 1);
    if (st) return st;
    if ((st = begin_body_write(b, world, body, call))) return st;
    return tp_op_wake(b, world, body);
}

tp_status tp_batch_sleep(tp_batch *b, int world, int body)
{
    const char *call = "tp_batch_sleep";
    tp_status st = check_body(b, world, body, call, 1);
    if (st) return st;
    if ((st = begin_body_write(b, world, body, call))) return st;
    return tp_op_sleep(b, world, body);
}

tp_status tp_batch_wake_sphere(tp_batch *b, const tp_world_select *select, const float center[3], float radius)
{
    const char *call = "tp_batch_wake_sphere";
    tp_status st = tp_select_check(b, select, call);
    if (st || (st = check_vec(center, 3, call, "center"))) return st;
    if (!isfinite(radius) || radius < 0.0f)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: radius must be a finite number >= 0 m, got %g", call, (double)radius);
    if (!select || (!select->indices && !select->mask)) return tp_op_wake_sphere(b, 0, b->worlds - 1, center, radius);
    if ((st = tp_select_begin_writes(b, select))) return st; /* CUDA: every selected world on the host first */
    for (int r = 0, rows = tp_select_rows(b, select); r < rows && st == TP_OK; ++r) {
        int w = tp_select_world(select, r);
        if (w >= 0) st = tp_op_wake_sphere(b, w, w, center, radius);
    }
    return st;
}
