/* run.c - `torpor run`: step a scene in N worlds and write what happened.
 *
 * Outputs (docs/outputs.md): summary.json, awake.csv (every K steps),
 * state.csv (final), bodies.csv (with --record-bodies, every K steps), awake.png
 * and, with --snapshot T, snapshot.png (docs/pictures.md); with --record-every K
 * (or --record-worlds, --view) replay.json + replay.bin and with --view the 3D
 * page view.html; with --video FILE a video. Ctrl-C (SIGINT) or SIGTERM stops
 * the run after the current step and still writes what it has; the exit status
 * is then the shell's 128 + signal number (130, 143). The options are
 * run_options.c; the replay and the video run_watch.c. */
#include "cli.h"
#include "output.h"
#include "replay.h"
#include "video.h"

#include "plot.h"
#include "run.h"
#include "shard.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The signal that stopped the run (SIGINT or SIGTERM), 0 while none came. */
static volatile sig_atomic_t tp_interrupted = 0;
static void on_signal(int sig) { tp_interrupted = sig; }

/* Scripted events that did not fire: say so. An event fires before the first
 * step that starts at or after its time (docs/scene-format.md), the rule of
 * csrc/events.c, so one at exactly the end time of the run (no step starts
 * there) has not fired and is counted here. */
static void warn_unfired_events(const tp_model *m, long steps_done, double end_time)
{
    int late = 0;
    double first = 0.0, dt = (double)tp_model_settings(m).dt;
    int n = tp_model_event_count(m);
    for (int i = 0; i < n; ++i) {
        tp_event_def e;
        if (tp_model_event(m, i, &e) != TP_OK) continue;
        double step = ceil(e.time / dt - 1e-6); /* as events.c schedules it */
        if (step < (double)steps_done) continue;
        if (!late++) first = e.time;
    }
    if (late)
        fprintf(stderr, "torpor run: note: %d scripted event%s at or after t = %g s did not fire (the run ended at "
                        "%.3f s; an event fires before a step that starts at or after its time)\n",
                late, late == 1 ? "" : "s", first, end_time);
}

/* Create one directory; an existing directory is fine. */
static int make_one_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return 1;
        errno = ENOTDIR;
    }
    return 0;
}

/* --out DIR, with its missing parents (as mkdir -p). */
static int make_dir(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        fprintf(stderr, "torpor run: --out \"%s\": not a usable directory name\n", path);
        return 0;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i < n; ++i) {
        if (buf[i] != '/' || buf[i - 1] == '/') continue;
        buf[i] = '\0';
        int ok = make_one_dir(buf);
        buf[i] = '/';
        if (!ok) {
            fprintf(stderr, "torpor run: --out %s: cannot create %.*s (%s)\n", path, (int)i, buf, strerror(errno));
            return 0;
        }
    }
    if (make_one_dir(buf)) return 1;
    fprintf(stderr, "torpor run: --out %s: cannot create the directory (%s)\n", path, strerror(errno));
    return 0;
}

/* A run in which every world faulted has its own exit status (TP_EXIT_FAULTED,
 * docs/outputs.md); some faulted worlds are a warning on stderr. */
static int report_faults(const tp_state_view *c, int code)
{
    int faulted = 0;
    for (int w = 0; w < c->worlds; ++w) faulted += c->faults[w] != 0;
    if (faulted == 0) return code;
    if (faulted < c->worlds) {
        fprintf(stderr, "torpor run: warning: %d of %d worlds faulted (their state became non-finite and they "
                        "stopped; \"faults\" in summary.json says which)\n", faulted, c->worlds);
        return code;
    }
    fprintf(stderr, "torpor run: every world (%d of %d) faulted: the state became non-finite and nothing was "
                    "simulated past that; exit status %d\n", faulted, c->worlds, TP_EXIT_FAULTED);
    return code == TP_EXIT_OK ? TP_EXIT_FAULTED : code;
}

/* Default length when neither --seconds nor --steps is given: 2 s. 0 when
 * the steps do not fit (the message is printed). */
static int steps_to_run(const run_options *o, float dt, long *steps)
{
    if (o->have_steps) { *steps = o->steps; return 1; }
    return tp_cli_steps_for("run", o->have_seconds ? o->seconds : 2.0, dt, steps);
}

static int worlds_asleep(const tp_state_view *s)
{
    int n = 0;
    for (int w = 0; w < s->worlds; ++w) n += s->awake_count[w] == 0;
    return n;
}

/* The run's processes: this rank's block of worlds and the view of all of
 * them that rank 0 writes from (csrc/cli/shard.h; one process: the batch's). */
typedef struct run_shard {
    tp_shard split;
    tp_shard_view all;
} run_shard;

/* snapshot.png once the simulated time reaches --snapshot T (to half a step);
 * every rank takes part in the gather, rank 0 draws. */
static void maybe_snapshot(tp_batch *batch, const run_options *o, run_shard *sh, int *taken)
{
    double dt = (double)tp_model_settings(tp_batch_model(batch)).dt;
    if (!o->have_snapshot || *taken || tp_batch_time(batch) < o->snapshot_time - 0.5 * dt) return;
    tp_state_view local;
    int ok = tp_batch_state(batch, &local) == TP_OK;
    if (!tp_shard_any(!ok)) tp_shard_gather_whole(&sh->all, &sh->split, &local);
    else if (!ok) fprintf(stderr, "torpor run: no snapshot.png: %s\n", tp_last_error());
    char path[4096];
    snprintf(path, sizeof path, "%s/snapshot.png", o->out_dir);
    *taken = -1;
    if (sh->split.rank == 0 && ok && tp_plot_snapshot(path, tp_batch_model(batch), tp_batch_time(batch), &sh->all.view))
        *taken = 1;
}

/* One sample for awake.csv (and bodies.csv): the counters of every world
 * (and, for bodies.csv, their state) gathered on rank 0, which writes them. */
static tp_status record_sample(tp_run_record *rec, tp_batch *batch, run_shard *sh, const tp_state_view *local)
{
    if (rec->record_bodies) tp_shard_gather_whole(&sh->all, &sh->split, local);
    else tp_shard_gather_counts(&sh->all, &sh->split, local);
    return sh->split.rank == 0 ? tp_record_sample(rec, batch, &sh->all.view) : TP_OK;
}

/* One step and what is recorded after it. */
static tp_status step_and_record(tp_batch *batch, tp_run_record *rec, int sample, tp_state_view *view)
{
    tp_status st = tp_batch_step(batch, 1);
    /* Every step: all_asleep_time must be exact to the step. The counters
     * alone are a small copy on CUDA; bodies.csv needs the whole state. */
    if (st == TP_OK) st = tp_batch_counts(batch, view);
    if (st == TP_OK) tp_record_asleep(rec, batch, view);
    if (st == TP_OK && sample && rec->record_bodies) st = tp_batch_state(batch, view);
    return st;
}

/* The stepping loop: record every `every` steps, stop early on Ctrl-C. The
 * ranks of an MPI run agree before each step whether to go on (an error, an
 * interrupt or an unwritable file on any rank stops them all at one step). */
static tp_status run_loop(tp_batch *batch, const run_options *o, long steps, tp_run_record *rec, run_shard *sh,
                          run_watch *wt, long *done, int *snapshot)
{
    tp_progress progress;
    tp_progress_begin(&progress, o->quiet || sh->split.rank != 0);
    tp_state_view view;
    tp_status st = tp_batch_state(batch, &view);
    if (!tp_shard_any(st != TP_OK)) st = record_sample(rec, batch, sh, &view);
    if (st == TP_OK) st = tp_watch_step(wt, batch, 0, steps == 0);
    maybe_snapshot(batch, o, sh, snapshot);
    long s = 0;
    for (; s < steps; ++s) {
        if (tp_shard_any(st != TP_OK || tp_interrupted || rec->io_failed || tp_watch_failed(wt))) break;
        int sample = (s + 1) % o->every == 0 || s + 1 == steps;
        st = step_and_record(batch, rec, sample, &view);
        if (tp_shard_any(st != TP_OK)) break;
        if (sample) st = record_sample(rec, batch, sh, &view);
        if (st == TP_OK) st = tp_watch_step(wt, batch, s + 1, s + 1 == steps || tp_interrupted);
        maybe_snapshot(batch, o, sh, snapshot);
        /* (rank 0's own worlds under MPI: the bar is a rough guide) */
        tp_progress_update(&progress, (double)(s + 1) / (double)steps, tp_batch_time(batch), worlds_asleep(&view),
                           view.worlds);
    }
    tp_progress_end(&progress);
    *done = s;
    return st;
}

/* The end of a run: every world's state, hash and all-asleep time gathered
 * on rank 0, each rank's stepping time beside them. Returns 0 when the state
 * cannot be read or memory runs out (said on stderr). */
static int gather_result(tp_batch *batch, tp_run_record *rec, run_shard *sh, double wall, double *rank_wall,
                         uint64_t *hashes, tp_run_result *out)
{
    tp_state_view local;
    int n = sh->split.worlds, ok = tp_batch_state(batch, &local) == TP_OK;
    if (!ok) fprintf(stderr, "torpor run: cannot read the final state: %s\n", tp_last_error());
    uint64_t *mine = malloc((size_t)n * sizeof *mine);
    ok = ok && mine;
    for (int w = 0; ok && w < n; ++w) ok = tp_batch_world_hash(batch, w, &mine[w]) == TP_OK;
    if (tp_shard_any(!ok)) {
        free(mine);
        return 0;
    }
    tp_shard_gather_whole(&sh->all, &sh->split, &local);
    tp_shard_gather_worlds(&sh->split, mine, sizeof *mine, hashes);
    tp_shard_gather_worlds(&sh->split, rec->all_asleep_time, sizeof(double), rec->all_asleep_time);
    tp_shard_gather_ranks(&sh->split, &wall, sizeof wall, rank_wall);
    free(mine);
    out->state = &sh->all.view;
    out->world_hashes = hashes;
    out->state_hash = tp_world_hashes_combine(hashes, sh->split.total_worlds);
    return 1;
}

/* Step, then write the files (rank 0) and the summary: the run proper, once
 * the batch and the output directory are there. */
static int run_and_write(tp_batch *batch, const tp_model *model, const run_options *o, long steps, run_shard *sh,
                         tp_run_record *rec, run_watch *wt)
{
    int code = TP_EXIT_OK, root = sh->split.rank == 0, ranks = sh->split.ranks;
    long done = 0;
    void (*previous)(int) = signal(SIGINT, on_signal);
    void (*previous_term)(int) = signal(SIGTERM, on_signal); /* `timeout` and `kill` stop a run the same way */
    double start = tp_now_seconds();
    int snapshot = 0;
    tp_status st = run_loop(batch, o, steps, rec, sh, wt, &done, &snapshot);
    double wall = tp_now_seconds() - start - wt->seconds;
    signal(SIGINT, previous);
    signal(SIGTERM, previous_term);
    if (st != TP_OK) code = tp_cli_report(st, o->scene);
    int interrupted = tp_shard_any(tp_interrupted);
    int terminated = tp_shard_any(tp_interrupted == SIGTERM); /* any rank's SIGTERM: 143 on every rank */
    if (root && interrupted) fprintf(stderr, "torpor run: interrupted after %ld of %ld steps; writing what we have\n", done, steps);
    if (root) warn_unfired_events(model, done, tp_batch_time(batch));
    if (root && tp_model_dynamic_body_count(model) == 0 && tp_model_joint_count(model) == 0)
        fprintf(stderr, "torpor run: note: %s has no dynamic bodies; nothing moves\n", o->scene);
    if (root && o->have_snapshot && snapshot == 0)
        fprintf(stderr, "torpor run: --snapshot %g: the run ended at %.3f s, before that time; no snapshot.png\n",
                o->snapshot_time, tp_batch_time(batch));
    double *rank_wall = malloc((size_t)ranks * sizeof *rank_wall);
    uint64_t *hashes = malloc((size_t)sh->split.total_worlds * sizeof *hashes);
    tp_run_result result;
    if (tp_shard_any(!rank_wall || !hashes) || !gather_result(batch, rec, sh, wall, rank_wall, hashes, &result)) {
        if (root) fprintf(stderr, "torpor run: the final state could not be gathered; no summary.json\n");
        code = TP_EXIT_FAILURE;
    } else if (root) {
        for (int r = 0; r < ranks; ++r) wall = rank_wall[r] > wall ? rank_wall[r] : wall;
        tp_run_info info = {o->scene, o->out_dir, done, steps, wall, interrupted, snapshot == 1, ranks,
                            sh->split.rank_first, sh->split.rank_worlds, rank_wall};
        if (!tp_record_finish(rec, batch, &info, &result) && code == TP_EXIT_OK) code = TP_EXIT_FAILURE;
        if (code == TP_EXIT_OK && !o->quiet) tp_print_summary(stdout, batch, rec, &info, &result);
        code = report_faults(result.state, code);
    }
    if (!tp_watch_finish(wt, o, batch) && code == TP_EXIT_OK) code = TP_EXIT_FAILURE;
    free(rank_wall);
    free(hashes);
    if (code == TP_EXIT_OK && interrupted) code = terminated ? TP_EXIT_TERMINATED : TP_EXIT_INTERRUPTED;
    return code;
}

/* This rank's batch: its block of the worlds (tp_batch_def.first_world) and,
 * on CUDA, its device (local rank modulo the devices there are). */
static tp_status create_batch(const tp_model *model, const run_options *o, const tp_shard *split, tp_batch **out)
{
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = split->worlds;
    bd.first_world = split->first_world;
    bd.total_worlds = split->total_worlds;
    bd.backend = o->backend;
    bd.device = o->backend == TP_BACKEND_CPU ? 0 : tp_shard_device(split);
    bd.simd = o->simd;
    bd.threads = (int)o->threads;
    bd.has_seed = o->have_seed;
    bd.seed = o->seed;
    return tp_batch_create(model, &bd, out);
}

int tp_cmd_run(int argc, char **argv)
{
    run_options o;
    if (!tp_run_parse_options(argc, argv, &o)) {
        tp_run_usage(stderr);
        return TP_EXIT_USAGE;
    }
    tp_model *model = NULL;
    tp_status st = tp_cli_load_scene(o.scene, o.sleep, &model);
    if (st != TP_OK) return tp_cli_report(st, NULL);
    long steps = 0;
    if (!steps_to_run(&o, tp_model_settings(model).dt, &steps)) {
        tp_model_destroy(model);
        return TP_EXIT_USAGE;
    }
    run_shard sh;
    memset(&sh, 0, sizeof sh);
    if (!tp_shard_split((int)o.worlds, &sh.split)) {
        tp_model_destroy(model);
        return TP_EXIT_USAGE;
    }
    if (!tp_watch_single_process(&o, &sh.split)) {
        tp_shard_free(&sh.split);
        tp_model_destroy(model);
        return TP_EXIT_USAGE;
    }
    int root = sh.split.rank == 0, code = TP_EXIT_OK;
    tp_batch *batch = NULL;
    if ((st = create_batch(model, &o, &sh.split, &batch)) != TP_OK) code = tp_cli_report(st, o.scene);
    /* Rank 0 writes the files for every world; the others track their own worlds' all-asleep times. */
    tp_run_record rec;
    run_watch watch;
    memset(&rec, 0, sizeof rec);
    memset(&watch, 0, sizeof watch);
    int *watch_worlds = NULL, watch_count = 0;
    if (code == TP_EXIT_OK) code = tp_watch_check(&watch, &o, batch, &watch_worlds, &watch_count);
    int ready = code == TP_EXIT_OK;
    if (ready && root && !make_dir(o.out_dir)) code = TP_EXIT_USAGE, ready = 0;
    if (ready && !(tp_record_open(&rec, root ? o.out_dir : NULL, o.record_bodies,
                                  root ? sh.split.total_worlds : sh.split.worlds) &&
                   tp_shard_view_init(&sh.all, &sh.split, tp_batch_bodies(batch))))
        code = TP_EXIT_FAILURE, ready = 0;
    if (ready) code = tp_watch_open(&watch, &o, batch, watch_worlds, watch_count), ready = code == TP_EXIT_OK;
    else free(watch_worlds);
    if (!tp_shard_any(!ready)) code = run_and_write(batch, model, &o, steps, &sh, &rec, &watch);
    else if (code == TP_EXIT_OK) code = TP_EXIT_FAILURE; /* another rank failed (and said why) */
    tp_record_free(&rec);
    tp_shard_view_free(&sh.all);
    tp_shard_free(&sh.split);
    tp_batch_destroy(batch);
    tp_model_destroy(model);
    return code;
}
