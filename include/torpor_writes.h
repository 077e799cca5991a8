/* torpor_writes.h - writes of one world at a time: poses, velocities, forces, impulses,
 * gravity, removal, wake and sleep.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). Batched writes of many
 * worlds from arrays are in torpor_batched.h. */
#ifndef TORPOR_WRITES_H
#define TORPOR_WRITES_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_writes.h"
#endif

/* Writes of one body in one world. Every vector argument is required except
 * `point`, which may be NULL. Errors: TP_ERR_INVALID_ARGUMENT for a NULL
 * batch or vector, a world or body out of range, a non-finite value (named),
 * a static or removed body (only tp_batch_remove_body takes a static body), an
 * articulation link for set_pose, set_velocity and remove_body (its body
 * moves with joint_q and joint_qd: tp_batch_set_joints; impulses on a link act
 * on its tree);
 * TP_ERR_CUDA. On an error nothing changes. A write wakes the body's island.
 *
 * set_pose: pos (m, world frame) is the body's origin, the centre of its
 * shape's box; quat [x, y, z, w] any finite quaternion but all zeros, stored
 * normalized (divided by its largest component first, so that huge and tiny
 * ones normalize too). set_velocity: v (m/s) of the centre of mass and w
 * (rad/s), both in the world frame. An articulation link's pose and velocity
 * follow its tree's joint_q / joint_qd: both calls refuse a link
 * (TP_ERR_INVALID_ARGUMENT naming the body and its joint; write the joint
 * arrays with tp_batch_set_joints). */
tp_status tp_batch_set_pose(tp_batch *batch, int world, int body, const float pos[3], const float quat[4]);
tp_status tp_batch_set_velocity(tp_batch *batch, int world, int body, const float v[3], const float w[3]);
/* Force (N, world frame) for the next step only, at a world point (m) or at
 * the centre of mass if point is NULL (which then adds no torque); at a point
 * it also adds the torque (point - centre of mass) x force. Forces and torques
 * applied before a step add up. A zero force wakes nothing. */
tp_status tp_batch_apply_force(tp_batch *batch, int world, int body, const float force[3], const float point[3]);
/* Torque (N m, world frame, about the centre of mass) for the next step only. */
tp_status tp_batch_apply_torque(tp_batch *batch, int world, int body, const float torque[3]);
/* Impulse (N s, world frame) applied at once to the velocity (dv = J / m), at
 * a world point (m; then also dw = I^-1 ((point - centre of mass) x J)) or at
 * the centre of mass if point is NULL. On an articulation link it acts on the
 * link's tree with the tree's response: joint_qd += H^-1 J_p^T (r x J, J),
 * H the tree's joint-space inertia (with armature), J_p the link's point
 * Jacobian about the tree's reference point, r the point relative to it
 * (kernels/articulation_impulse.h); the links' published velocities follow. */
tp_status tp_batch_apply_impulse(tp_batch *batch, int world, int body, const float impulse[3], const float point[3]);
/* Angular impulse (N m s, world frame) applied at once: dw = I^-1 L with the
 * body's world-frame inverse inertia; on an articulation link, through its
 * tree as for tp_batch_apply_impulse (spatial impulse (L, 0)). */
tp_status tp_batch_apply_angular_impulse(tp_batch *batch, int world, int body, const float impulse[3]);
/* Gravity (m/s^2, each component in [-500, 500]) of one world (several
 * worlds: tp_batch_set_gravities). Errors: TP_ERR_INVALID_ARGUMENT (NULL,
 * world out of range, a component out of range), TP_ERR_CUDA. */
tp_status tp_batch_set_gravity(tp_batch *batch, int world, const float g[3]);
tp_status tp_batch_gravity(const tp_batch *batch, int world, float g[3]);
/* Remove a body of any type from one world: it stops colliding and moving, and
 * what it supported wakes (removing a static ground lets everything fall).
 * Removing a removed body again does nothing. A reset brings it back.
 * Errors (this and the calls down to tp_batch_wake_sphere):
 * TP_ERR_INVALID_ARGUMENT (NULL, a world or body out of range, a static or
 * removed body where the call needs a dynamic one, radius < 0 or non-finite,
 * a bad selection), TP_ERR_CUDA. */
tp_status tp_batch_remove_body(tp_batch *batch, int world, int body);
/* Wake a body's island (resets the quiet timers of all of it), or put the
 * body's island to sleep at once, even in mid-air: it stays frozen until woken. */
tp_status tp_batch_wake(tp_batch *batch, int world, int body);
tp_status tp_batch_sleep(tp_batch *batch, int world, int body);
/* Wake every island with a body whose bounding sphere meets the sphere of
 * `radius` (m, >= 0) about `center` (m), in the selected worlds (NULL: all). */
tp_status tp_batch_wake_sphere(tp_batch *batch, const tp_world_select *select, const float center[3], float radius);

#endif
