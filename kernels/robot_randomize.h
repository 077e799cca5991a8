/* robot_randomize.h - the draws of a robot world's reset (docs/articulations.md,
 * "Randomization"): joint-state noise around q0 / qd0, link mass scales, link
 * COM offsets and the per-world robot parameters (joint damping, armature, friction loss;
 * actuator gear, kp, kv), each drawn anew per episode.
 *
 * Written once for both backends: tp_artic_world_reset
 * (kernels/articulation_reset.h) calls it on the CPU (tp_artic_batch_init_world)
 * and in the CUDA reset kernel. The draws are kernels/philox.h's on both (no
 * cuRAND), keyed on (seed, global world, index, stream, episode) as the body
 * draws of kernels/world_init.h, so a reset world has the same bits on both
 * backends and at any world count. */
#ifndef TP_ROBOT_RANDOMIZE_H
#define TP_ROBOT_RANDOMIZE_H

#include "articulation.h"
#include "random_normal.h"
#include "world_init.h" /* tp_uniform_range */

/* Philox streams of the robot draws; index: the link's body for the mass
 * scale and the COM offset, the joint (as added) for joint noise and joint parameters, the
 * actuator for actuator parameters. */
enum {
    TP_ROBOT_STREAM_MASS = 1, TP_ROBOT_STREAM_JOINT_Q = 3, TP_ROBOT_STREAM_JOINT_QD = 4, TP_ROBOT_STREAM_DAMPING = 5,
    TP_ROBOT_STREAM_ARMATURE = 6, TP_ROBOT_STREAM_FRICTION = 7, TP_ROBOT_STREAM_GEAR = 8, TP_ROBOT_STREAM_KP = 9,
    TP_ROBOT_STREAM_KV = 10, TP_ROBOT_STREAM_COM = 11
};

/* A batch's robot randomization (from tp_randomize_def, its seed and first world). */
typedef struct tp_robot_randomize {
    uint64_t seed;
    uint32_t first_world;          /* global index of the batch's world 0 */
    float joint_q_noise;           /* rad or m, 0 = off */
    float joint_qd_noise;          /* rad/s or m/s, 0 = off */
    int32_t joint_noise_normal;    /* 0 uniform in [-a, a], 1 normal with standard deviation a */
    int32_t scale_mass;            /* mass_scale is not [1, 1] */
    float mass_scale[2];
    float com_offset[3];           /* m: each link's COM offset along link axis k uniform in [-a_k, a_k] (0 = off) */
    float param_scale[6][2];       /* joint damping, armature, friction loss; actuator gear, kp, kv ([1, 1] = off) */
    const int32_t *added_of;       /* [J] kernel joint -> its index as added (the key of its draws) */
    const int32_t *actuator_type;  /* [nu] TP_ACT_* of each actuator (NULL without actuators) */
} tp_robot_randomize;

/* Columns of tp_robot_randomize.param_scale past the joints' TP_AJP_*. */
enum { TP_ROBOT_SCALE_GEAR = 3, TP_ROBOT_SCALE_KP = 4, TP_ROBOT_SCALE_KV = 5 };

/* Is a scale range drawn (not [1, 1])? */
TP_HD int tp_robot_scaled(const float range[2]) { return range[0] != 1.0f || range[1] != 1.0f; }

/* Does r draw link COM offsets? */
TP_HD int tp_robot_moves_com(const tp_robot_randomize *r)
{
    return r->com_offset[0] > 0.0f || r->com_offset[1] > 0.0f || r->com_offset[2] > 0.0f;
}

/* Does r draw anything at a reset? */
TP_HD int tp_robot_randomizes(const tp_robot_randomize *r)
{
    return r->scale_mass || r->joint_q_noise > 0.0f || r->joint_qd_noise > 0.0f || tp_robot_moves_com(r);
}

/* Four words of stream `stream` for `index` in world w (batch index) in episode `episode`. */
TP_HD tp_philox4 tp_robot_philox(const tp_robot_randomize *r, int w, uint32_t index, uint32_t stream, uint32_t episode)
{
    return tp_philox_draw(r->seed, r->first_world + (uint32_t)w, index, stream, episode);
}

/* Noise of amplitude a: uniform in [-a, a] or normal with standard deviation a. */
TP_HD float tp_robot_joint_noise(tp_philox4 u, float a, int normal)
{
    return normal ? a * tp_normal01(u.v[0], u.v[1]) : tp_uniform_pm(u.v[0], a);
}

/* World w's draws of episode `episode` applied to a started world (s at the
 * initial values, link_scale its row [J] of 1s, link_com its row [J][3] of
 * 0s): link mass scales, link COM offsets (one Philox draw per link, words
 * 0-2 for its x, y, z), and noise added to q and qd of revolute and
 * prismatic joints, q kept within limits. */
TP_HD void tp_robot_randomize_world_draws(const tp_artic_model *m, const tp_robot_randomize *r, tp_artic_world *s,
                                          float *link_scale, float *link_com, int w, uint32_t episode)
{
    if (!tp_robot_randomizes(r)) return;
    for (int k = 0; k < m->joint_count; ++k) {
        const tp_artic_joint *j = &m->joints[k];
        uint32_t i = (uint32_t)r->added_of[k];
        if (r->scale_mass)
            link_scale[k] = tp_uniform_range(tp_robot_philox(r, w, (uint32_t)j->body, TP_ROBOT_STREAM_MASS, episode).v[0],
                                             r->mass_scale);
        if (link_com && tp_robot_moves_com(r)) {
            tp_philox4 u = tp_robot_philox(r, w, (uint32_t)j->body, TP_ROBOT_STREAM_COM, episode);
            for (int a = 0; a < 3; ++a)
                link_com[3 * k + a] = r->com_offset[a] > 0.0f ? tp_uniform_pm(u.v[a], r->com_offset[a]) : 0.0f;
        }
        if (j->type != TP_AJ_REVOLUTE && j->type != TP_AJ_PRISMATIC) continue;
        if (r->joint_q_noise > 0.0f) {
            float *q = s->q + j->q_start;
            *q += tp_robot_joint_noise(tp_robot_philox(r, w, i, TP_ROBOT_STREAM_JOINT_Q, episode), r->joint_q_noise,
                                       r->joint_noise_normal);
            if (j->has_limits) *q = tp_clampf(*q, j->lower, j->upper);
        }
        if (r->joint_qd_noise > 0.0f)
            s->qd[j->v_start] += tp_robot_joint_noise(tp_robot_philox(r, w, i, TP_ROBOT_STREAM_JOINT_QD, episode),
                                                      r->joint_qd_noise, r->joint_noise_normal);
    }
}

/* Parameter `column` of index `index` scaled by its draw: value times a scale
 * uniform in param_scale[column] (stream TP_ROBOT_STREAM_DAMPING + column). */
TP_HD float tp_robot_scaled_param(const tp_robot_randomize *r, int w, uint32_t index, int column, float value,
                                  uint32_t episode)
{
    tp_philox4 u = tp_robot_philox(r, w, index, TP_ROBOT_STREAM_DAMPING + (uint32_t)column, episode);
    return value * tp_uniform_range(u.v[0], r->param_scale[column]);
}

/* World w's robot parameters of episode `episode`: joint_params (its row
 * [J][TP_AJP_COUNT], kernel order) and actuators (its row [nu]; NULL without
 * actuators) at the model's values, each scaled by its draw where its range
 * is not [1, 1]; fixed and free joints have no damping, armature or friction
 * loss of their own, kp belongs to position actuators, kv to position and
 * velocity ones (gain and bias as csrc/actuator_model.c fills them). */
TP_HD void tp_robot_params_world_draws(const tp_artic_model *m, const tp_robot_randomize *r, float *joint_params,
                                       tp_artic_actuator *actuators, int w, uint32_t episode)
{
    for (int k = 0; k < m->joint_count; ++k) {
        const tp_artic_joint *j = &m->joints[k];
        float value[TP_AJP_COUNT] = {j->damping, j->armature, j->friction};
        int passive = j->type != TP_AJ_FIXED && j->type != TP_AJ_FREE;
        float *row = joint_params + (size_t)k * TP_AJP_COUNT;
        for (int c = 0; c < TP_AJP_COUNT; ++c)
            row[c] = passive && tp_robot_scaled(r->param_scale[c])
                         ? tp_robot_scaled_param(r, w, (uint32_t)r->added_of[k], c, value[c], episode)
                         : value[c];
    }
    for (int k = 0; k < m->actuator_count && actuators; ++k) {
        const tp_artic_actuator *model = &m->actuators[k];
        tp_artic_actuator *a = &actuators[k];
        int type = r->actuator_type[k];
        *a = *model;
        if (tp_robot_scaled(r->param_scale[TP_ROBOT_SCALE_GEAR]))
            a->gear = tp_robot_scaled_param(r, w, (uint32_t)k, TP_ROBOT_SCALE_GEAR, model->gear, episode);
        if (type == TP_ACT_POSITION && tp_robot_scaled(r->param_scale[TP_ROBOT_SCALE_KP])) {
            float kp = tp_robot_scaled_param(r, w, (uint32_t)k, TP_ROBOT_SCALE_KP, model->gain[0], episode);
            a->gain[0] = kp;
            a->bias[1] = -kp;
        }
        if ((type == TP_ACT_POSITION || type == TP_ACT_VELOCITY) && tp_robot_scaled(r->param_scale[TP_ROBOT_SCALE_KV])) {
            float kv0 = type == TP_ACT_VELOCITY ? model->gain[0] : -model->bias[2];
            float kv = tp_robot_scaled_param(r, w, (uint32_t)k, TP_ROBOT_SCALE_KV, kv0, episode);
            if (type == TP_ACT_VELOCITY) a->gain[0] = kv;
            a->bias[2] = -kv;
        }
    }
}

#endif
