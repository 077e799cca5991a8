/* random_normal.h - a standard normal number from two uniform 32-bit draws
 * (Box-Muller: z = sqrt(-2 ln u1) cos(2 pi u2), Box and Muller 1958) with our
 * own logarithm and tp_sin_cos, so the value is the same bits on every
 * platform (no libm). Used for the normal joint-state noise of a reset. */
#ifndef TP_RANDOM_NORMAL_H
#define TP_RANDOM_NORMAL_H

#include "philox.h"
#include "tp_math.h"

/* ln x for x in (0, 1]: x = m 2^e with m in [1, 2) read from the float's
 * bits, ln m = 2 atanh(s), s = (m - 1) / (m + 1) <= 1/3, by its series to
 * s^11 (relative error below 1e-7). */
TP_HD float tp_log_unit(float x)
{
    union { float f; uint32_t u; } v;
    v.f = x;
    int e = (int)((v.u >> 23) & 0xffu) - 127;
    v.u = (v.u & 0x007fffffu) | 0x3f800000u; /* mantissa in [1, 2) */
    float s = (v.f - 1.0f) / (v.f + 1.0f), s2 = s * s;
    float series = 1.0f + s2 * (1.0f / 3.0f + s2 * (1.0f / 5.0f + s2 * (1.0f / 7.0f + s2 * (1.0f / 9.0f + s2 * (1.0f / 11.0f)))));
    return (float)e * 0.693147180559945f + 2.0f * s * series;
}

/* A standard normal number from two 32-bit draws (u1 in (0, 1] so ln u1 is finite). */
TP_HD float tp_normal01(uint32_t a, uint32_t b)
{
    float r = sqrtf(-2.0f * tp_log_unit(tp_uniform01(a)));
    float s, c;
    tp_sin_cos(6.28318530717959f * tp_uniform01(b), &s, &c);
    return r * c;
}

#endif
