/* torpor_sensors.h - sensors as arrays: the inertial measurement of every body.
 *
 * Part of the public API: include torpor.h, which includes this file. */
#ifndef TORPOR_SENSORS_H
#define TORPOR_SENSORS_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_sensors.h"
#endif

/* ================================================================ sensors (csrc/sensors.c)
 *
 * An IMU at every body's centre of mass, in the body frame (the rotation of
 * the body's quaternion), after the last step of each tp_batch_step call:
 *   v [W][B][3]  linear velocity of the centre of mass, m/s
 *   w [W][B][3]  angular velocity, rad/s
 *   a [W][B][3]  proper acceleration (what an accelerometer reads):
 *                (v_after - v_before) / dt - gravity over that last step,
 *                so a body in free fall reads 0 and one at rest reads
 *                |g| pointing up (against gravity), m/s^2.
 * The arrays are computed only once asked for: the first call of
 * tp_batch_imu turns them on (zeros until the next step), and from then on
 * every tp_batch_step fills them (a copy of v before the last step and a
 * rotation per body: O(W B)). CPU backend only: on CUDA, TP_ERR_BACKEND.
 * Static bodies read 0 acceleration relative to their (zero) motion, minus
 * gravity. Errors: TP_ERR_INVALID_ARGUMENT (NULL), TP_ERR_OUT_OF_MEMORY. */
typedef struct tp_imu_view {
    int worlds, bodies;
    const float *v, *w, *a; /* [W][B][3] each, body frame */
} tp_imu_view;

tp_status tp_batch_imu(tp_batch *batch, tp_imu_view *out);
/* ================================================================ end of sensors */

#endif
