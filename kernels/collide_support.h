/* collide_support.h - distance and penetration of two convex cores given by
 * support functions: GJK for the distance of separated cores, MPR for the
 * penetration of touching or overlapping ones (and of cores closer than
 * TP_GJK_NEAR, where GJK's direction is noise). Used by the cylinder pairs
 * (collide_cylinder.h), whose curved surfaces SAT cannot handle with a finite
 * set of axes.
 *
 * A core is a point, a segment along local x, a round cylinder along local x
 * or a polyhedron (tp_poly), posed in the pair's computation frame (the first
 * shape's body frame). A capsule is its core segment plus a radius, added by
 * the caller; everything here is the bare core.
 *
 * GJK (distance): E. G. Gilbert, D. W. Johnson, S. S. Keerthi, "A fast
 * procedure for computing the distance between complex objects in
 * three-dimensional space", IEEE J. Robotics and Automation 4(2), 1988, in the
 * form of G. van den Bergen, "Collision Detection in Interactive 3D
 * Environments" (2004), section 4.3: the simplex's closest point v to the
 * origin, the support point w of the Minkowski difference A - B in direction
 * -v, stop when |v|^2 - v.w (the gap between the upper bound |v| and the lower
 * bound v.w / |v| of the distance, times |v|) is small. The closest point on a
 * simplex uses the Voronoi-region tests of C. Ericson, "Real-Time Collision
 * Detection" (2005), 5.1.5 (triangle) and 5.1.6 (tetrahedron). The lower bound
 * also gives an early exit: v.w / |v| > reach means the cores are farther apart
 * than the caller cares about.
 *
 * MPR (penetration): G. Snethen, "XenoCollide: Complex Collision Made Simple",
 * Game Programming Gems 7 (2008), 2.5 (Minkowski Portal Refinement). From an
 * interior point v0 of A - B (centre of A minus centre of B) a portal triangle
 * that the ray from v0 through the origin crosses is found, then refined
 * towards the surface of A - B. The result is the surface normal where that
 * ray leaves A - B and the origin's depth below it: exact on the flat parts of
 * A - B (a face against anything), close to the least penetration for the
 * shallow overlaps of resting contact, and not the least penetration in
 * general (the direction is the centre-to-centre ray's). The caller uses it
 * only to choose the touching features and as a fallback single point.
 *
 * All in float32 with +, -, *, / and sqrtf, fixed iteration caps, no data-
 * dependent memory: the same bits on CPU and GPU. State is a few vertices
 * (well under 1 KiB of stack). */
#ifndef TP_COLLIDE_SUPPORT_H
#define TP_COLLIDE_SUPPORT_H

#include "manifold.h"

enum { TP_CORE_POINT = 0, TP_CORE_SEGMENT = 1, TP_CORE_CYLINDER = 2, TP_CORE_POLY = 3 };

#define TP_GJK_MAX_ITER 32
#define TP_MPR_MAX_ITER 32
/* GJK stops when the distance is known to within this (m). */
#define TP_GJK_TOL 1e-5f
/* Below this distance (m) GJK's direction is unreliable (a touching pair has
 * no defined closest direction): such pairs go to MPR. */
#define TP_GJK_NEAR 1e-3f
/* MPR stops when the support point beyond the portal gains less than this (m). */
#define TP_MPR_TOL 2e-6f

/* A convex core posed in the computation frame. */
typedef struct tp_core {
    int kind;             /* TP_CORE_* */
    const tp_poly *poly;  /* TP_CORE_POLY: in the shape's own frame */
    float h, r;           /* segment: half length; cylinder: half length, radius */
    tp_xform xf;          /* shape frame -> computation frame */
} tp_core;

/* Support point of the core in its own frame for direction d (own frame).
 * Ties go to +x and to the lower vertex index, so the answer is a fixed
 * function of d. */
TP_HD tp_vec3 tp_core_support_local(const tp_core *c, tp_vec3 d)
{
    if (c->kind == TP_CORE_POINT) return tp_v3(0.0f, 0.0f, 0.0f);
    if (c->kind == TP_CORE_POLY) {
        const tp_poly *p = c->poly;
        int best = 0;
        float bd = tp_dot(p->v[0], d);
        for (int i = 1; i < p->nv; ++i) {
            float s = tp_dot(p->v[i], d);
            if (s > bd) { bd = s; best = i; }
        }
        return p->v[best];
    }
    tp_vec3 s = tp_v3(d.x >= 0.0f ? c->h : -c->h, 0.0f, 0.0f);
    if (c->kind == TP_CORE_CYLINDER) {
        /* the rim point whose radial direction is d's (y, z) part; along the
         * axis exactly, the cap centre (every cap point is a support point) */
        float l2 = d.y * d.y + d.z * d.z;
        if (l2 > 1e-12f * tp_len_sq(d)) {
            float k = c->r / sqrtf(l2);
            s.y = d.y * k;
            s.z = d.z * k;
        }
    }
    return s;
}

/* Support point in the computation frame for direction d (computation frame). */
TP_HD tp_vec3 tp_core_support(const tp_core *c, tp_vec3 d)
{
    return tp_xf_apply(c->xf, tp_core_support_local(c, tp_q_inv_rotate(c->xf.q, d)));
}

/* A point inside the core (its centre). */
TP_HD tp_vec3 tp_core_centre(const tp_core *c)
{
    return c->kind == TP_CORE_POLY ? tp_xf_apply(c->xf, c->poly->centroid) : c->xf.t;
}

/* A vertex of the Minkowski difference A - B with the points it came from. */
typedef struct tp_md_vert { tp_vec3 w, a, b; } tp_md_vert;

TP_HD tp_md_vert tp_md_support(const tp_core *A, const tp_core *B, tp_vec3 d)
{
    tp_md_vert v;
    v.a = tp_core_support(A, d);
    v.b = tp_core_support(B, tp_neg(d));
    v.w = tp_sub(v.a, v.b);
    return v;
}

/* ---------------------------------------------------------------- GJK */

/* GJK simplex: up to 4 vertices with the barycentric weights of its closest
 * point to the origin. */
typedef struct tp_simplex {
    int n;
    tp_md_vert v[4];
    float lam[4];
} tp_simplex;

/* Closest point to the origin of segment (v[i], v[j]) written into out as a
 * simplex of 1 or 2 vertices; returns its squared distance. */
TP_HD float tp_simplex_segment(const tp_simplex *s, int i, int j, tp_simplex *out)
{
    tp_vec3 a = s->v[i].w, ab = tp_sub(s->v[j].w, a);
    float l2 = tp_len_sq(ab), t = l2 > 0.0f ? -tp_dot(a, ab) / l2 : 0.0f;
    if (t <= 0.0f) {
        out->n = 1;
        out->v[0] = s->v[i];
        out->lam[0] = 1.0f;
        return tp_len_sq(a);
    }
    if (t >= 1.0f) {
        out->n = 1;
        out->v[0] = s->v[j];
        out->lam[0] = 1.0f;
        return tp_len_sq(s->v[j].w);
    }
    out->n = 2;
    out->v[0] = s->v[i];
    out->v[1] = s->v[j];
    out->lam[0] = 1.0f - t;
    out->lam[1] = t;
    return tp_len_sq(tp_mad(a, ab, t));
}

/* Closest point to the origin of triangle (v[i], v[j], v[k]) (Ericson 5.1.5
 * with the query point at the origin); a degenerate triangle falls back to
 * its closest edge. Returns the squared distance. */
TP_HD float tp_simplex_triangle(const tp_simplex *s, int i, int j, int k, tp_simplex *out)
{
    tp_vec3 a = s->v[i].w, b = s->v[j].w, c = s->v[k].w;
    tp_vec3 ab = tp_sub(b, a), ac = tp_sub(c, a);
    float d1 = -tp_dot(ab, a), d2 = -tp_dot(ac, a);
    if (d1 <= 0.0f && d2 <= 0.0f) return tp_simplex_segment(s, i, i, out);
    float d3 = -tp_dot(ab, b), d4 = -tp_dot(ac, b);
    if (d3 >= 0.0f && d4 <= d3) return tp_simplex_segment(s, j, j, out);
    float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) return tp_simplex_segment(s, i, j, out);
    float d5 = -tp_dot(ab, c), d6 = -tp_dot(ac, c);
    if (d6 >= 0.0f && d5 <= d6) return tp_simplex_segment(s, k, k, out);
    float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) return tp_simplex_segment(s, i, k, out);
    float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && d4 - d3 >= 0.0f && d5 - d6 >= 0.0f) return tp_simplex_segment(s, j, k, out);
    float sum = va + vb + vc;
    if (!(sum > 1e-20f)) { /* collinear: the best edge */
        tp_simplex t1 = *s, t2 = *s;
        float e0 = tp_simplex_segment(s, i, j, out), e1 = tp_simplex_segment(s, i, k, &t1);
        float e2 = tp_simplex_segment(s, j, k, &t2);
        if (e1 < e0) { *out = t1; e0 = e1; }
        if (e2 < e0) { *out = t2; e0 = e2; }
        return e0;
    }
    float v = vb / sum, w = vc / sum;
    out->n = 3;
    out->v[0] = s->v[i];
    out->v[1] = s->v[j];
    out->v[2] = s->v[k];
    out->lam[0] = 1.0f - v - w;
    out->lam[1] = v;
    out->lam[2] = w;
    return tp_len_sq(tp_add(tp_add(tp_scale(a, out->lam[0]), tp_scale(b, v)), tp_scale(c, w)));
}

/* Is the origin on the far side of plane (a, b, c) from d? A face of a flat
 * tetrahedron counts as "outside" so that its closest point is examined. */
TP_HD int tp_origin_outside(tp_vec3 a, tp_vec3 b, tp_vec3 c, tp_vec3 d)
{
    tp_vec3 n = tp_cross(tp_sub(b, a), tp_sub(c, a));
    float so = -tp_dot(n, a), sd = tp_dot(n, tp_sub(d, a));
    if (tp_absf(sd) <= 1e-7f * tp_len(n) * (tp_len(tp_sub(d, a)) + 1e-6f)) return 1;
    return so * sd < 0.0f;
}

/* Replace the simplex by the sub-simplex holding its closest point to the
 * origin. Returns 1 when the origin is inside a (full) tetrahedron. */
TP_HD int tp_simplex_solve(tp_simplex *s)
{
    tp_simplex out;
    if (s->n == 1) {
        s->lam[0] = 1.0f;
        return 0;
    }
    if (s->n == 2) {
        tp_simplex_segment(s, 0, 1, &out);
    } else if (s->n == 3) {
        tp_simplex_triangle(s, 0, 1, 2, &out);
    } else {
        const int F[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
        float best = 3.0e38f;
        int any = 0;
        for (int f = 0; f < 4; ++f) {
            if (!tp_origin_outside(s->v[F[f][0]].w, s->v[F[f][1]].w, s->v[F[f][2]].w, s->v[F[f][3]].w)) continue;
            tp_simplex t;
            float d = tp_simplex_triangle(s, F[f][0], F[f][1], F[f][2], &t);
            if (!any || d < best) { best = d; out = t; any = 1; }
        }
        if (!any) return 1;
    }
    *s = out;
    return 0;
}

TP_HD tp_vec3 tp_simplex_point(const tp_simplex *s, int which)
{
    tp_vec3 p = tp_v3(0.0f, 0.0f, 0.0f);
    for (int i = 0; i < s->n; ++i)
        p = tp_mad(p, which == 0 ? s->v[i].w : (which == 1 ? s->v[i].a : s->v[i].b), s->lam[i]);
    return p;
}

/* GJK result codes */
enum { TP_GJK_SEPARATED = 0, TP_GJK_TOUCHING = 1, TP_GJK_FAR = 2 };

/* Distance of cores A and B. Returns TP_GJK_FAR when they are surely more than
 * `reach` apart (m), TP_GJK_TOUCHING when they overlap or are closer than
 * TP_GJK_TOL, else TP_GJK_SEPARATED with *dist the distance (an upper bound:
 * the last simplex's closest point) and *pa, *pb the closest points
 * (computation frame), *lower the best lower bound seen (the cores' separation
 * along unit *dir, pointing from A to B). Near a curved rim GJK can stall
 * before the bounds meet (its simplex is a flat approximation of the curve;
 * in float32 the next point brings no measurable progress): then *lower and
 * *dir are the answer to trust, never more than the true distance. All
 * outputs are written in every case. */
TP_HD int tp_gjk(const tp_core *A, const tp_core *B, float reach, tp_vec3 *pa, tp_vec3 *pb, float *dist,
                 tp_vec3 *dir, float *lower)
{
    float best_lower = -3.0e38f;
    tp_vec3 best_dir = tp_v3(0.0f, 0.0f, 1.0f);
    tp_simplex s;
    tp_vec3 d0 = tp_sub(tp_core_centre(A), tp_core_centre(B));
    if (!(tp_len_sq(d0) > 1e-24f)) d0 = tp_v3(1.0f, 0.0f, 0.0f);
    s.n = 1;
    s.v[0] = tp_md_support(A, B, tp_neg(d0));
    s.lam[0] = 1.0f;
    tp_vec3 v = s.v[0].w;
    int code = TP_GJK_SEPARATED;
    for (int it = 0; it < TP_GJK_MAX_ITER; ++it) {
        float vv = tp_len_sq(v);
        if (vv <= TP_GJK_TOL * TP_GJK_TOL) { code = TP_GJK_TOUCHING; break; }
        tp_md_vert w = tp_md_support(A, B, tp_neg(v));
        float vw = tp_dot(v, w.w);
        if (vw > 0.0f && vw * vw > reach * reach * vv) { code = TP_GJK_FAR; break; }
        float len = sqrtf(vv);
        if (vw / len > best_lower) { /* separation of the cores along -v, a lower bound */
            best_lower = vw / len;
            best_dir = tp_scale(v, -1.0f / len);
        }
        if (vv - vw <= TP_GJK_TOL * sqrtf(vv)) break; /* converged */
        int dup = 0;
        for (int i = 0; i < s.n; ++i)
            if (s.v[i].w.x == w.w.x && s.v[i].w.y == w.w.y && s.v[i].w.z == w.w.z) dup = 1;
        if (dup) break;
        s.v[s.n] = w;
        s.n++;
        if (tp_simplex_solve(&s)) { code = TP_GJK_TOUCHING; break; }
        tp_vec3 nv = tp_simplex_point(&s, 0);
        if (tp_len_sq(nv) >= vv) { v = nv; break; } /* no progress: rounding */
        v = nv;
    }
    *pa = tp_simplex_point(&s, 1);
    *pb = tp_simplex_point(&s, 2);
    *dist = tp_len(v);
    *dir = best_dir;
    *lower = best_lower;
    if (code == TP_GJK_SEPARATED && *dist <= TP_GJK_TOL) code = TP_GJK_TOUCHING;
    return code;
}

/* ---------------------------------------------------------------- MPR */

/* Penetration of cores A and B by MPR: where the ray from the interior point
 * v0 through the origin leaves A - B. Returns 1 with *normal the unit surface
 * normal there (from A to B), *depth the origin's depth below that surface
 * (m; > 0 when the cores overlap, negative when they are just apart) and *pa,
 * *pb the points of A and B it came from (pa - pb = depth x normal, up to
 * rounding). The early exits of the boolean test are left out on purpose, so
 * cores a hair apart, where GJK's direction is noise, get a normal too.
 * Returns 0 only when the portal search does not settle; the outputs are then
 * unset. */
TP_HD int tp_mpr(const tp_core *A, const tp_core *B, tp_vec3 *normal, float *depth, tp_vec3 *pa, tp_vec3 *pb)
{
    tp_md_vert v0, v1, v2, v3, v4;
    v0.a = tp_core_centre(A);
    v0.b = tp_core_centre(B);
    v0.w = tp_sub(v0.a, v0.b);
    if (!(tp_len_sq(v0.w) > 1e-20f)) v0.w = tp_v3(1e-5f, 0.0f, 0.0f); /* centres coincide: any nearby interior point */
    tp_vec3 n = tp_neg(v0.w);
    v1 = tp_md_support(A, B, n);
    n = tp_cross(v1.w, v0.w);
    if (!(tp_len_sq(n) > 1e-14f * tp_len_sq(v1.w) * tp_len_sq(v0.w))) {
        /* the origin lies on the line v0-v1: v1 is the surface point of the
         * ray, with the support plane of direction -v0 through it */
        *normal = tp_normalize_or(tp_neg(v0.w), tp_v3(0.0f, 0.0f, 1.0f));
        *depth = tp_dot(v1.w, *normal);
        *pa = v1.a;
        *pb = v1.b;
        return 1;
    }
    v2 = tp_md_support(A, B, n);
    n = tp_cross(tp_sub(v1.w, v0.w), tp_sub(v2.w, v0.w));
    if (tp_dot(n, v0.w) > 0.0f) {
        tp_md_vert t = v1;
        v1 = v2;
        v2 = t;
        n = tp_neg(n);
    }
    /* portal discovery: a triangle (v1, v2, v3) that the ray v0 -> origin crosses */
    int found = 0;
    for (int it = 0; it < TP_MPR_MAX_ITER; ++it) {
        v3 = tp_md_support(A, B, n);
        if (tp_dot(tp_cross(v1.w, v3.w), v0.w) < 0.0f) {
            v2 = v3;
            n = tp_cross(tp_sub(v1.w, v0.w), tp_sub(v3.w, v0.w));
            continue;
        }
        if (tp_dot(tp_cross(v3.w, v2.w), v0.w) < 0.0f) {
            v1 = v3;
            n = tp_cross(tp_sub(v3.w, v0.w), tp_sub(v2.w, v0.w));
            continue;
        }
        found = 1;
        break;
    }
    if (!found) return 0;
    /* portal refinement: push the portal out to the surface of A - B */
    for (int it = 0; it < TP_MPR_MAX_ITER; ++it) {
        tp_vec3 pn = tp_cross(tp_sub(v2.w, v1.w), tp_sub(v3.w, v1.w));
        float l2 = tp_len_sq(pn);
        if (!(l2 > 1e-24f)) break;
        pn = tp_scale(pn, 1.0f / sqrtf(l2));
        v4 = tp_md_support(A, B, pn);
        if (tp_dot(v4.w, pn) - tp_dot(v1.w, pn) <= TP_MPR_TOL) break;
        /* keep the half of the split portal that the ray still crosses */
        tp_vec3 t = tp_cross(v4.w, v0.w);
        if (tp_dot(v1.w, t) > 0.0f) {
            if (tp_dot(v2.w, t) > 0.0f) v1 = v4;
            else v3 = v4;
        } else {
            if (tp_dot(v3.w, t) > 0.0f) v2 = v4;
            else v1 = v4;
        }
    }
    tp_vec3 pn = tp_cross(tp_sub(v2.w, v1.w), tp_sub(v3.w, v1.w));
    float l2 = tp_len_sq(pn);
    if (!(l2 > 1e-24f)) { /* a degenerate portal: the ray's direction */
        *normal = tp_normalize_or(tp_neg(v0.w), tp_v3(0.0f, 0.0f, 1.0f));
        *depth = tp_dot(v1.w, *normal);
        *pa = v1.a;
        *pb = v1.b;
        return 1;
    }
    pn = tp_scale(pn, 1.0f / sqrtf(l2));
    float d = tp_dot(v1.w, pn);
    /* barycentric weights of the origin's projection onto the portal plane */
    tp_vec3 p = tp_scale(pn, d);
    float inv = 1.0f / sqrtf(l2);
    float l1 = tp_dot(tp_cross(tp_sub(v2.w, p), tp_sub(v3.w, p)), pn) * inv;
    float l2w = tp_dot(tp_cross(tp_sub(v3.w, p), tp_sub(v1.w, p)), pn) * inv;
    float l3 = 1.0f - l1 - l2w;
    *normal = pn;
    *depth = d;
    *pa = tp_add(tp_add(tp_scale(v1.a, l1), tp_scale(v2.a, l2w)), tp_scale(v3.a, l3));
    *pb = tp_add(tp_add(tp_scale(v1.b, l1), tp_scale(v2.b, l2w)), tp_scale(v3.b, l3));
    return 1;
}

#endif
