/* named_list.c - a growable array of definitions with unique owned names. */
#include "named_list.h"

#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tp_name_copy(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

static const char **name_at(void *items, int k, size_t size, size_t name_offset)
{
    return (const char **)((char *)items + (size_t)k * size + name_offset);
}

tp_status tp_named_list_add(void **items, int *count, int *capacity, size_t size, size_t name_offset,
                            const void *def, const char *kind, const char *call, int *out_index)
{
    char own[48];
    snprintf(own, sizeof own, "%s%d", kind, *count);
    const char *given = *(const char *const *)((const char *)def + name_offset);
    const char *name = given ? given : own;
    for (int k = 0; k < *count; ++k)
        if (strcmp(*name_at(*items, k, size, name_offset), name) == 0)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: name: \"%s\" is already the name of %s %d", kind, name, kind, k);
    if (*count == *capacity) {
        int cap = *capacity ? 2 * *capacity : 8;
        void *p = realloc(*items, (size_t)cap * size);
        if (!p) return tp_fail(TP_ERR_OUT_OF_MEMORY, "%s: out of memory", call);
        *items = p;
        *capacity = cap;
    }
    char *copy = tp_name_copy(name);
    if (!copy) return tp_fail(TP_ERR_OUT_OF_MEMORY, "%s: out of memory", call);
    memcpy((char *)*items + (size_t)*count * size, def, size);
    *name_at(*items, *count, size, name_offset) = copy;
    if (out_index) *out_index = *count;
    ++*count;
    return TP_OK;
}

void tp_named_list_free(void *items, int count, size_t size, size_t name_offset)
{
    for (int k = 0; k < count; ++k) free((void *)*name_at(items, k, size, name_offset));
    free(items);
}
