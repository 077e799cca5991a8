/* solver_simd_wide.h - the lane code of the CPU's wide sweeps, one source for
 * both widths: csrc/solver_simd_sse2.c includes it with TP_SIMD_WIDTH 4,
 * csrc/solver_simd_avx2.c with 8 (compiled with -mavx2, never -mfma).
 *
 * Each lane does, for its own constraint, what tp_warm_start_constraint /
 * tp_solve_normal_row / tp_solve_friction_row (kernels/sweeps.h) do, through
 * the same row law (kernels/row_law_lanes.h) on lane types: add, sub, mul, div and sqrt are
 * correctly rounded in SSE and AVX as in scalar code, and tp_maxf(a, b) =
 * a > b ? a : b is MAXPS(a, b) exactly (MAXPS returns its second operand when
 * the operands are unordered or both zero). Branches become masks; a lane that
 * must not change a value keeps the old bits through a blend, never through
 * an added zero (x + 0 can turn -0 into +0). The constraints of a color share
 * no simulated body, so a group's lanes never write the same body; bodies
 * that are not simulated are read, never written (docs/solver.md). */
#include "solver_simd.h"

/* x86 only: elsewhere this unit is empty and the width resolves to off
 * (csrc/solver_simd.c, cpu_has). */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#if TP_SIMD_WIDTH == 4
typedef __m128 vf;
#define VW 4
#define TP_SIMD_FN(name) name##_sse2
#define vld(p) _mm_loadu_ps(p)
#define vst(p, a) _mm_storeu_ps(p, a)
#define vadd(a, b) _mm_add_ps(a, b)
#define vsub(a, b) _mm_sub_ps(a, b)
#define vmul(a, b) _mm_mul_ps(a, b)
#define vdiv(a, b) _mm_div_ps(a, b)
#define vsqrt(a) _mm_sqrt_ps(a)
#define vmax(a, b) _mm_max_ps(a, b)
#define vand(a, b) _mm_and_ps(a, b)
#define vgt(a, b) _mm_cmpgt_ps(a, b)
#define vneq(a, b) _mm_cmpneq_ps(a, b)
#define vsel(m, a, b) _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)) /* m ? a : b, bit for bit */
#define vany(m) _mm_movemask_ps(m)
#define vzero() _mm_setzero_ps()
#define vset1(x) _mm_set1_ps(x)
#elif TP_SIMD_WIDTH == 8
#if defined(__FMA__)
#error "the AVX2 sweeps must be compiled without FMA (-mavx2 only): a fused multiply-add rounds once, the scalar code twice"
#endif
typedef __m256 vf;
#define VW 8
#define TP_SIMD_FN(name) name##_avx2
#define vld(p) _mm256_loadu_ps(p)
#define vst(p, a) _mm256_storeu_ps(p, a)
#define vadd(a, b) _mm256_add_ps(a, b)
#define vsub(a, b) _mm256_sub_ps(a, b)
#define vmul(a, b) _mm256_mul_ps(a, b)
#define vdiv(a, b) _mm256_div_ps(a, b)
#define vsqrt(a) _mm256_sqrt_ps(a)
#define vmax(a, b) _mm256_max_ps(a, b)
#define vand(a, b) _mm256_and_ps(a, b)
#define vgt(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define vneq(a, b) _mm256_cmp_ps(a, b, _CMP_NEQ_UQ) /* C's !=: true when unordered */
#define vsel(m, a, b) _mm256_blendv_ps(b, a, m)
#define vany(m) _mm256_movemask_ps(m)
#define vzero() _mm256_setzero_ps()
#define vset1(x) _mm256_set1_ps(x)
#else
#error "TP_SIMD_WIDTH must be 4 or 8"
#endif

typedef struct { vf x, y, z; } w3;

static inline w3 w3_ld(const float *slot, int field)
{
    w3 r = {vld(slot + field * VW), vld(slot + (field + 1) * VW), vld(slot + (field + 2) * VW)};
    return r;
}
static inline vf f_ld(const float *slot, int field) { return vld(slot + field * VW); }
static inline w3 w3_add(w3 a, w3 b) { w3 r = {vadd(a.x, b.x), vadd(a.y, b.y), vadd(a.z, b.z)}; return r; }
static inline w3 w3_sub(w3 a, w3 b) { w3 r = {vsub(a.x, b.x), vsub(a.y, b.y), vsub(a.z, b.z)}; return r; }
static inline w3 w3_scale(w3 a, vf s) { w3 r = {vmul(a.x, s), vmul(a.y, s), vmul(a.z, s)}; return r; }
/* tp_dot: (a.x b.x + a.y b.y) + a.z b.z */
static inline vf w3_dot(w3 a, w3 b) { return vadd(vadd(vmul(a.x, b.x), vmul(a.y, b.y)), vmul(a.z, b.z)); }
static inline w3 w3_cross(w3 a, w3 b)
{
    w3 r = {vsub(vmul(a.y, b.z), vmul(a.z, b.y)), vsub(vmul(a.z, b.x), vmul(a.x, b.z)),
            vsub(vmul(a.x, b.y), vmul(a.y, b.x))};
    return r;
}
static inline w3 w3_sel(vf m, w3 a, w3 b) { w3 r = {vsel(m, a.x, b.x), vsel(m, a.y, b.y), vsel(m, a.z, b.z)}; return r; }

/* The row law (kernels/row_law_lanes.h) on these lanes: lane_impulse, lane_friction ... */
#define TP_LANE_FN(name) lane_##name
#define TP_LANE_QUAL static inline
#define TP_LF vf
#define TP_LM vf
#define TP_L3 w3
#define TP_LF_ADD vadd
#define TP_LF_SUB vsub
#define TP_LF_MUL vmul
#define TP_LF_DIV vdiv
#define TP_LF_SQRT vsqrt
#define TP_LF_MAX vmax
#define TP_LF_GT vgt
#define TP_LF_NEQ vneq
#define TP_LF_SEL vsel
#define TP_LF_ZERO vzero()
#define TP_LM_AND vand
#define TP_LM_ANY vany
#define TP_L3_ADD w3_add
#define TP_L3_SUB w3_sub
#define TP_L3_SCALE w3_scale
#define TP_L3_DOT w3_dot
#define TP_L3_CROSS w3_cross
#define TP_L3_SEL w3_sel
#include "row_law_lanes.h"

/* Lanes' bodies: x, y, z of base[stride * idx[l] + 0..2], through a lane
 * array rather than AVX2's gather instruction, which gives the same bits but
 * is slower (docs/solver.md, "Wide sweeps on the CPU"). */
static inline w3 gather3(const float *base, int stride, const int32_t *idx)
{
    float x[VW], y[VW], z[VW];
    for (int l = 0; l < VW; ++l) {
        const float *p = base + (size_t)stride * (size_t)idx[l];
        x[l] = p[0];
        y[l] = p[1];
        z[l] = p[2];
    }
    w3 r = {vld(x), vld(y), vld(z)};
    return r;
}

/* Write back the lanes whose mask is set (simulated bodies). */
static inline void scatter3(float *base, int stride, const int32_t *idx, const uint32_t *mask, w3 a)
{
    float x[VW], y[VW], z[VW];
    vst(x, a.x);
    vst(y, a.y);
    vst(z, a.z);
    for (int l = 0; l < VW; ++l) {
        if (!mask[l]) continue;
        float *p = base + (size_t)stride * (size_t)idx[l];
        p[0] = x[l];
        p[1] = y[l];
        p[2] = z[l];
    }
}

/* The bodies of a group as tp_apply_impulse_held sees them. */
typedef struct body_pair {
    w3 va, wa, vb, wb;
    vf sim_a, sim_b, inv_m_a, inv_m_b;
} body_pair;

/* tp_apply_impulse_held with no hold, in lanes `m` (the held body of the
 * shock pass is out of the group's write masks). */
static inline void apply(w3 *va, w3 *wa, w3 *vb, w3 *wb, const body_pair *B, vf m, w3 p, w3 dwa, w3 dwb)
{
    lane_take(va, wa, vand(m, B->sim_a), B->inv_m_a, p, dwa);
    lane_give(vb, wb, vand(m, B->sim_b), B->inv_m_b, p, dwb);
}

static inline void load_bodies(body_pair *B, const tp_simd_group *G, const float *v, const float *w)
{
    B->va = gather3(v, 3, G->a);
    B->wa = gather3(w, 3, G->a);
    B->vb = gather3(v, 3, G->b);
    B->wb = gather3(w, 3, G->b);
    B->sim_a = vld((const float *)G->sim_a);
    B->sim_b = vld((const float *)G->sim_b);
    B->inv_m_a = vld(G->inv_m_a);
    B->inv_m_b = vld(G->inv_m_b);
}

static inline void store_bodies(const body_pair *B, const tp_simd_group *G, float *v, float *w)
{
    scatter3(v, 3, G->a, G->sim_a, B->va);
    scatter3(w, 3, G->a, G->sim_a, B->wa);
    scatter3(v, 3, G->b, G->sim_b, B->vb);
    scatter3(w, 3, G->b, G->sim_b, B->wb);
}

/* tp_solve_normal_row, one slot of the group's lanes. A held body (the shock
 * pass) is one the group's write mask leaves out, with the row's mass the
 * other body's alone (packed in place of the ordinary one). */
static inline void normal_row(float *S, body_pair *B, w3 *pva, w3 *pwa, w3 *pvb, w3 *pwb, int use_bias)
{
    vf on = lane_active(f_ld(S, TP_SF_VALID), use_bias, f_ld(S, TP_SF_MAX_NORMAL_IMPULSE));
    if (!vany(on)) return;
    w3 n = w3_ld(S, TP_SF_N), ra = w3_ld(S, TP_SF_RA), rb = w3_ld(S, TP_SF_RB);
    w3 wan = w3_ld(S, TP_SF_WA_N), wbn = w3_ld(S, TP_SF_WB_N);
    vf mass = f_ld(S, TP_SF_NORMAL_MASS);
    if (use_bias) {
        vf push_on = vand(on, f_ld(S, TP_SF_PUSH_ON));
        if (vany(push_on)) {
            vf pi = f_ld(S, TP_SF_PUSH_IMPULSE);
            vf pn = lane_speed(*pva, *pwa, ra, *pvb, *pwb, rb, n);
            vf pl = lane_impulse(pi, mass, pn, f_ld(S, TP_SF_PUSH_BIAS));
            vf dp = vsub(pl, pi);
            apply(pva, pwa, pvb, pwb, B, push_on, w3_scale(n, dp), w3_scale(wan, dp), w3_scale(wbn, dp));
            vst(S + TP_SF_PUSH_IMPULSE * VW, vsel(push_on, pl, pi));
        }
    }
    vf ni = f_ld(S, TP_SF_NORMAL_IMPULSE), mx = f_ld(S, TP_SF_MAX_NORMAL_IMPULSE);
    vf lambda = lane_impulse(ni, mass, lane_speed(B->va, B->wa, ra, B->vb, B->wb, rb, n), f_ld(S, TP_SF_BIAS));
    vf delta = vsub(lambda, ni);
    vst(S + TP_SF_NORMAL_IMPULSE * VW, vsel(on, lambda, ni));
    vst(S + TP_SF_MAX_NORMAL_IMPULSE * VW, vsel(on, vmax(mx, lambda), mx));
    apply(&B->va, &B->wa, &B->vb, &B->wb, B, on, w3_scale(n, delta), w3_scale(wan, delta), w3_scale(wbn, delta));
}

/* tp_solve_friction_row: one slot of the group's lanes (the hold is in the
 * masses, the write masks and the slip targets). */
static inline void friction_row(float *S, body_pair *B)
{
    vf on = f_ld(S, TP_SF_VALID);
    if (!vany(on)) return;
    w3 t1 = w3_ld(S, TP_SF_T1), t2 = w3_ld(S, TP_SF_T2);
    w3 dv = lane_rel_velocity(B->va, B->wa, w3_ld(S, TP_SF_RA), B->vb, B->wb, w3_ld(S, TP_SF_RB));
    vf i1 = f_ld(S, TP_SF_TANGENT_IMPULSE1), i2 = f_ld(S, TP_SF_TANGENT_IMPULSE2), l1, l2;
    lane_friction(i1, i2, f_ld(S, TP_SF_TANGENT_MASS1), f_ld(S, TP_SF_TANGENT_MASS2), w3_dot(dv, t1), w3_dot(dv, t2),
                  f_ld(S, TP_SF_SLIP1), f_ld(S, TP_SF_SLIP2), vmul(f_ld(S, TP_SF_FRICTION), f_ld(S, TP_SF_NORMAL_IMPULSE)),
                  &l1, &l2);
    vf d1 = vsub(l1, i1), d2 = vsub(l2, i2);
    vst(S + TP_SF_TANGENT_IMPULSE1 * VW, vsel(on, l1, i1));
    vst(S + TP_SF_TANGENT_IMPULSE2 * VW, vsel(on, l2, i2));
    w3 p = lane_sum2(t1, d1, t2, d2);
    w3 dwa = lane_sum2(w3_ld(S, TP_SF_WA_T1), d1, w3_ld(S, TP_SF_WA_T2), d2);
    w3 dwb = lane_sum2(w3_ld(S, TP_SF_WB_T1), d1, w3_ld(S, TP_SF_WB_T2), d2);
    apply(&B->va, &B->wa, &B->vb, &B->wb, B, on, p, dwa, dwb);
}

/* One sweep (tp_solve_constraint) of groups [g0, g1) of one color. */
static void TP_SIMD_FN(tp_simd_sweep)(const tp_simd_pack *P, int g0, int g1, float *v, float *w, float *push,
                                      int use_bias, int reverse)
{
    const size_t slot_floats = (size_t)TP_SIMD_FIELDS * VW;
    for (int g = g0; g < g1; ++g) {
        const tp_simd_group *G = &P->groups[g];
        float *S0 = P->slots + (size_t)G->slot0 * slot_floats;
        body_pair B;
        load_bodies(&B, G, v, w);
        w3 pva, pwa, pvb, pwb;
        if (use_bias) {
            pva = gather3(push, 6, G->a);
            pwa = gather3(push + 3, 6, G->a);
            pvb = gather3(push, 6, G->b);
            pwb = gather3(push + 3, 6, G->b);
        } else {
            pva = pwa = pvb = pwb = w3_sel(vzero(), B.va, B.va); /* unused */
        }
        int ns = G->slots;
        /* Reverse: slots ns-1 .. 0; a lane with c < ns points skips the slots
         * past c (masked), so it visits c-1 .. 0 as the scalar code does. */
        for (int q = 0; q < ns; ++q)
            normal_row(S0 + (size_t)(reverse ? ns - 1 - q : q) * slot_floats, &B, &pva, &pwa, &pvb, &pwb, use_bias);
        for (int q = 0; q < ns; ++q) friction_row(S0 + (size_t)(reverse ? ns - 1 - q : q) * slot_floats, &B);
        store_bodies(&B, G, v, w);
        if (use_bias) {
            scatter3(push, 6, G->a, G->sim_a, pva);
            scatter3(push + 3, 6, G->a, G->sim_a, pwa);
            scatter3(push, 6, G->b, G->sim_b, pvb);
            scatter3(push + 3, 6, G->b, G->sim_b, pwb);
        }
    }
}

/* tp_warm_start_constraint of groups [g0, g1). */
static void TP_SIMD_FN(tp_simd_warm_start)(const tp_simd_pack *P, int g0, int g1, float *v, float *w)
{
    const size_t slot_floats = (size_t)TP_SIMD_FIELDS * VW;
    for (int g = g0; g < g1; ++g) {
        const tp_simd_group *G = &P->groups[g];
        const float *S0 = P->slots + (size_t)G->slot0 * slot_floats;
        body_pair B;
        load_bodies(&B, G, v, w);
        for (int q = 0; q < G->slots; ++q) {
            const float *S = S0 + (size_t)q * slot_floats;
            vf on = f_ld(S, TP_SF_VALID);
            vf ln = f_ld(S, TP_SF_NORMAL_IMPULSE), l1 = f_ld(S, TP_SF_TANGENT_IMPULSE1),
               l2 = f_ld(S, TP_SF_TANGENT_IMPULSE2);
            w3 p = lane_sum3(w3_ld(S, TP_SF_N), ln, w3_ld(S, TP_SF_T1), l1, w3_ld(S, TP_SF_T2), l2);
            w3 dwa = lane_sum3(w3_ld(S, TP_SF_WA_N), ln, w3_ld(S, TP_SF_WA_T1), l1, w3_ld(S, TP_SF_WA_T2), l2);
            w3 dwb = lane_sum3(w3_ld(S, TP_SF_WB_N), ln, w3_ld(S, TP_SF_WB_T1), l1, w3_ld(S, TP_SF_WB_T2), l2);
            apply(&B.va, &B.wa, &B.vb, &B.wb, &B, on, p, dwa, dwb);
        }
        store_bodies(&B, G, v, w);
    }
}

const tp_simd_kernels TP_SIMD_FN(tp_simd_kernels) = {VW, TP_SIMD_FN(tp_simd_sweep), TP_SIMD_FN(tp_simd_warm_start)};

#endif /* x86 */
