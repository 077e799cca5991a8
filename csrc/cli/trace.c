/* trace.c - `torpor trace SCRIPT`: the island sleep policy alone, frame by frame.
 *
 * Reads a script (docs/trace-format.md) and feeds it to the simulator's own
 * sleep rule through the public tp_sleep_trace_* calls (csrc/sleep_trace.c
 * runs kernels/islands.h and kernels/sleep.h as a step does), as the exercise
 * of the island-timer tutorial does, and prints one line of A (awake) /
 * S (sleeping) per frame. This file only parses; it decides nothing. The script:
 *   threshold X     speed threshold (a speed equal to it counts as moving)
 *   duration X      quiet time an island needs before it sleeps
 *   dt X            frame length
 *   bodies N        number of bodies (before the first frame)
 *   link I J        I and J touch from now on (a new link between a sleeping
 *                   and an awake island wakes the sleeping one, as a contact would)
 *   unlink I J      they no longer touch
 *   touch I         game code touches body I: its island wakes
 *   frame S0 S1 ... the speed of every body this frame (ignored while asleep)
 * Blank lines and lines starting with # are ignored. Lines may be of any
 * length (a frame of 4096 speeds is about 80 kB). */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TRACE_MAX_BODIES 4096

typedef struct trace {
    const char *path;
    int line;
    float threshold, duration, dt;
    int have_threshold, have_duration;
    int bodies;
    tp_sleep_trace *rule; /* the simulator's sleep rule, fed by the script */
    uint8_t *asleep;      /* [bodies] the last frame's result */
    float *velocity;      /* [bodies][3] the frame's speeds as velocities along x */
} trace;

static int trace_error(const trace *t, const char *what)
{
    fprintf(stderr, "torpor trace: %s:%d: %s\n", t->path, t->line, what);
    return 0;
}

/* A library call the parser's own checks should have made safe failed. */
static int trace_call(const trace *t, tp_status st)
{
    return st == TP_OK ? 1 : trace_error(t, tp_last_error());
}

/* One frame; each body's speed goes in as a velocity along x. */
static int trace_frame(trace *t, const float *speed)
{
    for (int b = 0; b < t->bodies; ++b) {
        t->velocity[3 * b] = speed[b];
        t->velocity[3 * b + 1] = t->velocity[3 * b + 2] = 0.0f;
    }
    if (!trace_call(t, tp_sleep_trace_frame(t->rule, t->velocity, t->threshold, t->duration, t->dt, t->asleep)))
        return 0;
    for (int b = 0; b < t->bodies; ++b) printf(b ? " %c" : "%c", t->asleep[b] ? 'S' : 'A');
    printf("\n");
    return 1;
}

/* The rest of a line must be blank: "dt 0.1x" or "link 0 1 2" are errors. */
static int only_blanks(const char *s)
{
    while (s && (*s == ' ' || *s == '\t')) ++s;
    return !s || *s == '\0';
}

static int parse_float(const char *s, float *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0.0 || !only_blanks(end)) return 0;
    *out = (float)v;
    return 1;
}

static int parse_body(trace *t, const char *s, int *out)
{
    char *end = NULL;
    long v = strtol(s ? s : "", &end, 10);
    if (!s || end == s || *end || v < 0 || v >= t->bodies) {
        char msg[128];
        snprintf(msg, sizeof msg, "expected a body index in [0, %d), got \"%s\"", t->bodies, s ? s : "");
        return trace_error(t, msg);
    }
    *out = (int)v;
    return 1;
}

static int trace_alloc(trace *t, int n)
{
    t->bodies = n;
    t->asleep = calloc((size_t)n, 1);
    t->velocity = calloc(3 * (size_t)n, sizeof(float));
    return t->asleep && t->velocity && tp_sleep_trace_create(n, &t->rule) == TP_OK;
}

static void trace_free(trace *t)
{
    tp_sleep_trace_destroy(t->rule);
    free(t->asleep);
    free(t->velocity);
}

/* link / unlink I J (docs/trace-format.md: what a new link wakes). */
static int trace_link(trace *t, char *args, int on)
{
    int i, j;
    if (!parse_body(t, strtok(args, " \t"), &i) || !parse_body(t, strtok(NULL, " \t"), &j)) return 0;
    if (strtok(NULL, " \t")) return trace_error(t, "link and unlink take exactly two body indices");
    if (i == j) return trace_error(t, "a body cannot be linked to itself");
    return trace_call(t, tp_sleep_trace_link(t->rule, i, j, on));
}

static int trace_line(trace *t, char *line, int *frames)
{
    char *cmd = strtok(line, " \t\r\n");
    if (!cmd || cmd[0] == '#') return 1;
    char *rest = strtok(NULL, "\r\n");
    if (!strcmp(cmd, "threshold") || !strcmp(cmd, "duration") || !strcmp(cmd, "dt")) {
        float *dst = cmd[0] == 't' ? &t->threshold : (cmd[1] == 'u' ? &t->duration : &t->dt);
        if (!rest || !parse_float(rest, dst)) return trace_error(t, "expected one finite number >= 0");
        t->have_threshold |= cmd[0] == 't';
        t->have_duration |= cmd[1] == 'u';
        return 1;
    }
    if (!strcmp(cmd, "bodies")) {
        char *end = NULL;
        long n = rest ? strtol(rest, &end, 10) : 0;
        if (t->bodies) return trace_error(t, "bodies is given twice");
        if (!rest || end == rest || !only_blanks(end)) return trace_error(t, "bodies takes one integer");
        if (n < 1 || n > TRACE_MAX_BODIES) return trace_error(t, "bodies must be in [1, 4096]");
        if (!trace_alloc(t, (int)n)) return trace_error(t, "out of memory");
        return 1;
    }
    if (!t->bodies) return trace_error(t, "\"bodies N\" must come before links and frames");
    if (!strcmp(cmd, "link") || !strcmp(cmd, "unlink")) return rest ? trace_link(t, rest, cmd[0] == 'l') : trace_error(t, "expected two body indices");
    if (!strcmp(cmd, "touch")) {
        int b;
        if (!parse_body(t, rest ? strtok(rest, " \t") : NULL, &b)) return 0;
        if (strtok(NULL, " \t")) return trace_error(t, "touch takes one body index");
        return trace_call(t, tp_sleep_trace_touch(t->rule, b));
    }
    if (!strcmp(cmd, "frame")) {
        if (!(t->dt > 0.0f)) return trace_error(t, "dt must be set to a value > 0 before the first frame");
        if (!t->have_threshold || !t->have_duration)
            return trace_error(t, "threshold and duration must be set before the first frame (they have no default)");
        float speed[TRACE_MAX_BODIES];
        char *tok = rest ? strtok(rest, " \t") : NULL;
        for (int b = 0; b < t->bodies; ++b, tok = strtok(NULL, " \t")) {
            char msg[96];
            snprintf(msg, sizeof msg, "frame needs %d speeds (finite, >= 0); speed %d is missing or bad", t->bodies, b);
            if (!tok || !parse_float(tok, &speed[b])) return trace_error(t, msg);
        }
        if (tok) return trace_error(t, "frame has more speeds than bodies");
        if (!trace_frame(t, speed)) return 0;
        ++*frames;
        return 1;
    }
    char msg[128];
    snprintf(msg, sizeof msg, "unknown command \"%s\" (threshold, duration, dt, bodies, link, unlink, touch, frame)", cmd);
    return trace_error(t, msg);
}

int tp_cmd_trace(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: torpor trace SCRIPT   (the island sleep policy alone on a script of speeds; "
               "docs/trace-format.md)\n");
        return TP_EXIT_OK;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: torpor trace SCRIPT   (docs/trace-format.md)\n");
        return TP_EXIT_USAGE;
    }
    trace t;
    memset(&t, 0, sizeof t);
    t.path = argv[1];
    FILE *f = strcmp(t.path, "-") ? fopen(t.path, "r") : stdin;
    struct stat st;
    if (f && f != stdin && fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
        fclose(f);
        f = NULL;
        errno = EISDIR;
    }
    if (!f) {
        fprintf(stderr, "torpor trace: cannot read %s: %s\n", t.path, strerror(errno));
        return TP_EXIT_USAGE;
    }
    char *line = NULL; /* grown by getline to the longest line */
    size_t cap = 0;
    int ok = 1, frames = 0;
    while (ok && getline(&line, &cap, f) >= 0) {
        t.line++;
        ok = trace_line(&t, line, &frames);
    }
    if (ok && ferror(f)) ok = trace_error(&t, strerror(errno));
    free(line);
    if (f != stdin) fclose(f);
    trace_free(&t);
    return ok ? TP_EXIT_OK : TP_EXIT_USAGE;
}
