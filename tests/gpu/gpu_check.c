/* gpu_check.c - the device check of the CUDA backend in one process per call
 * (tests/gpu/run.sh drives it; docs/gpu-results.md records what it printed).
 *
 *   gpu_check RESULTS smoke
 *   gpu_check RESULTS parity [--worlds N] [--steps N] [--capacity N] SCENE...
 *   gpu_check RESULTS bench  [--worlds N,N,...] [--awake] SCENE...
 *
 * Every result is printed and appended to the markdown file RESULTS as soon
 * as it exists (one line each, flushed), so a call cut short by its time limit
 * still leaves everything it measured.
 *
 * smoke: CUDA batches of scenes/tower.json (2 worlds: 16 lanes each in the
 *   solve) and scenes/jenga.json (3 worlds: 64 lanes): the fresh worlds
 *   (device reset, cuRAND draws) against the CPU's, then 1 and 30 steps; and
 *   many_pyramids refused on CUDA at creation (too large for the solve block).
 * parity: each scene on both backends, the same worlds and steps in one
 *   process (no CUDA start-up per scene); state_hash, every world's hash and
 *   the counts (tp_batch_counts: one copy of every world's) must be equal.
 *   --capacity sets the contact points per world (a small one overflows and
 *   collides worlds whole: kernels/collide_pairs.h). Steps default to 120 for scenes/ and 420 (7 s, past every
 *   acceptance case's last event and its sleep) for tests/scenes/.
 * bench: each world count (in the order given), each scene on CUDA, twice
 *   (once with --awake):
 *   sleep off (every body awake every step) and sleep on, stepped until every
 *   world is asleep (at most 10 simulated s or 20 wall s; the row says whether
 *   they all slept) and then timed. Wall time of about 1 s of timed
 *   steps, ended by a counts read (which waits for the device); device bytes
 *   per world from tp_batch_device_memory_bytes.
 * Exit status: 0 when every comparison was equal and every run succeeded. */
#define _POSIX_C_SOURCE 200809L
#include "torpor.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *results_path;
static int failures;

/* Print a line and append it to the results file at once. */
static void report(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("%s\n", line);
    fflush(stdout);
    FILE *f = fopen(results_path, "a");
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int failed(const char *what, tp_status st)
{
    report("| %s | failed: %s: %s |", what, tp_status_name(st), tp_last_error());
    failures++;
    return 1;
}

/* The scene with sleep.enabled forced on or off (-1: as the file says). */
static tp_status load(const char *path, int sleep_on, tp_model **out)
{
    if (sleep_on < 0) return tp_model_load(path, out);
    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!root) return tp_model_load(path, out); /* let the loader name the error */
    json_t *sleep = json_object_get(root, "sleep");
    if (!json_is_object(sleep)) {
        sleep = json_object();
        json_object_set_new(root, "sleep", sleep);
    }
    json_object_set_new(sleep, "enabled", json_boolean(sleep_on));
    char *text = json_dumps(root, 0);
    tp_status st = text ? tp_model_load_string(text, path, out) : TP_ERR_OUT_OF_MEMORY;
    free(text);
    json_decref(root);
    return st;
}

/* Contact points per world for every batch made (0: the default); parity --capacity. */
static int capacity;

static tp_status make(const tp_model *m, int worlds, tp_backend backend, tp_batch **out)
{
    tp_batch_def d = tp_default_batch_def();
    d.worlds = worlds;
    d.backend = backend;
    d.contact_capacity = capacity;
    return tp_batch_create(m, &d, out);
}

/* Worlds of a and b whose hashes differ; the first in *first. */
static int differing_worlds(tp_batch *a, tp_batch *b, int *first)
{
    int n = 0;
    *first = -1;
    for (int w = 0; w < tp_batch_worlds(a); ++w) {
        uint64_t ha = 0, hb = 0;
        if (tp_batch_world_hash(a, w, &ha) != TP_OK || tp_batch_world_hash(b, w, &hb) != TP_OK || ha != hb) {
            if (*first < 0) *first = w;
            ++n;
        }
    }
    return n;
}

/* The per-world counts and body_awake of both, as tp_batch_counts gives them
 * (on CUDA after a step: every world's counts in one copy, csrc/mirror.h). */
static int counts_equal(tp_batch *cpu, tp_batch *gpu)
{
    tp_state_view a, b;
    if (tp_batch_counts(cpu, &a) != TP_OK || tp_batch_counts(gpu, &b) != TP_OK) return 0;
    size_t W = (size_t)a.worlds, i32 = sizeof(int32_t);
    return !memcmp(a.awake_count, b.awake_count, W * i32) && !memcmp(a.sleeping_count, b.sleeping_count, W * i32) &&
           !memcmp(a.checking_count, b.checking_count, W * i32) &&
           !memcmp(a.contact_overflow, b.contact_overflow, W * i32) && !memcmp(a.faults, b.faults, W) &&
           !memcmp(a.body_awake, b.body_awake, W * (size_t)a.bodies);
}

/* One comparison row: steps taken so far on both, counts, hashes, equal or not. */
static void compare_row(const char *scene, tp_batch *cpu, tp_batch *gpu, double seconds)
{
    int counts = counts_equal(cpu, gpu); /* first: the counts read is then the first pull after the step */
    uint64_t hc = 0, hg = 0;
    tp_batch_state_hash(cpu, &hc);
    tp_batch_state_hash(gpu, &hg);
    int first = -1, n = differing_worlds(cpu, gpu, &first);
    int equal = hc == hg && n == 0 && counts;
    if (!equal) failures++;
    report("| %s | %d | %lld | %016llx | %016llx | %s | %.2f |", scene, tp_batch_worlds(cpu),
           (long long)tp_batch_step_count(gpu), (unsigned long long)hc, (unsigned long long)hg,
           equal ? "yes" : (n ? "NO (worlds differ)" : (counts ? "NO (state_hash)" : "NO (counts)")), seconds);
    if (n) report("|  | first differing world %d of %d differing |  |  |  |  |  |", first, n);
}

static int parity_scene(const char *scene, int worlds, int steps)
{
    tp_model *m = NULL;
    tp_batch *cpu = NULL, *gpu = NULL;
    tp_status st = tp_model_load(scene, &m);
    if (st != TP_OK) return failed(scene, st);
    double t0 = now();
    if ((st = make(m, worlds, TP_BACKEND_CPU, &cpu)) != TP_OK || (st = make(m, worlds, TP_BACKEND_CUDA, &gpu)) != TP_OK ||
        (st = tp_batch_step(cpu, steps)) != TP_OK || (st = tp_batch_step(gpu, steps)) != TP_OK)
        failed(scene, st);
    else
        compare_row(scene, cpu, gpu, now() - t0);
    tp_batch_destroy(gpu);
    tp_batch_destroy(cpu);
    tp_model_destroy(m);
    return 0;
}

static void table_header(void)
{
    report("| scene | worlds | steps | state_hash cpu | state_hash cuda | equal | s |");
    report("|---|---|---|---|---|---|---|");
}

static void refused(const char *scene);

/* Fresh, 1 step, 30 steps of `worlds` worlds of `scene` on both backends. */
static void smoke_scene(const char *scene, int worlds)
{
    tp_model *m = NULL;
    tp_batch *cpu = NULL, *gpu = NULL;
    tp_status st = tp_model_load(scene, &m);
    if (st != TP_OK) {
        failed(scene, st);
        return;
    }
    double t0 = now();
    if ((st = make(m, worlds, TP_BACKEND_CPU, &cpu)) != TP_OK || (st = make(m, worlds, TP_BACKEND_CUDA, &gpu)) != TP_OK) {
        failed("smoke: batch creation", st);
    } else {
        compare_row(scene, cpu, gpu, now() - t0);
        const int steps[2] = {1, 29};
        for (int i = 0; i < 2; ++i) {
            if ((st = tp_batch_step(cpu, steps[i])) != TP_OK || (st = tp_batch_step(gpu, steps[i])) != TP_OK) {
                failed("smoke: step", st);
                break;
            }
            compare_row(scene, cpu, gpu, now() - t0);
        }
    }
    tp_batch_destroy(gpu);
    tp_batch_destroy(cpu);
    tp_model_destroy(m);
}

/* The tower runs its solve with 16 lanes per world (two worlds in one warp,
 * __syncwarp over half a warp), jenga with 64 (two warps, a named barrier);
 * both collide by pairs (kernels/collide_pairs.h). */
static int smoke(void)
{
    report("smoke: %d CUDA device(s); tower 2 worlds, jenga 3 worlds: fresh, 1 step, 30 steps", tp_cuda_device_count());
    table_header();
    smoke_scene("scenes/tower.json", 2);
    smoke_scene("scenes/jenga.json", 3);
    refused("scenes/many_pyramids.json");
    return 0;
}

/* A world too large for the solve block's shared memory must be refused at
 * creation (TP_ERR_CAPACITY, docs/cuda.md "Large worlds"), not run slowly. */
static void refused(const char *scene)
{
    tp_model *m = NULL;
    tp_batch *b = NULL;
    if (tp_model_load(scene, &m) != TP_OK) {
        report("refusal: %s: could not load (%s)", scene, tp_last_error());
        failures++;
        return;
    }
    tp_status st = make(m, 1, TP_BACKEND_CUDA, &b);
    int ok = st == TP_ERR_CAPACITY;
    if (!ok) failures++;
    report("refusal: %s (%d bodies) on CUDA: %s %s %s", scene, tp_model_body_count(m),
           ok ? "refused as expected:" : "NOT refused as expected:", tp_status_name(st),
           st == TP_OK ? "" : tp_last_error());
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Wall seconds per step over `steps` steps (the counts read waits for them). */
static double time_steps(tp_batch *b, int steps, tp_status *st)
{
    tp_state_view v;
    *st = tp_batch_counts(b, &v);
    double t0 = now();
    if (*st == TP_OK) *st = tp_batch_step(b, steps);
    if (*st == TP_OK) *st = tp_batch_counts(b, &v);
    return (now() - t0) / (double)steps;
}

static int all_asleep(tp_batch *b, int *awake_worlds)
{
    tp_state_view v;
    if (tp_batch_counts(b, &v) != TP_OK) return 0;
    *awake_worlds = 0;
    for (int w = 0; w < v.worlds; ++w) *awake_worlds += v.awake_count[w] > 0;
    return *awake_worlds == 0;
}

/* One bench row: sleep off (awake) or on (all asleep after settling). */
static void bench_case(const char *scene, int worlds, int sleep_on)
{
    tp_model *m = NULL;
    tp_batch *b = NULL;
    tp_status st = load(scene, sleep_on, &m);
    if (st != TP_OK) {
        failed(scene, st);
        return;
    }
    double t0 = now();
    if ((st = make(m, worlds, TP_BACKEND_CUDA, &b)) != TP_OK) {
        failed(scene, st);
        tp_model_destroy(m);
        return;
    }
    double create_s = now() - t0;
    int dyn = tp_model_dynamic_body_count(m), awake_worlds = 0;
    char note[96] = "";
    st = tp_batch_step(b, 2); /* the graphs are captured at the first step */
    if (st == TP_OK && sleep_on) {
        int settle = 0;
        double t_settle = now();
        while (st == TP_OK && settle < 600 && now() - t_settle < 20.0 && !all_asleep(b, &awake_worlds)) {
            st = tp_batch_step(b, 20); /* at most 10 simulated s, 20 wall s */
            settle += 20;
        }
        snprintf(note, sizeof note, "%s after %d steps (%d worlds awake)",
                 awake_worlds ? "NOT all asleep" : "all asleep", settle + 2, awake_worlds);
    }
    double per_step = 0.0;
    int timed = 0;
    if (st == TP_OK) {
        per_step = time_steps(b, 5, &st); /* then about 1 s of steps, 5..300 */
        timed = per_step > 0.0 ? (int)(1.0 / per_step) : 300;
        timed = timed < 5 ? 5 : timed > 300 ? 300 : timed;
        if (st == TP_OK) per_step = time_steps(b, timed, &st);
    }
    if (st != TP_OK) {
        failed(scene, st);
    } else {
        double ws = (double)worlds / per_step;
        report("| %s | %d | %s | %d | %.3f | %.3g | %.3g | %zu | %.1f | %s |", scene, worlds,
               sleep_on ? "all asleep" : "awake (sleep off)", timed, 1e3 * per_step, ws, ws * dyn,
               tp_batch_device_memory_bytes(b), create_s, note);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* "1024,4096" into list (at most 16); returns the count, 0 on a bad list. */
static int parse_list(const char *text, int *list)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *s = strtok(buf, ","); s && n < 16; s = strtok(NULL, ",")) {
        char *end = NULL;
        long v = strtol(s, &end, 10);
        if (*end || v < 1 || v > 1000000) return 0;
        list[n++] = (int)v;
    }
    return n;
}

static int usage(void)
{
    fprintf(stderr, "usage: gpu_check RESULTS.md smoke\n"
                    "       gpu_check RESULTS.md parity [--worlds N] [--steps N] [--capacity N] SCENE...\n"
                    "       gpu_check RESULTS.md bench [--worlds N,N,...] [--awake] SCENE...\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3) return usage();
    results_path = argv[1];
    const char *mode = argv[2];
    if (!tp_cuda_built()) {
        report("gpu_check: this build has no CUDA backend");
        return 1;
    }
    if (strcmp(mode, "smoke") == 0) {
        smoke();
        return failures != 0;
    }
    int worlds[16] = {8}, nworlds = 1, steps = 0, nscenes = 0, awake_only = 0;
    const char *scenes[16];
    int is_parity = strcmp(mode, "parity") == 0;
    if (!is_parity && strcmp(mode, "bench") != 0) return usage();
    if (is_parity) table_header();
    else {
        report("| scene | worlds | run | steps timed | ms/step | world-steps/s | body-steps/s | device bytes/world | "
               "create s | note |");
        report("|---|---|---|---|---|---|---|---|---|---|");
    }
    for (int i = 3; i < argc; ++i) {
        if (strcmp(argv[i], "--worlds") == 0 && i + 1 < argc) {
            if (!(nworlds = parse_list(argv[++i], worlds))) return usage();
        } else if (strcmp(argv[i], "--awake") == 0 && !is_parity) {
            awake_only = 1;
        } else if (strcmp(argv[i], "--capacity") == 0 && i + 1 < argc) {
            capacity = atoi(argv[++i]);
            if (capacity < 1) return usage();
        } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            steps = atoi(argv[++i]);
            if (steps < 1) return usage();
        } else if (is_parity) {
            int n = steps ? steps : strncmp(argv[i], "tests/", 6) == 0 ? 420 : 120;
            parity_scene(argv[i], worlds[0], n);
        } else {
            scenes[nscenes++] = argv[i];
            if (nscenes == 16) break;
        }
    }
    /* World count by world count, so a call cut short has every scene at the smaller counts. */
    for (int k = 0; k < nworlds; ++k)
        for (int i = 0; i < nscenes; ++i)
            for (int sleep_on = 0; sleep_on < 2 - awake_only; ++sleep_on) bench_case(scenes[i], worlds[k], sleep_on);
    report("gpu_check %s: %d failure(s)", mode, failures);
    return failures != 0;
}
