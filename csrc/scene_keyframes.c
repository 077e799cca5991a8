/* scene_keyframes.c - the keyframes of a version 2 scene (docs/scene-format.md,
 * "Keyframes"): named joint states, each read and added through
 * tp_builder_add_keyframe after the joints and actuators, a refused value
 * reported at its key; and the randomize block's `keyframe`, which must name
 * one of them. */
#include "scene_read.h"

#include <stdlib.h>
#include <string.h>

static const field keyframe_fields[] = {OTHER("name"), OTHER("q"), OTHER("qd"), OTHER("ctrl")};

/* An array of numbers of any length into *out (malloc'd, NULL when empty) and *n. */
static int read_numbers(scene *sc, const json_t *v, float **out, int *n)
{
    if (!json_is_array(v)) return scene_fail(sc, 0, "must be an array of numbers, got %s", scene_json_kind(v));
    size_t count = json_array_size(v);
    if (count > (size_t)TP_MAX_SCENE_BYTES) return scene_fail(sc, 0, "has %zu values", count);
    float *a = count ? malloc(count * sizeof *a) : NULL;
    if (count && !a) return scene_fail_oom(sc);
    for (size_t i = 0; i < count; ++i) {
        scene_push_index(sc, (int)i);
        if (!scene_pop(sc, scene_as_float(sc, json_array_get(v, i), &a[i]))) {
            free(a);
            return 0;
        }
    }
    *out = a;
    *n = (int)count;
    return 1;
}

/* The builder's message "keyframe \"NAME\": FIELD: reason" reported at FIELD's key. */
static int fail_at_field(scene *sc, const json_t *obj, tp_status status)
{
    const char *msg = tp_last_error(), *p = strstr(msg, "\": ");
    if (!p) return scene_fail_builder(sc, status);
    p += 3;
    const char *colon = strstr(p, ": ");
    char key[8];
    if (!colon || colon - p >= (long)sizeof key) return scene_fail_builder(sc, status);
    memcpy(key, p, (size_t)(colon - p));
    key[colon - p] = '\0';
    if (!json_object_get(obj, key)) return scene_fail_builder(sc, status);
    scene_push_key(sc, key);
    return scene_pop(sc, scene_fail(sc, 0, "%s (%.*s)", colon + 2, (int)(p - 2 - msg), msg));
}

static int read_keyframe(scene *sc, const json_t *obj)
{
    if (!json_is_object(obj))
        return scene_fail(sc, 0, "must be an object (a keyframe), got %s", scene_json_kind(obj));
    if (!scene_check_keys(sc, obj, keyframe_fields, COUNT(keyframe_fields))) return 0;
    if (!json_object_get(obj, "name")) return scene_fail_missing(sc, "name");
    tp_keyframe_def def = tp_default_keyframe_def();
    READ_KEY(sc, obj, "name", scene_as_name, &def.name);
    float *arrays[3] = {NULL, NULL, NULL};
    int *counts[3] = {&def.nq, &def.nv, &def.nu};
    static const char *const keys[3] = {"q", "qd", "ctrl"};
    int ok = 1;
    for (int k = 0; k < 3 && ok; ++k) {
        const json_t *v = json_object_get(obj, keys[k]);
        if (!v) continue;
        scene_push_key(sc, keys[k]);
        ok = scene_pop(sc, read_numbers(sc, v, &arrays[k], counts[k]));
    }
    static const float none[1]; /* an empty array: given, with no values */
    if (ok) {
        def.q = json_object_get(obj, "q") ? (arrays[0] ? arrays[0] : none) : NULL;
        def.qd = json_object_get(obj, "qd") ? (arrays[1] ? arrays[1] : none) : NULL;
        def.ctrl = json_object_get(obj, "ctrl") ? (arrays[2] ? arrays[2] : none) : NULL;
        tp_status status = tp_builder_add_keyframe(sc->builder, &def, NULL);
        if (status == TP_ERR_OUT_OF_MEMORY) ok = scene_fail_builder(sc, status);
        else if (status != TP_OK) ok = fail_at_field(sc, obj, status);
    }
    for (int k = 0; k < 3; ++k) free(arrays[k]);
    return ok;
}

/* randomize.keyframe names a keyframe of `list` (NULL: none). */
static int check_start(scene *sc, const json_t *root, const json_t *list)
{
    const json_t *randomize = json_object_get(root, "randomize");
    const json_t *v = randomize ? json_object_get(randomize, "keyframe") : NULL;
    if (!v) return 1;
    const char *name = json_string_value(v);
    for (size_t i = 0; list && i < json_array_size(list); ++i) {
        const json_t *n = json_object_get(json_array_get(list, i), "name");
        if (n && json_is_string(n) && strcmp(json_string_value(n), name) == 0) return 1;
    }
    scene_push_key(sc, "randomize");
    scene_push_key(sc, "keyframe");
    int ok = scene_fail(sc, 0, "no keyframe is called \"%s\" (the scene's \"keyframes\" has %d)", name,
                        list ? (int)json_array_size(list) : 0);
    scene_pop(sc, ok);
    return scene_pop(sc, ok);
}

int scene_read_keyframes(scene *sc, const json_t *root)
{
    const json_t *list = json_object_get(root, "keyframes");
    if (!list) return check_start(sc, root, NULL);
    scene_push_key(sc, "keyframes");
    if (sc->version < 2)
        return scene_pop(sc, scene_fail(sc, 1, "keyframes need \"version\": 2 (docs/scene-format.md)"));
    if (!json_is_array(list))
        return scene_pop(sc, scene_fail(sc, 0, "must be an array of keyframes, got %s", scene_json_kind(list)));
    int ok = 1;
    for (int i = 0; i < (int)json_array_size(list) && ok; ++i) {
        scene_push_index(sc, i);
        ok = scene_pop(sc, read_keyframe(sc, json_array_get(list, i)));
    }
    return scene_pop(sc, ok) && check_start(sc, root, list);
}
