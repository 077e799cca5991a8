/* sleep_policy.h - the sleep policy: what the step and the host ask of it.
 *
 * A policy decides when bodies fall asleep and what wakes them
 * (docs/sleep-policies.md). Each policy of TP_SLEEP_POLICIES implements these
 * operations, named tp_<policy>_policy_<op>, with the same signatures:
 *   contact_wakes(s, p) -> int  the wake stage's first test: this step's contacts
 *                               wake sleepers; 1 if the world must collide again
 *   wake_again(s, p)            collide again (sorted), rebuild the islands, and
 *                               repeat the contact wakes until nothing more wakes
 *   update(s, p, tid, nth)      the sleep stage of a busy world: quiet timers and
 *                               who falls asleep (as lane tid of nth)
 *   wake_body(wd, b)            a host wake event on body b
 *   wake_island(wd, b)          what body b's island (or tree) holds wakes
 *   sleep_body(wd, b)           an explicit sleep of body b
 *   wake_sphere(wd, c, r)       every body within r of c wakes
 * The tp_sleep_<op> functions below pick the world's policy (tp_world.assembly)
 * in one switch each; kernels/step.h and the host's wake code
 * (csrc/batch_wake.c, csrc/articulation_batch.c) call only them. The rules:
 * kernels/wake.h (every wake), sleep.h (the island policy's sleep),
 * sleep_assembly.h (the assembly policy's); how a policy counts and moves a
 * sleep-checking body: tp_state_moves (tp_world.h). */
#ifndef TP_SLEEP_POLICY_H
#define TP_SLEEP_POLICY_H

#include "sleep.h"
#include "sleep_assembly.h"
#include "step_world.h"
#include "wake.h"

/* The policies: NAME (tp_sleep_policy_of's value) and name (of its
 * functions); X(NAME, name, arg) for each, arg passed through. */
#define TP_SLEEP_POLICIES(X, arg)                                                                                      \
    X(ISLAND, island, arg)                                                                                             \
    X(ASSEMBLY, assembly, arg)

enum {
#define TP_SLEEP_POLICY_INDEX(NAME, name, arg) TP_SLEEP_POLICY_##NAME,
    TP_SLEEP_POLICIES(TP_SLEEP_POLICY_INDEX, )
#undef TP_SLEEP_POLICY_INDEX
};

TP_HD int tp_sleep_policy_of(const tp_world *wd) { return wd->assembly ? TP_SLEEP_POLICY_ASSEMBLY : TP_SLEEP_POLICY_ISLAND; }

/* ---------------------------------------------------------------- island policy */

TP_HD int tp_island_policy_contact_wakes(tp_world_step *s, const tp_step_params *p)
{
    (void)p;
    return tp_islands_touched(&s->wd, s->root_flags);
}

/* An island touched (or a world woken whole): wake, collide, rebuild, until
 * nothing more wakes (at most once per island: bodies + 1 passes). */
TP_HD void tp_island_policy_wake_again(tp_world_step *s, const tp_step_params *p)
{
    int n = *s->contact_count;
    for (int pass = 0; pass <= s->wd.bodies; ++pass) {
        if (pass > 0 && !tp_islands_touched(&s->wd, s->root_flags)) break;
        tp_islands_wake_touched(&s->wd, s->root_flags);
        int more = 0;
        n = tp_collide_world(&s->wd, s->collide_scratch, s->contacts, s->capacity, &more);
        s->rec->overflow = more;
        tp_islands_build(&s->wd, s->contacts, n, tp_link_horizon(p->solver.dt, p->solver.substeps), s->parent,
                         s->root_flags);
    }
    *s->contact_count = n;
}

/* The timers and decisions in lanes (the union-find's parent array, free
 * after the islands stage, holds the restless marks), or serially. */
TP_HD void tp_island_policy_update(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    if (nth > 1) tp_sleep_update_lanes(&s->wd, &p->sleep, s->v_start, s->root_flags, s->parent, tid, nth);
    else tp_sleep_update(&s->wd, &p->sleep, s->v_start, s->root_flags);
}

TP_HD void tp_island_policy_wake_body(tp_world *wd, int b) { tp_island_wake_body(wd, b); }

TP_HD void tp_island_policy_wake_island(tp_world *wd, int b) { tp_island_wake_body(wd, b); }

/* A body that has not been through a step yet is an island of its own. */
TP_HD void tp_island_policy_sleep_body(tp_world *wd, int b)
{
    if (!tp_body_in_islands(wd, b)) return;
    if (wd->island[b] < 0) wd->island[b] = b;
    tp_island_sleep(wd, wd->island[b]);
}

TP_HD void tp_island_policy_wake_sphere(tp_world *wd, tp_vec3 c, float r) { tp_island_wake_sphere(wd, c, r); }

/* ---------------------------------------------------------------- assembly policy */

TP_HD int tp_assembly_policy_contact_wakes(tp_world_step *s, const tp_step_params *p)
{
    return tp_assembly_contact_wakes(&s->wd, s->contacts, *s->contact_count, &p->assembly_def,
                                     tp_link_horizon(p->solver.dt, p->solver.substeps));
}

/* Its pass 0 (contact_wakes) woke something: collide, and apply the contact
 * rules again, until nothing changes; then the islands. */
TP_HD void tp_assembly_policy_wake_again(tp_world_step *s, const tp_step_params *p)
{
    int n = *s->contact_count;
    float horizon = tp_link_horizon(p->solver.dt, p->solver.substeps);
    for (int pass = 0; pass <= s->wd.bodies; ++pass) {
        if (pass > 0 && !tp_assembly_contact_wakes(&s->wd, s->contacts, n, &p->assembly_def, horizon)) break;
        int more = 0;
        n = tp_collide_world(&s->wd, s->collide_scratch, s->contacts, s->capacity, &more);
        s->rec->overflow = more;
    }
    tp_islands_build(&s->wd, s->contacts, n, horizon, s->parent, s->root_flags);
    *s->contact_count = n;
}

/* The decision is serial (lane 0); root_flags serve as its per-body flags. */
TP_HD void tp_assembly_policy_update(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    (void)nth;
    if (tid == 0)
        tp_assembly_sleep_update(&s->wd, &p->assembly_def, p->sleep.dt, s->v_start, s->w_start, s->contacts,
                                 *s->contact_count, s->root_flags);
}

TP_HD void tp_assembly_policy_wake_body(tp_world *wd, int b) { tp_assembly_wake_body(wd, b); }

/* A removal: a link's tree (links are in no island under this policy), or the
 * body's island of touching bodies. */
TP_HD void tp_assembly_policy_wake_island(tp_world *wd, int b)
{
    if (wd->model[b].link) tp_tree_set_state(wd, b, TP_AWAKE);
    else tp_island_wake_body(wd, b);
}

TP_HD void tp_assembly_policy_sleep_body(tp_world *wd, int b)
{
    if (tp_body_in_islands(wd, b)) tp_assembly_sleep_body(wd, b);
}

TP_HD void tp_assembly_policy_wake_sphere(tp_world *wd, tp_vec3 c, float r) { tp_assembly_wake_sphere(wd, c, r); }

/* ---------------------------------------------------------------- the interface */

/* The world's policy's operation `call` (its name and arguments). */
#define TP_SLEEP_CASE(NAME, name, call)                                                                                \
    case TP_SLEEP_POLICY_##NAME: tp_##name##_policy_##call; break;
#define TP_SLEEP_DISPATCH(wd, call)                                                                                    \
    switch (tp_sleep_policy_of(wd)) { TP_SLEEP_POLICIES(TP_SLEEP_CASE, call) }

/* 1 if the world must collide again (tp_stage_wake_again). */
TP_HD int tp_sleep_contact_wakes(tp_world_step *s, const tp_step_params *p)
{
    if (tp_sleep_policy_of(&s->wd) == TP_SLEEP_POLICY_ASSEMBLY) return tp_assembly_policy_contact_wakes(s, p);
    return tp_island_policy_contact_wakes(s, p);
}

TP_HD void tp_sleep_wake_again(tp_world_step *s, const tp_step_params *p) { TP_SLEEP_DISPATCH(&s->wd, wake_again(s, p)) }

TP_HD void tp_sleep_update_step(tp_world_step *s, const tp_step_params *p, int tid, int nth)
{
    TP_SLEEP_DISPATCH(&s->wd, update(s, p, tid, nth))
}

TP_HD void tp_sleep_wake_body(tp_world *wd, int b) { TP_SLEEP_DISPATCH(wd, wake_body(wd, b)) }

TP_HD void tp_sleep_wake_island(tp_world *wd, int b) { TP_SLEEP_DISPATCH(wd, wake_island(wd, b)) }

TP_HD void tp_sleep_sleep_body(tp_world *wd, int b) { TP_SLEEP_DISPATCH(wd, sleep_body(wd, b)) }

TP_HD void tp_sleep_wake_sphere(tp_world *wd, tp_vec3 c, float r) { TP_SLEEP_DISPATCH(wd, wake_sphere(wd, c, r)) }

#undef TP_SLEEP_DISPATCH
#undef TP_SLEEP_CASE

/* ---------------------------------------------------------------- trees, either policy */

/* A tree asleep keeps its joint velocities at zero, as its links' published
 * velocities are (frozen until it wakes). */
TP_HD void tp_sleep_freeze_trees(const tp_artic_model *m, tp_artic_world *s, const tp_world *wd)
{
    for (int t = 0; t < m->tree_count; ++t) {
        if (tp_artic_tree_awake(m, wd, t)) continue;
        const tp_artic_tree *tr = &m->trees[t];
        for (int d = tr->v_start; d < tr->v_start + tr->nv; ++d) s->qd[d] = 0.0f;
    }
}

/* Wake every tree of a world (a write of its joint state, targets or
 * controls): each as its policy wakes what a link's island holds. */
TP_HD void tp_sleep_wake_trees(const tp_artic_model *m, tp_world *wd)
{
    for (int t = 0; t < m->tree_count; ++t) tp_sleep_wake_island(wd, m->joints[m->trees[t].first].body);
}

/* The plan of a step: a sleeping tree pushed by its joint_f wakes
 * (tp_dofs_pushed); a tree put to sleep between steps (an explicit sleep)
 * rests with joint velocities 0. */
TP_HD void tp_sleep_plan_trees(const tp_artic_model *m, tp_artic_world *s, tp_world *wd)
{
    for (int t = 0; t < m->tree_count; ++t) {
        const tp_artic_tree *tr = &m->trees[t];
        int root = m->joints[tr->first].body;
        if (tp_dofs_pushed(s->f + tr->v_start, tr->nv) && wd->sleep_state[root] == TP_SLEEPING)
            tp_sleep_wake_island(wd, root);
    }
    tp_sleep_freeze_trees(m, s, wd);
}

#endif
