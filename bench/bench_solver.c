/* bench_solver.c - whole-step throughput with the solver, sleep off (not a
 * timed test; figures go to bench/README.md, "Solver"):
 *   - scenes: the C04 tower (10 cubes), a 10-row pyramid (55 cubes) and a heap
 *     of 200 mixed shapes (box, ball, capsule, cylinder, wedge) in a static bin;
 *   - 1, 64 and 1,024 worlds on all threads: world-steps and body-steps per
 *     second of tp_batch_step;
 *   - share of the step spent in each stage (kernels/step.h's list), from
 *     the batch's own stage clock (tp_batch_def.profile_stages) on one
 *     thread: the same step, timed.
 * Every world starts from a settled state: one world is run until it has
 * settled, and its poses are written into every world, so the figures are
 * those of resting scenes (the heap is timed after it has landed).
 * Usage: bench_solver [seconds per figure] (default 1). */
#define _POSIX_C_SOURCE 199309L
#define BENCH_NAME "bench_solver"
#include "bench_util.h"

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
static tp_batch *settled_batch(const tp_model *m, tp_batch *settled, int worlds, int threads, int profile)
{
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = worlds;
    bd.threads = threads;
    bd.profile_stages = profile;
    tp_batch *batch = NULL;
    check(tp_batch_create(m, &bd, &batch));
    tp_state_view s;
    check(tp_batch_state(settled, &s));
    for (int w = 0; w < worlds; ++w)
        for (int b = 0; b < s.bodies; ++b) {
            tp_body_def d;
            check(tp_model_body(m, b, &d));
            if (d.type != TP_BODY_DYNAMIC) continue;
            check(tp_batch_set_pose(batch, w, b, s.pos + 3 * b, s.quat + 4 * b));
            check(tp_batch_set_velocity(batch, w, b, s.v + 3 * b, s.w + 3 * b));
        }
    check(tp_batch_step(batch, 2)); /* contacts and warm-start impulses */
    return batch;
}

/* ---------------------------------------------------------------- stages */

/* Stage shares of one scene on 64 worlds, one thread, `steps` steps. */
static void stage_shares(const tp_model *m, tp_batch *settled, int steps, double *share)
{
    tp_batch *a = settled_batch(m, settled, 64, 1, 1);
    double before[TP_STAGE_COUNT], t[TP_STAGE_COUNT], total = 0.0;
    check(tp_batch_stage_seconds(a, before)); /* the settling steps are not counted */
    check(tp_batch_step(a, steps));
    check(tp_batch_stage_seconds(a, t));
    for (int s = 0; s < TP_STAGE_COUNT; ++s) total += (t[s] -= before[s]);
    for (int s = 0; s < TP_STAGE_COUNT; ++s) share[s] = t[s] / total;
    tp_batch_destroy(a);
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
            tp_batch *batch = settled_batch(m, settled, WORLDS[k], 0, 0);
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
        double share[TP_STAGE_COUNT];
        /* about `seconds` on one thread (step_1t was measured on all threads) */
        int steps = (int)(seconds / (step_1t * 64.0 * tp_batch_threads(settled)));
        if (steps < 5) steps = 5;
        stage_shares(m, settled, steps, share);
        printf("  %-8s stage shares (64 worlds, 1 thread, %d steps):", SCENES[sc].name, steps);
        for (int s = 0; s < TP_STAGE_COUNT; ++s) printf(" %s %.1f%%", tp_stage_name((tp_stage)s), 100.0 * share[s]);
        printf("\n");
        tp_batch_destroy(settled);
        tp_model_destroy(m);
    }
    return 0;
}
