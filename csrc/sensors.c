/* sensors.c - the IMU arrays of a batch (include/torpor_sensors.h), and the
 * sensors around a step call: turned on by the first tp_batch_imu, then
 * computed by the backend (kernels/sensors.h, on the host or the device)
 * after the last step of each tp_batch_step call, from the body velocities
 * before and after that step. */
#include "backend.h"
#include "error.h"

#include <stdlib.h>

/* Bytes 0 .. n of one part of the IMU ([W][B][3] floats). */
static size_t imu_part(const tp_batch *b) { return 3 * (size_t)b->worlds * (size_t)b->bodies; }

tp_status tp_batch_imu(tp_batch *b, tp_imu_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_imu: batch or out is NULL");
    size_t n = imu_part(b);
    if (!b->sensors.imu) {
        b->sensors.imu = calloc(4 * n + 1, sizeof(float)); /* v, w, a, and v before the last step */
        if (!b->sensors.imu) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_imu: out of memory (%zu floats)", 4 * n);
        tp_status st = b->ops->sensors_on(b);
        if (st != TP_OK) {
            free(b->sensors.imu);
            b->sensors.imu = NULL;
            return st;
        }
    }
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_SENSORS); /* CUDA: the last step's */
    if (st != TP_OK) return st;
    out->worlds = b->worlds;
    out->bodies = b->bodies;
    out->v = b->sensors.imu;
    out->w = b->sensors.imu + n;
    out->a = b->sensors.imu + 2 * n;
    return TP_OK;
}

static int any_sensor(const tp_batch *b) { return b->sensors.imu || b->sensors.force; }

tp_status tp_sensors_before_step(tp_batch *b)
{
    return b->sensors.imu ? b->ops->sensors_before_step(b) : TP_OK;
}

tp_status tp_sensors_after_step(tp_batch *b)
{
    return any_sensor(b) ? b->ops->sensors_after_step(b) : TP_OK;
}

void tp_sensors_free(tp_batch *b)
{
    free(b->sensors.imu);
    free(b->sensors.index);
    free(b->sensors.force);
    free(b->sensors.touching);
    b->sensors = (tp_sensor_arrays){0};
}
