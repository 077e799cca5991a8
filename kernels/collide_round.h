/* collide_round.h - manifolds between round shapes: ball-ball, ball-capsule,
 * capsule-capsule.
 *
 * A ball is a point with a radius, a capsule a core segment along its local x
 * from -h to +h with a radius (shapes.h). The contact is between the cores'
 * closest points (Ericson, Real-Time Collision Detection, 4.3 and 5.1.9),
 * pushed out by the radii. Two capsules lying nearly parallel get two points, at
 * the ends of the overlap of their cores, so one capsule can rest on another
 * without rocking (the idea of Box2D v3's b2CollideCapsules, in 3-D).
 *
 * Each function works in the first shape's body frame; `xf` is the second
 * shape's pose in that frame; the normal points from first to second. */
#ifndef TP_COLLIDE_ROUND_H
#define TP_COLLIDE_ROUND_H

#include "manifold.h"

/* Normal from core point c1 to core point c2, or a fallback when they coincide. */
TP_HD tp_vec3 tp_round_normal(tp_vec3 c1, tp_vec3 c2, tp_vec3 fallback, float *dist)
{
    tp_vec3 d = tp_sub(c2, c1);
    float l = tp_len(d);
    *dist = l;
    if (l > 1e-6f) return tp_scale(d, 1.0f / l);
    return fallback;
}

/* One point between two core points with radii r1, r2. */
TP_HD int tp_round_single(tp_vec3 c1, float r1, tp_vec3 c2, float r2, tp_vec3 fallback, float margin,
                          uint32_t feature, tp_pair_manifold *m)
{
    float dist;
    tp_vec3 n = tp_round_normal(c1, c2, fallback, &dist);
    float sep = dist - r1 - r2;
    m->count = 0;
    if (sep > margin) return 0;
    m->normal = n;
    tp_pm_add(m, tp_mad(c1, n, r1), tp_mad(c2, n, -r2), sep, feature);
    return 1;
}

/* Ball (radius r1, centre at the origin) against ball (radius r2) at xf.t. */
TP_HD int tp_collide_ball_ball(float r1, float r2, tp_xform xf, float margin, tp_pair_manifold *m)
{
    return tp_round_single(tp_v3(0.0f, 0.0f, 0.0f), r1, xf.t, r2, tp_v3(0.0f, 0.0f, 1.0f), margin,
                           tp_feat_round(TP_ROUND_CENTRES, 0), m);
}

/* Ball (radius r1) against a capsule (radius r2, half core h2) posed by xf. */
TP_HD int tp_collide_ball_capsule(float r1, float r2, float h2, tp_xform xf, float margin, tp_pair_manifold *m)
{
    tp_vec3 c = tp_v3(0.0f, 0.0f, 0.0f);
    tp_vec3 a = tp_xf_apply(xf, tp_v3(-h2, 0.0f, 0.0f)), b = tp_xf_apply(xf, tp_v3(h2, 0.0f, 0.0f));
    tp_vec3 q = tp_closest_on_segment(a, b, c);
    tp_vec3 fallback = tp_any_perpendicular(tp_normalize_or(tp_sub(b, a), tp_v3(1.0f, 0.0f, 0.0f)));
    return tp_round_single(c, r1, q, r2, fallback, margin, tp_feat_round(TP_ROUND_CENTRES, 0), m);
}

/* Capsule (r1, h1) against capsule (r2, h2) posed by xf. */
TP_HD int tp_collide_capsule_capsule(float r1, float h1, float r2, float h2, tp_xform xf, float margin,
                                     tp_pair_manifold *m)
{
    tp_vec3 a0 = tp_v3(-h1, 0.0f, 0.0f), a1 = tp_v3(h1, 0.0f, 0.0f);
    tp_vec3 b0 = tp_xf_apply(xf, tp_v3(-h2, 0.0f, 0.0f)), b1 = tp_xf_apply(xf, tp_v3(h2, 0.0f, 0.0f));
    tp_vec3 u1 = tp_v3(1.0f, 0.0f, 0.0f), u2 = tp_q_rotate(xf.q, tp_v3(1.0f, 0.0f, 0.0f));
    float s, t;
    tp_closest_seg_seg(a0, a1, b0, b1, &s, &t);
    tp_vec3 c1 = tp_mad(a0, tp_sub(a1, a0), s), c2 = tp_mad(b0, tp_sub(b1, b0), t);
    /* coincident cores: push apart perpendicular to both axes, towards second */
    tp_vec3 fallback = tp_normalize_or(tp_cross(u1, u2), tp_any_perpendicular(u1));
    if (tp_dot(fallback, xf.t) < 0.0f) fallback = tp_neg(fallback);
    float dist;
    tp_vec3 n = tp_round_normal(c1, c2, fallback, &dist);
    m->count = 0;
    if (dist - r1 - r2 > margin) return 0;
    m->normal = n;

    /* nearly parallel cores (angle below ~3 degrees) that overlap along the
     * first's axis: two points at the ends of the overlap */
    float cross_len = tp_len(tp_cross(u1, u2));
    if (h1 > 0.0f && h2 > 0.0f && cross_len < 0.05f) {
        float e0 = b0.x, e1 = b1.x; /* second's core ends projected on first's axis (x) */
        int l0 = 2, l1 = 3;
        if (e1 < e0) { float tmp = e0; e0 = e1; e1 = tmp; l0 = 3; l1 = 2; }
        float lo = e0, hi = e1;
        if (-h1 >= lo) { lo = -h1; l0 = 0; }
        if (h1 <= hi) { hi = h1; l1 = 1; }
        if (hi - lo > 1e-4f * (h1 + h2)) {
            float xs[2] = {lo, hi};
            int labels[2] = {l0, l1};
            for (int k = 0; k < 2; ++k) {
                tp_vec3 p1 = tp_v3(xs[k], 0.0f, 0.0f);
                tp_vec3 p2 = tp_closest_on_segment(b0, b1, p1);
                float sep = tp_dot(tp_sub(p2, p1), n) - r1 - r2;
                if (sep <= margin)
                    tp_pm_add(m, tp_mad(p1, n, r1), tp_mad(p2, n, -r2), sep,
                              tp_feat_round(TP_ROUND_SEGMENTS, labels[k]));
            }
            if (m->count > 0) return m->count;
        }
    }
    tp_pm_add(m, tp_mad(c1, n, r1), tp_mad(c2, n, -r2), dist - r1 - r2, tp_feat_round(TP_ROUND_SEGMENTS, 4));
    return 1;
}

#endif
