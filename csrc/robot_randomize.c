/* robot_randomize.c - per-world randomization of articulations at batch
 * creation and every reset (docs/articulations.md, "Randomization"): joint-
 * state noise around q0 / qd0 and link mass scales, each drawn anew per
 * episode so a reset gives the same bits at any world count; and the batched
 * setter of link mass scales. The other per-world robot parameters:
 * csrc/robot_params.c. */
#include "articulation_host.h"
#include "batch.h"
#include "batch_wake.h"
#include "random_normal.h"
#include "world_init.h" /* tp_uniform_range */

#include <stdlib.h>

/* Every per-world random number of a robot: Philox keyed on (seed, global
 * world, index, stream, episode), the scheme of kernels/world_init.h's body
 * draws; the global index (tp_batch_def.first_world + w) makes a shard draw
 * as the same world of one batch (streams: articulation_host.h). */
tp_philox4 tp_robot_draw(const tp_batch *b, int w, uint32_t index, uint32_t stream)
{
    return tp_philox_draw(b->seed, (uint32_t)b->first_world + (uint32_t)w, index, stream, b->episode[w]);
}

/* Noise of amplitude a: uniform in [-a, a] or normal with standard deviation a. */
static float joint_noise(tp_philox4 u, float a, int normal)
{
    return normal ? a * tp_normal01(u.v[0], u.v[1]) : tp_uniform_pm(u.v[0], a);
}

int tp_robot_batch_create(tp_batch *b, tp_artic_batch *a)
{
    size_t n = (size_t)b->worlds * (size_t)b->model->artic->km.joint_count;
    a->link_scale = malloc((n + 1) * sizeof(float));
    if (!a->link_scale) return 0;
    for (size_t i = 0; i < n; ++i) a->link_scale[i] = 1.0f;
    b->layout.link_scale = a->link_scale;
    return tp_robot_params_create(b, a);
}

void tp_robot_randomize_world(tp_batch *b, int w)
{
    const tp_artic_host *h = b->model->artic;
    const tp_randomize_def *r = &b->model->def.randomize;
    tp_artic_world s = tp_artic_batch_world(b, w);
    float *scale = b->artic->link_scale + (size_t)w * (size_t)h->km.joint_count;
    int scale_mass = r->mass_scale[0] != 1.0f || r->mass_scale[1] != 1.0f;
    for (int i = 0; i < h->km.joint_count; ++i) {
        const tp_artic_joint *j = &h->joints[h->kernel_of[i]];
        scale[h->kernel_of[i]] =
            scale_mass ? tp_uniform_range(tp_robot_draw(b, w, (uint32_t)j->body, TP_ROBOT_STREAM_MASS).v[0], r->mass_scale)
                       : 1.0f;
        if (j->type != TP_AJ_REVOLUTE && j->type != TP_AJ_PRISMATIC) continue;
        if (r->joint_q_noise > 0.0f) {
            float *q = s.q + j->q_start;
            *q += joint_noise(tp_robot_draw(b, w, (uint32_t)i, TP_ROBOT_STREAM_JOINT_Q), r->joint_q_noise, r->joint_noise_normal);
            if (j->has_limits) *q = tp_clampf(*q, j->lower, j->upper);
        }
        if (r->joint_qd_noise > 0.0f)
            s.qd[j->v_start] +=
                joint_noise(tp_robot_draw(b, w, (uint32_t)i, TP_ROBOT_STREAM_JOINT_QD), r->joint_qd_noise, r->joint_noise_normal);
    }
    tp_robot_params_world(b, w);
}

void tp_robot_set_link_scale(tp_batch *b, int w, int body, float value)
{
    const tp_artic_model *km = &b->model->artic->km;
    float *scale = b->artic->link_scale + (size_t)w * (size_t)km->joint_count + (b->model->bodies[body].link - 1);
    if (*scale == value) return;
    *scale = value;
    tp_wake_trees(b, w);
}
