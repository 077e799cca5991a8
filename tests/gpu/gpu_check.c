/* gpu_check.c - the device check of the CUDA backend, one step of
 * tests/gpu/run.sh per process (docs/gpu-results.md says how to run it and
 * records what it printed).
 *
 *   gpu_check RESULTS probe
 *   gpu_check RESULTS smoke
 *   gpu_check RESULTS parity [--worlds N] [--steps N] [--capacity N] SCENE...
 *   gpu_check RESULTS refused SCENE...
 *   gpu_check RESULTS writes [--worlds N] SCENE...
 *   gpu_check RESULTS bench [--worlds N,N,...] [--lanes N,N,...] [--awake | --asleep] [--settle-s S] SCENE...
 *
 * Every result is printed and appended to the markdown file RESULTS as soon
 * as it exists (one line each, flushed), so a step cut short by its time
 * limit still leaves everything it measured.
 *
 * probe: the CUDA devices seen (tp_cuda_probe) and whether this build has
 *   the backend; exit 1 without a device.
 * smoke: CUDA batches of scenes/tower.json (2 worlds: 16 lanes each in the
 *   solve) and scenes/jenga.json (3 worlds: 64 lanes): the fresh worlds
 *   (device reset, cuRAND draws) against the CPU's, then 1 and 30 steps.
 * parity: each scene on both backends, the same worlds and steps; state_hash,
 *   every world's hash, the counts (tp_batch_counts: one copy of every
 *   world's), the joint arrays (tp_batch_joints) and the constraints' and
 *   movers' read-outs and per-world parameters must be equal. --capacity
 *   sets the contact points per world (a small one overflows and collides
 *   worlds whole: kernels/collide_pairs.h). Steps default to 120 for scenes/
 *   and 420 (7 s, past every acceptance case's last event and its sleep) for
 *   tests/scenes/.
 * writes: each scene (with constraints or movers; at least 4 worlds) on
 *   both backends with per-world writes and resets between steps: 30 steps;
 *   world 1's constraints disabled, world 2's movers off, world 3's winch
 *   targets moved; 30 steps; worlds 1 and 3 reset, world 2's movers on; 60
 *   steps; a parity row after each part.
 * refused: each scene must be refused by the CUDA backend at creation, with
 *   TP_ERR_CAPACITY (a world too large for the solve block, docs/cuda.md
 *   "Large worlds"), not run.
 * bench: for each world count (in the order given), each lane count and each
 *   scene, on CUDA: sleep off (every body awake every step) and/or sleep on,
 *   stepped until every world is asleep (at most 10 simulated s or --settle-s
 *   wall s, default 20; the row says whether they all slept) and then timed.
 *   About 1 s of timed steps, ended by a counts read (which waits for the
 *   device); creation and the first two steps (graph capture) are timed
 *   apart. --lanes sets TORPOR_CUDA_SOLVE_LANES before each creation (the
 *   solve's lanes per world), so lane counts share one process and one CUDA
 *   start-up. Device bytes per world from tp_batch_device_memory_bytes.
 *
 * Every status is checked; a failure prints tp_status_name and tp_last_error.
 * A TP_ERR_CUDA ends the process at once (exit 3): CUDA errors are sticky, so
 * every later batch in the process would fail with the first one's message.
 *
 * TORPOR_GPU_CHECK_FAKE exercises this program and run.sh without a GPU
 * (tests/gpu/test_check.sh): `cpu` runs the "device" side on the CPU backend
 * (every row says FAKE; nothing ran on a GPU), refusing what the CUDA backend
 * refuses (worlds over the solve block's bodies); `fault` is `cpu`
 * whose first device step fails with TP_ERR_CUDA; `hang` is `cpu` whose first
 * device step never returns (for run.sh's time limits).
 *
 * Exit status: 0 when every comparison was equal and every run succeeded, 1
 * on a failure, 2 on a usage error, 3 after a device fault. */
#define _POSIX_C_SOURCE 200809L
#include "torpor.h"
#include "torpor_import.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *results_path;
static int failures;

/* The device side: the CUDA backend, or a fake (TORPOR_GPU_CHECK_FAKE). */
enum fake_mode { FAKE_NONE, FAKE_CPU, FAKE_FAULT, FAKE_HANG };
static enum fake_mode fake;
/* Bodies per world above which the CUDA backend refuses a world (docs/cuda.md,
 * "Large worlds"); the fake device refuses them too. */
#define CUDA_MAX_BODIES 9685

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

/* A failed call: one row naming it, the status and tp_last_error. After a
 * CUDA error nothing more can run in this process: exit 3. */
static int failed(const char *scene, const char *what, tp_status st)
{
    report("| %s | %s failed: %s: %s |", scene, what, tp_status_name(st), tp_last_error());
    failures++;
    if (st == TP_ERR_CUDA) {
        report("device fault: CUDA errors are sticky, so the rest of this process is not run (exit 3)");
        exit(3);
    }
    return 1;
}

/* The fake device's stand-in for a CUDA error (the fault and hang modes). */
static tp_status fake_fault(void)
{
    if (fake == FAKE_HANG) {
        report("fake device: the first step hangs (TORPOR_GPU_CHECK_FAKE=hang)");
        for (;;) sleep(60);
    }
    /* tp_last_error keeps the last real failure; the row names the fake */
    report("| fake device | simulated device fault (TORPOR_GPU_CHECK_FAKE=fault) |");
    return TP_ERR_CUDA;
}

/* Steps on the device side (the fake's fault and hang modes act here). */
static tp_status device_step(tp_batch *b, int steps)
{
    static int stepped;
    if (fake >= FAKE_FAULT && !stepped++) return fake_fault();
    return tp_batch_step(b, steps);
}

/* An MJCF or URDF robot (scenes/mjcf/humanoid.xml): read as its imported scene. */
static int is_robot_file(const char *path)
{
    size_t n = strlen(path);
    return (n > 4 && !strcmp(path + n - 4, ".xml")) || (n > 5 && !strcmp(path + n - 5, ".urdf"));
}

/* The scene with sleep.enabled forced on or off (-1: as the file says). */
static tp_status load(const char *path, int sleep_on, tp_model **out)
{
    if (sleep_on < 0) return tp_model_load(path, out);
    json_error_t err;
    json_t *root = NULL;
    if (is_robot_file(path)) {
        char *text = NULL;
        if (tp_import_scene(path, &text, NULL) != TP_OK) return tp_model_load(path, out); /* it names the error */
        root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
        tp_free(text);
    } else {
        root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    }
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

/* A batch on the device side: CUDA, or the fake device (the CPU backend,
 * refusing what CUDA refuses). */
static tp_status make_device(const tp_model *m, int worlds, tp_batch **out)
{
    if (fake == FAKE_NONE) return make(m, worlds, TP_BACKEND_CUDA, out);
    *out = NULL;
    if (tp_model_body_count(m) > CUDA_MAX_BODIES) return TP_ERR_CAPACITY; /* tp_last_error: as it was; the row says fake */
    return make(m, worlds, TP_BACKEND_CPU, out);
}

static const char *device_name(void) { return fake ? "FAKE device (cpu backend, not a GPU)" : "cuda"; }

/* Worlds of a and b whose hashes differ (the first in *first), or -1 when a
 * hash could not be read (the failure is reported). */
static int differing_worlds(const char *scene, tp_batch *a, tp_batch *b, int *first)
{
    int n = 0;
    *first = -1;
    for (int w = 0; w < tp_batch_worlds(a); ++w) {
        uint64_t ha = 0, hb = 0;
        tp_status st = tp_batch_world_hash(a, w, &ha);
        if (st == TP_OK) st = tp_batch_world_hash(b, w, &hb);
        if (st != TP_OK) return failed(scene, "tp_batch_world_hash", st), -1;
        if (ha != hb) {
            if (*first < 0) *first = w;
            ++n;
        }
    }
    return n;
}

/* The per-world counts and body_awake of both, as tp_batch_counts gives them
 * (on CUDA after a step: every world's counts in one copy, csrc/mirror.h);
 * -1 when they could not be read (the failure is reported). */
static int counts_equal(const char *scene, tp_batch *cpu, tp_batch *gpu)
{
    tp_state_view a, b;
    tp_status st = tp_batch_counts(cpu, &a);
    if (st == TP_OK) st = tp_batch_counts(gpu, &b);
    if (st != TP_OK) return failed(scene, "tp_batch_counts", st), -1;
    size_t W = (size_t)a.worlds, i32 = sizeof(int32_t);
    return !memcmp(a.awake_count, b.awake_count, W * i32) && !memcmp(a.sleeping_count, b.sleeping_count, W * i32) &&
           !memcmp(a.checking_count, b.checking_count, W * i32) &&
           !memcmp(a.contact_overflow, b.contact_overflow, W * i32) && !memcmp(a.faults, b.faults, W) &&
           !memcmp(a.body_awake, b.body_awake, W * (size_t)a.bodies);
}

/* The joint arrays of both (tp_batch_joints: on CUDA a copy of the worlds the
 * device changed), which the hashes leave out; 1 if equal, 0 if not, -1 when
 * they could not be read (the failure is reported). */
static int joints_equal(const char *scene, tp_batch *cpu, tp_batch *gpu)
{
    tp_joint_view a, b;
    tp_status st = tp_batch_joints(cpu, &a);
    if (st == TP_OK) st = tp_batch_joints(gpu, &b);
    if (st != TP_OK) return failed(scene, "tp_batch_joints", st), -1;
    size_t q = (size_t)a.worlds * (size_t)a.nq * sizeof(float), v = (size_t)a.worlds * (size_t)a.nv * sizeof(float);
    if (a.nq != b.nq || a.nv != b.nv) return 0;
    if (!a.q) return 1; /* no joints */
    return !memcmp(a.q, b.q, q) && !memcmp(a.qd, b.qd, v) && !memcmp(a.f, b.f, v) && !memcmp(a.target_q, b.target_q, v) &&
           !memcmp(a.target_qd, b.target_qd, v);
}

/* The constraints' and movers' read-outs of both (on CUDA copies of what
 * the device changed: the constraints' mirror group), which the hashes
 * leave out: each world's value, force and impulse of every constraint, its
 * length (a winch moves it) and enabled flag, each mover's target, active
 * flag and force. 1 if equal, 0 if not, -1 when they could not be read (the
 * failure is reported). */
static int links_equal(const char *scene, tp_batch *cpu, tp_batch *gpu)
{
    const tp_model *m = tp_batch_model(cpu);
    size_t W = (size_t)tp_batch_worlds(cpu), C = (size_t)tp_model_constraint_count(m), M = (size_t)tp_model_mover_count(m);
    if (C + M == 0) return 1;
    size_t floats = W * (C * 7 + M * 5); /* value, force, impulse[3], length, enabled; target[4], force */
    float *a = calloc(floats + 1, sizeof(float)), *b = calloc(floats + 1, sizeof(float));
    uint8_t *aa = calloc(W * M + 1, 1), *ab = calloc(W * M + 1, 1);
    if (!a || !b || !aa || !ab) {
        free(a), free(b), free(aa), free(ab);
        return failed(scene, "allocation of the read-outs", TP_ERR_OUT_OF_MEMORY), -1;
    }
    tp_status st = TP_OK;
    for (int side = 0; side < 2 && st == TP_OK; ++side) {
        tp_batch *bt = side ? gpu : cpu;
        float *f = side ? b : a;
        if (C) {
            st = tp_batch_constraints(bt, f, f + W * C);
            if (st == TP_OK) st = tp_batch_constraint_impulses(bt, f + 2 * W * C);
            if (st == TP_OK) st = tp_batch_constraint_params(bt, TP_CONS_LENGTH, f + 5 * W * C);
            if (st == TP_OK) st = tp_batch_constraint_params(bt, TP_CONS_ENABLED, f + 6 * W * C);
        }
        if (M && st == TP_OK) st = tp_batch_movers(bt, f + 7 * W * C, side ? ab : aa, f + 7 * W * C + 4 * W * M);
    }
    int equal = st == TP_OK && !memcmp(a, b, floats * sizeof(float)) && !memcmp(aa, ab, W * M);
    free(a), free(b), free(aa), free(ab);
    if (st != TP_OK) return failed(scene, "the constraint or mover read-outs", st), -1;
    return equal;
}

/* One comparison row: steps taken so far on both, counts, hashes, joint arrays, equal or not. */
static void compare_row(const char *scene, tp_batch *cpu, tp_batch *gpu, double seconds)
{
    int counts = counts_equal(scene, cpu, gpu); /* first: the counts read is then the first pull after the step */
    if (counts < 0) return;
    uint64_t hc = 0, hg = 0;
    tp_status st = tp_batch_state_hash(cpu, &hc);
    if (st == TP_OK) st = tp_batch_state_hash(gpu, &hg);
    if (st != TP_OK) {
        failed(scene, "tp_batch_state_hash", st);
        return;
    }
    int first = -1, n = differing_worlds(scene, cpu, gpu, &first);
    if (n < 0) return;
    int joints = joints_equal(scene, cpu, gpu);
    if (joints < 0) return;
    int links = links_equal(scene, cpu, gpu);
    if (links < 0) return;
    int equal = hc == hg && n == 0 && counts && joints && links;
    if (!equal) failures++;
    report("| %s | %d | %lld | %016llx | %016llx | %s | %.2f |", scene, tp_batch_worlds(cpu),
           (long long)tp_batch_step_count(gpu), (unsigned long long)hc, (unsigned long long)hg,
           equal ? "yes" : n ? "NO (worlds differ)" : !counts ? "NO (counts)" : !joints ? "NO (joint arrays)"
                 : !links ? "NO (constraint or mover read-outs)" : "NO (state_hash)",
           seconds);
    if (n) report("|  | first differing world %d of %d differing |  |  |  |  |  |", first, n);
}

static void parity_scene(const char *scene, int worlds, int steps)
{
    tp_model *m = NULL;
    tp_batch *cpu = NULL, *gpu = NULL;
    tp_status st = tp_model_load(scene, &m);
    if (st != TP_OK) {
        failed(scene, "load", st);
        return;
    }
    double t0 = now();
    if ((st = make_device(m, worlds, &gpu)) != TP_OK) failed(scene, "creation on the device", st);
    else if ((st = make(m, worlds, TP_BACKEND_CPU, &cpu)) != TP_OK) failed(scene, "creation on the cpu", st);
    else if ((st = tp_batch_step(cpu, steps)) != TP_OK) failed(scene, "cpu step", st);
    else if ((st = device_step(gpu, steps)) != TP_OK) failed(scene, "device step", st);
    else compare_row(scene, cpu, gpu, now() - t0);
    tp_batch_destroy(gpu);
    tp_batch_destroy(cpu);
    tp_model_destroy(m);
}

/* The writes of the writes mode to one batch: `phase` 0: world 1's
 * constraints all disabled, world 2's movers all off, world 3's winches'
 * targets 0.5 m further; 1: worlds 1 and 3 reset, world 2's movers on
 * again. Worlds past the batch's are left out. */
static tp_status links_writes(tp_batch *b, int phase)
{
    const tp_model *m = tp_batch_model(b);
    int W = tp_batch_worlds(b), C = tp_model_constraint_count(m), M = tp_model_mover_count(m);
    if (W < 4 || M > 64) return TP_OK;
    const int32_t w1 = 1, w2 = 2, w3 = 3, both[2] = {1, 3};
    const tp_world_select s1 = tp_world_list(&w1, 1), s2 = tp_world_list(&w2, 1), s3 = tp_world_list(&w3, 1),
                          s13 = tp_world_list(both, 2);
    size_t n = (size_t)W * (size_t)(C > 0 ? C : 1);
    float *winch = calloc(n, sizeof(float)), *target = calloc(n, sizeof(float)), zeros[64] = {0};
    uint8_t on[64];
    if (!winch || !target) {
        free(winch), free(target);
        return TP_ERR_OUT_OF_MEMORY;
    }
    for (int k = 0; k < M; ++k) on[k] = (uint8_t)phase;
    tp_status st = TP_OK;
    if (phase == 0 && C) {
        float *off = C <= 64 ? zeros : calloc((size_t)C, sizeof(float));
        st = off ? tp_batch_set_constraint_params(b, TP_CONS_ENABLED, &s1, off) : TP_ERR_OUT_OF_MEMORY;
        if (off != zeros) free(off);
        if (st == TP_OK) st = tp_batch_constraint_params(b, TP_CONS_WINCH, winch);
        if (st == TP_OK) st = tp_batch_constraint_params(b, TP_CONS_WINCH_TARGET, target);
        float *t3 = target + 3 * (size_t)C;
        for (int k = 0; k < C && st == TP_OK; ++k)
            if (winch[3 * (size_t)C + (size_t)k] != 0.0f) t3[k] += 0.5f;
        if (st == TP_OK) st = tp_batch_set_constraint_params(b, TP_CONS_WINCH_TARGET, &s3, t3);
    }
    if (st == TP_OK && phase == 1) st = tp_batch_reset_worlds(b, &s13);
    if (st == TP_OK && M) st = tp_batch_set_mover_enabled(b, &s2, on, NULL);
    free(winch), free(target);
    return st;
}

/* writes: a scene with constraints or movers on both backends, per-world
 * writes and resets between steps (links_writes): 30 steps, the writes, 30
 * steps, the resets, 60 steps, a comparison row after each part. What the
 * device then shows: the writes pushed through the mirror before the next
 * step, the reset kernel giving a world the model's tables, the read-outs
 * pulled. */
static void writes_scene(const char *scene, int worlds)
{
    tp_model *m = NULL;
    tp_batch *cpu = NULL, *gpu = NULL;
    tp_status st = tp_model_load(scene, &m);
    if (st != TP_OK) {
        failed(scene, "load", st);
        return;
    }
    double t0 = now();
    if ((st = make_device(m, worlds, &gpu)) != TP_OK) failed(scene, "creation on the device", st);
    else if ((st = make(m, worlds, TP_BACKEND_CPU, &cpu)) != TP_OK) failed(scene, "creation on the cpu", st);
    else {
        const int steps[3] = {30, 30, 60};
        for (int part = 0; part < 3; ++part) {
            if (part > 0 && (st = links_writes(cpu, part - 1)) != TP_OK) {
                failed(scene, "a cpu write or reset", st);
                break;
            }
            if (part > 0 && (st = links_writes(gpu, part - 1)) != TP_OK) {
                failed(scene, "a device write or reset", st);
                break;
            }
            if ((st = tp_batch_step(cpu, steps[part])) != TP_OK) {
                failed(scene, "cpu step", st);
                break;
            }
            if ((st = device_step(gpu, steps[part])) != TP_OK) {
                failed(scene, "device step", st);
                break;
            }
            compare_row(scene, cpu, gpu, now() - t0);
        }
    }
    tp_batch_destroy(gpu);
    tp_batch_destroy(cpu);
    tp_model_destroy(m);
}

static void table_header(void)
{
    report("| scene | worlds | steps | state_hash cpu | state_hash %s | equal | s |", device_name());
    report("|---|---|---|---|---|---|---|");
}

/* Fresh, 1 step, 30 steps of `worlds` worlds of `scene` on both backends. */
static void smoke_scene(const char *scene, int worlds)
{
    tp_model *m = NULL;
    tp_batch *cpu = NULL, *gpu = NULL;
    tp_status st = tp_model_load(scene, &m);
    if (st != TP_OK) {
        failed(scene, "load", st);
        return;
    }
    double t0 = now();
    if ((st = make_device(m, worlds, &gpu)) != TP_OK) failed(scene, "creation on the device", st);
    else if ((st = make(m, worlds, TP_BACKEND_CPU, &cpu)) != TP_OK) failed(scene, "creation on the cpu", st);
    else {
        compare_row(scene, cpu, gpu, now() - t0);
        const int steps[2] = {1, 29};
        for (int i = 0; i < 2; ++i) {
            if ((st = tp_batch_step(cpu, steps[i])) != TP_OK) {
                failed(scene, "cpu step", st);
                break;
            }
            if ((st = device_step(gpu, steps[i])) != TP_OK) {
                failed(scene, "device step", st);
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
static void smoke(void)
{
    report("smoke on %s: tower 2 worlds, jenga 3 worlds: fresh, 1 step, 30 steps", device_name());
    table_header();
    smoke_scene("scenes/tower.json", 2);
    smoke_scene("scenes/jenga.json", 3);
}

/* A scene the CUDA backend must refuse at creation: a world too large for
 * the solve block (TP_ERR_CAPACITY). */
static void refused(const char *scene)
{
    tp_model *m = NULL;
    tp_batch *b = NULL;
    tp_status st = tp_model_load(scene, &m);
    if (st != TP_OK) {
        failed(scene, "load", st);
        return;
    }
    int joints = tp_model_joint_count(m), bodies = tp_model_body_count(m);
    st = make_device(m, 1, &b);
    int ok = st == TP_ERR_CAPACITY && bodies > CUDA_MAX_BODIES;
    if (!ok) failures++;
    report("| %s | %d bodies, %d joints | %s: %s %s | %s |", scene, bodies, joints, device_name(),
           tp_status_name(st), st == TP_OK ? "" : fake ? "(fake refusal)" : tp_last_error(),
           ok ? "refused as expected" : "NOT as expected");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Wall seconds per step over `steps` steps (the counts read waits for them). */
static double time_steps(tp_batch *b, int steps, tp_status *st)
{
    tp_state_view v;
    *st = tp_batch_counts(b, &v);
    double t0 = now();
    if (*st == TP_OK) *st = device_step(b, steps);
    if (*st == TP_OK) *st = tp_batch_counts(b, &v);
    return (now() - t0) / (double)steps;
}

/* 1 when every world is asleep; *awake_worlds counts the others. */
static tp_status all_asleep(tp_batch *b, int *awake_worlds, int *asleep)
{
    tp_state_view v;
    tp_status st = tp_batch_counts(b, &v);
    if (st != TP_OK) return st;
    *awake_worlds = 0;
    for (int w = 0; w < v.worlds; ++w) *awake_worlds += v.awake_count[w] > 0;
    *asleep = *awake_worlds == 0;
    return TP_OK;
}

/* Wall seconds of sleep-on settling at most (bench --settle-s). */
static double settle_limit_s = 20.0;

/* One bench row: sleep off (awake) or on (all asleep after settling). */
static void bench_case(const char *scene, int worlds, int lanes, int sleep_on)
{
    tp_model *m = NULL;
    tp_batch *b = NULL;
    tp_status st = load(scene, sleep_on, &m);
    if (st != TP_OK) {
        failed(scene, "load", st);
        return;
    }
    char lanes_text[16] = "default";
    if (lanes > 0) {
        snprintf(lanes_text, sizeof lanes_text, "%d", lanes);
        setenv("TORPOR_CUDA_SOLVE_LANES", lanes_text, 1);
    } else {
        unsetenv("TORPOR_CUDA_SOLVE_LANES");
    }
    double t0 = now();
    if ((st = make_device(m, worlds, &b)) != TP_OK) {
        failed(scene, "creation on the device", st);
        tp_model_destroy(m);
        return;
    }
    double create_s = now() - t0;
    int dyn = tp_model_dynamic_body_count(m), awake_worlds = 0, asleep = 0;
    char note[96] = "";
    t0 = now();
    st = device_step(b, 2); /* the graphs are captured at the first step */
    double first_s = now() - t0;
    if (st == TP_OK && sleep_on) {
        int settle = 0;
        double t_settle = now();
        while (st == TP_OK && (st = all_asleep(b, &awake_worlds, &asleep)) == TP_OK && !asleep && settle < 600 &&
               now() - t_settle < settle_limit_s) {
            st = device_step(b, 20); /* at most 10 simulated s */
            settle += 20;
        }
        snprintf(note, sizeof note, "%s after %d steps (%d worlds awake)", asleep ? "all asleep" : "NOT all asleep",
                 settle + 2, awake_worlds);
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
        failed(scene, "bench step", st);
    } else {
        double ws = (double)worlds / per_step;
        report("| %s | %d | %s | %s | %d | %.3f | %.3g | %.3g | %zu | %.1f | %.2f | %s |", scene, worlds, lanes_text,
               sleep_on ? "all asleep" : "awake (sleep off)", timed, 1e3 * per_step, ws, ws * dyn,
               fake ? tp_batch_memory_bytes(b) : tp_batch_device_memory_bytes(b), create_s, first_s, note);
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
    for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
        char *end = NULL;
        long v = strtol(s, &end, 10);
        if (*end || v < 1 || v > 1000000 || n == 16) return 0;
        list[n++] = (int)v;
    }
    return n;
}

static int usage(void)
{
    fprintf(stderr, "usage: gpu_check RESULTS.md probe\n"
                    "       gpu_check RESULTS.md smoke\n"
                    "       gpu_check RESULTS.md parity [--worlds N] [--steps N] [--capacity N] SCENE...\n"
                    "       gpu_check RESULTS.md refused SCENE...\n"
                    "       gpu_check RESULTS.md writes [--worlds N] SCENE...\n"
                    "       gpu_check RESULTS.md bench [--worlds N,N,...] [--lanes N,N,...] [--awake | --asleep] "
                    "[--settle-s S] SCENE...\n");
    return 2;
}

static int probe(void)
{
    char why[256] = "";
    int n = fake ? 1 : tp_cuda_probe(why, sizeof why);
    report("probe: %s; CUDA backend built: %s; devices: %d %s", device_name(), tp_cuda_built() ? "yes" : "no", n,
           why);
    return n > 0 ? 0 : 1;
}

static enum fake_mode fake_from_env(void)
{
    const char *f = getenv("TORPOR_GPU_CHECK_FAKE");
    if (!f || !*f) return FAKE_NONE;
    if (!strcmp(f, "cpu")) return FAKE_CPU;
    if (!strcmp(f, "fault")) return FAKE_FAULT;
    if (!strcmp(f, "hang")) return FAKE_HANG;
    fprintf(stderr, "gpu_check: TORPOR_GPU_CHECK_FAKE=%s: must be cpu, fault or hang\n", f);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 3) return usage();
    results_path = argv[1];
    const char *mode = argv[2];
    fake = fake_from_env();
    if (!strcmp(mode, "probe")) return probe();
    int worlds[16] = {8}, nworlds = 1, lanes[16] = {0}, nlanes = 1, steps = 0, nscenes = 0, runs = 3;
    const char *scenes[64];
    int is_smoke = !strcmp(mode, "smoke"), is_parity = !strcmp(mode, "parity"), is_refused = !strcmp(mode, "refused"),
        is_bench = !strcmp(mode, "bench"), is_writes = !strcmp(mode, "writes");
    if (!is_smoke && !is_parity && !is_refused && !is_bench && !is_writes) return usage();
    for (int i = 3; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--worlds") && v && !is_refused) {
            if (!(nworlds = parse_list(argv[++i], worlds))) return usage();
        } else if (!strcmp(a, "--lanes") && v && is_bench) {
            if (!(nlanes = parse_list(argv[++i], lanes))) return usage();
        } else if (!strcmp(a, "--awake") && is_bench) {
            runs = 1;
        } else if (!strcmp(a, "--asleep") && is_bench) {
            runs = 2;
        } else if (!strcmp(a, "--settle-s") && v && is_bench) {
            settle_limit_s = atof(argv[++i]);
            if (!(settle_limit_s > 0.0)) return usage();
        } else if (!strcmp(a, "--capacity") && v && is_parity) {
            if ((capacity = atoi(argv[++i])) < 1) return usage();
        } else if (!strcmp(a, "--steps") && v && is_parity) {
            if ((steps = atoi(argv[++i])) < 1) return usage();
        } else if (a[0] == '-' || nscenes == 64) {
            return usage();
        } else {
            scenes[nscenes++] = a;
        }
    }
    if (is_smoke != (nscenes == 0)) return usage(); /* smoke takes no scene, the others at least one */
    if (!fake && !tp_cuda_built()) {
        report("gpu_check: this build has no CUDA backend");
        return 1;
    }
    if (is_smoke) {
        smoke();
    } else if (is_parity) {
        table_header();
        for (int i = 0; i < nscenes; ++i)
            parity_scene(scenes[i], worlds[0], steps ? steps : !strncmp(scenes[i], "tests/", 6) ? 420 : 120);
    } else if (is_writes) {
        table_header();
        for (int i = 0; i < nscenes; ++i) writes_scene(scenes[i], worlds[0] < 4 ? 4 : worlds[0]);
    } else if (is_refused) {
        report("| scene | size | %s creation | result |", device_name());
        report("|---|---|---|---|");
        for (int i = 0; i < nscenes; ++i) refused(scenes[i]);
    } else {
        report("| scene | worlds | solve lanes | run | steps timed | ms/step | world-steps/s | body-steps/s | "
               "%s bytes/world | create s | first 2 steps s | note |",
               fake ? "FAKE: host" : "device");
        report("|---|---|---|---|---|---|---|---|---|---|---|---|");
        /* World count by world count, so a step cut short has every scene at the smaller counts. */
        for (int k = 0; k < nworlds; ++k)
            for (int l = 0; l < nlanes; ++l)
                for (int i = 0; i < nscenes; ++i)
                    for (int sleep_on = 0; sleep_on < 2; ++sleep_on)
                        if (runs & (1 << sleep_on)) bench_case(scenes[i], worlds[k], lanes[l], sleep_on);
    }
    report("gpu_check %s: %d failure(s)", mode, failures);
    return failures != 0;
}
