/* named_list.h - a growable array of definitions that each own a unique name
 * (the builder's constraints and movers). Internal to the library. */
#ifndef TP_NAMED_LIST_H
#define TP_NAMED_LIST_H

#include "torpor.h"

#include <stddef.h>

/* Appends a copy of `def` (`size` bytes) to `*items`, doubling the capacity as
 * needed, with an owned copy of its name: the def's own (the `const char *` at
 * `name_offset`) or "<kind><index>" when NULL. A name already in the list is
 * refused (TP_ERR_INVALID_ARGUMENT, naming both); nothing changes on failure.
 * `call` names the public call in out-of-memory errors. */
tp_status tp_named_list_add(void **items, int *count, int *capacity, size_t size, size_t name_offset,
                            const void *def, const char *kind, const char *call, int *out_index);
/* A malloc'd copy of `s` (NULL when out of memory). */
char *tp_name_copy(const char *s);
/* Frees every owned name and the array. */
void tp_named_list_free(void *items, int count, size_t size, size_t name_offset);

#endif
