/* torpor_keyframes.h - keyframes: named joint states (and controls) a reset can start from.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's, torpor_joints.h's and
 * torpor_actuators.h's types). */
#ifndef TORPOR_KEYFRAMES_H
#define TORPOR_KEYFRAMES_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_keyframes.h"
#endif

/* ================================================================ keyframes
 * (csrc/keyframe_model.c, csrc/keyframe_batch.c, docs/scene-format.md "Keyframes")
 *
 * A keyframe is a named state of a model's joints and actuators: joint_q
 * [nq], joint_qd [nv] and ctrl [nu] of one world, in the layout of the batch
 * arrays (tp_model_joint_slices: ball and free quaternions [x y z w], a free
 * joint's position in the world and its centre-of-mass velocity and angular
 * velocity in the world frame). MJCF's <key> elements import as keyframes
 * (docs/import.md). A reset can start from one (tp_batch_reset_to_keyframe,
 * or for every reset the randomize block's `keyframe`,
 * tp_randomize_def.keyframe); the joint noise is then drawn around it and
 * ctrl starts at its values, held until written. */
typedef struct tp_keyframe_def {
    const char *name;  /* required, unique among the keyframes */
    const float *q;    /* [nq] rad, m, quaternions; NULL: the model's initial joint_q (q0, the scene's poses) */
    int nq;            /* entries of q: the model's nq (0 with q NULL) */
    const float *qd;   /* [nv] rad/s, m/s; NULL: the model's initial joint_qd (qd0) */
    int nv;            /* entries of qd: the model's nv (0 with qd NULL) */
    const float *ctrl; /* [nu] controls; NULL: 0 */
    int nu;            /* entries of ctrl: the model's nu (0 with ctrl NULL) */
} tp_keyframe_def;

/* No name, every array NULL (the initial state, controls 0). */
tp_keyframe_def tp_default_keyframe_def(void);
/* Add a keyframe (its arrays copied); *out_index (may be NULL) gets its
 * index. Checked at once: the name (given, not used before), each array's
 * length against the joints and actuators added so far (nq, nv, nu), every
 * value finite, 1-dof positions within TP_MAX_JOINT_Q and velocities within
 * TP_MAX_JOINT_QD; by tp_builder_finish the lengths again and that no ball or
 * free quaternion is zero (quaternions are then normalized). Errors:
 * TP_ERR_INVALID_ARGUMENT naming the keyframe and the field, e.g.
 * "keyframe \"stand\": q: has 5 values; the joints have nq = 7". */
tp_status tp_builder_add_keyframe(tp_builder *builder, const tp_keyframe_def *def, int *out_index);

int tp_model_keyframe_count(const tp_model *model);
/* Index of the keyframe called `name`, or -1. */
int tp_model_find_keyframe(const tp_model *model, const char *name);
/* Keyframe `index` as the model keeps it: every array full (q [nq], qd [nv],
 * ctrl [nu], NULL where the count is 0), quaternions normalized; name and
 * arrays point into the model. */
tp_status tp_model_keyframe(const tp_model *model, int index, tp_keyframe_def *out);

/* Reset the selected worlds (tp_world_select, NULL = all) as
 * tp_batch_reset_worlds does (a new episode: body draws, robot parameters,
 * link mass scales), with their joints and controls starting from keyframe
 * `keyframe` instead of the initial state: joint_q, joint_qd and ctrl are the
 * keyframe's, plus the scene's joint noise (randomize.joint_q_noise /
 * joint_qd_noise) drawn around it; the links are placed where the joints put
 * them; the ctrl values hold until written. Bitwise the same for a world at
 * any world count. Errors: TP_ERR_INVALID_ARGUMENT (NULL batch, a bad
 * selection, no keyframe `keyframe`), nothing reset; TP_ERR_BACKEND on the
 * CUDA backend for a keyframe other than the model's randomize.keyframe (the
 * device holds that one's arrays only). */
tp_status tp_batch_reset_to_keyframe(tp_batch *batch, const tp_world_select *select, int keyframe);
/* ================================================================ end of keyframes */

#endif
