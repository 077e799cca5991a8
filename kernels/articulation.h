/* articulation.h - reduced-coordinate articulations: one world's step of its trees.
 *
 * An articulation is a tree of links; every link is a body of the world (its
 * pose and velocity are published through the body arrays) and is the child of
 * exactly one joint. Joint types: fixed, revolute (hinge, 1 dof), prismatic
 * (slider, 1 dof), ball (spherical: relative quaternion, 3 dofs of relative
 * angular velocity in the child frame) and free (a floating base: origin
 * position and orientation, dofs = centre-of-mass velocity and angular
 * velocity, both world frame). A tree whose root joint is not free has a fixed
 * base (attached to the world).
 *
 * Forward dynamics per substep h (docs/articulations.md):
 *   1. forward kinematics of the links from joint_q;
 *   2. the bias forces C(q, qd) (gravity, Coriolis, centrifugal, applied link
 *      forces) by the recursive Newton-Euler algorithm with qdd = 0, and the
 *      joint-space mass matrix H(q) by the composite-rigid-body algorithm, both
 *      in absolute coordinates (Featherstone, "Rigid Body Dynamics
 *      Algorithms", 2008, sections 5.3 and 6.2);
 *   3. armature, joint damping, passive springs and PD drives are integrated
 *      implicitly as MuJoCo does for damping (Todorov et al. 2012): with
 *      qd+ = qd + h qdd and q+ = q + h qd+,
 *        (H + diag(a + h d + h^2 k)) qdd = tau - C - k (q + h qd - q_ref) - d (qd - qd_ref)
 *      solved by the sparse L^T D L factorisation of a tree's matrix
 *      (Featherstone 2008, 6.5: no fill-in; tp_ltl_factor), so a stiff drive (1e4 N m/rad on
 *      a 1 kg link at dt 1/60 with the default 4 substeps) stays stable. A PD
 *      drive whose force would exceed its max effort is made explicit at
 *      +-max effort and the system is solved again;
 *   4. joint limits, velocity motors and joint friction are velocity rows on
 *      one dof each, solved by projected Gauss-Seidel with the tree's true
 *      response: an impulse p on dof k changes qd by (H~)^-1 e_k p, where H~ is
 *      the matrix of step 3 (so a limit on one joint moves the whole tree);
 *      they are swept with the contact rows of the rigid solver, which reach
 *      the links through the same response (kernels/articulation_contact.h
 *      runs these steps interleaved with the rigid solver's substeps);
 *   5. semi-implicit integration: qd first, then q with the new qd; quaternions
 *      of ball and free joints by q += h/2 (w,0) q (free, world w) or
 *      q += h/2 q (w,0) (ball, child-frame w), normalized;
 *   6. a free-floating tree's base velocity is corrected so that the tree's
 *      spatial momentum equals its value before the substep plus the external
 *      impulse (gravity, applied link forces, joint_f on the free dofs): the
 *      semi-implicit step alone keeps momentum only to O(h^2) per substep.
 *
 * All float32 except H~, its factor and the solves with it (double: long
 * chains cancel float32 to nothing there; docs/articulations.md), +, -, *, /
 * and sqrtf only (sin and cos of joint angles by tp_sin_cos, our own
 * polynomial), fixed loop orders: bitwise repeatable. */
#ifndef TP_ARTICULATION_H
#define TP_ARTICULATION_H

#include "actuator.h"
#include "articulation_spatial.h"
#include "tp_world.h"

/* Joint types (the same numbers as tp_joint_type in torpor.h). */
enum { TP_AJ_FIXED = 0, TP_AJ_REVOLUTE = 1, TP_AJ_PRISMATIC = 2, TP_AJ_BALL = 3, TP_AJ_FREE = 4 };
/* Drive modes of a 1-dof joint (tp_drive_mode). */
enum { TP_AD_NONE = 0, TP_AD_POSITION = 1, TP_AD_VELOCITY = 2 };

/* A limit row's open side (tp_artic_build_rows; tp_artic_limit_row reads it). */
#define TP_ARTIC_OPEN_SIDE 3.0e38f
/* Baumgarte factor for a violated limit: the share of the violation removed per substep. */
#define TP_ARTIC_LIMIT_BETA 0.2f

/* One joint and the link it carries (read-only model data). Units: m, kg,
 * rad; stiffness N m/rad (N/m), damping N m s/rad (N s/m), efforts N m (N). */
typedef struct tp_artic_joint {
    int32_t type, parent, body;         /* parent: joint (= link) index, or -1 for the world */
    int32_t q_start, v_start, nq, nv;   /* slices of joint_q / joint_qd of a world */
    float axis[3];                      /* unit, child frame (revolute, prismatic) */
    float parent_anchor[3];             /* joint point in the parent body frame (world frame for -1) */
    float child_anchor[3];              /* joint point in the child body frame */
    float rel_quat[4];                  /* child orientation in the parent frame at q = 0 */
    int32_t has_limits, drive;
    float lower, upper;                 /* rad or m, lower <= upper */
    float damping, friction, armature;  /* per dof */
    float stiffness, rest;              /* passive spring */
    float kp, kd, max_effort;           /* drive gains; max_effort > 0 (3e38 = unlimited) */
    float mass, com[3], inertia[6];     /* link mass properties, body frame (from its shape) */
} tp_artic_joint;

/* One tree: joints [first, end) in topological order (parent before child),
 * dofs [v_start, v_start + nv). */
typedef struct tp_artic_tree { int32_t first, end, v_start, nv, free_root; } tp_artic_tree;

typedef struct tp_artic_model {
    int joint_count, tree_count, nq, nv, max_tree_nv, iterations;
    int point_capacity;            /* contact points with a link side per world (a batch's copy sets it) */
    const tp_artic_joint *joints;  /* [joint_count] */
    const tp_artic_tree *trees;    /* [tree_count] */
    int actuator_count;            /* nu */
    const tp_artic_actuator *actuators; /* [actuator_count] (kernels/actuator.h) */
} tp_artic_model;

/* One world's articulation state. */
typedef struct tp_artic_world {
    float *q;          /* [nq]  joint_q: rad, m, quaternions [x y z w]; free: origin (m) then quaternion */
    float *qd;         /* [nv]  joint_qd: rad/s, m/s; free: COM velocity then angular velocity, world frame */
    float *f;          /* [nv]  joint_f: N m or N, applied for one step; free: force then torque, world */
    float *target_q;   /* [nv]  PD drive target position (1-dof joints) */
    float *target_qd;  /* [nv]  PD drive target velocity / velocity motor target */
    const float *force, *torque; /* [bodies][3] the world's applied forces (N, at the COM) and torques
                                    (N m), world frame; the links' entries act on the tree */
    const float *ctrl; /* [nu] actuator controls, held until written (NULL without actuators) */
    float *act_f;      /* [nv] actuator generalised force per dof in the last substep (NULL: not kept) */
    float *limit_f;    /* [nv] joint-limit force per dof in the last substep (NULL: not kept) */
    const float *link_scale; /* [J] mass scale of each link (kernel order): its mass and inertia times it; NULL = 1 */
    const float *link_com;   /* [J][3] COM offset of each link (kernel order), link frame, m: added to
                                tp_artic_joint.com (the inertia about the COM stays the model's); NULL = 0 */
    const float *joint_params; /* [J][TP_AJP_COUNT] the world's damping, armature and friction loss per joint
                                  (kernel order; randomized or written per world); NULL = the model's */
    const tp_artic_actuator *actuators; /* [nu] the world's actuators (gear and gains per world); NULL = the model's */
} tp_artic_world;

/* Columns of tp_artic_world.joint_params: per joint (each of its dofs). */
enum { TP_AJP_DAMPING = 0, TP_AJP_ARMATURE = 1, TP_AJP_FRICTION = 2, TP_AJP_COUNT = 3 };

/* World w's slice of the batch's joint arrays ([W][nq], [W][nv]). */
TP_HD tp_artic_world tp_artic_world_at(const tp_artic_model *m, float *q, float *qd, float *f, float *target_q,
                                       float *target_qd, int w)
{
    size_t nq = (size_t)m->nq, nv = (size_t)m->nv;
    tp_artic_world s;
    s.q = q + (size_t)w * nq;
    s.qd = qd + (size_t)w * nv;
    s.f = f + (size_t)w * nv;
    s.target_q = target_q + (size_t)w * nv;
    s.target_qd = target_qd + (size_t)w * nv;
    s.force = NULL;
    s.torque = NULL;
    s.ctrl = NULL;
    s.act_f = NULL;
    s.limit_f = NULL;
    s.link_scale = NULL;
    s.link_com = NULL;
    s.joint_params = NULL;
    s.actuators = NULL;
    return s;
}

/* World w's slices of the batch's actuator and joint-force arrays: ctrl [W][nu],
 * act_f and limit_f [W][nv] (any may be NULL). */
TP_HD void tp_artic_world_actuators(const tp_artic_model *m, tp_artic_world *s, const float *ctrl, float *act_f,
                                    float *limit_f, int w)
{
    s->ctrl = ctrl ? ctrl + (size_t)w * (size_t)m->actuator_count : NULL;
    s->act_f = act_f ? act_f + (size_t)w * (size_t)m->nv : NULL;
    s->limit_f = limit_f ? limit_f + (size_t)w * (size_t)m->nv : NULL;
}

/* World w's slice of the links' mass scales [W][J] (NULL: all 1). */
TP_HD void tp_artic_world_link_scales(const tp_artic_model *m, tp_artic_world *s, const float *link_scale, int w)
{
    s->link_scale = link_scale ? link_scale + (size_t)w * (size_t)m->joint_count : NULL;
}

/* World w's slice of the links' COM offsets [W][J][3] (NULL: all 0). */
TP_HD void tp_artic_world_link_coms(const tp_artic_model *m, tp_artic_world *s, const float *link_com, int w)
{
    s->link_com = link_com ? link_com + (size_t)w * 3 * (size_t)m->joint_count : NULL;
}

/* World w's slices of the per-world robot parameters: joint_params
 * [W][J][TP_AJP_COUNT] and actuators [W][nu] (either may be NULL: the model's). */
TP_HD void tp_artic_world_params(const tp_artic_model *m, tp_artic_world *s, const float *joint_params,
                                 const tp_artic_actuator *actuators, int w)
{
    s->joint_params = joint_params ? joint_params + (size_t)w * (size_t)m->joint_count * TP_AJP_COUNT : NULL;
    s->actuators = actuators ? actuators + (size_t)w * (size_t)m->actuator_count : NULL;
}

/* Joint i's (kernel order) damping, armature or friction loss (TP_AJP_*) in world s. */
TP_HD float tp_artic_joint_param(const tp_artic_model *m, const tp_artic_world *s, int i, int which)
{
    if (s->joint_params) return s->joint_params[TP_AJP_COUNT * i + which];
    const tp_artic_joint *j = &m->joints[i];
    return which == TP_AJP_DAMPING ? j->damping : which == TP_AJP_ARMATURE ? j->armature : j->friction;
}

/* The actuators of world s: its own table, or the model's. */
TP_HD const tp_artic_actuator *tp_artic_world_actuator_table(const tp_artic_model *m, const tp_artic_world *s)
{
    return s->actuators ? s->actuators : m->actuators;
}

/* One contact point with an articulation link on one side or both
 * (kernels/articulation_contact.h). Side 0 is the point's body_a, side 1
 * body_b; a side's tree is -1 when that body is no link (a rigid body, static
 * or dynamic). Two links of one tree: both sides merged into side 0. */
typedef struct tp_artic_point {
    int32_t tree[2], link[2];   /* tree index and joint (kernel order) per side, or -1 */
    int32_t merged;             /* both links in one tree: tree[1] = -1, side 0 holds j_b - j_a */
    int32_t chain[2];           /* per side: the tree-local dof whose root path holds the Jacobian's
                                   non-zeros (-1: none), or -2: dense (merged) */
    float k_rigid[3];           /* the rigid sides' share of the inverse effective mass, n, t1, t2 (1/kg) */
    float mass[3];              /* effective masses of the rows n, t1, t2 this substep (kg) */
} tp_artic_point;

/* Views of one world's scratch (sized by the model, the contact capacity and
 * the link-point capacity m->point_capacity: only contact points with a link
 * side keep Jacobians, in slots given in contact order).
 * Per tree (x->s, x->h point into s_all, h_all at the tree's slice): the
 * kinematics; per world: what the contact solve of a step needs of every tree
 * at once. */
typedef struct tp_artic_scratch {
    float *lq, *lp, *lc;        /* [J][4] link quaternion, [J][3] origin, [J][3] COM relative to O */
    float *lv, *la, *lf;        /* [J][6] spatial velocity, bias acceleration, force */
    tp_sinertia *li;            /* [J] link inertias about O */
    tp_sinertia_d *lid, *lic;   /* [J] the same in double, and composite inertias (for H) */
    float *s_all;               /* [nv][6] motion subspace columns of every tree */
    double *h_all;              /* [sum over trees of nv_t^2] each tree's factor of H~ (tp_ltl_factor:
                                   only the entries of dof pairs on one root path are used) */
    float *s;                   /* the current tree's slice of s_all */
    double *h;                  /* the current tree's slice of h_all */
    const int32_t *par;         /* the current tree's slice of dof_parent */
    float *rhs_all, *qdd_all;   /* [nv] each; rhs, qdd: the current tree's slices (tree-local dofs) */
    float *rhs, *qdd, *tmp;     /* the current tree's slices of rhs_all, qdd_all, tmp_all */
    float *tmp_all;             /* [nv] (global dofs) */
    float *qd_free, *push_qd;   /* [nv] qd before the rows of a substep; pseudo velocities (split impulse) */
    float *qd_note;             /* [2 nv] qd and push_qd as noted before a checked sweep (tp_sweeps_moved) */
    float *o, *target;          /* [trees][3] reference point of the step; [trees][6] momentum target */
    int32_t *h_start;           /* [trees] offsets into h_all */
    int32_t *dof_parent;        /* [nv] tree-local parent dof (the dof before it on its root path), -1 at a root */
    int32_t *link_dof;          /* [J] tree-local last dof on link i's root path (its own or an ancestor's), -1 if none */
    int32_t *row_start, *row_end; /* [trees] each: tree t's joint rows are [row_start, row_end), from 3 v_start
                                     (at most 3 per dof), so trees build and sweep them apart */
    float *cols;                /* [3 nv][max_nv] response columns of the joint rows */
    int32_t *row_dof;           /* [3 nv] tree-local dof */
    float *row_target, *row_lo, *row_hi, *row_lambda; /* [3 nv] */
    float *row_push;            /* [3 nv] a limit row's impulse on the pseudo velocities (split impulse) */
    uint8_t *saturated_all;     /* [nv] PD drives made explicit at +-max effort (1 above, 2 below) */
    uint8_t *saturated;         /* the current tree's slice of saturated_all */
    uint8_t *act_sat;           /* [nu] actuators made explicit at a force_range bound (1 upper, 2 lower) */
    int capacity;               /* contact points */
    int32_t *slot;              /* [capacity] per contact point (sorted order): its link point, or -1 */
    int points, used, overflow; /* link points: capacity (m->point_capacity), used and dropped this step */
    const float *link_scale;    /* [J] the world's link mass scales (tp_artic_world.link_scale), NULL = 1 */
    const float *link_com;      /* [J][3] the world's link COM offsets (tp_artic_world.link_com), NULL = 0 */
    tp_artic_point *pts;        /* [points] per link point */
    float *jac, *resp;          /* [points][3 rows][max_nv] a point's first link side: signed Jacobians, H~^-1 J^T */
    float *jac1, *resp1;        /* the same for side 1 of a point between links of two trees; a point
                                   with one link side keeps it in jac, resp (tp_artic_rows_at) */
} tp_artic_scratch;

TP_HD size_t tp_artic_align(size_t n) { return (n + 15u) & ~(size_t)15u; }

/* The parts of the scratch, in order: (count, element size). */
#define TP_ARTIC_SCRATCH_PARTS(X, J, n, V, T, C, P, P1, U)                                                                   \
    X(lq, float, J * 10)                                                                                             \
    X(lv, float, J * 18)                                                                                             \
    X(li, tp_sinertia, J)                                                                                            \
    X(lid, tp_sinertia_d, 2 * J)                                                                                     \
    X(s_all, float, V * 6)                                                                                           \
    X(h_all, double, V * n)                                                                                          \
    X(rhs_all, float, 7 * V)                                                                                         \
    X(o, float, 9 * T)                                                                                               \
    X(h_start, int32_t, 3 * T)                                                                                       \
    X(dof_parent, int32_t, V + J)                                                                                    \
    X(cols, float, 3 * V * n)                                                                                        \
    X(row_dof, int32_t, 3 * V)                                                                                       \
    X(row_target, float, 15 * V)                                                                                     \
    X(saturated_all, uint8_t, V + U)                                                                                 \
    X(slot, int32_t, C)                                                                                              \
    X(pts, tp_artic_point, P)                                                                                        \
    X(jac, float, 6 * (P + P1) * n)

/* Link points that may need rows for two link sides: every one with
 * several trees, none with one (a point between two links of one tree keeps
 * one Jacobian, and a single link side, either one, uses the first arrays:
 * tp_artic_rows_at). */
TP_HD size_t tp_artic_side1_points(const tp_artic_model *m)
{
    return m->tree_count > 1 ? (size_t)m->point_capacity : 0;
}

TP_HD size_t tp_artic_scratch_bytes(const tp_artic_model *m, int capacity)
{
    size_t J = (size_t)m->joint_count, n = (size_t)(m->max_tree_nv > 0 ? m->max_tree_nv : 1);
    size_t V = (size_t)(m->nv > 0 ? m->nv : 1), T = (size_t)m->tree_count, C = (size_t)capacity, bytes = 0;
    size_t P = (size_t)m->point_capacity, U = (size_t)m->actuator_count;
#define TP_ARTIC_PART_BYTES(name, type, count) bytes += tp_artic_align((count) * sizeof(type));
    TP_ARTIC_SCRATCH_PARTS(TP_ARTIC_PART_BYTES, J, n, V, T, C, P, tp_artic_side1_points(m), U)
#undef TP_ARTIC_PART_BYTES
    return bytes;
}

TP_HD tp_artic_scratch tp_artic_scratch_at(void *mem, const tp_artic_model *m, int capacity)
{
    size_t J = (size_t)m->joint_count, n = (size_t)(m->max_tree_nv > 0 ? m->max_tree_nv : 1);
    size_t V = (size_t)(m->nv > 0 ? m->nv : 1), T = (size_t)m->tree_count, C = (size_t)capacity;
    size_t P = (size_t)m->point_capacity, U = (size_t)m->actuator_count;
    char *p = (char *)mem;
    tp_artic_scratch x;
#define TP_ARTIC_PART_AT(name, type, count)                                                                            \
    x.name = (type *)p;                                                                                                \
    p += tp_artic_align((count) * sizeof(type));
    TP_ARTIC_SCRATCH_PARTS(TP_ARTIC_PART_AT, J, n, V, T, C, P, tp_artic_side1_points(m), U)
#undef TP_ARTIC_PART_AT
    x.lp = x.lq + 4 * J; x.lc = x.lp + 3 * J;
    x.la = x.lv + 6 * J; x.lf = x.la + 6 * J;
    x.lic = x.lid + J;
    x.qdd_all = x.rhs_all + V; x.tmp_all = x.qdd_all + V; x.qd_free = x.tmp_all + V; x.push_qd = x.qd_free + V;
    x.qd_note = x.push_qd + V;
    x.target = x.o + 3 * T;
    x.row_start = x.h_start + T; x.row_end = x.row_start + T;
    x.row_lo = x.row_target + 3 * V; x.row_hi = x.row_lo + 3 * V; x.row_lambda = x.row_hi + 3 * V;
    x.row_push = x.row_lambda + 3 * V;
    x.resp = x.jac + 3 * P * n;
    x.jac1 = x.resp + 3 * P * n;
    x.resp1 = x.jac1 + 3 * tp_artic_side1_points(m) * n;
    x.link_dof = x.dof_parent + V;
    x.act_sat = x.saturated_all + V;
    x.capacity = capacity;
    x.points = m->point_capacity;
    x.used = 0;
    x.overflow = 0;
    x.link_scale = NULL;
    x.link_com = NULL;
    int32_t at = 0;
    for (int t = 0; t < m->tree_count; ++t) {
        const tp_artic_tree *tr = &m->trees[t];
        x.h_start[t] = at;
        at += tr->nv * tr->nv;
        x.row_start[t] = 3 * tr->v_start; /* row_end: set by each substep's velocity phase */
        /* the tree's dof structure for the sparse factor (joints and dofs are in topological order) */
        for (int i = tr->first; i < tr->end; ++i) {
            const tp_artic_joint *j = &m->joints[i];
            int up = j->parent >= 0 ? x.link_dof[j->parent] : -1, d0 = j->v_start - tr->v_start;
            for (int k = 0; k < j->nv; ++k) x.dof_parent[tr->v_start + d0 + k] = k == 0 ? up : d0 + k - 1;
            x.link_dof[i] = j->nv > 0 ? d0 + j->nv - 1 : up;
        }
    }
    x.s = x.s_all;
    x.h = x.h_all;
    x.par = x.dof_parent;
    x.rhs = x.rhs_all;
    x.qdd = x.qdd_all;
    x.tmp = x.tmp_all;
    x.saturated = x.saturated_all;
    return x;
}

/* Point x's per-tree views at tree t's slices. Trees share no scratch but
 * the link points, so a group's lanes may step different trees at once. */
TP_HD void tp_artic_use_tree(const tp_artic_model *m, tp_artic_scratch *x, int t)
{
    int v0 = m->trees[t].v_start;
    x->s = x->s_all + 6 * v0;
    x->h = x->h_all + x->h_start[t];
    x->par = x->dof_parent + v0;
    x->rhs = x->rhs_all + v0;
    x->qdd = x->qdd_all + v0;
    x->tmp = x->tmp_all + v0;
    x->saturated = x->saturated_all + v0;
}

/* ---------------------------------------------------------------- kinematics */

/* Reference point O of a tree for one step: the free base's origin, or the
 * root joint's anchor in the world (fixed base). Keeps spatial quantities
 * small in float32 wherever the robot is. */
TP_HD tp_vec3 tp_artic_reference(const tp_artic_model *m, const tp_artic_tree *tr, const float *q)
{
    const tp_artic_joint *j = &m->joints[tr->first];
    if (j->type == TP_AJ_FREE) return tp_v3_load(q + j->q_start);
    return tp_v3_load(j->parent_anchor);
}

/* Pose of link i from its parent's pose and its joint coordinates; also the
 * joint point in the world (*anchor; the free joint: its origin). */
TP_HD void tp_artic_link_pose(const tp_artic_joint *j, tp_quat pq, tp_vec3 pp, const float *q, tp_quat *cq, tp_vec3 *cp,
                              tp_vec3 *anchor_out)
{
    if (j->type == TP_AJ_FREE) {
        *cp = tp_v3_load(q);
        *cq = tp_q_normalize(tp_q_load(q + 3));
        *anchor_out = *cp;
        return;
    }
    tp_quat base = tp_q_mul(pq, tp_q_load(j->rel_quat));
    tp_vec3 anchor = tp_add(pp, tp_q_rotate(pq, tp_v3_load(j->parent_anchor)));
    tp_quat c = base;
    if (j->type == TP_AJ_REVOLUTE) c = tp_q_mul(base, tp_q_axis_angle(tp_v3_load(j->axis), q[0]));
    else if (j->type == TP_AJ_BALL) c = tp_q_mul(base, tp_q_normalize(tp_q_load(q)));
    else if (j->type == TP_AJ_PRISMATIC) anchor = tp_mad(anchor, tp_q_rotate(base, tp_v3_load(j->axis)), q[0]);
    *cq = c;
    *cp = tp_sub(anchor, tp_q_rotate(c, tp_v3_load(j->child_anchor)));
    *anchor_out = anchor;
}

/* Link i's centre of mass in its frame (m): the model's plus the world's
 * offset (link_com [J][3], NULL = none). */
TP_HD tp_vec3 tp_artic_com_local(const tp_artic_joint *j, const float *link_com, int i)
{
    tp_vec3 c = tp_v3_load(j->com);
    return link_com ? tp_add(c, tp_v3_load(link_com + 3 * i)) : c;
}

/* Forward kinematics of a tree: link poses, COMs relative to O, motion
 * subspace columns (world frame, about O) and link inertias about O. The
 * link's rotation matrix serves every body-frame vector and the inertia. */
TP_HD void tp_artic_fk(const tp_artic_model *m, const tp_artic_tree *tr, const float *q, tp_vec3 o, tp_artic_scratch *x)
{
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        tp_quat pq = tp_q_identity();
        tp_vec3 pp = tp_v3(0.0f, 0.0f, 0.0f);
        if (j->parent >= 0) { pq = tp_q_load(x->lq + 4 * j->parent); pp = tp_v3_load(x->lp + 3 * j->parent); }
        tp_quat cq;
        tp_vec3 cp, anchor;
        tp_artic_link_pose(j, pq, pp, q + j->q_start, &cq, &cp, &anchor);
        tp_q_store(x->lq + 4 * i, cq);
        tp_v3_store(x->lp + 3 * i, cp);
        tp_mat3 r = tp_q_to_mat3(cq);
        tp_vec3 c = tp_sub(tp_add(cp, tp_m3_mul_v(r, tp_artic_com_local(j, x->link_com, i))), o);
        tp_v3_store(x->lc + 3 * i, c);
        float ic[6], scale = x->link_scale ? x->link_scale[i] : 1.0f;
        tp_sym_rotate_m(r, j->inertia, ic);
        for (int k = 0; k < 6; ++k) ic[k] *= scale;
        x->li[i] = tp_si_body(j->mass * scale, c, ic);
        x->lid[i] = tp_si_body_d(j->mass * scale, c, ic);
        tp_vec3 jp = tp_sub(anchor, o); /* joint point relative to O */
        float *s = x->s + 6 * (j->v_start - tr->v_start);
        if (j->type == TP_AJ_REVOLUTE) {
            tp_vec3 a = tp_m3_mul_v(r, tp_v3_load(j->axis));
            tp_sv_store(s, tp_sv(a, tp_cross(jp, a)));
        } else if (j->type == TP_AJ_PRISMATIC) {
            tp_sv_store(s, tp_sv(tp_v3(0.0f, 0.0f, 0.0f), tp_m3_mul_v(r, tp_v3_load(j->axis))));
        } else if (j->type == TP_AJ_BALL) {
            for (int k = 0; k < 3; ++k) {
                tp_vec3 e = tp_m3_col(r, k);
                tp_sv_store(s + 6 * k, tp_sv(e, tp_cross(jp, e)));
            }
        } else if (j->type == TP_AJ_FREE) {
            for (int k = 0; k < 3; ++k) {
                tp_vec3 e = tp_v3(k == 0, k == 1, k == 2);
                tp_sv_store(s + 6 * k, tp_sv(tp_v3(0.0f, 0.0f, 0.0f), e));
                tp_sv_store(s + 6 * (3 + k), tp_sv(e, tp_cross(c, e)));
            }
        }
    }
}

/* Link velocities v_i = v_parent + S_i qd_i and bias accelerations
 * a_i = a_parent + v_i x S_i qd_i (qdd = 0), with the world's acceleration
 * -g at the root so that I a carries gravity (Featherstone 2008, 5.3). */
TP_HD void tp_artic_motion(const tp_artic_model *m, const tp_artic_tree *tr, const float *qd, tp_vec3 g, tp_artic_scratch *x)
{
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        tp_svec vp = tp_sv_zero(), ap = tp_sv(tp_v3(0.0f, 0.0f, 0.0f), tp_neg(g));
        if (j->parent >= 0) { vp = tp_sv_load(x->lv + 6 * j->parent); ap = tp_sv_load(x->la + 6 * j->parent); }
        tp_svec sq = tp_sv_zero();
        const float *s = x->s + 6 * (j->v_start - tr->v_start);
        for (int k = 0; k < j->nv; ++k) sq = tp_sv_add(sq, tp_sv_scale(tp_sv_load(s + 6 * k), qd[j->v_start + k]));
        tp_svec v = tp_sv_add(vp, sq);
        tp_svec c;
        if (j->type == TP_AJ_FREE) /* columns fixed in the world, moving with the COM */
            c = tp_sv(tp_v3(0.0f, 0.0f, 0.0f), tp_cross(tp_v3_load(qd + j->v_start), tp_v3_load(qd + j->v_start + 3)));
        else /* columns fixed in the child link: dS/dt = v x S */
            c = tp_sv_crm(v, sq);
        tp_sv_store(x->lv + 6 * i, v);
        tp_sv_store(x->la + 6 * i, tp_sv_add(ap, c));
    }
}

/* Link velocities only (tp_artic_motion without the bias accelerations):
 * what publishing and the momentum need. */
TP_HD void tp_artic_velocities(const tp_artic_model *m, const tp_artic_tree *tr, const float *qd, tp_artic_scratch *x)
{
    for (int i = tr->first; i < tr->end; ++i) {
        const tp_artic_joint *j = &m->joints[i];
        tp_svec v = j->parent >= 0 ? tp_sv_load(x->lv + 6 * j->parent) : tp_sv_zero();
        const float *s = x->s + 6 * (j->v_start - tr->v_start);
        tp_svec sq = tp_sv_zero();
        for (int k = 0; k < j->nv; ++k) sq = tp_sv_add(sq, tp_sv_scale(tp_sv_load(s + 6 * k), qd[j->v_start + k]));
        tp_sv_store(x->lv + 6 * i, tp_sv_add(v, sq));
    }
}

/* Spatial momentum of a tree about O (h_O, p). */
TP_HD tp_svec tp_artic_momentum(const tp_artic_tree *tr, const tp_artic_scratch *x)
{
    tp_svec p = tp_sv_zero();
    for (int i = tr->first; i < tr->end; ++i) p = tp_sv_add(p, tp_si_mul(&x->li[i], tp_sv_load(x->lv + 6 * i)));
    return p;
}

/* Applied spatial force on link i about O: its body's force at the COM and torque. */
TP_HD tp_svec tp_artic_ext_force(const tp_artic_model *m, const tp_artic_world *s, const tp_artic_scratch *x, int i)
{
    int b = m->joints[i].body;
    tp_vec3 f = tp_v3_load(s->force + 3 * b), t = tp_v3_load(s->torque + 3 * b);
    return tp_sv(tp_add(t, tp_cross(tp_v3_load(x->lc + 3 * i), f)), f);
}

#include "articulation_dynamics.h"

#endif
