/* cuda_api.h - what the CUDA library (kernels/cuda/) offers the host library.
 *
 * Plain C, no CUDA types: csrc/backend_cuda.c includes it, and csrc/cuda_stub.c
 * implements it for builds without nvcc. The library is fed only by a
 * tp_cuda_setup (where the batch's host arrays are, the model's tables and
 * the step's settings); it never sees a tp_batch and calls nothing of the
 * host library, so the arrows go one way: csrc -> kernels/cuda -> kernels.
 *
 * The device holds the authoritative state in the host's layout; the host
 * arrays are a mirror that csrc/backend_cuda.c keeps with csrc/mirror.c, copying
 * through tp_cuda_copy and tp_cuda_wait. A failed call returns a tp_status and
 * leaves its reason in tp_cuda_error (tp_cuda_create: in the caller's buffer).
 * docs/cuda.md describes the kernels, the graph and the memory. */
#ifndef TP_CUDA_API_H
#define TP_CUDA_API_H

#include "articulation_reset.h"
#include "sensors.h"
#include "step.h"
#include "torpor.h" /* tp_status, tp_batch_def: the host API this file serves */
#include "world_init.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_cuda_batch tp_cuda_batch;

/* Everything the device side of a batch is made from. */
typedef struct tp_cuda_setup {
    tp_layout host;                /* the batch's host arrays (sizes, and what the mirror copies) */
    const tp_body_init *body_init; /* [bodies] the model's template, for resets */
    float gravity0[3];             /* the model's gravity, m/s^2, for resets */
    tp_step_params step;
    tp_randomize_params randomize;
    int device;                    /* CUDA device ordinal: every call of the batch runs on it */
    /* Articulations (NULL / unused without joints): the batch's kernel model
     * (host.artic, its tables on the host, uploaded once) and the initial
     * joint arrays of a world, for resets. host.joint_q ... are mirrored with
     * TP_CUDA_GROUP_BODIES, host.artic_scratch gets a device-only twin. */
    tp_artic_initial artic_initial;
    /* Constraints and movers (NULL without them): the model's constraint
     * table [host.cons_count] and each mover's initial state
     * [host.mover_count], what a reset gives a world (kernels/constraint.h,
     * kernels/mover.h), uploaded once; host.cons, host.cons_state and
     * host.mover_state are mirrored with TP_CUDA_GROUP_CONSTRAINTS,
     * host.movers (the model's mover table) uploaded once. */
    const tp_cons_model *cons_model;
    const tp_mover_state *mover_initial;
} tp_cuda_setup;

/* Groups of mirrored arrays, copied separately: the values of csrc/mirror.h's
 * TP_MIRROR_BODIES, _COUNTS, _CONTACTS, _SENSORS and _CONSTRAINTS
 * (csrc/backend_cuda.c checks). */
#define TP_CUDA_GROUP_BODIES 1   /* per-body state, per-world parameters, the joint arrays */
#define TP_CUDA_GROUP_COUNTS 2   /* counts, body_awake, faults, overflow */
#define TP_CUDA_GROUP_CONTACTS 4 /* the contact buffers */
#define TP_CUDA_GROUP_SENSORS 8  /* the sensor arrays (tp_cuda_sensors_on) */
#define TP_CUDA_GROUP_CONSTRAINTS 16 /* constraint tables and state, mover state */

/* A device array that mirrors a host array of the batch, world-major:
 * world w's part is the world_bytes bytes at w * world_bytes. */
typedef struct tp_cuda_array {
    void *host, *device;
    size_t world_bytes;
    int group;
} tp_cuda_array;

/* 1 if this build has the CUDA library. */
int tp_cuda_built(void);
/* Number of usable CUDA devices; when 0, why (at most `size` bytes, NUL
 * terminated) in `why` unless it is NULL. */
int tp_cuda_probe(char *why, size_t size);

/* Allocate the device state, upload the model's tables, set up the contact
 * sort. The worlds' state is not written: reset every world next. On failure
 * *out is NULL and err holds the reason (err_size bytes). */
tp_status tp_cuda_create(const tp_cuda_setup *setup, tp_cuda_batch **out, char *err, size_t err_size);
/* Free everything; NULL is accepted. */
void tp_cuda_destroy(tp_cuda_batch *c);
/* The reason of c's last failed call. */
const char *tp_cuda_error(const tp_cuda_batch *c);
/* The mirrored arrays; returns their number, *arrays valid while c lives. */
int tp_cuda_arrays(const tp_cuda_batch *c, const tp_cuda_array **arrays);
/* The counts group's arrays as one region on both sides (host: csrc/batch.c's
 * counts_block), for csrc/mirror.h's span; returns its bytes, 0 if the
 * arrays are separate. */
size_t tp_cuda_counts_span(const tp_cuda_batch *c, void **host, void **device);
/* Bytes allocated on the device, all worlds together. */
size_t tp_cuda_device_bytes(const tp_cuda_batch *c);
/* Asynchronous copy on c's stream (to_device: host -> device), and the wait
 * for every copy before it: the mirror's callbacks. */
tp_status tp_cuda_copy(void *c, void *dst, const void *src, size_t bytes, int to_device);
tp_status tp_cuda_wait(void *c);
/* One step of every world (one graph launch); `current` is the contact buffer
 * the last step wrote (the caller flips it after). */
tp_status tp_cuda_step(tp_cuda_batch *c, int current);
/* Make the batch's device current on the calling thread (cudaSetDevice): what
 * csrc/backend_cuda.c does before each of its calls, so batches on different
 * devices can share a process and its threads. */
tp_status tp_cuda_use_device(tp_cuda_batch *c);
/* Reset worlds[0 .. count), each listed once, on the device (cuRAND draws,
 * kernels/cuda/curand_draws.h: the host's bits), world w in episode episode[w]
 * ([W], read before the call returns). Asynchronous. */
tp_status tp_cuda_reset(tp_cuda_batch *c, const int32_t *worlds, const uint32_t *episode, int count);

/* Sensors (kernels/sensors.h; kernels/cuda/sensors.cu), off until the host
 * turns them on. tp_cuda_sensors_on: for each sensor on in `host` (imu, or
 * index / force / touching with host->count sensors) and not yet on the
 * device, its device arrays allocated and zeroed (index uploaded), the
 * contact sensors filled from contact buffer `current` (the last step's) and
 * copied into the host arrays before the call returns; *device: the device
 * arrays of every sensor on (the mirror's twins). A reset zeroes the contact
 * sensors of its worlds, as tp_batch_init_world does on the host. */
tp_status tp_cuda_sensors_on(tp_cuda_batch *c, const tp_sensor_arrays *host, int current, tp_sensor_arrays *device);
/* Around the last step of a step call, on the batch's stream: the IMU's copy
 * of every body velocity before the step (the host's writes pushed first),
 * and every sensor on after it, from contact buffer `current` (the one the
 * step wrote). Asynchronous. */
tp_status tp_cuda_sensors_before_step(tp_cuda_batch *c);
tp_status tp_cuda_sensors_after_step(tp_cuda_batch *c, int current);

#ifdef __cplusplus
}
#endif

#endif
