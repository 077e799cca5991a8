/* tp_world.h - the data one stage sees of one world.
 *
 * A batch keeps its state world-major (DESIGN.md section 3); a stage works on one
 * world at a time through a tp_world: pointers to that world's slice of every
 * array plus the model's read-only body table. The CPU backend builds one per
 * world in a loop; a CUDA kernel builds one per thread or block. */
#ifndef TP_WORLD_H
#define TP_WORLD_H

#include "tp_math.h"
#include "torpor_types.h"

/* One shape of a compound body (kernels/compound.h), in the model's shape
 * table; read-only, shared by every world. */
typedef struct tp_shape_model {
    uint8_t shape;         /* tp_shape_type */
    float size[3];         /* full extents, m */
    float pos[3];          /* centre of the shape's box in the body frame, m */
    float quat[4];         /* shape to body frame, unit, [x, y, z, w] */
    int32_t hull;          /* TP_SHAPE_CONVEX: its polytope in the model's hull table (tp_world.hulls) */
} tp_shape_model;

/* Read-only description of one template body, shared by every world. */
typedef struct tp_body_model {
    uint8_t type;          /* tp_body_type */
    uint8_t shape;         /* tp_shape_type */
    uint8_t actuated;      /* tp_body_def.actuated: stricter assembly sleep thresholds */
    uint8_t link_flags;    /* TP_LINK_*: of an articulation link's tree */
    float size[3];         /* full extents, m */
    float mass;            /* kg, density x volume (also for static and kinematic bodies, whose
                              inverse mass in the batch is 0) */
    float com[3];          /* centre of mass in the body frame, relative to the body
                              origin (the centre of the shape's box), m */
    float inertia[6];      /* inertia about the centre of mass in the body frame,
                              kg m^2: xx, yy, zz, xy, xz, yz (products of inertia
                              with the sign of the tensor entries) */
    float friction, restitution;
    float bound_radius;    /* radius of the bounding sphere about the body origin, m */
    /* Articulation links (kernels/articulation.h), each stored + 1 so that a
     * zeroed record is "not a link": the link's joint (kernel order), the
     * body of its tree's root link, the body of its parent link (0 at a root). */
    int32_t link, link_root, link_parent;
    uint8_t shape_count;   /* 0: the one shape (shape, size) centred on the origin; n >= 1: a
                              compound body of the shapes [shape_first, shape_first + n) of the
                              world's shape table (shape and size are then unused) */
    int32_t shape_first;
    uint8_t has_filter;            /* 1: contype and conaffinity below apply; 0 (a zeroed record): 1 and 1 */
    uint32_t contype, conaffinity; /* collision filter (tp_body_def): MuJoCo's bitmask rule */
    int32_t exclude[TP_MAX_BODY_EXCLUDES]; /* bodies (+ 1; 0 = none) it never collides with */
    int32_t hull;          /* shape TP_SHAPE_CONVEX: its polytope in the model's hull table (tp_world.hulls) */
} tp_body_model;

/* tp_body_model.link_flags: the link's tree has a fixed base (attached to the
 * world: its island is supported), or drives with non-zero gains or passive
 * springs (it never sleeps: a driven articulation stays awake). */
enum { TP_LINK_FIXED_BASE = 1, TP_LINK_DRIVEN = 2 };

/* Per-body flags in a world (uint8). */
enum { TP_FLAG_REMOVED = 1 };

struct tp_poly;         /* kernels/shapes.h */
struct tp_contact;      /* kernels/contact.h */
struct tp_contact_ref;  /* kernels/contact_cache.h */
struct tp_cons_model;   /* kernels/constraint.h */
struct tp_cons_state;
struct tp_mover_model;  /* kernels/mover.h */
struct tp_mover_state;

/* One world's slice of the batch state; arrays are [bodies][k]. */
typedef struct tp_world {
    int index;                     /* world number */
    int bodies;                    /* bodies per world */
    const tp_body_model *model;    /* [bodies] */
    const tp_shape_model *shapes;  /* the model's shape table (compound bodies); NULL when it has none */
    const struct tp_poly *polys;   /* [bodies] the model's polytopes (tp_build_body_polys, collision.h),
                                      or NULL: the narrowphase builds them per pair (the same bits) */
    const struct tp_poly *hulls;   /* the model's convex hulls (tp_body_model.hull, tp_shape_model.hull);
                                      NULL when it has none */
    float *pos, *quat, *v, *w;     /* [bodies][3], [bodies][4], [bodies][3], [bodies][3] */
    float *force, *torque;         /* accumulated for this step, cleared after it */
    float *inv_mass;               /* [bodies]    0 for static, kinematic, removed */
    float *inv_inertia;            /* [bodies][6] inverse inertia, body frame, xx yy zz xy xz yz */
    float *friction;               /* [bodies]    per world (randomizable) */
    const float *link_com;         /* [J][3] this world's COM offset of each articulation link (kernel
                                      order, link frame, m; added to tp_body_model.com); NULL: none */
    uint8_t *flags;                /* [bodies]    TP_FLAG_* */
    uint8_t *sleep_state;          /* [bodies]    tp_sleep_state */
    uint8_t *body_awake;           /* [bodies] */
    float *quiet_timer;            /* [bodies] */
    float *quiet_v;                /* [bodies][3] velocity when the quiet run began, m/s (sleep.h) */
    float *contact_f;              /* [bodies][3] summed contact force on each body, N */
    int32_t *island;               /* [bodies]    island label (smallest body index), -1 if none */
    int solve_sleeping;            /* sleep.skip_constraints off: sleeping bodies' rows are solved */
    int assembly;                  /* sleep policy assembly: TP_CHECKING bodies are held in place
                                      (kernels/sleep_assembly.h) and not counted awake */
    float dt;                      /* step length, s; > 0 makes speculative margins grow with speed */
    float gravity[3];              /* this world's gravity, m/s^2 */
    /* Last step's contacts (sorted by key) and their manifolds' reference
     * poses, for reusing the manifolds of pairs that have not moved
     * (kernels/contact_cache.h); NULL and 0 outside a step: every pair runs
     * the narrowphase. */
    /* Constraints between two bodies (kernels/constraint.h): this world's copy
     * of the model's table (a winch moves its length) and its state; NULL and 0
     * without any. */
    struct tp_cons_model *cons;
    struct tp_cons_state *cons_state;
    int cons_count;
    /* Movers (kernels/mover.h): the model's table and this world's state;
     * NULL and 0 without any. */
    const struct tp_mover_model *movers;
    struct tp_mover_state *mover_state;
    int mover_count;
    const struct tp_contact *cache_contacts;
    const struct tp_contact_ref *cache_refs;
    int cache_count;
} tp_world;

/* A kinematic body that moves this step (it pushes, and wakes sleepers it meets). */
TP_HD int tp_body_is_moving_kinematic(const tp_world *wd, int b)
{
    if (wd->model[b].type != TP_BODY_KINEMATIC || (wd->flags[b] & TP_FLAG_REMOVED) || !wd->v) return 0;
    const float *v = wd->v + 3 * b, *w = wd->w + 3 * b;
    return v[0] != 0.0f || v[1] != 0.0f || v[2] != 0.0f || w[0] != 0.0f || w[1] != 0.0f || w[2] != 0.0f;
}

/* Joint (kernel order) of the articulation link b, or -1 if b is no link. */
TP_HD int tp_body_link(const tp_world *wd, int b) { return wd->model[b].link - 1; }

/* Body b's centre of mass in its frame (m) in this world: the model's, plus
 * the world's offset if b is an articulation link (tp_world.link_com). Every
 * stage reads a body's COM through this. */
TP_HD tp_vec3 tp_body_com_local(const tp_world *wd, int b)
{
    const tp_body_model *m = &wd->model[b];
    tp_vec3 c = tp_v3_load(m->com);
    if (wd->link_com && m->link) c = tp_add(c, tp_v3_load(wd->link_com + 3 * (m->link - 1)));
    return c;
}

/* The body that stands for b's articulation in coloring and islands (its
 * tree's root link: a tree behaves as one body), or b itself. */
TP_HD int tp_body_unit(const tp_world *wd, int b)
{
    return wd->model[b].link ? wd->model[b].link_root - 1 : b;
}

/* Are a and b links of one tree joined by a joint (parent and child)? Such a
 * pair never collides. (tp_models_*: the same rule on the body models alone.) */
TP_HD int tp_models_adjacent(const tp_body_model *model, int a, int b)
{
    const tp_body_model *ma = &model[a], *mb = &model[b];
    return ma->link && mb->link && (ma->link_parent == b + 1 || mb->link_parent == a + 1);
}

TP_HD int tp_links_adjacent(const tp_world *wd, int a, int b) { return tp_models_adjacent(wd->model, a, b); }

/* Are a and b joined by a constraint (kernels/constraint.h)? Such a pair never
 * collides, as a joint's two parts do not by default in most engines. */
TP_HD int tp_bodies_constrained(const tp_world *wd, int a, int b);

/* May bodies a and b collide at all? The bitmask rule
 * (contype_a & conaffinity_b) || (contype_b & conaffinity_a), as MuJoCo
 * filters geoms, then the pairs excluded by tp_builder_exclude_pair, then
 * the pairs joined by a constraint (tp_models_filtered: all but the last,
 * from the body models alone). */
TP_HD int tp_models_filtered(const tp_body_model *model, int a, int b)
{
    const tp_body_model *ma = &model[a], *mb = &model[b];
    uint32_t ta = ma->has_filter ? ma->contype : 1u, aa = ma->has_filter ? ma->conaffinity : 1u;
    uint32_t tb = mb->has_filter ? mb->contype : 1u, ab = mb->has_filter ? mb->conaffinity : 1u;
    if (!(ta & ab) && !(tb & aa)) return 1;
    for (int k = 0; k < TP_MAX_BODY_EXCLUDES && ma->exclude[k]; ++k)
        if (ma->exclude[k] == b + 1) return 1;
    return 0;
}

TP_HD int tp_bodies_filtered(const tp_world *wd, int a, int b)
{
    return tp_models_filtered(wd->model, a, b) || tp_bodies_constrained(wd, a, b);
}

/* An articulation link that is awake (its tree is stepped and solved). */
TP_HD int tp_link_is_awake(const tp_world *wd, int b)
{
    return wd->model[b].link && !(wd->flags[b] & TP_FLAG_REMOVED) && wd->sleep_state[b] != TP_SLEEPING;
}

/* A body takes part in collision and the solver: dynamic, present, and awake
 * (or asleep while skip_constraints is off, so its contacts report forces; a
 * sleeping body is still never integrated). */
TP_HD int tp_body_is_simulated(const tp_world *wd, int b)
{
    return wd->model[b].type == TP_BODY_DYNAMIC && !(wd->flags[b] & TP_FLAG_REMOVED) &&
           (wd->sleep_state[b] != TP_SLEEPING || wd->solve_sleeping);
}

/* Does a body in sleep state st move (integrated, counted awake)? Awake, and
 * sleep-checking under the island policy (its quiet timer runs), not under
 * the assembly policy (held in place while its acceleration is measured:
 * kernels/sleep_assembly.h). */
TP_HD int tp_state_moves(const tp_world *wd, uint8_t st)
{
    return st != TP_SLEEPING && !(wd->assembly && st == TP_CHECKING);
}

/* A body that can belong to an island: dynamic and present, or, under the
 * island policy, an articulation link (the links of a tree are one island:
 * kernels/islands.h). */
TP_HD int tp_body_in_islands(const tp_world *wd, int b)
{
    return (wd->model[b].type == TP_BODY_DYNAMIC || (wd->model[b].link && !wd->assembly)) &&
           !(wd->flags[b] & TP_FLAG_REMOVED);
}

/* The constraints' table and tp_bodies_constrained. */
#include "constraint.h"

#endif
