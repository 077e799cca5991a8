/* replay.c - replay.bin (frames of chosen worlds, every K steps) and
 * replay.json (the bodies, their shapes and the frame index): the recording
 * `torpor view` turns into a 3D page. Layout: docs/outputs.md, "replay". */
#include "replay.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_MAX_WORLDS 1024

long long tp_replay_frame_bytes(int worlds, int bodies)
{
    long long n = (long long)worlds * bodies;
    return n * TP_REPLAY_FLOATS * 4 + ((n + 3) / 4) * 4;
}

static int bad_worlds(const char *text, const char *why, int worlds)
{
    fprintf(stderr, "torpor run: --record-worlds \"%s\": %s (world indices 0 to %d, as \"0,1,2\" or \"0-15\")\n", text,
            why, worlds - 1);
    return 0;
}

/* One item "N" or "A-B" of the list into *lo, *hi. */
static int parse_item(const char *s, size_t len, long *lo, long *hi)
{
    char item[32], *end = NULL;
    if (len == 0 || len >= sizeof item) return 0;
    memcpy(item, s, len);
    item[len] = '\0';
    errno = 0;
    *lo = strtol(item, &end, 10);
    if (end == item || item[0] == '-' || errno) return 0;
    *hi = *lo;
    if (*end == '-') {
        const char *b = end + 1;
        *hi = strtol(b, &end, 10);
        if (end == b || *b == '-' || errno) return 0;
    }
    return *end == '\0';
}

int tp_replay_parse_worlds(const char *text, int worlds, int **out, int *count)
{
    int *list = malloc(REPLAY_MAX_WORLDS * sizeof *list), n = 0;
    if (!list) return bad_worlds(text, "out of memory", worlds);
    for (const char *s = text; ; ) {
        size_t len = strcspn(s, ",");
        long lo, hi;
        if (!parse_item(s, len, &lo, &hi) || lo > hi) {
            free(list);
            return bad_worlds(text, "not a list of indices and ranges", worlds);
        }
        if (hi >= worlds) {
            free(list);
            return bad_worlds(text, "names a world past the last one", worlds);
        }
        for (long w = lo; w <= hi; ++w) {
            for (int i = 0; i < n; ++i)
                if (list[i] == w) {
                    free(list);
                    return bad_worlds(text, "names a world twice", worlds);
                }
            if (n == REPLAY_MAX_WORLDS) {
                free(list);
                return bad_worlds(text, "more than 1024 worlds", worlds);
            }
            list[n++] = (int)w;
        }
        if (s[len] == '\0') break;
        s += len + 1;
    }
    *out = list;
    *count = n;
    return 1;
}

int tp_replay_open(tp_replay *r, const char *dir, int *worlds, int world_count, long every, tp_batch *batch)
{
    memset(r, 0, sizeof *r);
    r->dir = dir;
    r->worlds = worlds;
    r->world_count = world_count;
    r->every = every;
    r->buf = malloc((size_t)tp_replay_frame_bytes(world_count, tp_batch_bodies(batch)));
    char path[4096];
    snprintf(path, sizeof path, "%s/replay.json", dir);
    remove(path); /* a replay.json of an earlier run must not describe this run's replay.bin */
    snprintf(path, sizeof path, "%s/replay.bin", dir);
    r->bin = fopen(path, "wb");
    if (!r->bin || !r->buf) {
        fprintf(stderr, "torpor run: cannot write %s: %s\n", path, r->buf ? strerror(errno) : "out of memory");
        return 0;
    }
    return 1;
}

static int grow(tp_replay *r)
{
    if (r->frames < r->capacity) return 1;
    int cap = r->capacity ? 2 * r->capacity : 256;
    long long *steps = realloc(r->steps, (size_t)cap * sizeof *steps);
    if (steps) r->steps = steps;
    int *counts = realloc(r->counts, (size_t)cap * (size_t)r->world_count * 3 * sizeof *counts);
    if (counts) r->counts = counts;
    if (!steps || !counts) return 0;
    r->capacity = cap;
    return 1;
}

static unsigned char body_state(const tp_body_def *d, const tp_state_view *s, size_t k)
{
    if (s->removed[k]) return TP_REPLAY_REMOVED;
    if (d->type == TP_BODY_STATIC) return TP_REPLAY_STATIC;
    return s->sleep_state[k] == TP_SLEEPING ? TP_REPLAY_SLEEPING
           : s->sleep_state[k] == TP_CHECKING ? TP_REPLAY_CHECKING : TP_REPLAY_AWAKE;
}

/* One frame into r->buf: floats (little-endian, as the machine's) then states. */
static void pack_frame(tp_replay *r, const tp_model *m, const tp_state_view *s)
{
    int B = s->bodies;
    float *f = (float *)r->buf;
    unsigned char *st = r->buf + (size_t)r->world_count * (size_t)B * TP_REPLAY_FLOATS * 4;
    for (int i = 0; i < r->world_count; ++i)
        for (int b = 0; b < B; ++b) {
            size_t k = (size_t)r->worlds[i] * (size_t)B + (size_t)b, o = (size_t)i * (size_t)B + (size_t)b;
            memcpy(f + o * TP_REPLAY_FLOATS, s->pos + 3 * k, 3 * sizeof(float));
            memcpy(f + o * TP_REPLAY_FLOATS + 3, s->quat + 4 * k, 4 * sizeof(float));
            memcpy(f + o * TP_REPLAY_FLOATS + 7, s->v + 3 * k, 3 * sizeof(float));
            memcpy(f + o * TP_REPLAY_FLOATS + 10, s->w + 3 * k, 3 * sizeof(float));
            tp_body_def d;
            tp_model_body(m, b, &d);
            st[o] = body_state(&d, s, k);
        }
    long long n = (long long)r->world_count * B;
    memset(st + n, 0, (size_t)(((n + 3) / 4) * 4 - n));
}

int tp_replay_frame(tp_replay *r, tp_batch *batch, const tp_state_view *s)
{
    if (r->failed) return 0;
    if (!grow(r)) {
        fprintf(stderr, "torpor run: out of memory recording the replay\n");
        return !(r->failed = 1);
    }
    pack_frame(r, tp_batch_model(batch), s);
    size_t bytes = (size_t)tp_replay_frame_bytes(r->world_count, s->bodies);
    if (fwrite(r->buf, 1, bytes, r->bin) != bytes) {
        fprintf(stderr, "torpor run: cannot write %s/replay.bin: %s\n", r->dir, strerror(errno ? errno : EIO));
        return !(r->failed = 1);
    }
    r->steps[r->frames] = (long long)tp_batch_step_count(batch);
    for (int i = 0; i < r->world_count; ++i) {
        int *c = r->counts + ((size_t)r->frames * (size_t)r->world_count + (size_t)i) * 3;
        c[0] = s->awake_count[r->worlds[i]];
        c[1] = s->checking_count[r->worlds[i]];
        c[2] = s->sleeping_count[r->worlds[i]];
    }
    r->frames++;
    return 1;
}

static json_t *vec_json(const float *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; ++i) json_array_append_new(a, json_real(v[i]));
    return a;
}

/* A convex shape also carries its points (`vertices`, shape frame), drawn as their hull. */
static json_t *shape_json(tp_shape_type kind, const float *size, const float *pos, const float *quat,
                          const float *vertices, int vertex_count)
{
    json_t *s = json_object();
    json_object_set_new(s, "kind", json_string(tp_shape_name(kind)));
    json_object_set_new(s, "size", vec_json(size, 3));
    json_object_set_new(s, "pos", vec_json(pos, 3));
    json_object_set_new(s, "quat", vec_json(quat, 4));
    if (kind == TP_SHAPE_CONVEX && vertices) {
        json_t *v = json_array();
        for (int i = 0; i < vertex_count; ++i) json_array_append_new(v, vec_json(vertices + 3 * i, 3));
        json_object_set_new(s, "vertices", v);
    }
    return s;
}

static const char *body_type_name(tp_body_type t)
{
    return t == TP_BODY_STATIC ? "static" : t == TP_BODY_KINEMATIC ? "kinematic" : "dynamic";
}

static json_t *bodies_json(const tp_model *m)
{
    static const float zero[3] = {0, 0, 0}, identity[4] = {0, 0, 0, 1};
    json_t *bodies = json_array();
    for (int b = 0; b < tp_model_body_count(m); ++b) {
        tp_body_def d;
        tp_model_body(m, b, &d);
        json_t *shapes = json_array();
        if (d.shape_count == 0) json_array_append_new(shapes, shape_json(d.shape, d.size, zero, identity, d.vertices, d.vertex_count));
        for (int i = 0; i < d.shape_count; ++i) {
            const tp_shape_def *s = &d.shapes[i];
            json_array_append_new(shapes, shape_json(s->shape, s->size, s->pos, s->quat, s->vertices, s->vertex_count));
        }
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(tp_model_body_name(m, b)));
        json_object_set_new(o, "type", json_string(body_type_name(d.type)));
        json_object_set_new(o, "shapes", shapes);
        json_array_append_new(bodies, o);
    }
    return bodies;
}

static json_t *replay_json(const tp_replay *r, tp_batch *batch)
{
    const tp_model *m = tp_batch_model(batch);
    tp_model_def def = tp_model_settings(m);
    json_t *j = json_object(), *worlds = json_array(), *steps = json_array(), *counts = json_array();
    for (int i = 0; i < r->world_count; ++i) json_array_append_new(worlds, json_integer(r->worlds[i]));
    for (int f = 0; f < r->frames; ++f) {
        json_array_append_new(steps, json_integer(r->steps[f]));
        json_t *frame = json_array();
        for (int i = 0; i < r->world_count; ++i) {
            const int *c = r->counts + ((size_t)f * (size_t)r->world_count + (size_t)i) * 3;
            json_t *t = json_array();
            for (int k = 0; k < 3; ++k) json_array_append_new(t, json_integer(c[k]));
            json_array_append_new(frame, t);
        }
        json_array_append_new(counts, frame);
    }
    json_object_set_new(j, "format", json_string("torpor-replay"));
    json_object_set_new(j, "version", json_integer(1));
    json_object_set_new(j, "torpor_version", json_string(TP_VERSION_STRING));
    json_object_set_new(j, "scene_name", json_string(tp_model_name(m)));
    json_object_set_new(j, "dt", json_real(def.dt));
    json_object_set_new(j, "sleep_policy", json_string(def.sleep.policy == TP_SLEEP_ASSEMBLY ? "assembly" : "island"));
    json_object_set_new(j, "worlds_total", json_integer(tp_batch_worlds(batch)));
    json_object_set_new(j, "worlds", worlds);
    json_object_set_new(j, "bodies_per_world", json_integer(tp_batch_bodies(batch)));
    json_object_set_new(j, "every", json_integer(r->every));
    json_object_set_new(j, "frames", json_integer(r->frames));
    json_object_set_new(j, "frame_bytes", json_integer(tp_replay_frame_bytes(r->world_count, tp_batch_bodies(batch))));
    json_object_set_new(j, "data", json_string("replay.bin"));
    json_object_set_new(j, "steps", steps);
    json_object_set_new(j, "counts", counts);
    json_object_set_new(j, "bodies", bodies_json(m));
    return j;
}

int tp_replay_finish(tp_replay *r, tp_batch *batch)
{
    int ok = !r->failed;
    if (r->bin) {
        errno = 0;
        if ((fflush(r->bin) != 0 || ferror(r->bin) || fclose(r->bin) != 0) && ok) {
            fprintf(stderr, "torpor run: cannot write %s/replay.bin: %s\n", r->dir, strerror(errno ? errno : EIO));
            ok = 0;
        }
        r->bin = NULL;
    }
    if (!ok) return 0;
    json_t *j = replay_json(r, batch);
    char path[4096];
    snprintf(path, sizeof path, "%s/replay.json", r->dir);
    char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9));
    json_decref(j);
    FILE *f = text ? fopen(path, "w") : NULL;
    errno = 0;
    int bad = !f || fputs(text, f) < 0 || fputc('\n', f) < 0;
    if (f && fclose(f) != 0) bad = 1;
    free(text);
    if (bad) fprintf(stderr, "torpor run: cannot write %s: %s\n", path, strerror(errno ? errno : EIO));
    return !bad;
}

void tp_replay_free(tp_replay *r)
{
    if (r->bin) fclose(r->bin);
    free(r->worlds);
    free(r->steps);
    free(r->counts);
    free(r->buf);
    memset(r, 0, sizeof *r);
}
