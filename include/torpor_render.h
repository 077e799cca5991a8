/* torpor_render.h - pictures of a batch's worlds as RGB images: what snapshot.png,
 * `torpor run --video` and the Python package's rgb_array frames are drawn with.
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_RENDER_H
#define TORPOR_RENDER_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_render.h"
#endif

/* ---------------------------------------------------------------- pictures */

/* What tp_batch_render and tp_render_state draw. The worlds go into a grid of ceil(sqrt(n))
 * columns, row by row, every cell with the same scale. The view is
 * orthographic, from the front (-y), 35 degrees round to the right and 25
 * degrees up; bodies are coloured by sleep state (awake red, sleep-checking
 * orange, sleeping grey, static dark slate) and their faces shaded by a fixed
 * light (docs/pictures.md). */
typedef struct tp_render_def {
    int width, height;     /* image size in pixels, each in [16, 8192] (default 640 x 480) */
    const int *worlds;     /* [world_count] indices of the worlds to draw, each in [0, worlds of the
                              batch); NULL: worlds 0 .. world_count - 1 (default NULL) */
    int world_count;       /* in [1, 256] (default 1) */
    int labels;            /* 1: each cell names its world and its awake / checking / asleep counts (default 0) */
    const char *title;     /* not NULL: a 60-pixel band above the grid with this line and the colour
                              legend (default NULL) */
    /* 1: every cell frames view_box, a box of the world frame (m: min x, y, z, then
     * max x, y, z, min <= max); 0: every cell frames the drawn worlds' dynamic
     * bodies as they are now (each body's origin +- its bounding radius) (default 0) */
    int has_view_box;
    float view_box[6];
} tp_render_def;

tp_render_def tp_default_render_def(void);

/* 1 if this build can draw (it was built with cairo), else 0. */
int tp_render_available(void);

/* Draw the worlds of `batch` as they are now into rgb, [height][width][3]
 * uint8 (R, G, B; row 0 at the top), by the painter's algorithm (depth
 * sort; Foley, van Dam, Feiner, Hughes, "Computer Graphics: Principles and
 * Practice", 2nd ed., section 15.5): faces turned away are dropped and the
 * rest painted far to near, static bodies first. The same
 * state and def give the same bytes. On the CUDA backend the state is copied
 * to the host first (as tp_batch_state). Errors: TP_ERR_INVALID_ARGUMENT (NULL
 * batch, def or rgb; a size, world count, world index or view box out of
 * range, named in the message), TP_ERR_BACKEND (built without cairo),
 * TP_ERR_OUT_OF_MEMORY, TP_ERR_CUDA; rgb is left unchanged on failure. */
tp_status tp_batch_render(tp_batch *batch, const tp_render_def *def, uint8_t *rgb);

/* tp_batch_render's drawing from a state view instead of a batch: the worlds
 * of `view` (any tp_state_view whose bodies are the model's, e.g. the worlds
 * of several shard batches gathered into one; def->worlds index view's worlds)
 * drawn as tp_batch_render draws a batch in that state, to the same bytes.
 * Errors as tp_batch_render, and TP_ERR_INVALID_ARGUMENT for a NULL model or
 * view or a view whose body count is not the model's. */
tp_status tp_render_state(const tp_model *model, const tp_state_view *view, const tp_render_def *def, uint8_t *rgb);

/* The box tp_batch_render frames when def->has_view_box is 0: the world-frame
 * bounds (m; min x, y, z, max x, y, z) of the dynamic bodies of the worlds def
 * names, each body's origin +- its bounding radius; a box of +-1 m about the
 * origin when there is none. Errors as tp_batch_render (width, height and
 * view box are not read). */
tp_status tp_batch_render_box(tp_batch *batch, const tp_render_def *def, float box[6]);

/* tp_batch_render_box from a state view (as tp_render_state). */
tp_status tp_render_state_box(const tp_model *model, const tp_state_view *view, const tp_render_def *def, float box[6]);

#endif
