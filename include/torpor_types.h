/* torpor_types.h - the constants, enums and plain settings that the step's
 * kernels (kernels/) share with the public API: capacities and bounds, body,
 * shape and sleep enums, the assembly sleep thresholds. Included by torpor.h;
 * the kernels include this alone. */
#ifndef TORPOR_TYPES_H
#define TORPOR_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Capacities fixed by the 64-bit contact key (world 17 bits, bodies 15 bits
 * each, feature 17 bits; docs/collision.md). Larger batches are refused. */
#ifndef TP_MAX_WORLDS
#define TP_MAX_WORLDS 131071
#endif
#ifndef TP_MAX_BODIES_PER_WORLD
#define TP_MAX_BODIES_PER_WORLD 32768
#endif

/* Shapes of one compound body; bodies one body may exclude from collision
 * (tp_builder_exclude_pair); the speed past which a world faults (m/s,
 * tp_batch_step). */
#define TP_MAX_BODY_SHAPES 8
#define TP_MAX_BODY_EXCLUDES 6
#define TP_MAX_SPEED 1.0e4f

/* The name a scene's joints use for the world ("parent": "world"): no body may have it. */
#define TP_WORLD_NAME "world"

/* Bounds of the definitions (checked by the builder and the scene loader; the
 * reason for each is in docs/scene-format.md, "Bounds"): a body's extents
 * (m); a dynamic body's mass, given or density x volume (kg); the step dt (s);
 * the randomized mass scale. */
#define TP_MIN_SIZE 1e-4f
#define TP_MAX_SIZE 1e4f
#define TP_MIN_MASS 1e-9f
#define TP_MAX_MASS 1e15f
#define TP_MIN_DT 1e-30f
#define TP_MAX_DT 1.0f
#define TP_MIN_MASS_SCALE 0.01f
#define TP_MAX_MASS_SCALE 100.0f

/* Capacities of a convex hull (TP_SHAPE_CONVEX), fixed by the 17-bit contact
 * feature ids (docs/collision.md, "Feature ids": 5 bits name a vertex or a
 * face, 6 an edge) and by the narrowphase's fixed-size polytope: at most
 * TP_MAX_HULL_VERTICES vertices, TP_MAX_HULL_FACES faces (coplanar facets
 * merged into one polygon) of at most TP_MAX_HULL_FACE_VERTICES vertices each.
 * A hull past any of them is refused at build with a message naming the body,
 * the count and the cap; simplify the mesh first (fewer vertices). The input
 * may hold any number of points (up to TP_MAX_MESH_VERTICES): only the
 * hull's own vertices count. */
#define TP_MAX_HULL_VERTICES 32
#define TP_MAX_HULL_FACES 32
#define TP_MAX_HULL_FACE_VERTICES 16
#define TP_MAX_MESH_VERTICES 1000000

/* ---------------------------------------------------------------- enums */

typedef enum tp_body_type { TP_BODY_DYNAMIC = 0, TP_BODY_STATIC = 1, TP_BODY_KINEMATIC = 2 } tp_body_type;

/* Shapes fill a box of full extents `size` (local x, y, z), DESIGN.md section 2:
 *   BOX           fills it;
 *   BALL          diameter = min(size);
 *   CYLINDER      axis along local x, length size.x, diameter min(size.y, size.z);
 *   CAPSULE       axis along local x, total length size.x (hemispherical ends
 *                 included), diameter min(size.y, size.z);
 *   WEDGE         a box cut by a slope: full bottom face (-z) and tall back face
 *                 (-y); the slope runs from the top of the back face down to the
 *                 bottom front edge (+y). (The source document's y-up wedge with
 *                 its back at +Z, turned +90 degrees about x into our z-up frame.)
 *   CORNER_WEDGE  a pyramid over the full bottom face with its apex above the
 *                 (+x, +y) corner at the top: the wedge's slope cut in two;
 *   CONVEX        the convex hull of the definition's `vertices` (given in the
 *                 body frame, or the shape's frame in a compound body: `pos`
 *                 and `quat` place that frame, the vertices are not moved).
 *                 `size` is not read: the builder sets it to twice the largest
 *                 |coordinate| of the vertices along each axis, the box centred
 *                 on the origin that holds the hull, so "the centre of the
 *                 shape's box" is the vertices' origin. The centre of mass is
 *                 the hull's own (tp_model_body_inertia). Hull: qhull (Barber,
 *                 Dobkin and Huhdanpaa, "The Quickhull algorithm for convex
 *                 hulls", ACM TOMS 1996) at build time, its coplanar facets
 *                 merged into polygons; docs/collision.md, "Convex hulls". */
typedef enum tp_shape_type {
    TP_SHAPE_BOX = 0,
    TP_SHAPE_BALL = 1,
    TP_SHAPE_CYLINDER = 2,
    TP_SHAPE_CAPSULE = 3,
    TP_SHAPE_WEDGE = 4,
    TP_SHAPE_CORNER_WEDGE = 5,
    TP_SHAPE_CONVEX = 6,
    TP_SHAPE_COUNT = 7
} tp_shape_type;

typedef enum tp_solver_mode { TP_SOLVER_COLORED = 0, TP_SOLVER_SERIAL = 1 } tp_solver_mode;
typedef enum tp_sleep_policy { TP_SLEEP_ISLAND = 0, TP_SLEEP_ASSEMBLY = 1 } tp_sleep_policy;
typedef enum tp_angular_measure { TP_ANGULAR_RAD_PER_S = 0, TP_ANGULAR_SURFACE_SPEED = 1 } tp_angular_measure;
/* Sleep state of a body, as stored in the state arrays (uint8). TP_CHECKING
 * means, under the island policy, an awake body whose quiet timer runs (it is
 * simulated); under the assembly policy, a sleep-checking body: at rest beside
 * an awake one, held in place and not integrated (docs/sleep-policies.md). */
typedef enum tp_sleep_state { TP_AWAKE = 0, TP_SLEEPING = 1, TP_CHECKING = 2 } tp_sleep_state;
typedef enum tp_backend { TP_BACKEND_CPU = 0, TP_BACKEND_CUDA = 1, TP_BACKEND_AUTO = 2 } tp_backend;
/* The CPU contact sweeps' vector width (docs/solver.md, "Wide sweeps on the
 * CPU"); every choice gives the same bits. AUTO: the environment variable
 * TORPOR_SIMD (off, sse2, avx2, auto) if set, else the widest the CPU has. */
typedef enum tp_simd { TP_SIMD_AUTO = 0, TP_SIMD_OFF = 1, TP_SIMD_SSE2 = 2, TP_SIMD_AVX2 = 3 } tp_simd;

/* Thresholds of the assembly sleep policy (docs/sleep-policies.md).
 * Speeds in m/s, accelerations in m/s^2; "rotational" ones are measured at the
 * body's bounding sphere: |w| r and |dw/dt| r, r = bounding radius (m). The
 * defaults are the document's table, its studs taken as metres. */
typedef struct tp_assembly_def {
    float linear_velocity;               /* awake -> asleep below this speed (default 0.33) */
    float rotational_velocity;           /* ... and below this |w| r (default 0.42) */
    float linear_acceleration;           /* ... and below this |dv/dt| (default 0.24) */
    float rotational_acceleration;       /* ... and below this |dw/dt| r (default 0.24) */
    float neighbour_linear_velocity;     /* a checking body wakes when an awake neighbour is faster (0.48) */
    float neighbour_rotational_velocity; /* ... or turns faster, |w| r of the neighbour (default 0.59) */
    float wake_linear_acceleration;      /* a checking body wakes above this |dv/dt| (default 16.9) */
    float wake_rotational_acceleration;  /* ... or above this |dw/dt| r (default 16.9) */
    float collision_wake_speed;          /* touching a body faster than this wakes (default 1) */
    float actuated_factor;               /* velocity thresholds x this for actuated bodies, (0, 1] (default 0.1) */
    float quiet_time;                    /* s the sleep test must hold before a body sleeps (default 0.3) */
} tp_assembly_def;

/* Constraint types and actuators (include/torpor_constraints.h describes them). */
typedef enum tp_constraint_type {
    TP_CONSTRAINT_WELD = 0, TP_CONSTRAINT_HINGE = 1, TP_CONSTRAINT_PRISMATIC = 2, TP_CONSTRAINT_BALL = 3,
    TP_CONSTRAINT_ROPE = 4, TP_CONSTRAINT_SPRING = 5, TP_CONSTRAINT_ROD = 6, TP_CONSTRAINT_TYPE_COUNT = 7
} tp_constraint_type;

typedef enum tp_constraint_actuator {
    TP_CONS_FREE = 0, TP_CONS_MOTOR = 1, TP_CONS_SERVO = 2
} tp_constraint_actuator;

/* Mover types, the frame their numbers are read in, and LinearVelocity's
 * modes (include/torpor_movers.h describes them). */
typedef enum tp_mover_type {
    TP_MOVER_ALIGN_POSITION = 0, TP_MOVER_ALIGN_ORIENTATION = 1, TP_MOVER_LINEAR_VELOCITY = 2,
    TP_MOVER_ANGULAR_VELOCITY = 3, TP_MOVER_VECTOR_FORCE = 4, TP_MOVER_TORQUE = 5, TP_MOVER_TYPE_COUNT = 6
} tp_mover_type;

typedef enum tp_mover_frame {
    TP_FRAME_WORLD = 0, TP_FRAME_ATTACHMENT0 = 1, TP_FRAME_ATTACHMENT1 = 2
} tp_mover_frame;

typedef enum tp_velocity_mode {
    TP_VELOCITY_LINE = 0, TP_VELOCITY_PLANE = 1, TP_VELOCITY_VECTOR = 2
} tp_velocity_mode;

/* A rope's ends parting slower than this (m/s) when it snaps taut do not bounce. */
#define TP_ROPE_NO_BOUNCE_SPEED 0.5f

#endif
