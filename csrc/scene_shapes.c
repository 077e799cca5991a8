/* scene_shapes.c - the keys of a version 2 body that make it compound or give
 * its mass properties (docs/scene-format.md, "Compound bodies"): `shapes`,
 * `com` and `inertia`; and the points of a convex shape, `vertices` or
 * `mesh` with `scale` ("Convex shapes"), on a body or a shape. Values are checked by tp_body_shapes_check
 * (csrc/body_shapes.c) through tp_body_def_check, whose field paths
 * ("shapes[1].size[0]") scene_fail_check maps back onto the document. */
#include "scene_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void scene_free_vertices(scene *sc)
{
    for (int i = 0; i < 1 + TP_MAX_BODY_SHAPES; ++i) {
        free(sc->vertex_buf[i]);
        sc->vertex_buf[i] = NULL;
    }
}

/* `vertices`: an array of [x, y, z] points into a fresh buffer *out. */
static int read_vertex_array(scene *sc, const json_t *v, float **out, int *count)
{
    if (!json_is_array(v) || json_array_size(v) == 0)
        return scene_fail(sc, 0, "must be a non-empty array of [x, y, z] points, got %s", scene_json_kind(v));
    size_t n = json_array_size(v);
    if (n > TP_MAX_MESH_VERTICES)
        return scene_fail(sc, 0, "holds %zu points, more than TP_MAX_MESH_VERTICES (%d)", n, TP_MAX_MESH_VERTICES);
    *out = malloc(3 * n * sizeof **out);
    if (!*out) return scene_fail_oom(sc);
    for (size_t i = 0; i < n; ++i) {
        scene_push_index(sc, (int)i);
        if (!scene_pop(sc, scene_as_vec(sc, json_array_get(v, i), 3, *out + 3 * i))) return 0;
    }
    *count = (int)n;
    return 1;
}

/* `mesh`: a file name, relative to the scene file's folder (to the working
 * directory for a scene given as a string). */
static int read_mesh_file(scene *sc, const json_t *v, float **out, int *count)
{
    const char *name;
    if (!scene_as_string(sc, v, &name)) return 0;
    char path[4096];
    const char *slash = sc->file ? strrchr(sc->file, '/') : NULL;
    if (name[0] != '/' && slash)
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - sc->file), sc->file, name);
    else
        snprintf(path, sizeof path, "%s", name);
    tp_status st = tp_mesh_read(path, out, count);
    if (st != TP_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", tp_last_error());
        return scene_fail(sc, 0, "%s", why);
    }
    return 1;
}

/* `scale`: a number or [sx, sy, sz], > 0 each, multiplying the points. */
static int read_scale(scene *sc, const json_t *v, float scale[3])
{
    if (json_is_number(v)) {
        if (!scene_as_float(sc, v, &scale[0])) return 0;
        scale[1] = scale[2] = scale[0];
    } else if (!scene_as_vec(sc, v, 3, scale)) {
        return 0;
    }
    for (int k = 0; k < 3; ++k)
        if (!(scale[k] > 0.0f) || !isfinite(scale[k]))
            return scene_fail(sc, 0, "must be > 0 (a number or [sx, sy, sz]), got %g", (double)scale[k]);
    return 1;
}

/* The points of a convex shape from obj's `vertices` or `mesh`, times its
 * `scale`, into sc->vertex_buf[slot]; *vertices, *count point at them. Other
 * shapes must have none of these keys. */
static int read_convex_points(scene *sc, const json_t *obj, int shape, int slot, const float **vertices, int *count)
{
    static const char *const keys[] = {"vertices", "mesh", "scale"};
    const json_t *given = json_object_get(obj, "vertices"), *mesh = json_object_get(obj, "mesh");
    for (int k = 0; k < 3 && shape != TP_SHAPE_CONVEX; ++k)
        if (json_object_get(obj, keys[k])) {
            scene_push_key(sc, keys[k]);
            return scene_pop(sc, scene_fail(sc, 1, "only a \"convex\" shape takes \"%s\"", keys[k]));
        }
    if (shape != TP_SHAPE_CONVEX) return 1;
    if (sc->version < 2) {
        scene_push_key(sc, "shape");
        return scene_pop(sc, scene_fail(sc, 0, "\"convex\" needs \"version\": 2 (docs/scene-format.md)"));
    }
    if (given && mesh) {
        scene_push_key(sc, "mesh");
        return scene_pop(sc, scene_fail(sc, 1, "give either \"vertices\" or \"mesh\", not both"));
    }
    if (!given && !mesh) {
        scene_push_key(sc, "shape");
        return scene_pop(sc, scene_fail(sc, 0, "a \"convex\" shape needs \"vertices\" or \"mesh\""));
    }
    if (json_object_get(obj, "size")) {
        scene_push_key(sc, "size");
        return scene_pop(sc, scene_fail(sc, 1, "a \"convex\" shape takes no \"size\": its hull's box is its size"));
    }
    free(sc->vertex_buf[slot]);
    sc->vertex_buf[slot] = NULL;
    int n = 0;
    scene_push_key(sc, given ? "vertices" : "mesh");
    int ok = given ? read_vertex_array(sc, given, &sc->vertex_buf[slot], &n)
                   : read_mesh_file(sc, mesh, &sc->vertex_buf[slot], &n);
    if (!scene_pop(sc, ok)) return 0;
    float scale[3] = {1.0f, 1.0f, 1.0f};
    READ_KEY(sc, obj, "scale", read_scale, scale);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) sc->vertex_buf[slot][3 * i + k] *= scale[k];
    *vertices = sc->vertex_buf[slot];
    *count = n;
    return 1;
}

static const field shape_fields[] = {
    ENUM_FIELD("shape", tp_shape_def, shape, tp_shape_names, "shape"),
    FIELD("size", V_VEC3, tp_shape_def, size), FIELD("pos", V_VEC3, tp_shape_def, pos),
    FIELD("quat", V_VEC4, tp_shape_def, quat), FIELD("density", V_FLOAT, tp_shape_def, density),
    FIELD("sensor", V_BOOL, tp_shape_def, sensor), OTHER("vertices"), OTHER("mesh"), OTHER("scale")};

/* One element of `shapes`, the slot-th. */
static int read_shape(scene *sc, const json_t *obj, int slot, tp_shape_def *out)
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
    return read_convex_points(sc, obj, out->shape, 1 + slot, &out->vertices, &out->vertex_count);
}

static int read_shapes(scene *sc, const json_t *v, tp_body_def *def)
{
    if (!json_is_array(v)) return scene_fail(sc, 0, "must be an array of shapes, got %s", scene_json_kind(v));
    int n = (int)json_array_size(v);
    if (n < 1 || n > TP_MAX_BODY_SHAPES)
        return scene_fail(sc, 0, "must hold 1 to %d shapes, got %d", TP_MAX_BODY_SHAPES, n);
    for (int i = 0; i < n; ++i) {
        scene_push_index(sc, i);
        if (!scene_pop(sc, read_shape(sc, json_array_get(v, i), i, &sc->shape_buf[i]))) return 0;
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
    return read_convex_points(sc, obj, def->shape, 0, &def->vertices, &def->vertex_count);
}
