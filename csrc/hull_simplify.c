/* hull_simplify.c - hulls of meshes past the polytope caps (TP_MAX_HULL_*):
 * the full hull's measure, and a subset of its vertices whose hull fits.
 *
 * The full hull is qhull's (reentrant library, triangulated output "Qt"); its
 * mass properties are the sum of signed tetrahedra from the mean vertex, as in
 * hull.c, in double. The subset grows by farthest-point insertion, as in
 * Quickhull itself (Barber, Dobkin and Huhdanpaa, ACM TOMS 22(4), 1996): of
 * the SIMPLIFY_TRIES vertices farthest outside the current hull, the one whose
 * insertion gives the largest hull within the caps (tp_hull_build) is added,
 * until none fits or every vertex is inside. Every
 * choice breaks ties by the lowest input index, so the subset is a fixed
 * function of the points. */
#include "hull.h"
#include "qhull_session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Candidates tried at each insertion: the farthest outside the current hull. */
#define SIMPLIFY_TRIES 8

/* Add the tetrahedron (r, a, b, c) to the sums of volume x 6, first and
 * second moments about r (orientation-free: r is inside a convex hull). */
static void add_tet(const double *r, const double *a, const double *b, const double *c, double *vol6, double first[3],
                    double second[3][3])
{
    double q[3][3], s[3];
    for (int k = 0; k < 3; ++k) q[0][k] = a[k] - r[k], q[1][k] = b[k] - r[k], q[2][k] = c[k] - r[k];
    double det = fabs(q[0][0] * (q[1][1] * q[2][2] - q[1][2] * q[2][1]) - q[0][1] * (q[1][0] * q[2][2] - q[1][2] * q[2][0]) +
                      q[0][2] * (q[1][0] * q[2][1] - q[1][1] * q[2][0]));
    *vol6 += det;
    for (int k = 0; k < 3; ++k) s[k] = q[0][k] + q[1][k] + q[2][k];
    for (int k = 0; k < 3; ++k) first[k] += det / 24.0 * s[k];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            second[i][j] += det / 120.0 * (q[0][i] * q[0][j] + q[1][i] * q[1][j] + q[2][i] * q[2][j] + s[i] * s[j]);
}

/* qhull's triangulated hull of v [n][3]: measure and vertex ids. */
static int measure_qhull(double *v, int n, tp_hull_measure *out, int **vertex_ids, char *reason, size_t reason_len)
{
    tp_qhull s;
    if (!tp_qhull_open(&s, v, n, "qhull Qt", reason, reason_len)) return 0;
    qhT *qh = &s.qh;
    int ok = 0;
    char *is_vertex = calloc((size_t)n, 1);
    if (!is_vertex) {
        snprintf(reason, reason_len, "out of memory for the hull of %d points", n);
        goto done;
    }
    vertexT *vertex, **vertexp;
    FORALLvertices is_vertex[qh_pointid(qh, vertex->point)] = 1;
    double r[3] = {0, 0, 0};
    int nv = 0;
    for (int i = 0; i < n; ++i) /* the mean vertex, summed in input order */
        if (is_vertex[i]) {
            ++nv;
            for (int k = 0; k < 3; ++k) r[k] += v[3 * i + k];
        }
    for (int k = 0; k < 3; ++k) r[k] /= nv;
    double vol6 = 0.0, first[3] = {0, 0, 0}, second[3][3] = {{0}};
    facetT *facet;
    FORALLfacets {
        const double *p[3];
        int c = 0;
        FOREACHvertex_(facet->vertices) if (c < 3) p[c++] = vertex->point;
        if (c == 3) add_tet(r, p[0], p[1], p[2], &vol6, first, second);
    }
    double vol = vol6 / 6.0, com[3], C[3][3];
    for (int k = 0; k < 3; ++k) com[k] = first[k] / vol;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) C[a][b] = second[a][b] - vol * com[a] * com[b];
    double tr = C[0][0] + C[1][1] + C[2][2];
    out->vertex_count = nv;
    out->volume = vol;
    for (int k = 0; k < 3; ++k) out->com[k] = r[k] + com[k];
    out->inertia[0] = tr - C[0][0];
    out->inertia[1] = tr - C[1][1];
    out->inertia[2] = tr - C[2][2];
    out->inertia[3] = -C[0][1];
    out->inertia[4] = -C[0][2];
    out->inertia[5] = -C[1][2];
    if (vertex_ids) {
        *vertex_ids = malloc((size_t)nv * sizeof(int));
        if (!*vertex_ids) {
            snprintf(reason, reason_len, "out of memory for %d hull vertices", nv);
            goto done;
        }
        for (int i = 0, j = 0; i < n; ++i)
            if (is_vertex[i]) (*vertex_ids)[j++] = i;
    }
    ok = 1;
done:
    free(is_vertex);
    tp_qhull_close(&s);
    return ok;
}

int tp_hull_measure_points(const float *points, int count, tp_hull_measure *out, int **vertex_ids, char *reason,
                           size_t reason_len)
{
    if (vertex_ids) *vertex_ids = NULL;
    double *v = tp_hull_check_points(points, count, reason, reason_len);
    if (!v) return 0;
    int ok = measure_qhull(v, count, out, vertex_ids, reason, reason_len);
    free(v);
    return ok;
}

/* Index (into c [n][3]) of the point farthest from the set's affine span
 * through `from` along the rows of `basis` (0, 1 or 2 unit rows: a point, a
 * line, a plane); the lowest index on ties. */
static int farthest_from(const double *c, int n, const double *from, const double basis[2][3], int rows)
{
    int best = 0;
    double best_d = -1.0;
    for (int i = 0; i < n; ++i) {
        double d[3];
        for (int k = 0; k < 3; ++k) d[k] = c[3 * i + k] - from[k];
        for (int r = 0; r < rows; ++r) {
            double t = d[0] * basis[r][0] + d[1] * basis[r][1] + d[2] * basis[r][2];
            for (int k = 0; k < 3; ++k) d[k] -= t * basis[r][k];
        }
        double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (dd > best_d) best_d = dd, best = i;
    }
    return best;
}

/* Unit vector of d minus its components along basis rows, into basis[rows]. */
static void add_basis(const double *d, double basis[2][3], int rows)
{
    double e[3] = {d[0], d[1], d[2]};
    for (int r = 0; r < rows; ++r) {
        double t = e[0] * basis[r][0] + e[1] * basis[r][1] + e[2] * basis[r][2];
        for (int k = 0; k < 3; ++k) e[k] -= t * basis[r][k];
    }
    double len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    for (int k = 0; k < 3; ++k) basis[rows][k] = len > 0.0 ? e[k] / len : 0.0;
}

/* The chosen candidates' points, in input order, into buf [count][3]. */
static int gather(const float *points, const int *ids, const char *chosen, int n, float *buf)
{
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (chosen[i]) memcpy(buf + 3 * m++, points + 3 * ids[i], 3 * sizeof(float));
    return m;
}

/* Farthest-point insertion over the n candidates ids (hull vertices). */
static int grow_subset(const float *points, const int *ids, int n, float **out, int *out_count, char *reason,
                       size_t reason_len)
{
    double *c = malloc(3 * (size_t)n * sizeof(double));
    char *chosen = calloc((size_t)n, 1);
    float *buf = malloc(3 * (TP_MAX_HULL_VERTICES + 1) * sizeof(float));
    tp_hull *h = malloc(3 * sizeof *h);
    int ok = 0;
    if (!c || !chosen || !buf || !h) {
        snprintf(reason, reason_len, "out of memory for the hull of %d points", n);
        goto done;
    }
    for (int i = 0; i < 3 * n; ++i) c[i] = points[3 * ids[i / 3] + i % 3];
    /* the start: a point with the least x, then the farthest from it, from their line, from their plane */
    int first = 0;
    for (int i = 1; i < n; ++i)
        if (c[3 * i] < c[3 * first]) first = i;
    double basis[2][3] = {{0}};
    int a = farthest_from(c, n, c + 3 * first, basis, 0);
    int b = farthest_from(c, n, c + 3 * a, basis, 0);
    double d[3];
    for (int k = 0; k < 3; ++k) d[k] = c[3 * b + k] - c[3 * a + k];
    add_basis(d, basis, 0);
    int e = farthest_from(c, n, c + 3 * a, basis, 1);
    for (int k = 0; k < 3; ++k) d[k] = c[3 * e + k] - c[3 * a + k];
    add_basis(d, basis, 1);
    int f = farthest_from(c, n, c + 3 * a, basis, 2);
    chosen[a] = chosen[b] = chosen[e] = chosen[f] = 1;
    int m = gather(points, ids, chosen, n, buf);
    if (m < 4 || !tp_hull_build(buf, m, &h[0], reason, reason_len)) goto done;
    for (;;) { /* h[0]: the hull of the chosen points */
        int top[SIMPLIFY_TRIES], tops = 0;
        float top_d[SIMPLIFY_TRIES];
        for (int i = 0; i < n; ++i) { /* the SIMPLIFY_TRIES candidates farthest outside, farthest first */
            if (chosen[i]) continue;
            tp_vec3 p = tp_v3((float)c[3 * i], (float)c[3 * i + 1], (float)c[3 * i + 2]);
            float out_by = -INFINITY;
            for (int fi = 0; fi < h[0].poly.nf; ++fi)
                out_by = tp_maxf(out_by, tp_dot(h[0].poly.f[fi].n, p) - h[0].poly.f[fi].d);
            if (!(out_by > 0.0f) || (tops == SIMPLIFY_TRIES && out_by <= top_d[tops - 1])) continue;
            int j = tops < SIMPLIFY_TRIES ? tops++ : tops - 1;
            for (; j > 0 && top_d[j - 1] < out_by; --j) top[j] = top[j - 1], top_d[j] = top_d[j - 1];
            top[j] = i, top_d[j] = out_by;
        }
        int best = -1;
        for (int t = 0; t < tops; ++t) { /* of those, the one whose hull within the caps is largest */
            chosen[top[t]] = 1;
            m = gather(points, ids, chosen, n, buf);
            char why[8];
            if (m <= TP_MAX_HULL_VERTICES && tp_hull_build(buf, m, &h[2], why, sizeof why) &&
                (best < 0 || h[2].volume > h[1].volume))
                best = top[t], h[1] = h[2];
            chosen[top[t]] = 0;
        }
        if (best < 0) break; /* every vertex inside, or each candidate would pass a cap */
        chosen[best] = 1;
        h[0] = h[1];
    }
    *out_count = gather(points, ids, chosen, n, buf);
    *out = malloc(3 * (size_t)*out_count * sizeof(float));
    if (!*out) {
        snprintf(reason, reason_len, "out of memory for %d points", *out_count);
        goto done;
    }
    memcpy(*out, buf, 3 * (size_t)*out_count * sizeof(float));
    ok = 1;
done:
    free(c);
    free(chosen);
    free(buf);
    free(h);
    return ok;
}

int tp_hull_simplify(const float *points, int count, float **out, int *out_count, char *reason, size_t reason_len)
{
    *out = NULL;
    *out_count = 0;
    tp_hull_measure full;
    int *ids = NULL;
    if (!tp_hull_measure_points(points, count, &full, &ids, reason, reason_len)) return 0;
    int n = full.vertex_count, ok = 0;
    float *own = malloc(3 * (size_t)n * sizeof(float));
    tp_hull *h = malloc(sizeof *h);
    char why[8];
    if (!own || !h) {
        snprintf(reason, reason_len, "out of memory for %d hull vertices", n);
    } else {
        for (int i = 0; i < n; ++i) memcpy(own + 3 * i, points + 3 * ids[i], 3 * sizeof(float));
        if (n <= TP_MAX_HULL_VERTICES && tp_hull_build(own, n, h, why, sizeof why)) { /* fits whole */
            *out = own, *out_count = n, own = NULL;
            ok = 1;
        } else {
            ok = grow_subset(points, ids, n, out, out_count, reason, reason_len);
        }
    }
    free(own);
    free(h);
    free(ids);
    return ok;
}
