/* manifold.h - the manifold the pair functions build, feature ids, and the
 * shared helpers of the narrowphase (closest points, point reduction).
 *
 * Every pair function works in the body frame of the pair's "first" shape and
 * writes a tp_pair_manifold there: one normal pointing from first to second, and
 * per point the point on the first shape's surface, the point on the second
 * shape's surface, the separation and a feature id. narrowphase.h maps it to
 * the bodies A (lower index) and B and to their own frames (tp_manifold).
 *
 * Feature id (17 bits, the low bits of the contact key), written for the pair
 * (first, second); tp_feature_swap gives the id with the roles exchanged:
 *
 *   bits 16..15  kind
 *     0  face clipping, reference face on first      | bits 14..13 label type
 *     1  face clipping, reference face on second     |   (TP_CLIP_*), below
 *     2  edge-edge: bits 11..6 edge of first, bits 5..0 edge of second
 *     3  a ball or capsule is involved: bits 14..12 sub-kind (TP_ROUND_*),
 *        bits 11..0 payload
 *   clip labels (kinds 0, 1):
 *     TP_CLIP_VERTEX  incident vertex v:   bits 9..5 reference face, bits 4..0 v
 *     TP_CLIP_EDGE    incident edge e cut by the side plane of reference edge g:
 *                                          bits 11..6 e, bits 5..0 g
 *     TP_CLIP_CORNER  reference face corner between reference edges g < h:
 *                                          bits 11..6 g, bits 5..0 h
 *     TP_CLIP_SEGMENT a segment (edge, capsule core, cylinder side) clipped to
 *                     a reference face or cap, or to another segment:
 *                                          bits 12..7 reference face (63:
 *                                          segment-segment), bits 6..0 end
 *                                          label (collide_cylinder.h)
 * Vertex, edge and face numbers are those of tp_poly_build (a cylinder's cap
 * rim is numbered as in collide_cylinder.h), a fixed function of the shape type, so the id names the same geometric features from step to
 * step whatever the pose. Within one manifold the ids are distinct (each label
 * arises at most once in Sutherland-Hodgman clipping of a convex polygon), so
 * every point of a world has a distinct contact key. */
#ifndef TP_MANIFOLD_H
#define TP_MANIFOLD_H

#include "shapes.h"

/* Speculative margin (m): points are generated while the shapes are up to this
 * far apart, so resting contact is continuous and the solver can stop an
 * approach before it penetrates (4 x a linear slop of 5 mm, as Box2D v3). */
#define TP_CONTACT_MARGIN 0.02f
/* Two candidate reference faces whose separations differ by less than this (m)
 * are a tie, broken by TP_REF_PREFER rather than by noise: stops the reference
 * face flipping between two resting boxes (and their feature ids with it). */
#define TP_FACE_FLIP_TOL 0.0005f
/* World direction that breaks reference-face ties: mostly up, skewed so that
 * no axis-aligned face normal is perpendicular to it. */
#define TP_REF_PREFER_X 0.1f
#define TP_REF_PREFER_Y 0.2f
#define TP_REF_PREFER_Z 1.0f
/* An edge-edge axis wins over the best face axis only when its separation is
 * larger by this much (m) plus 5 % of |face separation|. */
#define TP_EDGE_TOL 0.001f
#define TP_MAX_MANIFOLD_POINTS 4

enum { TP_FEAT_CLIP_FIRST = 0, TP_FEAT_CLIP_SECOND = 1, TP_FEAT_EDGE_EDGE = 2, TP_FEAT_ROUND = 3 };
enum { TP_CLIP_VERTEX = 0, TP_CLIP_EDGE = 1, TP_CLIP_CORNER = 2, TP_CLIP_SEGMENT = 3 };
/* sub-kinds of TP_FEAT_ROUND */
enum {
    TP_ROUND_CENTRES = 0,   /* ball-ball, ball-capsule: payload 0 */
    TP_ROUND_SEGMENTS = 1,  /* capsule-capsule: payload 0, 1 first's end k, 2, 3 second's end k-2, 4 closest */
    TP_ROUND_FACE_CLIP = 2, /* capsule on a face: bits 11..7 face, bits 6..0 end label (0/1 core
                               end, 2 + g cut by the side plane of reference edge g) */
    TP_ROUND_POLY_EDGE = 3, /* ball/capsule nearest to a poly edge or vertex: payload edge */
    TP_ROUND_POLY_FACE = 4, /* ball/capsule nearest to a face interior: payload face */
    TP_ROUND_DEEP_EDGE = 5, /* capsule core through an edge axis: payload edge */
    TP_ROUND_CYLINDER = 6   /* a single point of a cylinder pair: payload TP_CYL_PT_* */
};
/* payloads of TP_ROUND_CYLINDER: where the point lies (collide_cylinder.h) */
enum {
    TP_CYL_PT_CAP0 = 0,    /* ball on the -x cap */
    TP_CYL_PT_CAP1 = 1,    /* ball on the +x cap */
    TP_CYL_PT_SIDE = 2,    /* ball on the side */
    TP_CYL_PT_RIM = 3,     /* ball on a rim */
    TP_CYL_PT_SUPPORT = 4, /* GJK / MPR closest or deepest pair */
    TP_CYL_PT_FACE = 5,    /* a shape's deepest point on a face or cap */
    TP_CYL_PT_SEGMENT = 6, /* a point nearest to a segment (edge, core, side) */
    TP_CYL_PT_CROSSED = 7, /* two crossed segments */
    TP_CYL_PT_VERTEX = 8   /* a vertex or capsule end nearest to a cylinder */
};

TP_HD uint32_t tp_feat_clip(int kind, int type, int hi, int lo)
{
    int shift = type == TP_CLIP_VERTEX ? 5 : 6;
    return ((uint32_t)kind << 15) | ((uint32_t)type << 13) | ((uint32_t)hi << shift) | (uint32_t)lo;
}
TP_HD uint32_t tp_feat_edges(int edge_first, int edge_second)
{
    return ((uint32_t)TP_FEAT_EDGE_EDGE << 15) | ((uint32_t)edge_first << 6) | (uint32_t)edge_second;
}
TP_HD uint32_t tp_feat_round(int sub, int payload)
{
    return ((uint32_t)TP_FEAT_ROUND << 15) | ((uint32_t)sub << 12) | (uint32_t)payload;
}

/* The same feature id with first and second exchanged. */
TP_HD uint32_t tp_feature_swap(uint32_t f)
{
    uint32_t kind = f >> 15;
    if (kind == TP_FEAT_CLIP_FIRST || kind == TP_FEAT_CLIP_SECOND) return f ^ (1u << 15);
    if (kind == TP_FEAT_EDGE_EDGE) return (f & ~0xFFFu) | ((f & 0x3Fu) << 6) | ((f >> 6) & 0x3Fu);
    if (((f >> 12) & 7u) == TP_ROUND_SEGMENTS) {
        uint32_t p = f & 0xFFFu;
        if (p < 4) return (f & ~0xFFFu) | (p ^ 2u);
    }
    return f;
}

typedef struct tp_pair_manifold {
    tp_vec3 normal;                            /* first's frame, unit, first -> second */
    int count;
    tp_vec3 p1[TP_MAX_MANIFOLD_POINTS];        /* point on first's surface, first's frame */
    tp_vec3 p2[TP_MAX_MANIFOLD_POINTS];        /* point on second's surface, first's frame */
    float sep[TP_MAX_MANIFOLD_POINTS];         /* m, along normal, negative when penetrating */
    uint32_t feature[TP_MAX_MANIFOLD_POINTS];
} tp_pair_manifold;

TP_HD void tp_pm_add(tp_pair_manifold *m, tp_vec3 p1, tp_vec3 p2, float sep, uint32_t feature)
{
    if (m->count >= TP_MAX_MANIFOLD_POINTS) return;
    m->p1[m->count] = p1;
    m->p2[m->count] = p2;
    m->sep[m->count] = sep;
    m->feature[m->count] = feature;
    m->count++;
}

/* Rigid transform x -> rotate(q, x) + t. */
typedef struct tp_xform { tp_quat q; tp_vec3 t; } tp_xform;

TP_HD tp_vec3 tp_xf_apply(tp_xform x, tp_vec3 p) { return tp_add(tp_q_rotate(x.q, p), x.t); }
TP_HD tp_vec3 tp_xf_apply_inv(tp_xform x, tp_vec3 p) { return tp_q_inv_rotate(x.q, tp_sub(p, x.t)); }
/* The pose of `other` seen from the body frame of `self` (both world poses). */
TP_HD tp_xform tp_xf_relative(tp_vec3 self_pos, tp_quat self_q, tp_vec3 other_pos, tp_quat other_q)
{
    tp_xform x;
    x.q = tp_q_mul(tp_q_conj(self_q), other_q);
    x.t = tp_q_inv_rotate(self_q, tp_sub(other_pos, self_pos));
    return x;
}

/* ---------------------------------------------------------------- closest points */

/* Parameters s, t in [0, 1] of the closest points p1 + s (q1 - p1) and
 * p2 + t (q2 - p2) of two segments (Ericson, Real-Time Collision Detection,
 * 5.1.9); degenerate segments and parallel ones (s = 0 there) are handled. */
TP_HD void tp_closest_seg_seg(tp_vec3 p1, tp_vec3 q1, tp_vec3 p2, tp_vec3 q2, float *s_out, float *t_out)
{
    tp_vec3 d1 = tp_sub(q1, p1), d2 = tp_sub(q2, p2), r = tp_sub(p1, p2);
    float a = tp_dot(d1, d1), e = tp_dot(d2, d2), f = tp_dot(d2, r);
    const float eps = 1e-12f;
    float s = 0.0f, t = 0.0f;
    if (a <= eps && e <= eps) {
        s = t = 0.0f;
    } else if (a <= eps) {
        t = tp_clampf(f / e, 0.0f, 1.0f);
    } else {
        float c = tp_dot(d1, r);
        if (e <= eps) {
            s = tp_clampf(-c / a, 0.0f, 1.0f);
        } else {
            float b = tp_dot(d1, d2), denom = a * e - b * b;
            s = denom > 1e-7f * a * e ? tp_clampf((b * f - c * e) / denom, 0.0f, 1.0f) : 0.0f;
            t = (b * s + f) / e;
            if (t < 0.0f) {
                t = 0.0f;
                s = tp_clampf(-c / a, 0.0f, 1.0f);
            } else if (t > 1.0f) {
                t = 1.0f;
                s = tp_clampf((b - c) / a, 0.0f, 1.0f);
            }
        }
    }
    *s_out = s;
    *t_out = t;
}

/* Closest point to p on the segment [a, b]. */
TP_HD tp_vec3 tp_closest_on_segment(tp_vec3 a, tp_vec3 b, tp_vec3 p)
{
    tp_vec3 d = tp_sub(b, a);
    float l2 = tp_dot(d, d);
    if (!(l2 > 1e-12f)) return a;
    float t = tp_clampf(tp_dot(tp_sub(p, a), d) / l2, 0.0f, 1.0f);
    return tp_mad(a, d, t);
}

/* A unit vector perpendicular to u (deterministic choice). */
TP_HD tp_vec3 tp_any_perpendicular(tp_vec3 u)
{
    tp_vec3 axis = tp_absf(u.z) < 0.9f ? tp_v3(0.0f, 0.0f, 1.0f) : tp_v3(1.0f, 0.0f, 0.0f);
    return tp_normalize_or(tp_cross(u, axis), tp_v3(0.0f, 1.0f, 0.0f));
}

/* tp_normalize_or(d, tp_any_perpendicular(n)), with the fallback computed only
 * when it is taken: tp_normalize_or's test and scaling, the same operations
 * (a compiler cannot skip an argument's sqrtf itself: it may set errno). */
TP_HD tp_vec3 tp_normalize_or_perpendicular(tp_vec3 d, tp_vec3 n)
{
    float l2 = tp_len_sq(d);
    if (!(l2 > 1e-24f)) return tp_any_perpendicular(n);
    return tp_scale(d, 1.0f / sqrtf(l2));
}

/* ---------------------------------------------------------------- reduction */

/* Pick at most 4 of n points (positions pos[n], in the plane with unit normal
 * n) that keep the area they span large, as Bullet's and Jolt's manifold
 * reduction do: the point farthest along a fixed skewed tangent t, the point
 * farthest from it, the point making the largest triangle, and the point
 * adding the most area outside that triangle. The choice depends on geometry
 * only (not on depths, which jitter while resting), and ties keep the lower
 * index. keep[4] receives indices; returns how many. */
TP_HD int tp_reduce_points(const tp_vec3 *pos, int n, tp_vec3 normal, tp_vec3 t, int *keep)
{
    if (n <= 4) {
        for (int i = 0; i < n; ++i) keep[i] = i;
        return n;
    }
    int i0 = 0, i1 = -1, i2 = -1, i3 = -1;
    float best = tp_dot(pos[0], t);
    for (int i = 1; i < n; ++i) {
        float s = tp_dot(pos[i], t);
        if (s > best) { best = s; i0 = i; }
    }
    best = -1.0f;
    for (int i = 0; i < n; ++i) {
        if (i == i0) continue;
        float s = tp_len_sq(tp_sub(pos[i], pos[i0]));
        if (s > best) { best = s; i1 = i; }
    }
    float best_area = -1.0f, sign = 1.0f;
    for (int i = 0; i < n; ++i) {
        if (i == i0 || i == i1) continue;
        float a = tp_dot(tp_cross(tp_sub(pos[i1], pos[i0]), tp_sub(pos[i], pos[i0])), normal);
        if (tp_absf(a) > best_area) { best_area = tp_absf(a); i2 = i; sign = a < 0.0f ? -1.0f : 1.0f; }
    }
    /* the fourth point lies outside the triangle on the side where one of its
     * edges has the most negative signed area */
    float worst = 0.0f;
    int tri[3] = {i0, i1, i2};
    for (int i = 0; i < n; ++i) {
        if (i == i0 || i == i1 || i == i2) continue;
        float m = 0.0f;
        for (int k = 0; k < 3; ++k) {
            tp_vec3 a = pos[tri[k]], b = pos[tri[(k + 1) % 3]];
            float s = sign * tp_dot(tp_cross(tp_sub(b, a), tp_sub(pos[i], a)), normal);
            if (s < m) m = s;
        }
        if (m < worst) { worst = m; i3 = i; }
    }
    keep[0] = i0;
    keep[1] = i1;
    keep[2] = i2;
    if (i3 < 0) return 3;
    keep[3] = i3;
    return 4;
}

#endif
