/* step.c - the CPU backend's step: every world, in parallel over worlds.
 *
 * Worlds never interact, so thread t of the batch's pool (csrc/thread_pool.h,
 * made at creation) steps the static range [t*W/T, (t+1)*W/T) of the W
 * worlds; each world runs the stages of kernels/step.h in list order,
 * serially, so its result does not depend on the thread count (a thread's
 * scratch memory, the step's and the articulations', is fully rewritten by
 * each world before it is read). With
 * one thread or one world there is no pool and the step runs inline.
 * With profile_stages, each stage is timed; the stages run are the same.
 * The CPU backend's operations table (csrc/backend.h) is at the end. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_MONOTONIC under -std=c11 */
#include "articulation_host.h"
#include "backend.h"
#include "error.h"
#include "solver_simd.h"

#include "step.h"

#include "thread_pool.h"

#include <time.h>

/* include/torpor.h's tp_stage numbers are kernels/step.h's list. */
#define TP_STAGE_CHECK(NAME, name, runs, launch)                                                                       \
    _Static_assert((int)TP_STAGE_##NAME == (int)TP_STEP_##NAME, "tp_stage differs from TP_STEP_STAGES: " #name);
TP_STEP_STAGES(TP_STAGE_CHECK)
#undef TP_STAGE_CHECK
_Static_assert((int)TP_STAGE_COUNT == (int)TP_STEP_STAGE_COUNT, "tp_stage has another number of stages");

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
    p.assembly_def = d->sleep.assembly;
    return p;
}

/* Seconds on a monotonic clock (stage timing only). */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every stage of world w, in list order; stage_t [TP_STAGE_COUNT] gets each
 * stage's seconds when not NULL. */
static void world_step(tp_batch *b, int w, const tp_step_params *p, int t, double *stage_t)
{
    void *scratch = b->scratch[t];
    tp_world_step s = tp_world_step_at(&b->layout, w, b->current, scratch);
    if (s.artic) s.artic_scratch = tp_artic_batch_scratch(b, t);
    s.solver.simd = tp_simd_bind(b->simd, (char *)scratch + b->simd_offset, b->bodies, b->contact_capacity);
    for (int stage = 0; stage < TP_STEP_STAGE_COUNT; ++stage) {
        /* the plan (stage 0) runs first and writes the record the others read */
        if (stage > 0 && !tp_stage_runs(stage, s.rec->work)) continue;
        double t0 = stage_t ? now_seconds() : 0.0;
        tp_stage_run(stage, &s, p, 0, 1);
        if (stage_t) stage_t[stage] += now_seconds() - t0;
    }
}

struct step_job {
    tp_batch *b;
    tp_step_params p;
};

/* Thread t of T: its static range of worlds, with its own scratch and clock. */
static void step_part(void *arg, int t, int threads)
{
    struct step_job *job = arg;
    tp_batch *b = job->b;
    int first = (int)((long long)t * b->worlds / threads);
    int last = (int)((long long)(t + 1) * b->worlds / threads);
    double *stage_t = b->profile_stages ? b->stage_seconds + (size_t)t * TP_STAGE_COUNT : NULL;
    for (int w = first; w < last; ++w) world_step(b, w, &job->p, t, stage_t);
}

static tp_status cpu_step(tp_batch *b)
{
    struct step_job job = {b, tp_batch_step_params(b)};
    tp_pool *pool = b->backend_data;
    if (pool) tp_pool_run(pool, step_part, &job);
    else step_part(&job, 0, 1);
    b->current = 1 - b->current;
    return TP_OK;
}

/* The host arrays are the state: nothing to copy. The pool has
 * min(threads, worlds) threads (more would get no worlds); none for one. */
static tp_status cpu_create(tp_batch *b)
{
    int threads = b->threads < b->worlds ? b->threads : b->worlds;
    b->backend_data = NULL;
    if (threads <= 1) return TP_OK;
    tp_pool *pool;
    tp_status st = tp_pool_create(threads, &pool);
    if (st == TP_OK) b->backend_data = pool;
    return st;
}

static void cpu_destroy(tp_batch *b)
{
    tp_pool_destroy(b->backend_data);
    b->backend_data = NULL;
}

static tp_status cpu_pull(tp_batch *b, int first, int last, int groups)
{
    (void)b, (void)first, (void)last, (void)groups;
    return TP_OK;
}

static tp_status cpu_begin_write(tp_batch *b, int first, int last)
{
    (void)b, (void)first, (void)last;
    return TP_OK;
}

static tp_status cpu_reset_worlds(tp_batch *b, const int *worlds, int count)
{
    for (int i = 0; i < count; ++i) tp_batch_init_world(b, worlds[i]);
    return TP_OK;
}

static size_t cpu_device_bytes(const tp_batch *b) { (void)b; return 0; }

static tp_status cpu_device_view(tp_batch *b, tp_state_view *view)
{
    (void)b, (void)view;
    return tp_fail(TP_ERR_BACKEND, "tp_batch_device_state: the cpu backend keeps its state in host memory; "
                                   "tp_batch_state views it without a copy");
}

/* The sensors on the host arrays, world by world (kernels/sensors.h). */
static tp_status cpu_sensors_on(tp_batch *b)
{
    if (b->sensors.force)
        for (int w = 0; w < b->worlds; ++w) tp_contact_sensors_fill_world(&b->layout, &b->sensors, w, b->current);
    return TP_OK;
}

static tp_status cpu_sensors_before_step(tp_batch *b)
{
    for (int w = 0; w < b->worlds; ++w) tp_imu_save_world(&b->layout, &b->sensors, w);
    return TP_OK;
}

static tp_status cpu_sensors_after_step(tp_batch *b)
{
    for (int w = 0; w < b->worlds; ++w) {
        if (b->sensors.imu) tp_imu_world(&b->layout, &b->sensors, w, b->layout.dt);
        if (b->sensors.force) tp_contact_sensors_fill_world(&b->layout, &b->sensors, w, b->current);
    }
    return TP_OK;
}

const tp_backend_ops tp_cpu_backend = {
    cpu_create,
    cpu_destroy,
    cpu_step,
    cpu_pull,
    cpu_begin_write,
    cpu_reset_worlds,
    cpu_device_bytes,
    cpu_device_view,
    cpu_sensors_on,
    cpu_sensors_before_step,
    cpu_sensors_after_step,
};
