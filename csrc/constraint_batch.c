/* constraint_batch.c - a batch's constraint state: creation, each world's
 * reset (the read-outs are in csrc/constraint_params.c). */
#include "constraint_host.h"

#include "batch.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tp_cons_model) % 4 == 0 && sizeof(tp_cons_state) % 4 == 0,
               "tp_cons_world_reset copies them as 32-bit words");

tp_status tp_cons_batch_create(tp_batch *b)
{
    const tp_cons_host *h = b->model->cons;
    if (!h) return TP_OK;
    b->cons_state = calloc((size_t)b->worlds * (size_t)h->count, sizeof *b->cons_state);
    b->cons_table = calloc((size_t)b->worlds * (size_t)h->count, sizeof *b->cons_table);
    if (!b->cons_state || !b->cons_table)
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_create: out of memory for the constraint state (%d worlds, "
                       "%d constraints)", b->worlds, h->count);
    b->layout.cons = b->cons_table;
    b->layout.cons_state = b->cons_state;
    b->layout.cons_count = h->count;
    return TP_OK;
}

void tp_cons_batch_destroy(tp_batch *b)
{
    free(b->cons_state);
    free(b->cons_table);
    b->cons_state = NULL;
    b->cons_table = NULL;
}

size_t tp_cons_batch_bytes_per_world(const tp_batch *b)
{
    return b->model->cons ? (size_t)b->model->cons->count * (sizeof(tp_cons_state) + sizeof(tp_cons_model)) : 0;
}

/* The model's parameters, no impulses, no read-outs (kernels/constraint.h;
 * the CUDA reset kernel runs the same function). */
void tp_cons_batch_init_world(tp_batch *b, int w)
{
    if (!b->cons_state) return;
    int n = b->model->cons->count;
    tp_cons_world_reset(b->cons_table + (size_t)w * (size_t)n, b->cons_state + (size_t)w * (size_t)n,
                        b->model->cons->table, n, 0, 1);
}
