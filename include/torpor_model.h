/* torpor_model.h - the model: the definitions of its bodies, shapes, events
 * and settings, meshes, and building, loading and querying a model.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_MODEL_H
#define TORPOR_MODEL_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_model.h"
#endif

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

#endif
