/* bench.c - `torpor bench`: scenes x world counts x sleep on/off, one table.
 *
 *   torpor bench [FILE.json] [--scenes a.json,b.json] [--worlds 16,128] [--sleep on,off]
 *                [--seconds T] [--threads N] [--backend cpu|cuda|auto]
 *
 * FILE.json (bench/default.json) holds {"scenes": [...], "worlds": [...],
 * "sleep": ["on", "off"], "seconds": T, "threads": N}; command-line lists
 * replace its entries. Each case loads the scene (with sleep.enabled forced
 * on or off), runs T simulated seconds and reports:
 *   world-steps/s and body-steps/s over the whole run (dynamic bodies);
 *   body-steps/s per thread;
 *   body-steps/s of the steps that started with at least 99% of the worlds
 *   all asleep ("settled"; every world's bodies counted), the figure that
 *   sleep is for (a world or two that never settles does not hide it);
 *   all-asleep time across worlds (median, p95, max; simulated s), or how many
 *   worlds never slept;
 *   memory per world (tp_batch_memory_bytes) and bytes per body per world
 *   beyond the contact buffers.
 *   the share of the stepping time in each stage group (CPU backend,
 *   tp_batch_def.profile_stages: collide, color, solve, finish). */
#include "cli.h"
#include "shard.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_LIST 64

typedef struct bench_plan {
    const char *scenes[BENCH_MAX_LIST];
    int scene_count;
    long worlds[BENCH_MAX_LIST];
    int world_count;
    int sleep[2];   /* sleep modes to run: values 1 (on) and/or 0 (off) */
    int sleep_count;
    double seconds;
    long threads;
    tp_backend backend;
    json_t *file;   /* keeps the strings of the plan file alive */
} bench_plan;

#define BENCH_GROUPS 4 /* stage groups shown: collide, color, solve, finish */

typedef struct bench_result {
    double wall, world_steps_s, body_steps_s, asleep_body_steps_s;
    double asleep_median, asleep_p95, asleep_max;
    int never_asleep, bodies;
    long steps;
    size_t mem_world, mem_contacts;
    long long overflow;
    int faults;
    double stage_share[BENCH_GROUPS]; /* fraction of the staged time per group; < 0 when not measured */
    int refused;                      /* the case was refused with a message (steps do not fit) */
} bench_result;

/* The column's group of each stage (tp_stage): collide, color, solve, finish. */
static int stage_group(int stage)
{
    switch (stage) {
    case TP_STAGE_COLLIDE: case TP_STAGE_SORT: case TP_STAGE_ISLANDS: case TP_STAGE_WAKE: case TP_STAGE_WARM_START:
        return 0;
    case TP_STAGE_CONSTRAINTS: return 1;
    case TP_STAGE_SOLVE: case TP_STAGE_ARTICULATIONS: return 2;
    default: return 3; /* plan, finish, sleep */
    }
}

static void bench_usage(FILE *f)
{
    fprintf(f, "usage: torpor bench [PLAN.json] [--scenes A.json,B.json] [--worlds 16,128] [--sleep on,off]\n"
               "                    [--seconds T] [--threads N] [--backend cpu|cuda|auto]\n"
               "  PLAN.json: {\"scenes\": [...], \"worlds\": [...], \"sleep\": [\"on\", \"off\"], \"seconds\": T}\n"
               "  A scene is a file or a bare name: tower is scenes/tower.json in the current directory,\n"
               "  else in the source tree's scenes/ (%s).\n", TP_SCENES_DIR);
}

/* ---------------------------------------------------------------- plan */

static int add_scene(bench_plan *p, const char *s)
{
    if (p->scene_count == BENCH_MAX_LIST) {
        fprintf(stderr, "torpor bench: at most %d scenes\n", BENCH_MAX_LIST);
        return 0;
    }
    p->scenes[p->scene_count++] = s;
    return 1;
}

static int add_worlds(bench_plan *p, const char *text)
{
    long n;
    if (!tp_cli_parse_int("--worlds", text, 1, TP_MAX_WORLDS, &n)) return 0;
    if (p->world_count == BENCH_MAX_LIST) {
        fprintf(stderr, "torpor bench: at most %d world counts\n", BENCH_MAX_LIST);
        return 0;
    }
    p->worlds[p->world_count++] = n;
    return 1;
}

static int add_sleep(bench_plan *p, const char *text)
{
    int on = strcmp(text, "on") == 0, off = strcmp(text, "off") == 0;
    if (!on && !off) {
        fprintf(stderr, "torpor bench: sleep: expected on or off, got \"%s\"\n", text);
        return 0;
    }
    for (int i = 0; i < p->sleep_count; ++i)
        if (p->sleep[i] == on) return 1;
    p->sleep[p->sleep_count++] = on;
    return 1;
}

/* Split a comma-separated list in place and add each item. */
static int add_list(bench_plan *p, char *list, int (*add)(bench_plan *, const char *))
{
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ","))
        if (!add(p, item)) return 0;
    return 1;
}

static int add_scene_item(bench_plan *p, const char *s) { return add_scene(p, s); }

/* Read the plan file; its lists apply where the command line gives none. */
static int read_plan_file(bench_plan *p, const char *path, int *have)
{
    json_error_t err;
    p->file = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!p->file) {
        fprintf(stderr, "torpor bench: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
        return 0;
    }
    const char *key;
    json_t *v;
    json_object_foreach(p->file, key, v) {
        int ok = 1;
        size_t i;
        json_t *e;
        if (strcmp(key, "scenes") == 0 && json_is_array(v) && !have[0]) {
            json_array_foreach(v, i, e) ok = ok && json_is_string(e) && add_scene(p, json_string_value(e));
        } else if (strcmp(key, "worlds") == 0 && json_is_array(v) && !have[1]) {
            json_array_foreach(v, i, e) {
                char buf[32];
                snprintf(buf, sizeof buf, "%lld", json_is_integer(e) ? (long long)json_integer_value(e) : -1LL);
                ok = ok && add_worlds(p, buf);
            }
        } else if (strcmp(key, "sleep") == 0 && json_is_array(v) && !have[2]) {
            json_array_foreach(v, i, e) ok = ok && json_is_string(e) && add_sleep(p, json_string_value(e));
        } else if (strcmp(key, "seconds") == 0 && json_is_number(v) && !have[3]) {
            p->seconds = json_number_value(v);
            ok = p->seconds > 0.0 && p->seconds <= 1e6;
        } else if (strcmp(key, "threads") == 0 && json_is_integer(v) && !have[4]) {
            p->threads = (long)json_integer_value(v);
            ok = p->threads >= 0 && p->threads <= 4096;
        } else if (strcmp(key, "scenes") && strcmp(key, "worlds") && strcmp(key, "sleep") && strcmp(key, "seconds") &&
                   strcmp(key, "threads")) {
            fprintf(stderr, "torpor bench: %s: unknown key \"%s\" (scenes, worlds, sleep, seconds, threads)\n", path,
                    key);
            return 0;
        }
        if (!ok) {
            fprintf(stderr, "torpor bench: %s: \"%s\" has a bad value (scenes: array of paths; worlds: array of "
                            "integers >= 1; sleep: array of \"on\"/\"off\"; seconds: number > 0; threads: integer >= 0)\n",
                    path, key);
            return 0;
        }
    }
    return 1;
}

static int parse_backend(const char *text, tp_backend *out)
{
    if (strcmp(text, "cpu") == 0) *out = TP_BACKEND_CPU;
    else if (strcmp(text, "cuda") == 0) *out = TP_BACKEND_CUDA;
    else if (strcmp(text, "auto") == 0) *out = TP_BACKEND_AUTO;
    else {
        fprintf(stderr, "torpor bench: --backend: expected cpu, cuda or auto, got \"%s\"\n", text);
        return 0;
    }
    return 1;
}

/* One option with its value (argv strings: lists are split in place); `have`
 * marks what the command line gave, which the plan file then leaves alone. */
static int parse_option(bench_plan *p, const char *a, char *v, int *have)
{
    if (!v) {
        fprintf(stderr, "torpor bench: %s needs a value\n", a);
        return 0;
    }
    static const char *const names[5] = {"--scenes", "--worlds", "--sleep", "--seconds", "--threads"};
    for (int i = 0; i < 5; ++i)
        if (strcmp(a, names[i]) == 0) have[i] = 1;
    if (strcmp(a, "--scenes") == 0) return add_list(p, v, add_scene_item);
    if (strcmp(a, "--worlds") == 0) return add_list(p, v, add_worlds);
    if (strcmp(a, "--sleep") == 0) return add_list(p, v, add_sleep);
    if (strcmp(a, "--seconds") == 0) return tp_cli_parse_double(a, v, 1e-6, 1e6, &p->seconds);
    if (strcmp(a, "--threads") == 0) return tp_cli_parse_int(a, v, 0, 4096, &p->threads);
    if (strcmp(a, "--backend") == 0) return parse_backend(v, &p->backend);
    static const char *const known[] = {"--scenes", "--worlds", "--sleep", "--seconds", "--threads", "--backend", "--help"};
    return tp_cli_known_option("torpor bench", a, known, (int)(sizeof known / sizeof known[0]));
}

static int parse_plan(int argc, char **argv, bench_plan *p)
{
    memset(p, 0, sizeof *p);
    p->seconds = 2.0;
    int have[5] = {0, 0, 0, 0, 0};
    const char *plan_file = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            bench_usage(stdout);
            exit(0);
        }
        if (strncmp(a, "--", 2) == 0) {
            char *v = i + 1 < argc ? argv[++i] : NULL;
            if (!parse_option(p, a, v, have)) return 0;
        } else if (!plan_file) {
            plan_file = a;
        } else {
            fprintf(stderr, "torpor bench: unexpected argument \"%s\" (the plan is \"%s\")\n", a, plan_file);
            return 0;
        }
    }
    if (!plan_file && !have[0]) { /* the documented default plan */
        plan_file = "bench/default.json";
        FILE *f = fopen(plan_file, "r");
        if (!f) {
            fprintf(stderr, "torpor bench: no plan given, and the default plan %s is not here (run from the source "
                            "tree, or give PLAN.json or --scenes)\n", plan_file);
            return 0;
        }
        fclose(f);
        fprintf(stderr, "torpor bench: no plan given; running the default plan %s\n", plan_file);
    }
    if (plan_file && !read_plan_file(p, plan_file, have)) return 0;
    if (p->world_count == 0) p->worlds[p->world_count++] = 64;
    if (p->sleep_count == 0) p->sleep[p->sleep_count++] = 1;
    if (p->scene_count == 0) {
        fprintf(stderr, "torpor bench: no scenes (give a plan file or --scenes)\n");
        return 0;
    }
    return 1;
}

static void free_plan(bench_plan *p)
{
    if (p->file) json_decref(p->file);
}

/* ---------------------------------------------------------------- one case */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, p95 and max of the all-asleep times of the worlds that slept. */
static void asleep_stats(double *t, int worlds, bench_result *r)
{
    int n = 0;
    for (int w = 0; w < worlds; ++w)
        if (t[w] >= 0.0) t[n++] = t[w];
    r->never_asleep = worlds - n;
    r->asleep_median = r->asleep_p95 = r->asleep_max = -1.0;
    if (n == 0) return;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    r->asleep_median = t[n / 2];
    int k = (int)ceil(0.95 * n) - 1;
    r->asleep_p95 = t[k < 0 ? 0 : k];
    r->asleep_max = t[n - 1];
}

/* Step the batch for `steps` steps, timing all steps and those that started
 * with at least 99% of the run's worlds all asleep. Over MPI ranks every rank
 * steps its block: the asleep worlds are summed over the ranks each step (so
 * all agree on "settled"), and the ranks stop together on an error. */
static tp_status run_case(tp_batch *batch, const tp_shard *split, long steps, double *asleep_t, bench_result *r,
                          long *asleep_steps, double *asleep_wall)
{
    int W = tp_batch_worlds(batch);
    tp_state_view s;
    tp_status st = TP_OK;
    for (int w = 0; w < W; ++w) asleep_t[w] = -1.0;
    int settled = 0;
    double start = tp_now_seconds();
    for (long k = 0; k < steps && !tp_shard_any(st != TP_OK); ++k) {
        double t0 = tp_now_seconds();
        st = tp_batch_step(batch, 1);
        /* The counts read is part of the timed step: on CUDA the step is an
         * asynchronous graph launch and this is where the host waits for it. */
        if (st == TP_OK) st = tp_batch_counts(batch, &s);
        if (st == TP_OK && settled) {
            *asleep_wall += tp_now_seconds() - t0;
            ++*asleep_steps;
        }
        int asleep_worlds = 0;
        for (int w = 0; st == TP_OK && w < W; ++w) {
            int asleep = s.awake_count[w] == 0 && s.sleeping_count[w] > 0;
            if (!asleep) asleep_t[w] = -1.0;
            else if (asleep_t[w] < 0.0) asleep_t[w] = tp_batch_time(batch);
            asleep_worlds += asleep;
        }
        settled = 100LL * tp_shard_sum(asleep_worlds) >= 99LL * split->total_worlds;
    }
    r->wall = tp_shard_max(tp_now_seconds() - start); /* the slowest rank's */
    *asleep_wall = tp_shard_max(*asleep_wall);
    if (st == TP_OK && (st = tp_batch_counts(batch, &s)) == TP_OK) { /* (also when no step ran) */
        for (int w = 0; w < W; ++w) {
            r->overflow += s.contact_overflow[w];
            r->faults += s.faults[w] != 0;
        }
    }
    r->overflow = tp_shard_sum(r->overflow);
    r->faults = (int)tp_shard_sum(r->faults);
    return st;
}

/* Fractions of the profiled time per stage group (-1 when nothing was timed);
 * the groups cover every stage, so the shares add up to 100 %. */
static void stage_shares(const tp_batch *batch, bench_result *r)
{
    double t[TP_STAGE_COUNT], total = 0.0;
    tp_batch_stage_seconds(batch, t);
    for (int g = 0; g < BENCH_GROUPS; ++g) r->stage_share[g] = 0.0;
    for (int k = 0; k < TP_STAGE_COUNT; ++k) {
        total += t[k];
        r->stage_share[stage_group(k)] += t[k];
    }
    for (int g = 0; g < BENCH_GROUPS; ++g) r->stage_share[g] = total > 0.0 ? r->stage_share[g] / total : -1.0;
}

static tp_status bench_case(const bench_plan *p, const char *scene, long worlds, int sleep_on, bench_result *r)
{
    memset(r, 0, sizeof *r);
    tp_model *model = NULL;
    tp_status st = tp_cli_load_scene(scene, sleep_on, &model);
    if (st != TP_OK) return st;
    tp_shard split; /* this rank's block of the worlds (all of them in one process) */
    if (!tp_shard_split((int)worlds, &split)) {
        tp_model_destroy(model);
        return TP_ERR_OUT_OF_MEMORY; /* (bench checked the world counts against the ranks) */
    }
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = split.worlds;
    bd.first_world = split.first_world;
    bd.total_worlds = split.total_worlds;
    bd.device = p->backend == TP_BACKEND_CPU ? 0 : tp_shard_device(&split);
    bd.threads = (int)p->threads;
    bd.backend = p->backend;
    bd.profile_stages = 1; /* the CPU backend times its stages; the CUDA one ignores it */
    tp_batch *batch = NULL;
    double *asleep_t = malloc((size_t)worlds * sizeof *asleep_t); /* rank 0 gathers every world's */
    if (!asleep_t) st = TP_ERR_OUT_OF_MEMORY;
    if (st == TP_OK) st = tp_batch_create(model, &bd, &batch);
    if (st == TP_OK && !tp_cli_steps_for("bench", p->seconds, tp_model_settings(model).dt, &r->steps)) {
        st = TP_ERR_CAPACITY;
        r->refused = 1; /* the message is printed (by every rank: the same seconds and dt) */
    }
    if (!tp_shard_any(st != TP_OK)) { /* (a failure on another rank: the caller says so) */
        r->bodies = tp_model_dynamic_body_count(model);
        r->mem_world = tp_batch_memory_bytes(batch);
        r->mem_contacts = tp_batch_contact_memory_bytes(batch);
        long asleep_steps = 0;
        double asleep_wall = 0.0;
        st = run_case(batch, &split, r->steps, asleep_t, r, &asleep_steps, &asleep_wall);
        tp_shard_gather_worlds(&split, asleep_t, sizeof *asleep_t, asleep_t);
        double ws = (double)worlds * (double)r->steps / (r->wall > 0.0 ? r->wall : 1e-9);
        r->world_steps_s = ws;
        r->body_steps_s = ws * r->bodies;
        r->asleep_body_steps_s = asleep_steps > 0 && asleep_wall > 0.0
                                     ? (double)worlds * (double)asleep_steps * r->bodies / asleep_wall : -1.0;
        asleep_stats(asleep_t, (int)worlds, r);
        stage_shares(batch, r);
    }
    free(asleep_t);
    tp_shard_free(&split);
    tp_batch_destroy(batch);
    tp_model_destroy(model);
    return st;
}

/* ---------------------------------------------------------------- table */

static void print_header(FILE *f, const bench_plan *p, int threads)
{
    int ranks = tp_shard_ranks();
    fprintf(f, "torpor bench: %g simulated s per case, backend %s, %d CPU thread%s%s", p->seconds,
            tp_backend_name(p->backend), threads, threads == 1 ? "" : "s", ranks > 1 ? " per rank" : "");
    if (ranks > 1) fprintf(f, ", %d MPI ranks (worlds split in contiguous blocks; wall s: the slowest rank)", ranks);
    fprintf(f, "\n");
    fprintf(f, "%-22s %6s %5s %6s %8s %10s %10s %10s %10s %22s %9s %9s  %s\n", "scene", "worlds", "sleep", "steps",
            "wall s", "wsteps/s", "bsteps/s", "bsteps/s/t", "settled", "all-asleep med/p95/max", "KiB/world",
            "B/body", "stages % collide/color/solve/finish");
}

static void fmt_time(char *buf, size_t n, double t)
{
    if (t < 0.0) snprintf(buf, n, "-");
    else snprintf(buf, n, "%.2f", t);
}

static void print_row(FILE *f, const char *scene, long worlds, int sleep_on, int threads, const bench_result *r)
{
    char med[16], p95[16], mx[16], asleep[64], phase[32];
    fmt_time(med, sizeof med, r->asleep_median);
    fmt_time(p95, sizeof p95, r->asleep_p95);
    fmt_time(mx, sizeof mx, r->asleep_max);
    if (r->never_asleep) snprintf(asleep, sizeof asleep, "%s/%s/%s (%d never)", med, p95, mx, r->never_asleep);
    else snprintf(asleep, sizeof asleep, "%s/%s/%s", med, p95, mx);
    if (r->asleep_body_steps_s < 0.0) snprintf(phase, sizeof phase, "-");
    else snprintf(phase, sizeof phase, "%.3g", r->asleep_body_steps_s);
    const char *base = strrchr(scene, '/');
    double beyond = r->bodies > 0 ? (double)(r->mem_world - r->mem_contacts) / (double)r->bodies : 0.0;
    char stages[64] = "-";
    if (r->stage_share[0] >= 0.0)
        snprintf(stages, sizeof stages, "%.0f/%.0f/%.0f/%.0f", 100.0 * r->stage_share[0], 100.0 * r->stage_share[1],
                 100.0 * r->stage_share[2], 100.0 * r->stage_share[3]);
    fprintf(f, "%-22s %6ld %5s %6ld %8.2f %10.3g %10.3g %10.3g %10s %22s %9.1f %9.0f  %s\n", base ? base + 1 : scene,
            worlds, sleep_on ? "on" : "off", r->steps, r->wall, r->world_steps_s, r->body_steps_s,
            r->body_steps_s / (threads > 0 ? threads : 1), phase, asleep, (double)r->mem_world / 1024.0, beyond, stages);
    if (r->overflow || r->faults)
        fprintf(f, "  ^ warning: contact overflow %lld points, %d faulted worlds\n", r->overflow, r->faults);
    fflush(f);
}

int tp_cmd_bench(int argc, char **argv)
{
    bench_plan p;
    if (!parse_plan(argc, argv, &p)) {
        bench_usage(stderr);
        free_plan(&p);
        return TP_EXIT_USAGE;
    }
    for (int j = 0; j < p.world_count; ++j)
        if (p.worlds[j] < tp_shard_ranks()) {
            if (tp_shard_rank() == 0)
                fprintf(stderr, "torpor bench: --worlds %ld over %d MPI ranks: every rank needs at least one world\n",
                        p.worlds[j], tp_shard_ranks());
            free_plan(&p);
            return TP_EXIT_USAGE;
        }
    FILE *out = tp_shard_rank() == 0 ? stdout : NULL; /* rank 0 prints the table and the progress */
    int threads = p.threads > 0 ? (int)p.threads : tp_cli_default_threads();
    if (out) print_header(out, &p, threads);
    int code = TP_EXIT_OK, total = p.scene_count * p.world_count * p.sleep_count, done = 0;
    double start = tp_now_seconds();
    for (int i = 0; i < p.scene_count && code == TP_EXIT_OK; ++i)
        for (int j = 0; j < p.world_count && code == TP_EXIT_OK; ++j)
            for (int k = 0; k < p.sleep_count && code == TP_EXIT_OK; ++k) {
                /* progress on stderr (the table on stdout stays clean): a case can take minutes */
                ++done;
                if (out)
                    fprintf(stderr, "torpor bench: case %d of %d: %s, %ld worlds, sleep %s (%.0f s so far)\n", done,
                            total, p.scenes[i], p.worlds[j], p.sleep[k] ? "on" : "off", tp_now_seconds() - start);
                bench_result r;
                tp_status st = bench_case(&p, p.scenes[i], p.worlds[j], p.sleep[k], &r);
                int failed = tp_shard_any(st != TP_OK);
                if (st != TP_OK) code = r.refused ? TP_EXIT_USAGE : tp_cli_report(st, p.scenes[i]);
                else if (failed) code = TP_EXIT_FAILURE; /* another rank said why */
                else if (out) print_row(out, p.scenes[i], p.worlds[j], p.sleep[k], threads * tp_shard_ranks(), &r);
            }
    if (out) fprintf(out, "wsteps/s = world-steps per second; bsteps/s = dynamic body-steps per second (/t: per thread);\n"
           "settled = bsteps/s over the steps that began with >= 99%% of worlds asleep; all-asleep times in simulated s;\n"
           "B/body = bytes per dynamic body per world beyond the contact buffers;\n"
           "stages = share of the stepping time (CPU backend), adding up to 100: collide = broadphase, narrowphase,\n"
           "sort, islands, wakes, warm start; color = constraints and coloring; solve = substeps and articulations;\n"
           "finish = plan, forces, fault checks, sleep update.\n");
    free_plan(&p);
    return code;
}
