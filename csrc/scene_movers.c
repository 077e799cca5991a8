/* scene_movers.c - the movers of a version 2 scene (docs/movers.md, "Scene
 * format"): each read, checked and added through tp_builder_add_mover; a
 * refused value is reported at its key. */
#include "scene_read.h"

#include <stdio.h>
#include <string.h>

static const char *const mode_names[] = {"one_attachment", "two_attachment"};
_Static_assert(sizeof(tp_mover_type) == sizeof(int) && sizeof(tp_mover_frame) == sizeof(int) &&
               sizeof(tp_velocity_mode) == sizeof(int), "enums must be int-sized");

static const field mover_fields[] = {
    OTHER("name"), ENUM_FIELD("type", tp_mover_def, type, tp_mover_type_names, "mover type"),
    OTHER("body0"), OTHER("body1"),
    FIELD("pos0", V_VEC3, tp_mover_def, pos0), FIELD("quat0", V_VEC4, tp_mover_def, quat0),
    FIELD("pos1", V_VEC3, tp_mover_def, pos1), FIELD("quat1", V_VEC4, tp_mover_def, quat1),
    OTHER("target"), FIELD("enabled", V_BOOL, tp_mover_def, enabled),
    ENUM_FIELD("mode", tp_mover_def, two_attachment, mode_names, "mover mode"),
    ENUM_FIELD("relative_to", tp_mover_def, relative_to, tp_mover_frame_names, "frame"),
    ENUM_FIELD("velocity_mode", tp_mover_def, velocity_mode, tp_velocity_mode_names, "velocity mode"),
    FIELD("line_direction", V_VEC3, tp_mover_def, line_direction),
    FIELD("tangent0", V_VEC3, tp_mover_def, tangent0), FIELD("tangent1", V_VEC3, tp_mover_def, tangent1),
    FIELD("responsiveness", V_FLOAT, tp_mover_def, responsiveness),
    FIELD("max_velocity", V_FLOAT, tp_mover_def, max_velocity), FIELD("max_force", V_FLOAT, tp_mover_def, max_force),
    FIELD("rigid", V_BOOL, tp_mover_def, rigid), FIELD("apply_at_com", V_BOOL, tp_mover_def, apply_at_com),
    FIELD("reaction", V_BOOL, tp_mover_def, reaction),
    FIELD("primary_axis_only", V_BOOL, tp_mover_def, primary_axis_only)};

/* The keys each type uses past the attachments, name, type, bodies, target
 * and enabled (one list per tp_mover_type): any other is refused at its key,
 * as a joint refuses a key its type ignores, instead of being silently dropped. */
static const char *const common_keys[] = {"name", "type", "body0", "body1", "pos0", "quat0", "pos1", "quat1",
                                          "target", "enabled", NULL};
static const char *const align_position_keys[] = {"mode", "responsiveness", "max_velocity", "max_force", "rigid",
                                                  "apply_at_com", "reaction", NULL};
static const char *const align_orientation_keys[] = {"mode", "responsiveness", "max_velocity", "max_force", "rigid",
                                                     "reaction", "primary_axis_only", NULL};
static const char *const linear_velocity_keys[] = {"relative_to", "velocity_mode", "line_direction", "tangent0",
                                                   "tangent1", "max_force", "apply_at_com", "reaction", NULL};
static const char *const angular_velocity_keys[] = {"relative_to", "max_force", "reaction", NULL};
static const char *const vector_force_keys[] = {"relative_to", "apply_at_com", NULL};
static const char *const torque_keys[] = {"relative_to", NULL};
static const char *const *const type_keys[TP_MOVER_TYPE_COUNT] = {
    align_position_keys, align_orientation_keys, linear_velocity_keys, angular_velocity_keys, vector_force_keys,
    torque_keys};
/* A linear_velocity's direction keys by velocity_mode (tp_velocity_mode order: line, plane, vector). */
static const char *const direction_keys[] = {"line_direction", "tangent0", "tangent1", NULL};
static const char *const line_keys[] = {"line_direction", NULL};
static const char *const plane_keys[] = {"tangent0", "tangent1", NULL};
static const char *const vector_keys[] = {NULL};
static const char *const *const mode_keys[TP_VELOCITY_MODE_COUNT] = {line_keys, plane_keys, vector_keys};

/* Why `key`, present, is unused by def's type or velocity mode (NULL: it is used). */
static const char *unused_reason(const tp_mover_def *def, const char *key, char *buf, size_t len)
{
    const char *t = tp_mover_type_names[def->type];
    if (scene_key_in(key, common_keys)) return NULL;
    if (!scene_key_in(key, type_keys[def->type])) {
        snprintf(buf, len, "a%s %s mover has no %s", t[0] == 'a' ? "n" : "", t, key);
        return buf;
    }
    if (!scene_key_in(key, direction_keys) || scene_key_in(key, mode_keys[def->velocity_mode])) return NULL;
    snprintf(buf, len, "a %s mover with \"velocity_mode\": \"%s\" has no %s (\"line\": line_direction; \"plane\": "
             "tangent0, tangent1)", t, tp_velocity_mode_names[def->velocity_mode], key);
    return buf;
}

/* Every key of obj used by def's type and velocity mode, in the table's order. */
static int check_unused(scene *sc, const json_t *obj, const tp_mover_def *def)
{
    char buf[160];
    for (int i = 0; i < COUNT(mover_fields); ++i) {
        const char *key = mover_fields[i].key;
        const char *why = json_object_get(obj, key) ? unused_reason(def, key, buf, sizeof buf) : NULL;
        if (!why) continue;
        scene_push_key(sc, key);
        return scene_pop(sc, scene_fail(sc, 0, "%s", why));
    }
    return 1;
}

/* `target`: a number or 1 to 4 numbers (the rest 0). */
int scene_as_mover_target(scene *sc, const json_t *v, float *out)
{
    if (json_is_number(v)) return scene_as_float(sc, v, &out[0]);
    size_t n = json_is_array(v) ? json_array_size(v) : 0;
    if (n < 1 || n > 4)
        return scene_fail(sc, 0, "must be a number or an array of 1 to 4 numbers, got %s", scene_json_kind(v));
    memset(out, 0, 4 * sizeof *out);
    return scene_as_vec(sc, v, (int)n, out);
}

/* The builder's message "mover: FIELD: reason" reported at FIELD's key. */
static int fail_at_field(scene *sc, const json_t *obj, tp_status status)
{
    const char *msg = tp_last_error(), *p = strstr(msg, "mover: ");
    if (!p) return scene_fail_builder(sc, status);
    p += strlen("mover: ");
    const char *colon = strstr(p, ": ");
    if (!colon || colon - p >= 32) return scene_fail_builder(sc, status);
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)(colon - p), p);
    if (!json_object_get(obj, key)) return scene_fail(sc, 0, "%s: %s", key, colon + 2);
    scene_push_key(sc, key);
    return scene_pop(sc, scene_fail(sc, 0, "%s", colon + 2));
}

static int read_mover(scene *sc, const json_t *obj, tp_mover_def *def)
{
    if (!json_is_object(obj)) return scene_fail(sc, 0, "must be an object (a mover), got %s", scene_json_kind(obj));
    if (!json_object_get(obj, "type")) return scene_fail_missing(sc, "type");
    if (!json_object_get(obj, "body0")) return scene_fail_missing(sc, "body0");
    int type = 0;
    scene_push_key(sc, "type");
    if (!scene_pop(sc, scene_as_enum(sc, json_object_get(obj, "type"), tp_mover_type_names, TP_MOVER_TYPE_COUNT,
                                     "mover type", &type)))
        return 0;
    *def = tp_default_mover_def_of((tp_mover_type)type);
    if (!scene_read_fields(sc, obj, mover_fields, COUNT(mover_fields), def)) return 0;
    if (!check_unused(sc, obj, def)) return 0;
    READ_KEY(sc, obj, "name", scene_as_name, &def->name);
    READ_KEY(sc, obj, "body0", scene_as_body, &def->body0);
    READ_KEY(sc, obj, "body1", scene_as_body, &def->body1);
    READ_KEY(sc, obj, "target", scene_as_mover_target, def->target);
    tp_status status = tp_builder_add_mover(sc->builder, def, NULL);
    if (status == TP_ERR_OUT_OF_MEMORY) return scene_fail_builder(sc, status);
    if (status != TP_OK) return fail_at_field(sc, obj, status);
    return 1;
}

int scene_read_movers(scene *sc, const json_t *root)
{
    const json_t *list = json_object_get(root, "movers");
    if (!list) return 1;
    scene_push_key(sc, "movers");
    if (sc->version < 2) return scene_pop(sc, scene_fail(sc, 1, "movers need \"version\": 2 (docs/scene-format.md)"));
    if (!json_is_array(list))
        return scene_pop(sc, scene_fail(sc, 0, "must be an array of movers, got %s", scene_json_kind(list)));
    int ok = 1;
    for (int i = 0; i < (int)json_array_size(list) && ok; ++i) {
        tp_mover_def def;
        scene_push_index(sc, i);
        ok = scene_pop(sc, read_mover(sc, json_array_get(list, i), &def));
    }
    return scene_pop(sc, ok);
}
