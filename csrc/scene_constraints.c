/* scene_constraints.c - the constraints of a version 2 scene
 * (docs/constraints.md, "Scene format"): each read, checked and added through
 * tp_builder_add_constraint; a refused value is reported at its key. */
#include "scene_read.h"

#include "names.h"

#include "tp_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(tp_constraint_type) == sizeof(int) && sizeof(tp_constraint_actuator) == sizeof(int),
               "enums must be int-sized");

static const field cons_fields[] = {
    OTHER("name"), ENUM_FIELD("type", tp_constraint_def, type, tp_constraint_type_names, "constraint type"),
    OTHER("body0"), OTHER("body1"),
    FIELD("pos0", V_VEC3, tp_constraint_def, pos0), FIELD("quat0", V_VEC4, tp_constraint_def, quat0),
    FIELD("pos1", V_VEC3, tp_constraint_def, pos1), FIELD("quat1", V_VEC4, tp_constraint_def, quat1),
    OTHER("axis0"), OTHER("axis1"),
    ENUM_FIELD("actuator", tp_constraint_def, actuator, tp_constraint_actuator_names, "actuator"),
    FIELD("velocity", V_FLOAT, tp_constraint_def, velocity), FIELD("target", V_FLOAT, tp_constraint_def, target),
    FIELD("speed", V_FLOAT, tp_constraint_def, speed), FIELD("max_force", V_FLOAT, tp_constraint_def, max_force),
    FIELD("limits", V_VEC2, tp_constraint_def, lower), FIELD("length", V_FLOAT, tp_constraint_def, length),
    FIELD("restitution", V_FLOAT, tp_constraint_def, restitution),
    FIELD("stiffness", V_FLOAT, tp_constraint_def, stiffness), FIELD("damping", V_FLOAT, tp_constraint_def, damping),
    FIELD("enabled", V_BOOL, tp_constraint_def, enabled), FIELD("cone", V_FLOAT, tp_constraint_def, cone_angle),
    FIELD("twist", V_VEC2, tp_constraint_def, twist_lower), FIELD("winch", V_BOOL, tp_constraint_def, winch),
    FIELD("winch_target", V_FLOAT, tp_constraint_def, winch_target),
    FIELD("winch_speed", V_FLOAT, tp_constraint_def, winch_speed),
    FIELD("winch_responsiveness", V_FLOAT, tp_constraint_def, winch_responsiveness),
    FIELD("winch_force", V_FLOAT, tp_constraint_def, winch_force)};

/* The keys each type uses past name, type, body0, body1 and enabled (one
 * list per tp_constraint_type): any other is refused at its key, as a joint
 * refuses a key its type ignores, instead of being silently dropped. A
 * weld's attachments are computed; a rope, spring or rod has no axis. */
static const char *const common_keys[] = {"name", "type", "body0", "body1", "enabled", NULL};
static const char *const weld_keys[] = {NULL};
static const char *const driven_keys[] = {"pos0", "pos1", "quat0", "quat1", "axis0", "axis1", "actuator", "limits",
                                          "velocity", "target", "speed", "max_force", NULL};
static const char *const ball_keys[] = {"pos0", "pos1", "quat0", "quat1", "axis0", "axis1", "cone", "twist", NULL};
static const char *const rope_keys[] = {"pos0", "pos1", "length", "restitution", "winch", "winch_target",
                                        "winch_speed", "winch_responsiveness", "winch_force", NULL};
static const char *const spring_keys[] = {"pos0", "pos1", "length", "stiffness", "damping", NULL};
static const char *const rod_keys[] = {"pos0", "pos1", "length", NULL};
static const char *const *const type_keys[TP_CONSTRAINT_TYPE_COUNT] = {
    weld_keys, driven_keys, driven_keys, ball_keys, rope_keys, spring_keys, rod_keys};
/* A hinge's or prismatic's drive keys by actuator (tp_constraint_actuator order). */
static const char *const drive_keys[] = {"velocity", "target", "speed", "max_force", NULL};
static const char *const none_keys[] = {NULL};
static const char *const motor_keys[] = {"velocity", "max_force", NULL};
static const char *const servo_keys[] = {"target", "speed", "max_force", NULL};
static const char *const *const actuator_keys[TP_CONS_ACTUATOR_COUNT] = {none_keys, motor_keys, servo_keys};

/* Why `key`, present, is unused by def's type or actuator (NULL: it is used). */
static const char *unused_reason(const tp_constraint_def *def, const char *key, char *buf, size_t len)
{
    const char *t = tp_constraint_type_names[def->type];
    if (scene_key_in(key, common_keys)) return NULL;
    if (!scene_key_in(key, type_keys[def->type])) {
        snprintf(buf, len, "a %s has no %s", t, key);
        return buf;
    }
    if (!scene_key_in(key, drive_keys) || scene_key_in(key, actuator_keys[def->actuator])) return NULL;
    snprintf(buf, len, "a %s with \"actuator\": \"%s\" has no %s (\"motor\": velocity, max_force; \"servo\": "
             "target, speed, max_force)", t, tp_constraint_actuator_names[def->actuator], key);
    return buf;
}

/* Every key of obj used by def's type and actuator (read: both in range), in the table's order. */
static int check_unused(scene *sc, const json_t *obj, const tp_constraint_def *def)
{
    char buf[160];
    for (int i = 0; i < COUNT(cons_fields); ++i) {
        const char *why = json_object_get(obj, cons_fields[i].key) ? unused_reason(def, cons_fields[i].key, buf, sizeof buf) : NULL;
        if (!why) continue;
        scene_push_key(sc, cons_fields[i].key);
        return scene_pop(sc, scene_fail(sc, 0, "%s", why));
    }
    return 1;
}

/* A given winch_target is >= 0, as the constraint event and
 * tp_batch_set_constraint_params take it: the C default's "< 0: the length"
 * is what an absent key means, and -3 was silently taken for it. */
static int check_winch_target(scene *sc, const json_t *obj, const tp_constraint_def *def)
{
    if (!json_object_get(obj, "winch_target") || def->winch_target >= 0.0f) return 1;
    scene_push_key(sc, "winch_target");
    return scene_pop(sc, scene_fail(sc, 0, "must be >= 0 (leave it out for the rope's length), got %g",
                                    (double)def->winch_target));
}

/* "world" (-1) or the name of a body. */
static int as_end(scene *sc, const json_t *v, int *out)
{
    if (json_is_string(v) && strcmp(json_string_value(v), TP_WORLD_NAME) == 0) {
        *out = -1;
        return 1;
    }
    return scene_as_body(sc, v, out);
}

/* `axis0` / `axis1`: the attachment turned so that its X axis points along
 * the given direction (the shortest turn from X). */
static int read_axis(scene *sc, const json_t *obj, const char *key, float *quat)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) return 1;
    scene_push_key(sc, key);
    float a[3];
    if (!scene_as_vec(sc, v, 3, a)) return scene_pop(sc, 0);
    double n = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    if (!(n > 1e-12) || !isfinite(n))
        return scene_pop(sc, scene_fail(sc, 0, "must be a non-zero direction (the constraint's axis), got [%g, %g, %g]",
                                        (double)a[0], (double)a[1], (double)a[2]));
    tp_vec3 u = tp_v3((float)(a[0] / n), (float)(a[1] / n), (float)(a[2] / n));
    tp_quat q;
    if (u.x < -0.999999f) q = tp_q(0.0f, 1.0f, 0.0f, 0.0f); /* half a turn about Y */
    else q = tp_q_normalize(tp_q(0.0f, -u.z, u.y, 1.0f + u.x)); /* X x u, 1 + X . u */
    tp_q_store(quat, q);
    return scene_pop(sc, 1);
}

/* The builder's message "constraint: FIELD: reason" reported at FIELD's key
 * (limits for lower/upper, axisN for a quatN given as an axis). */
static int fail_at_field(scene *sc, const json_t *obj, tp_status status)
{
    const char *msg = tp_last_error(), *p = strstr(msg, "constraint: ");
    if (!p) return scene_fail_builder(sc, status);
    p += strlen("constraint: ");
    const char *colon = strstr(p, ": ");
    if (!colon || colon - p >= 32) return scene_fail_builder(sc, status);
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)(colon - p), p);
    if (strchr(key, ',')) return scene_fail(sc, 0, "%s", colon + 2); /* both bodies: at the constraint */
    if (strcmp(key, "lower") == 0 || strcmp(key, "upper") == 0) snprintf(key, sizeof key, "limits");
    if (strcmp(key, "cone_angle") == 0) snprintf(key, sizeof key, "cone");
    if (strncmp(key, "quat", 4) == 0 && !json_object_get(obj, key)) key[0] = 'a', key[1] = 'x', key[2] = 'i', key[3] = 's';
    if (!json_object_get(obj, key)) return scene_fail(sc, 0, "%s: %s", key, colon + 2);
    scene_push_key(sc, key);
    return scene_pop(sc, scene_fail(sc, 0, "%s", colon + 2));
}

/* Attachment `pos` of end `body` in the world at the scene's start pose
 * (the world's own frame for -1). */
static tp_vec3 start_point(const scene *sc, int body, const float *pos)
{
    if (body < 0) return tp_v3_load(pos);
    const tp_body_def *b = &sc->bodies[body];
    return tp_add(tp_v3_load(b->pos), tp_q_rotate(tp_q_normalize_any(tp_q_load(b->quat)), tp_v3_load(pos)));
}

/* A rope, rod or spring with no `length` keeps the distance its attachments
 * start at (as a weld keeps its offset): length 0 snapped the body onto the
 * anchor in one step. An explicit length, 0 included, is kept. */
static int default_length(scene *sc, const json_t *obj, tp_constraint_def *def)
{
    int distance = def->type == TP_CONSTRAINT_ROPE || def->type == TP_CONSTRAINT_ROD || def->type == TP_CONSTRAINT_SPRING;
    if (!distance || json_object_get(obj, "length")) return 1;
    if (!tp_v3_finite(tp_v3_load(def->pos0)) || !tp_v3_finite(tp_v3_load(def->pos1))) return 1; /* the builder says */
    def->length = tp_len(tp_sub(start_point(sc, def->body1, def->pos1), start_point(sc, def->body0, def->pos0)));
    if (def->length <= TP_MAX_SIZE) return 1;
    return scene_fail(sc, 0, "the attachments start %g m apart and no \"length\" is given; a %s's length is at most "
                      "%g m (docs/scene-format.md, \"Bounds\")", (double)def->length,
                      tp_constraint_type_names[def->type], (double)TP_MAX_SIZE);
}

static int read_constraint(scene *sc, const json_t *obj, tp_constraint_def *def)
{
    if (!json_is_object(obj)) return scene_fail(sc, 0, "must be an object (a constraint), got %s", scene_json_kind(obj));
    *def = tp_default_constraint_def();
    if (!scene_read_fields(sc, obj, cons_fields, COUNT(cons_fields), def)) return 0;
    if (!json_object_get(obj, "type")) return scene_fail_missing(sc, "type");
    if (!json_object_get(obj, "body1")) return scene_fail_missing(sc, "body1");
    if (!check_unused(sc, obj, def) || !check_winch_target(sc, obj, def)) return 0;
    READ_KEY(sc, obj, "name", scene_as_name, &def->name);
    READ_KEY(sc, obj, "body0", as_end, &def->body0);
    READ_KEY(sc, obj, "body1", as_end, &def->body1);
    if (json_object_get(obj, "axis0") && json_object_get(obj, "quat0"))
        return scene_fail(sc, 0, "give \"axis0\" or \"quat0\", not both");
    if (json_object_get(obj, "axis1") && json_object_get(obj, "quat1"))
        return scene_fail(sc, 0, "give \"axis1\" or \"quat1\", not both");
    if (!read_axis(sc, obj, "axis0", def->quat0) || !read_axis(sc, obj, "axis1", def->quat1)) return 0;
    def->limits = json_object_get(obj, "limits") != NULL;
    def->cone = json_object_get(obj, "cone") != NULL;
    def->twist = json_object_get(obj, "twist") != NULL;
    if (!default_length(sc, obj, def)) return 0;
    tp_status status = tp_builder_add_constraint(sc->builder, def, NULL);
    if (status == TP_ERR_OUT_OF_MEMORY) return scene_fail_builder(sc, status);
    if (status != TP_OK) return fail_at_field(sc, obj, status);
    return 1;
}

int scene_read_constraints(scene *sc, const json_t *root)
{
    const json_t *list = json_object_get(root, "constraints");
    if (!list) return 1;
    scene_push_key(sc, "constraints");
    if (sc->version < 2)
        return scene_pop(sc, scene_fail(sc, 1, "constraints need \"version\": 2 (docs/scene-format.md)"));
    if (!json_is_array(list))
        return scene_pop(sc, scene_fail(sc, 0, "must be an array of constraints, got %s", scene_json_kind(list)));
    int ok = 1;
    for (int i = 0; i < (int)json_array_size(list) && ok; ++i) {
        tp_constraint_def def;
        scene_push_index(sc, i);
        ok = scene_pop(sc, read_constraint(sc, json_array_get(list, i), &def));
    }
    return scene_pop(sc, ok);
}
