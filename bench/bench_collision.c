/* bench_collision.c - collision stage throughput on one CPU thread (not a
 * timed test; figures go to bench/README.md):
 *   - narrowphase pairs per second for each of the 21 shape pairs, the upper
 *     shape resting on the lower one, tilted a little so the work is general;
 *   - broadphase (boxes, sort, sweep) time and box tests for 100, 1,000 and
 *     10,000 bodies in one world, and the whole stage (tp_collide_world).
 * Usage: bench_collision [scale], scale multiplies the repetitions (default 1). */
#define _POSIX_C_SOURCE 199309L
#define BENCH_NAME "bench_collision"
#include "bench_util.h"
#include "collision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the shapes given by type and size alone (a convex hull needs a model's polytope) */
#define FIXED_SHAPES TP_SHAPE_CONVEX

static const char *const NAMES[FIXED_SHAPES] = {"box", "ball", "cylinder", "capsule", "wedge", "corner_wedge"};

/* size, highest z and where it is (identity pose), lowest z */
static const float SIZE[FIXED_SHAPES][3] = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {2, 1, 1}, {1, 1, 1}, {1, 1, 1}};
static const float TOP[FIXED_SHAPES][3] = {{0, 0, 0.5f}, {0, 0, 0.5f}, {0, 0, 0.4903926f},
                                             {0, 0, 0.5f}, {0, -0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}};
static const float BOTTOM[FIXED_SHAPES] = {-0.5f, -0.5f, -0.4903926f, -0.5f, -0.5f, -0.5f};

static volatile int sink;

static void bench_narrowphase(int scale)
{
    printf("narrowphase (upper shape resting on lower, 5 mm penetration, tilted 0.02 rad)\n");
    printf("  %-28s %8s %14s\n", "pair", "points", "pairs/s");
    const int reps = 200000 * scale;
    for (int lo = 0; lo < FIXED_SHAPES; ++lo)
        for (int up = lo; up < FIXED_SHAPES; ++up) {
            tp_vec3 pl = tp_v3(0, 0, 0);
            tp_vec3 pu = tp_v3(TOP[lo][0], TOP[lo][1], TOP[lo][2] - BOTTOM[up] - 0.005f);
            tp_quat qu = tp_q_normalize(tp_q(0.01f, -0.006f, 0.2f, 1.0f));
            tp_manifold m;
            int points = 0;
            double t0 = now();
            for (int i = 0; i < reps; ++i) {
                pu.x += (i & 1) ? 1e-6f : -1e-6f; /* defeat hoisting */
                points += tp_collide_shapes(lo, SIZE[lo], pl, tp_q_identity(), up, SIZE[up], pu, qu,
                                            TP_CONTACT_MARGIN, &m);
            }
            double dt = now() - t0;
            sink = points;
            char name[40];
            snprintf(name, sizeof name, "%s-%s", NAMES[lo], NAMES[up]);
            printf("  %-28s %8.2f %14.3g\n", name, (double)points / reps, reps / dt);
        }
}

/* A static ground and n dynamic bodies of mixed shapes on a square grid with
 * 1 m spacing, two layers, jittered and tilted (xorshift numbers). */
typedef struct scene {
    tp_world wd;
    tp_body_model *model;
    float *pos, *quat, *friction;
    uint8_t *flags, *sleep;
} scene;

static uint32_t rng = 2463534242u;
static float frand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return (float)(rng >> 8) * (1.0f / 16777216.0f);
}

static void scene_build(scene *s, int n)
{
    int bodies = n + 1, cols = 1;
    while (cols * cols * 2 < n) cols++;
    memset(s, 0, sizeof *s);
    s->model = calloc((size_t)bodies, sizeof *s->model);
    s->pos = calloc((size_t)bodies * 3, sizeof(float));
    s->quat = calloc((size_t)bodies * 4, sizeof(float));
    s->friction = calloc((size_t)bodies, sizeof(float));
    s->flags = calloc((size_t)bodies, 1);
    s->sleep = calloc((size_t)bodies, 1);
    for (int b = 0; b < bodies; ++b) {
        tp_body_model *m = &s->model[b];
        m->friction = s->friction[b] = 0.6f;
        if (b == 0) {
            m->type = TP_BODY_STATIC;
            m->shape = TP_SHAPE_BOX;
            m->size[0] = m->size[1] = 2.0f * (float)cols + 4.0f;
            m->size[2] = 1.0f;
            s->pos[2] = -0.5f;
            s->quat[3] = 1.0f;
            continue;
        }
        int i = b - 1, cell = i / 2, layer = i % 2;
        m->type = TP_BODY_DYNAMIC;
        m->shape = (uint8_t)(frand() * 6.0f);
        m->size[0] = 0.5f + 0.5f * frand();
        m->size[1] = 0.5f + 0.5f * frand();
        m->size[2] = 0.5f + 0.5f * frand();
        if (m->shape == TP_SHAPE_CAPSULE && m->size[0] < m->size[1]) m->size[0] = m->size[1] + 0.1f;
        s->pos[3 * b] = (float)(cell % cols) + 0.3f * (frand() - 0.5f);
        s->pos[3 * b + 1] = (float)(cell / cols) + 0.3f * (frand() - 0.5f);
        s->pos[3 * b + 2] = 0.45f + 0.9f * (float)layer + 0.1f * (frand() - 0.5f);
        tp_q_store(s->quat + 4 * b, tp_q_normalize(tp_q(0.2f * (frand() - 0.5f), 0.2f * (frand() - 0.5f),
                                                        frand() - 0.5f, 1.0f)));
    }
    s->wd.bodies = bodies;
    s->wd.model = s->model;
    s->wd.pos = s->pos;
    s->wd.quat = s->quat;
    s->wd.friction = s->friction;
    s->wd.flags = s->flags;
    s->wd.sleep_state = s->sleep;
}

static void scene_free(scene *s)
{
    free(s->model);
    free(s->pos);
    free(s->quat);
    free(s->friction);
    free(s->flags);
    free(s->sleep);
}

static void bench_world(int scale)
{
    printf("\none world, mixed shapes on a square grid, two layers, static ground\n");
    printf("  %8s %14s %12s %10s %16s %10s\n", "bodies", "broadphase ms", "box tests", "pairs", "collide_world ms",
           "contacts");
    const int sizes[3] = {100, 1000, 10000};
    for (int k = 0; k < 3; ++k) {
        scene s;
        scene_build(&s, sizes[k]);
        int capacity = 64 * sizes[k] + 64;
        void *scratch = malloc(tp_collide_scratch_bytes(s.wd.bodies, capacity));
        tp_contact *out = malloc((size_t)capacity * sizeof(tp_contact));
        int reps = scale * (sizes[k] >= 10000 ? 5 : (sizes[k] >= 1000 ? 50 : 500));
        int64_t tests = 0;
        int pairs = 0;
        double t0 = now();
        for (int r = 0; r < reps; ++r) {
            tp_broadphase bp;
            tp_broadphase_begin(&bp, &s.wd, TP_CONTACT_MARGIN, scratch);
            int a, b;
            pairs = 0;
            while (tp_broadphase_next(&bp, &a, &b)) pairs++;
            tests = bp.tests;
        }
        double t_bp = (now() - t0) / reps;
        int n = 0, overflow = 0;
        t0 = now();
        for (int r = 0; r < reps; ++r) n = tp_collide_world(&s.wd, scratch, out, capacity, &overflow);
        double t_all = (now() - t0) / reps;
        printf("  %8d %14.3f %12lld %10d %16.3f %10d\n", sizes[k], 1e3 * t_bp, (long long)tests, pairs, 1e3 * t_all,
               n);
        free(scratch);
        free(out);
        scene_free(&s);
    }
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1) scale = 1;
    bench_narrowphase(scale);
    bench_world(scale);
    return 0;
}
