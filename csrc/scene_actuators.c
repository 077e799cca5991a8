/* scene_actuators.c - the actuators of a version 2 scene (docs/scene-format.md,
 * "Actuators"): each read, checked and added through tp_builder_add_actuator. */
#include "scene_read.h"

#include "articulation_host.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tp_actuator_type) == sizeof(int), "enums must be int-sized");

static const field actuator_fields[] = {
    OTHER("name"), ENUM_FIELD("type", tp_actuator_def, type, tp_actuator_type_names, "actuator type"), OTHER("joint"),
    FIELD("gear", V_FLOAT, tp_actuator_def, gear), FIELD("ctrl_range", V_VEC2, tp_actuator_def, ctrl_range),
    FIELD("force_range", V_VEC2, tp_actuator_def, force_range), FIELD("kp", V_FLOAT, tp_actuator_def, kp),
    FIELD("kv", V_FLOAT, tp_actuator_def, kv), FIELD("gain", V_VEC3, tp_actuator_def, gain),
    FIELD("bias", V_VEC3, tp_actuator_def, bias)};

/* A joint's name among the joints read so far. */
static int as_joint(scene *sc, const json_t *v, int *out)
{
    if (!json_is_string(v)) return scene_fail(sc, 0, "must be the name of a joint, got %s", scene_json_kind(v));
    *out = tp_builder_find_joint(sc->builder, json_string_value(v));
    if (*out < 0) return scene_fail(sc, 0, "no joint is called \"%s\"", json_string_value(v));
    return 1;
}

/* Map a check's field ("ctrl_range[1]", "gain") onto the key it came from. */
static const char *actuator_key_of(const char *field)
{
    static const char *const keys[] = {"ctrl_range", "force_range", "gain", "bias"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
        if (strncmp(field, keys[k], strlen(keys[k])) == 0) return keys[k];
    return field;
}

static int read_actuator(scene *sc, const json_t *obj, const tp_actuator_def *defs, int index, tp_actuator_def *def)
{
    if (!json_is_object(obj)) return scene_fail(sc, 0, "must be an object (an actuator), got %s", scene_json_kind(obj));
    *def = tp_default_actuator_def();
    if (!scene_read_fields(sc, obj, actuator_fields, COUNT(actuator_fields), def)) return 0;
    if (!json_object_get(obj, "joint")) return scene_fail_missing(sc, "joint");
    READ_KEY(sc, obj, "name", scene_as_name, &def->name);
    READ_KEY(sc, obj, "joint", as_joint, &def->joint);
    for (int k = 0; def->name && k < index; ++k)
        if (defs[k].name && strcmp(defs[k].name, def->name) == 0) {
            scene_push_key(sc, "name");
            return scene_pop(sc, scene_fail(sc, 0, "\"%s\" is already the name of actuators[%d]", def->name, k));
        }
    def->ctrl_limited = json_object_get(obj, "ctrl_range") != NULL;
    def->force_limited = json_object_get(obj, "force_range") != NULL;
    const tp_joint_def *jdefs = NULL;
    int joints = 0;
    tp_builder_joint_defs(sc->builder, &jdefs, &joints);
    char field[64], reason[256];
    if (!tp_actuator_def_check(def, jdefs, joints, field, sizeof field, reason, sizeof reason))
        return scene_fail_check(sc, actuator_key_of(field), reason, NULL, NULL);
    tp_status status = tp_builder_add_actuator(sc->builder, def, NULL);
    if (status != TP_OK) return scene_fail_builder(sc, status);
    return 1;
}

int scene_read_actuators(scene *sc, const json_t *root)
{
    const json_t *acts = json_object_get(root, "actuators");
    if (!acts) return 1;
    scene_push_key(sc, "actuators");
    if (sc->version < 2)
        return scene_pop(sc, scene_fail(sc, 1, "actuators need \"version\": 2 (docs/scene-format.md)"));
    if (!json_is_array(acts))
        return scene_pop(sc, scene_fail(sc, 0, "must be an array of actuators, got %s", scene_json_kind(acts)));
    int n = (int)json_array_size(acts), ok = 1;
    tp_actuator_def *defs = calloc((size_t)n + 1, sizeof *defs);
    if (!defs) return scene_pop(sc, scene_fail_oom(sc));
    for (int i = 0; i < n && ok; ++i) {
        scene_push_index(sc, i);
        ok = scene_pop(sc, read_actuator(sc, json_array_get(acts, i), defs, i, &defs[i]));
    }
    free(defs);
    return scene_pop(sc, ok);
}
