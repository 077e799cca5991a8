/* names.h - the enum name tables (csrc/names.c), one per kind, indexed by the
 * enum value of the public headers; the scene loader matches words against
 * them. Internal to the library (the public calls are tp_shape_name, ...). */
#ifndef TP_NAMES_H
#define TP_NAMES_H

#include "torpor.h"
#include "torpor_actuators.h"
#include "torpor_joints.h"

extern const char *const tp_shape_names[TP_SHAPE_COUNT];
extern const char *const tp_joint_type_names[TP_JOINT_TYPE_COUNT];
extern const char *const tp_actuator_type_names[TP_ACTUATOR_TYPE_COUNT];
extern const char *const tp_event_action_names[TP_EVENT_ACTION_COUNT];
/* (the public enums have no count: these are theirs) */
#define TP_BACKEND_COUNT 3
#define TP_SLEEP_STATE_COUNT 3
extern const char *const tp_backend_names[TP_BACKEND_COUNT];
extern const char *const tp_sleep_state_names[TP_SLEEP_STATE_COUNT];
extern const char *const tp_mover_type_names[TP_MOVER_TYPE_COUNT];
#define TP_MOVER_FRAME_COUNT 3
#define TP_VELOCITY_MODE_COUNT 3
extern const char *const tp_mover_frame_names[TP_MOVER_FRAME_COUNT];
extern const char *const tp_velocity_mode_names[TP_VELOCITY_MODE_COUNT];
#define TP_CONS_ACTUATOR_COUNT 3
extern const char *const tp_constraint_type_names[TP_CONSTRAINT_TYPE_COUNT];
extern const char *const tp_constraint_actuator_names[TP_CONS_ACTUATOR_COUNT];

#endif
