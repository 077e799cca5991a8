/* torpor_sites.h - sites: named frames fixed on bodies (or in the world).
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_SITES_H
#define TORPOR_SITES_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_sites.h"
#endif

/* ================================================================ sites
 * (csrc/site_model.c, docs/scene-format.md "Sites")
 *
 * A site is a named frame on a body: a position and an orientation in the
 * body's frame (the world frame for body -1). It takes no part in the
 * dynamics; tasks read it to place points on the bodies (a pendulum's tip, a
 * fingertip). MJCF's <site> elements import as sites. Its world pose in a
 * world is the body's pose (state pos, quat) applied to (pos, quat). */
typedef struct tp_site_def {
    const char *name;  /* required, unique among the sites */
    int body;          /* body index, or -1: the world */
    float pos[3];      /* m, in the body's frame */
    float quat[4];     /* unit [x y z w] in the body's frame (normalized when added) */
} tp_site_def;

/* No name, the world, at the origin, identity orientation. */
tp_site_def tp_default_site_def(void);
/* Add a site; *out_index (may be NULL) gets its index. Errors:
 * TP_ERR_INVALID_ARGUMENT naming the field (no name or a name already used,
 * an unknown body, a non-finite position, a zero or non-finite quaternion). */
tp_status tp_builder_add_site(tp_builder *b, const tp_site_def *def, int *out_index);
int tp_model_site_count(const tp_model *m);
/* The site as stored (quaternion normalized); name points into the model. */
tp_status tp_model_site(const tp_model *m, int index, tp_site_def *out);
/* Index of the site called `name`, or -1. */
int tp_model_find_site(const tp_model *m, const char *name);

#endif
