/* scene_events.c - the "events" array of a scene (docs/scene-format.md,
 * "Events"): each event read, its action's keys checked, then checked by
 * tp_event_def_check and added through tp_builder_add_event. */
#include "scene_read.h"

#include "articulation_host.h"
#include "model.h"

#include <jansson.h>

#include <stdlib.h>
#include <string.h>

#define action_names tp_event_action_names

static const field event_fields[] = {
    FIELD("time", V_DOUBLE, tp_event_def, time), OTHER("action"), OTHER("body"),
    FIELD("value", V_VEC3, tp_event_def, value), FIELD("pos", V_VEC3, tp_event_def, pos),
    FIELD("quat", V_VEC4, tp_event_def, quat), FIELD("duration", V_DOUBLE, tp_event_def, duration),
    OTHER("worlds"), OTHER("constraint"), OTHER("param"), FIELD("to", V_FLOAT, tp_event_def, value),
    OTHER("mover"), OTHER("target"), OTHER("enabled")};

/* ---------------------------------------------------------------- events */

/* Which keys an action needs or takes besides time, action and worlds. */
enum { NEEDS_BODY = 1, NEEDS_VALUE = 2, NEEDS_POS = 4, TAKES_QUAT = 8, TAKES_DURATION = 16, NEEDS_CONSTRAINT = 32,
       NEEDS_MOVER = 64 };

static unsigned action_keys(tp_event_action action)
{
    switch (action) {
    case TP_EVENT_IMPULSE:
    case TP_EVENT_ANGULAR_IMPULSE:
    case TP_EVENT_SET_VELOCITY:
    case TP_EVENT_SET_ANGULAR_VELOCITY: return NEEDS_BODY | NEEDS_VALUE;
    case TP_EVENT_FORCE: return NEEDS_BODY | NEEDS_VALUE | TAKES_DURATION;
    case TP_EVENT_TELEPORT: return NEEDS_BODY | NEEDS_POS | TAKES_QUAT;
    case TP_EVENT_GRAVITY: return NEEDS_VALUE;
    case TP_EVENT_REMOVE:
    case TP_EVENT_WAKE:
    case TP_EVENT_SLEEP: return NEEDS_BODY;
    case TP_EVENT_CONSTRAINT: return NEEDS_CONSTRAINT; /* constraint, param, to */
    case TP_EVENT_MOVER: return NEEDS_MOVER;           /* mover, and target or enabled */
    default: return 0; /* reset */
    }
}

static int check_action_keys(scene *sc, const json_t *obj, tp_event_action action)
{
    static const struct { const char *key; unsigned needs, takes; } rules[] = {
        {"body", NEEDS_BODY, NEEDS_BODY}, {"value", NEEDS_VALUE, NEEDS_VALUE}, {"pos", NEEDS_POS, NEEDS_POS},
        {"quat", 0, TAKES_QUAT}, {"duration", 0, TAKES_DURATION}, {"constraint", NEEDS_CONSTRAINT, NEEDS_CONSTRAINT},
        {"param", NEEDS_CONSTRAINT, NEEDS_CONSTRAINT}, {"to", NEEDS_CONSTRAINT, NEEDS_CONSTRAINT},
        {"mover", NEEDS_MOVER, NEEDS_MOVER}, {"target", 0, NEEDS_MOVER}, {"enabled", 0, NEEDS_MOVER}};
    unsigned keys = action_keys(action);
    const char *name = action_names[action];
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; ++i) {
        int present = json_object_get(obj, rules[i].key) != NULL;
        int takes = (keys & rules[i].takes) != 0, needs = (keys & rules[i].needs) != 0;
        if (present && !takes) {
            scene_push_key(sc, rules[i].key);
            return scene_pop(sc, scene_fail(sc, 1, "action \"%s\" takes no \"%s\"", name, rules[i].key));
        }
        if (!present && needs) {
            scene_push_key(sc, rules[i].key);
            return scene_pop(sc, scene_fail(sc, 0, "required by action \"%s\"", name));
        }
    }
    if ((keys & NEEDS_MOVER) && !json_object_get(obj, "target") && !json_object_get(obj, "enabled"))
        return scene_fail(sc, 0, "action \"%s\" needs \"target\" or \"enabled\" (or both)", name);
    return 1;
}

/* The name of a constraint read so far (the constraints come before the events). */
static int as_constraint(scene *sc, const json_t *v, int *out)
{
    if (!json_is_string(v)) return scene_fail(sc, 0, "must be the name of a constraint, got %s", scene_json_kind(v));
    *out = tp_builder_find_constraint(sc->builder, json_string_value(v));
    if (*out < 0) return scene_fail(sc, 0, "unknown constraint \"%s\"", json_string_value(v));
    return 1;
}

/* The name of a mover read so far (the movers come before the events). */
static int as_mover(scene *sc, const json_t *v, int *out)
{
    if (!json_is_string(v)) return scene_fail(sc, 0, "must be the name of a mover, got %s", scene_json_kind(v));
    *out = tp_builder_find_mover(sc->builder, json_string_value(v));
    if (*out < 0) return scene_fail(sc, 0, "unknown mover \"%s\"", json_string_value(v));
    return 1;
}

/* A mover's new target: as the movers' "target" key (scene_movers.c). */
static int as_target(scene *sc, const json_t *v, tp_event_def *ev)
{
    ev->has_target = 1;
    memset(ev->target, 0, sizeof ev->target);
    return scene_as_mover_target(sc, v, ev->target);
}

static int as_enabled(scene *sc, const json_t *v, int *out)
{
    if (!json_is_boolean(v)) return scene_fail(sc, 0, "must be true or false, got %s", scene_json_kind(v));
    *out = json_is_true(v);
    return 1;
}

/* A parameter name of tp_batch_set_constraint_params ("target", "enabled", ...). */
static int as_param(scene *sc, const json_t *v, int *out)
{
    for (int k = 0; k < TP_CONS_PARAM_COUNT && json_is_string(v); ++k)
        if (strcmp(json_string_value(v), tp_constraint_param_name((tp_constraint_param)k)) == 0) {
            *out = k;
            return 1;
        }
    return scene_fail(sc, 0, "must be a constraint parameter (\"enabled\", \"velocity\", \"target\", \"speed\", "
                      "\"max_force\", \"length\", \"restitution\", \"stiffness\", \"damping\", \"winch\", "
                      "\"winch_target\", \"winch_speed\", \"winch_responsiveness\", \"winch_force\")");
}

/* "all" (every world) or a non-empty array of world indices. */
static int as_worlds(scene *sc, const json_t *v, tp_event_def *ev)
{
    if (json_is_string(v) && strcmp(json_string_value(v), "all") == 0) return 1;
    if (json_is_string(v))
        return scene_fail(sc, 0, "must be \"all\" or an array of world indices, got \"%s\"", json_string_value(v));
    if (!json_is_array(v)) return scene_fail(sc, 0, "must be \"all\" or an array of world indices, got %s", scene_json_kind(v));
    int n = (int)json_array_size(v);
    if (n == 0) return scene_fail(sc, 0, "must list at least one world (or be \"all\")");
    int *worlds = realloc(sc->worlds, (size_t)n * sizeof *worlds);
    if (!worlds) return scene_fail_oom(sc);
    sc->worlds = worlds;
    for (int i = 0; i < n; ++i) {
        scene_push_index(sc, i);
        if (!scene_pop(sc, scene_as_int(sc, json_array_get(v, i), &worlds[i]))) return 0;
    }
    ev->worlds = worlds;
    ev->world_count = n;
    return 1;
}

/* The constraint and mover actions need version 2, as the constraints and
 * movers they name do (a version 1 scene said "unknown constraint"). */
static int check_action_version(scene *sc, tp_event_action action)
{
    if (sc->version >= 2 || (action != TP_EVENT_CONSTRAINT && action != TP_EVENT_MOVER)) return 1;
    scene_push_key(sc, "action");
    return scene_pop(sc, scene_fail(sc, 0, "action \"%s\" needs \"version\": 2 (docs/scene-format.md)",
                                    action_names[action]));
}

static int read_event(scene *sc, const json_t *obj)
{
    if (!json_is_object(obj)) return scene_fail(sc, 0, "must be an object (an event), got %s", scene_json_kind(obj));
    tp_event_def ev = tp_default_event_def();
    if (!scene_read_fields(sc, obj, event_fields, COUNT(event_fields), &ev)) return 0;
    if (!json_object_get(obj, "time")) return scene_fail_missing(sc, "time");
    if (!json_object_get(obj, "action")) return scene_fail_missing(sc, "action");
    int action = 0;
    scene_push_key(sc, "action");
    if (!scene_pop(sc, scene_as_enum(sc, json_object_get(obj, "action"), action_names, COUNT(action_names), "action", &action)))
        return 0;
    ev.action = (tp_event_action)action;
    if (!check_action_version(sc, ev.action) || !check_action_keys(sc, obj, ev.action)) return 0;
    ev.has_quat = json_object_get(obj, "quat") != NULL;
    READ_KEY(sc, obj, "body", scene_as_body, &ev.body);
    READ_KEY(sc, obj, "worlds", as_worlds, &ev);
    READ_KEY(sc, obj, "constraint", as_constraint, &ev.constraint);
    READ_KEY(sc, obj, "param", as_param, &ev.param);
    READ_KEY(sc, obj, "mover", as_mover, &ev.mover);
    READ_KEY(sc, obj, "target", as_target, &ev);
    READ_KEY(sc, obj, "enabled", as_enabled, &ev.enabled);
    char field[64], reason[256];
    if (!tp_event_def_check(&ev, sc->body_count, sc->bodies, field, sizeof field, reason, sizeof reason))
        return scene_fail_check(sc, field, reason, NULL, NULL);
    const char *joint_name = NULL;
    int joint = tp_event_refused_on_link(ev.action) ? tp_builder_link_joint(sc->builder, ev.body, &joint_name) : -1;
    if (joint >= 0) { /* the joints were read before the events */
        tp_link_write_reason(reason, sizeof reason, ev.body, json_string_value(json_object_get(obj, "body")), joint,
                             joint_name);
        return scene_fail_check(sc, "body", reason, NULL, NULL);
    }
    tp_status status = tp_builder_add_event(sc->builder, &ev);
    if (status != TP_OK) return scene_fail_builder(sc, status);
    return 1;
}

int scene_read_events(scene *sc, const json_t *root)
{
    const json_t *events = json_object_get(root, "events");
    if (!events) return 1;
    scene_push_key(sc, "events");
    if (!json_is_array(events)) return scene_pop(sc, scene_fail(sc, 0, "must be an array of events, got %s", scene_json_kind(events)));
    for (int i = 0; i < (int)json_array_size(events); ++i) {
        scene_push_index(sc, i);
        if (!scene_pop(sc, read_event(sc, json_array_get(events, i)))) return scene_pop(sc, 0);
    }
    return scene_pop(sc, 1);
}
