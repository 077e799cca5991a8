/* mover_batch.c - a batch's mover state: creation, each world's reset. */
#include "mover_host.h"

#include "batch.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tp_mover_state) % 4 == 0, "tp_mover_world_reset copies it as 32-bit words");

tp_status tp_mover_batch_create(tp_batch *b)
{
    const tp_mover_host *h = b->model->movers;
    if (!h) return TP_OK;
    b->mover_state = calloc((size_t)b->worlds * (size_t)h->count, sizeof *b->mover_state);
    if (!b->mover_state)
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_create: out of memory for the mover state (%d worlds, %d movers)",
                       b->worlds, h->count);
    b->layout.movers = h->table;
    b->layout.mover_state = b->mover_state;
    b->layout.mover_count = h->count;
    return TP_OK;
}

void tp_mover_batch_destroy(tp_batch *b)
{
    free(b->mover_state);
    b->mover_state = NULL;
}

size_t tp_mover_batch_bytes_per_world(const tp_batch *b)
{
    return b->model->movers ? (size_t)b->model->movers->count * sizeof(tp_mover_state) : 0;
}

/* The model's initial state (kernels/mover.h; the CUDA reset kernel runs
 * the same function). */
void tp_mover_batch_init_world(tp_batch *b, int w)
{
    if (!b->mover_state) return;
    const tp_mover_host *h = b->model->movers;
    tp_mover_world_reset(b->mover_state + (size_t)w * (size_t)h->count, h->initial, h->count, 0, 1);
}
