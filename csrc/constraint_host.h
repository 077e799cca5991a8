/* constraint_host.h - the host side of constraints between two bodies: the
 * builder's list, the model's tables, a batch's state (csrc/constraint_model.c,
 * csrc/constraint_batch.c). Internal to the library. */
#ifndef TP_CONSTRAINT_HOST_H
#define TP_CONSTRAINT_HOST_H

#include "constraint.h"
#include "torpor.h"

/* The constraints added to a builder, as added (names are the builder's copies). */
typedef struct tp_cons_builder {
    tp_constraint_def *defs;
    int count, capacity;
} tp_cons_builder;

/* The model's constraints: definitions (names owned) and the kernels' table. */
typedef struct tp_cons_host {
    tp_constraint_def *defs;   /* [count] */
    tp_cons_model *table;      /* [count] */
    int count;
} tp_cons_host;

struct tp_model;
struct tp_batch;

/* Add one (checked against the builder's bodies so far: `bodies`, `body_count`). */
tp_status tp_cons_builder_add(tp_cons_builder *cb, const tp_body_def *bodies, int body_count,
                              const tp_constraint_def *def, int *out_index);
void tp_cons_builder_free(tp_cons_builder *cb);
/* The model's tables, once its bodies and articulations are built (welds take
 * their offsets from the bodies' initial poses; links are refused). */
tp_status tp_cons_compile(const tp_cons_builder *cb, struct tp_model *m);
void tp_cons_host_free(tp_cons_host *h);

/* Index of the builder's constraint called `name`, or -1. */
int tp_cons_builder_find(const tp_cons_builder *cb, const char *name);
/* Constraint event e, the builder's event i: an existing constraint, a
 * parameter it has, a value it takes (csrc/constraint_params.c). */
tp_status tp_cons_event_check(const tp_event_def *e, int i, const struct tp_model *m);
/* World w's parameter `which` of constraint k set to v (checked before),
 * waking its bodies if it changed: a constraint event. Fails only where the
 * backend cannot make the world current on the host (CUDA). */
tp_status tp_cons_param_write(struct tp_batch *b, int w, int k, tp_constraint_param which, float v);

/* A batch's state arrays (into its layout) and each world's reset. */
tp_status tp_cons_batch_create(struct tp_batch *b);
void tp_cons_batch_destroy(struct tp_batch *b);
void tp_cons_batch_init_world(struct tp_batch *b, int w);
size_t tp_cons_batch_bytes_per_world(const struct tp_batch *b);

#endif
