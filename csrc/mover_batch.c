/* mover_batch.c - a batch's mover state: creation, each world's reset. */
#include "mover_host.h"

#include "batch.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

tp_status tp_mover_batch_create(tp_batch *b)
{
    const tp_mover_host *h = b->model->movers;
    if (!h) return TP_OK;
    if (b->backend == TP_BACKEND_CUDA)
        return tp_fail(TP_ERR_BACKEND, "model \"%s\": %d movers: movers run on the cpu backend only so far "
                       "(docs/movers.md)", b->model->name, h->count);
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

/* The model's targets and enabled flags, no impulses, no read-outs. */
void tp_mover_batch_init_world(tp_batch *b, int w)
{
    if (!b->mover_state) return;
    const tp_mover_host *h = b->model->movers;
    tp_mover_state *st = b->mover_state + (size_t)w * (size_t)h->count;
    memset(st, 0, (size_t)h->count * sizeof *st);
    for (int k = 0; k < h->count; ++k) {
        memcpy(st[k].target, h->defs[k].target, sizeof st[k].target);
        st[k].enabled = (uint8_t)h->defs[k].enabled;
        st[k].other = -1;
    }
}
