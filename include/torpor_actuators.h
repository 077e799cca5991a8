/* torpor_actuators.h - actuators: controls that drive joints, held until written.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's and torpor_joints.h's types). */
#ifndef TORPOR_ACTUATORS_H
#define TORPOR_ACTUATORS_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_actuators.h"
#endif

/* ================================================================ actuators
 * (csrc/actuator_*.c, kernels/actuator.h, docs/articulations.md "Actuators")
 *
 * MuJoCo's actuator model (mujoco.readthedocs.io, "Actuation model"), for a
 * transmission that is one 1-dof joint (revolute or prismatic):
 *   length   l = gear q                 (rad or m times gear)
 *   velocity v = gear qd
 *   force    F = gain(l, v) u + bias0 + bias1 l + bias2 v,   gain = gain0 + gain1 l + gain2 v
 *            F clamped to force_range if force_limited
 *   u        the control ctrl, clamped to ctrl_range if ctrl_limited
 *   the generalised force on the dof: gear F (N m or N), summed over actuators.
 * Types fill gain and bias from kp / kv (as MuJoCo's shortcuts do):
 *   MOTOR     gain0 = 1, bias = 0:                 F = u
 *   POSITION  gain0 = kp, bias = (0, -kp, -kv):    F = kp (u - l) - kv v
 *   VELOCITY  gain0 = kv, bias = (0, 0, -kv):      F = kv (u - v)
 *   GENERAL   gain and bias as given.
 * The controls ctrl [W][nu] of a batch hold their values from one step to the
 * next until written (unlike joint_f), and act in every substep. The bias
 * terms in l and v are integrated implicitly as PD drives are (their
 * stiffness gear^2 (-bias1) and damping gear^2 (-bias2) join the implicit
 * diagonal of the tree's mass matrix when positive), so a stiff position
 * servo stays stable; the gain terms in l and v are explicit. A force past its
 * force_range is applied at the bound (explicitly) and the tree solved again.
 *
 * A tree with an actuator never sleeps under the island policy (as a tree with
 * a drive); under the assembly policy it uses the actuated thresholds. A write
 * of ctrl that changes a world's controls wakes that world's trees. A reset
 * sets ctrl to 0. */

typedef enum tp_actuator_type {
    TP_ACTUATOR_MOTOR = 0, TP_ACTUATOR_POSITION = 1, TP_ACTUATOR_VELOCITY = 2, TP_ACTUATOR_GENERAL = 3,
    TP_ACTUATOR_TYPE_COUNT = 4
} tp_actuator_type;

typedef struct tp_actuator_def {
    const char *name;         /* copied; NULL gives "actuator<index>"; unique among actuators */
    tp_actuator_type type;    /* default motor */
    int joint;                /* index (as added) of a revolute or prismatic joint (required) */
    float gear;               /* finite, non-zero (default 1) */
    int ctrl_limited;         /* clamp u to ctrl_range (lo <= hi) */
    float ctrl_range[2];
    int force_limited;        /* clamp F to force_range (lo <= hi), N m or N before the gear */
    float force_range[2];
    float kp;                 /* position: stiffness >= 0 (per unit of l) */
    float kv;                 /* position and velocity: damping >= 0 (per unit of v) */
    float gain[3], bias[3];   /* general only: the affine gain and bias above */
} tp_actuator_def;

tp_actuator_def tp_default_actuator_def(void);
const char *tp_actuator_type_name(tp_actuator_type type); /* "motor", "position", ...; NULL if out of range */

/* Add an actuator; its index goes to *out_index (may be NULL). Its joint must
 * have been added before. Errors: TP_ERR_INVALID_ARGUMENT naming the field,
 * e.g. "actuators[1] (elbow): kp: a motor takes no kp (give \"type\": \"position\")". */
tp_status tp_builder_add_actuator(tp_builder *builder, const tp_actuator_def *def, int *out_index);

int tp_model_actuator_count(const tp_model *model);                 /* nu of one world */
int tp_model_find_actuator(const tp_model *model, const char *name); /* index or -1 */
const char *tp_model_actuator_name(const tp_model *model, int actuator);
tp_status tp_model_actuator(const tp_model *model, int actuator, tp_actuator_def *out);

/* Read-only views, world-major, valid like tp_state_view. NULL arrays for a
 * model without actuators (force: without joints). */
typedef struct tp_actuator_view {
    int worlds, nu, nv;
    const float *ctrl;  /* [W][nu] the controls, as written (clamping to ctrl_range happens where they act) */
    const float *force; /* [W][nv] the actuators' generalised force on each dof in the last substep of the
                           last step, N m or N (gear F summed per dof; 0 where no actuator acts) */
    const float *limit_force; /* [W][nv] the joint-limit constraint force on each dof in the last substep of
                                 the last step, N m or N (the limit row's impulse / h; 0 off the limits) */
} tp_actuator_view;

/* On the CUDA backend these arrays are mirrored with the bodies' state: this
 * call first copies the worlds the device changed, and tp_batch_set_ctrl
 * sends its worlds back before the next step (compiled, never yet run on a
 * GPU: docs/cuda.md). */
tp_status tp_batch_actuators(tp_batch *batch, tp_actuator_view *out);

/* Write the controls of the selected worlds (tp_world_select: NULL = all,
 * an index list or a mask; torpor.h, "which worlds"): ctrl [rows][nu]. Every value is
 * checked first: a non-finite one, a bad selection or a model without
 * actuators return TP_ERR_INVALID_ARGUMENT, nothing changes. */
tp_status tp_batch_set_ctrl(tp_batch *batch, const tp_world_select *select, const float *ctrl);

/* ---------------------------------------------------------------- robot parameters (csrc/robot_params.c)
 *
 * Every world has its own joint damping, armature and friction loss and its
 * own actuator gear, kp and kv. Each reset (and batch creation) sets them to
 * the model's values times the randomize block's draws for that world and
 * episode (tp_randomize_def.joint_damping_scale ...: Philox keyed on the
 * seed, the global world index and the episode, so the same bits at any world
 * count); tp_batch_set_robot_params replaces them until the next reset.
 * Columns: joints in the order added ([rows][J], J = tp_model_joint_count)
 * or actuators ([rows][nu]). Values of fixed and free joints (which have no
 * damping, armature or friction loss) are checked and skipped; kp exists on
 * position actuators, kv on position and velocity ones (a position
 * actuator's kp is its gain and -bias1, its kv -bias2; a velocity actuator's
 * kv its gain and -bias2), elsewhere the value must be 0. A changed value
 * wakes the world's trees. Both backends (CUDA: the arrays are mirrored, a
 * read copies every world's back from the device). */
typedef enum tp_robot_param {
    TP_ROBOT_JOINT_DAMPING = 0,  /* [J] N m s/rad or N s/m, >= 0 */
    TP_ROBOT_JOINT_ARMATURE = 1, /* [J] kg m^2 or kg, >= 0 */
    TP_ROBOT_JOINT_FRICTION = 2, /* [J] friction loss, N m or N, >= 0 */
    TP_ROBOT_ACTUATOR_GEAR = 3,  /* [nu] finite, non-zero */
    TP_ROBOT_ACTUATOR_KP = 4,    /* [nu] >= 0, per unit of actuator length */
    TP_ROBOT_ACTUATOR_KV = 5,    /* [nu] >= 0, per unit of actuator velocity */
    TP_ROBOT_PARAM_COUNT = 6
} tp_robot_param;

const char *tp_robot_param_name(tp_robot_param which); /* "joint_damping", ...; NULL if out of range */

/* Write parameter `which` of the selected worlds (tp_world_select, NULL = all):
 * values [rows][J or nu]. Every value is checked first (finite, >= 0, gear
 * non-zero, kp / kv only where they exist); a bad one returns
 * TP_ERR_INVALID_ARGUMENT naming row, column and joint or actuator, and
 * nothing changes. A model without joints: TP_ERR_INVALID_ARGUMENT. */
tp_status tp_batch_set_robot_params(tp_batch *batch, tp_robot_param which, const tp_world_select *select,
                                    const float *values);
/* Copy parameter `which` of every world into out [W][J or nu]. */
tp_status tp_batch_robot_params(tp_batch *batch, tp_robot_param which, float *out);

/* ---------------------------------------------------------------- link COM offsets (csrc/link_coms.c)
 *
 * Every world has its own offset d of each articulation link's centre of
 * mass, in the link's frame (m): the link's COM there is the model's
 * (tp_model_body_inertia) plus d; its mass and its inertia about the COM stay
 * the model's (times the link's mass scale), so its inertia about its joint
 * changes by the parallel-axis theorem. Each reset (and batch creation) sets
 * d to 0, or draws it from randomize.link_com_offset for that world and
 * episode (Philox keyed on the seed, the global world index, the link's body
 * and the episode: the same bits at any world count);
 * tp_batch_set_link_com_offsets replaces it until the next reset. Columns:
 * the links of the joints in the order added, [rows][J][3] (J =
 * tp_model_joint_count; joint i's link is its child body). joint_q and
 * joint_qd are kept (a free base's linear dofs are its COM's velocity), the
 * links are placed again and a changed world's trees wake. Both backends
 * (CUDA: the array is mirrored, a read copies every world's back). */
/* Write the offsets (m) of the selected worlds (tp_world_select, NULL = all):
 * offsets [rows][J][3]. Every value is checked first (finite, |d| <=
 * TP_MAX_SIZE); a bad one returns TP_ERR_INVALID_ARGUMENT naming row, joint,
 * axis, link and world, and nothing changes. A model without joints:
 * TP_ERR_INVALID_ARGUMENT. */
tp_status tp_batch_set_link_com_offsets(tp_batch *batch, const tp_world_select *select, const float *offsets);
/* Copy every world's offsets (m) into out [W][J][3]. */
tp_status tp_batch_link_com_offsets(tp_batch *batch, float *out);
/* ================================================================ end of actuators */

#endif
