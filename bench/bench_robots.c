/* bench_robots.c - torpor's side of the MuJoCo comparison (bench/bench_mujoco.py,
 * bench/README.md "Robots"): one scene, W worlds, WARMUP untimed steps from the
 * initial state (a world's first steps make its contacts: dearer than the
 * steps after), then S steps on ONE thread with sleep off, timed by the
 * process's CPU time (so the figure is per core, and other processes on a
 * shared machine count less) and by the wall clock. Prints one line of
 * key=value pairs that the Python script reads:
 *
 *   build/bench_robots SCENE WORLDS STEPS [WARMUP]      (WARMUP default 0)
 *
 * body-steps count the moving bodies of a world (free bodies and articulation
 * links), as MuJoCo's bodies other than the world. Not a test. */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_robots"
#include "bench_util.h"
#include "torpor.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: bench_robots SCENE WORLDS STEPS [WARMUP]\n");
        return 2;
    }
    int worlds = atoi(argv[2]), steps = atoi(argv[3]), warmup = argc == 5 ? atoi(argv[4]) : 0;
    if (worlds < 1 || steps < 1 || warmup < 0) {
        fprintf(stderr, "bench_robots: WORLDS and STEPS must be >= 1, WARMUP >= 0 (got %s %s %s)\n", argv[2],
                argv[3], argc == 5 ? argv[4] : "0");
        return 2;
    }
    tp_model *m = NULL;
    check(tp_model_load(argv[1], &m));
    tp_model_def md = tp_model_settings(m);
    if (md.sleep.enabled) fprintf(stderr, "bench_robots: note: %s has sleep on; the figures compare awake stepping\n", argv[1]);
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = worlds;
    bd.threads = 1;
    tp_batch *b = NULL;
    check(tp_batch_create(m, &bd, &b));
    if (warmup) check(tp_batch_step(b, warmup));
    double c0 = cpu_now(), w0 = now();
    check(tp_batch_step(b, steps));
    double cpu = cpu_now() - c0, wall = now() - w0;
    tp_state_view s;
    check(tp_batch_state(b, &s));
    int faults = 0;
    for (int w = 0; w < worlds; ++w) faults += s.faults[w];
    double ws = (double)worlds * steps;
    int bodies = tp_model_dynamic_body_count(m); /* free bodies and links (torpor.h) */
    printf("engine=torpor worlds=%d steps=%d warmup=%d bodies=%d cpu_s=%.6f wall_s=%.6f world_steps_per_cpu_s=%.1f "
           "body_steps_per_cpu_s=%.1f faults=%d bytes_per_world=%zu\n",
           worlds, steps, warmup, bodies, cpu, wall, ws / cpu, ws * bodies / cpu, faults, tp_batch_memory_bytes(b));
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return 0;
}
