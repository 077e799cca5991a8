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

/* tp_world_step with a clock around each stage group (same calls, same order;
 * tests/test_batch.c checks that the state hash is the same with and without). */
static int world_step_profiled(tp_world *wd, const tp_step_params *p, tp_world_buffers *buf, double *t)
{
    buf->contact_count = 0;
    buf->overflow = 0;
    if (!tp_world_has_work(wd)) {
        tp_world_step_idle(wd);
        return 1;
    }
    double t0 = omp_get_wtime();
    tp_island_work iw = tp_island_work_at(buf->island_scratch, wd->bodies);
    tp_world_save_v_start(wd, iw.v_start);
    int n = tp_world_collide_and_wake(wd, buf, p->solver.dt, iw.parent, iw.root_flags);
    if (p->solver.warm_starting) tp_match_impulses(buf->contacts, n, buf->previous, buf->prev_count);
    double t1 = omp_get_wtime();
    tp_solver_work work = tp_solver_work_at(buf->solver_scratch, wd->bodies, buf->capacity);
    int n_cons = tp_solver_color(wd, buf->contacts, n, &work, &p->solver);
    double t2 = omp_get_wtime();
    tp_solver_substeps(wd, buf->contacts, n, n_cons, &work, &p->solver);
    double t3 = omp_get_wtime();
    buf->contact_count = n;
    int ok = tp_world_step_finish(wd, p, buf->contacts, n, work.rows, iw.v_start, iw.root_flags);
    double t4 = omp_get_wtime();
    t[TP_STAGE_COLLIDE] += t1 - t0;
    t[TP_STAGE_COLOR] += t2 - t1;
    t[TP_STAGE_SOLVE] += t3 - t2;
    t[TP_STAGE_FINISH] += t4 - t3;
    return ok;
}

static void world_step(tp_batch *bt, int w, int next, const tp_step_params *p, void *scratch, double *stage_t)
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
    int ok = bt->profile_stages ? world_step_profiled(&wd, p, &buf, stage_t) : tp_world_step(&wd, p, &buf);
    if (!ok) bt->faults[w] = 1;
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
        int t = omp_get_thread_num();
        void *scratch = b->scratch[t];
        double *stage_t = b->stage_seconds + (size_t)t * TP_STAGE_COUNT;
#pragma omp for schedule(static)
        for (int w = 0; w < worlds; ++w) world_step(b, w, next, &p, scratch, stage_t);
    }
    b->current = next;
}
