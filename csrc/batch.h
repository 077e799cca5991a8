/* batch.h - internals of a batch: N replicated worlds of one model. */
#ifndef TP_BATCH_H
#define TP_BATCH_H

#include "mirror.h"
#include "layout.h"
#include "model.h"
#include "sensors.h"
#include "torpor.h"
#include "tp_world.h"

/* A timed force event still acting: applied on steps [first_step, last_step]. */
typedef struct tp_event_schedule {
    int64_t step;      /* the step before which the event fires */
    int64_t last_step; /* force events: last step it acts on (>= step) */
} tp_event_schedule;

struct tp_batch {
    const tp_model *model;
    tp_backend backend;
    int worlds, bodies, threads;
    int first_world, total_worlds; /* this batch is worlds [first_world, first_world + worlds) of total_worlds */
    int device;                   /* CUDA device ordinal (0 on the CPU) */
    int contact_capacity;         /* contact points per world */
    int link_point_capacity;      /* tp_batch_def's (0 = default, csrc/articulation_batch.c) */
    uint64_t seed;
    int64_t step_count;

    /* State, world-major [W][B][k] (DESIGN.md section 3). On CUDA these are the
     * host mirrors, refreshed by tp_batch_state. */
    float *pos, *quat, *v, *w;
    float *force, *torque;        /* applied for the next step, cleared after it */
    float *inv_mass, *inv_inertia, *friction; /* per world-body material (randomizable) */
    uint8_t *flags, *sleep_state, *body_awake;
    float *quiet_timer;
    float *quiet_v;               /* [W][B][3] velocity when the quiet run began (kernels/sleep.h) */
    float *gravity;               /* [W][3] */
    int32_t *awake_count, *sleeping_count, *checking_count, *contact_overflow; /* [W] */
    uint8_t *faults;              /* [W] */
    void *counts_block;           /* one allocation holding, in this order, awake_count, sleeping_count,
                                     checking_count, contact_overflow, faults and body_awake: the counts a
                                     sleep measurement reads, copied from a device in one piece (mirror.h) */
    float *contact_f;             /* [W][B][3] summed contact force per body, N */
    int32_t *island;              /* [W][B] island label, -1 for static and removed bodies */

    /* Contacts: two buffers of [W][capacity] used alternately, so last step's
     * list (with its impulses) is there for warm starting. */
    struct tp_contact *contacts[2];
    struct tp_contact_ref *contact_refs[2]; /* [W][capacity] beside them (kernels/contact_cache.h) */
    int32_t *contact_count[2];    /* [W] */
    int current;                  /* which buffer the last step wrote */

    /* The model's polytopes, one per body, built once (kernels/collision.h,
     * tp_build_body_polys): the CPU collide stage reads them (layout.polys). */
    struct tp_poly *polys;

    /* Where the arrays above are, as the stages read them (kernels/layout.h). */
    tp_layout layout;

    /* Per-thread scratch of the CPU backend: one world's step (kernels/step.h). */
    void **scratch;
    size_t scratch_bytes;
    tp_simd simd;                 /* the contact sweeps' width (csrc/solver_simd.h): off on the CUDA backend */
    size_t simd_offset;           /* where in a thread's scratch the wide sweeps' part begins */
    int profile_stages;
    double *stage_seconds;        /* [threads][TP_STAGE_COUNT], summed by tp_batch_stage_seconds */

    tp_event_schedule *schedule;  /* [model->event_count] */
    int next_event;               /* first event not yet fired */

    const struct tp_backend_ops *ops; /* the backend's operations (csrc/backend.h) */
    void *backend_data;           /* the backend's own state (CUDA: device side and mirror; CPU: its thread pool, NULL for one thread) */

    /* Episodes and batched writes (csrc/writes_batched.c). */
    uint32_t *episode;            /* [W] resets of each world so far: its draws' episode (kernels/philox.h) */
    int reset_keyframe;           /* the keyframe the reset under way starts from (tp_batch_reset_to_keyframe),
                                     -1: the model's (randomize.keyframe, else q0 / qd0) */
    uint8_t *world_mark;          /* [W] scratch: worlds already seen in a list, all 0 between calls */
    int32_t *world_list;          /* [W] scratch: a selection turned into a list of worlds */

    struct tp_artic_batch *artic; /* joint arrays (csrc/articulation_batch.c), NULL without joints */
    struct tp_cons_state *cons_state; /* [W][C] constraint state (csrc/constraint_batch.c), NULL without any */
    struct tp_mover_state *mover_state; /* [W][M] mover state (csrc/mover_batch.c), NULL without any */
    struct tp_cons_model *cons_table; /* [W][C] each world's copy of the constraint table, NULL without any */
    tp_sensor_arrays sensors;     /* host arrays of the IMU (imu) and the contact sensors (index, force,
                                     touching): NULL until asked (csrc/sensors.c, csrc/contact_sensors.c) */
};

/* The calls below are the bottom layer (csrc/batch_core.c): they call nothing
 * of batch.c, events.c, body_ops.c or batch_wake.c, so those can all use them. */

/* The world view of world `w` (pointers into the batch arrays). */
static inline tp_world tp_batch_world(tp_batch *b, int w) { return tp_layout_world(&b->layout, w); }
/* The batch's randomization settings (its seed, the model's randomize block). */
tp_randomize_params tp_batch_randomize_params(const tp_batch *b);
/* Write world w's initial (randomized) state; clears its faults and overflow. */
void tp_batch_init_world(tp_batch *b, int w);
/* Recount awake / sleeping / checking bodies and body_awake of world w. */
void tp_batch_count_world(tp_batch *b, int w);

/* Make the host arrays of worlds [first, last] current for `groups`
 * (csrc/mirror.h): a copy from the device on CUDA, nothing on the CPU. */
tp_status tp_batch_pull(tp_batch *b, int first, int last, int groups);

/* Make the host arrays of worlds [first, last] current and send them back to
 * the device before the next step: what every host write does first (nothing
 * on the CPU). Tests that poke the internals call it too. */
tp_status tp_batch_begin_write(tp_batch *b, int first, int last);

/* World selections of the batched writes (csrc/writes_batched.c; torpor_batched.h):
 * rows of the data, the world of row r (-1: unselected), the check of an
 * index list (in range, no repeats) and the host copies made current. */
int tp_select_rows(const tp_batch *b, const tp_world_select *s);
int tp_select_world(const tp_world_select *s, int r);
tp_status tp_select_check(tp_batch *b, const tp_world_select *s, const char *call);
tp_status tp_select_begin_writes(tp_batch *b, const tp_world_select *s);

/* The sensors around the last step of a tp_batch_step call (csrc/sensors.c:
 * the backend's sensors_before_step / sensors_after_step, nothing while every
 * sensor is off). */
tp_status tp_sensors_before_step(tp_batch *b);
tp_status tp_sensors_after_step(tp_batch *b);
/* Free the host arrays of every sensor (csrc/sensors.c). */
void tp_sensors_free(tp_batch *b);

/* Solver and sleep settings of the model, as the stages take them (csrc/step.c). */
struct tp_step_params tp_batch_step_params(const tp_batch *b);

#endif
