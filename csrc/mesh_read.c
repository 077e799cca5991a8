/* mesh_read.c - the vertices of a triangle mesh file (tp_mesh_read): STL,
 * binary or ASCII, and Wavefront OBJ. A convex shape needs only the points,
 * so faces, normals and everything else are skipped.
 *
 * Formats: binary STL is an 80-byte header, a little-endian uint32 triangle
 * count and 50 bytes per triangle (a normal and three vertices as float32, a
 * 16-bit attribute); ASCII STL is "solid", then "facet normal ... outer loop
 * vertex x y z (x3) endloop endfacet" blocks; OBJ vertices are "v x y z [w]"
 * lines. A file that starts with "solid" but has the exact size of a binary
 * STL of its triangle count is binary (some exporters write "solid" into the
 * binary header). */
#include "error.h"
#include "torpor.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mesh_buf {
    float *v;
    int count, capacity;
} mesh_buf;

static tp_status mesh_push(mesh_buf *m, const char *path, const float p[3])
{
    if (m->count >= TP_MAX_MESH_VERTICES)
        return tp_fail(TP_ERR_CAPACITY, "%s: more than TP_MAX_MESH_VERTICES (%d) vertices", path, TP_MAX_MESH_VERTICES);
    if (m->count == m->capacity) {
        int cap = m->capacity ? 2 * m->capacity : 64;
        float *v = realloc(m->v, 3 * (size_t)cap * sizeof *v);
        if (!v) return tp_fail(TP_ERR_OUT_OF_MEMORY, "%s: out of memory for %d vertices", path, cap);
        m->v = v;
        m->capacity = cap;
    }
    memcpy(m->v + 3 * (size_t)m->count++, p, 3 * sizeof(float));
    return TP_OK;
}

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static float le_float(const unsigned char *b)
{
    uint32_t u = le32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static tp_status read_stl_binary(const char *path, const unsigned char *data, size_t size, mesh_buf *m)
{
    if (size < 84)
        return tp_fail(TP_ERR_PARSE, "%s: binary STL truncated: %zu bytes, shorter than its 84-byte header", path, size);
    uint32_t n = le32(data + 80);
    if ((size - 84) / 50 < n)
        return tp_fail(TP_ERR_PARSE, "%s: binary STL truncated: the header promises %u triangles, the file holds %zu",
                       path, n, (size - 84) / 50);
    if (n == 0) return tp_fail(TP_ERR_PARSE, "%s: binary STL with no triangles", path);
    for (uint32_t t = 0; t < n; ++t)
        for (int k = 0; k < 3; ++k) {
            const unsigned char *b = data + 84 + 50 * (size_t)t + 12 + 12 * (size_t)k;
            float p[3] = {le_float(b), le_float(b + 4), le_float(b + 8)};
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
                return tp_fail(TP_ERR_PARSE, "%s: binary STL triangle %u, vertex %d: not a finite number", path, t, k);
            tp_status st = mesh_push(m, path, p);
            if (st != TP_OK) return st;
        }
    return TP_OK;
}

/* Three finite numbers at s (after a keyword); 0 if they do not parse. */
static int parse3(const char *s, float p[3])
{
    for (int k = 0; k < 3; ++k) {
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (end == s || !isfinite(x) || fabs(x) > 3.4e38) return 0;
        p[k] = (float)x;
        s = end;
    }
    return 1;
}

/* Text formats: lines starting (after blanks) with `key` followed by a blank
 * hold a vertex. */
static tp_status read_text(const char *path, char *text, const char *key, const char *format, mesh_buf *m)
{
    size_t klen = strlen(key);
    int line = 1;
    for (char *s = text; *s;) {
        char *eol = strchr(s, '\n');
        if (eol) *eol = '\0';
        char *t = s;
        while (*t == ' ' || *t == '\t') ++t;
        if (strncmp(t, key, klen) == 0 && (t[klen] == ' ' || t[klen] == '\t')) {
            float p[3];
            if (!parse3(t + klen, p))
                return tp_fail(TP_ERR_PARSE, "%s:%d: %s vertex: expected three finite numbers after \"%s\"", path, line,
                               format, key);
            tp_status st = mesh_push(m, path, p);
            if (st != TP_OK) return st;
        }
        if (!eol) break;
        s = eol + 1;
        ++line;
    }
    if (m->count == 0) return tp_fail(TP_ERR_PARSE, "%s: %s file with no vertex (\"%s x y z\" lines)", path, format, key);
    return TP_OK;
}

/* The whole file, NUL-terminated. */
static tp_status slurp(const char *path, unsigned char **out, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return tp_fail(TP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        unsigned char *grown = realloc(buf, 2 * cap + 1);
        if (!grown) free(buf);
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf) return tp_fail(TP_ERR_OUT_OF_MEMORY, "%s: out of memory reading it", path);
    if (failed) {
        free(buf);
        return tp_fail(TP_ERR_IO, "%s: read error", path);
    }
    buf[n] = '\0';
    *out = buf;
    *size = n;
    return TP_OK;
}

static int is_binary_stl(const unsigned char *data, size_t size)
{
    if (size >= 84 && (size - 84) % 50 == 0 && (size - 84) / 50 == le32(data + 80)) return 1;
    const unsigned char *s = data;
    while (s < data + size && isspace(*s)) ++s;
    return !(size - (size_t)(s - data) >= 5 && memcmp(s, "solid", 5) == 0) && memchr(data, '\0', size) != NULL;
}

tp_status tp_mesh_read(const char *path, float **out_vertices, int *out_count)
{
    if (out_vertices) *out_vertices = NULL;
    if (out_count) *out_count = 0;
    if (!path || !out_vertices || !out_count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_mesh_read: path, out_vertices or out_count is NULL");
    unsigned char *data = NULL;
    size_t size = 0;
    tp_status st = slurp(path, &data, &size);
    if (st != TP_OK) return st;
    mesh_buf m = {NULL, 0, 0};
    const char *s = (const char *)data;
    while (isspace((unsigned char)*s)) ++s;
    if (is_binary_stl(data, size)) st = read_stl_binary(path, data, size, &m);
    else if (strncmp(s, "solid", 5) == 0) st = read_text(path, (char *)data, "vertex", "ASCII STL", &m);
    else st = read_text(path, (char *)data, "v", "OBJ", &m);
    free(data);
    if (st != TP_OK) {
        free(m.v);
        return st;
    }
    *out_vertices = m.v;
    *out_count = m.count;
    return TP_OK;
}

void tp_mesh_free(float *vertices) { free(vertices); }
