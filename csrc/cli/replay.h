/* replay.h - the replay recording of `torpor run` (replay.json + replay.bin,
 * docs/outputs.md): chosen worlds every K steps, read by `torpor view`. */
#ifndef TP_REPLAY_H
#define TP_REPLAY_H

#include "torpor.h"

#include <stdio.h>

/* Bytes of one frame in replay.bin: 13 float32 per body (pos, quat, v, w),
 * then one state byte per body, padded to a multiple of 4. */
#define TP_REPLAY_FLOATS 13
long long tp_replay_frame_bytes(int worlds, int bodies);

/* Body states in replay.bin. */
enum { TP_REPLAY_AWAKE = 0, TP_REPLAY_SLEEPING = 1, TP_REPLAY_CHECKING = 2, TP_REPLAY_STATIC = 3, TP_REPLAY_REMOVED = 4 };

typedef struct tp_replay {
    const char *dir;
    FILE *bin;
    int *worlds, world_count; /* recorded worlds, in order */
    long every;
    int frames, capacity;
    long long *steps;         /* [frames] step of each frame */
    int *counts;              /* [frames][world_count][3] awake, checking, sleeping */
    unsigned char *buf;       /* one frame */
    int failed;               /* a write failed (reported) */
} tp_replay;

/* Parse --record-worlds: "0,1,2", ranges "0-15" or a mix, each index in [0, worlds).
 * Prints an error naming the option and returns 0 on bad input. */
int tp_replay_parse_worlds(const char *text, int worlds, int **out, int *count);

/* Open DIR/replay.bin for the given worlds (taken over: freed by tp_replay_free). Returns 0 after a message. */
int tp_replay_open(tp_replay *r, const char *dir, int *worlds, int world_count, long every, tp_batch *batch);
/* Append the current state as a frame. Returns 0 after a failed write (reported once). */
int tp_replay_frame(tp_replay *r, tp_batch *batch, const tp_state_view *view);
/* Close replay.bin and write replay.json. Returns 0 after a message. */
int tp_replay_finish(tp_replay *r, tp_batch *batch);
void tp_replay_free(tp_replay *r);

/* `torpor view OUT_DIR [--html FILE]`, and the page itself (view.c). */
int tp_view_write_page(const char *dir, const char *html_path);

#endif
