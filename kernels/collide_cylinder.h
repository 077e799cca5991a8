/* collide_cylinder.h - manifolds of the pairs that involve a round cylinder.
 *
 * The cylinder lies along its local x, half length h = size.x / 2, radius
 * r = min(size.y, size.z) / 2 (shapes.h). Two methods:
 *
 *   - Cylinder-ball, in closed form: the nearest point of the solid cylinder
 *     to the ball's centre (clamp the axial coordinate to [-h, h] and the
 *     radial distance to r), or, for a centre inside, the nearer of the cap
 *     and the side. One point.
 *
 *   - Against a box, wedge, corner wedge, capsule or cylinder: GJK on the
 *     cores while they are more than TP_GJK_NEAR apart (its certified lower
 *     bound and direction: never more than the true gap), MPR when they touch
 *     or overlap (collide_support.h, sources there), which give a normal n
 *     and a separation. Then, as Jolt and Bullet build
 *     manifolds from "supporting faces", each shape's touching feature in the
 *     direction of the other (tp_touch_of) decides the points:
 *       polygon  a polyhedron face within ~8 degrees of n, or a cylinder cap
 *                (a rim of TP_CYL_RIM points, plus the exact disc);
 *       segment  a polyhedron edge, a capsule core or a cylinder side (the
 *                axis plus the radius r) within ~8 degrees of perpendicular
 *                to n;
 *       point    anything else.
 *     polygon-polygon: the incident polygon is clipped against the side
 *       planes of the reference one (Sutherland-Hodgman, as collide_poly.h)
 *       and reduced to 4 points; the reference is the face whose outward
 *       normal leans more along TP_REF_PREFER (the lower body's top face), so
 *       the choice does not flip while a body rests.
 *     polygon-segment: the segment is clipped to the polygon (Cyrus-Beck), or
 *       to the exact disc of a cap: 2 points, at the segment's ends when it
 *       lies fully on the face (a cylinder lying on its side rests on both
 *       ends of its bottom line).
 *     segment-segment: nearly parallel (under ~3 degrees), 2 points at the
 *       ends of the overlap with the normal between the two lines; crossed,
 *       the closest points of the two lines.
 *     polygon-point, segment-point, vertex-cylinder: the exact nearest pair
 *     (a rim point first refined against the segment, tp_rim_polish).
 *     Otherwise, when the features give nothing, or when their deepest point
 *     is clearly shallower than the GJK / MPR separation (the contact lies
 *     beyond a clipped face's edge), the GJK / MPR pair is the single point.
 *   The normal of a polygon manifold is the reference face's normal and that
 *   of a segment manifold comes from the lines, so resting contact does not
 *   carry the iteration error of GJK / MPR on curved surfaces.
 *
 * Feature ids (manifold.h) use the clip labels of collide_poly.h with a
 * cylinder's cap numbered as a polyhedron face would be: cap 0 at -x, cap 1 at
 * +x, rim point j of cap c is vertex 16 c + j (angle j pi / 8 from +y towards
 * +z), rim edge j of cap c joins rim points j and j + 1. Segment clips use the
 * TP_CLIP_SEGMENT label: the reference face (63 for segment-segment) and an
 * end label, 0 / 1 an end of the incident segment, 2 + g where reference edge
 * g cut it (2 / 3 near end 0 / 1 for a disc's rim; for segment-segment 2 / 3
 * the reference segment's ends). Single points are TP_ROUND_CYLINDER with the
 * region. None depends on the cylinder's spin about its axis, so a rolling
 * cylinder keeps its two ids.
 *
 * Stack: two tp_poly (about 0.4 KiB each), two features and two clip
 * buffers, under 3 KiB per pair. */
#ifndef TP_COLLIDE_CYLINDER_H
#define TP_COLLIDE_CYLINDER_H

#include "collide_poly.h"
#include "collide_touch.h"

/* Two segments count as parallel under asin(0.05) ~ 2.9 degrees (as capsules). */
#define TP_PARALLEL_SIN 0.05f
/* alternating projections that refine a rim point against a segment */
#define TP_RIM_POLISH_ITER 8
/* reference id of a segment-segment manifold (TP_CLIP_SEGMENT label) */
#define TP_SEGMENT_REF 63

/* ---------------------------------------------------------------- feature pairs */

TP_HD uint32_t tp_feat_segment(int ref_first, int ref, int label)
{
    return ((uint32_t)(ref_first ? TP_FEAT_CLIP_FIRST : TP_FEAT_CLIP_SECOND) << 15) |
           ((uint32_t)TP_CLIP_SEGMENT << 13) | ((uint32_t)ref << 7) | (uint32_t)label;
}

/* Add a point given on the reference (on_ref) and incident (on_inc) surfaces. */
TP_HD void tp_pm_add_ref(tp_pair_manifold *m, int ref_first, tp_vec3 on_ref, tp_vec3 on_inc, float sep, uint32_t f)
{
    if (ref_first) tp_pm_add(m, on_ref, on_inc, sep, f);
    else tp_pm_add(m, on_inc, on_ref, sep, f);
}

/* Incident polygon I clipped against reference polygon R, reduced to 4 points. */
TP_HD int tp_touch_polygons(const tp_touch *R, const tp_touch *I, int ref_first, float margin, tp_pair_manifold *m)
{
    tp_clip_poly buf[2];
    buf[0].count = I->count;
    for (int k = 0; k < I->count; ++k) {
        buf[0].p[k] = I->p[k];
        buf[0].label[k] = (TP_CLIP_VERTEX << 13) | (R->id << 5) | I->vid[k];
        buf[0].line[k] = I->eid[k];
    }
    int cur = 0;
    for (int k = 0; k < R->count && buf[cur].count > 0; ++k) {
        tp_vec3 a = R->p[k], b = R->p[k + 1 == R->count ? 0 : k + 1];
        tp_vec3 side = tp_cross(tp_sub(b, a), R->n);
        tp_clip_plane(&buf[cur], side, tp_dot(side, a), R->eid[k], &buf[1 - cur]);
        cur = 1 - cur;
    }
    tp_clip_poly *cp = &buf[cur], *kept = &buf[1 - cur];
    float sep[TP_CLIP_MAX];
    kept->count = 0;
    for (int k = 0; k < cp->count; ++k) {
        float s = tp_dot(R->n, cp->p[k]) - R->d;
        if (s > margin) continue;
        sep[kept->count] = s;
        kept->p[kept->count] = cp->p[k];
        kept->label[kept->count] = cp->label[k];
        kept->count++;
    }
    m->count = 0;
    if (kept->count == 0) return 0;
    tp_vec3 e1 = tp_normalize_or_perpendicular(tp_sub(R->p[1], R->p[0]), R->n);
    tp_vec3 t = tp_mad(e1, tp_cross(R->n, e1), 0.35f);
    int keep[4];
    int count = tp_reduce_points(kept->p, kept->count, R->n, t, keep);
    m->normal = ref_first ? R->n : tp_neg(R->n);
    uint32_t kind = ref_first ? TP_FEAT_CLIP_FIRST : TP_FEAT_CLIP_SECOND;
    for (int i = 0; i < count; ++i) {
        int k = keep[i];
        tp_pm_add_ref(m, ref_first, tp_mad(kept->p[k], R->n, -sep[k]), kept->p[k], sep[k],
                      (kind << 15) | (uint32_t)kept->label[k]);
    }
    return m->count;
}

/* Parameters [t0, t1] of the part of segment s0 + t (s1 - s0) over polygon R
 * (its side planes, or the exact disc of a cap) with end labels; 0 if none. */
TP_HD int tp_clip_segment_to_touch(const tp_touch *R, tp_vec3 s0, tp_vec3 s1, float *t0, float *t1, int *labels)
{
    *t0 = 0.0f;
    *t1 = 1.0f;
    labels[0] = 0;
    labels[1] = 1;
    if (R->disc) {
        /* |perp(s0 - c) + t perp(s1 - s0)|^2 <= rc^2, perp removing the normal part */
        tp_vec3 a = tp_sub(s0, R->centre), b = tp_sub(s1, s0);
        a = tp_mad(a, R->n, -tp_dot(a, R->n));
        b = tp_mad(b, R->n, -tp_dot(b, R->n));
        float qa = tp_dot(b, b), qb = tp_dot(a, b), qc = tp_dot(a, a) - R->rc * R->rc;
        if (!(qa > 1e-12f)) return qc <= 0.0f;
        float disc = qb * qb - qa * qc;
        if (disc < 0.0f) return 0;
        float root = sqrtf(disc);
        float lo = (-qb - root) / qa, hi = (-qb + root) / qa;
        if (lo > 0.0f) { *t0 = lo; labels[0] = 2; }
        if (hi < 1.0f) { *t1 = hi; labels[1] = 3; }
        return *t0 <= *t1;
    }
    for (int k = 0; k < R->count; ++k) {
        tp_vec3 a = R->p[k], b = R->p[k + 1 == R->count ? 0 : k + 1];
        tp_vec3 side = tp_cross(tp_sub(b, a), R->n);
        float d0 = tp_dot(side, tp_sub(s0, a)), d1 = tp_dot(side, tp_sub(s1, a));
        if (d0 > 0.0f && d1 > 0.0f) return 0;
        if (d0 > 0.0f) {
            float t = d0 / (d0 - d1);
            if (t > *t0) { *t0 = t; labels[0] = 2 + R->eid[k]; }
        } else if (d1 > 0.0f) {
            float t = d0 / (d0 - d1);
            if (t < *t1) { *t1 = t; labels[1] = 2 + R->eid[k]; }
        }
    }
    return *t0 <= *t1;
}

/* Segment S (a core with radius) on reference polygon R: its surface line
 * facing R, clipped to R, up to 2 points. */
TP_HD int tp_touch_polygon_segment(const tp_touch *R, const tp_touch *S, int ref_first, float margin,
                                   tp_pair_manifold *m)
{
    float t0, t1;
    int labels[2];
    m->count = 0;
    tp_vec3 off = tp_touch_offset(S, tp_neg(R->n));
    tp_vec3 s0 = tp_add(S->p[0], off), s1 = tp_add(S->p[1], off);
    if (!tp_clip_segment_to_touch(R, s0, s1, &t0, &t1, labels)) return 0;
    tp_vec3 d = tp_sub(s1, s0);
    tp_vec3 x[2] = {tp_mad(s0, d, t0), tp_mad(s0, d, t1)};
    int count = tp_len_sq(tp_sub(x[1], x[0])) > 1e-12f ? 2 : 1;
    m->normal = ref_first ? R->n : tp_neg(R->n);
    for (int k = 0; k < count; ++k) {
        float sep = tp_dot(R->n, x[k]) - R->d;
        if (sep <= margin)
            tp_pm_add_ref(m, ref_first, tp_mad(x[k], R->n, -sep), x[k], sep, tp_feat_segment(ref_first, R->id, labels[k]));
    }
    return m->count;
}

/* Is x over polygon R (inside its side planes, or its disc)? */
TP_HD int tp_touch_covers(const tp_touch *R, tp_vec3 x)
{
    if (R->disc) {
        tp_vec3 a = tp_sub(x, R->centre);
        a = tp_mad(a, R->n, -tp_dot(a, R->n));
        return tp_len_sq(a) <= R->rc * R->rc;
    }
    for (int k = 0; k < R->count; ++k) {
        tp_vec3 a = R->p[k], b = R->p[k + 1 == R->count ? 0 : k + 1];
        if (tp_dot(tp_cross(tp_sub(b, a), R->n), tp_sub(x, a)) > 0.0f) return 0;
    }
    return 1;
}

/* Reference polygon R against the deepest point of shape o along -R.n. */
TP_HD int tp_touch_polygon_point(const tp_touch *R, const tp_cyl_shape *o, int ref_first, float margin,
                                 tp_pair_manifold *m)
{
    tp_vec3 x = tp_core_support(&o->core, tp_neg(R->n));
    m->count = 0;
    if (!tp_touch_covers(R, x)) return 0;
    float sep = tp_dot(R->n, x) - R->d - o->radius;
    if (sep > margin) return 0;
    m->normal = ref_first ? R->n : tp_neg(R->n);
    tp_pm_add_ref(m, ref_first, tp_mad(x, R->n, -(sep + o->radius)), tp_mad(x, R->n, -o->radius), sep,
                  tp_feat_round(TP_ROUND_CYLINDER, TP_CYL_PT_FACE));
    return 1;
}

/* Segment S (core with radius) against point x with radius rx: the nearest
 * pair, when it falls inside the segment; n is the GJK / MPR normal (first
 * to second), which the result must roughly agree with. */
TP_HD int tp_touch_segment_point(const tp_touch *S, tp_vec3 x, float rx, int seg_first, tp_vec3 n, float margin,
                                 tp_pair_manifold *m)
{
    tp_vec3 d = tp_sub(S->p[1], S->p[0]);
    float l2 = tp_len_sq(d);
    m->count = 0;
    if (!(l2 > 1e-12f)) return 0;
    float t = tp_dot(tp_sub(x, S->p[0]), d) / l2;
    if (!(t > 0.0f && t < 1.0f)) return 0;
    tp_vec3 q = tp_mad(S->p[0], d, t);
    tp_vec3 v = seg_first ? tp_sub(x, q) : tp_sub(q, x);
    float l = tp_len(v);
    if (!(l > 1e-6f)) return 0;
    tp_vec3 nn = tp_scale(v, 1.0f / l);
    if (tp_dot(nn, n) < 0.9f) return 0;
    float sep = l - S->radius - rx;
    if (sep > margin) return 0;
    m->normal = nn;
    if (seg_first) tp_pm_add(m, tp_mad(q, nn, S->radius), tp_mad(x, nn, -rx), sep, tp_feat_round(TP_ROUND_CYLINDER, TP_CYL_PT_SEGMENT));
    else tp_pm_add(m, tp_mad(x, nn, rx), tp_mad(q, nn, -S->radius), sep, tp_feat_round(TP_ROUND_CYLINDER, TP_CYL_PT_SEGMENT));
    return 1;
}

/* Two segments (cores with radii; f1 on the first shape). */
TP_HD int tp_touch_segments(const tp_touch *f1, const tp_touch *f2, tp_vec3 n, float margin, tp_pair_manifold *m)
{
    tp_vec3 a0 = f1->p[0], a1 = f1->p[1], b0 = f2->p[0], b1 = f2->p[1];
    tp_vec3 u1 = tp_sub(a1, a0), u2 = tp_sub(b1, b0);
    float len1 = tp_len(u1), len2 = tp_len(u2);
    m->count = 0;
    if (!(len1 > 1e-6f && len2 > 1e-6f)) return 0;
    u1 = tp_scale(u1, 1.0f / len1);
    u2 = tp_scale(u2, 1.0f / len2);
    float s, t;
    tp_closest_seg_seg(a0, a1, b0, b1, &s, &t);
    tp_vec3 c1 = tp_mad(a0, tp_sub(a1, a0), s), c2 = tp_mad(b0, tp_sub(b1, b0), t);
    if (tp_len(tp_cross(u1, u2)) < TP_PARALLEL_SIN) {
        /* the overlap of the second's projection with the first, along u1 */
        float e0 = tp_dot(tp_sub(b0, a0), u1), e1 = tp_dot(tp_sub(b1, a0), u1);
        int l0 = 2, l1 = 3;
        if (e1 < e0) { float tmp = e0; e0 = e1; e1 = tmp; l0 = 3; l1 = 2; }
        float lo = e0, hi = e1;
        if (0.0f >= lo) { lo = 0.0f; l0 = 0; }
        if (len1 <= hi) { hi = len1; l1 = 1; }
        tp_vec3 v = tp_sub(c2, c1);
        tp_vec3 nn = tp_normalize_or(tp_mad(v, u1, -tp_dot(v, u1)), tp_v3(0.0f, 0.0f, 0.0f));
        if (hi - lo > 1e-4f * (len1 + len2) && tp_dot(nn, n) >= 0.9f) {
            float xs[2] = {lo, hi};
            int labels[2] = {l0, l1};
            m->normal = nn;
            for (int k = 0; k < 2; ++k) {
                tp_vec3 p1 = tp_mad(a0, u1, xs[k]);
                tp_vec3 p2 = tp_closest_on_segment(b0, b1, p1);
                tp_vec3 s1 = tp_add(p1, tp_touch_offset(f1, nn)), s2 = tp_add(p2, tp_touch_offset(f2, tp_neg(nn)));
                float sep = tp_dot(tp_sub(s2, s1), nn);
                if (sep <= margin) tp_pm_add(m, s1, s2, sep, tp_feat_segment(1, TP_SEGMENT_REF, labels[k]));
            }
            return m->count;
        }
    }
    /* crossed: the closest points, when inside both segments */
    if (!(s > 0.0f && s < 1.0f && t > 0.0f && t < 1.0f)) return 0;
    tp_vec3 v = tp_sub(c2, c1);
    float l = tp_len(v);
    if (!(l > 1e-6f)) return 0;
    tp_vec3 nn = tp_scale(v, 1.0f / l);
    if (tp_dot(nn, n) < 0.9f) return 0;
    float sep = l - f1->radius - f2->radius;
    if (sep > margin) return 0;
    m->normal = nn;
    tp_pm_add(m, tp_mad(c1, nn, f1->radius), tp_mad(c2, nn, -f2->radius), sep,
              tp_feat_round(TP_ROUND_CYLINDER, TP_CYL_PT_CROSSED));
    return 1;
}

/* A rim point x of cylinder c chosen by an approximate normal, moved to the
 * point of c nearest to segment S's core: alternating projections between the
 * core and the solid cylinder (closest point on the segment, then on the
 * cylinder), which converge to the nearest pair of two convex sets. GJK's
 * direction near a rim is only good to a few degrees (its simplex is a flat
 * approximation of the curve), while this pair is exact to rounding. */
TP_HD tp_vec3 tp_rim_polish(const tp_touch *S, const tp_core *c, tp_vec3 x)
{
    for (int it = 0; it < TP_RIM_POLISH_ITER; ++it) {
        tp_vec3 q = tp_closest_on_segment(S->p[0], S->p[1], x), qn, nn;
        int region;
        tp_cylinder_nearest(c->h, c->r, tp_xf_apply_inv(c->xf, q), &qn, &nn, &region);
        x = tp_xf_apply(c->xf, qn);
    }
    return x;
}

/* Cylinder c against a vertex or a capsule end x (radius rx): the exact
 * nearest point of the cylinder (tp_cylinder_nearest). cyl_first: the
 * cylinder is the first shape; n: the GJK / MPR normal, which the result must
 * roughly agree with. */
TP_HD int tp_touch_cylinder_point(const tp_core *c, tp_vec3 x, float rx, int cyl_first, tp_vec3 n, float margin,
                                  tp_pair_manifold *m)
{
    tp_vec3 q, nl;
    int region;
    float dist = tp_cylinder_nearest(c->h, c->r, tp_xf_apply_inv(c->xf, x), &q, &nl, &region);
    tp_vec3 nn = tp_q_rotate(c->xf.q, nl), on_cyl = tp_xf_apply(c->xf, q);
    float sep = dist - rx;
    m->count = 0;
    if (sep > margin) return 0;
    if (!cyl_first) nn = tp_neg(nn);
    if (tp_dot(nn, n) < 0.9f) return 0;
    m->normal = nn;
    uint32_t f = tp_feat_round(TP_ROUND_CYLINDER, TP_CYL_PT_VERTEX);
    if (cyl_first) tp_pm_add(m, on_cyl, tp_mad(x, nn, -rx), sep, f);
    else tp_pm_add(m, tp_mad(x, nn, rx), on_cyl, sep, f);
    return 1;
}

/* Points from the two touching features; 0 when they give none. */
TP_HD int tp_touch_manifold(const tp_cyl_shape *A, const tp_cyl_shape *B, const tp_touch *f1, const tp_touch *f2,
                            tp_vec3 n, tp_vec3 prefer, float margin, tp_pair_manifold *m)
{
    int k1 = f1->kind, k2 = f2->kind;
    if (k1 == TP_TOUCH_POLYGON && k2 == TP_TOUCH_POLYGON) {
        /* the face that separates more is the reference (as SAT picks it);
         * near ties (parallel faces at rest) the lower body's top face */
        float s1 = tp_dot(f1->n, tp_core_support(&B->core, tp_neg(f1->n))) - f1->d;
        float s2 = tp_dot(f2->n, tp_core_support(&A->core, tp_neg(f2->n))) - f2->d;
        int ref_first = s1 >= s2;
        if (tp_absf(s1 - s2) <= TP_FACE_FLIP_TOL) ref_first = !(tp_dot(f2->n, prefer) > tp_dot(f1->n, prefer));
        return ref_first ? tp_touch_polygons(f1, f2, 1, margin, m) : tp_touch_polygons(f2, f1, 0, margin, m);
    }
    if (k1 == TP_TOUCH_POLYGON && k2 == TP_TOUCH_SEGMENT) return tp_touch_polygon_segment(f1, f2, 1, margin, m);
    if (k2 == TP_TOUCH_POLYGON && k1 == TP_TOUCH_SEGMENT) return tp_touch_polygon_segment(f2, f1, 0, margin, m);
    if (k1 == TP_TOUCH_SEGMENT && k2 == TP_TOUCH_SEGMENT) return tp_touch_segments(f1, f2, n, margin, m);
    if (k1 == TP_TOUCH_POLYGON) return tp_touch_polygon_point(f1, B, 1, margin, m);
    if (k2 == TP_TOUCH_POLYGON) return tp_touch_polygon_point(f2, A, 0, margin, m);
    if (k2 == TP_TOUCH_POINT && !f2->rim && A->core.kind == TP_CORE_CYLINDER)
        return tp_touch_cylinder_point(&A->core, f2->p[0], f2->radius, 1, n, margin, m);
    if (k1 == TP_TOUCH_POINT && !f1->rim && B->core.kind == TP_CORE_CYLINDER)
        return tp_touch_cylinder_point(&B->core, f1->p[0], f1->radius, 0, n, margin, m);
    if (k1 == TP_TOUCH_SEGMENT) {
        tp_vec3 x = f2->rim ? tp_rim_polish(f1, &B->core, f2->p[0]) : f2->p[0];
        return tp_touch_segment_point(f1, x, f2->radius, 1, n, margin, m);
    }
    if (k2 == TP_TOUCH_SEGMENT) {
        tp_vec3 x = f1->rim ? tp_rim_polish(f2, &A->core, f1->p[0]) : f1->p[0];
        return tp_touch_segment_point(f2, x, f1->radius, 0, n, margin, m);
    }
    m->count = 0;
    return 0;
}

/* ---------------------------------------------------------------- pairs */

/* Cylinder (first: half length h, radius r, along x at the origin) against a
 * ball of radius rb centred at c. */
TP_HD int tp_collide_cylinder_ball(float h, float r, tp_vec3 c, float rb, float margin, tp_pair_manifold *m)
{
    tp_vec3 q, n;
    int region;
    float dist = tp_cylinder_nearest(h, r, c, &q, &n, &region);
    m->count = 0;
    if (dist - rb > margin) return 0;
    m->normal = n;
    tp_pm_add(m, q, tp_mad(c, n, -rb), dist - rb, tp_feat_round(TP_ROUND_CYLINDER, region));
    return 1;
}

/* Any pair with a cylinder: first shape s1 in its own frame, s2 posed by xf;
 * prefer: TP_REF_PREFER in that frame; poly1, poly2: a polyhedral shape's
 * polytope where the caller has it (always for a convex hull), else NULL. A
 * ball is always the second shape (narrowphase.h orders round shapes last). */
TP_HD int tp_collide_cylinder_pair(int s1, const float *size1, const tp_poly *poly1_given, int s2, const float *size2,
                                   const tp_poly *poly2_given, tp_xform xf, tp_vec3 prefer, float margin,
                                   tp_pair_manifold *m)
{
    m->count = 0;
    if (s2 == TP_SHAPE_BALL)
        return tp_collide_cylinder_ball(0.5f * size1[0], tp_shape_radius(s1, size1), xf.t, tp_shape_radius(s2, size2),
                                        margin, m);
    tp_poly poly1, poly2;
    tp_cyl_shape A, B;
    tp_xform id;
    id.q = tp_q_identity();
    id.t = tp_v3(0.0f, 0.0f, 0.0f);
    tp_cyl_shape_init(&A, s1, size1, id, poly1_given, &poly1);
    tp_cyl_shape_init(&B, s2, size2, xf, poly2_given, &poly2);
    float reach = margin + A.radius + B.radius, dist, lower, sep;
    tp_vec3 pa, pb, n, dir;
    int g = tp_gjk(&A.core, &B.core, reach, &pa, &pb, &dist, &dir, &lower);
    if (g == TP_GJK_FAR) return 0;
    if (g == TP_GJK_SEPARATED && dist > TP_GJK_NEAR && lower > 0.0f) {
        /* the certified lower bound and its direction: conservative where GJK
         * stalled, the distance where it converged */
        if (lower > reach) return 0;
        n = dir;
        sep = lower - A.radius - B.radius;
        pb = tp_mad(pa, n, lower); /* points consistent with the separation */
    } else {
        float depth;
        if (!tp_mpr(&A.core, &B.core, &n, &depth, &pa, &pb)) {
            /* no portal: the centres' direction and GJK's distance */
            n = tp_normalize_or(tp_sub(tp_core_centre(&B.core), tp_core_centre(&A.core)), tp_v3(0.0f, 0.0f, 1.0f));
            depth = g == TP_GJK_SEPARATED ? -dist : 0.0f;
        }
        sep = -depth - A.radius - B.radius;
    }
    if (sep > margin) return 0;
    tp_touch f1, f2;
    tp_touch_of(&A, n, &f1);
    tp_touch_of(&B, tp_neg(n), &f2);
    int got = tp_touch_manifold(&A, &B, &f1, &f2, n, prefer, margin, m);
    if (got > 0) {
        /* the features must hold the deepest contact: face clipping keeps only
         * what lies over a face, and a contact at the face's edge would be
         * lost (as collide_round_poly.h checks for capsules). GJK's separation
         * is a lower bound; MPR's depth is along the centres' ray, so it gets
         * more room. */
        float lowest = m->sep[0];
        for (int i = 1; i < got; ++i) lowest = tp_minf(lowest, m->sep[i]);
        float tol = g == TP_GJK_SEPARATED && dist > TP_GJK_NEAR ? TP_EDGE_TOL + 0.05f * tp_absf(sep)
                                                                 : 2.0f * TP_EDGE_TOL + 0.25f * tp_absf(sep);
        if (lowest <= sep + tol) return got;
    }
    m->count = 0;
    m->normal = n;
    tp_pm_add(m, tp_mad(pa, n, A.radius), tp_mad(pb, n, -B.radius), sep,
              tp_feat_round(TP_ROUND_CYLINDER, TP_CYL_PT_SUPPORT));
    return 1;
}

#endif
