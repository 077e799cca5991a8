#define _POSIX_C_SOURCE 200809L
/* test_trace.c - `torpor trace`: the worked trace of 003_e1becc139ac8feb4.txt
 * (acceptance case C01) and one trace per common mistake that document lists;
 * each expected output is derived by hand in the comment of its script. */
#include <criterion/criterion.h>

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
