/* import_urdf.h - a URDF robot read into a torpor scene (docs/import.md). Internal. */
#ifndef TP_IMPORT_URDF_H
#define TP_IMPORT_URDF_H

#include "import_xml.h"

/* Fill x->scene from the URDF document whose root <robot> is `root`. 0 on
 * failure (x->status and the error set). */
int tp_import_urdf(xi *x, const char *path, xmlNodePtr root);

#endif
