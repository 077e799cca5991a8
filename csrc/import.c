/* import.c - MJCF and URDF files into torpor scenes: which reader, and the
 * scene as JSON text (torpor_import.h). The scene loader (csrc/scene.c) builds
 * the model from that text, so imported and JSON scenes take one path. */
#define _DEFAULT_SOURCE /* strdup, M_PI under -std=c11 */
#include "torpor.h"

#include "error.h"
#include "import_mjcf.h"
#include "import_urdf.h"
#include "import_xml.h"

#include <stdlib.h>
#include <string.h>

/* Past a BOM, blanks, the XML declaration, comments and a DOCTYPE. */
static const char *skip_prolog(const char *p)
{
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
        const char *end = NULL;
        if (strncmp(p, "<?", 2) == 0) end = strstr(p, "?>");
        else if (strncmp(p, "<!--", 4) == 0) end = strstr(p, "-->");
        else if (strncmp(p, "<!", 2) == 0) end = strchr(p, '>');
        else return p;
        if (!end) return p;
        p = strchr(end, '>') + 1;
    }
}

static int root_is(const char *p, const char *name)
{
    size_t n = strlen(name);
    if (p[0] != '<' || strncmp(p + 1, name, n) != 0) return 0;
    char c = p[1 + n];
    return c == ' ' || c == '>' || c == '/' || c == '\n' || c == '\t' || c == '\r';
}

tp_xml_kind tp_xml_kind_of(const char *text)
{
    if (!text) return TP_XML_NONE;
    const char *p = skip_prolog(text);
    if (root_is(p, "mujoco")) return TP_XML_MJCF;
    if (root_is(p, "robot")) return TP_XML_URDF;
    return TP_XML_NONE;
}

void tp_free(void *pointer) { free(pointer); }

tp_status tp_import_scene(const char *path, char **out_json, char **out_warnings)
{
    if (out_json) *out_json = NULL;
    if (out_warnings) *out_warnings = NULL;
    if (!path || !out_json) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_import_scene: path or out_json is NULL");
    xi x;
    memset(&x, 0, sizeof x);
    xmlNodePtr root;
    int ok = xi_read(&x, path, &root, NULL, 0);
    if (ok) {
        x.scene = json_object();
        if (!x.scene) ok = xi_oom(&x);
    }
    if (ok) {
        json_object_set_new(x.scene, "format", json_string("torpor-scene"));
        json_object_set_new(x.scene, "version", json_integer(2));
        if (xi_is(root, "mujoco")) ok = tp_import_mjcf(&x, path, root);
        else if (xi_is(root, "robot")) ok = tp_import_urdf(&x, path, root);
        else ok = xi_fail(&x, root, NULL, "the root element must be <mujoco> (MJCF) or <robot> (URDF)");
    }
    tp_status status = x.status;
    if (ok) {
        *out_json = json_dumps(x.scene, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
        if (!*out_json) status = tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_import_scene: out of memory");
        else if (out_warnings && x.warnings) {
            *out_warnings = x.warnings;
            x.warnings = NULL;
        }
    }
    xi_free(&x);
    if (status == TP_OK && !ok) status = TP_ERR_PARSE;
    return status;
}
