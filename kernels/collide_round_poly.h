/* collide_round_poly.h - manifolds between a convex polyhedron (box, wedge,
 * corner wedge) and a round shape (ball or capsule).
 *
 * The round shape is its core (a point, or a segment) grown by its radius r.
 *   - Ball: if the centre is outside the polyhedron, the closest point on the
 *     polyhedron (Ericson 5.1: the face whose plane is farthest is the only face
 *     whose interior can hold it, otherwise the closest point of an edge or
 *     vertex); if inside, the face of least penetration. One point.
 *   - Capsule, core apart from the polyhedron (Cyrus-Beck clipping decides,
 *     Ericson 5.3.8): the exact nearest pair (segment ends against the
 *     polyhedron, segment against every edge) gives distance and normal. When
 *     that normal is a face normal, the core is clipped against the face's side
 *     planes instead, for two points, so a capsule lying on a face rests on
 *     both ends (as Box2D v3 does in 2-D), provided they hold the nearest point.
 *   - Capsule, core through the polyhedron (deep): SAT over the face normals
 *     and the cross products of the core with the edges whose Gauss-map arc
 *     crosses the core's great circle (Gregorius 2013, the segment as a
 *     degenerate polyhedron); a face axis clips the core to that face, an edge
 *     axis gives the closest points of core and edge. SAT alone is not used
 *     while the cores are apart: with a segment's missing face axes it can
 *     report touching for a core that is far away.
 * The polyhedron is the pair's first shape: functions work in its frame and the
 * normal points from the polyhedron to the round shape. */
#ifndef TP_COLLIDE_ROUND_POLY_H
#define TP_COLLIDE_ROUND_POLY_H

#include "manifold.h"

typedef struct tp_poly_nearest {
    tp_vec3 q;        /* nearest point on the polyhedron */
    float dist;       /* distance to it; the deepest face's separation when inside */
    int inside;       /* the point is inside (or on) the polyhedron */
    int face;         /* the face of largest separation */
    uint32_t feature; /* TP_ROUND_POLY_FACE / TP_ROUND_POLY_EDGE id */
} tp_poly_nearest;

/* Is x (on the plane of face f) inside the face polygon? */
TP_HD int tp_face_contains(const tp_poly *p, int f, tp_vec3 x)
{
    const tp_poly_face *face = &p->f[f];
    for (int k = 0; k < face->count; ++k) {
        tp_vec3 a = p->v[face->vert[k]], b = p->v[face->vert[(k + 1) % face->count]];
        if (tp_dot(tp_cross(tp_sub(b, a), face->n), tp_sub(x, a)) > 0.0f) return 0;
    }
    return 1;
}

/* Nearest point of polyhedron p to point c (same frame). */
TP_HD tp_poly_nearest tp_poly_nearest_point(const tp_poly *p, tp_vec3 c)
{
    tp_poly_nearest r;
    float best = -3.0e38f;
    r.face = 0;
    for (int i = 0; i < p->nf; ++i) {
        float s = tp_dot(p->f[i].n, c) - p->f[i].d;
        if (s > best) { best = s; r.face = i; }
    }
    tp_vec3 proj = tp_mad(c, p->f[r.face].n, -best);
    r.inside = best <= 0.0f;
    if (r.inside || tp_face_contains(p, r.face, proj)) {
        r.q = proj;
        r.dist = best;
        r.feature = tp_feat_round(TP_ROUND_POLY_FACE, r.face);
        return r;
    }
    float best_d2 = 3.0e38f;
    int best_e = 0;
    r.q = proj;
    for (int e = 0; e < p->ne; ++e) {
        tp_vec3 x = tp_closest_on_segment(p->v[p->e[e].v[0]], p->v[p->e[e].v[1]], c);
        float d2 = tp_len_sq(tp_sub(c, x));
        if (d2 < best_d2) { best_d2 = d2; best_e = e; r.q = x; }
    }
    r.dist = sqrtf(best_d2);
    r.feature = tp_feat_round(TP_ROUND_POLY_EDGE, best_e);
    return r;
}

/* Polyhedron p (first) against a ball of radius r whose centre is at c in p's frame. */
TP_HD int tp_collide_poly_ball(const tp_poly *p, tp_vec3 c, float r, float margin, tp_pair_manifold *m)
{
    tp_poly_nearest np = tp_poly_nearest_point(p, c);
    m->count = 0;
    if (np.dist - r > margin) return 0;
    tp_vec3 n = np.inside ? p->f[np.face].n : tp_scale(tp_sub(c, np.q), 1.0f / np.dist);
    if (!np.inside && !(np.dist > 1e-6f)) n = p->f[np.face].n;
    m->normal = n;
    tp_pm_add(m, np.q, tp_mad(c, n, -r), np.dist - r, np.feature);
    return 1;
}

/* Exact nearest pair between segment [s0, s1] and polyhedron p when they do not
 * overlap: the segment ends against the polyhedron, and the segment against
 * every edge. Returns the distance; *on_seg and *on_poly get the points. */
TP_HD float tp_segment_poly_nearest(const tp_poly *p, tp_vec3 s0, tp_vec3 s1, tp_vec3 *on_seg, tp_vec3 *on_poly,
                                    uint32_t *feature)
{
    tp_poly_nearest n0 = tp_poly_nearest_point(p, s0), n1 = tp_poly_nearest_point(p, s1);
    float best = n0.dist;
    *on_seg = s0;
    *on_poly = n0.q;
    *feature = n0.feature;
    if (n1.dist < best) {
        best = n1.dist;
        *on_seg = s1;
        *on_poly = n1.q;
        *feature = n1.feature;
    }
    for (int e = 0; e < p->ne; ++e) {
        tp_vec3 a = p->v[p->e[e].v[0]], b = p->v[p->e[e].v[1]];
        float s, t;
        tp_closest_seg_seg(s0, s1, a, b, &s, &t);
        tp_vec3 x = tp_mad(s0, tp_sub(s1, s0), s), y = tp_mad(a, tp_sub(b, a), t);
        float d = tp_len(tp_sub(x, y));
        if (d < best) {
            best = d;
            *on_seg = x;
            *on_poly = y;
            *feature = tp_feat_round(TP_ROUND_POLY_EDGE, e);
        }
    }
    return best;
}

/* Clip segment [s0, s1] to the side planes of face f; returns 0 when nothing
 * is left, else the two ends and their end labels (0/1 core end, 2 + g cut by
 * reference edge g). */
TP_HD int tp_clip_segment_to_face(const tp_poly *p, int f, tp_vec3 s0, tp_vec3 s1, tp_vec3 *out, int *labels)
{
    const tp_poly_face *face = &p->f[f];
    float t0 = 0.0f, t1 = 1.0f;
    labels[0] = 0;
    labels[1] = 1;
    for (int k = 0; k < face->count; ++k) {
        tp_vec3 a = p->v[face->vert[k]], b = p->v[face->vert[(k + 1) % face->count]];
        tp_vec3 side = tp_cross(tp_sub(b, a), face->n);
        float d0 = tp_dot(side, tp_sub(s0, a)), d1 = tp_dot(side, tp_sub(s1, a));
        if (d0 > 0.0f && d1 > 0.0f) return 0;
        if (d0 > 0.0f) {
            float t = d0 / (d0 - d1);
            if (t > t0) { t0 = t; labels[0] = 2 + face->edge[k]; }
        } else if (d1 > 0.0f) {
            float t = d0 / (d0 - d1);
            if (t < t1) { t1 = t; labels[1] = 2 + face->edge[k]; }
        }
    }
    if (t0 > t1) return 0;
    tp_vec3 d = tp_sub(s1, s0);
    out[0] = tp_mad(s0, d, t0);
    out[1] = tp_mad(s0, d, t1);
    return 1;
}

/* Segment-vs-polyhedron SAT: best face axis (always) and best edge axis (if any). */
TP_HD float tp_sat_segment(const tp_poly *p, tp_vec3 s0, tp_vec3 s1, int *face, float *edge_sep, int *edge,
                           tp_vec3 *edge_axis)
{
    float best = -3.0e38f;
    *face = 0;
    for (int i = 0; i < p->nf; ++i) {
        tp_vec3 n = p->f[i].n;
        float s = tp_minf(tp_dot(n, s0), tp_dot(n, s1)) - p->f[i].d;
        if (s > best) { best = s; *face = i; }
    }
    tp_vec3 u = tp_sub(s1, s0);
    *edge_sep = -3.0e38f;
    *edge = -1;
    for (int e = 0; e < p->ne; ++e) {
        tp_vec3 na = p->f[p->e[e].f[0]].n, nb = p->f[p->e[e].f[1]].n;
        /* the segment's Gauss map is the great circle normal to u */
        if (!(tp_dot(na, u) * tp_dot(nb, u) < 0.0f)) continue;
        tp_vec3 a = p->v[p->e[e].v[0]], de = tp_sub(p->v[p->e[e].v[1]], a);
        tp_vec3 axis = tp_cross(u, de);
        float l2 = tp_len_sq(axis);
        if (!(l2 > 1e-10f * tp_len_sq(u) * tp_len_sq(de))) continue;
        axis = tp_scale(axis, 1.0f / sqrtf(l2));
        if (tp_dot(axis, tp_sub(a, p->centroid)) < 0.0f) axis = tp_neg(axis);
        float s = tp_dot(axis, tp_sub(s0, a));
        if (s > *edge_sep) { *edge_sep = s; *edge = e; *edge_axis = axis; }
    }
    return best;
}

/* Does segment [s0, s1] meet the polyhedron? Clip it against every face's
 * half-space (Cyrus-Beck; Ericson 5.3.8). */
TP_HD int tp_segment_meets_poly(const tp_poly *p, tp_vec3 s0, tp_vec3 s1)
{
    float t0 = 0.0f, t1 = 1.0f;
    for (int i = 0; i < p->nf; ++i) {
        float d0 = tp_dot(p->f[i].n, s0) - p->f[i].d, d1 = tp_dot(p->f[i].n, s1) - p->f[i].d;
        if (d0 > 0.0f && d1 > 0.0f) return 0;
        if (d0 > 0.0f) t0 = tp_maxf(t0, d0 / (d0 - d1));
        else if (d1 > 0.0f) t1 = tp_minf(t1, d0 / (d0 - d1));
        if (t0 > t1) return 0;
    }
    return 1;
}

/* Capsule core apart from the polyhedron: the exact nearest pair gives the
 * normal; when it is (within ~8 degrees) a face normal, the core clipped to
 * that face gives two points, provided they hold the nearest one. */
TP_HD int tp_poly_capsule_apart(const tp_poly *p, tp_vec3 s0, tp_vec3 s1, float r, float margin,
                                tp_pair_manifold *m)
{
    tp_vec3 on_seg, on_poly;
    uint32_t feat;
    float near = tp_segment_poly_nearest(p, s0, s1, &on_seg, &on_poly, &feat);
    if (near - r > margin) return 0;
    int face = 0;
    float best = -2.0f;
    tp_vec3 n = tp_v3(0.0f, 0.0f, 1.0f);
    if (near > 1e-6f) n = tp_scale(tp_sub(on_seg, on_poly), 1.0f / near);
    for (int i = 0; i < p->nf; ++i) {
        float c = tp_dot(p->f[i].n, n);
        if (c > best) { best = c; face = i; }
    }
    if (!(near > 1e-6f)) n = p->f[face].n;
    tp_vec3 pts[2];
    int labels[2];
    if (best > 0.99f && tp_clip_segment_to_face(p, face, s0, s1, pts, labels)) {
        tp_vec3 fn = p->f[face].n;
        float seps[2] = {tp_dot(fn, pts[0]) - p->f[face].d - r, tp_dot(fn, pts[1]) - p->f[face].d - r};
        int count = tp_len_sq(tp_sub(pts[1], pts[0])) > 1e-12f ? 2 : 1;
        float lowest = count == 2 ? tp_minf(seps[0], seps[1]) : seps[0];
        if (lowest <= near - r + 0.001f) {
            m->normal = fn;
            for (int k = 0; k < count; ++k)
                if (seps[k] <= margin)
                    tp_pm_add(m, tp_mad(pts[k], fn, -(seps[k] + r)), tp_mad(pts[k], fn, -r), seps[k],
                              tp_feat_round(TP_ROUND_FACE_CLIP, (face << 7) | labels[k]));
            if (m->count > 0) return m->count;
        }
    }
    m->normal = n;
    tp_pm_add(m, on_poly, tp_mad(on_seg, n, -r), near - r, feat);
    return 1;
}

/* The larger of m and |x|, NaN if either is (tp_maxf drops a NaN first argument). */
TP_HD float tp_max_abs_nan(float m, float x)
{
    float a = tp_absf(x);
    return a <= m || m != m ? m : a;
}

/* Is a capsule (core [s0, s1], radius r) farther than margin from box p, by
 * a face plane that both core ends lie beyond? Then tp_collide_poly_capsule
 * returns no point either (the core misses the box, and every candidate
 * distance of tp_segment_poly_nearest is at least that plane distance, less
 * rounding), so it need not run. A box's vertices lie exactly on its face
 * planes; the slack covers the rounding of the candidates' points (a few
 * float ulps of the largest coordinate). Non-finite input: 0 (the full test
 * runs). Only for a box's polytope (tp_poly_build): a hull's vertices may lie
 * off its planes. */
TP_HD int tp_capsule_clear_of_box(const tp_poly *p, tp_vec3 s0, tp_vec3 s1, float r, float margin)
{
    float sep = -3.0e38f, size = 0.0f, c[6] = {s0.x, s0.y, s0.z, s1.x, s1.y, s1.z};
    for (int k = 0; k < 6; ++k) size = tp_max_abs_nan(size, c[k]);
    for (int i = 0; i < p->nf; ++i) {
        float d0 = tp_dot(p->f[i].n, s0) - p->f[i].d, d1 = tp_dot(p->f[i].n, s1) - p->f[i].d;
        float both = d0 < d1 ? d0 : d1;
        if (both > sep) sep = both;
        size = tp_max_abs_nan(size, p->f[i].d);
    }
    return size < 1.0e15f && sep - r > margin + 1.0e-5f * (1.0f + size);
}

/* Polyhedron p (first) against a capsule of radius r whose core runs from s0 to
 * s1 in p's frame. */
TP_HD int tp_collide_poly_capsule(const tp_poly *p, tp_vec3 s0, tp_vec3 s1, float r, float margin,
                                  tp_pair_manifold *m)
{
    m->count = 0;
    if (!tp_segment_meets_poly(p, s0, s1)) return tp_poly_capsule_apart(p, s0, s1, r, margin, m);

    /* the core passes through the polyhedron: least penetration by SAT */
    int face, edge;
    float edge_sep;
    tp_vec3 edge_axis = tp_v3(0.0f, 0.0f, 1.0f);
    float face_sep = tp_sat_segment(p, s0, s1, &face, &edge_sep, &edge, &edge_axis);
    if (edge >= 0 && edge_sep > face_sep + TP_EDGE_TOL + 0.05f * tp_absf(face_sep)) {
        tp_vec3 a = p->v[p->e[edge].v[0]], b = p->v[p->e[edge].v[1]];
        float s, t;
        tp_closest_seg_seg(s0, s1, a, b, &s, &t);
        tp_vec3 x = tp_mad(s0, tp_sub(s1, s0), s), y = tp_mad(a, tp_sub(b, a), t);
        m->normal = edge_axis;
        tp_pm_add(m, y, tp_mad(x, edge_axis, -r), edge_sep - r, tp_feat_round(TP_ROUND_DEEP_EDGE, edge));
        return 1;
    }
    tp_vec3 n = p->f[face].n, pts[2];
    int labels[2];
    m->normal = n;
    if (tp_clip_segment_to_face(p, face, s0, s1, pts, labels)) {
        int count = tp_len_sq(tp_sub(pts[1], pts[0])) > 1e-12f ? 2 : 1;
        for (int k = 0; k < count; ++k) {
            float sep = tp_dot(n, pts[k]) - p->f[face].d - r;
            if (sep <= margin)
                tp_pm_add(m, tp_mad(pts[k], n, -(sep + r)), tp_mad(pts[k], n, -r), sep,
                          tp_feat_round(TP_ROUND_FACE_CLIP, (face << 7) | labels[k]));
        }
        if (m->count > 0) return m->count;
    }
    /* the core misses the face's side planes: its deepest end */
    int end = tp_dot(n, s0) <= tp_dot(n, s1) ? 0 : 1;
    tp_vec3 x = end == 0 ? s0 : s1;
    float sep = tp_dot(n, x) - p->f[face].d - r;
    tp_pm_add(m, tp_mad(x, n, -(sep + r)), tp_mad(x, n, -r), sep,
              tp_feat_round(TP_ROUND_FACE_CLIP, (face << 7) | end));
    return 1;
}

#endif
