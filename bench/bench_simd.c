/* bench_simd.c - the CPU contact solver with and without its vector lanes
 * (csrc/solver_simd.c): per-step process CPU time of scenes with sleep off,
 * one world, one thread, for TP_SIMD_OFF, SSE2 and AVX2 (where the CPU has it),
 * runs interleaved, best and median of `rounds`; the state hashes must agree.
 *
 *   build/bench_simd [rounds] [scene:steps ...]   (from the source tree)
 *   default: 5 rounds of scenes/pyramid.json:300 scenes/pyramid3d.json:30 scenes/tower.json:3000
 *
 * Process CPU time rather than wall time: the machine is shared. */
#define _POSIX_C_SOURCE 200809L
#include "torpor.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The scene with sleep off (as `torpor run --sleep off`). */
static tp_model *load_sleep_off(const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        fprintf(stderr, "%s: %s\n", path, err.text);
        exit(2);
    }
    json_t *s = json_object_get(root, "sleep");
    if (!json_is_object(s)) {
        s = json_object();
        json_object_set_new(root, "sleep", s);
    }
    json_object_set_new(s, "enabled", json_false());
    char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(root);
    tp_model *m = NULL;
    if (tp_model_load_string(text, path, &m) != TP_OK) {
        fprintf(stderr, "%s\n", tp_last_error());
        exit(2);
    }
    free(text);
    return m;
}

/* CPU seconds per step of `steps` steps from the scene's start; *hash gets the state hash. */
static double run(const tp_model *m, tp_simd simd, int steps, uint64_t *hash)
{
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = 1;
    bd.threads = 1;
    bd.backend = TP_BACKEND_CPU;
    bd.simd = simd;
    tp_batch *b = NULL;
    if (tp_batch_create(m, &bd, &b) != TP_OK) {
        fprintf(stderr, "%s\n", tp_last_error());
        exit(2);
    }
    double t0 = cpu_seconds();
    tp_batch_step(b, steps);
    double t = cpu_seconds() - t0;
    tp_batch_state_hash(b, hash);
    tp_batch_destroy(b);
    return t / steps;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 100) rounds = 5;
    const char *defaults[] = {"scenes/pyramid.json:300", "scenes/pyramid3d.json:30",
                              "scenes/tower.json:3000"};
    int n_scenes = argc > 2 ? argc - 2 : 3;
    tp_simd modes[3] = {TP_SIMD_OFF, TP_SIMD_SSE2, TP_SIMD_AVX2};
    const char *names[3] = {"off", "sse2", "avx2"};
    __builtin_cpu_init();
    int n_modes = __builtin_cpu_supports("avx2") ? 3 : 2;
    printf("| scene | steps | simd | CPU ms/step best | median | vs off (best) |\n|---|---:|---|---:|---:|---:|\n");
    for (int s = 0; s < n_scenes; ++s) {
        char path[1024];
        snprintf(path, sizeof path, "%s", argc > 2 ? argv[2 + s] : defaults[s]);
        char *colon = strrchr(path, ':');
        int steps = 300;
        if (colon) {
            steps = atoi(colon + 1);
            *colon = 0;
        }
        tp_model *m = load_sleep_off(path);
        double t[3][100];
        uint64_t h[3] = {0};
        for (int r = 0; r < rounds; ++r)
            for (int i = 0; i < n_modes; ++i) t[i][r] = run(m, modes[i], steps, &h[i]);
        double best_off = 0.0;
        for (int i = 0; i < n_modes; ++i) {
            qsort(t[i], (size_t)rounds, sizeof(double), cmp);
            if (i == 0) best_off = t[i][0];
            const char *base = strrchr(path, '/');
            printf("| %s | %d | %s | %.3f | %.3f | %.2fx |%s\n", base ? base + 1 : path, steps, names[i], 1e3 * t[i][0],
                   1e3 * t[i][rounds / 2], best_off / t[i][0], h[i] == h[0] ? "" : " HASH DIFFERS");
        }
        tp_model_destroy(m);
    }
    return 0;
}
