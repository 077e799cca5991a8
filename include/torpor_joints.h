/* torpor_joints.h - articulations: joints, their coordinates and drives, and their arrays in a batch.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_JOINTS_H
#define TORPOR_JOINTS_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_joints.h"
#endif

/* ================================================================ articulations
 * (this block is owned by the articulation module: csrc/articulation*.c,
 * kernels/articulation*.h, docs/articulations.md)
 *
 * An articulation is a tree of links joined by joints, simulated in reduced
 * coordinates (Featherstone's composite-rigid-body algorithm and recursive
 * Newton-Euler with an LDL^T factorisation; docs/articulations.md). Every link
 * is a body of the model: the joint names it as `child`, and its pose and
 * velocity are published through the body arrays (pos, quat, v, w) after each
 * step. A joint whose parent is -1 (the world) is the root of a tree: a free
 * root gives a floating base, any other type a fixed base.
 *
 * Units: rad and m for positions, rad/s and m/s for velocities, N m and N for
 * efforts; stiffness N m/rad (N/m), damping N m s/rad (N s/m), armature
 * kg m^2 (kg). Coordinates per joint type (nq, nv):
 *   FIXED      0, 0
 *   REVOLUTE   1, 1   angle about `axis` (child frame)
 *   PRISMATIC  1, 1   displacement along `axis` (child frame)
 *   BALL       4, 3   relative quaternion [x y z w]; dofs: relative angular velocity, child frame
 *   FREE       7, 6   body origin (world, m) and orientation [x y z w]; dofs: centre-of-mass
 *                     velocity then angular velocity, world frame (joint_f: force then torque)
 * The scene's body poses are the configuration at q = 0 (ball: identity);
 * `q0` moves a 1-dof joint away from it at the start.
 *
 * Links collide with free bodies, static geometry and each other (not a
 * parent with its child); their contact rows use the tree's response. Under
 * the island sleep policy a tree's links are one island, a fixed base
 * supports it, trees with drive gains, velocity motors or springs never
 * sleep, and a non-zero joint_f or a write of joint_q / joint_qd / targets
 * wakes (docs/articulations.md). Under the assembly policy a tree is one
 * assembly: its links sleep and wake together (drives and springs use the
 * actuated thresholds). An impulse on a link acts on its tree (joint_qd +=
 * H^-1 J^T p); a link's pose and velocity cannot be written (write joint_q /
 * joint_qd). On the CUDA backend the joint arrays are mirrored like the
 * bodies' state: tp_batch_joints copies the worlds the device changed, a
 * write sends its worlds back before the next step (compiled, never yet run
 * on a GPU: docs/cuda.md). */

typedef enum tp_joint_type {
    TP_JOINT_FIXED = 0, TP_JOINT_REVOLUTE = 1, TP_JOINT_PRISMATIC = 2, TP_JOINT_BALL = 3, TP_JOINT_FREE = 4,
    TP_JOINT_TYPE_COUNT = 5
} tp_joint_type;

/* Drive of a 1-dof joint: a PD drive, force = kp (target_q - q) + kd (target_qd - qd)
 * integrated implicitly and clamped to +-max_effort; or a velocity motor that
 * holds qd at target_qd with at most max_effort. */
typedef enum tp_drive_mode { TP_DRIVE_NONE = 0, TP_DRIVE_POSITION = 1, TP_DRIVE_VELOCITY = 2 } tp_drive_mode;

typedef struct tp_joint_def {
    const char *name;      /* copied; NULL gives "joint<index>"; unique among joints */
    tp_joint_type type;    /* default revolute */
    int parent;            /* parent body index, or -1 for the world (default -1) */
    int child;             /* the link: a dynamic body, child of no other joint (required) */
    float axis[3];         /* revolute / prismatic axis in the child frame, non-zero (default 0, 0, 1) */
    float anchor[3];       /* joint point in the child body frame, m (default 0) */
    float q0, qd0;         /* initial position and velocity of a 1-dof joint */
    int has_limits;        /* 1-dof joints: lower <= q <= upper */
    float lower, upper;
    float damping;         /* >= 0, per dof (1-dof and ball) */
    float friction;        /* >= 0, N m or N, per dof (1-dof and ball) */
    float armature;        /* >= 0, added to the dof's diagonal inertia (1-dof and ball) */
    float stiffness, rest; /* passive spring of a 1-dof joint, stiffness >= 0 */
    tp_drive_mode drive;   /* 1-dof joints (default none) */
    float kp, kd;          /* PD gains, >= 0 */
    float max_effort;      /* > 0; 0 = unlimited for a PD drive; required for a velocity motor */
    float target_q, target_qd; /* initial drive targets */
    float ref;             /* 1-dof joints: the position an imported file counts from, rad or m (MJCF's
                              qpos = q + ref, docs/import.md); only carried, not used by the dynamics
                              (default 0) */
} tp_joint_def;

/* Bound on a 1-dof joint's position, rad or m: q0, rest and target_q of a
 * definition, and the joint_q and target_q a batch is given. Past it a first
 * step can only fault the world (an angle of 1e38 has no sine in float32, and
 * past about 3e9 rad the step's range reduction overflows its integer). An
 * anchor lies within TP_MAX_SIZE (m, each component) of its link's origin. */
#define TP_MAX_JOINT_Q 1e6f

/* Bound on a joint velocity, rad/s or m/s: qd0 and target_qd of a
 * definition, and every entry of the joint_qd and target_qd a batch is given
 * (ball and free dofs too). A link 1 m from its joint at 1e4 rad/s already
 * moves at TP_MAX_SPEED, where its world is faulted; 3e38 made the links'
 * velocities infinite at once. */
#define TP_MAX_JOINT_QD 1e4f

/* Bound on the degrees of freedom of one tree (a free root counts 6, a ball
 * 3, a revolute or prismatic joint 1). A contact point on a link costs its
 * tree's factor solve per substep, about dofs^2 operations on a chain, and
 * every point on the tree touches all its dofs in every sweep; the batch's
 * scratch holds 12 x dofs floats per link point. A 1,000-link chain lying on
 * the ground took 611 s for one step; a 200-link one runs (slowly: contacts
 * on long chains are what this bound prices). A tree past it is refused by
 * tp_builder_finish with TP_ERR_CAPACITY naming its root joint and its dofs
 * (docs/articulations.md, "Cost"). */
#define TP_MAX_TREE_DOFS 256

tp_joint_def tp_default_joint_def(void);
const char *tp_joint_type_name(tp_joint_type type); /* "fixed", "revolute", ...; NULL if out of range */

/* Add a joint; its index goes to *out_index (may be NULL). Field ranges, the
 * axis length, the order of the limits and the body indices are checked at
 * once; the tree (no body with two parent joints, no loop, a parent that is
 * the world or another joint's child) and the tree's size (TP_MAX_TREE_DOFS,
 * TP_ERR_CAPACITY) by tp_builder_finish. Errors are TP_ERR_INVALID_ARGUMENT
 * naming the field, e.g. "joints[2].axis: must not be zero". */
tp_status tp_builder_add_joint(tp_builder *builder, const tp_joint_def *def, int *out_index);

int tp_model_joint_count(const tp_model *model);
int tp_model_joint_q_count(const tp_model *model);   /* nq of one world */
int tp_model_joint_dof_count(const tp_model *model); /* nv of one world */
int tp_model_find_joint(const tp_model *model, const char *name); /* index or -1 */
const char *tp_model_joint_name(const tp_model *model, int joint);
/* Name of dof `dof` in [0, nv): the joint's name for 1-dof joints,
 * "<joint>.wx/.wy/.wz" for ball dofs, "<joint>.vx ... .wz" for free ones. */
const char *tp_model_dof_name(const tp_model *model, int dof);
tp_status tp_model_joint(const tp_model *model, int joint, tp_joint_def *out);
/* Where joint `joint` sits in joint_q ([q_start, q_start + nq)) and joint_qd ([v_start, v_start + nv)). */
tp_status tp_model_joint_slices(const tp_model *model, int joint, int *q_start, int *nq, int *v_start, int *nv);

/* Read-only views of the joint arrays, world-major, W = worlds. Valid like
 * tp_state_view (until the next call that changes the batch); on the CUDA
 * backend the host mirror, made current by this call (the body state's copy
 * group is pulled with them). */
typedef struct tp_joint_view {
    int worlds, nq, nv;
    const float *q;          /* [W][nq] joint_q */
    const float *qd;         /* [W][nv] joint_qd */
    const float *f;          /* [W][nv] joint_f: applied generalised forces for the next step (cleared by it) */
    const float *target_q;   /* [W][nv] PD drive target positions (1-dof joints; others unused) */
    const float *target_qd;  /* [W][nv] PD target velocities / velocity motor targets */
} tp_joint_view;

tp_status tp_batch_joints(tp_batch *batch, tp_joint_view *out);

typedef enum tp_joint_array {
    TP_JOINT_ARRAY_Q = 0, TP_JOINT_ARRAY_QD = 1, TP_JOINT_ARRAY_F = 2, TP_JOINT_ARRAY_TARGET_Q = 3,
    TP_JOINT_ARRAY_TARGET_QD = 4
} tp_joint_array;
#define TP_JOINT_ARRAY_COUNT 5

/* Write one joint array of the selected worlds (tp_world_select, NULL =
 * all): `values` [rows][n], n is nq for TP_JOINT_ARRAY_Q, nv otherwise.
 * Non-finite values, a zero quaternion or a bad selection:
 * TP_ERR_INVALID_ARGUMENT, nothing changes. Quaternions are normalized,
 * however large or small (as tp_batch_set_pose does). Writing q or qd moves
 * the links' bodies at once. */
tp_status tp_batch_set_joints(tp_batch *batch, tp_joint_array which, const tp_world_select *select,
                              const float *values);
/* Several joint arrays of the same worlds in one all-or-nothing write:
 * values[a] holds array a (indexed by tp_joint_array; rows as in
 * tp_batch_set_joints) or is NULL to leave it alone. Every given array is
 * checked whole before anything is written, so a refused call
 * (TP_ERR_INVALID_ARGUMENT, as tp_batch_set_joints, values NULL included)
 * changes nothing: no value, no sleep state, no timer. Then each world's
 * links move once (q or qd given) and its trees wake once (anything but f
 * given), as the separate writes would leave them. */
tp_status tp_batch_set_joint_arrays(tp_batch *batch, const tp_world_select *select,
                                    const float *const values[TP_JOINT_ARRAY_COUNT]);
/* ================================================================ end of articulations */

#endif
