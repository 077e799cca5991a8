/* world_step.h - one world's step, shared by the CPU loop and the CUDA kernel.
 *
 * The stages of DESIGN.md section 4 in order, for one world. The CPU backend
 * calls tp_world_step for each world inside an OpenMP loop (csrc/step.c); the
 * CUDA backend calls it from one thread per world (kernels/cuda_backend.cu).
 * Collision, islands, the solver and sleep join here as they are built. */
#ifndef TP_WORLD_STEP_H
#define TP_WORLD_STEP_H

#include "integrate.h"

/* 1 if every non-static body's pose and velocity are finite. */
TP_HD int tp_world_is_finite(const tp_world *wd)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->model[b].type == TP_BODY_STATIC) continue;
        for (int k = 0; k < 3; ++k)
            if (!tp_finitef(wd->pos[3 * b + k]) || !tp_finitef(wd->v[3 * b + k]) || !tp_finitef(wd->w[3 * b + k]))
                return 0;
        for (int k = 0; k < 4; ++k)
            if (!tp_finitef(wd->quat[4 * b + k])) return 0;
    }
    return 1;
}

/* body_awake and the awake / sleeping / checking counts of present dynamic bodies. */
TP_HD void tp_world_count(tp_world *wd, int32_t *awake, int32_t *sleeping, int32_t *checking)
{
    int32_t a = 0, s = 0, c = 0;
    for (int b = 0; b < wd->bodies; ++b) {
        int counted = wd->model[b].type == TP_BODY_DYNAMIC && !(wd->flags[b] & TP_FLAG_REMOVED);
        uint8_t st = wd->sleep_state[b];
        wd->body_awake[b] = (uint8_t)(counted && st != TP_SLEEPING);
        if (!counted) continue;
        a += st != TP_SLEEPING;
        s += st == TP_SLEEPING;
        c += st == TP_CHECKING;
    }
    *awake = a;
    *sleeping = s;
    *checking = c;
}

/* Advance one world by dt in `substeps` substeps; clears the applied forces.
 * Returns 0 if the state became non-finite (the caller flags the world). */
TP_HD int tp_world_step(tp_world *wd, float dt, int substeps)
{
    float h = dt / (float)substeps;
    for (int s = 0; s < substeps; ++s) {
        for (int b = 0; b < wd->bodies; ++b)
            if (tp_body_is_simulated(wd, b)) tp_integrate_velocity(wd, b, h);
        for (int b = 0; b < wd->bodies; ++b)
            if (tp_body_moves(wd, b)) tp_integrate_position(wd, b, h);
    }
    for (int k = 0; k < 3 * wd->bodies; ++k) {
        wd->force[k] = 0.0f;
        wd->torque[k] = 0.0f;
    }
    return tp_world_is_finite(wd);
}

#endif
