/* articulation_spatial.h - 6D spatial vectors and a small dense LDL^T for articulations.
 *
 * Spatial algebra as in Featherstone, "Rigid Body Dynamics Algorithms" (2008),
 * ch. 2, written in absolute (world) coordinates about one reference point O
 * per articulation and step (ch. 2.x / ch. 6.x "absolute coordinates"):
 *   motion  m = (w, v)  angular velocity and the velocity of the body point at O;
 *   force   f = (n, f)  moment about O and force.
 * A rigid-body inertia about O is kept as (mass m, first moment h = m c, and
 * rotational inertia about O, Ibar = Ic + m (|c|^2 1 - c c^T)); inertias of
 * several bodies add by adding these parts (ch. 2.13). Float32, and double for
 * the joint-space matrix and its factor; +, -, *, / (no contraction), so the
 * CPU and CUDA builds agree bitwise. */
#ifndef TP_ARTICULATION_SPATIAL_H
#define TP_ARTICULATION_SPATIAL_H

#include "tp_math.h"

typedef struct tp_svec { tp_vec3 a, l; } tp_svec; /* angular, linear parts */

/* Rigid-body inertia about O: mass (kg), h = m c (kg m), ibar about O (kg m^2,
 * symmetric xx yy zz xy xz yz). */
typedef struct tp_sinertia { float m; tp_vec3 h; float ibar[6]; } tp_sinertia;

TP_HD tp_svec tp_sv(tp_vec3 a, tp_vec3 l) { tp_svec r; r.a = a; r.l = l; return r; }
TP_HD tp_svec tp_sv_zero(void) { return tp_sv(tp_v3(0.0f, 0.0f, 0.0f), tp_v3(0.0f, 0.0f, 0.0f)); }
TP_HD tp_svec tp_sv_add(tp_svec x, tp_svec y) { return tp_sv(tp_add(x.a, y.a), tp_add(x.l, y.l)); }
TP_HD tp_svec tp_sv_sub(tp_svec x, tp_svec y) { return tp_sv(tp_sub(x.a, y.a), tp_sub(x.l, y.l)); }
TP_HD tp_svec tp_sv_scale(tp_svec x, float s) { return tp_sv(tp_scale(x.a, s), tp_scale(x.l, s)); }
/* Motion . force (power). */
TP_HD float tp_sv_dot(tp_svec m, tp_svec f) { return tp_dot(m.a, f.a) + tp_dot(m.l, f.l); }
/* Motion cross motion: v x m (Featherstone eq. 2.31). */
TP_HD tp_svec tp_sv_crm(tp_svec v, tp_svec m)
{
    return tp_sv(tp_cross(v.a, m.a), tp_add(tp_cross(v.a, m.l), tp_cross(v.l, m.a)));
}
/* Motion cross force: v x* f (eq. 2.32). */
TP_HD tp_svec tp_sv_crf(tp_svec v, tp_svec f)
{
    return tp_sv(tp_add(tp_cross(v.a, f.a), tp_cross(v.l, f.l)), tp_cross(v.a, f.l));
}
/* Load / store 6 floats (angular first). */
TP_HD tp_svec tp_sv_load(const float *p) { return tp_sv(tp_v3_load(p), tp_v3_load(p + 3)); }
TP_HD void tp_sv_store(float *p, tp_svec x) { tp_v3_store(p, x.a); tp_v3_store(p + 3, x.l); }

TP_HD tp_vec3 tp_sym_mul(const float *s, tp_vec3 v)
{
    return tp_v3(s[0] * v.x + s[3] * v.y + s[4] * v.z, s[3] * v.x + s[1] * v.y + s[5] * v.z,
                 s[4] * v.x + s[5] * v.y + s[2] * v.z);
}

/* Inertia about O of a body of mass m with centre c (relative to O) and
 * rotational inertia ic (world frame, about c). */
TP_HD tp_sinertia tp_si_body(float m, tp_vec3 c, const float *ic)
{
    tp_sinertia r;
    r.m = m;
    r.h = tp_scale(c, m);
    float cc = tp_dot(c, c);
    r.ibar[0] = ic[0] + m * (cc - c.x * c.x);
    r.ibar[1] = ic[1] + m * (cc - c.y * c.y);
    r.ibar[2] = ic[2] + m * (cc - c.z * c.z);
    r.ibar[3] = ic[3] - m * c.x * c.y;
    r.ibar[4] = ic[4] - m * c.x * c.z;
    r.ibar[5] = ic[5] - m * c.y * c.z;
    return r;
}

TP_HD void tp_si_add_to(tp_sinertia *to, const tp_sinertia *x)
{
    to->m += x->m;
    to->h = tp_add(to->h, x->h);
    for (int k = 0; k < 6; ++k) to->ibar[k] += x->ibar[k];
}

/* A rigid-body inertia about O in double precision, for the joint-space
 * matrix: far from O the parts m |c|^2 of Ibar are large, and H's entries and
 * its factor cancel them down to the small inertias of the links. */
typedef struct tp_sinertia_d { double m, h[3], ibar[6]; } tp_sinertia_d;

/* tp_si_body in double (c and ic are float32 values, the rest exact in double). */
TP_HD tp_sinertia_d tp_si_body_d(float m, tp_vec3 c, const float *ic)
{
    tp_sinertia_d r;
    double cx = c.x, cy = c.y, cz = c.z, md = m, cc = cx * cx + cy * cy + cz * cz;
    r.m = md;
    r.h[0] = md * cx; r.h[1] = md * cy; r.h[2] = md * cz;
    r.ibar[0] = ic[0] + md * (cc - cx * cx);
    r.ibar[1] = ic[1] + md * (cc - cy * cy);
    r.ibar[2] = ic[2] + md * (cc - cz * cz);
    r.ibar[3] = ic[3] - md * cx * cy;
    r.ibar[4] = ic[4] - md * cx * cz;
    r.ibar[5] = ic[5] - md * cy * cz;
    return r;
}

TP_HD void tp_sid_add_to(tp_sinertia_d *to, const tp_sinertia_d *x)
{
    to->m += x->m;
    for (int k = 0; k < 3; ++k) to->h[k] += x->h[k];
    for (int k = 0; k < 6; ++k) to->ibar[k] += x->ibar[k];
}

/* tp_si_mul in double for a motion given as 6 floats (angular first); out: the force. */
TP_HD void tp_sid_mul(const tp_sinertia_d *I, const float *mo, double *out)
{
    double w[3] = {mo[0], mo[1], mo[2]}, v[3] = {mo[3], mo[4], mo[5]};
    const double *h = I->h, *s = I->ibar;
    out[0] = s[0] * w[0] + s[3] * w[1] + s[4] * w[2] + (h[1] * v[2] - h[2] * v[1]);
    out[1] = s[3] * w[0] + s[1] * w[1] + s[5] * w[2] + (h[2] * v[0] - h[0] * v[2]);
    out[2] = s[4] * w[0] + s[5] * w[1] + s[2] * w[2] + (h[0] * v[1] - h[1] * v[0]);
    out[3] = I->m * v[0] - (h[1] * w[2] - h[2] * w[1]);
    out[4] = I->m * v[1] - (h[2] * w[0] - h[0] * w[2]);
    out[5] = I->m * v[2] - (h[0] * w[1] - h[1] * w[0]);
}

/* I m: the momentum (h_O, p) of motion m = (w, v_O):
 * p = m v_O - h x w, h_O = Ibar w + h x v_O. */
TP_HD tp_svec tp_si_mul(const tp_sinertia *I, tp_svec m)
{
    tp_vec3 p = tp_sub(tp_scale(m.l, I->m), tp_cross(I->h, m.a));
    tp_vec3 ang = tp_add(tp_sym_mul(I->ibar, m.a), tp_cross(I->h, m.l));
    return tp_sv(ang, p);
}

/* World-frame rotational inertia R I R^T of a body-frame symmetric tensor,
 * R given as a matrix; only the six entries of the symmetric result. */
TP_HD void tp_sym_rotate_m(tp_mat3 r, const float *local, float *out)
{
    tp_mat3 a = tp_m3_from_sym(local), t;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            t.m[i][j] = r.m[i][0] * a.m[0][j] + r.m[i][1] * a.m[1][j] + r.m[i][2] * a.m[2][j];
    for (int e = 0; e < 6; ++e) { /* xx yy zz xy xz yz */
        int i = e < 3 ? e : (e == 5 ? 1 : 0), j = e < 3 ? e : (e == 3 ? 1 : 2);
        out[e] = t.m[i][0] * r.m[j][0] + t.m[i][1] * r.m[j][1] + t.m[i][2] * r.m[j][2];
    }
}

/* The same for a rotation given as a unit quaternion. */
TP_HD void tp_sym_rotate(tp_quat q, const float *local, float *out) { tp_sym_rotate_m(tp_q_to_mat3(q), local, out); }

/* In-place LDL^T factorisation of a symmetric positive-definite n x n matrix
 * (row-major, stride n; the lower triangle is read and overwritten with L's
 * strict lower part, D on the diagonal). Plain Gaussian elimination order
 * (Golub & Van Loan, "Matrix Computations", alg. 4.1.2); a pivot that is not
 * positive is replaced by a tiny one so a singular tree still gives finite
 * numbers. Returns 0 if a pivot had to be replaced. */
TP_HD int tp_ldl_factor(float *a, int n)
{
    int ok = 1;
    for (int j = 0; j < n; ++j) {
        float d = a[j * n + j];
        for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k] * a[k * n + k];
        if (!(d > 1e-12f)) { d = 1e-12f; ok = 0; }
        a[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            float s = a[i * n + j];
            for (int k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k] * a[k * n + k];
            a[i * n + j] = s / d;
        }
    }
    return ok;
}

/* Solve (L D L^T) x = b in place (x = b on entry). */
TP_HD void tp_ldl_solve(const float *a, int n, float *x)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < i; ++k) x[i] -= a[i * n + k] * x[k];
    for (int i = 0; i < n; ++i) x[i] /= a[i * n + i];
    for (int i = n - 1; i >= 0; --i)
        for (int k = i + 1; k < n; ++k) x[i] -= a[k * n + i] * x[k];
}

/* Sparse L^T D L factorisation of a tree's joint-space matrix H (n x n,
 * row-major, stride n) in place, without fill-in: Featherstone, "Rigid Body
 * Dynamics Algorithms" (2008), section 6.5 (table 6.3); MuJoCo's mj_factorM
 * is the same. parent[k] is dof k's parent dof (-1 at a root), parent[k] < k.
 * Only the entries H[k][i] with i = k or i an ancestor of k are read and
 * written (the other entries of the buffer are never touched): on return
 * H[k][k] = D_k and H[k][i] = L_ki of the unit lower-triangular L with
 * H = L^T D L. A tree's H has non-zeros only there (branch-induced
 * sparsity), so this costs sum over dofs of depth^2 instead of n^3 / 3. A
 * pivot that is not positive is replaced by a tiny one so a singular tree
 * still gives finite numbers. Returns 0 if a pivot had to be replaced. */
TP_HD int tp_ltl_factor(double *a, int n, const int32_t *parent)
{
    int ok = 1;
    for (int k = n - 1; k >= 0; --k) {
        double *rk = a + k * n;
        double d = rk[k];
        if (!(d > 1e-30)) { d = 1e-30; rk[k] = d; ok = 0; }
        for (int i = parent[k]; i >= 0; i = parent[i]) {
            double l = rk[i] / d;
            double *ri = a + i * n;
            for (int j = i; j >= 0; j = parent[j]) ri[j] -= l * rk[j];
            rk[i] = l;
        }
    }
    return ok;
}

/* Solve (L^T D L) x = b in place (x = b on entry) with the factor of
 * tp_ltl_factor, where b is zero outside the root path of dof `chain`
 * (chain = n - 1 with dense b is not enough: use tp_ltl_solve). The first
 * half (L^-T, then D^-1) only visits that path: x stays zero elsewhere until
 * the last half (L^-1), which fills all of x. chain < 0: b = 0. */
TP_HD void tp_ltl_solve_chain(const double *a, int n, const int32_t *parent, int chain, float *x)
{
    for (int k = chain; k >= 0; k = parent[k]) {
        const double *rk = a + k * n;
        float xk = x[k];
        for (int i = parent[k]; i >= 0; i = parent[i]) x[i] -= rk[i] * xk;
    }
    for (int k = chain; k >= 0; k = parent[k]) x[k] /= a[k * n + k];
    for (int k = 0; k < n; ++k) {
        const double *rk = a + k * n;
        double s = x[k];
        for (int i = parent[k]; i >= 0; i = parent[i]) s -= rk[i] * x[i];
        x[k] = (float)s;
    }
}

/* tp_ltl_solve_chain for three right-hand sides with the same root path at
 * once (the three rows of a contact point): each gets exactly the operations
 * of its own tp_ltl_solve_chain, the index walk is shared. */
TP_HD void tp_ltl_solve_chain3(const double *a, int n, const int32_t *parent, int chain, float *x, float *y, float *z)
{
    for (int k = chain; k >= 0; k = parent[k]) {
        const double *rk = a + k * n;
        float xk = x[k], yk = y[k], zk = z[k];
        for (int i = parent[k]; i >= 0; i = parent[i]) {
            double l = rk[i];
            x[i] -= l * xk;
            y[i] -= l * yk;
            z[i] -= l * zk;
        }
    }
    for (int k = chain; k >= 0; k = parent[k]) {
        double d = a[k * n + k];
        x[k] /= d;
        y[k] /= d;
        z[k] /= d;
    }
    for (int k = 0; k < n; ++k) {
        const double *rk = a + k * n;
        double sx = x[k], sy = y[k], sz = z[k];
        for (int i = parent[k]; i >= 0; i = parent[i]) {
            double l = rk[i];
            sx -= l * x[i];
            sy -= l * y[i];
            sz -= l * z[i];
        }
        x[k] = (float)sx;
        y[k] = (float)sy;
        z[k] = (float)sz;
    }
}

/* Solve (L^T D L) x = b in place for a dense b (x = b on entry). */
TP_HD void tp_ltl_solve(const double *a, int n, const int32_t *parent, float *x)
{
    for (int k = n - 1; k >= 0; --k) {
        const double *rk = a + k * n;
        float xk = x[k];
        for (int i = parent[k]; i >= 0; i = parent[i]) x[i] -= rk[i] * xk;
    }
    for (int k = 0; k < n; ++k) x[k] /= a[k * n + k];
    for (int k = 0; k < n; ++k) {
        const double *rk = a + k * n;
        double s = x[k];
        for (int i = parent[k]; i >= 0; i = parent[i]) s -= rk[i] * x[i];
        x[k] = (float)s;
    }
}

/* Unit quaternion of a rotation by `angle` (rad) about unit axis `a`. */
TP_HD tp_quat tp_q_axis_angle(tp_vec3 a, float angle)
{
    float s, c;
    tp_sin_cos(0.5f * angle, &s, &c);
    return tp_q(a.x * s, a.y * s, a.z * s, c);
}

#endif
