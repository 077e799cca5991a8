/* layout.h - where a batch's arrays are: the one description every backend
 * reads.
 *
 * The batch owns its state as world-major arrays (DESIGN.md section 3). A
 * tp_layout holds their base pointers and sizes; the CPU backend fills one
 * with host pointers (csrc/batch.c), the CUDA backend one with the device
 * copies of the same arrays (kernels/cuda/). tp_layout_world cuts world w's
 * slice out of it, on either side, so there is one way of building a world
 * view. */
#ifndef TP_LAYOUT_H
#define TP_LAYOUT_H

#include "constraint.h"
#include "mover.h"
#include "contact.h"
#include "tp_world.h"

typedef struct tp_layout {
    int worlds, bodies;
    int capacity;                  /* contact points per world */
    int solve_sleeping;            /* sleep.skip_constraints off */
    int assembly;                  /* sleep.policy is assembly (and sleep enabled) */
    float dt;                      /* s */
    int reuse_manifolds;           /* solver.warm_starting: a pair that has not moved reuses last step's
                                      manifold (contact_cache.h); off, a step depends on the bodies' state
                                      alone */
    const tp_body_model *model;    /* [bodies] */
    const tp_shape_model *shapes;  /* [shape_total] the model's shape table; NULL without compound bodies */
    int shape_total;
    const struct tp_poly *polys;   /* [bodies] the model's polytopes (collision.h, tp_build_body_polys) */
    const struct tp_poly *hulls;   /* [hull_total] the model's convex hulls; NULL without convex shapes */
    int hull_total;
    float *pos, *quat, *v, *w;     /* [W][B][3], [W][B][4], [W][B][3], [W][B][3] */
    float *force, *torque;         /* [W][B][3] applied for the next step */
    float *inv_mass, *inv_inertia, *friction; /* [W][B], [W][B][6], [W][B] */
    float *quiet_timer;            /* [W][B] s */
    float *quiet_v;                /* [W][B][3] m/s */
    float *gravity;                /* [W][3] m/s^2 */
    float *contact_f;              /* [W][B][3] N */
    int32_t *island;               /* [W][B] */
    uint8_t *flags, *sleep_state, *body_awake; /* [W][B] */
    uint8_t *faults;               /* [W] */
    int32_t *awake_count, *sleeping_count, *checking_count, *contact_overflow; /* [W] */
    tp_contact *contacts[2];       /* [W][capacity], used alternately (warm starting) */
    tp_contact_ref *contact_refs[2]; /* [W][capacity], beside them: each point's manifold's reference pose
                                      (kernels/contact_cache.h) */
    int32_t *contact_count[2];     /* [W] */
    /* Articulations (kernels/articulation.h); all NULL for a model without joints. */
    const struct tp_artic_model *artic;
    float *joint_q, *joint_qd;     /* [W][nq], [W][nv] */
    float *joint_f, *joint_target_q, *joint_target_qd; /* [W][nv] each */
    char *artic_scratch;           /* [W][artic_scratch_bytes] the articulation stage's scratch */
    size_t artic_scratch_bytes;
    float *ctrl;                   /* [W][nu] actuator controls (kernels/actuator.h); NULL without actuators */
    float *actuator_f;             /* [W][nv] actuator generalised force per dof */
    float *limit_f;                /* [W][nv] joint-limit force per dof */
    float *link_scale;             /* [W][J] mass scale of each link (kernel order) */
    float *link_com;               /* [W][J][3] COM offset of each link, link frame, m (kernel order;
                                      NULL without joints) */
    int link_count;                /* J: links (joints) per world, the row length of link_com */
    float *joint_params;           /* [W][J][3] damping, armature, friction loss per joint (kernel order; NULL:
                                      the model's, as on the CUDA backend) */
    struct tp_artic_actuator *actuator_params; /* [W][nu] each world's actuators (NULL: the model's) */
    /* Constraints between two bodies (kernels/constraint.h); NULL and 0 without any. */
    struct tp_cons_model *cons;       /* [W][C] each world's copy of the model's table */
    struct tp_cons_state *cons_state; /* [W][C] */
    int cons_count;
    /* Movers (kernels/mover.h); NULL and 0 without any. */
    const struct tp_mover_model *movers; /* [M] */
    struct tp_mover_state *mover_state;  /* [W][M] */
    int mover_count;
} tp_layout;

/* The view of world w: pointers to its slice of every array. */
TP_HD tp_world tp_layout_world(const tp_layout *L, int w)
{
    size_t o = (size_t)w * (size_t)L->bodies;
    tp_world wd;
    wd.index = w;
    wd.bodies = L->bodies;
    wd.model = L->model;
    wd.shapes = L->shapes;
    wd.polys = L->polys;
    wd.hulls = L->hulls;
    wd.pos = L->pos + 3 * o;
    wd.quat = L->quat + 4 * o;
    wd.v = L->v + 3 * o;
    wd.w = L->w + 3 * o;
    wd.force = L->force + 3 * o;
    wd.torque = L->torque + 3 * o;
    wd.inv_mass = L->inv_mass + o;
    wd.inv_inertia = L->inv_inertia + 6 * o;
    wd.friction = L->friction + o;
    wd.flags = L->flags + o;
    wd.sleep_state = L->sleep_state + o;
    wd.body_awake = L->body_awake + o;
    wd.quiet_timer = L->quiet_timer + o;
    wd.quiet_v = L->quiet_v + 3 * o;
    wd.contact_f = L->contact_f + 3 * o;
    wd.island = L->island + o;
    wd.solve_sleeping = L->solve_sleeping;
    wd.assembly = L->assembly;
    wd.dt = L->dt;
    for (int k = 0; k < 3; ++k) wd.gravity[k] = L->gravity[3 * w + k];
    wd.cons = L->cons ? L->cons + (size_t)w * (size_t)L->cons_count : NULL;
    wd.cons_state = L->cons_state ? L->cons_state + (size_t)w * (size_t)L->cons_count : NULL;
    wd.cons_count = L->cons_count;
    wd.link_com = L->link_com ? L->link_com + (size_t)w * 3 * (size_t)L->link_count : NULL;
    wd.movers = L->movers;
    wd.mover_state = L->mover_state ? L->mover_state + (size_t)w * (size_t)L->mover_count : NULL;
    wd.mover_count = L->mover_count;
    wd.cache_contacts = NULL;
    wd.cache_refs = NULL;
    wd.cache_count = 0;
    return wd;
}

/* World w's view for a step whose last step wrote contact buffer `current`:
 * tp_layout_world with that buffer as the manifold cache (contact_cache.h)
 * when the batch reuses manifolds. */
TP_HD tp_world tp_layout_world_stepping(const tp_layout *L, int w, int current)
{
    tp_world wd = tp_layout_world(L, w);
    if (!L->reuse_manifolds) return wd;
    size_t cap = (size_t)L->capacity;
    wd.cache_contacts = L->contacts[current] + (size_t)w * cap;
    wd.cache_refs = L->contact_refs[current] + (size_t)w * cap;
    wd.cache_count = L->contact_count[current][w];
    return wd;
}

#endif
