/* probe_batch.h - for the probe programs of scripts/callgrind_*.sh: one world
 * of a scene on the CPU backend, one thread, and its model in *m. Exits with status 1 and a message
 * if the scene does not load or the batch cannot be made. */
#ifndef TP_PROBE_BATCH_H
#define TP_PROBE_BATCH_H

#include "torpor.h"
#include <stdio.h>
#include <stdlib.h>

static tp_batch *probe_batch(const char *scene, tp_model **m)
{
    tp_batch *b = NULL;
    tp_batch_def d = tp_default_batch_def();
    d.worlds = 1;
    d.threads = 1;
    d.backend = TP_BACKEND_CPU;
    if (!scene || tp_model_load(scene, m) != TP_OK || tp_batch_create(*m, &d, &b) != TP_OK) {
        fprintf(stderr, "probe: %s\n", scene ? tp_last_error() : "no scene given");
        exit(1);
    }
    return b; /* *m: its model, to destroy after the batch */
}

#endif
