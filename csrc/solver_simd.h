/* solver_simd.h - the CPU's wide contact sweeps: SSE2 (4 lanes) or AVX2 (8
 * lanes) over the constraints of one color, bit for bit the scalar sweeps of
 * kernels/sweeps.h (docs/solver.md, "Wide sweeps on the CPU").
 *
 * csrc/solver_simd.c chooses the width and drives the passes,
 * csrc/solver_simd_pack.c packs each phase's constraints into lanes (and the
 * shock pass's into waves); csrc/solver_simd_wide.h is the lane code, one
 * source compiled twice (csrc/solver_simd_sse2.c, csrc/solver_simd_avx2.c with
 * -mavx2, never -mfma). */
#ifndef TP_SOLVER_SIMD_H
#define TP_SOLVER_SIMD_H

#include "torpor.h"

#include "solver.h"

#include <stddef.h>
#include <stdint.h>

#define TP_SIMD_MAX_LANES 8
#define TP_SIMD_MAX_POINTS 4 /* a constraint with more points (compounds) is swept by the scalar code */

/* Fields of one point slot: TP_SIMD_FIELDS blocks of `lanes` floats. Vectors
 * are three consecutive fields (x, y, z). Masks are all-one bit patterns. */
enum {
    TP_SF_N = 0, TP_SF_RA = 3, TP_SF_RB = 6, TP_SF_T1 = 9, TP_SF_T2 = 12,
    TP_SF_WA_N = 15, TP_SF_WB_N = 18, TP_SF_WA_T1 = 21, TP_SF_WB_T1 = 24, TP_SF_WA_T2 = 27, TP_SF_WB_T2 = 30,
    TP_SF_NORMAL_MASS = 33, TP_SF_TANGENT_MASS1, TP_SF_TANGENT_MASS2, TP_SF_FRICTION,
    TP_SF_BIAS,       /* the velocity row's target: speculative, bounce or 0 (as tp_solve_normal_row) */
    TP_SF_PUSH_BIAS,  /* the split impulse's target velocity */
    TP_SF_PUSH_ON,    /* mask: biased phase and separation < -slop */
    TP_SF_VALID,      /* mask: the lane's constraint has a point in this slot */
    TP_SF_NORMAL_IMPULSE, TP_SF_TANGENT_IMPULSE1, TP_SF_TANGENT_IMPULSE2, TP_SF_PUSH_IMPULSE,
    TP_SF_MAX_NORMAL_IMPULSE,
    TP_SF_SLIP1, TP_SF_SLIP2, /* the friction rows' target slip speeds: 0 but in the shock pass */
    TP_SIMD_FIELDS
};

/* Up to `lanes` constraints of one color solved together. Lanes past `used`
 * repeat lane 0's bodies with every mask clear, so they read and write nothing. */
typedef struct tp_simd_group {
    int32_t a[TP_SIMD_MAX_LANES], b[TP_SIMD_MAX_LANES]; /* bodies */
    /* masks: the lane writes the body (it is simulated and, in the shock
     * pass, not held; tp_apply_impulse_held) */
    uint32_t sim_a[TP_SIMD_MAX_LANES], sim_b[TP_SIMD_MAX_LANES];
    float inv_m_a[TP_SIMD_MAX_LANES], inv_m_b[TP_SIMD_MAX_LANES];
    int32_t first[TP_SIMD_MAX_LANES], count[TP_SIMD_MAX_LANES]; /* the constraint's points */
    int32_t used, slot0, slots, pad;  /* lanes in use; the group's point slots [slot0, slot0 + slots) */
} tp_simd_group;

/* One phase's constraints in lanes: per color its groups and the constraints
 * left to the scalar code (articulation pairs, more than 4 points). */
typedef struct tp_simd_pack {
    int lanes;
    int color_group[TP_MAX_COLORS + 1];  /* groups of color c: [color_group[c], color_group[c + 1]) */
    int color_scalar[TP_MAX_COLORS + 1]; /* scalar[color_scalar[c] .. color_scalar[c + 1]): order positions */
    int first_color;                     /* the first color with groups or scalar constraints (TP_MAX_COLORS: none) */
    int n_groups, slot_used;             /* groups and slots packed */
    int group_cap, slot_cap;
    tp_simd_group *groups;
    float *slots;                        /* [slot_cap][TP_SIMD_FIELDS][lanes] */
    int32_t *scalar;                     /* [contact capacity] */
    long long wide;                      /* constraints in groups (this phase) */
} tp_simd_pack;

/* The lane code of one width (csrc/solver_simd_wide.h). v, w: [bodies][3];
 * push: [bodies][6] pseudo velocities (biased sweeps only). */
typedef struct tp_simd_kernels {
    int lanes;
    void (*sweep)(const tp_simd_pack *P, int g0, int g1, float *v, float *w, float *push, int use_bias, int reverse);
    void (*warm_start)(const tp_simd_pack *P, int g0, int g1, float *v, float *w);
} tp_simd_kernels;

extern const tp_simd_kernels tp_simd_kernels_sse2;
extern const tp_simd_kernels tp_simd_kernels_avx2;

/* The path a batch runs: `requested` (the batch definition's) unless AUTO, else
 * the environment variable TORPOR_SIMD (off, sse2, avx2, auto), else the widest
 * the CPU has. Asking for a width the CPU lacks, or a bad value, fails with a
 * message naming it (TP_ERR_INVALID_ARGUMENT / TP_ERR_BACKEND). */
tp_status tp_simd_resolve(tp_simd requested, tp_simd *out);

/* Scratch bytes per CPU thread for `kind` (0 for off) and worlds of `bodies`
 * bodies and `capacity` contact points; tp_simd_bind places the sweeps' state at the
 * start of such a block (16-byte aligned) for one world's step. */
size_t tp_simd_scratch_bytes(tp_simd kind, int bodies, int capacity);
tp_solver_simd *tp_simd_bind(tp_simd kind, void *scratch, int bodies, int capacity);

/* Constraints solved in wide lanes since the process started, summed over
 * every sweep and warm start (a test's proof that the wide path ran). */
unsigned long long tp_simd_wide_constraints(void);
/* Of those, the shock pass's (constraints x sweeps of a level in lanes). */
unsigned long long tp_simd_wide_shock_rows(void);

#endif
