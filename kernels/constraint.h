/* constraint.h - constraints between two bodies: the model's table and each
 * world's state (include/torpor_constraints.h describes the types).
 *
 * The rows (kernels/constraint_rows.h) are rebuilt from the poses at the start
 * of every substep and solved with the contact rows in every sweep
 * (docs/constraints.md). */
#ifndef TP_CONSTRAINT_H
#define TP_CONSTRAINT_H

#include "tp_world.h"

/* Rows per constraint: a hinge's 3 linear + 2 angular + motor + 2 limits, a
 * slider's 2 + 3 + motor + 2. Each row keeps its slot from substep to
 * substep (its accumulated impulse is warm started there). */
#define TP_CONS_ROWS 8

/* How a row is solved. */
enum {
    TP_ROW_OFF = 0,
    TP_ROW_EQ = 1,     /* C = 0: soft (Box2D v3's soft step) in the biased sweeps, rigid in the others */
    TP_ROW_INEQ = 2,   /* C >= 0, impulse >= 0: speculative while C > 0, soft push-out below, or a bounce */
    TP_ROW_MOTOR = 3,  /* velocity = target, |impulse| <= max_impulse */
    TP_ROW_SPRING = 4, /* implicit spring (Catto, "Soft Constraints", GDC 2011), biased sweeps only */
    TP_ROW_WINCH = 5   /* velocity = target, 0 <= impulse <= max_impulse (a winch reeling in pulls only) */
};

/* One constraint as one world runs it: the model's table is copied into each
 * world at its reset, and per-world writes (tp_batch_set_constraint_params)
 * and a winch (which moves `length`) change that world's copy only. */
typedef struct tp_cons_model {
    uint8_t type;          /* tp_constraint_type */
    uint8_t actuator;      /* tp_constraint_actuator */
    uint8_t limits;
    uint8_t enabled;       /* 0: no rows, no island link */
    uint8_t cone, twist;   /* BALL: swing cone and twist limits on */
    uint8_t winch;         /* ROPE: the winch moves length towards winch_target */
    int32_t body0, body1;  /* -1: the world */
    float pos0[3], quat0[4], pos1[3], quat1[4]; /* attachments, body frames (world frame for -1) */
    float velocity, target, speed, max_force;
    float lower, upper;
    float cone_angle, twist_lower, twist_upper; /* BALL, rad */
    float length, restitution;
    float stiffness, damping;
    float winch_target, winch_speed, winch_responsiveness, winch_force; /* m, m/s, 1/s x 10, N */
} tp_cons_model;

/* One row, rebuilt every substep: velocity along it
 *   Jv = lin . (v1 + w1 x r1 - v0 - w0 x r0) + j1 . w1 + j0 . w0
 * with j0 = -(r0 x lin) - ang, j1 = r1 x lin + ang (ang: an angular row's axis). */
typedef struct tp_cons_row {
    float lin[3];
    float j0[3], j1[3];    /* angular Jacobians of body0 and body1 */
    float iw0[3], iw1[3];  /* I^-1 j: angular velocity change per unit impulse */
    float mass;            /* 1 / (J M^-1 J^T), kg (kg m^2) */
    float c;               /* EQ, INEQ, SPRING: position error (m, rad); MOTOR, WINCH: target velocity */
    float bounce;          /* INEQ: > 0 bounce target velocity this substep */
    float rate;            /* INEQ: how fast the bound moves (a winch's length, m/s): Jv + rate >= 0 */
    float max_impulse;     /* MOTOR, WINCH: N s per substep */
    float gamma, beta;     /* SPRING: Catto's softness (1 / kg) and bias factor */
    int32_t kind;          /* TP_ROW_* */
} tp_cons_row;

/* Each world's state of one constraint. */
typedef struct tp_cons_state {
    tp_cons_row rows[TP_CONS_ROWS];
    float impulse[TP_CONS_ROWS]; /* accumulated this substep, warm started into the next (and the next step) */
    float fsum[3];         /* linear impulse on body1 summed over this step's substeps, N s */
    float value;           /* angle, position or distance at the last substep's start */
    float winch_rate;      /* ROPE: the winch this substep: > 0 paying out at it, < 0 reeling in, m/s */
    float winch_from;      /* ROPE: the length at the step's start */
    uint8_t winch_stalled; /* ROPE: reeling in, its length did not move in the last step (tp_cons_end_step) */
    float force;           /* N (N m): |total| / dt of the last step */
    int32_t color;         /* this step's color (kernels/constraint_colors.h), TP_CONS_UNCOLORED without rows */
} tp_cons_state;

/* Does a constraint drive its bodies, so that their island stays awake (the
 * island policy, as a driven articulation)? A motor with a speed and a
 * force; a servo more than TP_SERVO_AT_TARGET from its target (its value as
 * the last step left it); a winch in motion: its length more than
 * TP_WINCH_AT_TARGET from its target and not stalled (seed 004: reeling in stops while the load pulls harder
 * than winch_force; a stalled winch holds still, so its island may sleep; a
 * write of its parameters wakes it). A spring is no drive: its bodies'
 * velocities and accelerations say whether it is at rest (docs/constraints.md). */
#define TP_SERVO_AT_TARGET 1.0e-3f
/* A winch within this of its target (m) has arrived: reeling in slows as the
 * distance to go x winch_responsiveness / 10 and never quite gets there. */
#define TP_WINCH_AT_TARGET 1.0e-3f
TP_HD int tp_cons_driving(const tp_cons_model *m, const tp_cons_state *st)
{
    if (!m->enabled) return 0;
    if (m->type == TP_CONSTRAINT_ROPE)
        return m->winch && fabsf(m->length - m->winch_target) > TP_WINCH_AT_TARGET && !st->winch_stalled;
    if (m->max_force <= 0.0f) return 0;
    if (m->actuator == TP_CONS_MOTOR) return m->velocity != 0.0f;
    if (m->actuator != TP_CONS_SERVO) return 0;
    float err = m->target - st->value;
    if (m->type == TP_CONSTRAINT_HINGE) { /* the shortest way round */
        while (err > 3.14159265f) err -= 6.28318531f;
        while (err <= -3.14159265f) err += 6.28318531f;
    }
    return err > TP_SERVO_AT_TARGET || err < -TP_SERVO_AT_TARGET;
}

/* Jv of a row at the current velocities. */
TP_HD float tp_cons_row_speed(const tp_world *wd, int b0, int b1, const tp_cons_row *r)
{
    float s = 0.0f;
    tp_vec3 lin = tp_v3_load(r->lin);
    if (b0 >= 0) s += tp_dot(tp_v3_load(r->j0), tp_v3_load(wd->w + 3 * b0)) - tp_dot(lin, tp_v3_load(wd->v + 3 * b0));
    if (b1 >= 0) s += tp_dot(tp_v3_load(r->j1), tp_v3_load(wd->w + 3 * b1)) + tp_dot(lin, tp_v3_load(wd->v + 3 * b1));
    return s;
}

/* Is spring k unsettled: does its damper carry load? Its force along the
 * spring, damping x |dL/dt|, over the row's effective mass is the
 * acceleration its bodies would have were they stopped (as sleep stops them,
 * which takes the damper's force away): while that exceeds `accel` (the
 * policy's acceleration guard, m/s^2) the spring has not reached rest, even
 * when it creeps slower than the velocity thresholds (an overdamped spring).
 * A spring stretched from its free length and holding a static load is at
 * rest: nothing moves and the damper carries nothing. Its rows are the last
 * substep's; accel <= 0 (no guard): never. */
TP_HD int tp_cons_spring_unsettled(const tp_world *wd, int k, float accel)
{
    const tp_cons_model *m = &wd->cons[k];
    const tp_cons_row *r = &wd->cons_state[k].rows[0];
    if (m->type != TP_CONSTRAINT_SPRING || !m->enabled || !(accel > 0.0f) || r->kind != TP_ROW_SPRING) return 0;
    return m->damping * fabsf(tp_cons_row_speed(wd, m->body0, m->body1, r)) > accel * r->mass;
}

/* Is it an actuated joint of seed 000's table (the assembly policy's stricter
 * sleep thresholds for its bodies): a hinge or slider on a motor or servo, a
 * rope with its winch on? Enabled ones only. */
TP_HD int tp_cons_actuated(const tp_cons_model *m)
{
    if (!m->enabled) return 0;
    if (m->type == TP_CONSTRAINT_ROPE) return m->winch;
    return (m->type == TP_CONSTRAINT_HINGE || m->type == TP_CONSTRAINT_PRISMATIC) && m->actuator != TP_CONS_FREE;
}

/* dst = src, `bytes` (a multiple of 4, both 4-aligned) as 32-bit words,
 * padding included, word i by thread i mod nth (src NULL: zeros). */
TP_HD void tp_copy_words(void *dst, const void *src, size_t bytes, int tid, int nth)
{
    uint32_t *d = (uint32_t *)dst;
    const uint32_t *s = (const uint32_t *)src;
    for (size_t i = (size_t)tid; i < bytes / 4; i += (size_t)nth) d[i] = s ? s[i] : 0u;
}

/* A world's reset: its constraint table the model's (undoing the world's
 * writes and its winches' moves), no impulses to warm start, no read-outs.
 * Thread tid of nth (the CPU: 0 of 1; the CUDA reset kernel: a block). */
TP_HD void tp_cons_world_reset(tp_cons_model *table, tp_cons_state *state, const tp_cons_model *model, int n, int tid,
                               int nth)
{
    tp_copy_words(table, model, (size_t)n * sizeof *table, tid, nth);
    tp_copy_words(state, NULL, (size_t)n * sizeof *state, tid, nth);
}

TP_HD int tp_bodies_constrained(const tp_world *wd, int a, int b)
{
    for (int k = 0; k < wd->cons_count; ++k) {
        int c0 = wd->cons[k].body0, c1 = wd->cons[k].body1;
        if ((c0 == a && c1 == b) || (c0 == b && c1 == a)) return 1;
    }
    return 0;
}

#endif
