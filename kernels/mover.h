/* mover.h - movers: the model's table, each world's state, and the
 * attachment rules (include/torpor_movers.h describes the types).
 *
 * The rows (kernels/mover_rows.h) are rebuilt from the poses at the start of
 * every substep and solved after the constraint rows in every sweep
 * (docs/movers.md). */
#ifndef TP_MOVER_H
#define TP_MOVER_H

#include "tp_world.h" /* and constraint.h: tp_cons_row */

/* Rows per mover: three linear or three angular directions. */
#define TP_MOVER_ROWS 3
/* Seed 004: the speed toward the goal is the distance (angle) still to go
 * times responsiveness times 0.3, per second. */
#define TP_MOVER_RATE_PER_RESPONSIVENESS 0.3f

/* tp_mover_model.flags */
enum {
    TP_MOVER_TWO_ATTACHMENT = 1, TP_MOVER_RIGID = 2, TP_MOVER_AT_COM = 4, TP_MOVER_REACTION = 8,
    TP_MOVER_PRIMARY_AXIS = 16
};

/* Read-only, one per mover, shared by every world. */
typedef struct tp_mover_model {
    uint8_t type;            /* tp_mover_type */
    uint8_t relative_to;     /* tp_mover_frame */
    uint8_t velocity_mode;   /* tp_velocity_mode */
    uint8_t flags;           /* TP_MOVER_* */
    int32_t body0, body1;    /* -1: not set */
    float pos0[3], quat0[4], pos1[3], quat1[4]; /* attachments, body frames */
    float line[3], tangent0[3], tangent1[3];    /* unit, in the relative_to frame */
    float gain;              /* the approach law's speed per unit distance to go in a substep, 1/s
                                (csrc/mover_model.c: from responsiveness x 0.3 per second, per step) */
    float max_velocity;      /* m/s or rad/s */
    float max_force;         /* N or N m */
} tp_mover_model;

/* Each world's state of one mover. A row is a constraint row
 * (kernels/constraint.h) with the moved body in body1's place and
 * attachment1's body (reaction) or nothing in body0's. */
typedef struct tp_mover_state {
    tp_cons_row rows[TP_MOVER_ROWS];
    float impulse[TP_MOVER_ROWS]; /* accumulated this substep, warm started into the next */
    float target[4];         /* this world's goal (tp_batch_set_mover_targets) */
    float fsum[3];           /* push summed over this step's substeps, N s (N m s) */
    float force;             /* |push| / dt of the last step, N (N m) */
    int32_t other;           /* the rows' body0: attachment1's body under reaction, else -1 */
    int32_t color;           /* this step's color (kernels/constraint_colors.h), TP_CONS_UNCOLORED without rows */
    uint8_t enabled;         /* this world's enabled flag */
    uint8_t pushing;         /* rows built in this substep */
} tp_mover_state;

/* Does the mover read attachment1 (two attachments, or numbers relative to it)? */
TP_HD int tp_mover_uses_body1(const tp_mover_model *m)
{
    if (m->type == TP_MOVER_ALIGN_POSITION || m->type == TP_MOVER_ALIGN_ORIENTATION)
        return (m->flags & TP_MOVER_TWO_ATTACHMENT) != 0;
    return m->relative_to == TP_FRAME_ATTACHMENT1;
}

/* Seed 004's attachment rules: enabled, attachment0 on a present dynamic body
 * that collides, attachment1 on a present body where the mode reads it. */
TP_HD int tp_mover_active(const tp_world *wd, const tp_mover_model *m, const tp_mover_state *st)
{
    if (!st->enabled) return 0;
    int b0 = m->body0, b1 = m->body1;
    if (b0 < 0 || wd->model[b0].type != TP_BODY_DYNAMIC || (wd->flags[b0] & TP_FLAG_REMOVED)) return 0;
    const tp_body_model *bm = &wd->model[b0];
    if (bm->has_filter && bm->contype == 0u && bm->conaffinity == 0u) return 0; /* does not collide */
    if (tp_mover_uses_body1(m) && (b1 < 0 || (wd->flags[b1] & TP_FLAG_REMOVED))) return 0;
    return 1;
}

/* Does an active mover drive its body, so that its island stays awake (the
 * island policy)? Every type but a VectorForce or Torque of zero. */
TP_HD int tp_mover_driving(const tp_world *wd, const tp_mover_model *m, const tp_mover_state *st)
{
    if (!tp_mover_active(wd, m, st)) return 0;
    if (m->type != TP_MOVER_VECTOR_FORCE && m->type != TP_MOVER_TORQUE) return 1;
    return st->target[0] != 0.0f || st->target[1] != 0.0f || st->target[2] != 0.0f;
}

/* Seed 000's actuated joints among the movers (its table): an
 * AlignPosition or AlignOrientation that is not rigid, a LinearVelocity (every
 * mode), an AngularVelocity; active ones only. Under the assembly policy the
 * assemblies it connects (body0's, and body1's where its mode reads it) use
 * the stricter velocity thresholds. */
TP_HD int tp_mover_actuated(const tp_world *wd, const tp_mover_model *m, const tp_mover_state *st)
{
    if (!tp_mover_active(wd, m, st)) return 0;
    switch (m->type) {
    case TP_MOVER_ALIGN_POSITION:
    case TP_MOVER_ALIGN_ORIENTATION: return !(m->flags & TP_MOVER_RIGID);
    case TP_MOVER_LINEAR_VELOCITY:
    case TP_MOVER_ANGULAR_VELOCITY: return 1;
    default: return 0;
    }
}

/* The body an active mover links to body0, as a constraint does its two
 * (seed 004: movers are constraints, though they make no assembly): body1
 * where the mode reads it, else -1. The assembly policy's neighbour rule. */
TP_HD int tp_mover_neighbour(const tp_world *wd, const tp_mover_model *m, const tp_mover_state *st)
{
    return tp_mover_active(wd, m, st) && tp_mover_uses_body1(m) ? m->body1 : -1;
}

/* The dynamic body an active mover pulls on besides body0 (reaction on
 * attachment1's body), else -1: the mover's push on it wakes it. */
TP_HD int tp_mover_pulls(const tp_world *wd, const tp_mover_model *m, const tp_mover_state *st)
{
    if (!(m->flags & TP_MOVER_REACTION) || !tp_mover_driving(wd, m, st)) return -1;
    int b1 = tp_mover_neighbour(wd, m, st);
    return b1 >= 0 && wd->model[b1].type == TP_BODY_DYNAMIC ? b1 : -1;
}

/* A world's reset: every mover's state the model's initial one (its target
 * and enabled flag, no impulses, no read-outs: csrc/mover_model.c builds
 * it). Thread tid of nth (the CPU: 0 of 1; the CUDA reset kernel: a block). */
TP_HD void tp_mover_world_reset(tp_mover_state *state, const tp_mover_state *initial, int n, int tid, int nth)
{
    tp_copy_words(state, initial, (size_t)n * sizeof *state, tid, nth);
}

#endif
