/* backend.h - how a batch reaches its backend: one small table of operations.
 *
 * batch.c, writes.c and events.c call only these; each backend fills the
 * table in its own file (csrc/step.c for the CPU, csrc/backend_cuda.c for
 * CUDA), so adding a backend touches no caller. */
#ifndef TP_BACKEND_H
#define TP_BACKEND_H

#include "batch.h"

typedef struct tp_backend_ops {
    /* Set up the backend's side of a batch whose host arrays hold every
     * world's fresh state; on failure the batch is destroyed by the caller. */
    tp_status (*create)(tp_batch *b);
    void (*destroy)(tp_batch *b);
    /* One step of every world (the caller fires events before, counts after). */
    tp_status (*step)(tp_batch *b);
    /* Make the host arrays of worlds [first, last] current for `groups` (csrc/mirror.h). */
    tp_status (*pull)(tp_batch *b, int first, int last, int groups);
    /* Make the host state of worlds [first, last] current and send it back before the next step. */
    tp_status (*begin_write)(tp_batch *b, int first, int last);
    /* Reset the listed worlds (checked by the caller) to fresh draws. */
    tp_status (*reset_worlds)(tp_batch *b, const int *worlds, int count);
    /* Bytes the backend allocated beside the host arrays (device memory), all worlds. */
    size_t (*device_bytes)(const tp_batch *b);
    /* Rewrite every array pointer of a host view of the batch (tp_batch_state's
     * pointers) into its device twin, the device state current (host writes
     * sent, the stream synchronised). TP_ERR_BACKEND where there is no device. */
    tp_status (*device_view)(tp_batch *b, tp_state_view *view);
    /* The sensors (kernels/sensors.h): set up the backend's side of those the
     * batch has turned on (host arrays in b->sensors, zero), the contact
     * sensors filled from the last step; around the last step of a step call,
     * keep the velocities before it and compute every sensor that is on after it. */
    tp_status (*sensors_on)(tp_batch *b);
    tp_status (*sensors_before_step)(tp_batch *b);
    tp_status (*sensors_after_step)(tp_batch *b);
} tp_backend_ops;

extern const tp_backend_ops tp_cpu_backend;  /* csrc/step.c */
extern const tp_backend_ops tp_cuda_backend; /* csrc/backend_cuda.c */

#endif
