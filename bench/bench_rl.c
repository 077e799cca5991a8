/* bench_rl.c - a reinforcement-learning loop: act, step, read, reset a few worlds.
 *
 * Each step of the loop
 *   1. applies a force to one dynamic body in every `act_every`-th world (the
 *      "action"; a host write, so on CUDA a per-world copy each way);
 *   2. steps the batch;
 *   3. reads the state of every world (tp_batch_state: positions, body_awake);
 *   4. resets `resets` worlds (episodes ending; on CUDA drawn on the device).
 * It reports world-steps per second of the loop and the time of each part. On
 * the CUDA backend this measures csrc/mirror.c (before it, every write copied
 * the whole batch both ways) and the device reset. Not a test: figures go to
 * bench/README.md (CPU) and docs/gpu-results.md (GPU).
 *
 *   build/bench_rl [scene] [worlds] [steps] [cpu|cuda] [act_every] [resets]
 *   defaults: scenes/tower.json 1024 120 cpu 4 8 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_rl"
#include "bench_util.h"
#include "torpor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int arg_int(int argc, char **argv, int i, int fallback, int min)
{
    if (argc <= i) return fallback;
    char *end = NULL;
    long v = strtol(argv[i], &end, 10);
    if (*end || v < min || v > 1000000000L) {
        fprintf(stderr, "bench_rl: argument %d must be an integer >= %d, got \"%s\"\n", i, min, argv[i]);
        exit(2);
    }
    return (int)v;
}

/* The last dynamic body of the template (the top of a tower). */
static int last_dynamic_body(const tp_model *m)
{
    for (int i = tp_model_body_count(m) - 1; i >= 0; --i) {
        tp_body_def d;
        check(tp_model_body(m, i, &d));
        if (d.type == TP_BODY_DYNAMIC) return i;
    }
    fprintf(stderr, "bench_rl: the scene has no dynamic body to act on\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *scene = argc > 1 ? argv[1] : "scenes/tower.json";
    int worlds = arg_int(argc, argv, 2, 1024, 1), steps = arg_int(argc, argv, 3, 120, 1);
    const char *backend = argc > 4 ? argv[4] : "cpu";
    int act_every = arg_int(argc, argv, 5, 4, 1), resets = arg_int(argc, argv, 6, 8, 0);
    if (strcmp(backend, "cpu") != 0 && strcmp(backend, "cuda") != 0) {
        fprintf(stderr, "bench_rl: backend must be cpu or cuda, got \"%s\"\n", backend);
        return 2;
    }
    if (resets > worlds) resets = worlds;
    tp_model *m;
    check(tp_model_load(scene, &m));
    int body = last_dynamic_body(m);
    tp_batch_def def = tp_default_batch_def();
    def.worlds = worlds;
    def.backend = strcmp(backend, "cuda") == 0 ? TP_BACKEND_CUDA : TP_BACKEND_CPU;
    tp_batch *b;
    check(tp_batch_create(m, &def, &b));
    check(tp_batch_step(b, 1)); /* the CUDA graph is captured at the first step */
    int *reset_list = malloc((size_t)(resets > 0 ? resets : 1) * sizeof(int));
    const float force[3] = {5.0f, 0.0f, 0.0f};
    double phase[4] = {0.0, 0.0, 0.0, 0.0}; /* act, step, read, reset */
    long awake = 0;
    tp_state_view s;
    double start = now();
    for (int k = 0; k < steps; ++k) {
        double t0 = now();
        for (int w = k % act_every; w < worlds; w += act_every) check(tp_batch_apply_force(b, w, body, force, NULL));
        double t1 = now();
        check(tp_batch_step(b, 1));
        double t2 = now();
        check(tp_batch_state(b, &s));
        awake += s.awake_count[k % worlds];
        double t3 = now();
        for (int r = 0; r < resets; ++r) reset_list[r] = (int)(((long)k * resets + r) % worlds);
        tp_world_select listed = tp_world_list(reset_list, resets);
        check(tp_batch_reset_worlds(b, &listed));
        double t4 = now();
        phase[0] += t1 - t0;
        phase[1] += t2 - t1;
        phase[2] += t3 - t2;
        phase[3] += t4 - t3;
    }
    double total = now() - start;

    printf("scene %s, %d worlds, %d steps, backend %s, force on every %d-th world, %d resets per step\n", scene,
           worlds, steps, backend, act_every, resets);
    printf("RL loop: %.0f world-steps/s (%.3f s)\n", (double)worlds * steps / total, total);
    const char *names[4] = {"act (forces)", "tp_batch_step", "read (tp_batch_state)", "reset"};
    for (int i = 0; i < 4; ++i)
        printf("  %-22s %8.3f ms per loop step (%5.1f %%)\n", names[i], 1e3 * phase[i] / steps, 100.0 * phase[i] / total);
    printf("  (on CUDA the step is an asynchronous graph launch: its device time shows in the first\n"
           "   call that copies, the first act's pull or the read)\n");
    printf("mean awake bodies in a sampled world: %.2f\n", (double)awake / steps);
    free(reset_list);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return 0;
}
