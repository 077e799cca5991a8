/* step.c - the CPU backend's step: every world, in parallel over worlds.
 *
 * Worlds never interact, so the loop over worlds is an OpenMP parallel for
 * with a static schedule; each world runs serially inside, in a fixed order, so
 * its result does not depend on the thread count (a thread's scratch memory is
 * fully rewritten by each world before it is read). The per-world stages are in
 * kernels/world_step.h, which the CUDA backend runs too. */
#include "batch.h"

#include "world_step.h"

#include <omp.h>

tp_step_params tp_batch_step_params(const tp_batch *b)
{
    const tp_model_def *d = &b->model->def;
    tp_step_params p;
    p.solver.dt = d->dt;
    p.solver.substeps = d->substeps;
    p.solver.iterations = d->solver.iterations;
    p.solver.serial = d->solver.mode == TP_SOLVER_SERIAL;
    p.solver.warm_starting = d->solver.warm_starting;
    p.solver.restitution_threshold = d->solver.restitution_threshold;
    p.sleep.enabled = d->sleep.enabled;
    p.sleep.linear_threshold = d->sleep.linear_threshold;
    p.sleep.angular_threshold = d->sleep.angular_threshold;
    p.sleep.quiet_time = d->sleep.quiet_time;
    p.sleep.accel_threshold = d->sleep.accel_threshold;
    p.sleep.surface_speed = d->sleep.angular_measure == TP_ANGULAR_SURFACE_SPEED;
    p.sleep.require_support = d->sleep.require_support;
    p.sleep.dt = d->dt;
    return p;
}

static void world_step(tp_batch *bt, int w, int next, const tp_step_params *p, void *scratch)
{
    size_t cap = (size_t)bt->contact_capacity;
    if (bt->faults[w]) { /* frozen until reset (acceptance case C12) */
        bt->contact_count[next][w] = 0;
        return;
    }
    tp_world wd = tp_batch_world(bt, w);
    tp_world_buffers buf;
    buf.contacts = bt->contacts[next] + (size_t)w * cap;
    buf.previous = bt->contacts[bt->current] + (size_t)w * cap;
    buf.prev_count = bt->contact_count[bt->current][w];
    buf.capacity = bt->contact_capacity;
    buf.collide_scratch = scratch;
    buf.solver_scratch = (char *)scratch + bt->collide_scratch_bytes;
    buf.island_scratch = (char *)scratch + bt->collide_scratch_bytes + bt->solver_scratch_bytes;
    if (!tp_world_step(&wd, p, &buf)) bt->faults[w] = 1;
    bt->contact_count[next][w] = buf.contact_count;
    bt->contact_overflow[w] += buf.overflow;
    tp_world_count(&wd, bt->awake_count + w, bt->sleeping_count + w, bt->checking_count + w);
}

void tp_cpu_step(tp_batch *b)
{
    int worlds = b->worlds, next = 1 - b->current;
    tp_step_params p = tp_batch_step_params(b);
#pragma omp parallel num_threads(b->threads)
    {
        void *scratch = b->scratch[omp_get_thread_num()];
#pragma omp for schedule(static)
        for (int w = 0; w < worlds; ++w) world_step(b, w, next, &p, scratch);
    }
    b->current = next;
}
