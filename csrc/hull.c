/* hull.c - convex hulls of point sets for TP_SHAPE_CONVEX (host only).
 *
 * The hull comes from qhull's reentrant library (C. B. Barber, D. P. Dobkin,
 * H. Huhdanpaa, "The Quickhull algorithm for convex hulls", ACM TOMS 22(4),
 * 1996) with its default merging of coplanar facets, so a box's face is one
 * square, not two triangles: face clipping needs the whole face. From qhull we
 * take which input points are vertices, which vertices make each facet and the
 * facet's normal; everything else is ours:
 *
 *   - canonical numbering, so feature ids (docs/collision.md) are a fixed
 *     function of the input points, not of qhull's internal order: vertices in
 *     the order of their input index; each face's loop counter-clockwise seen
 *     from outside (sorted by angle about the face's centre) and starting at
 *     its lowest vertex; faces in the lexicographic order of their loops;
 *     edges as tp_poly_finish numbers them;
 *   - mass properties from the faces, fan-triangulated, as a sum of signed
 *     tetrahedra from a reference point (the mean vertex): volume det/6, first
 *     moment det/24 (a + b + c), second moment det/120 (a a^T + b b^T + c c^T
 *     + s s^T), s = a + b + c (J. Blow and A. Binstock, "How to find the
 *     inertia tensor (or other mass properties) of a 3D solid body represented
 *     by a triangle mesh", 2004; F. Tonon, J. Math. Stat. 1(1), 2004), in
 *     double, moved to the centre of mass by the parallel-axis theorem. */
#include "hull.h"
#include "qhull_session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One face while it is being numbered. */
typedef struct hull_face {
    double n[3];
    int count;
    int vert[TP_POLY_MAX_FACE_VERTS];
} hull_face;

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void sub3(const double *a, const double *b, double *r)
{
    for (int k = 0; k < 3; ++k) r[k] = a[k] - b[k];
}

static void cross3(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* Points with no volume between them (all on a line or a plane, within 1e-6
 * of their extent) cannot be a solid: say so before qhull does, in words. */
static int degenerate(const double *p, int n, char *reason, size_t reason_len)
{
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) lo[k] = hi[k] = p[k];
    for (int i = 1; i < n; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], p[3 * i + k]), hi[k] = fmax(hi[k], p[3 * i + k]);
    double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(ext > 0.0)) {
        snprintf(reason, reason_len, "all %d vertices are the same point: the hull has no volume", n);
        return 1;
    }
    double tol = 1e-6 * ext;
    int a = 0, b = 0, c = -1;
    double best = -1.0, d[3], e[3], x[3];
    for (int i = 1; i < n; ++i) { /* b: farthest from a */
        sub3(p + 3 * i, p, d);
        if (dot3(d, d) > best) best = dot3(d, d), b = i;
    }
    double ab[3];
    sub3(p + 3 * b, p + 3 * a, ab);
    best = -1.0;
    for (int i = 0; i < n; ++i) { /* c: farthest from the line ab */
        sub3(p + 3 * i, p + 3 * a, d);
        cross3(ab, d, x);
        double dist = sqrt(dot3(x, x) / dot3(ab, ab));
        if (dist > best) best = dist, c = i;
    }
    if (best <= tol) {
        snprintf(reason, reason_len, "all %d vertices lie on one line: the hull has no volume", n);
        return 1;
    }
    sub3(p + 3 * c, p + 3 * a, e);
    cross3(ab, e, x);
    double len = sqrt(dot3(x, x));
    best = 0.0;
    for (int i = 0; i < n; ++i) {
        sub3(p + 3 * i, p + 3 * a, d);
        best = fmax(best, fabs(dot3(x, d)) / len);
    }
    if (best <= tol) {
        snprintf(reason, reason_len, "all %d vertices lie in one plane: the hull has no volume", n);
        return 1;
    }
    return 0;
}

/* Order a face's vertices (hull vertex numbers; v: [nv][3] the hull's
 * vertices) counter-clockwise seen along -n (from outside), starting at the
 * lowest number. */
static void order_face(hull_face *f, const double *v)
{
    double c[3] = {0, 0, 0}, u[3], w[3], ang[TP_POLY_MAX_FACE_VERTS];
    for (int i = 0; i < f->count; ++i)
        for (int k = 0; k < 3; ++k) c[k] += v[3 * f->vert[i] + k] / f->count;
    sub3(v + 3 * f->vert[0], c, u);
    cross3(f->n, u, w);
    for (int i = 0; i < f->count; ++i) {
        double d[3];
        sub3(v + 3 * f->vert[i], c, d);
        ang[i] = atan2(dot3(d, w), dot3(d, u));
    }
    for (int i = 1; i < f->count; ++i) /* insertion sort by angle */
        for (int j = i; j > 0 && ang[j] < ang[j - 1]; --j) {
            double t = ang[j]; ang[j] = ang[j - 1]; ang[j - 1] = t;
            int s = f->vert[j]; f->vert[j] = f->vert[j - 1]; f->vert[j - 1] = s;
        }
    int low = 0, tmp[TP_POLY_MAX_FACE_VERTS];
    for (int i = 1; i < f->count; ++i)
        if (f->vert[i] < f->vert[low]) low = i;
    for (int i = 0; i < f->count; ++i) tmp[i] = f->vert[(low + i) % f->count];
    memcpy(f->vert, tmp, (size_t)f->count * sizeof(int));
}

static int face_cmp(const void *pa, const void *pb)
{
    const hull_face *a = pa, *b = pb;
    for (int i = 0; i < a->count && i < b->count; ++i)
        if (a->vert[i] != b->vert[i]) return a->vert[i] < b->vert[i] ? -1 : 1;
    return (a->count > b->count) - (a->count < b->count);
}

/* qhull's facets into faces over the hull vertices (numbered by input order). */
static int take_facets(qhT *qh, const int *vert_of_point, hull_face *faces, int *nf, char *reason, size_t reason_len)
{
    facetT *facet;
    vertexT *vertex, **vertexp;
    *nf = 0;
    FORALLfacets {
        if (*nf == TP_MAX_HULL_FACES) {
            snprintf(reason, reason_len, "the hull has %d faces, more than TP_MAX_HULL_FACES (%d): simplify the mesh",
                     qh->num_facets, TP_MAX_HULL_FACES);
            return 0;
        }
        hull_face *f = &faces[(*nf)++];
        f->count = 0;
        for (int k = 0; k < 3; ++k) f->n[k] = facet->normal[k];
        FOREACHvertex_(facet->vertices) {
            if (f->count == TP_MAX_HULL_FACE_VERTICES) {
                snprintf(reason, reason_len,
                         "a face of the hull has %d vertices, more than TP_MAX_HULL_FACE_VERTICES (%d): simplify the mesh",
                         qh_setsize(qh, facet->vertices), TP_MAX_HULL_FACE_VERTICES);
                return 0;
            }
            f->vert[f->count++] = vert_of_point[qh_pointid(qh, vertex->point)];
        }
    }
    return 1;
}

/* Volume, centre and inertia (per unit density) of the polytope's solid. */
static void hull_mass(const tp_poly *p, tp_hull *out)
{
    double r[3] = {0, 0, 0}, vol = 0.0, first[3] = {0, 0, 0}, second[3][3] = {{0}};
    for (int i = 0; i < p->nv; ++i) {
        r[0] += p->v[i].x / p->nv;
        r[1] += p->v[i].y / p->nv;
        r[2] += p->v[i].z / p->nv;
    }
    for (int fi = 0; fi < p->nf; ++fi) {
        const tp_poly_face *f = &p->f[fi];
        for (int t = 1; t + 1 < f->count; ++t) {
            int idx[3] = {f->vert[0], f->vert[t], f->vert[t + 1]};
            double q[3][3], bc[3], s[3];
            for (int j = 0; j < 3; ++j) {
                tp_vec3 v = p->v[idx[j]];
                q[j][0] = v.x - r[0], q[j][1] = v.y - r[1], q[j][2] = v.z - r[2];
            }
            cross3(q[1], q[2], bc);
            double det = dot3(q[0], bc);
            vol += det / 6.0;
            for (int k = 0; k < 3; ++k) s[k] = q[0][k] + q[1][k] + q[2][k];
            for (int k = 0; k < 3; ++k) first[k] += det / 24.0 * s[k];
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b)
                    second[a][b] += det / 120.0 *
                                    (q[0][a] * q[0][b] + q[1][a] * q[1][b] + q[2][a] * q[2][b] + s[a] * s[b]);
        }
    }
    double c[3] = {first[0] / vol, first[1] / vol, first[2] / vol}, C[3][3];
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) C[a][b] = second[a][b] - vol * c[a] * c[b];
    double tr = C[0][0] + C[1][1] + C[2][2];
    out->volume = vol;
    for (int k = 0; k < 3; ++k) out->com[k] = (float)(r[k] + c[k]);
    out->inertia[0] = (float)(tr - C[0][0]);
    out->inertia[1] = (float)(tr - C[1][1]);
    out->inertia[2] = (float)(tr - C[2][2]);
    out->inertia[3] = (float)-C[0][1];
    out->inertia[4] = (float)-C[0][2];
    out->inertia[5] = (float)-C[1][2];
}

/* The polytope from the numbered faces: planes from qhull's normals, offsets
 * the largest over the face's vertices (so every vertex is inside). */
static void fill_poly(const double *v, const int *point_of_vert, int nv, hull_face *faces, int nf, tp_poly *p)
{
    memset(p, 0, sizeof *p);
    p->nv = nv;
    for (int i = 0; i < nv; ++i) {
        const double *x = v + 3 * point_of_vert[i];
        p->v[i] = tp_v3((float)x[0], (float)x[1], (float)x[2]);
    }
    for (int fi = 0; fi < nf; ++fi) {
        int idx[TP_POLY_MAX_FACE_VERTS];
        for (int k = 0; k < faces[fi].count; ++k) idx[k] = faces[fi].vert[k];
        const double *n = faces[fi].n;
        tp_poly_add_face(p, idx, faces[fi].count, tp_normalize_or(tp_v3((float)n[0], (float)n[1], (float)n[2]), tp_v3(0.0f, 0.0f, 1.0f)));
        tp_poly_face *f = &p->f[fi];
        for (int k = 1; k < f->count; ++k) f->d = tp_maxf(f->d, tp_dot(f->n, p->v[f->vert[k]]));
    }
    tp_poly_finish(p);
}

/* Run qhull on v [n][3]; on success fill out->poly. */
static int run_qhull(double *v, int n, tp_hull *out, char *reason, size_t reason_len)
{
    tp_qhull s;
    if (!tp_qhull_open(&s, v, n, "qhull", reason, reason_len)) return 0;
    qhT *qh = &s.qh;
    int ok = 0;
    int *vert_of_point = calloc((size_t)n, sizeof(int));
    hull_face *faces = malloc(TP_MAX_HULL_FACES * sizeof *faces);
    int point_of_vert[TP_MAX_HULL_VERTICES];
    if (!vert_of_point || !faces) {
        snprintf(reason, reason_len, "out of memory for the hull of %d points", n);
        goto done;
    }
    if (qh->num_vertices > TP_MAX_HULL_VERTICES) {
        snprintf(reason, reason_len, "the hull has %d vertices, more than TP_MAX_HULL_VERTICES (%d): simplify the mesh",
                 qh->num_vertices, TP_MAX_HULL_VERTICES);
        goto done;
    }
    for (int i = 0; i < n; ++i) vert_of_point[i] = -1;
    vertexT *vertex;
    FORALLvertices vert_of_point[qh_pointid(qh, vertex->point)] = 0;
    int nv = 0;
    for (int i = 0; i < n; ++i) /* vertices in input order */
        if (vert_of_point[i] == 0) point_of_vert[nv] = i, vert_of_point[i] = nv++;
    int nf;
    if (!take_facets(qh, vert_of_point, faces, &nf, reason, reason_len)) goto done;
    double hv[3 * TP_MAX_HULL_VERTICES];
    for (int i = 0; i < nv; ++i) memcpy(hv + 3 * i, v + 3 * point_of_vert[i], 3 * sizeof(double));
    int loops = 0;
    for (int f = 0; f < nf; ++f) {
        order_face(&faces[f], hv);
        loops += faces[f].count;
    }
    if (loops != 2 * (nv + nf - 2)) { /* each edge in two loops, Euler: E = V + F - 2 */
        snprintf(reason, reason_len, "qhull gave a hull that is not a closed polyhedron (%d vertices, %d faces)", nv, nf);
        goto done;
    }
    qsort(faces, (size_t)nf, sizeof *faces, face_cmp);
    fill_poly(v, point_of_vert, nv, faces, nf, &out->poly);
    ok = 1;
done:
    free(vert_of_point);
    free(faces);
    tp_qhull_close(&s);
    return ok;
}

double *tp_hull_check_points(const float *points, int count, char *reason, size_t reason_len)
{
    if (!points || count < 4) {
        snprintf(reason, reason_len, "a convex shape needs at least 4 vertices, got %d", points ? count : 0);
        return NULL;
    }
    if (count > TP_MAX_MESH_VERTICES) {
        snprintf(reason, reason_len, "%d vertices, more than TP_MAX_MESH_VERTICES (%d)", count, TP_MAX_MESH_VERTICES);
        return NULL;
    }
    for (int i = 0; i < 3 * count; ++i)
        if (!isfinite(points[i]) || fabsf(points[i]) > 0.5f * TP_MAX_SIZE) {
            snprintf(reason, reason_len, "vertices[%d][%d]: must be finite and within [%g, %g] m, got %g", i / 3,
                     i % 3, -0.5 * TP_MAX_SIZE, 0.5 * TP_MAX_SIZE, (double)points[i]);
            return NULL;
        }
    double *v = malloc(3 * (size_t)count * sizeof(double));
    if (!v) {
        snprintf(reason, reason_len, "out of memory for %d vertices", count);
        return NULL;
    }
    for (int i = 0; i < 3 * count; ++i) v[i] = points[i];
    if (degenerate(v, count, reason, reason_len)) {
        free(v);
        return NULL;
    }
    return v;
}

int tp_hull_build(const float *points, int count, tp_hull *out, char *reason, size_t reason_len)
{
    double *v = tp_hull_check_points(points, count, reason, reason_len);
    if (!v) return 0;
    int ok = run_qhull(v, count, out, reason, reason_len);
    free(v);
    if (!ok) return 0;
    hull_mass(&out->poly, out);
    out->bound_radius = 0.0f;
    for (int k = 0; k < 3; ++k) out->size[k] = 0.0f;
    for (int i = 0; i < out->poly.nv; ++i) {
        tp_vec3 p = out->poly.v[i];
        out->size[0] = fmaxf(out->size[0], 2.0f * fabsf(p.x));
        out->size[1] = fmaxf(out->size[1], 2.0f * fabsf(p.y));
        out->size[2] = fmaxf(out->size[2], 2.0f * fabsf(p.z));
        out->bound_radius = fmaxf(out->bound_radius, tp_len(p));
    }
    for (int k = 0; k < 3; ++k) /* never below the smallest size a shape may have */
        out->size[k] = fmaxf(out->size[k], TP_MIN_SIZE);
    return 1;
}

void tp_shape_unit_mass_props(int shape, const float *size, const float *points, int count, float *volume,
                              float com[3], float inertia[6])
{
    if (shape != TP_SHAPE_CONVEX) {
        tp_shape_mass_props(shape, size, 1.0f, volume, com, inertia);
        return;
    }
    tp_hull h;
    char reason[8];
    if (!tp_hull_build(points, count, &h, reason, sizeof reason)) { /* refused before it gets here */
        *volume = 0.0f;
        memset(com, 0, 3 * sizeof(float));
        memset(inertia, 0, 6 * sizeof(float));
        return;
    }
    *volume = (float)h.volume;
    memcpy(com, h.com, sizeof h.com);
    memcpy(inertia, h.inertia, sizeof h.inertia);
}
