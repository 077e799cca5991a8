/* sensors.c - the IMU arrays of a batch (include/torpor_sensors.h): turned on
 * by the first tp_batch_imu, then filled after the last step of each
 * tp_batch_step call from the body velocities before and after that step. */
#include "batch.h"
#include "error.h"
#include "tp_math.h"

#include <stdlib.h>
#include <string.h>

tp_status tp_batch_imu(tp_batch *b, tp_imu_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_imu: batch or out is NULL");
    if (b->backend == TP_BACKEND_CUDA)
        return tp_fail(TP_ERR_BACKEND, "tp_batch_imu: the IMU arrays are computed on the cpu backend only so far");
    size_t n = 3 * (size_t)b->worlds * (size_t)b->bodies;
    if (!b->imu) {
        b->imu = calloc(4 * n + 1, sizeof(float)); /* v, w, a, and v before the last step */
        if (!b->imu) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_imu: out of memory (%zu floats)", 4 * n);
    }
    out->worlds = b->worlds;
    out->bodies = b->bodies;
    out->v = b->imu;
    out->w = b->imu + n;
    out->a = b->imu + 2 * n;
    return TP_OK;
}

void tp_sensors_before_step(tp_batch *b)
{
    if (!b->imu) return;
    size_t n = 3 * (size_t)b->worlds * (size_t)b->bodies;
    memcpy(b->imu + 3 * n, b->v, n * sizeof(float));
}

void tp_sensors_after_step(tp_batch *b, float dt)
{
    if (!b->imu) return;
    size_t n = 3 * (size_t)b->worlds * (size_t)b->bodies;
    float *v = b->imu, *w = b->imu + n, *a = b->imu + 2 * n;
    const float *before = b->imu + 3 * n;
    for (int wd = 0; wd < b->worlds; ++wd) {
        tp_vec3 g = tp_v3_load(b->gravity + 3 * wd);
        for (int i = 0; i < b->bodies; ++i) {
            size_t k = (size_t)wd * (size_t)b->bodies + (size_t)i;
            tp_quat q = tp_q_load(b->quat + 4 * k);
            tp_vec3 v1 = tp_v3_load(b->v + 3 * k), acc = tp_scale(tp_sub(v1, tp_v3_load(before + 3 * k)), 1.0f / dt);
            tp_v3_store(v + 3 * k, tp_q_inv_rotate(q, v1));
            tp_v3_store(w + 3 * k, tp_q_inv_rotate(q, tp_v3_load(b->w + 3 * k)));
            tp_v3_store(a + 3 * k, tp_q_inv_rotate(q, tp_sub(acc, g)));
        }
    }
}
