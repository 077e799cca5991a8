/* plot.h - pictures of a run: awake.png (awake bodies over time) and
 * snapshot.png (worlds drawn at one time, bodies colored by sleep state).
 *
 * Drawn with cairo (a well-kept Debian library, libcairo2, with PNG output
 * built in and no runtime dependencies beyond the library; docs/pictures.md).
 * Without cairo at build time every call prints why nothing was drawn and
 * returns 0; the rest of the CLI is unaffected. */
#ifndef TP_PLOT_H
#define TP_PLOT_H

#include "torpor.h"

/* Awake counts across worlds at each recorded sample. */
typedef struct tp_awake_series {
    int count, capacity;
    double *time;          /* s */
    int *min, *median, *max; /* awake bodies per world */
    long long *total;      /* awake bodies summed over worlds */
} tp_awake_series;

/* Append one sample: the awake counts of all worlds of a state view. Returns 0
 * when out of memory (the series then stops growing). */
int tp_series_add(tp_awake_series *s, double time, const tp_state_view *view);
void tp_series_free(tp_awake_series *s);

/* What awake.png shows besides the series. */
typedef struct tp_awake_plot_info {
    const char *scene_name;
    int worlds, dynamic_bodies;
    const double *all_asleep_time; /* [worlds], < 0 when the world never fell asleep */
    double end_time;               /* s, simulated time at the end of the run */
} tp_awake_plot_info;

/* 1 if this build can draw pictures. */
int tp_plot_available(void);

#ifdef TP_HAVE_CAIRO
#include <cairo.h>
/* Write surf to path as PNG, then free cr and surf and cairo's static caches.
 * Returns 1, or 0 after printing why the file could not be written. */
int tp_plot_write_png(cairo_t *cr, cairo_surface_t *surf, const char *path);
/* Write an RGB image ([height][width][3] uint8, tp_batch_render's layout) to path as PNG. */
int tp_plot_write_rgb_png(const uint8_t *rgb, int width, int height, const char *path);
#endif

/* Write `path` (PNG). Returns 1 on success; prints the reason otherwise. */
int tp_plot_awake(const char *path, const tp_awake_series *s, const tp_awake_plot_info *info);

/* Draw up to 16 worlds of a state view of `model` (worlds 0 first) at
 * simulated time `time` (s) into `path` (PNG). */
int tp_plot_snapshot(const char *path, const tp_model *model, double time, const tp_state_view *view);

#endif
