/* site_host.h - sites (named frames on bodies, include/torpor_sites.h): the
 * builder's list and the model's (csrc/site_model.c). Internal to the library. */
#ifndef TP_SITE_HOST_H
#define TP_SITE_HOST_H

#include "torpor.h"

/* Sites as added or as the model keeps them (names owned). */
typedef struct tp_site_list {
    tp_site_def *defs;
    int count, capacity;
} tp_site_list;

/* Add one (checked against the builder's `body_count` bodies so far). */
tp_status tp_site_list_add(tp_site_list *l, int body_count, const tp_site_def *def, int *out_index);
/* A copy of `from` into an empty `to` (the model's, at tp_builder_finish). */
tp_status tp_site_list_copy(const tp_site_list *from, tp_site_list *to);
void tp_site_list_free(tp_site_list *l);

#endif
