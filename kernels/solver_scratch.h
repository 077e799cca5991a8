/* solver_scratch.h - the contact solver's per-step data and the layout of its
 * scratch memory (the `constraints` and `solve` stages: kernels/solver.h drives them).
 *
 * One world's solve uses one block of scratch memory, sized by
 * tp_solver_scratch_bytes and cut into typed arrays by tp_solver_work_at; the
 * CPU gives each thread one block (reused world after world), the CUDA backend
 * one per world. Every array is fully rewritten by a step before it is read. */
#ifndef TP_SOLVER_SCRATCH_H
#define TP_SOLVER_SCRATCH_H

#include "coloring.h"

struct tp_artic_solve;
struct tp_solver_work;

/* The CPU's wide sweeps (csrc/solver_simd.c: SSE2 or AVX2 lanes over the
 * constraints of one color, the same bits as the scalar sweeps). The CPU
 * step points tp_solver_work.simd at one; everywhere else (the device, the
 * host replay of the lanes, a scalar run) it is NULL and the scalar code
 * runs. The passes of kernels/sweeps.h drive it through these hooks. */
struct tp_pass_args;
typedef struct tp_solver_simd {
    /* A phase of passes on one thread begins (sweep: 1 for sweeps, 0 for the
     * warm start): its rows into the lanes; 0 if they do not fit (the scalar
     * passes run this phase). */
    int (*begin)(struct tp_solver_simd *self, const tp_world *wd, const struct tp_solver_work *w,
                 const tp_contact *contacts, float inv_h, int use_bias, int sweep);
    /* The colors of one pass (a TP_PASS_* of kernels/sweeps.h) in the lanes, in order. */
    void (*colors)(struct tp_solver_simd *self, int pass, tp_world *wd, struct tp_solver_work *w,
                   tp_contact *contacts, const struct tp_pass_args *a);
    /* The phase ends after `passes` passes: the lanes' impulses back to the contacts. */
    void (*end)(struct tp_solver_simd *self, struct tp_solver_work *w, tp_contact *contacts, int sweep, int passes);
    /* tp_solver_shock_pass (kernels/shock.h) */
    void (*shock)(struct tp_solver_simd *self, tp_world *wd, struct tp_solver_work *w, tp_contact *contacts,
                  float inv_h, int use_bias);
    int wide;                   /* a phase is in the lanes: the colors of each pass go to `colors` */
    int rows_changed;           /* set when the rows are prepared (a step's solve): the packed copy is stale */
    int impulses_changed;       /* set when a substep's end zeroed impulses (a bounce): the packed copy of the
                                 * impulses is stale */
} tp_solver_simd;

/* Per contact point, prepared once per step (kernels/contact_rows.h) and
 * updated by the sweeps and restitution. */
typedef struct tp_contact_row {
    float ra[3], rb[3];         /* centre of mass to the contact point, world frame, m */
    float t1[3], t2[3];         /* tangent basis, world frame */
    /* Angular velocity change per unit impulse along n, t1, t2: I_A^-1 (ra x d)
     * for body A, I_B^-1 (rb x d) for B (0 for a body that is not simulated),
     * fixed for the step like the inertias, so a sweep applies an impulse
     * without a matrix product. */
    float wa_n[3], wb_n[3], wa_t1[3], wb_t1[3], wa_t2[3], wb_t2[3];
    float normal_mass;          /* 1 / effective mass along the normal, kg */
    float tangent_mass[2];
    float approach_start;       /* normal speed at the start of this substep, m/s (< 0 approaching) */
    float approach;             /* the same after this substep's velocity integration */
    float bounce_speed;         /* > 0: restitution row, target normal speed this substep, m/s */
    float separation;           /* m along the normal at the current poses (tp_solver_update_separations) */
    float push_impulse;         /* split impulse of this substep's position correction, N s */
    float max_normal_impulse;   /* largest per-substep normal impulse this step, N s */
    int32_t fresh;              /* 1: the point had not pushed in this step before this substep */
    float normal_total;         /* normal impulse summed over substeps, N s */
    float tangent_total[2];
} tp_contact_row;

/* What the shock pass (kernels/shock.h) keeps of a held row's point: the
 * moving body's effective masses along n, t1, t2, computed once per step
 * (the rows and inertias are fixed for the step) rather than in every inner
 * sweep, where they cost three divisions per point. */
typedef struct tp_held_point {
    float mass[3];              /* kg */
} tp_held_point;

/* The shock pass's record of one contact point. */
typedef struct tp_shock_point {
    float impulse[4];           /* normal, t1, t2, push (N s): saved before a level's sweeps, put back after */
    float slip[2];              /* slip speeds along t1, t2 (m/s) noted with them */
    tp_held_point held;         /* rows that hold a body only */
} tp_shock_point;

/* Per body, prepared once per step. */
typedef struct tp_solver_body {
    tp_mat3 inv_i;              /* world-frame inverse inertia at the start of the step */
    float inv_m;                /* 0 when the body is not simulated */
    int simulated;
    float com[3];               /* world-frame centre of mass at the start of the step, m */
} tp_solver_body;

typedef struct tp_solver_params {
    float dt;
    int substeps, iterations;
    int serial;                 /* 1: all constraints in key order (the reference) */
    int warm_starting;
    float restitution_threshold;
} tp_solver_params;

/* Views of the scratch memory of one world's solve. */
typedef struct tp_solver_work {
    tp_contact_row *rows;       /* [contact capacity] */
    tp_constraint *cons;        /* [contact capacity] */
    int32_t *order;             /* [contact capacity] */
    int32_t *color_start;       /* [TP_MAX_COLORS + 2] */
    uint32_t *body_mask;        /* [bodies] */
    tp_solver_body *bodies;     /* [bodies] */
    float *push;                /* [bodies][6] pseudo velocities v, w of the position correction */
    int32_t *cold;              /* [1] this step's points are mostly new (tp_solver_constraints) */
    int32_t *depth;             /* [bodies] support depth (kernels/shock.h): 0 fixed, 1 on a fixed body, ... */
    int32_t *shock_order;       /* [contact capacity] constraints by support depth (kernels/shock.h) */
    int32_t *level_start;       /* [bodies + 2] scratch of the depth sort */
    tp_shock_point *shock_points; /* [contact capacity] the shock pass's record of each point */
    int32_t *carries;           /* [bodies] 1: held by the shock pass under some body (kernels/shock.h) */
    float *vel_note;            /* [bodies][12] v, w, push noted before a sweep (convergence checks:
                                 * tp_sweeps_moved, tp_shock_level_moved) */
    int32_t *moved;             /* [1] a body moved past TP_SWEEP_TOL in the checked sweep (tp_solver_sweeps) */
    int32_t *cons_colors;       /* [TP_COLOR_BINS] constraints and movers of each color, the overflow color
                                 * last (kernels/constraint_colors.h) */
    tp_color_lanes_scratch color; /* the coloring in lanes (kernels/coloring.h): tickets, counts, flags */
    struct tp_artic_solve *artic; /* the world's articulations (kernels/articulation_contact.h), NULL if none */
    tp_solver_simd *simd;       /* the CPU's wide sweeps, NULL for the scalar ones (set by csrc/step.c) */
} tp_solver_work;

TP_HD size_t tp_solver_align(size_t n) { return (n + 15u) & ~(size_t)15u; }

/* The scratch's arrays in order, X(type, field, count) with c the contact
 * capacity and b the bodies (size_t); each starts 16-byte aligned. */
#define TP_SOLVER_ARRAYS(X, c, b)                                                                             \
    X(tp_contact_row, rows, c) X(tp_constraint, cons, c) X(int32_t, order, c)                                 \
    X(int32_t, color_start, TP_MAX_COLORS + 2) X(uint32_t, body_mask, b) X(tp_solver_body, bodies, b)         \
    X(float, push, 6 * b) X(int32_t, cold, 1) X(int32_t, depth, b) X(int32_t, shock_order, c)                  \
    X(int32_t, level_start, b + 2) X(tp_shock_point, shock_points, c) X(int32_t, carries, b)                  \
    X(float, vel_note, 12 * b) X(int32_t, moved, 1) X(int32_t, cons_colors, TP_COLOR_BINS)                    \
    X(int32_t, color.ticket, b)                                                                               \
    X(int32_t, color.counts, (size_t)tp_color_slots((int)b) * TP_COLOR_BINS) X(int32_t, color.flags, 4)

#define TP_SOLVER_ARRAY_BYTES(type, field, count) +tp_solver_align((size_t)(count) * sizeof(type))
#define TP_SOLVER_ARRAY_PLACE(type, field, count) \
    w.field = (type *)p;                          \
    p += tp_solver_align((size_t)(count) * sizeof(type));

TP_HD size_t tp_solver_scratch_bytes(int bodies, int capacity)
{
    size_t c = (size_t)capacity, b = (size_t)bodies;
    return 0 TP_SOLVER_ARRAYS(TP_SOLVER_ARRAY_BYTES, c, b);
}

TP_HD tp_solver_work tp_solver_work_at(void *scratch, int bodies, int capacity)
{
    char *p = (char *)scratch;
    size_t c = (size_t)capacity, b = (size_t)bodies;
    tp_solver_work w;
    w.color.slots = tp_color_slots(bodies);
    TP_SOLVER_ARRAYS(TP_SOLVER_ARRAY_PLACE, c, b)
    w.artic = NULL;
    w.simd = NULL;
    return w;
}

#endif
