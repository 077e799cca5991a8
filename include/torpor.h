/* torpor.h - public C API of torpor, a batched rigid-body simulator with island sleep.
 *
 * Vocabulary and conventions are those of DESIGN.md: SI units (m, kg, s, rad, N),
 * z up, default gravity (0, 0, -9.81), quaternions stored [x, y, z, w], float32
 * state.
 *
 * Three objects:
 *   - a model (tp_model) is an immutable template world compiled from a scene file
 *     (tp_model_load) or from a builder (tp_builder_*). It owns bodies, shapes,
 *     materials, solver and sleep settings, randomization and scripted events;
 *   - a batch (tp_batch) holds N replicated worlds of one model on one backend.
 *     All its memory is allocated by tp_batch_create; tp_batch_step never allocates;
 *   - state arrays are structure-of-arrays, world-major: element [w * bodies + b].
 *
 * Errors: every call that can fail returns a tp_status. On failure nothing was
 * changed, and tp_last_error() returns a message (thread-local, valid until the
 * next failing call on that thread, or the next successful load, which clears
 * it) that names the bad value and where it came from, e.g.
 * "scenes/a.json:12:7: bodies[3].size[1]: must be > 0, got -1".
 * tp_last_error_info() gives the same in parts (file, line, column, field,
 * reason); tp_model_load_with_error() returns them without a global.
 * Every call that creates an object through `**out` sets *out to NULL on
 * failure (when `out` itself is not NULL), and every destroy call accepts NULL.
 * A NULL object or a NULL required pointer argument is TP_ERR_INVALID_ARGUMENT.
 *
 * Frames and units: positions in the world frame, m; orientations as unit
 * quaternions [x, y, z, w] that turn body-frame vectors into the world frame;
 * linear velocity v (m/s) is the velocity of the body's centre of mass and
 * angular velocity w (rad/s) is in the world frame; forces in N, torques in
 * N m, impulses in N s, angular impulses in N m s, all in the world frame.
 * A body's `pos` is its origin, the centre of its shape's box (see the
 * shape notes in torpor_model.h): for a box, ball, cylinder and capsule that
 * is the centre of mass; for a wedge, a corner wedge and a convex hull the
 * centre of mass lies off it (a hull's origin is that of its vertices).
 *
 * Lifetimes: strings returned by the library (names, messages) are owned by
 * it: a model's names live as long as the model; name tables (tp_shape_name,
 * ...) are static; tp_last_error's text lives until the next failing call (or
 * successful load) on the same thread. State views: see tp_batch_state.
 *
 * Threads: the library keeps no global mutable state (the error message is
 * thread-local), so different threads may use different batches at once,
 * and several batches (on any threads) may share one model: a finished model
 * is read-only. A batch is not thread-safe: calls on one batch, or on one
 * builder, must not overlap (tp_batch_state and tp_batch_counts included: on
 * CUDA they copy into the batch's host arrays); a caller that shares a batch
 * between threads holds a lock around every call (the Python package does).
 * Only the queries of what never changes after creation may run beside any
 * call on the same batch: tp_batch_worlds, tp_batch_bodies, tp_batch_backend,
 * tp_batch_threads, tp_batch_simd, tp_batch_seed, tp_batch_model and the
 * tp_batch_*memory_bytes calls. Reading a view's arrays while a step or a
 * write runs gives a mix of old and new values. tp_batch_step itself runs
 * its worlds on the batch's own threads (a pool made by tp_batch_create).
 * CUDA batches on several host threads at once have not been tested.
 *
 * fork(): a child forked while no call on the batch runs may go on using it;
 * the pool's threads are not copied into the child, so there the batch steps
 * its worlds on the calling thread alone, with the same results.
 */
#ifndef TORPOR_H
#define TORPOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_VERSION_STRING "0.1.0"

#include "torpor_types.h" /* capacities, bounds, enums, assembly thresholds */

/* ---------------------------------------------------------------- status */

typedef enum tp_status {
    TP_OK = 0,
    TP_ERR_INVALID_ARGUMENT = 1, /* a bad value passed through the API */
    TP_ERR_PARSE = 2,            /* a malformed or invalid scene file */
    TP_ERR_IO = 3,               /* a file could not be read or written */
    TP_ERR_OUT_OF_MEMORY = 4,    /* an allocation at creation time failed */
    TP_ERR_CAPACITY = 5,         /* a fixed capacity was exceeded */
    TP_ERR_BACKEND = 6,          /* the backend is not built in or has no device */
    TP_ERR_CUDA = 7              /* a CUDA call failed */
} tp_status;

/* Message of the last failure on this thread ("" when none, or after a
 * successful model load). Never fails. */
const char *tp_last_error(void);
/* Short name of a status code ("invalid argument", ...). */
const char *tp_status_name(tp_status status);

/* ---------------------------------------------------------------- enums */

/* (the enums themselves: torpor_types.h) */

/* Name tables ("box", "island", "cpu", ...); NULL for an out-of-range value. */
const char *tp_shape_name(tp_shape_type shape);
const char *tp_backend_name(tp_backend backend);
const char *tp_simd_name(tp_simd simd);
const char *tp_sleep_state_name(tp_sleep_state state);

#include "torpor_model.h" /* the model: definitions, meshes, building and loading */

/* ---------------------------------------------------------------- batch */

typedef struct tp_batch tp_batch;

typedef struct tp_batch_def {
    int worlds;                 /* >= 1 (default 1) */
    tp_backend backend;         /* default cpu */
    int threads;                /* CPU threads over worlds; 0 = OpenMP default (default 0) */
    int contact_capacity;       /* contact points per world; 0 = default (16 x (dynamic bodies + links)
                                   + 32, or fewer where the bodies cannot make that many: per pair that
                                   may collide, per pair of shapes, 1 with a ball, 2 with a capsule, 4
                                   otherwise; docs/collision.md). Points that do not fit are counted in
                                   contact_overflow. */
    int link_point_capacity;    /* contact points per world with an articulation link on a side (their
                                   Jacobians and responses are kept per world: 12 x the largest tree's
                                   dofs floats each); 0 = default (8 x links + 16, at most
                                   contact_capacity). Points beyond it get no rows in that step and are
                                   counted in contact_overflow. Ignored without joints. */
    int has_seed;               /* if set, `seed` replaces the model's randomize seed */
    uint64_t seed;
    int profile_stages;         /* CPU backend: time each stage (tp_batch_stage_seconds); default 0 */
    tp_simd simd;               /* CPU backend: vector width of the contact sweeps (default auto; every
                                   width gives the same bits). tp_batch_create fails, naming the value
                                   and whether it came from here or from TORPOR_SIMD, with
                                   TP_ERR_BACKEND for a width this CPU lacks (avx2 without AVX2) and
                                   TP_ERR_INVALID_ARGUMENT for a value not in tp_simd or a
                                   TORPOR_SIMD other than off, sse2, avx2, auto. Checked for the
                                   CUDA backend too, which ignores it. */
    /* Sharding (docs/scale-out.md). The batch holds worlds [first_world, first_world + worlds) of a run of
       total_worlds worlds split over batches (processes, devices): every random draw (initial noise, mass
       and friction scales, resets) is keyed on the world's global index first_world + w, so each world
       draws, steps and hashes exactly as the same world of one batch of all the worlds. The API's world
       arguments and the state arrays stay local (0 .. worlds - 1); scripted events' `worlds` lists are
       global: a batch applies the entries in its range. Errors: TP_ERR_INVALID_ARGUMENT for
       first_world < 0, or total_worlds (when not 0) below first_world + worlds or past INT_MAX. */
    int first_world;            /* global index of world 0 of the batch, >= 0 (default 0) */
    int total_worlds;           /* worlds of the whole run; 0 = first_world + worlds (default 0). Scripted
                                   events naming a world at or past it are refused at creation. */
    /* CUDA backend: the device ordinal, in [0, tp_cuda_device_count()) (default 0). Every CUDA call of the
       batch selects it first, so batches on different devices can live in one process. TP_ERR_BACKEND
       names an ordinal that does not exist; TP_ERR_INVALID_ARGUMENT a negative one. Must be 0 on the CPU
       backend. */
    int device;
} tp_batch_def;

tp_batch_def tp_default_batch_def(void);

/* Create N worlds of `model` (which must outlive the batch). Every world starts
 * at the model's initial state, randomized per world. `def` NULL means
 * tp_default_batch_def(). Errors: TP_ERR_INVALID_ARGUMENT (NULL model or out,
 * a bad field of def, worlds past TP_MAX_WORLDS), TP_ERR_BACKEND if the backend is not built in or has no device,
 * TP_ERR_OUT_OF_MEMORY (says how much was asked for), TP_ERR_CUDA. */
tp_status tp_batch_create(const tp_model *model, const tp_batch_def *def, tp_batch **out);
void tp_batch_destroy(tp_batch *batch); /* NULL is allowed; views of it become invalid */

/* Advance every world by `steps` steps of dt. Scripted events of the model are
 * applied before the first step that starts at or after their time. Never
 * allocates. A world whose state becomes non-finite, or in which a body moves
 * faster than TP_MAX_SPEED (its centre, or a point of its bounding sphere by
 * its spin), is flagged in faults and frozen until reset (its scripted events are skipped); the others go on
 * unaffected. An error (a CUDA failure) stops at the step it occurred in: the
 * steps before it were taken, as tp_batch_step_count() tells. Errors:
 * TP_ERR_INVALID_ARGUMENT (NULL, steps < 0, or a scripted event's world index
 * past the batch's worlds), TP_ERR_CUDA. */
tp_status tp_batch_step(tp_batch *batch, int steps);

/* The speed bound, m/s, past which a world is faulted: 10 km/s, above any
 * rigid body a robot or a stacking scene meets (a rifle bullet flies at about
 * 1 km/s), and where a body at dt = 1/60 s already crosses 167 m a step, so
 * its contacts and speculative margins no longer mean anything. A solver
 * blow-up passes it within a few steps, so blow-ups are always flagged.
 * (TP_MAX_SPEED itself: torpor_types.h.) */

int tp_batch_worlds(const tp_batch *batch);
int tp_batch_bodies(const tp_batch *batch);       /* bodies per world */
tp_backend tp_batch_backend(const tp_batch *batch);
int tp_batch_threads(const tp_batch *batch);      /* CPU threads the batch steps with (requested, or the OpenMP default) */
tp_simd tp_batch_simd(const tp_batch *batch);     /* the CPU sweeps' width in use (resolved: off, sse2 or avx2; off on CUDA) */
int64_t tp_batch_step_count(const tp_batch *batch);
int tp_batch_first_world(const tp_batch *batch);  /* global index of world 0 (tp_batch_def.first_world) */
int tp_batch_device(const tp_batch *batch);       /* CUDA device ordinal (0 on the CPU backend) */
uint64_t tp_batch_seed(const tp_batch *batch);        /* the randomization seed in use */
double tp_batch_time(const tp_batch *batch);      /* steps x dt, seconds */
const tp_model *tp_batch_model(const tp_batch *batch);

/* Host memory of a batch per world, in bytes: everything tp_batch_create
 * allocated (state arrays, per-world parameters, both contact buffers, joint
 * arrays and the articulation scratch, event
 * schedule, the model's polytopes, and the CPU threads' scratch, which all
 * worlds share) divided by
 * the number of worlds. A CUDA batch holds about as much again on the device.
 * 0 for NULL. */
size_t tp_batch_memory_bytes(const tp_batch *batch);
/* Device memory of a CUDA batch per world, in bytes: every array it allocated on
 * the GPU (state, contact buffers, per-world scratch, the contact sort's keys and
 * CUB's temporary storage) divided by the number of worlds. 0 on the CPU
 * backend and for NULL. */
size_t tp_batch_device_memory_bytes(const tp_batch *batch);
/* The part of tp_batch_memory_bytes that is the two contact buffers
 * (2 x contact capacity x (contact record + its manifold's reference pose),
 * plus their counts). */
size_t tp_batch_contact_memory_bytes(const tp_batch *batch);

/* Read-only views of the state, world-major. The pointers stay valid until the
 * batch is destroyed, but what they show is current only until the next call
 * that changes the batch (a step, a write, a reset): take a new view after it.
 * On CUDA, obtaining the view copies the state to the host. Errors:
 * TP_ERR_INVALID_ARGUMENT (NULL), TP_ERR_CUDA. Frames and units are those of
 * the header comment: pos is each body's origin (the centre of its shape's
 * box) in the world frame, quat turns body into world vectors, v is the
 * velocity of the centre of mass and w the angular velocity, both in the
 * world frame. */
typedef struct tp_state_view {
    int worlds, bodies;             /* shapes below use W = worlds, B = bodies */
    const float *pos;               /* [W][B][3]  m */
    const float *quat;              /* [W][B][4]  [x, y, z, w] */
    const float *v;                 /* [W][B][3]  m/s */
    const float *w;                 /* [W][B][3]  rad/s */
    const uint8_t *body_awake;      /* [W][B]     1 awake, 0 sleeping; sleep-checking: 1 under the
                                                 island policy (simulated), 0 under the assembly
                                                 policy (held); static, kinematic, removed: 0;
                                                 articulation links: as dynamic bodies */
    const uint8_t *sleep_state;     /* [W][B]     tp_sleep_state */
    const float *quiet_timer;       /* [W][B]     s */
    const uint8_t *removed;         /* [W][B]     1 once removed by tp_batch_remove_body */
    const int32_t *awake_count;     /* [W]        dynamic bodies and articulation links
                                                 with body_awake 1 (island policy: sleep-checking ones
                                                 included; assembly: not) */
    const int32_t *sleeping_count;  /* [W]        sleeping dynamic bodies and links */
    const int32_t *checking_count;  /* [W]        sleep-checking dynamic bodies */
    const int32_t *contact_overflow;/* [W]        contact points that did not fit, summed over steps */
    const uint8_t *faults;          /* [W]        1 if the world's state became non-finite or passed TP_MAX_SPEED */
    const float *contact_f;         /* [W][B][3]  summed contact force on each body in the last step, N */
    const int32_t *island;          /* [W][B]     island label (smallest body index in it), -1 if none */
} tp_state_view;

tp_status tp_batch_state(tp_batch *batch, tp_state_view *out);
/* CUDA backend: the same view with device pointers (the device's own arrays,
 * same shapes and element types), for frameworks that read GPU memory without
 * a copy (the Python package exposes them through __cuda_array_interface__ and
 * DLPack). Host writes not yet sent are sent, and the batch's stream is
 * synchronised before it returns, so the arrays are current; a later step or
 * write changes them in place (take the view again after it: the pointers stay
 * the same while the batch lives). Read-only: writes go through the API.
 * Errors: TP_ERR_INVALID_ARGUMENT (NULL), TP_ERR_BACKEND on the cpu backend
 * (whose tp_batch_state already needs no copy), TP_ERR_CUDA; *out is left
 * unchanged on failure. */
tp_status tp_batch_device_state(tp_batch *batch, tp_state_view *out);
/* The sleep counters only: awake_count, sleeping_count, checking_count,
 * contact_overflow, faults and body_awake are set, the other pointers are
 * NULL. What a sleep measurement reads every step; on the CUDA backend it
 * copies 17 bytes plus one byte per body of each world, where
 * tp_batch_state copies the whole state. */
tp_status tp_batch_counts(tp_batch *batch, tp_state_view *out);

/* ---------------------------------------------------------------- which worlds
 *
 * Every call that may act on more than one world takes a selection; a call of
 * one world takes `int world` in [0, W) (W = tp_batch_worlds).
 *   - NULL (or indices and mask both NULL): every world; data arrays have W
 *     rows, row w for world w;
 *   - an index list (indices, count >= 0; no world twice): `count` rows, row i
 *     for world indices[i];
 *   - a byte mask (mask [W], non-zero = selected): W rows; the rows of
 *     unselected worlds are not read.
 * Errors (TP_ERR_INVALID_ARGUMENT, nothing changed) name the call and the
 * value: count < 0, an index out of range or repeated ("select.indices[2] =
 * 9"), indices and mask both given. */
typedef struct tp_world_select {
    const int32_t *indices; /* [count] world indices, or NULL */
    int count;              /* rows of the index list */
    const uint8_t *mask;    /* [W] non-zero = selected, or NULL */
} tp_world_select;

/* An index list of `count` worlds (indices may be NULL when count is 0: an
 * empty list, which selects no world, unlike NULL), and a mask of W bytes.
 * tp_world_list(NULL, count != 0) and tp_world_mask(NULL) make a selection
 * that every call taking it refuses (TP_ERR_INVALID_ARGUMENT naming the call,
 * nothing changed); a NULL selection pointer is the way to select every world. */
tp_world_select tp_world_list(const int32_t *indices, int count);
tp_world_select tp_world_mask(const uint8_t *mask);

#include "torpor_writes.h" /* writes of one body or one world */

/* One contact point of the last step, as tp_batch_contacts reports it. */
typedef struct tp_contact_info {
    int body_a, body_b;      /* body indices, body_a < body_b */
    float point[3];          /* world frame, m: midway between the two surfaces */
    float normal[3];         /* world frame, unit, from A to B */
    float separation;        /* m, negative when penetrating */
    float normal_force;      /* N, pushing the bodies apart (0 when the row was skipped) */
    float friction_force[2]; /* N, along two tangents orthogonal to the normal */
    uint32_t feature;        /* feature id, stable while the same features touch */
    uint64_t key;            /* contact key: world, body_a, body_b, feature (docs/collision.md) */
} tp_contact_info;

/* Copy up to `capacity` (>= 0) contact points of `world` from the last step, in
 * key order, into out (which may be NULL when capacity is 0); *count gets the
 * number of points there are (which may be more than capacity). Errors:
 * TP_ERR_INVALID_ARGUMENT (NULL batch or count, world out of range,
 * capacity < 0, out NULL with capacity > 0), TP_ERR_CUDA. */
tp_status tp_batch_contacts(tp_batch *batch, int world, tp_contact_info *out, int capacity, int *count);

/* 64-bit FNV-1a hash of one world's state (docs/outputs.md says exactly what
 * goes in), and of the whole batch (FNV-1a over the world hashes in order).
 * Errors: TP_ERR_INVALID_ARGUMENT (NULL, world out of range), TP_ERR_CUDA. */
tp_status tp_batch_world_hash(tp_batch *batch, int world, uint64_t *out);
tp_status tp_batch_state_hash(tp_batch *batch, uint64_t *out);
/* The batch hash of `count` world hashes in order (what tp_batch_state_hash
 * computes from its worlds' hashes): a sharded run's hash from the world
 * hashes of its shards, gathered in global order. count >= 0; 0 for NULL. */
uint64_t tp_world_hashes_combine(const uint64_t *world_hashes, int count);

/* The stages of a world's step, in the order they run (docs/step.md; the
 * library's one list of them is kernels/step.h, which these numbers follow). */
typedef enum tp_stage {
    TP_STAGE_PLAN = 0,       /* faulted, idle or busy; velocities at the start */
    TP_STAGE_COLLIDE = 1,    /* broadphase and narrowphase */
    TP_STAGE_SORT = 2,       /* contacts in key order */
    TP_STAGE_ISLANDS = 3,    /* union-find islands */
    TP_STAGE_WAKE = 4,       /* contact wakes (colliding again where an island woke) */
    TP_STAGE_WARM_START = 5, /* last step's impulses matched to this step's points */
    TP_STAGE_CONSTRAINTS = 6, /* body masses, constraints and their colors, the shock order */
    TP_STAGE_SOLVE = 7,      /* substeps: velocity integration, sweeps, position integration, relax, restitution */
    TP_STAGE_ARTICULATIONS = 8, /* articulation trees stepped, their links published (every world not faulted) */
    TP_STAGE_FINISH = 9,     /* contact forces, applied forces cleared, fault check */
    TP_STAGE_SLEEP = 10,     /* the sleep policy, body_awake and counts */
    TP_STAGE_COUNT = 11
} tp_stage;

/* The stage's name as docs/step.md and the profiler print it ("plan",
 * "collide", ...); NULL for a number outside [0, TP_STAGE_COUNT). The string
 * is static. */
const char *tp_stage_name(tp_stage stage);
/* Thread-seconds spent in each stage since creation, summed over threads
 * (seconds[TP_STAGE_COUNT]); all zero unless the batch was created with
 * profile_stages on the CPU backend. Worlds with nothing awake run only the
 * plan, articulations, finish and sleep stages. Errors: TP_ERR_INVALID_ARGUMENT (NULL). */
tp_status tp_batch_stage_seconds(const tp_batch *batch, double seconds[TP_STAGE_COUNT]);

/* Batched writes, per-world parameters and episodes: torpor_batched.h.
 * Articulations (joints): torpor_joints.h. */
#include "torpor_batched.h"
#include "torpor_joints.h"
#include "torpor_constraints.h" /* constraints between any two bodies */
#include "torpor_movers.h"      /* movers: a push or turn toward a goal on one body */
#include "torpor_sites.h"       /* named frames on bodies */
/* Pictures of worlds as RGB images: torpor_render.h. */
#include "torpor_render.h"
#include "torpor_actuators.h" /* actuators and their controls */
#include "torpor_sensors.h"   /* the IMU of every body */
#include "torpor_keyframes.h" /* named joint states a reset starts from */


/* ---------------------------------------------------------------- info */

/* 1 if the CUDA backend was compiled in. */
int tp_cuda_built(void);
/* Number of CUDA devices usable now (0 without a GPU or without CUDA support);
 * tp_cuda_probe also says why. */
int tp_cuda_device_count(void);

/* ================================================================ command-line support:
 * what the command line needs, the sleep rule on its own, errors in parts,
 * the device probe into a caller's buffer. (One block, to ease merging.) */

/* ---------------------------------------------------------------- model events */

/* Number of scripted events of a model (0 for NULL). */
int tp_model_event_count(const tp_model *model);
/* Copy of event `index` (0-based, in firing order: sorted by time, stable) into
 * *out. out->worlds points into the model (valid while it lives; NULL when the
 * event acts in every world). TP_ERR_INVALID_ARGUMENT for a NULL argument or an
 * index outside [0, tp_model_event_count). */
tp_status tp_model_event(const tp_model *model, int index, tp_event_def *out);

/* The sleep rule on its own (torpor trace): torpor_trace.h. */
#include "torpor_trace.h"

/* The last failure in parts (file, line, column, field, reason): torpor_errors.h. */
#include "torpor_errors.h"

/* MJCF and URDF files read into scenes: torpor_import.h. */
#include "torpor_import.h"

/* ---------------------------------------------------------------- device probe */

/* Number of CUDA devices usable now, as tp_cuda_device_count, and why into
 * message (if not NULL and message_len > 0): "1 device(s)", the CUDA runtime's
 * reason ("no CUDA-capable device is detected"), or "this build has no CUDA
 * backend"; NUL-terminated, truncated to message_len - 1 bytes. Writes only the
 * caller's buffer, so threads may probe at once. */
int tp_cuda_probe(char *message, size_t message_len);

/* ================================================================ end of command-line support block */

#ifdef __cplusplus
}
#endif

#endif
