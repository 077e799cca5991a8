/* body_copy.c - the copies of a body's compound shapes and convex points that
 * the builder and the model own (the caller's arrays may go away). */
#include "hull.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

/* A copy of a convex shape's points src [count][3] into *dst, and their hull
 * into *hull (the points have passed tp_body_def_check). 0 when out of memory. */
int tp_points_copy(const float *src, int count, const float **dst, tp_hull *hull)
{
    float *copy = malloc(3 * (size_t)count * sizeof *copy);
    *dst = copy;
    if (!copy) return 0;
    memcpy(copy, src, 3 * (size_t)count * sizeof *copy);
    char reason[8];
    return tp_hull_build(copy, count, hull, reason, sizeof reason);
}

/* A convex shape's vertices copied from src into *dst (NULL for any other
 * shape) and its size set from the hull: the box centred on the origin that
 * holds it (include/torpor.h). 0 when out of memory. */
static int vertices_copy(const float *src, int count, int shape, const float **dst, float size[3])
{
    *dst = NULL;
    if (shape != TP_SHAPE_CONVEX) return 1;
    tp_hull h;
    if (!tp_points_copy(src, count, dst, &h)) return 0;
    memcpy(size, h.size, sizeof h.size);
    return 1;
}

void tp_body_def_free_owned(tp_body_def *def)
{
    for (int k = 0; def->shapes && k < def->shape_count; ++k) free((void *)def->shapes[k].vertices);
    free((void *)def->shapes);
    free((void *)def->vertices);
}

/* Make def own copies of its compound shapes and of every convex shape's
 * vertices; def has passed tp_body_def_check. 0 when out of memory (then
 * nothing is left allocated). */
int tp_body_def_copy_owned(tp_body_def *def)
{
    const tp_shape_def *given = def->shapes;
    int ok = 1;
    def->shapes = NULL;
    if (def->shape_count > 0) {
        tp_shape_def *shapes = malloc((size_t)def->shape_count * sizeof *shapes);
        if (!shapes) return 0;
        memcpy(shapes, given, (size_t)def->shape_count * sizeof *shapes);
        for (int k = 0; k < def->shape_count; ++k)
            ok &= vertices_copy(given[k].vertices, given[k].vertex_count, given[k].shape, &shapes[k].vertices,
                                shapes[k].size);
        def->shapes = shapes;
    }
    ok &= vertices_copy(def->vertices, def->vertex_count, def->shape, &def->vertices, def->size);
    if (!ok) tp_body_def_free_owned(def);
    return ok;
}
