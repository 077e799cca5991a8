/* video.h - `torpor run --video FILE`: frames drawn by tp_batch_render, piped
 * as raw RGB to an ffmpeg process that encodes them (docs/pictures.md). */
#ifndef TP_VIDEO_H
#define TP_VIDEO_H

#include "torpor.h"

#include <stdint.h>
#include <sys/types.h>

typedef struct tp_video {
    const char *path;
    pid_t pid;             /* the ffmpeg process, 0 when none */
    int fd;                /* its standard input */
    tp_render_def rd;
    int *worlds;
    uint8_t *rgb;          /* one frame */
    float box[6];          /* what every frame frames: grows to hold the bodies, never shrinks */
    int have_box;
    int frames;
    int failed;            /* a write failed or ffmpeg is gone (reported) */
} tp_video;

/* Parse --video-size "WxH" (even, in [16, 8192]). Prints an error and returns 0 on bad input. */
int tp_video_parse_size(const char *text, int *width, int *height);
/* 1 if a video can be made (cairo built in, ffmpeg on PATH); else 0 after a message naming `path`. */
int tp_video_check(const char *path);
/* Start ffmpeg writing `path` at `fps` frames per second, showing the first
 * `worlds` worlds. Returns 0 after a message (ffmpeg not found included). */
int tp_video_open(tp_video *v, const char *path, int worlds, int width, int height, double fps, tp_batch *batch);
/* Draw the batch now and send the frame. Returns 0 after a message. */
int tp_video_frame(tp_video *v, tp_batch *batch);
/* Close ffmpeg's input and wait for it. Returns 0 after a message (ffmpeg failed). */
int tp_video_finish(tp_video *v);

#endif
