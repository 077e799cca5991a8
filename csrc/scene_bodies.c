/* scene_bodies.c - a scene's bodies: plain bodies, the stack and grid
 * generators, and the collision exclusions between bodies
 * (docs/scene-format.md, "Bodies"). Ranges are checked by tp_body_def_check
 * (csrc/model_check.c). */
#include "error.h"
#include "model.h"
#include "names.h"
#include "scene_read.h"
#include "torpor.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Value names (shapes: names.h). */
#define shape_names tp_shape_names
static const char *const generator_names[] = {"stack", "grid"};
_Static_assert(sizeof shape_names / sizeof shape_names[0] == TP_SHAPE_COUNT, "a shape lacks its name");

/* Keys of a body other than its position, shared by plain bodies and
 * generators (split so that messages list them in a natural order). */
#define BODY_HEAD_FIELDS \
    OTHER("name"), ENUM_FIELD("shape", tp_body_def, shape, shape_names, "shape"), FIELD("size", V_VEC3, tp_body_def, size)
#define BODY_TAIL_FIELDS                                                                            \
    FIELD("quat", V_VEC4, tp_body_def, quat), FIELD("vel", V_VEC3, tp_body_def, vel),               \
        FIELD("ang_vel", V_VEC3, tp_body_def, ang_vel), FIELD("density", V_FLOAT, tp_body_def, density), \
        FIELD("mass", V_FLOAT, tp_body_def, mass), FIELD("friction", V_FLOAT, tp_body_def, friction), \
        FIELD("restitution", V_FLOAT, tp_body_def, restitution), OTHER("static"), OTHER("kinematic"), \
        FIELD("actuated", V_BOOL, tp_body_def, actuated), FIELD("sensor", V_BOOL, tp_body_def, sensor), \
        OTHER("shapes"), OTHER("com"), OTHER("inertia"), \
        OTHER("vertices"), OTHER("mesh"), OTHER("scale"), FIELD("contype", V_INT, tp_body_def, contype), \
        FIELD("conaffinity", V_INT, tp_body_def, conaffinity)

static const field body_fields[] = {BODY_HEAD_FIELDS, FIELD("pos", V_VEC3, tp_body_def, pos), BODY_TAIL_FIELDS};
static const field stack_fields[] = {OTHER("generate"), OTHER("count"), OTHER("base"), OTHER("step"),
                                     BODY_HEAD_FIELDS, BODY_TAIL_FIELDS};
static const field grid_fields[] = {OTHER("generate"), OTHER("count"), OTHER("base"), OTHER("spacing"),
                                    BODY_HEAD_FIELDS, BODY_TAIL_FIELDS};

/* Everything of a body but its name and position, from a plain body or a generator. */
static int read_body_common(scene *sc, const json_t *obj, const field *fields, int count, tp_body_def *def)
{
    *def = tp_default_body_def();
    if (!scene_read_fields(sc, obj, fields, count, def)) return 0;
    int is_static = 0, is_kinematic = 0;
    READ_KEY(sc, obj, "static", scene_as_bool, &is_static);
    READ_KEY(sc, obj, "kinematic", scene_as_bool, &is_kinematic);
    if (is_static && is_kinematic) {
        scene_push_key(sc, "kinematic");
        return scene_pop(sc, scene_fail(sc, 1, "a body cannot be both \"static\" and \"kinematic\""));
    }
    def->type = is_static ? TP_BODY_STATIC : is_kinematic ? TP_BODY_KINEMATIC : TP_BODY_DYNAMIC;
    if (json_object_get(obj, "mass")) {
        scene_push_key(sc, "mass");
        if (json_object_get(obj, "density"))
            return scene_pop(sc, scene_fail(sc, 1, "give either \"density\" or \"mass\", not both"));
        /* model.c lets mass 0 mean "use density"; a scene that writes a mass means it. */
        if (!(def->mass > 0.0f)) return scene_pop(sc, scene_fail(sc, 0, "must be > 0 kg, got %g", (double)def->mass));
        scene_pop(sc, 1);
    }
    return scene_read_body_shapes(sc, obj, def);
}

static int grow_bodies(scene *sc)
{
    int cap = sc->body_capacity ? 2 * sc->body_capacity : 64;
    tp_body_def *bodies = realloc(sc->bodies, (size_t)cap * sizeof *bodies);
    if (!bodies) return 0;
    sc->bodies = bodies;
    int *elements = realloc(sc->elements, (size_t)cap * sizeof *elements);
    if (!elements) return 0;
    sc->elements = elements;
    sc->body_capacity = cap;
    return 1;
}

/* Validate one body and add it under `name` (NULL: "body<index>"). `element` is
 * the index in the JSON `bodies` array; `pos_as` is set for generated bodies. */
static int add_body(scene *sc, tp_body_def *def, const char *name, int element, const char *pos_as)
{
    char auto_name[32], field[64], reason[256];
    snprintf(auto_name, sizeof auto_name, "body%d", sc->body_count);
    def->name = name ? name : auto_name;
    if (!tp_body_def_check(def, field, sizeof field, reason, sizeof reason))
        return scene_fail_check(sc, field, reason, pos_as, def->name);
    const json_t *other = json_object_get(sc->names, def->name);
    if (other) {
        scene_push_key(sc, "name");
        return scene_pop(sc, scene_fail(sc, 0, "duplicate body name \"%s\"; bodies[%d] already has it", def->name,
                            sc->elements[json_integer_value(other)]));
    }
    if (strcmp(def->name, TP_WORLD_NAME) == 0) {
        scene_push_key(sc, "name");
        return scene_pop(sc, scene_fail(sc, 0, "\"%s\" is reserved: a joint's parent \"%s\" is the world; "
                                               "rename the body", TP_WORLD_NAME, TP_WORLD_NAME));
    }
    if (sc->body_count == sc->body_capacity && !grow_bodies(sc)) return scene_fail_oom(sc);
    if (json_object_set_new(sc->names, def->name, json_integer(sc->body_count)) != 0) return scene_fail_oom(sc);
    tp_status status = tp_builder_add_body(sc->builder, def, NULL);
    if (status != TP_OK) return scene_fail_builder(sc, status);
    sc->bodies[sc->body_count] = *def;
    sc->bodies[sc->body_count].name = NULL; /* points at a buffer that does not outlive this call */
    sc->bodies[sc->body_count].shapes = NULL; /* so do the shapes (the builder copied them) */
    sc->bodies[sc->body_count].vertices = NULL; /* and the vertices */
    sc->elements[sc->body_count] = element;
    sc->body_count++;
    return 1;
}

static int read_plain_body(scene *sc, const json_t *obj, int element)
{
    tp_body_def def;
    if (!read_body_common(sc, obj, body_fields, COUNT(body_fields), &def)) return 0;
    const char *name = NULL;
    READ_KEY(sc, obj, "name", scene_as_name, &name);
    return add_body(sc, &def, name, element, NULL);
}

static int as_vec3(scene *sc, const json_t *v, float *out) { return scene_as_vec(sc, v, 3, out); }

/* A generator's body count: an integer in [1, TP_MAX_BODIES_PER_WORLD], so
 * that a grid's product nx ny nz (at most 2^45) cannot overflow. */
static int as_count(scene *sc, const json_t *v, int *out)
{
    if (!scene_as_int(sc, v, out)) return 0;
    if (*out < 1 || *out > TP_MAX_BODIES_PER_WORLD)
        return scene_fail(sc, 0, "must be in [1, %d] (a world holds at most %d bodies), got %d", TP_MAX_BODIES_PER_WORLD,
                    TP_MAX_BODIES_PER_WORLD, *out);
    return 1;
}

/* A grid's counts [nx, ny, nz]. */
static int as_counts(scene *sc, const json_t *v, int *out)
{
    if (!json_is_array(v)) return scene_fail(sc, 0, "must be an array of 3 integers, got %s", scene_json_kind(v));
    if (json_array_size(v) != 3) return scene_fail(sc, 0, "must have 3 elements, got %d", (int)json_array_size(v));
    for (int i = 0; i < 3; ++i) {
        scene_push_index(sc, i);
        if (!scene_pop(sc, as_count(sc, json_array_get(v, i), &out[i]))) return 0;
    }
    return 1;
}

/* Add the bodies of a generator: a stack (counts {n, 1, 1}) puts body i at
 * base + i * step, a grid body (ix, iy, iz) at base + (ix, iy, iz) * spacing
 * componentwise, x fastest; float arithmetic, as documented. Names
 * are the `name` prefix followed by the running number i from 0, or the default
 * "body<index>" without a prefix. */
static int add_generated(scene *sc, const tp_body_def *common, const char *prefix, int grid, const int counts[3],
                         const float base[3], const float step[3], int element)
{
    char *name = NULL;
    if (prefix) {
        name = malloc(strlen(prefix) + 16);
        if (!name) return scene_fail_oom(sc);
    }
    int ok = 1;
    for (int iz = 0, i = 0; ok && iz < counts[2]; ++iz)
        for (int iy = 0; ok && iy < counts[1]; ++iy)
            for (int ix = 0; ok && ix < counts[0]; ++ix, ++i) {
                tp_body_def def = *common;
                const float at[3] = {(float)ix, (float)iy, (float)iz};
                for (int k = 0; k < 3; ++k) def.pos[k] = base[k] + (grid ? at[k] : (float)i) * step[k];
                if (name) sprintf(name, "%s%d", prefix, i);
                ok = add_body(sc, &def, name, element, "base");
            }
    free(name);
    return ok;
}

static int read_generator(scene *sc, const json_t *obj, int element)
{
    int kind = 0;
    scene_push_key(sc, "generate");
    if (!scene_pop(sc, scene_as_enum(sc, json_object_get(obj, "generate"), generator_names, COUNT(generator_names),
                         "generator", &kind)))
        return 0;
    int grid = kind == 1;
    const char *step_key = grid ? "spacing" : "step";
    if (json_object_get(obj, "pos")) {
        scene_push_key(sc, "pos");
        return scene_pop(sc, scene_fail(sc, 1, "a generator places its bodies by \"base\" and \"%s\"; it takes no \"pos\"",
                            step_key));
    }
    tp_body_def def;
    if (!read_body_common(sc, obj, grid ? grid_fields : stack_fields, grid ? COUNT(grid_fields) : COUNT(stack_fields),
                          &def))
        return 0;
    const char *prefix = NULL;
    float base[3] = {0.0f, 0.0f, 0.0f}, step[3] = {0.0f, 0.0f, 0.0f};
    int counts[3] = {1, 1, 1};
    READ_KEY(sc, obj, "name", scene_as_string, &prefix);
    READ_KEY(sc, obj, "base", as_vec3, base);
    if (!json_object_get(obj, "count")) return scene_fail_missing(sc, "count");
    if (grid) READ_KEY(sc, obj, "count", as_counts, counts);
    else READ_KEY(sc, obj, "count", as_count, &counts[0]);
    if (!json_object_get(obj, step_key)) return scene_fail_missing(sc, step_key);
    READ_KEY(sc, obj, step_key, as_vec3, step);
    long long total = (long long)counts[0] * counts[1] * counts[2]; /* <= 2^45: each count is <= 2^15 */
    if (total + sc->body_count > TP_MAX_BODIES_PER_WORLD) {
        scene_push_key(sc, "count");
        return scene_pop(sc, scene_fail(sc, 0, "makes %lld bodies after %d others; a world holds at most %d", total,
                            sc->body_count, TP_MAX_BODIES_PER_WORLD));
    }
    return add_generated(sc, &def, prefix, grid, counts, base, step, element);
}

int scene_read_bodies(scene *sc, const json_t *root)
{
    const json_t *bodies = json_object_get(root, "bodies");
    if (!bodies) return scene_fail_missing(sc, "bodies");
    scene_push_key(sc, "bodies");
    if (!json_is_array(bodies)) return scene_pop(sc, scene_fail(sc, 0, "must be an array of bodies, got %s", scene_json_kind(bodies)));
    if (json_array_size(bodies) == 0) return scene_pop(sc, scene_fail(sc, 0, "must hold at least one body"));
    for (int i = 0; i < (int)json_array_size(bodies); ++i) {
        const json_t *obj = json_array_get(bodies, i);
        scene_push_index(sc, i);
        int ok;
        if (!json_is_object(obj)) ok = scene_fail(sc, 0, "must be an object (a body or a generator), got %s", scene_json_kind(obj));
        else if (json_object_get(obj, "generate")) ok = read_generator(sc, obj, i);
        else ok = read_plain_body(sc, obj, i);
        if (!scene_pop(sc, ok)) return scene_pop(sc, 0);
    }
    return scene_pop(sc, 1);
}

/* `exclude`: pairs of body names that never collide (tp_builder_exclude_pair). */
int scene_read_excludes(scene *sc, const json_t *root)
{
    const json_t *list = json_object_get(root, "exclude");
    if (!list) return 1;
    scene_push_key(sc, "exclude");
    if (!json_is_array(list)) return scene_pop(sc, scene_fail(sc, 0, "must be an array of body name pairs, got %s",
                                                              scene_json_kind(list)));
    for (size_t i = 0; i < json_array_size(list); ++i) {
        const json_t *pair = json_array_get(list, i);
        scene_push_index(sc, (int)i);
        if (!json_is_array(pair) || json_array_size(pair) != 2)
            return scene_pop(sc, scene_pop(sc, scene_fail(sc, 0, "must be a pair of body names")));
        int body[2];
        for (int k = 0; k < 2; ++k) {
            scene_push_index(sc, k);
            if (!scene_pop(sc, scene_as_body(sc, json_array_get(pair, (size_t)k), &body[k])))
                return scene_pop(sc, scene_pop(sc, 0));
        }
        tp_status status = tp_builder_exclude_pair(sc->builder, body[0], body[1]);
        if (status != TP_OK) return scene_pop(sc, scene_pop(sc, scene_fail_builder(sc, status)));
        scene_pop(sc, 1);
    }
    return scene_pop(sc, 1);
}

