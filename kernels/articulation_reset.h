/* articulation_reset.h - a world's joints and actuators as a fresh world
 * starts them.
 *
 * Written once for both backends: the CPU calls it from
 * tp_artic_batch_init_world (csrc/articulation_batch.c) at creation and
 * reset, then draws the robot randomization (csrc/robot_randomize.c) and
 * publishes the links; the CUDA reset kernel (kernels/cuda/stages.cu), on one
 * thread of the world's block after the bodies are drawn, calls
 * tp_artic_world_reset (the CUDA backend refuses models whose randomization
 * draws joint noise or link mass scales, csrc/backend_cuda.c). */
#ifndef TP_ARTICULATION_RESET_H
#define TP_ARTICULATION_RESET_H

#include "articulation.h"

/* The model's initial joint arrays: q0 [nq], qd0 [nv], target_q0 [nv],
 * target_qd0 [nv] (joint_f starts at 0). */
typedef struct tp_artic_initial {
    const float *q0, *qd0, *target_q0, *target_qd0;
} tp_artic_initial;

/* World w's joint arrays (s, world w's view) at their initial values, its
 * controls (row w of ctrl [W][nu], NULL without actuators), actuator and
 * limit forces at 0 and its link mass scales (row w of link_scale [W][J]) at
 * 1. The links are not moved. */
TP_HD void tp_artic_world_start(const tp_artic_model *m, const tp_artic_initial *init, tp_artic_world *s,
                                float *ctrl, float *link_scale, int w)
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
        for (int k = 0; k < m->actuator_count; ++k) ctrl[(size_t)w * (size_t)m->actuator_count + (size_t)k] = 0.0f;
    if (link_scale)
        for (int k = 0; k < m->joint_count; ++k) link_scale[(size_t)w * (size_t)m->joint_count + (size_t)k] = 1.0f;
}

/* World w started (tp_artic_world_start) and its links placed where the
 * joints put them (tp_artic_world_publish, with the world's scratch): the
 * whole reset of a model without joint noise or link mass scales. */
TP_HD void tp_artic_world_reset(const tp_artic_model *m, const tp_artic_initial *init, tp_artic_world *s,
                                float *ctrl, float *link_scale, int w, tp_world *wd, void *scratch)
{
    tp_artic_world_start(m, init, s, ctrl, link_scale, w);
    tp_artic_world_publish(m, s, wd, scratch);
}

#endif
