/* import_xml.c - XML reading, places and warnings shared by the importers (import_xml.h). */
#define _DEFAULT_SOURCE /* strdup, M_PI under -std=c11 */
#include "import_xml.h"

#include "error.h"

#include <errno.h>
#include <libxml/parser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int xi_oom(xi *x)
{
    if (x->status == TP_OK) x->status = tp_fail(TP_ERR_OUT_OF_MEMORY, "import: out of memory");
    return 0;
}

char *xi_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

char *xi_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) return NULL;
    if (name[0] == '/' || a == 0) {
        memcpy(p, name, b + 1);
    } else {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

/* The whole file, NUL-terminated; NULL with errno on failure. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 14, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (cap - n < 2) {
            char *g = realloc(buf, cap * 2);
            if (!g) { free(buf); buf = NULL; break; }
            buf = g;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        if (!errno) errno = EIO;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The first error libxml2 reports while parsing (its structured-error hook). */
typedef struct first_error {
    int line, column;
    char message[400];
} first_error;

static void keep_first_error(void *ctx, xmlErrorPtr e)
{
    first_error *f = ctx ? ((xmlParserCtxtPtr)ctx)->_private : NULL;
    if (!f || f->line || !e) return;
    f->line = e->line;
    f->column = e->int2;
    snprintf(f->message, sizeof f->message, "%s", e->message ? e->message : "unreadable");
}

int xi_read(xi *x, const char *path, xmlNodePtr *root, const char *where_path, int where_line)
{
    if (x->doc_count >= XI_MAX_DOCS) {
        x->status = tp_fail_at(TP_ERR_PARSE, where_path ? where_path : path, where_line, 1, "include",
                               "more than 64 files included (a loop of includes?)");
        return 0;
    }
    size_t len = 0;
    errno = 0;
    char *text = slurp(path, &len);
    if (!text) {
        char reason[600];
        snprintf(reason, sizeof reason, "cannot read \"%s\": %s", path, strerror(errno));
        if (where_path) x->status = tp_fail_at(TP_ERR_PARSE, where_path, where_line, 1, "include", reason);
        else x->status = tp_fail_at(TP_ERR_IO, path, 0, 0, "", reason);
        return 0;
    }
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx) { free(text); return xi_oom(x); }
    first_error first = {0, 0, ""};
    ctx->_private = &first;
    ctx->sax->serror = keep_first_error; /* libxml2 reports every error; the first is the cause */
    xmlDocPtr doc = xmlCtxtReadMemory(ctx, text, (int)len, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                                                         XML_PARSE_NOWARNING | XML_PARSE_HUGE);
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctx);
        if (!first.line && e) {
            first.line = e->line;
            first.column = e->int2;
            snprintf(first.message, sizeof first.message, "%s", e->message ? e->message : "unreadable");
        }
        char reason[600];
        snprintf(reason, sizeof reason, "malformed XML: %s", first.message[0] ? first.message : "unreadable");
        size_t n = strlen(reason);
        while (n && (reason[n - 1] == '\n' || reason[n - 1] == ' ')) reason[--n] = '\0';
        x->status = tp_fail_at(TP_ERR_PARSE, path, first.line, first.column > 0 ? first.column : 1, "", reason);
        xmlFreeParserCtxt(ctx);
        free(text);
        return 0;
    }
    xmlFreeParserCtxt(ctx);
    xi_doc *d = &x->docs[x->doc_count++];
    d->doc = doc;
    d->text = text;
    d->path = strdup(path);
    doc->_private = d;
    *root = xmlDocGetRootElement(doc);
    if (!d->path) return xi_oom(x);
    if (!*root) {
        x->status = tp_fail_at(TP_ERR_PARSE, path, 1, 1, "", "the document has no root element");
        return 0;
    }
    return 1;
}

void xi_free(xi *x)
{
    for (int i = 0; i < x->doc_count; ++i) {
        xmlFreeDoc(x->docs[i].doc);
        free(x->docs[i].text);
        free(x->docs[i].path);
    }
    x->doc_count = 0;
    free(x->warnings);
    x->warnings = NULL;
    json_decref(x->scene);
    x->scene = NULL;
}

const char *xi_path(const xmlNode *node)
{
    const xi_doc *d = node && node->doc ? node->doc->_private : NULL;
    return d ? d->path : "?";
}

/* Is "<name" at q a start tag of that name? */
static int tag_at(const char *q, const char *name)
{
    size_t n = strlen(name);
    if (q[0] != '<' || strncmp(q + 1, name, n) != 0) return 0;
    char c = q[1 + n];
    return c == ' ' || c == '>' || c == '/' || c == '\n' || c == '\t' || c == '\r';
}

/* 1-based line and column (code points, as the JSON loader counts) of `attr=`
 * in the node's start tag, or of the tag itself when attr is NULL. libxml2
 * gives an element's line only: its start tag is the last "<name" that begins
 * before that line ends (a tag may span lines). */
static int find_column(const xmlNode *node, const char *attr, int *line)
{
    const xi_doc *d = node->doc ? node->doc->_private : NULL;
    *line = (int)xmlGetLineNo(node);
    if (!d || *line < 1) return 1;
    const char *p = d->text;
    for (int l = 1; l < *line && p; ++l) {
        p = strchr(p, '\n');
        if (p) ++p;
    }
    if (!p) return 1;
    const char *end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    const char *lt = NULL;
    for (const char *q = d->text; q < end; ++q)
        if (*q == '<' && tag_at(q, (const char *)node->name)) lt = q;
    if (!lt) return 1;
    const char *hit = lt;
    if (attr) {
        const char *close = strchr(lt, '>');
        size_t n = strlen(attr);
        for (const char *q = lt; *q && (!close || q < close); ++q)
            if ((q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r') && strncmp(q, attr, n) == 0 &&
                (q[n] == '=' || q[n] == ' ')) {
                hit = q;
                break;
            }
    }
    int l = 1;
    const char *bol = d->text;
    for (const char *q = d->text; q < hit; ++q)
        if (*q == '\n') { ++l; bol = q + 1; }
    *line = l;
    int col = 1;
    for (const char *q = bol; q < hit; ++q)
        if (((unsigned char)*q & 0xC0) != 0x80) ++col;
    return col;
}

int xi_fail(xi *x, const xmlNode *node, const char *attr, const char *fmt, ...)
{
    if (x->status != TP_OK) return 0;
    char reason[768], field[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    int line = 0, col = 1;
    if (node) col = find_column(node, attr, &line);
    if (node && attr) snprintf(field, sizeof field, "<%s %s>", (const char *)node->name, attr);
    else if (node) snprintf(field, sizeof field, "<%s>", (const char *)node->name);
    else field[0] = '\0';
    x->status = tp_fail_at(TP_ERR_PARSE, xi_path(node), line, col, field, reason);
    return 0;
}

void xi_warn(xi *x, const char *name, const char *fmt, ...)
{
    char line[600];
    int n = snprintf(line, sizeof line, "%s: ", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    if (x->warnings) { /* once per distinct line */
        for (const char *p = x->warnings; *p;) {
            const char *e = strchr(p, '\n');
            if ((size_t)(e - p) == len && strncmp(p, line, len) == 0) return;
            p = e + 1;
        }
    }
    char *g = realloc(x->warnings, x->warnings_len + len + 2);
    if (!g) return;
    memcpy(g + x->warnings_len, line, len);
    g[x->warnings_len + len] = '\n';
    g[x->warnings_len + len + 1] = '\0';
    x->warnings = g;
    x->warnings_len += len + 1;
}

int xi_is(const xmlNode *node, const char *name)
{
    return node && node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

char *xi_attr(const xmlNode *node, const char *name)
{
    return (char *)xmlGetProp(node, (const xmlChar *)name);
}

int xi_numbers(xi *x, const xmlNode *node, const char *attr, const char *value, double *out, int n, int *got)
{
    int max = n < 0 ? -n : n, k = 0;
    const char *p = value;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
        if (!*p) break;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p) return xi_fail(x, node, attr, "\"%s\" is not a list of numbers", value);
        if (errno == ERANGE && (v > 1.0 || v < -1.0)) return xi_fail(x, node, attr, "\"%s\": out of range", value);
        if (v != v || v - v != 0.0) return xi_fail(x, node, attr, "\"%s\": numbers must be finite", value);
        if (k == max) return xi_fail(x, node, attr, "\"%s\": expected %s%d numbers", value, n < 0 ? "at most " : "", max);
        out[k++] = v;
        p = end;
    }
    if (n > 0 && k != n) return xi_fail(x, node, attr, "\"%s\": expected %d numbers, got %d", value, n, k);
    if (n < 0 && k == 0) return xi_fail(x, node, attr, "empty: expected numbers");
    if (got) *got = k;
    return 1;
}

static int list_push(xi *x, xi_list *l, xmlNodePtr n)
{
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 16;
        xmlNodePtr *g = realloc(l->items, (size_t)cap * sizeof *g);
        if (!g) return xi_oom(x);
        l->items = g;
        l->capacity = cap;
    }
    l->items[l->count++] = n;
    return 1;
}

int xi_children(xi *x, xmlNodePtr node, const char *include_tag, const char *dir, xi_list *out)
{
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!include_tag || !xi_is(c, include_tag)) {
            if (!list_push(x, out, c)) return 0;
            continue;
        }
        char *file = xi_attr(c, "file");
        if (!file) return xi_fail(x, c, NULL, "needs a \"file\" attribute");
        char *path = xi_join(dir, file);
        xmlFree(file);
        if (!path) return xi_oom(x);
        xmlNodePtr root;
        int ok = xi_read(x, path, &root, xi_path(c), (int)xmlGetLineNo(c));
        free(path);
        if (!ok) return 0;
        /* an included file's root wraps the elements it adds (MJCF: <mujoco>) */
        if (!xi_children(x, root, include_tag, dir, out)) return 0;
    }
    return 1;
}

void xi_list_free(xi_list *list)
{
    free(list->items);
    list->items = NULL;
    list->count = list->capacity = 0;
}

json_t *xi_vec(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; ++i)
        if (json_array_append_new(a, json_real(v[i]))) { json_decref(a); return NULL; }
    return a;
}
