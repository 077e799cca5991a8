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

/* The model's movers: definitions (names owned), the kernels' table, and
 * the state a world's reset gives each (its target and enabled flag, no
 * impulses, no read-outs). */
typedef struct tp_mover_host {
    tp_mover_def *defs;      /* [count] */
    tp_mover_model *table;   /* [count] */
    tp_mover_state *initial; /* [count] */
    int count;
} tp_mover_host;

struct tp_model;
struct tp_batch;

/* Add one (checked against the builder's bodies so far). */
tp_status tp_mover_builder_add(tp_mover_builder *mb, int body_count, const tp_mover_def *def, int *out_index);
void tp_mover_builder_free(tp_mover_builder *mb);
/* The model's tables, once its bodies and articulations are built (links are refused). */
tp_status tp_mover_compile(const tp_mover_builder *mb, struct tp_model *m);
/* Index of the builder's mover called `name`, or -1. */
int tp_mover_builder_find(const tp_mover_builder *mb, const char *name);
/* Mover event e, the builder's event i: an existing mover, a target or
 * enabled flag to write, values as tp_batch_set_mover_targets and
 * tp_batch_set_mover_enabled take them (csrc/mover_writes.c). */
tp_status tp_mover_event_check(const tp_event_def *e, int i, const struct tp_model *m);
/* World w's mover of event e gets its target and/or enabled flag (checked
 * before), waking what it moves if they changed: a mover event. */
tp_status tp_mover_event_write(struct tp_batch *b, int w, const tp_event_def *e);
void tp_mover_host_free(tp_mover_host *h);

/* A batch's state arrays (into its layout) and each world's reset. */
tp_status tp_mover_batch_create(struct tp_batch *b);
void tp_mover_batch_destroy(struct tp_batch *b);
void tp_mover_batch_init_world(struct tp_batch *b, int w);
size_t tp_mover_batch_bytes_per_world(const struct tp_batch *b);

#endif
