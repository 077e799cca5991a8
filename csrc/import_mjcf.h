/* import_mjcf.h - MuJoCo's MJCF read into a torpor scene (docs/import.md). Internal. */
#ifndef TP_IMPORT_MJCF_H
#define TP_IMPORT_MJCF_H

#include "import_xml.h"

/* Fill x->scene from the MJCF document whose root <mujoco> is `root`, read
 * from `path`. 0 on failure (x->status and the error set). */
int tp_import_mjcf(xi *x, const char *path, xmlNodePtr root);

#endif
