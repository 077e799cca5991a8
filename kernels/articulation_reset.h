/* articulation_reset.h - a world's joints and actuators as a fresh world
 * starts them.
 *
 * Written once for both backends: tp_artic_batch_init_world
 * (csrc/articulation_batch.c) calls tp_artic_reset_in_layout at creation and
 * reset, and so does the CUDA reset kernel (kernels/cuda/stages.cu) on one
 * thread of the world's block after the bodies are drawn. The robot
 * randomization's draws (kernels/robot_randomize.h) are the same on both. */
#ifndef TP_ARTICULATION_RESET_H
#define TP_ARTICULATION_RESET_H

#include "articulation.h"
#include "layout.h"
#include "robot_randomize.h"

/* The initial joint arrays of a reset: q0 [nq], qd0 [nv] (the model's, or a
 * keyframe's), target_q0 [nv], target_qd0 [nv] (joint_f starts at 0), the
 * controls ctrl0 [nu] (NULL: 0), and the batch's robot randomization. */
typedef struct tp_artic_initial {
    const float *q0, *qd0, *target_q0, *target_qd0;
    const float *ctrl0;
    tp_robot_randomize robot;
} tp_artic_initial;

/* World w's joint arrays (s, world w's view) at their initial values, its
 * controls (row w of ctrl [W][nu], NULL without actuators) at ctrl0, actuator and
 * limit forces at 0, its link mass scales (row w of link_scale [W][J]) at
 * 1 and its link COM offsets (row w of link_com [W][J][3]) at 0. The links
 * are not moved. */
TP_HD void tp_artic_world_start(const tp_artic_model *m, const tp_artic_initial *init, tp_artic_world *s,
                                float *ctrl, float *link_scale, float *link_com, int w)
{
    for (int k = 0; k < m->nq; ++k) s->q[k] = init->q0[k];
    for (int k = 0; k < m->nv; ++k) {
        s->qd[k] = init->qd0[k];
        s->f[k] = 0.0f;
        s->target_q[k] = init->target_q0[k];
        s->target_qd[k] = init->target_qd0[k];
        if (s->act_f) s->act_f[k] = 0.0f;
        if (s->limit_f) s->limit_f[k] = 0.0f;
    }
    if (ctrl)
        for (int k = 0; k < m->actuator_count; ++k)
            ctrl[(size_t)w * (size_t)m->actuator_count + (size_t)k] = init->ctrl0 ? init->ctrl0[k] : 0.0f;
    if (link_scale)
        for (int k = 0; k < m->joint_count; ++k) link_scale[(size_t)w * (size_t)m->joint_count + (size_t)k] = 1.0f;
    if (link_com)
        for (int k = 0; k < 3 * m->joint_count; ++k) link_com[(size_t)w * 3 * (size_t)m->joint_count + (size_t)k] = 0.0f;
}

/* World w started (tp_artic_world_start), its robot randomization of
 * episode `episode` drawn (joint noise, link mass scales, link COM offsets:
 * s->link_com is row w of link_com) and its links placed where the joints
 * put them (tp_artic_world_publish, with the world's scratch). */
TP_HD void tp_artic_world_reset(const tp_artic_model *m, const tp_artic_initial *init, tp_artic_world *s,
                                float *ctrl, float *link_scale, float *link_com, int w, uint32_t episode, tp_world *wd,
                                void *scratch)
{
    tp_artic_world_start(m, init, s, ctrl, link_scale, link_com, w);
    if (link_scale)
        tp_robot_randomize_world_draws(m, &init->robot, s, link_scale + (size_t)w * (size_t)m->joint_count,
                                       link_com ? link_com + (size_t)w * 3 * (size_t)m->joint_count : NULL, w, episode);
    tp_artic_world_publish(m, s, wd, scratch);
}

/* The reset of world w's joints, actuators and robot parameters in the
 * arrays of layout L (wd: the world's view, bodies already drawn; scratch:
 * an articulation scratch block, tp_artic_scratch_bytes): what both
 * backends run, the CUDA reset kernel on one thread of the world's block. */
TP_HD void tp_artic_reset_in_layout(const tp_layout *L, const tp_artic_initial *init, int w, uint32_t episode, tp_world *wd,
                                    void *scratch)
{
    tp_artic_world s = tp_artic_world_at(L->artic, L->joint_q, L->joint_qd, L->joint_f, L->joint_target_q,
                                         L->joint_target_qd, w);
    tp_artic_world_actuators(L->artic, &s, L->ctrl, L->actuator_f, L->limit_f, w);
    tp_artic_world_link_scales(L->artic, &s, L->link_scale, w);
    tp_artic_world_link_coms(L->artic, &s, L->link_com, w);
    tp_artic_world_reset(L->artic, init, &s, L->ctrl, L->link_scale, L->link_com, w, episode, wd, scratch);
    if (L->joint_params)
        tp_robot_params_world_draws(L->artic, &init->robot, L->joint_params + (size_t)w * (size_t)L->artic->joint_count * TP_AJP_COUNT,
                                    L->actuator_params ? L->actuator_params + (size_t)w * (size_t)L->artic->actuator_count : NULL,
                                    w, episode);
}

#endif
