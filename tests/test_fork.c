/* test_fork.c - a batch made (and stepped on its thread pool) before fork()
 * steps in the child, where the pool's workers do not exist: the child runs
 * the worlds on one thread and gets the parent's bits; destroying the batch
 * there returns. A child that hangs is stopped by alarm() and fails the test. */
#define _POSIX_C_SOURCE 200809L
#include "helpers.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

Test(fork, a_child_steps_and_destroys_a_batch_made_before_the_fork)
{
    tp_model *m = make_falling_model(3, 5.0f, NULL);
    tp_batch *b = make_batch(m, 16, 4);
    cr_assert_eq(tp_batch_threads(b), 4);
    batch_steps(b, 5); /* the workers have run a job */
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        alarm(20); /* a hang ends the child with SIGALRM */
        close(fds[0]);
        uint64_t h = 0;
        int ok = tp_batch_step(b, 20) == TP_OK && tp_batch_state_hash(b, &h) == TP_OK;
        tp_batch_destroy(b);
        tp_model_destroy(m);
        ok = ok && write(fds[1], &h, sizeof h) == (ssize_t)sizeof h;
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    batch_steps(b, 20);
    uint64_t want = 0, got = 0;
    cr_assert_eq(tp_batch_state_hash(b, &want), TP_OK);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child %s %d",
              WIFSIGNALED(status) ? "was killed by signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status)
                                                                                              : WEXITSTATUS(status));
    cr_assert_eq(read(fds[0], &got, sizeof got), (ssize_t)sizeof got);
    close(fds[0]);
    cr_assert_eq(got, want, "child %016llx, parent %016llx", (unsigned long long)got, (unsigned long long)want);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
