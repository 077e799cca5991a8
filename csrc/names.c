/* names.c - the one name table of each enum kind of the public headers (shape,
 * joint type, actuator type, event action, backend, sleep state): what the
 * tp_*_name calls return, what the scene loader reads, and what the Python
 * package asks for through those calls (python/torpor/core.py). */
#include "names.h"

#include <stddef.h>

const char *const tp_shape_names[TP_SHAPE_COUNT] = {"box",   "ball",         "cylinder", "capsule",
                                                     "wedge", "corner_wedge", "convex"};
const char *const tp_joint_type_names[TP_JOINT_TYPE_COUNT] = {"fixed", "revolute", "prismatic", "ball", "free"};
const char *const tp_actuator_type_names[TP_ACTUATOR_TYPE_COUNT] = {"motor", "position", "velocity", "general"};
const char *const tp_mover_type_names[TP_MOVER_TYPE_COUNT] = {"align_position",   "align_orientation",
                                                              "linear_velocity",  "angular_velocity",
                                                              "vector_force",     "torque"};
const char *const tp_mover_frame_names[TP_MOVER_FRAME_COUNT] = {"world", "attachment0", "attachment1"};
const char *const tp_velocity_mode_names[TP_VELOCITY_MODE_COUNT] = {"line", "plane", "vector"};
const char *const tp_event_action_names[TP_EVENT_ACTION_COUNT] = {
    "impulse", "angular_impulse", "force", "set_velocity", "set_angular_velocity", "teleport",
    "gravity", "remove", "wake", "sleep", "reset", "constraint", "mover"};
const char *const tp_backend_names[TP_BACKEND_COUNT] = {"cpu", "cuda", "auto"};
const char *const tp_sleep_state_names[TP_SLEEP_STATE_COUNT] = {"awake", "sleeping", "checking"};
const char *const tp_constraint_type_names[TP_CONSTRAINT_TYPE_COUNT] = {"weld", "hinge", "prismatic", "ball",
                                                                         "rope", "spring", "rod"};
const char *const tp_constraint_actuator_names[TP_CONS_ACTUATOR_COUNT] = {"none", "motor", "servo"};

const char *tp_shape_name(tp_shape_type shape)
{
    return (unsigned)shape < TP_SHAPE_COUNT ? tp_shape_names[shape] : NULL;
}

const char *tp_mover_type_name(tp_mover_type type)
{
    return (unsigned)type < TP_MOVER_TYPE_COUNT ? tp_mover_type_names[type] : NULL;
}

const char *tp_joint_type_name(tp_joint_type type)
{
    return (unsigned)type < TP_JOINT_TYPE_COUNT ? tp_joint_type_names[type] : NULL;
}

const char *tp_actuator_type_name(tp_actuator_type type)
{
    return (unsigned)type < TP_ACTUATOR_TYPE_COUNT ? tp_actuator_type_names[type] : NULL;
}

const char *tp_event_action_name(tp_event_action action)
{
    return (unsigned)action < TP_EVENT_ACTION_COUNT ? tp_event_action_names[action] : NULL;
}

const char *tp_backend_name(tp_backend backend)
{
    return (unsigned)backend < TP_BACKEND_COUNT ? tp_backend_names[backend] : NULL;
}

const char *tp_sleep_state_name(tp_sleep_state state)
{
    return (unsigned)state < TP_SLEEP_STATE_COUNT ? tp_sleep_state_names[state] : NULL;
}
