/* mover_writes.c - the movers' per-world writes (targets, enabled flags) and
 * read-outs (include/torpor_movers.h). */
#include "mover_host.h"

#include "batch.h"
#include "batch_wake.h"
#include "error.h"
#include "mirror.h" /* TP_MIRROR_* */
#include "names.h"

#include <math.h>
#include <string.h>

/* The batch's movers, or a clear error naming the call. */
static tp_status movers_of(tp_batch *b, const char *call, int *count)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    *count = tp_model_mover_count(b->model);
    if (*count == 0) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: model \"%s\" has no movers", call, b->model->name);
    return TP_OK;
}

static const char *mover_name(const tp_batch *b, int k) { return b->model->movers->defs[k].name; }

/* A changed mover wakes the bodies of both its attachments, with or without
 * reaction (seed 000, "Additional wake situations": any property change of a
 * constraint wakes the assembly of each part an attachment of it is in). */
static void wake_mover(tp_batch *b, int w, int k)
{
    const tp_mover_model *m = &b->model->movers->table[k];
    int ends[2] = {m->body0, m->body1};
    for (int e = 0; e < 2; ++e)
        if (ends[e] >= 0 && b->model->bodies[ends[e]].type == TP_BODY_DYNAMIC) tp_wake_body(b, w, ends[e]);
}

/* What is wrong with target t of mover m (NULL: nothing); *c: a non-finite component. */
static const char *target_fault(const tp_mover_model *m, const float *t, int *c)
{
    for (*c = 0; *c < 4; ++*c)
        if (!isfinite(t[*c])) return "must be finite";
    _Static_assert((int)TP_MAX_SIZE == 10000, "the message below says 1e4");
    for (int k = 0; m->type == TP_MOVER_ALIGN_POSITION && k < 3; ++k) /* its squared distance stays finite */
        if (!(fabsf(t[k]) <= TP_MAX_SIZE)) {
            *c = k;
            return "must be within [-1e4, 1e4] m (TP_MAX_SIZE, an align_position's goal)";
        }
    if (m->type == TP_MOVER_ALIGN_ORIENTATION && !(m->flags & TP_MOVER_TWO_ATTACHMENT) && t[0] == 0.0f &&
        t[1] == 0.0f && t[2] == 0.0f && t[3] == 0.0f)
        return "an align_orientation's goal must be a non-zero quaternion";
    return NULL;
}

static tp_status check_target(const tp_batch *b, const char *call, int r, int k, const float *t)
{
    int c;
    const char *why = target_fault(&b->model->movers->table[k], t, &c);
    if (!why) return TP_OK;
    if (c < 4)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: targets row %d, mover %d (%s) [%d] %s, got %g; nothing was "
                       "changed", call, r, k, mover_name(b, k), c, why, (double)t[c]);
    return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: targets row %d, mover %d (%s): %s; nothing was changed", call, r, k,
                   mover_name(b, k), why);
}

/* World w's mover k gets target t (checked); a change wakes what it moves. */
static void write_target(tp_batch *b, int w, int k, const float *target)
{
    tp_mover_state *ms = &b->mover_state[(size_t)w * (size_t)tp_model_mover_count(b->model) + (size_t)k];
    float t[4];
    memcpy(t, target, sizeof t);
    const tp_mover_model *m = &b->model->movers->table[k];
    if (m->type == TP_MOVER_ALIGN_ORIENTATION && !(m->flags & TP_MOVER_TWO_ATTACHMENT))
        tp_q_store(t, tp_q_normalize_any(tp_q_load(t)));
    if (memcmp(ms->target, t, sizeof t) == 0) return; /* unchanged: wakes nothing */
    memcpy(ms->target, t, sizeof t);
    if (ms->enabled) wake_mover(b, w, k); /* a disabled mover moves nothing */
}

/* World w's mover k enabled (e: 0 or 1); a change wakes what it moves. */
static void write_enabled(tp_batch *b, int w, int k, uint8_t e)
{
    tp_mover_state *ms = &b->mover_state[(size_t)w * (size_t)tp_model_mover_count(b->model) + (size_t)k];
    if (ms->enabled == e) return;
    ms->enabled = e;
    if (!e) { /* nothing to warm start when it comes back */
        ms->pushing = 0;
        memset(ms->impulse, 0, sizeof ms->impulse);
    }
    wake_mover(b, w, k);
}

tp_status tp_batch_set_mover_targets(tp_batch *b, const tp_world_select *s, const float *targets,
                                     const uint8_t *mover_mask)
{
    const char *call = "tp_batch_set_mover_targets";
    int n;
    tp_status st = movers_of(b, call, &n);
    if (st || (st = tp_select_check(b, s, call))) return st;
    int rows = tp_select_rows(b, s);
    if (rows > 0 && !targets) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: targets is NULL", call);
    for (int r = 0; r < rows; ++r) {
        if (tp_select_world(s, r) < 0) continue;
        for (int k = 0; k < n; ++k)
            if ((!mover_mask || mover_mask[k]) &&
                (st = check_target(b, call, r, k, targets + 4 * ((size_t)r * (size_t)n + (size_t)k))))
                return st;
    }
    if ((st = tp_select_begin_writes(b, s))) return st;
    for (int r = 0; r < rows; ++r) {
        int w = tp_select_world(s, r);
        if (w < 0) continue;
        for (int k = 0; k < n; ++k) {
            if (!mover_mask || mover_mask[k]) write_target(b, w, k, targets + 4 * ((size_t)r * (size_t)n + (size_t)k));
        }
    }
    return TP_OK;
}

tp_status tp_batch_set_mover_enabled(tp_batch *b, const tp_world_select *s, const uint8_t *enabled,
                                     const uint8_t *mover_mask)
{
    const char *call = "tp_batch_set_mover_enabled";
    int n;
    tp_status st = movers_of(b, call, &n);
    if (st || (st = tp_select_check(b, s, call))) return st;
    int rows = tp_select_rows(b, s);
    if (rows > 0 && !enabled) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: enabled is NULL", call);
    for (int r = 0; r < rows; ++r) {
        if (tp_select_world(s, r) < 0) continue;
        for (int k = 0; k < n; ++k) {
            uint8_t e = enabled[(size_t)r * (size_t)n + (size_t)k];
            if ((!mover_mask || mover_mask[k]) && e > 1)
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: enabled row %d, mover %d (%s) must be 0 or 1, got %d; "
                               "nothing was changed", call, r, k, mover_name(b, k), (int)e);
        }
    }
    if ((st = tp_select_begin_writes(b, s))) return st;
    for (int r = 0; r < rows; ++r) {
        int w = tp_select_world(s, r);
        if (w < 0) continue;
        for (int k = 0; k < n; ++k) {
            if (!mover_mask || mover_mask[k]) write_enabled(b, w, k, enabled[(size_t)r * (size_t)n + (size_t)k]);
        }
    }
    return TP_OK;
}

tp_status tp_mover_event_check(const tp_event_def *e, int i, const tp_model *m)
{
    int n = tp_model_mover_count(m), c;
    if (e->mover < 0 || e->mover >= n)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (mover at t = %g s): mover: no mover %d (the model has %d)",
                       i, e->time, e->mover, n);
    const char *name = m->movers->defs[e->mover].name, *why = NULL;
    if (e->enabled < -1 || e->enabled > 1)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (mover at t = %g s): enabled: must be 0 or 1, got %d", i,
                       e->time, e->enabled);
    if (!e->has_target && e->enabled < 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (mover at t = %g s): \"%s\": writes neither a target nor "
                       "enabled", i, e->time, name);
    if (e->has_target && (why = target_fault(&m->movers->table[e->mover], e->target, &c)) && c < 4)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (mover at t = %g s): target[%d] of \"%s\" (type %s) %s, got %g",
                       i, e->time, c, name, tp_mover_type_names[m->movers->table[e->mover].type], why,
                       (double)e->target[c]);
    if (why)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (mover at t = %g s): target of \"%s\" (type %s): %s", i,
                       e->time, name, tp_mover_type_names[m->movers->table[e->mover].type], why);
    return TP_OK;
}

tp_status tp_mover_event_write(tp_batch *b, int w, const tp_event_def *e)
{
    tp_status st = tp_batch_begin_write(b, w, w); /* CUDA: the world's mover state current here, then sent */
    if (st) return st;
    if (e->has_target) write_target(b, w, e->mover, e->target);
    if (e->enabled >= 0) write_enabled(b, w, e->mover, (uint8_t)e->enabled);
    return TP_OK;
}

tp_status tp_batch_movers(tp_batch *b, float *targets, uint8_t *active, float *force)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_movers: batch is NULL");
    /* CUDA: the last step's state, and the bodies' flags that `active` reads */
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_CONSTRAINTS | TP_MIRROR_BODIES);
    if (st) return st;
    int n = tp_model_mover_count(b->model);
    for (int w = 0; w < b->worlds; ++w) {
        tp_world wd = tp_batch_world(b, w);
        for (int k = 0; k < n; ++k) {
            const tp_mover_state *ms = &b->mover_state[(size_t)w * (size_t)n + (size_t)k];
            size_t i = (size_t)w * (size_t)n + (size_t)k;
            if (targets) memcpy(targets + 4 * i, ms->target, sizeof ms->target);
            if (active) active[i] = (uint8_t)tp_mover_active(&wd, &b->model->movers->table[k], ms);
            if (force) force[i] = ms->force;
        }
    }
    return TP_OK;
}
