/* builder.c - the builder: definitions added one by one, each checked
 * (csrc/model_check.c) and copied; body names indexed; collision exclusions;
 * events. tp_builder_finish (csrc/model.c) compiles it into a model. */
#define _DEFAULT_SOURCE /* strdup under -std=c11 */
#include "builder.h"

#include "error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    b->name = strdup(d.name ? d.name : "scene");
    if (!b->name) { free(b); return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_create: out of memory"); }
    b->def.name = b->name;
    if (d.randomize.keyframe) {
        b->start_keyframe = strdup(d.randomize.keyframe);
        if (!b->start_keyframe) { free(b->name); free(b); return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_create: out of memory"); }
    }
    b->def.randomize.keyframe = b->start_keyframe;
    *out = b;
    return TP_OK;
}

/* The builder checks every new name against all earlier ones; a hash index
 * keeps that linear in the body count (a search per body would be quadratic). */
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
    if (!tp_body_def_copy_owned(&kept)) goto oom;
    char *copy = strdup(name);
    if (!copy) {
        tp_body_def_free_owned(&kept);
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

tp_status tp_builder_add_keyframe(tp_builder *b, const tp_keyframe_def *def, int *out_index)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_keyframe: builder is NULL");
    return tp_keyframe_list_add(&b->keyframes, b->joints.defs, b->joints.count, b->joints.act_count, def, out_index);
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
void tp_builder_body_excludes(const tp_builder *b, int body, int32_t out[TP_MAX_BODY_EXCLUDES])
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
    for (int i = 0; i < b->body_count; ++i) tp_body_def_free_owned(&b->bodies[i]);
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
    tp_keyframe_list_free(&b->keyframes);
    free(b->start_keyframe);
    free(b->name);
    free(b);
}

int tp_builder_find_constraint(const tp_builder *b, const char *name)
{
    return tp_cons_builder_find(&b->cons, name);
}

int tp_builder_find_mover(const tp_builder *b, const char *name) { return tp_mover_builder_find(&b->movers, name); }

int tp_builder_link_joint(const tp_builder *b, int body, const char **name)
{
    int joint = tp_joint_of_child(b->joints.defs, b->joints.count, body);
    if (joint >= 0 && name) *name = b->joints.names[joint];
    return joint;
}
