/* collide_poly.h - manifolds between two convex polyhedra (box, wedge, corner
 * wedge, in any combination; box-box is this path).
 *
 * Method: the separating axis test over the face normals of both polyhedra and
 * the cross products of edge pairs, with the edge pairs pruned to those that
 * build a face of the Minkowski difference (Gauss-map arc intersection, D.
 * Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC 2013).
 * The best axis decides the manifold:
 *   - a face axis: the reference face is that face; the incident face is the
 *     other polyhedron's face most anti-parallel to it; the incident polygon is
 *     clipped against the side planes of the reference face (Sutherland-Hodgman,
 *     Ericson 8.3.4) and points within the margin are kept, reduced to 4;
 *   - an edge axis (clearly better than every face axis): one point, the
 *     closest points of the two edges.
 * Every clipped point carries a label saying which features made it (an
 * incident vertex, an incident edge cut by a reference side plane, or a corner
 * of the reference face), which becomes its feature id (manifold.h).
 *
 * Both polyhedra are handled in the first's frame: the second is transformed
 * into it once. When the shapes are apart, SAT gives a lower bound of their
 * distance, so speculative points are conservative.
 *
 * Cost: the arithmetic is arranged to be cheap (per-edge set-up of the
 * Gauss-map arcs, tests and projections over columns of floats, early outs
 * once the shapes are apart) while every float is computed by the same
 * operations on the same operands as in the plain per-pair form: the
 * manifolds are the same bits (tests/test_golden.c; bench/README.md,
 * "Narrowphase, same bits"). Keep it so: no reassociation, no matrix in place
 * of a quaternion rotation, no changed visiting order of the edge pairs. */
#ifndef TP_COLLIDE_POLY_H
#define TP_COLLIDE_POLY_H

#include "manifold.h"

/* room for a clipped polygon: a cylinder cap's rim clipped by another's
 * (collide_cylinder.h) is the largest */
#define TP_CLIP_MAX (2 * TP_CYL_RIM + 8)
#if 2 * TP_POLY_MAX_FACE_VERTS > TP_CLIP_MAX
#error "a face clipped by another must fit in TP_CLIP_MAX points"
#endif

/* Copy of `src` with every vertex and plane moved by xf. The centroid is NOT
 * moved (it stays src's): only the first polyhedron's centroid is read
 * (tp_sat_edges), and the second is the one moved (tp_collide_polys). */
TP_HD void tp_poly_transform(const tp_poly *src, tp_xform xf, tp_poly *dst)
{
    *dst = *src;
    for (int i = 0; i < src->nv; ++i) dst->v[i] = tp_xf_apply(xf, src->v[i]);
    for (int i = 0; i < src->nf; ++i) {
        dst->f[i].n = tp_q_rotate(xf.q, src->f[i].n);
        dst->f[i].d = src->f[i].d + tp_dot(dst->f[i].n, xf.t);
    }
}

/* Face axes of p against the vertices of q: the largest separation and its
 * face. Returns as soon as a separation exceeds `stop` (then neither the value
 * nor the face is the largest: the caller only needs to know that the shapes
 * are apart by more than its margin). A face's separation is the smallest
 * projection tp_dot(n, v) of q's vertices, taken with tp_minf in vertex
 * order, minus the face's offset. q's vertices are copied into columns of
 * floats once, so that a compiler can project four or eight at a time (per
 * vertex the multiplies and adds of tp_dot, in its order); the smallest is
 * then taken one by one in vertex order, as before. */
TP_HD float tp_sat_faces(const tp_poly *p, const tp_poly *q, float stop, int *face)
{
    float vx[TP_POLY_MAX_VERTS], vy[TP_POLY_MAX_VERTS], vz[TP_POLY_MAX_VERTS], along[TP_POLY_MAX_VERTS];
    int nv = q->nv;
    for (int k = 0; k < nv; ++k) vx[k] = q->v[k].x, vy[k] = q->v[k].y, vz[k] = q->v[k].z;
    float best = -3.0e38f;
    *face = 0;
    for (int i = 0; i < p->nf; ++i) {
        tp_vec3 n = p->f[i].n;
        for (int k = 0; k < nv; ++k) along[k] = n.x * vx[k] + n.y * vy[k] + n.z * vz[k];
        float m = along[0];
        for (int k = 1; k < nv; ++k) m = tp_minf(m, along[k]);
        float s = m - p->f[i].d;
        if (s > best) { best = s; *face = i; }
        if (s > stop) break;
    }
    return best;
}

typedef struct tp_edge_query {
    float sep;
    int edge_p, edge_q;
    tp_vec3 axis; /* unit, pointing away from p */
} tp_edge_query;

/* Edge-edge axes between p and q (same frame). Every edge pair of p and q is
 * visited in the order (i of p, then j of q) and the first largest
 * separation wins; returns as soon as it exceeds `stop`, as tp_sat_faces.
 *
 * Only pairs whose Gauss-map arcs cross are axes (Gregorius 2013): with a, b
 * the face normals of p's edge and c, d those of q's edge negated, the arcs
 * a-b and c-d cross when c.(b x a) d.(b x a) < 0, a.(d x c) b.(d x c) < 0
 * and c.(b x a) b.(d x c) > 0 (each dot written as tp_dot, each cross as
 * tp_cross). That test is arranged to cost little per pair while computing
 * exactly those floats: c = -nc, d = -nd (tp_neg is exact) and d x c once per
 * edge of q, b x a once per edge of p; for one edge of p, the test against
 * all of q's edges in one loop over columns of floats (structure of arrays),
 * which a compiler can run four or eight edges at a time (per edge the
 * multiplies and adds of tp_dot in its order), the three conditions joined by
 * & rather than && (no side effects: the same answer). For the pairs that
 * pass, the parts of the per-pair expressions that depend on p's edge only are
 * computed once per edge of p, the same operations on the same operands. */
TP_HD tp_edge_query tp_sat_edges(const tp_poly *p, const tp_poly *q, float stop)
{
    tp_edge_query r;
    r.sep = -3.0e38f;
    r.edge_p = r.edge_q = -1;
    r.axis = tp_v3(0.0f, 0.0f, 1.0f);
    float cx[TP_POLY_MAX_EDGES], cy[TP_POLY_MAX_EDGES], cz[TP_POLY_MAX_EDGES];    /* c = -nc */
    float dx[TP_POLY_MAX_EDGES], dy[TP_POLY_MAX_EDGES], dz[TP_POLY_MAX_EDGES];    /* d = -nd */
    float ex[TP_POLY_MAX_EDGES], ey[TP_POLY_MAX_EDGES], ez[TP_POLY_MAX_EDGES];    /* d x c */
    int arc[TP_POLY_MAX_EDGES];
    int nq = q->ne;
    for (int j = 0; j < nq; ++j) {
        tp_vec3 c = tp_neg(q->f[q->e[j].f[0]].n), d = tp_neg(q->f[q->e[j].f[1]].n), dxc = tp_cross(d, c);
        cx[j] = c.x, cy[j] = c.y, cz[j] = c.z;
        dx[j] = d.x, dy[j] = d.y, dz[j] = d.z;
        ex[j] = dxc.x, ey[j] = dxc.y, ez[j] = dxc.z;
    }
    for (int i = 0; i < p->ne; ++i) {
        tp_vec3 na = p->f[p->e[i].f[0]].n, nb = p->f[p->e[i].f[1]].n, bxa = tp_cross(nb, na);
        int crossing = 0;
        for (int j = 0; j < nq; ++j) { /* do the arcs na-nb and c-d cross? */
            float cba = cx[j] * bxa.x + cy[j] * bxa.y + cz[j] * bxa.z;
            float dba = dx[j] * bxa.x + dy[j] * bxa.y + dz[j] * bxa.z;
            float adc = na.x * ex[j] + na.y * ey[j] + na.z * ez[j];
            float bdc = nb.x * ex[j] + nb.y * ey[j] + nb.z * ez[j];
            arc[j] = (cba * dba < 0.0f) & (adc * bdc < 0.0f) & (cba * bdc > 0.0f);
            crossing += arc[j];
        }
        if (crossing == 0) continue;
        tp_vec3 pa = p->v[p->e[i].v[0]], da = tp_sub(p->v[p->e[i].v[1]], pa);
        /* 1e-10f * |da|^2 is the left product of 1e-10f * |da|^2 * |db|^2 */
        float par_da = 1e-10f * tp_len_sq(da);
        tp_vec3 out_p = tp_sub(pa, p->centroid);
        for (int j = 0; crossing > 0; ++j) { /* up to the last crossing arc */
            if (!arc[j]) continue;
            crossing--;
            tp_vec3 qa = q->v[q->e[j].v[0]], db = tp_sub(q->v[q->e[j].v[1]], qa);
            tp_vec3 axis = tp_cross(da, db);
            float l2 = tp_len_sq(axis);
            if (!(l2 > par_da * tp_len_sq(db))) continue; /* parallel edges */
            axis = tp_scale(axis, 1.0f / sqrtf(l2));
            if (tp_dot(axis, out_p) < 0.0f) axis = tp_neg(axis);
            float s = tp_dot(axis, tp_sub(qa, pa));
            if (s > r.sep) {
                r.sep = s;
                r.edge_p = i;
                r.edge_q = j;
                r.axis = axis;
                if (s > stop) return r; /* apart: the caller needs no more */
            }
        }
    }
    return r;
}

/* A polygon being clipped: per vertex its position, its feature label (clip
 * label bits of manifold.h) and the label of the line it starts, as an edge
 * code: incident edge e -> e, reference edge g -> 64 + g. */
typedef struct tp_clip_poly {
    int count;
    tp_vec3 p[TP_CLIP_MAX];
    int label[TP_CLIP_MAX];
    int line[TP_CLIP_MAX];
} tp_clip_poly;

TP_HD int tp_clip_cross_label(int line, int ref_edge)
{
    if (line < 64) return (TP_CLIP_EDGE << 13) | (line << 6) | ref_edge;
    int g = line - 64, lo = g < ref_edge ? g : ref_edge, hi = g < ref_edge ? ref_edge : g;
    return (TP_CLIP_CORNER << 13) | (lo << 6) | hi;
}

/* Keep the part of `in` with dot(n, x) <= d (Sutherland-Hodgman); points made on
 * the plane are labelled with the reference edge `ref_edge` that owns it. Each
 * vertex's distance to the plane is computed once and carried to the next
 * edge (the same expression on the same floats as recomputing it). */
TP_HD void tp_clip_plane(const tp_clip_poly *in, tp_vec3 n, float d, int ref_edge, tp_clip_poly *out)
{
    out->count = 0;
    if (in->count == 0) return;
    float d0 = tp_dot(n, in->p[0]) - d, db = d0;
    for (int k = 0; k < in->count; ++k) {
        int k1 = k + 1 == in->count ? 0 : k + 1;
        tp_vec3 a = in->p[k], b = in->p[k1];
        float da = db;
        db = k1 == 0 ? d0 : tp_dot(n, b) - d;
        int a_in = da <= 0.0f, b_in = db <= 0.0f;
        if (a_in && out->count < TP_CLIP_MAX) {
            out->p[out->count] = a;
            out->label[out->count] = in->label[k];
            out->line[out->count] = in->line[k];
            out->count++;
        }
        if (a_in != b_in && out->count < TP_CLIP_MAX) {
            out->p[out->count] = tp_mad(a, tp_sub(b, a), da / (da - db));
            out->label[out->count] = tp_clip_cross_label(in->line[k], ref_edge);
            out->line[out->count] = a_in ? 64 + ref_edge : in->line[k];
            out->count++;
        }
    }
}

/* Face manifold: reference face `rf` of `ref`, incident polygon from `inc`
 * (both in the first's frame). ref_is_first says which polyhedron is which;
 * the manifold normal always points from first to second. */
TP_HD int tp_poly_face_contact(const tp_poly *ref, int rf, const tp_poly *inc, int ref_is_first, float margin,
                               tp_pair_manifold *m)
{
    const tp_poly_face *face = &ref->f[rf];
    tp_vec3 n = face->n;
    int inc_face = 0;
    float most = tp_dot(inc->f[0].n, n);
    for (int i = 1; i < inc->nf; ++i) {
        float s = tp_dot(inc->f[i].n, n);
        if (s < most) { most = s; inc_face = i; }
    }
    tp_clip_poly buf[2];
    const tp_poly_face *fi = &inc->f[inc_face];
    buf[0].count = fi->count;
    for (int k = 0; k < fi->count; ++k) {
        buf[0].p[k] = inc->v[fi->vert[k]];
        buf[0].label[k] = (TP_CLIP_VERTEX << 13) | (rf << 5) | fi->vert[k];
        buf[0].line[k] = fi->edge[k];
    }
    int cur = 0;
    for (int k = 0; k < face->count && buf[cur].count > 0; ++k) {
        tp_vec3 a = ref->v[face->vert[k]], b = ref->v[face->vert[(k + 1) % face->count]];
        tp_vec3 side = tp_cross(tp_sub(b, a), n);
        tp_clip_plane(&buf[cur], side, tp_dot(side, a), face->edge[k], &buf[1 - cur]);
        cur = 1 - cur;
    }
    /* keep points within the margin (moved down in place: a point only ever
     * moves to a slot already read) */
    tp_clip_poly *kept = &buf[cur];
    float sep[TP_CLIP_MAX];
    int clipped = kept->count;
    kept->count = 0;
    for (int k = 0; k < clipped; ++k) {
        float s = tp_dot(n, kept->p[k]) - face->d;
        if (s > margin) continue;
        sep[kept->count] = s;
        kept->p[kept->count] = kept->p[k];
        kept->label[kept->count] = kept->label[k];
        kept->count++;
    }
    m->count = 0;
    if (kept->count == 0) return 0;
    tp_vec3 e1 = tp_normalize_or_perpendicular(tp_sub(ref->v[face->vert[1]], ref->v[face->vert[0]]), n);
    tp_vec3 t = tp_mad(e1, tp_cross(n, e1), 0.35f);
    int keep[4];
    int count = tp_reduce_points(kept->p, kept->count, n, t, keep);
    m->normal = ref_is_first ? n : tp_neg(n);
    int kind = ref_is_first ? TP_FEAT_CLIP_FIRST : TP_FEAT_CLIP_SECOND;
    for (int i = 0; i < count; ++i) {
        int k = keep[i];
        tp_vec3 on_inc = kept->p[k], on_ref = tp_mad(on_inc, n, -sep[k]);
        uint32_t feat = ((uint32_t)kind << 15) | (uint32_t)kept->label[k];
        if (ref_is_first) tp_pm_add(m, on_ref, on_inc, sep[k], feat);
        else tp_pm_add(m, on_inc, on_ref, sep[k], feat);
    }
    return m->count;
}

/* Manifold between polyhedra p1 (first, its own frame) and p2 (second, in its
 * own frame, posed by xf in the first's frame). `prefer` is TP_REF_PREFER in
 * the first's frame: when the best faces of the two polyhedra separate equally
 * (within TP_FACE_FLIP_TOL: parallel faces at rest), the reference face is the
 * one whose normal leans more along it. That is the lower body's top face in a
 * stack, whichever body is first, so feature ids do not change when the bodies
 * slide past each other. */
TP_HD int tp_collide_polys(const tp_poly *p1, const tp_poly *p2_local, tp_xform xf, tp_vec3 prefer, float margin,
                           tp_pair_manifold *m)
{
    tp_poly p2;
    tp_poly_transform(p2_local, xf, &p2);
    m->count = 0;
    int face1, face2;
    float sep1 = tp_sat_faces(p1, &p2, margin, &face1);
    if (sep1 > margin) return 0;
    float sep2 = tp_sat_faces(&p2, p1, margin, &face2);
    if (sep2 > margin) return 0;
    tp_edge_query eq = tp_sat_edges(p1, &p2, margin);
    if (eq.sep > margin) return 0;

    float face_sep = tp_maxf(sep1, sep2);
    if (eq.edge_p >= 0 && eq.sep > face_sep + TP_EDGE_TOL + 0.05f * tp_absf(face_sep)) {
        tp_vec3 a0 = p1->v[p1->e[eq.edge_p].v[0]], a1 = p1->v[p1->e[eq.edge_p].v[1]];
        tp_vec3 b0 = p2.v[p2.e[eq.edge_q].v[0]], b1 = p2.v[p2.e[eq.edge_q].v[1]];
        float s, t;
        tp_closest_seg_seg(a0, a1, b0, b1, &s, &t);
        tp_vec3 c1 = tp_mad(a0, tp_sub(a1, a0), s), c2 = tp_mad(b0, tp_sub(b1, b0), t);
        m->normal = eq.axis;
        tp_pm_add(m, c1, c2, tp_dot(eq.axis, tp_sub(c2, c1)), tp_feat_edges(eq.edge_p, eq.edge_q));
        return 1;
    }
    int ref_second = sep2 > sep1;
    if (tp_absf(sep2 - sep1) <= TP_FACE_FLIP_TOL)
        ref_second = tp_dot(p2.f[face2].n, prefer) > tp_dot(p1->f[face1].n, prefer);
    if (ref_second) return tp_poly_face_contact(&p2, face2, p1, 0, margin, m);
    return tp_poly_face_contact(p1, face1, &p2, 1, margin, m);
}

#endif
