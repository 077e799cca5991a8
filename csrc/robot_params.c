/* robot_params.c - per-world robot parameters (include/torpor_actuators.h,
 * "robot parameters"): each world's joint damping, armature and friction loss
 * and its own copy of the actuators (gear, kp, kv), set to the model's values
 * at every reset, scaled by the randomize block's draws
 * (kernels/robot_randomize.h, run by the reset on both backends; the arrays:
 * csrc/articulation_world.c), and written by tp_batch_set_robot_params. On CUDA both arrays are mirrored with the
 * bodies' group. */
#include "articulation_host.h"
#include "batch.h"
#include "batch_wake.h"
#include "error.h"
#include "mirror.h" /* TP_MIRROR_BODIES */

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const param_names[TP_ROBOT_PARAM_COUNT] = {
    "joint_damping", "joint_armature", "joint_friction", "actuator_gear", "actuator_kp", "actuator_kv"};

const char *tp_robot_param_name(tp_robot_param which)
{
    return (unsigned)which < TP_ROBOT_PARAM_COUNT ? param_names[which] : NULL;
}

/* Position actuators have kp; position and velocity ones kv (gain and bias as
 * csrc/actuator_model.c fills them from the definition). */
static int has_kp(tp_actuator_type t) { return t == TP_ACTUATOR_POSITION; }
static int has_kv(tp_actuator_type t) { return t == TP_ACTUATOR_POSITION || t == TP_ACTUATOR_VELOCITY; }

static void set_kp(tp_artic_actuator *a, float kp) { a->gain[0] = kp; a->bias[1] = -kp; }
static void set_kv(tp_artic_actuator *a, tp_actuator_type t, float kv)
{
    if (t == TP_ACTUATOR_VELOCITY) a->gain[0] = kv;
    a->bias[2] = -kv;
}

/* Joints with no damping, armature or friction loss of their own: fixed and free. */
static int has_passive(const tp_joint_def *d) { return d->type != TP_JOINT_FIXED && d->type != TP_JOINT_FREE; }

/* Columns of a parameter: joints or actuators. */
static int param_columns(const tp_artic_host *h, tp_robot_param which)
{
    return which <= TP_ROBOT_JOINT_FRICTION ? h->km.joint_count : h->km.actuator_count;
}

/* World w's value of parameter `which` for joint or actuator i (as added). */
static float get_value(const tp_batch *b, tp_robot_param which, int w, int i)
{
    const tp_artic_host *h = b->model->artic;
    if (which <= TP_ROBOT_JOINT_FRICTION)
        return b->artic->joint_params[((size_t)w * (size_t)h->km.joint_count + (size_t)h->kernel_of[i]) * TP_AJP_COUNT +
                                      (size_t)which];
    const tp_artic_actuator *a = &b->artic->actuator_params[(size_t)w * (size_t)h->km.actuator_count + (size_t)i];
    tp_actuator_type t = h->act_defs[i].type;
    if (which == TP_ROBOT_ACTUATOR_GEAR) return a->gear;
    if (which == TP_ROBOT_ACTUATOR_KP) return has_kp(t) ? a->gain[0] : 0.0f;
    return t == TP_ACTUATOR_VELOCITY ? a->gain[0] : has_kv(t) ? -a->bias[2] : 0.0f;
}

/* Sets world w's value; returns 1 if it changed. */
static int set_value(tp_batch *b, tp_robot_param which, int w, int i, float v)
{
    if (get_value(b, which, w, i) == v) return 0;
    const tp_artic_host *h = b->model->artic;
    if (which <= TP_ROBOT_JOINT_FRICTION) {
        if (!has_passive(&h->defs[i])) return 0;
        b->artic->joint_params[((size_t)w * (size_t)h->km.joint_count + (size_t)h->kernel_of[i]) * TP_AJP_COUNT +
                               (size_t)which] = v;
        return 1;
    }
    tp_artic_actuator *a = &b->artic->actuator_params[(size_t)w * (size_t)h->km.actuator_count + (size_t)i];
    tp_actuator_type t = h->act_defs[i].type;
    if (which == TP_ROBOT_ACTUATOR_GEAR) a->gear = v;
    else if (which == TP_ROBOT_ACTUATOR_KP) set_kp(a, v);
    else set_kv(a, t, v);
    return 1;
}

/* Name of column i of `which`: the joint's or the actuator's. */
static const char *column_name(const tp_model *m, tp_robot_param which, int i)
{
    return which <= TP_ROBOT_JOINT_FRICTION ? tp_model_joint_name(m, i) : tp_model_actuator_name(m, i);
}

/* A value the setter accepts: finite, >= 0 (gear: non-zero), and kp / kv only
 * where the actuator has them (0 elsewhere). */
static tp_status check_value(const tp_batch *b, tp_robot_param which, int r, int i, float v, const char *call)
{
    const tp_artic_host *h = b->model->artic;
    const char *name = column_name(b->model, which, i);
    if (!isfinite(v))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s row %d [%d] (%s) must be finite, got %g; nothing was changed",
                       call, param_names[which], r, i, name, (double)v);
    if (which == TP_ROBOT_ACTUATOR_GEAR) {
        if (v == 0.0f)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: actuator_gear row %d [%d] (%s) must not be 0; nothing was "
                           "changed", call, r, i, name);
        return TP_OK;
    }
    if (v < 0.0f)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s row %d [%d] (%s) must be >= 0, got %g; nothing was changed",
                       call, param_names[which], r, i, name, (double)v);
    if (which >= TP_ROBOT_ACTUATOR_KP && v != 0.0f) {
        tp_actuator_type t = h->act_defs[i].type;
        if (which == TP_ROBOT_ACTUATOR_KP ? !has_kp(t) : !has_kv(t))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s row %d [%d] (%s): a %s actuator has no %s (give 0); "
                           "nothing was changed", call, param_names[which], r, i, name, tp_actuator_type_name(t),
                           which == TP_ROBOT_ACTUATOR_KP ? "kp" : "kv");
    }
    return TP_OK;
}

/* The batch's parameter arrays, or why a call cannot use them. */
static tp_status usable(tp_batch *b, tp_robot_param which, const char *call)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if ((unsigned)which >= TP_ROBOT_PARAM_COUNT)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: unknown robot parameter %d", call, (int)which);
    if (!b->artic) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: model \"%s\" has no joints", call, b->model->name);
    return TP_OK;
}

tp_status tp_batch_set_robot_params(tp_batch *b, tp_robot_param which, const tp_world_select *s, const float *values)
{
    const char *call = "tp_batch_set_robot_params";
    tp_status st = usable(b, which, call);
    if (st || (st = tp_select_check(b, s, call))) return st;
    int n = param_columns(b->model->artic, which), rows = tp_select_rows(b, s);
    if (rows > 0 && n > 0 && !values) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: values is NULL", call);
    for (int r = 0; r < rows; ++r) {
        if (tp_select_world(s, r) < 0) continue;
        for (int i = 0; i < n; ++i)
            if ((st = check_value(b, which, r, i, values[(size_t)r * (size_t)n + (size_t)i], call))) return st;
    }
    if ((st = tp_select_begin_writes(b, s))) return st;
    for (int r = 0; r < rows; ++r) {
        int w = tp_select_world(s, r), changed = 0;
        if (w < 0) continue;
        for (int i = 0; i < n; ++i) changed |= set_value(b, which, w, i, values[(size_t)r * (size_t)n + (size_t)i]);
        if (changed) tp_wake_trees(b, w);
    }
    return TP_OK;
}

tp_status tp_batch_robot_params(tp_batch *b, tp_robot_param which, float *out)
{
    const char *call = "tp_batch_robot_params";
    tp_status st = usable(b, which, call);
    if (st) return st;
    int n = param_columns(b->model->artic, which);
    if (n > 0 && !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: out is NULL", call);
    if ((st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_BODIES))) return st; /* CUDA: their group */
    for (int w = 0; w < b->worlds; ++w)
        for (int i = 0; i < n; ++i) out[(size_t)w * (size_t)n + (size_t)i] = get_value(b, which, w, i);
    return TP_OK;
}
