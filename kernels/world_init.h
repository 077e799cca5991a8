/* world_init.h - the state of a body in a fresh world (batch creation, reset).
 *
 * Written once for both backends: the CPU calls it from tp_batch_init_world
 * (csrc/batch.c) with draws from kernels/philox.h, the CUDA reset kernel with
 * the same draws from cuRAND's Philox4x32-10 device API (kernels/cuda/curand_draws.h).
 * The float operations are the same on both, so a reset world has the same bits
 * on both backends.
 *
 * Randomization (scene "randomize", tp_randomize_def) draws three Philox
 * streams per (seed, world, body, episode), DESIGN.md section 5; the episode is
 * the world's reset count (0 at creation), so each reset draws anew:
 *   stream 0  pose of dynamic bodies: word 0 -> x offset, 1 -> y offset, 2 -> yaw;
 *   stream 1  mass scale of dynamic bodies (word 0);
 *   stream 2  friction of every body (word 0). */
#ifndef TP_WORLD_INIT_H
#define TP_WORLD_INIT_H

#include "philox.h"
#include "tp_world.h"

/* One template body as every fresh world starts it (built by the model). */
typedef struct tp_body_init {
    float pos[3];          /* m */
    float quat[4];         /* x y z w, normalized */
    float vel[3];          /* m/s */
    float ang_vel[3];      /* rad/s */
    float inv_mass;        /* 1/kg, 0 for static and kinematic bodies */
    float inv_inertia[6];  /* body frame, xx yy zz xy xz yz, 1/(kg m^2) */
    float friction;
    int32_t dynamic;       /* 1 for dynamic bodies: only they get pose and mass noise */
} tp_body_init;

/* The randomization of a batch, from tp_randomize_def and the batch's seed. */
typedef struct tp_randomize_params {
    uint64_t seed;
    uint32_t first_world;  /* global index of the batch's world 0 (tp_batch_def.first_world) */
    float pos_noise;       /* m, 0 = off */
    float yaw_amplitude;   /* rad, 0 = off */
    int scale_mass;        /* mass_scale is not [1, 1] */
    float mass_scale[2];
    int draw_friction;     /* has_friction_range */
    float friction_range[2];
} tp_randomize_params;

/* The three draws one body's initial state uses. */
typedef struct tp_body_draws {
    tp_philox4 pose;       /* stream 0 */
    uint32_t mass;         /* stream 1, word 0 */
    uint32_t friction;     /* stream 2, word 0 */
} tp_body_draws;

/* The key of world w's draws: its global index (the batch's first world + w),
 * so a batch holding a slice of a run's worlds draws what one batch of all of
 * them draws. Every draw site takes its world key from here. */
TP_HD uint32_t tp_draw_world(const tp_randomize_params *r, int w) { return r->first_world + (uint32_t)w; }

/* The draws of body `body` in world `world` in episode `episode`, computed by
 * kernels/philox.h. */
TP_HD tp_body_draws tp_body_draws_philox(uint64_t seed, uint32_t world, uint32_t body, uint32_t episode)
{
    tp_body_draws d;
    d.pose = tp_philox_draw(seed, world, body, 0u, episode);
    d.mass = tp_philox_draw(seed, world, body, 1u, episode).v[0];
    d.friction = tp_philox_draw(seed, world, body, 2u, episode).v[0];
    return d;
}

/* Uniform in [lo, hi] from one 32-bit draw (lo + (hi - lo) u, u in (0, 1]). */
TP_HD float tp_uniform_range(uint32_t x, const float r[2]) { return r[0] + (r[1] - r[0]) * tp_uniform01(x); }

/* Pose of a fresh body: the template's, plus for a dynamic body an x, y offset
 * and a yaw about z (applied before the template orientation). */
TP_HD void tp_init_pose(const tp_body_init *t, const tp_randomize_params *r, tp_philox4 u, float pos[3], float quat[4])
{
    for (int k = 0; k < 3; ++k) pos[k] = t->pos[k];
    for (int k = 0; k < 4; ++k) quat[k] = t->quat[k];
    if (!t->dynamic) return;
    if (r->pos_noise > 0.0f) {
        pos[0] += tp_uniform_pm(u.v[0], r->pos_noise);
        pos[1] += tp_uniform_pm(u.v[1], r->pos_noise);
    }
    if (r->yaw_amplitude > 0.0f) {
        float yaw = tp_uniform_pm(u.v[2], r->yaw_amplitude);
        tp_q_store(quat, tp_q_normalize(tp_q_mul(tp_q_from_yaw(yaw), tp_q_load(quat))));
    }
}

/* Body i of world `wd` as a fresh world has it: pose and material from the
 * template and the draws, velocities from the template, awake, no force, no
 * island. Writes only body i's slots (a thread per body may call it). */
TP_HD void tp_world_init_body(tp_world *wd, int i, const tp_body_init *t, const tp_randomize_params *r,
                              const tp_body_draws *u)
{
    tp_init_pose(t, r, u->pose, wd->pos + 3 * i, wd->quat + 4 * i);
    int scaled = t->dynamic && r->scale_mass;
    float inv_scale = scaled ? 1.0f / tp_uniform_range(u->mass, r->mass_scale) : 1.0f;
    wd->inv_mass[i] = scaled ? t->inv_mass * inv_scale : t->inv_mass;
    for (int k = 0; k < 6; ++k) wd->inv_inertia[6 * i + k] = scaled ? t->inv_inertia[k] * inv_scale : t->inv_inertia[k];
    wd->friction[i] = r->draw_friction ? tp_uniform_range(u->friction, r->friction_range) : t->friction;
    for (int k = 0; k < 3; ++k) {
        wd->v[3 * i + k] = t->vel[k];
        wd->w[3 * i + k] = t->ang_vel[k];
        wd->force[3 * i + k] = 0.0f;
        wd->torque[3 * i + k] = 0.0f;
        wd->contact_f[3 * i + k] = 0.0f;
        wd->quiet_v[3 * i + k] = 0.0f;
    }
    wd->flags[i] = 0;
    wd->sleep_state[i] = TP_AWAKE;
    wd->quiet_timer[i] = 0.0f;
    wd->island[i] = -1;
}

/* The per-world rest of a fresh world: nothing to warm start from (both contact
 * buffers' counts 0), the model's gravity, no overflow, no fault. (Then
 * tp_world_count sets the counts and body_awake.) */
TP_HD void tp_world_init_globals(int32_t *contact_count0, int32_t *contact_count1, float gravity[3],
                                 const float model_gravity[3], int32_t *overflow, uint8_t *fault)
{
    *contact_count0 = *contact_count1 = 0;
    for (int k = 0; k < 3; ++k) gravity[k] = model_gravity[k];
    *overflow = 0;
    *fault = 0;
}

#endif
