/* import_geoms.c - collision primitives of MJCF and URDF as torpor shapes (import_geoms.h). */
#define _DEFAULT_SOURCE /* strdup, M_PI under -std=c11 */
#include "import_geoms.h"

#include "hull.h"
#include "torpor.h"

#include <stdlib.h>

#include <math.h>
#include <stdio.h>

double ig_volume(const ig_geom *g)
{
    const double *s = g->size;
    switch (g->kind) {
    case IG_SPHERE: return 4.0 / 3.0 * M_PI * s[0] * s[0] * s[0];
    case IG_CAPSULE: return M_PI * s[0] * s[0] * (2.0 * s[1]) + 4.0 / 3.0 * M_PI * s[0] * s[0] * s[0];
    case IG_CYLINDER: return M_PI * s[0] * s[0] * 2.0 * s[1];
    case IG_ELLIPSOID: return 4.0 / 3.0 * M_PI * s[0] * s[1] * s[2];
    case IG_BOX: return 8.0 * s[0] * s[1] * s[2];
    default: return 0.0;
    }
}

/* Standard solids' moments (e.g. Goldstein, Classical Mechanics, table of
 * moments of inertia); the capsule is a cylinder plus two hemispheres, each
 * moved by the parallel-axis theorem to its place at the cylinder's ends. */
void ig_unit_inertia(const ig_geom *g, double d[3])
{
    const double *s = g->size;
    double r = s[0], r2 = r * r;
    switch (g->kind) {
    case IG_SPHERE: d[0] = d[1] = d[2] = 0.4 * r2; return;
    case IG_CYLINDER: {
        double h = 2.0 * s[1];
        d[0] = d[1] = (3.0 * r2 + h * h) / 12.0;
        d[2] = 0.5 * r2;
        return;
    }
    case IG_CAPSULE: {
        double h = 2.0 * s[1];
        double vc = M_PI * r2 * h, vs = 4.0 / 3.0 * M_PI * r2 * r, v = vc + vs;
        double mc = vc / v, ms = vs / v; /* mass fractions */
        d[0] = d[1] = mc * (3.0 * r2 + h * h) / 12.0 + ms * (0.4 * r2 + 0.25 * h * h + 0.375 * h * r);
        d[2] = mc * 0.5 * r2 + ms * 0.4 * r2;
        return;
    }
    case IG_ELLIPSOID:
        d[0] = (s[1] * s[1] + s[2] * s[2]) / 5.0;
        d[1] = (s[0] * s[0] + s[2] * s[2]) / 5.0;
        d[2] = (s[0] * s[0] + s[1] * s[1]) / 5.0;
        return;
    case IG_BOX:
        d[0] = (s[1] * s[1] + s[2] * s[2]) / 3.0;
        d[1] = (s[0] * s[0] + s[2] * s[2]) / 3.0;
        d[2] = (s[0] * s[0] + s[1] * s[1]) / 3.0;
        return;
    default: d[0] = d[1] = d[2] = 0.0; return;
    }
}

static json_t *shape_json(const char *shape, const double size[3], const double pos[3], const double quat[4])
{
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "shape", json_string(shape));
    json_t *a = json_array(), *p = json_array(), *q = json_array();
    for (int k = 0; k < 3; ++k) {
        json_array_append_new(a, json_real(size[k]));
        json_array_append_new(p, json_real(pos[k]));
    }
    for (int k = 0; k < 4; ++k) json_array_append_new(q, json_real(quat[k]));
    json_object_set_new(o, "size", a);
    json_object_set_new(o, "pos", p);
    json_object_set_new(o, "quat", q);
    return o;
}

json_t *ig_shape_json(const ig_geom *g, char *why, size_t why_len)
{
    const double *s = g->size;
    double size[3], pos[3] = {g->pose.pos[0], g->pose.pos[1], g->pose.pos[2]}, quat[4];
    for (int k = 0; k < 4; ++k) quat[k] = g->pose.quat[k];
    /* turns local x onto local z: torpor's long axis onto MJCF's and URDF's */
    static const double x_to_z[4] = {0.0, -0.70710678118654752, 0.0, 0.70710678118654752};
    const char *shape = "box";
    switch (g->kind) {
    case IG_SPHERE:
        shape = "ball";
        size[0] = size[1] = size[2] = 2.0 * s[0];
        break;
    case IG_CAPSULE:
    case IG_CYLINDER:
        shape = g->kind == IG_CAPSULE ? "capsule" : "cylinder";
        size[0] = 2.0 * s[1] + (g->kind == IG_CAPSULE ? 2.0 * s[0] : 0.0);
        size[1] = size[2] = 2.0 * s[0];
        fq_mul(g->pose.quat, x_to_z, quat);
        break;
    case IG_ELLIPSOID: {
        int a = 0;
        for (int k = 1; k < 3; ++k)
            if (s[k] > s[a]) a = k;
        double r = 0.0;
        for (int k = 0; k < 3; ++k)
            if (k != a && s[k] > r) r = s[k];
        shape = "capsule";
        size[0] = 2.0 * s[a];
        size[1] = size[2] = 2.0 * r;
        if (size[0] < size[1]) size[0] = size[1];
        /* local x onto the geom's axis a */
        static const double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        double turn[4];
        fq_between(e[0], e[a], turn);
        fq_mul(g->pose.quat, turn, quat);
        break;
    }
    case IG_BOX:
        for (int k = 0; k < 3; ++k) size[k] = 2.0 * s[k];
        break;
    case IG_PLANE: {
        double thick = 1.0, down[3] = {0.0, 0.0, -0.5 * thick}, d[3];
        size[0] = s[0] > 0.0 ? 2.0 * s[0] : 2000.0;
        size[1] = s[1] > 0.0 ? 2.0 * s[1] : 2000.0;
        size[2] = thick;
        fq_rotate(g->pose.quat, down, d);
        for (int k = 0; k < 3; ++k) pos[k] += d[k];
        break;
    }
    default:
        snprintf(why, why_len, "mesh geoms need convex mesh shapes, which this build of torpor does not have");
        return NULL;
    }
    for (int k = 0; k < 3; ++k)
        if (!(size[k] >= TP_MIN_SIZE && size[k] <= TP_MAX_SIZE)) {
            snprintf(why, why_len, "its extent %g m along torpor's local %c is outside [%g, %g] m", size[k], "xyz"[k],
                     (double)TP_MIN_SIZE, (double)TP_MAX_SIZE);
            return NULL;
        }
    return shape_json(shape, size, pos, quat);
}

int ig_mesh_points(const char *path, const double scale[3], float **points, int *count, char *why, size_t why_len)
{
    float *v = NULL;
    int n = 0;
    if (tp_mesh_read(path, &v, &n) != TP_OK) {
        snprintf(why, why_len, "%s", tp_last_error());
        return 0;
    }
    float *copy = malloc((size_t)n * 3 * sizeof *copy);
    if (!copy) {
        tp_mesh_free(v);
        snprintf(why, why_len, "out of memory");
        return 0;
    }
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) copy[3 * i + k] = (float)(v[3 * i + k] * scale[k]);
    tp_mesh_free(v);
    *points = copy;
    *count = n;
    return 1;
}

json_t *ig_convex_json(const float *points, int count, const fr_pose *pose, double *volume, double com[3],
                       double unit_inertia[6], ig_reduction *reduced, char *why, size_t why_len)
{
    tp_hull_measure full;
    tp_hull kept;
    float *hull_points = NULL;
    int hull_count = 0;
    if (!tp_hull_measure_points(points, count, &full, NULL, why, why_len) ||
        !tp_hull_simplify(points, count, &hull_points, &hull_count, why, why_len) ||
        !tp_hull_build(hull_points, hull_count, &kept, why, why_len)) {
        free(hull_points);
        return NULL;
    }
    *volume = full.volume;
    for (int k = 0; k < 3; ++k) com[k] = full.com[k];
    for (int k = 0; k < 6; ++k) unit_inertia[k] = full.inertia[k];
    reduced->full_vertices = full.vertex_count;
    reduced->kept_vertices = hull_count;
    reduced->kept_volume = kept.volume / full.volume;
    points = hull_points;
    count = hull_count;
    json_t *o = json_object(), *vs = json_array();
    json_object_set_new(o, "shape", json_string("convex"));
    for (int i = 0; i < count; ++i) {
        json_t *p = json_array();
        for (int k = 0; k < 3; ++k) json_array_append_new(p, json_real(points[3 * i + k]));
        json_array_append_new(vs, p);
    }
    json_object_set_new(o, "vertices", vs);
    json_t *pos = json_array(), *quat = json_array();
    for (int k = 0; k < 3; ++k) json_array_append_new(pos, json_real(pose->pos[k]));
    for (int k = 0; k < 4; ++k) json_array_append_new(quat, json_real(pose->quat[k]));
    json_object_set_new(o, "pos", pos);
    json_object_set_new(o, "quat", quat);
    free(hull_points);
    return o;
}

void ig_reduction_text(const ig_reduction *r, char *out, size_t len)
{
    snprintf(out, len,
             "its hull has %d vertices, past torpor's caps (TP_MAX_HULL_VERTICES %d, TP_MAX_HULL_FACES %d): it "
             "collides as the hull of %d of them, %.1f %% of the volume (%.1f %% lost)",
             r->full_vertices, TP_MAX_HULL_VERTICES, TP_MAX_HULL_FACES, r->kept_vertices, 100.0 * r->kept_volume,
             100.0 * (1.0 - r->kept_volume));
}
