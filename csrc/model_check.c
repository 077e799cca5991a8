/* model_check.c - the checks of a model's, a body's and an event's
 * definition: every numeric range and bound of docs/scene-format.md, in one
 * place. Each check names the offending field and why; the builder calls them
 * (tp_builder_*), and the scene loader maps the field back onto the document. */
#include "model.h"

#include "hull.h"
#include "shapes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- validation */

static int vec_finite(const float *v, int n, const char *name, char *field, size_t field_len, char *reason,
                      size_t reason_len)
{
    for (int i = 0; i < n; ++i) {
        if (!isfinite(v[i])) {
            char path[64];
            snprintf(path, sizeof path, "%s[%d]", name, i);
            return CHECK_FAIL(path, "must be a finite number, got %g", (double)v[i]);
        }
    }
    return 1;
}

/* A [lo, hi] range: finite, lo <= hi, and lo > min (strict) or lo >= min. */
static int range_check(const float r[2], float min, int strict, const char *name, char *field, size_t field_len,
                       char *reason, size_t reason_len)
{
    for (int i = 0; i < 2; ++i)
        if (!isfinite(r[i])) {
            snprintf(field, field_len, "%s[%d]", name, i);
            snprintf(reason, reason_len, "must be a finite number, got %g", (double)r[i]);
            return 0;
        }
    if (strict ? !(r[0] > min) : !(r[0] >= min)) {
        snprintf(field, field_len, "%s[0]", name);
        snprintf(reason, reason_len, "must be %s %g, got %g", strict ? ">" : ">=", (double)min, (double)r[0]);
        return 0;
    }
    if (!(r[0] <= r[1])) {
        snprintf(field, field_len, "%s[1]", name);
        snprintf(reason, reason_len, "must be >= %s[0] = %g, got %g", name, (double)r[0], (double)r[1]);
        return 0;
    }
    return 1;
}

/* Mass scale: 0 < lo <= hi, each within [TP_MIN_MASS_SCALE, TP_MAX_MASS_SCALE];
 * friction range (when set): 0 <= lo <= hi; robot parameter scales
 * 0 <= lo <= hi <= TP_MAX_MASS_SCALE (gear 0 < lo), so scaled parameters stay finite. */
static int randomize_ranges_check(const tp_randomize_def *r, char *field, size_t field_len, char *reason,
                                  size_t reason_len)
{
    if (!range_check(r->mass_scale, 0.0f, 1, "randomize.mass_scale", field, field_len, reason, reason_len)) return 0;
    for (int i = 0; i < 2; ++i) {
        if (r->mass_scale[i] < TP_MIN_MASS_SCALE || r->mass_scale[i] > TP_MAX_MASS_SCALE) {
            snprintf(field, field_len, "randomize.mass_scale[%d]", i);
            snprintf(reason, reason_len, "must be within [%g, %g] (docs/scene-format.md, \"Bounds\"), got %g",
                     (double)TP_MIN_MASS_SCALE, (double)TP_MAX_MASS_SCALE, (double)r->mass_scale[i]);
            return 0;
        }
    }
    if (r->has_friction_range &&
        !range_check(r->friction_range, 0.0f, 0, "randomize.friction_range", field, field_len, reason, reason_len))
        return 0;
    const struct { const float *range; const char *name; } scales[] = {
        {r->joint_damping_scale, "randomize.joint_damping_scale"},
        {r->joint_armature_scale, "randomize.joint_armature_scale"},
        {r->joint_friction_scale, "randomize.joint_friction_scale"},
        {r->actuator_gear_scale, "randomize.actuator_gear_scale"},
        {r->actuator_kp_scale, "randomize.actuator_kp_scale"},
        {r->actuator_kv_scale, "randomize.actuator_kv_scale"}};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; ++i) {
        if (!range_check(scales[i].range, 0.0f, scales[i].range == r->actuator_gear_scale, scales[i].name, field,
                         field_len, reason, reason_len))
            return 0;
        if (!(scales[i].range[1] <= TP_MAX_MASS_SCALE)) { /* lo <= hi: hi is the one past the bound */
            snprintf(field, field_len, "%s[1]", scales[i].name);
            snprintf(reason, reason_len, "must be <= %g (TP_MAX_MASS_SCALE, docs/scene-format.md, \"Bounds\"), got %g",
                     (double)TP_MAX_MASS_SCALE, (double)scales[i].range[1]);
            return 0;
        }
    }
    return 1;
}

/* Joint noise amplitudes within the bounds the batch's joint_q / joint_qd
 * writes take (TP_MAX_JOINT_Q, TP_MAX_JOINT_QD): a drawn state is one a write could give. */
static int joint_noise_check(const tp_randomize_def *r, char *field, size_t field_len, char *reason, size_t reason_len)
{
    const struct { const char *name, *bound, *unit; float value, max; } noise[] = {
        {"randomize.joint_q_noise", "TP_MAX_JOINT_Q", "rad or m", r->joint_q_noise, TP_MAX_JOINT_Q},
        {"randomize.joint_qd_noise", "TP_MAX_JOINT_QD", "rad/s or m/s", r->joint_qd_noise, TP_MAX_JOINT_QD}};
    for (int i = 0; i < 2; ++i)
        if (!(noise[i].value >= 0.0f && noise[i].value <= noise[i].max))
            return CHECK_FAIL(noise[i].name, "must be within [0, %g] %s (%s), got %g", (double)noise[i].max,
                              noise[i].unit, noise[i].bound, (double)noise[i].value);
    return 1;
}

/* Every threshold of the assembly policy finite and >= 0; the actuated factor
 * in (0, 1] (a stricter threshold, never a looser one). */
static int assembly_def_check(const tp_assembly_def *a, char *field, size_t field_len, char *reason, size_t reason_len)
{
    const struct { const char *name; float value; } nonneg[] = {
        {"sleep.assembly.linear_velocity", a->linear_velocity},
        {"sleep.assembly.rotational_velocity", a->rotational_velocity},
        {"sleep.assembly.linear_acceleration", a->linear_acceleration},
        {"sleep.assembly.rotational_acceleration", a->rotational_acceleration},
        {"sleep.assembly.neighbour_linear_velocity", a->neighbour_linear_velocity},
        {"sleep.assembly.neighbour_rotational_velocity", a->neighbour_rotational_velocity},
        {"sleep.assembly.wake_linear_acceleration", a->wake_linear_acceleration},
        {"sleep.assembly.wake_rotational_acceleration", a->wake_rotational_acceleration},
        {"sleep.assembly.collision_wake_speed", a->collision_wake_speed},
        {"sleep.assembly.quiet_time", a->quiet_time}};
    for (size_t i = 0; i < sizeof nonneg / sizeof nonneg[0]; ++i)
        if (!isfinite(nonneg[i].value) || nonneg[i].value < 0.0f)
            return CHECK_FAIL(nonneg[i].name, "must be a finite number >= 0, got %g", (double)nonneg[i].value);
    if (!isfinite(a->actuated_factor) || !(a->actuated_factor > 0.0f) || a->actuated_factor > 1.0f)
        return CHECK_FAIL("sleep.assembly.actuated_factor", "must be in (0, 1], got %g", (double)a->actuated_factor);
    return 1;
}

int tp_model_def_check(const tp_model_def *def, char *field, size_t field_len, char *reason, size_t reason_len)
{
    if (!vec_finite(def->gravity, 3, "gravity", field, field_len, reason, reason_len)) return 0;
    for (int i = 0; i < 3; ++i) {
        /* Gravity goes from -500 to 500 m/s^2; we apply that range per axis. */
        if (def->gravity[i] < -500.0f || def->gravity[i] > 500.0f) {
            char path[32];
            snprintf(path, sizeof path, "gravity[%d]", i);
            return CHECK_FAIL(path, "must be within [-500, 500] m/s^2, got %g", (double)def->gravity[i]);
        }
    }
    if (!isfinite(def->dt) || !(def->dt > 0.0f)) return CHECK_FAIL("dt", "must be > 0 seconds, got %g", (double)def->dt);
    if (def->dt < TP_MIN_DT || def->dt > TP_MAX_DT)
        return CHECK_FAIL("dt", "must be within [%g, %g] s (docs/scene-format.md, \"Bounds\"), got %g", (double)TP_MIN_DT,
                          (double)TP_MAX_DT, (double)def->dt);
    if (def->substeps < 1 || def->substeps > 1000)
        return CHECK_FAIL("substeps", "must be in [1, 1000], got %d", def->substeps);
    if (def->solver.iterations < 1 || def->solver.iterations > 1000)
        return CHECK_FAIL("solver.iterations", "must be in [1, 1000], got %d", def->solver.iterations);
    if ((unsigned)def->solver.mode > TP_SOLVER_SERIAL)
        return CHECK_FAIL("solver.mode", "must be \"colored\" or \"serial\", got %d", (int)def->solver.mode);
    if (!isfinite(def->solver.restitution_threshold) || def->solver.restitution_threshold < 0.0f)
        return CHECK_FAIL("solver.restitution_threshold", "must be >= 0 m/s, got %g", (double)def->solver.restitution_threshold);
    const tp_sleep_def *s = &def->sleep;
    if ((unsigned)s->policy > TP_SLEEP_ASSEMBLY)
        return CHECK_FAIL("sleep.policy", "must be \"island\" or \"assembly\", got %d", (int)s->policy);
    if (!assembly_def_check(&s->assembly, field, field_len, reason, reason_len)) return 0;
    const struct { const char *name; float value; } nonneg[] = {
        {"sleep.linear_threshold", s->linear_threshold}, {"sleep.angular_threshold", s->angular_threshold},
        {"sleep.quiet_time", s->quiet_time}, {"sleep.accel_threshold", s->accel_threshold}};
    for (size_t i = 0; i < sizeof nonneg / sizeof nonneg[0]; ++i)
        if (!isfinite(nonneg[i].value) || nonneg[i].value < 0.0f)
            return CHECK_FAIL(nonneg[i].name, "must be a finite number >= 0, got %g", (double)nonneg[i].value);
    if ((unsigned)s->angular_measure > TP_ANGULAR_SURFACE_SPEED)
        return CHECK_FAIL("sleep.angular_measure", "must be \"rad_per_s\" or \"surface_speed\", got %d", (int)s->angular_measure);
    if (!isfinite(def->randomize.pos_noise) || def->randomize.pos_noise < 0.0f)
        return CHECK_FAIL("randomize.pos_noise", "must be a finite number >= 0 m, got %g", (double)def->randomize.pos_noise);
    if (!isfinite(def->randomize.yaw_noise_deg) || def->randomize.yaw_noise_deg < 0.0f ||
        def->randomize.yaw_noise_deg > 180.0f)
        return CHECK_FAIL("randomize.yaw_noise_deg", "must be within [0, 180] degrees, got %g", (double)def->randomize.yaw_noise_deg);
    if (!joint_noise_check(&def->randomize, field, field_len, reason, reason_len)) return 0;
    for (int k = 0; k < 3; ++k) {
        float a = def->randomize.link_com_offset[k];
        if (!(a >= 0.0f && a <= TP_MAX_SIZE)) {
            char path[40];
            snprintf(path, sizeof path, "randomize.link_com_offset[%d]", k);
            return CHECK_FAIL(path, "must be a finite number in [0, %g] m, got %g", (double)TP_MAX_SIZE, (double)a);
        }
    }
    if ((unsigned)def->randomize.joint_noise_normal > 1u)
        return CHECK_FAIL("randomize.joint_noise", "must be 0 (uniform) or 1 (normal), got %d",
                          def->randomize.joint_noise_normal);
    return randomize_ranges_check(&def->randomize, field, field_len, reason, reason_len);
}

/* The same bounds for a compound body: its mass (given, or the shapes'
 * densities x volumes) and the diagonal of its inertia about the centre of mass. */
static int compound_mass_in_bounds(const tp_body_def *def, char *field, size_t field_len, char *reason,
                                   size_t reason_len)
{
    double mass = def->mass > 0.0f ? (double)def->mass : tp_compound_density_mass(def);
    const char *name = def->mass > 0.0f ? "mass" : "shapes";
    if (!(mass >= TP_MIN_MASS && mass <= TP_MAX_MASS))
        return CHECK_FAIL(name, "%s a mass of %g kg, outside [%g, %g] kg (docs/scene-format.md, \"Bounds\")",
                          def->mass > 0.0f ? "is" : "give", mass, (double)TP_MIN_MASS, (double)TP_MAX_MASS);
    if (def->has_inertia) return 1; /* checked with the inertia itself */
    float m, com[3], inertia[6];
    tp_compound_mass_props(def, &m, com, inertia);
    for (int k = 0; k < 3; ++k)
        if (!(inertia[k] >= 1e-30f && inertia[k] <= 1e30f))
            return CHECK_FAIL(name, "give a moment of inertia of %g kg m^2, outside [1e-30, 1e30]", (double)inertia[k]);
    return 1;
}

/* A dynamic body's mass, given or density x volume, must be within
 * [TP_MIN_MASS, TP_MAX_MASS], and its principal moments of inertia must be
 * positive and finite, so that the inverse mass and inverse inertia the solver
 * uses are finite normal floats (mass 1e-45, or a box [1e-40, 1, 1] of 1 kg,
 * would otherwise become an infinite inverse and fault every world). The
 * message names `mass` when it was given, else `density`. */
static int mass_in_bounds(const tp_body_def *def, char *field, size_t field_len, char *reason, size_t reason_len)
{
    float volume, com[3], inertia[6];
    if (def->shape_count > 0) return compound_mass_in_bounds(def, field, field_len, reason, reason_len);
    tp_shape_unit_mass_props(def->shape, def->size, def->vertices, def->vertex_count, &volume, com, inertia);
    double mass = def->mass > 0.0f ? (double)def->mass : (double)def->density * (double)volume;
    const char *name = def->mass > 0.0f ? "mass" : "density";
    if (!(mass >= TP_MIN_MASS && mass <= TP_MAX_MASS)) {
        if (def->mass > 0.0f)
            return CHECK_FAIL(name, "must be within [%g, %g] kg (docs/scene-format.md, \"Bounds\"), got %g",
                              (double)TP_MIN_MASS, (double)TP_MAX_MASS, mass);
        return CHECK_FAIL(name, "gives a mass of %g kg (density x %g m^3), outside [%g, %g] kg "
                          "(docs/scene-format.md, \"Bounds\")", mass, (double)volume, (double)TP_MIN_MASS,
                          (double)TP_MAX_MASS);
    }
    double scale = mass / (double)volume;
    for (int k = 0; k < 3; ++k) { /* the diagonal: the principal moments of a shape in its own axes */
        double moment = (double)inertia[k] * scale;
        if (!(moment >= 1e-30 && moment <= 1e30))
            return CHECK_FAIL(name, "gives a moment of inertia of %g kg m^2, outside [1e-30, 1e30]", moment);
    }
    return 1;
}

/* Any other finite quaternion, however large or small, is normalized safely
 * (tp_q_normalize_any), so only all zeros is refused. */
static int quat_is_zero(const float q[4])
{
    return q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f;
}

/* size: finite, > 0, within the bounds, and a shape's own rule (a capsule's length). */
static int body_size_check(const tp_body_def *def, char *field, size_t field_len, char *reason, size_t reason_len)
{
    if (!vec_finite(def->size, 3, "size", field, field_len, reason, reason_len)) return 0;
    for (int i = 0; i < 3; ++i) {
        if (!(def->size[i] > 0.0f)) {
            char path[32];
            snprintf(path, sizeof path, "size[%d]", i);
            return CHECK_FAIL(path, "must be > 0, got %g", (double)def->size[i]);
        }
    }
    for (int i = 0; i < 3; ++i) {
        if (def->size[i] < TP_MIN_SIZE || def->size[i] > TP_MAX_SIZE) {
            char path[32];
            snprintf(path, sizeof path, "size[%d]", i);
            return CHECK_FAIL(path, "must be within [%g, %g] m (docs/scene-format.md, \"Bounds\"), got %g",
                              (double)TP_MIN_SIZE, (double)TP_MAX_SIZE, (double)def->size[i]);
        }
    }
    char shape_reason[160];
    if (tp_shape_validate(def->shape, def->size, shape_reason, sizeof shape_reason) != 0)
        return CHECK_FAIL("size", "%s", shape_reason);
    return 1;
}

int tp_body_def_check(const tp_body_def *def, char *field, size_t field_len, char *reason, size_t reason_len)
{
    if ((unsigned)def->type > TP_BODY_KINEMATIC)
        return CHECK_FAIL("type", "must be dynamic, static or kinematic, got %d", (int)def->type);
    if ((unsigned)def->shape >= TP_SHAPE_COUNT)
        return CHECK_FAIL("shape", "unknown shape %d", (int)def->shape);
    if (!tp_shape_vertices_check(def->shape, def->vertices, def->vertex_count, NULL, field, field_len, reason,
                                 reason_len))
        return 0;
    if (def->shape != TP_SHAPE_CONVEX && !body_size_check(def, field, field_len, reason, reason_len)) return 0;
    if (!vec_finite(def->pos, 3, "pos", field, field_len, reason, reason_len)) return 0;
    if (!vec_finite(def->quat, 4, "quat", field, field_len, reason, reason_len)) return 0;
    if (quat_is_zero(def->quat)) return CHECK_FAIL("quat", "must not be the zero quaternion");
    if (!vec_finite(def->vel, 3, "vel", field, field_len, reason, reason_len)) return 0;
    if (!vec_finite(def->ang_vel, 3, "ang_vel", field, field_len, reason, reason_len)) return 0;
    if (!isfinite(def->density) || !(def->density > 0.0f))
        return CHECK_FAIL("density", "must be > 0 kg/m^3, got %g", (double)def->density);
    if (!tp_body_shapes_check(def, field, field_len, reason, reason_len)) return 0;
    if (!isfinite(def->mass) || def->mass < 0.0f)
        return CHECK_FAIL("mass", "must be > 0 kg (or 0 to use density), got %g", (double)def->mass);
    if (def->type == TP_BODY_DYNAMIC && !mass_in_bounds(def, field, field_len, reason, reason_len)) return 0;
    if (!isfinite(def->friction) || def->friction < 0.0f)
        return CHECK_FAIL("friction", "must be >= 0, got %g", (double)def->friction);
    if (!isfinite(def->restitution) || def->restitution < 0.0f || def->restitution > 1.0f)
        return CHECK_FAIL("restitution", "must be within [0, 1], got %g", (double)def->restitution);
    if (def->contype < 0) return CHECK_FAIL("contype", "must be >= 0 (a bitmask), got %d", def->contype);
    if (def->conaffinity < 0) return CHECK_FAIL("conaffinity", "must be >= 0 (a bitmask), got %d", def->conaffinity);
    if ((unsigned)def->sensor > 1u) return CHECK_FAIL("sensor", "must be 0 or 1, got %d", def->sensor);
    if (def->sensor && def->shape_count > 0)
        return CHECK_FAIL("sensor", "a compound body marks its shapes as sensors (shapes[i].sensor), not itself");
    return 1;
}

/* Actions that act on one body need `body`; the others must not name one. */
static int action_needs_body(tp_event_action a)
{
    return a != TP_EVENT_GRAVITY && a != TP_EVENT_RESET && a != TP_EVENT_CONSTRAINT && a != TP_EVENT_MOVER;
}

int tp_event_def_check(const tp_event_def *def, int body_count, const tp_body_def *bodies, char *field,
                       size_t field_len, char *reason, size_t reason_len)
{
    if (!isfinite(def->time) || def->time < 0.0 || def->time > 1e9)
        return CHECK_FAIL("time", "must be a time >= 0 s (and at most 1e9 s), got %g", def->time);
    if ((unsigned)def->action >= TP_EVENT_ACTION_COUNT)
        return CHECK_FAIL("action", "unknown action %d", (int)def->action);
    if (action_needs_body(def->action)) {
        if (def->body < 0 || def->body >= body_count)
            return CHECK_FAIL("body", "\"%s\" needs a body of the scene (0..%d), got %d", tp_event_action_name(def->action), body_count - 1, def->body);
        if (bodies && bodies[def->body].type != TP_BODY_DYNAMIC && def->action != TP_EVENT_REMOVE)
            return CHECK_FAIL("body", "\"%s\" acts on dynamic bodies; body %d is static or kinematic", tp_event_action_name(def->action), def->body);
    }
    if (!vec_finite(def->value, 3, "value", field, field_len, reason, reason_len)) return 0;
    if (!vec_finite(def->pos, 3, "pos", field, field_len, reason, reason_len)) return 0;
    if (!vec_finite(def->quat, 4, "quat", field, field_len, reason, reason_len)) return 0;
    if (def->action == TP_EVENT_GRAVITY) {
        for (int i = 0; i < 3; ++i) {
            if (def->value[i] < -500.0f || def->value[i] > 500.0f) {
                char path[32];
                snprintf(path, sizeof path, "value[%d]", i);
                return CHECK_FAIL(path, "gravity must be within [-500, 500] m/s^2, got %g", (double)def->value[i]);
            }
        }
    }
    if (def->action == TP_EVENT_TELEPORT && def->has_quat) {
        if (quat_is_zero(def->quat)) return CHECK_FAIL("quat", "must not be the zero quaternion");
    }
    if (!isfinite(def->duration) || def->duration < 0.0 || def->duration > 1e9)
        return CHECK_FAIL("duration", "must be a time >= 0 s (and at most 1e9 s), got %g", def->duration);
    if (def->world_count < 0 || (def->world_count > 0 && !def->worlds))
        return CHECK_FAIL("worlds", "world list is empty or missing");
    for (int i = 0; i < def->world_count; ++i) {
        if (def->worlds[i] < 0) {
            char path[32];
            snprintf(path, sizeof path, "worlds[%d]", i);
            return CHECK_FAIL(path, "must be a world index >= 0, got %d", def->worlds[i]);
        }
    }
    return 1;
}

tp_status tp_ends_not_links_check(const tp_model *m, const char *list, int k, const char *kind, const char *name,
                                  int body0, int body1, const char *advice)
{
    int ends[2] = {body0, body1};
    for (int e = 0; e < 2; ++e)
        if (ends[e] >= 0 && m->bodies[ends[e]].link) {
            tp_status st = tp_fail(TP_ERR_INVALID_ARGUMENT, "%s \"%s\": body%d: \"%s\" is an articulation link (%s)",
                                   kind, name, e, m->body_names[ends[e]], advice);
            tp_fail_item(list, k);
            return st;
        }
    return TP_OK;
}

tp_status tp_position_check(const float *p, const char *kind, const char *field)
{
    for (int k = 0; k < 3; ++k)
        if (!(fabsf(p[k]) <= TP_MAX_SIZE))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s: must be within [%g, %g] m in each component "
                           "(docs/scene-format.md, \"Bounds\"), got [%g, %g, %g]", kind, field, -(double)TP_MAX_SIZE,
                           (double)TP_MAX_SIZE, (double)p[0], (double)p[1], (double)p[2]);
    return TP_OK;
}
