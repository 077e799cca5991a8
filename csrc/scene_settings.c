/* scene_settings.c - a scene's top level (format, version, name) and the
 * model settings: gravity, dt, substeps, solver, sleep (with the assembly
 * thresholds) and randomize (docs/scene-format.md). Ranges are checked by
 * tp_model_def_check (csrc/model_check.c). */
#include "error.h"
#include "model.h"
#include "scene_read.h"
#include "torpor.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Value names, indexed by the enum value of include/torpor.h. */
static const char *const mode_names[] = {"colored", "serial"};
static const char *const policy_names[] = {"island", "assembly"};
static const char *const measure_names[] = {"rad_per_s", "surface_speed"};
/* Enum fields are written through an int. */
_Static_assert(sizeof(tp_shape_type) == sizeof(int) && sizeof(tp_solver_mode) == sizeof(int) &&
                   sizeof(tp_sleep_policy) == sizeof(int) && sizeof(tp_angular_measure) == sizeof(int),
               "enums must be int-sized");

static const field model_fields[] = {
    OTHER("format"), OTHER("version"), OTHER("name"),
    FIELD("gravity", V_VEC3, tp_model_def, gravity), FIELD("dt", V_FLOAT, tp_model_def, dt),
    FIELD("substeps", V_INT, tp_model_def, substeps),
    OTHER("solver"), OTHER("sleep"), OTHER("bodies"), OTHER("randomize"), OTHER("events"), OTHER("joints"), OTHER("constraints"), OTHER("keyframes"),
    OTHER("movers"), OTHER("exclude"), OTHER("actuators"), OTHER("sites")};

static const field solver_fields[] = {
    FIELD("iterations", V_INT, tp_solver_def, iterations),
    ENUM_FIELD("mode", tp_solver_def, mode, mode_names, "solver mode"),
    FIELD("restitution_threshold", V_FLOAT, tp_solver_def, restitution_threshold),
    FIELD("warm_starting", V_BOOL, tp_solver_def, warm_starting)};

static const field sleep_fields[] = {
    FIELD("enabled", V_BOOL, tp_sleep_def, enabled),
    ENUM_FIELD("policy", tp_sleep_def, policy, policy_names, "sleep policy"),
    FIELD("linear_threshold", V_FLOAT, tp_sleep_def, linear_threshold),
    FIELD("angular_threshold", V_FLOAT, tp_sleep_def, angular_threshold),
    FIELD("quiet_time", V_FLOAT, tp_sleep_def, quiet_time),
    ENUM_FIELD("angular_measure", tp_sleep_def, angular_measure, measure_names, "angular measure"),
    FIELD("accel_threshold", V_FLOAT, tp_sleep_def, accel_threshold),
    FIELD("require_support", V_BOOL, tp_sleep_def, require_support),
    FIELD("skip_constraints", V_BOOL, tp_sleep_def, skip_constraints), OTHER("assembly")};

/* sleep.assembly: the thresholds of the assembly policy (read_sleep_assembly). */
static const field assembly_fields[] = {
    FIELD("linear_velocity", V_FLOAT, tp_assembly_def, linear_velocity),
    FIELD("rotational_velocity", V_FLOAT, tp_assembly_def, rotational_velocity),
    FIELD("linear_acceleration", V_FLOAT, tp_assembly_def, linear_acceleration),
    FIELD("rotational_acceleration", V_FLOAT, tp_assembly_def, rotational_acceleration),
    FIELD("neighbour_linear_velocity", V_FLOAT, tp_assembly_def, neighbour_linear_velocity),
    FIELD("neighbour_rotational_velocity", V_FLOAT, tp_assembly_def, neighbour_rotational_velocity),
    FIELD("wake_linear_acceleration", V_FLOAT, tp_assembly_def, wake_linear_acceleration),
    FIELD("wake_rotational_acceleration", V_FLOAT, tp_assembly_def, wake_rotational_acceleration),
    FIELD("collision_wake_speed", V_FLOAT, tp_assembly_def, collision_wake_speed),
    FIELD("actuated_factor", V_FLOAT, tp_assembly_def, actuated_factor),
    FIELD("quiet_time", V_FLOAT, tp_assembly_def, quiet_time)};

static const char *const joint_noise_names[] = {"uniform", "normal"};
static const field randomize_fields[] = {
    OTHER("seed"), FIELD("pos_noise", V_FLOAT, tp_randomize_def, pos_noise),
    FIELD("yaw_noise_deg", V_FLOAT, tp_randomize_def, yaw_noise_deg),
    FIELD("mass_scale", V_VEC2, tp_randomize_def, mass_scale),
    FIELD("friction_range", V_VEC2, tp_randomize_def, friction_range),
    FIELD("joint_q_noise", V_FLOAT, tp_randomize_def, joint_q_noise),
    FIELD("joint_qd_noise", V_FLOAT, tp_randomize_def, joint_qd_noise),
    ENUM_FIELD("joint_noise", tp_randomize_def, joint_noise_normal, joint_noise_names, "joint noise distribution"),
    FIELD("joint_damping_scale", V_VEC2, tp_randomize_def, joint_damping_scale),
    FIELD("joint_armature_scale", V_VEC2, tp_randomize_def, joint_armature_scale),
    FIELD("joint_friction_scale", V_VEC2, tp_randomize_def, joint_friction_scale),
    FIELD("actuator_gear_scale", V_VEC2, tp_randomize_def, actuator_gear_scale),
    FIELD("actuator_kp_scale", V_VEC2, tp_randomize_def, actuator_kp_scale),
    FIELD("actuator_kv_scale", V_VEC2, tp_randomize_def, actuator_kv_scale),
    FIELD("link_com_offset", V_VEC3, tp_randomize_def, link_com_offset), OTHER("keyframe")};

static int read_header(scene *sc, const json_t *root)
{
    const json_t *v = json_object_get(root, "format");
    if (v) {
        const char *s = NULL;
        scene_push_key(sc, "format");
        if (!scene_as_string(sc, v, &s)) return scene_pop(sc, 0);
        if (strcmp(s, "torpor-scene") != 0)
            return scene_pop(sc, scene_fail(sc, 0, "must be \"torpor-scene\", got \"%s\"", s));
        scene_pop(sc, 1);
    }
    v = json_object_get(root, "version");
    if (v) {
        json_int_t version = 0;
        scene_push_key(sc, "version");
        if (!scene_as_integer(sc, v, &version)) return scene_pop(sc, 0);
        if (version > 2)
            return scene_pop(sc, scene_fail(sc, 0, "this torpor reads versions 1 and 2, got %lld; upgrade torpor",
                                (long long)version));
        if (version < 1) return scene_pop(sc, scene_fail(sc, 0, "must be 1 or 2, got %lld", (long long)version));
        sc->version = (int)version;
        scene_pop(sc, 1);
    }
    return 1;
}

static int read_seed(scene *sc, const json_t *v, uint64_t *out)
{
    json_int_t seed = 0;
    if (!scene_as_integer(sc, v, &seed)) return 0;
    if (seed < 0) return scene_fail(sc, 0, "must be an integer >= 0, got %lld", (long long)seed);
    *out = (uint64_t)seed;
    return 1;
}

/* The object sleep.assembly, if present: its thresholds over the defaults. */
static int read_sleep_assembly(scene *sc, const json_t *root, tp_assembly_def *def)
{
    const json_t *sleep = json_object_get(root, "sleep");
    if (!sleep || !json_is_object(sleep)) return 1;
    scene_push_key(sc, "sleep");
    return scene_pop(sc, scene_read_section(sc, sleep, "assembly", assembly_fields, COUNT(assembly_fields), def));
}

int scene_read_model_def(scene *sc, const json_t *root, tp_model_def *def)
{
    *def = tp_default_model_def();
    if (!scene_read_fields(sc, root, model_fields, COUNT(model_fields), def)) return 0;
    if (!read_header(sc, root)) return 0;
    READ_KEY(sc, root, "name", scene_as_string, &def->name);
    if (!scene_read_section(sc, root, "solver", solver_fields, COUNT(solver_fields), &def->solver)) return 0;
    if (!scene_read_section(sc, root, "sleep", sleep_fields, COUNT(sleep_fields), &def->sleep)) return 0;
    if (!read_sleep_assembly(sc, root, &def->sleep.assembly)) return 0;
    if (!scene_read_section(sc, root, "randomize", randomize_fields, COUNT(randomize_fields), &def->randomize)) return 0;
    const json_t *randomize = json_object_get(root, "randomize");
    if (randomize) {
        scene_push_key(sc, "randomize");
        READ_KEY(sc, randomize, "seed", read_seed, &def->randomize.seed);
        READ_KEY(sc, randomize, "keyframe", scene_as_name, &def->randomize.keyframe); /* checked by scene_keyframes.c */
        def->randomize.has_friction_range = json_object_get(randomize, "friction_range") != NULL;
        scene_pop(sc, 1);
    }
    char field[64], reason[256];
    if (!tp_model_def_check(def, field, sizeof field, reason, sizeof reason))
        return scene_fail_check(sc, field, reason, NULL, NULL);
    return 1;
}

