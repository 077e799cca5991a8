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
    m->bridge_bytes = TP_MIRROR_BRIDGE_BYTES;
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

static int one_group(int group)
{
    return group == TP_MIRROR_BODIES || group == TP_MIRROR_COUNTS || group == TP_MIRROR_CONTACTS ||
           group == TP_MIRROR_SENSORS || group == TP_MIRROR_CONSTRAINTS;
}

tp_status tp_mirror_add(tp_mirror *m, void *host, void *device, size_t world_bytes, int group)
{
    if (!one_group(group))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mirror: an array belongs to exactly one group, got %d", group);
    if (m->count == TP_MIRROR_MAX_ARRAYS)
        return tp_fail(TP_ERR_CAPACITY, "mirror: more than %d arrays", TP_MIRROR_MAX_ARRAYS);
    tp_mirror_array *a = &m->arrays[m->count++];
    a->host = host;
    a->device = device;
    a->world_bytes = world_bytes;
    a->group = group;
    return TP_OK;
}

tp_status tp_mirror_set_span(tp_mirror *m, int group, void *host, void *device, size_t bytes)
{
    if (!one_group(group))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "mirror: a span belongs to exactly one group, got %d", group);
    for (int i = 0; i < m->count; ++i) {
        const tp_mirror_array *a = &m->arrays[i];
        if (a->group != group) continue;
        size_t size = (size_t)m->worlds * a->world_bytes;
        const char *h = (const char *)a->host, *d = (const char *)a->device;
        if (h < (const char *)host || h + size > (const char *)host + bytes || d < (const char *)device ||
            (size_t)(h - (const char *)host) != (size_t)(d - (const char *)device))
            return tp_fail(TP_ERR_INVALID_ARGUMENT,
                           "mirror: array %d of group %d is not at the same offset of the span on both sides", i, group);
    }
    m->span[group].host = host;
    m->span[group].device = device;
    m->span[group].bytes = bytes;
    return TP_OK;
}

void tp_mirror_device_changed(tp_mirror *m, int first, int last)
{
    for (int w = first; w <= last; ++w) {
        m->stale[w] = TP_MIRROR_ALL;
        m->dirty[w] = 0;
    }
}

/* Copy worlds [first, first + n) of the arrays in `group`, either way: the
 * group's span in one copy when the run is every world, else a copy per array. */
static tp_status copy_run(tp_mirror *m, int first, int n, int group, int to_device)
{
    const tp_mirror_span *sp = &m->span[group];
    if (sp->bytes && first == 0 && n == m->worlds) {
        tp_status st = to_device ? m->copy(m->ctx, sp->device, sp->host, sp->bytes, 1)
                                 : m->copy(m->ctx, sp->host, sp->device, sp->bytes, 0);
        if (st != TP_OK) return st;
        *(to_device ? &m->bytes_pushed : &m->bytes_pulled) += sp->bytes;
        m->copies++;
        return TP_OK;
    }
    for (int i = 0; i < m->count; ++i) {
        const tp_mirror_array *a = &m->arrays[i];
        if (a->group != group) continue;
        size_t offset = (size_t)first * a->world_bytes, bytes = (size_t)n * a->world_bytes;
        char *host = (char *)a->host + offset, *device = (char *)a->device + offset;
        tp_status st = to_device ? m->copy(m->ctx, device, host, bytes, 1) : m->copy(m->ctx, host, device, bytes, 0);
        if (st != TP_OK) return st;
        *(to_device ? &m->bytes_pushed : &m->bytes_pulled) += bytes;
        m->copies++;
    }
    return TP_OK;
}

/* World w must be copied: stale in `group` (pull) or dirty (push). */
static int needs_copy(const tp_mirror *m, int w, int group, int to_device)
{
    return to_device ? m->dirty[w] : (m->stale[w] & group) != 0;
}

/* World w may be copied along without changing anything, because both sides
 * hold the same bytes of `group`: for a pull, a world the host has not changed
 * (the host never changes contacts or sensors); for a push, a world the device has not. */
static int may_copy(const tp_mirror *m, int w, int group, int to_device)
{
    if (to_device) return !(m->stale[w] & group);
    return (group & TP_MIRROR_DEVICE_ONLY) || !m->dirty[w];
}

static size_t group_world_bytes(const tp_mirror *m, int group)
{
    size_t bytes = 0;
    for (int i = 0; i < m->count; ++i)
        if (m->arrays[i].group == group) bytes += m->arrays[i].world_bytes;
    return bytes;
}

/* Copy the worlds of [first, last] that need it for `group`. Neighbouring
 * worlds go in one run; a run also bridges a gap of worlds that may be copied
 * along when the gap is at most bridge_bytes, since one copy of a few more
 * bytes is cheaper than two copies (each cudaMemcpyAsync costs microseconds). */
static tp_status copy_group(tp_mirror *m, int first, int last, int group, int to_device, int *copied)
{
    size_t wb = group_world_bytes(m, group);
    if (wb == 0) return TP_OK; /* no array in the group (a model without constraints): nothing to copy or wait for */
    int bridge = wb ? (int)(m->bridge_bytes / wb) : 0;
    for (int w = first; w <= last;) {
        if (!needs_copy(m, w, group, to_device)) {
            ++w;
            continue;
        }
        int end = w + 1; /* the run is [w, end) */
        for (;;) {
            while (end <= last && needs_copy(m, end, group, to_device)) ++end;
            int next = end;
            while (next <= last && next - end < bridge && !needs_copy(m, next, group, to_device) &&
                   may_copy(m, next, group, to_device))
                ++next;
            if (next == end || next > last || !needs_copy(m, next, group, to_device)) break;
            end = next; /* the gap [end, next) is bridged */
        }
        tp_status st = copy_run(m, w, end - w, group, to_device);
        if (st != TP_OK) return st;
        if (!to_device) /* (a push clears the dirty marks once every group is sent) */
            for (int k = w; k < end; ++k) m->stale[k] &= (uint8_t)~group;
        *copied = 1;
        w = end;
    }
    return TP_OK;
}

/* copy_group for each group in `groups`. */
static tp_status copy_groups(tp_mirror *m, int first, int last, int groups, int to_device, int *copied)
{
    for (int group = 1; group <= TP_MIRROR_ALL; group <<= 1) {
        if (!(groups & group)) continue;
        tp_status st = copy_group(m, first, last, group, to_device, copied);
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

/* After a failed copy the host side of [first, last] is unknown: mark it stale
 * again, so that no later read trusts it. */
static tp_status pull_failed(tp_mirror *m, int first, int last, int groups, tp_status st)
{
    for (int w = first; w <= last; ++w) /* (the host's own changes stay: they were not copied over) */
        m->stale[w] |= (uint8_t)(m->dirty[w] ? groups & TP_MIRROR_DEVICE_ONLY : groups);
    return st;
}

tp_status tp_mirror_pull(tp_mirror *m, int first, int last, int groups)
{
    int copied = 0;
    tp_status st = copy_groups(m, first, last, groups, 0, &copied);
    if (st == TP_OK && copied) st = m->wait(m->ctx);
    return st == TP_OK ? TP_OK : pull_failed(m, first, last, groups, st);
}

tp_status tp_mirror_begin_write(tp_mirror *m, int first, int last)
{
    tp_status st = tp_mirror_pull(m, first, last, TP_MIRROR_WRITTEN);
    if (st != TP_OK) return st;
    for (int w = first; w <= last; ++w) m->dirty[w] = 1;
    m->any_dirty = 1;
    return TP_OK;
}

tp_status tp_mirror_push(tp_mirror *m)
{
    if (!m->any_dirty) return TP_OK;
    int copied = 0;
    tp_status st = copy_groups(m, 0, m->worlds - 1, TP_MIRROR_WRITTEN, 1, &copied);
    if (st == TP_OK && copied) st = m->wait(m->ctx);
    if (st != TP_OK) return st; /* the worlds stay dirty: a later push sends them again */
    memset(m->dirty, 0, (size_t)m->worlds);
    m->any_dirty = 0;
    return TP_OK;
}
