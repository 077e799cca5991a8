/* mover_host.h - the host side of movers: the builder's list, the model's
 * tables, a batch's state (csrc/mover_model.c, csrc/mover_batch.c,
 * csrc/mover_writes.c). Internal to the library. */
#ifndef TP_MOVER_HOST_H
#define TP_MOVER_HOST_H

#include "mover.h"
#include "torpor.h"

/* The movers added to a builder, as added (names are the builder's copies). */
typedef struct tp_mover_builder {
    tp_mover_def *defs;
    int count, capacity;
} tp_mover_builder;

/* The model's movers: definitions (names owned) and the kernels' table. */
typedef struct tp_mover_host {
    tp_mover_def *defs;      /* [count] */
    tp_mover_model *table;   /* [count] */
    int count;
} tp_mover_host;

struct tp_model;
struct tp_batch;

/* Add one (checked against the builder's bodies so far). */
tp_status tp_mover_builder_add(tp_mover_builder *mb, int body_count, const tp_mover_def *def, int *out_index);
void tp_mover_builder_free(tp_mover_builder *mb);
/* The model's tables, once its bodies and articulations are built (links are refused). */
tp_status tp_mover_compile(const tp_mover_builder *mb, struct tp_model *m);
void tp_mover_host_free(tp_mover_host *h);

/* A batch's state arrays (into its layout) and each world's reset. */
tp_status tp_mover_batch_create(struct tp_batch *b);
void tp_mover_batch_destroy(struct tp_batch *b);
void tp_mover_batch_init_world(struct tp_batch *b, int w);
size_t tp_mover_batch_bytes_per_world(const struct tp_batch *b);

#endif
