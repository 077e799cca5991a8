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
    double wall_seconds;
    int interrupted;
    int snapshot_written;   /* snapshot.png was drawn (--snapshot) */
} tp_run_info;

/* Open awake.csv (and bodies.csv) in `dir` and write their headers. */
int tp_record_open(tp_run_record *rec, const char *dir, int record_bodies, tp_batch *batch);
/* Append the current step to awake.csv (and bodies.csv). */
tp_status tp_record_sample(tp_run_record *rec, tp_batch *batch, const tp_state_view *view);
/* Track the time at which each world fell asleep (call after every step). */
void tp_record_asleep(tp_run_record *rec, tp_batch *batch, const tp_state_view *view);
/* Write state.csv, summary.json and awake.png (when built with cairo) and close
 * everything. Returns 0 on an I/O error; a missing cairo is not an error. */
int tp_record_finish(tp_run_record *rec, tp_batch *batch, const tp_run_info *info);
/* Free what tp_record_open allocated (after the summary is printed). */
void tp_record_free(tp_run_record *rec);
/* The short table printed after a run. */
void tp_print_summary(FILE *f, tp_batch *batch, const tp_run_record *rec, const tp_run_info *info);

#endif
