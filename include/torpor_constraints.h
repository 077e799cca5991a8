/* torpor_constraints.h - constraints between any two bodies (maximal coordinates).
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_CONSTRAINTS_H
#define TORPOR_CONSTRAINTS_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_constraints.h"
#endif

/* ================================================================ constraints
 * (this block is owned by the constraint module: csrc/constraint*.c,
 * kernels/constraint*.h, docs/constraints.md)
 *
 * A constraint joins two free bodies, or a body and the world (body -1), at
 * two attachments: a frame on each body (position and orientation in the
 * body frame; in the world frame for body -1). Its rows are solved with the
 * contact rows in every sweep of every substep (docs/constraints.md), so
 * loops are allowed (a four-bar linkage, a rope bridge, a cart on four
 * hinges). A constrained body must be dynamic and no articulation link; the
 * other may be static, kinematic or the world.
 *
 * Types (attachment0's X axis is "the axis"):
 *   WELD       keeps the bodies' offset at the start (the attachments are
 *              ignored: attachment1 is body1's origin, attachment0 where it
 *              starts, in body0's frame)
 *   HINGE      attachment1 held on attachment0, turning about the axis only;
 *              angle: attachment1's turn about it from attachment0, rad in (-pi, pi]
 *   PRISMATIC  attachment1 held on the line through attachment0 along the axis,
 *              no turning; position: attachment1 along the axis from attachment0, m
 *   BALL       attachment1 held on attachment0, any turn; optionally a cone
 *              (attachment1's X axis within cone_angle of attachment0's) and
 *              twist limits (attachment1's turn about its X axis from
 *              attachment0, the hinge's angle, within [twist_lower, twist_upper])
 *   ROPE       at most `length` apart; `restitution` bounces a rope that snaps taut
 *              (not when the ends part slower than TP_ROPE_NO_BOUNCE_SPEED); a
 *              winch moves `length` towards winch_target every substep at up to
 *              winch_speed, at the distance to go x winch_responsiveness / 10
 *              near it (0: winch_speed all the way), and stops reeling in while
 *              the rope pulls harder than winch_force (seed 004, "Winches")
 *   SPRING     towards `length` apart (the free length), stiffness N/m and
 *              damping N s/m, integrated implicitly (stable at any stiffness)
 *   ROD        exactly `length` apart
 * Actuators of a hinge (rad, rad/s, N m) or a slider (m, m/s, N):
 *   NONE   free; MOTOR turns at `velocity` with at most `max_force`;
 *   SERVO  moves to `target` at up to `speed` with at most `max_force`.
 * Limits (hinge: rad in [-pi, pi]; slider: m): lower <= value <= upper. */

/* tp_constraint_type, tp_constraint_actuator and TP_ROPE_NO_BOUNCE_SPEED:
 * include/torpor_types.h (the kernels share them). */

typedef struct tp_constraint_def {
    const char *name;           /* NULL: "constraint<i>" */
    tp_constraint_type type;
    int body0, body1;           /* body indices; -1: the world (at most one of them) */
    float pos0[3], quat0[4];    /* attachment0 in body0's frame (world frame for -1), m, each component within
                                   TP_MAX_SIZE; unit [x y z w] */
    float pos1[3], quat1[4];    /* attachment1 in body1's frame */
    tp_constraint_actuator actuator; /* HINGE and PRISMATIC */
    float velocity;             /* MOTOR: rad/s or m/s */
    float target;               /* SERVO: rad or m */
    float speed;                /* SERVO: at most this fast, rad/s or m/s, > 0 */
    float max_force;            /* MOTOR, SERVO: N m or N, >= 0 */
    int limits;                 /* HINGE, PRISMATIC: 1 keeps lower <= value <= upper */
    float lower, upper;
    float length;               /* ROPE, ROD: m; SPRING: free length, m; in [0, TP_MAX_SIZE] (default 0; a scene
                                   without the key: the attachments' distance at the start) */
    float restitution;          /* ROPE: in [0, 1] */
    float stiffness, damping;   /* SPRING: N/m > 0, N s/m >= 0 */
    int enabled;                /* 0: no rows and no island link (the bodies still never collide) */
    int cone;                   /* BALL: 1 keeps the swing within cone_angle */
    float cone_angle;           /* rad in [0, pi] */
    int twist;                  /* BALL: 1 keeps twist_lower <= twist <= twist_upper */
    float twist_lower, twist_upper; /* rad in [-pi, pi] */
    int winch;                  /* ROPE: 1 turns the winch on */
    float winch_target;         /* m in [0, TP_MAX_SIZE]; < 0: the rope's length (the winch holds still) */
    float winch_speed;          /* m/s >= 0 */
    float winch_responsiveness; /* >= 0 (1/s x 10) */
    float winch_force;          /* N >= 0 */
} tp_constraint_def;

/* A hinge between the world and nothing yet: identity attachments, no
 * actuator, no limits, servo speed 1, stiffness 100, damping 0, enabled;
 * a winch off with seed 004's defaults: winch_target = the length,
 * winch_speed 2 m/s, winch_responsiveness 45 (full speed until about 45 cm
 * from the target, as the seed says), winch_force 10000 N. */
tp_constraint_def tp_default_constraint_def(void);
/* Add a constraint; *out_index (may be NULL) gets its index. Errors:
 * TP_ERR_INVALID_ARGUMENT naming the field (an unknown body, both ends the
 * world, the same body twice, a zero attachment quaternion, a negative
 * length, a bad restitution, stiffness or speed, lower > upper, a body that
 * is no dynamic body, or an articulation link). */
tp_status tp_builder_add_constraint(tp_builder *b, const tp_constraint_def *def, int *out_index);
int tp_model_constraint_count(const tp_model *m);
/* The definition as stored (a weld's attachments as computed; attachment
 * quaternions normalized); name points into the model. */
tp_status tp_model_constraint(const tp_model *m, int index, tp_constraint_def *out);
/* Index of the constraint called `name`, or -1. */
int tp_model_find_constraint(const tp_model *m, const char *name);

/* Read-outs of every constraint in every world, [worlds][constraints] each
 * (NULL: not wanted), from the state after the last step:
 *   value  HINGE angle (rad), PRISMATIC position (m), ROPE, SPRING, ROD and
 *          BALL distance between the attachments (m), WELD 0;
 *   force  the constraint's force on body1 over the last step (N), the norm
 *          of the summed impulses of its rows over the step / dt (a hinge's
 *          motor torque included as N m). */
tp_status tp_batch_constraints(tp_batch *b, float *value, float *force);
/* The impulse of every constraint on body1 over the last step, world frame,
 * [worlds][constraints][3] N s (force = |impulse| / dt). */
tp_status tp_batch_constraint_impulses(tp_batch *b, float *impulse);

/* Per-world parameters: each world runs its own copy of every constraint's
 * parameters, the model's at each reset, written by
 * tp_batch_set_constraint_params (csrc/constraint_params.c). Columns are
 * the constraints in the order added ([rows][C], C = tp_model_constraint_count).
 * A parameter a constraint does not have (TARGET of a rope) must be written as
 * the value tp_batch_constraint_params gives (so a row read back can be
 * written as it is), else TP_ERR_INVALID_ARGUMENT. A changed value wakes the
 * constraint's bodies (seed 000: any property change of a constraint wakes
 * its assemblies); a winch's length moves by itself while it runs. */
typedef enum tp_constraint_param {
    TP_CONS_ENABLED = 0,      /* every type: 0 or 1 */
    TP_CONS_VELOCITY = 1,     /* HINGE, PRISMATIC: motor velocity, finite */
    TP_CONS_TARGET = 2,       /* HINGE, PRISMATIC: servo target, finite */
    TP_CONS_SPEED = 3,        /* HINGE, PRISMATIC: servo speed, > 0 */
    TP_CONS_MAX_FORCE = 4,    /* HINGE, PRISMATIC: >= 0 */
    TP_CONS_LENGTH = 5,       /* ROPE, ROD, SPRING: in [0, TP_MAX_SIZE] m (a rope's, as its winch moves it) */
    TP_CONS_RESTITUTION = 6,  /* ROPE: in [0, 1] */
    TP_CONS_STIFFNESS = 7,    /* SPRING: > 0 */
    TP_CONS_DAMPING = 8,      /* SPRING: >= 0 */
    TP_CONS_WINCH = 9,        /* ROPE: 0 or 1 */
    TP_CONS_WINCH_TARGET = 10,/* ROPE: in [0, TP_MAX_SIZE] m */
    TP_CONS_WINCH_SPEED = 11, /* ROPE: >= 0 */
    TP_CONS_WINCH_RESPONSIVENESS = 12, /* ROPE: >= 0 */
    TP_CONS_WINCH_FORCE = 13, /* ROPE: >= 0 */
    TP_CONS_PARAM_COUNT = 14
} tp_constraint_param;

const char *tp_constraint_param_name(tp_constraint_param which); /* "enabled", ...; NULL if out of range */
/* Write parameter `which` of the selected worlds (tp_world_select, NULL = all;
 * include/torpor_batched.h): values [rows][C]. Every value is checked first;
 * a bad one returns TP_ERR_INVALID_ARGUMENT naming row, column and
 * constraint, and nothing changes. A model without constraints:
 * TP_ERR_INVALID_ARGUMENT. CPU backend only (the CUDA backend refuses
 * constraints). */
tp_status tp_batch_set_constraint_params(tp_batch *b, tp_constraint_param which, const tp_world_select *select,
                                         const float *values);
/* Copy parameter `which` of every world into out [W][C]. */
tp_status tp_batch_constraint_params(tp_batch *b, tp_constraint_param which, float *out);

#endif
