/* render_items.h - what tp_render_state paints: bodies turned into flat
 * convex polygons and discs seen from an orthographic view (csrc/render_shapes.c),
 * in doubles, and the small vector helpers they share with csrc/render.c. */
#ifndef TP_RENDER_ITEMS_H
#define TP_RENDER_ITEMS_H

#include "torpor.h"

#define PRISM_SIDES 16 /* sides of the prism a cylinder or a capsule is drawn as */

typedef struct v3 { double x, y, z; } v3;

static inline v3 vadd(v3 a, v3 b) { return (v3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline v3 vscale(v3 a, double s) { return (v3){a.x * s, a.y * s, a.z * s}; }
static inline double vdot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline v3 vcross(v3 a, v3 b) { return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

/* The view: screen right, screen up and the direction into the screen. */
typedef struct view3 { v3 right, up, into; } view3;

/* A drawable: a convex polygon (n >= 3) or a disc (n == 0), at a depth. */
typedef struct item {
    int layer;  /* 0 static, 1 dynamic: static bodies are painted first */
    double depth;
    int n;
    double sx[2 * PRISM_SIDES], sy[2 * PRISM_SIDES]; /* screen coordinates (world units) */
    double radius;                                   /* disc */
    float rgb[3];
} item;

typedef struct item_list {
    item *items;
    int count, capacity;
    int failed; /* an allocation failed */
} item_list;

/* The camera sits in front (-y), 35 degrees round to the right (+x) and 25
 * degrees up, looking at the origin; screen up has +z in it. */
view3 tp_render_default_view(void);

/* Add a body's items at pose pos, quat (its one shape, or every shape of a
 * compound body at its pose in the body), coloured rgb; back faces dropped.
 * An allocation failure sets l->failed. */
void tp_render_add_body(item_list *l, const view3 *vw, const tp_body_def *d, const float *pos, const float *quat,
                        const float rgb[3]);

#endif
