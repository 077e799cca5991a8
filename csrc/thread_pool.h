/* thread_pool.h - a fixed team of threads that run one job at a time.
 *
 * The CPU backend's step runs the worlds of a batch on several threads. An
 * OpenMP region lets the runtime spin-wait after the step (libgomp's default
 * wait policy), which on a machine shared with other work costs more than
 * the step itself; the policy is read from the environment when libgomp
 * loads, so a library cannot change it. This pool's workers instead sleep on
 * a condition variable between jobs and the calling thread does a share of
 * each job, so nothing spins. All memory and threads are made at creation:
 * a job allocates nothing. */
#ifndef TP_THREAD_POOL_H
#define TP_THREAD_POOL_H

#include "torpor.h"

typedef struct tp_pool tp_pool;

/* One thread's part of a job: thread is in [0, threads); thread 0 is the caller. */
typedef void (*tp_pool_job)(void *arg, int thread, int threads);

/* A pool of `threads` threads in all (the caller and threads - 1 workers),
 * threads >= 1. Errors: TP_ERR_OUT_OF_MEMORY when memory, a thread or a
 * lock cannot be made (with a message); *out is then NULL. */
tp_status tp_pool_create(int threads, tp_pool **out);

/* Run job(arg, t, threads) on every thread t of the pool and return when all
 * have returned. Not reentrant: one job at a time per pool. In a child made
 * by fork() after the pool (which has no workers there) every part t runs on
 * the caller in turn. */
void tp_pool_run(tp_pool *p, tp_pool_job job, void *arg);

/* Threads in the pool, the caller included. */
int tp_pool_threads(const tp_pool *p);

/* Stop and join the workers; NULL is allowed. */
void tp_pool_destroy(tp_pool *p);

#endif
