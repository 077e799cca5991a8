/* snapshot.c - snapshot.png: up to 16 worlds drawn at one time by the library's
 * renderer (tp_render_state, csrc/render.c), under a title and the colour legend. */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SNAP_MAX_WORLDS 16

#ifndef TP_HAVE_CAIRO

int tp_plot_snapshot(const char *path, const tp_model *model, double time, const tp_state_view *view)
{
    (void)model, (void)time, (void)view;
    fprintf(stderr, "torpor: %s not written: this build of torpor has no cairo (install libcairo2-dev and rebuild)\n",
            path);
    return 0;
}

#else

int tp_plot_write_rgb_png(const uint8_t *rgb, int width, int height, const char *path)
{
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_surface_flush(surf);
    unsigned char *data = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf);
    for (int y = 0; data && y < height; ++y) {
        uint32_t *row = (uint32_t *)(data + (size_t)y * (size_t)stride);
        const uint8_t *in = rgb + (size_t)y * (size_t)width * 3;
        for (int x = 0; x < width; ++x)
            row[x] = (uint32_t)in[3 * x] << 16 | (uint32_t)in[3 * x + 1] << 8 | (uint32_t)in[3 * x + 2];
    }
    cairo_surface_mark_dirty(surf);
    return tp_plot_write_png(cairo_create(surf), surf, path);
}

int tp_plot_snapshot(const char *path, const tp_model *model, double time, const tp_state_view *view)
{
    int n = view->worlds < SNAP_MAX_WORLDS ? view->worlds : SNAP_MAX_WORLDS;
    int cols = (int)ceil(sqrt((double)n)), rows = (n + cols - 1) / cols;
    double cw = cols == 1 ? 720 : cols == 2 ? 520 : 360, ch = cw * 0.85;
    char title[256];
    snprintf(title, sizeof title, "%s at t = %.3f s (worlds 0-%d of %d)", tp_model_name(model), time, n - 1,
             view->worlds);
    tp_render_def rd = tp_default_render_def();
    rd.width = (int)(cols * cw);
    rd.height = (int)(rows * ch) + 60;
    rd.world_count = n;
    rd.labels = 1;
    rd.title = title;
    uint8_t *rgb = malloc((size_t)rd.width * (size_t)rd.height * 3);
    if (!rgb) {
        fprintf(stderr, "torpor: %s not written: out of memory\n", path);
        return 0;
    }
    tp_status st = tp_render_state(model, view, &rd, rgb);
    int ok = st == TP_OK && tp_plot_write_rgb_png(rgb, rd.width, rd.height, path);
    if (st != TP_OK) fprintf(stderr, "torpor: %s not written: %s\n", path, tp_last_error());
    free(rgb);
    return ok;
}

#endif
