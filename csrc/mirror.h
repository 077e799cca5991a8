/* mirror.h - the host copy of a device's world-major arrays, kept current per world.
 *
 * The CUDA backend keeps the authoritative state on the device; the batch's host
 * arrays mirror it. Every mirrored array is world-major (DESIGN.md section 3):
 * world w's part is the `world_bytes` bytes at offset w * world_bytes, so one
 * world, or a run of neighbouring worlds, moves with one copy per array.
 *
 * Each world carries two marks:
 *   stale  (a bit per group)  the device changed it since the host last copied it;
 *   dirty                     the host changed it since the device last had it.
 * A step marks every world stale; a device-side reset marks its worlds stale and
 * drops their host changes. Reading pulls only stale worlds of the groups asked
 * for; writing pulls the written worlds, then marks them dirty; the next step
 * pushes only dirty worlds. An RL loop that resets or pushes one world of
 * 16,384 thus moves that world's bytes, not the batch's.
 *
 * A run also bridges a short gap of worlds whose bytes are the same on both
 * sides (a pull never crosses a world the host changed, a push never one the
 * device changed), so a write to every fourth world is one copy per array.
 *
 * Arrays belong to a group: TP_MIRROR_BODIES and TP_MIRROR_COUNTS (together
 * TP_MIRROR_STATE: what tp_batch_state, the hashes and host writes use; the
 * counts alone are what tp_batch_counts reads each step), TP_MIRROR_CONTACTS
 * (the contact buffers, read by tp_batch_contacts only) or TP_MIRROR_SENSORS
 * (the sensor arrays, read by tp_batch_imu and tp_batch_contact_sensors; added
 * when a sensor is turned on); the host never writes those two. A model with
 * constraints or movers adds TP_MIRROR_CONSTRAINTS (each world's constraint
 * table and state, the mover state: read by their read-outs, written by their
 * per-world writes and events). A write pulls and a push sends the groups the
 * host writes (TP_MIRROR_WRITTEN: the state groups and the constraints').
 *
 * A group may also have a span (tp_mirror_set_span): one region, the same
 * on both sides, that holds all of its arrays for all worlds at the same
 * offsets (the CUDA backend lays the counts out so: csrc/batch.c allocates
 * them as one block and kernels/cuda/memory.cu carves their twins out of one
 * allocation in the same order). A copy of every world of such a group is
 * then one copy of the span, not one per array: what tp_batch_counts costs
 * after each step.
 *
 * The copies go through callbacks, so this file is plain C with no CUDA types and
 * is tested on the CPU against a fake device (tests/test_mirror.c). */
#ifndef TP_MIRROR_H
#define TP_MIRROR_H

#include "torpor.h"

#include <stddef.h>
#include <stdint.h>

/* Groups of arrays, copied separately. */
enum {
    TP_MIRROR_BODIES = 1,   /* per-body state and per-world parameters (pos ... island, gravity) */
    TP_MIRROR_COUNTS = 2,   /* what a sleep measurement reads each step: counts, body_awake, faults, overflow */
    TP_MIRROR_CONTACTS = 4, /* the contact buffers; never written by the host */
    TP_MIRROR_SENSORS = 8,  /* the sensor arrays (kernels/sensors.h); never written by the host */
    TP_MIRROR_CONSTRAINTS = 16, /* constraint tables and state, mover state (kernels/constraint.h, mover.h) */
    TP_MIRROR_STATE = TP_MIRROR_BODIES | TP_MIRROR_COUNTS, /* what tp_batch_state and hashes use */
    TP_MIRROR_WRITTEN = TP_MIRROR_STATE | TP_MIRROR_CONSTRAINTS, /* what a write pulls and a push sends */
    TP_MIRROR_DEVICE_ONLY = TP_MIRROR_CONTACTS | TP_MIRROR_SENSORS, /* computed on the device alone */
    TP_MIRROR_ALL = TP_MIRROR_WRITTEN | TP_MIRROR_DEVICE_ONLY
};
#define TP_MIRROR_MAX_ARRAYS 48
/* Default largest gap (bytes of one group) a copy run bridges; about what one
 * more cudaMemcpyAsync call costs in transfer time (microseconds at GB/s). */
#define TP_MIRROR_BRIDGE_BYTES (64 * 1024)

/* Copy `bytes` from src to dst; to_device says the direction. May be
 * asynchronous: `wait` is called before the host uses what was copied. */
typedef tp_status (*tp_mirror_copy_fn)(void *ctx, void *dst, const void *src, size_t bytes, int to_device);
typedef tp_status (*tp_mirror_wait_fn)(void *ctx);

typedef struct tp_mirror_array {
    void *host, *device;
    size_t world_bytes;    /* bytes of one world */
    int group;             /* one of TP_MIRROR_BODIES, _COUNTS, _CONTACTS, _SENSORS, _CONSTRAINTS */
} tp_mirror_array;

/* One region holding all arrays of a group, for every world (see above). */
typedef struct tp_mirror_span {
    void *host, *device;
    size_t bytes;          /* 0: the group has none */
} tp_mirror_span;

typedef struct tp_mirror {
    int worlds;
    uint8_t *stale;        /* [worlds] groups the device changed since the last pull */
    uint8_t *dirty;        /* [worlds] 1 if the host changed the world since the last push */
    int any_dirty;
    size_t bridge_bytes;   /* a run bridges a gap of at most this many bytes of worlds that may be copied along */
    tp_mirror_array arrays[TP_MIRROR_MAX_ARRAYS];
    int count;
    tp_mirror_span span[TP_MIRROR_ALL + 1]; /* by group */
    tp_mirror_copy_fn copy;
    tp_mirror_wait_fn wait;
    void *ctx;
    uint64_t bytes_pulled, bytes_pushed, copies; /* totals, for tests and benchmarks */
} tp_mirror;

/* Start with every world current on both sides. TP_ERR_OUT_OF_MEMORY if the
 * marks cannot be allocated. */
tp_status tp_mirror_init(tp_mirror *m, int worlds, tp_mirror_copy_fn copy, tp_mirror_wait_fn wait, void *ctx);
void tp_mirror_free(tp_mirror *m);
/* Register one array; TP_ERR_CAPACITY past TP_MIRROR_MAX_ARRAYS. */
tp_status tp_mirror_add(tp_mirror *m, void *host, void *device, size_t world_bytes, int group);

/* Declare that [host, host + bytes) and [device, device + bytes) hold every
 * array of `group` (already added) at the same offsets. TP_ERR_INVALID_ARGUMENT
 * (nothing changed) when an array of the group lies outside the span or at a
 * different offset on the two sides. */
tp_status tp_mirror_set_span(tp_mirror *m, int group, void *host, void *device, size_t bytes);

/* The device changed worlds [first, last] (a step: all of them). Host changes
 * to those worlds not yet pushed are dropped: call tp_mirror_push before a
 * step; a device reset overwrites the worlds it resets anyway. */
void tp_mirror_device_changed(tp_mirror *m, int first, int last);
/* Make the host's copy of worlds [first, last] current for `groups`. */
tp_status tp_mirror_pull(tp_mirror *m, int first, int last, int groups);
/* Pull what the host writes of worlds [first, last] (TP_MIRROR_WRITTEN) and
 * mark them to be pushed. */
tp_status tp_mirror_begin_write(tp_mirror *m, int first, int last);
/* Send every dirty world's TP_MIRROR_WRITTEN groups to the device. */
tp_status tp_mirror_push(tp_mirror *m);

#endif
