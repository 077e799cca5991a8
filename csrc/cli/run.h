/* run.h - the parts of `torpor run` (csrc/cli/run.c): its options
 * (run_options.c) and what watches a run besides its records, the replay
 * and the video (run_watch.c). */
#ifndef TP_CLI_RUN_H
#define TP_CLI_RUN_H

#include "replay.h"
#include "shard.h"
#include "video.h"

#include <stdio.h>

/* The options of `torpor run` as given (docs/cli.md). */
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

/* Print the options of `torpor run` to f. */
void tp_run_usage(FILE *f);
/* Parse argv (after "run") into o; prints the error and returns 0 on a bad
 * or missing value, an unknown option, or --seconds with --steps. */
int tp_run_parse_options(int argc, char **argv, run_options *o);

/* What watches the run besides the records: the replay and the video, each
 * taking a frame every `every` steps (the replay also at the last step). */
typedef struct run_watch {
    long every;
    int replay_on, video_on;
    double seconds;         /* wall time spent drawing and writing frames, left out of the run's wall time */
    tp_replay replay;
    tp_video video;
} run_watch;

/* The replay, the view page and the video read one batch: an MPI run of
 * several ranks refuses them (rank 0 says so). Returns 1 if they may run. */
int tp_watch_single_process(const run_options *o, const tp_shard *split);
/* Check what the watchers need before anything is written: the recorded
 * worlds' list (*worlds malloc'd), cairo and ffmpeg for a video. Returns an exit code. */
int tp_watch_check(run_watch *wt, const run_options *o, tp_batch *batch, int **worlds, int *count);
/* Open replay.bin and start ffmpeg (the list of worlds is taken over). Returns an exit code. */
int tp_watch_open(run_watch *wt, const run_options *o, tp_batch *batch, int *worlds, int count);
/* A frame of each watcher due at `step` (the replay's also at the last step). */
tp_status tp_watch_step(run_watch *wt, tp_batch *batch, long step, int last);
/* 1 once a watcher failed to write. */
int tp_watch_failed(const run_watch *wt);
/* Finish the replay (and view.html) and the video; say what was written.
 * Returns 0 on a failure (reported). */
int tp_watch_finish(run_watch *wt, const run_options *o, tp_batch *batch);

#endif
