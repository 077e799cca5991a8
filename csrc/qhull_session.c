/* qhull_session.c - one run of qhull on the host (qhull_session.h). */
#define _GNU_SOURCE /* open_memstream: qhull's messages into the error text */
#include "qhull_session.h"

#include <stdlib.h>
#include <string.h>

int tp_qhull_open(tp_qhull *s, double *v, int n, const char *flags, char *reason, size_t reason_len)
{
    s->msg = NULL;
    s->msg_len = 0;
    s->err = open_memstream(&s->msg, &s->msg_len);
    if (!s->err) {
        snprintf(reason, reason_len, "out of memory for qhull's messages");
        return 0;
    }
    qh_zero(&s->qh, s->err);
    char options[64];
    snprintf(options, sizeof options, "%s", flags);
    if (qh_new_qhull(&s->qh, 3, n, v, False, options, NULL, s->err) != 0) {
        fflush(s->err);
        char *line = s->msg ? strtok(s->msg, "\n") : NULL;
        snprintf(reason, reason_len, "qhull could not build the hull: %s", line ? line : "(no message)");
        tp_qhull_close(s);
        return 0;
    }
    return 1;
}

void tp_qhull_close(tp_qhull *s)
{
    qh_freeqhull(&s->qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(&s->qh, &curlong, &totlong);
    fclose(s->err);
    free(s->msg);
}
