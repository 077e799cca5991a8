/* scene_read.c - the scene loader's reading helpers: the JSON path of the
 * value being read, errors at that path with file:line:col, values of each
 * kind with their range checks, and objects read through field tables
 * (csrc/scene_read.h). */
#include "scene_read.h"

#include "error.h"
#include "hint.h"

#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- paths and errors */

void scene_push_key(scene *sc, const char *key)
{
    assert(sc->depth < SCENE_MAX_DEPTH);
    sc->path[sc->depth].key = key;
    sc->path[sc->depth].index = -1;
    sc->depth++;
}

void scene_push_index(scene *sc, int index)
{
    assert(sc->depth < SCENE_MAX_DEPTH);
    sc->path[sc->depth].key = NULL;
    sc->path[sc->depth].index = index;
    sc->depth++;
}

/* Pop one step and pass `ok` through, so a reader can end with `return scene_pop(sc, ok)`. */
int scene_pop(scene *sc, int ok)
{
    sc->depth--;
    return ok;
}

static void scene_render_path(const scene *sc, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < sc->depth && at < len; ++i) {
        const tp_json_step *s = &sc->path[i];
        int n = s->key ? snprintf(out + at, len - at, "%s%s", i ? "." : "", s->key)
                       : snprintf(out + at, len - at, "[%d]", s->index);
        if (n < 0) break;
        at += (size_t)n;
    }
}

/* Fail with `status` at the current path: at the value, or at its key when
 * `at_key` is set; the file, place, field and reason go to the error record
 * in parts (tp_last_error_info). Returns 0. */
static int scene_fail_status(scene *sc, tp_status status, int at_key, const char *reason)
{
    char path[256];
    scene_render_path(sc, path, sizeof path);
    int line, col;
    tp_json_locate(sc->text, sc->path, sc->depth, at_key, &line, &col);
    sc->status = tp_fail_at(status, sc->source, line, col, path, reason);
    return 0;
}

/* Fail with TP_ERR_PARSE; returns 0 so readers can `return scene_fail(...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int scene_fail(scene *sc, int at_key, const char *fmt, ...)
{
    char reason[768];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    return scene_fail_status(sc, TP_ERR_PARSE, at_key, reason);
}

int scene_fail_oom(scene *sc)
{
    sc->status = tp_fail(TP_ERR_OUT_OF_MEMORY, "%s: out of memory while loading the scene", sc->source);
    return 0;
}

/* A builder call failed after the loader's own checks passed (a capacity, or
 * memory): report its message at the current path, keeping an out-of-memory status. */
int scene_fail_builder(scene *sc, tp_status status)
{
    char message[512];
    snprintf(message, sizeof message, "%s", tp_last_error());
    return scene_fail_status(sc, status == TP_ERR_OUT_OF_MEMORY ? status : TP_ERR_PARSE, 0, message);
}

/* Report a failed tp_*_def_check: `field` ("size[1]", "solver.iterations") is
 * relative to the current path. For generated bodies `pos_as` names the key
 * that positions come from ("base"), and `body` the generated body. */
int scene_fail_check(scene *sc, const char *field, const char *reason, const char *pos_as, const char *body)
{
    char keys[SCENE_MAX_DEPTH][64];
    int nk = 0;
    int renamed = 0;
    for (const char *p = field; *p && sc->depth < SCENE_MAX_DEPTH;) {
        if (*p == '.') {
            p++;
        } else if (*p == '[') {
            char *end;
            scene_push_index(sc, (int)strtol(p + 1, &end, 10));
            p = *end == ']' ? end + 1 : end;
        } else {
            size_t len = strcspn(p, ".[");
            snprintf(keys[nk], sizeof keys[nk], "%.*s", (int)len, p);
            if (nk == 0 && pos_as && strcmp(keys[0], "pos") == 0) {
                snprintf(keys[0], sizeof keys[0], "%s", pos_as);
                renamed = 1;
            }
            scene_push_key(sc, keys[nk++]);
            p += len;
        }
    }
    if (renamed) return scene_fail(sc, 0, "generated body \"%s\": %s", body, reason);
    return scene_fail(sc, 0, "%s", reason);
}

/* ---------------------------------------------------------------- names and hints */

int scene_find_name(const char *word, const char *const *names, int count)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(word, names[i]) == 0) return i;
    return -1;
}

/* ---------------------------------------------------------------- values */

const char *scene_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER:
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "value";
}

/* The converters below read the value at the current path. */

int scene_as_float(scene *sc, const json_t *v, float *out)
{
    if (!json_is_number(v)) return scene_fail(sc, 0, "must be a number, got %s", scene_json_kind(v));
    double d = json_number_value(v); /* finite: jansson refuses what overflows a double */
    if (fabs(d) > FLT_MAX) return scene_fail(sc, 0, "out of float range (magnitude up to %g), got %g", FLT_MAX, d);
    *out = (float)d;
    return 1;
}

int scene_as_double(scene *sc, const json_t *v, double *out)
{
    if (!json_is_number(v)) return scene_fail(sc, 0, "must be a number, got %s", scene_json_kind(v));
    *out = json_number_value(v);
    return 1;
}

int scene_as_integer(scene *sc, const json_t *v, json_int_t *out)
{
    if (json_is_real(v)) {
        /* 4.0 is the integer 4 (JSON writers often print whole numbers so);
         * 4.5, and values past +-2^53 where a double skips integers, are not. */
        double d = json_real_value(v);
        if (!(d == floor(d) && fabs(d) <= 9007199254740992.0))
            return scene_fail(sc, 0, "must be an integer, got %.17g", d);
        *out = (json_int_t)d;
        return 1;
    }
    if (!json_is_integer(v)) return scene_fail(sc, 0, "must be an integer, got %s", scene_json_kind(v));
    *out = json_integer_value(v);
    return 1;
}

int scene_as_int(scene *sc, const json_t *v, int *out)
{
    json_int_t i = 0;
    if (!scene_as_integer(sc, v, &i)) return 0;
    if (i < INT_MIN || i > INT_MAX) return scene_fail(sc, 0, "out of range for an int, got %lld", (long long)i);
    *out = (int)i;
    return 1;
}

int scene_as_bool(scene *sc, const json_t *v, int *out)
{
    if (!json_is_boolean(v)) return scene_fail(sc, 0, "must be true or false, got %s", scene_json_kind(v));
    *out = json_is_true(v);
    return 1;
}

int scene_as_string(scene *sc, const json_t *v, const char **out)
{
    if (!json_is_string(v)) return scene_fail(sc, 0, "must be a string, got %s", scene_json_kind(v));
    *out = json_string_value(v);
    return 1;
}

/* A fixed-length array of numbers. */
int scene_as_vec(scene *sc, const json_t *v, int n, float *out)
{
    if (!json_is_array(v)) return scene_fail(sc, 0, "must be an array of %d numbers, got %s", n, scene_json_kind(v));
    if ((int)json_array_size(v) != n)
        return scene_fail(sc, 0, "must have %d elements, got %d", n, (int)json_array_size(v));
    for (int i = 0; i < n; ++i) {
        scene_push_index(sc, i);
        if (!scene_pop(sc, scene_as_float(sc, json_array_get(v, i), &out[i]))) return 0;
    }
    return 1;
}

/* A string naming one of `count` values; `what` names the kind in messages. */
int scene_as_enum(scene *sc, const json_t *v, const char *const *names, int count, const char *what, int *out)
{
    const char *s = NULL;
    if (!scene_as_string(sc, v, &s)) return 0;
    int i = scene_find_name(s, names, count);
    if (i < 0) {
        char h[512];
        tp_hint_text(s, names, count, h, sizeof h);
        return scene_fail(sc, 0, "unknown %s \"%s\"%s", what, s, h);
    }
    *out = i;
    return 1;
}

/* Every key of `obj` must be one of `fields`; the first that is not is reported at the key. */
int scene_check_keys(scene *sc, const json_t *obj, const field *fields, int count)
{
    const char *names[32];
    assert(count <= 32);
    for (int i = 0; i < count; ++i) names[i] = fields[i].key;
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)obj, key, value) {
        if (scene_find_name(key, names, count) < 0) {
            char h[512];
            tp_hint_text(key, names, count, h, sizeof h);
            scene_push_key(sc, key);
            return scene_pop(sc, scene_fail(sc, 1, "unknown key%s", h));
        }
    }
    return 1;
}

static int scene_read_value(scene *sc, const json_t *v, const field *f, char *out)
{
    switch (f->kind) {
    case V_FLOAT: return scene_as_float(sc, v, (float *)out);
    case V_DOUBLE: return scene_as_double(sc, v, (double *)out);
    case V_INT: return scene_as_int(sc, v, (int *)out);
    case V_BOOL: return scene_as_bool(sc, v, (int *)out);
    case V_VEC2: return scene_as_vec(sc, v, 2, (float *)out);
    case V_VEC3: return scene_as_vec(sc, v, 3, (float *)out);
    case V_VEC4: return scene_as_vec(sc, v, 4, (float *)out);
    case V_ENUM: return scene_as_enum(sc, v, f->names, f->name_count, f->what, (int *)out);
    case V_OTHER: return 1;
    }
    return 1;
}

/* Check the keys of `obj` and read every field present into the struct at `def`;
 * absent fields keep their defaults. */
int scene_read_fields(scene *sc, const json_t *obj, const field *fields, int count, void *def)
{
    if (!scene_check_keys(sc, obj, fields, count)) return 0;
    for (int i = 0; i < count; ++i) {
        const json_t *v = json_object_get(obj, fields[i].key);
        if (!v) continue;
        scene_push_key(sc, fields[i].key);
        if (!scene_pop(sc, scene_read_value(sc, v, &fields[i], (char *)def + fields[i].offset))) return 0;
    }
    return 1;
}

/* Read the object `key` of `parent`, if present, with read_fields. */
int scene_read_section(scene *sc, const json_t *parent, const char *key, const field *fields, int count, void *def)
{
    const json_t *obj = json_object_get(parent, key);
    if (!obj) return 1;
    scene_push_key(sc, key);
    if (!json_is_object(obj)) return scene_pop(sc, scene_fail(sc, 0, "must be an object, got %s", scene_json_kind(obj)));
    return scene_pop(sc, scene_read_fields(sc, obj, fields, count, def));
}

int scene_fail_missing(scene *sc, const char *key)
{
    scene_push_key(sc, key);
    return scene_pop(sc, scene_fail(sc, 0, "required key is missing"));
}

int scene_as_name(scene *sc, const json_t *v, const char **out)
{
    if (!scene_as_string(sc, v, out)) return 0;
    if ((*out)[0] == '\0') return scene_fail(sc, 0, "must not be empty");
    return 1;
}

/* A body named by the scene; an unknown name gets the nearest one as a hint. */
int scene_as_body(scene *sc, const json_t *v, int *out)
{
    const char *name = NULL;
    if (!scene_as_string(sc, v, &name)) return 0;
    const json_t *index = json_object_get(sc->names, name);
    if (index) {
        *out = (int)json_integer_value(index);
        return 1;
    }
    tp_hint h = {name, NULL, 0};
    const char *key;
    json_t *value;
    json_object_foreach(sc->names, key, value) tp_hint_consider(&h, key);
    if (h.best) return scene_fail(sc, 0, "unknown body \"%s\"; did you mean \"%s\"?", name, h.best);
    return scene_fail(sc, 0, "unknown body \"%s\"; no body of the scene has that name", name);
}

int scene_key_in(const char *key, const char *const *keys)
{
    for (; *keys; ++keys)
        if (strcmp(key, *keys) == 0) return 1;
    return 0;
}
