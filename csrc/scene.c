/* scene.c - load a model from a scene file (JSON, "torpor-scene" versions 1 and 2).
 *
 * docs/scene-format.md is the contract. The loader only reads and shapes the
 * JSON (keys, types, array lengths, names, which keys an action needs); numeric
 * ranges are checked by tp_*_def_check in model.c, the one place that holds
 * them, and their field paths are mapped back onto the document. The model is
 * built through the public builder, so a scene and the builder API produce the
 * same model. On any error nothing is returned and everything is freed.
 *
 * Every error reads "SOURCE:LINE:COL: PATH: REASON". jansson gives positions of
 * syntax errors; for the others the loader keeps the JSON path it is reading
 * and asks tp_json_locate (scene_positions.c) where that path sits in the text.
 * The reading helpers (paths, errors, values, field tables) are scene_read.c;
 * the joints of version 2 are scene_joints.c, the events scene_events.c. */
#define _POSIX_C_SOURCE 200809L /* strnlen under -std=c11 */
#include "articulation_host.h"
#include "error.h"
#include "hint.h"
#include "model.h"
#include "scene_positions.h"
#include "scene_read.h"
#include "torpor.h"

#include <jansson.h>

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- field tables */

/* Value names, indexed by the enum value of include/torpor.h (shapes: names.h). */
#define shape_names tp_shape_names
static const char *const mode_names[] = {"colored", "serial"};
static const char *const policy_names[] = {"island", "assembly"};
static const char *const measure_names[] = {"rad_per_s", "surface_speed"};
static const char *const generator_names[] = {"stack", "grid"};
_Static_assert(sizeof shape_names / sizeof shape_names[0] == TP_SHAPE_COUNT, "a shape lacks its name");
/* Enum fields are written through an int. */
_Static_assert(sizeof(tp_shape_type) == sizeof(int) && sizeof(tp_solver_mode) == sizeof(int) &&
                   sizeof(tp_sleep_policy) == sizeof(int) && sizeof(tp_angular_measure) == sizeof(int),
               "enums must be int-sized");


static const field model_fields[] = {
    OTHER("format"), OTHER("version"), OTHER("name"),
    FIELD("gravity", V_VEC3, tp_model_def, gravity), FIELD("dt", V_FLOAT, tp_model_def, dt),
    FIELD("substeps", V_INT, tp_model_def, substeps),
    OTHER("solver"), OTHER("sleep"), OTHER("bodies"), OTHER("randomize"), OTHER("events"), OTHER("joints"), OTHER("constraints"),
    OTHER("movers"), OTHER("exclude"), OTHER("actuators"), OTHER("sites")};

static const field solver_fields[] = {
    FIELD("iterations", V_INT, tp_solver_def, iterations),
    ENUM_FIELD("mode", tp_solver_def, mode, mode_names, "solver mode"),
    FIELD("restitution_threshold", V_FLOAT, tp_solver_def, restitution_threshold),
    FIELD("warm_starting", V_BOOL, tp_solver_def, warm_starting)};

static const field sleep_fields[] = {
    FIELD("enabled", V_BOOL, tp_sleep_def, enabled),
    ENUM_FIELD("policy", tp_sleep_def, policy, policy_names, "sleep policy"),
    FIELD("linear_threshold", V_FLOAT, tp_sleep_def, linear_threshold),
    FIELD("angular_threshold", V_FLOAT, tp_sleep_def, angular_threshold),
    FIELD("quiet_time", V_FLOAT, tp_sleep_def, quiet_time),
    ENUM_FIELD("angular_measure", tp_sleep_def, angular_measure, measure_names, "angular measure"),
    FIELD("accel_threshold", V_FLOAT, tp_sleep_def, accel_threshold),
    FIELD("require_support", V_BOOL, tp_sleep_def, require_support),
    FIELD("skip_constraints", V_BOOL, tp_sleep_def, skip_constraints), OTHER("assembly")};

/* sleep.assembly: the thresholds of the assembly policy (read_sleep_assembly). */
static const field assembly_fields[] = {
    FIELD("linear_velocity", V_FLOAT, tp_assembly_def, linear_velocity),
    FIELD("rotational_velocity", V_FLOAT, tp_assembly_def, rotational_velocity),
    FIELD("linear_acceleration", V_FLOAT, tp_assembly_def, linear_acceleration),
    FIELD("rotational_acceleration", V_FLOAT, tp_assembly_def, rotational_acceleration),
    FIELD("neighbour_linear_velocity", V_FLOAT, tp_assembly_def, neighbour_linear_velocity),
    FIELD("neighbour_rotational_velocity", V_FLOAT, tp_assembly_def, neighbour_rotational_velocity),
    FIELD("wake_linear_acceleration", V_FLOAT, tp_assembly_def, wake_linear_acceleration),
    FIELD("wake_rotational_acceleration", V_FLOAT, tp_assembly_def, wake_rotational_acceleration),
    FIELD("collision_wake_speed", V_FLOAT, tp_assembly_def, collision_wake_speed),
    FIELD("actuated_factor", V_FLOAT, tp_assembly_def, actuated_factor),
    FIELD("quiet_time", V_FLOAT, tp_assembly_def, quiet_time)};

static const char *const joint_noise_names[] = {"uniform", "normal"};
static const field randomize_fields[] = {
    OTHER("seed"), FIELD("pos_noise", V_FLOAT, tp_randomize_def, pos_noise),
    FIELD("yaw_noise_deg", V_FLOAT, tp_randomize_def, yaw_noise_deg),
    FIELD("mass_scale", V_VEC2, tp_randomize_def, mass_scale),
    FIELD("friction_range", V_VEC2, tp_randomize_def, friction_range),
    FIELD("joint_q_noise", V_FLOAT, tp_randomize_def, joint_q_noise),
    FIELD("joint_qd_noise", V_FLOAT, tp_randomize_def, joint_qd_noise),
    ENUM_FIELD("joint_noise", tp_randomize_def, joint_noise_normal, joint_noise_names, "joint noise distribution"),
    FIELD("joint_damping_scale", V_VEC2, tp_randomize_def, joint_damping_scale),
    FIELD("joint_armature_scale", V_VEC2, tp_randomize_def, joint_armature_scale),
    FIELD("joint_friction_scale", V_VEC2, tp_randomize_def, joint_friction_scale),
    FIELD("actuator_gear_scale", V_VEC2, tp_randomize_def, actuator_gear_scale),
    FIELD("actuator_kp_scale", V_VEC2, tp_randomize_def, actuator_kp_scale),
    FIELD("actuator_kv_scale", V_VEC2, tp_randomize_def, actuator_kv_scale)};

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

/* ---------------------------------------------------------------- model settings */

static int read_header(scene *sc, const json_t *root)
{
    const json_t *v = json_object_get(root, "format");
    if (v) {
        const char *s = NULL;
        scene_push_key(sc, "format");
        if (!scene_as_string(sc, v, &s)) return scene_pop(sc, 0);
        if (strcmp(s, "torpor-scene") != 0)
            return scene_pop(sc, scene_fail(sc, 0, "must be \"torpor-scene\", got \"%s\"", s));
        scene_pop(sc, 1);
    }
    v = json_object_get(root, "version");
    if (v) {
        json_int_t version = 0;
        scene_push_key(sc, "version");
        if (!scene_as_integer(sc, v, &version)) return scene_pop(sc, 0);
        if (version > 2)
            return scene_pop(sc, scene_fail(sc, 0, "this torpor reads versions 1 and 2, got %lld; upgrade torpor",
                                (long long)version));
        if (version < 1) return scene_pop(sc, scene_fail(sc, 0, "must be 1 or 2, got %lld", (long long)version));
        sc->version = (int)version;
        scene_pop(sc, 1);
    }
    return 1;
}

static int read_seed(scene *sc, const json_t *v, uint64_t *out)
{
    json_int_t seed = 0;
    if (!scene_as_integer(sc, v, &seed)) return 0;
    if (seed < 0) return scene_fail(sc, 0, "must be an integer >= 0, got %lld", (long long)seed);
    *out = (uint64_t)seed;
    return 1;
}

/* The object sleep.assembly, if present: its thresholds over the defaults. */
static int read_sleep_assembly(scene *sc, const json_t *root, tp_assembly_def *def)
{
    const json_t *sleep = json_object_get(root, "sleep");
    if (!sleep || !json_is_object(sleep)) return 1;
    scene_push_key(sc, "sleep");
    return scene_pop(sc, scene_read_section(sc, sleep, "assembly", assembly_fields, COUNT(assembly_fields), def));
}

static int read_model_def(scene *sc, const json_t *root, tp_model_def *def)
{
    *def = tp_default_model_def();
    if (!scene_read_fields(sc, root, model_fields, COUNT(model_fields), def)) return 0;
    if (!read_header(sc, root)) return 0;
    READ_KEY(sc, root, "name", scene_as_string, &def->name);
    if (!scene_read_section(sc, root, "solver", solver_fields, COUNT(solver_fields), &def->solver)) return 0;
    if (!scene_read_section(sc, root, "sleep", sleep_fields, COUNT(sleep_fields), &def->sleep)) return 0;
    if (!read_sleep_assembly(sc, root, &def->sleep.assembly)) return 0;
    if (!scene_read_section(sc, root, "randomize", randomize_fields, COUNT(randomize_fields), &def->randomize)) return 0;
    const json_t *randomize = json_object_get(root, "randomize");
    if (randomize) {
        scene_push_key(sc, "randomize");
        READ_KEY(sc, randomize, "seed", read_seed, &def->randomize.seed);
        def->randomize.has_friction_range = json_object_get(randomize, "friction_range") != NULL;
        scene_pop(sc, 1);
    }
    char field[64], reason[256];
    if (!tp_model_def_check(def, field, sizeof field, reason, sizeof reason))
        return scene_fail_check(sc, field, reason, NULL, NULL);
    return 1;
}

/* ---------------------------------------------------------------- bodies */

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

static int read_bodies(scene *sc, const json_t *root)
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
static int read_excludes(scene *sc, const json_t *root)
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

/* ---------------------------------------------------------------- loading */

static int load_root(scene *sc, const json_t *root, tp_model **out)
{
    if (!json_is_object(root)) return scene_fail(sc, 0, "a scene must be a JSON object, got %s", scene_json_kind(root));
    tp_model_def def;
    if (!read_model_def(sc, root, &def)) return 0;
    tp_status status = tp_builder_create(&def, &sc->builder);
    if (status != TP_OK) return scene_fail_builder(sc, status);
    if (!read_bodies(sc, root) || !read_excludes(sc, root) || !scene_read_joints(sc, root) ||
        !scene_read_actuators(sc, root) || !scene_read_constraints(sc, root) || !scene_read_movers(sc, root) ||
        !scene_read_sites(sc, root) || !scene_read_events(sc, root))
        return 0;
    status = tp_builder_finish(sc->builder, out);
    if (status != TP_OK) return scene_fail_builder(sc, status);
    return 1;
}

/* TP_ERR_CAPACITY for a scene past TP_MAX_SCENE_BYTES. */
static tp_status fail_too_large(const char *source, const char *what)
{
    char reason[256];
    snprintf(reason, sizeof reason, "%s more than %d bytes (64 MiB, TP_MAX_SCENE_BYTES), the largest scene torpor reads",
             what, TP_MAX_SCENE_BYTES);
    return tp_fail_at(TP_ERR_CAPACITY, source, 0, 0, "", reason);
}

/* TP_ERR_PARSE at the first NUL byte of the text, if any: JSON has none, and a
 * C string of the text would silently end there. */
static tp_status check_no_nul(const char *text, size_t len, const char *source)
{
    const char *nul = memchr(text, '\0', len);
    if (!nul) return TP_OK;
    int line = 1, column = 1;
    for (const char *c = text; c < nul; ++c) {
        if (*c == '\n') line++, column = 1;
        else column++;
    }
    char reason[128];
    snprintf(reason, sizeof reason, "a NUL byte at offset %zu; a scene is JSON text", (size_t)(nul - text));
    return tp_fail_at(TP_ERR_PARSE, source, line, column, "", reason);
}

/* Parse `len` bytes of `text` named `source`; `file`: the scene's path when it
 * came from a file (mesh files are found beside it), else NULL. */
static tp_status load_text(const char *text, size_t len, const char *source, const char *file, tp_model **out)
{
    if (len > (size_t)TP_MAX_SCENE_BYTES) return fail_too_large(source, "the scene has");
    tp_status nul = check_no_nul(text, len, source);
    if (nul != TP_OK) return nul;
    json_error_t error;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &error);
    if (!root) {
        char reason[256];
        snprintf(reason, sizeof reason, "malformed JSON: %s", error.text);
        return tp_fail_at(TP_ERR_PARSE, source, error.line < 1 ? 0 : error.line, error.column < 1 ? 1 : error.column,
                          "", reason);
    }
    scene sc;
    memset(&sc, 0, sizeof sc);
    sc.text = text;
    sc.source = source;
    sc.file = file;
    sc.version = 1;
    sc.names = json_object();
    tp_model *model = NULL;
    int ok = sc.names ? load_root(&sc, root, &model) : scene_fail_oom(&sc);
    tp_builder_destroy(sc.builder);
    json_decref(sc.names);
    json_decref(root);
    free(sc.bodies);
    free(sc.elements);
    scene_free_vertices(&sc);
    free(sc.worlds);
    if (!ok) return sc.status;
    *out = model;
    tp_clear_error(); /* a message from before must not read as this load's */
    return TP_OK;
}

tp_status tp_model_load_string(const char *json, const char *source, tp_model **out)
{
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_load_string: out is NULL");
    *out = NULL;
    if (!json) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_load_string: json is NULL");
    /* strnlen: a string past the limit is refused without scanning all of it */
    return load_text(json, strnlen(json, (size_t)TP_MAX_SCENE_BYTES + 1), source ? source : "<string>", NULL, out);
}

tp_status tp_model_load_buffer(const char *text, size_t len, const char *source, tp_model **out)
{
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_load_buffer: out is NULL");
    *out = NULL;
    if (!text && len > 0) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_load_buffer: text is NULL with len %zu", len);
    source = source ? source : "<string>";
    if (len > (size_t)TP_MAX_SCENE_BYTES) return fail_too_large(source, "the scene has");
    char *copy = malloc(len + 1); /* NUL-terminated, as the error locator reads it */
    if (!copy) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_model_load_buffer: out of memory for %zu bytes", len + 1);
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    tp_status status = load_text(copy, len, source, NULL, out);
    free(copy);
    return status;
}

/* "path: what: why" with the path kept apart for tp_last_error_info. */
static tp_status fail_io(tp_status status, const char *path, const char *what, const char *why)
{
    char reason[512];
    snprintf(reason, sizeof reason, "%s%s%s", what, why ? ": " : "", why ? why : "");
    return tp_fail_at(status, path, 0, 0, "", reason);
}

/* Read a whole file into a NUL-terminated buffer; past TP_MAX_SCENE_BYTES it
 * stops and fails (a stream may never end). */
static tp_status read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return fail_io(TP_ERR_IO, path, "cannot open", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && cap - n < 2) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) free(buf);
            buf = grown;
            cap *= 2;
        }
        if (!buf) {
            fclose(f);
            return fail_io(TP_ERR_OUT_OF_MEMORY, path, "out of memory while reading", NULL);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
        if (n > (size_t)TP_MAX_SCENE_BYTES) {
            fclose(f);
            free(buf);
            return fail_too_large(path, "the file has");
        }
    }
    int failed = ferror(f), saved_errno = errno;
    fclose(f);
    if (failed) {
        free(buf);
        return fail_io(TP_ERR_IO, path, "cannot read", strerror(saved_errno));
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return TP_OK;
}

/* An MJCF or URDF file: its scene as tp_import_scene writes it, loaded as
 * any scene (an error the loader finds in it is placed in that text, which
 * `torpor convert` writes out). */
static tp_status load_robot(const char *path, tp_model **out)
{
    char *json = NULL;
    tp_status status = tp_import_scene(path, &json, NULL);
    if (status != TP_OK) return status;
    size_t n = strlen(path) + 32;
    char *source = malloc(n);
    if (!source) {
        tp_free(json);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_model_load: out of memory");
    }
    snprintf(source, n, "%s (as a torpor scene)", path);
    status = load_text(json, strlen(json), source, path, out);
    free(source);
    tp_free(json);
    return status;
}

tp_status tp_model_load(const char *path, tp_model **out)
{
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_load: out is NULL");
    *out = NULL;
    if (!path) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_load: path is NULL");
    char *text = NULL;
    size_t len = 0;
    tp_status status = read_file(path, &text, &len);
    if (status != TP_OK) return status;
    if (tp_xml_kind_of(text) != TP_XML_NONE) status = load_robot(path, out);
    else status = load_text(text, len, path, path, out);
    free(text);
    return status;
}

/* The outcome of a load into the caller's record as well. */
static tp_status report_load(tp_status status, tp_error_info *error)
{
    if (error) tp_last_error_info(error); /* the load set or cleared the record */
    return status;
}

tp_status tp_model_load_with_error(const char *path, tp_model **out, tp_error_info *error)
{
    tp_status status = tp_model_load(path, out);
    return report_load(status, error);
}

tp_status tp_model_load_string_with_error(const char *json, const char *source, tp_model **out, tp_error_info *error)
{
    tp_status status = tp_model_load_string(json, source, out);
    return report_load(status, error);
}
