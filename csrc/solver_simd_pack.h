/* solver_simd_pack.h - inside the CPU's wide sweeps: the per-thread state
 * (tp_simd_ctx, placed in a thread's scratch by tp_simd_bind) and the layout
 * functions of csrc/solver_simd_pack.c that csrc/solver_simd.c's passes call.
 * Not part of the public API. */
#ifndef TP_SOLVER_SIMD_PACK_H
#define TP_SOLVER_SIMD_PACK_H

#include "solver_simd.h"

typedef struct tp_simd_ctx {
    tp_solver_simd hooks; /* first: the kernels' view */
    const tp_simd_kernels *k;
    int fits;             /* this step's constraints fit the pack */
    tp_simd_pack pack;    /* the colors' groups, kept for the step */
    tp_simd_pack shock;   /* every level of the shock pass, kept for the step */
    int shock_stale;      /* the rows changed: lay the shock pass out again */
    int impulses_packed;  /* pack's slots hold the contacts' accumulated impulses (the warm start's input) */
    /* The shock pass's schedule: per level (in shock order) its waves (0: the
     * scalar code) and where its wave starts are in wave_group; scratch of
     * the layout. [capacity] each, wave_group [2 capacity + 2], body_count
     * [bodies]. */
    int32_t *level_waves, *level_wave0, *part, *writes, *wave, *sorted, *wave_group, *body_count;
} tp_simd_ctx;

/* Pack every color's constraints of the step into P's groups; 0 if they do
 * not fit (the phase then runs the scalar sweeps, which give the same bits).
 * sweep: 1 for a sweeps phase (inv_h in 1/s, use_bias as tp_solver_sweeps),
 * 0 for the warm start, which packs the impulses and leaves the targets zero. */
int tp_simd_pack_phase(tp_simd_pack *P, const tp_world *wd, const tp_solver_work *w, const tp_contact *contacts,
                       float inv_h, int use_bias, int sweep);
/* A later phase of the same step: read the phase's fields of groups [g0, g1) again. */
void tp_simd_refresh_groups(tp_simd_pack *P, int g0, int g1, const tp_solver_work *w, const tp_contact *contacts,
                            float inv_h, int use_bias, int sweep);
/* The impulses the sweeps changed in groups [g0, g1), back to the contacts and rows. */
void tp_simd_unpack_groups(const tp_simd_pack *P, int g0, int g1, tp_solver_work *w, tp_contact *contacts);
/* The shock pass's layout for the step (C->shock, level_waves, level_wave0, wave_group). */
void tp_simd_shock_layout(tp_simd_ctx *C, const tp_world *wd, const tp_solver_work *w, const tp_contact *contacts);
/* A shock level's phase fields and friction targets, groups [g0, g1) of C->shock. */
void tp_simd_shock_refresh(tp_simd_ctx *C, int g0, int g1, const tp_solver_work *w, const tp_contact *contacts,
                           float inv_h, int use_bias);

#endif
