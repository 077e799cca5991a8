/* model_defaults.c - every definition struct's documented defaults.
 *
 * Style follows Box2D v3's b2Default*Def functions: every definition struct has
 * a function that fills in the documented defaults, and the caller changes only
 * what it needs. */
#include "model.h"

#include <string.h>

/* The thresholds of the assembly sleep table, its studs taken as
 * metres; the collision wake speed of its wake situations; our choices for
 * the actuated factor and the quiet time (docs/sleep-policies.md says why). */
tp_assembly_def tp_default_assembly_def(void)
{
    tp_assembly_def a;
    a.linear_velocity = 0.33f;
    a.rotational_velocity = 0.42f;
    a.linear_acceleration = 0.24f;
    a.rotational_acceleration = 0.24f;
    a.neighbour_linear_velocity = 0.48f;
    a.neighbour_rotational_velocity = 0.59f;
    a.wake_linear_acceleration = 16.9f;
    a.wake_rotational_acceleration = 16.9f;
    a.collision_wake_speed = 1.0f;
    a.actuated_factor = 0.1f;
    a.quiet_time = 0.3f;
    return a;
}

tp_model_def tp_default_model_def(void)
{
    tp_model_def def;
    memset(&def, 0, sizeof def);
    def.name = "scene";
    def.gravity[2] = -9.81f;
    def.dt = 1.0f / 60.0f;
    def.substeps = 4;
    def.solver.iterations = 8;
    def.solver.mode = TP_SOLVER_COLORED;
    def.solver.restitution_threshold = 1.0f;
    def.solver.warm_starting = 1;
    /* Island sleep defaults (0.05 m/s, 0.15 rad/s, 0.5 s); the acceleration guard
     * threshold of the assembly sleep table. */
    def.sleep.enabled = 1;
    def.sleep.policy = TP_SLEEP_ISLAND;
    def.sleep.linear_threshold = 0.05f;
    def.sleep.angular_threshold = 0.15f;
    def.sleep.quiet_time = 0.5f;
    def.sleep.angular_measure = TP_ANGULAR_RAD_PER_S;
    def.sleep.accel_threshold = 0.24f;
    def.sleep.require_support = 1;
    def.sleep.skip_constraints = 1;
    def.sleep.assembly = tp_default_assembly_def();
    def.randomize.seed = 1;
    def.randomize.mass_scale[0] = def.randomize.mass_scale[1] = 1.0f;
    def.randomize.friction_range[0] = def.randomize.friction_range[1] = 0.6f;
    float *robot_scales[] = {def.randomize.joint_damping_scale, def.randomize.joint_armature_scale,
                             def.randomize.joint_friction_scale, def.randomize.actuator_gear_scale,
                             def.randomize.actuator_kp_scale, def.randomize.actuator_kv_scale};
    for (size_t i = 0; i < sizeof robot_scales / sizeof robot_scales[0]; ++i) robot_scales[i][0] = robot_scales[i][1] = 1.0f;
    return def;
}

tp_body_def tp_default_body_def(void)
{
    tp_body_def def;
    memset(&def, 0, sizeof def);
    def.type = TP_BODY_DYNAMIC;
    def.shape = TP_SHAPE_BOX;
    def.size[0] = def.size[1] = def.size[2] = 1.0f;
    def.quat[3] = 1.0f;
    def.density = 1000.0f;
    def.friction = 0.6f;
    def.contype = def.conaffinity = 1;
    return def;
}

tp_event_def tp_default_event_def(void)
{
    tp_event_def def;
    memset(&def, 0, sizeof def);
    def.action = TP_EVENT_WAKE;
    def.body = -1;
    def.quat[3] = 1.0f;
    def.mover = -1;
    def.enabled = -1;
    return def;
}
