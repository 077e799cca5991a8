/* torpor_import.h - robots described in MuJoCo's MJCF or in URDF, read into
 * torpor scenes (docs/import.md).
 *
 * Part of the public API: include torpor.h, which includes this file. */
#ifndef TORPOR_IMPORT_H
#define TORPOR_IMPORT_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_import.h"
#endif

/* What a file's root element makes it: TP_XML_MJCF (<mujoco>), TP_XML_URDF
 * (<robot>), or TP_XML_NONE (anything else, e.g. a JSON scene). Read from the
 * text's start (an XML declaration, comments and a DOCTYPE are skipped). */
typedef enum tp_xml_kind { TP_XML_NONE = 0, TP_XML_MJCF = 1, TP_XML_URDF = 2 } tp_xml_kind;
tp_xml_kind tp_xml_kind_of(const char *text);

/* Read an MJCF or URDF file into the torpor scene it stands for: JSON text of
 * a version 2 scene (docs/scene-format.md) into *out_json (NUL-terminated;
 * free with tp_free), and into *out_warnings (if not NULL) the lines
 * "element: what was ignored\n" (NULL when nothing was), also freed with
 * tp_free. tp_model_load reads such files through this call, so the scene
 * written here loads to the same model. Conventions converted, the elements
 * and attributes read and those ignored: docs/import.md. Errors:
 * TP_ERR_IO (unreadable file), TP_ERR_PARSE "file:line:col: <element attr>:
 * reason" (malformed XML, an unsupported element, a bad value, a missing
 * file, a URDF cycle), TP_ERR_OUT_OF_MEMORY, TP_ERR_INVALID_ARGUMENT (NULL).
 * On failure *out_json and *out_warnings are NULL. */
tp_status tp_import_scene(const char *path, char **out_json, char **out_warnings);
/* Free what tp_import_scene returned (NULL is allowed). */
void tp_free(void *pointer);

#endif
