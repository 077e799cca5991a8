/* lanes.h - a group of lanes (kernels/tp_hd.h's TP_BARRIER) run on one
 * thread, for the host replays of the CUDA backend's group stages
 * (tests/test_stages.c, tests/test_overflow_color.c).
 *
 * The lanes run as coroutines (ucontext) that switch at TP_BARRIER: lane 0
 * runs to its first barrier, then lane 1 to its first, ..., then lane 0 on
 * to its second, and so on; or in decreasing lane order. So between two
 * barriers the lanes' work is done one lane after the other, in either order:
 * a lane that read what another wrote in the same phase (a missing barrier)
 * sees different values in the two orders. Every lane must reach the same
 * number of barriers (a divergent barrier hangs a GPU): checked at every run.
 * Include it first, before any kernel header (it defines TP_BARRIER). */
#ifndef TP_TEST_LANES_H
#define TP_TEST_LANES_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* ucontext */
#endif
static void lane_barrier(void);
#define TP_BARRIER(nth)                                                                                                \
    do {                                                                                                               \
        if ((nth) > 1) lane_barrier();                                                                                 \
    } while (0)

#include <criterion/criterion.h>
#include <ucontext.h>

/* ---------------------------------------------------------------- lanes as coroutines */

#define LANE_STACK (256 * 1024)
#define LANES_MAX 128 /* TP_SOLVE_MAX_LANES */

typedef struct lane_sched {
    ucontext_t main, ctx[LANES_MAX];
    char *stacks;                     /* [LANES_MAX][LANE_STACK] */
    int n, reverse, cur, finished;
    int done[LANES_MAX];
    long barriers[LANES_MAX];
    void (*fn)(void *arg, int lane);
    void *arg;
} lane_sched;

static lane_sched *running; /* the group being run, NULL outside */

/* Hand over to the next lane (in the launch's order) that has not finished;
 * back to the caller of lanes_run when all have. */
static void lane_switch(void)
{
    lane_sched *S = running;
    int from = S->cur, to = from;
    if (S->finished == S->n) setcontext(&S->main);
    do to = S->reverse ? (to + S->n - 1) % S->n : (to + 1) % S->n;
    while (S->done[to]);
    S->cur = to;
    swapcontext(&S->ctx[from], &S->ctx[to]);
}

static void lane_barrier(void)
{
    running->barriers[running->cur]++;
    lane_switch();
}

static void lane_entry(void)
{
    lane_sched *S = running;
    int lane = S->cur;
    S->fn(S->arg, lane);
    S->done[lane] = 1;
    S->finished++;
    lane_switch(); /* never returns */
}

/* Run fn(arg, lane) for lanes 0 .. n - 1 as one group with TP_BARRIER
 * between phases; lanes in increasing order, or decreasing when reverse. */
static void lanes_run(lane_sched *S, int n, int reverse, void (*fn)(void *, int), void *arg)
{
    cr_assert(n >= 1 && n <= LANES_MAX);
    S->n = n;
    S->reverse = reverse;
    S->finished = 0;
    S->fn = fn;
    S->arg = arg;
    for (int l = 0; l < n; ++l) {
        S->done[l] = 0;
        S->barriers[l] = 0;
        getcontext(&S->ctx[l]);
        S->ctx[l].uc_stack.ss_sp = S->stacks + (size_t)l * LANE_STACK;
        S->ctx[l].uc_stack.ss_size = LANE_STACK;
        S->ctx[l].uc_link = &S->main;
        makecontext(&S->ctx[l], lane_entry, 0);
    }
    S->cur = reverse ? n - 1 : 0;
    running = S;
    swapcontext(&S->main, &S->ctx[S->cur]);
    running = NULL;
    for (int l = 1; l < n; ++l)
        cr_assert_eq(S->barriers[l], S->barriers[0], "lane %d reached %ld barriers, lane 0 %ld: not uniform", l,
                     S->barriers[l], S->barriers[0]);
}

#endif
