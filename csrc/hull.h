/* hull.h - the convex hull of a convex shape's points (TP_SHAPE_CONVEX), on
 * the host: its collision polytope, its mass properties and its box. */
#ifndef TP_HULL_H
#define TP_HULL_H

#include "shapes.h"

#include <stddef.h>

typedef struct tp_hull {
    tp_poly poly;       /* the polytope, in the points' frame, with canonical numbering (hull.c) */
    double volume;      /* m^3 */
    float com[3];       /* centre of mass of the solid hull, m, the points' frame */
    float inertia[6];   /* about com per unit density (m^5): xx yy zz xy xz yz, tensor signs */
    float size[3];      /* 2 max |coordinate| of the hull's vertices per axis, m */
    float bound_radius; /* largest |vertex|, m */
} tp_hull;

/* The points [count][3] (m) as doubles (malloc'd, free()) if a hull can be
 * built of them, else NULL with the reason: fewer than 4, more than
 * TP_MAX_MESH_VERTICES, a coordinate not finite or past TP_MAX_SIZE / 2, no
 * volume (all on a line or a plane), out of memory. */
double *tp_hull_check_points(const float *points, int count, char *reason, size_t reason_len);

/* The convex hull of points [count][3] (m). Returns 1, or 0 with the reason in
 * `reason` (fewer than 4 points, a non-finite coordinate, no volume: all
 * points on a line or a plane, a hull past TP_MAX_HULL_*, qhull's own error). */
int tp_hull_build(const float *points, int count, tp_hull *out, char *reason, size_t reason_len);

/* The convex hull of any number of points, uncapped: how many
 * of them are its vertices, its volume (m^3), centre of mass (m) and inertia
 * about it per unit density (m^5, xx yy zz xy xz yz, tensor signs), in double
 * (hull_simplify.c). */
typedef struct tp_hull_measure {
    int vertex_count;
    double volume;
    double com[3];
    double inertia[6];
} tp_hull_measure;

/* Measure the hull of points [count][3]; its vertices' input indices, in
 * increasing order, into *vertex_ids (malloc'd, free()) if not NULL. Returns
 * 1, or 0 with the reason (those of tp_hull_check_points, or qhull's). */
int tp_hull_measure_points(const float *points, int count, tp_hull_measure *out, int **vertex_ids, char *reason,
                           size_t reason_len);

/* Points whose hull fits TP_MAX_HULL_*: the hull's own vertices when their
 * hull fits, else a subset of them chosen by farthest-point insertion (start
 * from the largest tetrahedron the extreme points span, add the vertex
 * farthest outside the current hull while the hull stays within the caps).
 * *out [*out_count][3] malloc'd (free()), in input order. Returns 1, or 0 with
 * the reason (as tp_hull_measure_points). */
int tp_hull_simplify(const float *points, int count, float **out, int *out_count, char *reason, size_t reason_len);

/* Volume (m^3), centre of mass (m) and inertia about it per unit density of
 * one shape: from the hull for TP_SHAPE_CONVEX (whose points must already have
 * passed tp_hull_build), else tp_shape_mass_props of shape and size. */
void tp_shape_unit_mass_props(int shape, const float *size, const float *points, int count, float *volume,
                              float com[3], float inertia[6]);

#endif
