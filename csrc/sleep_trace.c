/* sleep_trace.c - the simulator's island sleep rule alone (tp_sleep_trace_*),
 * on bodies whose speeds the caller gives: what `torpor trace` runs.
 *
 * Nothing here decides anything itself. A frame is the part of a step that
 * sleep is made of, with the same calls in the same order as the stages of
 * kernels/step.h: the plan (a world with nothing awake does no work), islands
 * from the links (tp_islands_build, the links as touching contacts), the wakes
 * of islands an awake body joins (tp_islands_touched / tp_islands_wake_touched,
 * then the islands again), then timers and the decision per island
 * (tp_sleep_update). A touch is the host wake of kernels/wake.h
 * (tp_island_wake_body). So a change of the rule in kernels/islands.h, wake.h or
 * sleep.h changes `torpor trace` too, and the hand-derived traces of
 * tests/test_trace.c catch it.
 *
 * The bodies are dynamic, each frame's speed is along x with no spin, gravity
 * is zero (so no island needs support) and the acceleration guard is off: a
 * trace gives speeds, not forces. */
#include "error.h"

#include "islands.h"
#include "sleep.h"
#include "step.h" /* tp_world_has_work: the plan stage's test */
#include "wake.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tp_sleep_trace {
    int bodies;
    tp_body_model *model;  /* [bodies] dynamic, otherwise zero */
    float *v, *w, *v_start; /* [bodies][3] */
    float *quiet_timer;    /* [bodies] */
    float *quiet_v;        /* [bodies][3] velocity when the quiet run began (the drift rule) */
    uint8_t *flags, *sleep_state, *root_flags; /* [bodies] */
    int32_t *island, *parent;                  /* [bodies] */
    tp_contact *links;     /* touching pairs, body_a < body_b */
    int link_count, link_capacity;
};

void tp_sleep_trace_destroy(tp_sleep_trace *t)
{
    if (!t) return;
    void *arrays[] = {t->model, t->v, t->w, t->v_start, t->quiet_timer, t->quiet_v, t->flags, t->sleep_state, t->root_flags,
                      t->island, t->parent, t->links};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) free(arrays[i]);
    free(t);
}

tp_status tp_sleep_trace_create(int bodies, tp_sleep_trace **out)
{
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_sleep_trace_create: out is NULL");
    *out = NULL;
    if (bodies < 1 || bodies > TP_MAX_BODIES_PER_WORLD)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_sleep_trace_create: bodies must be in [1, %d], got %d",
                       TP_MAX_BODIES_PER_WORLD, bodies);
    tp_sleep_trace *t = calloc(1, sizeof *t);
    if (!t) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_sleep_trace_create: out of memory");
    size_t n = (size_t)bodies;
    t->bodies = bodies;
    t->model = calloc(n, sizeof *t->model);
    t->v = calloc(3 * n, sizeof(float));
    t->w = calloc(3 * n, sizeof(float));
    t->v_start = calloc(3 * n, sizeof(float));
    t->quiet_timer = calloc(n, sizeof(float));
    t->quiet_v = calloc(3 * n, sizeof(float));
    t->flags = calloc(n, 1);
    t->sleep_state = calloc(n, 1);
    t->root_flags = calloc(n, 1);
    t->island = malloc(n * sizeof(int32_t));
    t->parent = malloc(n * sizeof(int32_t));
    if (!t->model || !t->v || !t->w || !t->v_start || !t->quiet_timer || !t->quiet_v || !t->flags || !t->sleep_state ||
        !t->root_flags || !t->island || !t->parent) {
        tp_sleep_trace_destroy(t);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_sleep_trace_create: out of memory for %d bodies", bodies);
    }
    for (int b = 0; b < bodies; ++b) {
        t->model[b].type = TP_BODY_DYNAMIC;
        t->island[b] = -1; /* no step yet: no island */
    }
    *out = t;
    return TP_OK;
}

/* The trace as the world view the kernels take (only what sleep reads is set). */
static tp_world trace_world(tp_sleep_trace *t, float dt)
{
    tp_world wd;
    memset(&wd, 0, sizeof wd);
    wd.bodies = t->bodies;
    wd.model = t->model;
    wd.v = t->v;
    wd.w = t->w;
    wd.flags = t->flags;
    wd.sleep_state = t->sleep_state;
    wd.quiet_timer = t->quiet_timer;
    wd.quiet_v = t->quiet_v;
    wd.island = t->island;
    wd.dt = dt;
    return wd;
}

static tp_status check_body(const tp_sleep_trace *t, int body, const char *call, const char *name)
{
    if (!t) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: trace is NULL", call);
    if (body < 0 || body >= t->bodies)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s %d out of range [0, %d)", call, name, body, t->bodies);
    return TP_OK;
}

static int find_link(const tp_sleep_trace *t, int a, int b)
{
    for (int i = 0; i < t->link_count; ++i)
        if (t->links[i].body_a == a && t->links[i].body_b == b) return i;
    return -1;
}

tp_status tp_sleep_trace_link(tp_sleep_trace *t, int a, int b, int linked)
{
    const char *call = "tp_sleep_trace_link";
    tp_status st;
    if ((st = check_body(t, a, call, "a")) || (st = check_body(t, b, call, "b"))) return st;
    if (a == b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: a body cannot be linked to itself (body %d)", call, a);
    if (a > b) {
        int s = a;
        a = b;
        b = s;
    }
    int at = find_link(t, a, b);
    if (!linked) {
        if (at >= 0) t->links[at] = t->links[--t->link_count];
        return TP_OK;
    }
    if (at >= 0) return TP_OK;
    if (t->link_count == t->link_capacity) {
        int cap = t->link_capacity ? 2 * t->link_capacity : 64;
        tp_contact *grown = realloc(t->links, (size_t)cap * sizeof *grown);
        if (!grown) return tp_fail(TP_ERR_OUT_OF_MEMORY, "%s: out of memory for %d links", call, cap);
        t->links = grown;
        t->link_capacity = cap;
    }
    tp_contact *c = &t->links[t->link_count++];
    memset(c, 0, sizeof *c);
    c->body_a = a;
    c->body_b = b;
    c->normal[2] = 1.0f;
    c->separation = 0.0f; /* touching: links and supports, whatever the speeds */
    return TP_OK;
}

tp_status tp_sleep_trace_touch(tp_sleep_trace *t, int body)
{
    tp_status st = check_body(t, body, "tp_sleep_trace_touch", "body");
    if (st) return st;
    tp_world wd = trace_world(t, 0.0f);
    tp_island_wake_body(&wd, body); /* the trace runs the island policy */
    return TP_OK;
}

static tp_status check_value(float x, int allow_zero, const char *name)
{
    if (isfinite(x) && (x > 0.0f || (allow_zero && x == 0.0f))) return TP_OK;
    return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_sleep_trace_frame: %s must be finite and %s, got %g", name,
                   allow_zero ? ">= 0" : "> 0", (double)x);
}

tp_status tp_sleep_trace_frame(tp_sleep_trace *t, const float *velocities, float threshold, float quiet_time,
                               float dt, uint8_t *asleep)
{
    const char *call = "tp_sleep_trace_frame";
    if (!t || !velocities || !asleep)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: trace, velocities or asleep is NULL", call);
    tp_status st;
    if ((st = check_value(threshold, 1, "threshold")) || (st = check_value(quiet_time, 1, "quiet_time")) ||
        (st = check_value(dt, 0, "dt")))
        return st;
    for (int k = 0; k < 3 * t->bodies; ++k)
        if (!isfinite(velocities[k]))
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: velocities[%d][%d] must be finite (m/s), got %g", call, k / 3,
                           k % 3, (double)velocities[k]);
    tp_world wd = trace_world(t, dt);
    /* The frame starts from the last frame's velocities (a step's v_start) and
     * ends with this frame's; a sleeping body keeps its zero velocity, as a
     * sleeping body is not integrated. */
    for (int b = 0; b < t->bodies; ++b)
        for (int k = 0; k < 3; ++k) {
            t->v_start[3 * b + k] = t->v[3 * b + k];
            if (t->sleep_state[b] != TP_SLEEPING) t->v[3 * b + k] = velocities[3 * b + k];
        }
    tp_sleep_params p;
    memset(&p, 0, sizeof p);
    p.enabled = 1;
    p.linear_threshold = threshold;
    p.angular_threshold = FLT_MAX; /* no spin: only the speed decides */
    p.quiet_time = quiet_time;
    p.accel_threshold = 0.0f;      /* guard off */
    p.require_support = 0;
    p.dt = dt;
    if (tp_world_has_work(&wd)) { /* the plan: an idle world runs no island, wake or sleep stage */
        tp_islands_build(&wd, t->links, t->link_count, dt, t->parent, t->root_flags);
        for (int pass = 0; pass <= t->bodies && tp_islands_touched(&wd, t->root_flags); ++pass) {
            tp_islands_wake_touched(&wd, t->root_flags);
            tp_islands_build(&wd, t->links, t->link_count, dt, t->parent, t->root_flags);
        }
        tp_sleep_update(&wd, &p, t->v_start, t->root_flags);
    }
    for (int b = 0; b < t->bodies; ++b) asleep[b] = t->sleep_state[b] == TP_SLEEPING;
    return TP_OK;
}
