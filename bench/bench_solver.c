/* bench_solver.c - whole-step throughput with the solver, sleep off (not a
 * timed test; figures go to bench/README.md, "Solver"):
 *   - scenes: the C04 tower (10 cubes), a 10-row pyramid (55 cubes) and a heap
 *     of 200 mixed shapes (box, ball, capsule, cylinder, wedge) in a static bin;
 *   - 1, 64 and 1,024 worlds on all threads: world-steps and body-steps per
 *     second of tp_batch_step;
 *   - share of the step spent in each stage, from a copy of the world step
 *     (kernels/world_step.h) that calls the same stage functions in the same
 *     order with a clock around each, on one thread. It is checked against
 *     tp_batch_step by state hash; a mismatch means world_step.h changed and
 *     this copy must follow, and is reported.
 * Every world starts from a settled state: one world is run until it has
 * settled, and its poses are written into every world, so the figures are
 * those of resting scenes (the heap is timed after it has landed).
 * Usage: bench_solver [seconds per figure] (default 1). */
#define _POSIX_C_SOURCE 199309L
#define BENCH_NAME "bench_solver"
#include "bench_util.h"
#include "batch.h"
#include "world_step.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- scenes */

static tp_body_def shape_body(tp_shape_type shape, float sx, float sy, float sz, float x, float y, float z)
{
    tp_body_def bd = tp_default_body_def();
    bd.shape = shape;
    bd.size[0] = sx;
    bd.size[1] = sy;
    bd.size[2] = sz;
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    return bd;
}

static void add_static(tp_builder *b, float sx, float sy, float sz, float x, float y, float z)
{
    tp_body_def bd = shape_body(TP_SHAPE_BOX, sx, sy, sz, x, y, z);
    bd.type = TP_BODY_STATIC;
    check(tp_builder_add_body(b, &bd, NULL));
}

static tp_builder *begin(void)
{
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = 0;
    tp_builder *b = NULL;
    check(tp_builder_create(&md, &b));
    add_static(b, 40, 40, 1, 0, 0, -0.5f);
    return b;
}

static void build_tower(tp_builder *b)
{
    for (int i = 0; i < 10; ++i) {
        tp_body_def bd = shape_body(TP_SHAPE_BOX, 1, 1, 1, 0, 0, 0.5f + (float)i);
        bd.mass = 1.0f;
        check(tp_builder_add_body(b, &bd, NULL));
    }
}

/* As in tests/test_solver.c: rows 1 cm apart, each centred over the gaps below. */
static void build_pyramid(tp_builder *b)
{
    for (int row = 0; row < 10; ++row) {
        int n = 10 - row;
        for (int i = 0; i < n; ++i) {
            tp_body_def bd = shape_body(TP_SHAPE_BOX, 1, 1, 1, 1.01f * ((float)i - 0.5f * (float)(n - 1)), 0,
                                        0.5f + (float)row);
            bd.mass = 1.0f;
            check(tp_builder_add_body(b, &bd, NULL));
        }
    }
}

/* 200 shapes of about 0.5 m on a 6 x 6 grid of 0.75 m, six layers, dropped
 * into a 5 m x 5 m bin (four static walls on the ground), shapes in turn. */
static void build_heap(tp_builder *b)
{
    add_static(b, 5.4f, 0.2f, 3, 0, 2.6f, 1.5f);
    add_static(b, 5.4f, 0.2f, 3, 0, -2.6f, 1.5f);
    add_static(b, 0.2f, 5.0f, 3, 2.6f, 0, 1.5f);
    add_static(b, 0.2f, 5.0f, 3, -2.6f, 0, 1.5f);
    static const tp_shape_type kinds[5] = {TP_SHAPE_BOX, TP_SHAPE_BALL, TP_SHAPE_CAPSULE, TP_SHAPE_CYLINDER,
                                           TP_SHAPE_WEDGE};
    static const float sizes[5][3] = {{0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, {0.6f, 0.3f, 0.3f},
                                      {0.5f, 0.4f, 0.4f}, {0.5f, 0.5f, 0.5f}};
    for (int i = 0; i < 200; ++i) {
        int k = i % 5, ix = i % 6, iy = (i / 6) % 6, iz = i / 36;
        tp_body_def bd = shape_body(kinds[k], sizes[k][0], sizes[k][1], sizes[k][2], 0.75f * ((float)ix - 2.5f),
                                    0.75f * ((float)iy - 2.5f), 0.5f + 0.75f * (float)iz);
        /* a small tilt so nothing lands flat on a face in step with the rest */
        bd.quat[0] = 0.05f * (float)((i % 3) - 1);
        bd.quat[1] = 0.05f * (float)(((i / 3) % 3) - 1);
        check(tp_builder_add_body(b, &bd, NULL));
    }
}

typedef struct scene {
    const char *name;
    void (*build)(tp_builder *);
    int settle_steps; /* steps one world runs before its state is copied */
} scene;

static const scene SCENES[] = {{"tower", build_tower, 60}, {"pyramid", build_pyramid, 60}, {"heap", build_heap, 240}};

static tp_model *scene_model(const scene *sc)
{
    tp_builder *b = begin();
    sc->build(b);
    tp_model *m = NULL;
    check(tp_builder_finish(b, &m));
    tp_builder_destroy(b);
    return m;
}

/* A batch of `worlds` copies of the settled state of `settled` (world 0). */
static tp_batch *settled_batch(const tp_model *m, tp_batch *settled, int worlds, int threads)
{
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = worlds;
    bd.threads = threads;
    tp_batch *batch = NULL;
    check(tp_batch_create(m, &bd, &batch));
    tp_state_view s;
    check(tp_batch_state(settled, &s));
    for (int w = 0; w < worlds; ++w)
        for (int b = 0; b < s.bodies; ++b) {
            tp_body_def d;
            check(tp_model_get_body_def(m, b, &d));
            if (d.type != TP_BODY_DYNAMIC) continue;
            check(tp_batch_set_pose(batch, w, b, s.pos + 3 * b, s.quat + 4 * b));
            check(tp_batch_set_velocity(batch, w, b, s.v + 3 * b, s.w + 3 * b));
        }
    check(tp_batch_step(batch, 2)); /* contacts and warm-start impulses */
    return batch;
}

/* ---------------------------------------------------------------- stages */

enum { ST_COLLIDE, ST_ISLANDS, ST_MATCH, ST_COLOR, ST_SOLVE, ST_FORCES, ST_SLEEP, ST_COUNT };
static const char *const STAGE_NAMES[ST_COUNT] = {"collide", "islands", "warm-start match", "coloring",
                                                  "substeps", "forces", "sleep+rest"};

/* tp_world_step of kernels/world_step.h with a clock around each stage.
 * tp_world_collide_and_wake is collision, island building and wakes in one;
 * island building is timed by calling tp_islands_build once more on the same
 * contacts (it rewrites the same labels), and "collide" is the rest (with
 * sleep off nothing wakes, so it is broadphase, narrowphase and sort). */
static int timed_world_step(tp_world *wd, const tp_step_params *p, tp_world_buffers *buf, double *t)
{
    buf->contact_count = 0;
    buf->overflow = 0;
    if (!tp_world_has_work(wd)) {
        for (int k = 0; k < 3 * wd->bodies; ++k) wd->contact_f[k] = 0.0f;
        return 1;
    }
    char *is = (char *)buf->island_scratch;
    size_t nb = (size_t)wd->bodies;
    int32_t *parent = (int32_t *)is;
    uint8_t *root_flags = (uint8_t *)(is + tp_solver_align(nb * sizeof(int32_t)));
    float *v_start = (float *)(is + tp_solver_align(nb * sizeof(int32_t)) + tp_solver_align(nb));
    for (size_t k = 0; k < 3 * nb; ++k) v_start[k] = wd->v[k];

    double t0 = now();
    int n = tp_world_collide_and_wake(wd, buf, p->solver.dt, parent, root_flags);
    double t1 = now();
    tp_islands_build(wd, buf->contacts, n, p->solver.dt, parent, root_flags); /* again: same inputs, same output */
    double t2 = now();
    t[ST_ISLANDS] += t2 - t1;
    t[ST_COLLIDE] += (t1 - t0) - (t2 - t1);
    t2 = now();
    if (p->solver.warm_starting) tp_match_impulses(buf->contacts, n, buf->previous, buf->prev_count);
    double t3 = now();
    tp_solver_work work = tp_solver_work_at(buf->solver_scratch, wd->bodies, buf->capacity);
    int n_cons = tp_solver_color(wd, buf->contacts, n, &work, &p->solver);
    double t4 = now();
    tp_solver_substeps(wd, buf->contacts, n, n_cons, &work, &p->solver);
    double t5 = now();
    tp_contact_forces(wd, buf->contacts, n, work.rows, p->solver.dt);
    double t6 = now();
    if (wd->solve_sleeping)
        for (int b = 0; b < wd->bodies; ++b)
            if (wd->sleep_state[b] == TP_SLEEPING)
                for (int k = 0; k < 3; ++k) wd->v[3 * b + k] = wd->w[3 * b + k] = 0.0f;
    tp_sleep_update(wd, &p->sleep, v_start, root_flags);
    buf->contact_count = n;
    for (size_t k = 0; k < 3 * nb; ++k) {
        wd->force[k] = 0.0f;
        wd->torque[k] = 0.0f;
    }
    int finite = tp_world_is_finite(wd);
    double t7 = now();
    t[ST_MATCH] += t3 - t2;
    t[ST_COLOR] += t4 - t3;
    t[ST_SOLVE] += t5 - t4;
    t[ST_FORCES] += t6 - t5;
    t[ST_SLEEP] += t7 - t6;
    return finite;
}

/* csrc/step.c's loop on one thread, timed; the batch must have 1 thread. */
static void timed_batch_step(tp_batch *bt, double *t)
{
    int next = 1 - bt->current;
    size_t cap = (size_t)bt->contact_capacity;
    tp_step_params p = tp_batch_step_params(bt);
    void *scratch = bt->scratch[0];
    for (int w = 0; w < bt->worlds; ++w) {
        tp_world wd = tp_batch_world(bt, w);
        tp_world_buffers buf;
        buf.contacts = bt->contacts[next] + (size_t)w * cap;
        buf.previous = bt->contacts[bt->current] + (size_t)w * cap;
        buf.prev_count = bt->contact_count[bt->current][w];
        buf.capacity = bt->contact_capacity;
        buf.collide_scratch = scratch;
        buf.solver_scratch = (char *)scratch + bt->collide_scratch_bytes;
        buf.island_scratch = (char *)scratch + bt->collide_scratch_bytes + bt->solver_scratch_bytes;
        if (!timed_world_step(&wd, &p, &buf, t)) bt->faults[w] = 1;
        bt->contact_count[next][w] = buf.contact_count;
        bt->contact_overflow[w] += buf.overflow;
        tp_world_count(&wd, bt->awake_count + w, bt->sleeping_count + w, bt->checking_count + w);
    }
    bt->current = next;
    bt->step_count++;
}

/* Stage shares of one scene on 64 worlds, one thread; 0 if the timed copy
 * does not give the bits of tp_batch_step. */
static int stage_shares(const tp_model *m, tp_batch *settled, int steps, double *share)
{
    tp_batch *a = settled_batch(m, settled, 64, 1), *b = settled_batch(m, settled, 64, 1);
    double t[ST_COUNT] = {0}, total = 0.0;
    for (int i = 0; i < steps; ++i) timed_batch_step(a, t);
    check(tp_batch_step(b, steps));
    uint64_t ha = 0, hb = 0;
    check(tp_batch_state_hash(a, &ha));
    check(tp_batch_state_hash(b, &hb));
    for (int s = 0; s < ST_COUNT; ++s) total += t[s];
    for (int s = 0; s < ST_COUNT; ++s) share[s] = t[s] / total;
    tp_batch_destroy(a);
    tp_batch_destroy(b);
    return ha == hb;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(seconds > 0.0)) seconds = 1.0;
    static const int WORLDS[3] = {1, 64, 1024};
    printf("solver bench: sleep off, %d substeps x %d iterations, threads = OpenMP default\n",
           tp_default_model_def().substeps, tp_default_model_def().solver.iterations);
    printf("  %-8s %7s %7s %8s %14s %14s %10s\n", "scene", "bodies", "worlds", "steps", "world-steps/s",
           "body-steps/s", "contacts");
    for (size_t sc = 0; sc < sizeof SCENES / sizeof SCENES[0]; ++sc) {
        tp_model *m = scene_model(&SCENES[sc]);
        tp_batch_def one = tp_default_batch_def();
        tp_batch *settled = NULL;
        check(tp_batch_create(m, &one, &settled));
        check(tp_batch_step(settled, SCENES[sc].settle_steps));
        int dyn = tp_model_dynamic_body_count(m);
        int contacts = 0;
        check(tp_batch_contacts(settled, 0, NULL, 0, &contacts));
        double step_1t = 0.0; /* seconds per world-step, all threads, at 64 worlds */
        for (int k = 0; k < 3; ++k) {
            tp_batch *batch = settled_batch(m, settled, WORLDS[k], 0);
            double t0 = now();
            check(tp_batch_step(batch, 2)); /* calibration: how many steps fill `seconds` */
            int steps = (int)(seconds / ((now() - t0) / 2.0));
            if (steps < 3) steps = 3;
            t0 = now();
            check(tp_batch_step(batch, steps));
            double ws = (double)steps * WORLDS[k] / (now() - t0);
            if (WORLDS[k] == 64) step_1t = 1.0 / ws;
            printf("  %-8s %7d %7d %8d %14.4g %14.4g %10d\n", SCENES[sc].name, dyn, WORLDS[k], steps, ws, ws * dyn,
                   contacts);
            tp_batch_destroy(batch);
        }
        double share[ST_COUNT];
        /* about `seconds` on one thread (step_1t was measured on all threads) */
        int steps = (int)(seconds / (step_1t * 64.0 * tp_batch_threads(settled)));
        if (steps < 5) steps = 5;
        int same = stage_shares(m, settled, steps, share);
        printf("  %-8s stage shares (64 worlds, 1 thread, %d steps)%s:", SCENES[sc].name, steps,
               same ? "" : " [timed copy DIFFERS from tp_batch_step: update bench_solver.c]");
        for (int s = 0; s < ST_COUNT; ++s) printf(" %s %.1f%%", STAGE_NAMES[s], 100.0 * share[s]);
        printf("\n");
        tp_batch_destroy(settled);
        tp_model_destroy(m);
    }
    return 0;
}
