/* row_law.h - the law of one contact row, written once: the velocity a
 * normal row aims at (a speculative gap may close, no more; a bounce), the
 * split-impulse push-out beyond the slop, the accumulated impulse clamped at
 * zero, the friction pair clamped to its circular cone, and the impulse
 * applied to the row's two bodies. The rigid sweeps (kernels/sweeps.h, and
 * the shock pass through them), the rows on articulation links
 * (kernels/articulation_contact.h) and the CPU's wide lanes
 * (csrc/solver_simd_wide.h, csrc/solver_simd_pack.c) all call it; the parts
 * that run per lane are row_law_lanes.h, instantiated here on float.
 * docs/solver.md, "The row law", gives the sources and the tuning. */
#ifndef TP_ROW_LAW_H
#define TP_ROW_LAW_H

#include "tp_math.h"

/* Overridable at compile time only, so that the tuning sweep can be rerun
 * (docs/solver.md, "Tuning"). */
#ifndef TP_LINEAR_SLOP
#define TP_LINEAR_SLOP 0.0005f /* m of penetration left alone (no bias) */
#endif
#ifndef TP_BAUMGARTE
#define TP_BAUMGARTE 0.2f /* fraction of the penetration removed per substep */
#endif
#define TP_MAX_PUSH_SPEED 3.0f /* m/s, cap of the push-out velocity */

/* The (negated) velocity target of a normal row at separation s: a
 * speculative point (s > 0) may close the gap in this substep, no more; a
 * point bouncing in this substep (kernels/restitution.h) aims at its bounce
 * speed instead. */
TP_HD float tp_row_target(float s, float inv_h, float bounce_speed)
{
    float target = s > 0.0f ? s * inv_h : 0.0f;
    if (bounce_speed > 0.0f) target = -bounce_speed;
    return target;
}

/* Does the split-impulse push-out act on a point at separation s? Only in
 * biased sweeps and beyond the slop. It acts on pseudo velocities that move
 * the bodies in the substep's position update and are then dropped, so
 * correcting penetration adds no kinetic energy. */
TP_HD int tp_row_pushes(int use_bias, float s) { return use_bias && s < -TP_LINEAR_SLOP; }

/* The push-out's (negated) target: a Baumgarte fraction of the penetration
 * past the slop per substep, capped at TP_MAX_PUSH_SPEED. */
TP_HD float tp_row_push_target(float s, float inv_h)
{
    return tp_maxf(TP_BAUMGARTE * inv_h * (s + TP_LINEAR_SLOP), -TP_MAX_PUSH_SPEED);
}

/* A soft row's coefficients for substep h: Box2D v3's soft step (Catto,
 * "Solver2D", 2024; b2MakeSoft), a damped spring of hz (Hz) and damping ratio
 * zeta pulling a position error out. */
typedef struct tp_row_soft {
    float bias_rate, mass_scale, impulse_scale;
} tp_row_soft;

TP_HD tp_row_soft tp_row_make_soft(float hz, float zeta, float h)
{
    float omega = 2.0f * 3.14159265358979f * hz;
    float a1 = 2.0f * zeta + h * omega, a2 = h * omega * a1, a3 = 1.0f / (1.0f + a2);
    tp_row_soft s;
    s.bias_rate = omega / a1;
    s.mass_scale = a2 * a3;
    s.impulse_scale = a3;
    return s;
}

/* A soft row's accumulated impulse after one visit: toward speed -bias_rate
 * c at position error c, softened (mass_scale) and relaxed toward zero
 * (impulse_scale), unclamped. */
TP_HD float tp_row_soft_impulse(float acc, float mass, float speed, float c, const tp_row_soft *s)
{
    return acc - mass * s->mass_scale * (speed + s->bias_rate * c) - s->impulse_scale * acc;
}

/* A row's accumulated impulse after one visit toward target (negated, as
 * tp_row_impulse's), clamped to [lo, hi]: motors and winches. */
TP_HD float tp_row_clamped(float acc, float mass, float speed, float target, float lo, float hi)
{
    return tp_clampf(acc - mass * (speed + target), lo, hi);
}

/* The lane law on float. */
#define TP_LANE_FN(name) tp_row_##name
#define TP_LANE_QUAL TP_HD
#define TP_LF float
#define TP_LM int
#define TP_L3 tp_vec3
#define TP_LF_ADD(a, b) ((a) + (b))
#define TP_LF_SUB(a, b) ((a) - (b))
#define TP_LF_MUL(a, b) ((a) * (b))
#define TP_LF_DIV(a, b) ((a) / (b))
#define TP_LF_SQRT(a) sqrtf(a)
#define TP_LF_MAX(a, b) tp_maxf(a, b)
#define TP_LF_GT(a, b) ((a) > (b))
#define TP_LF_NEQ(a, b) ((a) != (b))
#define TP_LF_SEL(m, a, b) ((m) ? (a) : (b))
#define TP_LF_ZERO 0.0f
#define TP_LM_AND(a, b) ((a) && (b))
#define TP_LM_ANY(m) (m)
#define TP_L3_ADD(a, b) tp_add(a, b)
#define TP_L3_SUB(a, b) tp_sub(a, b)
#define TP_L3_SCALE(a, s) tp_scale(a, s)
#define TP_L3_DOT(a, b) tp_dot(a, b)
#define TP_L3_CROSS(a, b) tp_cross(a, b)
#define TP_L3_SEL(m, a, b) ((m) ? (a) : (b))
#include "row_law_lanes.h"

#endif
