/* actuator.h - the force law of an actuator on a 1-dof joint (MuJoCo's
 * affine actuator model; include/torpor_actuators.h states it) and its
 * implicit part, for kernels/articulation_dynamics.h.
 *
 * With l = gear q, v = gear qd and the control u (clamped to ctrl_range):
 *   F = (gain0 + gain1 l + gain2 v) u + bias0 + bias1 l + bias2 v,
 * clamped to force_range; the dof gets gear F. Within a substep h the
 * articulation integrates q+ = q + h qd+, qd+ = qd + h qdd, so the bias at the
 * substep's end is the bias at the prediction (q + h qd, qd) plus
 * gear (h^2 bias1 + h bias2) qdd: moved to the left-hand side, the dof's
 * diagonal gains -gear^2 (h^2 bias1 + h bias2), which a position or velocity
 * servo makes positive (as a PD drive's h kd + h^2 kp). A negative one would
 * make the matrix indefinite and stays explicit. All float32, + - * / only. */
#ifndef TP_ACTUATOR_H
#define TP_ACTUATOR_H

#include "tp_math.h"

/* Actuator types (the numbers of tp_actuator_type). */
enum { TP_ACT_MOTOR = 0, TP_ACT_POSITION = 1, TP_ACT_VELOCITY = 2, TP_ACT_GENERAL = 3 };

/* One actuator of a model (read-only), its gain and bias filled by type. */
typedef struct tp_artic_actuator {
    int32_t tree, q, v;              /* tree index; the joint's index in joint_q and dof in joint_qd */
    int32_t ctrl_limited, force_limited;
    float gear;
    float ctrl_range[2], force_range[2];
    float gain[3], bias[3];
} tp_artic_actuator;

/* The control a actually applies: u clamped to its range if limited. */
TP_HD float tp_actuator_ctrl(const tp_artic_actuator *a, float u)
{
    return a->ctrl_limited ? tp_clampf(u, a->ctrl_range[0], a->ctrl_range[1]) : u;
}

/* F at joint position q and velocity qd (before the force clamp). */
TP_HD float tp_actuator_force(const tp_artic_actuator *a, float u, float q, float qd)
{
    float l = a->gear * q, v = a->gear * qd;
    float gain = a->gain[0] + a->gain[1] * l + a->gain[2] * v;
    return gain * u + a->bias[0] + a->bias[1] * l + a->bias[2] * v;
}

/* The implicit diagonal term of a substep h: gear^2 (-h^2 bias1 - h bias2), or 0 if that is negative. */
TP_HD float tp_actuator_implicit_diag(const tp_artic_actuator *a, float h)
{
    float k = -(h * h * a->bias[1] + h * a->bias[2]);
    return k > 0.0f ? a->gear * a->gear * k : 0.0f;
}

/* 0 if F is within the force range (or unlimited), 1 above it, 2 below. */
TP_HD int tp_actuator_saturation(const tp_artic_actuator *a, float f)
{
    if (!a->force_limited) return 0;
    return f > a->force_range[1] ? 1 : f < a->force_range[0] ? 2 : 0;
}

/* F of a saturated actuator: the bound it passed. */
TP_HD float tp_actuator_bound(const tp_artic_actuator *a, int saturated)
{
    return saturated == 1 ? a->force_range[1] : a->force_range[0];
}

#endif
