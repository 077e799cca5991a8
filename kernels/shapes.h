/* shapes.h - geometry and mass properties of the seven shapes.
 *
 * Every shape fills (or sits inside) the box of full extents size = (sx, sy, sz)
 * centred on the body origin (include/torpor.h, DESIGN.md section 2):
 *   BOX           the box itself;
 *   BALL          diameter d = min(sx, sy, sz), centred;
 *   CYLINDER      axis along local x, length sx, radius r = min(sy, sz) / 2;
 *   CAPSULE       axis along local x, total length sx including the two
 *                 hemispherical ends, radius r = min(sy, sz) / 2; the core segment
 *                 runs from x = -(sx/2 - r) to +(sx/2 - r). Requires sx >= 2r
 *                 (tp_shape_validate refuses shorter ones; the math below clamps the
 *                 core to zero length, i.e. a ball, should one slip through);
 *   WEDGE         triangular prism along x: bottom face z = -sz/2, back face
 *                 y = -sy/2, slope from the top of the back face (y = -sy/2,
 *                 z = +sz/2) to the bottom front edge (y = +sy/2, z = -sz/2);
 *   CORNER_WEDGE  pyramid over the full bottom face with its apex at the top
 *                 (+x, +y) corner (+sx/2, +sy/2, +sz/2);
 *   CONVEX        the convex hull of given points (csrc/hull.c builds its
 *                 tp_poly and mass properties on the host); size is the box
 *                 centred on the origin that holds it, so the bounds below
 *                 (bounding sphere, half extents) hold for it unchanged.
 *
 * Mass properties use the true solid (DESIGN.md: mass = density x true volume):
 * the round cylinder. All are closed forms:
 *   box      V = sx sy sz,            I = m/12 (sy^2+sz^2, sx^2+sz^2, sx^2+sy^2)
 *   ball     V = pi d^3 / 6,          I = 2/5 m r^2
 *   cylinder V = pi r^2 L,            Ixx = m r^2 / 2, Iyy = Izz = m (3 r^2 + L^2) / 12
 *   capsule  V = pi r^2 h + 4/3 pi r^3 (h = sx - 2r), cylinder part m_c, two
 *            hemispheres m_s: Ixx = m_c r^2/2 + 2/5 m_s r^2,
 *            Iyy = Izz = m_c (3 r^2 + h^2)/12 + m_s (2/5 r^2 + h^2/4 + 3 h r / 8)
 *            (hemisphere about its flat face 2/5 m r^2, centroid 3r/8 from the face,
 *            parallel-axis theorem twice);
 *   wedge    V = sx sy sz / 2, COM (0, -sy/6, -sz/6) (centroid of the right
 *            triangle), Ixx = m (sy^2 + sz^2)/18, Iyy = m (sx^2/12 + sz^2/18),
 *            Izz = m (sx^2/12 + sy^2/18), tensor yz entry = -int y z dm = +m sy sz/36;
 *   corner   V = sx sy sz / 3, COM (sx/8, sy/8, -sz/4); central second moments
 *            (per unit mass) xx = 19 sx^2/320, yy = 19 sy^2/320, zz = 3 sz^2/80,
 *            xy = 3 sx sy/320, xz = 3 sx sz/160, yz = 3 sy sz/160, from integrating
 *            over the pyramid parametrised as apex + s (base point - apex) with
 *            Jacobian s^2 sz; the tensor is I = tr(C) 1 - C.
 * The inertia layout is that of tp_body_model: xx, yy, zz, xy, xz, yz with the sign
 * of the tensor entries (products enter negated).
 *
 * Mass properties of a convex hull come from its faces, not from size
 * (csrc/hull.c); tp_shape_volume and tp_shape_mass_props do not know them.
 *
 * Collision geometry: ball and capsule are round (a point or a segment plus a
 * radius), the cylinder is round too (its own narrowphase, collide_cylinder.h),
 * and box, wedge, corner wedge and convex hulls are convex polyhedra
 * (tp_poly). */
#ifndef TP_SHAPES_H
#define TP_SHAPES_H

#include "tp_math.h"
#include "torpor_types.h"
#include <stdio.h>

#define TP_PI 3.14159265358979f
/* A convex hull's caps (include/torpor.h); the fixed shapes need less (a box:
 * 8 vertices, 6 faces, 12 edges, 4 vertices a face). Edges follow from Euler's
 * formula, E = V + F - 2 <= 62, within the 6 bits an edge id has. */
#define TP_POLY_MAX_VERTS TP_MAX_HULL_VERTICES
#define TP_POLY_MAX_FACES TP_MAX_HULL_FACES
#define TP_POLY_MAX_EDGES (TP_MAX_HULL_VERTICES + TP_MAX_HULL_FACES - 2)
#define TP_POLY_MAX_FACE_VERTS TP_MAX_HULL_FACE_VERTICES
/* Points on the rim of a cylinder cap when it touches as a polygon
 * (collide_cylinder.h); contact points only, the collision itself is round. */
#define TP_CYL_RIM 16

/* A convex polyhedron in some frame. Faces list their vertices counter-clockwise
 * seen from outside; face.edge[i] is the edge from face.vert[i] to
 * face.vert[i+1]. Every edge knows its two faces (f[0] on the side where it runs
 * v[0] -> v[1]), which is what the Gauss-map test of the edge-edge SAT needs. */
typedef struct tp_poly_face {
    tp_vec3 n;        /* outward unit normal */
    float d;          /* plane offset: dot(n, x) = d on the face */
    int count;        /* vertices, 3..TP_POLY_MAX_FACE_VERTS */
    uint8_t vert[TP_POLY_MAX_FACE_VERTS];
    uint8_t edge[TP_POLY_MAX_FACE_VERTS];
} tp_poly_face;

typedef struct tp_poly_edge {
    uint8_t v[2]; /* vertex indices */
    uint8_t f[2]; /* adjacent faces */
} tp_poly_edge;

typedef struct tp_poly {
    int nv, nf, ne;
    tp_vec3 centroid; /* mean of the vertices: an interior point */
    tp_vec3 v[TP_POLY_MAX_VERTS];
    tp_poly_face f[TP_POLY_MAX_FACES];
    tp_poly_edge e[TP_POLY_MAX_EDGES];
} tp_poly;

/* ---------------------------------------------------------------- sizes */

TP_HD float tp_min3f(float a, float b, float c) { return tp_minf(a, tp_minf(b, c)); }

/* 1 for the shapes that collide as convex polyhedra. */
TP_HD int tp_shape_is_poly(int shape)
{
    return shape == TP_SHAPE_BOX || shape == TP_SHAPE_WEDGE || shape == TP_SHAPE_CORNER_WEDGE ||
           shape == TP_SHAPE_CONVEX;
}

/* Radius of the round part (m): ball d/2; cylinder and capsule min(sy, sz)/2; 0 otherwise. */
TP_HD float tp_shape_radius(int shape, const float *size)
{
    if (shape == TP_SHAPE_BALL) return 0.5f * tp_min3f(size[0], size[1], size[2]);
    if (shape == TP_SHAPE_CYLINDER || shape == TP_SHAPE_CAPSULE) return 0.5f * tp_minf(size[1], size[2]);
    return 0.0f;
}

/* Half length of a capsule's core segment (m), clamped at 0. */
TP_HD float tp_capsule_half_core(const float *size)
{
    return tp_maxf(0.5f * size[0] - tp_shape_radius(TP_SHAPE_CAPSULE, size), 0.0f);
}

/* Host-only check of a shape's size. Returns 0 when valid, otherwise -1 with a
 * message in msg ("capsule: size.x 0.5 must be >= its diameter 0.8 ..."). */
static inline int tp_shape_validate(int shape, const float *size, char *msg, size_t msg_len)
{
    if (shape < 0 || shape >= TP_SHAPE_COUNT) {
        snprintf(msg, msg_len, "shape %d: unknown shape type", shape);
        return -1;
    }
    for (int i = 0; i < 3; ++i)
        if (!(size[i] > 0.0f) || !tp_finitef(size[i])) {
            snprintf(msg, msg_len, "size[%d]: must be finite and > 0, got %g", i, (double)size[i]);
            return -1;
        }
    if (shape == TP_SHAPE_CAPSULE && size[0] < tp_minf(size[1], size[2])) {
        snprintf(msg, msg_len,
                 "capsule: size.x %g must be >= its diameter min(size.y, size.z) = %g "
                 "(the hemispherical ends lie inside size.x)",
                 (double)size[0], (double)tp_minf(size[1], size[2]));
        return -1;
    }
    if (msg_len > 0) msg[0] = '\0';
    return 0;
}

/* ---------------------------------------------------------------- mass properties */

/* Volume of the true shape (m^3). */
TP_HD float tp_shape_volume(int shape, const float *size)
{
    float sx = size[0], sy = size[1], sz = size[2];
    float r = tp_shape_radius(shape, size);
    switch (shape) {
    case TP_SHAPE_BALL: return (4.0f / 3.0f) * TP_PI * r * r * r;
    case TP_SHAPE_CYLINDER: return TP_PI * r * r * sx;
    case TP_SHAPE_CAPSULE: {
        float h = 2.0f * tp_capsule_half_core(size);
        return TP_PI * r * r * h + (4.0f / 3.0f) * TP_PI * r * r * r;
    }
    case TP_SHAPE_WEDGE: return 0.5f * sx * sy * sz;
    case TP_SHAPE_CORNER_WEDGE: return sx * sy * sz * (1.0f / 3.0f);
    default: return sx * sy * sz;
    }
}

/* Central second moments C = int (x - c)(x - c)^T dm / m for the two
 * asymmetric shapes, as xx yy zz xy xz yz (per unit mass). */
TP_HD void tp_wedge_moments(int shape, const float *size, float *c)
{
    float sx = size[0], sy = size[1], sz = size[2];
    if (shape == TP_SHAPE_WEDGE) {
        c[0] = sx * sx / 12.0f;
        c[1] = sy * sy / 18.0f;
        c[2] = sz * sz / 18.0f;
        c[3] = 0.0f;
        c[4] = 0.0f;
        c[5] = -sy * sz / 36.0f;
    } else {
        c[0] = 19.0f * sx * sx / 320.0f;
        c[1] = 19.0f * sy * sy / 320.0f;
        c[2] = 3.0f * sz * sz / 80.0f;
        c[3] = 3.0f * sx * sy / 320.0f;
        c[4] = 3.0f * sx * sz / 160.0f;
        c[5] = 3.0f * sy * sz / 160.0f;
    }
}

/* Mass (kg), centre of mass relative to the body origin (m, body frame) and
 * inertia about the centre of mass (kg m^2; xx yy zz xy xz yz, tensor signs) of a
 * shape of uniform density (kg/m^3). Formulas in the header comment. */
TP_HD void tp_shape_mass_props(int shape, const float *size, float density, float *mass, float *com,
                               float *inertia)
{
    float sx = size[0], sy = size[1], sz = size[2];
    float r = tp_shape_radius(shape, size);
    float m = density * tp_shape_volume(shape, size);
    *mass = m;
    com[0] = com[1] = com[2] = 0.0f;
    inertia[3] = inertia[4] = inertia[5] = 0.0f;
    switch (shape) {
    case TP_SHAPE_BALL:
        inertia[0] = inertia[1] = inertia[2] = 0.4f * m * r * r;
        break;
    case TP_SHAPE_CYLINDER:
        inertia[0] = 0.5f * m * r * r;
        inertia[1] = inertia[2] = m * (3.0f * r * r + sx * sx) / 12.0f;
        break;
    case TP_SHAPE_CAPSULE: {
        float h = 2.0f * tp_capsule_half_core(size);
        float mc = density * TP_PI * r * r * h;
        float ms = density * (4.0f / 3.0f) * TP_PI * r * r * r;
        inertia[0] = 0.5f * mc * r * r + 0.4f * ms * r * r;
        inertia[1] = inertia[2] = mc * (3.0f * r * r + h * h) / 12.0f +
                                  ms * (0.4f * r * r + 0.25f * h * h + 0.375f * h * r);
        break;
    }
    case TP_SHAPE_WEDGE:
    case TP_SHAPE_CORNER_WEDGE: {
        float c[6];
        tp_wedge_moments(shape, size, c);
        if (shape == TP_SHAPE_WEDGE) {
            com[1] = -sy / 6.0f;
            com[2] = -sz / 6.0f;
        } else {
            com[0] = sx / 8.0f;
            com[1] = sy / 8.0f;
            com[2] = -sz / 4.0f;
        }
        inertia[0] = m * (c[1] + c[2]);
        inertia[1] = m * (c[0] + c[2]);
        inertia[2] = m * (c[0] + c[1]);
        inertia[3] = -m * c[3];
        inertia[4] = -m * c[4];
        inertia[5] = -m * c[5];
        break;
    }
    default:
        inertia[0] = m * (sy * sy + sz * sz) / 12.0f;
        inertia[1] = m * (sx * sx + sz * sz) / 12.0f;
        inertia[2] = m * (sx * sx + sy * sy) / 12.0f;
        break;
    }
}

/* Radius (m) of the smallest sphere about the body origin that holds the
 * collision shape. */
TP_HD float tp_shape_bound_radius(int shape, const float *size)
{
    float hx = 0.5f * size[0], hy = 0.5f * size[1], hz = 0.5f * size[2];
    float r = tp_shape_radius(shape, size);
    switch (shape) {
    case TP_SHAPE_BALL: return r;
    case TP_SHAPE_CAPSULE: return tp_capsule_half_core(size) + r;
    case TP_SHAPE_CYLINDER: return sqrtf(hx * hx + r * r);
    default: return sqrtf(hx * hx + hy * hy + hz * hz);
    }
}

/* Half extents (m) of the local axis-aligned box about the body origin that
 * holds the collision shape. */
TP_HD tp_vec3 tp_shape_half_extents(int shape, const float *size)
{
    float r = tp_shape_radius(shape, size);
    switch (shape) {
    case TP_SHAPE_BALL: return tp_v3(r, r, r);
    case TP_SHAPE_CAPSULE: return tp_v3(tp_capsule_half_core(size) + r, r, r);
    case TP_SHAPE_CYLINDER: return tp_v3(0.5f * size[0], r, r);
    default: return tp_v3(0.5f * size[0], 0.5f * size[1], 0.5f * size[2]);
    }
}

/* ---------------------------------------------------------------- polyhedra */

TP_HD void tp_poly_add_face(tp_poly *p, const int *idx, int count, tp_vec3 n)
{
    tp_poly_face *f = &p->f[p->nf++];
    f->n = n;
    f->count = count;
    for (int i = 0; i < count; ++i) f->vert[i] = (uint8_t)idx[i];
    f->d = tp_dot(n, p->v[idx[0]]);
}

/* Unit normal of the plane through three vertices (counter-clockwise). */
TP_HD tp_vec3 tp_poly_tri_normal(const tp_poly *p, int a, int b, int c)
{
    tp_vec3 n = tp_cross(tp_sub(p->v[b], p->v[a]), tp_sub(p->v[c], p->v[b]));
    return tp_normalize_or(n, tp_v3(0.0f, 0.0f, 1.0f));
}

/* Edges from the face loops: each undirected edge once, numbered in the order
 * the faces first meet it (so the numbering is a fixed function of the shape
 * type), with both adjacent faces; and the centroid. */
TP_HD void tp_poly_finish(tp_poly *p)
{
    p->ne = 0;
    for (int fi = 0; fi < p->nf; ++fi) {
        tp_poly_face *f = &p->f[fi];
        for (int i = 0; i < f->count; ++i) {
            int a = f->vert[i], b = f->vert[(i + 1) % f->count], found = -1;
            for (int e = 0; e < p->ne; ++e)
                if (p->e[e].v[0] == b && p->e[e].v[1] == a) { found = e; break; }
            if (found >= 0) {
                p->e[found].f[1] = (uint8_t)fi;
            } else {
                found = p->ne++;
                p->e[found].v[0] = (uint8_t)a;
                p->e[found].v[1] = (uint8_t)b;
                p->e[found].f[0] = (uint8_t)fi;
                p->e[found].f[1] = (uint8_t)fi;
            }
            f->edge[i] = (uint8_t)found;
        }
    }
    tp_vec3 c = tp_v3(0.0f, 0.0f, 0.0f);
    for (int i = 0; i < p->nv; ++i) c = tp_add(c, p->v[i]);
    p->centroid = tp_scale(c, 1.0f / (float)p->nv);
}

/* A prism along x over a convex cross-section given counter-clockwise seen from
 * +x as (y, z) points, with the outward (y, z) normal of the section edge k from
 * point k to k+1. Vertices: k at x = -hx, n + k at x = +hx. Faces: 0 the -x cap,
 * 1 the +x cap, 2 + k the side over section edge k. */
TP_HD void tp_poly_prism(tp_poly *p, float hx, int n, const float *ys, const float *zs, const float *nys,
                         const float *nzs)
{
    int idx[TP_POLY_MAX_FACE_VERTS];
    p->nv = 2 * n;
    p->nf = 0;
    for (int k = 0; k < n; ++k) {
        p->v[k] = tp_v3(-hx, ys[k], zs[k]);
        p->v[n + k] = tp_v3(hx, ys[k], zs[k]);
    }
    for (int k = 0; k < n; ++k) idx[k] = n - 1 - k;
    tp_poly_add_face(p, idx, n, tp_v3(-1.0f, 0.0f, 0.0f));
    for (int k = 0; k < n; ++k) idx[k] = n + k;
    tp_poly_add_face(p, idx, n, tp_v3(1.0f, 0.0f, 0.0f));
    for (int k = 0; k < n; ++k) {
        int k1 = (k + 1) % n;
        int side[4] = {k, k1, n + k1, n + k};
        tp_poly_add_face(p, side, 4, tp_v3(0.0f, nys[k], nzs[k]));
    }
    tp_poly_finish(p);
}

/* Corner wedge: vertices 0..3 the bottom corners (-,-), (+,-), (+,+), (-,+) in
 * (x, y), 4 the apex; faces: bottom, +x side, +y side, the slope over the -x
 * edge, the slope over the -y edge. */
TP_HD void tp_poly_corner_wedge(tp_poly *p, float hx, float hy, float hz)
{
    p->nv = 5;
    p->nf = 0;
    p->v[0] = tp_v3(-hx, -hy, -hz);
    p->v[1] = tp_v3(hx, -hy, -hz);
    p->v[2] = tp_v3(hx, hy, -hz);
    p->v[3] = tp_v3(-hx, hy, -hz);
    p->v[4] = tp_v3(hx, hy, hz);
    int bottom[4] = {0, 3, 2, 1}, px[3] = {1, 2, 4}, py[3] = {2, 3, 4}, sx[3] = {3, 0, 4}, sy[3] = {0, 1, 4};
    tp_poly_add_face(p, bottom, 4, tp_v3(0.0f, 0.0f, -1.0f));
    tp_poly_add_face(p, px, 3, tp_v3(1.0f, 0.0f, 0.0f));
    tp_poly_add_face(p, py, 3, tp_v3(0.0f, 1.0f, 0.0f));
    tp_poly_add_face(p, sx, 3, tp_poly_tri_normal(p, 3, 0, 4));
    tp_poly_add_face(p, sy, 3, tp_poly_tri_normal(p, 0, 1, 4));
    tp_poly_finish(p);
}

/* Build the collision polyhedron of a polyhedral shape (box, wedge, corner
 * wedge) in its body frame (origin at the centre of the shape's box). Returns 0
 * for a round shape (ball, capsule, cylinder) and for a convex hull, whose
 * polytope is the model's (tp_world.hulls), not a function of its size. */
TP_HD int tp_poly_build(tp_poly *p, int shape, const float *size)
{
    float hx = 0.5f * size[0], hy = 0.5f * size[1], hz = 0.5f * size[2];
    if (shape == TP_SHAPE_BOX) {
        float ys[4] = {-hy, hy, hy, -hy}, zs[4] = {-hz, -hz, hz, hz};
        float ny[4] = {0.0f, 1.0f, 0.0f, -1.0f}, nz[4] = {-1.0f, 0.0f, 1.0f, 0.0f};
        tp_poly_prism(p, hx, 4, ys, zs, ny, nz);
        return 1;
    }
    if (shape == TP_SHAPE_WEDGE) {
        float inv = 1.0f / sqrtf(hy * hy + hz * hz);
        float ys[3] = {-hy, hy, -hy}, zs[3] = {-hz, -hz, hz};
        float ny[3] = {0.0f, hz * inv, -1.0f}, nz[3] = {-1.0f, hy * inv, 0.0f};
        tp_poly_prism(p, hx, 3, ys, zs, ny, nz);
        return 1;
    }
    if (shape == TP_SHAPE_CORNER_WEDGE) {
        tp_poly_corner_wedge(p, hx, hy, hz);
        return 1;
    }
    return 0;
}

#endif
