/* import_xml.h - what the MJCF and URDF importers share: XML documents read
 * with libxml2 (MJCF's <include> expanded as children are listed), attributes
 * read as numbers, errors placed at file:line:col, warnings collected, and the
 * torpor scene built as a JSON document (csrc/import_mjcf.c, csrc/import_urdf.c
 * fill it; csrc/import.c hands it to the scene loader). Internal. */
#ifndef TP_IMPORT_XML_H
#define TP_IMPORT_XML_H

#include "torpor.h"

#include <jansson.h>
#include <libxml/tree.h>

#define XI_MAX_DOCS 64

typedef struct xi_doc {
    xmlDocPtr doc;
    char *path;  /* the file, as named in messages */
    char *text;  /* its bytes, to find columns */
} xi_doc;

typedef struct xi {
    xi_doc docs[XI_MAX_DOCS];
    int doc_count;
    tp_status status;   /* of the first failure (TP_OK while none) */
    char *warnings;     /* "name: text\n" lines, or NULL */
    size_t warnings_len;
    json_t *scene;      /* the torpor scene being built */
} xi;

/* Read `path` as XML (its root element to *root). On failure the error is set
 * (malformed XML at libxml2's line and column, or the I/O reason) and 0 returned. */
int xi_read(xi *x, const char *path, xmlNodePtr *root, const char *where_path, int where_line);
void xi_free(xi *x);

/* The file a node is in. */
const char *xi_path(const xmlNode *node);
/* Fail at `node` (its attribute `attr`, or the element when NULL): sets the
 * error "file:line:col: <element>[ attr]: reason"; returns 0. */
int xi_fail(xi *x, const xmlNode *node, const char *attr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Add a warning line "name: text" once (a repeated name and text is counted, not repeated). */
void xi_warn(xi *x, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Is `node` the element `name`? */
int xi_is(const xmlNode *node, const char *name);
/* The attribute as a string (libxml2-owned copy: free with xmlFree), or NULL. */
char *xi_attr(const xmlNode *node, const char *name);
/* Parse a list of exactly n numbers (n > 0) or, with n < 0, 1 to -n numbers
 * (count to *got). Fails at the attribute naming the value. */
int xi_numbers(xi *x, const xmlNode *node, const char *attr, const char *value, double *out, int n, int *got);

/* Element children of `node`, in order, into a growing array. `include_tag`
 * non-NULL: children named so are replaced by the children of the root of
 * the file their `file` attribute names (relative to `dir`), recursively. */
typedef struct xi_list {
    xmlNodePtr *items;
    int count, capacity;
} xi_list;
int xi_children(xi *x, xmlNodePtr node, const char *include_tag, const char *dir, xi_list *out);
void xi_list_free(xi_list *list);

/* The directory part of a path ("" for none), malloc'd; and dir + "/" + name
 * (name itself when absolute or dir empty). NULL on out of memory. */
char *xi_dirname(const char *path);
char *xi_join(const char *dir, const char *name);

/* JSON helpers (errors for out of memory only: then 0). */
json_t *xi_vec(const double *v, int n);
int xi_oom(xi *x);

#endif
