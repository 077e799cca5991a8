/* model.c - the immutable model: compiled from a builder by tp_builder_finish,
 * destroyed, and read by the tp_model_* queries.
 *
 * The model (as MuJoCo's mjModel) never changes after tp_builder_finish;
 * batches read it concurrently. The builder is csrc/builder.c, the defaults
 * csrc/model_defaults.c, the checks of each definition (ranges, bounds,
 * names) csrc/model_check.c. */
#define _DEFAULT_SOURCE /* strdup under -std=c11 */
#include "builder.h"

#include "error.h"
#include "hull.h"
#include "shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mass properties of one body; static and kinematic bodies get infinite mass
 * (inverse 0). `mass` > 0 rescales the density-based tensor. */
static void body_mass_properties(const tp_body_def *def, tp_body_model *bm, float *inv_mass, float *inv_inertia)
{
    if (def->shape_count > 0) {
        tp_compound_mass_props(def, &bm->mass, bm->com, bm->inertia);
    } else {
        tp_shape_unit_mass_props(def->shape, def->size, def->vertices, def->vertex_count, &bm->mass, bm->com,
                                 bm->inertia);
        float scale = def->mass > 0.0f ? def->mass / bm->mass : def->density;
        bm->mass *= scale;
        for (int k = 0; k < 6; ++k) bm->inertia[k] *= scale;
    }
    if (def->has_com) memcpy(bm->com, def->com, sizeof bm->com);
    if (def->has_inertia) memcpy(bm->inertia, def->inertia, sizeof bm->inertia);
    if (def->type == TP_BODY_DYNAMIC) {
        *inv_mass = 1.0f / bm->mass;
        tp_sym_inverse(bm->inertia, inv_inertia);
    } else {
        *inv_mass = 0.0f;
        for (int k = 0; k < 6; ++k) inv_inertia[k] = 0.0f;
    }
}

/* The body as every fresh world starts it (kernels/world_init.h), and its mass
 * properties in `bm`. `def`'s orientation is already normalized. */
static void body_init(const tp_body_def *def, tp_body_model *bm, tp_body_init *t)
{
    memcpy(t->pos, def->pos, sizeof t->pos);
    memcpy(t->quat, def->quat, sizeof t->quat);
    memcpy(t->vel, def->vel, sizeof t->vel);
    memcpy(t->ang_vel, def->ang_vel, sizeof t->ang_vel);
    t->friction = def->friction;
    t->dynamic = def->type == TP_BODY_DYNAMIC;
    body_mass_properties(def, bm, &t->inv_mass, t->inv_inertia);
}

/* The model's shape tables, sized for every compound body's shapes, and its
 * hull table, for every convex shape (none: NULL). */
static int model_shape_tables(const tp_builder *b, tp_model *m)
{
    int total = 0, hulls = 0;
    for (int i = 0; i < b->body_count; ++i) {
        const tp_body_def *d = &b->bodies[i];
        total += d->shape_count;
        hulls += d->shape_count == 0 && d->shape == TP_SHAPE_CONVEX;
        for (int k = 0; k < d->shape_count; ++k) hulls += d->shapes[k].shape == TP_SHAPE_CONVEX;
    }
    m->shape_total = total;
    if (hulls > 0 && !(m->hulls = calloc((size_t)hulls, sizeof *m->hulls))) return 0;
    if (total == 0) return 1;
    m->shapes = calloc((size_t)total, sizeof *m->shapes);
    m->shape_defs = calloc((size_t)total, sizeof *m->shape_defs);
    return m->shapes && m->shape_defs;
}

/* The model's own copy of a convex shape's vertices src into *vertices and
 * its hull as entry m->hull_total of the hull table, whose index goes to
 * *hull; *bound (may be NULL) gets the hull's bounding radius. 0 when out of
 * memory. Other shapes: nothing to do. */
static int model_add_hull(tp_model *m, int shape, const float *src, int count, const float **vertices, int32_t *hull,
                          float *bound)
{
    if (shape != TP_SHAPE_CONVEX) return 1;
    tp_hull h;
    if (!tp_points_copy(src, count, vertices, &h)) return 0;
    m->hulls[m->hull_total] = h.poly;
    *hull = m->hull_total++;
    if (bound) *bound = h.bound_radius * (1.0f + 1e-6f); /* rounding must not shrink the sphere */
    return 1;
}

/* Stable insertion sort of events by time: events at the same time keep the
 * order in which they were written. */
static void sort_events(tp_event_def *events, int n)
{
    for (int i = 1; i < n; ++i) {
        tp_event_def e = events[i];
        int j = i - 1;
        while (j >= 0 && events[j].time > e.time) { events[j + 1] = events[j]; --j; }
        events[j + 1] = e;
    }
}

/* Events that would move or remove a link (tp_event_refused_on_link), in the
 * order they were added: joints may be added after the events that name their links. */
static tp_status events_on_links_check(const tp_builder *b, const tp_model *m)
{
    for (int i = 0; i < b->event_count; ++i) {
        const tp_event_def *e = &b->events[i];
        int joint = tp_event_refused_on_link(e->action) ? tp_model_link_joint(m, e->body) : -1;
        if (joint < 0) continue;
        char reason[384];
        tp_link_write_reason(reason, sizeof reason, e->body, m->body_names[e->body], joint,
                             tp_model_joint_name(m, joint));
        tp_status st =
            tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (%s): body: %s", i, tp_event_action_name(e->action), reason);
        tp_fail_item("events", i);
        return st;
    }
    return TP_OK;
}

/* The constraint and mover events against the compiled tables, in the order
 * written; a bad one is named with tp_fail_item (the scene's events[i]). */
static tp_status constraint_and_mover_events_check(const tp_builder *b, const tp_model *m)
{
    for (int i = 0; i < b->event_count; ++i) {
        const tp_event_def *e = &b->events[i];
        tp_status st = e->action == TP_EVENT_CONSTRAINT ? tp_cons_event_check(e, i, m)
                       : e->action == TP_EVENT_MOVER    ? tp_mover_event_check(e, i, m)
                                                        : TP_OK;
        if (st != TP_OK) {
            tp_fail_item("events", i);
            return st;
        }
    }
    return TP_OK;
}

/* The model's keyframes and the one every reset starts from (randomize.keyframe). */
static tp_status model_keyframes(const tp_builder *b, tp_model *m)
{
    tp_status st = tp_keyframe_list_compile(&b->keyframes, m->artic, tp_model_actuator_count(m), &m->keyframes);
    m->start_keyframe = -1;
    m->def.randomize.keyframe = NULL;
    if (st != TP_OK || !b->start_keyframe) return st;
    m->start_keyframe = tp_model_find_keyframe(m, b->start_keyframe);
    if (m->start_keyframe < 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "model \"%s\": randomize.keyframe: no keyframe is called \"%s\" (the "
                       "model has %d keyframes)", b->name, b->start_keyframe, m->keyframes.count);
    if (!(m->start_keyframe_name = strdup(b->start_keyframe)))
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory");
    m->def.randomize.keyframe = m->start_keyframe_name;
    return TP_OK;
}

tp_status tp_builder_finish(const tp_builder *b, tp_model **out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_finish: builder or out is NULL");
    *out = NULL;
    if (b->body_count == 0) return tp_fail(TP_ERR_INVALID_ARGUMENT, "model \"%s\": it has no bodies", b->name);
    int n = b->body_count;
    tp_model *m = calloc(1, sizeof *m);
    if (!m) goto oom;
    m->def = b->def;
    m->name = strdup(b->name);
    m->body_defs = calloc((size_t)n, sizeof *m->body_defs);
    m->body_names = calloc((size_t)n, sizeof *m->body_names);
    m->bodies = calloc((size_t)n, sizeof *m->bodies);
    m->body_init = calloc((size_t)n, sizeof *m->body_init);
    if (!m->name || !m->body_defs || !m->body_names || !m->bodies || !m->body_init) goto oom;
    m->def.name = m->name;
    m->body_count = n;
    if (!model_shape_tables(b, m)) goto oom;
    int shape_at = 0;
    for (int i = 0; i < n; ++i) {
        m->body_names[i] = strdup(b->body_names[i]);
        if (!m->body_names[i]) goto oom;
        tp_body_def d = b->bodies[i];
        d.name = m->body_names[i];
        /* Normalize the orientation once, here, so every world starts from the same bits. */
        tp_quat q = tp_q_normalize_any(tp_q_load(d.quat));
        tp_q_store(d.quat, q);
        m->body_defs[i] = d;
        m->body_defs[i].vertices = NULL; /* the model's own copy below (model_add_hull) */
        tp_body_model *bm = &m->bodies[i];
        bm->type = (uint8_t)d.type;
        bm->shape = (uint8_t)d.shape;
        memcpy(bm->size, d.size, sizeof bm->size);
        bm->friction = d.friction;
        bm->restitution = d.restitution;
        bm->bound_radius = tp_shape_bound_radius(d.shape, d.size);
        bm->actuated = (uint8_t)(d.actuated != 0);
        bm->has_filter = 1;
        bm->contype = (uint32_t)d.contype;
        bm->conaffinity = (uint32_t)d.conaffinity;
        tp_builder_body_excludes(b, i, bm->exclude);
        if (d.shape_count > 0) { /* compound: its shapes in the model's tables */
            bm->shape_count = (uint8_t)d.shape_count;
            bm->shape_first = shape_at;
            bm->bound_radius = tp_compound_bound_radius(&d);
            for (int k = 0; k < d.shape_count; ++k) {
                m->shape_defs[shape_at + k] = d.shapes[k];
                m->shape_defs[shape_at + k].vertices = NULL;
                tp_shape_model_from_def(&d.shapes[k], &m->shapes[shape_at + k]);
            }
            d.shapes = m->shape_defs + shape_at;
            m->body_defs[i].shapes = d.shapes;
            shape_at += d.shape_count;
        }
        if (d.shape_count == 0 && !model_add_hull(m, d.shape, d.vertices, d.vertex_count, &m->body_defs[i].vertices,
                                                  &bm->hull, &bm->bound_radius))
            goto oom;
        for (int k = 0; k < d.shape_count; ++k) {
            const tp_shape_def *given = &b->bodies[i].shapes[k];
            if (!model_add_hull(m, given->shape, given->vertices, given->vertex_count,
                                &m->shape_defs[bm->shape_first + k].vertices, &m->shapes[bm->shape_first + k].hull, NULL))
                goto oom;
        }
        d.vertices = m->body_defs[i].vertices;
        body_init(&d, bm, &m->body_init[i]);
        if (d.type == TP_BODY_DYNAMIC) m->dynamic_count++;
    }
    m->event_count = b->event_count;
    size_t total_worlds = 0;
    for (int i = 0; i < b->event_count; ++i) total_worlds += (size_t)b->events[i].world_count;
    if (b->event_count > 0) {
        m->events = calloc((size_t)b->event_count, sizeof *m->events);
        if (!m->events) goto oom;
    }
    if (total_worlds) {
        m->event_worlds = malloc(total_worlds * sizeof *m->event_worlds);
        if (!m->event_worlds) goto oom;
    }
    int at = 0;
    for (int i = 0; i < b->event_count; ++i) {
        m->events[i] = b->events[i];
        if (b->events[i].world_count) {
            memcpy(m->event_worlds + at, b->events[i].worlds, (size_t)b->events[i].world_count * sizeof(int));
            m->events[i].worlds = m->event_worlds + at;
            at += b->events[i].world_count;
        }
    }
    sort_events(m->events, m->event_count);
    tp_status st = tp_artic_compile(&b->joints, m, b->def.solver.iterations);
    if (st == TP_OK) st = events_on_links_check(b, m);
    if (st == TP_OK) st = tp_cons_compile(&b->cons, m);
    if (st == TP_OK) st = tp_mover_compile(&b->movers, m);
    if (st == TP_OK) st = constraint_and_mover_events_check(b, m);
    if (st == TP_OK) st = tp_site_list_copy(&b->sites, &m->sites);
    if (st == TP_OK) st = model_keyframes(b, m);
    if (st != TP_OK) {
        tp_model_destroy(m);
        return st;
    }
    *out = m;
    return TP_OK;
oom:
    tp_model_destroy(m);
    return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_finish: out of memory");
}

void tp_model_destroy(tp_model *m)
{
    if (!m) return;
    if (m->body_names)
        for (int i = 0; i < m->body_count; ++i) free(m->body_names[i]);
    free(m->body_names);
    for (int i = 0; m->body_defs && i < m->body_count; ++i) free((void *)m->body_defs[i].vertices);
    for (int k = 0; m->shape_defs && k < m->shape_total; ++k) free((void *)m->shape_defs[k].vertices);
    free(m->body_defs);
    free(m->bodies);
    free(m->shapes);
    free(m->shape_defs);
    free(m->hulls);
    free(m->body_init);
    free(m->events);
    free(m->event_worlds);
    tp_artic_host_free(m->artic);
    tp_cons_host_free(m->cons);
    tp_mover_host_free(m->movers);
    tp_site_list_free(&m->sites);
    tp_keyframe_list_free(&m->keyframes);
    free(m->start_keyframe_name);
    free(m->name);
    free(m);
}

/* ---------------------------------------------------------------- queries */

const char *tp_model_name(const tp_model *m) { return m ? m->name : NULL; }
int tp_model_body_count(const tp_model *m) { return m ? m->body_count : 0; }
/* Links move under their trees' dynamics: dynamic bodies for users (the
 * stages treat them as kinematic, hence not in dynamic_count). */
int tp_model_dynamic_body_count(const tp_model *m) { return m ? m->dynamic_count + tp_model_joint_count(m) : 0; }
tp_model_def tp_model_settings(const tp_model *m) { return m ? m->def : tp_default_model_def(); }

int tp_model_find_body(const tp_model *m, const char *name)
{
    if (!m || !name) return -1;
    for (int i = 0; i < m->body_count; ++i)
        if (strcmp(m->body_names[i], name) == 0) return i;
    return -1;
}

const char *tp_model_body_name(const tp_model *m, int body)
{
    if (!m || body < 0 || body >= m->body_count) return NULL;
    return m->body_names[body];
}

tp_status tp_model_body(const tp_model *m, int body, tp_body_def *out)
{
    if (!m || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_body: model or out is NULL");
    if (body < 0 || body >= m->body_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_body: body %d out of range [0, %d)", body,
                       m->body_count);
    *out = m->body_defs[body];
    return TP_OK;
}

tp_status tp_model_body_mass(const tp_model *m, int body, float *mass, float inertia[3])
{
    if (!m) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_body_mass: model is NULL");
    if (body < 0 || body >= m->body_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_body_mass: body %d out of range [0, %d)", body,
                       m->body_count);
    if (mass) *mass = m->bodies[body].mass;
    if (inertia)
        for (int k = 0; k < 3; ++k) inertia[k] = m->bodies[body].inertia[k];
    return TP_OK;
}

tp_status tp_model_body_inertia(const tp_model *m, int body, float com[3], float inertia[6])
{
    if (!m) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_body_inertia: model is NULL");
    if (body < 0 || body >= m->body_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_body_inertia: body %d out of range [0, %d)", body,
                       m->body_count);
    if (com) memcpy(com, m->bodies[body].com, 3 * sizeof(float));
    if (inertia) memcpy(inertia, m->bodies[body].inertia, 6 * sizeof(float));
    return TP_OK;
}

int tp_model_event_count(const tp_model *m) { return m ? m->event_count : 0; }

tp_status tp_model_event(const tp_model *m, int index, tp_event_def *out)
{
    if (!m || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_event: model or out is NULL");
    if (index < 0 || index >= m->event_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_event: index %d out of range [0, %d)", index,
                       m->event_count);
    *out = m->events[index]; /* worlds points into the model's storage */
    return TP_OK;
}
