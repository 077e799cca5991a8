/* torpor_batched.h - batched writes of many worlds from arrays, per-world parameters, episodes and resets for RL loops.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_BATCHED_H
#define TORPOR_BATCHED_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_batched.h"
#endif

/* ---------------------------------------------------------------- batched writes and episodes
 *
 * One call writes many worlds from arrays, for RL loops (csrc/writes_batched.c).
 *
 * Which worlds: a tp_world_select (torpor.h, "which worlds"), NULL for all.
 * A "row" is one world's block of the array: [B][3] for vectors (B = bodies per
 * world, static bodies included), [B][4] for quaternions, [B] for scalars, [3]
 * for gravity. Arrays are C order, float32.
 *
 * Every value of every selected row is checked before anything is written: a
 * non-finite number (or a value out of range) returns TP_ERR_INVALID_ARGUMENT
 * naming the row, body and component, and nothing changes. A pose or velocity
 * row of an articulation link is accepted only if it equals the link's present
 * value, and skipped (links move with joint_q / joint_qd, tp_batch_set_joints);
 * a changed one refuses the whole call. Impulses on links act on their trees.
 * Rows of static
 * bodies (for forces, torques, impulses, poses, velocities, mass scales) and of
 * removed bodies are checked but skipped, so a whole state array read back with
 * tp_batch_state can be written as it is. A write that changes a body wakes its
 * island, as the single-body calls do; zero forces, torques and impulses wake
 * nothing. On CUDA each selected world is copied to the host and sent back
 * before the next step (as the single-body calls do). */

/* Forces (N, world frame) [rows][B][3] for the next step, at world points
 * (m) [rows][B][3], or at the centres of mass if point is NULL. They add to
 * what was applied before the step. */
tp_status tp_batch_apply_forces(tp_batch *batch, const tp_world_select *select, const float *force, const float *point);
/* Torques (N m, world frame) [rows][B][3] for the next step. */
tp_status tp_batch_apply_torques(tp_batch *batch, const tp_world_select *select, const float *torque);
/* Impulses (N s) [rows][B][3] applied at once, at world points [rows][B][3] or
 * at the centres of mass (point NULL). An articulation link's impulse acts on
 * its tree with the tree's response (tp_batch_apply_impulse). */
tp_status tp_batch_apply_impulses(tp_batch *batch, const tp_world_select *select, const float *impulse,
                                  const float *point);
/* Poses: positions (m) [rows][B][3] and quaternions [x, y, z, w] [rows][B][4]
 * (non-zero; normalized when written). Articulation links follow their trees'
 * joint_q: a link's row must equal the link's present pose (it is then
 * skipped, so a state read back can be written as it is); a row that differs
 * is refused with TP_ERR_INVALID_ARGUMENT naming row, body and joint, and
 * nothing changes (write joint_q with tp_batch_set_joints). */
tp_status tp_batch_set_poses(tp_batch *batch, const tp_world_select *select, const float *pos, const float *quat);
/* Velocities: linear v (m/s) [rows][B][3] and angular w (rad/s) [rows][B][3].
 * Articulation links' rows as for tp_batch_set_poses (joint_qd). */
tp_status tp_batch_set_velocities(tp_batch *batch, const tp_world_select *select, const float *v, const float *w);
/* Gravity (m/s^2) [rows][3] per world, each component in [-500, 500]. A world
 * whose gravity changes wakes entirely. */
tp_status tp_batch_set_gravities(tp_batch *batch, const tp_world_select *select, const float *gravity);
/* Mass scale [rows][B] (in [TP_MIN_MASS_SCALE, TP_MAX_MASS_SCALE], the bounds
 * of randomize.mass_scale) of each dynamic body: its mass and inertia
 * become the model's times the scale (replacing the randomized draw until the
 * next reset). Rows of static and kinematic bodies are skipped. An
 * articulation link's scale multiplies its mass and inertia in its tree's
 * dynamics (the tree's mass matrix and bias forces); a changed one wakes the
 * world's trees. */
tp_status tp_batch_set_mass_scales(tp_batch *batch, const tp_world_select *select, const float *scale);
/* Friction coefficient [rows][B] (finite, >= 0) of every body, static ones
 * included (until the next reset). A changed static or kinematic body wakes
 * what is near it (its bounding sphere grown by the contact margin). */
tp_status tp_batch_set_frictions(tp_batch *batch, const tp_world_select *select, const float *friction);

/* Episodes. Every world counts its resets: episode 0 at creation, and each
 * reset (tp_batch_reset_worlds, the reset calls below, reset events) starts
 * the next episode, whose randomization is drawn from Philox keyed by (seed,
 * world, body, episode modulo 2^30): a reset gives a new draw, and the same seed
 * with the same resets gives the same bits at any world count. Copies the W
 * episode numbers into out[W]. */
tp_status tp_batch_episodes(const tp_batch *batch, uint32_t *out);
/* Put the selected worlds (NULL: every world) back to an initial state,
 * randomized anew: each starts its next episode (tp_batch_episodes), whose
 * draws differ from the last ones but are the same on every run with the same
 * seed and resets; with no randomization that is the initial state. It
 * restores poses, velocities, materials, gravity, removed bodies, sleep
 * states, pending forces, contacts, faults and overflow counters. Other worlds
 * are untouched; an empty list does nothing. Scripted events follow the
 * batch's clock, not the world's: an event that has fired does not fire again
 * in a reset world. On CUDA the reset runs on the device (cuRAND draws, the
 * same bits as the CPU's). Errors: TP_ERR_INVALID_ARGUMENT (NULL batch, a bad
 * selection), TP_ERR_CUDA. */
tp_status tp_batch_reset_worlds(tp_batch *batch, const tp_world_select *select);
/* (A reset whose joints and controls start from a named keyframe:
 * tp_batch_reset_to_keyframe, torpor_keyframes.h.) */
/* Reset the selected worlds (a new episode, as tp_batch_reset_worlds), then
 * write the given poses [rows][B][3] + [rows][B][4] and, unless NULL,
 * velocities [rows][B][3] + [rows][B][3] of their dynamic and kinematic
 * bodies: a reset to a state the caller supplies. Every value is checked first;
 * on a bad one nothing is reset. Articulation links' rows are checked but not
 * written: a reset puts every tree at its initial joint state; write joint_q /
 * joint_qd with tp_batch_set_joints after it. */
tp_status tp_batch_reset_to_state(tp_batch *batch, const tp_world_select *select, const float *pos, const float *quat,
                                  const float *v, const float *w);
/* tp_batch_reset_to_state with the joint state too: reset the selected worlds
 * (a new episode: randomized joint noise, robot parameters and all), write the
 * bodies' poses and velocities as tp_batch_reset_to_state does (pos and quat
 * both NULL: the bodies keep the reset's state; v and w need them), then,
 * unless NULL, joint_q [rows][nq] (rad, m, quaternions) and joint_qd
 * [rows][nv] (rad/s, m/s) as tp_batch_set_joint_arrays writes them, the links
 * placed where the joints put them. Every value (bodies and joints) is checked
 * first: on a bad one TP_ERR_INVALID_ARGUMENT names it and nothing is reset. A
 * model without joints takes joint_q and joint_qd NULL only. */
tp_status tp_batch_reset_to_joint_state(tp_batch *batch, const tp_world_select *select, const float *pos,
                                        const float *quat, const float *v, const float *w, const float *joint_q,
                                        const float *joint_qd);

#endif
