/* tp_math.h - float32 vectors, quaternions and 3x3 matrices for every stage.
 *
 * Conventions (DESIGN.md section 2): SI units, z up, quaternions stored
 * [x, y, z, w] and rotating vectors as q v q*. Everything is float32; literals are
 * written 0.5f so nothing is promoted to double. Only +, -, *, / and sqrtf are
 * used: these are correctly rounded on both the CPU and the GPU, so with
 * contraction off the results are bit-identical. No libm transcendental is used
 * inside the step; tp_sin_cos below is our own polynomial for the few places
 * (randomization) that need an angle. */
#ifndef TP_MATH_H
#define TP_MATH_H

#include "tp_hd.h"
#include <math.h>
#include <stdint.h>

typedef struct tp_vec3 { float x, y, z; } tp_vec3;
typedef struct tp_quat { float x, y, z, w; } tp_quat;
/* Row-major 3x3 matrix: m[row][col]. */
typedef struct tp_mat3 { float m[3][3]; } tp_mat3;

TP_HD tp_vec3 tp_v3(float x, float y, float z) { tp_vec3 r = {x, y, z}; return r; }
TP_HD tp_vec3 tp_v3_load(const float *p) { return tp_v3(p[0], p[1], p[2]); }
TP_HD void tp_v3_store(float *p, tp_vec3 a) { p[0] = a.x; p[1] = a.y; p[2] = a.z; }
TP_HD tp_vec3 tp_add(tp_vec3 a, tp_vec3 b) { return tp_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
TP_HD tp_vec3 tp_sub(tp_vec3 a, tp_vec3 b) { return tp_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
TP_HD tp_vec3 tp_neg(tp_vec3 a) { return tp_v3(-a.x, -a.y, -a.z); }
TP_HD tp_vec3 tp_scale(tp_vec3 a, float s) { return tp_v3(a.x * s, a.y * s, a.z * s); }
TP_HD tp_vec3 tp_mul(tp_vec3 a, tp_vec3 b) { return tp_v3(a.x * b.x, a.y * b.y, a.z * b.z); }
/* a + b * s, written out so the rounding is the same everywhere (no fma). */
TP_HD tp_vec3 tp_mad(tp_vec3 a, tp_vec3 b, float s) { return tp_add(a, tp_scale(b, s)); }
TP_HD float tp_dot(tp_vec3 a, tp_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
TP_HD tp_vec3 tp_cross(tp_vec3 a, tp_vec3 b)
{
    return tp_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
TP_HD float tp_len_sq(tp_vec3 a) { return tp_dot(a, a); }
TP_HD float tp_len(tp_vec3 a) { return sqrtf(tp_dot(a, a)); }
TP_HD float tp_minf(float a, float b) { return a < b ? a : b; }
TP_HD float tp_maxf(float a, float b) { return a > b ? a : b; }
TP_HD float tp_absf(float a) { return a < 0.0f ? -a : a; }
TP_HD float tp_clampf(float a, float lo, float hi) { return a < lo ? lo : (a > hi ? hi : a); }
TP_HD tp_vec3 tp_vmin(tp_vec3 a, tp_vec3 b) { return tp_v3(tp_minf(a.x, b.x), tp_minf(a.y, b.y), tp_minf(a.z, b.z)); }
TP_HD tp_vec3 tp_vmax(tp_vec3 a, tp_vec3 b) { return tp_v3(tp_maxf(a.x, b.x), tp_maxf(a.y, b.y), tp_maxf(a.z, b.z)); }
TP_HD tp_vec3 tp_vabs(tp_vec3 a) { return tp_v3(tp_absf(a.x), tp_absf(a.y), tp_absf(a.z)); }
TP_HD float tp_v3_get(tp_vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }

/* Unit vector along a, or `fallback` when a is (nearly) zero. */
TP_HD tp_vec3 tp_normalize_or(tp_vec3 a, tp_vec3 fallback)
{
    float l2 = tp_len_sq(a);
    if (!(l2 > 1e-24f)) return fallback;
    return tp_scale(a, 1.0f / sqrtf(l2));
}

/* ---- quaternions [x, y, z, w] ---- */
TP_HD tp_quat tp_q(float x, float y, float z, float w) { tp_quat r = {x, y, z, w}; return r; }
TP_HD tp_quat tp_q_identity(void) { return tp_q(0.0f, 0.0f, 0.0f, 1.0f); }
TP_HD tp_quat tp_q_load(const float *p) { return tp_q(p[0], p[1], p[2], p[3]); }
TP_HD void tp_q_store(float *p, tp_quat q) { p[0] = q.x; p[1] = q.y; p[2] = q.z; p[3] = q.w; }
TP_HD tp_quat tp_q_mul(tp_quat a, tp_quat b)
{
    return tp_q(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
TP_HD tp_quat tp_q_conj(tp_quat q) { return tp_q(-q.x, -q.y, -q.z, q.w); }
TP_HD tp_quat tp_q_normalize(tp_quat q)
{
    float l2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(l2 > 1e-24f)) return tp_q_identity();
    float s = 1.0f / sqrtf(l2);
    return tp_q(q.x * s, q.y * s, q.z * s, q.w * s);
}
/* Normalize any finite q that is not all zero, the API's and loader's inputs
 * included: where the sum of squares would overflow or lose its digits
 * (|q| outside [1e-12, 1e15]), q is first divided by its
 * largest |component|, so [3e38, 3e38, 0, 0] gives [0.7071, 0.7071, 0, 0] and
 * [1e-20, 0, 0, 0] gives [1, 0, 0, 0]. In between it is tp_q_normalize, bit
 * for bit (the step's own renormalization is unchanged). All zero gives the
 * identity; callers refuse it first. */
TP_HD tp_quat tp_q_normalize_any(tp_quat q)
{
    float l2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (l2 > 1e-24f && l2 < 1e30f) return tp_q_normalize(q);
    float m = tp_maxf(tp_maxf(tp_absf(q.x), tp_absf(q.y)), tp_maxf(tp_absf(q.z), tp_absf(q.w)));
    if (!(m > 0.0f) || !(m < INFINITY)) return tp_q_identity();
    return tp_q_normalize(tp_q(q.x / m, q.y / m, q.z / m, q.w / m));
}
/* Rotate v by unit quaternion q: v + 2 w (u x v) + 2 u x (u x v). */
TP_HD tp_vec3 tp_q_rotate(tp_quat q, tp_vec3 v)
{
    tp_vec3 u = tp_v3(q.x, q.y, q.z);
    tp_vec3 t = tp_scale(tp_cross(u, v), 2.0f);
    return tp_add(tp_add(v, tp_scale(t, q.w)), tp_cross(u, t));
}
TP_HD tp_vec3 tp_q_inv_rotate(tp_quat q, tp_vec3 v) { return tp_q_rotate(tp_q_conj(q), v); }

/* Rotation matrix of a unit quaternion (columns are the body axes in world). */
TP_HD tp_mat3 tp_q_to_mat3(tp_quat q)
{
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    tp_mat3 r;
    r.m[0][0] = 1.0f - 2.0f * (yy + zz); r.m[0][1] = 2.0f * (xy - wz); r.m[0][2] = 2.0f * (xz + wy);
    r.m[1][0] = 2.0f * (xy + wz); r.m[1][1] = 1.0f - 2.0f * (xx + zz); r.m[1][2] = 2.0f * (yz - wx);
    r.m[2][0] = 2.0f * (xz - wy); r.m[2][1] = 2.0f * (yz + wx); r.m[2][2] = 1.0f - 2.0f * (xx + yy);
    return r;
}

/* ---- 3x3 matrices ---- */
TP_HD tp_vec3 tp_m3_mul_v(tp_mat3 a, tp_vec3 v)
{
    return tp_v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                 a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                 a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}
TP_HD tp_vec3 tp_m3_col(tp_mat3 a, int c) { return tp_v3(a.m[0][c], a.m[1][c], a.m[2][c]); }

/* Symmetric 3x3 matrix stored as xx, yy, zz, xy, xz, yz. */
TP_HD tp_mat3 tp_m3_from_sym(const float *s)
{
    tp_mat3 r;
    r.m[0][0] = s[0]; r.m[1][1] = s[1]; r.m[2][2] = s[2];
    r.m[0][1] = r.m[1][0] = s[3];
    r.m[0][2] = r.m[2][0] = s[4];
    r.m[1][2] = r.m[2][1] = s[5];
    return r;
}

/* World-frame inverse inertia R I^-1 R^T from the body-frame inverse inertia
 * (symmetric, xx yy zz xy xz yz). Summed in a fixed order for determinism. */
TP_HD tp_mat3 tp_inv_inertia_world(tp_quat q, const float *inv_i_local)
{
    tp_mat3 r = tp_q_to_mat3(q), a = tp_m3_from_sym(inv_i_local), t, out;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            t.m[i][j] = r.m[i][0] * a.m[0][j] + r.m[i][1] * a.m[1][j] + r.m[i][2] * a.m[2][j];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out.m[i][j] = t.m[i][0] * r.m[j][0] + t.m[i][1] * r.m[j][1] + t.m[i][2] * r.m[j][2];
    return out;
}

/* Inverse of a symmetric positive-definite 3x3 matrix (xx yy zz xy xz yz) by
 * cofactors; writes zeros if it is singular. */
TP_HD void tp_sym_inverse(const float *s, float *out)
{
    float a = s[0], d = s[1], f = s[2], b = s[3], c = s[4], e = s[5];
    float c00 = d * f - e * e, c01 = c * e - b * f, c02 = b * e - c * d;
    float det = a * c00 + b * c01 + c * c02;
    if (!(det > 0.0f)) { for (int i = 0; i < 6; ++i) out[i] = 0.0f; return; }
    float inv = 1.0f / det;
    out[0] = c00 * inv;
    out[1] = (a * f - c * c) * inv;
    out[2] = (a * d - b * b) * inv;
    out[3] = c01 * inv;
    out[4] = c02 * inv;
    out[5] = (b * c - a * e) * inv;
}

TP_HD int tp_finitef(float a) { return a == a && a - a == 0.0f; }
TP_HD int tp_v3_finite(tp_vec3 a) { return tp_finitef(a.x) && tp_finitef(a.y) && tp_finitef(a.z); }

/* Largest |x| tp_sin_cos reduces: there the float32 reduction still leaves
 * |r| within the polynomial's range (s^2 + c^2 = 1 to 4e-7), and the
 * quarter-turn count (6.4e6) is far inside an int. */
#define TP_SIN_COS_MAX 1e7f

/* sin and cos of x (radians) without libm: reduce to [-pi/4, pi/4] by quarter
 * turns, then Taylor polynomials to degree 9/8 (error < 1e-7 there). For
 * joint angles and randomized yaw; both backends get the same bits. An x
 * beyond +-TP_SIN_COS_MAX, infinite or NaN has no meaningful float32 sine:
 * both come out NaN (defined, no float-to-int overflow), so a pose built
 * from them is non-finite and the world is faulted at the step's check. */
TP_HD void tp_sin_cos(float x, float *s, float *c)
{
    const float half_pi = 1.57079632679489662f;
    if (!(tp_absf(x) <= TP_SIN_COS_MAX)) {
        union { uint32_t u; float f; } nan_bits = {0x7fc00000u};
        *s = *c = nan_bits.f;
        return;
    }
    float k = x * (1.0f / half_pi);
    int n = (int)(k < 0.0f ? k - 0.5f : k + 0.5f);
    float r = x - (float)n * half_pi;
    float r2 = r * r;
    float sr = r * (1.0f + r2 * (-1.0f / 6.0f + r2 * (1.0f / 120.0f + r2 * (-1.0f / 5040.0f + r2 * (1.0f / 362880.0f)))));
    float cr = 1.0f + r2 * (-0.5f + r2 * (1.0f / 24.0f + r2 * (-1.0f / 720.0f + r2 * (1.0f / 40320.0f))));
    switch (n & 3) {
    case 0: *s = sr; *c = cr; break;
    case 1: *s = cr; *c = -sr; break;
    case 2: *s = -sr; *c = -cr; break;
    default: *s = -cr; *c = sr; break;
    }
}

/* Rotation of `angle` radians about the z axis. */
TP_HD tp_quat tp_q_from_yaw(float angle)
{
    float s, c;
    tp_sin_cos(0.5f * angle, &s, &c);
    return tp_q(0.0f, 0.0f, s, c);
}

#endif
