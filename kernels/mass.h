/* mass.h - volume, centre of mass and inertia tensor of each shape.
 *
 * DESIGN.md section 2: mass = density x the true volume of the shape (not of the
 * box around it, except for a box). Shapes are defined in include/torpor.h. The
 * body origin is the centre of the shape's box; the centre of mass is offset from
 * it for the wedge and the corner wedge. Inertia is about the centre of mass in
 * the body frame, stored xx yy zz xy xz yz (tensor entries, so products of
 * inertia carry the minus sign: I_yz = -integral(y z dm)).
 *
 * Formulas (docs/shapes.md derives them):
 *   box          I = m/12 diag(sy^2+sz^2, sx^2+sz^2, sx^2+sy^2)
 *   ball         I = 2/5 m r^2
 *   cylinder (x) Ixx = m r^2/2, Iyy = Izz = m (3 r^2 + L^2)/12
 *   capsule (x)  cylinder of length L - 2r plus a sphere split at the ends,
 *                hemisphere centroid 3r/8 from its flat face (parallel axis)
 *   wedge        right-triangle prism: Ixx = m (b^2+h^2)/18, Iyy = m (L^2/12 + h^2/18),
 *                Izz = m (L^2/12 + b^2/18), I_yz = m b h/36 (b = sy, h = sz, L = sx)
 *   corner wedge pyramid split into two tetrahedra; the second moment of a
 *                tetrahedron is V/20 (sum v_i v_i^T + (sum v_i)(sum v_i)^T)
 *                (F. Tonon, "Explicit exact formulas for the 3-D tetrahedron
 *                inertia tensor", J. Math. Stat. 2004). */
#ifndef TP_MASS_H
#define TP_MASS_H

#include "tp_math.h"
#include "torpor.h"

#include <stdio.h>

#define TP_PI 3.14159265358979324f

/* Radius of a ball, cylinder or capsule: half the smallest relevant extent. */
TP_HD float tp_shape_radius(tp_shape_type shape, const float size[3])
{
    if (shape == TP_SHAPE_BALL) return 0.5f * tp_minf(size[0], tp_minf(size[1], size[2]));
    return 0.5f * tp_minf(size[1], size[2]);
}

/* 1 if `size` (full extents, all > 0) suits the shape; else 0 and a reason. */
static inline int tp_shape_size_check(tp_shape_type shape, const float size[3], char *reason, size_t reason_len)
{
    if (shape == TP_SHAPE_CAPSULE && size[0] < 2.0f * tp_shape_radius(shape, size)) {
        snprintf(reason, reason_len,
                 "a capsule's length size[0] = %g must be >= its diameter min(size[1], size[2]) = %g",
                 (double)size[0], (double)(2.0f * tp_shape_radius(shape, size)));
        return 0;
    }
    return 1;
}

/* Radius of the sphere about the body origin that holds the whole shape. */
TP_HD float tp_shape_bound_radius(tp_shape_type shape, const float size[3])
{
    float hx = 0.5f * size[0], hy = 0.5f * size[1], hz = 0.5f * size[2];
    float r = tp_shape_radius(shape, size);
    switch (shape) {
    case TP_SHAPE_BALL: return r;
    case TP_SHAPE_CYLINDER: return sqrtf(hx * hx + r * r);
    case TP_SHAPE_CAPSULE: return hx;
    default: return sqrtf(hx * hx + hy * hy + hz * hz); /* box, wedge, corner wedge: box corners */
    }
}

TP_HD float tp_shape_volume(tp_shape_type shape, const float size[3])
{
    float box = size[0] * size[1] * size[2];
    float r = tp_shape_radius(shape, size);
    switch (shape) {
    case TP_SHAPE_BALL: return (4.0f / 3.0f) * TP_PI * r * r * r;
    case TP_SHAPE_CYLINDER: return TP_PI * r * r * size[0];
    case TP_SHAPE_CAPSULE: return TP_PI * r * r * (size[0] - 2.0f * r) + (4.0f / 3.0f) * TP_PI * r * r * r;
    case TP_SHAPE_WEDGE: return 0.5f * box;
    case TP_SHAPE_CORNER_WEDGE: return box / 3.0f;
    default: return box;
    }
}

/* Add the second moment integral(x x^T dV) of tetrahedron (a, b, c, d) to
 * acc (xx yy zz xy xz yz) and its volume moment to *vol and first moment to *first. */
TP_HD void tp_tetra_moments(tp_vec3 a, tp_vec3 b, tp_vec3 c, tp_vec3 d, float *vol, tp_vec3 *first, float *acc)
{
    float v = tp_dot(tp_sub(b, a), tp_cross(tp_sub(c, a), tp_sub(d, a))) / 6.0f;
    if (v < 0.0f) v = -v;
    tp_vec3 s = tp_add(tp_add(a, b), tp_add(c, d));
    tp_vec3 p[4] = {a, b, c, d};
    float m[6] = {s.x * s.x, s.y * s.y, s.z * s.z, s.x * s.y, s.x * s.z, s.y * s.z};
    for (int i = 0; i < 4; ++i) {
        m[0] += p[i].x * p[i].x; m[1] += p[i].y * p[i].y; m[2] += p[i].z * p[i].z;
        m[3] += p[i].x * p[i].y; m[4] += p[i].x * p[i].z; m[5] += p[i].y * p[i].z;
    }
    for (int k = 0; k < 6; ++k) acc[k] += m[k] * (v / 20.0f);
    *vol += v;
    *first = tp_add(*first, tp_scale(s, v * 0.25f));
}

/* Corner wedge by two tetrahedra sharing the apex (+hx, +hy, +hz). */
TP_HD void tp_corner_wedge_mass(const float size[3], float density, float *mass, float com[3], float inertia[6])
{
    float hx = 0.5f * size[0], hy = 0.5f * size[1], hz = 0.5f * size[2];
    tp_vec3 apex = tp_v3(hx, hy, hz);
    tp_vec3 b0 = tp_v3(-hx, -hy, -hz), b1 = tp_v3(hx, -hy, -hz), b2 = tp_v3(hx, hy, -hz), b3 = tp_v3(-hx, hy, -hz);
    float vol = 0.0f, second[6] = {0, 0, 0, 0, 0, 0};
    tp_vec3 first = tp_v3(0.0f, 0.0f, 0.0f);
    tp_tetra_moments(b0, b1, b2, apex, &vol, &first, second);
    tp_tetra_moments(b0, b2, b3, apex, &vol, &first, second);
    tp_vec3 c = tp_scale(first, 1.0f / vol);
    /* Covariance about the centre of mass, then I = trace(C) 1 - C. */
    float cxx = second[0] - vol * c.x * c.x, cyy = second[1] - vol * c.y * c.y, czz = second[2] - vol * c.z * c.z;
    float cxy = second[3] - vol * c.x * c.y, cxz = second[4] - vol * c.x * c.z, cyz = second[5] - vol * c.y * c.z;
    *mass = density * vol;
    com[0] = c.x; com[1] = c.y; com[2] = c.z;
    inertia[0] = density * (cyy + czz);
    inertia[1] = density * (cxx + czz);
    inertia[2] = density * (cxx + cyy);
    inertia[3] = -density * cxy;
    inertia[4] = -density * cxz;
    inertia[5] = -density * cyz;
}

/* Mass (kg), centre of mass (m, body frame) and inertia about it (kg m^2, xx yy
 * zz xy xz yz) of a shape of uniform `density` (kg/m^3). */
TP_HD void tp_shape_mass_properties(tp_shape_type shape, const float size[3], float density, float *mass,
                                    float com[3], float inertia[6])
{
    float sx = size[0], sy = size[1], sz = size[2];
    float r = tp_shape_radius(shape, size);
    float m = density * tp_shape_volume(shape, size);
    com[0] = com[1] = com[2] = 0.0f;
    for (int k = 0; k < 6; ++k) inertia[k] = 0.0f;
    *mass = m;
    switch (shape) {
    case TP_SHAPE_BALL:
        inertia[0] = inertia[1] = inertia[2] = 0.4f * m * r * r;
        break;
    case TP_SHAPE_CYLINDER:
        inertia[0] = 0.5f * m * r * r;
        inertia[1] = inertia[2] = m * (3.0f * r * r + sx * sx) / 12.0f;
        break;
    case TP_SHAPE_CAPSULE: {
        float lc = sx - 2.0f * r;
        float mc = density * TP_PI * r * r * lc;
        float ms = density * (4.0f / 3.0f) * TP_PI * r * r * r;
        /* Each hemisphere: 2/5 ms/2 r^2 about its flat-face centre, centroid 3r/8
         * from that face; shifted to the capsule centre at distance lc/2 + 3r/8. */
        float d = 0.5f * lc + 0.375f * r;
        float hemi_c = 0.4f * r * r - 0.140625f * r * r; /* about its own centroid, per unit mass */
        inertia[0] = 0.5f * mc * r * r + 0.4f * ms * r * r;
        inertia[1] = inertia[2] = mc * (3.0f * r * r + lc * lc) / 12.0f + ms * (hemi_c + d * d);
        break;
    }
    case TP_SHAPE_WEDGE:
        com[1] = -sy / 6.0f;
        com[2] = -sz / 6.0f;
        inertia[0] = m * (sy * sy + sz * sz) / 18.0f;
        inertia[1] = m * (sx * sx / 12.0f + sz * sz / 18.0f);
        inertia[2] = m * (sx * sx / 12.0f + sy * sy / 18.0f);
        inertia[5] = m * sy * sz / 36.0f;
        break;
    case TP_SHAPE_CORNER_WEDGE:
        tp_corner_wedge_mass(size, density, mass, com, inertia);
        break;
    default: /* box */
        inertia[0] = m * (sy * sy + sz * sz) / 12.0f;
        inertia[1] = m * (sx * sx + sz * sz) / 12.0f;
        inertia[2] = m * (sx * sx + sy * sy) / 12.0f;
        break;
    }
}

#endif
