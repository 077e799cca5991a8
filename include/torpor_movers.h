/* torpor_movers.h - movers: a push or turn toward a goal on one body, every substep.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_MOVERS_H
#define TORPOR_MOVERS_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_movers.h"
#endif

/* ================================================================ movers
 * (this block is owned by the mover module: csrc/mover*.c, kernels/mover.h,
 * docs/movers.md; the rules are those of seed 004's "Movers")
 *
 * A mover moves attachment0's body (and, through the joints and contacts of
 * the solve, whatever is joined to it): its velocity rows are solved with the
 * contact and constraint rows in every sweep of every substep, and pushes are
 * worked out again every substep from the poses of that moment. A mover never
 * joins its bodies into an island. Attachments are frames on bodies as for
 * constraints (position and orientation in the body frame).
 *
 * Types and their `target` (a per-world value: tp_batch_set_mover_targets):
 *   ALIGN_POSITION    attachment0 pulled onto the goal: target[0..3) (m, world,
 *                     each within TP_MAX_SIZE, as the attachments' positions)
 *                     or, two_attachment, attachment1. It heads for the goal at
 *                     distance x responsiveness x 0.3 per second, capped at
 *                     max_velocity (m/s), with at most max_force (N); it holds
 *                     the body's weight too. rigid: as a ball joint to the goal
 *                     (no cap, no force limit). apply_at_com: pulled through the
 *                     centre of mass (no turning).
 *   ALIGN_ORIENTATION attachment0 turned onto the goal's orientation: target
 *                     [x y z w] (world) or, two_attachment, attachment1's; angle
 *                     to go x responsiveness x 0.3 per second capped at
 *                     max_velocity (rad/s), at most max_force (N m);
 *                     primary_axis_only lines up the X axes only.
 *   LINEAR_VELOCITY   attachment0's velocity (the centre's with apply_at_com)
 *                     held, with at most max_force (N), along: LINE
 *                     `line_direction` at target[0] m/s; PLANE `tangent0`,
 *                     `tangent1` at target[0], target[1]; VECTOR the frame's
 *                     X, Y, Z at target[0..3). Directions and values are in the
 *                     relative_to frame; relative to ATTACHMENT1 the velocity
 *                     is measured against attachment1's.
 *   ANGULAR_VELOCITY  angular velocity target[0..3) rad/s (relative_to frame)
 *                     held about all three axes with at most max_force (N m).
 *   VECTOR_FORCE      force target[0..3) N (relative_to frame, default
 *                     ATTACHMENT0) at attachment0 (or the centre: apply_at_com).
 *   TORQUE            torque target[0..3) N m (relative_to frame).
 * reaction (the two-body types, with attachment1 on a dynamic body): the
 * opposite push on attachment1's body, so the two meet in between.
 *
 * Attachment rules: a mover is active (tp_batch_movers) when enabled, its
 * body0 is a present dynamic body that collides (some contype or conaffinity
 * bit), and body1 is a present body wherever its mode reads attachment1
 * (two_attachment, relative_to ATTACHMENT1); otherwise it pushes nothing.
 * body0 or body1 -1 means "not set" (not the world). Island sleep policy: an
 * active mover keeps its body's island awake (under reaction, attachment1's
 * too); assembly policy: seed 000's actuated movers use the stricter
 * thresholds and a mover's two bodies are neighbours (docs/movers.md, "Attachment
 * rules, enabled, sleep"). Movers run on the cpu backend
 * (the CUDA backend refuses a model with movers). */

typedef struct tp_mover_def {
    const char *name;           /* NULL: "mover<i>" */
    tp_mover_type type;
    int body0, body1;           /* attachment0's body (moved), attachment1's; -1: not set */
    float pos0[3], quat0[4];    /* attachment0 in body0's frame, m; unit [x y z w] */
    float pos1[3], quat1[4];    /* attachment1 in body1's frame */
    float target[4];            /* the initial goal of every world (see the types above) */
    int enabled;                /* 0 or 1 (default 1): the initial value of every world */
    int two_attachment;         /* ALIGN_*: the goal is attachment1 */
    tp_mover_frame relative_to; /* LINEAR_VELOCITY, ANGULAR_VELOCITY (default WORLD), VECTOR_FORCE, TORQUE
                                   (default ATTACHMENT0) */
    tp_velocity_mode velocity_mode; /* LINEAR_VELOCITY (default VECTOR) */
    float line_direction[3];    /* LINE: non-zero (default X) */
    float tangent0[3], tangent1[3]; /* PLANE: non-zero, not parallel (default X, Y) */
    float responsiveness;       /* ALIGN_*: >= 0 (default 10): rate = 0.3 responsiveness per second */
    float max_velocity;         /* ALIGN_*: m/s or rad/s, >= 0 (default FLT_MAX: no cap) */
    float max_force;            /* N or N m, >= 0 (default FLT_MAX: no limit) */
    int rigid;                  /* ALIGN_*: hold the goal as a joint would */
    int apply_at_com;           /* ALIGN_POSITION, LINEAR_VELOCITY, VECTOR_FORCE */
    int reaction;               /* the opposite push on attachment1's body */
    int primary_axis_only;      /* ALIGN_ORIENTATION */
} tp_mover_def;

/* An ALIGN_POSITION with nothing set: identity attachments, enabled, target
 * 0 (target[3] 1 so that an ALIGN_ORIENTATION's goal is the identity),
 * relative_to WORLD, VECTOR mode, line X, tangents X and Y, responsiveness
 * 10, no cap, no force limit. tp_default_mover_def_of(type) gives a type's
 * defaults (VECTOR_FORCE and TORQUE: relative_to ATTACHMENT0). */
tp_mover_def tp_default_mover_def(void);
tp_mover_def tp_default_mover_def_of(tp_mover_type type);
/* Add a mover; *out_index (may be NULL) gets its index. Errors:
 * TP_ERR_INVALID_ARGUMENT naming the field (an unknown type, body or mode, the
 * same body twice, a zero quaternion or direction, parallel tangents, a
 * negative or non-finite responsiveness, max_velocity or max_force, a
 * non-finite target); tp_builder_finish refuses a mover on an articulation link. */
tp_status tp_builder_add_mover(tp_builder *b, const tp_mover_def *def, int *out_index);
int tp_model_mover_count(const tp_model *m);
/* The definition as stored (quaternions and directions normalized); name
 * points into the model. */
tp_status tp_model_mover(const tp_model *m, int index, tp_mover_def *out);
/* Index of the mover called `name`, or -1. */
int tp_model_find_mover(const tp_model *m, const char *name);
/* "align_position", "align_orientation", "linear_velocity", "angular_velocity",
 * "vector_force", "torque" (the scene's words); NULL if out of range. */
const char *tp_mover_type_name(tp_mover_type type);

/* Per-world writes (tp_world_select: NULL = all worlds, an index list or a
 * mask; include/torpor_batched.h), each checked whole before anything changes:
 *   targets [rows][M][4] (M = tp_model_mover_count), the types' target;
 *   enabled [rows][M] bytes, 0 or 1.
 * mover_mask [M] (NULL: every mover): only movers with a non-zero byte are
 * written; the others' values are not read. A change wakes the island of the
 * mover's bodies; an unchanged value wakes nothing. A reset sets the model's
 * values again. Errors: TP_ERR_INVALID_ARGUMENT (a non-finite target, an
 * ALIGN_POSITION goal past TP_MAX_SIZE, or a zero quaternion, naming row, mover and component; an enabled byte other than 0
 * or 1; a model without movers). */
tp_status tp_batch_set_mover_targets(tp_batch *batch, const tp_world_select *select, const float *targets,
                                     const uint8_t *mover_mask);
tp_status tp_batch_set_mover_enabled(tp_batch *batch, const tp_world_select *select, const uint8_t *enabled,
                                     const uint8_t *mover_mask);

/* Read-outs of every mover in every world (NULL: not wanted), after the last step:
 *   targets [W][M][4]  the present targets;
 *   active  [W][M]     1 where the mover is enabled and its attachment rules
 *                      hold (a removed body0 or body1 makes it 0);
 *   force   [W][M]     the norm of its push over the last step: N (ALIGN_POSITION,
 *                      LINEAR_VELOCITY, VECTOR_FORCE) or N m (the others). */
tp_status tp_batch_movers(tp_batch *batch, float *targets, uint8_t *active, float *force);

#endif
