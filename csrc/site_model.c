/* site_model.c - sites (include/torpor_sites.h): checks, the builder's list,
 * the model's copy and its queries. */
#include "site_host.h"

#include "error.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tp_site_def tp_default_site_def(void)
{
    tp_site_def d;
    memset(&d, 0, sizeof d);
    d.body = -1;
    d.quat[3] = 1.0f;
    return d;
}

static char *dup_name(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

/* The value checks, naming the field at fault. */
static tp_status check_def(const tp_site_list *l, int body_count, const tp_site_def *d)
{
    if (!d->name || !d->name[0]) return tp_fail(TP_ERR_INVALID_ARGUMENT, "site: name: a site needs a name");
    for (int k = 0; k < l->count; ++k)
        if (strcmp(l->defs[k].name, d->name) == 0)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "site: name: \"%s\" is already the name of site %d", d->name, k);
    if (d->body < -1 || d->body >= body_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "site: body: no body %d (the model has %d so far; -1 is the world)",
                       d->body, body_count);
    if (!isfinite(d->pos[0]) || !isfinite(d->pos[1]) || !isfinite(d->pos[2]))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "site: pos: must be finite");
    const float *q = d->quat;
    if (!(isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3])) ||
        (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "site: quat: must be a finite, non-zero quaternion");
    return TP_OK;
}

/* Append d (its name copied, its quaternion normalized). */
static tp_status append(tp_site_list *l, const tp_site_def *d)
{
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 8;
        tp_site_def *p = realloc(l->defs, (size_t)cap * sizeof *p);
        if (!p) return tp_fail(TP_ERR_OUT_OF_MEMORY, "site: out of memory");
        l->defs = p;
        l->capacity = cap;
    }
    tp_site_def s = *d;
    double n = sqrt((double)d->quat[0] * d->quat[0] + (double)d->quat[1] * d->quat[1] +
                    (double)d->quat[2] * d->quat[2] + (double)d->quat[3] * d->quat[3]);
    for (int k = 0; k < 4; ++k) s.quat[k] = (float)(d->quat[k] / n);
    s.name = dup_name(d->name);
    if (!s.name) return tp_fail(TP_ERR_OUT_OF_MEMORY, "site: out of memory");
    l->defs[l->count++] = s;
    return TP_OK;
}

tp_status tp_site_list_add(tp_site_list *l, int body_count, const tp_site_def *def, int *out_index)
{
    if (!def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_site: def is NULL");
    tp_status st = check_def(l, body_count, def);
    if (st != TP_OK) return st;
    if (out_index) *out_index = l->count;
    return append(l, def);
}

tp_status tp_site_list_copy(const tp_site_list *from, tp_site_list *to)
{
    for (int k = 0; k < from->count; ++k) {
        tp_status st = append(to, &from->defs[k]);
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

void tp_site_list_free(tp_site_list *l)
{
    for (int k = 0; k < l->count; ++k) free((void *)l->defs[k].name);
    free(l->defs);
    memset(l, 0, sizeof *l);
}

int tp_model_site_count(const tp_model *m) { return m ? m->sites.count : 0; }

tp_status tp_model_site(const tp_model *m, int index, tp_site_def *out)
{
    if (!m || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_site: model or out is NULL");
    if (index < 0 || index >= m->sites.count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_site: index %d out of range (%d sites)", index,
                       m->sites.count);
    *out = m->sites.defs[index];
    return TP_OK;
}

int tp_model_find_site(const tp_model *m, const char *name)
{
    if (!m || !name) return -1;
    for (int k = 0; k < m->sites.count; ++k)
        if (strcmp(m->sites.defs[k].name, name) == 0) return k;
    return -1;
}
