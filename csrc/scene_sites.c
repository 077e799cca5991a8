/* scene_sites.c - the sites of a version 2 scene (docs/scene-format.md,
 * "Sites"): named frames on bodies, each read, checked and added through
 * tp_builder_add_site; a refused value is reported at its key. */
#include "scene_read.h"

#include <string.h>

static const field site_fields[] = {OTHER("name"), OTHER("body"), FIELD("pos", V_VEC3, tp_site_def, pos),
                                    FIELD("quat", V_VEC4, tp_site_def, quat)};

/* "world" (-1) or the name of a body. */
static int as_body(scene *sc, const json_t *v, int *out)
{
    if (json_is_string(v) && strcmp(json_string_value(v), TP_WORLD_NAME) == 0) {
        *out = -1;
        return 1;
    }
    return scene_as_body(sc, v, out);
}

/* The builder's message "site: FIELD: reason" reported at FIELD's key. */
static int fail_at_field(scene *sc, const json_t *obj, tp_status status)
{
    const char *msg = tp_last_error(), *p = strstr(msg, "site: ");
    if (!p) return scene_fail_builder(sc, status);
    p += strlen("site: ");
    const char *colon = strstr(p, ": ");
    if (!colon || colon - p >= 16) return scene_fail_builder(sc, status);
    char key[16];
    memcpy(key, p, (size_t)(colon - p));
    key[colon - p] = '\0';
    if (!json_object_get(obj, key)) return scene_fail(sc, 0, "%s: %s", key, colon + 2);
    scene_push_key(sc, key);
    return scene_pop(sc, scene_fail(sc, 0, "%s", colon + 2));
}

static int read_site(scene *sc, const json_t *obj)
{
    if (!json_is_object(obj)) return scene_fail(sc, 0, "must be an object (a site), got %s", scene_json_kind(obj));
    tp_site_def def = tp_default_site_def();
    if (!scene_read_fields(sc, obj, site_fields, COUNT(site_fields), &def)) return 0;
    if (!json_object_get(obj, "name")) return scene_fail_missing(sc, "name");
    if (!json_object_get(obj, "body")) return scene_fail_missing(sc, "body");
    READ_KEY(sc, obj, "name", scene_as_name, &def.name);
    READ_KEY(sc, obj, "body", as_body, &def.body);
    tp_status status = tp_builder_add_site(sc->builder, &def, NULL);
    if (status == TP_ERR_OUT_OF_MEMORY) return scene_fail_builder(sc, status);
    if (status != TP_OK) return fail_at_field(sc, obj, status);
    return 1;
}

int scene_read_sites(scene *sc, const json_t *root)
{
    const json_t *list = json_object_get(root, "sites");
    if (!list) return 1;
    scene_push_key(sc, "sites");
    if (sc->version < 2) return scene_pop(sc, scene_fail(sc, 1, "sites need \"version\": 2 (docs/scene-format.md)"));
    if (!json_is_array(list))
        return scene_pop(sc, scene_fail(sc, 0, "must be an array of sites, got %s", scene_json_kind(list)));
    int ok = 1;
    for (int i = 0; i < (int)json_array_size(list) && ok; ++i) {
        scene_push_index(sc, i);
        ok = scene_pop(sc, read_site(sc, json_array_get(list, i)));
    }
    return scene_pop(sc, ok);
}
