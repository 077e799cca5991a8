/* step_world.h - what one world's step reads and writes: its record, the
 * step's settings, its scratch and the view of its arrays (tp_world_step).
 * The stages (kernels/step.h) and the sleep policy (kernels/sleep_policy.h)
 * work on it. */
#ifndef TP_STEP_WORLD_H
#define TP_STEP_WORLD_H

#include "articulation.h"
#include "collision.h"
#include "layout.h"
#include "sleep.h"
#include "solver.h"

/* What the plan stage decided for a world (tp_step_record.work). */
#define TP_WORK_FAULTED 0 /* frozen until reset (a non-finite state): nothing but contact_count = 0 */
#define TP_WORK_IDLE 1    /* nothing awake: contact forces zero, counts */
#define TP_WORK_BUSY 2    /* every stage */

/* What one stage of a world leaves for the next, besides the batch arrays. */
typedef struct tp_step_record {
    int32_t work;     /* TP_WORK_* */
    int32_t overflow; /* contact points of this step that did not fit */
    int32_t woke;     /* the islands stage woke bodies (overflow): collide again */
    int32_t again;    /* tp_stage_wake_begin found a wake: tp_stage_wake_again collides again */
} tp_step_record;

/* Settings of a step, from the model. */
typedef struct tp_step_params {
    tp_solver_params solver;
    tp_sleep_params sleep;        /* enabled, dt; the island policy's thresholds */
    tp_assembly_def assembly_def; /* the assembly policy's (tp_world.assembly chooses) */
} tp_step_params;

/* The scratch of one world's step, in this order: the record, collision,
 * solver, islands (parent [B], root_flags [B], v_start [B][3], w_start [B][3]). The CPU
 * backend gives each thread one and reuses it world after world; the CUDA
 * backend gives each world one. */
TP_HD size_t tp_island_scratch_bytes(int bodies)
{
    size_t b = (size_t)bodies;
    return tp_solver_align(b * sizeof(int32_t)) + tp_solver_align(b) + 2 * tp_solver_align(3 * b * sizeof(float));
}

TP_HD size_t tp_step_scratch_bytes(int bodies, int capacity)
{
    return tp_solver_align(sizeof(tp_step_record)) + tp_solver_align(tp_collide_scratch_bytes(bodies, capacity)) +
           tp_solver_align(tp_solver_scratch_bytes(bodies, capacity)) + tp_solver_align(tp_island_scratch_bytes(bodies));
}

/* Everything one world's stages read and write. */
typedef struct tp_world_step {
    tp_world wd;
    tp_step_record *rec;
    tp_contact *contacts;        /* [capacity] this step's */
    tp_contact_ref *refs;        /* [capacity] their manifolds' reference poses (contact_cache.h) */
    const tp_contact *previous;  /* [prev_count] last step's, for warm starting (wd.cache_contacts) */
    int prev_count, capacity;
    int32_t *contact_count;      /* this step's number of contacts (the batch's, next buffer) */
    int32_t *contact_overflow;   /* lost contact points since the world's reset */
    uint8_t *fault;
    int32_t *awake_count, *sleeping_count, *checking_count;
    void *collide_scratch;
    tp_solver_work solver;
    int32_t *parent;             /* [bodies] union-find */
    uint8_t *root_flags;         /* [bodies] TP_ISLAND_* per island root */
    float *v_start;              /* [bodies][3] velocities at the start of the step */
    const tp_artic_model *artic; /* NULL without joints */
    tp_artic_world joints;       /* this world's joint arrays */
    void *artic_scratch;
    float *w_start;              /* [bodies][3] angular velocities then (the assembly policy) */
} tp_world_step;

/* World w's step in a batch laid out as L whose last step wrote contact buffer
 * `current`; scratch: tp_step_scratch_bytes of this world's (16-byte aligned). */
TP_HD tp_world_step tp_world_step_at(const tp_layout *L, int w, int current, void *scratch)
{
    size_t cap = (size_t)L->capacity, nb = (size_t)L->bodies;
    int next = 1 - current;
    tp_world_step s;
    s.wd = tp_layout_world_stepping(L, w, current);
    s.contacts = L->contacts[next] + (size_t)w * cap;
    s.refs = L->contact_refs[next] + (size_t)w * cap;
    s.previous = L->contacts[current] + (size_t)w * cap;
    s.prev_count = L->contact_count[current][w];
    s.capacity = L->capacity;
    s.contact_count = L->contact_count[next] + w;
    s.contact_overflow = L->contact_overflow + w;
    s.fault = L->faults + w;
    s.awake_count = L->awake_count + w;
    s.sleeping_count = L->sleeping_count + w;
    s.checking_count = L->checking_count + w;
    char *p = (char *)scratch;
    s.rec = (tp_step_record *)p;
    p += tp_solver_align(sizeof(tp_step_record));
    s.collide_scratch = p;
    p += tp_solver_align(tp_collide_scratch_bytes(L->bodies, L->capacity));
    s.solver = tp_solver_work_at(p, L->bodies, L->capacity);
    p += tp_solver_align(tp_solver_scratch_bytes(L->bodies, L->capacity));
    s.parent = (int32_t *)p;
    s.root_flags = (uint8_t *)(p + tp_solver_align(nb * sizeof(int32_t)));
    s.v_start = (float *)(p + tp_solver_align(nb * sizeof(int32_t)) + tp_solver_align(nb));
    s.artic = L->artic;
    s.artic_scratch = NULL;
    if (L->artic) {
        s.joints = tp_artic_world_at(L->artic, L->joint_q, L->joint_qd, L->joint_f, L->joint_target_q,
                                     L->joint_target_qd, w);
        tp_artic_world_actuators(L->artic, &s.joints, L->ctrl, L->actuator_f, L->limit_f, w);
        tp_artic_world_link_scales(L->artic, &s.joints, L->link_scale, w);
        tp_artic_world_link_coms(L->artic, &s.joints, L->link_com, w);
        tp_artic_world_params(L->artic, &s.joints, L->joint_params, L->actuator_params, w);
        /* the CPU backend's layout has none: world_step gives the thread's (csrc/step.c) */
        s.artic_scratch = L->artic_scratch ? L->artic_scratch + (size_t)w * L->artic_scratch_bytes : NULL;
    }
    s.w_start = (float *)((char *)s.v_start + tp_solver_align(3 * nb * sizeof(float)));
    return s;
}

#endif
