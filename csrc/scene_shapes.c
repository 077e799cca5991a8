/* scene_shapes.c - the keys of a version 2 body that make it compound or give
 * its mass properties (docs/scene-format.md, "Compound bodies"): `shapes`,
 * `com` and `inertia`. Values are checked by tp_body_shapes_check
 * (csrc/body_shapes.c) through tp_body_def_check, whose field paths
 * ("shapes[1].size[0]") scene_fail_check maps back onto the document. */
#include "scene_read.h"

#include <string.h>

static const field shape_fields[] = {
    ENUM_FIELD("shape", tp_shape_def, shape, scene_shape_names, "shape"),
    FIELD("size", V_VEC3, tp_shape_def, size), FIELD("pos", V_VEC3, tp_shape_def, pos),
    FIELD("quat", V_VEC4, tp_shape_def, quat), FIELD("density", V_FLOAT, tp_shape_def, density)};

/* One element of `shapes`. */
static int read_shape(scene *sc, const json_t *obj, tp_shape_def *out)
{
    if (!json_is_object(obj)) return scene_fail(sc, 0, "must be an object (a shape), got %s", scene_json_kind(obj));
    *out = tp_default_shape_def();
    if (!scene_read_fields(sc, obj, shape_fields, COUNT(shape_fields), out)) return 0;
    if (json_object_get(obj, "density")) {
        scene_push_key(sc, "density");
        /* the API lets 0 mean "the body's density"; a scene that writes a density means it */
        if (!(out->density > 0.0f))
            return scene_pop(sc, scene_fail(sc, 0, "must be > 0 kg/m^3, got %g", (double)out->density));
        scene_pop(sc, 1);
    }
    return 1;
}

static int read_shapes(scene *sc, const json_t *v, tp_body_def *def)
{
    if (!json_is_array(v)) return scene_fail(sc, 0, "must be an array of shapes, got %s", scene_json_kind(v));
    int n = (int)json_array_size(v);
    if (n < 1 || n > TP_MAX_BODY_SHAPES)
        return scene_fail(sc, 0, "must hold 1 to %d shapes, got %d", TP_MAX_BODY_SHAPES, n);
    for (int i = 0; i < n; ++i) {
        scene_push_index(sc, i);
        if (!scene_pop(sc, read_shape(sc, json_array_get(v, i), &sc->shape_buf[i]))) return 0;
    }
    def->shapes = sc->shape_buf;
    def->shape_count = n;
    return 1;
}

/* `inertia`: 3 numbers (the diagonal) or 6 (xx yy zz xy xz yz). */
static int read_inertia(scene *sc, const json_t *v, tp_body_def *def)
{
    if (!json_is_array(v))
        return scene_fail(sc, 0, "must be an array of 3 numbers (the diagonal) or 6 (xx yy zz xy xz yz), got %s",
                          scene_json_kind(v));
    int n = (int)json_array_size(v);
    if (n != 3 && n != 6)
        return scene_fail(sc, 0, "must be an array of 3 numbers (the diagonal) or 6 (xx yy zz xy xz yz), got %d", n);
    memset(def->inertia, 0, sizeof def->inertia);
    if (!scene_as_vec(sc, v, n, def->inertia)) return 0;
    def->has_inertia = 1;
    return 1;
}

static int read_com(scene *sc, const json_t *v, tp_body_def *def)
{
    if (!scene_as_vec(sc, v, 3, def->com)) return 0;
    def->has_com = 1;
    return 1;
}

int scene_read_body_shapes(scene *sc, const json_t *obj, tp_body_def *def)
{
    static const char *const keys[] = {"shapes", "com", "inertia"};
    for (int k = 0; k < 3; ++k)
        if (json_object_get(obj, keys[k]) && sc->version < 2) {
            scene_push_key(sc, keys[k]);
            return scene_pop(sc, scene_fail(sc, 1, "\"%s\" needs \"version\": 2 (docs/scene-format.md)", keys[k]));
        }
    if (json_object_get(obj, "shapes")) {
        scene_push_key(sc, "shapes");
        if (json_object_get(obj, "shape") || json_object_get(obj, "size"))
            return scene_pop(sc, scene_fail(sc, 1, "give either \"shape\" and \"size\" or \"shapes\", not both"));
        if (!scene_pop(sc, read_shapes(sc, json_object_get(obj, "shapes"), def))) return 0;
    }
    READ_KEY(sc, obj, "com", read_com, def);
    READ_KEY(sc, obj, "inertia", read_inertia, def);
    return 1;
}
