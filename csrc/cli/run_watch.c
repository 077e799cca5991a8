/* run_watch.c - what watches `torpor run` besides its records: the replay
 * (replay.json, replay.bin, view.html) and the video, each taking a frame
 * every `every` steps. */
#include "cli.h"
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Frames every --record-every K steps, else about 30 per simulated second. */
static long frame_every(const run_options *o, float dt)
{
    if (o->record_every > 0) return o->record_every;
    long k = lround(1.0 / (30.0 * (double)dt));
    return k < 1 ? 1 : k;
}

tp_status tp_watch_step(run_watch *wt, tp_batch *batch, long step, int last)
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
int tp_watch_single_process(const run_options *o, const tp_shard *split)
{
    const char *opt = o->video ? "--video" : o->view ? "--view" : o->record_worlds ? "--record-worlds"
                    : o->record_every > 0 ? "--record-every" : NULL;
    if (!opt || split->ranks == 1) return 1;
    if (split->rank == 0)
        fprintf(stderr, "torpor run: %s is not available over %d MPI ranks (it records from one process's worlds; "
                "run it without mpirun, docs/scale-out.md)\n", opt, split->ranks);
    return 0;
}

int tp_watch_failed(const run_watch *wt) { return wt->replay.failed || wt->video.failed; }

/* Check what the watchers need before anything is written: the recorded
 * worlds' list, cairo and ffmpeg for a video. Returns an exit code. */
int tp_watch_check(run_watch *wt, const run_options *o, tp_batch *batch, int **worlds, int *count)
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
int tp_watch_open(run_watch *wt, const run_options *o, tp_batch *batch, int *worlds, int count)
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
int tp_watch_finish(run_watch *wt, const run_options *o, tp_batch *batch)
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

