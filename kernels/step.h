/* step.h - the step of one world, described once.
 *
 * TP_STEP_STAGES lists the stages of a world's step in the order they run
 * (docs/step.md gives each stage's file). Every backend drives this one list:
 *   - the CPU backend (csrc/step.c) runs every stage of a world, then the next
 *     world (world-major), with an optional clock around each stage
 *     (tp_batch_def.profile_stages, the benchmarks);
 *   - the CUDA backend (kernels/cuda/) runs one stage for every world, then
 *     the next stage (stage-major), each as the launch the list's last column
 *     names: a thread per world, a group of lanes per world, or the contact sort;
 *   - tests/test_stages.c runs the CUDA plan on the host and checks it gives
 *     the CPU's bits.
 * Both orders give the same bits because a stage of world w reads and writes
 * only world w's arrays and its scratch, and everything one stage leaves for
 * the next (the plan, the contact count, the island flags) is in memory, not
 * in locals: tp_world_step below.
 *
 * To add a stage: a line in TP_STEP_STAGES, its tp_stage_<name> function
 * here (calling the stage's own file), and its name in include/torpor.h's
 * tp_stage (docs/step.md shows an example). */
#ifndef TP_STEP_H
#define TP_STEP_H

#include "contact_sort.h"
#include "finish.h"
#include "islands.h"
#include "sleep_policy.h"
#include "step_world.h"
#include "warm_start.h"

/* Which worlds a stage runs on: only those with work, or every world (the
 * stage then looks at the plan itself). On CUDA the busy-only stages are the
 * body of the conditional graph node that a step with nothing awake skips,
 * and each launches over the compacted list of busy worlds (in increasing
 * order; kernels/cuda/stages.cu, tp_busy_list_kernel), so its first threads or
 * blocks are the ones with work. */
#define TP_RUN_BUSY 0
#define TP_RUN_ALWAYS 1

/* How the CUDA backend launches a stage (docs/cuda.md). */
#define TP_LAUNCH_WORLD 0 /* one thread per world (per listed world for a busy-only stage) */
#define TP_LAUNCH_GROUP 1 /* a group of lanes per (listed) world, several worlds per block: the stage runs as
                             lane tid of nth (kernels/solve_group.h) */
#define TP_LAUNCH_SORT 2  /* a block per world sorting its keys (stable); over kernels/cuda/cub_sort.h's
                             TP_SORT_BLOCK_MAX contacts: keys exported, one stable sort of all, permuted */
#define TP_LAUNCH_PAIRS 3 /* the collide stage cut for a thread per candidate pair (kernels/collide_pairs.h) */
#define TP_LAUNCH_WAKE 4  /* the wake stage cut in two: tp_stage_wake_begin, a light thread per world, then
                             tp_stage_wake_again, a thread per world that woke (the narrowphase's registers) */

/*       NAME        name        runs on        CUDA launch */
#define TP_STEP_STAGES(X)                                                                                              \
    X(PLAN,       plan,       TP_RUN_ALWAYS, TP_LAUNCH_WORLD) /* faulted, idle or busy; start velocities */            \
    X(COLLIDE,    collide,    TP_RUN_BUSY,   TP_LAUNCH_PAIRS) /* broadphase and narrowphase, unsorted */               \
    X(SORT,       sort,       TP_RUN_BUSY,   TP_LAUNCH_SORT)  /* contacts in key order */                              \
    X(ISLANDS,    islands,    TP_RUN_BUSY,   TP_LAUNCH_GROUP) /* union-find islands, overflow wake */                  \
    X(WAKE,       wake,       TP_RUN_BUSY,   TP_LAUNCH_WAKE)  /* contact wakes, collide again where woken */           \
    X(WARM_START, warm_start, TP_RUN_BUSY,   TP_LAUNCH_WORLD) /* last step's impulses; manifold references */       \
    X(CONSTRAINTS, constraints, TP_RUN_BUSY, TP_LAUNCH_GROUP) /* body masses, constraints, colors, shock order */  \
    X(SOLVE,      solve,      TP_RUN_BUSY,   TP_LAUNCH_GROUP) /* substeps: integrate, sweeps, relax, restitution */    \
    X(ARTICULATIONS, articulations, TP_RUN_ALWAYS, TP_LAUNCH_WORLD) /* joint_f cleared, joint state checked */     \
    X(FINISH,     finish,     TP_RUN_ALWAYS, TP_LAUNCH_WORLD) /* contact forces, applied forces cleared, faults */     \
    X(SLEEP,      sleep,      TP_RUN_ALWAYS, TP_LAUNCH_GROUP) /* the sleep policy, counts */

/* Stage numbers in list order; include/torpor.h's tp_stage must match them
 * (checked in csrc/step.c). */
enum {
#define TP_STAGE_INDEX(NAME, name, runs, launch) TP_STEP_##NAME,
    TP_STEP_STAGES(TP_STAGE_INDEX)
#undef TP_STAGE_INDEX
    TP_STEP_STAGE_COUNT
};

/* ---------------------------------------------------------------- stages */

/* 1 if any body of the world is awake (or the solver must visit sleepers). */
TP_HD int tp_world_has_work(const tp_world *wd)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->model[b].type == TP_BODY_STATIC || (wd->flags[b] & TP_FLAG_REMOVED)) continue;
        if (tp_link_is_awake(wd, b)) return 1; /* an awake articulation steps in the solve */
        if (wd->model[b].type == TP_BODY_KINEMATIC) {
            if (tp_body_is_moving_kinematic(wd, b)) return 1;
            continue;
        }
        if (wd->sleep_state[b] != TP_SLEEPING || wd->solve_sleeping) return 1;
    }
    return 0;
}

TP_HD void tp_stage_plan(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    (void)p, (void)tid, (void)nth;
    s->rec->overflow = 0;
    s->rec->woke = 0;
    if (*s->fault) {
        s->rec->work = TP_WORK_FAULTED;
        return;
    }
    if (s->artic) tp_sleep_plan_trees(s->artic, &s->joints, &s->wd); /* joint_f wakes; sleeping trees rest */
    s->rec->work = tp_world_has_work(&s->wd) ? TP_WORK_BUSY : TP_WORK_IDLE;
    if (s->rec->work == TP_WORK_BUSY)
        for (size_t k = 0; k < 3 * (size_t)s->wd.bodies; ++k) {
            s->v_start[k] = s->wd.v[k];
            s->w_start[k] = s->wd.w[k];
        }
}

TP_HD void tp_stage_collide(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    (void)p, (void)tid, (void)nth;
    int over = 0;
    *s->contact_count = tp_collide_world_unsorted(&s->wd, s->collide_scratch, s->contacts, s->capacity, &over);
    s->rec->overflow = over;
}

TP_HD void tp_stage_sort(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    (void)p, (void)tid, (void)nth;
    tp_contacts_sort(s->contacts, *s->contact_count, (char *)s->collide_scratch + tp_broadphase_scratch_bytes(s->wd.bodies),
                     s->capacity);
}

/* As lane tid of nth (CUDA: a group of lanes per world, kernels/solve_group.h). */
TP_HD void tp_stage_islands(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    if (s->rec->overflow > 0) { /* the same for every lane */
        if (tid == 0) s->rec->woke = tp_world_wake_all(&s->wd);
        TP_BARRIER(nth);
    }
    tp_islands_build_lanes(&s->wd, s->contacts, *s->contact_count, tp_link_horizon(p->solver.dt, p->solver.substeps),
                           s->parent, s->root_flags, tid, nth);
}

/* The wake stage, in two phases that every backend runs in this order (the
 * CUDA backend as two launches, TP_LAUNCH_WAKE, so that the launch that runs
 * on every busy world does not carry the narrowphase's registers; docs/cuda.md):
 *
 *   tp_stage_wake_begin: the contact wakes of this step's contacts (the sleep
 *     policy's, kernels/sleep_policy.h). Nothing woke (the usual case): the
 *     stage is done. Something woke: rec->again = 1;
 *   tp_stage_wake_again, only where rec->again: a woken sleeper had its own
 *     pairs skipped by the broadphase (all asleep), so the world collides
 *     again (sorted) and its islands are rebuilt; a woken body may in turn
 *     reach another sleeper, so repeat until nothing more wakes (at most
 *     bodies + 1 passes).
 *
 * The two together are the loop
 *     for (pass = 0; pass <= bodies; ++pass) { woke |= wakes(); if (!woke) break; woke = 0; collide ...; }
 * with its first test (pass 0) in begin and the rest in again: the same
 * operations on the same data in the same order. */

/* Phase 1: returns rec->again (1 if the world must collide again). */
TP_HD int tp_stage_wake_begin(tp_world_step *s, const tp_step_params *p)
{
    int woke = s->rec->woke | tp_sleep_contact_wakes(s, p);
    s->rec->again = woke != 0;
    if (!woke) *s->contact_overflow += s->rec->overflow;
    return s->rec->again;
}

/* Phase 2: something woke (begin): collide, rebuild, until nothing more wakes. */
TP_HD void tp_stage_wake_again(tp_world_step *s, const tp_step_params *p)
{
    tp_sleep_wake_again(s, p);
    *s->contact_overflow += s->rec->overflow;
}

TP_HD void tp_stage_wake(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    (void)tid, (void)nth;
    if (tp_stage_wake_begin(s, p)) tp_stage_wake_again(s, p);
}

/* Last step's impulses; and, where the batch reuses manifolds (its cache is
 * set), the reference poses of this step's manifolds, once every collide of
 * the step is done and sorted (contact_cache.h). */
TP_HD void tp_stage_warm_start(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    (void)tid, (void)nth;
    if (s->wd.cache_refs)
        tp_contact_refs_update(&s->wd, s->contacts, *s->contact_count, s->wd.cache_refs, s->refs,
                               s->rec->overflow > 0);
    if (p->solver.warm_starting) tp_match_impulses(s->contacts, *s->contact_count, s->previous, s->prev_count);
}

/* As lane tid of nth (CUDA: a group of lanes per world; kernels/coloring.h). */
TP_HD void tp_stage_constraints(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    tp_solver_constraints_lanes(&s->wd, s->contacts, *s->contact_count, &s->solver, &p->solver, tid, nth);
}

/* The rigid solve and, interleaved with its substeps, the articulations
 * (kernels/articulation_contact.h: each tree's free velocity update before
 * the sweeps, its contact and joint rows in them, q after them). */
TP_HD void tp_stage_solve(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    tp_artic_solve artic; /* this thread's view; s is this thread's too (the CUDA launch builds one per thread) */
    if (s->artic) {
        artic = tp_artic_solve_at(s->artic, s->joints, &s->wd, s->artic_scratch, s->capacity,
                                  p->solver.dt / (float)p->solver.substeps);
        s->solver.artic = &artic;
    }
    tp_solver_substeps_block(&s->wd, s->contacts, *s->contact_count, &s->solver, &p->solver, tid, nth);
    if (s->artic) {
        if (tid == 0) *s->contact_overflow += artic.x.overflow; /* link points over their capacity: no rows */
        s->solver.artic = NULL; /* the view dies with this call */
    }
}

/* Articulations after the solve that stepped them: joint_f cleared (it
 * lasts one step), a non-finite joint state faults the world. */
TP_HD void tp_stage_articulations(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    (void)p, (void)tid, (void)nth;
    if (!s->artic || s->rec->work != TP_WORK_BUSY) return;
    if (!tp_artic_world_finish(s->artic, &s->joints)) *s->fault = 1;
}

TP_HD void tp_stage_finish(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    (void)tid, (void)nth;
    if (s->rec->work != TP_WORK_BUSY) {
        if (s->rec->work == TP_WORK_IDLE) tp_world_finish_idle(&s->wd);
        *s->contact_count = 0;
        return;
    }
    tp_contact_forces(&s->wd, s->contacts, *s->contact_count, s->solver.rows, p->solver.dt);
    tp_world_refreeze_sleepers(&s->wd);
    tp_world_clear_applied(&s->wd);
    if (!tp_world_is_sane(&s->wd)) *s->fault = 1;
}

/* As lane tid of nth (CUDA: a group of lanes per world; the CPU: one lane):
 * the sleep policy's decision (kernels/sleep_policy.h), the sleeping trees'
 * joint velocities frozen, and the counts (kernels/finish.h). */
TP_HD void tp_stage_sleep(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    if (s->rec->work == TP_WORK_FAULTED) return;
    if (s->rec->work == TP_WORK_BUSY) { /* the same for every lane */
        tp_sleep_update_step(s, p, tid, nth);
        TP_BARRIER(nth);
        if (s->artic && tid == 0) tp_sleep_freeze_trees(s->artic, &s->joints, &s->wd);
    }
    if (nth > 1)
        tp_world_count_lanes(&s->wd, s->awake_count, s->sleeping_count, s->checking_count, s->solver.color.counts,
                             s->solver.color.slots, tid, nth);
    else
        tp_world_count(&s->wd, s->awake_count, s->sleeping_count, s->checking_count);
}

/* ---------------------------------------------------------------- the list */

/* Does `stage` run on a world whose plan is `work`? */
TP_HD int tp_stage_runs(int stage, int work)
{
    switch (stage) {
#define TP_STAGE_RUNS(NAME, name, runs, launch)                                                                        \
    case TP_STEP_##NAME: return runs == TP_RUN_ALWAYS || work == TP_WORK_BUSY;
        TP_STEP_STAGES(TP_STAGE_RUNS)
#undef TP_STAGE_RUNS
    }
    return 0;
}

/* How the CUDA backend launches `stage` (TP_LAUNCH_*). */
TP_HD int tp_stage_launch(int stage)
{
    switch (stage) {
#define TP_STAGE_LAUNCH(NAME, name, runs, launch)                                                                      \
    case TP_STEP_##NAME: return launch;
        TP_STEP_STAGES(TP_STAGE_LAUNCH)
#undef TP_STAGE_LAUNCH
    }
    return -1;
}

/* Run `stage` of one world (as thread tid of nth for a block stage). */
TP_HD_DISPATCH void tp_stage_run(int stage, tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    switch (stage) {
#define TP_STAGE_CALL(NAME, name, runs, launch)                                                                        \
    case TP_STEP_##NAME: tp_stage_##name(s, p, tid, nth); break;
        TP_STEP_STAGES(TP_STAGE_CALL)
#undef TP_STAGE_CALL
    }
}

#endif
