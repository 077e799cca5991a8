/* scene_joints.c - the joints of a version 2 scene (docs/scene-format.md,
 * "Joints"): each joint read and checked, then the tree as a whole, built
 * through tp_builder_add_joint. */
#include "scene_read.h"

#include "articulation_host.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- joints (version 2) */

static const char *const drive_names[] = {"none", "position", "velocity"};
_Static_assert(sizeof(tp_joint_type) == sizeof(int) && sizeof(tp_drive_mode) == sizeof(int), "enums must be int-sized");

static const field joint_fields[] = {
    OTHER("name"), ENUM_FIELD("type", tp_joint_def, type, tp_joint_type_names, "joint type"),
    OTHER("parent"), OTHER("child"),
    FIELD("axis", V_VEC3, tp_joint_def, axis), FIELD("anchor", V_VEC3, tp_joint_def, anchor),
    FIELD("q0", V_FLOAT, tp_joint_def, q0), FIELD("qd0", V_FLOAT, tp_joint_def, qd0),
    FIELD("limits", V_VEC2, tp_joint_def, lower), FIELD("damping", V_FLOAT, tp_joint_def, damping),
    FIELD("friction", V_FLOAT, tp_joint_def, friction), FIELD("armature", V_FLOAT, tp_joint_def, armature),
    FIELD("stiffness", V_FLOAT, tp_joint_def, stiffness), FIELD("rest", V_FLOAT, tp_joint_def, rest),
    ENUM_FIELD("drive", tp_joint_def, drive, drive_names, "drive mode"),
    FIELD("kp", V_FLOAT, tp_joint_def, kp), FIELD("kd", V_FLOAT, tp_joint_def, kd),
    FIELD("max_effort", V_FLOAT, tp_joint_def, max_effort), FIELD("target_q", V_FLOAT, tp_joint_def, target_q),
    FIELD("target_qd", V_FLOAT, tp_joint_def, target_qd), FIELD("ref", V_FLOAT, tp_joint_def, ref)};

/* "world" (-1) or the name of a body. */
static int as_parent(scene *sc, const json_t *v, int *out)
{
    if (json_is_string(v) && strcmp(json_string_value(v), TP_WORLD_NAME) == 0) {
        *out = -1;
        return 1;
    }
    return scene_as_body(sc, v, out);
}

/* Map a joint check's field ("lower", "axis[1]") onto the key it came from. */
static const char *joint_key_of(const char *field)
{
    if (strcmp(field, "lower") == 0 || strcmp(field, "upper") == 0) return "limits";
    return field;
}

/* The joint's name unique among the joints read before (defs[0 .. index)),
 * reported at the key; an unnamed joint's default "joint<i>" too, at the joint. */
static int check_joint_name(scene *sc, const tp_joint_def *defs, int index)
{
    char own[32];
    snprintf(own, sizeof own, "joint%d", index);
    const char *name = defs[index].name ? defs[index].name : own;
    for (int k = 0; k < index; ++k) {
        char earlier[32];
        snprintf(earlier, sizeof earlier, "joint%d", k); /* the default name of an unnamed joint */
        if (strcmp(defs[k].name ? defs[k].name : earlier, name) != 0) continue;
        if (!defs[index].name)
            return scene_fail(sc, 0, "its default name \"%s\" is already the name of joints[%d]; give it a \"name\"",
                              name, k);
        scene_push_key(sc, "name");
        return scene_pop(sc, scene_fail(sc, 0, "\"%s\" is already the name of joints[%d]", name, k));
    }
    return 1;
}

static int read_joint(scene *sc, const json_t *obj, tp_joint_def *def, const tp_joint_def *defs, int index)
{
    if (!json_is_object(obj)) return scene_fail(sc, 0, "must be an object (a joint), got %s", scene_json_kind(obj));
    *def = tp_default_joint_def();
    if (!scene_read_fields(sc, obj, joint_fields, COUNT(joint_fields), def)) return 0;
    if (!json_object_get(obj, "child")) return scene_fail_missing(sc, "child");
    READ_KEY(sc, obj, "name", scene_as_name, &def->name);
    if (!check_joint_name(sc, defs, index)) return 0;
    READ_KEY(sc, obj, "parent", as_parent, &def->parent);
    READ_KEY(sc, obj, "child", scene_as_body, &def->child);
    def->has_limits = json_object_get(obj, "limits") != NULL;
    char field[64], reason[256];
    if (!tp_joint_def_check(def, sc->body_count, field, sizeof field, reason, sizeof reason))
        return scene_fail_check(sc, joint_key_of(field), reason, NULL, NULL);
    tp_status status = tp_builder_add_joint(sc->builder, def, NULL);
    if (status != TP_OK) return scene_fail_builder(sc, status);
    return 1;
}

/* The tree as a whole (loops, parents, one parent joint per link), reported at the joint at fault. */
static int check_joint_tree(scene *sc, const tp_joint_def *defs, int n)
{
    char field[64], reason[256];
    int bad = 0;
    if (tp_joint_tree_check(defs, n, sc->bodies, sc->body_count, &bad, field, sizeof field, reason, sizeof reason))
        return 1;
    scene_push_index(sc, bad);
    return scene_pop(sc, scene_fail_check(sc, joint_key_of(field), reason, NULL, NULL));
}

int scene_read_joints(scene *sc, const json_t *root)
{
    const json_t *joints = json_object_get(root, "joints");
    if (!joints) return 1;
    scene_push_key(sc, "joints");
    if (sc->version < 2) /* as read at the top level (2.0 included) */
        return scene_pop(sc, scene_fail(sc, 1, "joints need \"version\": 2 (docs/scene-format.md)"));
    if (!json_is_array(joints)) return scene_pop(sc, scene_fail(sc, 0, "must be an array of joints, got %s", scene_json_kind(joints)));
    int n = (int)json_array_size(joints);
    tp_joint_def *defs = calloc((size_t)n + 1, sizeof *defs);
    if (!defs) return scene_pop(sc, scene_fail_oom(sc));
    int ok = 1;
    for (int i = 0; i < n && ok; ++i) {
        scene_push_index(sc, i);
        ok = scene_pop(sc, read_joint(sc, json_array_get(joints, i), &defs[i], defs, i));
    }
    if (ok) ok = check_joint_tree(sc, defs, n);
    free(defs);
    return scene_pop(sc, ok);
}

