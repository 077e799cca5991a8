/* thread_pool.c - a fixed team of threads sleeping on a condition variable
 * between jobs (see thread_pool.h for why not OpenMP).
 *
 * A job is published under the mutex with a new generation number and a
 * broadcast; each worker runs it once when it sees a generation it has not
 * run, then counts itself done. The caller runs part 0 and waits, also on a
 * condition variable, until the count of busy workers is zero. The mutex
 * orders every write of a job before the caller's return.
 *
 * fork(): only the forking thread exists in the child, so a pool made before
 * the fork has no workers there. The pool remembers the process it was made
 * in; in another one a job runs every part on the caller, one after another
 * (the same parts, so the same results), and destroy frees without joining. */
#define _POSIX_C_SOURCE 200809L /* pthreads under -std=c11 */
#include "thread_pool.h"

#include "error.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct tp_worker {
    struct tp_pool *pool;
    int index;
    pthread_t thread;
};

struct tp_pool {
    pthread_mutex_t lock;
    pthread_cond_t start;     /* a new job or stop: workers wake */
    pthread_cond_t done;      /* the last busy worker finished: the caller wakes */
    tp_pool_job job;
    void *arg;
    unsigned long generation; /* jobs published so far */
    int busy;                 /* workers still running the current job */
    int stop;
    int threads;              /* the caller and the workers */
    int started;              /* workers created (for an orderly destroy after a failure) */
    pid_t pid;                /* the process the workers run in (see fork() above) */
    struct tp_worker *workers; /* [threads - 1] */
};

static void *worker_main(void *data)
{
    struct tp_worker *w = data;
    struct tp_pool *p = w->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen) pthread_cond_wait(&p->start, &p->lock);
        if (p->stop) break;
        seen = p->generation;
        tp_pool_job job = p->job;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->lock);
        job(arg, w->index, p->threads);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

tp_status tp_pool_create(int threads, tp_pool **out)
{
    *out = NULL;
    tp_pool *p = calloc(1, sizeof *p);
    if (!p) return tp_fail(TP_ERR_OUT_OF_MEMORY, "thread pool: out of memory");
    p->threads = threads;
    p->pid = getpid();
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "thread pool: cannot make a mutex");
    }
    if (pthread_cond_init(&p->start, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "thread pool: cannot make a condition variable");
    }
    if (pthread_cond_init(&p->done, NULL) != 0) {
        pthread_cond_destroy(&p->start);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "thread pool: cannot make a condition variable");
    }
    p->workers = calloc((size_t)(threads > 1 ? threads - 1 : 1), sizeof *p->workers);
    if (!p->workers) {
        tp_pool_destroy(p);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "thread pool: out of memory");
    }
    for (int i = 0; i < threads - 1; ++i) {
        p->workers[i].pool = p;
        p->workers[i].index = i + 1;
        if (pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]) != 0) {
            tp_pool_destroy(p);
            return tp_fail(TP_ERR_OUT_OF_MEMORY, "thread pool: cannot start thread %d of %d", i + 2, threads);
        }
        p->started = i + 1;
    }
    *out = p;
    return TP_OK;
}

void tp_pool_run(tp_pool *p, tp_pool_job job, void *arg)
{
    if (p->threads > 1 && getpid() != p->pid) { /* a forked child: the workers are not here */
        for (int t = 0; t < p->threads; ++t) job(arg, t, p->threads);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->job = job;
    p->arg = arg;
    p->busy = p->threads - 1;
    ++p->generation;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);

    job(arg, 0, p->threads);

    pthread_mutex_lock(&p->lock);
    while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

int tp_pool_threads(const tp_pool *p) { return p->threads; }

void tp_pool_destroy(tp_pool *p)
{
    if (!p) return;
    if (getpid() != p->pid) { /* a forked child: no workers to stop, and the lock may be the parent's state */
        free(p->workers);
        free(p);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->started; ++i) pthread_join(p->workers[i].thread, NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->start);
    pthread_mutex_destroy(&p->lock);
    free(p->workers);
    free(p);
}
