/* model.h - internals of the immutable model and of its builder. */
#ifndef TP_MODEL_H
#define TP_MODEL_H

#include "error.h"
#include "keyframe_host.h"
#include "site_host.h"
#include "torpor.h"
#include "tp_world.h"
#include "world_init.h"

#include <stddef.h>

struct tp_model {
    tp_model_def def;          /* def.name points at `name` */
    char *name;
    int body_count;            /* bodies per world, static included */
    int dynamic_count;
    tp_body_def *body_defs;    /* [body_count], names point into body_names */
    char **body_names;         /* [body_count] */
    tp_body_model *bodies;     /* [body_count] shape, mass properties, material */
    tp_shape_model *shapes;    /* [shape_total] shapes of the compound bodies (kernels/compound.h); NULL if none */
    tp_shape_def *shape_defs;  /* [shape_total] the definitions they came from (body_defs[i].shapes point here) */
    int shape_total;
    struct tp_poly *hulls;     /* [hull_total] polytopes of the convex shapes (tp_body_model.hull,
                                  tp_shape_model.hull); NULL if none. The vertices of body_defs and
                                  shape_defs are the model's own copies (freed with it). */
    int hull_total;
    tp_body_init *body_init;   /* [body_count] each body as a fresh world has it, before randomization */
    tp_event_def *events;      /* [event_count] sorted by time (stable) */
    int event_count;
    int *event_worlds;         /* storage behind events[i].worlds */
    struct tp_artic_host *artic; /* articulations (csrc/articulation_host.h), NULL without joints */
    struct tp_cons_host *cons;   /* constraints between two bodies (csrc/constraint_host.h), NULL without any */
    struct tp_mover_host *movers; /* movers (csrc/mover_host.h), NULL without any */
    tp_site_list sites;          /* named frames on bodies (csrc/site_model.c) */
    tp_keyframe_list keyframes;  /* named joint states, full arrays (csrc/keyframe_model.c) */
    char *start_keyframe_name;   /* def.randomize.keyframe's copy (def points here), or NULL */
    int start_keyframe;          /* the keyframe every reset starts from, or -1: q0 / qd0 */
};

/* Validation shared by the builder and the scene loader, so a rule lives in one
 * place. On failure they return 0 and write the offending field's path relative
 * to the definition (e.g. "size[1]", "solver.iterations") and the reason
 * ("must be > 0, got -1"); the caller adds where it came from. */
/* (tp_check_fail and CHECK_FAIL: csrc/error.h) */

int tp_model_def_check(const tp_model_def *def, char *field, size_t field_len, char *reason, size_t reason_len);
int tp_body_def_check(const tp_body_def *def, char *field, size_t field_len, char *reason, size_t reason_len);

/* Compound bodies and given mass properties (csrc/body_shapes.c). */
/* The shapes of a compound body (count, each shape's values) and the given
 * centre of mass and inertia; fields named "shapes[i].size[k]", "inertia". */
int tp_body_shapes_check(const tp_body_def *def, char *field, size_t field_len, char *reason, size_t reason_len);
/* Mass (kg) of a compound body at its densities, before `mass` rescales it; 0
 * for a body of one shape. */
double tp_compound_density_mass(const tp_body_def *def);
/* Mass properties of a compound body (def->shape_count >= 1): mass, centre of
 * mass in the body frame and inertia about it (xx yy zz xy xz yz), rescaled to
 * def->mass when it is > 0. Computed in double, rounded once. */
void tp_compound_mass_props(const tp_body_def *def, float *mass, float com[3], float inertia[6]);
/* A shape's `vertices` (path "vertices", or "<at>.vertices" with at
 * "shapes[2]"): for TP_SHAPE_CONVEX the hull must build (csrc/hull.c), for
 * every other shape there must be none. */
int tp_shape_vertices_check(int shape, const float *vertices, int count, const char *at, char *field, size_t field_len,
                            char *reason, size_t reason_len);
/* The shape table entry of one shape definition (orientation normalized). */
void tp_shape_model_from_def(const tp_shape_def *d, tp_shape_model *out);
/* Radius of a compound body's bounding sphere about its origin, m. */
float tp_compound_bound_radius(const tp_body_def *def);
/* The joint (as added) whose child `body` is among a builder's joints so far,
 * or -1; its name to *name (may be NULL). */
int tp_builder_link_joint(const tp_builder *b, int body, const char **name);
/* Index of the builder's constraint called `name` so far, or -1 (scene events name them). */
int tp_builder_find_constraint(const tp_builder *b, const char *name);
int tp_builder_find_mover(const tp_builder *b, const char *name);
/* Index (as added) of the builder's joint called `name`, or -1. */
int tp_builder_find_joint(const tp_builder *b, const char *name);
/* The joints added to a builder so far, as added. */
void tp_builder_joint_defs(const tp_builder *b, const tp_joint_def **defs, int *count);

/* Owned copies (csrc/body_copy.c). A copy of a convex shape's points src
 * [count][3] into *dst (malloc'd), and their hull into *hull (the points have
 * passed tp_body_def_check); 0 when out of memory. */
struct tp_hull;
int tp_points_copy(const float *src, int count, const float **dst, struct tp_hull *hull);
/* Make def own copies of its compound shapes and of every convex shape's
 * vertices (def has passed tp_body_def_check); 0 when out of memory, then
 * nothing is left allocated. */
int tp_body_def_copy_owned(tp_body_def *def);
/* Free what tp_body_def_copy_owned allocated. */
void tp_body_def_free_owned(tp_body_def *def);

/* `body_count` bounds event bodies; `worlds` is unknown at model time, so world
 * indices are only checked to be >= 0 here and against the batch at run time. */
int tp_event_def_check(const tp_event_def *def, int body_count, const tp_body_def *bodies, char *field,
                       size_t field_len, char *reason, size_t reason_len);

/* A constraint's or mover's ends (body0, body1; -1 the world) refused where
 * one is an articulation link: `kind` "constraint" or "mover" called `name`,
 * the scene's item list[k] (placed with tp_fail_item); `advice` ends the error. */
/* Position p (m; an attachment, an align_position's goal) within TP_MAX_SIZE
 * in each component, as a joint's anchor, so its squares stay finite; the
 * error reads "KIND: FIELD: ...". */
tp_status tp_position_check(const float *p, const char *kind, const char *field);
tp_status tp_ends_not_links_check(const tp_model *m, const char *list, int k, const char *kind, const char *name,
                                  int body0, int body1, const char *advice);

#endif
