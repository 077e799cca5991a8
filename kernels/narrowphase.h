/* narrowphase.h - the contact manifold of any pair of the seven shapes.
 *
 * tp_collide_shapes takes two shapes with their world poses and writes a
 * manifold of up to 4 contact points: one world-frame normal pointing from A to
 * B, and per point the point on A's surface (A's body frame, relative to A's
 * origin), the point on B's surface (B's frame), the separation (negative when
 * penetrating, up to `margin` when apart) and a feature id (manifold.h).
 *
 * Pair families (method and source in each file):
 *   ball-ball, ball-capsule, capsule-capsule      collide_round.h
 *   polyhedron-ball, polyhedron-capsule           collide_round_poly.h
 *   polyhedron-polyhedron (box-box included)      collide_poly.h
 *   cylinder-anything                             collide_cylinder.h
 *                                                 (collide_support.h, collide_touch.h)
 * where the polyhedra are box, wedge, corner wedge and convex hull (shapes.h); the
 * cylinder is round (closed form against a ball, GJK / MPR and touching
 * features against the rest).
 *
 * The computation runs in the frame of one of the two shapes, the "first". It
 * is chosen from the shapes and their poses only, never from the body indices
 * (polyhedron or cylinder before ball and capsule, ball before capsule, then
 * lower shape type, then lower position x, y, z), so renumbering the bodies of a world gives the same
 * bits up to swapping A and B. Indices decide only when the poses are equal.
 * No choice that shapes the feature ids depends on which shape is first
 * (reference-face ties are broken by a fixed world direction, collide_poly.h),
 * so ids do not change when two bodies slide past each other. */
#ifndef TP_NARROWPHASE_H
#define TP_NARROWPHASE_H

#include "collide_cylinder.h"
#include "collide_poly.h"
#include "collide_round.h"
#include "collide_round_poly.h"

/* A manifold for bodies A and B (see the header comment for frames). */
typedef struct tp_manifold {
    tp_vec3 normal;                                /* world, unit, A -> B */
    int count;                                     /* 0..4 */
    tp_vec3 local_a[TP_MAX_MANIFOLD_POINTS];       /* m, A's frame, from A's origin */
    tp_vec3 local_b[TP_MAX_MANIFOLD_POINTS];       /* m, B's frame, from B's origin */
    float separation[TP_MAX_MANIFOLD_POINTS];      /* m */
    uint32_t feature[TP_MAX_MANIFOLD_POINTS];      /* 17-bit feature id */
} tp_manifold;

/* 0 ball, 1 capsule, 2 polyhedron or cylinder (the order of the pair's shapes) */
TP_HD int tp_shape_family(int shape)
{
    return shape == TP_SHAPE_BALL ? 0 : (shape == TP_SHAPE_CAPSULE ? 1 : 2);
}

/* The most points a manifold of shapes s1 and s2 can have (either order):
 * one with a ball, two with a capsule (segment clipping), four otherwise
 * (polyhedra, cylinders: tp_reduce_points). Sizes contact capacities
 * (csrc/batch.c). */
TP_HD int tp_shape_pair_points(int s1, int s2)
{
    if (s1 == TP_SHAPE_CYLINDER || s2 == TP_SHAPE_CYLINDER) return TP_MAX_MANIFOLD_POINTS;
    int f = tp_shape_family(s1) < tp_shape_family(s2) ? tp_shape_family(s1) : tp_shape_family(s2);
    return f == 0 ? 1 : f == 1 ? 2 : TP_MAX_MANIFOLD_POINTS;
}

/* Should B be the first shape of the pair computation? */
TP_HD int tp_pair_first_is_b(int shape_a, tp_vec3 pos_a, int shape_b, tp_vec3 pos_b)
{
    int fa = tp_shape_family(shape_a), fb = tp_shape_family(shape_b);
    if (fa != fb) {
        if (fa == 2 || fb == 2) return fb == 2;
        return fb < fa; /* ball before capsule */
    }
    if (shape_a != shape_b) return shape_b < shape_a;
    if (pos_a.x != pos_b.x) return pos_b.x < pos_a.x;
    if (pos_a.y != pos_b.y) return pos_b.y < pos_a.y;
    if (pos_a.z != pos_b.z) return pos_b.z < pos_a.z;
    return 0;
}

/* Manifold of shape s1 (first, its frame) and s2 posed by xf in that frame;
 * prefer: TP_REF_PREFER in that frame (collide_poly.h). poly1, poly2: the
 * shapes' polytopes where the shape is a polyhedron, or NULL to build a box's
 * or a wedge's here (tp_poly_build of the shape and size). The CUDA backend's
 * thread-per-pair narrowphase passes them built once per body for a whole
 * batch (kernels/collide_pairs.h); tp_poly_build depends on the shape and
 * size only, so either gives the same bits. A convex hull's polytope is the
 * model's (tp_world.hulls) and must be passed. */
TP_HD int tp_collide_in_first_polys(int s1, const float *size1, const tp_poly *poly1, int s2, const float *size2,
                                    const tp_poly *poly2, tp_xform xf, tp_vec3 prefer, float margin,
                                    tp_pair_manifold *m)
{
    int f1 = tp_shape_family(s1), f2 = tp_shape_family(s2);
    float r1 = tp_shape_radius(s1, size1), r2 = tp_shape_radius(s2, size2);
    m->count = 0;
    if (s1 == TP_SHAPE_CYLINDER || s2 == TP_SHAPE_CYLINDER)
        return tp_collide_cylinder_pair(s1, size1, poly1, s2, size2, poly2, xf, prefer, margin, m);
    if (f1 == 0 && f2 == 0) return tp_collide_ball_ball(r1, r2, xf, margin, m);
    if (f1 == 0 && f2 == 1) return tp_collide_ball_capsule(r1, r2, tp_capsule_half_core(size2), xf, margin, m);
    if (f1 == 1 && f2 == 1)
        return tp_collide_capsule_capsule(r1, tp_capsule_half_core(size1), r2, tp_capsule_half_core(size2), xf,
                                          margin, m);
    if (f1 != 2) return 0; /* not produced by tp_pair_first_is_b */
    tp_poly p1, p2;
    if (!poly1) {
        if (!tp_poly_build(&p1, s1, size1)) return 0; /* a hull without its polytope */
        poly1 = &p1;
    }
    if (f2 == 0) return tp_collide_poly_ball(poly1, xf.t, r2, margin, m);
    if (f2 == 1) {
        float h = tp_capsule_half_core(size2);
        tp_vec3 e0 = tp_xf_apply(xf, tp_v3(-h, 0.0f, 0.0f)), e1 = tp_xf_apply(xf, tp_v3(h, 0.0f, 0.0f));
        /* a leg's capsule above the ground box: no point, without the nearest-pair search */
        if (s1 == TP_SHAPE_BOX && tp_capsule_clear_of_box(poly1, e0, e1, r2, margin)) return 0;
        return tp_collide_poly_capsule(poly1, e0, e1, r2, margin, m);
    }
    if (!poly2) {
        if (!tp_poly_build(&p2, s2, size2)) return 0;
        poly2 = &p2;
    }
    return tp_collide_polys(poly1, poly2, xf, prefer, margin, m);
}

/* Contact manifold of shape A (type, full size [3] in m, world pose, its
 * polytope or NULL) and shape B; points are kept while the separation is <=
 * margin (m, normally TP_CONTACT_MARGIN). poly_a, poly_b: as in
 * tp_collide_in_first_polys (NULL builds a box's or a wedge's). Returns the
 * point count (0..4) and fills *out. */
TP_HD int tp_collide_shapes_polys(int shape_a, const float *size_a, const tp_poly *poly_a, tp_vec3 pos_a, tp_quat q_a,
                                  int shape_b, const float *size_b, const tp_poly *poly_b, tp_vec3 pos_b, tp_quat q_b,
                                  float margin, tp_manifold *out)
{
    int swap = tp_pair_first_is_b(shape_a, pos_a, shape_b, pos_b);
    tp_vec3 pos1 = swap ? pos_b : pos_a, pos2 = swap ? pos_a : pos_b;
    tp_quat q1 = swap ? q_b : q_a, q2 = swap ? q_a : q_b;
    tp_xform xf = tp_xf_relative(pos1, q1, pos2, q2);
    tp_vec3 prefer = tp_q_inv_rotate(q1, tp_v3(TP_REF_PREFER_X, TP_REF_PREFER_Y, TP_REF_PREFER_Z));
    tp_pair_manifold m;
    int n = swap ? tp_collide_in_first_polys(shape_b, size_b, poly_b, shape_a, size_a, poly_a, xf, prefer, margin, &m)
                 : tp_collide_in_first_polys(shape_a, size_a, poly_a, shape_b, size_b, poly_b, xf, prefer, margin, &m);
    out->count = n;
    if (n == 0) return 0;
    tp_vec3 nw = tp_q_rotate(q1, m.normal);
    out->normal = swap ? tp_neg(nw) : nw;
    for (int i = 0; i < n; ++i) {
        tp_vec3 on1 = m.p1[i], on2 = tp_xf_apply_inv(xf, m.p2[i]);
        out->local_a[i] = swap ? on2 : on1;
        out->local_b[i] = swap ? on1 : on2;
        out->separation[i] = m.sep[i];
        out->feature[i] = swap ? tp_feature_swap(m.feature[i]) : m.feature[i];
    }
    return n;
}

/* Contact manifold of shape A (type, full size [3] in m, world pose) and shape
 * B, building the polytopes per call (not for a convex hull: it needs
 * tp_collide_shapes_polys). */
TP_HD int tp_collide_shapes(int shape_a, const float *size_a, tp_vec3 pos_a, tp_quat q_a, int shape_b,
                            const float *size_b, tp_vec3 pos_b, tp_quat q_b, float margin, tp_manifold *out)
{
    return tp_collide_shapes_polys(shape_a, size_a, NULL, pos_a, q_a, shape_b, size_b, NULL, pos_b, q_b, margin, out);
}

#endif
