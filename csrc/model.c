/* model.c - definitions with defaults, the builder, and the immutable model.
 *
 * Style follows Box2D v3's b2Default*Def functions: every definition struct has
 * a function that fills in the documented defaults, and the caller changes only
 * what it needs. The model (as MuJoCo's mjModel) never changes after
 * tp_builder_finish; batches read it concurrently. The checks of each
 * definition (ranges, bounds, names) are model_check.c. */
#include "model.h"

#include "error.h"
#include "hull.h"
#include "shapes.h"
#include "articulation_host.h"
#include "constraint_host.h"
#include "mover_host.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- defaults */

/* The thresholds of the assembly sleep table, its studs taken as
 * metres; the collision wake speed of its wake situations; our choices for
 * the actuated factor and the quiet time (docs/sleep-policies.md says why). */
tp_assembly_def tp_default_assembly_def(void)
{
    tp_assembly_def a;
    a.linear_velocity = 0.33f;
    a.rotational_velocity = 0.42f;
    a.linear_acceleration = 0.24f;
    a.rotational_acceleration = 0.24f;
    a.neighbour_linear_velocity = 0.48f;
    a.neighbour_rotational_velocity = 0.59f;
    a.wake_linear_acceleration = 16.9f;
    a.wake_rotational_acceleration = 16.9f;
    a.collision_wake_speed = 1.0f;
    a.actuated_factor = 0.1f;
    a.quiet_time = 0.3f;
    return a;
}

tp_model_def tp_default_model_def(void)
{
    tp_model_def def;
    memset(&def, 0, sizeof def);
    def.name = "scene";
    def.gravity[2] = -9.81f;
    def.dt = 1.0f / 60.0f;
    def.substeps = 4;
    def.solver.iterations = 8;
    def.solver.mode = TP_SOLVER_COLORED;
    def.solver.restitution_threshold = 1.0f;
    def.solver.warm_starting = 1;
    /* Island sleep defaults (0.05 m/s, 0.15 rad/s, 0.5 s); the acceleration guard
     * threshold of the assembly sleep table. */
    def.sleep.enabled = 1;
    def.sleep.policy = TP_SLEEP_ISLAND;
    def.sleep.linear_threshold = 0.05f;
    def.sleep.angular_threshold = 0.15f;
    def.sleep.quiet_time = 0.5f;
    def.sleep.angular_measure = TP_ANGULAR_RAD_PER_S;
    def.sleep.accel_threshold = 0.24f;
    def.sleep.require_support = 1;
    def.sleep.skip_constraints = 1;
    def.sleep.assembly = tp_default_assembly_def();
    def.randomize.seed = 1;
    def.randomize.mass_scale[0] = def.randomize.mass_scale[1] = 1.0f;
    def.randomize.friction_range[0] = def.randomize.friction_range[1] = 0.6f;
    float *robot_scales[] = {def.randomize.joint_damping_scale, def.randomize.joint_armature_scale,
                             def.randomize.joint_friction_scale, def.randomize.actuator_gear_scale,
                             def.randomize.actuator_kp_scale, def.randomize.actuator_kv_scale};
    for (size_t i = 0; i < sizeof robot_scales / sizeof robot_scales[0]; ++i) robot_scales[i][0] = robot_scales[i][1] = 1.0f;
    return def;
}

tp_body_def tp_default_body_def(void)
{
    tp_body_def def;
    memset(&def, 0, sizeof def);
    def.type = TP_BODY_DYNAMIC;
    def.shape = TP_SHAPE_BOX;
    def.size[0] = def.size[1] = def.size[2] = 1.0f;
    def.quat[3] = 1.0f;
    def.density = 1000.0f;
    def.friction = 0.6f;
    def.contype = def.conaffinity = 1;
    return def;
}

tp_event_def tp_default_event_def(void)
{
    tp_event_def def;
    memset(&def, 0, sizeof def);
    def.action = TP_EVENT_WAKE;
    def.body = -1;
    def.quat[3] = 1.0f;
    return def;
}

/* ---------------------------------------------------------------- owned copies */

/* A copy of a convex shape's points src [count][3] into *dst, and their hull
 * into *hull (the points have passed tp_body_def_check). 0 when out of memory. */
static int points_copy(const float *src, int count, const float **dst, tp_hull *hull)
{
    float *copy = malloc(3 * (size_t)count * sizeof *copy);
    *dst = copy;
    if (!copy) return 0;
    memcpy(copy, src, 3 * (size_t)count * sizeof *copy);
    char reason[8];
    return tp_hull_build(copy, count, hull, reason, sizeof reason);
}

/* A convex shape's vertices copied from src into *dst (NULL for any other
 * shape) and its size set from the hull: the box centred on the origin that
 * holds it (include/torpor.h). 0 when out of memory. */
static int vertices_copy(const float *src, int count, int shape, const float **dst, float size[3])
{
    *dst = NULL;
    if (shape != TP_SHAPE_CONVEX) return 1;
    tp_hull h;
    if (!points_copy(src, count, dst, &h)) return 0;
    memcpy(size, h.size, sizeof h.size);
    return 1;
}

static void body_def_free_owned(tp_body_def *def)
{
    for (int k = 0; def->shapes && k < def->shape_count; ++k) free((void *)def->shapes[k].vertices);
    free((void *)def->shapes);
    free((void *)def->vertices);
}

/* Make def own copies of its compound shapes and of every convex shape's
 * vertices; def has passed tp_body_def_check. 0 when out of memory (then
 * nothing is left allocated). */
static int body_def_copy_owned(tp_body_def *def)
{
    const tp_shape_def *given = def->shapes;
    int ok = 1;
    def->shapes = NULL;
    if (def->shape_count > 0) {
        tp_shape_def *shapes = malloc((size_t)def->shape_count * sizeof *shapes);
        if (!shapes) return 0;
        memcpy(shapes, given, (size_t)def->shape_count * sizeof *shapes);
        for (int k = 0; k < def->shape_count; ++k)
            ok &= vertices_copy(given[k].vertices, given[k].vertex_count, given[k].shape, &shapes[k].vertices,
                                shapes[k].size);
        def->shapes = shapes;
    }
    ok &= vertices_copy(def->vertices, def->vertex_count, def->shape, &def->vertices, def->size);
    if (!ok) body_def_free_owned(def);
    return ok;
}

/* ---------------------------------------------------------------- builder */

struct tp_builder {
    tp_model_def def;
    char *name;
    tp_body_def *bodies;
    char **body_names;
    int body_count, body_capacity;
    int32_t *name_slots;       /* open-addressing index of body_names: body + 1, 0 = empty */
    uint32_t name_slot_count;  /* a power of two, at least twice body_count */
    tp_event_def *events;
    int event_count, event_capacity;
    tp_artic_builder joints;   /* articulation joints (csrc/articulation_model.c) */
    tp_cons_builder cons;      /* constraints between two bodies (csrc/constraint_model.c) */
    tp_mover_builder movers;   /* movers (csrc/mover_model.c) */
    tp_site_list sites;        /* named frames on bodies (csrc/site_model.c) */
    int *excludes;             /* [exclude_count][2] body pairs that never collide */
    int exclude_count, exclude_capacity;
};

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

static int grow(void **array, int *capacity, int needed, size_t elem)
{
    if (needed <= *capacity) return 1;
    int cap = *capacity ? *capacity * 2 : 16;
    while (cap < needed) cap *= 2;
    void *p = realloc(*array, (size_t)cap * elem);
    if (!p) return 0;
    *array = p;
    *capacity = cap;
    return 1;
}

tp_status tp_builder_create(const tp_model_def *def, tp_builder **out)
{
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_create: out is NULL");
    *out = NULL;
    tp_model_def d = def ? *def : tp_default_model_def();
    char field[64], reason[256];
    if (!tp_model_def_check(&d, field, sizeof field, reason, sizeof reason))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "model definition: %s: %s", field, reason);
    tp_builder *b = calloc(1, sizeof *b);
    if (!b) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_create: out of memory");
    b->def = d;
    b->name = dup_string(d.name ? d.name : "scene");
    if (!b->name) { free(b); return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_create: out of memory"); }
    b->def.name = b->name;
    *out = b;
    return TP_OK;
}

static int find_name(char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

/* The builder checks every new name against all earlier ones; a hash index
 * keeps that linear in the body count (a 22,000-body scene spent 13 % of its
 * load and first steps in strcmp with a linear search per body). */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a, 32-bit */
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int builder_find_name(const tp_builder *b, const char *name)
{
    if (!b->name_slot_count) return -1;
    uint32_t mask = b->name_slot_count - 1;
    for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
        int32_t slot = b->name_slots[i];
        if (slot == 0) return -1;
        if (strcmp(b->body_names[slot - 1], name) == 0) return slot - 1;
    }
}

static void name_slots_put(int32_t *slots, uint32_t count, const char *name, int index)
{
    uint32_t mask = count - 1, i = name_hash(name) & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = index + 1;
}

/* Make room in the index for `needed` names (rehashing into a larger table). */
static int name_slots_reserve(tp_builder *b, int needed)
{
    if ((uint32_t)needed * 2u <= b->name_slot_count) return 1;
    uint32_t count = b->name_slot_count ? b->name_slot_count : 64u;
    while ((uint32_t)needed * 2u > count) count *= 2u;
    int32_t *slots = calloc(count, sizeof *slots);
    if (!slots) return 0;
    for (int i = 0; i < b->body_count; ++i) name_slots_put(slots, count, b->body_names[i], i);
    free(b->name_slots);
    b->name_slots = slots;
    b->name_slot_count = count;
    return 1;
}

tp_status tp_builder_add_body(tp_builder *b, const tp_body_def *def, int *out_index)
{
    if (!b || !def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_body: builder or def is NULL");
    int index = b->body_count;
    char field[64], reason[256];
    if (!tp_body_def_check(def, field, sizeof field, reason, sizeof reason))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "body %d (%s): %s: %s", index, def->name ? def->name : "unnamed",
                       field, reason);
    char auto_name[32];
    snprintf(auto_name, sizeof auto_name, "body%d", index);
    const char *name = def->name ? def->name : auto_name;
    if (name[0] == '\0') return tp_fail(TP_ERR_INVALID_ARGUMENT, "body %d: name: must not be empty", index);
    if (strcmp(name, TP_WORLD_NAME) == 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "body %d: name: \"%s\" is reserved for the world (a joint's parent in "
                       "scene files)", index, TP_WORLD_NAME);
    int other = builder_find_name(b, name);
    if (other >= 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "body %d: name: \"%s\" is already the name of body %d", index, name,
                       other);
    if (index >= TP_MAX_BODIES_PER_WORLD)
        return tp_fail(TP_ERR_CAPACITY, "body %d (%s): a world holds at most %d bodies", index, name,
                       TP_MAX_BODIES_PER_WORLD);
    if (!name_slots_reserve(b, index + 1)) goto oom;
    if (!grow((void **)&b->bodies, &b->body_capacity, index + 1, sizeof *b->bodies)) goto oom;
    char **names = realloc(b->body_names, (size_t)b->body_capacity * sizeof *names);
    if (!names) goto oom;
    b->body_names = names;
    tp_body_def kept = *def;
    if (!body_def_copy_owned(&kept)) goto oom;
    char *copy = dup_string(name);
    if (!copy) {
        body_def_free_owned(&kept);
        goto oom;
    }
    b->bodies[index] = kept;
    b->body_names[index] = copy;
    b->bodies[index].name = copy;
    name_slots_put(b->name_slots, b->name_slot_count, copy, index);
    b->body_count++;
    if (out_index) *out_index = index;
    return TP_OK;
oom:
    return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_add_body: out of memory");
}

tp_status tp_builder_add_joint(tp_builder *b, const tp_joint_def *def, int *out_index)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_joint: builder is NULL");
    return tp_artic_builder_add(&b->joints, b->body_count, def, out_index);
}

tp_status tp_builder_add_constraint(tp_builder *b, const tp_constraint_def *def, int *out_index)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_constraint: builder is NULL");
    return tp_cons_builder_add(&b->cons, b->bodies, b->body_count, def, out_index);
}

tp_status tp_builder_add_mover(tp_builder *b, const tp_mover_def *def, int *out_index)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_mover: builder is NULL");
    return tp_mover_builder_add(&b->movers, b->body_count, def, out_index);
}

tp_status tp_builder_add_site(tp_builder *b, const tp_site_def *def, int *out_index)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_site: builder is NULL");
    return tp_site_list_add(&b->sites, b->body_count, def, out_index);
}

/* Pairs naming `body` so far, and whether (body, other) is one of them. */
static int exclude_count_of(const tp_builder *b, int body, int other, int *has_pair)
{
    int n = 0;
    for (int i = 0; i < b->exclude_count; ++i) {
        const int *p = b->excludes + 2 * i;
        if (p[0] != body && p[1] != body) continue;
        n++;
        if (p[0] == other || p[1] == other) *has_pair = 1;
    }
    return n;
}

/* The bodies (+ 1) excluded with `body`, zero-filled. */
static void builder_body_excludes(const tp_builder *b, int body, int32_t out[TP_MAX_BODY_EXCLUDES])
{
    int n = 0;
    for (int k = 0; k < TP_MAX_BODY_EXCLUDES; ++k) out[k] = 0;
    for (int i = 0; i < b->exclude_count; ++i) {
        const int *p = b->excludes + 2 * i;
        if (p[0] == body) out[n++] = p[1] + 1;
        else if (p[1] == body) out[n++] = p[0] + 1;
    }
}

tp_status tp_builder_exclude_pair(tp_builder *b, int a, int c)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_exclude_pair: builder is NULL");
    if (a < 0 || a >= b->body_count || c < 0 || c >= b->body_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "exclude: body %d or %d is not a body of the model (it has %d)", a, c,
                       b->body_count);
    if (a == c) return tp_fail(TP_ERR_INVALID_ARGUMENT, "exclude: a body (%d) cannot be excluded from itself", a);
    int seen = 0, na = exclude_count_of(b, a, c, &seen), nc = exclude_count_of(b, c, a, &seen);
    if (seen) return TP_OK;
    if (na >= TP_MAX_BODY_EXCLUDES || nc >= TP_MAX_BODY_EXCLUDES)
        return tp_fail(TP_ERR_CAPACITY, "exclude: body %d (%s) is already in %d excluded pairs, the most a body may be",
                       na >= TP_MAX_BODY_EXCLUDES ? a : c, b->body_names[na >= TP_MAX_BODY_EXCLUDES ? a : c],
                       TP_MAX_BODY_EXCLUDES);
    if (!grow((void **)&b->excludes, &b->exclude_capacity, 2 * (b->exclude_count + 1), sizeof *b->excludes))
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_exclude_pair: out of memory");
    b->excludes[2 * b->exclude_count] = a;
    b->excludes[2 * b->exclude_count + 1] = c;
    b->exclude_count++;
    return TP_OK;
}

tp_status tp_builder_add_actuator(tp_builder *b, const tp_actuator_def *def, int *out_index)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_actuator: builder is NULL");
    return tp_actuator_builder_add(&b->joints, def, out_index);
}

void tp_builder_joint_defs(const tp_builder *b, const tp_joint_def **defs, int *count)
{
    *defs = b->joints.defs;
    *count = b->joints.count;
}

int tp_builder_find_joint(const tp_builder *b, const char *name)
{
    for (int i = 0; i < b->joints.count; ++i)
        if (strcmp(b->joints.names[i], name) == 0) return i;
    return -1;
}

tp_status tp_builder_add_event(tp_builder *b, const tp_event_def *def)
{
    if (!b || !def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_event: builder or def is NULL");
    char field[64], reason[256];
    if (!tp_event_def_check(def, b->body_count, b->bodies, field, sizeof field, reason, sizeof reason))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (%s): %s: %s", b->event_count,
                       tp_event_action_name(def->action) ? tp_event_action_name(def->action) : "?", field, reason);
    tp_event_def e = *def;
    if (e.world_count > 0) {
        int *copy = malloc((size_t)e.world_count * sizeof *copy);
        if (!copy) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_add_event: out of memory");
        memcpy(copy, def->worlds, (size_t)e.world_count * sizeof *copy);
        e.worlds = copy;
    } else {
        e.worlds = NULL;
    }
    if (!grow((void **)&b->events, &b->event_capacity, b->event_count + 1, sizeof *b->events)) {
        free((void *)e.worlds);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_add_event: out of memory");
    }
    b->events[b->event_count++] = e;
    return TP_OK;
}

void tp_builder_destroy(tp_builder *b)
{
    if (!b) return;
    for (int i = 0; i < b->body_count; ++i) free(b->body_names[i]);
    for (int i = 0; i < b->body_count; ++i) body_def_free_owned(&b->bodies[i]);
    for (int i = 0; i < b->event_count; ++i) free((void *)b->events[i].worlds);
    free(b->body_names);
    free(b->name_slots);
    free(b->bodies);
    free(b->events);
    free(b->excludes);
    tp_artic_builder_free(&b->joints);
    tp_cons_builder_free(&b->cons);
    tp_mover_builder_free(&b->movers);
    tp_site_list_free(&b->sites);
    free(b->name);
    free(b);
}

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
    if (!points_copy(src, count, vertices, &h)) return 0;
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
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "event %d (%s): body: %s", i, tp_event_action_name(e->action), reason);
    }
    return TP_OK;
}

int tp_builder_find_constraint(const tp_builder *b, const char *name)
{
    return tp_cons_builder_find(&b->cons, name);
}

int tp_builder_link_joint(const tp_builder *b, int body, const char **name)
{
    int joint = tp_joint_of_child(b->joints.defs, b->joints.count, body);
    if (joint >= 0 && name) *name = b->joints.names[joint];
    return joint;
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
    m->name = dup_string(b->name);
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
        m->body_names[i] = dup_string(b->body_names[i]);
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
        builder_body_excludes(b, i, bm->exclude);
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
    if (st == TP_OK) st = tp_cons_events_check(m);
    if (st == TP_OK) st = tp_site_list_copy(&b->sites, &m->sites);
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
    return find_name(m->body_names, m->body_count, name);
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
