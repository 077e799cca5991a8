/* bench_util.h - what every benchmark program needs: a clock and a check that
 * stops with the library's message. Define BENCH_NAME (the program's name)
 * before including it. */
#ifndef TP_BENCH_UTIL_H
#define TP_BENCH_UTIL_H

#include "torpor.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Monotonic wall-clock time, s. */
static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Exit 1 with tp_last_error() unless st is TP_OK. */
static inline void check(tp_status st)
{
    if (st != TP_OK) {
        fprintf(stderr, "%s: %s\n", BENCH_NAME, tp_last_error());
        exit(1);
    }
}

#endif
