/* import_geoms.h - a collision primitive as MJCF and URDF describe it (radii
 * and half sizes; capsules and cylinders along local z), its mass properties,
 * and the torpor shape that stands for it (full extents; capsules and
 * cylinders along local x). Internal to the library. */
#ifndef TP_IMPORT_GEOMS_H
#define TP_IMPORT_GEOMS_H

#include "import_frames.h"

#include <jansson.h>
#include <stddef.h>

typedef enum ig_kind { IG_PLANE, IG_SPHERE, IG_CAPSULE, IG_ELLIPSOID, IG_CYLINDER, IG_BOX, IG_MESH, IG_KIND_COUNT } ig_kind;

typedef struct ig_geom {
    ig_kind kind;
    /* sphere: radius; capsule, cylinder: radius, half length of the straight
     * part along z; box, ellipsoid: half extents; plane: half extents x, y (0: infinite) */
    double size[3];
    fr_pose pose; /* in the body frame */
} ig_geom;

/* Volume, m^3 (0 for a plane), and the inertia per unit mass about the
 * centre along the geom's axes (kg m^2 / kg). */
double ig_volume(const ig_geom *g);
void ig_unit_inertia(const ig_geom *g, double diag[3]);
/* The torpor shape {"shape", "size", "pos", "quat"} standing for g in the body
 * frame, or NULL with *why set (a size outside torpor's bounds, a mesh). A
 * plane becomes a box 1 m thick under its surface; an ellipsoid a capsule
 * along its longest semi-axis a, radius the larger of the other two, length 2a. */
json_t *ig_shape_json(const ig_geom *g, char *why, size_t why_len);

/* A mesh file's points (STL or OBJ, tp_mesh_read) times `scale` per axis:
 * *points a malloc'd [*count][3] (free with free()); 0 with the reason in why. */
int ig_mesh_points(const char *path, const double scale[3], float **points, int *count, char *why, size_t why_len);
/* How a mesh's hull was fitted to torpor's caps (TP_MAX_HULL_*): the full
 * hull's vertex count, the count kept (equal when it fits) and the kept hull's
 * volume over the full hull's. */
typedef struct ig_reduction {
    int full_vertices, kept_vertices;
    double kept_volume;
} ig_reduction;

/* The convex hull of the points (their frame placed by `pose` in the body
 * frame) as a torpor "convex" shape holding the hull's vertices, or a subset
 * of them whose hull fits the caps (tp_hull_simplify; *reduced says how much
 * was kept), with the volume (m^3), centre (m) and inertia per unit density
 * (m^5, xx yy zz xy xz yz) of the full hull in the points' frame; NULL with
 * the reason in why (qhull's, no volume). */
json_t *ig_convex_json(const float *points, int count, const fr_pose *pose, double *volume, double com[3],
                       double unit_inertia[6], ig_reduction *reduced, char *why, size_t why_len);
/* The warning text for a reduced hull: counts and the volume kept and lost. */
void ig_reduction_text(const ig_reduction *r, char *out, size_t len);

#endif
