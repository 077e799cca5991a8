#define _POSIX_C_SOURCE 200809L
/* test_trace.c - `torpor trace`: the worked trace of 003_e1becc139ac8feb4.txt
 * (acceptance case C01) and one trace per common mistake that document lists;
 * each expected output is derived by hand in the comment of its script.
 *
 * `torpor trace` runs the simulator's own sleep rule (tp_sleep_trace_*, which
 * calls kernels/islands.h and kernels/sleep.h as a step does), so these hand
 * derivations check the rule tp_batch_step runs: a change of that rule (a
 * decrementing timer, a `<=` threshold, a per-body decision) fails them. The
 * last tests check that link: a batch's own sleep decisions, replayed through
 * tp_sleep_trace from its speeds and island labels, come out the same step by
 * step. */
#include <criterion/criterion.h>

#include "torpor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Run `torpor trace FILE`, return its stdout with newlines turned into '|'. */
static char *run_trace(const char *file, int *status)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s trace %s 2>/dev/null", TP_CLI, file);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    static char out[4096];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    for (size_t i = 0; i < n; ++i)
        if (out[i] == '\n') out[i] = '|';
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

static void expect_trace(const char *file, const char *expected)
{
    int status = 0;
    char *out = run_trace(file, &status);
    cr_assert_eq(status, 0, "%s exited %d", file, status);
    cr_assert_str_eq(out, expected, "%s", file);
}

/* C01. It also catches the first mistake: with each body on its own timer,
 * body 0 would sleep at frame 2 ("S A"). */
Test(trace, c01_worked_trace_and_per_body_mistake) { expect_trace("tests/traces/c01.trace", "A A|A A|S S|S S|"); }

/* Mistake: decrementing would put the body to sleep at frame 5. */
Test(trace, mistake_decrement) { expect_trace("tests/traces/decrement.trace", "A|A|A|A|A|S|"); }

/* Mistake: a sleeper's speed or timer changing while asleep. */
Test(trace, mistake_changes_while_asleep) { expect_trace("tests/traces/frozen.trace", "A|S|S|S|S|A|S|"); }

/* Mistake: > instead of >=: a speed at the threshold must keep the body awake. */
Test(trace, mistake_threshold_comparison) { expect_trace("tests/traces/threshold.trace", "A|A|A|A|"); }

/* Mistake: waking only the touched body. */
Test(trace, mistake_wake_only_touched) { expect_trace("tests/traces/wake_island.trace", "A A A|S S A|A A A|S S A|"); }

Test(trace, new_link_wakes_sleeping_island) { expect_trace("tests/traces/new_link.trace", "A A|S A|A A|S S|"); }

Test(trace, bad_scripts_exit_2)
{
    const char *bad[] = {"bodies 2\nframe 0.1\n", "frame 0.1\n", "bodies 2\ndt 0.5\nlink 0 5\n",
                         "bodies 1\ndt 0.5\nframe -1\n", "bodies 1\nfly 3\n", "bodies 1\nframe 0.1\n",
                         /* trailing garbage, missing threshold or duration */
                         "threshold 0.2\nduration 1\ndt 0.1x\nbodies 1\nframe 0.1\n",
                         "threshold 0.2\nduration 1\ndt 0.5\nbodies 2x\n",
                         "threshold 0.2\nduration 1\ndt 0.5\nbodies 2\nlink 0 1 2\n",
                         "threshold 0.2\nduration 1\ndt 0.5\nbodies 1\nframe 0x\n",
                         "dt 0.5\nbodies 1\nframe 0.1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char path[] = "/tmp/tp_trace_XXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        FILE *f = fdopen(fd, "w");
        fputs(bad[i], f);
        fclose(f);
        int status = 0;
        run_trace(path, &status);
        remove(path);
        cr_assert_eq(status, 2, "script %zu should be refused with status 2, got %d", i, status);
    }
}

/* ---------------------------------------------------------------- the library's rule */

/* The C01 trace through the API, without the command line. */
Test(trace, api_runs_the_worked_trace)
{
    tp_sleep_trace *t = NULL;
    cr_assert_eq(tp_sleep_trace_create(2, &t), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_sleep_trace_link(t, 1, 0, 1), TP_OK, "%s", tp_last_error()); /* either order */
    const float speeds[4][6] = {{0.1f, 0, 0, 0.9f, 0, 0}, /* [frame][body][3]: speeds along x */
                                {0.1f, 0, 0, 0.1f, 0, 0},
                                {0.1f, 0, 0, 0.1f, 0, 0},
                                {0.1f, 0, 0, 0.1f, 0, 0}};
    const char *expected[4] = {"AA", "AA", "SS", "SS"};
    for (int f = 0; f < 4; ++f) {
        uint8_t asleep[2];
        cr_assert_eq(tp_sleep_trace_frame(t, speeds[f], 0.2f, 1.0f, 0.5f, asleep), TP_OK, "%s", tp_last_error());
        char got[3] = {asleep[0] ? 'S' : 'A', asleep[1] ? 'S' : 'A', '\0'};
        cr_assert_str_eq(got, expected[f], "frame %d", f + 1);
    }
    tp_sleep_trace_destroy(t);
}

Test(trace, api_refuses_bad_values_and_changes_nothing)
{
    tp_sleep_trace *t = NULL;
    cr_assert_neq(tp_sleep_trace_create(0, &t), TP_OK);
    cr_assert_null(t);
    cr_assert_eq(tp_sleep_trace_create(1, &t), TP_OK);
    uint8_t asleep[1];
    const float quiet[3] = {0.0f, 0.0f, 0.0f}, bad[3] = {0.0f, INFINITY, 0.0f}, nan[3] = {NAN, 0.0f, 0.0f};
    cr_assert_eq(tp_sleep_trace_frame(t, bad, 0.2f, 1.0f, 0.5f, asleep), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "velocities[0][1]"), "%s", tp_last_error());
    cr_assert_eq(tp_sleep_trace_frame(t, nan, 0.2f, 1.0f, 0.5f, asleep), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_sleep_trace_frame(t, quiet, 0.2f, 1.0f, 0.0f, asleep), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_sleep_trace_frame(t, quiet, -0.2f, 1.0f, 0.5f, asleep), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_sleep_trace_link(t, 0, 0, 1), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_sleep_trace_link(t, 0, 1, 1), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_sleep_trace_touch(t, 1), TP_ERR_INVALID_ARGUMENT);
    /* the refused frames advanced no timer: two quiet frames of 0.5 s are needed */
    cr_assert_eq(tp_sleep_trace_frame(t, quiet, 0.2f, 1.0f, 0.5f, asleep), TP_OK);
    cr_assert_eq(asleep[0], 0);
    cr_assert_eq(tp_sleep_trace_frame(t, quiet, 0.2f, 1.0f, 0.5f, asleep), TP_OK);
    cr_assert_eq(asleep[0], 1);
    tp_sleep_trace_destroy(t);
    tp_sleep_trace_destroy(NULL);
}

/* A ground, a stack of two cubes, a lone cube and a ball, dropped a little:
 * every body ends at rest, on the ground, so every island is supported (the
 * one part of the rule a trace leaves out). The acceleration guard is off and
 * the angular threshold out of reach, since a trace gives linear speeds only. */
static tp_model *drop_model(void)
{
    tp_model_def md = tp_default_model_def();
    md.name = "trace_drop";
    md.sleep.accel_threshold = 0.0f;
    md.sleep.angular_threshold = 1e30f;
    tp_builder *b = NULL;
    cr_assert_eq(tp_builder_create(&md, &b), TP_OK, "%s", tp_last_error());
    struct { tp_body_type type; tp_shape_type shape; float size, x, z; } bodies[] = {
        {TP_BODY_STATIC, TP_SHAPE_BOX, 0.0f, 0.0f, -0.5f},  /* ground, size set below */
        {TP_BODY_DYNAMIC, TP_SHAPE_BOX, 0.5f, 0.0f, 0.27f},
        {TP_BODY_DYNAMIC, TP_SHAPE_BOX, 0.5f, 0.0f, 0.80f},
        {TP_BODY_DYNAMIC, TP_SHAPE_BOX, 0.5f, 3.0f, 0.60f},
        {TP_BODY_DYNAMIC, TP_SHAPE_BALL, 0.4f, -3.0f, 0.40f},
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; ++i) {
        tp_body_def bd = tp_default_body_def();
        bd.type = bodies[i].type;
        bd.shape = bodies[i].shape;
        for (int k = 0; k < 3; ++k) bd.size[k] = i == 0 ? (k == 2 ? 1.0f : 20.0f) : bodies[i].size;
        bd.pos[0] = bodies[i].x;
        bd.pos[2] = bodies[i].z;
        cr_assert_eq(tp_builder_add_body(b, &bd, NULL), TP_OK, "%s", tp_last_error());
    }
    tp_model *m = NULL;
    cr_assert_eq(tp_builder_finish(b, &m), TP_OK, "%s", tp_last_error());
    tp_builder_destroy(b);
    return m;
}

/* Step a batch and replay every step through tp_sleep_trace: the links are
 * the batch's islands (each body linked to its island's root), the speeds its
 * bodies' speeds after the step. The trace must put the same bodies to sleep
 * at the same steps, and all of them must sleep within 3 s, so the comparison
 * covers the decision and not only "awake". */
Test(trace, api_replays_a_batch_step_by_step)
{
    tp_model *m = drop_model();
    tp_batch *batch = NULL;
    cr_assert_eq(tp_batch_create(m, NULL, &batch), TP_OK, "%s", tp_last_error());
    tp_model_def md = tp_model_settings(m);
    int n = tp_model_body_count(m);
    tp_sleep_trace *t = NULL;
    cr_assert_eq(tp_sleep_trace_create(n, &t), TP_OK, "%s", tp_last_error());
    int32_t linked_to[8];
    for (int b = 0; b < n; ++b) linked_to[b] = -1;
    uint8_t asleep[8];
    int first_sleep[8] = {0}, steps = (int)(3.0f / md.dt);
    for (int step = 1; step <= steps; ++step) {
        cr_assert_eq(tp_batch_step(batch, 1), TP_OK, "%s", tp_last_error());
        tp_state_view s;
        cr_assert_eq(tp_batch_state(batch, &s), TP_OK, "%s", tp_last_error());
        for (int b = 0; b < n; ++b) {
            int root = s.island[b];
            if (linked_to[b] >= 0 && linked_to[b] != root) tp_sleep_trace_link(t, b, linked_to[b], 0);
            linked_to[b] = root >= 0 && root != b ? root : -1;
            if (linked_to[b] >= 0) cr_assert_eq(tp_sleep_trace_link(t, b, root, 1), TP_OK, "%s", tp_last_error());
        }
        cr_assert_eq(tp_sleep_trace_frame(t, s.v, md.sleep.linear_threshold, md.sleep.quiet_time, md.dt, asleep),
                     TP_OK, "%s", tp_last_error());
        for (int b = 1; b < n; ++b) { /* body 0 is the static ground */
            int sim = s.sleep_state[b] == TP_SLEEPING;
            cr_assert_eq(asleep[b], sim, "step %d body %d: trace says %s, the batch %s", step, b,
                         asleep[b] ? "asleep" : "awake", sim ? "asleep" : "awake");
            if (sim && !first_sleep[b]) first_sleep[b] = step;
        }
    }
    for (int b = 1; b < n; ++b) cr_assert_gt(first_sleep[b], 0, "body %d never fell asleep", b);
    tp_sleep_trace_destroy(t);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}
