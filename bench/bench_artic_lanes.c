/* bench_artic_lanes.c - a measurement for issue 31 item 3 (lanes across
 * worlds), not library code: forward kinematics, and CRBA with the sparse
 * factor, of W worlds' trees at once in W lanes (GCC vector extensions:
 * W = 4 floats in SSE2 registers, or 8 with -mavx2 -mno-fma), against
 * kernels/articulation.h's scalar tp_artic_fk, tp_artic_crba and
 * tp_ltl_factor world by world. The lanes must give the scalar code's bits
 * (the program exits 1 otherwise); callgrind counts each path's
 * instructions. Two hand-made trees: a cart-pole (prismatic + hinge) and a
 * walker-like one (free base, four legs of two hinges); per-world link mass
 * scales on two worlds of three, two worlds with an angle past
 * TP_SIN_COS_MAX (NaN lanes). bench/README.md, "Lanes across worlds", has
 * the figures and what the step would need to use them.
 *
 *   build/bench_artic_lanes [reps] [model: 0 cart-pole, 1 walker-like]   (4 lanes)
 *   gcc -O3 -std=c11 -ffp-contract=off -fno-fast-math -fno-math-errno -mavx2 -mno-fma -Ikernels -Iinclude \
 *       bench/bench_artic_lanes.c -lm -o /tmp/lanes8                          (8 lanes)
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg build/bench_artic_lanes 20 0
 *   callgrind_annotate --inclusive=yes /tmp/cg | grep run_      (instructions / (20 x 64) per world) */
#include "articulation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef W
#if defined(__AVX2__)
#define W 8
#else
#define W 4
#endif
#endif

typedef float lf __attribute__((vector_size(4 * W)));
typedef double ld __attribute__((vector_size(8 * W)));
typedef int32_t li __attribute__((vector_size(4 * W)));

typedef struct { lf x, y, z; } lv3;
typedef struct { lf x, y, z, w; } lq4;
typedef struct { lf m[3][3]; } lm3;

static inline lf bc(float a) { lf r; for (int l = 0; l < W; ++l) r[l] = a; return r; }
static inline lf sel(li m, lf a, lf b)
{
    li ai, bi;
    memcpy(&ai, &a, sizeof ai);
    memcpy(&bi, &b, sizeof bi);
    li r = (m & ai) | (~m & bi);
    lf o;
    memcpy(&o, &r, sizeof o);
    return o;
}
static inline lv3 v3(lf x, lf y, lf z) { lv3 r = {x, y, z}; return r; }
static inline lv3 v3b(const float *p) { return v3(bc(p[0]), bc(p[1]), bc(p[2])); }
static inline lv3 add(lv3 a, lv3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline lv3 sub(lv3 a, lv3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline lv3 scale(lv3 a, lf s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline lv3 cross(lv3 a, lv3 b) { return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static inline lf dot(lv3 a, lv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline lq4 q4(lf x, lf y, lf z, lf w) { lq4 r = {x, y, z, w}; return r; }
static inline lq4 qmul(lq4 a, lq4 b)
{
    return q4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static inline lv3 qrot(lq4 q, lv3 v)
{
    lv3 u = v3(q.x, q.y, q.z);
    lv3 t = scale(cross(u, v), bc(2.0f));
    return add(add(v, scale(t, q.w)), cross(u, t));
}
static inline lq4 qnorm(lq4 q)
{
    lf l2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, s;
    for (int l = 0; l < W; ++l) s[l] = 1.0f / sqrtf(l2[l]);
    li ok = l2 > bc(1e-24f);
    return q4(sel(ok, q.x * s, bc(0.0f)), sel(ok, q.y * s, bc(0.0f)), sel(ok, q.z * s, bc(0.0f)),
              sel(ok, q.w * s, bc(1.0f)));
}
static inline lm3 q2m(lq4 q)
{
    lf xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z, xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    lf wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z, one = bc(1.0f), two = bc(2.0f);
    lm3 r;
    r.m[0][0] = one - two * (yy + zz); r.m[0][1] = two * (xy - wz); r.m[0][2] = two * (xz + wy);
    r.m[1][0] = two * (xy + wz); r.m[1][1] = one - two * (xx + zz); r.m[1][2] = two * (yz - wx);
    r.m[2][0] = two * (xz - wy); r.m[2][1] = two * (yz + wx); r.m[2][2] = one - two * (xx + yy);
    return r;
}
static inline lv3 m3v(const lm3 *a, lv3 v)
{
    return v3(a->m[0][0] * v.x + a->m[0][1] * v.y + a->m[0][2] * v.z,
              a->m[1][0] * v.x + a->m[1][1] * v.y + a->m[1][2] * v.z,
              a->m[2][0] * v.x + a->m[2][1] * v.y + a->m[2][2] * v.z);
}
/* tp_sin_cos in lanes: both sides of every branch, then a select. */
static inline void sincos_l(lf x, lf *s, lf *c)
{
    const float half_pi = 1.57079632679489662f;
    lf ax = sel(x < bc(0.0f), -x, x);
    li bad = ~(ax <= bc(TP_SIN_COS_MAX));
    lf k = x * bc(1.0f / half_pi);
    lf kk = sel(k < bc(0.0f), k - bc(0.5f), k + bc(0.5f));
    kk = sel(bad, bc(0.0f), kk);
    li n = __builtin_convertvector(kk, li);
    lf r = x - __builtin_convertvector(n, lf) * bc(half_pi);
    lf r2 = r * r;
    lf sr = r * (bc(1.0f) + r2 * (bc(-1.0f / 6.0f) + r2 * (bc(1.0f / 120.0f) + r2 * (bc(-1.0f / 5040.0f) + r2 * bc(1.0f / 362880.0f)))));
    lf cr = bc(1.0f) + r2 * (bc(-0.5f) + r2 * (bc(1.0f / 24.0f) + r2 * (bc(-1.0f / 720.0f) + r2 * bc(1.0f / 40320.0f))));
    li q = n & 3;
    lf so = sel(q == 0, sr, sel(q == 1, cr, sel(q == 2, -sr, -cr)));
    lf co = sel(q == 0, cr, sel(q == 1, -sr, sel(q == 2, -cr, sr)));
    union { uint32_t u; float f; } nan_bits = {0x7fc00000u};
    *s = sel(bad, bc(nan_bits.f), so);
    *c = sel(bad, bc(nan_bits.f), co);
}

/* Lane state of a tree's links: SoA, link-major. */
typedef struct { lq4 q; lv3 p; } lpose;

static void store_f(float *const *base, size_t off, lf v)
{
    for (int l = 0; l < W; ++l) base[l][off] = v[l];
}

/* tp_artic_fk for W worlds of one model: q[l] world l's joint_q, o its reference, x[l] its scratch. */
static void fk_lanes(const tp_artic_model *m, const tp_artic_tree *tr, float *const *q, const tp_vec3 *o,
                     tp_artic_scratch *const *x, lpose *pose)
{
    lv3 ol;
    for (int l = 0; l < W; ++l) { ol.x[l] = o[l].x; ol.y[l] = o[l].y; ol.z[l] = o[l].z; }
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        lq4 pq = q4(bc(0.0f), bc(0.0f), bc(0.0f), bc(1.0f));
        lv3 pp = v3(bc(0.0f), bc(0.0f), bc(0.0f));
        if (j->parent >= 0) { pq = pose[j->parent].q; pp = pose[j->parent].p; }
        lf q0 = bc(0.0f), q1 = q0, q2 = q0, q3 = q0, q4v = q0, q5 = q0, q6 = q0;
        for (int l = 0; l < W; ++l) {
            const float *qj = q[l] + j->q_start;
            q0[l] = qj[0];
            if (j->nq > 1) { q1[l] = qj[1]; q2[l] = qj[2]; q3[l] = qj[3]; }
            if (j->nq > 4) { q4v[l] = qj[4]; q5[l] = qj[5]; q6[l] = qj[6]; }
        }
        lq4 cq;
        lv3 cp, anchor;
        if (j->type == TP_AJ_FREE) {
            cp = v3(q0, q1, q2);
            cq = qnorm(q4(q3, q4v, q5, q6));
            anchor = cp;
        } else {
            lq4 base = qmul(pq, q4(bc(j->rel_quat[0]), bc(j->rel_quat[1]), bc(j->rel_quat[2]), bc(j->rel_quat[3])));
            anchor = add(pp, qrot(pq, v3b(j->parent_anchor)));
            lq4 c = base;
            if (j->type == TP_AJ_REVOLUTE) {
                lf s, co;
                sincos_l(bc(0.5f) * q0, &s, &co);
                c = qmul(base, q4(bc(j->axis[0]) * s, bc(j->axis[1]) * s, bc(j->axis[2]) * s, co));
            } else if (j->type == TP_AJ_BALL) {
                c = qmul(base, qnorm(q4(q0, q1, q2, q3)));
            } else if (j->type == TP_AJ_PRISMATIC) {
                anchor = add(anchor, scale(qrot(base, v3b(j->axis)), q0));
            }
            cq = c;
            cp = sub(anchor, qrot(c, v3b(j->child_anchor)));
        }
        pose[i].q = cq;
        pose[i].p = cp;
        lm3 r = q2m(cq);
        lv3 c = sub(add(cp, m3v(&r, v3b(j->com))), ol);
        /* tp_sym_rotate_m */
        lm3 a, t;
        const float *s6 = j->inertia;
        a.m[0][0] = bc(s6[0]); a.m[1][1] = bc(s6[1]); a.m[2][2] = bc(s6[2]);
        a.m[0][1] = a.m[1][0] = bc(s6[3]); a.m[0][2] = a.m[2][0] = bc(s6[4]); a.m[1][2] = a.m[2][1] = bc(s6[5]);
        for (int ii = 0; ii < 3; ++ii)
            for (int jj = 0; jj < 3; ++jj)
                t.m[ii][jj] = r.m[ii][0] * a.m[0][jj] + r.m[ii][1] * a.m[1][jj] + r.m[ii][2] * a.m[2][jj];
        lf ic[6], sc;
        for (int e = 0; e < 6; ++e) {
            int ii = e < 3 ? e : (e == 5 ? 1 : 0), jj = e < 3 ? e : (e == 3 ? 1 : 2);
            ic[e] = t.m[ii][0] * r.m[jj][0] + t.m[ii][1] * r.m[jj][1] + t.m[ii][2] * r.m[jj][2];
        }
        for (int l = 0; l < W; ++l) sc[l] = x[l]->link_scale ? x[l]->link_scale[i] : 1.0f;
        for (int e = 0; e < 6; ++e) ic[e] *= sc;
        lf ms = bc(j->mass) * sc;
        /* tp_si_body */
        lf cc = dot(c, c);
        lf ib[6] = {ic[0] + ms * (cc - c.x * c.x), ic[1] + ms * (cc - c.y * c.y), ic[2] + ms * (cc - c.z * c.z),
                    ic[3] - ms * c.x * c.y, ic[4] - ms * c.x * c.z, ic[5] - ms * c.y * c.z};
        lv3 hh = scale(c, ms);
        /* tp_si_body_d */
        ld cx = __builtin_convertvector(c.x, ld), cy = __builtin_convertvector(c.y, ld);
        ld cz = __builtin_convertvector(c.z, ld), md = __builtin_convertvector(ms, ld);
        ld ccd = cx * cx + cy * cy + cz * cz;
        ld icd[6];
        for (int e = 0; e < 6; ++e) icd[e] = __builtin_convertvector(ic[e], ld);
        ld ibd[6] = {icd[0] + md * (ccd - cx * cx), icd[1] + md * (ccd - cy * cy), icd[2] + md * (ccd - cz * cz),
                     icd[3] - md * cx * cy, icd[4] - md * cx * cz, icd[5] - md * cy * cz};
        lv3 jp = sub(anchor, ol);
        /* stores: the scratch layout the scalar code reads */
        float *b[W];
        for (int l = 0; l < W; ++l) b[l] = x[l]->lq + 4 * i;
        store_f(b, 0, cq.x); store_f(b, 1, cq.y); store_f(b, 2, cq.z); store_f(b, 3, cq.w);
        for (int l = 0; l < W; ++l) b[l] = x[l]->lp + 3 * i;
        store_f(b, 0, cp.x); store_f(b, 1, cp.y); store_f(b, 2, cp.z);
        for (int l = 0; l < W; ++l) b[l] = x[l]->lc + 3 * i;
        store_f(b, 0, c.x); store_f(b, 1, c.y); store_f(b, 2, c.z);
        for (int l = 0; l < W; ++l) {
            tp_sinertia *si = &x[l]->li[i];
            si->m = ms[l];
            si->h = tp_v3(hh.x[l], hh.y[l], hh.z[l]);
            for (int e = 0; e < 6; ++e) si->ibar[e] = ib[e][l];
            tp_sinertia_d *sd = &x[l]->lid[i];
            sd->m = md[l];
            sd->h[0] = md[l] * cx[l]; sd->h[1] = md[l] * cy[l]; sd->h[2] = md[l] * cz[l];
            for (int e = 0; e < 6; ++e) sd->ibar[e] = ibd[e][l];
        }
        for (int l = 0; l < W; ++l) b[l] = x[l]->s + 6 * (j->v_start - tr->v_start);
        if (j->type == TP_AJ_REVOLUTE) {
            lv3 ax = m3v(&r, v3b(j->axis)), cr = cross(jp, ax);
            store_f(b, 0, ax.x); store_f(b, 1, ax.y); store_f(b, 2, ax.z);
            store_f(b, 3, cr.x); store_f(b, 4, cr.y); store_f(b, 5, cr.z);
        } else if (j->type == TP_AJ_PRISMATIC) {
            lv3 ax = m3v(&r, v3b(j->axis));
            store_f(b, 0, bc(0.0f)); store_f(b, 1, bc(0.0f)); store_f(b, 2, bc(0.0f));
            store_f(b, 3, ax.x); store_f(b, 4, ax.y); store_f(b, 5, ax.z);
        } else if (j->type == TP_AJ_BALL) {
            for (int k = 0; k < 3; ++k) {
                lv3 e = v3(r.m[0][k], r.m[1][k], r.m[2][k]), cr = cross(jp, e);
                store_f(b, 6 * k + 0, e.x); store_f(b, 6 * k + 1, e.y); store_f(b, 6 * k + 2, e.z);
                store_f(b, 6 * k + 3, cr.x); store_f(b, 6 * k + 4, cr.y); store_f(b, 6 * k + 5, cr.z);
            }
        } else if (j->type == TP_AJ_FREE) {
            for (int k = 0; k < 3; ++k) {
                lv3 e = v3(bc(k == 0), bc(k == 1), bc(k == 2)), cr = cross(c, e);
                store_f(b, 6 * k + 0, bc(0.0f)); store_f(b, 6 * k + 1, bc(0.0f)); store_f(b, 6 * k + 2, bc(0.0f));
                store_f(b, 6 * k + 3, e.x); store_f(b, 6 * k + 4, e.y); store_f(b, 6 * k + 5, e.z);
                store_f(b, 6 * (3 + k) + 0, e.x); store_f(b, 6 * (3 + k) + 1, e.y); store_f(b, 6 * (3 + k) + 2, e.z);
                store_f(b, 6 * (3 + k) + 3, cr.x); store_f(b, 6 * (3 + k) + 4, cr.y); store_f(b, 6 * (3 + k) + 5, cr.z);
            }
        }
    }
}


/* tp_artic_crba then tp_ltl_factor for W worlds (reads each world's lid and
 * motion columns, writes its factor): the double lanes. */
typedef struct { ld m, h[3], ibar[6]; } lsid;

static void crba_factor_lanes(const tp_artic_model *m, const tp_artic_tree *tr, tp_artic_scratch *const *x, lsid *ic,
                              ld *hl)
{
    int n = tr->nv;
    for (int i = tr->first; i < tr->end; ++i)
        for (int l = 0; l < W; ++l) {
            const tp_sinertia_d *d = &x[l]->lid[i];
            ic[i].m[l] = d->m;
            for (int k = 0; k < 3; ++k) ic[i].h[k][l] = d->h[k];
            for (int k = 0; k < 6; ++k) ic[i].ibar[k][l] = d->ibar[k];
        }
    for (int i = tr->end - 1; i >= tr->first; --i) {
        int p = m->joints[i].parent;
        if (p < 0) continue;
        ic[p].m += ic[i].m;
        for (int k = 0; k < 3; ++k) ic[p].h[k] += ic[i].h[k];
        for (int k = 0; k < 6; ++k) ic[p].ibar[k] += ic[i].ibar[k];
    }
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        for (int k = 0; k < j->nv; ++k) {
            int dk = j->v_start - tr->v_start + k;
            ld mo[6], f[6];
            for (int e = 0; e < 6; ++e)
                for (int l = 0; l < W; ++l) mo[e][l] = x[l]->s[6 * dk + e];
            const ld *w = mo, *v = mo + 3, *h = ic[i].h, *s6 = ic[i].ibar;
            f[0] = s6[0] * w[0] + s6[3] * w[1] + s6[4] * w[2] + (h[1] * v[2] - h[2] * v[1]);
            f[1] = s6[3] * w[0] + s6[1] * w[1] + s6[5] * w[2] + (h[2] * v[0] - h[0] * v[2]);
            f[2] = s6[4] * w[0] + s6[5] * w[1] + s6[2] * w[2] + (h[0] * v[1] - h[1] * v[0]);
            f[3] = ic[i].m * v[0] - (h[1] * w[2] - h[2] * w[1]);
            f[4] = ic[i].m * v[1] - (h[2] * w[0] - h[0] * w[2]);
            f[5] = ic[i].m * v[2] - (h[0] * w[1] - h[1] * w[0]);
            for (int a = i; a >= 0; a = m->joints[a].parent) {
                const tp_artic_joint *ja = &m->joints[a];
                for (int q = 0; q < ja->nv; ++q) {
                    int dl = ja->v_start - tr->v_start + q;
                    if (a == i && dl > dk) continue;
                    ld hkl = {0};
                    for (int e = 0; e < 6; ++e) {
                        ld sl;
                        for (int l = 0; l < W; ++l) sl[l] = x[l]->s[6 * dl + e];
                        hkl += sl * f[e];
                    }
                    hl[dk * n + dl] = hkl;
                }
            }
        }
    }
    const int32_t *parent = x[0]->par;
    ld tiny;
    for (int l = 0; l < W; ++l) tiny[l] = 1e-30;
    for (int k = n - 1; k >= 0; --k) {
        ld *rk = hl + k * n;
        ld d = rk[k];
        __typeof__(d > tiny) ok = d > tiny;
        d = (ld)(((__typeof__(ok))d & ok) | ((__typeof__(ok))tiny & ~ok));
        rk[k] = d;
        for (int i = parent[k]; i >= 0; i = parent[i]) {
            ld lv = rk[i] / d;
            ld *ri = hl + i * n;
            for (int jj = i; jj >= 0; jj = parent[jj]) ri[jj] -= lv * rk[jj];
            rk[i] = lv;
        }
    }
    for (int k = 0; k < n; ++k)
        for (int i = k; i >= 0; i = parent[i])
            for (int l = 0; l < W; ++l) x[l]->h[k * n + i] = hl[k * n + i][l];
}

/* ---------------------------------------------------------------- models */

static void joint(tp_artic_joint *j, int type, int parent, int qs, int vs, const float *pa, const float *ca,
                  const float *axis, float mass, float ix, float iy, float iz)
{
    memset(j, 0, sizeof *j);
    j->type = type;
    j->parent = parent;
    j->body = 0;
    j->q_start = qs;
    j->v_start = vs;
    j->nq = type == TP_AJ_FREE ? 7 : type == TP_AJ_BALL ? 4 : 1;
    j->nv = type == TP_AJ_FREE ? 6 : type == TP_AJ_BALL ? 3 : 1;
    for (int k = 0; k < 3; ++k) { j->parent_anchor[k] = pa[k]; j->child_anchor[k] = ca[k]; j->axis[k] = axis[k]; }
    j->rel_quat[3] = 1.0f;
    j->mass = mass;
    j->com[0] = 0.01f;
    j->com[2] = -0.02f;
    j->inertia[0] = ix; j->inertia[1] = iy; j->inertia[2] = iz; j->inertia[3] = 0.001f;
}

static tp_artic_joint J[16];
static tp_artic_tree T;
static tp_artic_model M;

static void cartpole(void)
{
    const float z[3] = {0, 0, 0}, pa[3] = {0, 0, 1}, ca[3] = {0, 0, -0.5f}, ax[3] = {1, 0, 0}, ay[3] = {0, 1, 0};
    joint(&J[0], TP_AJ_PRISMATIC, -1, 0, 0, pa, z, ax, 1.0f, 0.01f, 0.02f, 0.03f);
    joint(&J[1], TP_AJ_REVOLUTE, 0, 1, 1, z, ca, ay, 0.1f, 0.008f, 0.008f, 0.0001f);
    T = (tp_artic_tree){0, 2, 0, 2, 0};
    M = (tp_artic_model){.joint_count = 2, .tree_count = 1, .nq = 2, .nv = 2, .max_tree_nv = 2, .joints = J, .trees = &T};
}

static void walker(void)
{
    const float z[3] = {0, 0, 0}, ay[3] = {0, 1, 0}, ca[3] = {0, 0, 0.125f};
    joint(&J[0], TP_AJ_FREE, -1, 0, 0, z, z, ay, 4.0f, 0.03f, 0.12f, 0.15f);
    int qs = 7, vs = 6;
    for (int leg = 0; leg < 4; ++leg) {
        float hip[3] = {leg < 2 ? 0.25f : -0.25f, leg % 2 ? -0.15f : 0.15f, -0.05f};
        float knee[3] = {0, 0, -0.125f};
        joint(&J[1 + 2 * leg], TP_AJ_REVOLUTE, 0, qs++, vs++, hip, ca, ay, 0.8f, 0.005f, 0.005f, 0.001f);
        joint(&J[2 + 2 * leg], TP_AJ_REVOLUTE, 1 + 2 * leg, qs++, vs++, knee, ca, ay, 0.9f, 0.006f, 0.006f, 0.001f);
    }
    T = (tp_artic_tree){0, 9, 0, 14, 1};
    M = (tp_artic_model){.joint_count = 9, .tree_count = 1, .nq = 15, .nv = 14, .max_tree_nv = 14, .joints = J, .trees = &T};
}

/* ---------------------------------------------------------------- runs */

#define WORLDS 64
static float qs[WORLDS][16], scales[WORLDS][16];
static void *mem_s[WORLDS], *mem_l[WORLDS];
static tp_artic_scratch xs[WORLDS], xl[WORLDS];

__attribute__((noinline)) static void run_scalar(int reps)
{
    for (int r = 0; r < reps; ++r)
        for (int w = 0; w < WORLDS; ++w) tp_artic_fk(&M, &T, qs[w], tp_v3(0.1f, 0.2f, 0.3f), &xs[w]);
}

__attribute__((noinline)) static void run_scalar_crba(int reps)
{
    for (int r = 0; r < reps; ++r)
        for (int w = 0; w < WORLDS; ++w) {
            tp_artic_crba(&M, &T, &xs[w]);
            tp_ltl_factor(xs[w].h, T.nv, xs[w].par);
        }
}

__attribute__((noinline)) static void run_lanes_crba(int reps)
{
    static lsid ic[16];
    static ld hl[16 * 16];
    for (int r = 0; r < reps; ++r)
        for (int w = 0; w < WORLDS; w += W) {
            tp_artic_scratch *x[W];
            for (int l = 0; l < W; ++l) x[l] = &xl[w + l];
            crba_factor_lanes(&M, &T, x, ic, hl);
        }
}

__attribute__((noinline)) static void run_lanes(int reps)
{
    lpose pose[16];
    for (int r = 0; r < reps; ++r)
        for (int w = 0; w < WORLDS; w += W) {
            float *q[W];
            tp_vec3 o[W];
            tp_artic_scratch *x[W];
            for (int l = 0; l < W; ++l) { q[l] = qs[w + l]; o[l] = tp_v3(0.1f, 0.2f, 0.3f); x[l] = &xl[w + l]; }
            fk_lanes(&M, &T, q, o, x, pose);
        }
}

static int compare(void)
{
    int bad = 0;
    for (int w = 0; w < WORLDS; ++w) {
        tp_artic_scratch *a = &xs[w], *b = &xl[w];
        int Jn = M.joint_count, V = M.nv;
        bad |= memcmp(a->lq, b->lq, sizeof(float) * 10 * Jn) != 0;
        bad |= memcmp(a->li, b->li, sizeof(tp_sinertia) * Jn) != 0;
        bad |= memcmp(a->lid, b->lid, sizeof(tp_sinertia_d) * Jn) != 0;
        bad |= memcmp(a->s_all, b->s_all, sizeof(float) * 6 * V) != 0;
        for (int k = 0; k < V; ++k)
            for (int i = k; i >= 0; i = a->par[i]) bad |= memcmp(&a->h[k * V + i], &b->h[k * V + i], sizeof(double)) != 0;
    }
    return bad;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 100;
    int only = argc > 2 ? atoi(argv[2]) : -1, bad = 0;
    for (int model = 0; model < 2; ++model) {
        if (only >= 0 && model != only) continue;
        if (model == 0) cartpole(); else walker();
        uint32_t seed = 12345;
        for (int w = 0; w < WORLDS; ++w) {
            for (int k = 0; k < 16; ++k) {
                seed = seed * 1664525u + 1013904223u;
                qs[w][k] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 3.0f;
                scales[w][k] = 0.8f + 0.4f * (float)(seed >> 20) / 4096.0f;
            }
            if (model == 1) qs[w][6] += 1.0f; /* the free base's quaternion */
            size_t bytes = tp_artic_scratch_bytes(&M, 4);
            free(mem_s[w]); free(mem_l[w]);
            mem_s[w] = calloc(1, bytes);
            mem_l[w] = calloc(1, bytes);
            xs[w] = tp_artic_scratch_at(mem_s[w], &M, 4);
            xl[w] = tp_artic_scratch_at(mem_l[w], &M, 4);
            xs[w].link_scale = xl[w].link_scale = w % 3 ? scales[w] : NULL;
        }
        if (model == 0) { qs[5][1] = 1e9f; qs[6][1] = -2.0e7f; } /* NaN lanes */
        run_scalar(reps);
        run_lanes(reps);
        run_scalar_crba(reps);
        run_lanes_crba(reps);
        bad = compare();
        printf("%s, %d lanes: %s\n", model ? "walker-like" : "cart-pole", W, bad ? "BITS DIFFER" : "same bits");
        if (bad) break;
    }
    for (int w = 0; w < WORLDS; ++w) { free(mem_s[w]); free(mem_l[w]); }
    return bad ? 1 : 0;
}
