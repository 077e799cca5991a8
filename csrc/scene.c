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
 * the model settings scene_settings.c, the bodies scene_bodies.c, the joints
 * of version 2 scene_joints.c, the events scene_events.c. */
#define _POSIX_C_SOURCE 200809L /* strnlen under -std=c11 */
#include "error.h"
#include "scene_read.h"
#include "torpor.h"

#include <jansson.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failure of tp_builder_finish, at the element of the scene it names: the
 * builder's joints, constraints and events are the scene's, in order. */
static int fail_finish(scene *sc, tp_status status)
{
    int index = 0;
    const char *list = tp_failed_item(&index);
    if (!list) return scene_fail_builder(sc, status);
    scene_push_key(sc, list);
    scene_push_index(sc, index);
    int ok = scene_fail_builder(sc, status);
    scene_pop(sc, ok);
    return scene_pop(sc, ok);
}

static int load_root(scene *sc, const json_t *root, tp_model **out)
{
    if (!json_is_object(root)) return scene_fail(sc, 0, "a scene must be a JSON object, got %s", scene_json_kind(root));
    tp_model_def def;
    if (!scene_read_model_def(sc, root, &def)) return 0;
    tp_status status = tp_builder_create(&def, &sc->builder);
    if (status != TP_OK) return scene_fail_builder(sc, status);
    if (!scene_read_bodies(sc, root) || !scene_read_excludes(sc, root) || !scene_read_joints(sc, root) ||
        !scene_read_actuators(sc, root) || !scene_read_constraints(sc, root) || !scene_read_movers(sc, root) ||
        !scene_read_sites(sc, root) || !scene_read_keyframes(sc, root) || !scene_read_events(sc, root))
        return 0;
    status = tp_builder_finish(sc->builder, out);
    if (status != TP_OK) return fail_finish(sc, status);
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
