/* plot.c - awake.png: awake bodies per world over time, and the awake series.
 *
 * Top panel: median awake bodies per world (line) inside the min-max band
 * across worlds, with a tick under the time axis at each world's all-asleep
 * time. Bottom panel: total awake bodies over all worlds. Drawn with cairo
 * (docs/pictures.md says why). */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TP_HAVE_CAIRO
#include <cairo.h>
#endif

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int series_grow(tp_awake_series *s)
{
    int cap = s->capacity ? 2 * s->capacity : 256;
    double *t = realloc(s->time, (size_t)cap * sizeof *t);
    if (t) s->time = t;
    int *a = realloc(s->min, (size_t)cap * sizeof *a);
    if (a) s->min = a;
    int *m = realloc(s->median, (size_t)cap * sizeof *m);
    if (m) s->median = m;
    int *x = realloc(s->max, (size_t)cap * sizeof *x);
    if (x) s->max = x;
    long long *tot = realloc(s->total, (size_t)cap * sizeof *tot);
    if (tot) s->total = tot;
    if (!t || !a || !m || !x || !tot) return 0;
    s->capacity = cap;
    return 1;
}

int tp_series_add(tp_awake_series *s, double time, const tp_state_view *view)
{
    if (s->count == s->capacity && !series_grow(s)) return 0;
    int W = view->worlds;
    int *sorted = malloc((size_t)W * sizeof *sorted);
    if (!sorted) return 0;
    long long total = 0;
    for (int w = 0; w < W; ++w) {
        sorted[w] = view->awake_count[w];
        total += view->awake_count[w];
    }
    qsort(sorted, (size_t)W, sizeof *sorted, cmp_int);
    int i = s->count++;
    s->time[i] = time;
    s->min[i] = sorted[0];
    s->median[i] = sorted[W / 2];
    s->max[i] = sorted[W - 1];
    s->total[i] = total;
    free(sorted);
    return 1;
}

void tp_series_free(tp_awake_series *s)
{
    free(s->time);
    free(s->min);
    free(s->median);
    free(s->max);
    free(s->total);
    memset(s, 0, sizeof *s);
}

#ifndef TP_HAVE_CAIRO

int tp_plot_available(void) { return 0; }

int tp_plot_awake(const char *path, const tp_awake_series *s, const tp_awake_plot_info *info)
{
    (void)s;
    (void)info;
    fprintf(stderr, "torpor: %s not written: this build of torpor has no cairo (install libcairo2-dev and rebuild)\n",
            path);
    return 0;
}

#else

int tp_plot_available(void) { return 1; }

int tp_plot_write_png(cairo_t *cr, cairo_surface_t *surf, const char *path)
{
    cairo_status_t st = cairo_surface_write_to_png(surf, path);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    cairo_debug_reset_static_data(); /* drop cairo's font caches: nothing of cairo is alive now, and the
                                        sanitizer build's leak check stays clean */
    if (st != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "torpor: cannot write %s: %s\n", path, cairo_status_to_string(st));
        return 0;
    }
    return 1;
}

/* LeakSanitizer hook (read only by sanitizer builds): fontconfig, which cairo
 * uses for text, keeps its configuration in a global cache that only FcFini
 * frees, and cairo never calls it. That is one-off process state, not a leak
 * of ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }

/* A tick step of 1, 2 or 5 x 10^k giving about `target` ticks over [0, span]. */
static double nice_step(double span, int target)
{
    if (!(span > 0.0)) return 1.0;
    double raw = span / target, mag = pow(10.0, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * mag;
}

/* Number of steps of `step` that fit in [0, span] (a tick at each, and at 0),
 * counted rather than found by adding `step` to a running value: with a span
 * of 1e-30 s such a loop's 1e-9 slack was 1e21 ticks, and far from 0 the sum
 * stops moving. At most 100: nice_step aims at 5 to 8. */
static int tick_count(double span, double step)
{
    if (!(span > 0.0) || !(step > 0.0)) return 0;
    double n = floor(span / step * (1.0 + 1e-9));
    return n > 100.0 ? 100 : (int)n;
}

/* A plot area in pixels and the data range it maps. */
typedef struct panel {
    double x, y, w, h;       /* pixels: left, top, width, height */
    double t0, t1, y0, y1;   /* data range */
} panel;

static double px(const panel *p, double t) { return p->x + (t - p->t0) / (p->t1 - p->t0) * p->w; }
static double py(const panel *p, double v) { return p->y + p->h - (v - p->y0) / (p->y1 - p->y0) * p->h; }

static void text_at(cairo_t *cr, double x, double y, const char *s, double align_x, double align_y)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - align_x * e.width - e.x_bearing, y - align_y * e.height - e.y_bearing);
    cairo_show_text(cr, s);
}

/* Frame, grid, tick labels and axis labels of a panel. */
static void draw_axes(cairo_t *cr, const panel *p, const char *ylabel, int time_labels)
{
    char buf[64];
    cairo_set_font_size(cr, 12);
    cairo_set_line_width(cr, 1.0);
    double ys = nice_step(p->y1 - p->y0, 5);
    for (int i = 0, n = tick_count(p->y1, ys); i <= n; ++i) {
        double v = i * ys;
        cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
        cairo_move_to(cr, p->x, py(p, v));
        cairo_line_to(cr, p->x + p->w, py(p, v));
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        snprintf(buf, sizeof buf, "%g", v);
        text_at(cr, p->x - 6, py(p, v), buf, 1.0, 0.5);
    }
    double ts = nice_step(p->t1 - p->t0, 8);
    for (int i = 0, n = tick_count(p->t1, ts); i <= n; ++i) {
        double t = i * ts;
        cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
        cairo_move_to(cr, px(p, t), p->y);
        cairo_line_to(cr, px(p, t), p->y + p->h);
        cairo_stroke(cr);
        if (!time_labels) continue;
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        snprintf(buf, sizeof buf, "%g", t);
        text_at(cr, px(p, t), p->y + p->h + 16, buf, 0.5, 0.0);
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cr);
    cairo_save(cr);
    cairo_translate(cr, p->x - 52, p->y + p->h / 2);
    cairo_rotate(cr, -1.5707963267948966);
    cairo_set_font_size(cr, 13);
    text_at(cr, 0, 0, ylabel, 0.5, 0.5);
    cairo_restore(cr);
}

/* Min-max band and median line of the top panel. */
static void draw_band(cairo_t *cr, const panel *p, const tp_awake_series *s)
{
    cairo_set_source_rgba(cr, 0.84, 0.15, 0.16, 0.22);
    cairo_move_to(cr, px(p, s->time[0]), py(p, s->max[0]));
    for (int i = 1; i < s->count; ++i) cairo_line_to(cr, px(p, s->time[i]), py(p, s->max[i]));
    for (int i = s->count - 1; i >= 0; --i) cairo_line_to(cr, px(p, s->time[i]), py(p, s->min[i]));
    cairo_close_path(cr);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.72, 0.08, 0.1);
    cairo_set_line_width(cr, 2.0);
    cairo_move_to(cr, px(p, s->time[0]), py(p, s->median[0]));
    for (int i = 1; i < s->count; ++i) cairo_line_to(cr, px(p, s->time[i]), py(p, s->median[i]));
    cairo_stroke(cr);
}

/* One tick per world just above the time axis at its all-asleep time. */
static int draw_asleep_ticks(cairo_t *cr, const panel *p, const tp_awake_plot_info *info)
{
    int n = 0;
    cairo_set_source_rgba(cr, 0.1, 0.45, 0.2, 0.55);
    cairo_set_line_width(cr, 1.5);
    for (int w = 0; w < info->worlds; ++w) {
        double t = info->all_asleep_time[w];
        if (t < 0.0) continue;
        ++n;
        cairo_move_to(cr, px(p, t), p->y + p->h);
        cairo_line_to(cr, px(p, t), p->y + p->h - 12);
    }
    cairo_stroke(cr);
    return n;
}

static void draw_total(cairo_t *cr, const panel *p, const tp_awake_series *s)
{
    cairo_set_source_rgb(cr, 0.12, 0.35, 0.7);
    cairo_set_line_width(cr, 2.0);
    cairo_move_to(cr, px(p, s->time[0]), py(p, (double)s->total[0]));
    for (int i = 1; i < s->count; ++i) cairo_line_to(cr, px(p, s->time[i]), py(p, (double)s->total[i]));
    cairo_stroke(cr);
}

/* Legend in the top-right corner of the top panel. */
static void draw_legend(cairo_t *cr, const panel *p, int asleep, int worlds)
{
    char buf[96];
    double x = p->x + p->w - 250, y = p->y + 10;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
    cairo_rectangle(cr, x - 8, y - 4, 250, 66);
    cairo_fill(cr);
    cairo_set_font_size(cr, 12);
    cairo_set_source_rgb(cr, 0.72, 0.08, 0.1);
    cairo_set_line_width(cr, 2.0);
    cairo_move_to(cr, x, y + 8);
    cairo_line_to(cr, x + 24, y + 8);
    cairo_stroke(cr);
    cairo_set_source_rgba(cr, 0.84, 0.15, 0.16, 0.22);
    cairo_rectangle(cr, x, y + 22, 24, 10);
    cairo_fill(cr);
    cairo_set_source_rgba(cr, 0.1, 0.45, 0.2, 0.8);
    cairo_move_to(cr, x + 12, y + 54);
    cairo_line_to(cr, x + 12, y + 42);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    text_at(cr, x + 32, y + 8, "median over worlds", 0.0, 0.5);
    text_at(cr, x + 32, y + 27, "min - max over worlds", 0.0, 0.5);
    snprintf(buf, sizeof buf, "world all asleep (%d of %d)", asleep, worlds);
    text_at(cr, x + 32, y + 48, buf, 0.0, 0.5);
}

int tp_plot_awake(const char *path, const tp_awake_series *s, const tp_awake_plot_info *info)
{
    if (s->count < 1) {
        fprintf(stderr, "torpor: %s not written: no samples were recorded\n", path);
        return 0;
    }
    const int width = 1000, height = 640;
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_t *cr = cairo_create(surf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    double t1 = info->end_time > s->time[s->count - 1] ? info->end_time : s->time[s->count - 1];
    if (!(t1 > 0.0)) t1 = 1.0;
    long long top_total = 1;
    for (int i = 0; i < s->count; ++i) top_total = s->total[i] > top_total ? s->total[i] : top_total;
    panel top = {80, 50, width - 110, 360, 0.0, t1, 0.0, info->dynamic_bodies > 0 ? info->dynamic_bodies : 1};
    panel bottom = {80, 450, width - 110, 140, 0.0, t1, 0.0, (double)top_total * 1.05};
    top.y1 *= 1.3; /* headroom above the data for the legend */

    char title[256];
    snprintf(title, sizeof title, "%s - %d world%s, %d dynamic bodies per world", info->scene_name, info->worlds,
             info->worlds == 1 ? "" : "s", info->dynamic_bodies);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_font_size(cr, 16);
    text_at(cr, width / 2.0, 24, title, 0.5, 0.5);

    draw_axes(cr, &top, "awake bodies per world", 0);
    draw_band(cr, &top, s);
    int asleep = draw_asleep_ticks(cr, &top, info);
    draw_legend(cr, &top, asleep, info->worlds);
    draw_axes(cr, &bottom, "total awake", 1);
    draw_total(cr, &bottom, s);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_font_size(cr, 13);
    text_at(cr, bottom.x + bottom.w / 2, height - 12, "simulated time (s)", 0.5, 0.5);

    return tp_plot_write_png(cr, surf, path);
}

#endif
