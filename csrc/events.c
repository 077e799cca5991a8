/* events.c - the model's scripted events, fired before the steps they are due.
 *
 * An event at time t fires before the first step that starts at or after t:
 * step k starts at k dt, so it fires before step ceil(t / dt) (with a relative
 * tolerance of 1e-6 step so that t = 2.0 with dt = 1/60 fires at step 120, not
 * 121). A force event acts on max(1, round(duration / dt)) consecutive steps.
 * Events count global steps: resetting a world does not replay them.
 *
 * The events were checked when the model was built (tp_event_def_check: body
 * indices, dynamic bodies, finite values, gravity range, non-zero quaternions)
 * and their worlds when the batch was (tp_events_schedule), so they act through
 * the unchecked writes of body_ops.h, not the public API. */
#include "events.h"

#include "body_ops.h"
#include "constraint_host.h"
#include "mover_host.h"
#include "error.h"

#include <math.h>
#include <stdio.h>

/* A step count past any run: 2^62 steps. An event time or duration of up to
 * 1e9 s with a dt down to 1e-30 s is up to 1e39 steps, past what an int64
 * holds, so the conversion from double saturates here (converting an
 * out-of-range double to an integer is undefined behaviour). */
#define TP_NEVER_STEP ((int64_t)1 << 62)

static int64_t steps_of(double steps)
{
    if (!(steps < (double)TP_NEVER_STEP)) return TP_NEVER_STEP;
    if (!(steps > -(double)TP_NEVER_STEP)) return -TP_NEVER_STEP;
    return (int64_t)steps;
}

tp_status tp_events_schedule(tp_batch *b)
{
    const tp_model *m = b->model;
    double dt = (double)m->def.dt;
    for (int i = 0; i < m->event_count; ++i) {
        const tp_event_def *e = &m->events[i];
        for (int k = 0; k < e->world_count; ++k)
            if (e->worlds[k] >= b->total_worlds)
                return tp_fail(TP_ERR_INVALID_ARGUMENT,
                               "event %d (%s at t = %g s): worlds[%d] = %d, but the %s has %d worlds", i,
                               tp_event_action_name(e->action), e->time, k, e->worlds[k],
                               b->total_worlds == b->worlds ? "batch" : "sharded run (total_worlds)", b->total_worlds);
        int64_t step = steps_of(ceil(e->time / dt - 1e-6));
        int64_t n = 1;
        if (e->action == TP_EVENT_FORCE) {
            n = steps_of(floor(e->duration / dt + 0.5));
            if (n < 1) n = 1;
        }
        b->schedule[i].step = step;
        b->schedule[i].last_step = step > TP_NEVER_STEP - n ? TP_NEVER_STEP : step + n - 1;
    }
    b->next_event = 0;
    return TP_OK;
}

static tp_status apply_to_world(tp_batch *b, const tp_event_def *e, int w)
{
    /* Events read the current state (a teleport keeps the orientation). */
    tp_status st = tp_batch_pull(b, w, w, TP_MIRROR_STATE);
    if (st) return st;
    /* A faulted world is frozen until reset: its events are skipped (frozen means
     * unchanged; a teleport would also copy its non-finite orientation back). */
    if (b->faults[w] && e->action != TP_EVENT_RESET) return TP_OK;
    /* A body removed in this world (by an earlier event or the API) takes no
     * more events: the API refuses them, and an event would act on a body that is gone. */
    if (e->body >= 0 && e->action != TP_EVENT_REMOVE &&
        (b->flags[(size_t)w * (size_t)b->bodies + (size_t)e->body] & TP_FLAG_REMOVED))
        return TP_OK;
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    size_t k = (size_t)w * (size_t)b->bodies + (size_t)(e->body < 0 ? 0 : e->body);
    switch (e->action) {
    case TP_EVENT_IMPULSE: return tp_op_add_impulse(b, w, e->body, e->value, NULL);
    case TP_EVENT_ANGULAR_IMPULSE: return tp_op_add_angular_impulse(b, w, e->body, e->value);
    case TP_EVENT_FORCE: return tp_op_add_force(b, w, e->body, e->value, NULL);
    case TP_EVENT_SET_VELOCITY: {
        const float keep[3] = {b->w[3 * k], b->w[3 * k + 1], b->w[3 * k + 2]}; /* a copy: the write copies into b->w */
        return tp_op_set_velocity(b, w, e->body, e->value, keep);
    }
    case TP_EVENT_SET_ANGULAR_VELOCITY: {
        const float keep[3] = {b->v[3 * k], b->v[3 * k + 1], b->v[3 * k + 2]};
        return tp_op_set_velocity(b, w, e->body, keep, e->value);
    }
    case TP_EVENT_TELEPORT: {
        const float *q = e->has_quat ? e->quat : b->quat + 4 * k;
        float qcopy[4] = {q[0], q[1], q[2], q[3]};
        tp_status st = tp_op_set_pose(b, w, e->body, e->pos, qcopy);
        /* A teleport also stops the body, as a placement does. */
        return st ? st : tp_op_set_velocity(b, w, e->body, zero, zero);
    }
    case TP_EVENT_GRAVITY: return tp_op_set_gravity(b, w, w, e->value);
    case TP_EVENT_REMOVE: return tp_op_remove_body(b, w, e->body);
    case TP_EVENT_WAKE: return tp_op_wake(b, w, e->body);
    case TP_EVENT_SLEEP: return tp_op_sleep(b, w, e->body);
    case TP_EVENT_RESET: return tp_op_reset_worlds(b, &w, 1); /* (apply_event resets all of an event's at once) */
    case TP_EVENT_CONSTRAINT: return tp_cons_param_write(b, w, e->constraint, (tp_constraint_param)e->param, e->value[0]);
    case TP_EVENT_MOVER: return tp_mover_event_write(b, w, e);
    case TP_EVENT_ACTION_COUNT: break;
    }
    return tp_fail(TP_ERR_INVALID_ARGUMENT, "event: unknown action %d", (int)e->action);
}

/* The batch's own index of global world g (an event's worlds list names
 * global worlds, tp_batch_def.first_world), or -1 when another batch holds it. */
static int local_world(const tp_batch *b, int g)
{
    return g >= b->first_world && g - b->first_world < b->worlds ? g - b->first_world : -1;
}

/* A reset event: every listed world of this batch (all of them if none is
 * listed), each once, in one call, which on CUDA is one device launch and
 * reads nothing back. */
static tp_status apply_reset(tp_batch *b, const tp_event_def *e)
{
    int n = 0;
    for (int k = 0; k < (e->world_count > 0 ? e->world_count : b->worlds); ++k) {
        int w = e->world_count > 0 ? local_world(b, e->worlds[k]) : k;
        if (w < 0 || b->world_mark[w]) continue;
        b->world_mark[w] = 1;
        b->world_list[n++] = w;
    }
    for (int i = 0; i < n; ++i) b->world_mark[b->world_list[i]] = 0;
    return tp_op_reset_unique_worlds(b, b->world_list, n);
}

static tp_status apply_event(tp_batch *b, int i)
{
    const tp_event_def *e = &b->model->events[i];
    if (e->action == TP_EVENT_RESET) return apply_reset(b, e);
    if (e->world_count == 0) {
        tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_STATE); /* one copy, not one per world */
        if (st) return st;
        for (int w = 0; w < b->worlds; ++w) {
            tp_status st = apply_to_world(b, e, w);
            if (st) return st;
        }
        return TP_OK;
    }
    for (int k = 0; k < e->world_count; ++k) {
        int w = local_world(b, e->worlds[k]);
        tp_status st = w < 0 ? TP_OK : apply_to_world(b, e, w);
        if (st) return st;
    }
    return TP_OK;
}

tp_status tp_events_apply_due(tp_batch *b)
{
    const tp_model *m = b->model;
    int64_t now = b->step_count;
    while (b->next_event < m->event_count && b->schedule[b->next_event].step <= now) b->next_event++;
    /* Events are sorted by time, so every event that acts now is before next_event;
     * force events may act for several steps after they fire. */
    for (int i = 0; i < b->next_event; ++i) {
        if (b->schedule[i].step > now || b->schedule[i].last_step < now) continue;
        tp_status st = apply_event(b, i);
        if (st) {
            char cause[1024];
            snprintf(cause, sizeof cause, "%s", tp_last_error()); /* tp_fail reuses that buffer */
            const tp_event_def *e = &m->events[i];
            return tp_fail(st, "event %d (%s at t = %g s): %s", i, tp_event_action_name(e->action), e->time, cause);
        }
    }
    return TP_OK;
}
