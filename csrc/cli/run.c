/* run.c - `torpor run`: step a scene in N worlds and write what happened.
 *
 * Outputs (docs/outputs.md): summary.json, awake.csv (every K steps),
 * state.csv (final), bodies.csv (with --record-bodies, every K steps), awake.png
 * and, with --snapshot T, snapshot.png (docs/pictures.md); with --record-every K
 * (or --record-worlds, --view) replay.json + replay.bin and with --view the 3D
 * page view.html; with --video FILE a video. Ctrl-C (SIGINT) or SIGTERM stops
 * the run after the current step and still writes what it has; the exit status
 * is then the shell's 128 + signal number (130, 143). */
#include "cli.h"
#include "output.h"
#include "replay.h"
#include "video.h"

#include "plot.h"
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

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct run_options {
    const char *scene, *out_dir;
    long worlds, threads, every, steps;
    double seconds, snapshot_time;
    int have_seconds, have_steps, have_seed, record_bodies, quiet, have_snapshot;
    long record_every;      /* --record-every K: frames of replay.bin and of the video; 0: not given */
    const char *record_worlds; /* --record-worlds LIST, or NULL */
    int view;               /* --view: record and write view.html */
    const char *video;      /* --video FILE, or NULL */
    long video_worlds;
    int video_width, video_height;
    int sleep;              /* --sleep: 1 on, 0 off, -1 as the scene says */
    unsigned long long seed;
    tp_backend backend;
    tp_simd simd;           /* --simd: the CPU sweeps' width (auto: TORPOR_SIMD, else the widest) */
} run_options;

static const char *const run_option_names[] = {
    "--worlds", "--seconds", "--steps", "--backend", "--threads", "--seed", "--out", "--every",
    "--record-bodies", "--quiet", "--snapshot", "--sleep", "--simd", "--record-every", "--record-worlds",
    "--view", "--video", "--video-worlds", "--video-size", "--help"};

static void run_usage(FILE *f)
{
    fprintf(f, "usage: torpor run SCENE [options]   (options also as --option=value)\n"
               "  --worlds N          replicated worlds (default 1)\n"
               "  --seconds T         simulated seconds (default 2)\n"
               "  --steps K           steps instead of --seconds\n"
               "  --backend B         cpu, cuda or auto (default cpu)\n"
               "  --threads N         CPU threads over worlds (default %d here: OMP_NUM_THREADS, else the cores)\n"
               "  --seed S            randomization seed (default: the scene's)\n"
               "  --out DIR           output directory, created if missing (default out)\n"
               "  --every K           awake.csv and bodies.csv every K steps (default 1)\n"
               "  --record-bodies     write bodies.csv (default off)\n"
               "  --quiet             no summary and no progress bar (default off)\n"
               "  --snapshot T        snapshot.png: up to 16 worlds drawn at simulated time T s (default none)\n"
               "  --sleep on|off      island sleep on or off, whatever the scene says (default: as the scene says)\n"
               "  --simd W            auto, off, sse2 or avx2: the CPU contact sweeps' width, same results "
               "(default auto)\n"
               "  --record-every K    replay.json + replay.bin: the recorded worlds every K steps\n"
               "                      (default: about 30 frames per simulated second)\n"
               "  --record-worlds L   worlds to record, e.g. 0,1,2 or 0-15 (default 0-15)\n"
               "  --view              record, then write view.html: the run in 3D in a browser (default off)\n"
               "  --video FILE.mp4    a video through ffmpeg, a frame every K steps (default none)\n"
               "  --video-worlds N    worlds in the video (default 16)\n"
               "  --video-size WxH    video frame size in pixels (default 960x720)\n",
            tp_cli_default_threads());
}

/* Value of an option that takes one; prints an error if it is missing. */
static const char *option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc || (argv[*i + 1][0] == '-' && argv[*i + 1][1] == '-')) {
        fprintf(stderr, "torpor run: %s needs a value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static int parse_backend(const char *text, tp_backend *out)
{
    if (strcmp(text, "cpu") == 0) *out = TP_BACKEND_CPU;
    else if (strcmp(text, "cuda") == 0) *out = TP_BACKEND_CUDA;
    else if (strcmp(text, "auto") == 0) *out = TP_BACKEND_AUTO;
    else {
        fprintf(stderr, "torpor run: --backend: expected cpu, cuda or auto, got \"%s\"\n", text);
        return 0;
    }
    return 1;
}

/* --worlds at most: a batch's capacity on each MPI rank (one rank without MPI). */
static long max_worlds(void)
{
    long n = (long)TP_MAX_WORLDS * tp_shard_ranks();
    return n < INT_MAX ? n : INT_MAX;
}

static int parse_options(int argc, char **argv, run_options *o)
{
    memset(o, 0, sizeof *o);
    o->out_dir = "out";
    o->worlds = 1;
    o->every = 1;
    o->backend = TP_BACKEND_CPU;
    o->sleep = -1;
    o->video_worlds = 16;
    o->video_width = 960;
    o->video_height = 720;
    char name[64];
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = NULL, *eq = strchr(a, '=');
        long n;
        double d;
        if (a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof name) { /* --option=value */
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            a = name;
            v = eq + 1;
        }
        if (strcmp(a, "--record-bodies") == 0) o->record_bodies = 1;
        else if (strcmp(a, "--quiet") == 0) o->quiet = 1;
        else if (strcmp(a, "--view") == 0) o->view = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { run_usage(stdout); exit(0); }
        else if (a[0] == '-' && a[1] == '-') {
            if (!tp_cli_known_option("torpor run", a, run_option_names, COUNT_OF(run_option_names))) return 0;
            if (!v && !(v = option_value(argc, argv, &i))) return 0;
            if (strcmp(a, "--worlds") == 0) { if (!tp_cli_parse_int(a, v, 1, max_worlds(), &o->worlds)) return 0; }
            else if (strcmp(a, "--threads") == 0) { if (!tp_cli_parse_int(a, v, 1, 4096, &o->threads)) return 0; }
            else if (strcmp(a, "--every") == 0) { if (!tp_cli_parse_int(a, v, 1, 1000000000L, &o->every)) return 0; }
            else if (strcmp(a, "--steps") == 0) {
                if (!tp_cli_parse_int(a, v, 0, TP_CLI_MAX_STEPS, &n)) return 0;
                o->steps = n;
                o->have_steps = 1;
            } else if (strcmp(a, "--seconds") == 0) {
                if (!tp_cli_parse_double(a, v, 0.0, 1e7, &d)) return 0;
                o->seconds = d;
                o->have_seconds = 1;
            } else if (strcmp(a, "--snapshot") == 0) {
                if (!tp_cli_parse_double(a, v, 0.0, 1e7, &o->snapshot_time)) return 0;
                o->have_snapshot = 1;
            } else if (strcmp(a, "--seed") == 0) {
                char *end = NULL;
                errno = 0;
                o->seed = strtoull(v, &end, 10);
                if (errno || end == v || *end || v[0] == '-' || o->seed > (unsigned long long)INT64_MAX) {
                    fprintf(stderr, "torpor run: --seed: expected an integer in [0, 2^63 - 1] (as in scene files), "
                                    "got \"%s\"\n", v);
                    return 0;
                }
                o->have_seed = 1;
            } else if (strcmp(a, "--backend") == 0) { if (!parse_backend(v, &o->backend)) return 0; }
            else if (strcmp(a, "--out") == 0) o->out_dir = v;
            else if (strcmp(a, "--record-every") == 0) { if (!tp_cli_parse_int(a, v, 1, 1000000000L, &o->record_every)) return 0; }
            else if (strcmp(a, "--record-worlds") == 0) o->record_worlds = v;
            else if (strcmp(a, "--video") == 0) o->video = v;
            else if (strcmp(a, "--video-worlds") == 0) { if (!tp_cli_parse_int(a, v, 1, 256, &o->video_worlds)) return 0; }
            else if (strcmp(a, "--video-size") == 0) { if (!tp_video_parse_size(v, &o->video_width, &o->video_height)) return 0; }
            else if (strcmp(a, "--simd") == 0) {
                if (strcmp(v, "auto") == 0) o->simd = TP_SIMD_AUTO;
                else if (strcmp(v, "off") == 0) o->simd = TP_SIMD_OFF;
                else if (strcmp(v, "sse2") == 0) o->simd = TP_SIMD_SSE2;
                else if (strcmp(v, "avx2") == 0) o->simd = TP_SIMD_AVX2;
                else {
                    fprintf(stderr, "torpor run: --simd: expected auto, off, sse2 or avx2, got \"%s\"\n", v);
                    return 0;
                }
            }
            else if (strcmp(a, "--sleep") == 0) {
                if (strcmp(v, "on") == 0) o->sleep = 1;
                else if (strcmp(v, "off") == 0) o->sleep = 0;
                else {
                    fprintf(stderr, "torpor run: --sleep: expected on or off, got \"%s\"\n", v);
                    return 0;
                }
            }
            else {
                fprintf(stderr, "torpor run: unknown option %s\n", a);
                return 0;
            }
        } else if (!o->scene) o->scene = a;
        else {
            fprintf(stderr, "torpor run: unexpected argument \"%s\" (the scene is \"%s\")\n", a, o->scene);
            return 0;
        }
    }
    if (!o->scene) { fprintf(stderr, "torpor run: no scene file given\n"); return 0; }
    if (o->have_seconds && o->have_steps) {
        fprintf(stderr, "torpor run: give --seconds or --steps, not both\n");
        return 0;
    }
    return 1;
}

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

/* What watches the run besides the records: the replay and the video, each
 * taking a frame every `every` steps (the replay also at the last step). */
typedef struct run_watch {
    long every;
    int replay_on, video_on;
    double seconds;         /* wall time spent drawing and writing frames, left out of the run's wall time */
    tp_replay replay;
    tp_video video;
} run_watch;

/* Frames every --record-every K steps, else about 30 per simulated second. */
static long frame_every(const run_options *o, float dt)
{
    if (o->record_every > 0) return o->record_every;
    long k = lround(1.0 / (30.0 * (double)dt));
    return k < 1 ? 1 : k;
}

static tp_status watch_step(run_watch *wt, tp_batch *batch, long step, int last)
{
    int replay = wt->replay_on && (step % wt->every == 0 || last), video = wt->video_on && step % wt->every == 0;
    double start = tp_now_seconds();
    if (replay) {
        tp_state_view view;
        tp_status st = tp_batch_state(batch, &view);
        if (st != TP_OK) return st;
        tp_replay_frame(&wt->replay, batch, &view);
    }
    if (video) tp_video_frame(&wt->video, batch);
    wt->seconds += tp_now_seconds() - start;
    return TP_OK;
}

/* The replay, the view page and the video read one batch: an MPI run of
 * several ranks refuses them (rank 0 says so) rather than write part of them. */
static int watch_single_process(const run_options *o, const tp_shard *split)
{
    const char *opt = o->video ? "--video" : o->view ? "--view" : o->record_worlds ? "--record-worlds"
                    : o->record_every > 0 ? "--record-every" : NULL;
    if (!opt || split->ranks == 1) return 1;
    if (split->rank == 0)
        fprintf(stderr, "torpor run: %s is not available over %d MPI ranks (it records from one process's worlds; "
                "run it without mpirun, docs/scale-out.md)\n", opt, split->ranks);
    return 0;
}

static int watch_failed(const run_watch *wt) { return wt->replay.failed || wt->video.failed; }

/* Check what the watchers need before anything is written: the recorded
 * worlds' list, cairo and ffmpeg for a video. Returns an exit code. */
static int watch_check(run_watch *wt, const run_options *o, tp_batch *batch, int **worlds, int *count)
{
    memset(wt, 0, sizeof *wt);
    wt->every = frame_every(o, tp_model_settings(tp_batch_model(batch)).dt);
    wt->replay_on = o->record_every > 0 || o->record_worlds || o->view;
    wt->video_on = o->video != NULL;
    *worlds = NULL;
    *count = 0;
    if (wt->replay_on && o->record_worlds && !tp_replay_parse_worlds(o->record_worlds, tp_batch_worlds(batch), worlds, count))
        return TP_EXIT_USAGE;
    if (wt->replay_on && !o->record_worlds) {
        *count = tp_batch_worlds(batch) < 16 ? tp_batch_worlds(batch) : 16;
        if (!(*worlds = malloc((size_t)*count * sizeof **worlds))) return TP_EXIT_FAILURE;
        for (int i = 0; i < *count; ++i) (*worlds)[i] = i;
    }
    if (wt->video_on && !tp_video_check(o->video)) return TP_EXIT_FAILURE;
    return TP_EXIT_OK;
}

/* Open replay.bin and start ffmpeg (the list of worlds is taken over). Returns an exit code. */
static int watch_open(run_watch *wt, const run_options *o, tp_batch *batch, int *worlds, int count)
{
    if (!wt->replay_on) free(worlds);
    else if (!tp_replay_open(&wt->replay, o->out_dir, worlds, count, wt->every, batch)) {
        tp_replay_free(&wt->replay);
        wt->replay_on = wt->video_on = 0;
        return TP_EXIT_FAILURE;
    }
    double fps = 1.0 / ((double)wt->every * (double)tp_model_settings(tp_batch_model(batch)).dt);
    if (wt->video_on &&
        !tp_video_open(&wt->video, o->video, (int)o->video_worlds, o->video_width, o->video_height, fps, batch)) {
        tp_video_finish(&wt->video);
        wt->video_on = 0;
        return TP_EXIT_FAILURE;
    }
    return TP_EXIT_OK;
}

/* Finish the replay (and view.html) and the video; say what was written. Returns 0 on a failure (reported). */
static int watch_finish(run_watch *wt, const run_options *o, tp_batch *batch)
{
    int ok = 1;
    char html[4096];
    snprintf(html, sizeof html, "%s/view.html", o->out_dir);
    if (wt->replay_on) {
        ok = tp_replay_finish(&wt->replay, batch) && (!o->view || tp_view_write_page(o->out_dir, html));
        if (ok && !o->quiet)
            printf("replay           %s/{replay.json,replay.bin%s}: %d frames of %d world%s, every %ld steps\n", o->out_dir,
                   o->view ? ",view.html" : "", wt->replay.frames, wt->replay.world_count,
                   wt->replay.world_count == 1 ? "" : "s", wt->every);
    }
    if (wt->video_on) {
        int frames = wt->video.frames;
        int video_ok = tp_video_finish(&wt->video);
        if (video_ok && !o->quiet)
            printf("video            %s: %d frames, %dx%d, %.6g frames/s\n", o->video, frames, o->video_width,
                   o->video_height, 1.0 / ((double)wt->every * (double)tp_model_settings(tp_batch_model(batch)).dt));
        ok = ok && video_ok;
    }
    tp_replay_free(&wt->replay);
    return ok;
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
    if (st == TP_OK) st = watch_step(wt, batch, 0, steps == 0);
    maybe_snapshot(batch, o, sh, snapshot);
    long s = 0;
    for (; s < steps; ++s) {
        if (tp_shard_any(st != TP_OK || tp_interrupted || rec->io_failed || watch_failed(wt))) break;
        int sample = (s + 1) % o->every == 0 || s + 1 == steps;
        st = step_and_record(batch, rec, sample, &view);
        if (tp_shard_any(st != TP_OK)) break;
        if (sample) st = record_sample(rec, batch, sh, &view);
        if (st == TP_OK) st = watch_step(wt, batch, s + 1, s + 1 == steps || tp_interrupted);
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
    if (!watch_finish(wt, o, batch) && code == TP_EXIT_OK) code = TP_EXIT_FAILURE;
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
    if (!parse_options(argc, argv, &o)) {
        run_usage(stderr);
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
    if (!watch_single_process(&o, &sh.split)) {
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
    if (code == TP_EXIT_OK) code = watch_check(&watch, &o, batch, &watch_worlds, &watch_count);
    int ready = code == TP_EXIT_OK;
    if (ready && root && !make_dir(o.out_dir)) code = TP_EXIT_USAGE, ready = 0;
    if (ready && !(tp_record_open(&rec, root ? o.out_dir : NULL, o.record_bodies,
                                  root ? sh.split.total_worlds : sh.split.worlds) &&
                   tp_shard_view_init(&sh.all, &sh.split, tp_batch_bodies(batch))))
        code = TP_EXIT_FAILURE, ready = 0;
    if (ready) code = watch_open(&watch, &o, batch, watch_worlds, watch_count), ready = code == TP_EXIT_OK;
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
