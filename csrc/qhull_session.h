/* qhull_session.h - one run of qhull's reentrant library on the host, its
 * messages caught for the error text (hull.c, hull_simplify.c). */
#ifndef TP_QHULL_SESSION_H
#define TP_QHULL_SESSION_H

#include <libqhull_r/qhull_ra.h>
#include <stddef.h>
#include <stdio.h>

typedef struct tp_qhull {
    qhT qh;     /* qhull's state: its vertices and facets after tp_qhull_open */
    FILE *err;  /* qhull's messages, into msg */
    char *msg;
    size_t msg_len;
} tp_qhull;

/* The hull of v [n][3] with qhull's option string `flags` ("qhull ..."). Returns
 * 1 (close it with tp_qhull_close), or 0 with the reason (out of memory, or
 * qhull's first message line) and nothing left to close. */
int tp_qhull_open(tp_qhull *s, double *v, int n, const char *flags, char *reason, size_t reason_len);

/* Free qhull's memory and the message buffer. */
void tp_qhull_close(tp_qhull *s);

#endif
