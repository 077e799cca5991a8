/* body_ops.h - what each write does to a batch, once its arguments are checked.
 *
 * Two callers: writes.c (the public tp_batch_* writes, after checking every
 * argument) and events.c (the model's scripted events, checked when the model
 * was built). Keeping the effect here and the checks in writes.c lets events
 * act without going back up through the public API.
 *
 * Each call makes the world's host state current and marks it to be sent to
 * the device (tp_batch_begin_write; nothing on the CPU backend), changes it, and
 * wakes what the write wakes (DESIGN.md section 7, csrc/batch_wake.h). The only
 * failure is that copy on CUDA; then nothing was changed.
 *
 * Preconditions (not checked here): world and body in range, vectors finite,
 * the body neither static nor removed (tp_op_remove_body takes any body),
 * quaternions not zero, gravity within [-500, 500] m/s^2, radius >= 0. */
#ifndef TP_BODY_OPS_H
#define TP_BODY_OPS_H

#include "batch.h"

/* Pose (m, quaternion [x, y, z, w], normalized here) of a body. */
tp_status tp_op_set_pose(tp_batch *b, int world, int body, const float pos[3], const float quat[4]);
/* Linear (m/s) and angular (rad/s) velocity, world frame. */
tp_status tp_op_set_velocity(tp_batch *b, int world, int body, const float v[3], const float w[3]);
/* Force (N) for the next step at a world point (m), or at the centre if point
 * is NULL. A zero force does nothing (it is no wake event). */
tp_status tp_op_add_force(tp_batch *b, int world, int body, const float force[3], const float point[3]);
/* Torque (N m, world frame) for the next step; zero does nothing. */
tp_status tp_op_add_torque(tp_batch *b, int world, int body, const float torque[3]);
/* Impulse (N s) at a world point or the centre; zero does nothing. */
tp_status tp_op_add_impulse(tp_batch *b, int world, int body, const float impulse[3], const float point[3]);
/* Angular impulse (N m s, world frame); zero does nothing. */
tp_status tp_op_add_angular_impulse(tp_batch *b, int world, int body, const float impulse[3]);
/* Gravity (m/s^2) of worlds [first, last]; a world whose gravity changes wakes whole. */
tp_status tp_op_set_gravity(tp_batch *b, int first, int last, const float g[3]);
/* Remove a body (any type); a removed body again does nothing. */
tp_status tp_op_remove_body(tp_batch *b, int world, int body);
/* Wake the body's island, or put it to sleep at once. */
tp_status tp_op_wake(tp_batch *b, int world, int body);
tp_status tp_op_sleep(tp_batch *b, int world, int body);
/* Wake the islands met by the sphere (center m, radius m) in worlds [first, last]. */
tp_status tp_op_wake_sphere(tp_batch *b, int first, int last, const float center[3], float radius);
/* Reset the listed worlds (indices in range; repeats allowed, each reset once)
 * to an initial state: each starts its next episode and draws anew. */
tp_status tp_op_reset_worlds(tp_batch *b, const int *worlds, int count);
/* The same for a list naming each world once (not b->world_list, which the
 * call above uses). On failure (a CUDA error) the episode counts are as before. */
tp_status tp_op_reset_unique_worlds(tp_batch *b, const int32_t *worlds, int count);

#endif
