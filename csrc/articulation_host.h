/* articulation_host.h - host side of articulations: the joints a builder
 * collects, the compiled articulation of a model, and a batch's joint arrays.
 * The per-world step is kernels/articulation.h. */
#ifndef TP_ARTICULATION_HOST_H
#define TP_ARTICULATION_HOST_H

#include "articulation.h"
#include "articulation_reset.h"
#include "philox.h"
#include "torpor.h"

#include <stddef.h>

/* Joints added to a builder so far (names copied). */
typedef struct tp_artic_builder {
    tp_joint_def *defs;
    char **names;
    int count, capacity;
    tp_actuator_def *act_defs; /* actuators added so far (csrc/actuator_model.c), names copied */
    int act_count, act_capacity;
} tp_artic_builder;

/* The compiled articulations of a model. Kernel order (tree by tree, parents
 * first) differs from the order joints were added in; `order` maps one to the other. */
typedef struct tp_artic_host {
    tp_artic_model km;
    tp_artic_joint *joints;   /* [J] kernel order */
    tp_artic_tree *trees;
    int *kernel_of;           /* [J] added joint -> kernel index */
    int32_t *added_of;        /* [J] kernel index -> added joint (the key of its draws) */
    tp_joint_def *defs;       /* [J] as added, names point into names */
    char **names;             /* [J] */
    char **dof_names;         /* [nv] */
    float *q0, *qd0, *target_q0, *target_qd0; /* initial arrays of a world: [nq], [nv], [nv], [nv] */
    tp_artic_actuator *actuators; /* [nu] as added (km.actuators points here) */
    tp_actuator_def *act_defs;    /* [nu] as added, names owned */
    int32_t *act_type;            /* [nu] each actuator's type (tp_actuator_type), as the reset's draws read it */
} tp_artic_host;

/* Per-field check of one joint against a model of body_count bodies; on
 * failure writes the field ("axis", "lower") and the reason, returns 0. */
int tp_joint_def_check(const tp_joint_def *def, int body_count, char *field, size_t field_len, char *reason,
                       size_t reason_len);
/* Tree check of all joints (bodies as defined): one parent joint per child, a
 * parent that is the world or a link, no loops, free joints only at a root,
 * children dynamic. On failure *joint is the joint at fault. */
int tp_joint_tree_check(const tp_joint_def *defs, int count, const tp_body_def *bodies, int body_count, int *joint,
                        char *field, size_t field_len, char *reason, size_t reason_len);

/* Index (as added) of the joint among defs[count] whose child is `body`, or -1. */
int tp_joint_of_child(const tp_joint_def *defs, int count, int body);
/* The same for a built model: the joint whose link `body` is, or -1. */
int tp_model_link_joint(const struct tp_model *m, int body);
/* Scripted events that would set a link's pose or velocity, give it an
 * impulse or remove it: refused on links, whose motion follows joint_q and
 * joint_qd (forces, wake and sleep act on them). */
int tp_event_refused_on_link(tp_event_action action);
/* Why a write of `what` cannot act on link `body` of joints[joint]: into reason. */
void tp_link_write_reason(char *reason, size_t reason_len, int body, const char *body_name, int joint,
                          const char *joint_name);

tp_status tp_artic_builder_add(tp_artic_builder *ab, int body_count, const tp_joint_def *def, int *out_index);
void tp_artic_builder_free(tp_artic_builder *ab);

/* Actuators (csrc/actuator_model.c): per-field check of one definition
 * against the joints added so far (writes field and reason, returns 0 on
 * failure); add one to a builder; compile the builder's actuators into h
 * (after its joints: needs h->kernel_of and h->joints); free them. */
int tp_actuator_def_check(const tp_actuator_def *def, const tp_joint_def *joints, int joint_count, char *field,
                          size_t field_len, char *reason, size_t reason_len);
tp_status tp_actuator_builder_add(tp_artic_builder *ab, const tp_actuator_def *def, int *out_index);
int tp_actuator_compile(const tp_artic_builder *ab, tp_artic_host *h);
void tp_actuator_builder_free(tp_artic_builder *ab);
void tp_actuator_host_free(tp_artic_host *h);

/* Compile the builder's joints into m->artic (NULL when there are none) and
 * turn every link into a kinematic body of the rigid pipeline (it is moved by
 * the articulation step only). Needs m->bodies, m->body_defs and m->body_init. */
tp_status tp_artic_compile(const tp_artic_builder *ab, struct tp_model *m, int solver_iterations);
void tp_artic_host_free(tp_artic_host *h);

/* A batch's joint arrays, [W][nq] / [W][nv], and the articulation stage's
 * scratch, one block per CPU thread [threads][scratch_bytes] (a world's solve
 * writes before it reads, as with the step scratch; the CUDA backend gives
 * every world a device block). The batch's layout points at the arrays. */
typedef struct tp_artic_batch {
    tp_artic_model km; /* the model's, with this batch's link-point capacity (the layout points here) */
    float *q, *qd, *f, *target_q, *target_qd;
    float *ctrl, *act_f; /* [W][nu] controls, [W][nv] actuator force per dof (csrc/articulation_world.c) */
    float *limit_f;      /* [W][nv] joint-limit force per dof (csrc/articulation_world.c) */
    float *link_scale;   /* [W][J] mass scale of each link, kernel order (csrc/articulation_world.c) */
    float *link_com;     /* [W][J][3] COM offset of each link, link frame, m, kernel order (csrc/link_coms.c) */
    float *joint_params; /* [W][J][TP_AJP_COUNT] damping, armature, friction loss, kernel order
                            (csrc/robot_params.c) */
    tp_artic_actuator *actuator_params; /* [W][nu] each world's actuators */
    char *scratch;
    size_t scratch_bytes;
} tp_artic_batch;

struct tp_batch;
/* Allocate the joint arrays of a batch whose model has joints and add them
 * to the batch's layout (the CUDA backend gives each a device twin,
 * mirrored with the bodies' group). */
tp_status tp_artic_batch_create(struct tp_batch *b);
void tp_artic_batch_destroy(struct tp_batch *b);
/* Host bytes per world of the joint arrays (0 without joints). */
size_t tp_artic_batch_bytes_per_world(const struct tp_batch *b);
/* Host bytes of the articulation scratch, all threads' blocks (0 without joints). */
size_t tp_artic_batch_shared_bytes(const struct tp_batch *b);
/* CPU thread t's articulation scratch block (publish and impulses outside a step use thread 0's). */
char *tp_artic_batch_scratch(struct tp_batch *b, int t);
/* World w's joints at their initial values, links published. */
void tp_artic_batch_init_world(struct tp_batch *b, int w);
tp_artic_world tp_artic_batch_world(struct tp_batch *b, int w);
/* Links of world w where (q, qd) put them (with thread 0's scratch: not during a step). */
void tp_artic_batch_publish(struct tp_batch *b, int w);
/* An impulse p (N s, world) at world point `point` (m; NULL: the centre of
 * mass) plus an angular impulse L (N m s, world; NULL: none) on link `body`
 * of world w acts on its tree at once: joint_qd += H^-1 J^T (L + r x p, p)
 * (kernels/articulation_impulse.h), links published. Wakes nothing. */
void tp_artic_batch_impulse(struct tp_batch *b, int w, int body, const float p[3], const float point[3],
                            const float L[3]);
/* Per-world robot randomization (csrc/robot_randomize.c): the initial joint
 * arrays of b's model with b's robot randomization (the reset's input on
 * both backends, kernels/articulation_reset.h; its draws are
 * kernels/robot_randomize.h's tp_robot_philox). */
tp_artic_initial tp_artic_batch_initial(const struct tp_batch *b);

/* The check of tp_batch_set_joint_arrays alone (nothing written): the
 * selection and every given array. */
tp_status tp_artic_check_joint_arrays(struct tp_batch *b, const tp_world_select *s,
                                      const float *const values[TP_JOINT_ARRAY_COUNT], const char *call);

#endif
