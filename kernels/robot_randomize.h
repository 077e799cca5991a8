/* robot_randomize.h - the draws of a robot world's reset (docs/articulations.md,
 * "Randomization"): joint-state noise around q0 / qd0 and link mass scales,
 * each drawn anew per episode.
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
 * scale, the joint (as added) for joint noise and joint parameters, the
 * actuator for actuator parameters. */
enum {
    TP_ROBOT_STREAM_MASS = 1, TP_ROBOT_STREAM_JOINT_Q = 3, TP_ROBOT_STREAM_JOINT_QD = 4, TP_ROBOT_STREAM_DAMPING = 5,
    TP_ROBOT_STREAM_ARMATURE = 6, TP_ROBOT_STREAM_FRICTION = 7, TP_ROBOT_STREAM_GEAR = 8, TP_ROBOT_STREAM_KP = 9,
    TP_ROBOT_STREAM_KV = 10
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
    const int32_t *added_of;       /* [J] kernel joint -> its index as added (the key of its draws) */
} tp_robot_randomize;

/* Does r draw anything at a reset? */
TP_HD int tp_robot_randomizes(const tp_robot_randomize *r)
{
    return r->scale_mass || r->joint_q_noise > 0.0f || r->joint_qd_noise > 0.0f;
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
 * initial values, link_scale its row [J] of 1s): link mass scales, and noise
 * added to q and qd of revolute and prismatic joints, q kept within limits. */
TP_HD void tp_robot_randomize_world_draws(const tp_artic_model *m, const tp_robot_randomize *r, tp_artic_world *s,
                                          float *link_scale, int w, uint32_t episode)
{
    if (!tp_robot_randomizes(r)) return;
    for (int k = 0; k < m->joint_count; ++k) {
        const tp_artic_joint *j = &m->joints[k];
        uint32_t i = (uint32_t)r->added_of[k];
        if (r->scale_mass)
            link_scale[k] = tp_uniform_range(tp_robot_philox(r, w, (uint32_t)j->body, TP_ROBOT_STREAM_MASS, episode).v[0],
                                             r->mass_scale);
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

#endif
