/* view.c - `torpor view OUT_DIR`: one self-contained HTML page that replays a
 * run's replay.json + replay.bin in 3D in a browser (docs/outputs.md, "replay";
 * docs/pictures.md, "The 3D viewer"). three.js (Debian's libjs-three) and the
 * recording are inlined, so the page needs no network and no server. */
#define _POSIX_C_SOURCE 200809L /* strncasecmp under -std=c11 */
#include "cli.h"
#include "replay.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifndef TP_THREE_DIR
#define TP_THREE_DIR "/usr/share/javascript/three"
#endif

/* The page's template, viewer/viewer.html compiled in by CMake (viewer_page.c). */
extern const unsigned char tp_viewer_html[];
extern const size_t tp_viewer_html_size;

/* The three.js files the page inlines, under TORPOR_THREE_DIR or Debian's libjs-three. */
static const char *const three_files[] = {"three.min.js", "examples/js/controls/OrbitControls.js",
                                          "examples/js/math/ConvexHull.js", "examples/js/geometries/ConvexGeometry.js"};

/* A whole file into memory (NUL-terminated); NULL after a message. */
static char *read_all(const char *path, size_t *size, const char *hint)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && (buf = malloc((size_t)st.st_size + 1))) {
        *size = fread(buf, 1, (size_t)st.st_size, f);
        buf[*size] = '\0';
        if (*size != (size_t)st.st_size) free(buf), buf = NULL;
    }
    if (!buf) fprintf(stderr, "torpor view: cannot read %s: %s%s\n", path, strerror(errno ? errno : EIO), hint);
    if (f) fclose(f);
    return buf;
}

/* Write text, with every "</script" made "<\/script" so that it cannot end
 * the <script> element it sits in (the same string in JavaScript and JSON). */
static void put_script_text(FILE *out, const char *text, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (text[i] == '<' && i + 8 <= n && strncasecmp(text + i, "</script", 8) == 0) {
            fputs("<\\", out);
            continue;
        }
        fputc(text[i], out);
    }
}

static void put_base64(FILE *out, const unsigned char *p, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {abc[v >> 18 & 63], abc[v >> 12 & 63], i + 1 < n ? abc[v >> 6 & 63] : '=', i + 2 < n ? abc[v & 63] : '='};
        fwrite(q, 1, 4, out);
        if (i % 57 == 54) fputc('\n', out); /* 76-character lines */
    }
}

/* replay.json, checked against replay.bin's size. Returns the JSON text, or NULL after a message. */
static char *load_replay(const char *dir, unsigned char **bin, size_t *bin_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/replay.json", dir);
    json_error_t err;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!j) {
        if (err.line < 1) fprintf(stderr, "torpor view: cannot read %s: %s (run `torpor run SCENE --record-every K "
                                          "--out %s` or `--view` first)\n", path, err.text, dir);
        else fprintf(stderr, "torpor view: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
        return NULL;
    }
    const char *format = json_string_value(json_object_get(j, "format"));
    json_int_t version = json_integer_value(json_object_get(j, "version"));
    json_int_t frames = json_integer_value(json_object_get(j, "frames"));
    json_int_t frame_bytes = json_integer_value(json_object_get(j, "frame_bytes"));
    char *text = NULL;
    if (!format || strcmp(format, "torpor-replay") != 0 || version != 1) {
        fprintf(stderr, "torpor view: %s: \"format\" is not \"torpor-replay\" version 1\n", path);
    } else if (frames < 1 || frame_bytes < 1) {
        fprintf(stderr, "torpor view: %s: \"frames\" is %lld and \"frame_bytes\" %lld; need at least one frame\n", path,
                (long long)frames, (long long)frame_bytes);
    } else {
        snprintf(path, sizeof path, "%s/replay.bin", dir);
        *bin = (unsigned char *)read_all(path, bin_size, "");
        if (*bin && (long long)*bin_size != (long long)frames * frame_bytes) {
            fprintf(stderr, "torpor view: %s has %zu bytes; replay.json says %lld frames of %lld bytes\n", path, *bin_size,
                    (long long)frames, (long long)frame_bytes);
            free(*bin);
            *bin = NULL;
        }
        if (*bin) text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9) | JSON_ESCAPE_SLASH);
    }
    json_decref(j);
    return text;
}

/* Copy the template up to each "@NAME@" marker and put the named part there. */
static void fill_template(FILE *out, char *const scripts[], const size_t sizes[], const char *json,
                          const unsigned char *bin, size_t bin_size)
{
    const char *t = (const char *)tp_viewer_html, *end = t + tp_viewer_html_size;
    while (t < end) {
        const char *at = memchr(t, '@', (size_t)(end - t));
        if (!at) at = end;
        fwrite(t, 1, (size_t)(at - t), out);
        if (at == end) break;
        const char *close = memchr(at + 1, '@', (size_t)(end - at - 1));
        size_t len = close ? (size_t)(close - at - 1) : 0;
        int done = 1;
        if (len == 8 && memcmp(at + 1, "THREE_JS", 8) == 0)
            for (size_t i = 0; i < sizeof three_files / sizeof three_files[0]; ++i) {
                put_script_text(out, scripts[i], sizes[i]);
                fputc('\n', out);
            }
        else if (len == 11 && memcmp(at + 1, "REPLAY_JSON", 11) == 0) fputs(json, out);
        else if (len == 10 && memcmp(at + 1, "REPLAY_BIN", 10) == 0) put_base64(out, bin, bin_size);
        else done = 0;
        if (!done) { /* an '@' of the page itself */
            fputc('@', out);
            t = at + 1;
        } else t = close + 1;
    }
}

int tp_view_write_page(const char *dir, const char *html_path)
{
    const char *three = getenv("TORPOR_THREE_DIR");
    if (!three || !*three) three = TP_THREE_DIR;
    enum { N = sizeof three_files / sizeof three_files[0] };
    char *scripts[N] = {0};
    size_t sizes[N] = {0};
    int ok = 1;
    for (int i = 0; i < N && ok; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", three, three_files[i]);
        ok = (scripts[i] = read_all(path, &sizes[i], " (install Debian's libjs-three, or set TORPOR_THREE_DIR to a "
                                                     "three.js r111 tree)")) != NULL;
    }
    unsigned char *bin = NULL;
    size_t bin_size = 0;
    char *json = ok ? load_replay(dir, &bin, &bin_size) : NULL;
    ok = json != NULL;
    FILE *out = ok ? fopen(html_path, "w") : NULL;
    if (ok && !out) {
        fprintf(stderr, "torpor view: cannot write %s: %s\n", html_path, strerror(errno));
        ok = 0;
    }
    if (out) {
        fill_template(out, scripts, sizes, json, bin, bin_size);
        errno = 0;
        int bad = ferror(out) != 0;
        if (fclose(out) != 0) bad = 1;
        if (bad) fprintf(stderr, "torpor view: cannot write %s: %s\n", html_path, strerror(errno ? errno : EIO));
        ok = !bad;
    }
    for (int i = 0; i < N; ++i) free(scripts[i]);
    free(json);
    free(bin);
    return ok;
}

static void view_usage(FILE *f)
{
    fprintf(f, "usage: torpor view OUT_DIR [--html FILE]\n"
               "  writes FILE (default OUT_DIR/view.html): one page that replays OUT_DIR/replay.json and\n"
               "  replay.bin (from `torpor run ... --record-every K` or `--view`) in 3D; open it in a browser\n");
}

int tp_cmd_view(int argc, char **argv)
{
    const char *dir = NULL, *html = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            view_usage(stdout);
            return TP_EXIT_OK;
        }
        if (strcmp(argv[i], "--html") == 0 && i + 1 < argc) html = argv[++i];
        else if (argv[i][0] != '-' && !dir) dir = argv[i];
        else {
            fprintf(stderr, "torpor view: unexpected argument \"%s\"\n", argv[i]);
            view_usage(stderr);
            return TP_EXIT_USAGE;
        }
    }
    if (!dir) {
        fprintf(stderr, "torpor view: no output directory given\n");
        view_usage(stderr);
        return TP_EXIT_USAGE;
    }
    char path[4096];
    if (!html) {
        snprintf(path, sizeof path, "%s/view.html", dir);
        html = path;
    }
    if (!tp_view_write_page(dir, html)) return TP_EXIT_FAILURE;
    printf("wrote %s\n", html);
    return TP_EXIT_OK;
}
