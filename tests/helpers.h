/* helpers.h - small builders shared by the tests. */
#ifndef TP_TEST_HELPERS_H
#define TP_TEST_HELPERS_H

#include "torpor.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A model of `n` dynamic unit cubes of 1 kg at (0, 0, z0 + 2 i), no ground. */
/* A world selection in place: an index list (count rows) or a byte mask. */
#define WORLD_LIST(indices, count) (&(tp_world_select){(indices), (count), NULL})
#define WORLD_MASK(mask) (&(tp_world_select){NULL, 0, (mask)})

static inline tp_model *make_falling_model(int n, float z0, const float gravity[3])
{
    tp_model_def md = tp_default_model_def();
    md.name = "falling";
    if (gravity) memcpy(md.gravity, gravity, sizeof md.gravity);
    tp_builder *b = NULL;
    cr_assert_eq(tp_builder_create(&md, &b), TP_OK, "%s", tp_last_error());
    for (int i = 0; i < n; ++i) {
        tp_body_def bd = tp_default_body_def();
        bd.mass = 1.0f;
        bd.pos[2] = z0 + 2.0f * (float)i;
        bd.pos[0] = 3.0f * (float)i;
        cr_assert_eq(tp_builder_add_body(b, &bd, NULL), TP_OK, "%s", tp_last_error());
    }
    tp_model *m = NULL;
    cr_assert_eq(tp_builder_finish(b, &m), TP_OK, "%s", tp_last_error());
    tp_builder_destroy(b);
    return m;
}

/* A batch of `worlds` worlds; TORPOR_TEST_BACKEND=cuda (tests/gpu/run.sh) runs it on the GPU. */
static inline tp_batch *make_batch(const tp_model *m, int worlds, int threads)
{
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = worlds;
    bd.threads = threads;
    const char *backend = getenv("TORPOR_TEST_BACKEND");
    if (backend && strcmp(backend, "cuda") == 0) bd.backend = TP_BACKEND_CUDA;
    tp_batch *batch = NULL;
    cr_assert_eq(tp_batch_create(m, &bd, &batch), TP_OK, "%s", tp_last_error());
    return batch;
}

/* Builder and batch calls that fail the test with the library's message. */
static inline tp_builder *builder_begin(const tp_model_def *md)
{
    tp_builder *b = NULL;
    cr_assert_eq(tp_builder_create(md, &b), TP_OK, "%s", tp_last_error());
    return b;
}

static inline int builder_add(tp_builder *b, const tp_body_def *bd)
{
    int index = -1;
    cr_assert_eq(tp_builder_add_body(b, bd, &index), TP_OK, "%s", tp_last_error());
    return index;
}

/* A static ground box of 40 x 40 x 1 m whose top face is the plane z = 0. */
static inline void builder_add_ground(tp_builder *b)
{
    tp_body_def bd = tp_default_body_def();
    bd.type = TP_BODY_STATIC;
    bd.size[0] = bd.size[1] = 40.0f;
    bd.pos[2] = -0.5f;
    builder_add(b, &bd);
}

/* Finish the model and destroy the builder. */
static inline tp_model *builder_finish(tp_builder *b)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_builder_finish(b, &m), TP_OK, "%s", tp_last_error());
    tp_builder_destroy(b);
    return m;
}

static inline void batch_steps(tp_batch *b, int steps)
{
    cr_assert_eq(tp_batch_step(b, steps), TP_OK, "%s", tp_last_error());
}

static inline tp_state_view batch_view(tp_batch *b)
{
    tp_state_view s;
    cr_assert_eq(tp_batch_state(b, &s), TP_OK, "%s", tp_last_error());
    return s;
}

static inline uint64_t batch_world_hash(tp_batch *b, int w)
{
    uint64_t h = 0;
    cr_assert_eq(tp_batch_world_hash(b, w, &h), TP_OK, "%s", tp_last_error());
    return h;
}

static inline uint64_t batch_state_hash(tp_batch *b)
{
    uint64_t h = 0;
    cr_assert_eq(tp_batch_state_hash(b, &h), TP_OK, "%s", tp_last_error());
    return h;
}

static inline uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The golden hash (tests/golden.h): FNV-1a over the state hash, then each
 * world's contact points (key, normal and friction forces) in key order. */
static inline uint64_t golden_hash(tp_batch *b)
{
    uint64_t state = 0, h = 0xcbf29ce484222325ull;
    cr_assert_eq(tp_batch_state_hash(b, &state), TP_OK, "%s", tp_last_error());
    h = fnv1a(h, &state, sizeof state);
    for (int w = 0; w < tp_batch_worlds(b); ++w) {
        int n = 0;
        cr_assert_eq(tp_batch_contacts(b, w, NULL, 0, &n), TP_OK);
        tp_contact_info *c = malloc(sizeof *c * (size_t)(n > 0 ? n : 1));
        cr_assert_eq(tp_batch_contacts(b, w, c, n, &n), TP_OK);
        h = fnv1a(h, &n, sizeof n);
        for (int i = 0; i < n; ++i) {
            h = fnv1a(h, &c[i].key, sizeof c[i].key);
            h = fnv1a(h, &c[i].normal_force, sizeof c[i].normal_force);
            h = fnv1a(h, c[i].friction_force, sizeof c[i].friction_force);
        }
        free(c);
    }
    return h;
}

/* The text of the file at `path` (under 64 KiB; a static buffer, overwritten by the next call). */
static inline char *read_scene_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text, f);
    cr_assert(n < sizeof text, "%s is %zu bytes or more", path, sizeof text);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* The scene file at `path` with "sleep": {"policy": "assembly"} put in front
 * of its bodies (the scene must have no sleep section of its own), loaded. */
static inline tp_model *load_assembly_scene(const char *path)
{
    static char out[(1 << 16) + 64];
    const char *text = read_scene_text(path);
    cr_assert_null(strstr(text, "\"sleep\""), "%s has its own sleep section", path);
    char *bodies = strstr(text, "\"bodies\"");
    cr_assert(bodies, "%s has no bodies", path);
    snprintf(out, sizeof out, "%.*s\"sleep\": {\"policy\": \"assembly\"}, %s", (int)(bodies - text), text, bodies);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(out, path, &m), TP_OK, "%s", tp_last_error());
    return m;
}

#endif
