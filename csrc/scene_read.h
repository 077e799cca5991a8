/* scene_read.h - what the scene loader's files share (csrc/scene.c reads the
 * model, bodies and events, csrc/scene_joints.c the joints of version 2; the
 * reading helpers are csrc/scene_read.c): the loader's state, the field
 * tables that describe a JSON object, and the helpers that read values and
 * report errors as "SOURCE:LINE:COL: PATH: REASON" (docs/scene-format.md).
 * Internal to the library. */
#ifndef TP_SCENE_READ_H
#define TP_SCENE_READ_H

#include "names.h"
#include "scene_positions.h"
#include "torpor.h"

#include <jansson.h>
#include <stddef.h>

/* The deepest path the format has is 4 steps (events[i].worlds[j]); room to spare. */
#define SCENE_MAX_DEPTH 8

typedef struct scene {
    const char *text;   /* the document, to locate errors */
    const char *source; /* file name or the caller's label */
    tp_json_step path[SCENE_MAX_DEPTH];
    int depth;
    tp_status status;   /* of the first failure */
    tp_builder *builder;
    tp_body_def *bodies; /* [body_count] bodies added so far (names not kept), for event checks */
    int *elements;      /* [body_count] index of the JSON `bodies` element that made each body */
    int body_count, body_capacity;
    json_t *names;      /* body name -> body index */
    int *worlds;        /* scratch for one event's world list */
    int version;        /* the file's "version" (1 when absent) */
    tp_shape_def shape_buf[TP_MAX_BODY_SHAPES]; /* the shapes of the body being read (scene_shapes.c) */
    const char *file;   /* the scene file's path (mesh files are beside it), NULL for a string */
    float *vertex_buf[1 + TP_MAX_BODY_SHAPES]; /* convex vertices of the body being read: its own,
                                                  then its shapes' (scene_shapes.c) */
} scene;

typedef enum value_kind {
    V_FLOAT, V_DOUBLE, V_INT, V_BOOL, V_VEC2, V_VEC3, V_VEC4, V_ENUM,
    V_OTHER /* a valid key that the caller reads itself */
} value_kind;

/* One key of a JSON object: its kind and where it goes in the definition struct. */
typedef struct field {
    const char *key;
    value_kind kind;
    size_t offset;
    const char *const *names; /* V_ENUM */
    int name_count;
    const char *what;         /* V_ENUM: name of the kind in messages */
} field;

#define FIELD(key, kind, type, member) {key, kind, offsetof(type, member), NULL, 0, NULL}
#define ENUM_FIELD(key, type, member, names, what) \
    {key, V_ENUM, offsetof(type, member), names, (int)(sizeof names / sizeof names[0]), what}
#define OTHER(key) {key, V_OTHER, 0, NULL, 0, NULL}
#define COUNT(table) ((int)(sizeof table / sizeof table[0]))

/* Read an optional key of `obj` with a converter taking (scene, value, out);
 * on failure the enclosing reader returns 0. */
#define READ_KEY(sc, obj, key, conv, out)                                                  \
    do {                                                                                   \
        const json_t *v_ = json_object_get((obj), (key));                                  \
        if (v_) {                                                                          \
            scene_push_key((sc), (key));                                                         \
            if (!scene_pop((sc), conv((sc), v_, (out)))) return 0;                               \
        }                                                                                  \
    } while (0)

/* Paths: every reader pushes the key or index it descends into and pops it on
 * the way out; pop passes its argument through. */
void scene_push_key(scene *sc, const char *key);
void scene_push_index(scene *sc, int index);
int scene_pop(scene *sc, int ok);
int scene_fail(scene *sc, int at_key, const char *fmt, ...);
int scene_fail_oom(scene *sc);
int scene_fail_builder(scene *sc, tp_status status);
int scene_fail_check(scene *sc, const char *field, const char *reason, const char *pos_as, const char *body);
int scene_find_name(const char *word, const char *const *names, int count);
const char *scene_json_kind(const json_t *v);
int scene_as_float(scene *sc, const json_t *v, float *out);
int scene_as_double(scene *sc, const json_t *v, double *out);
int scene_as_integer(scene *sc, const json_t *v, json_int_t *out);
int scene_as_int(scene *sc, const json_t *v, int *out);
int scene_as_bool(scene *sc, const json_t *v, int *out);
int scene_as_string(scene *sc, const json_t *v, const char **out);
int scene_as_vec(scene *sc, const json_t *v, int n, float *out);
int scene_as_enum(scene *sc, const json_t *v, const char *const *names, int count, const char *what, int *out);
int scene_check_keys(scene *sc, const json_t *obj, const field *fields, int count);
int scene_read_fields(scene *sc, const json_t *obj, const field *fields, int count, void *def);
int scene_read_section(scene *sc, const json_t *parent, const char *key, const field *fields, int count, void *def);
int scene_fail_missing(scene *sc, const char *key);
/* Is `key` one of the NULL-terminated `keys`? (the keys a type uses: scene_constraints.c, scene_movers.c) */
int scene_key_in(const char *key, const char *const *keys);
/* A non-empty name; the body an event, a joint's parent or child names (scene_read.c). */
int scene_as_name(scene *sc, const json_t *v, const char **out);
int scene_as_body(scene *sc, const json_t *v, int *out);
/* A body's `shapes`, `com` and `inertia` (version 2) into def (scene_shapes.c);
 * def->shapes then points at sc->shape_buf until the next body is read. */
int scene_read_body_shapes(scene *sc, const json_t *obj, tp_body_def *def);
/* Free the vertex buffers (at the end of a load). */
void scene_free_vertices(scene *sc);
/* The top level and the model settings into *def, checked (scene_settings.c). */
int scene_read_model_def(scene *sc, const json_t *root, tp_model_def *def);
/* The "bodies" array (plain bodies and generators) added to sc->builder, and
 * the optional "exclude" pairs (scene_bodies.c). */
int scene_read_bodies(scene *sc, const json_t *root);
int scene_read_excludes(scene *sc, const json_t *root);
/* The optional "joints" array of a version 2 scene (scene_joints.c). */
int scene_read_joints(scene *sc, const json_t *root);
/* The optional "actuators" array of a version 2 scene (scene_actuators.c), after the joints. */
int scene_read_actuators(scene *sc, const json_t *root);
/* The optional "constraints" array of a version 2 scene (scene_constraints.c), after the joints. */
int scene_read_constraints(scene *sc, const json_t *root);
/* The optional "movers" array of a version 2 scene (scene_movers.c), after the constraints. */
int scene_read_movers(scene *sc, const json_t *root);
/* A mover's `target`: a number or 1 to 4 numbers (the rest 0) into out[4]. */
int scene_as_mover_target(scene *sc, const json_t *v, float *out);
/* The optional "sites" array of a version 2 scene (scene_sites.c), after the bodies. */
int scene_read_sites(scene *sc, const json_t *root);
/* The optional "keyframes" array of a version 2 scene (scene_keyframes.c),
 * after the joints and actuators, and the check of randomize.keyframe. */
int scene_read_keyframes(scene *sc, const json_t *root);
/* The optional "events" array (scene_events.c); the joints are read first. */
int scene_read_events(scene *sc, const json_t *root);

#endif
