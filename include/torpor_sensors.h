/* torpor_sensors.h - sensors as arrays: the inertial measurement of every body and per-shape contact sensors.
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
 * rotation per body: O(W B)). Both backends compute them with the same
 * functions (kernels/sensors.h); on CUDA on the device, and each
 * tp_batch_imu call copies the last step's values into the host arrays the
 * view points at (the pointers stay the same): call it after each step.
 * Static bodies read 0 acceleration relative to their (zero) motion, minus
 * gravity. Errors: TP_ERR_INVALID_ARGUMENT (NULL), TP_ERR_OUT_OF_MEMORY,
 * TP_ERR_CUDA (a device copy failed). */
typedef struct tp_imu_view {
    int worlds, bodies;
    const float *v, *w, *a; /* [W][B][3] each, body frame */
} tp_imu_view;

tp_status tp_batch_imu(tp_batch *batch, tp_imu_view *out);

/* Contact sensors: the shapes a model marks (tp_body_def.sensor for a body of
 * one shape, tp_shape_def.sensor for a shape of a compound body; scene key
 * "sensor": true), numbered S = 0, 1, ... in body order, then shape order.
 * After each tp_batch_step call, from the contact points of its last step:
 *   force    [W][S][3]  the total contact force on the sensor's shape from
 *                       everything it touches (normal plus friction), world
 *                       frame, N (the shape's share of contact_f; a sleeping
 *                       pair's skipped rows add 0);
 *   touching [W][S]     1 if one of the shape's contact points has separation
 *                       <= 0 or a normal force > 0, else 0.
 * With sleep.skip_constraints on (the default) a sleeping body's pairs make
 * no contact points: a sensor on a sleeping body holds its last reading from
 * before the body slept (it is at rest) until it wakes, and a sensor on a
 * static body reads awake bodies only (a body sleeping on it adds nothing). A
 * body already asleep when the sensors are first turned on reads 0 until it
 * wakes. With skip_constraints off, sleeping bodies' points count as any.
 * The first tp_batch_contact_sensors call turns them on and fills them from
 * the last step; from then on every step call refills them (O(contacts +
 * bodies)), and a reset world reads 0 (it has no contacts until its next step).
 * Both backends, as for the IMU above (on CUDA, call it after each step to
 * copy the last step's values into the view's arrays). A model without sensors gives
 * sensors = 0. Errors: TP_ERR_INVALID_ARGUMENT (NULL), TP_ERR_OUT_OF_MEMORY, TP_ERR_CUDA. */
int tp_model_contact_sensor_count(const tp_model *model);
/* Body of sensor `sensor` and its shape (index among a compound body's shapes, 0 otherwise). */
tp_status tp_model_contact_sensor(const tp_model *model, int sensor, int *body, int *shape);

typedef struct tp_contact_sensor_view {
    int worlds, sensors;
    const float *force;      /* [W][S][3] N, world frame */
    const uint8_t *touching; /* [W][S] 0 or 1 */
} tp_contact_sensor_view;

tp_status tp_batch_contact_sensors(tp_batch *batch, tp_contact_sensor_view *out);
/* ================================================================ end of sensors */

#endif
