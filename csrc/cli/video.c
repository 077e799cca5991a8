/* video.c - raw RGB frames from tp_batch_render piped to ffmpeg (Debian
 * package ffmpeg), which picks the codec from the file's extension. */
#define _POSIX_C_SOURCE 200809L /* fork, pipe, waitpid under -std=c11 */
#include "video.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int tp_video_parse_size(const char *text, int *width, int *height)
{
    char *end = NULL;
    long w = strtol(text, &end, 10), h = 0;
    int ok = end != text && (*end == 'x' || *end == 'X');
    if (ok) {
        const char *s = end + 1;
        h = strtol(s, &end, 10);
        ok = end != s && *end == '\0';
    }
    if (!ok || w < 16 || h < 96 || w > 8192 || h > 8192 || w % 2 || h % 2) {
        fprintf(stderr, "torpor run: --video-size: expected WIDTHxHEIGHT in pixels, even, width in [16, 8192] and "
                        "height in [96, 8192], got \"%s\"\n", text);
        return 0;
    }
    *width = (int)w;
    *height = (int)h;
    return 1;
}

/* 1 if an executable `name` is on PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    char buf[4096];
    for (const char *p = path; ; ) {
        size_t len = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, len ? p : ".", name);
        if (access(buf, X_OK) == 0) return 1;
        if (p[len] == '\0') return 0;
        p += len + 1;
    }
}

/* ffmpeg reading raw RGB frames on a pipe; its stderr stays ours. */
static int spawn_ffmpeg(tp_video *v, double fps)
{
    char size[32], rate[32];
    snprintf(size, sizeof size, "%dx%d", v->rd.width, v->rd.height);
    snprintf(rate, sizeof rate, "%.9g", fps);
    char *argv[] = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "rawvideo",
                    "-pix_fmt", "rgb24", "-s", size, "-framerate", rate, "-i", "pipe:0",
                    "-pix_fmt", "yuv420p", (char *)v->path, NULL};
    int fds[2];
    if (pipe(fds) != 0) return 0;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own process group: Ctrl-C stops torpor's run, which then ends the video cleanly */
        dup2(fds[0], STDIN_FILENO);
        close(fds[0]);
        close(fds[1]);
        execvp("ffmpeg", argv);
        fprintf(stderr, "torpor run: cannot start ffmpeg: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[0]);
    v->pid = pid;
    v->fd = fds[1];
    return 1;
}

int tp_video_check(const char *path)
{
    if (!tp_render_available()) {
        fprintf(stderr, "torpor run: --video %s: this build of torpor has no cairo to draw frames with (install "
                        "libcairo2-dev and rebuild)\n", path);
        return 0;
    }
    if (!on_path("ffmpeg")) {
        fprintf(stderr, "torpor run: --video %s: ffmpeg was not found on PATH (install Debian's ffmpeg package)\n", path);
        return 0;
    }
    return 1;
}

int tp_video_open(tp_video *v, const char *path, int worlds, int width, int height, double fps, tp_batch *batch)
{
    memset(v, 0, sizeof *v);
    v->path = path;
    v->fd = -1;
    int n = worlds < tp_batch_worlds(batch) ? worlds : tp_batch_worlds(batch);
    v->rd = tp_default_render_def();
    v->rd.width = width;
    v->rd.height = height;
    v->rd.world_count = n;
    v->rd.labels = 1;
    v->rd.has_view_box = 1;
    v->rgb = malloc((size_t)width * (size_t)height * 3);
    if (!v->rgb) {
        fprintf(stderr, "torpor run: --video %s: out of memory for %d x %d frames\n", path, width, height);
        return 0;
    }
    signal(SIGPIPE, SIG_IGN); /* ffmpeg exiting early is an error we report, not a signal that kills us */
    if (!spawn_ffmpeg(v, fps)) {
        fprintf(stderr, "torpor run: --video %s: cannot start ffmpeg: %s\n", path, strerror(errno));
        return 0;
    }
    return 1;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return 0;
        p += k;
        n -= (size_t)k;
    }
    return 1;
}

/* Grow the framed box to hold the drawn worlds' bodies now, with a 10% margin. */
static tp_status update_box(tp_video *v, tp_batch *batch)
{
    float now[6];
    tp_status st = tp_batch_render_box(batch, &v->rd, now);
    if (st != TP_OK) return st;
    for (int k = 0; k < 3; ++k) {
        float pad = 0.1f * (now[k + 3] - now[k]);
        now[k] -= pad;
        now[k + 3] += pad;
        v->box[k] = v->have_box && v->box[k] < now[k] ? v->box[k] : now[k];
        v->box[k + 3] = v->have_box && v->box[k + 3] > now[k + 3] ? v->box[k + 3] : now[k + 3];
    }
    v->have_box = 1;
    memcpy(v->rd.view_box, v->box, sizeof v->box);
    return TP_OK;
}

int tp_video_frame(tp_video *v, tp_batch *batch)
{
    if (v->failed) return 0;
    char title[256];
    snprintf(title, sizeof title, "%s   t = %.2f s", tp_model_name(tp_batch_model(batch)), tp_batch_time(batch));
    v->rd.title = title;
    tp_status st = update_box(v, batch);
    if (st == TP_OK) st = tp_batch_render(batch, &v->rd, v->rgb);
    v->rd.title = NULL;
    if (st != TP_OK) {
        fprintf(stderr, "torpor run: --video %s: %s\n", v->path, tp_last_error());
        return !(v->failed = 1);
    }
    if (!write_all(v->fd, v->rgb, (size_t)v->rd.width * (size_t)v->rd.height * 3)) {
        fprintf(stderr, "torpor run: --video %s: ffmpeg stopped reading frames (%s); its message is above\n", v->path,
                strerror(errno ? errno : EPIPE));
        return !(v->failed = 1);
    }
    v->frames++;
    return 1;
}

int tp_video_finish(tp_video *v)
{
    int ok = !v->failed;
    if (v->fd >= 0) close(v->fd);
    v->fd = -1;
    if (v->pid > 0) {
        int status = 0;
        while (waitpid(v->pid, &status, 0) < 0 && errno == EINTR) {}
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (ok)
                fprintf(stderr, "torpor run: --video %s: ffmpeg failed (exit status %d); its message is above\n", v->path,
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            ok = 0;
        }
        v->pid = 0;
    }
    free(v->rgb);
    v->rgb = NULL;
    return ok;
}
