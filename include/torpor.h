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
 * shape notes below): for a box, ball, cylinder and capsule that is the centre
 * of mass; for a wedge, a corner wedge and a convex hull the centre of mass
 * lies off it (a hull's origin is that of its vertices).
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

/* ---------------------------------------------------------------- definitions */

typedef struct tp_solver_def {
    int iterations;              /* PGS sweeps per substep, >= 1 (default 8) */
    tp_solver_mode mode;         /* colored (default) or serial (the reference) */
    float restitution_threshold; /* m/s; restitution only above this normal speed (default 1) */
    int warm_starting;           /* reuse last step's impulses, matched by contact key, and the manifolds
                                    of pairs that moved less than 5 micrometres and 0.005 degrees
                                    relative to each other since they were found (kernels/contact_cache.h); 0: a step
                                    depends on the bodies' state alone (default 1) */
} tp_solver_def;

typedef struct tp_sleep_def {
    int enabled;                      /* default 1 */
    tp_sleep_policy policy;           /* default island */
    float linear_threshold;           /* m/s, default 0.05 */
    float angular_threshold;          /* rad/s (or m/s for surface speed), default 0.15 */
    float quiet_time;                 /* s, default 0.5 */
    tp_angular_measure angular_measure;
    float accel_threshold;            /* m/s^2, default 0.24; 0 disables the guard */
    int require_support;              /* default 1 */
    int skip_constraints;             /* default 1 */
    tp_assembly_def assembly;         /* used when policy is assembly */
} tp_sleep_def;

/* Per-world randomization, drawn from Philox4x32-10 keyed on (seed, world, body,
 * stream) so world w gets the same numbers at any world count (DESIGN.md 5).
 * Every world, world 0 included, draws its own numbers. */
typedef struct tp_randomize_def {
    uint64_t seed;       /* default 1 */
    float pos_noise;     /* m; x and y offsets uniform in [-pos_noise, pos_noise] (default 0) */
    float yaw_noise_deg; /* degrees; yaw uniform in [-yaw_noise_deg, yaw_noise_deg] (default 0) */
    /* Mass scale of each dynamic body, uniform in [mass_scale[0], mass_scale[1]]
     * (finite, 0 < lo <= hi; default [1, 1] = off), Philox stream 1: the
     * body's inverse mass and inverse inertia in that world are divided by it. */
    float mass_scale[2];
    /* If has_friction_range is set, the friction of each body (static ones
     * included) in each world is uniform in [friction_range[0], friction_range[1]]
     * (finite, 0 <= lo <= hi), Philox stream 2, replacing the body's own. */
    int has_friction_range;
    float friction_range[2];
    /* Joint-state noise of articulations (docs/articulations.md, "Randomization"):
     * each revolute and prismatic joint starts at q0 + dq and qd0 + dqd (or the
     * keyframe's q and qd, below, for q0 and qd0), drawn
     * per world and episode (Philox streams 3 and 4 keyed on the joint's index):
     * uniform in [-a, a], or normal with standard deviation a if
     * joint_noise_normal; q is then kept within the joint's limits. */
    float joint_q_noise;  /* rad or m, finite, >= 0 (default 0 = off) */
    float joint_qd_noise; /* rad/s or m/s, finite, >= 0 (default 0 = off) */
    int joint_noise_normal; /* 0 uniform (default), 1 normal */
    /* The keyframe (tp_builder_add_keyframe) every reset, batch creation
     * included, starts the joints and controls from, the joint noise drawn
     * around it; NULL (default): q0 / qd0, controls 0. Copied; a name no
     * keyframe has fails tp_builder_finish. */
    const char *keyframe;
    /* Per-world robot parameters (docs/articulations.md, "Randomization"): each
     * joint's damping, armature and friction loss, and each actuator's gear,
     * kp and kv, is the model's value times a scale uniform in [lo, hi],
     * drawn per world and episode (Philox streams 5 to 10 keyed on the joint's
     * or actuator's index as added). Finite, 0 <= lo <= hi (gear: 0 < lo);
     * default [1, 1] = off. kp acts on position actuators, kv on position
     * and velocity ones (the others have none). */
    float joint_damping_scale[2];
    float joint_armature_scale[2];
    float joint_friction_scale[2];
    float actuator_gear_scale[2];
    float actuator_kp_scale[2];
    float actuator_kv_scale[2];
    /* Link COM offsets (docs/articulations.md, "Randomization"): each
     * articulation link's centre of mass moves in its own frame by d, component
     * k uniform in [-link_com_offset[k], link_com_offset[k]] (m, finite, in
     * [0, TP_MAX_SIZE]; default 0 = off), drawn per world and episode (Philox
     * stream 11 keyed on the link's body). The inertia about the centre of mass
     * stays the model's. */
    float link_com_offset[3];
} tp_randomize_def;

typedef struct tp_model_def {
    const char *name;            /* scene name (copied), default "scene" */
    float gravity[3];            /* m/s^2, each component in [-500, 500]; default (0, 0, -9.81) */
    float dt;                    /* s, > 0; default 1/60 */
    int substeps;                /* >= 1; default 4 */
    tp_solver_def solver;
    tp_sleep_def sleep;
    tp_randomize_def randomize;
} tp_model_def;

/* One shape of a compound body (tp_body_def.shapes; docs/scene-format.md,
 * "Compound bodies"). A compound body's frame is its own: `pos` and `quat`
 * place the centre of the shape's box in it. At most TP_MAX_BODY_SHAPES
 * (torpor_types.h) shapes in one body. */
typedef struct tp_shape_def {
    tp_shape_type shape;   /* default box */
    float size[3];         /* m, full extents (as a body's size; default 1, 1, 1) */
    float pos[3];          /* m, centre of the shape's box in the body frame (default 0) */
    float quat[4];         /* [x, y, z, w] shape to body frame, normalized on build (default identity) */
    float density;         /* kg/m^3, > 0; 0 = the body's density (default 0) */
    /* TP_SHAPE_CONVEX: the points whose convex hull is the shape, [vertex_count][3],
     * m, in the shape's frame (copied at tp_builder_add_body; `size` is then set
     * from them, see tp_shape_type). Errors name the shape: fewer than 4 points,
     * a non-finite coordinate, all points on a plane or a line (no volume), more
     * than TP_MAX_MESH_VERTICES points, a hull past TP_MAX_HULL_*. Other shapes:
     * must be NULL / 0. */
    const float *vertices;
    int vertex_count;
    int sensor;            /* 0 or 1: a contact sensor (include/torpor_sensors.h; default 0) */
} tp_shape_def;

typedef struct tp_body_def {
    const char *name;      /* unique within the model (copied); NULL gives "body<index>";
                              not TP_WORLD_NAME */
    tp_body_type type;     /* default dynamic */
    tp_shape_type shape;   /* default box */
    float size[3];         /* m, full extents, each > 0 (default 1, 1, 1) */
    float pos[3];          /* m, centre of the shape's box (compound: origin of the body frame) */
    float quat[4];         /* [x, y, z, w], normalized on load (default identity) */
    float vel[3];          /* m/s */
    float ang_vel[3];      /* rad/s */
    float density;         /* kg/m^3, > 0 (default 1000); used when mass == 0 */
    float mass;            /* kg; > 0 overrides density, 0 = use density */
    float friction;        /* >= 0 (default 0.6) */
    float restitution;     /* [0, 1] (default 0) */
    /* TP_SHAPE_CONVEX: [vertex_count][3], m, in the body frame; copied; the shape
     * is their convex hull (see tp_shape_type and tp_shape_def.vertices for
     * `size` and the errors). Other shapes: NULL / 0 (default). */
    const float *vertices;
    int vertex_count;
    int actuated;          /* 0 or 1: driven by an actuator; the assembly policy uses
                              sleep.assembly.actuated_factor x its velocity thresholds (default 0) */
    /* Compound body: shape_count in [1, TP_MAX_BODY_SHAPES] shapes (copied) replace
     * `shape` and `size`; pos is then the body frame's origin. Mass is the sum of
     * density x volume of the shapes (overlaps count twice), the centre of mass
     * and the inertia follow by the parallel-axis theorem; `mass` rescales them.
     * 0 (default): the one shape `shape`, `size`, centred on the origin. */
    const tp_shape_def *shapes;
    int shape_count;
    /* Given mass properties, replacing those of the shapes: the centre of mass
     * (m, body frame, from the origin) and the inertia about it (kg m^2, body
     * frame: xx, yy, zz, xy, xz, yz, the tensor's entries), each used when its
     * flag is 1 (default 0). The inertia must be positive definite. */
    int has_com;
    float com[3];
    int has_inertia;
    float inertia[6];
    /* Collision filter, MuJoCo's rule: bodies a and b collide only if
     * (contype_a & conaffinity_b) != 0 or (contype_b & conaffinity_a) != 0
     * (each >= 0; default 1 and 1: everything collides). 0 and 0: the body
     * touches nothing (a visual or a massless placeholder link). */
    int contype, conaffinity;
    /* 0 or 1: the body's one shape is a contact sensor (include/torpor_sensors.h;
     * a compound body marks its shapes instead, tp_shape_def.sensor; default 0). */
    int sensor;
} tp_body_def;

/* Scripted events, applied before the first step that starts at or after `time`. */
typedef enum tp_event_action {
    TP_EVENT_IMPULSE, TP_EVENT_ANGULAR_IMPULSE, TP_EVENT_FORCE, TP_EVENT_SET_VELOCITY,
    TP_EVENT_SET_ANGULAR_VELOCITY, TP_EVENT_TELEPORT, TP_EVENT_GRAVITY, TP_EVENT_REMOVE,
    TP_EVENT_WAKE, TP_EVENT_SLEEP, TP_EVENT_RESET,
    TP_EVENT_CONSTRAINT, /* writes one parameter of one constraint (tp_constraint_param): value[0] */
    TP_EVENT_MOVER,      /* writes one mover's target and/or enabled flag (include/torpor_movers.h) */
    TP_EVENT_ACTION_COUNT
} tp_event_action;

typedef struct tp_event_def {
    double time;            /* s, >= 0 */
    tp_event_action action;
    int body;               /* body index, or -1 where the action takes none (gravity, reset) */
    float value[3];         /* the vector: impulse N s, force N, velocity, gravity m/s^2 */
    float pos[3];           /* teleport: new position (m) */
    float quat[4];          /* teleport: new orientation, if has_quat */
    int has_quat;
    double duration;        /* force: seconds it acts (>= 0; 0 = one step) */
    const int *worlds;      /* worlds it acts in (copied; global indices of a sharded run,
                               tp_batch_def.first_world); NULL = all worlds */
    int world_count;
    int constraint;         /* constraint: its index (include/torpor_constraints.h) */
    int param;              /* constraint: a tp_constraint_param; the value is value[0] (checked as
                               tp_batch_set_constraint_params checks it) */
    int mover;              /* mover: its index (include/torpor_movers.h) */
    int has_target;         /* mover: 1: write target (a row of tp_batch_set_mover_targets, checked as it checks) */
    float target[4];
    int enabled;            /* mover: 0 or 1 written, -1 (default): unchanged; with has_target, at least one */
} tp_event_def;

const char *tp_event_action_name(tp_event_action action);

tp_model_def tp_default_model_def(void);
tp_body_def tp_default_body_def(void);
tp_shape_def tp_default_shape_def(void);
tp_assembly_def tp_default_assembly_def(void);
tp_event_def tp_default_event_def(void);

/* ---------------------------------------------------------------- meshes */

/* Read the vertices of a triangle mesh file, for TP_SHAPE_CONVEX: STL (binary,
 * or ASCII starting with "solid" and holding "facet"/"vertex" lines) or
 * Wavefront OBJ (its "v x y z" lines; faces and everything else are not
 * needed for a hull and are skipped). The format is told by content, not by
 * the file name. *out_vertices gets a malloc'd [*out_count][3] array of
 * floats (m, the file's numbers as they are; STL repeats a vertex once per
 * triangle that uses it, which the hull does not mind), to be freed with
 * tp_mesh_free. Errors: TP_ERR_INVALID_ARGUMENT (a NULL argument), TP_ERR_IO
 * (the file cannot be opened or read: "path: reason"), TP_ERR_PARSE ("path:
 * reason" for binary STL, e.g. truncated: the header promises n triangles,
 * the file holds m; "path:line: reason" for the text formats, a number that
 * does not parse or is not finite), TP_ERR_CAPACITY (more than
 * TP_MAX_MESH_VERTICES vertices), TP_ERR_OUT_OF_MEMORY. A file with no
 * vertex at all is TP_ERR_PARSE. On failure *out_vertices is NULL and
 * *out_count 0. */
tp_status tp_mesh_read(const char *path, float **out_vertices, int *out_count);
void tp_mesh_free(float *vertices); /* NULL is allowed */

/* ---------------------------------------------------------------- model */

typedef struct tp_builder tp_builder;
typedef struct tp_model tp_model;

/* Start a model from a definition (NULL: tp_default_model_def()). Errors:
 * TP_ERR_INVALID_ARGUMENT (out NULL, or a value of def out of range, named),
 * TP_ERR_OUT_OF_MEMORY. */
tp_status tp_builder_create(const tp_model_def *def, tp_builder **out);
/* Add a body; its index (0-based, in order of addition) goes to *out_index
 * (which may be NULL). Errors: TP_ERR_INVALID_ARGUMENT (a NULL argument, a
 * value out of range or past the TP_MIN_* / TP_MAX_* bounds, a duplicate
 * name; the message names the field), TP_ERR_CAPACITY (more than
 * TP_MAX_BODIES_PER_WORLD bodies), TP_ERR_OUT_OF_MEMORY. */
tp_status tp_builder_add_body(tp_builder *builder, const tp_body_def *def, int *out_index);
/* Add a scripted event. Errors: TP_ERR_INVALID_ARGUMENT (a NULL argument, a
 * bad value, a body that does not exist or is not dynamic where the action
 * needs one), TP_ERR_OUT_OF_MEMORY. */
tp_status tp_builder_add_event(tp_builder *builder, const tp_event_def *def);
/* Bodies a and b never collide (as MuJoCo's <contact><exclude>, and as a parent
 * and child link already never do). A body may be named in at most
 * TP_MAX_BODY_EXCLUDES pairs (torpor_types.h). Errors: TP_ERR_INVALID_ARGUMENT
 * (NULL, a body out of range, a == b), TP_ERR_CAPACITY (a body past
 * TP_MAX_BODY_EXCLUDES pairs), TP_ERR_OUT_OF_MEMORY. A pair given twice is
 * kept once. */
tp_status tp_builder_exclude_pair(tp_builder *builder, int a, int b);
/* Compile the builder into an immutable model. The builder stays valid and
 * must still be destroyed. Errors: TP_ERR_INVALID_ARGUMENT (a NULL argument,
 * no bodies), TP_ERR_OUT_OF_MEMORY. */
tp_status tp_builder_finish(const tp_builder *builder, tp_model **out);
void tp_builder_destroy(tp_builder *builder); /* NULL is allowed */

/* Load a scene file (JSON, format "torpor-scene", versions 1 and 2; see docs/scene-format.md),
 * or a robot in MJCF or URDF, recognised by its root element (<mujoco>, <robot>)
 * and read through tp_import_scene (torpor_import.h, docs/import.md).
 * Errors: TP_ERR_IO if it cannot be read, TP_ERR_PARSE with
 * "file:line:col: path: reason" (in parts: tp_last_error_info), TP_ERR_CAPACITY,
 * TP_ERR_OUT_OF_MEMORY, TP_ERR_INVALID_ARGUMENT for a NULL argument. On success
 * the thread's last error is cleared. */
tp_status tp_model_load(const char *path, tp_model **out);
/* The same from a string; `source` names it in messages (NULL: "<string>"). */
tp_status tp_model_load_string(const char *json, const char *source, tp_model **out);
/* The same from `len` bytes of `text` (no NUL needed after them; NULL text
 * only with len 0): a NUL byte among them is TP_ERR_PARSE naming its offset
 * and line:col (a scene is JSON text; a C string would end there). */
tp_status tp_model_load_buffer(const char *text, size_t len, const char *source, tp_model **out);
/* The largest scene a load reads, bytes (64 MiB; the largest scene in scenes/
 * is under 1 MiB): a file, string or buffer past it is TP_ERR_CAPACITY, refused
 * after reading at most this much (a stream such as /dev/zero included). */
#define TP_MAX_SCENE_BYTES 67108864
void tp_model_destroy(tp_model *model); /* NULL is allowed; no batch of it may remain */

/* Queries of a model never fail: a NULL model or an index out of range gives
 * NULL, 0 or -1. Returned names live as long as the model. */
const char *tp_model_name(const tp_model *model);
int tp_model_body_count(const tp_model *model);         /* bodies per world, static included */
int tp_model_dynamic_body_count(const tp_model *model); /* dynamic bodies per world, articulation links included */
/* Index of the body named `name`, or -1. */
int tp_model_find_body(const tp_model *model, const char *name);
const char *tp_model_body_name(const tp_model *model, int body);
/* Copy of the definitions the model was built from (name pointers, a
 * compound body's `shapes` and a convex shape's `vertices` stay owned by the
 * model; the body's quat as normalized on load; a convex shape's size as the
 * builder set it). tp_model_settings of
 * NULL gives the defaults. Errors of the tp_status calls:
 * TP_ERR_INVALID_ARGUMENT (NULL, body out of range). */
tp_model_def tp_model_settings(const tp_model *model);
tp_status tp_model_body(const tp_model *model, int body, tp_body_def *out);
/* Mass (kg) and the diagonal of the inertia tensor (kg m^2, about the centre
 * of mass along local x, y, z) of a body in the template. */
tp_status tp_model_body_mass(const tp_model *model, int body, float *mass, float inertia[3]);
/* Centre of mass (m, body frame, from the body origin) and the whole inertia
 * tensor about it (kg m^2, body frame: xx, yy, zz, xy, xz, yz, the tensor's
 * entries) of a body in the template; either pointer may be NULL. */
tp_status tp_model_body_inertia(const tp_model *model, int body, float com[3], float inertia[6]);
/* Pairs of bodies that start inside one another in the template (no
 * randomization, joints at their initial values), which the solver would push
 * apart in the first steps: one line per pair deeper than the solver's slop
 * (0.5 mm), naming both bodies and the depth (mm) from the narrowphase, into
 * *out_warnings (NULL when there are none; free with tp_free). Pairs a step
 * never collides are skipped: contype/conaffinity filtered, excluded, a
 * joint's parent and child, two static bodies. The broadphase bounds the
 * pairs checked. tp_cli_load_scene prints them. Errors: TP_ERR_INVALID_ARGUMENT
 * (NULL), TP_ERR_OUT_OF_MEMORY. */
tp_status tp_model_overlaps(const tp_model *model, char **out_warnings);

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
