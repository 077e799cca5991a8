/* mirror.c - the host copy of a device's world-major arrays, kept current per
 * world (mirror.h says what and why). */
#include "mirror.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

tp_status tp_mirror_init(tp_mirror *m, int worlds, tp_mirror_copy_fn copy, tp_mirror_wait_fn wait, void *ctx)
{
    memset(m, 0, sizeof *m);
    m->worlds = worlds;
    m->copy = copy;
    m->wait = wait;
    m->ctx = ctx;
    m->stale = calloc((size_t)worlds, 1);
    m->dirty = calloc((size_t)worlds, 1);
    if (!m->stale || !m->dirty) {
        tp_mirror_free(m);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "mirror: out of host memory for the marks of %d worlds", worlds);
    }
    return TP_OK;
}

void tp_mirror_free(tp_mirror *m)
{
    free(m->stale);
    free(m->dirty);
    m->stale = m->dirty = NULL;
}

tp_status tp_mirror_add(tp_mirror *m, void *host, void *device, size_t world_bytes, int group)
{
    if (m->count == TP_MIRROR_MAX_ARRAYS)
        return tp_fail(TP_ERR_CAPACITY, "mirror: more than %d arrays", TP_MIRROR_MAX_ARRAYS);
    tp_mirror_array *a = &m->arrays[m->count++];
    a->host = host;
    a->device = device;
    a->world_bytes = world_bytes;
    a->group = group;
    return TP_OK;
}

void tp_mirror_device_changed(tp_mirror *m, int first, int last)
{
    for (int w = first; w <= last; ++w) {
        m->stale[w] = TP_MIRROR_ALL;
        m->dirty[w] = 0;
    }
}

/* Copy worlds [first, first + n) of the arrays in `groups`, either way. */
static tp_status copy_run(tp_mirror *m, int first, int n, int groups, int to_device)
{
    for (int i = 0; i < m->count; ++i) {
        const tp_mirror_array *a = &m->arrays[i];
        if (!(a->group & groups)) continue;
        size_t offset = (size_t)first * a->world_bytes, bytes = (size_t)n * a->world_bytes;
        char *host = (char *)a->host + offset, *device = (char *)a->device + offset;
        tp_status st = to_device ? m->copy(m->ctx, device, host, bytes, 1) : m->copy(m->ctx, host, device, bytes, 0);
        if (st != TP_OK) return st;
        *(to_device ? &m->bytes_pushed : &m->bytes_pulled) += bytes;
        m->copies++;
    }
    return TP_OK;
}

tp_status tp_mirror_pull(tp_mirror *m, int first, int last, int groups)
{
    int copied = 0;
    for (int w = first; w <= last;) {
        if (!(m->stale[w] & groups)) {
            ++w;
            continue;
        }
        /* a run of worlds stale in the same groups moves in one copy per array */
        int g = m->stale[w] & groups, end = w + 1;
        while (end <= last && (m->stale[end] & groups) == g) ++end;
        tp_status st = copy_run(m, w, end - w, g, 0);
        if (st != TP_OK) return st;
        for (int k = w; k < end; ++k) m->stale[k] &= (uint8_t)~g;
        copied = 1;
        w = end;
    }
    return copied ? m->wait(m->ctx) : TP_OK;
}

tp_status tp_mirror_begin_write(tp_mirror *m, int first, int last)
{
    tp_status st = tp_mirror_pull(m, first, last, TP_MIRROR_STATE);
    if (st != TP_OK) return st;
    for (int w = first; w <= last; ++w) m->dirty[w] = 1;
    m->any_dirty = 1;
    return TP_OK;
}

tp_status tp_mirror_push(tp_mirror *m)
{
    if (!m->any_dirty) return TP_OK;
    for (int w = 0; w < m->worlds;) {
        if (!m->dirty[w]) {
            ++w;
            continue;
        }
        int end = w + 1;
        while (end < m->worlds && m->dirty[end]) ++end;
        tp_status st = copy_run(m, w, end - w, TP_MIRROR_STATE, 1);
        if (st != TP_OK) return st;
        memset(m->dirty + w, 0, (size_t)(end - w));
        w = end;
    }
    m->any_dirty = 0;
    return m->wait(m->ctx);
}
