/* constraint_batch.c - a batch's constraint state: creation, each world's
 * reset, the read-outs. */
#include "constraint_host.h"

#include "batch.h"
#include "error.h"
#include "mirror.h" /* TP_MIRROR_CONSTRAINTS */

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

tp_status tp_batch_constraints(tp_batch *b, float *value, float *force)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_constraints: batch is NULL");
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_CONSTRAINTS); /* CUDA: the last step's */
    if (st) return st;
    size_t n = (size_t)tp_model_constraint_count(b->model), total = n * (size_t)b->worlds;
    for (size_t i = 0; i < total; ++i) {
        if (value) value[i] = b->cons_state[i].value;
        if (force) force[i] = b->cons_state[i].force;
    }
    return TP_OK;
}
