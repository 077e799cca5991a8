/* output.h - the files `torpor run` writes (docs/outputs.md). */
#ifndef TP_OUTPUT_H
#define TP_OUTPUT_H

#include "plot.h"
#include "torpor.h"

#include <stdio.h>

typedef struct tp_run_record {
    const char *dir;
    FILE *awake_csv;        /* awake.csv, every K steps */
    FILE *bodies_csv;       /* bodies.csv with --record-bodies, or NULL */
    double *all_asleep_time;/* [W] time each world last became all asleep, or < 0 */
    int worlds;
    int record_bodies;
    tp_awake_series series; /* awake counts at each sample, for awake.png */
    int awake_png_written;
    int io_failed;          /* a write to awake.csv or bodies.csv failed (already reported) */
} tp_run_record;

typedef struct tp_run_info {
    const char *scene, *out_dir;
    long steps_done, steps_requested;
    double wall_seconds;    /* the slowest rank's */
    int interrupted;
    int snapshot_written;   /* snapshot.png was drawn (--snapshot) */
    int ranks;              /* MPI ranks of the run (1: one process) */
    const int *rank_first, *rank_worlds; /* [ranks] each rank's block of worlds */
    const double *rank_wall_seconds;     /* [ranks] each rank's stepping time */
} tp_run_info;

/* The run's worlds at the end, as the files show them: every world of the run
 * in global order (gathered on rank 0 of an MPI run, csrc/cli/shard.h). */
typedef struct tp_run_result {
    const tp_state_view *state;      /* counters and body state of every world */
    const uint64_t *world_hashes;    /* [worlds] tp_batch_world_hash of each */
    uint64_t state_hash;             /* tp_world_hashes_combine of them */
} tp_run_result;

/* Open awake.csv (and bodies.csv) in `dir` and write their headers, for a run
 * of `worlds` worlds. dir NULL (ranks other than 0): no files, only the
 * all-asleep times of `worlds` worlds. */
int tp_record_open(tp_run_record *rec, const char *dir, int record_bodies, int worlds);
/* Append the current step to awake.csv (and bodies.csv): the worlds of view, 0 first. */
tp_status tp_record_sample(tp_run_record *rec, tp_batch *batch, const tp_state_view *view);
/* Track the time at which each world of view fell asleep (call after every
 * step; world w of view is entry w of all_asleep_time). */
void tp_record_asleep(tp_run_record *rec, tp_batch *batch, const tp_state_view *view);
/* Write state.csv, summary.json and awake.png (when built with cairo) and close
 * everything. Returns 0 on an I/O error; a missing cairo is not an error. */
int tp_record_finish(tp_run_record *rec, tp_batch *batch, const tp_run_info *info, const tp_run_result *result);
/* Free what tp_record_open allocated (after the summary is printed). */
void tp_record_free(tp_run_record *rec);
/* The short table printed after a run. */
void tp_print_summary(FILE *f, tp_batch *batch, const tp_run_record *rec, const tp_run_info *info,
                      const tp_run_result *result);

#endif
